//! The server a command talks to: a target of the command line turned into a host
//! configuration of one server, and the connection the core's host makes to it.
//!
//! The core reads that configuration as it reads an `mcpServers` file (`${VAR}` expansion, the
//! transport, time-outs), starts or reaches the server, and says why it failed with the end of
//! the server's stderr; this module only writes the entry and reports the outcome.

use std::path::Path;

use mcpweft::{
    Client,
    host::{Host, HostConfig, HostHandler, ServerConfig, ServerState},
    model::{Implementation, LoggingLevel, LoggingMessageNotificationParams},
};
use serde_json::{Map, Value, json};

use crate::{
    args::{HttpArgs, TargetArgs},
    failure::Failure,
    login,
};

/// The name of the client in every `initialize` request.
pub(crate) fn client_info() -> Implementation {
    Implementation::new("mcpweft", env!("CARGO_PKG_VERSION"))
}

impl TargetArgs {
    /// The configuration of the one server this target names, and that server's name in it.
    ///
    /// The server keeps the names of its tools and prompts (an empty prefix); `--timeout`
    /// becomes its `timeoutMs`.
    pub(crate) fn host_config(&self) -> Result<(HostConfig, String), Failure> {
        self.check()?;
        let (name, mut entry) = if let Some(url) = &self.url {
            (url.clone(), http_entry(url, &self.http)?)
        } else if let Some(path) = &self.config {
            self.login.check_for_config()?;
            let (name, mut entry) = config_entry(path, self.server.as_deref())?;
            login::login_when_asked(&mut entry);
            (name, entry)
        } else {
            command_entry(&self.command, &self.env)?
        };
        entry.insert("prefix".to_owned(), json!(""));
        if let Some(seconds) = self.timeout {
            entry.insert("timeoutMs".to_owned(), json!(millis(seconds)?));
        }
        let mut servers = Map::new();
        servers.insert(name.clone(), Value::Object(entry));
        let config = HostConfig::from_value(&json!({ "mcpServers": servers }))?;
        Ok((config, name))
    }
}

impl TargetArgs {
    /// Refuses the options that do not go with the kind of target given.
    fn check(&self) -> Result<(), Failure> {
        if let Some(option) = self.login.given()
            && !self.command.is_empty()
        {
            return Err(Failure::usage(format!("{option} goes only with --url or --config")));
        }
        if self.url.is_some() {
            self.login.authorized_by(&self.http)?;
        }
        let misplaced = [
            (!self.http.headers.is_empty(), "--header", self.url.is_none(), "--url"),
            (self.http.bearer_env.is_some(), "--bearer-env", self.url.is_none(), "--url"),
            (self.server.is_some(), "--server", self.config.is_none(), "--config"),
            (!self.env.is_empty(), "--env", self.command.is_empty(), "a command after `--`"),
        ];
        match misplaced.into_iter().find(|(given, _, missing, _)| *given && *missing) {
            Some((_, option, _, needs)) => Err(Failure::usage(format!("{option} goes only with {needs}"))),
            None => Ok(()),
        }
    }
}

/// The entry of a Streamable HTTP server at `url`.
pub(crate) fn http_entry(url: &str, http: &HttpArgs) -> Result<Map<String, Value>, Failure> {
    let mut headers = Map::new();
    for header in &http.headers {
        let (name, value) = header
            .split_once(':')
            .map(|(name, value)| (name.trim(), value.trim()))
            .filter(|(name, _)| !name.is_empty())
            .ok_or_else(|| Failure::usage(format!("the header {header:?} is not written as 'NAME: VALUE'")))?;
        headers.insert(name.to_owned(), json!(value));
    }
    if let Some(var) = &http.bearer_env {
        // The core's expansion reads the variable and names it when it is not set.
        headers.insert("Authorization".to_owned(), json!(format!("Bearer ${{{var}}}")));
    }
    let mut entry = Map::new();
    entry.insert("type".to_owned(), json!("http"));
    entry.insert("url".to_owned(), json!(url));
    entry.insert("headers".to_owned(), Value::Object(headers));
    Ok(entry)
}

/// The entry of a server started from `command`, with the environment variables of `--env`.
pub(crate) fn command_entry(command: &[String], env: &[String]) -> Result<(String, Map<String, Value>), Failure> {
    let Some((program, args)) = command.split_first() else {
        return Err(Failure::usage("no server: give a command after `--`, --url or --config"));
    };
    let mut vars = Map::new();
    for pair in env {
        let (name, value) = pair
            .split_once('=')
            .filter(|(name, _)| !name.is_empty())
            .ok_or_else(|| Failure::usage(format!("the environment variable {pair:?} is not written as NAME=VALUE")))?;
        vars.insert(name.to_owned(), json!(value));
    }
    let mut entry = Map::new();
    entry.insert("command".to_owned(), json!(program));
    entry.insert("args".to_owned(), json!(args));
    entry.insert("env".to_owned(), Value::Object(vars));
    Ok((program.clone(), entry))
}

