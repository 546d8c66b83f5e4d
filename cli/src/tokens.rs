//! The OAuth tokens kept between runs: a [`TokenStore`] of the core writing one file per
//! server, so that a second command reaching the same server finds its tokens (and its client
//! registration) instead of asking the user to sign in again.
//!
//! Files live in `$XDG_CONFIG_HOME/mcpweft/tokens`, or `~/.config/mcpweft/tokens` (on Windows
//! `%APPDATA%\mcpweft\tokens`), unless `--token-store` names another directory. Each is named
//! after the server's resource URL (the key the core gives), holds that URL and the tokens as
//! JSON, is readable by its owner only (mode 0600 on Unix, in a directory of mode 0700), and
//! is replaced atomically: written beside its final name, then renamed over it. Beside it, the
//! DPoP key the tokens may be bound to (the core's P-256 key as PKCS#8, `.dpop.p8`), so that tokens bound
//! to it still serve the next run.

use std::{
    fs,
    io::Write as _,
    path::{Path, PathBuf},
    sync::{Mutex, PoisonError},
};

use mcpweft::auth::{DpopKey, StoredTokens, TokenStore};
use serde::{Deserialize, Serialize};

use crate::failure::Failure;

/// The directory of the token files when `--token-store` names none.
pub(crate) fn default_dir() -> Option<PathBuf> {
    let config = if cfg!(windows) {
        std::env::var_os("APPDATA").map(PathBuf::from)
    } else {
        std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|dir| dir.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
    };
    config.map(|dir| dir.join("mcpweft").join("tokens"))
}

/// The directory `--token-store` names, or the default one; `None` for `none`, or when the
/// environment names no directory for the default one.
pub(crate) fn store_dir(option: Option<&str>) -> Option<PathBuf> {
    match option {
        Some("none") => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            let dir = default_dir();
            if dir.is_none() {
                tracing::warn!("neither XDG_CONFIG_HOME nor HOME is set: the tokens are kept for this run only");
            }
            dir
        }
    }
}

/// The key under which the core keeps the tokens of the server at `url`: the URL as the
/// `url` crate writes it.
pub(crate) fn resource_key(url: &str) -> Result<String, Failure> {
    url::Url::parse(url)
        .map(|url| url.to_string())
        .map_err(|e| Failure::usage(format!("{url:?} is not a valid URL: {e}")))
}

/// What one token file holds.
#[derive(Serialize, Deserialize)]
struct TokenFile {
    /// The server's resource URL, for a reader of the file.
    resource: String,
    /// The tokens and client registration.
    tokens: StoredTokens,
}

/// Keeps each server's tokens in a file of one directory.
pub(crate) struct TokenFiles {
    dir: PathBuf,
    /// A DPoP key made in this run, with its server, kept with that server's first tokens.
    new_key: Mutex<Option<(String, Vec<u8>)>>,
}

impl TokenFiles {
    /// A store in `dir`, which is created when the first tokens are saved.
    pub(crate) fn new(dir: PathBuf) -> Self {
        TokenFiles { dir, new_key: Mutex::default() }
    }

    /// The file of `resource`: its URL with every byte but ASCII letters, digits, `.` and `-`
    /// written as `_` and two hexadecimal digits, so that two URLs never share a file.
    pub(crate) fn path(&self, resource: &str) -> PathBuf {
        self.dir.join(file_stem(resource) + ".json")
    }

    /// The file of the DPoP key of `resource`.
    fn key_path(&self, resource: &str) -> PathBuf {
        self.dir.join(file_stem(resource) + ".dpop.p8")
    }

    /// Removes the files of `resource`, returning whether it had tokens.
    pub(crate) fn remove(&self, resource: &str) -> std::io::Result<bool> {
        remove_file(&self.key_path(resource))?;
        remove_file(&self.path(resource))
    }

    /// The DPoP key of `resource`: the one kept, or a new one, kept with the first tokens
    /// saved for `resource` (a server that never asks for a login leaves no file).
    pub(crate) fn dpop_key(&self, resource: &str) -> std::io::Result<DpopKey> {
        let der = match fs::read(self.key_path(resource)) {
            Ok(der) => der,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let der = DpopKey::generate_pkcs8_der().map_err(std::io::Error::other)?;
                *self.new_key.lock().unwrap_or_else(PoisonError::into_inner) = Some((resource.to_owned(), der.clone()));
                der
            }
            Err(e) => return Err(e),
        };
        DpopKey::from_pkcs8_der(&der).map_err(std::io::Error::other)
    }

    /// Reads the tokens of `resource`; a missing file is `Ok(None)`.
    fn read(&self, resource: &str) -> std::io::Result<Option<StoredTokens>> {
        let text = match fs::read_to_string(self.path(resource)) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let file: TokenFile = serde_json::from_str(&text).map_err(std::io::Error::other)?;
        Ok((file.resource == resource).then_some(file.tokens))
    }

    /// Writes the tokens of `resource` to a file readable by its owner only, replacing the old
    /// one atomically.
    fn write(&self, resource: &str, tokens: StoredTokens) -> std::io::Result<()> {
        let mut new_key = self.new_key.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, der)) = new_key.as_ref().filter(|(owner, _)| owner == resource) {
            write_private(&self.dir, &self.key_path(resource), der)?;
            *new_key = None;
        }
        drop(new_key);
        let text = serde_json::to_vec_pretty(&TokenFile { resource: resource.to_owned(), tokens })
            .map_err(std::io::Error::other)?;
        write_private(&self.dir, &self.path(resource), &text)
    }
}

