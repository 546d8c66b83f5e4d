//! The host handle: one client for many servers, read from the `mcpServers` configuration.

use std::sync::Arc;

use mcpweft_bridge::{Host, HostEvents, to_json_text};

use crate::{
    NativeCallOptions, NativeCancelHandle, NativeClientHandlers,
    error::{Result, parse, parse_optional},
    runtime::cancellable,
};

/// Connects to every enabled server of `config` (the JSON text of a path, of the whole
/// configuration or of the `mcpServers` object) and finishes when each is ready or failed;
/// `options` is the JSON text of the host's settings. The handlers answer every server, each
/// payload naming it (`{"server", "params"}`, roots `{"server"}`, notifications `{"server",
/// "method", "params"}`); the authorizer and token store log in to servers configured with
/// `oauth`, a host takes no close handler, and the middleware wrap every server's connection.
#[uniffi::export]
pub async fn native_host_connect(
    config: String,
    options: Option<String>,
    handlers: NativeClientHandlers,
    cancel: Option<Arc<NativeCancelHandle>>,
) -> Result<Arc<NativeHost>> {
    let config = parse(&config, "the host configuration")?;
    let options = parse_optional(options, "the host options")?;
    let inner = cancellable(Host::connect(config, options, handlers.callbacks()?), cancel).await?;
    Ok(Arc::new(NativeHost { inner }))
}

/// One client for many servers.
#[derive(uniffi::Object)]
pub struct NativeHost {
    inner: Host,
}

#[uniffi::export]
impl NativeHost {
    /// Returns the JSON text of every configured server's state, with its `name`.
    pub fn servers(&self) -> String {
        self.inner.servers().to_string()
    }

    /// Returns the JSON text of the state of the server `name`.
    pub fn state(&self, name: String) -> Result<String> {
        Ok(self.inner.state(&name)?.to_string())
    }

    /// Returns the JSON text of the tools of every ready server, under their host names, each
    /// with its `server` and whether the model may see it (`visibleToModel`).
    pub fn tools(&self) -> String {
        self.inner.tools().to_string()
    }

    /// Reads the app view (MCP Apps) of the tool with host name `tool` from its server and
    /// returns the JSON text of `{"uri", "html", "meta"}`.
    pub async fn read_app_view(&self, tool: String, cancel: Option<Arc<NativeCancelHandle>>) -> Result<String> {
        Ok(to_json_text(&cancellable(self.inner.read_app_view(&tool), cancel).await?))
    }

    /// Returns the JSON text of the prompts of every ready server, under their host names.
    pub fn prompts(&self) -> String {
        self.inner.prompts().to_string()
    }

    /// Returns the JSON text of the resources of every ready server.
    pub fn resources(&self) -> String {
        self.inner.resources().to_string()
    }

    /// Returns the JSON text of the resource templates of every ready server.
    pub fn resource_templates(&self) -> String {
        self.inner.resource_templates().to_string()
    }

    /// Returns the JSON text of the names several ready servers offer at once.
    pub fn collisions(&self) -> String {
        self.inner.collisions().to_string()
    }

    /// Calls a tool by its host name with the JSON text of its arguments.
    pub async fn call_tool(
        &self,
        name: String,
        arguments: Option<String>,
        options: NativeCallOptions,
    ) -> Result<String> {
        let arguments = parse_optional(arguments, "the tool arguments")?;
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.call_tool(&name, arguments, options), cancel).await?))
    }

    /// Returns the JSON text of the state of the task `task_id` of the server `server`.
    pub async fn get_task(&self, server: String, task_id: String, options: NativeCallOptions) -> Result<String> {
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.get_task(&server, &task_id, options), cancel).await?))
    }

    /// Returns the JSON text of the tool's result once the task `task_id` of the server
    /// `server` ends.
    pub async fn task_result(&self, server: String, task_id: String, options: NativeCallOptions) -> Result<String> {
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.task_result(&server, &task_id, options), cancel).await?))
    }

    /// Cancels the task `task_id` of the server `server` and returns the JSON text of its
    /// final state.
    pub async fn cancel_task(&self, server: String, task_id: String, options: NativeCallOptions) -> Result<String> {
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.cancel_task(&server, &task_id, options), cancel).await?))
    }

    /// Reads the resource at `uri` from `server`, or from the server that offers it.
    pub async fn read_resource(
        &self,
        uri: String,
        server: Option<String>,
        options: NativeCallOptions,
    ) -> Result<String> {
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.read_resource(&uri, server, options), cancel).await?))
    }

    /// Gets a prompt by its host name with the JSON text of its string arguments.
    pub async fn get_prompt(
        &self,
        name: String,
        arguments: Option<String>,
        options: NativeCallOptions,
    ) -> Result<String> {
        let arguments = parse_optional(arguments, "the prompt arguments")?;
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.get_prompt(&name, arguments, options), cancel).await?))
    }

    /// Connects to the server `name` again.
    pub fn restart(&self, name: String) -> Result<()> {
        Ok(self.inner.restart(&name)?)
    }

    /// Tells every ready server that the host's roots changed.
    pub fn notify_roots_changed(&self) {
        self.inner.notify_roots_changed();
    }

    /// Returns a reader of the host's events from now on.
    pub fn events(&self) -> Arc<NativeHostEvents> {
        Arc::new(NativeHostEvents { inner: self.inner.events() })
    }

    /// Closes every server; closing again does nothing.
    pub async fn close(&self) {
        let _ = self.inner.close().await;
    }
}

/// A reader of a host's events.
#[derive(uniffi::Object)]
pub struct NativeHostEvents {
    inner: HostEvents,
}

#[uniffi::export]
impl NativeHostEvents {
    /// Waits for the next event and returns its JSON text, or `None` once the reader or the
    /// host is closed.
    pub async fn next_event(&self, cancel: Option<Arc<NativeCancelHandle>>) -> Result<Option<String>> {
        let event = cancellable(self.inner.next_event(), cancel).await?;
        Ok((!event.is_null()).then(|| event.to_string()))
    }

    /// Ends the reader: a waiting and every later `next_event` returns `None`.
    pub fn close(&self) {
        self.inner.close();
    }
}
