//! The next step of a middleware chain, as a Python middleware awaits it, and the spans the
//! OpenTelemetry middleware records.

use mcpweft_bridge::Next;
use pyo3::prelude::*;

use crate::{convert, error::OrRaise, runtime};

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

/// The span to record around `message` (the dict a middleware receives), or `None`.
#[pyfunction]
pub(crate) fn telemetry_span<'py>(py: Python<'py>, message: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let span = mcpweft_bridge::telemetry_span(&convert::from_py(message)?).or_raise(py)?;
    convert::to_py(py, &span)
}

/// What the span of a message of `method` records of `outcome` (`{"result"}` or `{"error"}`).
#[pyfunction]
pub(crate) fn telemetry_outcome<'py>(
    py: Python<'py>,
    method: &str,
    outcome: &Bound<'_, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    convert::to_py(py, &mcpweft_bridge::telemetry_outcome(method, &convert::from_py(outcome)?))
}
