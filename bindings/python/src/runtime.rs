//! The Tokio runtime the binding owns, and the bridge that lets the core call Python.
//!
//! Sync Python callables run on Tokio's blocking pool, so they never stall the asyncio loop;
//! coroutine functions run as tasks on the asyncio loop captured when serving or connecting
//! started. Dropping the Rust future of a coroutine cancels its asyncio task.
//!
//! A call attaches to the interpreter as few times as it can: a sync call builds its
//! arguments, runs and converts its result to JSON in one attach, on the blocking thread; a
//! coroutine's result is converted by the done callback on the asyncio loop, which already
//! holds the interpreter. Under load every attach is a hand-off of the GIL between threads,
//! which costs far more than the Python code of a small handler.

use std::{
    sync::{
        Arc, LazyLock, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use mcpkit::ErrorData;
use pyo3::{IntoPyObjectExt, exceptions::PyRuntimeError, prelude::*, types::PyTuple};
use serde_json::Value;
use tokio::{runtime::Runtime, sync::oneshot, task::AbortHandle};

use crate::{convert, error};

static RUNTIME: LazyLock<Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .thread_name("mcpkit")
        .enable_all()
        .build()
        .expect("the Tokio runtime of mcpkit could not be built")
});

/// How many Rust threads are inside [`attach`] right now.
static ATTACHED: AtomicUsize = AtomicUsize::new(0);
/// Set when the interpreter starts exiting; no Rust thread attaches after that.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Returns the process-wide runtime that runs every session of this module.
pub(crate) fn runtime() -> &'static Runtime {
    &RUNTIME
}

/// Runs `f` attached to the interpreter from a Rust thread, or returns `None` once the
/// interpreter is exiting.
///
/// A thread that attaches while CPython finalizes is torn down inside the attach and aborts
/// the process, so every attach from the runtime's threads goes through here and the exit
/// hook waits for the ones in flight.
pub(crate) fn attach<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            ATTACHED.fetch_sub(1, Ordering::SeqCst);
        }
    }
    ATTACHED.fetch_add(1, Ordering::SeqCst);
    let _leave = Leave;
    if EXITING.load(Ordering::SeqCst) {
        return None;
    }
    Some(Python::attach(f))
}

/// Stops Rust threads from attaching and waits (detached, up to a few seconds) for those that
/// are attached; registered with `atexit`.
#[pyfunction]
pub(crate) fn drain_before_exit(py: Python<'_>) {
    EXITING.store(true, Ordering::SeqCst);
    py.detach(|| {
        let deadline = Instant::now() + Duration::from_secs(5);
        while ATTACHED.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

/// Completes an asyncio future on its loop's thread, unless it is already done (cancelled).
#[pyclass]
struct Resolve;

#[pymethods]
impl Resolve {
    fn __call__(&self, future: &Bound<'_, PyAny>, ok: bool, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if future.call_method0("done")?.is_truthy()? {
            return Ok(());
        }
        future.call_method1(if ok { "set_result" } else { "set_exception" }, (value,)).map(drop)
    }
}

/// Aborts the Rust task behind an asyncio future when the future is cancelled.
#[pyclass]
struct AbortOnCancel(AbortHandle);

#[pymethods]
impl AbortOnCancel {
    fn __call__(&self, future: &Bound<'_, PyAny>) -> PyResult<()> {
        if future.call_method0("cancelled")?.is_truthy()? {
            self.0.abort();
        }
        Ok(())
    }
}

/// Runs `fut` on the runtime and returns an asyncio future of its result, on the running loop.
///
/// Cancelling the asyncio future drops `fut`, which is how a cancelled Python caller cancels
/// an outgoing MCP request.
pub(crate) fn future_into_py<F, T>(py: Python<'_>, fut: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let event_loop = running_loop(py)?;
    let future = event_loop.call_method0("create_future")?;
    let target = (event_loop.unbind(), future.clone().unbind());
    let task = runtime().spawn(async move {
        let outcome = fut.await;
        attach(move |py| {
            let (event_loop, future) = target;
            let (ok, value) = match outcome.and_then(|v| v.into_py_any(py)) {
                Ok(value) => (true, value),
                Err(e) => (false, e.into_value(py).into_any()),
            };
            let args = (Resolve, future, ok, value);
            if let Err(e) = event_loop.bind(py).call_method1("call_soon_threadsafe", args) {
                tracing::debug!(error = %e, "the asyncio loop is gone; a result was dropped");
            }
        });
    });
    future.call_method1("add_done_callback", (AbortOnCancel(task.abort_handle()),))?;
    Ok(future)
}

fn running_loop(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    py.import("asyncio")?.call_method0("get_running_loop")
}

/// The asyncio loop that coroutine handlers run on, captured when serving or connecting starts.
#[derive(Clone, Default)]
pub(crate) struct LoopSlot(Arc<Mutex<Option<Py<PyAny>>>>);

impl LoopSlot {
    /// Captures the loop running in the calling thread.
    pub(crate) fn capture(&self, py: Python<'_>) -> PyResult<()> {
        let running = running_loop(py)?;
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(running.unbind());
        Ok(())
    }

    fn get<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match slot.as_ref() {
            Some(event_loop) => Ok(event_loop.bind(py).clone()),
            None => Err(PyRuntimeError::new_err("no asyncio loop was captured to run coroutine handlers on")),
        }
    }

    /// Schedules `callback(arg)` on the loop without waiting for it.
    pub(crate) fn call_soon(&self, py: Python<'_>, callback: &Py<PyAny>, arg: Bound<'_, PyAny>) -> PyResult<()> {
        self.get(py)?.call_method1("call_soon_threadsafe", (callback.bind(py), arg)).map(drop)
    }
}

/// Receives the outcome of a `concurrent.futures.Future` from its done callback, as JSON.
#[pyclass]
struct Completer {
    tx: Option<oneshot::Sender<Result<Value, ErrorData>>>,
}

#[pymethods]
impl Completer {
    fn __call__(&mut self, future: &Bound<'_, PyAny>) {
        let outcome = to_json(future.py(), future.call_method0("result"));
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(outcome);
        }
    }
}

