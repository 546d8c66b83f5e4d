//! OAuth login to servers reached over HTTP: the core's OAuth client with the command line's
//! choices, which are the grant, the browser, the loopback redirect and where tokens are kept.
//!
//! A server that answers 401 with a `WWW-Authenticate` challenge makes the core's
//! [`OAuthClient`] discover its authorization server and get a token: in a browser by default
//! (the authorization URL is printed on stderr and opened with `$BROWSER` or the system's
//! opener, and the browser comes back to a [`LoopbackRedirect`] of this process), or without
//! one with the client credentials grant or enterprise-managed authorization. The tokens go to
//! a [`TokenFiles`] store, so that the next run finds them; the core refreshes them.

use std::{process::Stdio, sync::Arc};

use mcpweft::{
    auth::{
        AuthProvider, ClientCredentials, InMemoryTokenStore, LoopbackRedirect, OAuthClient, OAuthClientOptions,
        TokenStore,
    },
    host::{HostBuilder, HostConfig},
};

use crate::{
    args::{Grant, HttpArgs, LoginArgs, LogoutArgs},
    failure::Failure,
    target::client_info,
    tokens::{self, TokenFiles},
};

/// The path of the loopback redirect URI.
const REDIRECT_PATH: &str = "/callback";

impl LoginArgs {
    /// The options that choose how to log in, as they are written, when any is given.
    fn client_options_given(&self) -> Option<&'static str> {
        [
            (self.client_id.is_some(), "--client-id"),
            (!self.scopes.is_empty(), "--scope"),
            (self.grant != Grant::AuthorizationCode, "--grant"),
            (self.id_token_env.is_some(), "--id-token-env"),
        ]
        .into_iter()
        .find_map(|(given, option)| given.then_some(option))
    }

    /// Whether `http` authorizes the requests itself (`--bearer-env`, an `Authorization`
    /// header), so that there is no login; an option of the login is then a mistake.
    pub(crate) fn authorized_by(&self, http: &HttpArgs) -> Result<bool, Failure> {
        let authorization = http.headers.iter().any(|header| {
            header.split_once(':').is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case("authorization"))
        });
        if !(http.bearer_env.is_some() || authorization) {
            return Ok(false);
        }
        match self.given() {
            Some(option) => Err(Failure::usage(format!(
                "{option} does not go with --bearer-env or an Authorization header, which already authorize"
            ))),
            None => Ok(true),
        }
    }

    /// Whether any option of the login is given.
    pub(crate) fn given(&self) -> Option<&'static str> {
        self.client_options_given().or_else(|| {
            [
                (self.redirect_port != 0, "--redirect-port"),
                (self.no_browser, "--no-browser"),
                (self.token_store.is_some(), "--token-store"),
            ]
            .into_iter()
            .find_map(|(given, option)| given.then_some(option))
        })
    }

    /// Where the tokens are kept: a directory of files, or memory with `--token-store none`.
    fn store(&self) -> Arc<dyn TokenStore> {
        match self.files() {
            Some(files) => Arc::new(files),
            None => Arc::new(InMemoryTokenStore::default()),
        }
    }

    /// The files the tokens are kept in; `None` when they are kept in memory.
    fn files(&self) -> Option<TokenFiles> {
        tokens::store_dir(self.token_store.as_deref()).map(TokenFiles::new)
    }

    /// Reads the environment variable `var` that an option names.
    fn secret(option: &str, var: &str) -> Result<String, Failure> {
        std::env::var(var).map_err(|_| Failure::usage(format!("{option} {var}: the environment variable is not set")))
    }

    /// The client secret of `--client-secret-env`, if given.
    fn client_secret(&self) -> Result<Option<String>, Failure> {
        self.client_secret_env.as_deref().map(|var| Self::secret("--client-secret-env", var)).transpose()
    }

    /// The credentials of a login without a browser, when the options ask for one.
    fn machine_credentials(&self) -> Result<Option<ClientCredentials>, Failure> {
        let client_id = || {
            self.client_id
                .clone()
                .ok_or_else(|| Failure::usage("--grant client_credentials and --id-token-env need --client-id"))
        };
        if let Some(var) = &self.id_token_env {
            let idp_token_endpoint = self
                .idp_token_endpoint
                .clone()
                .ok_or_else(|| Failure::usage("--id-token-env needs --idp-token-endpoint"))?;
            return Ok(Some(ClientCredentials::IdentityAssertion {
                client_id: client_id()?,
                client_secret: self.client_secret()?,
                idp_token_endpoint,
                id_token: Self::secret("--id-token-env", var)?,
                idp_client_id: self.idp_client_id.clone(),
            }));
        }
        if self.grant == Grant::ClientCredentials {
            let client_secret = self
                .client_secret()?
                .ok_or_else(|| Failure::usage("--grant client_credentials needs --client-secret-env"))?;
            return Ok(Some(ClientCredentials::Secret { client_id: client_id()?, client_secret }));
        }
        Ok(None)
    }

    /// A browser login: listens on the loopback port the browser comes back to.
    async fn browser(&self) -> Result<LoopbackRedirect, Failure> {
        let no_browser = self.no_browser;
        LoopbackRedirect::bind(self.redirect_port, REDIRECT_PATH, move |url| show(url, no_browser)).await.map_err(|e| {
            Failure::failed(format!(
                "cannot listen on 127.0.0.1:{} for the sign-in's redirect: {e}",
                self.redirect_port
            ))
        })
    }

    /// The OAuth client that logs in to the server at `url` when it asks, or `None` when the
    /// command sends credentials of its own (`--bearer-env`, an `Authorization` header).
    pub(crate) async fn provider(&self, url: &str, http: &HttpArgs) -> Result<Option<Arc<dyn AuthProvider>>, Failure> {
        if self.authorized_by(http)? {
            return Ok(None);
        }
        let mut options = match self.machine_credentials()? {
            Some(credentials) => OAuthClientOptions::machine(credentials),
            None => {
                let browser = self.browser().await?;
                let redirect_uri = browser.redirect_uri().to_owned();
                let options = OAuthClientOptions::new(client_info().name, redirect_uri, Arc::new(browser));
                match &self.client_id {
                    Some(id) => options.with_client(id.clone(), self.client_secret()?),
                    None => options,
                }
            }
        };
        if !self.scopes.is_empty() {
            options = options.with_scopes(self.scopes.clone());
        }
        let store: Arc<dyn TokenStore> = match self.files() {
            Some(files) => {
                // Tokens bound to a DPoP key serve the next run only with that key, which this
                // store writes beside the first tokens it saves.
                match files.dpop_key(&tokens::resource_key(url)?) {
                    Ok(key) => options = options.with_dpop_key(Arc::new(key)),
                    Err(e) => tracing::warn!(error = %e, "no DPoP key kept: DPoP-bound tokens serve this run only"),
                }
                Arc::new(files)
            }
            None => Arc::new(InMemoryTokenStore::default()),
        };
        let client = OAuthClient::new(url, options.with_store(store))?;
        Ok(Some(Arc::new(client)))
    }

    /// Lets the host log in to the HTTP servers of `config` that have `oauth` settings in
    /// the browser, keeping their tokens in the same store as `--url` does.
    pub(crate) async fn host(&self, builder: HostBuilder, config: &HostConfig) -> Result<HostBuilder, Failure> {
        if !config.servers.iter().any(|server| server.oauth.is_some()) {
            return Ok(builder);
        }
        let browser = self.browser().await?;
        let redirect_uri = browser.redirect_uri().to_owned();
        Ok(builder.with_authorizer(redirect_uri, Arc::new(browser)).with_token_store(self.store()))
    }

    /// Refuses the options that choose the client for a server of a configuration file, whose
    /// `oauth` settings say them.
    pub(crate) fn check_for_config(&self) -> Result<(), Failure> {
        match self.client_options_given() {
            Some(option) => Err(Failure::usage(format!(
                "{option} goes only with --url: a server of --config names its client in its oauth settings"
            ))),
            None => Ok(()),
        }
    }
}

