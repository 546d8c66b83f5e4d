//! The client handle and the callbacks it answers the server with.

use std::sync::Arc;

use mcpweft_bridge::{CallOptions, Client, ClientCallbacks, Subscription};
use napi::{
    bindgen_prelude::{Buffer, Function},
    threadsafe_function::ThreadsafeFunctionCallMode,
};
use napi_derive::napi;
use serde_json::Value;

use crate::{
    callback::callback,
    error::{parse_or_throw, throw},
    middleware::middleware,
    server::NativeServer,
    task::{Done, Pending, settle},
};

/// A JavaScript function.
pub(crate) type JsFunction<'a> = Function<'a, (), ()>;

/// The callbacks a client answers the server with; the client declares the capabilities
/// they imply.
#[napi]
pub struct NativeCallbacks {
    pub(crate) inner: ClientCallbacks,
}

#[napi]
impl NativeCallbacks {
    /// Creates a set with no callbacks.
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        NativeCallbacks { inner: ClientCallbacks::new() }
    }

    /// Answers `sampling/createMessage`; `tools` declares sampling with tools.
    #[napi(
        catch_unwind,
        ts_args_type = "handler: (payloads: string[], contexts: NativeContext[]) => void, tools: boolean"
    )]
    pub fn sampling(&mut self, handler: JsFunction<'_>, tools: bool) -> napi::Result<()> {
        self.inner = std::mem::take(&mut self.inner).with_sampling(callback(handler)?, tools);
        Ok(())
    }

    /// Answers `elicitation/create` in form mode, URL mode, or both.
    #[napi(
        catch_unwind,
        ts_args_type = "handler: (payloads: string[], contexts: NativeContext[]) => void, form: boolean, url: boolean"
    )]
    pub fn elicitation(&mut self, handler: JsFunction<'_>, form: bool, url: bool) -> napi::Result<()> {
        self.inner = std::mem::take(&mut self.inner).with_elicitation(callback(handler)?, form, url);
        Ok(())
    }

    /// Answers `roots/list`.
    #[napi(catch_unwind, ts_args_type = "handler: (payloads: string[], contexts: NativeContext[]) => void")]
    pub fn roots(&mut self, handler: JsFunction<'_>) -> napi::Result<()> {
        self.inner = std::mem::take(&mut self.inner).with_roots(callback(handler)?);
        Ok(())
    }

    /// Hears every notification from the server.
    #[napi(catch_unwind, ts_args_type = "handler: (payloads: string[], contexts: NativeContext[]) => void")]
    pub fn notification(&mut self, handler: JsFunction<'_>) -> napi::Result<()> {
        self.inner = std::mem::take(&mut self.inner).with_notification(callback(handler)?);
        Ok(())
    }

    /// Lets the user log in to a protected HTTP server: the payload is
    /// `{"authorizationUrl"}`, and the handler answers the URL the authorization server
    /// redirected to.
    #[napi(catch_unwind, ts_args_type = "handler: (payloads: string[], contexts: NativeContext[]) => void")]
    pub fn authorizer(&mut self, handler: JsFunction<'_>) -> napi::Result<()> {
        self.inner = std::mem::take(&mut self.inner).with_authorizer(callback(handler)?);
        Ok(())
    }

    /// Keeps the tokens of protected HTTP servers: the payload is `{"op": "load",
    /// "resource"}` (answer the stored tokens or `null`) or `{"op": "save", "resource",
    /// "tokens"}`.
    #[napi(catch_unwind, ts_args_type = "handler: (payloads: string[], contexts: NativeContext[]) => void")]
    pub fn token_store(&mut self, handler: JsFunction<'_>) -> napi::Result<()> {
        self.inner = std::mem::take(&mut self.inner).with_token_store(callback(handler)?);
        Ok(())
    }

    /// Hears, once, that the connection ended: the payload is `{"reason": "closed",
    /// "message"}` or `{"reason": "disconnected", "message", "exitCode", "signal", "stderr"}`.
    #[napi(catch_unwind, ts_args_type = "handler: (payloads: string[], contexts: NativeContext[]) => void")]
    pub fn close(&mut self, handler: JsFunction<'_>) -> napi::Result<()> {
        self.inner = std::mem::take(&mut self.inner).with_close(callback(handler)?);
        Ok(())
    }

    /// Adds a JavaScript middleware around every message the connection sends and receives,
    /// inside those already added.
    #[napi(catch_unwind, ts_args_type = "middleware: (payloads: string[], nexts: NativeNext[]) => void")]
    pub fn add_middleware(&mut self, handler: JsFunction<'_>) -> napi::Result<()> {
        self.inner = std::mem::take(&mut self.inner).with_middleware(middleware(handler)?);
        Ok(())
    }

    /// Adds one of the core's built-in middleware from the JSON text of its settings, as
    /// `NativeServer.addBuiltinMiddleware` reads them, inside those already added; bad settings
    /// throw and leave the callbacks as they were.
    #[napi(catch_unwind)]
    pub fn add_builtin_middleware(&mut self, spec: String) -> napi::Result<()> {
        let spec = parse_or_throw(&spec, "built-in middleware")?;
        self.inner = self.inner.clone().with_builtin_middleware(spec).map_err(throw)?;
        Ok(())
    }
}

