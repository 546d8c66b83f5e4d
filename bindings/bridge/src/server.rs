//! The server handle: registrations from JSON descriptors, each answered by a [`Callback`],
//! and serving over stdio or Streamable HTTP.

use std::{
    collections::HashMap,
    panic::AssertUnwindSafe,
    sync::{Arc, OnceLock},
    time::Duration,
};

use async_trait::async_trait;
use futures::FutureExt;
use mcpweft::model::apps::{AppToolMeta, Visibility};
use mcpweft::{
    ErrorData, RequestContext,
    model::{
        CallToolResult, CompleteRequestParams, CompleteResult, GetPromptResult, Icon, Implementation, JsonObject,
        Prompt, ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities, Tool,
    },
    server::{
        CompletionHandler, PromptHandler, ResourceHandler, ResourceLister, ResourceRequest, ServerOptions, Skill,
        TaskOptions, ToolHandler,
    },
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Callback, Context, Error, Task, context::logging_level, results};

/// Parses `value` as `T`, naming `what` in the error.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|e| Error::json(what, e))
}

fn millis(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// The task settings of a server, as JSON.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TaskSpec {
    max_ttl_ms: Option<u64>,
    default_ttl_ms: Option<u64>,
    poll_interval_ms: Option<u64>,
    max_tasks: Option<usize>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum TasksSetting {
    On(bool),
    With(TaskSpec),
}

/// The description and settings of a server, as JSON.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ServerSpec {
    name: String,
    version: String,
    title: Option<String>,
    description: Option<String>,
    icons: Option<Vec<Icon>>,
    website_url: Option<String>,
    instructions: Option<String>,
    page_size: Option<usize>,
    log_level: Option<String>,
    resource_subscriptions: Option<bool>,
    request_timeout_ms: Option<u64>,
    capabilities: Option<ServerCapabilities>,
    tasks: Option<TasksSetting>,
    max_uri_length: Option<usize>,
    max_in_flight_requests: Option<usize>,
    max_queued_messages: Option<usize>,
    max_queued_bytes: Option<usize>,
    max_subscriptions: Option<usize>,
}

impl ServerSpec {
    fn info(&self) -> Implementation {
        let mut info = Implementation::new(self.name.clone(), self.version.clone());
        info.title.clone_from(&self.title);
        info.description.clone_from(&self.description);
        info.icons.clone_from(&self.icons);
        info.website_url.clone_from(&self.website_url);
        info
    }

    fn options(self, roots_changed: Arc<OnceLock<Arc<dyn Callback>>>) -> Result<ServerOptions, Error> {
        let mut options = ServerOptions::default();
        options.instructions = self.instructions;
        if let Some(size) = self.page_size {
            options.page_size = size.max(1);
        }
        if let Some(level) = &self.log_level {
            options.default_log_level = logging_level(level)?;
        }
        if let Some(subscriptions) = self.resource_subscriptions {
            options.resource_subscriptions = subscriptions;
        }
        if let Some(ms) = self.request_timeout_ms {
            options.request_timeout = millis(ms);
        }
        if let Some(capabilities) = self.capabilities {
            options.capabilities = capabilities;
        }
        if let Some(n) = self.max_uri_length {
            options.max_uri_length = n;
        }
        if let Some(n) = self.max_in_flight_requests {
            options.max_in_flight_requests = n.max(1);
        }
        if let Some(n) = self.max_queued_messages {
            options.max_queued_messages = n.max(1);
        }
        if let Some(n) = self.max_queued_bytes {
            options.max_queued_bytes = n.max(1);
        }
        if let Some(n) = self.max_subscriptions {
            options.max_subscriptions = n.max(1);
        }
        options.tasks = match self.tasks {
            None | Some(TasksSetting::On(false)) => None,
            Some(TasksSetting::On(true)) => Some(TaskOptions::default()),
            Some(TasksSetting::With(spec)) => {
                let mut tasks = TaskOptions::default();
                if let Some(ms) = spec.max_ttl_ms {
                    tasks.max_ttl = Some(millis(ms));
                }
                if let Some(ms) = spec.default_ttl_ms {
                    tasks.default_ttl = Some(millis(ms));
                }
                if let Some(ms) = spec.poll_interval_ms {
                    tasks.poll_interval = millis(ms);
                }
                if let Some(n) = spec.max_tasks {
                    tasks.max_tasks = n.max(1);
                }
                Some(tasks)
            }
        };
        options.on_roots_changed = Some(Arc::new(move |session| {
            if let Some(callback) = roots_changed.get().cloned() {
                let context = Context::session(session);
                crate::runtime::spawn(async move {
                    if let Err(e) = callback.call(json!({}), context).await {
                        tracing::warn!(error = %e, "the roots-changed callback failed");
                    }
                    Ok(())
                })
                .on_complete(drop);
            }
        }));
        Ok(options)
    }
}

