//! Python's side of the bridge's runtime: attaching to the interpreter, awaiting bridge tasks
//! from asyncio, and running Python callables as bridge callbacks.
//!
//! Sync Python callables run on the bridge's bounded blocking pool
//! ([`mcpweft_bridge::run_blocking`]), so they never stall the asyncio loop; its workers run
//! the calls queued meanwhile in one attach ([`Interpreter`]), so under load a call costs
//! neither a thread hop nor a GIL hand-off of its own; coroutine
//! functions run as tasks on the asyncio loop captured when serving or connecting started.
//! Dropping the Rust future of a coroutine cancels its asyncio task.
//!
//! A call attaches to the interpreter as few times as it can: a sync call builds its
//! arguments, runs and converts its result to JSON inside its worker's attach; a
//! coroutine's result is converted by the done callback on the asyncio loop, which already
//! holds the interpreter. Under load every attach is a hand-off of the GIL between threads,
//! which costs far more than the Python code of a small handler.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use async_trait::async_trait;
use mcpweft_bridge::{
    BlockingScope, Callback, Context, Error, MiddlewareCallback, Next, PendingAnswer, Reply, Task, TaskHandle,
};
use pyo3::{exceptions::PyRuntimeError, ffi, prelude::*, types::PyTuple};
use serde_json::Value;

use crate::{context::PyContext, convert, error, middleware::PyNext};

/// How many Rust threads are inside [`attach`] right now.
static ATTACHED: AtomicUsize = AtomicUsize::new(0);
/// Set when the interpreter starts exiting; no Rust thread attaches after that.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Runs `f` attached to the interpreter from a Rust thread, or returns `None` once the
/// interpreter is exiting.
///
/// A thread that attaches while CPython finalizes is torn down inside the attach and aborts
/// the process, so every attach from the runtime's threads goes through here and the exit
/// hook waits for the ones in flight.
pub(crate) fn attach<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    let _inside = Inside::enter()?;
    KEPT.with(|kept| {
        if kept.get() == Kept::Wanted {
            // SAFETY: the interpreter is not exiting (checked above, and the exit hook waits
            // for this attach), and this thread holds no thread state of its own: it makes one,
            // then releases the GIL it took while keeping that state for its later attaches.
            let state = unsafe {
                let gil = ffi::PyGILState_Ensure();
                (gil, ffi::PyEval_SaveThread())
            };
            kept.set(Kept::Held(state.0, state.1));
        }
    });
    Some(Python::attach(f))
}

/// Counts the calling thread among those inside [`attach`] until dropped.
struct Inside;

