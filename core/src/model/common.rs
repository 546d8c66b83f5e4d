//! Shared building blocks: `_meta`, progress tokens, cursors, icons, annotations,
//! implementation info and the generic params/result shapes.
//!
//! This module uses no other model module; the others build on it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A free-form JSON object, kept raw so that unknown keys round-trip.
pub type JsonObject = serde_json::Map<String, Value>;

/// The reserved `_meta` object that may be attached to params, results and many objects.
pub type Meta = serde_json::Map<String, Value>;

/// An opaque pagination cursor.
pub type Cursor = String;

/// The `_meta` key under which a requestor places its progress token.
pub const PROGRESS_TOKEN_META_KEY: &str = "progressToken";

/// A token correlating progress notifications with the request that asked for them.
///
/// The JSON type (string or integer) is preserved when the token is echoed back.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(String),
}

impl From<i64> for ProgressToken {
    fn from(value: i64) -> Self {
        ProgressToken::Number(value)
    }
}

impl From<String> for ProgressToken {
    fn from(value: String) -> Self {
        ProgressToken::String(value)
    }
}

impl From<&str> for ProgressToken {
    fn from(value: &str) -> Self {
        ProgressToken::String(value.to_owned())
    }
}

impl std::fmt::Display for ProgressToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProgressToken::Number(n) => write!(f, "{n}"),
            ProgressToken::String(s) => f.write_str(s),
        }
    }
}

/// Extracts the `progressToken` from a request's `_meta`, if present and well-formed.
pub fn progress_token(meta: Option<&Meta>) -> Option<ProgressToken> {
    meta?.get(PROGRESS_TOKEN_META_KEY).and_then(|v| ProgressToken::deserialize(v).ok())
}

/// Builds a `_meta` object holding only the given progress token.
pub fn meta_with_progress_token(token: impl Into<ProgressToken>) -> Meta {
    let mut meta = Meta::new();
    let value = match token.into() {
        ProgressToken::Number(n) => Value::from(n),
        ProgressToken::String(s) => Value::from(s),
    };
    meta.insert(PROGRESS_TOKEN_META_KEY.to_owned(), value);
    meta
}

/// The sender or recipient of messages and data in a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human user (or the client acting on their behalf).
    User,
    /// The language model.
    Assistant,
}

/// Optional hints telling the client how an object is meant to be used or displayed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// Who the object is intended for (`user`, `assistant` or both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most; effectively required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// The ISO 8601 timestamp of the last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl Annotations {
    /// Sets who the object is intended for.
    pub fn with_audience(mut self, audience: Vec<Role>) -> Self {
        self.audience = Some(audience);
        self
    }

    /// Sets the importance, from 0 (least) to 1 (most).
    pub fn with_priority(mut self, priority: f64) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Sets the ISO 8601 timestamp of the last modification.
    pub fn with_last_modified(mut self, last_modified: impl Into<String>) -> Self {
        self.last_modified = Some(last_modified.into());
        self
    }
}

/// The theme an icon is designed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// The icon is meant for a light background.
    Light,
    /// The icon is meant for a dark background.
    Dark,
}

/// An icon that a client may display for an implementation, tool, prompt or resource.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// An `https:` URL or a `data:` URI of the image.
    pub src: String,
    /// The MIME type of the image, overriding what the server says for `src`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The sizes this icon is available in, such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme this icon is designed for; absent means any theme.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

impl Icon {
    /// Creates an icon from its source URL with no further details.
    pub fn new(src: impl Into<String>) -> Self {
        Self { src: src.into(), ..Self::default() }
    }

    /// Sets the MIME type of the icon.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the sizes the icon is available in.
    pub fn with_sizes(mut self, sizes: Vec<String>) -> Self {
        self.sizes = Some(sizes);
        self
    }

    /// Sets the theme the icon is designed for.
    pub fn with_theme(mut self, theme: IconTheme) -> Self {
        self.theme = Some(theme);
        self
    }
}

/// The `icons` mixin shared by several objects.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icons {
    /// The icons offered, in any order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
}

impl Icons {
    /// Adds an icon.
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }
}

/// The programmatic `name` plus optional human-readable `title` shared by many objects.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BaseMetadata {
    /// The programmatic identifier, also the display fallback.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl BaseMetadata {
    /// Creates metadata with the given programmatic name and no title.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), title: None }
    }

    /// Sets the human-readable display name.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// The name and version of an MCP client or server implementation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    /// The programmatic name of the implementation.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The version string of the implementation.
    pub version: String,
    /// A human-readable description of the implementation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons representing the implementation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// The URL of the implementation's website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// Creates an implementation description from its name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self { name: name.into(), version: version.into(), ..Self::default() }
    }

    /// Sets the human-readable title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the website URL.
    pub fn with_website_url(mut self, url: impl Into<String>) -> Self {
        self.website_url = Some(url.into());
        self
    }

    /// Adds an icon.
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }
}

/// Params that only carry an optional `_meta` (e.g. `ping`, `roots/list`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RequestParams {
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl RequestParams {
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

/// Notification params that only carry an optional `_meta` (e.g. `notifications/initialized`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct NotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl NotificationParams {
    /// Sets the notification metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// Params of paginated list requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PaginatedRequestParams {
    /// The opaque cursor from a previous page's `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl PaginatedRequestParams {
    /// Creates params asking for the page after `cursor`.
    pub fn with_cursor(cursor: impl Into<Cursor>) -> Self {
        Self { cursor: Some(cursor.into()), meta: None }
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

/// The common shape of a paginated result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PaginatedResult {
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl PaginatedResult {
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

/// A result carrying no data beyond an optional `_meta` (`ping`, `logging/setLevel`, …).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmptyResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl EmptyResult {
    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}
