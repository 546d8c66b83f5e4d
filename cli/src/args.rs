//! The command line's arguments, as clap reads them.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

/// What `mcpweft --help` shows after the commands.
const EXAMPLES: &str = "\
Every command but proxy, gateway and logout takes a target: a command after `--` (a stdio server), `--url URL`
(Streamable HTTP, or the deprecated HTTP+SSE transport) or `--config FILE [--server NAME]` (a
server of an `mcpServers` file, as Claude Desktop, Cursor and VS Code write it).

Examples:
  mcpweft tools -- npx -y @modelcontextprotocol/server-everything
  mcpweft call add '{\"a\": 2, \"b\": 3}' -- ./calculator_server
  mcpweft inspect --url http://127.0.0.1:8080/mcp --bearer-env API_TOKEN
  mcpweft read calc://constants --config servers.json --server calc
  mcpweft proxy https://example.com/mcp --header 'X-Team: blue'
  mcpweft proxy https://example.com/mcp --scope mcp:read
  mcpweft gateway --config servers.json --listen 127.0.0.1:8080
  mcpweft proxy --listen 127.0.0.1:8080 -- ./calculator_server

Exit codes: 0 success, 1 the call failed or the tool reported an error, 2 usage or
configuration error, 3 the server could not be started or reached.
A server reached over HTTP that asks for OAuth (401 naming its Protected Resource Metadata) is
logged in to (a browser, or --grant client_credentials); the tokens are kept per server in
$XDG_CONFIG_HOME/mcpweft/tokens (~/.config/mcpweft/tokens; on Windows %APPDATA%\\mcpweft\\tokens).
Logs go to stderr; MCPWEFT_LOG sets their filter (such as `debug` or `mcpweft=trace`).";