/// Adapts one [`Callback`] to the core's handler traits, applying the result rules of
/// [`crate::results`] and the error policy.
struct Adapter {
    callback: Arc<dyn Callback>,
    /// The tool's output schema.
    output_schema: Option<JsonObject>,
    /// The resource's MIME type, or the prompt's description.
    detail: Option<String>,
}

impl Adapter {
    fn new(callback: Arc<dyn Callback>) -> Self {
        Adapter { callback, output_schema: None, detail: None }
    }

    /// Calls the callback; a panic inside it becomes an internal error of this call only.
    async fn run(&self, payload: Value, context: RequestContext) -> Result<Value, Error> {
        let call = AssertUnwindSafe(self.callback.call(payload, Context::server(context)));
        call.catch_unwind().await.unwrap_or_else(|panic| {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(Error::internal(format!("the handler panicked: {text}")))
        })
    }

    async fn call(&self, payload: Value, context: RequestContext) -> Result<Value, ErrorData> {
        self.run(payload, context).await.map_err(|e| e.to_error_data())
    }
}

#[async_trait]
impl ToolHandler for Adapter {
    async fn call(&self, arguments: JsonObject, context: RequestContext) -> Result<CallToolResult, ErrorData> {
        match self.run(Value::Object(arguments), context).await {
            Ok(value) => results::tool_result(value, self.output_schema.as_ref()),
            Err(e) if e.kind == crate::ErrorKind::Rpc => Err(e.to_error_data()),
            Err(e) => Ok(CallToolResult::error(e.message)),
        }
    }
}

#[async_trait]
impl ResourceHandler for Adapter {
    async fn read(&self, request: ResourceRequest, context: RequestContext) -> Result<ReadResourceResult, ErrorData> {
        let payload = json!({ "uri": request.uri, "variables": request.variables });
        let value = self.call(payload, context).await?;
        results::resource_result(value, &request.uri, self.detail.as_deref())
    }
}

/// A template's list callback, with the metadata its resources take from the template.
struct Lister {
    adapter: Adapter,
    template: String,
    defaults: JsonObject,
}

#[async_trait]
impl ResourceLister for Lister {
    async fn list(&self, context: RequestContext) -> Result<Vec<Resource>, ErrorData> {
        let listed = match self.adapter.call(json!({}), context).await? {
            Value::Object(mut result) => result.remove("resources").unwrap_or(Value::Null),
            other => other,
        };
        let Value::Array(listed) = listed else {
            return Err(ErrorData::internal_error(format!(
                "the list callback of the resource template {} returned neither an array of resources nor {{\"resources\": [...]}}",
                self.template
            )));
        };
        listed
            .into_iter()
            .map(|mut resource| {
                if let Value::Object(fields) = &mut resource {
                    for (key, value) in &self.defaults {
                        fields.entry(key.as_str()).or_insert_with(|| value.clone());
                    }
                }
                serde_json::from_value(resource).map_err(|e| {
                    ErrorData::internal_error(format!(
                        "the list callback of the resource template {} returned an invalid resource: {e}",
                        self.template
                    ))
                })
            })
            .collect()
    }
}

#[async_trait]
impl PromptHandler for Adapter {
    async fn get(
        &self,
        arguments: HashMap<String, String>,
        context: RequestContext,
    ) -> Result<GetPromptResult, ErrorData> {
        let value = self.call(json!(arguments), context).await?;
        results::prompt_result(value, self.detail.as_deref())
    }
}

#[async_trait]
impl CompletionHandler for Adapter {
    async fn complete(
        &self,
        params: CompleteRequestParams,
        context: RequestContext,
    ) -> Result<CompleteResult, ErrorData> {
        let payload = serde_json::to_value(&params).map_err(|e| ErrorData::internal_error(e.to_string()))?;
        results::completion_result(self.call(payload, context).await?)
    }
}