/// Gives the HTTP server of a configuration's one server an empty `oauth` key when it has none
/// and sends no `Authorization` header, so that it is logged in to when it asks, as `--url` is.
pub(crate) fn login_when_asked(entry: &mut serde_json::Map<String, serde_json::Value>) {
    let http = entry.get("url").is_some() && entry.get("command").is_none();
    let authorized = entry
        .get("headers")
        .and_then(serde_json::Value::as_object)
        .is_some_and(|headers| headers.keys().any(|name| name.eq_ignore_ascii_case("authorization")));
    if http && !authorized && !entry.contains_key("oauth") {
        entry.insert("oauth".to_owned(), serde_json::json!({}));
    }
}

/// Shows the user the sign-in URL: always on stderr (stdout carries the protocol), and in a
/// browser unless `no_browser`.
fn show(url: &str, no_browser: bool) {
    eprintln!("mcpweft: sign in at this URL to authorize mcpweft:\n  {url}");
    if no_browser {
        return;
    }
    let opened = match std::env::var("BROWSER") {
        Ok(browsers) if !browsers.trim().is_empty() => {
            browser_commands(&browsers, url).into_iter().any(|command| spawn_detached(&command))
        }
        _ => spawn_detached(&system_opener(url)),
    };
    if !opened {
        eprintln!("mcpweft: no browser could be started; open the URL above yourself");
    }
}