/// The name of the files of `resource`, without their extension.
fn file_stem(resource: &str) -> String {
    let mut name = String::with_capacity(resource.len() + 16);
    for byte in resource.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'-' {
            name.push(char::from(byte));
        } else {
            name.push_str(&format!("_{byte:02X}"));
        }
    }
    name
}

/// Removes the file at `path`, returning whether there was one.
fn remove_file(path: &Path) -> std::io::Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Writes `bytes` to `path` in `dir` (created if needed), readable by its owner only: first
/// to a file beside it, then renamed over it.
fn write_private(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    create_private_dir(dir)?;
    let mut partial = path.to_path_buf().into_os_string();
    partial.push(format!(".{}.partial", std::process::id()));
    let partial = PathBuf::from(partial);
    let written = (|| {
        let mut file = private_file(&partial)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&partial, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&partial);
    }
    written
}

#[async_trait::async_trait]
impl TokenStore for TokenFiles {
    async fn load(&self, resource: &str) -> Option<StoredTokens> {
        match self.read(resource) {
            Ok(tokens) => tokens,
            Err(e) => {
                tracing::warn!(file = %self.path(resource).display(), error = %e, "cannot read the stored tokens");
                None
            }
        }
    }

    async fn save(&self, resource: &str, tokens: StoredTokens) {
        if let Err(e) = self.write(resource, tokens) {
            tracing::warn!(file = %self.path(resource).display(), error = %e, "cannot keep the tokens");
        }
    }
}

/// Creates `dir` and its parents, `dir` itself readable by its owner only on Unix.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Creates (or truncates) the file at `path`, readable and writable by its owner only on Unix.
fn private_file(path: &Path) -> std::io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mcpweft-tokens-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn tokens(access: &str) -> StoredTokens {
        let mut tokens = StoredTokens::default();
        tokens.access_token = Some(access.to_owned());
        tokens.client_id = Some("client".to_owned());
        tokens
    }

    #[tokio::test]
    async fn tokens_are_kept_per_server_and_replaced() {
        let dir = temp_dir("kept");
        let store = TokenFiles::new(dir.join("nested"));
        assert_eq!(store.load("http://127.0.0.1:1/mcp").await, None, "nothing before the first save");
        store.save("http://127.0.0.1:1/mcp", tokens("one")).await;
        store.save("http://127.0.0.1:2/mcp", tokens("two")).await;
        store.save("http://127.0.0.1:1/mcp", tokens("three")).await;
        assert_eq!(store.load("http://127.0.0.1:1/mcp").await, Some(tokens("three")));
        assert_eq!(store.load("http://127.0.0.1:2/mcp").await, Some(tokens("two")));
        let names: Vec<_> = fs::read_dir(dir.join("nested")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "one file per server and no partial file left: {names:?}");
        assert!(store.remove("http://127.0.0.1:1/mcp").unwrap());
        assert!(!store.remove("http://127.0.0.1:1/mcp").unwrap());
        assert_eq!(store.load("http://127.0.0.1:1/mcp").await, None);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn only_the_owner_may_read_the_tokens() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = temp_dir("private");
        let store = TokenFiles::new(dir.clone());
        store.save("https://mcp.example.com/mcp", tokens("secret")).await;
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&store.path("https://mcp.example.com/mcp")), 0o600);
        assert_eq!(mode(&dir), 0o700);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn the_dpop_key_is_kept_with_the_tokens() {
        let dir = temp_dir("dpop");
        let store = TokenFiles::new(dir.clone());
        let key = store.dpop_key("https://mcp.example.com/mcp").unwrap();
        assert!(!store.key_path("https://mcp.example.com/mcp").exists(), "no file before any tokens");
        store.save("https://mcp.example.com/mcp", tokens("bound")).await;
        let next_run = TokenFiles::new(dir.clone());
        let again = next_run.dpop_key("https://mcp.example.com/mcp").unwrap();
        assert_eq!(key.thumbprint(), again.thumbprint(), "the next run signs with the same key");
        let other = next_run.dpop_key("https://other.example.com/mcp").unwrap();
        assert_ne!(key.thumbprint(), other.thumbprint(), "a key per server");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = fs::metadata(store.key_path("https://mcp.example.com/mcp")).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(store.remove("https://mcp.example.com/mcp").unwrap());
        assert!(!store.key_path("https://mcp.example.com/mcp").exists(), "the key goes with the tokens");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn different_urls_get_different_files() {
        let store = TokenFiles::new(PathBuf::from("/tokens"));
        let name = |url: &str| store.path(url).file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name("http://127.0.0.1:8080/mcp"), "http_3A_2F_2F127.0.0.1_3A8080_2Fmcp.json");
        assert_ne!(name("https://a.example/b_c"), name("https://a.example/b/c"));
        assert_ne!(name("https://a.example/b_2Fc"), name("https://a.example/b/c"));
    }

    #[test]
    fn the_key_is_the_url_as_the_core_writes_it() {
        assert_eq!(resource_key("HTTP://Example.COM:443/mcp").unwrap(), "http://example.com:443/mcp");
        assert_eq!(resource_key("https://example.com").unwrap(), "https://example.com/");
        assert!(resource_key("not a url").is_err());
    }
}
