//! JavaScript functions as bridge callbacks.
//!
//! The function is the package's trampoline `(payload, context)`: it parses the JSON text of
//! the payload, runs the user's handler, and settles through the [`NativeContext`] it got,
//! with `resolve(json)` or `reject(kind, code, message, data)`. It is called from the
//! bridge's threads through a weak threadsafe function, so a registered handler never keeps
//! the process alive.

use std::sync::Arc;

use futures::channel::oneshot;
use mcpkit_bridge::{Callback, Context, Error};
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

/// Wraps the trampoline `handler` as a bridge callback.
pub(crate) fn callback(handler: Function<'_, (), ()>) -> napi::Result<Arc<dyn Callback>> {
    let trampoline = handler
        .build_threadsafe_function::<Invocation>()
        .callee_handled::<false>()
        .weak::<true>()
        .build_callback(|call| Ok(FnArgs::from((call.value.payload, call.value.context))))?;
    let trampoline = Arc::new(trampoline);
    Ok(Arc::new(move |payload: Value, context: Context| {
        let trampoline = trampoline.clone();
        async move {
            let (reply, answer) = oneshot::channel();
            let invocation = Invocation { payload: payload.to_string(), context: NativeContext::new(context, reply) };
            if trampoline.call(invocation, ThreadsafeFunctionCallMode::NonBlocking) != Status::Ok {
                return Err(Error::internal("the JavaScript environment is shutting down"));
            }
            match answer.await {
                Ok(outcome) => outcome,
                Err(_) => Err(Error::handler("the handler was dropped without an answer")),
            }
        }
    }))
}
