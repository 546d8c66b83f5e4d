//! One client's session with a server: lifecycle, capability gates and request dispatch.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex, OnceLock},
};

use futures::{FutureExt, TryFutureExt};
use serde_json::Value;

use tokio_util::sync::CancellationToken;

use super::{
    RequestContext, ServerInner, ToolEntry,
    listen::{Filter, MAX_LISTENERS},
    rounds::Round,
    tasks::TaskStore,
};
use crate::model::{JsonObject, ServerCapabilities};
use crate::{
    Error,
    jsonrpc::{ErrorData, METHOD_NOT_FOUND, Notification, Request, RequestId, UNSUPPORTED_PROTOCOL_VERSION, quoted},
    model::{
        ALL_PROTOCOL_VERSIONS, CallToolRequestParams, CallToolResult, CompleteRequestParams, ContentBlock,
        CreateTaskResult, EmptyResult, GetPromptRequestParams, InitializeRequestParams, InitializeResult,
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel,
        LoggingMessageNotificationParams, Meta, PaginatedRequestParams, ResourceRequestParams,
        ResourceUpdatedNotificationParams, STATELESS_PROTOCOL_VERSION, SetLevelRequestParams, TASKS_EXTENSION,
        TaskIdRequestParams, TaskSupport, TaskWithMeta, meta_keys, methods, negotiate_protocol_version,
    },
    server::handler::ResourceRequest,
    session::{Answer, IncomingRequest, Peer, Reply, Service, request_params, to_result},
    sync::lock,
};

tokio::task_local! {
    /// The round of the 2026-07-28 request being dispatched, for the contexts made meanwhile.
    static ROUND: Arc<Round>;
}

/// Where a session is in the MCP lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Waiting for `initialize`.
    Uninitialized,
    /// `initialize` was answered; waiting for `notifications/initialized`.
    Initializing,
    /// In normal operation.
    Ready,
    /// Over.
    Closed,
}

/// The server side of one session.
pub(crate) struct ServerSession {
    pub(crate) server: Arc<ServerInner>,
    phase: Mutex<Phase>,
    client: OnceLock<InitializeRequestParams>,
    protocol_version: OnceLock<String>,
    /// The capabilities declared in this session's `initialize` result.
    capabilities: OnceLock<ServerCapabilities>,
    log_level: Mutex<LoggingLevel>,
    subscriptions: Mutex<HashSet<String>>,
    /// This session's tasks, when the server supports tasks.
    tasks: Option<Arc<TaskStore>>,
    pub(crate) peer: OnceLock<Peer>,
    /// Who the latest request came from, when the transport authenticates requests.
    #[cfg(feature = "auth")]
    pub(crate) auth: Mutex<Option<Arc<crate::auth::AuthInfo>>>,
    /// The transport's id of the session, such as Streamable HTTP's `Mcp-Session-Id`.
    pub(crate) transport_id: OnceLock<String>,
}

impl ServerSession {
    pub(crate) fn new(server: Arc<ServerInner>) -> Self {
        ServerSession {
            log_level: Mutex::new(server.options.default_log_level),
            tasks: server.options.tasks.clone().map(|o| Arc::new(TaskStore::new(o))),
            server,
            phase: Mutex::new(Phase::Uninitialized),
            client: OnceLock::new(),
            protocol_version: OnceLock::new(),
            capabilities: OnceLock::new(),
            subscriptions: Mutex::new(HashSet::new()),
            peer: OnceLock::new(),
            #[cfg(feature = "auth")]
            auth: Mutex::new(None),
            transport_id: OnceLock::new(),
        }
    }

    pub(crate) fn phase(&self) -> Phase {
        *lock(&self.phase)
    }

    pub(crate) fn client_params(&self) -> Option<InitializeRequestParams> {
        self.client.get().cloned()
    }

    pub(crate) fn protocol_version(&self) -> Option<String> {
        self.negotiated_version().map(str::to_owned)
    }

    /// Returns the negotiated protocol version without copying it.
    pub(crate) fn negotiated_version(&self) -> Option<&str> {
        self.protocol_version.get().map(String::as_str)
    }