/// An MCP server whose handlers are [`Callback`]s; cloning is cheap and gives the same server.
#[derive(Clone, Debug)]
pub struct Server {
    pub(crate) inner: mcpweft::Server,
    roots_changed: Arc<OnceLock<Arc<dyn Callback>>>,
}

impl Server {
    /// Creates a server from its description and settings, a JSON object with `name` and
    /// `version` and optionally `title`, `description`, `icons`, `websiteUrl` (the server's
    /// `Implementation`), `instructions`, `pageSize`, `logLevel` (the level in force until
    /// the client sets one), `resourceSubscriptions`, `requestTimeoutMs` (of requests to the
    /// client), `capabilities` (declared beyond what the registrations imply) and `tasks`
    /// (`true`, or an object with `maxTtlMs`, `defaultTtlMs`, `pollIntervalMs`, `maxTasks`),
    /// and the limits `maxUriLength`, `maxInFlightRequests`, `maxQueuedMessages`,
    /// `maxQueuedBytes` and `maxSubscriptions`.
    ///
    /// An unknown key is an error, so a misspelt setting never goes unnoticed.
    pub fn new(spec: Value) -> Result<Server, Error> {
        let spec: ServerSpec = parse(spec, "server description")?;
        let roots_changed = Arc::new(OnceLock::new());
        let info = spec.info();
        let options = spec.options(roots_changed.clone())?;
        Ok(Server { inner: mcpweft::Server::new(info, options), roots_changed })
    }

    /// Returns the core server, for a Rust program that wants both APIs.
    pub fn core(&self) -> &mcpweft::Server {
        &self.inner
    }

    /// Sets the callback that hears `notifications/roots/list_changed`; its context can ask
    /// that client for its roots with [`Context::list_roots`]. It can be set once.
    pub fn on_roots_changed(&self, callback: Arc<dyn Callback>) -> Result<(), Error> {
        self.roots_changed.set(callback).map_err(|_| Error::config("the roots-changed callback is already set"))
    }

    /// Registers a tool described by a `Tool` object; `callback` gets the arguments (validated
    /// against `inputSchema`, which defaults to `{"type": "object", "properties": {}}`) and
    /// returns JSON turned into a result by [`results::tool_result`].
    ///
    /// Beside the `Tool` object's keys, `app` (a `ui://` URI of [`Server::add_app_view`]) and
    /// `visibility` (`["model"]`, `["app"]` or both) bind the tool to an app view: they become
    /// its `_meta.ui` as the core writes it.
    ///
    /// A tool of the same name registered already is a configuration error unless `replace`
    /// asks to replace it: the one rule of duplicates for every registration and language.
    pub fn add_tool(&self, descriptor: Value, callback: Arc<dyn Callback>, replace: bool) -> Result<(), Error> {
        let mut descriptor = descriptor;
        let mut app = None;
        if let Some(object) = descriptor.as_object_mut() {
            object.entry("inputSchema").or_insert_with(|| json!({ "type": "object", "properties": {} }));
            app = app_binding(object.remove("app"), object.remove("visibility"))?;
        }
        let mut tool: Tool = parse(descriptor, "tool")?;
        if let Some(app) = app {
            app.apply(&mut tool);
        }
        let adapter = Adapter { output_schema: tool.output_schema.clone(), ..Adapter::new(callback) };
        let outcome = if replace { self.inner.replace_tool(tool, adapter) } else { self.inner.add_tool(tool, adapter) };
        outcome.map_err(config_error)
    }

    /// Registers a resource described by a `Resource` object; `callback` gets
    /// `{"uri", "variables": {}}` and returns JSON turned into a result by
    /// [`results::resource_result`]. A resource at the same URI is refused unless `replace`.
    pub fn add_resource(&self, descriptor: Value, callback: Arc<dyn Callback>, replace: bool) -> Result<(), Error> {
        let resource: Resource = parse(descriptor, "resource")?;
        let adapter = Adapter { detail: resource.mime_type.clone(), ..Adapter::new(callback) };
        if replace {
            self.inner.replace_resource(resource, adapter);
            return Ok(());
        }
        self.inner.add_resource(resource, adapter).map_err(config_error)
    }

