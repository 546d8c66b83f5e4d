//! Content blocks used in tool results, prompt messages and sampling messages.

use serde::{Deserialize, Serialize};

use super::common::{Annotations, Icon, JsonObject, Meta};
use super::resources::ResourceContents;

/// Text provided to or from a language model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextContent {
    /// The text content.
    pub text: String,
    /// Optional display and usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TextContent {
    /// Creates a text content block.
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into(), ..Self::default() }
    }

    /// Sets the display and usage hints.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets the content metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// An image provided to or from a language model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImageContent {
    /// The base64-encoded image data.
    pub data: String,
    /// The MIME type of the image, such as `image/png`.
    pub mime_type: String,
    /// Optional display and usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ImageContent {
    /// Creates an image from base64 data and its MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self { data: data.into(), mime_type: mime_type.into(), ..Self::default() }
    }

    /// Sets the display and usage hints.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets the content metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// Audio provided to or from a language model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AudioContent {
    /// The base64-encoded audio data.
    pub data: String,
    /// The MIME type of the audio, such as `audio/wav`.
    pub mime_type: String,
    /// Optional display and usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl AudioContent {
    /// Creates audio from base64 data and its MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self { data: data.into(), mime_type: mime_type.into(), ..Self::default() }
    }

    /// Sets the display and usage hints.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets the content metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// A link to a resource the server can read, included in a prompt or tool result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceLink {
    /// The URI of the resource.
    pub uri: String,
    /// The programmatic name of the resource.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description of what the resource represents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of the resource, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size of the raw content in bytes (before base64 encoding), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons representing the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Optional display and usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceLink {
    /// Creates a link to the resource at `uri` with the given name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self { uri: uri.into(), name: name.into(), ..Self::default() }
    }

    /// Sets the human-readable display name.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description of what the resource represents.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type of the resource.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the size of the raw content in bytes (before base64 encoding).
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// Adds an icon.
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Sets the display and usage hints.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets the content metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The contents of a resource embedded into a prompt or tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The embedded text or blob contents.
    pub resource: ResourceContents,
    /// Optional display and usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl EmbeddedResource {
    /// Creates an embedded resource holding the given contents.
    pub fn new(resource: ResourceContents) -> Self {
        Self { resource, annotations: None, meta: None }
    }

    /// Sets the display and usage hints.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets the content metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// A content block of a tool result, prompt message or tool-result block, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ContentBlock {
    /// A `text` block.
    #[serde(rename = "text")]
    Text(TextContent),
    /// An `image` block.
    #[serde(rename = "image")]
    Image(ImageContent),
    /// An `audio` block.
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// A `resource_link` block.
    #[serde(rename = "resource_link")]
    ResourceLink(ResourceLink),
    /// A `resource` block embedding resource contents.
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// Creates a `text` block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// Creates an `image` block from base64 data and its MIME type.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// Creates an `audio` block from base64 data and its MIME type.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// Creates a `resource_link` block pointing at `uri`.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentBlock::ResourceLink(ResourceLink { uri: uri.into(), name: name.into(), ..ResourceLink::default() })
    }

    /// Creates a `resource` block embedding the given contents.
    pub fn embedded(resource: ResourceContents) -> Self {
        ContentBlock::Resource(EmbeddedResource { resource, annotations: None, meta: None })
    }

    /// Returns the text of a `text` block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl From<TextContent> for ContentBlock {
    fn from(value: TextContent) -> Self {
        ContentBlock::Text(value)
    }
}

impl From<ImageContent> for ContentBlock {
    fn from(value: ImageContent) -> Self {
        ContentBlock::Image(value)
    }
}

impl From<AudioContent> for ContentBlock {
    fn from(value: AudioContent) -> Self {
        ContentBlock::Audio(value)
    }
}

impl From<ResourceLink> for ContentBlock {
    fn from(value: ResourceLink) -> Self {
        ContentBlock::ResourceLink(value)
    }
}

impl From<EmbeddedResource> for ContentBlock {
    fn from(value: EmbeddedResource) -> Self {
        ContentBlock::Resource(value)
    }
}

/// A request from the model to call a tool, inside a sampling message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolUseContent {
    /// The identifier of this tool use, matched by a later `toolUseId`.
    pub id: String,
    /// The name of the tool to call.
    pub name: String,
    /// The tool arguments, as a raw JSON object.
    pub input: JsonObject,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ToolUseContent {
    /// Creates a tool use with its identifier, the tool's name and the arguments.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: JsonObject) -> Self {
        Self { id: id.into(), name: name.into(), input, meta: None }
    }

    /// Sets the content metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The result of a tool use, sent back to the model in a sampling message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResultContent {
    /// The `id` of the tool use this result answers.
    pub tool_use_id: String,
    /// The unstructured result of the tool call.
    pub content: Vec<ContentBlock>,
    /// The structured result of the tool call, as a raw JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<JsonObject>,
    /// Whether the tool call ended in an error; absent means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ToolResultContent {
    /// Creates the result of the tool use `tool_use_id` holding the given content blocks.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<ContentBlock>) -> Self {
        Self { tool_use_id: tool_use_id.into(), content, ..Self::default() }
    }

    /// Sets the structured result of the tool call.
    pub fn with_structured_content(mut self, structured_content: JsonObject) -> Self {
        self.structured_content = Some(structured_content);
        self
    }

    /// Sets whether the tool call ended in an error.
    pub fn with_is_error(mut self, is_error: bool) -> Self {
        self.is_error = Some(is_error);
        self
    }

    /// Sets the content metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// A content block of a sampling message, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SamplingMessageContentBlock {
    /// A `text` block.
    #[serde(rename = "text")]
    Text(TextContent),
    /// An `image` block.
    #[serde(rename = "image")]
    Image(ImageContent),
    /// An `audio` block.
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// A `tool_use` block.
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseContent),
    /// A `tool_result` block.
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultContent),
}

impl SamplingMessageContentBlock {
    /// Creates a `text` block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingMessageContentBlock::Text(TextContent::new(text))
    }
}

/// The content of a sampling message: a single block or an array of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// A single content block.
    Single(SamplingMessageContentBlock),
    /// Several content blocks.
    Multiple(Vec<SamplingMessageContentBlock>),
}

impl SamplingContent {
    /// Returns the blocks as a slice, whichever form was used on the wire.
    pub fn blocks(&self) -> &[SamplingMessageContentBlock] {
        match self {
            SamplingContent::Single(block) => std::slice::from_ref(block),
            SamplingContent::Multiple(blocks) => blocks,
        }
    }
}

impl From<SamplingMessageContentBlock> for SamplingContent {
    fn from(value: SamplingMessageContentBlock) -> Self {
        SamplingContent::Single(value)
    }
}

impl From<Vec<SamplingMessageContentBlock>> for SamplingContent {
    fn from(value: Vec<SamplingMessageContentBlock>) -> Self {
        SamplingContent::Multiple(value)
    }
}