/// The `mcpweft` command.
#[derive(Debug, Parser)]
#[command(
    name = "mcpweft",
    version,
    about = "Lists, calls and reads what an MCP server offers, proxies stdio to Streamable HTTP, and serves many servers at one endpoint.",
    after_help = EXAMPLES,
    propagate_version = true,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub(crate) struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Lists the tools of a server, one per line with its description.
    #[command(after_help = "Examples:
  mcpweft tools -- ./calculator_server
  mcpweft tools --json --url http://127.0.0.1:8080/mcp")]
    #[command(
        override_usage = "mcpweft tools [OPTIONS] (--url URL | --config FILE [--server NAME] | -- COMMAND [ARGS]...)"
    )]
    Tools(ListArgs),
    /// Calls a tool with JSON arguments and prints its result.
    ///
    /// Prints the text content of the result and its structured content as indented JSON (text
    /// that only repeats the structured content is left out); with --json, the exact result.
    /// A result with isError set exits with code 1.
    #[command(after_help = r#"Examples:
  mcpweft call add '{"a": 2, "b": 3}' -- ./calculator_server
  echo '{"n": 5}' | mcpweft call count - --progress -- ./calculator_server
  mcpweft call search '{"query": "mcp"}' --json --config servers.json --server search"#)]
    #[command(
        override_usage = "mcpweft call [OPTIONS] NAME [JSON] (--url URL | --config FILE [--server NAME] | -- COMMAND [ARGS]...)"
    )]
    Call(CallArgs),
    /// Lists the resources and resource templates of a server.
    #[command(after_help = "Examples:
  mcpweft resources -- ./calculator_server
  mcpweft resources --json --config servers.json --server files")]
    #[command(
        override_usage = "mcpweft resources [OPTIONS] (--url URL | --config FILE [--server NAME] | -- COMMAND [ARGS]...)"
    )]
    Resources(ListArgs),
    /// Reads a resource and prints its text contents.
    ///
    /// Binary contents are named on stderr; --json prints the exact result, with them.
    #[command(after_help = "Examples:
  mcpweft read calc://constants -- ./calculator_server
  mcpweft read calc://constants/pi --json --url http://127.0.0.1:8080/mcp")]
    #[command(
        override_usage = "mcpweft read [OPTIONS] URI (--url URL | --config FILE [--server NAME] | -- COMMAND [ARGS]...)"
    )]
    Read(ReadArgs),
    /// Lists the prompts of a server with their arguments.
    #[command(after_help = "Examples:
  mcpweft prompts -- ./calculator_server
  mcpweft prompts --json --url http://127.0.0.1:8080/mcp")]
    #[command(
        override_usage = "mcpweft prompts [OPTIONS] (--url URL | --config FILE [--server NAME] | -- COMMAND [ARGS]...)"
    )]
    Prompts(ListArgs),
    /// Gets a prompt with JSON arguments and prints its messages.
    #[command(after_help = r#"Examples:
  mcpweft get explain '{"expression": "2 + 3"}' -- ./calculator_server
  mcpweft get explain '{"expression": "2 + 3"}' --json --url http://127.0.0.1:8080/mcp"#)]
    #[command(
        override_usage = "mcpweft get [OPTIONS] NAME [JSON] (--url URL | --config FILE [--server NAME] | -- COMMAND [ARGS]...)"
    )]
    Get(GetArgs),
    /// Prints everything a server offers.
    ///
    /// Its name and version, protocol version, capabilities, instructions, tools (with their
    /// parameters, `?` after the optional ones), resources, resource templates and prompts.
    #[command(after_help = "Examples:
  mcpweft inspect -- ./calculator_server
  mcpweft inspect --json --config servers.json --server github")]
    #[command(
        override_usage = "mcpweft inspect [OPTIONS] (--url URL | --config FILE [--server NAME] | -- COMMAND [ARGS]...)"
    )]
    Inspect(ListArgs),
    /// Serves a remote Streamable HTTP (or HTTP+SSE) server over stdio, for clients that only
    /// speak stdio; with --listen, serves a stdio server over Streamable HTTP.
    ///
    /// Every message passes through as it is, in both directions: requests, notifications,
    /// the server's own requests (sampling, elicitation, roots), progress and cancellation, in
    /// every protocol revision. A session the server forgot (HTTP 404) is initialized again with
    /// the client's own initialize request, and the message sent again. stdout carries only the
    /// protocol; logs go to stderr.
    ///
    /// With --listen HOST:PORT -- COMMAND, each HTTP session gets a process of its own, started
    /// on its initialize and ended with the session (DELETE, or idle for
    /// --session-idle-timeout); a process that exits ends its session, and the client's next
    /// request gets 404. Requests of no session (revision 2026-07-28, --stateless) share one
    /// process, their ids rewritten so that clients cannot collide. With --redis, proxies behind
    /// a load balancer without session affinity share their sessions: a session's process runs
    /// in the proxy that initialized it, and the others forward its messages there.
    ///
    /// A server that asks for OAuth (401 naming its Protected Resource Metadata) is logged in
    /// to: by default a user signs in in a browser (the URL is printed on stderr, and opened
    /// with $BROWSER, or the system's opener), which comes back to a loopback port of the
    /// proxy; --grant client_credentials logs the client in as itself, and --id-token-env with
    /// --idp-token-endpoint uses the user's sign-in at an enterprise identity provider. The
    /// tokens are kept per server (--token-store), so that the next run signs in no more, and
    /// refreshed when they expire.
    #[command(after_help = r#"Examples:
  mcpweft proxy https://example.com/mcp --bearer-env EXAMPLE_TOKEN
  mcpweft proxy http://127.0.0.1:8080/mcp --header 'X-Team: blue'
  mcpweft proxy https://example.com/mcp --scope mcp:read --redirect-port 8765
  mcpweft proxy https://example.com/mcp --grant client_credentials --client-id ci --client-secret-env CI_SECRET
  mcpweft proxy https://example.com/mcp --client-id mcp-client --id-token-env ID_TOKEN \
    --idp-token-endpoint https://idp.example.com/oauth2/token
  mcpweft proxy --listen 127.0.0.1:8080 -- ./calculator_server
  mcpweft proxy --listen 0.0.0.0:8080 --allowed-host mcp.example.com --allow-remote -- npx -y @modelcontextprotocol/server-everything

