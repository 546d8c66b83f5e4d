//! The configuration of a host: the `mcpServers` file that Claude Desktop, Cursor and VS Code
//! read, with environment-variable expansion and the host's own per-server options.

use std::{collections::BTreeMap, path::Path, time::Duration};

use serde_json::Value;

use crate::Error;

/// The separator between a server's prefix and the name of one of its tools or prompts, as in
/// `github__create_issue`: two underscores, which tool names allow everywhere and which names
/// rarely contain.
pub const DEFAULT_SEPARATOR: &str = "__";

/// How many times in a row a server that went away is started again before it is `Failed`.
pub const DEFAULT_MAX_RESTARTS: u32 = 5;

/// The configuration of every server of a host, in the order of the file.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct HostConfig {
    /// The servers, in the order they are configured.
    pub servers: Vec<ServerConfig>,
}

/// How the host reaches one server.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ServerTransport {
    /// A process the host starts and talks to over its stdin and stdout.
    Stdio {
        /// The program to run.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables set for it, beside those the host inherited.
        env: BTreeMap<String, String>,
        /// Its working directory; the host's when `None`.
        cwd: Option<String>,
    },
    /// A server at a URL: Streamable HTTP (`"type": "http"`), or the deprecated HTTP+SSE
    /// transport of 2024-11-05 (`"type": "sse"`).
    Http {
        /// The MCP endpoint (for `sse`, the URL of the event stream).
        url: String,
        /// Headers sent with every HTTP request, such as `Authorization`.
        headers: BTreeMap<String, String>,
        /// Whether the configuration asked for the deprecated HTTP+SSE transport.
        legacy_sse: bool,
    },
}

/// OAuth settings of an HTTP server (the `oauth` key), used with the core's OAuth client
/// (feature `auth`).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct OAuthConfig {
    /// A pre-registered client id (`clientId`).
    pub client_id: Option<String>,
    /// The secret of that client (`clientSecret`).
    pub client_secret: Option<String>,
    /// The scopes to ask for (`scopes`: an array, or one space-separated string).
    pub scopes: Option<Vec<String>>,
    /// The URL of the client's ID metadata document (`clientMetadataUrl`).
    pub client_metadata_url: Option<String>,
    /// Whether the client logs in as itself with the client credentials grant
    /// (`"grant": "client_credentials"`, which needs `clientId` and `clientSecret`) rather
    /// than letting a user authorize it (`"authorization_code"`, the default).
    pub client_credentials: bool,
}

/// The configuration of one server.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The server's name: the key under `mcpServers`.
    pub name: String,
    /// How the host reaches it.
    pub transport: ServerTransport,
    /// Whether the host connects to it (`enabled`, default true; `"disabled": true` as Cline
    /// writes it means the same as `"enabled": false`).
    pub enabled: bool,
    /// The only tools of the server the host offers (`allowedTools`), by the server's names;
    /// all of them when `None`.
    pub allowed_tools: Option<Vec<String>>,
    /// Tools of the server the host never offers (`deniedTools`), by the server's names.
    pub denied_tools: Vec<String>,
    /// What the names of the server's tools and prompts start with (`prefix`), before the
    /// host's separator; by default the server's name with every character a tool name cannot
    /// hold replaced by `_`. An empty prefix keeps the server's names as they are.
    pub prefix: String,
    /// How long one request may wait without an answer or progress (`timeoutMs`); the host's
    /// default when `None`.
    pub timeout: Option<Duration>,
    /// How long one request may take in all, however much progress it reports
    /// (`maxTotalTimeoutMs`); no limit when `None`.
    pub max_total_timeout: Option<Duration>,
    /// How many times in a row the server is started again after it went away before it is
    /// `Failed` (`maxRestarts`, default [`DEFAULT_MAX_RESTARTS`]).
    pub max_restarts: u32,
    /// OAuth settings (`oauth`), for HTTP servers.
    pub oauth: Option<OAuthConfig>,
}

impl ServerConfig {
    /// Returns whether the host offers the server's tool `name` under its allow and deny lists.
    pub fn offers_tool(&self, name: &str) -> bool {
        let allowed = self.allowed_tools.as_ref().is_none_or(|list| list.iter().any(|t| t == name));
        allowed && !self.denied_tools.iter().any(|t| t == name)
    }
}

