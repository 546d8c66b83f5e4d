//! Client and server capability trees exchanged during initialization.
//!
//! Leaves are `{}` objects whose presence means "supported" (kept raw as
//! [`JsonObject`]), except the `listChanged` and `subscribe` booleans.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::JsonObject;

/// The `listChanged` capability shared by roots, prompts and tools.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListChangedCapability {
    /// Whether the sender emits a `list_changed` notification when the list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The client's `roots` capability.
pub type RootsCapability = ListChangedCapability;
/// The server's `prompts` capability.
pub type PromptsCapability = ListChangedCapability;
/// The server's `tools` capability.
pub type ToolsCapability = ListChangedCapability;

/// The client's `sampling` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingCapability {
    /// Present if the client supports the soft-deprecated `includeContext` values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Present if the client supports `tools` and `toolChoice` in sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

impl SamplingCapability {
    /// Declares support for the soft-deprecated `includeContext` values.
    pub fn with_context(mut self, context: JsonObject) -> Self {
        self.context = Some(context);
        self
    }

    /// Declares support for `tools` and `toolChoice` in sampling requests.
    pub fn with_tools(mut self, tools: JsonObject) -> Self {
        self.tools = Some(tools);
        self
    }
}

/// The client's `elicitation` capability; an empty object means form mode only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCapability {
    /// Present if the client supports form-mode elicitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// Present if the client supports URL-mode elicitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

impl ElicitationCapability {
    /// Returns whether form mode is supported (explicitly, or implied by an empty object).
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    /// Returns whether URL mode is supported.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }

    /// Declares support for form-mode elicitation.
    pub fn with_form(mut self, form: JsonObject) -> Self {
        self.form = Some(form);
        self
    }

    /// Declares support for URL-mode elicitation.
    pub fn with_url(mut self, url: JsonObject) -> Self {
        self.url = Some(url);
        self
    }
}

/// The client's task support for `sampling/*` requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingTasksCapability {
    /// Present if `sampling/createMessage` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_message: Option<JsonObject>,
}

impl SamplingTasksCapability {
    /// Declares that `sampling/createMessage` may be task-augmented.
    pub fn with_create_message(mut self, create_message: JsonObject) -> Self {
        self.create_message = Some(create_message);
        self
    }
}

/// The client's task support for `elicitation/*` requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationTasksCapability {
    /// Present if `elicitation/create` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create: Option<JsonObject>,
}

impl ElicitationTasksCapability {
    /// Declares that `elicitation/create` may be task-augmented.
    pub fn with_create(mut self, create: JsonObject) -> Self {
        self.create = Some(create);
        self
    }
}

/// The request types a client accepts as tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientTaskRequestsCapability {
    /// Task support for sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingTasksCapability>,
    /// Task support for elicitation requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationTasksCapability>,
}

impl ClientTaskRequestsCapability {
    /// Sets the task support for sampling requests.
    pub fn with_sampling(mut self, sampling: SamplingTasksCapability) -> Self {
        self.sampling = Some(sampling);
        self
    }

    /// Sets the task support for elicitation requests.
    pub fn with_elicitation(mut self, elicitation: ElicitationTasksCapability) -> Self {
        self.elicitation = Some(elicitation);
        self
    }
}

/// The client's `tasks` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientTasksCapability {
    /// Present if the client supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// Present if the client supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// The request types the client accepts as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequestsCapability>,
}

impl ClientTasksCapability {
    /// Declares support for `tasks/list`.
    pub fn with_list(mut self, list: JsonObject) -> Self {
        self.list = Some(list);
        self
    }

    /// Declares support for `tasks/cancel`.
    pub fn with_cancel(mut self, cancel: JsonObject) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// Sets the request types the client accepts as tasks.
    pub fn with_requests(mut self, requests: ClientTaskRequestsCapability) -> Self {
        self.requests = Some(requests);
        self
    }
}

/// Capabilities a client may support.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Experimental, non-standard capabilities, keyed by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Present if the client can list roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Present if the client supports sampling from a language model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Present if the client supports elicitation from the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Present if the client supports task-augmented requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// The extensions the client supports (revision 2026-07-28), keyed by identifier such as
    /// [`TASKS_EXTENSION`](crate::model::TASKS_EXTENSION), with their settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

impl ClientCapabilities {
    /// Declares the `roots` capability.
    pub fn with_roots(mut self, list_changed: bool) -> Self {
        self.roots = Some(ListChangedCapability { list_changed: Some(list_changed) });
        self
    }