In a client's configuration:
  { "mcpServers": { "remote": { "command": "mcpweft",
      "args": ["proxy", "https://example.com/mcp", "--bearer-env", "EXAMPLE_TOKEN"] } } }"#)]
    Proxy(ProxyArgs),
    /// Serves every server of an `mcpServers` file at one Streamable HTTP endpoint.
    ///
    /// Tools and prompts are offered as `server__name` (each server's `prefix`, its name by
    /// default), resources and templates under their own URIs; the file's allowedTools and
    /// deniedTools apply, and a name two servers offer is left out. A server that exits is
    /// started again, and when a server's lists change the gateway's clients are told. Progress
    /// and cancellation pass through. A server's request for input (sampling, elicitation,
    /// roots) goes to the client whose request is waiting on that server when there is exactly
    /// one; otherwise the server gets an error. With --no-prefix every server keeps its own
    /// names: with one server the gateway is a plain reverse proxy. With --redis, gateways
    /// behind a load balancer without session affinity share their sessions. Prints `listening
    /// on URL` on stderr once it serves.
    #[command(after_help = r#"Examples:
  mcpweft gateway --config servers.json --listen 127.0.0.1:8080
  mcpweft gateway --config one-server.json --listen 127.0.0.1:9000 --no-prefix --path /
  mcpweft gateway --config servers.json --listen 0.0.0.0:8443 --allowed-host mcp.example.com \
    --auth-resource https://mcp.example.com/mcp --auth-issuer https://auth.example.com \
    --auth-jwks-url https://auth.example.com/.well-known/jwks.json --auth-scope mcp"#)]
    Gateway(GatewayArgs),
    /// Forgets the OAuth tokens and client registration kept for a server, so that the next
    /// command reaching it logs in again.
    #[command(after_help = "Examples:
  mcpweft logout https://example.com/mcp
  mcpweft logout http://127.0.0.1:8080/mcp --token-store ./tokens")]
    Logout(LogoutArgs),
}

/// How a result is printed.
#[derive(Debug, Args)]
pub(crate) struct OutputArgs {
    /// Prints the exact JSON result instead of text, for scripts.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The arguments of the commands that take only a target.
#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// How the result is printed.
    #[command(flatten)]
    pub(crate) output: OutputArgs,
    /// The server.
    #[command(flatten)]
    pub(crate) target: TargetArgs,
}

/// The arguments of `call`.
#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// The name of the tool.
    pub(crate) name: String,
    /// The arguments: a JSON object, or `-` to read it from stdin. None by default.
    #[arg(value_name = "JSON")]
    pub(crate) arguments: Option<String>,
    /// Shows the call's progress notifications on stderr even when it is not a terminal (on a
    /// terminal they are always shown).
    #[arg(long)]
    pub(crate) progress: bool,
    /// How the result is printed.
    #[command(flatten)]
    pub(crate) output: OutputArgs,
    /// The server.
    #[command(flatten)]
    pub(crate) target: TargetArgs,
}

/// The arguments of `read`.
#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    /// The URI of the resource.
    pub(crate) uri: String,
    /// How the result is printed.
    #[command(flatten)]
    pub(crate) output: OutputArgs,
    /// The server.
    #[command(flatten)]
    pub(crate) target: TargetArgs,
}

/// The arguments of `get`.
#[derive(Debug, Args)]
pub(crate) struct GetArgs {
    /// The name of the prompt.
    pub(crate) name: String,
    /// The arguments: a JSON object whose values are strings (numbers and booleans are written
    /// as text), or `-` to read it from stdin. None by default.
    #[arg(value_name = "JSON")]
    pub(crate) arguments: Option<String>,
    /// How the result is printed.
    #[command(flatten)]
    pub(crate) output: OutputArgs,
    /// The server.
    #[command(flatten)]
    pub(crate) target: TargetArgs,
}

/// The HTTP side of a connection: headers and a bearer token.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct HttpArgs {
    /// Adds a header to every HTTP request, as 'NAME: VALUE' (repeatable). `${VAR}` in the
    /// value is replaced by the environment variable VAR, as in a configuration file.
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
    pub(crate) headers: Vec<String>,
    /// Sends `Authorization: Bearer <token>` with the token read from the environment variable
    /// VAR, so that it stays out of the command line.
    #[arg(long, value_name = "VAR")]
    pub(crate) bearer_env: Option<String>,
}

/// How a client gets its OAuth tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum Grant {
    /// A user signs in in a browser (the authorization code flow with PKCE).
    #[default]
    #[value(name = "authorization_code")]
    AuthorizationCode,
    /// The client signs in as itself with its id and secret, without a browser.
    #[value(name = "client_credentials")]
    ClientCredentials,
}