impl HostConfig {
    /// Reads a configuration file, expanding `${VAR}` from this process's environment.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Config(format!("cannot read the host configuration {}: {e}", path.display())))?;
        Self::parse(&text)
    }

    /// Parses the text of a configuration file, expanding `${VAR}` from this process's
    /// environment.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| Error::Config(format!("the host configuration is not valid JSON: {e}")))?;
        Self::from_value(&value)
    }

    /// Reads a configuration from JSON, expanding `${VAR}` from this process's environment.
    pub fn from_value(value: &Value) -> Result<Self, Error> {
        Self::from_value_with_env(value, |name| std::env::var(name).ok())
    }

    /// Reads a configuration from JSON, expanding `${VAR}` and `${VAR:-default}` (and VS Code's
    /// `${env:VAR}`) in every string of a server's transport through `env`.
    ///
    /// The servers sit under `mcpServers` (or `servers`, as VS Code writes it). Keys the host
    /// does not know are ignored; a value of the wrong type, a transport that cannot be told,
    /// or a variable that is not set and has no default is an [`Error::Config`] naming the
    /// server and the key.
    pub fn from_value_with_env(value: &Value, env: impl Fn(&str) -> Option<String>) -> Result<Self, Error> {
        let root = value.as_object().ok_or_else(|| Error::Config("the host configuration is not an object".into()))?;
        let servers = match root.get("mcpServers").or_else(|| root.get("servers")) {
            None => return Ok(HostConfig::default()),
            Some(Value::Object(servers)) => servers,
            Some(_) => return Err(Error::Config("mcpServers is not an object".into())),
        };
        let servers = servers
            .iter()
            .map(|(name, entry)| Entry { server: name, env: &env }.server(entry))
            .collect::<Result<_, _>>()?;
        Ok(HostConfig { servers })
    }

    /// Returns the server named `name`.
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }
}

/// The reading of one server's entry, which knows its name for the errors.
struct Entry<'a, F> {
    server: &'a str,
    env: &'a F,
}