    /// Registers a resource template described by a `ResourceTemplate` object; `callback`
    /// gets `{"uri", "variables"}` with the values of the template's variables. A template
    /// with the same URI template is refused unless `replace`.
    pub fn add_resource_template(
        &self,
        descriptor: Value,
        callback: Arc<dyn Callback>,
        replace: bool,
    ) -> Result<(), Error> {
        let template: ResourceTemplate = parse(descriptor, "resource template")?;
        let adapter = Adapter { detail: template.mime_type.clone(), ..Adapter::new(callback) };
        let outcome = if replace {
            self.inner.replace_resource_template(template, adapter)
        } else {
            self.inner.add_resource_template(template, adapter)
        };
        outcome.map_err(config_error)
    }

    /// Registers a resource template like [`Server::add_resource_template`], whose resources
    /// `list` lists in `resources/list` (after the fixed resources, on the last page): it gets
    /// `{}` and returns an array of `Resource` objects or `{"resources": [...]}`. Each listed
    /// resource takes the template's metadata (`title`, `description`, `mimeType`,
    /// `annotations`, `icons`, `_meta`) where it sets none, as the TypeScript SDK's do. A
    /// template with the same URI template is refused unless `replace`.
    pub fn add_listed_resource_template(
        &self,
        descriptor: Value,
        callback: Arc<dyn Callback>,
        list: Arc<dyn Callback>,
        replace: bool,
    ) -> Result<(), Error> {
        let template: ResourceTemplate = parse(descriptor.clone(), "resource template")?;
        let mut defaults = match descriptor {
            Value::Object(object) => object,
            _ => JsonObject::new(),
        };
        defaults.remove("name");
        defaults.remove("uriTemplate");
        let lister = Lister { adapter: Adapter::new(list), template: template.uri_template.clone(), defaults };
        let adapter = Adapter { detail: template.mime_type.clone(), ..Adapter::new(callback) };
        let (handler, lister): (Arc<dyn ResourceHandler>, Arc<dyn ResourceLister>) =
            (Arc::new(adapter), Arc::new(lister));
        let outcome = if replace {
            self.inner.replace_listed_resource_template(template, handler, lister)
        } else {
            self.inner.add_listed_resource_template(template, handler, lister)
        };
        outcome.map_err(config_error)
    }

    /// Registers a prompt described by a `Prompt` object; `callback` gets the arguments (the
    /// required ones checked present) and returns JSON turned into a result by
    /// [`results::prompt_result`]. A prompt of the same name is refused unless `replace`.
    pub fn add_prompt(&self, descriptor: Value, callback: Arc<dyn Callback>, replace: bool) -> Result<(), Error> {
        let prompt: Prompt = parse(descriptor, "prompt")?;
        let adapter = Adapter { detail: prompt.description.clone(), ..Adapter::new(callback) };
        if replace {
            self.inner.replace_prompt(prompt, adapter);
            return Ok(());
        }
        self.inner.add_prompt(prompt, adapter).map_err(config_error)
    }

