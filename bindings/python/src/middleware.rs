//! The next step of a middleware chain, as a Python middleware awaits it.

use mcpweft_bridge::Next;
use pyo3::prelude::*;

use crate::{convert, runtime};

/// The rest of the chain a Python middleware passes its message to: `await next(message)`
/// yields the outcome (a request's result as a dict) or raises the error it failed with.
#[pyclass(name = "Next", module = "mcpweft._native", frozen)]
pub(crate) struct PyNext {
    inner: Next,
}

impl PyNext {
    /// Wraps the bridge's next step.
    pub(crate) fn new(inner: Next) -> Self {
        PyNext { inner }
    }
}

#[pymethods]
impl PyNext {
    /// Passes `message` (the dict the middleware received, changed or not) on and returns an
    /// awaitable of the outcome.
    fn __call__<'py>(&self, py: Python<'py>, message: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.run(convert::from_py(message)?))
    }
}