/// How a server reached over HTTP is logged in to when it asks for OAuth: it answers 401 with
/// a `WWW-Authenticate` challenge, and the core's OAuth client discovers its authorization
/// server from its Protected Resource Metadata.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct LoginArgs {
    /// The client id registered at the authorization server; by default the command registers
    /// itself there (dynamic registration) and keeps that registration with the tokens.
    #[arg(long, value_name = "ID")]
    pub(crate) client_id: Option<String>,
    /// Reads the secret of --client-id from the environment variable VAR, so that it stays out
    /// of the command line.
    #[arg(long, value_name = "VAR", requires = "client_id")]
    pub(crate) client_secret_env: Option<String>,
    /// A scope to ask for (repeatable); by default those the server names in its challenge or
    /// its metadata.
    #[arg(long = "scope", value_name = "SCOPE")]
    pub(crate) scopes: Vec<String>,
    /// How the tokens are got: authorization_code, a user signing in in a browser (the
    /// default), or client_credentials, the client signing in as itself without a browser
    /// (with --client-id and --client-secret-env).
    #[arg(
        long,
        value_enum,
        value_name = "GRANT",
        default_value_t = Grant::AuthorizationCode,
        requires_ifs = [("client_credentials", "client_id"), ("client_credentials", "client_secret_env")]
    )]
    pub(crate) grant: Grant,
    /// Enterprise-managed authorization: reads the user's ID token from the enterprise identity
    /// provider in the environment variable VAR, exchanges it there for an identity assertion
    /// for this server's authorization server, and trades that for an access token, without a
    /// browser. Needs --idp-token-endpoint and --client-id (the client at the server's
    /// authorization server; --client-secret-env its secret, if it has one).
    #[arg(long, value_name = "VAR", requires_all = ["idp_token_endpoint", "client_id"], conflicts_with = "grant")]
    pub(crate) id_token_env: Option<String>,
    /// The token endpoint of the enterprise identity provider, where --id-token-env's token is
    /// exchanged.
    #[arg(long, value_name = "URL", requires = "id_token_env")]
    pub(crate) idp_token_endpoint: Option<String>,
    /// The client id at the enterprise identity provider, if it wants one in the exchange.
    #[arg(long, value_name = "ID", requires = "id_token_env")]
    pub(crate) idp_client_id: Option<String>,
    /// The loopback port the browser comes back to after signing in
    /// (http://127.0.0.1:PORT/callback); 0, the default, picks a free one.
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub(crate) redirect_port: u16,
    /// Only prints the sign-in URL on stderr, without opening a browser.
    #[arg(long)]
    pub(crate) no_browser: bool,
    /// Where the tokens are kept, one file per server: a directory, or `none` to keep them in
    /// memory for this run only. By default $XDG_CONFIG_HOME/mcpweft/tokens, or
    /// ~/.config/mcpweft/tokens (on Windows %APPDATA%\mcpweft\tokens).
    #[arg(long, value_name = "DIR|none")]
    pub(crate) token_store: Option<String>,
}

/// The arguments of `logout`.
#[derive(Debug, Args)]
pub(crate) struct LogoutArgs {
    /// The URL of the server, as it was given to --url or proxy.
    pub(crate) url: String,
    /// Where the tokens are kept, as --token-store of the other commands.
    #[arg(long, value_name = "DIR")]
    pub(crate) token_store: Option<String>,
}

/// Which server a command talks to.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("server_target").required(true).args(["url", "config", "command"])))]
pub(crate) struct TargetArgs {
    /// The URL of a Streamable HTTP server (an HTTP+SSE endpoint of protocol 2024-11-05 is
    /// recognized too).
    #[arg(long, value_name = "URL", help_heading = "Target")]
    pub(crate) url: Option<String>,
    /// The HTTP headers and token of --url.
    #[command(flatten, next_help_heading = "Target")]
    pub(crate) http: HttpArgs,
    /// How --url and the HTTP servers of --config are logged in to when they ask for OAuth.
    #[command(flatten, next_help_heading = "OAuth login")]
    pub(crate) login: LoginArgs,
    /// A configuration file with an `mcpServers` (or `servers`) object.
    #[arg(long, value_name = "FILE", help_heading = "Target")]
    pub(crate) config: Option<PathBuf>,
    /// The server of --config to use; it may be left out when the file has only one.
    #[arg(long, value_name = "NAME", help_heading = "Target")]
    pub(crate) server: Option<String>,
    /// Sets an environment variable of a server started from a command (repeatable).
    #[arg(long = "env", short = 'e', value_name = "NAME=VALUE", help_heading = "Target")]
    pub(crate) env: Vec<String>,
    /// How long a request may wait without an answer or progress, in seconds; by default the
    /// server's `timeoutMs` in --config, otherwise 60.
    #[arg(long, value_name = "SECONDS", help_heading = "Target")]
    pub(crate) timeout: Option<f64>,
    /// The server to start, after `--`: a program and its arguments, spoken to over stdio.
    #[arg(last = true, value_name = "COMMAND", help_heading = "Target")]
    pub(crate) command: Vec<String>,
}