/// The entry of the server `server` of the configuration file `path`, or of its only server.
///
/// A server the file disables is used all the same, since the command line names it.
fn config_entry(path: &Path, server: Option<&str>) -> Result<(String, Map<String, Value>), Failure> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::usage(format!("cannot read the configuration {shown}: {e}")))?;
    let root: Value = serde_json::from_str(&text)
        .map_err(|e| Failure::usage(format!("the configuration {shown} is not valid JSON: {e}")))?;
    let servers = root
        .get("mcpServers")
        .or_else(|| root.get("servers"))
        .and_then(Value::as_object)
        .ok_or_else(|| Failure::usage(format!("the configuration {shown} has no mcpServers object")))?;
    let names = || servers.keys().map(String::as_str).collect::<Vec<_>>().join(", ");
    let (name, entry) = match server {
        Some(name) => servers.get_key_value(name).ok_or_else(|| {
            Failure::usage(format!("the configuration {shown} has no server {name:?}; it has: {}", names()))
        })?,
        None if servers.len() == 1 => servers.iter().next().ok_or_else(|| Failure::usage("no server"))?,
        None => {
            return Err(Failure::usage(format!(
                "the configuration {shown} has {} servers: name one with --server ({})",
                servers.len(),
                names()
            )));
        }
    };
    let mut entry = entry
        .as_object()
        .cloned()
        .ok_or_else(|| Failure::usage(format!("server {name:?} of {shown} is not an object")))?;
    entry.remove("enabled");
    entry.remove("disabled");
    Ok((name.clone(), entry))
}

/// Whole milliseconds of a positive number of seconds.
fn millis(seconds: f64) -> Result<u64, Failure> {
    let ms = (seconds * 1000.0).round();
    if ms.is_finite() && ms >= 1.0 && ms <= u64::MAX as f64 {
        Ok(ms as u64)
    } else {
        Err(Failure::usage(format!("--timeout {seconds} is not a positive number of seconds")))
    }
}

/// A connected server, through the core's host.
pub(crate) struct Connection {
    host: Host,
    name: String,
    client: Client,
}

impl Connection {
    /// Connects to the server of `target`: a server that cannot be started or reached is a
    /// failure with exit code 3, which says why (its stderr reached ours as it was written).
    pub(crate) async fn open(target: &TargetArgs) -> Result<Self, Failure> {
        let (config, name) = target.host_config()?;
        let builder = Host::builder(config.clone()).with_info(client_info()).with_handler(ServerLogs);
        let builder = match &target.url {
            Some(url) => match target.login.provider(url, &target.http).await? {
                Some(provider) => builder.with_auth_provider(&name, provider),
                None => builder,
            },
            None => target.login.host(builder, &config).await?,
        };
        let host = builder.connect().await?;
        let failure = match host.state(&name) {
            Some(ServerState::Ready) => match host.client(&name) {
                Some(client) => return Ok(Connection { host, name, client }),
                None => Failure::unreachable(format!("the server {name} went away at once")),
            },
            Some(ServerState::Failed { reason, .. }) => {
                Failure::unreachable(format!("cannot connect to {name}: {reason}"))
            }
            state => Failure::unreachable(format!("cannot connect to {name}: it is {state:?}")),
        };
        host.close().await;
        Err(failure)
    }

    /// The host of the one server.
    pub(crate) fn host(&self) -> &Host {
        &self.host
    }

    /// The client of the server.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    /// The server's configuration.
    pub(crate) fn config(&self) -> Option<&ServerConfig> {
        self.host.config(&self.name)
    }

    /// Ends the connection and waits for a started server to exit.
    pub(crate) async fn close(self) {
        self.host.close().await;
    }
}

/// Writes the server's log messages to stderr through `tracing`, at their level (the target
/// `server`), so that `MCPWEFT_LOG` filters them like every other log.
struct ServerLogs;

#[async_trait::async_trait]
impl HostHandler for ServerLogs {
    async fn on_log_message(&self, server: &str, params: LoggingMessageNotificationParams) {
        let logger = params.logger.as_deref().unwrap_or("");
        let data = match &params.data {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        match params.level {
            LoggingLevel::Debug => tracing::debug!(target: "server", server, logger, "{data}"),
            LoggingLevel::Info | LoggingLevel::Notice => tracing::info!(target: "server", server, logger, "{data}"),
            LoggingLevel::Warning => tracing::warn!(target: "server", server, logger, "{data}"),
            _ => tracing::error!(target: "server", server, logger, "{data}"),
        }
    }
}
