//! Resources: definitions, templates, contents and the `resources/*` messages.

use serde::{Deserialize, Serialize};

use super::common::{Annotations, Cursor, Icon, Meta, ProgressToken, progress_token};

/// A known resource the server can read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
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
    /// Optional display and usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// The size of the raw content in bytes (before base64 encoding), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons representing the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Resource metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Resource {
    /// Creates a resource from its URI and name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self { uri: uri.into(), name: name.into(), ..Self::default() }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the human-readable display name.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the display and usage hints.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
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

    /// Sets the resource metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// A template (RFC 6570) describing a family of resources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// The RFC 6570 URI template.
    pub uri_template: String,
    /// The programmatic name of the template.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description of what the template is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of all matching resources, if uniform.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Optional display and usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons representing the template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Template metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceTemplate {
    /// Creates a resource template from its URI template and name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self { uri_template: uri_template.into(), name: name.into(), ..Self::default() }
    }

    /// Sets the human-readable display name.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description of what the template is for.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type of all matching resources.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the display and usage hints.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Adds an icon.
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Sets the template metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The text contents of a resource.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextResourceContents {
    /// The URI of the resource.
    pub uri: String,
    /// The MIME type of the resource, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text of the resource.
    pub text: String,
    /// Contents metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TextResourceContents {
    /// Creates the text contents of the resource at `uri`.
    pub fn new(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self { uri: uri.into(), text: text.into(), ..Self::default() }
    }

    /// Sets the MIME type of the resource.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the contents metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The binary contents of a resource.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BlobResourceContents {
    /// The URI of the resource.
    pub uri: String,
    /// The MIME type of the resource, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The base64-encoded bytes of the resource.
    pub blob: String,
    /// Contents metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl BlobResourceContents {
    /// Creates the binary contents of the resource at `uri` from base64 data.
    pub fn new(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        Self { uri: uri.into(), blob: blob.into(), ..Self::default() }
    }

    /// Sets the MIME type of the resource.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the contents metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The contents of a resource: text or base64 blob (distinguished by the key present).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents (`text` key).
    Text(TextResourceContents),
    /// Binary contents (`blob` key).
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// Creates text contents for `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents::Text(TextResourceContents {
            uri: uri.into(),
            text: text.into(),
            ..TextResourceContents::default()
        })
    }

    /// Creates binary contents for `uri` from base64 data and its MIME type.
    pub fn blob(uri: impl Into<String>, blob: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ResourceContents::Blob(BlobResourceContents {
            uri: uri.into(),
            blob: blob.into(),
            mime_type: Some(mime_type.into()),
            meta: None,
        })
    }

    /// Sets the MIME type of the contents.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        let mime_type = Some(mime_type.into());
        match &mut self {
            ResourceContents::Text(t) => t.mime_type = mime_type,
            ResourceContents::Blob(b) => b.mime_type = mime_type,
        }
        self
    }

    /// Returns the URI of the contents.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text(t) => &t.uri,
            ResourceContents::Blob(b) => &b.uri,
        }
    }
}

/// The result of `resources/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourcesResult {
    /// The resources of this page.
    pub resources: Vec<Resource>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListResourcesResult {
    /// Creates a page holding the given resources, with no next cursor.
    pub fn new(resources: Vec<Resource>) -> Self {
        Self { resources, next_cursor: None, meta: None }
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

/// The result of `resources/templates/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourceTemplatesResult {
    /// The resource templates of this page.
    pub resource_templates: Vec<ResourceTemplate>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListResourceTemplatesResult {
    /// Creates a page holding the given resource templates, with no next cursor.
    pub fn new(resource_templates: Vec<ResourceTemplate>) -> Self {
        Self { resource_templates, next_cursor: None, meta: None }
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

/// Params naming one resource by URI (`resources/read`, `resources/subscribe`, …).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceRequestParams {
    /// The URI of the resource.
    pub uri: String,
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceRequestParams {
    /// Creates params naming `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self { uri: uri.into(), meta: None }
    }

    /// Returns the progress token carried in `_meta`, if any.
    pub fn progress_token(&self) -> Option<ProgressToken> {
        progress_token(self.meta.as_ref())
    }

    /// Sets the request metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The params of `resources/read`.
pub type ReadResourceRequestParams = ResourceRequestParams;
/// The params of `resources/subscribe`.
pub type SubscribeRequestParams = ResourceRequestParams;
/// The params of `resources/unsubscribe`.
pub type UnsubscribeRequestParams = ResourceRequestParams;

/// The result of `resources/read`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceResult {
    /// The contents of the resource (and possibly its sub-resources).
    pub contents: Vec<ResourceContents>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ReadResourceResult {
    /// Creates a result holding the given contents.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        Self { contents, meta: None }
    }

    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The params of `notifications/resources/updated`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceUpdatedNotificationParams {
    /// The URI of the updated resource (possibly a sub-resource of the subscribed one).
    pub uri: String,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceUpdatedNotificationParams {
    /// Creates params announcing that the resource at `uri` was updated.
    pub fn new(uri: impl Into<String>) -> Self {
        Self { uri: uri.into(), meta: None }
    }

    /// Sets the notification metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}