/// The arguments of `proxy`: a URL to serve over stdio, or `--listen` and a command to serve
/// over Streamable HTTP.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("proxy_side").required(true).args(["url", "listen"])))]
pub(crate) struct ProxyArgs {
    /// The URL of the remote MCP endpoint, served over stdio.
    #[arg(conflicts_with_all = ["listen", "command"])]
    pub(crate) url: Option<String>,
    /// Its headers and token.
    #[command(flatten)]
    pub(crate) http: HttpArgs,
    /// How it is logged in to when it asks for OAuth.
    #[command(flatten, next_help_heading = "OAuth login")]
    pub(crate) login: LoginArgs,
    /// Serves the command after `--` over Streamable HTTP at this address, as HOST:PORT (or
    /// PORT alone, on 127.0.0.1; port 0 picks a free one). The URL is printed on stderr.
    #[arg(long, value_name = "HOST:PORT", requires = "command", help_heading = "Serving over HTTP")]
    pub(crate) listen: Option<String>,
    /// The path of the MCP endpoint.
    #[arg(long, value_name = "PATH", default_value = "/mcp", requires = "listen", help_heading = "Serving over HTTP")]
    pub(crate) path: String,
    /// Accepts this `Host` header (`name` or `name:port`, repeatable) instead of the loopback
    /// names; needed to listen on an address other than loopback.
    #[arg(long = "allowed-host", value_name = "HOST", requires = "listen", help_heading = "Serving over HTTP")]
    pub(crate) allowed_hosts: Vec<String>,
    /// Accepts this `Origin` header (repeatable) instead of the origins of the allowed hosts.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "listen", help_heading = "Serving over HTTP")]
    pub(crate) allowed_origins: Vec<String>,
    /// Keeps no sessions: every request is relayed to one process shared by all clients.
    #[arg(long, requires = "listen", help_heading = "Serving over HTTP")]
    pub(crate) stateless: bool,
    /// Ends a session (and its process) unused for this many seconds (1800 by default).
    #[arg(long, value_name = "SECONDS", requires = "listen", help_heading = "Serving over HTTP")]
    pub(crate) session_idle_timeout: Option<f64>,
    /// Sends a keep-alive comment on an idle event stream every this many seconds (15 by
    /// default; 0 sends none), which also tells the proxy soon when a client has gone.
    #[arg(long, value_name = "SECONDS", requires = "listen", help_heading = "Serving over HTTP")]
    pub(crate) keep_alive: Option<f64>,
    /// Accepts a request whose `MCP-Protocol-Version` header names any supported version, not
    /// only the one its session negotiated, for clients that send a stale one.
    #[arg(long, requires = "listen", help_heading = "Serving over HTTP")]
    pub(crate) any_version_header: bool,
    /// Lets a non-loopback --listen address serve without authorization, to anyone who
    /// reaches it.
    #[arg(long, requires = "listen", help_heading = "Serving over HTTP")]
    pub(crate) allow_remote: bool,
    /// Sets an environment variable of the command (repeatable).
    #[arg(
        long = "env",
        short = 'e',
        value_name = "NAME=VALUE",
        requires = "listen",
        help_heading = "Serving over HTTP"
    )]
    pub(crate) env: Vec<String>,
    /// The stdio server to start for each HTTP session, after `--`: a program and its
    /// arguments.
    #[arg(last = true, value_name = "COMMAND", help_heading = "Serving over HTTP")]
    pub(crate) command: Vec<String>,
    /// Cluster mode, with --listen.
    #[command(flatten, next_help_heading = "Cluster mode (with --listen)")]
    pub(crate) cluster: ClusterArgs,
}

