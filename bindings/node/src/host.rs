//! The host handle: one client for many servers, answering them with JavaScript functions.

use mcpweft_bridge::{Host, HostEvents};
use napi_derive::napi;

use crate::{
    client::{JsFunction, NativeCallbacks, call_options},
    error::{parse_or_throw, throw},
    task::{Done, Pending, settle},
};

/// A host of many servers.
#[napi]
pub struct NativeHost {
    inner: Host,
}

#[napi]
impl NativeHost {
    /// Connects to every enabled server of the JSON text `config` (a path as a JSON string, or
    /// the configuration) with the JSON text of the host's `options`; settles once each server
    /// is ready or failed.
    #[napi(
        catch_unwind,
        ts_args_type = "config: string, options: string, callbacks: NativeCallbacks, done: (error: string | null, value: NativeHost | null) => void"
    )]
    pub fn connect(
        config: String,
        options: String,
        callbacks: &NativeCallbacks,
        done: Done<'_>,
    ) -> napi::Result<Pending> {
        let config = parse_or_throw(&config, "host configuration")?;
        let options = parse_or_throw(&options, "host options")?;
        let task = Host::connect(config, options, callbacks.inner.clone());
        settle(done, task, |inner| NativeHost { inner })
    }

    /// Returns the JSON text of every configured server with its state.
    #[napi(catch_unwind)]
    pub fn servers(&self) -> String {
        self.inner.servers().to_string()
    }

    /// Returns the JSON text of the state of the server `name`.
    #[napi(catch_unwind)]
    pub fn state(&self, name: String) -> napi::Result<String> {
        self.inner.state(&name).map(|state| state.to_string()).map_err(throw)
    }

    /// Returns the JSON text of the tools of the ready servers under their host names.
    #[napi(catch_unwind)]
    pub fn tools(&self) -> String {
        self.inner.tools().to_string()
    }

    /// Returns the JSON text of the prompts of the ready servers under their host names.
    #[napi(catch_unwind)]
    pub fn prompts(&self) -> String {
        self.inner.prompts().to_string()
    }

    /// Returns the JSON text of the resources of the ready servers.
    #[napi(catch_unwind)]
    pub fn resources(&self) -> String {
        self.inner.resources().to_string()
    }

    /// Returns the JSON text of the resource templates of the ready servers.
    #[napi(catch_unwind)]
    pub fn resource_templates(&self) -> String {
        self.inner.resource_templates().to_string()
    }

    /// Returns the JSON text of the names several ready servers offer at once.
    #[napi(catch_unwind)]
    pub fn collisions(&self) -> String {
        self.inner.collisions().to_string()
    }

    /// Calls a tool by its host name with the JSON text of its arguments; `options` is the
    /// JSON text of the bridge's call options (`timeoutMs`, `maxTotalTimeoutMs`), and
    /// `on_progress` gets the JSON text of each progress notification's params.
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

    /// Reads the resource at `uri`, from `server` when given.
    #[napi(
        catch_unwind,
        ts_args_type = "uri: string, server: string | null, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn read_resource(
        &self,
        uri: String,
        server: Option<String>,
        options: String,
        done: Done<'_>,
    ) -> napi::Result<Pending> {
        let options = call_options(&options, None)?;
        settle(done, self.inner.read_resource(&uri, server, options), |v| v.to_string())
    }

    /// Reads the view of the app (MCP Apps) that the tool of host name `tool` is bound to, as the
    /// JSON text of `{uri, html, meta}`.
    #[napi(catch_unwind, ts_args_type = "tool: string, done: (error: string | null, value: string | null) => void")]
    pub fn read_app_view(&self, tool: String, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.read_app_view(&tool), |v| v.to_string())
    }

    /// Gets a prompt by its host name with the JSON text of its string arguments.
    #[napi(
        catch_unwind,
        ts_args_type = "name: string, args: string, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn get_prompt(&self, name: String, args: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        let args = parse_or_throw(&args, "prompt arguments")?;
        settle(done, self.inner.get_prompt(&name, args, call_options(&options, None)?), |v| v.to_string())
    }

    /// Returns the JSON text of the state of the task `task_id` of the server `server`.
    #[napi(
        catch_unwind,
        ts_args_type = "server: string, taskId: string, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn get_task(&self, server: String, task_id: String, options: String, done: Done<'_>) -> napi::Result<Pending> {
        let task = self.inner.get_task(&server, &task_id, call_options(&options, None)?);
        settle(done, task, |v| v.to_string())
    }

    /// Returns the JSON text of the tool's result once the task `task_id` of the server
    /// `server` ends.
    #[napi(
        catch_unwind,
        ts_args_type = "server: string, taskId: string, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn task_result(
        &self,
        server: String,
        task_id: String,
        options: String,
        done: Done<'_>,
    ) -> napi::Result<Pending> {
        let task = self.inner.task_result(&server, &task_id, call_options(&options, None)?);
        settle(done, task, |v| v.to_string())
    }

    /// Cancels the task `task_id` of the server `server`; the JSON text of its final state.
    #[napi(
        catch_unwind,
        ts_args_type = "server: string, taskId: string, options: string, done: (error: string | null, value: string | null) => void"
    )]
    pub fn cancel_task(
        &self,
        server: String,
        task_id: String,
        options: String,
        done: Done<'_>,
    ) -> napi::Result<Pending> {
        let task = self.inner.cancel_task(&server, &task_id, call_options(&options, None)?);
        settle(done, task, |v| v.to_string())
    }

    /// Connects to the server `name` again.
    #[napi(catch_unwind)]
    pub fn restart(&self, name: String) -> napi::Result<()> {
        self.inner.restart(&name).map_err(throw)
    }

    /// Tells every ready server that the roots changed.
    #[napi(catch_unwind)]
    pub fn notify_roots_changed(&self) {
        self.inner.notify_roots_changed();
    }

    /// Returns a reader of the host's events from now on.
    #[napi(catch_unwind)]
    pub fn events(&self) -> NativeHostEvents {
        NativeHostEvents { inner: self.inner.events() }
    }

    /// Closes every server; settles once each has ended.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: null) => void")]
    pub fn close(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.close(), |()| ())
    }
}

/// A reader of a host's events.
#[napi]
pub struct NativeHostEvents {
    inner: HostEvents,
}

#[napi]
impl NativeHostEvents {
    /// Gives the JSON text of the next event, or `null` once the reader or the host is closed.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: string | null) => void")]
    pub fn next(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.next_event(), |v| v.to_string())
    }

    /// Ends the reader; a waiting `next` gives `null`.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.inner.close();
    }
}
