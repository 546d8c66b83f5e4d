//! Sampling: `sampling/createMessage` params and result.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::common::{JsonObject, Meta, ProgressToken, Role, progress_token};
use super::content::{SamplingContent, SamplingMessageContentBlock};
use super::tasks::TaskMetadata;
use super::tools::Tool;

/// A message in a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingMessage {
    /// The speaker of the message.
    pub role: Role,
    /// One content block or an array of them.
    pub content: SamplingContent,
    /// Message metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// Creates a user message holding one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self { role: Role::User, content: SamplingContent::Single(SamplingMessageContentBlock::text(text)), meta: None }
    }

    /// Creates an assistant message holding one text block.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: SamplingContent::Single(SamplingMessageContentBlock::text(text)),
            meta: None,
        }
    }

    /// Creates a message with the given speaker and content.
    pub fn new(role: Role, content: SamplingContent) -> Self {
        Self { role, content, meta: None }
    }

    /// Sets the message metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// A hint used for model selection; matched as a substring of model names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelHint {
    /// A (partial) model name, such as `claude-3-5-sonnet` or `sonnet`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ModelHint {
    /// Sets the (partial) model name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// The server's advisory preferences for model selection.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model name hints, evaluated in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much to prioritize low cost (0 to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much to prioritize low latency (0 to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much to prioritize capability (0 to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

impl ModelPreferences {
    /// Sets the model name hints, evaluated in order.
    pub fn with_hints(mut self, hints: Vec<ModelHint>) -> Self {
        self.hints = Some(hints);
        self
    }

    /// Sets how much to prioritize low cost (0 to 1).
    pub fn with_cost_priority(mut self, cost_priority: f64) -> Self {
        self.cost_priority = Some(cost_priority);
        self
    }

    /// Sets how much to prioritize low latency (0 to 1).
    pub fn with_speed_priority(mut self, speed_priority: f64) -> Self {
        self.speed_priority = Some(speed_priority);
        self
    }

    /// Sets how much to prioritize capability (0 to 1).
    pub fn with_intelligence_priority(mut self, intelligence_priority: f64) -> Self {
        self.intelligence_priority = Some(intelligence_priority);
        self
    }
}

/// Which MCP context the client should include in the sampling prompt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No context (the default).
    #[default]
    None,
    /// Context from the requesting server only (soft-deprecated).
    ThisServer,
    /// Context from all connected servers (soft-deprecated).
    AllServers,
}

/// How the model may use the offered tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides (the default).
    #[default]
    Auto,
    /// The model must use at least one tool.
    Required,
    /// The model must not use tools.
    None,
}

/// The tool choice of a sampling request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolChoice {
    /// How the model may use tools; absent means `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

impl ToolChoice {
    /// Sets how the model may use tools.
    pub fn with_mode(mut self, mode: ToolChoiceMode) -> Self {
        self.mode = Some(mode);
        self
    }
}

/// The params of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequestParams {
    /// The conversation to sample from.
    pub messages: Vec<SamplingMessage>,
    /// Advisory model preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// An optional system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which MCP context to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// The sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The maximum number of tokens to sample.
    pub max_tokens: u64,
    /// Sequences that stop sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata, kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may use (requires the client's `sampling.tools` capability).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use the tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Asks the client to run the request as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageRequestParams {
    /// Creates params sampling at most `max_tokens` from `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        Self {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
            task: None,
            meta: None,
        }
    }

    /// Returns the progress token carried in `_meta`, if any.
    pub fn progress_token(&self) -> Option<ProgressToken> {
        progress_token(self.meta.as_ref())
    }

    /// Sets the advisory model preferences.
    pub fn with_model_preferences(mut self, model_preferences: ModelPreferences) -> Self {
        self.model_preferences = Some(model_preferences);
        self
    }

    /// Sets the system prompt.
    pub fn with_system_prompt(mut self, system_prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(system_prompt.into());
        self
    }

    /// Sets which MCP context to include.
    pub fn with_include_context(mut self, include_context: IncludeContext) -> Self {
        self.include_context = Some(include_context);
        self
    }

    /// Sets the sampling temperature.
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets the sequences that stop sampling.
    pub fn with_stop_sequences(mut self, stop_sequences: Vec<String>) -> Self {
        self.stop_sequences = Some(stop_sequences);
        self
    }

    /// Sets the provider-specific metadata.
    pub fn with_metadata(mut self, metadata: JsonObject) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// Sets the tools the model may use.
    pub fn with_tools(mut self, tools: Vec<Tool>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Sets how the model may use the tools.
    pub fn with_tool_choice(mut self, tool_choice: ToolChoice) -> Self {
        self.tool_choice = Some(tool_choice);
        self
    }

    /// Asks the client to run the request as a task.
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

/// Why sampling stopped; unknown reasons are preserved verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// The model ended its turn (`endTurn`).
    EndTurn,
    /// A stop sequence was hit (`stopSequence`).
    StopSequence,
    /// The token limit was reached (`maxTokens`).
    MaxTokens,
    /// The model wants to use tools (`toolUse`).
    ToolUse,
    /// Any other, provider-specific reason.
    Other(String),
}

impl StopReason {
    /// Returns the wire string of the reason.
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "endTurn",
            StopReason::StopSequence => "stopSequence",
            StopReason::MaxTokens => "maxTokens",
            StopReason::ToolUse => "toolUse",
            StopReason::Other(s) => s,
        }
    }
}

impl From<String> for StopReason {
    fn from(value: String) -> Self {
        match value.as_str() {
            "endTurn" => StopReason::EndTurn,
            "stopSequence" => StopReason::StopSequence,
            "maxTokens" => StopReason::MaxTokens,
            "toolUse" => StopReason::ToolUse,
            _ => StopReason::Other(value),
        }
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(StopReason::from)
    }
}

/// The result of a (non-task) `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// The speaker of the sampled message (normally `assistant`).
    pub role: Role,
    /// One content block or an array of them.
    pub content: SamplingContent,
    /// The name of the model that produced the message.
    pub model: String,
    /// Why sampling stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageResult {
    /// Creates a result with the speaker, the sampled content and the name of the model.
    pub fn new(role: Role, content: SamplingContent, model: impl Into<String>) -> Self {
        Self { role, content, model: model.into(), stop_reason: None, meta: None }
    }

    /// Sets why sampling stopped.
    pub fn with_stop_reason(mut self, stop_reason: StopReason) -> Self {
        self.stop_reason = Some(stop_reason);
        self
    }

    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}
