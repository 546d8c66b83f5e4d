//! Argument completion: `completion/complete`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::common::{Meta, ProgressToken, progress_token};

/// A reference to a prompt, for completion.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptReference {
    /// The name of the prompt.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl PromptReference {
    /// Creates a reference to the prompt named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), title: None }
    }

    /// Sets the human-readable display name.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// A reference to a resource or resource template, for completion.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplateReference {
    /// The URI or URI template of the resource.
    pub uri: String,
}

impl ResourceTemplateReference {
    /// Creates a reference to the resource or resource template at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self { uri: uri.into() }
    }
}

/// The object whose argument is being completed, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// A `ref/prompt` reference.
    #[serde(rename = "ref/prompt")]
    Prompt(PromptReference),
    /// A `ref/resource` reference.
    #[serde(rename = "ref/resource")]
    Resource(ResourceTemplateReference),
}

/// The argument being completed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompletionArgument {
    /// The name of the argument.
    pub name: String,
    /// The partial value typed so far.
    pub value: String,
}

impl CompletionArgument {
    /// Creates the argument `name` with the partial value typed so far.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self { name: name.into(), value: value.into() }
    }
}

/// Additional context for a completion request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompletionContext {
    /// Arguments already resolved for the same prompt or template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<IndexMap<String, String>>,
}

impl CompletionContext {
    /// Sets the arguments already resolved for the same prompt or template.
    pub fn with_arguments(mut self, arguments: IndexMap<String, String>) -> Self {
        self.arguments = Some(arguments);
        self
    }
}

/// The params of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteRequestParams {
    /// The prompt or resource whose argument is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument being completed.
    pub argument: CompletionArgument,
    /// Additional context, such as already-resolved arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CompleteRequestParams {
    /// Returns the progress token carried in `_meta`, if any.
    pub fn progress_token(&self) -> Option<ProgressToken> {
        progress_token(self.meta.as_ref())
    }

    /// Creates params completing `argument` of the prompt or resource `reference`.
    pub fn new(reference: CompletionReference, argument: CompletionArgument) -> Self {
        Self { reference, argument, context: None, meta: None }
    }

    /// Sets the additional context, such as already-resolved arguments.
    pub fn with_context(mut self, context: CompletionContext) -> Self {
        self.context = Some(context);
        self
    }

    /// Sets the request metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The completion values offered for an argument.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// The suggested values (at most 100), ranked by relevance.
    pub values: Vec<String>,
    /// The total number of options available, which may exceed `values.len()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more options exist beyond those returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// Creates completion values as given, without a total or a `hasMore` flag.
    pub fn new(values: Vec<String>) -> Self {
        Self { values, total: None, has_more: None }
    }
}

/// The result of `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteResult {
    /// The completion values.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CompleteResult {
    /// Creates a result from a list of values, truncated to the allowed 100 entries.
    pub fn new(mut values: Vec<String>) -> Self {
        let total = values.len();
        let has_more = total > 100;
        values.truncate(100);
        Self { completion: Completion { values, total: Some(total as u64), has_more: Some(has_more) }, meta: None }
    }

    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}
