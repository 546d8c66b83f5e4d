//! The context of one handler call, as JavaScript sees it.

use std::sync::{Mutex, MutexGuard};

use mcpweft_bridge::{Context, Reply, TaskHandle};
use napi::{JsString, bindgen_prelude::Function, threadsafe_function::ThreadsafeFunctionCallMode};
use napi_derive::napi;
use serde_json::Value;

use crate::{
    error::{self, parse_or_throw, throw},
    task::{Done, Pending, settle},
    text,
};

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn json(value: Option<Value>) -> Option<String> {
    value.map(|v| v.to_string())
}

/// The context of one handler call: its answer, its ids, and what it may ask of the peer.
#[napi]
pub struct NativeContext {
    inner: Context,
    reply: Reply,
    watch: Mutex<Option<TaskHandle>>,
}

impl NativeContext {
    /// Creates the context of a call whose answer goes to `reply`.
    pub(crate) fn new(inner: Context, reply: Reply) -> Self {
        NativeContext { inner, reply, watch: Mutex::new(None) }
    }

    /// Stops watching for cancellation once the call is answered.
    fn answered(&self) {
        if let Some(watch) = lock(&self.watch).take() {
            watch.abort();
        }
    }
}

impl Drop for NativeContext {
    fn drop(&mut self) {
        self.answered();
    }
}

#[napi]
impl NativeContext {
    /// Answers the call with the JSON text of the handler's value.
    #[napi(catch_unwind)]
    pub fn resolve(&self, value: JsString<'_>) -> napi::Result<()> {
        self.reply.resolve_json(&text::read(&value)?, "the handler's result");
        self.answered();
        Ok(())
    }

    /// Answers the call with the string the handler returned, as it is (no JSON text).
    #[napi(catch_unwind)]
    pub fn resolve_text(&self, text: JsString<'_>) -> napi::Result<()> {
        self.reply.resolve_text(text::read(&text)?);
        self.answered();
        Ok(())
    }

