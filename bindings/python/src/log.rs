//! The core's traces handed to Python's `logging` (`mcpweft._logging` logs them).
//!
//! The bridge queues the records and calls [`PythonLogs::deliver`] with a batch on its own
//! logging thread, which attaches to the interpreter once per batch; the threads that serve
//! the protocol never wait for the interpreter to log.

use std::sync::Arc;

use mcpweft_bridge::log::{Level, LogRecord, LogSink};
use pyo3::{prelude::*, types::PyList};

use crate::runtime;

/// Hands batches of records to `mcpweft._logging.deliver`.
struct PythonLogs;

impl LogSink for PythonLogs {
    fn deliver(&self, records: Vec<LogRecord>) {
        runtime::attach(|py| {
            let delivered = PyList::new(py, records.iter().map(|r| (python_level(r.level), &r.logger, &r.message)))
                .and_then(|batch| py.import("mcpweft._logging")?.call_method1("deliver", (batch,)));
            if let Err(e) = delivered {
                // Logging failed: sys.unraisablehook reports it (on stderr by default).
                e.write_unraisable(py, None);
            }
        });
    }
}

/// Python's number for a level (`logging.ERROR` ... `logging.DEBUG`, and 5 for traces).
fn python_level(level: Level) -> u8 {
    match level {
        Level::ERROR => 40,
        Level::WARN => 30,
        Level::INFO => 20,
        Level::DEBUG => 10,
        Level::TRACE => 5,
    }
}

/// Forwards the core's traces to Python from now on; called when the module is loaded.
pub(crate) fn install() {
    mcpweft_bridge::log::init_logging_with(Arc::new(PythonLogs));
}

/// Forwards the core's records at `level` (a `logging` level number) and above; a level above
/// `logging.ERROR` forwards none.
#[pyfunction]
pub(crate) fn set_log_level(level: i64) {
    let forwarded = match level {
        ..=5 => Some(Level::TRACE),
        6..=10 => Some(Level::DEBUG),
        11..=20 => Some(Level::INFO),
        21..=30 => Some(Level::WARN),
        31..=40 => Some(Level::ERROR),
        _ => None,
    };
    mcpweft_bridge::log::set_forwarded_level(forwarded);
}