    /// Shares this session's tasks with the cluster's other processes, under the session's
    /// transport id, when the server's tasks are shared.
    #[cfg(feature = "redis")]
    pub(crate) fn share_tasks(&self, id: &str) {
        if let Some(store) = &self.tasks {
            self.server.share_task_store(store, format!("session:{id}"));
        }
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Sends a log message if it passes the level the client set.
    pub(crate) fn log(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: Value,
        related: Option<RequestId>,
    ) -> Result<(), Error> {
        if level < *lock(&self.log_level) {
            return Ok(());
        }
        self.send_log(level, logger, data, related)
    }

    /// Sends a log message whatever the session's level.
    pub(crate) fn send_log(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: Value,
        related: Option<RequestId>,
    ) -> Result<(), Error> {
        let peer = self.peer.get().ok_or(Error::TransportClosed)?;
        let params = LoggingMessageNotificationParams { level, logger: logger.map(str::to_owned), data, meta: None };
        peer.notify(methods::NOTIFICATIONS_MESSAGE, &params, related)
    }

    /// Sends `notifications/resources/updated` if the client subscribed to the URI.
    pub(crate) fn resource_updated(&self, uri: &str) -> Result<(), Error> {
        if !self.is_subscribed(uri) {
            return Ok(());
        }
        let peer = self.peer.get().ok_or(Error::TransportClosed)?;
        let params = ResourceUpdatedNotificationParams { uri: uri.to_owned(), meta: None };
        peer.notify(methods::NOTIFICATIONS_RESOURCES_UPDATED, &params, None)
    }

    fn initialize(&self, params: Option<Value>) -> Result<Value, ErrorData> {
        let mut phase = lock(&self.phase);
        if *phase != Phase::Uninitialized {
            return Err(ErrorData::invalid_request("The session is already initialized"));
        }
        let params: InitializeRequestParams = request_params(params)?;
        let version = negotiate_protocol_version(&params.protocol_version);
        let capabilities = self.server.capabilities();
        let _ = self.capabilities.set(capabilities.clone());
        let result = InitializeResult {
            protocol_version: version.to_owned(),
            capabilities,
            server_info: self.server.info.clone(),
            instructions: self.server.options.instructions.clone(),
            meta: None,
        };
        tracing::debug!(client = %params.client_info.name, requested = %params.protocol_version, version, "initialize");
        let _ = self.protocol_version.set(version.to_owned());
        let _ = self.client.set(params);
        *phase = Phase::Initializing;
        to_result(&result)
    }

    fn context(self: &Arc<Self>, incoming: IncomingRequest, meta: Option<Meta>) -> RequestContext {
        let round = ROUND.try_with(Arc::clone).ok();
        RequestContext { incoming, session: self.clone(), meta, round }
    }

    fn list_tools(self: &Arc<Self>, params: Option<Value>) -> Result<Value, ErrorData> {
        let apps = self.renders_apps(params.as_ref());
        let params: PaginatedRequestParams = request_params(params)?;
        let (page, next_cursor) =
            lock(&self.server.tools).page(params.cursor.as_deref(), self.server.options.page_size)?;
        let tools =
            page.iter().filter(|e| apps || crate::model::apps::visible_to_model(&e.tool)).map(|e| e.tool.clone());
        to_result(&ListToolsResult { tools: tools.collect(), next_cursor, meta: None })
    }

    fn call_tool(self: &Arc<Self>, params: Option<Value>, incoming: IncomingRequest) -> Reply {
        let params = match call_params(params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let Some(entry) = lock(&self.server.tools).get(&params.name) else {
            return Reply::Now(Err(ErrorData::invalid_params(format!("Unknown tool: {}", quoted(&params.name)))));
        };
        // A 2026-07-28 client of the tasks extension gets a task when a task-supporting tool
        // outlasts the immediate window; without the extension such a tool runs as a plain
        // call, unless it requires a task.
        let support = entry.tool.execution.as_ref().and_then(|e| e.task_support).unwrap_or(TaskSupport::Forbidden);
        if support != TaskSupport::Forbidden
            && let Ok(round) = ROUND.try_with(Arc::clone)
            && let Some(store) = self.server.task_extension()
        {
            let context = self.context(incoming.detach(), params.meta.clone());
            let declared = context.client_capabilities().extensions.is_some_and(|e| e.contains_key(TASKS_EXTENSION));
            if declared {
                let work = tool_work(entry, params.arguments.unwrap_or_default(), context);
                return call_as_task(store.clone(), round, work);
            }
            if support == TaskSupport::Required {
                return Reply::Now(Err(missing_tasks_extension()));
            }
        }
        // With task support declared, the tool's taskSupport decides whether `task` is allowed
        // or required; without it, `task` is ignored.
        let store = self.tasks.as_ref().filter(|_| self.declares_tool_tasks());
        let task = match (store, params.task) {
            (Some(store), task) => {
                let support =
                    entry.tool.execution.as_ref().and_then(|e| e.task_support).unwrap_or(TaskSupport::Forbidden);
                match (support, task) {
                    (TaskSupport::Forbidden, Some(_)) => {
                        return Reply::Now(Err(ErrorData::new(
                            METHOD_NOT_FOUND,
                            format!("Tool {} cannot be called as a task", params.name),
                        )));
                    }
                    (TaskSupport::Required, None) => {
                        return Reply::Now(Err(ErrorData::new(
                            METHOD_NOT_FOUND,
                            format!("Tool {} must be called as a task", params.name),
                        )));
                    }
                    (_, task) => task.map(|t| (store.clone(), t)),
                }
            }
            (None, _) => None,
        };
        let incoming = if task.is_some() { incoming.detach() } else { incoming };
        let context = self.context(incoming.clone(), params.meta);
        let work = tool_work(entry, params.arguments.unwrap_or_default(), context);
        match task {
            None => Reply::Later(work),
            Some((store, metadata)) => {
                let work = work.map_ok(Answer::into_value).boxed();
                let created = store
                    .spawn(metadata.ttl, incoming.cancellation.clone(), Some(incoming.peer.clone()), work, |_| {})
                    .and_then(|task| to_result(&CreateTaskResult { task, meta: None }));
                // In a cluster, the task is answered once every process can find it.
                #[cfg(feature = "redis")]
                if store.is_shared() {
                    return Reply::later(async move {
                        store.flushed().await;
                        created
                    });
                }
                Reply::Now(created)
            }
        }
    }

    /// Answers `tasks/get`, `tasks/update` and `tasks/cancel` of the tasks extension, for a
    /// client that declared it in the request's capabilities.
    fn extension_task_request(&self, method: &str, params: Option<Value>) -> Reply {
        let Some(store) = self.server.task_extension() else {
            return Reply::Now(Err(ErrorData::method_not_found(method)));
        };
        let params = params.unwrap_or(Value::Null);
        let declared = params
            .get("_meta")
            .and_then(|m| m.get(meta_keys::CLIENT_CAPABILITIES))
            .and_then(|c| c.get("extensions"))
            .and_then(|e| e.get(TASKS_EXTENSION))
            .is_some();
        if !declared {
            return Reply::Now(Err(missing_tasks_extension()));
        }
        let Some(task_id) = params.get("taskId").and_then(Value::as_str) else {
            return Reply::Now(Err(ErrorData::invalid_params(format!("{method} needs a taskId string"))));
        };
        #[cfg(feature = "redis")]
        if store.is_shared() {
            return Reply::later(store.shared_extension_request(method, task_id.to_owned(), params));
        }
        Reply::Now(match method {
            methods::TASKS_GET => store.detailed(task_id),
            methods::TASKS_UPDATE => match params.get("inputResponses") {
                Some(Value::Object(responses)) => store.update(task_id, responses).map(|()| serde_json::json!({})),
                _ => Err(ErrorData::invalid_params("tasks/update needs an inputResponses object")),
            },
            _ => store.cancel_extension(task_id).map(|()| serde_json::json!({})),
        })
    }

    /// Answers `subscriptions/listen`: the acknowledgement first, then every notification the
    /// filter asked for, each tagged with the subscription id, until the client goes away.
    fn listen(&self, params: Option<Value>, incoming: IncomingRequest) -> Reply {
        let options = &self.server.options;
        let filter = match Filter::parse(params.as_ref(), options.max_subscriptions, options.max_uri_length) {
            Ok(filter) => filter.supported(&self.server.capabilities()),
            Err(e) => return Reply::Now(Err(e)),
        };
        let acknowledged = filter.to_json();
        let Some(mut queue) = self.server.listeners.open(filter) else {
            return Reply::Now(Err(ErrorData::new(
                crate::jsonrpc::TOO_MANY_REQUESTS,
                format!("this server keeps at most {MAX_LISTENERS} subscriptions/listen streams open"),
            )));
        };
        Reply::later(async move {
            let id = serde_json::to_value(&incoming.id).unwrap_or(Value::Null);
            let tagged = |params: Value| {
                let mut params = match params {
                    Value::Object(map) => map,
                    _ => JsonObject::new(),
                };
                let meta = params.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
                if let Value::Object(meta) = meta {
                    meta.insert(meta_keys::SUBSCRIPTION_ID.to_owned(), id.clone());
                }
                Value::Object(params)
            };
            let ack = tagged(serde_json::json!({ "notifications": acknowledged }));
            incoming
                .peer
                .notify(methods::NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED, &ack, incoming.related())
                .map_err(|e| ErrorData::internal_error(e.to_string()))?;
            loop {
                tokio::select! {
                    _ = incoming.cancellation.cancelled() => break,
                    next = queue.recv() => {
                        let Some((method, params)) = next else { break };
                        if incoming.peer.notify(&method, &tagged(params), incoming.related()).is_err() {
                            break;
                        }
                    }
                }
            }
            Ok(tagged(serde_json::json!({})))
        })
    }

    /// Returns whether this session declared that `tools/call` may run as a task.
    fn declares_tool_tasks(&self) -> bool {
        self.capabilities
            .get()
            .and_then(|c| c.tasks.as_ref())
            .and_then(|t| t.requests.as_ref())
            .and_then(|r| r.tools.as_ref())
            .is_some_and(|t| t.call.is_some())
    }

    /// Answers `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`.
    fn task_request(&self, store: &Arc<TaskStore>, method: &str, params: Option<Value>) -> Reply {
        #[cfg(feature = "redis")]
        if store.is_shared() {
            let page_size = self.server.options.page_size;
            return Reply::later(store.shared_request(method, params, self.peer.get().cloned(), page_size));
        }
        let outcome = match method {
            methods::TASKS_LIST => request_params::<PaginatedRequestParams>(params)
                .and_then(|p| store.list(p.cursor.as_deref(), self.server.options.page_size))
                .and_then(|page| to_result(&page)),
            _ => {
                let params: TaskIdRequestParams = match request_params(params) {
                    Ok(p) => p,
                    Err(e) => return Reply::Now(Err(e)),
                };
                match method {
                    methods::TASKS_GET => store.get(&params.task_id),
                    methods::TASKS_CANCEL => match self.peer.get() {
                        Some(peer) => store.cancel(&params.task_id, peer),
                        None => Err(ErrorData::internal_error("the session has no peer")),
                    },
                    _ => {
                        let store = store.clone();
                        return Reply::later(async move { store.result(&params.task_id).await });
                    }
                }
                .and_then(|task| to_result(&TaskWithMeta::from(task)))
            }
        };
        Reply::Now(outcome)
    }

    /// Lists a page of the fixed resources; the last page also has those that templates with
    /// a lister list, asked for in the request's own task.
    fn list_resources(self: &Arc<Self>, params: Option<Value>, incoming: IncomingRequest) -> Reply {
        let apps = self.renders_apps(params.as_ref());
        let page = request_params::<PaginatedRequestParams>(params).and_then(|params| {
            let (page, next_cursor) =
                lock(&self.server.resources).page(params.cursor.as_deref(), self.server.options.page_size)?;
            Ok((params.meta, page, next_cursor))
        });
        let (meta, page, next_cursor) = match page {
            Ok(page) => page,
            Err(e) => return Reply::Now(Err(e)),
        };
        let mut resources: Vec<_> = page
            .iter()
            .filter(|e| apps || super::apps::resource_listed_without_apps(&e.resource))
            .map(|e| e.resource.clone())
            .collect();
        let listers: Vec<_> = match next_cursor {
            Some(_) => Vec::new(),
            None => lock(&self.server.templates).iter().filter_map(|t| t.lister.clone()).collect(),
        };
        if listers.is_empty() {
            return Reply::Now(to_result(&ListResourcesResult { resources, next_cursor, meta: None }));
        }
        let session = self.clone();
        Reply::later(async move {
            for lister in listers {
                resources.extend(lister.list(session.context(incoming.clone(), meta.clone())).await?);
            }
            to_result(&ListResourcesResult { resources, next_cursor: None, meta: None })
        })
    }

    fn list_templates(&self, params: Option<Value>) -> Result<Value, ErrorData> {
        let params: PaginatedRequestParams = request_params(params)?;
        let (page, next_cursor) =
            lock(&self.server.templates).page(params.cursor.as_deref(), self.server.options.page_size)?;
        let resource_templates = page.iter().map(|e| e.template.clone()).collect();
        to_result(&ListResourceTemplatesResult { resource_templates, next_cursor, meta: None })
    }

    /// Reads the parameters of a request about one resource, refusing a URI over the limit.
    fn resource_params(&self, params: Option<Value>) -> Result<ResourceRequestParams, ErrorData> {
        let params: ResourceRequestParams = request_params(params)?;
        let limit = self.server.options.max_uri_length;
        if params.uri.len() > limit {
            return Err(ErrorData::invalid_params(format!(
                "the URI is {} bytes long; this server accepts at most {limit}",
                params.uri.len()
            )));
        }
        Ok(params)
    }

    fn read_resource(self: &Arc<Self>, params: Option<Value>, incoming: IncomingRequest) -> Reply {
        let params = match self.resource_params(params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let session = self.clone();
        // Matching runs in the request's own task, never in the reader of the session.
        Reply::later(async move {
            let server = &session.server;
            let found = lock(&server.resources).get(&params.uri).map(|e| (e.handler.clone(), HashMap::new()));
            let found = found.or_else(|| {
                lock(&server.templates)
                    .iter()
                    .find_map(|t| t.matcher.matches(&params.uri).map(|vars| (t.handler.clone(), vars)))
            });
            let Some((handler, variables)) = found else {
                return Err(ErrorData::resource_not_found(&params.uri));
            };
            let context = session.context(incoming, params.meta);
            let request = ResourceRequest { uri: params.uri, variables };
            to_result(&handler.read(request, context).await?)
        })
    }

    fn subscribe(&self, params: Option<Value>, subscribe: bool) -> Result<Value, ErrorData> {
        if !self.server.options.resource_subscriptions {
            return Err(ErrorData::method_not_found(if subscribe {
                methods::RESOURCES_SUBSCRIBE
            } else {
                methods::RESOURCES_UNSUBSCRIBE
            }));
        }
        let params = self.resource_params(params)?;
        let mut subscriptions = lock(&self.subscriptions);
        if subscribe {
            let limit = self.server.options.max_subscriptions;
            if subscriptions.len() >= limit && !subscriptions.contains(&params.uri) {
                return Err(ErrorData::invalid_params(format!(
                    "this session is already subscribed to {limit} resources, the most it may be; unsubscribe from one first"
                )));
            }
            subscriptions.insert(params.uri);
        } else {
            subscriptions.remove(&params.uri);
        }
        to_result(&EmptyResult::default())
    }

    fn list_prompts(&self, params: Option<Value>) -> Result<Value, ErrorData> {
        let params: PaginatedRequestParams = request_params(params)?;
        let (page, next_cursor) =
            lock(&self.server.prompts).page(params.cursor.as_deref(), self.server.options.page_size)?;
        to_result(&ListPromptsResult {
            prompts: page.iter().map(|e| e.prompt.clone()).collect(),
            next_cursor,
            meta: None,
        })
    }

    /// Answers `skills/list` (a page of entries) and `skills/get` (`skill`: the entry of one
    /// `SKILL.md`).
    fn skills_request(&self, method: &str, params: Option<Value>) -> Result<Value, ErrorData> {
        let skills = lock(&self.server.skills);
        if method == crate::model::skills::SKILLS_GET {
            let uri = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str);
            let uri = uri.ok_or_else(|| ErrorData::invalid_params("skills/get needs the uri of a SKILL.md"))?;
            let entry =
                skills.get(uri).ok_or_else(|| ErrorData::invalid_params(format!("Unknown skill: {}", quoted(uri))))?;
            return Ok(serde_json::json!({ "skill": &*entry }));
        }
        let params: PaginatedRequestParams = request_params(params)?;
        let (page, next_cursor) = skills.page(params.cursor.as_deref(), self.server.options.page_size)?;
        let mut result = serde_json::json!({ "skills": page.iter().map(|e| &**e).collect::<Vec<_>>() });
        if let Some(cursor) = next_cursor {
            result["nextCursor"] = Value::String(cursor);
        }
        Ok(result)
    }

    /// Answers `resources/directory/read`: a page of the direct children of a directory of
    /// skill files, subdirectories as `inode/directory`; -32602 for a URI that is no directory.
    fn read_directory(&self, params: Option<Value>) -> Result<Value, ErrorData> {
        let uri = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str);
        let uri = uri.ok_or_else(|| ErrorData::invalid_params("resources/directory/read needs a uri"))?;
        let cursor = params.as_ref().and_then(|p| p.get("cursor")).and_then(Value::as_str);
        let prefix = format!("{}/", uri.trim_end_matches('/'));
        let mut children: Vec<(String, &'static str)> = Vec::new();
        for entry in lock(&self.server.skills).iter() {
            for file in &entry.resources {
                let Some(rest) = file.uri.strip_prefix(&prefix) else { continue };
                let child = match rest.split_once('/') {
                    Some((directory, _)) => (format!("{prefix}{directory}"), crate::model::skills::DIRECTORY_MIME_TYPE),
                    None if rest.ends_with(".md") => (file.uri.clone(), "text/markdown"),
                    None => (file.uri.clone(), "text/plain"),
                };
                if !children.iter().any(|(u, _)| *u == child.0) {
                    children.push(child);
                }
            }
        }
        if children.is_empty() {
            return Err(ErrorData::invalid_params(format!("{} is not a directory of skill files", quoted(uri))));
        }
        let start = match cursor {
            None => 0,
            Some(c) => c.parse::<usize>().map_err(|_| ErrorData::invalid_params(format!("Invalid cursor: {c:?}")))?,
        };
        let page_size = self.server.options.page_size.max(1);
        let page: Vec<Value> = children
            .iter()
            .skip(start)
            .take(page_size)
            .map(|(uri, mime)| {
                let name = uri.rsplit('/').next().unwrap_or(uri);
                serde_json::json!({ "uri": uri, "name": name, "mimeType": mime })
            })
            .collect();
        let mut result = serde_json::json!({ "resources": page });
        if start + page_size < children.len() {
            result["nextCursor"] = Value::String((start + page_size).to_string());
        }
        Ok(result)
    }

    fn get_prompt(self: &Arc<Self>, params: Option<Value>, incoming: IncomingRequest) -> Reply {
        let params: GetPromptRequestParams = match request_params(params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let Some(entry) = lock(&self.server.prompts).get(&params.name) else {
            return Reply::Now(Err(ErrorData::invalid_params(format!("Unknown prompt: {}", quoted(&params.name)))));
        };
        let mut arguments = HashMap::new();
        for (name, value) in params.arguments.unwrap_or_default() {
            match value {
                Value::String(s) => arguments.insert(name, s),
                other => arguments.insert(name, other.to_string()),
            };
        }
        let missing: Vec<&str> = entry
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            let message = format!("Missing required arguments for prompt {}: {}", params.name, missing.join(", "));
            return Reply::Now(Err(ErrorData::invalid_params(message)));
        }
        let context = self.context(incoming, params.meta);
        Reply::later(async move { to_result(&entry.handler.get(arguments, context).await?) })
    }

    fn complete(self: &Arc<Self>, params: Option<Value>, incoming: IncomingRequest) -> Reply {
        let Some(handler) = lock(&self.server.completion).clone() else {
            return Reply::Now(Err(ErrorData::method_not_found(methods::COMPLETION_COMPLETE)));
        };
        let params: CompleteRequestParams = match request_params(params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let context = self.context(incoming, params.meta.clone());
        Reply::later(async move {
            let mut result = handler.complete(params, context).await?;
            let values = &mut result.completion.values;
            if values.len() > 100 {
                let total = result.completion.total.unwrap_or(values.len() as u64);
                values.truncate(100);
                result.completion.total = Some(total);
                result.completion.has_more = Some(true);
            }
            to_result(&result)
        })
    }

    fn set_level(&self, params: Option<Value>) -> Result<Value, ErrorData> {
        let params: SetLevelRequestParams = request_params(params)?;
        *lock(&self.log_level) = params.level;
        to_result(&EmptyResult::default())
    }
}

/// Runs a request after checking that the server declared the capability it belongs to.
fn gated(declared: bool, method: &str, run: impl FnOnce() -> Reply) -> Reply {
    if declared { run() } else { Reply::Now(Err(ErrorData::method_not_found(method))) }
}

impl ServerSession {
    /// Answers the methods both revisions share, gated by the server's capabilities `caps`.
    fn dispatch(
        self: &Arc<Self>,
        caps: &ServerCapabilities,
        method: &str,
        params: Option<Value>,
        incoming: IncomingRequest,
    ) -> Reply {
        let m = method;
        match m {
            methods::TOOLS_LIST => gated(caps.tools.is_some(), m, || Reply::Now(self.list_tools(params))),
            methods::TOOLS_CALL => gated(caps.tools.is_some(), m, || self.call_tool(params, incoming)),
            methods::RESOURCES_LIST => gated(caps.resources.is_some(), m, || self.list_resources(params, incoming)),
            methods::RESOURCES_TEMPLATES_LIST => {
                gated(caps.resources.is_some(), m, || Reply::Now(self.list_templates(params)))
            }
            methods::RESOURCES_READ => gated(caps.resources.is_some(), m, || self.read_resource(params, incoming)),
            methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => {
                let subscribe = m == methods::RESOURCES_SUBSCRIBE;
                let declared = caps.resources.as_ref().and_then(|r| r.subscribe) == Some(true);
                gated(declared, m, || Reply::Now(self.subscribe(params, subscribe)))
            }
            methods::PROMPTS_LIST => gated(caps.prompts.is_some(), m, || Reply::Now(self.list_prompts(params))),
            crate::model::skills::RESOURCES_DIRECTORY_READ => {
                let served = !lock(&self.server.skills).is_empty();
                gated(served, m, || Reply::Now(self.read_directory(params)))
            }
            crate::model::skills::SKILLS_LIST | crate::model::skills::SKILLS_GET => {
                let served = !lock(&self.server.skills).is_empty();
                gated(served, m, || Reply::Now(self.skills_request(m, params)))
            }
            methods::PROMPTS_GET => gated(caps.prompts.is_some(), m, || self.get_prompt(params, incoming)),
            methods::COMPLETION_COMPLETE => gated(caps.completions.is_some(), m, || self.complete(params, incoming)),
            methods::LOGGING_SET_LEVEL => gated(caps.logging.is_some(), m, || Reply::Now(self.set_level(params))),
            methods::TASKS_GET | methods::TASKS_RESULT | methods::TASKS_LIST | methods::TASKS_CANCEL => {
                let declared = caps.tasks.as_ref().is_some_and(|t| match m {
                    methods::TASKS_LIST => t.list.is_some(),
                    methods::TASKS_CANCEL => t.cancel.is_some(),
                    _ => true,
                });
                match self.tasks.as_ref().filter(|_| declared) {
                    Some(store) => self.task_request(store, m, params),
                    None => Reply::Now(Err(ErrorData::method_not_found(m))),
                }
            }
            _ => Reply::Now(Err(ErrorData::method_not_found(m))),
        }
    }

    /// Answers a request of revision 2026-07-28, which needs no `initialize`: its `_meta`
    /// carries the client's version and capabilities, and its result says it is complete and
    /// which server made it.
    fn stateless_request(self: &Arc<Self>, request: Request, incoming: IncomingRequest, version: &str) -> Reply {
        if version != STATELESS_PROTOCOL_VERSION {
            return Reply::Now(Err(unsupported_version(version)));
        }
        let declared =
            request.params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get(meta_keys::CLIENT_CAPABILITIES));
        if !declared.is_some_and(Value::is_object) {
            return Reply::Now(Err(ErrorData::invalid_params(format!(
                "a {STATELESS_PROTOCOL_VERSION} request carries the client's capabilities in _meta \
                 ({})",
                meta_keys::CLIENT_CAPABILITIES
            ))));
        }
        let Request { method, params, .. } = request;
        let m = method.as_str();
        let cacheable = matches!(
            m,
            methods::TOOLS_LIST
                | methods::PROMPTS_LIST
                | methods::RESOURCES_LIST
                | methods::RESOURCES_TEMPLATES_LIST
                | methods::RESOURCES_READ
                | methods::SERVER_DISCOVER
                | crate::model::skills::SKILLS_LIST
                | crate::model::skills::SKILLS_GET
        );
        let mut params = params;
        let round = match self.server.rounds.open(m, &mut params, self.principal()) {
            Ok(round) => Arc::new(round),
            Err(e) => return Reply::Now(Err(e)),
        };
        let reply = match m {
            methods::SERVER_DISCOVER => Reply::Now(Ok(self.discover())),
            methods::SUBSCRIPTIONS_LISTEN => self.listen(params, incoming),
            methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => {
                self.extension_task_request(m, params)
            }
            // Removed in 2026-07-28, or replaced by other methods.
            methods::INITIALIZE
            | methods::PING
            | methods::LOGGING_SET_LEVEL
            | methods::RESOURCES_SUBSCRIBE
            | methods::RESOURCES_UNSUBSCRIBE
            | methods::TASKS_RESULT
            | methods::TASKS_LIST => Reply::Now(Err(ErrorData::method_not_found(m))),
            _ => {
                let caps = self.server.capabilities();
                ROUND.sync_scope(round.clone(), || self.dispatch(&caps, m, params, incoming))
            }
        };
        let info = serde_json::to_value(&self.server.info).unwrap_or(Value::Null);
        let server = self.server.clone();
        let finish = move |outcome: Result<Value, ErrorData>| {
            // A handler that asked for input it does not have yet ends its round here,
            // whatever it returned.
            let outcome = server.rounds.close(&round).unwrap_or(outcome);
            complete_stateless(outcome, &info, cacheable)
        };
        match reply {
            Reply::Now(outcome) => Reply::Now(finish(outcome)),
            Reply::Later(future) => Reply::later(future.map(move |outcome| finish(outcome.map(Answer::into_value)))),
        }
    }

    /// Who sent the session's latest request, as one string, when the transport authenticates
    /// requests: the token's issuer, subject and client.
    fn principal(&self) -> Option<String> {
        #[cfg(feature = "auth")]
        if let Some(auth) = crate::sync::lock(&self.auth).as_ref() {
            let part = |p: &Option<String>| p.clone().unwrap_or_default();
            return Some(format!("{}\n{}\n{}", part(&auth.issuer), part(&auth.subject), part(&auth.client_id)));
        }
        None
    }

    /// The result of `server/discover`: the versions, capabilities and identity of the server.
    fn discover(&self) -> Value {
        let mut result = serde_json::json!({
            "supportedVersions": ALL_PROTOCOL_VERSIONS,
            "capabilities": self.server.stateless_capabilities(),
            "serverInfo": self.server.info,
        });
        if let Some(instructions) = &self.server.options.instructions {
            result["instructions"] = Value::String(instructions.clone());
        }
        result
    }
}

/// Reads the params of `tools/call`, moving each member of the object into its field: reading
/// the object as a struct, or taking its arguments out first, would hash keys and rebuild maps.
///
/// A member of the wrong type is refused with the message serde gives for it.
fn call_params(params: Option<Value>) -> Result<CallToolRequestParams, ErrorData> {
    let invalid = |e: serde_json::Error| ErrorData::invalid_params(format!("Invalid params: {e}"));
    let members = match params {
        None => JsonObject::new(),
        Some(Value::Object(members)) => members,
        Some(other) => return request_params(Some(other)),
    };
    let mut name = None;
    let mut call = CallToolRequestParams::default();
    for (key, value) in members {
        match key.as_str() {
            "name" => {
                name = Some(match value {
                    Value::String(name) => name,
                    other => serde_json::from_value(other).map_err(invalid)?,
                })
            }
            "arguments" => {
                call.arguments = match value {
                    Value::Null => None,
                    Value::Object(arguments) => Some(arguments),
                    _ => return Err(ErrorData::invalid_params("Invalid params: arguments must be an object")),
                }
            }
            "task" => call.task = serde_json::from_value(value).map_err(invalid)?,
            // Moved rather than deserialized: rebuilding the map would allocate and hash each
            // key once more.
            "_meta" => {
                call.meta = match value {
                    Value::Null => None,
                    Value::Object(meta) => Some(meta),
                    _ => return Err(ErrorData::invalid_params("Invalid params: _meta must be an object")),
                }
            }
            _ => {}
        }
    }
    call.name = name.ok_or_else(|| ErrorData::invalid_params("Invalid params: missing field `name`"))?;
    Ok(call)
}

/// The work of one tool call: validation of the arguments (in the request's own task, never
/// in the reader of the session), the handler, and the check of its output.
fn tool_work(
    entry: Arc<ToolEntry>,
    arguments: JsonObject,
    context: RequestContext,
) -> futures::future::BoxFuture<'static, Result<Answer, ErrorData>> {
    async move {
        let arguments = match entry.check_input(arguments) {
            Ok(arguments) => arguments,
            Err(failure) => return Answer::encode(&CallToolResult::error(failure)),
        };
        let mut result = entry.handler.call(arguments, context).await?;
        entry.check_output(&mut result)?;
        tool_answer(result)
    }
    .boxed()
}

/// The payload size (text, image and audio data) under which a tool result is encoded straight
/// to JSON text; a larger one goes through a [`Value`].
const ENCODE_DIRECTLY_BELOW: usize = 1024;

/// Encodes a tool result for the wire.
///
/// A small one is written straight to JSON text: building a value first would cost more than
/// the result itself. In a larger one, the strings of its text blocks and the data of its image
/// and audio blocks are moved into a value instead of copied, to be written once, by the
/// writer that scans strings many bytes at a time: those are what grows with a large payload.
fn tool_answer(mut result: CallToolResult) -> Result<Answer, ErrorData> {
    let payload: usize = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.len(),
            ContentBlock::Image(image) => image.data.len(),
            ContentBlock::Audio(audio) => audio.data.len(),
            _ => 0,
        })
        .sum();
    if payload < ENCODE_DIRECTLY_BELOW {
        return Answer::encode(&result);
    }
    let payloads: Vec<Option<(&'static str, String)>> = result
        .content
        .iter_mut()
        .map(|block| match block {
            ContentBlock::Text(text) => Some(("text", std::mem::take(&mut text.text))),
            ContentBlock::Image(image) => Some(("data", std::mem::take(&mut image.data))),
            ContentBlock::Audio(audio) => Some(("data", std::mem::take(&mut audio.data))),
            _ => None,
        })
        .collect();
    let mut value = to_result(&result)?;
    if let Some(Value::Array(blocks)) = value.get_mut("content") {
        for (block, payload) in blocks.iter_mut().zip(payloads) {
            if let (Value::Object(block), Some((key, payload))) = (block, payload) {
                block.insert(key.to_owned(), Value::String(payload));
            }
        }
    }
    Ok(Answer::Value(value))
}

