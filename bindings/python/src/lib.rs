//! The native half of the `mcpweft` Python package (`mcpweft._native`).
//!
//! Architecture Invariant: this crate wraps `mcpweft-bridge` and holds only what is Python's
//! own: attaching to the interpreter (and draining before it exits), awaiting bridge tasks
//! from asyncio, running Python callables as bridge callbacks (sync ones on the bridge's
//! bounded blocking pool), converting values, mapping errors both ways, and handing the core's
//! traces to `logging`. Registration, result shorthands, the error policy and the protocol all
//! live in the bridge and the core.

// The bridge's flat error is returned by value, as the bridge itself does.
#![allow(clippy::result_large_err)]

mod client;
mod context;
pub mod convert;
mod error;
mod host;
mod http;
mod log;
mod middleware;
mod runtime;
mod server;

use pyo3::{prelude::*, types::PyDict};

/// Sets how many synchronous handlers may run at once in this process (default 64); it takes
/// effect if called before the first synchronous handler runs.
#[pyfunction]
fn set_sync_handler_limit(limit: usize) {
    mcpweft_bridge::set_blocking_limit(limit);
}

/// Returns how many synchronous handlers may run at once.
#[pyfunction]
fn sync_handler_limit() -> usize {
    mcpweft_bridge::blocking_limit()
}

/// Runs the `mcpweft` command with `argv` (the program's name first) to its end, the
/// interpreter released meanwhile, and returns its exit code.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| mcpweft_cli::run(argv))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    log::install();
    mcpweft_bridge::set_blocking_scope(runtime::Interpreter);
    let drain = wrap_pyfunction!(runtime::drain_before_exit, m)?;
    m.py().import("atexit")?.call_method1("register", (drain,))?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    let codes = PyDict::new(m.py());
    for (name, code) in mcpweft_bridge::ERROR_CODES {
        codes.set_item(name, code)?;
    }
    m.add("ERROR_CODES", codes)?;
    m.add("ERROR_KINDS", convert::to_py(m.py(), &mcpweft_bridge::error_kinds())?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(set_sync_handler_limit, m)?)?;
    m.add_function(wrap_pyfunction!(sync_handler_limit, m)?)?;
    m.add_function(wrap_pyfunction!(log::set_log_level, m)?)?;
    m.add_function(wrap_pyfunction!(convert::set_json_default, m)?)?;
    m.add_function(wrap_pyfunction!(middleware::telemetry_span, m)?)?;
    m.add_function(wrap_pyfunction!(middleware::telemetry_outcome, m)?)?;
    m.add_class::<server::PyServer>()?;
    m.add_class::<server::PyHttpServer>()?;
    m.add_class::<http::PyHttpEndpoint>()?;
    m.add_class::<http::PyResponseBody>()?;
    m.add_class::<client::PyClient>()?;
    m.add_class::<client::PySubscription>()?;
    m.add_class::<host::PyHost>()?;
    m.add_class::<host::PyHostEvents>()?;
    m.add_class::<context::PyContext>()?;
    m.add_class::<middleware::PyNext>()?;
    Ok(())
}