    /// Declares the `sampling` capability with no sub-capabilities.
    pub fn with_sampling(mut self) -> Self {
        self.sampling = Some(SamplingCapability::default());
        self
    }

    /// Declares form-mode (and optionally URL-mode) elicitation.
    pub fn with_elicitation(mut self, url: bool) -> Self {
        self.elicitation =
            Some(ElicitationCapability { form: Some(JsonObject::new()), url: url.then(JsonObject::new) });
        self
    }

    /// Declares support for the extension `id` (revision 2026-07-28), such as
    /// [`SKILLS_EXTENSION`](crate::model::skills::SKILLS_EXTENSION), with its settings.
    pub fn with_extension(mut self, id: impl Into<String>, settings: JsonObject) -> Self {
        self.extensions.get_or_insert_with(JsonObject::new).insert(id.into(), Value::Object(settings));
        self
    }

    /// Sets the experimental, non-standard capabilities, keyed by name.
    pub fn with_experimental(mut self, experimental: JsonObject) -> Self {
        self.experimental = Some(experimental);
        self
    }

    /// Declares support for task-augmented requests.
    pub fn with_tasks(mut self, tasks: ClientTasksCapability) -> Self {
        self.tasks = Some(tasks);
        self
    }
}

/// The server's `resources` capability.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Whether the server supports `resources/subscribe`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether the server emits `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The server's task support for `tools/*` requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsTasksCapability {
    /// Present if `tools/call` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<JsonObject>,
}

impl ToolsTasksCapability {
    /// Declares that `tools/call` may be task-augmented.
    pub fn with_call(mut self, call: JsonObject) -> Self {
        self.call = Some(call);
        self
    }
}

/// The request types a server accepts as tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerTaskRequestsCapability {
    /// Task support for tool requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsTasksCapability>,
}

impl ServerTaskRequestsCapability {
    /// Sets the task support for tool requests.
    pub fn with_tools(mut self, tools: ToolsTasksCapability) -> Self {
        self.tools = Some(tools);
        self
    }
}

/// The server's `tasks` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerTasksCapability {
    /// Present if the server supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// Present if the server supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// The request types the server accepts as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequestsCapability>,
}

impl ServerTasksCapability {
    /// Declares support for `tasks/list`.
    pub fn with_list(mut self, list: JsonObject) -> Self {
        self.list = Some(list);
        self
    }

    /// Declares support for `tasks/cancel`.
    pub fn with_cancel(mut self, cancel: JsonObject) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// Sets the request types the server accepts as tasks.
    pub fn with_requests(mut self, requests: ServerTaskRequestsCapability) -> Self {
        self.requests = Some(requests);
        self
    }
}

/// Capabilities a server may support.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Experimental, non-standard capabilities, keyed by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Present if the server sends log messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// Present if the server supports argument completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Present if the server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// Present if the server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Present if the server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Present if the server supports task-augmented requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
    /// The extensions the server supports (revision 2026-07-28), keyed by identifier such as
    /// [`TASKS_EXTENSION`](crate::model::TASKS_EXTENSION), with their settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

impl ServerCapabilities {
    /// Declares the `tools` capability.
    pub fn with_tools(mut self, list_changed: bool) -> Self {
        self.tools = Some(ListChangedCapability { list_changed: Some(list_changed) });
        self
    }

    /// Declares the `prompts` capability.
    pub fn with_prompts(mut self, list_changed: bool) -> Self {
        self.prompts = Some(ListChangedCapability { list_changed: Some(list_changed) });
        self
    }

    /// Declares the `resources` capability.
    pub fn with_resources(mut self, subscribe: bool, list_changed: bool) -> Self {
        self.resources = Some(ResourcesCapability { subscribe: Some(subscribe), list_changed: Some(list_changed) });
        self
    }

    /// Declares the `logging` capability.
    pub fn with_logging(mut self) -> Self {
        self.logging = Some(JsonObject::new());
        self
    }

    /// Declares the `completions` capability.
    pub fn with_completions(mut self) -> Self {
        self.completions = Some(JsonObject::new());
        self
    }

    /// Sets the experimental, non-standard capabilities, keyed by name.
    pub fn with_experimental(mut self, experimental: JsonObject) -> Self {
        self.experimental = Some(experimental);
        self
    }

    /// Declares support for task-augmented requests.
    pub fn with_tasks(mut self, tasks: ServerTasksCapability) -> Self {
        self.tasks = Some(tasks);
        self
    }
}