/// Converts what a Python callable returned or raised into its JSON result or the JSON-RPC
/// error the exception stands for.
fn to_json(py: Python<'_>, outcome: PyResult<Bound<'_, PyAny>>) -> Result<Value, ErrorData> {
    outcome.and_then(|out| convert::from_py(&out)).map_err(|e| error::to_error_data(py, &e))
}

/// The error of a call that cannot reach Python because the interpreter is exiting.
fn exiting_error() -> ErrorData {
    ErrorData::internal_error("the Python interpreter is exiting")
}

/// Cancels the asyncio task behind a `concurrent.futures.Future` unless disarmed.
struct CancelOnDrop(Option<Py<PyAny>>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(future) = self.0.take() {
            attach(|py| {
                let _ = future.bind(py).call_method0("cancel");
            });
        }
    }
}

/// A Python callable the core calls: a handler, or a client-side callback.
pub(crate) struct PyCallback {
    /// The callable, shared so that a sync call can take it to the blocking pool without
    /// attaching to the interpreter to clone it.
    func: Arc<Py<PyAny>>,
    is_async: bool,
    event_loop: LoopSlot,
}

impl PyCallback {
    /// Wraps `func`; `is_async` says whether calling it returns a coroutine.
    pub(crate) fn new(func: Py<PyAny>, is_async: bool, event_loop: LoopSlot) -> Self {
        PyCallback { func: Arc::new(func), is_async, event_loop }
    }

    /// Calls the callable with the arguments `args` builds and returns its JSON result.
    ///
    /// A Python exception becomes the JSON-RPC error it stands for.
    pub(crate) async fn call<A>(&self, args: A) -> Result<Value, ErrorData>
    where
        A: for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>> + Send + 'static,
    {
        if self.is_async { self.call_async(args).await } else { self.call_sync(args).await }
    }

    /// Runs the call on the blocking pool, attached once for the arguments, the call and the
    /// conversion of its result.
    async fn call_sync<A>(&self, args: A) -> Result<Value, ErrorData>
    where
        A: for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>> + Send + 'static,
    {
        let func = Arc::clone(&self.func);
        let task = tokio::task::spawn_blocking(move || {
            attach(|py| {
                let outcome = args(py).and_then(|args| func.bind(py).call1(args));
                to_json(py, outcome)
            })
            .unwrap_or_else(|| Err(exiting_error()))
        });
        task.await.map_err(|e| ErrorData::internal_error(format!("the handler thread failed: {e}")))?
    }

    /// Schedules the coroutine on the asyncio loop and waits for the JSON result its done
    /// callback sends.
    async fn call_async<A>(&self, args: A) -> Result<Value, ErrorData>
    where
        A: for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>> + Send + 'static,
    {
        let scheduled = attach(|py| self.schedule(py, args).map_err(|e| error::to_error_data(py, &e)));
        let (rx, mut guard) = scheduled.unwrap_or_else(|| Err(exiting_error()))?;
        let outcome = rx.await;
        guard.0 = None;
        outcome.map_err(|_| ErrorData::internal_error("the asyncio loop dropped the handler's task"))?
    }

    /// Starts the coroutine on the captured loop; returns the receiver of its result and the
    /// guard that cancels it.
    fn schedule<A>(
        &self,
        py: Python<'_>,
        args: A,
    ) -> PyResult<(oneshot::Receiver<Result<Value, ErrorData>>, CancelOnDrop)>
    where
        A: for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>>,
    {
        let event_loop = self.event_loop.get(py)?;
        let coroutine = self.func.bind(py).call1(args(py)?)?;
        let asyncio = py.import("asyncio")?;
        let future = asyncio.call_method1("run_coroutine_threadsafe", (coroutine, event_loop))?;
        let (tx, rx) = oneshot::channel();
        future.call_method1("add_done_callback", (Completer { tx: Some(tx) },))?;
        Ok((rx, CancelOnDrop(Some(future.unbind()))))
    }
}

/// The error of a call that cannot reach Python because the interpreter is exiting.
pub(crate) fn exiting() -> PyErr {
    PyRuntimeError::new_err("the Python interpreter is exiting")
}