    /// Fails the call with what the thrown error says: `kind` is `rpc` for the JSON-RPC error
    /// `code` with the JSON text of `data`, another kind name keeps its kind, anything else is a
    /// failure the error policy turns into a result; `causes` are the messages of its causes.
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
        self.answered();
    }

    /// Returns the JSON text of the request's id, outside a request `null`.
    #[napi(catch_unwind)]
    pub fn request_id(&self) -> Option<String> {
        json(self.inner.request_id())
    }

    /// Returns the session's id over Streamable HTTP; other transports have none.
    #[napi(catch_unwind)]
    pub fn session_id(&self) -> Option<String> {
        self.inner.session_id()
    }

    /// Returns the JSON text of who the request came from on a protected HTTP server
    /// (`subject`, `clientId`, `issuer`, `audience`, `scopes`, `expiresAt`, `claims`), or
    /// `null` elsewhere.
    #[napi(catch_unwind)]
    pub fn auth(&self) -> Option<String> {
        json(self.inner.auth())
    }

    /// Returns the JSON text of the request's `_meta`, if it had one.
    #[napi(catch_unwind)]
    pub fn meta(&self) -> Option<String> {
        json(self.inner.meta())
    }

    /// Returns the JSON text of the progress token the peer asked for, if any.
    #[napi(catch_unwind)]
    pub fn progress_token(&self) -> Option<String> {
        json(self.inner.progress_token())
    }

    /// Returns whether the request was cancelled or its session ended.
    #[napi(catch_unwind)]
    pub fn is_cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }

    /// Returns the JSON text of the client's `clientInfo`, once it initialized.
    #[napi(catch_unwind)]
    pub fn client_info(&self) -> Option<String> {
        json(self.inner.client_info())
    }

    /// Returns the JSON text of the capabilities the client declared.
    #[napi(catch_unwind)]
    pub fn client_capabilities(&self) -> String {
        self.inner.client_capabilities().to_string()
    }

    /// Returns the protocol version negotiated for the session.
    #[napi(catch_unwind)]
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.protocol_version()
    }

    /// Reports progress when the peer asked for it.
    #[napi(catch_unwind)]
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> napi::Result<()> {
        self.inner.report_progress(progress, total, message).map_err(throw)
    }

    /// Sends a log message at `level` with the JSON text `data`.
    #[napi(catch_unwind)]
    pub fn log(&self, level: String, data: String, logger: Option<String>) -> napi::Result<()> {
        let data = parse_or_throw(&data, "log data")?;
        self.inner.log(&level, data, logger.as_deref()).map_err(throw)
    }

    /// Sends a notification with the JSON text `params`, tied to the request.
    #[napi(catch_unwind)]
    pub fn notify(&self, method: String, params: String) -> napi::Result<()> {
        self.inner.notify(&method, parse_or_throw(&params, "notification params")?).map_err(throw)
    }

    /// Tells the client that the URL-mode elicitation `elicitation_id` finished.
    #[napi(catch_unwind)]
    pub fn notify_elicitation_complete(&self, elicitation_id: String) -> napi::Result<()> {
        self.inner.notify_elicitation_complete(&elicitation_id).map_err(throw)
    }

    /// Ends the request's SSE stream over Streamable HTTP, for the client to resume.
    #[napi(catch_unwind)]
    pub fn close_sse_stream(&self) -> napi::Result<()> {
        self.inner.close_sse_stream().map_err(throw)
    }

    /// Sends a request with the JSON text `params` to the peer.
    #[napi(
        catch_unwind,
        ts_args_type = "method: string, params: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn request(&self, method: String, params: String, done: Done<'_>) -> napi::Result<Pending> {
        let params = parse_or_throw(&params, "request params")?;
        settle(done, self.inner.request(&method, params), |v| v.to_string())
    }

    /// Asks the client for input (`elicitation/create`, `sampling/createMessage` or
    /// `roots/list`, with the JSON text `params`) under `key`, the name a 2026-07-28 client
    /// answers it by; older clients get the request at once and `key` is unused.
    #[napi(
        catch_unwind,
        ts_args_type = "key: string, method: string, params: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn ask(&self, key: String, method: String, params: String, done: Done<'_>) -> napi::Result<Pending> {
        let params = parse_or_throw(&params, "request params")?;
        settle(done, self.inner.ask(&key, &method, params), |v| v.to_string())
    }

    /// Returns the JSON text of the state kept by `set_state` in an earlier round of this
    /// 2026-07-28 request, if any.
    #[napi(catch_unwind)]
    pub fn state(&self) -> Option<String> {
        json(self.inner.state())
    }

    /// Keeps the JSON text `state` for the next round of this 2026-07-28 request; older
    /// requests have one round and keep nothing.
    #[napi(catch_unwind)]
    pub fn set_state(&self, state: String) -> napi::Result<()> {
        self.inner.set_state(parse_or_throw(&state, "request state")?);
        Ok(())
    }

    /// Asks the client to sample from its model.
    #[napi(catch_unwind, ts_args_type = "params: string, done: (error: string | null, value: string | null) => void")]
    pub fn sample(&self, params: String, done: Done<'_>) -> napi::Result<Pending> {
        let params = parse_or_throw(&params, "sampling params")?;
        settle(done, self.inner.sample(params), |v| v.to_string())
    }

    /// Asks the client to elicit input from its user, in form or URL mode.
    #[napi(catch_unwind, ts_args_type = "params: string, done: (error: string | null, value: string | null) => void")]
    pub fn elicit(&self, params: String, done: Done<'_>) -> napi::Result<Pending> {
        let params = parse_or_throw(&params, "elicitation params")?;
        settle(done, self.inner.elicit(params), |v| v.to_string())
    }

    /// Asks the client for its roots.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: string | null) => void")]
    pub fn list_roots(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.list_roots(), |v| v.to_string())
    }

    /// Calls `listener` once if the request is cancelled before the call is answered.
    ///
    /// The core drops a cancelled handler's future, so the watch runs beside it, and ends
    /// when the call is answered.
    #[napi(catch_unwind, ts_args_type = "listener: () => void")]
    pub fn on_cancelled(&self, listener: Function<'_, (), ()>) -> napi::Result<()> {
        if self.reply.is_answered() {
            return Ok(());
        }
        let listener = listener
            .build_threadsafe_function::<()>()
            .callee_handled::<false>()
            .weak::<true>()
            .build_callback(|_| Ok(()))?;
        let watch = self.inner.cancelled().on_complete(move |outcome| {
            if outcome.is_ok() {
                listener.call((), ThreadsafeFunctionCallMode::NonBlocking);
            }
        });
        if let Some(previous) = lock(&self.watch).replace(watch) {
            previous.abort();
        }
        Ok(())
    }
}
