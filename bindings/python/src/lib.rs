//! The native half of the `mcpkit` Python package (`mcpkit._native`).
//!
//! Architecture Invariant: this crate holds no protocol logic. It turns Python values into
//! the core's JSON payloads and back, wraps Python callables as core handlers, and maps core
//! errors to the exceptions of `mcpkit.errors`; everything else happens in the `mcpkit` crate.

mod client;
mod context;
mod convert;
mod error;
mod runtime;
mod server;

use pyo3::prelude::*;

/// Sends the core's traces to stderr when `MCPKIT_LOG` holds a filter such as `debug`.
fn init_tracing() {
    if let Ok(filter) = std::env::var("MCPKIT_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .try_init();
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    init_tracing();
    let drain = wrap_pyfunction!(runtime::drain_before_exit, m)?;
    m.py().import("atexit")?.call_method1("register", (drain,))?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<server::PyServer>()?;
    m.add_class::<server::PyHttpServer>()?;
    m.add_class::<client::PyClient>()?;
    m.add_class::<context::PyContext>()?;
    Ok(())
}
