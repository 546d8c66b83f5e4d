//! The HTTP endpoint a host application's own server drives (the package's ASGI app): one
//! call per exchange, the response body read chunk by chunk.

use mcpweft_bridge::{HttpEndpoint, HttpRequest, ResponseBody};
use pyo3::{prelude::*, types::PyBytes};

use crate::runtime;

/// A Streamable HTTP endpoint without a listener of its own.
#[pyclass(name = "HttpEndpoint", module = "mcpweft._native", frozen)]
pub(crate) struct PyHttpEndpoint {
    pub(crate) inner: HttpEndpoint,
}

#[pymethods]
impl PyHttpEndpoint {
    /// Answers one exchange; the awaitable gives `(status, headers, body)` where `headers` is a
    /// list of `(name, value)` pairs and `body` a `ResponseBody`.
    fn handle<'py>(
        &self,
        py: Python<'py>,
        method: String,
        uri: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let task = self.inner.handle(HttpRequest { method, uri, headers, body });
        runtime::await_task(py, task, |py, response| {
            let body = Bound::new(py, PyResponseBody { inner: response.body })?;
            Ok((response.status, response.headers, body).into_pyobject(py)?.into_any())
        })
    }
}

/// The body of an endpoint's response; an SSE stream stays open while events may come.
#[pyclass(name = "ResponseBody", module = "mcpweft._native", frozen)]
pub(crate) struct PyResponseBody {
    inner: ResponseBody,
}

#[pymethods]
impl PyResponseBody {
    /// Returns an awaitable of the next chunk (`bytes`), or of `None` once the body ended.
    fn next_chunk<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_task(py, self.inner.next_chunk(), |py, chunk| match chunk {
            Some(bytes) => Ok(PyBytes::new(py, &bytes).into_any()),
            None => Ok(py.None().into_bound(py)),
        })
    }

    /// Ends the body early, as when the client disconnected.
    fn close(&self) {
        self.inner.close();
    }
}