/// The commands of `$BROWSER`: a list of commands (separated by `:` on Unix, as the convention
/// has it), each of which gets the URL in place of `%s`, or as its last argument when it has no
/// `%s`.
fn browser_commands(browsers: &str, url: &str) -> Vec<Vec<String>> {
    let separator = if cfg!(windows) { ';' } else { ':' };
    browsers
        .split(separator)
        .map(|browser| {
            let mut words: Vec<String> = browser.split_whitespace().map(str::to_owned).collect();
            if words.iter().any(|word| word.contains("%s")) {
                for word in &mut words {
                    *word = word.replace("%s", url);
                }
            } else if !words.is_empty() {
                words.push(url.to_owned());
            }
            words
        })
        .filter(|words| !words.is_empty())
        .collect()
}

/// The system's command that opens `url` in the user's browser.
fn system_opener(url: &str) -> Vec<String> {
    if cfg!(windows) {
        // `start` reads its first quoted argument as a window title, and cmd splits the line
        // at `&`: the URL's ampersands are escaped for cmd.
        ["cmd", "/c", "start", "", &url.replace('&', "^&")].map(str::to_owned).to_vec()
    } else if cfg!(target_os = "macos") {
        vec!["open".to_owned(), url.to_owned()]
    } else {
        vec!["xdg-open".to_owned(), url.to_owned()]
    }
}

/// Starts `command` with neither stdin nor stdout (stdout carries the protocol), returning
/// whether it started; a thread waits for it, so that it leaves no zombie behind.
fn spawn_detached(command: &[String]) -> bool {
    let Some((program, args)) = command.split_first() else { return false };
    let spawned = std::process::Command::new(program).args(args).stdin(Stdio::null()).stdout(Stdio::null()).spawn();
    match spawned {
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
            true
        }
        Err(e) => {
            tracing::debug!(program, error = %e, "cannot start the browser");
            false
        }
    }
}

/// `mcpweft logout URL`: removes the tokens kept for the server at `URL`.
pub(crate) fn logout(args: &LogoutArgs) -> Result<(), Failure> {
    let resource = tokens::resource_key(&args.url)?;
    let Some(dir) = tokens::store_dir(args.token_store.as_deref()) else {
        return Err(Failure::usage("no tokens are kept on disk to forget (--token-store none, or no HOME)"));
    };
    let store = TokenFiles::new(dir);
    match store.remove(&resource) {
        Ok(true) => {
            eprintln!("mcpweft: forgot the tokens of {resource}");
            Ok(())
        }
        Ok(false) => {
            eprintln!("mcpweft: no tokens were kept for {resource}");
            Ok(())
        }
        Err(e) => Err(Failure::failed(format!("cannot remove {}: {e}", store.path(&resource).display()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_gets_the_url_in_place_of_percent_s_or_last() {
        let url = "http://127.0.0.1:9/authorize?a=1&b=2";
        assert_eq!(browser_commands("firefox", url), [vec!["firefox".to_owned(), url.to_owned()]]);
        assert_eq!(
            browser_commands("chromium --new-window %s", url),
            [vec!["chromium".to_owned(), "--new-window".to_owned(), url.to_owned()]]
        );
        if cfg!(unix) {
            assert_eq!(
                browser_commands("w3m:lynx -dump", url),
                [vec!["w3m".to_owned(), url.to_owned()], vec!["lynx".to_owned(), "-dump".to_owned(), url.to_owned()]]
            );
        }
        assert!(browser_commands("  ", url).is_empty());
    }

    #[test]
    fn a_configured_http_server_logs_in_when_asked_unless_it_is_authorized() {
        let entry = |value: serde_json::Value| value.as_object().unwrap().clone();
        let mut plain = entry(serde_json::json!({ "url": "http://127.0.0.1:1/mcp" }));
        login_when_asked(&mut plain);
        assert_eq!(plain["oauth"], serde_json::json!({}));
        let mut configured = entry(serde_json::json!({ "url": "http://x/mcp", "oauth": { "clientId": "c" } }));
        login_when_asked(&mut configured);
        assert_eq!(configured["oauth"], serde_json::json!({ "clientId": "c" }));
        let mut authorized =
            entry(serde_json::json!({ "url": "http://x/mcp", "headers": { "authorization": "Bearer t" } }));
        login_when_asked(&mut authorized);
        assert!(!authorized.contains_key("oauth"));
        let mut stdio = entry(serde_json::json!({ "command": "server" }));
        login_when_asked(&mut stdio);
        assert!(!stdio.contains_key("oauth"));
    }
}
