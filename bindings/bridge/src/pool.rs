//! The bounded pool that runs blocking (synchronous) handlers of language bindings.
//!
//! Calls wait in one queue. One worker thread, the runner, takes them one after the other
//! inside one [`BlockingScope`] (for Python, one attach to the interpreter for a whole batch),
//! so under load a call costs neither a thread hop of its own nor an attach of its own. A
//! second worker, the standby, watches the runner: when calls are waiting and the runner has
//! not started one for [`STALL`] (its handler blocks, or computes for long), the standby
//! becomes a runner too, so a stuck handler never holds up the others; runners leave when the
//! queue is empty. Workers are started on demand, at most the limit of [`set_blocking_limit`],
//! and leave after [`KEEP_ALIVE`] without work.
//!
//! Beyond the limit of running calls, up to four times as many calls wait; further ones fail
//! with an error of kind [`crate::ErrorKind::Overloaded`]. A call whose future is dropped while it
//! waits leaves the queue at once.

use std::{
    collections::VecDeque,
    panic::AssertUnwindSafe,
    sync::{
        Arc, Condvar, LazyLock, Mutex, MutexGuard, OnceLock,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::Duration,
};

use tokio::sync::oneshot;

use crate::Error;

/// The default of [`set_blocking_limit`]: how many blocking handlers may run at once.
pub const DEFAULT_BLOCKING_LIMIT: usize = 64;

/// How long calls wait while the runner is inside one handler before the standby takes them.
const STALL: Duration = Duration::from_millis(1);
/// How long a worker without work stays before its thread ends.
const KEEP_ALIVE: Duration = Duration::from_secs(10);
/// The stack size of a worker thread: 16 MiB, what CPython gives its own threads on macOS and
/// more than the 8 MiB of a Linux thread, so a handler recurses as deep as it could in a
/// `threading.Thread` (only the pages a handler touches are ever committed).
const STACK_SIZE: usize = 16 * 1024 * 1024;

static BLOCKING_LIMIT: AtomicUsize = AtomicUsize::new(DEFAULT_BLOCKING_LIMIT);
static POOL: LazyLock<Arc<Pool>> = LazyLock::new(|| Arc::new(Pool::new(blocking_limit())));
static SCOPE: OnceLock<Box<dyn BlockingScope>> = OnceLock::new();

/// How the workers of the blocking pool enter a binding's runtime for a batch of calls.
///
/// A binding whose calls need a costly set-up per thread (Python attaches to the interpreter)
/// sets one with [`set_blocking_scope`]; each call still enters on its own, which is then
/// cheap, so a call is correct whether or not its batch is inside the scope.
///
/// The scope also hears of every thread the bridge starts (the runtime's, the dedicated
/// threads' and the pool's), so that a binding can keep what a thread needs to enter its
/// runtime for the thread's whole life instead of building it at each call.
pub trait BlockingScope: Send + Sync + 'static {
    /// Runs `batch` inside the scope, or outside it when the scope cannot be entered: either
    /// way exactly once.
    fn enter(&self, batch: &mut dyn FnMut());

    /// Called on a thread the bridge started, before it runs any work; by default nothing.
    fn thread_started(&self) {}

    /// Called on a thread the bridge started, after its last work, as it ends; by default
    /// nothing.
    fn thread_stopping(&self) {}
}

/// Tells the binding's scope, if any, that the calling thread of the bridge starts.
pub(crate) fn thread_started() {
    if let Some(scope) = SCOPE.get() {
        scope.thread_started();
    }
}

/// Tells the binding's scope, if any, that the calling thread of the bridge ends.
pub(crate) fn thread_stopping() {
    if let Some(scope) = SCOPE.get() {
        scope.thread_stopping();
    }
}

/// Sets the scope every batch of blocking calls runs in; only the first call has an effect.
pub fn set_blocking_scope(scope: impl BlockingScope) {
    let _ = SCOPE.set(Box::new(scope));
}

/// Sets how many blocking handlers may run at once in this process (default
/// [`DEFAULT_BLOCKING_LIMIT`]); it takes effect if called before the first blocking call.
///
/// Beyond the limit, up to four times as many calls wait in a queue (a cancelled call leaves
/// the queue at once); further calls fail with an error of kind [`crate::ErrorKind::Overloaded`], so
/// stuck handlers can never exhaust the threads and hang every other handler.
pub fn set_blocking_limit(limit: usize) {
    BLOCKING_LIMIT.store(limit.max(1), Ordering::SeqCst);
}

/// Returns how many blocking handlers may run at once.
pub fn blocking_limit() -> usize {
    BLOCKING_LIMIT.load(Ordering::SeqCst)
}

/// Runs a blocking function (a synchronous handler of a language binding) on the pool, within
/// the limit of [`set_blocking_limit`].
///
/// Dropping the returned future while the call waits gives its place up; a call that already
/// runs cannot be interrupted and keeps its thread until it returns. A panic in `f` comes back
/// as an error of kind [`crate::ErrorKind::Internal`].
pub async fn run_blocking<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> Result<R, Error> {
    let (tx, rx) = oneshot::channel();
    let job: Box<dyn FnOnce() + Send> = Box::new(move || {
        let _ = tx.send(std::panic::catch_unwind(AssertUnwindSafe(f)));
    });
    let ticket = POOL.push(job)?;
    let outcome = rx.await;
    drop(ticket);
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(panic)) => Err(Error::from_panic(panic.as_ref())),
        Err(_) => Err(Error::internal("the blocking pool dropped a call")),
    }
}

/// A call waiting in the queue, with the flag its future clears when it is dropped.
struct Entry {
    job: Box<dyn FnOnce() + Send>,
    live: Arc<AtomicBool>,
}

