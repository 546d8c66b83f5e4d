//! JavaScript functions as bridge callbacks.
//!
//! The function is the package's trampoline `(payloads, contexts)`: for each call it parses
//! the JSON text of the payload, runs the user's handler, and settles through the
//! [`NativeContext`] it got, with `resolve(json)` or `reject(kind, code, message, data)`.
//!
//! The bridge's threads queue their calls and wake the JavaScript thread only when the queue
//! was empty, through a weak threadsafe function (so a registered handler never keeps the
//! process alive); each wake-up hands the trampoline every call queued by then, in arrival
//! order. Under load one JavaScript call thus runs a whole batch, instead of one threadsafe
//! call, one wake-up and one call into JavaScript per handler call.

use std::sync::{Arc, Mutex, MutexGuard};

use futures::channel::oneshot;
use mcpweft_bridge::{Callback, Context, Error};
use napi::{
    Status,
    bindgen_prelude::{FnArgs, Function},
    threadsafe_function::ThreadsafeFunctionCallMode,
};
use serde_json::Value;

use crate::context::NativeContext;

/// One call of a handler: what the trampoline gets.
struct Invocation {
    payload: String,
    context: NativeContext,
}

/// The calls waiting for the JavaScript thread, oldest first.
type Queue = Arc<Mutex<Vec<Invocation>>>;

fn lock(queue: &Queue) -> MutexGuard<'_, Vec<Invocation>> {
    queue.lock().unwrap_or_else(|e| e.into_inner())
}

/// Wraps the trampoline `handler` as a bridge callback.
pub(crate) fn callback(handler: Function<'_, (), ()>) -> napi::Result<Arc<dyn Callback>> {
    let queue: Queue = Arc::default();
    let drained = queue.clone();
    let trampoline =
        handler.build_threadsafe_function::<()>().callee_handled::<false>().weak::<true>().build_callback(
            move |_| {
                let batch = std::mem::take(&mut *lock(&drained));
                let (payloads, contexts): (Vec<String>, Vec<NativeContext>) =
                    batch.into_iter().map(|call| (call.payload, call.context)).unzip();
                Ok(FnArgs::from((payloads, contexts)))
            },
        )?;
    let trampoline = Arc::new(trampoline);
    Ok(Arc::new(move |payload: Value, context: Context| {
        let trampoline = trampoline.clone();
        let queue = queue.clone();
        async move {
            let (reply, answer) = oneshot::channel();
            let invocation = Invocation { payload: payload.to_string(), context: NativeContext::new(context, reply) };
            let first = {
                let mut waiting = lock(&queue);
                waiting.push(invocation);
                waiting.len() == 1
            };
            if first && trampoline.call((), ThreadsafeFunctionCallMode::NonBlocking) != Status::Ok {
                // The wake-up is lost, so no call queued now would ever run: dropping them
                // answers each with the error below.
                lock(&queue).clear();
                return Err(Error::internal("the JavaScript environment is shutting down"));
            }
            match answer.await {
                Ok(outcome) => outcome,
                Err(_) => Err(Error::handler("the handler was dropped without an answer")),
            }
        }
    }))
}