/// Runs a tool call of a tasks-extension client: answered directly when it ends (or asks for
/// input) within the store's immediate window, else a task of `store` from then on, whose
/// requests for input wait for `tasks/update`.
fn call_as_task(
    store: Arc<TaskStore>,
    round: Arc<Round>,
    mut work: futures::future::BoxFuture<'static, Result<Answer, ErrorData>>,
) -> Reply {
    Reply::Later(
        async move {
            tokio::select! {
                biased;
                outcome = &mut work => return outcome,
                _ = tokio::time::sleep(store.immediate_window()) => {}
            }
            let link = store.clone();
            let escalate = |task: &crate::model::Task| round.escalate(link, task.task_id.clone());
            let work = work.map_ok(Answer::into_value).boxed();
            let task = store.spawn(None, CancellationToken::new(), None, work, escalate)?;
            // In a cluster, the task is answered once every process can find it.
            #[cfg(feature = "redis")]
            store.flushed().await;
            Ok(Answer::Value(TaskStore::created(&task)))
        }
        .boxed(),
    )
}

/// The error for a request that needs the tasks extension from a client that did not declare
/// it.
fn missing_tasks_extension() -> ErrorData {
    ErrorData::new(
        crate::jsonrpc::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("this request needs the {TASKS_EXTENSION} extension, which the client did not declare"),
    )
    .with_data(serde_json::json!({ "requiredCapabilities": { "extensions": { TASKS_EXTENSION: {} } } }))
}