/// The state of the pool, under one lock.
#[derive(Default)]
struct State {
    queue: VecDeque<Entry>,
    /// The calls in the queue whose futures are still alive.
    waiting: usize,
    /// The calls running now.
    busy: usize,
    /// The worker threads that exist.
    threads: usize,
    /// The workers waiting for work.
    idle: usize,
    /// The workers taking calls from the queue.
    runners: usize,
    /// Whether a worker watches the runners.
    standby: bool,
    /// The workers woken or started that have not looked at the state yet; while there is
    /// one, nobody else is called.
    summoned: usize,
    /// The number of calls started so far, which tells the standby whether runners progress.
    started: u64,
}

/// The pool: its state, the signal idle workers wait on, the one the standby sleeps on (never
/// signalled) and its limit.
struct Pool {
    state: Mutex<State>,
    wake: Condvar,
    watch: Condvar,
    limit: usize,
}

/// Takes a call out of the queue's count when its future is dropped before it started.
struct Ticket {
    live: Arc<AtomicBool>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if self.live.swap(false, Ordering::AcqRel) {
            POOL.lock().waiting -= 1;
        }
    }
}

impl Pool {
    fn new(limit: usize) -> Self {
        Pool { state: Mutex::new(State::default()), wake: Condvar::new(), watch: Condvar::new(), limit }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `job`, making sure a worker will take it; fails when too many calls wait.
    fn push(self: &Arc<Self>, job: Box<dyn FnOnce() + Send>) -> Result<Ticket, Error> {
        let live = Arc::new(AtomicBool::new(true));
        let mut state = self.lock();
        // As many calls as may run at once, and four times as many waiting.
        if state.waiting + state.busy >= self.limit.saturating_mul(5) {
            return Err(Error::overloaded(format!(
                "too many synchronous handlers are running or waiting ({} may run at once); try again later",
                self.limit
            )));
        }
        state.queue.push_back(Entry { job, live: live.clone() });
        state.waiting += 1;
        // A runner takes the call when it is free; without one, a worker must become it, and
        // with one, a standby must watch it in case its handler never returns.
        if state.runners == 0 || !state.standby {
            self.call_worker(&mut state);
        }
        drop(state);
        Ok(Ticket { live })
    }

    /// Wakes an idle worker, or starts one when none is idle and the limit allows it, unless
    /// one is on its way already.
    fn call_worker(self: &Arc<Self>, state: &mut State) {
        if state.summoned > 0 {
            return;
        }
        if state.idle > 0 {
            state.summoned += 1;
            self.wake.notify_one();
        } else if state.threads < self.limit {
            let pool = Arc::clone(self);
            let spawned = std::thread::Builder::new()
                .name("mcpweft-blocking".into())
                .stack_size(STACK_SIZE)
                .spawn(move || pool.work());
            match spawned {
                Ok(_) => {
                    state.threads += 1;
                    state.summoned += 1;
                }
                Err(e) => tracing::warn!(error = %e, "could not start a thread for synchronous handlers"),
            }
        }
    }

    /// Takes the next call that is still wanted, counting it as started.
    fn pop(state: &mut State) -> Option<Box<dyn FnOnce() + Send>> {
        while let Some(entry) = state.queue.pop_front() {
            if entry.live.swap(false, Ordering::AcqRel) {
                state.waiting -= 1;
                state.busy += 1;
                state.started += 1;
                return Some(entry.job);
            }
        }
        None
    }

    /// The life of a worker thread: it runs batches, watches as the standby, or waits.
    fn work(self: Arc<Self>) {
        thread_started();
        self.serve();
        thread_stopping();
    }

    /// The loop of [`Pool::work`], which returns when the worker's thread is to end.
    fn serve(self: &Arc<Self>) {
        let mut state = self.lock();
        state.summoned = state.summoned.saturating_sub(1);
        loop {
            if !state.queue.is_empty() && state.runners == 0 {
                state.runners += 1;
                drop(state);
                self.run_batch();
                state = self.lock();
            } else if state.runners > 0 && !state.standby {
                state.standby = true;
                let seen = state.started;
                state = self.watch.wait_timeout(state, STALL).unwrap_or_else(|e| e.into_inner()).0;
                state.standby = false;
                if state.runners > 0 && state.started == seen && state.waiting > 0 {
                    state.runners += 1;
                    drop(state);
                    self.run_batch();
                    state = self.lock();
                }
            } else {
                state.idle += 1;
                let (next, timeout) = self.wake.wait_timeout(state, KEEP_ALIVE).unwrap_or_else(|e| e.into_inner());
                state = next;
                state.idle -= 1;
                // Whether signalled or not, this worker now looks at the state for whoever
                // called it.
                state.summoned = state.summoned.saturating_sub(1);
                if timeout.timed_out() && state.queue.is_empty() {
                    state.threads -= 1;
                    return;
                }
            }
        }
    }

    /// Runs calls from the queue inside the binding's scope until the queue is empty; the
    /// caller counted this worker as a runner, and this counts it out.
    fn run_batch(self: &Arc<Self>) {
        let mut batch = || {
            let mut state = self.lock();
            while let Some(job) = Self::pop(&mut state) {
                if !state.queue.is_empty() && !state.standby {
                    self.call_worker(&mut state);
                }
                drop(state);
                job();
                state = self.lock();
                state.busy -= 1;
            }
            // Taking the last call and leaving happen under one lock, so a call queued later
            // sees no runner and calls a worker.
            state.runners -= 1;
        };
        match SCOPE.get() {
            Some(scope) => scope.enter(&mut batch),
            None => batch(),
        }
    }
}