/// The arguments of `gateway`.
#[derive(Debug, Args)]
pub(crate) struct GatewayArgs {
    /// A configuration file with an `mcpServers` (or `servers`) object.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: PathBuf,
    /// The address to listen on, as HOST:PORT (port 0 picks a free one).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
    pub(crate) listen: String,
    /// The path of the MCP endpoint.
    #[arg(long, value_name = "PATH", default_value = "/mcp")]
    pub(crate) path: String,
    /// Offers every server's tools and prompts under their own names, without the prefix.
    #[arg(long)]
    pub(crate) no_prefix: bool,
    /// Accepts this `Host` header (repeatable); by default only the loopback names.
    #[arg(long = "allowed-host", value_name = "HOST[:PORT]")]
    pub(crate) allowed_hosts: Vec<String>,
    /// Accepts this `Origin` header (repeatable); by default the origins of the allowed hosts.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub(crate) allowed_origins: Vec<String>,
    /// Lets the gateway listen on an address other than loopback without authorization, so that
    /// anyone who reaches it can use every server behind it.
    #[arg(long)]
    pub(crate) allow_remote_without_auth: bool,
    /// Accepts any supported `MCP-Protocol-Version` header in a session, not only the version
    /// the session negotiated, for clients that send a stale one.
    #[arg(long)]
    pub(crate) any_protocol_version: bool,
    /// The OAuth protection of the gateway's endpoint.
    #[command(flatten, next_help_heading = "Authorization")]
    pub(crate) auth: GatewayAuthArgs,
    /// How the servers whose `oauth` settings ask for it are logged in to.
    #[command(flatten, next_help_heading = "OAuth login to the servers")]
    pub(crate) login: LoginArgs,
    /// Cluster mode.
    #[command(flatten, next_help_heading = "Cluster mode")]
    pub(crate) cluster: ClusterArgs,
}

/// The OAuth protection of the gateway: every request needs a bearer token (a JWT) that the
/// authorization server issued for the gateway's URL.
#[derive(Debug, Args)]
pub(crate) struct GatewayAuthArgs {
    /// Protects the gateway: its canonical URL, such as https://mcp.example.com/mcp, which
    /// tokens must be issued for (their audience) and which its Protected Resource Metadata
    /// names.
    #[arg(long, value_name = "URL")]
    pub(crate) auth_resource: Option<String>,
    /// The issuer of the authorization server whose tokens the gateway accepts (their `iss`).
    #[arg(long, value_name = "URL", requires = "auth_resource")]
    pub(crate) auth_issuer: Option<String>,
    /// The URL of that server's signing keys (its JWKS), fetched when needed.
    #[arg(long, value_name = "URL", requires = "auth_resource", conflicts_with = "auth_jwks_file")]
    pub(crate) auth_jwks_url: Option<String>,
    /// A file with that server's signing keys (a JWKS document), instead of --auth-jwks-url.
    #[arg(long, value_name = "FILE", requires = "auth_resource")]
    pub(crate) auth_jwks_file: Option<PathBuf>,
    /// A scope every request needs (repeatable); the scopes are published in the metadata.
    #[arg(long = "auth-scope", value_name = "SCOPE", requires = "auth_resource")]
    pub(crate) auth_scopes: Vec<String>,
}

/// Cluster mode: many processes behind a load balancer without session affinity share their
/// sessions through Redis.
#[derive(Debug, Args)]
pub(crate) struct ClusterArgs {
    /// Shares the sessions with the other processes started with the same Redis and prefix,
    /// so that a load balancer may send any request to any of them: redis://HOST:PORT/DB,
    /// rediss:// (TLS) or redis+unix:///PATH. Until Redis answers, requests get 503.
    #[arg(long, value_name = "URL")]
    pub(crate) redis: Option<String>,
    /// The prefix of the cluster's keys and channels in Redis, so that several clusters
    /// share one Redis (by default `mcpweft-proxy` or `mcpweft-gateway`).
    #[arg(long, value_name = "PREFIX", requires = "redis")]
    pub(crate) redis_prefix: Option<String>,
}
