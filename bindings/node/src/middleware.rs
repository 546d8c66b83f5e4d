//! Middleware written in JavaScript, and the rest of the chain each one is given.
//!
//! A JavaScript middleware is the package's trampoline, called like a handler through
//! [`Trampoline`]: its payload is the JSON text of the message, and the native object it
//! settles through is a [`NativeNext`], which also passes the message on.

use std::sync::Arc;

use mcpweft_bridge::{MiddlewareCallback, Next, Reply};
use napi::{JsString, bindgen_prelude::Function};
use napi_derive::napi;
use serde_json::Value;

use crate::{
    callback::Trampoline,
    error::{self, parse_or_throw},
    task::{Done, Pending, settle},
    text,
};

/// The rest of a middleware chain, given to a JavaScript middleware with each message, and the
/// answer of that middleware's call.
#[napi]
pub struct NativeNext {
    inner: Next,
    reply: Reply,
}

#[napi]
impl NativeNext {
    /// Passes the JSON text `message` on (the message the middleware received, changed or
    /// not) and calls `done` with the JSON text of the outcome; it may be called more than once.
    #[napi(catch_unwind, ts_args_type = "message: string, done: (error: string | null, value: string | null) => void")]
    pub fn run(&self, message: String, done: Done<'_>) -> napi::Result<Pending> {
        let message = parse_or_throw(&message, "middleware message")?;
        settle(done, self.inner.run(message), |v| mcpweft_bridge::to_json_text(&v))
    }

    /// Answers the middleware's call with the JSON text of its outcome.
    #[napi(catch_unwind)]
    pub fn resolve(&self, value: JsString<'_>) -> napi::Result<()> {
        self.reply.resolve_json(&text::read(&value)?, "the middleware's outcome");
        Ok(())
    }

    /// Answers the middleware's call with the string it returned, as it is (no JSON text).
    #[napi(catch_unwind)]
    pub fn resolve_text(&self, text: JsString<'_>) -> napi::Result<()> {
        self.reply.resolve_text(text::read(&text)?);
        Ok(())
    }

    /// Fails the middleware's call with what the thrown error says, as a handler's `reject`
    /// does: an `rpc` error fails the message with its `code`, message and the JSON text of
    /// its `data`.
    #[napi(catch_unwind)]
    pub fn reject(
        &self,
        kind: String,
        code: Option<i64>,
        message: String,
        data: Option<String>,
        causes: Option<Vec<String>>,
    ) {
        self.reply.reject(error::thrown(&kind, code, message, data.as_deref(), causes));
    }
}

/// Wraps the trampoline `middleware` as the bridge's middleware.
pub(crate) fn middleware(middleware: Function<'_, (), ()>) -> napi::Result<Arc<dyn MiddlewareCallback>> {
    let trampoline = Trampoline::new(middleware)?;
    Ok(Arc::new(move |message: Value, next: Next| {
        let trampoline = trampoline.clone();
        async move { trampoline.call(message, |reply| NativeNext { inner: next, reply }).await }
    }))
}