/// The protocol version a request's `_meta` names, if any.
fn requested_version(params: &Option<Value>) -> Option<String> {
    let meta = params.as_ref()?.get("_meta")?;
    Some(meta.get(meta_keys::PROTOCOL_VERSION)?.as_str()?.to_owned())
}

/// The error for a request of a version this server does not speak, listing those it does.
fn unsupported_version(requested: &str) -> ErrorData {
    ErrorData::new(
        UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "Unsupported protocol version {}: this server supports {}",
            quoted(requested),
            ALL_PROTOCOL_VERSIONS.join(", ")
        ),
    )
    .with_data(serde_json::json!({ "supported": ALL_PROTOCOL_VERSIONS, "requested": requested }))
}

/// Finishes the answer to a 2026-07-28 request: a result gets `resultType`, the server's
/// identity in `_meta` and, when cacheable, caching hints; a missing resource is -32602.
fn complete_stateless(outcome: Result<Value, ErrorData>, info: &Value, cacheable: bool) -> Result<Value, ErrorData> {
    let mut value = match outcome {
        Ok(value) => value,
        Err(mut error) => {
            if error.code == crate::jsonrpc::RESOURCE_NOT_FOUND {
                error.code = crate::jsonrpc::INVALID_PARAMS;
            }
            return Err(error);
        }
    };
    if let Value::Object(result) = &mut value {
        result.entry("resultType").or_insert_with(|| Value::String("complete".into()));
        if cacheable {
            result.entry("ttlMs").or_insert_with(|| Value::from(0));
            result.entry("cacheScope").or_insert_with(|| Value::String("private".into()));
        }
        let meta = result.entry("_meta").or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(meta) = meta {
            meta.entry(meta_keys::SERVER_INFO).or_insert_with(|| info.clone());
        }
    }
    Ok(value)
}

