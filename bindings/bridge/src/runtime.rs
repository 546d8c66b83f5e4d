//! The runtime every binding shares, and [`Task`], the future type of the bridge.
//!
//! The bridge owns one multi-thread Tokio runtime, started on first use with threads named
//! `mcpweft`. Every asynchronous bridge method returns a [`Task`]: a future that runs on that
//! runtime whoever polls it, so asyncio, libuv or Swift's cooperative pool can await it
//! without a Tokio context. Dropping a task that has started cancels its work.

use std::{
    pin::Pin,
    sync::LazyLock,
    task::{Context, Poll},
};

use futures::future::BoxFuture;
use tokio::{
    runtime::Runtime,
    task::{AbortHandle, JoinHandle},
};
use tokio_util::sync::CancellationToken;

use crate::{Error, ErrorKind};

static RUNTIME: LazyLock<Runtime> = LazyLock::new(|| {
    crate::log::init_logging();
    tokio::runtime::Builder::new_multi_thread()
        .thread_name("mcpweft")
        .on_thread_start(thread_started)
        .on_thread_stop(crate::pool::thread_stopping)
        .enable_all()
        .build()
        .expect("the Tokio runtime of mcpweft could not be built")
});

/// Prepares a thread of the bridge. A write to a pipe whose reader is gone (the stdin of a
/// stdio server that exited) then fails with `EPIPE` instead of raising `SIGPIPE`, whose
/// default action ends the process: Python and Node ignore the signal, a Swift app does not.
/// Only the thread's mask changes (children spawned from it start with an empty mask, as the
/// standard library resets it). Then the binding's scope hears of the thread.
fn thread_started() {
    #[cfg(unix)]
    // SAFETY: the set is initialised by `sigemptyset` before it is read, and
    // `pthread_sigmask` changes only the calling thread's mask.
    unsafe {
        let mut set = std::mem::MaybeUninit::<libc::sigset_t>::uninit();
        libc::sigemptyset(set.as_mut_ptr());
        libc::sigaddset(set.as_mut_ptr(), libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, set.as_ptr(), std::ptr::null_mut());
    }
    crate::pool::thread_started();
}

fn runtime() -> &'static Runtime {
    &RUNTIME
}

/// Runs `future` on the bridge's runtime and returns the task that yields its output.
///
/// Bindings use it for work of their own that must run beside the core (for example
/// delivering a result to their event loop); the bridge's own methods already return tasks.
pub fn spawn<T, F>(future: F) -> Task<T>
where
    T: Send + 'static,
    F: Future<Output = Result<T, Error>> + Send + 'static,
{
    let mut task = Task::new(future);
    task.start();
    task
}

/// Runs the future `make` returns on a thread of its own, named `name`, that drives a
/// single-threaded Tokio runtime, and returns the task that yields its output.
///
/// A connection with one peer, such as a stdio server, does its protocol work (reading,
/// parsing, dispatching, writing) best on one thread: on the shared multi-thread runtime each
/// message would wake another worker and cross between threads. Handlers that block or run
/// in the host language's executor leave that thread as they would the runtime's. Dropping
/// the task stops the work; the runtime is then shut down without waiting for blocking calls.
pub(crate) fn spawn_dedicated<T, F, Fut>(name: &str, make: F) -> Task<T>
where
    T: Send + 'static,
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = Result<T, Error>> + 'static,
{
    let name = name.to_owned();
    Task::new(async move {
        let (sender, receiver) = tokio::sync::oneshot::channel();
        let stop = CancellationToken::new();
        let _stop_when_dropped = stop.clone().drop_guard();
        let thread = std::thread::Builder::new().name(name.clone()).spawn(move || {
            thread_started();
            let built = tokio::runtime::Builder::new_current_thread()
                .on_thread_start(thread_started)
                .on_thread_stop(crate::pool::thread_stopping)
                .enable_all()
                .build();
            let local = match built {
                Ok(local) => local,
                Err(e) => {
                    let _ = sender.send(Err(Error::internal(format!("no runtime for {name}: {e}"))));
                    return;
                }
            };
            let outcome = local.block_on(async move {
                tokio::select! {
                    () = stop.cancelled() => Err(Error::new(ErrorKind::Cancelled, "the work was cancelled")),
                    outcome = make() => outcome,
                }
            });
            local.shutdown_background();
            crate::pool::thread_stopping();
            let _ = sender.send(outcome);
        });
        thread.map_err(|e| Error::internal(format!("could not start a thread: {e}")))?;
        receiver.await.unwrap_or_else(|_| Err(Error::internal("the work panicked on its thread")))
    })
}

