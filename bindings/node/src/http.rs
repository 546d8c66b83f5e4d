//! Streamable HTTP: a server on its own port, and an endpoint that a host application's
//! own HTTP server feeds.

use std::sync::Arc;

use mcpweft_bridge::{HttpEndpoint, HttpRequest, HttpResponse, HttpServer, ResponseBody};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::task::{Done, Pending, settle};

/// A Streamable HTTP server bound to its own port.
#[napi]
pub struct NativeHttpServer {
    inner: Arc<HttpServer>,
}

impl NativeHttpServer {
    /// Wraps a running server.
    pub(crate) fn new(inner: HttpServer) -> Self {
        NativeHttpServer { inner: Arc::new(inner) }
    }
}

#[napi]
impl NativeHttpServer {
    /// Returns the URL of the MCP endpoint.
    #[napi(getter, catch_unwind)]
    pub fn url(&self) -> String {
        self.inner.url().to_owned()
    }

    /// Stops accepting connections and ends every session.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: null) => void")]
    pub fn close(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.close(), |()| ())
    }

    /// Calls `done` when the server is closed.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: null) => void")]
    pub fn wait(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.wait(), |()| ())
    }
}

/// A Streamable HTTP endpoint without a listener of its own.
#[napi]
pub struct NativeHttpEndpoint {
    inner: HttpEndpoint,
}

impl NativeHttpEndpoint {
    /// Wraps an endpoint.
    pub(crate) fn new(inner: HttpEndpoint) -> Self {
        NativeHttpEndpoint { inner }
    }
}

#[napi]
impl NativeHttpEndpoint {
    /// Answers one exchange; `headers` holds names and values in turn, as Node's
    /// `rawHeaders` does.
    #[napi(
        catch_unwind,
        ts_args_type = "method: string, uri: string, headers: Array<string>, body: Buffer, done: (error: string | null, value: NativeHttpResponse | null) => void"
    )]
    pub fn handle(
        &self,
        method: String,
        uri: String,
        headers: Vec<String>,
        body: Buffer,
        done: Done<'_>,
    ) -> napi::Result<Pending> {
        let headers = headers.chunks_exact(2).map(|pair| (pair[0].clone(), pair[1].clone())).collect();
        let request = HttpRequest { method, uri, headers, body: body.to_vec() };
        settle(done, self.inner.handle(request), NativeHttpResponse::new)
    }
}

/// The answer of an endpoint: status and headers at once, the body chunk by chunk.
#[napi]
pub struct NativeHttpResponse {
    status: u16,
    headers: Vec<String>,
    body: ResponseBody,
}

impl NativeHttpResponse {
    fn new(response: HttpResponse) -> Self {
        let headers = response.headers.into_iter().flat_map(|(name, value)| [name, value]).collect();
        NativeHttpResponse { status: response.status, headers, body: response.body }
    }
}

#[napi]
impl NativeHttpResponse {
    /// Returns the status code.
    #[napi(getter, catch_unwind)]
    pub fn status(&self) -> u16 {
        self.status
    }

    /// Returns the header names and values in turn, as `writeHead` takes them.
    #[napi(getter, catch_unwind)]
    pub fn headers(&self) -> Vec<String> {
        self.headers.clone()
    }

    /// Reads the next chunk of the body; the value is `null` once the body ended.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: Buffer | null) => void")]
    pub fn next_chunk(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.body.next_chunk(), |chunk| chunk.map(Buffer::from))
    }

    /// Ends the body early, as when the client went away.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.body.close();
    }
}
