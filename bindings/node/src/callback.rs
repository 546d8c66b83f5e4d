//! JavaScript functions as bridge callbacks.
//!
//! The function is one of the package's trampolines `(payloads, natives)`: for each call it
//! takes the payload (JSON text it parses, or an object built directly when the payload holds
//! a long string: see [`Payload`]), runs the user's function, and settles through the
//! native object it got (a [`NativeContext`] for a handler, a
//! [`NativeNext`](crate::middleware::NativeNext) for a middleware), with `resolve(json)` or
//! `reject(kind, code, message, data, causes)`.
//!
//! The bridge's threads queue their calls and wake the JavaScript thread only when the queue
//! was empty, through a weak threadsafe function (so a registered handler never keeps the
//! process alive); each wake-up hands the trampoline every call queued by then, in arrival
//! order. Under load one JavaScript call thus runs a whole batch, instead of one threadsafe
//! call, one wake-up and one call into JavaScript per handler call.

use std::sync::{Arc, Mutex, MutexGuard};

use mcpweft_bridge::{Callback, Context, Error, Reply};
use napi::{
    Status,
    bindgen_prelude::{FnArgs, Function, ToNapiValue},
    threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode},
};
use serde_json::Value;

use crate::{context::NativeContext, payload::Payload};

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// One call of a trampoline: its payload and the native object it settles through.
struct Invocation<N> {
    payload: Payload,
    native: N,
}

/// The calls waiting for the JavaScript thread, oldest first.
type Queue<N> = Arc<Mutex<Vec<Invocation<N>>>>;

/// The weak threadsafe function that wakes a trampoline with a batch of calls.
type Wake<N> = ThreadsafeFunction<(), (), FnArgs<(Vec<Payload>, Vec<N>)>, Status, false, true>;

/// A trampoline `(payloads, natives)` behind a weak threadsafe function, and the calls queued
/// for its next wake-up.
pub(crate) struct Trampoline<N: ToNapiValue + 'static> {
    function: Wake<N>,
    queue: Queue<N>,
}

impl<N: ToNapiValue + Send + Sync + 'static> Trampoline<N> {
    /// Wraps the JavaScript trampoline `function`.
    pub(crate) fn new(function: Function<'_, (), ()>) -> napi::Result<Arc<Self>> {
        let queue: Queue<N> = Arc::default();
        let drained = queue.clone();
        let function =
            function.build_threadsafe_function::<()>().callee_handled::<false>().weak::<true>().build_callback(
                move |_| {
                    let batch = std::mem::take(&mut *lock(&drained));
                    let (payloads, natives): (Vec<Payload>, Vec<N>) =
                        batch.into_iter().map(|call| (call.payload, call.native)).unzip();
                    Ok(FnArgs::from((payloads, natives)))
                },
            )?;
        Ok(Arc::new(Trampoline { function, queue }))
    }

    /// Runs one call with `payload` and the native object `native` makes of the call's
    /// [`Reply`], and waits for its answer.
    pub(crate) async fn call(&self, payload: Value, native: impl FnOnce(Reply) -> N) -> Result<Value, Error> {
        let (reply, answer) = mcpweft_bridge::reply();
        let invocation = Invocation { payload: Payload::new(payload), native: native(reply) };
        let first = {
            let mut waiting = lock(&self.queue);
            waiting.push(invocation);
            waiting.len() == 1
        };
        if first && self.function.call((), ThreadsafeFunctionCallMode::NonBlocking) != Status::Ok {
            // The wake-up is lost, so no call queued now would ever run: dropping them
            // answers each with the error below.
            lock(&self.queue).clear();
            return Err(Error::internal("the JavaScript environment is shutting down"));
        }
        answer.wait(|| Error::handler("the handler was dropped without an answer")).await
    }
}

/// Wraps the trampoline `handler` as a bridge callback.
pub(crate) fn callback(handler: Function<'_, (), ()>) -> napi::Result<Arc<dyn Callback>> {
    let trampoline = Trampoline::new(handler)?;
    Ok(Arc::new(move |payload: Value, context: Context| {
        let trampoline = trampoline.clone();
        async move { trampoline.call(payload, |reply| NativeContext::new(context, reply)).await }
    }))
}
