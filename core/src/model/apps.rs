//! MCP Apps (`io.modelcontextprotocol/ui`, stable 2026-01-26): interactive HTML views a server
//! serves as `ui://` resources and binds to tools through `_meta.ui`, which a host renders in a
//! sandboxed iframe.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ClientCapabilities, JsonObject, ReadResourceResult, ResourceContents, Tool};

/// The identifier of the MCP Apps extension, under which clients declare it.
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML view.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme every app view uses.
pub const APP_URI_SCHEME: &str = "ui://";

/// The flat `_meta` key older hosts read a tool's view from (deprecated by the extension, kept
/// beside `_meta.ui.resourceUri` for them).
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// The origins a view may reach, which the host turns into its Content Security Policy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AppCsp {
    /// Origins for fetch, XHR and WebSocket (`connect-src`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_domains: Option<Vec<String>>,
    /// Origins for scripts, images, styles, fonts and media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_domains: Option<Vec<String>>,
    /// Origins for nested iframes (`frame-src`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_domains: Option<Vec<String>>,
    /// Allowed base URIs (`base-uri`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_uri_domains: Option<Vec<String>>,
}

/// The browser features a view asks for; hosts may grant them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AppPermissions {
    /// The camera.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<JsonObject>,
    /// The microphone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<JsonObject>,
    /// The user's location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<JsonObject>,
    /// Writing to the clipboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<JsonObject>,
}

/// How a view is to be rendered: its `_meta.ui`, on the resource and on its contents.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AppViewMeta {
    /// The origins the view may reach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<AppCsp>,
    /// The browser features the view asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<AppPermissions>,
    /// A dedicated origin for the view, in the host's format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host draws a border and background around the view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// Who may call a tool bound to a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The model: the host lists the tool to it.
    Model,
    /// The view, through the host, on the same server only.
    App,
}

/// A tool's binding to a view: its `_meta.ui`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AppToolMeta {
    /// The `ui://` resource that renders the tool's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call the tool; both the model and the view when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl AppToolMeta {
    /// Binds a tool to the view at `resource_uri`, callable by the model and the view.
    pub fn new(resource_uri: impl Into<String>) -> Self {
        AppToolMeta { resource_uri: Some(resource_uri.into()), visibility: None }
    }

    /// Sets who may call the tool.
    pub fn with_visibility(mut self, visibility: impl IntoIterator<Item = Visibility>) -> Self {
        self.visibility = Some(visibility.into_iter().collect());
        self
    }

    /// Reads a tool's binding from its `_meta.ui`, or from the deprecated flat
    /// `_meta["ui/resourceUri"]`; `None` for a tool without a view.
    pub fn of(tool: &Tool) -> Option<AppToolMeta> {
        let meta = tool.meta.as_ref()?;
        let mut ui: AppToolMeta =
            meta.get("ui").and_then(|ui| serde_json::from_value(ui.clone()).ok()).unwrap_or_default();
        if ui.resource_uri.is_none() {
            ui.resource_uri = meta.get(LEGACY_RESOURCE_URI_KEY).and_then(Value::as_str).map(str::to_owned);
        }
        (ui.resource_uri.is_some() || ui.visibility.is_some()).then_some(ui)
    }

    /// Returns whether `who` may call the tool.
    pub fn allows(&self, who: Visibility) -> bool {
        self.visibility.as_ref().is_none_or(|v| v.contains(&who))
    }

    /// Writes this binding into `tool`'s `_meta`, under `ui` and, for older hosts, the flat key.
    pub fn apply(&self, tool: &mut Tool) {
        let meta = tool.meta.get_or_insert_with(Default::default);
        meta.insert("ui".to_owned(), serde_json::to_value(self).unwrap_or(Value::Null));
        match &self.resource_uri {
            Some(uri) => meta.insert(LEGACY_RESOURCE_URI_KEY.to_owned(), Value::String(uri.clone())),
            None => meta.remove(LEGACY_RESOURCE_URI_KEY),
        };
    }
}

/// Returns whether a tool may be shown to the model: it has no view binding, or its visibility
/// includes the model.
pub fn visible_to_model(tool: &Tool) -> bool {
    AppToolMeta::of(tool).is_none_or(|ui| ui.allows(Visibility::Model))
}

/// The settings a client declares the extension with: the MIME types it renders.
pub fn client_settings() -> JsonObject {
    let mut settings = JsonObject::new();
    settings.insert("mimeTypes".to_owned(), Value::Array(vec![Value::String(APP_MIME_TYPE.to_owned())]));
    settings
}

/// Returns whether a client declared the extension and renders HTML views (a declaration
/// without `mimeTypes` counts as HTML).
pub fn client_supports_apps(capabilities: &ClientCapabilities) -> bool {
    let Some(settings) = capabilities.extensions.as_ref().and_then(|e| e.get(APPS_EXTENSION)) else { return false };
    match settings.get("mimeTypes").and_then(Value::as_array) {
        Some(types) => types.iter().any(|t| t.as_str() == Some(APP_MIME_TYPE)),
        None => true,
    }
}

/// A view as a host reads it: its HTML and how to render it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AppView {
    /// The view's `ui://` URI.
    pub uri: String,
    /// The HTML document.
    pub html: String,
    /// How to render it (CSP, permissions, domain, border), from the contents' `_meta.ui`.
    pub meta: AppViewMeta,
}

impl AppView {
    /// Finds the view at `uri` in a `resources/read` result, checking its MIME type and decoding
    /// a base64 `blob`; an error message when the result holds no HTML view.
    pub fn from_read(uri: &str, result: &ReadResourceResult) -> Result<AppView, String> {
        let value = |contents: &ResourceContents| serde_json::to_value(contents).unwrap_or(Value::Null);
        let contents: Vec<Value> = result.contents.iter().map(value).collect();
        let found = contents
            .iter()
            .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri))
            .or_else(|| contents.first())
            .ok_or_else(|| format!("{uri} has no contents"))?;
        let mime = found.get("mimeType").and_then(Value::as_str).unwrap_or_default();
        if mime != APP_MIME_TYPE {
            return Err(format!("{uri} is not an app view: its MIME type is {mime:?}, not {APP_MIME_TYPE}"));
        }
        let html = match (found.get("text").and_then(Value::as_str), found.get("blob").and_then(Value::as_str)) {
            (Some(text), _) => text.to_owned(),
            (None, Some(blob)) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .map_err(|e| format!("{uri}'s blob is not base64: {e}"))?;
                String::from_utf8(bytes).map_err(|_| format!("{uri}'s HTML is not UTF-8"))?
            }
            (None, None) => return Err(format!("{uri} has neither text nor blob")),
        };
        let meta = found
            .pointer("/_meta/ui")
            .map(|ui| serde_json::from_value(ui.clone()).map_err(|e| format!("{uri}'s _meta.ui is malformed: {e}")))
            .transpose()?
            .unwrap_or_default();
        Ok(AppView { uri: uri.to_owned(), html, meta })
    }
}