    /// Serves a skill of the skills extension (`io.modelcontextprotocol/skills`): `descriptor`
    /// is `{"skillMd", "files"}`, the text of its `SKILL.md` (YAML frontmatter giving `name`
    /// and `description`) and its supporting files as an object of texts by relative path.
    /// Each file becomes a resource under `skill://<name>/`. A skill of the same name is
    /// refused unless `replace`, which also stops serving the old skill's files that the new
    /// one lacks; a bad name, frontmatter or path is a configuration error.
    pub fn add_skill(&self, descriptor: Value, replace: bool) -> Result<(), Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct SkillSpec {
            skill_md: String,
            #[serde(default)]
            files: std::collections::BTreeMap<String, String>,
        }
        let spec: SkillSpec = parse(descriptor, "skill")?;
        let mut skill = Skill::new(spec.skill_md).map_err(config_error)?;
        for (path, text) in spec.files {
            skill = skill.with_file(path, text).map_err(config_error)?;
        }
        if replace {
            self.inner.replace_skill(skill);
            return Ok(());
        }
        self.inner.add_skill(skill).map_err(config_error)
    }

    /// Sets the answer to `completion/complete`: `callback` gets the request's params
    /// (`ref`, `argument`, `context`) and returns JSON turned into a result by
    /// [`results::completion_result`].
    pub fn set_completion(&self, callback: Arc<dyn Callback>) {
        self.inner.set_completion_handler(Adapter::new(callback));
    }

    /// Removes a tool, returning whether it existed; clients hear that the list changed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.inner.remove_tool(name)
    }

    /// Removes a resource by URI, returning whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.inner.remove_resource(uri)
    }

    /// Removes a resource template by its URI template, returning whether it existed.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.inner.remove_resource_template(uri_template)
    }

    /// Removes a prompt, returning whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.inner.remove_prompt(name)
    }

    /// Tells the clients subscribed to `uri` that the resource changed.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.inner.notify_resource_updated(uri);
    }

    /// Sends a log message at `level` to every client whose threshold lets it through.
    pub fn log(&self, level: &str, data: Value, logger: Option<&str>) -> Result<(), Error> {
        self.inner.log(logging_level(level)?, logger, data);
        Ok(())
    }

    /// Serves the HTML view of an app (MCP Apps) from its descriptor `{"uri", "name", "html",
    /// "csp", "permissions", "domain", "prefersBorder"}` (`uri` a `ui://` URI; the last four as the
    /// extension's `_meta.ui` names them); bind tools to it with `_meta.ui.resourceUri` in their
    /// descriptors. A URI of another scheme, or one already served, is a configuration error.
    pub fn add_app_view(&self, descriptor: Value) -> Result<(), Error> {
        let mut descriptor = match descriptor {
            Value::Object(map) => map,
            other => return Err(Error::invalid_input(format!("an app view is an object, not {other}"))),
        };
        let mut text = |key: &str| match descriptor.remove(key) {
            Some(Value::String(text)) => Ok(text),
            _ => Err(Error::invalid_input(format!("an app view's {key} is a string"))),
        };
        let (uri, name, html) = (text("uri")?, text("name")?, text("html")?);
        if let Some(unknown) =
            descriptor.keys().find(|k| !["csp", "permissions", "domain", "prefersBorder"].contains(&k.as_str()))
        {
            return Err(Error::invalid_input(format!(
                "an app view has no setting {unknown:?}: csp, permissions, domain or prefersBorder"
            )));
        }
        let meta: mcpweft::model::apps::AppViewMeta = parse(Value::Object(descriptor), "an app view's settings")?;
        Ok(self.inner.add_app_view(uri, name, html, meta)?)
    }

    /// Adds a middleware written in the binding's language around every message of the
    /// sessions started from now on, inside those already added.
    pub fn add_middleware(&self, callback: Arc<dyn crate::MiddlewareCallback>) {
        self.inner.add_middleware_arc(crate::middleware::foreign(callback));
    }

    /// Adds one of the core's built-in middleware from its JSON (`{"timing": {}}`,
    /// `{"rateLimit": {"perSecond", "burst", "per"}}`, `{"cache": {"defaultTtlMs", "maxTtlMs",
    /// "maxEntries", "methods"}}`), inside those already added.
    pub fn add_builtin_middleware(&self, spec: Value) -> Result<(), Error> {
        self.inner.add_middleware_arc(crate::middleware::builtin(spec)?);
        Ok(())
    }

    /// Returns the capabilities the server declares now.
    pub fn capabilities(&self) -> Value {
        serde_json::to_value(self.inner.capabilities()).unwrap_or(Value::Null)
    }

    /// Serves one client over this process's stdin and stdout, on a thread of its own; the task
    /// ends when the client leaves.
    pub fn serve_stdio(&self) -> Task<()> {
        let server = self.inner.clone();
        crate::runtime::spawn_dedicated("mcpweft-stdio", move || async move { Ok(server.serve_stdio().await?) })
    }
}

/// Converts a registration's failure into a configuration error whose message is the core's
/// text without its prefix, since the kind says it already.
fn config_error(e: mcpweft::Error) -> Error {
    let message = match e {
        mcpweft::Error::Protocol(text) | mcpweft::Error::Config(text) => text,
        other => other.to_string(),
    };
    Error::config(message)
}

/// A tool's binding to an app view from the descriptor keys `app` and `visibility`, if either
/// is there.
fn app_binding(app: Option<Value>, visibility: Option<Value>) -> Result<Option<AppToolMeta>, Error> {
    if app.is_none() && visibility.is_none() {
        return Ok(None);
    }
    let mut binding = AppToolMeta::default();
    binding.resource_uri = app.map(|uri| parse::<String>(uri, "a tool's app (a ui:// URI)")).transpose()?;
    binding.visibility = visibility
        .map(|v| parse::<Vec<Visibility>>(v, "a tool's visibility (a list of \"model\" and \"app\")"))
        .transpose()?;
    Ok(Some(binding))
}