impl Service for Arc<ServerSession> {
    fn request(&self, request: Request, incoming: IncomingRequest) -> Reply {
        if self.phase() == Phase::Uninitialized
            && let Some(version) = requested_version(&request.params)
        {
            return self.stateless_request(request, incoming, &version);
        }
        let Request { method, params, .. } = request;
        match method.as_str() {
            methods::INITIALIZE => return Reply::Now(self.initialize(params)),
            methods::PING => return Reply::Now(to_result(&EmptyResult::default())),
            _ => {}
        }
        if self.phase() == Phase::Uninitialized {
            return Reply::Now(Err(ErrorData::invalid_request(format!(
                "Received {} before initialize: the session is not initialized",
                quoted(&method)
            ))));
        }
        let Some(caps) = self.capabilities.get() else {
            return Reply::Now(Err(ErrorData::internal_error("the session has no negotiated capabilities")));
        };
        self.dispatch(caps, &method, params, incoming)
    }

    fn notification(
        &self,
        notification: Notification,
        _peer: &Peer,
    ) -> Option<futures::future::BoxFuture<'static, ()>> {
        match notification.method.as_str() {
            methods::NOTIFICATIONS_INITIALIZED => {
                let mut phase = lock(&self.phase);
                if *phase == Phase::Initializing {
                    *phase = Phase::Ready;
                }
            }
            methods::NOTIFICATIONS_ROOTS_LIST_CHANGED => {
                if let Some(callback) = self.server.options.on_roots_changed.clone() {
                    let session = super::SessionHandle { session: self.clone() };
                    return Some(async move { callback(session) }.boxed());
                }
            }
            methods::NOTIFICATIONS_CANCELLED => {}
            other => tracing::debug!(method = other, "ignoring notification"),
        }
        None
    }

    fn describe(&self, params: Option<&Value>) -> crate::middleware::layer::Described {
        crate::middleware::layer::Described {
            session_id: self.transport_id.get().cloned(),
            protocol_version: self.protocol_version().or_else(|| {
                let meta = params?.get("_meta")?;
                Some(meta.get(meta_keys::PROTOCOL_VERSION)?.as_str()?.to_owned())
            }),
            identity: self.principal(),
            session_number: 0,
        }
    }

    fn closed(&self) {
        *lock(&self.phase) = Phase::Closed;
        if let Some(tasks) = &self.tasks {
            tasks.stop_all();
        }
        self.server.forget(self);
    }
}