impl<F: Fn(&str) -> Option<String>> Entry<'_, F> {
    fn error(&self, key: &str, what: impl std::fmt::Display) -> Error {
        Error::Config(format!("server {:?}: {key}: {what}", self.server))
    }

    fn server(&self, entry: &Value) -> Result<ServerConfig, Error> {
        let map = entry.as_object().ok_or_else(|| self.error("(entry)", "is not an object"))?;
        let kind = self.string(map.get("type"), "type")?;
        let has_command = map.contains_key("command");
        let has_url = map.contains_key("url");
        let transport = match (kind.as_deref(), has_command, has_url) {
            (_, true, true) => return Err(self.error("command", "a server has either a command or a url, not both")),
            (None | Some("stdio"), true, false) => self.stdio(map)?,
            (Some("stdio"), false, _) => return Err(self.error("command", "is missing")),
            (None, false, true) => self.http(map, false)?,
            (Some("http" | "streamable-http" | "streamableHttp"), false, _) => self.http(map, false)?,
            (Some("sse"), false, _) => self.http(map, true)?,
            (Some(other), true, false) => {
                return Err(self.error("type", format!("{other:?} does not go with a command")));
            }
            (Some(other), ..) => {
                return Err(self.error("type", format!("{other:?} is not one of \"stdio\", \"http\" or \"sse\"")));
            }
            (None, false, false) => return Err(self.error("command", "the server has neither a command nor a url")),
        };
        let enabled = match (self.bool(map.get("enabled"), "enabled")?, self.bool(map.get("disabled"), "disabled")?) {
            (Some(enabled), _) => enabled,
            (None, Some(disabled)) => !disabled,
            (None, None) => true,
        };
        let prefix = match self.string(map.get("prefix"), "prefix")? {
            Some(prefix) => {
                if let Some(bad) = prefix.chars().find(|c| !is_name_char(*c)) {
                    return Err(self.error("prefix", format!("{bad:?} cannot be part of a tool name")));
                }
                prefix
            }
            None => self.server.chars().map(|c| if is_name_char(c) { c } else { '_' }).collect(),
        };
        let max_restarts = match map.get("maxRestarts") {
            None | Some(Value::Null) => DEFAULT_MAX_RESTARTS,
            Some(v) => {
                let n = v.as_u64().ok_or_else(|| self.error("maxRestarts", "is not a whole number"))?;
                u32::try_from(n).map_err(|_| self.error("maxRestarts", "is too large"))?
            }
        };
        Ok(ServerConfig {
            name: self.server.to_owned(),
            transport,
            enabled,
            allowed_tools: self.strings(map.get("allowedTools"), "allowedTools")?,
            denied_tools: self.strings(map.get("deniedTools"), "deniedTools")?.unwrap_or_default(),
            prefix,
            timeout: self.millis(map.get("timeoutMs"), "timeoutMs")?,
            max_total_timeout: self.millis(map.get("maxTotalTimeoutMs"), "maxTotalTimeoutMs")?,
            max_restarts,
            oauth: self.oauth(map.get("oauth"))?,
        })
    }

    fn stdio(&self, map: &serde_json::Map<String, Value>) -> Result<ServerTransport, Error> {
        let command = self.expanded(map.get("command"), "command")?.unwrap_or_default();
        if command.is_empty() {
            return Err(self.error("command", "is empty"));
        }
        let args = match map.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let key = format!("args[{i}]");
                    self.expanded(Some(item), &key)?.ok_or_else(|| self.error(&key, "is not a string"))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(self.error("args", "is not an array of strings")),
        };
        Ok(ServerTransport::Stdio {
            command,
            args,
            env: self.string_map(map.get("env"), "env")?,
            cwd: self.expanded(map.get("cwd"), "cwd")?,
        })
    }

    fn http(&self, map: &serde_json::Map<String, Value>, legacy_sse: bool) -> Result<ServerTransport, Error> {
        let url = self.expanded(map.get("url"), "url")?.ok_or_else(|| self.error("url", "is missing"))?;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(self.error("url", format!("{url:?} is not an http or https URL")));
        }
        Ok(ServerTransport::Http { url, headers: self.string_map(map.get("headers"), "headers")?, legacy_sse })
    }

    fn oauth(&self, value: Option<&Value>) -> Result<Option<OAuthConfig>, Error> {
        let map = match value {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(self.error("oauth", "is not an object")),
        };
        let scopes = match map.get("scopes") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.split_whitespace().map(str::to_owned).collect()),
            value => self.strings(value, "oauth.scopes")?,
        };
        let client_credentials = match self.string(map.get("grant"), "oauth.grant")?.as_deref() {
            None | Some("authorization_code") => false,
            Some("client_credentials") => true,
            Some(other) => {
                return Err(self.error(
                    "oauth.grant",
                    format!("{other:?} is not \"authorization_code\" or \"client_credentials\""),
                ));
            }
        };
        let config = OAuthConfig {
            client_id: self.expanded(map.get("clientId"), "oauth.clientId")?,
            client_secret: self.expanded(map.get("clientSecret"), "oauth.clientSecret")?,
            scopes,
            client_metadata_url: self.expanded(map.get("clientMetadataUrl"), "oauth.clientMetadataUrl")?,
            client_credentials,
        };
        if client_credentials && (config.client_id.is_none() || config.client_secret.is_none()) {
            return Err(self.error("oauth.grant", "client_credentials needs clientId and clientSecret"));
        }
        Ok(Some(config))
    }

    /// A string as it is written, or `None` when absent.
    fn string(&self, value: Option<&Value>, key: &str) -> Result<Option<String>, Error> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.error(key, "is not a string")),
        }
    }

    /// A string with its `${VAR}` expanded, or `None` when absent.
    fn expanded(&self, value: Option<&Value>, key: &str) -> Result<Option<String>, Error> {
        self.string(value, key)?.map(|s| expand(&s, self.env).map_err(|e| self.error(key, e))).transpose()
    }

    fn bool(&self, value: Option<&Value>, key: &str) -> Result<Option<bool>, Error> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.error(key, "is not true or false")),
        }
    }

    fn strings(&self, value: Option<&Value>, key: &str) -> Result<Option<Vec<String>>, Error> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str().map(str::to_owned).ok_or_else(|| self.error(key, "is not an array of strings"))
                })
                .collect::<Result<_, _>>()
                .map(Some),
            Some(_) => Err(self.error(key, "is not an array of strings")),
        }
    }

    fn string_map(&self, value: Option<&Value>, key: &str) -> Result<BTreeMap<String, String>, Error> {
        match value {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(name, value)| {
                    let key = format!("{key}.{name}");
                    let value = match value {
                        // Numbers and booleans are written as they read, as hosts accept them.
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        other => self.expanded(Some(other), &key)?.unwrap_or_default(),
                    };
                    Ok((name.clone(), value))
                })
                .collect(),
            Some(_) => Err(self.error(key, "is not an object of strings")),
        }
    }

    fn millis(&self, value: Option<&Value>, key: &str) -> Result<Option<Duration>, Error> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_u64() {
                Some(0) => Err(self.error(key, "must be more than 0")),
                Some(ms) => Ok(Some(Duration::from_millis(ms))),
                None => Err(self.error(key, "is not a whole number of milliseconds")),
            },
        }
    }
}

/// Whether `c` may appear in a tool name (2025-11-25: letters, digits, `_`, `-` and `.`).
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Expands `${VAR}`, `${VAR:-default}` and `${env:VAR}` in `text` through `env`; a `$` that
/// starts no such reference stays as it is.
fn expand(text: &str, env: &impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find('}').ok_or_else(|| format!("{:?} has a ${{ without its }}", text))?;
        let reference = &after[..end];
        let (name, default) = match reference.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (reference, None),
        };
        let name = name.strip_prefix("env:").unwrap_or(name);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("${{{reference}}} does not name an environment variable"));
        }
        match (env(name).filter(|v| !v.is_empty() || default.is_none()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(format!("the environment variable {name} is not set")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