/// Reads the bridge's call options from their JSON text, with `on_progress` hearing the JSON
/// text of each progress notification's params.
pub(crate) fn call_options(options: &str, on_progress: Option<JsFunction<'_>>) -> napi::Result<CallOptions> {
    let on_progress = match on_progress {
        Some(listener) => {
            let listener = listener
                .build_threadsafe_function::<String>()
                .callee_handled::<false>()
                .weak::<true>()
                .build_callback(|call| Ok(call.value))?;
            let hear: Arc<dyn Fn(Value) + Send + Sync> = Arc::new(move |params: Value| {
                listener.call(params.to_string(), ThreadsafeFunctionCallMode::NonBlocking);
            });
            Some(hear)
        }
        None => None,
    };
    CallOptions::from_json(parse_or_throw(options, "call options")?, on_progress).map_err(throw)
}

/// A connected MCP client.
#[napi]
pub struct NativeClient {
    inner: Client,
}

#[napi]
impl NativeClient {
    /// Connects to the server that the JSON text `transport` names, with the JSON text of
    /// the client's `options`.
    #[napi(
        catch_unwind,
        ts_args_type = "transport: string, options: string, callbacks: NativeCallbacks, done: (error: string | null, value: NativeClient | null) => void"
    )]
    pub fn connect(
        transport: String,
        options: String,
        callbacks: &NativeCallbacks,
        done: Done<'_>,
    ) -> napi::Result<Pending> {
        let transport = parse_or_throw(&transport, "transport")?;
        let options = parse_or_throw(&options, "client options")?;
        let task = Client::connect(transport, options, callbacks.inner.clone());
        settle(done, task, |inner| NativeClient { inner })
    }

    /// Connects to `server` in this process over an in-memory transport.
    #[napi(
        catch_unwind,
        ts_args_type = "server: NativeServer, options: string, callbacks: NativeCallbacks, done: (error: string | null, value: NativeClient | null) => void"
    )]
    pub fn connect_memory(
        server: &NativeServer,
        options: String,
        callbacks: &NativeCallbacks,
        done: Done<'_>,
    ) -> napi::Result<Pending> {
        let options = parse_or_throw(&options, "client options")?;
        let task = Client::connect_memory(&server.inner, options, callbacks.inner.clone());
        settle(done, task, |inner| NativeClient { inner })
    }

    /// Returns the JSON text of the server's `initialize` result.
    #[napi(catch_unwind)]
    pub fn server_info(&self) -> String {
        self.inner.server_info().to_string()
    }

    /// Returns the negotiated protocol version.
    #[napi(catch_unwind)]
    pub fn protocol_version(&self) -> String {
        self.inner.protocol_version()
    }

    /// Sends a request with the JSON text `params`; `options` is the JSON text of the bridge's
    /// call options (`timeoutMs`, `task`, `meta`), and `on_progress` gets the JSON text of each
    /// progress notification's params.
    #[napi(
        catch_unwind,
        ts_args_type = "method: string, params: string, options: string, onProgress: ((params: string) => void) | null, done: (error: string | null, value: string | null) => void"
    )]
    pub fn request(
        &self,
        method: String,
        params: String,
        options: String,
        on_progress: Option<JsFunction<'_>>,
        done: Done<'_>,
    ) -> napi::Result<Pending> {
        let params = parse_or_throw(&params, "request params")?;
        let options = call_options(&options, on_progress)?;
        settle(done, self.inner.request(&method, params, options), |v| v.to_string())
    }

    /// Calls the tool `name` with the JSON text of its arguments; with a task in `options` the
    /// result is the created task.
    #[napi(
        catch_unwind,
        ts_args_type = "name: string, args: string, options: string, onProgress: ((params: string) => void) | null, done: (error: string | null, value: string | null) => void"
    )]
    pub fn call_tool(
        &self,
        name: String,
        args: String,
        options: String,
        on_progress: Option<JsFunction<'_>>,
        done: Done<'_>,
    ) -> napi::Result<Pending> {
        let args = parse_or_throw(&args, "tool arguments")?;
        let options = call_options(&options, on_progress)?;
        settle(done, self.inner.call_tool(&name, args, options), |v| v.to_string())
    }

    /// Checks that the server answers, whatever the revision.
    #[napi(catch_unwind, ts_args_type = "options: string, done: (error: string | null, value: null) => void")]
    pub fn ping(&self, options: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.ping(call_options(&options, None)?), |()| ())
    }

    /// Subscribes to updates of the resource at `uri`, whatever the revision.
    #[napi(
        catch_unwind,
        ts_args_type = "uri: string, options: string, done: (error: string | null, value: null) => void"
    )]
    pub fn subscribe(&self, uri: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.subscribe(&uri, call_options(&options, None)?), |()| ())
    }

    /// Ends the subscription to the resource at `uri`.
    #[napi(
        catch_unwind,
        ts_args_type = "uri: string, options: string, done: (error: string | null, value: null) => void"
    )]
    pub fn unsubscribe(&self, uri: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.unsubscribe(&uri, call_options(&options, None)?), |()| ())
    }

    /// Sets the lowest level of the log messages the server sends, whatever the revision.
    #[napi(
        catch_unwind,
        ts_args_type = "level: string, options: string, done: (error: string | null, value: null) => void"
    )]
    pub fn set_logging_level(&self, level: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.set_logging_level(&level, call_options(&options, None)?), |()| ())
    }

    /// Reads the resource at `uri`.
    #[napi(
        catch_unwind,
        ts_args_type = "uri: string, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn read_resource(&self, uri: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.read_resource(&uri, call_options(&options, None)?), |v| v.to_string())
    }

    /// Gets the prompt `name` with the JSON text of its string arguments.
    #[napi(
        catch_unwind,
        ts_args_type = "name: string, args: string, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn get_prompt(&self, name: String, args: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        let args = parse_or_throw(&args, "prompt arguments")?;
        settle(done, self.inner.get_prompt(&name, args, call_options(&options, None)?), |v| v.to_string())
    }

    /// Asks for completions; `params` is the JSON text of `ref`, `argument` and `context`.
    #[napi(
        catch_unwind,
        ts_args_type = "params: string, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn complete(&self, params: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        let params = parse_or_throw(&params, "completion params")?;
        settle(done, self.inner.complete(params, call_options(&options, None)?), |v| v.to_string())
    }

    /// Lists one page of `kind` (`tools`, `resources`, `resourceTemplates`, `prompts`,
    /// `tasks`) from `cursor`, with the JSON text of the call options.
    #[napi(
        catch_unwind,
        ts_args_type = "kind: string, cursor: string | null, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn list(&self, kind: String, cursor: Option<String>, options: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.list(&kind, cursor, call_options(&options, None)?), |v| v.to_string())
    }

    /// Lists every item of `kind`, following the cursors.
    #[napi(catch_unwind, ts_args_type = "kind: string, done: (error: string | null, value: string | null) => void")]
    pub fn list_all(&self, kind: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.list_all(&kind), |v| v.to_string())
    }

    /// Returns the current state of the task `task_id`.
    #[napi(
        catch_unwind,
        ts_args_type = "taskId: string, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn get_task(&self, task_id: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.get_task(&task_id, call_options(&options, None)?), |v| v.to_string())
    }

    /// Waits until the task `task_id` ends and gives the result of its request.
    #[napi(
        catch_unwind,
        ts_args_type = "taskId: string, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn task_result(&self, task_id: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.task_result(&task_id, call_options(&options, None)?), |v| v.to_string())
    }

    /// Cancels the task `task_id` and gives its final state.
    #[napi(
        catch_unwind,
        ts_args_type = "taskId: string, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn cancel_task(&self, task_id: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.cancel_task(&task_id, call_options(&options, None)?), |v| v.to_string())
    }

    /// Lists the server's skills (every page), reading no skill file.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: string | null) => void")]
    pub fn list_skills(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.list_skills(), |v| v.to_string())
    }

    /// Loads the skill of the JSON text `entry`: its `SKILL.md`, verified against the entry.
    #[napi(catch_unwind, ts_args_type = "entry: string, done: (error: string | null, value: string | null) => void")]
    pub fn load_skill(&self, entry: String, done: Done<'_>) -> napi::Result<Pending> {
        let entry = parse_or_throw(&entry, "skill entry")?;
        settle(done, self.inner.load_skill(entry), |v| v.to_string())
    }

    /// Reads the file `uri` of the skill of the JSON text `entry` into a `Buffer`, verified
    /// against the entry.
    #[napi(
        catch_unwind,
        ts_args_type = "entry: string, uri: string, done: (error: string | null, value: Buffer | null) => void"
    )]
    pub fn read_skill_file(&self, entry: String, uri: String, done: Done<'_>) -> napi::Result<Pending> {
        let entry = parse_or_throw(&entry, "skill entry")?;
        settle(done, self.inner.read_skill_file(entry, uri), Buffer::from)
    }

    /// Reads the view of an app (MCP Apps) at the `ui://` URI `uri`, as the JSON text of
    /// `{uri, html, meta}`.
    #[napi(catch_unwind, ts_args_type = "uri: string, done: (error: string | null, value: string | null) => void")]
    pub fn read_app_view(&self, uri: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.read_app_view(&uri), |v| v.to_string())
    }

    /// Opens a `subscriptions/listen` stream of a 2026-07-28 server for the notifications the
    /// JSON text `filter` names, once the server acknowledged it.
    #[napi(
        catch_unwind,
        ts_args_type = "filter: string, done: (error: string | null, value: NativeSubscription | null) => void"
    )]
    pub fn listen(&self, filter: String, done: Done<'_>) -> napi::Result<Pending> {
        let filter = parse_or_throw(&filter, "subscription filter")?;
        settle(done, self.inner.listen(filter), |inner| NativeSubscription { inner })
    }

    /// Sends a notification with the JSON text `params`.
    #[napi(catch_unwind)]
    pub fn notify(&self, method: String, params: String) -> napi::Result<()> {
        self.inner.notify(&method, parse_or_throw(&params, "notification params")?).map_err(throw)
    }

    /// Tells the server that the client's roots changed.
    #[napi(catch_unwind)]
    pub fn notify_roots_changed(&self) -> napi::Result<()> {
        self.inner.notify_roots_changed().map_err(throw)
    }

    /// Closes the connection.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: null) => void")]
    pub fn close(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.close(), |()| ())
    }
}

/// An open `subscriptions/listen` stream.
#[napi]
pub struct NativeSubscription {
    inner: Subscription,
}

#[napi]
impl NativeSubscription {
    /// Returns the JSON text of what the server agreed to send.
    #[napi(catch_unwind)]
    pub fn acknowledged(&self) -> String {
        self.inner.acknowledged().to_string()
    }

    /// Gives the JSON text of the stream's next notification (`{"method", "params"}`), or
    /// `null` once the stream ended.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: string | null) => void")]
    pub fn next(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.next_notification(), |v| v.to_string())
    }

    /// Ends the stream; a waiting `next` gives `null`.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: null) => void")]
    pub fn close(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.close(), |()| ())
    }
}