enum State<T> {
    Lazy(BoxFuture<'static, Result<T, Error>>),
    Running(JoinHandle<Result<T, Error>>),
    Done,
}

/// A unit of work of the bridge: a future that can be awaited from any executor.
///
/// A task does nothing until it is first polled (or [`Task::on_complete`] is called); it then
/// runs on the bridge's runtime. Dropping a task that has started aborts its work, which is
/// how a cancelled caller cancels an outgoing MCP request. A panic inside the work comes back
/// as an [`Error`] of kind [`crate::ErrorKind::Internal`].
pub struct Task<T> {
    state: State<T>,
}

impl<T> std::fmt::Debug for Task<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.state {
            State::Lazy(_) => "lazy",
            State::Running(_) => "running",
            State::Done => "done",
        };
        f.debug_struct("Task").field("state", &state).finish()
    }
}

impl<T: Send + 'static> Task<T> {
    /// Wraps `future`; it starts on the runtime when the task is first polled.
    pub(crate) fn new(future: impl Future<Output = Result<T, Error>> + Send + 'static) -> Self {
        Task { state: State::Lazy(Box::pin(future)) }
    }

    /// Returns a task that is already finished with `outcome`.
    pub(crate) fn ready(outcome: Result<T, Error>) -> Self {
        Task::new(std::future::ready(outcome))
    }

    fn start(&mut self) {
        if let State::Lazy(_) = self.state
            && let State::Lazy(future) = std::mem::replace(&mut self.state, State::Done)
        {
            self.state = State::Running(runtime().spawn(future));
        }
    }

    /// Returns a task that ends with an error of kind [`ErrorKind::Cancelled`] as soon as
    /// `handle` is cancelled, dropping this one (which aborts its work and so cancels an MCP
    /// request in flight); a handle cancelled already cancels the task at once.
    ///
    /// Bindings whose futures cannot be dropped from outside use it: a Swift task awaiting a
    /// uniffi future, a JS promise given an `AbortSignal`.
    pub fn cancel_on(mut self, handle: &CancelHandle) -> Task<T> {
        let token = handle.0.clone();
        let work: BoxFuture<'static, Result<T, Error>> = match std::mem::replace(&mut self.state, State::Done) {
            State::Lazy(future) => future,
            running => {
                self.state = running;
                Box::pin(self)
            }
        };
        Task::new(async move {
            tokio::select! {
                biased;
                () = token.cancelled() => Err(Error::new(ErrorKind::Cancelled, "the call was cancelled")),
                outcome = work => outcome,
            }
        })
    }

    /// Runs the task on the runtime and calls `done` with its outcome, on a runtime thread.
    ///
    /// This costs one spawned task, where awaiting a task from another executor costs a
    /// wake-up of that executor too; bindings whose event loop takes results through a
    /// callback use it. The returned handle aborts the work; `done` is then never called.
    pub fn on_complete(self, done: impl FnOnce(Result<T, Error>) + Send + 'static) -> TaskHandle {
        let handle = runtime().spawn(async move { done(self.await) });
        TaskHandle(handle.abort_handle())
    }
}

impl<T: Send + 'static> Future for Task<T> {
    type Output = Result<T, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.start();
        let State::Running(handle) = &mut self.state else {
            return Poll::Ready(Err(Error::internal("the task was polled after it finished")));
        };
        match Pin::new(handle).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(joined) => {
                self.state = State::Done;
                Poll::Ready(joined.unwrap_or_else(|e| Err(Error::from_join(e))))
            }
        }
    }
}

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        if let State::Running(handle) = &self.state {
            handle.abort();
        }
    }
}

/// A switch that cancels every task tied to it with [`Task::cancel_on`]; cloning gives the
/// same switch.
#[derive(Debug, Clone, Default)]
pub struct CancelHandle(CancellationToken);

impl CancelHandle {
    /// Creates a switch that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels every task tied to the switch, now and later.
    pub fn cancel(&self) {
        self.0.cancel();
    }

    /// Returns whether the switch was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// A handle that aborts the work started by [`Task::on_complete`].
#[derive(Debug, Clone)]
pub struct TaskHandle(AbortHandle);

impl TaskHandle {
    /// Aborts the work, dropping its future; a no-op once it finished.
    pub fn abort(&self) {
        self.0.abort();
    }

    /// Returns whether the work finished or was aborted.
    pub fn is_finished(&self) -> bool {
        self.0.is_finished()
    }
}