impl ToolEntry {
    /// Validates arguments against the input schema, handing them back, or a message on
    /// failure.
    fn check_input(&self, arguments: JsonObject) -> Result<JsonObject, String> {
        let Some(schema) = self.input.as_ref() else { return Ok(arguments) };
        let instance = Value::Object(arguments);
        if schema.surely_valid(&instance) {
            let Value::Object(arguments) = instance else { unreachable!("built from an object above") };
            return Ok(arguments);
        }
        let validator =
            schema.validator().map_err(|e| format!("The inputSchema of tool {} is unusable: {e}", self.tool.name))?;
        if validator.is_valid(&instance) {
            let Value::Object(arguments) = instance else { unreachable!("built from an object above") };
            return Ok(arguments);
        }
        let errors: Vec<String> = validator.iter_errors(&instance).take(5).map(|e| e.to_string()).collect();
        Err(format!("Invalid arguments for tool {}: {}", self.tool.name, errors.join("; ")))
    }

    /// Checks a successful result against the output schema, validating the structured content
    /// where it is (taken out and put back) rather than a copy of it.
    fn check_output(&self, result: &mut CallToolResult) -> Result<(), ErrorData> {
        let Some(schema) = &self.output else { return Ok(()) };
        if result.is_error == Some(true) {
            return Ok(());
        }
        let Some(structured) = result.structured_content.as_mut() else {
            return Err(ErrorData::internal_error(format!(
                "Tool {} declares an outputSchema but returned no structuredContent",
                self.tool.name
            )));
        };
        let instance = Value::Object(std::mem::take(structured));
        let errors = if schema.surely_valid(&instance) {
            Ok(Vec::new())
        } else {
            schema
                .validator()
                .map(|validator| validator.iter_errors(&instance).take(5).map(|e| e.to_string()).collect::<Vec<_>>())
        };
        let Value::Object(map) = instance else { unreachable!("built from an object above") };
        *structured = map;
        let errors = errors.map_err(|e| {
            ErrorData::internal_error(format!("The outputSchema of tool {} is unusable: {e}", self.tool.name))
        })?;
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ErrorData::internal_error(format!(
                "Tool {} returned structuredContent that does not match its outputSchema: {}",
                self.tool.name,
                errors.join("; ")
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ProgressToken, TaskMetadata};

    #[test]
    fn the_params_of_a_tool_call_are_read_member_by_member_as_serde_would() {
        let read = |params: Value| call_params(Some(params));
        let call = read(serde_json::json!({
            "name": "echo",
            "arguments": { "text": "hi" },
            "task": { "ttl": 5 },
            "_meta": { "progressToken": 7 },
            "other": [1]
        }))
        .unwrap();
        assert_eq!(call.name, "echo");
        assert_eq!(call.arguments, Some(serde_json::json!({ "text": "hi" }).as_object().unwrap().clone()));
        assert_eq!(call.task, Some(TaskMetadata { ttl: Some(5) }));
        assert_eq!(call.progress_token(), Some(ProgressToken::Number(7)));
        let bare = read(serde_json::json!({ "name": "echo", "arguments": null, "task": null })).unwrap();
        assert_eq!((bare.arguments, bare.task, bare.meta), (None, None, None));

        let message = |params: Value| read(params).unwrap_err().message;
        assert_eq!(message(serde_json::json!({})), "Invalid params: missing field `name`");
        assert_eq!(call_params(None).unwrap_err().message, "Invalid params: missing field `name`");
        assert_eq!(
            message(serde_json::json!({ "name": 5 })),
            "Invalid params: invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            message(serde_json::json!({ "name": "echo", "arguments": [] })),
            "Invalid params: arguments must be an object"
        );
        assert!(message(serde_json::json!({ "name": "echo", "task": 1 })).starts_with("Invalid params: invalid type"));
    }

    #[test]
    fn a_tool_result_of_any_size_is_written_as_serde_json_writes_it() {
        let small = "a \"quoted\" line\n".to_owned();
        let large = "é\"\n\u{1}".repeat(ENCODE_DIRECTLY_BELOW);
        for (text, encoded) in [(small, true), (large, false)] {
            let result = CallToolResult {
                structured_content: serde_json::json!({ "n": 1 }).as_object().cloned(),
                ..CallToolResult::text(text)
            };
            let expected = serde_json::to_string(&result).unwrap();
            let answer = tool_answer(result).unwrap();
            assert_eq!(matches!(answer, Answer::Encoded(_)), encoded);
            let written = answer.into_message(RequestId::Number(1)).encode();
            let expected = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{expected}}}"#);
            assert_eq!(String::from_utf8(written).unwrap(), expected);
        }
    }
}
