//! The endpoint that mounts a server in a host application's own HTTP server: a request in, a
//! response out whose body is read chunk by chunk.

use std::sync::Arc;

use mcpweft_bridge::{HttpEndpoint, HttpRequest, HttpResponse, ResponseBody};

use crate::{NativeCancelHandle, error::Result, runtime::cancellable};

/// One header line of a request or a response.
#[derive(uniffi::Record)]
pub struct NativeHttpHeader {
    /// The header's name.
    pub name: String,
    /// The header's value.
    pub value: String,
}

/// One HTTP request the host application received.
#[derive(uniffi::Record)]
pub struct NativeHttpRequest {
    /// The method, such as `POST`.
    pub method: String,
    /// The path and query, such as `/mcp`.
    pub uri: String,
    /// The header lines, in order; a name may repeat.
    pub headers: Vec<NativeHttpHeader>,
    /// The whole body.
    pub body: Vec<u8>,
}

/// The answer to a request: status and headers at once, the body as a stream.
#[derive(uniffi::Record)]
pub struct NativeHttpResponse {
    /// The status code.
    pub status: u16,
    /// The header lines, in order.
    pub headers: Vec<NativeHttpHeader>,
    /// The body; an SSE stream stays open while events may come.
    pub body: Arc<NativeResponseBody>,
}

impl NativeHttpResponse {
    fn new(response: HttpResponse) -> Self {
        let headers = response.headers.into_iter().map(|(name, value)| NativeHttpHeader { name, value }).collect();
        NativeHttpResponse {
            status: response.status,
            headers,
            body: Arc::new(NativeResponseBody { inner: response.body }),
        }
    }
}

/// The body of a response, read chunk by chunk; dropping it tells the server that the client
/// went away.
#[derive(uniffi::Object)]
pub struct NativeResponseBody {
    inner: ResponseBody,
}

#[uniffi::export]
impl NativeResponseBody {
    /// Returns the next chunk of the body, or `None` once it ended.
    pub async fn next_chunk(&self, cancel: Option<Arc<NativeCancelHandle>>) -> Result<Option<Vec<u8>>> {
        Ok(cancellable(self.inner.next_chunk(), cancel).await?)
    }

    /// Ends the body early, as when the client disconnected.
    pub fn close(&self) {
        self.inner.close();
    }
}

/// A Streamable HTTP endpoint without a listener of its own, made by `NativeServer`.
#[derive(uniffi::Object)]
pub struct NativeHttpEndpoint {
    inner: HttpEndpoint,
}

impl NativeHttpEndpoint {
    pub(crate) fn new(inner: HttpEndpoint) -> Self {
        NativeHttpEndpoint { inner }
    }
}

#[uniffi::export]
impl NativeHttpEndpoint {
    /// Answers one exchange.
    pub async fn handle(
        &self,
        request: NativeHttpRequest,
        cancel: Option<Arc<NativeCancelHandle>>,
    ) -> Result<NativeHttpResponse> {
        let headers = request.headers.into_iter().map(|h| (h.name, h.value)).collect();
        let request = HttpRequest { method: request.method, uri: request.uri, headers, body: request.body };
        Ok(NativeHttpResponse::new(cancellable(self.inner.handle(request), cancel).await?))
    }
}
