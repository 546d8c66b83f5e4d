//! Bridge tasks settled through JavaScript callbacks.
//!
//! A method that starts a task takes a `done(error, value)` callback and returns a
//! [`Pending`]. The callback holds the event loop open until it is called once, with the JSON
//! text of a bridge error or with the value; aborting the pending call drops it uncalled, and
//! the JavaScript side settles its own promise.

use mcpweft_bridge::{Error, Task, TaskHandle};
use napi::{
    bindgen_prelude::{FnArgs, Function, ToNapiValue},
    threadsafe_function::ThreadsafeFunctionCallMode,
};
use napi_derive::napi;

/// The callback a task settles.
pub(crate) type Done<'a> = Function<'a, (), ()>;

/// A bridge call in flight.
#[napi]
pub struct Pending {
    handle: TaskHandle,
}

#[napi]
impl Pending {
    /// Cancels the call; its callback is then never called. An outgoing request is cancelled
    /// with the peer.
    #[napi(catch_unwind)]
    pub fn abort(&self) {
        self.handle.abort();
    }
}

/// Runs `task` and calls `done` with its outcome, its value turned into JavaScript by
/// `convert` on the JavaScript thread.
pub(crate) fn settle<T, V>(
    done: Done<'_>,
    task: Task<T>,
    mut convert: impl FnMut(T) -> V + 'static,
) -> napi::Result<Pending>
where
    T: Send + 'static,
    V: ToNapiValue + 'static,
{
    let callback =
        done.build_threadsafe_function::<Result<T, Error>>().callee_handled::<false>().build_callback(move |call| {
            Ok(match call.value {
                Ok(value) => FnArgs::from((None, Some(convert(value)))),
                Err(error) => FnArgs::from((Some(crate::error::to_json(&error)), None)),
            })
        })?;
    let handle = task.on_complete(move |outcome| {
        callback.call(outcome, ThreadsafeFunctionCallMode::NonBlocking);
    });
    Ok(Pending { handle })
}
