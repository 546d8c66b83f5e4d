//! A ready [`Authorizer`] for desktop applications: the redirect comes back to a loopback
//! port that this process listens on.

use std::{net::SocketAddr, sync::Arc, time::Duration};

use async_trait::async_trait;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};

use super::client::Authorizer;
use crate::Error;

/// The largest request head the redirect listener reads.
const MAX_HEAD: usize = 16 * 1024;

/// The page the browser shows once the redirect arrived.
const DONE_PAGE: &str = "<!doctype html><title>Signed in</title><p>You are signed in. You may close this window.</p>";

/// Receives the authorization server's redirect on `http://127.0.0.1:PORT/PATH`.
///
/// [`LoopbackRedirect::bind`] listens on loopback; its [`redirect_uri`](Self::redirect_uri) is
/// the one to register. Each authorization hands the URL to the `open` function (which opens
/// a browser, or prints the URL) and waits for the browser to come back.
pub struct LoopbackRedirect {
    listener: TcpListener,
    path: String,
    redirect_uri: String,
    open: Arc<dyn Fn(&str) + Send + Sync>,
    timeout: Duration,
}

impl std::fmt::Debug for LoopbackRedirect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackRedirect").field("redirect_uri", &self.redirect_uri).finish_non_exhaustive()
    }
}

impl LoopbackRedirect {
    /// Listens on `127.0.0.1:port` (`0` picks a free port) for redirects to `path`; `open`
    /// shows the user each authorization URL. The user has five minutes to sign in.
    pub async fn bind(port: u16, path: &str, open: impl Fn(&str) + Send + Sync + 'static) -> Result<Self, Error> {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await?;
        let port = listener.local_addr()?.port();
        let path = if path.starts_with('/') { path.to_owned() } else { format!("/{path}") };
        let redirect_uri = format!("http://127.0.0.1:{port}{path}");
        Ok(LoopbackRedirect { listener, path, redirect_uri, open: Arc::new(open), timeout: Duration::from_secs(300) })
    }

    /// Sets how long the user has to sign in.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Returns the redirect URI to register and send.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Waits for a `GET` of the redirect path and returns its target (path and query); other
    /// requests are answered 404.
    async fn receive(&self) -> Result<String, Error> {
        loop {
            let (mut stream, _) = self.listener.accept().await?;
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
                let n = stream.read(&mut buf).await?;
                if n == 0 {
                    break;
                }
                head.extend_from_slice(&buf[..n]);
            }
            let text = String::from_utf8_lossy(&head);
            let mut parts = text.lines().next().unwrap_or("").split(' ');
            let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            let path = target.split('?').next().unwrap_or("");
            if method == "GET" && path == self.path {
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{DONE_PAGE}",
                    DONE_PAGE.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                return Ok(target.to_owned());
            }
            let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
        }
    }
}

#[async_trait]
impl Authorizer for LoopbackRedirect {
    async fn authorize(&self, authorization_url: String) -> Result<String, Error> {
        (self.open)(&authorization_url);
        let target = tokio::time::timeout(self.timeout, self.receive())
            .await
            .map_err(|_| Error::Auth(format!("no redirect arrived within {:?}", self.timeout)))??;
        let origin = self.redirect_uri.trim_end_matches(&self.path);
        Ok(format!("{origin}{target}"))
    }
}