impl Inside {
    /// Enters, or returns `None` once the interpreter is exiting.
    fn enter() -> Option<Inside> {
        ATTACHED.fetch_add(1, Ordering::SeqCst);
        let inside = Inside;
        (!EXITING.load(Ordering::SeqCst)).then_some(inside)
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        ATTACHED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What a thread the bridge started keeps to attach to the interpreter.
#[derive(Clone, Copy, PartialEq)]
enum Kept {
    /// Not a thread of the bridge: each attach makes and frees its thread state.
    Nothing,
    /// A thread of the bridge that has not attached yet.
    Wanted,
    /// A thread of the bridge with its thread state, kept while the GIL is released.
    Held(ffi::PyGILState_STATE, *mut ffi::PyThreadState),
}

thread_local! {
    /// A thread state kept for the thread's whole life, so that an attach from a thread of the
    /// bridge costs a GIL acquisition only, not the allocation (and the memory mapping of its
    /// frame stack) of a new thread state each time.
    static KEPT: std::cell::Cell<Kept> = const { std::cell::Cell::new(Kept::Nothing) };
}

/// The scope of the bridge's blocking pool: a worker attaches once for a whole batch of
/// synchronous handlers, so each call's own attach only counts a nesting level.
pub(crate) struct Interpreter;

impl BlockingScope for Interpreter {
    fn enter(&self, batch: &mut dyn FnMut()) {
        // Once the interpreter exits, the batch still runs, unattached: its calls fail.
        if attach(|_py| batch()).is_none() {
            batch();
        }
    }

    fn thread_started(&self) {
        KEPT.with(|kept| kept.set(Kept::Wanted));
    }

    fn thread_stopping(&self) {
        let Kept::Held(gil, state) = KEPT.with(|kept| kept.replace(Kept::Nothing)) else {
            return;
        };
        // Once the interpreter exits, it has freed the thread state itself.
        if let Some(_inside) = Inside::enter() {
            // SAFETY: the state is this thread's, released by `PyEval_SaveThread` in `attach`,
            // and the interpreter is not exiting.
            unsafe {
                ffi::PyEval_RestoreThread(state);
                ffi::PyGILState_Release(gil);
            }
        }
    }
}

/// Stops Rust threads from attaching and waits (detached, up to a few seconds) for those that
/// are attached; registered with `atexit`.
#[pyfunction]
pub(crate) fn drain_before_exit(py: Python<'_>) {
    // The core's last log records reach `logging` while the log thread may still attach.
    py.detach(|| mcpweft_bridge::log::flush_logs(Duration::from_secs(1)));
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

/// Aborts the bridge task behind an asyncio future when the future is cancelled.
#[pyclass]
struct AbortOnCancel(TaskHandle);

#[pymethods]
impl AbortOnCancel {
    fn __call__(&self, future: &Bound<'_, PyAny>) -> PyResult<()> {
        if future.call_method0("cancelled")?.is_truthy()? {
            self.0.abort();
        }
        Ok(())
    }
}

/// Runs a bridge task and returns an asyncio future, on the running loop, of its output as
/// `into_py` converts it; a bridge error raises its Python exception.
///
/// The task runs through [`Task::on_complete`], so the result reaches the loop with one
/// spawn and one attach. Cancelling the asyncio future aborts the task, which is how a
/// cancelled Python caller cancels an outgoing MCP request.
pub(crate) fn await_task<'py, T, F>(py: Python<'py>, task: Task<T>, into_py: F) -> PyResult<Bound<'py, PyAny>>
where
    T: Send + 'static,
    F: for<'a> FnOnce(Python<'a>, T) -> PyResult<Bound<'a, PyAny>> + Send + 'static,
{
    let event_loop = running_loop(py)?;
    let future = event_loop.call_method0("create_future")?;
    let target = (event_loop.unbind(), future.clone().unbind());
    let handle = task.on_complete(move |outcome| {
        attach(move |py| {
            let (event_loop, future) = target;
            let (ok, value) = match outcome.map_err(|e| error::to_py(py, e)).and_then(|v| into_py(py, v)) {
                Ok(value) => (true, value),
                Err(e) => (false, e.into_value(py).into_bound(py).into_any()),
            };
            let args = (Resolve, future, ok, value);
            if let Err(e) = event_loop.bind(py).call_method1("call_soon_threadsafe", args) {
                tracing::debug!(error = %e, "the asyncio loop is gone; a result was dropped");
            }
        });
    });
    future.call_method1("add_done_callback", (AbortOnCancel(handle),))?;
    Ok(future)
}

/// Awaits a task of JSON, which Python gets as dicts and lists.
pub(crate) fn await_json(py: Python<'_>, task: Task<Value>) -> PyResult<Bound<'_, PyAny>> {
    await_task(py, task, |py, value| convert::to_py(py, &value))
}

/// Awaits a task without output, which Python gets as `None`.
pub(crate) fn await_unit(py: Python<'_>, task: Task<()>) -> PyResult<Bound<'_, PyAny>> {
    await_task(py, task, |py, ()| Ok(py.None().into_bound(py)))
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

    /// Wraps `func` as a bridge callback that runs on this loop when `is_async`.
    pub(crate) fn callback(&self, func: Py<PyAny>, is_async: bool) -> Arc<dyn Callback> {
        Arc::new(PyCallback { func: Arc::new(func), is_async, event_loop: self.clone() })
    }

    /// Wraps the coroutine function `func(message, next)` as a middleware that runs on this
    /// loop.
    pub(crate) fn middleware(&self, func: Py<PyAny>) -> Arc<dyn MiddlewareCallback> {
        Arc::new(PyCallback { func: Arc::new(func), is_async: true, event_loop: self.clone() })
    }
}

/// Receives the outcome of a `concurrent.futures.Future` from its done callback, as JSON.
#[pyclass]
struct Completer(Reply);

#[pymethods]
impl Completer {
    fn __call__(&self, future: &Bound<'_, PyAny>) {
        self.0.send(to_json(future.py(), future.call_method0("result")));
    }
}

/// Converts what a Python callable returned or raised into its JSON result or the bridge
/// error the exception stands for.
fn to_json(py: Python<'_>, outcome: PyResult<Bound<'_, PyAny>>) -> Result<Value, Error> {
    outcome.and_then(|out| convert::from_py(&out)).map_err(|e| error::from_py(py, &e))
}

/// The error of a call that cannot reach Python because the interpreter is exiting.
fn exiting_error() -> Error {
    Error::internal("the Python interpreter is exiting")
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

/// A Python callable the bridge calls as `func(payload, context)` (a handler, or a client
/// callback) or `func(message, next)` (a middleware).
struct PyCallback {
    /// The callable, shared so that a sync call can take it to the blocking pool without
    /// attaching to the interpreter to clone it.
    func: Arc<Py<PyAny>>,
    is_async: bool,
    event_loop: LoopSlot,
}

/// What a call passes after its payload: a handler's context, or a middleware's next step.
enum Second {
    Context(Context),
    Next(Next),
}

/// Builds the arguments `(payload, context)` or `(message, next)` of a call.
fn arguments<'py>(py: Python<'py>, payload: &Value, second: Second) -> PyResult<Bound<'py, PyTuple>> {
    let second = match second {
        Second::Context(context) => Bound::new(py, PyContext::new(context))?.into_any(),
        Second::Next(next) => Bound::new(py, PyNext::new(next))?.into_any(),
    };
    PyTuple::new(py, [convert::to_py(py, payload)?, second])
}

#[async_trait]
impl Callback for PyCallback {
    async fn call(&self, payload: Value, context: Context) -> Result<Value, Error> {
        let context = Second::Context(context);
        if self.is_async { self.call_async(payload, context).await } else { self.call_sync(payload, context).await }
    }
}

#[async_trait]
impl MiddlewareCallback for PyCallback {
    async fn handle(&self, message: Value, next: Next) -> Result<Value, Error> {
        self.call_async(message, Second::Next(next)).await
    }
}

impl PyCallback {
    /// Runs the call on the bounded blocking pool, attached once for the arguments, the call
    /// and the conversion of its result.
    async fn call_sync(&self, payload: Value, context: Second) -> Result<Value, Error> {
        let func = Arc::clone(&self.func);
        mcpweft_bridge::run_blocking(move || {
            attach(|py| to_json(py, arguments(py, &payload, context).and_then(|args| func.bind(py).call1(args))))
                .unwrap_or_else(|| Err(exiting_error()))
        })
        .await?
    }

    /// Schedules the coroutine on the asyncio loop and waits for the JSON result its done
    /// callback sends.
    async fn call_async(&self, payload: Value, context: Second) -> Result<Value, Error> {
        let scheduled = attach(|py| self.schedule(py, &payload, context).map_err(|e| error::from_py(py, &e)));
        let (answer, mut guard) = scheduled.unwrap_or_else(|| Err(exiting_error()))?;
        let outcome = answer.wait(|| Error::internal("the asyncio loop dropped the handler's task")).await;
        guard.0 = None;
        outcome
    }

    /// Starts the coroutine on the captured loop, inside `mcpweft.errors._contain` so that a
    /// `SystemExit` or `KeyboardInterrupt` fails only this call; returns the receiver of its
    /// result and the guard that cancels it.
    fn schedule(&self, py: Python<'_>, payload: &Value, context: Second) -> PyResult<(PendingAnswer, CancelOnDrop)> {
        let event_loop = self.event_loop.get(py)?;
        let coroutine = self.func.bind(py).call1(arguments(py, payload, context)?)?;
        let coroutine = py.import("mcpweft.errors")?.call_method1("_contain", (coroutine,))?;
        let asyncio = py.import("asyncio")?;
        let future = asyncio.call_method1("run_coroutine_threadsafe", (coroutine, event_loop))?;
        let (reply, answer) = mcpweft_bridge::reply();
        future.call_method1("add_done_callback", (Completer(reply),))?;
        Ok((answer, CancelOnDrop(Some(future.unbind()))))
    }
}
