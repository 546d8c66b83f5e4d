//! Tools: definitions, `tools/list` and `tools/call`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::{Cursor, Icon, JsonObject, Meta, ProgressToken, progress_token};
use super::content::ContentBlock;
use super::tasks::TaskMetadata;

/// Hints describing a tool's behaviour; untrusted unless the server is trusted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A human-readable title for the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Whether the tool does not modify its environment (default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// Whether the tool may perform destructive updates (default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Whether repeated calls with the same arguments have no extra effect (default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// Whether the tool interacts with an open world of external entities (default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// Sets the human-readable title of the tool.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets whether the tool does not modify its environment.
    pub fn with_read_only_hint(mut self, read_only_hint: bool) -> Self {
        self.read_only_hint = Some(read_only_hint);
        self
    }

    /// Sets whether the tool may perform destructive updates.
    pub fn with_destructive_hint(mut self, destructive_hint: bool) -> Self {
        self.destructive_hint = Some(destructive_hint);
        self
    }

    /// Sets whether repeated calls with the same arguments have no extra effect.
    pub fn with_idempotent_hint(mut self, idempotent_hint: bool) -> Self {
        self.idempotent_hint = Some(idempotent_hint);
        self
    }

    /// Sets whether the tool interacts with an open world of external entities.
    pub fn with_open_world_hint(mut self, open_world_hint: bool) -> Self {
        self.open_world_hint = Some(open_world_hint);
        self
    }
}

/// Whether a tool may, must or must not be called as a task.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// The tool must not be task-augmented (the default).
    #[default]
    Forbidden,
    /// The tool may be task-augmented.
    Optional,
    /// The tool must be task-augmented.
    Required,
}

/// Execution-related properties of a tool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolExecution {
    /// Whether the tool supports task augmentation; absent means forbidden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
}

impl ToolExecution {
    /// Sets whether the tool supports task augmentation.
    pub fn with_task_support(mut self, task_support: TaskSupport) -> Self {
        self.task_support = Some(task_support);
        self
    }
}

/// The definition of a tool the client can call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// The programmatic name of the tool.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description of the tool, used as a hint to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons representing the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// The JSON Schema (with `"type": "object"`) of the tool's arguments, kept raw.
    pub input_schema: JsonObject,
    /// The JSON Schema of the tool's `structuredContent`, kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behavioural hints about the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Execution-related properties of the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Tool metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The longest tool name allowed, in characters.
pub const MAX_TOOL_NAME_LENGTH: usize = 128;

/// Returns whether `name` follows the tool-name guidance of MCP 2025-11-25: 1 to
/// [`MAX_TOOL_NAME_LENGTH`] characters, each an ASCII letter or digit, `_`, `-` or `.`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=MAX_TOOL_NAME_LENGTH).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Returns the recommended input schema of a tool without arguments.
pub fn empty_object_schema() -> JsonObject {
    let mut schema = JsonObject::new();
    schema.insert("type".to_owned(), Value::from("object"));
    schema.insert("additionalProperties".to_owned(), Value::Bool(false));
    schema
}

impl Tool {
    /// Creates a tool from its name, description and raw input JSON Schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: JsonObject) -> Self {
        Self { name: name.into(), description: Some(description.into()), input_schema, ..Self::default() }
    }

    /// Creates a tool that takes no arguments.
    pub fn without_arguments(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self::new(name, description, empty_object_schema())
    }

    /// Sets the human-readable title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the output JSON Schema.
    pub fn with_output_schema(mut self, output_schema: JsonObject) -> Self {
        self.output_schema = Some(output_schema);
        self
    }

    /// Sets the behavioural annotations.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets whether the tool may be called as a task.
    pub fn with_task_support(mut self, task_support: TaskSupport) -> Self {
        self.execution = Some(ToolExecution { task_support: Some(task_support) });
        self
    }

    /// Adds an icon.
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Sets the tool metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The result of `tools/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult {
    /// The tools of this page.
    pub tools: Vec<Tool>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListToolsResult {
    /// Creates a page holding the given tools, with no next cursor.
    pub fn new(tools: Vec<Tool>) -> Self {
        Self { tools, next_cursor: None, meta: None }
    }

    /// Sets the cursor of the next page.
    pub fn with_next_cursor(mut self, next_cursor: impl Into<String>) -> Self {
        self.next_cursor = Some(next_cursor.into());
        self
    }

    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The params of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolRequestParams {
    /// The name of the tool to call.
    pub name: String,
    /// The tool arguments, as a raw JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Asks the server to run the call as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolRequestParams {
    /// Creates params calling `name` with the given arguments.
    pub fn new(name: impl Into<String>, arguments: JsonObject) -> Self {
        Self { name: name.into(), arguments: Some(arguments), ..Self::default() }
    }

    /// Returns the progress token carried in `_meta`, if any.
    pub fn progress_token(&self) -> Option<ProgressToken> {
        progress_token(self.meta.as_ref())
    }

    /// Asks the server to run the call as a task.
    pub fn with_task(mut self, task: TaskMetadata) -> Self {
        self.task = Some(task);
        self
    }

    /// Sets the request metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The result of a (non-task) `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// The unstructured result; may be empty.
    pub content: Vec<ContentBlock>,
    /// The structured result, conforming to the tool's output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<JsonObject>,
    /// Whether the call ended in a tool execution error; absent means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolResult {
    /// Creates a successful result holding the given content blocks.
    pub fn success(content: Vec<ContentBlock>) -> Self {
        Self { content, ..Self::default() }
    }

    /// Creates a successful result holding one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::success(vec![ContentBlock::text(text)])
    }

    /// Creates a tool execution error (`isError: true`) with an explanatory text block.
    pub fn error(message: impl Into<String>) -> Self {
        Self { content: vec![ContentBlock::text(message)], is_error: Some(true), ..Self::default() }
    }

    /// Creates a structured result, also serializing it into a text block for older clients.
    pub fn structured(value: JsonObject) -> Self {
        let text = Value::Object(value.clone()).to_string();
        Self { content: vec![ContentBlock::text(text)], structured_content: Some(value), ..Self::default() }
    }

    /// Returns whether this result reports a tool execution error.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }

    /// Sets the structured result, conforming to the tool's output schema.
    pub fn with_structured_content(mut self, structured_content: JsonObject) -> Self {
        self.structured_content = Some(structured_content);
        self
    }

    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}
