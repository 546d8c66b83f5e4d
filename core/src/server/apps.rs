//! MCP Apps on the server: `ui://` views served as resources, the extension declared, and
//! clients without Apps spared what only a view can use.

use std::sync::{Arc, atomic::Ordering};

use serde_json::{Value, json};

use super::{Server, ServerBuilder, session::ServerSession};
use crate::{
    Error,
    model::{
        ClientCapabilities, ReadResourceResult, Resource,
        apps::{APP_MIME_TYPE, APP_URI_SCHEME, AppViewMeta, client_supports_apps},
        meta_keys,
    },
};

impl Server {
    /// Serves the HTML view of an app at `uri` (a `ui://` URI) as a resource of MIME type
    /// `text/html;profile=mcp-app`, with `meta` (CSP, permissions, domain, border) on the resource
    /// and on its contents; bind tools to it with [`AppToolMeta::apply`](crate::model::apps::AppToolMeta::apply). The server then
    /// declares the Apps extension. A URI of another scheme, or one already served, is
    /// [`Error::Config`].
    pub fn add_app_view(
        &self,
        uri: impl Into<String>,
        name: impl Into<String>,
        html: impl Into<String>,
        meta: AppViewMeta,
    ) -> Result<(), Error> {
        let uri = uri.into();
        if !uri.starts_with(APP_URI_SCHEME) || uri.len() == APP_URI_SCHEME.len() {
            return Err(Error::Config(format!("an app view's URI starts with {APP_URI_SCHEME}, unlike {uri:?}")));
        }
        let ui = serde_json::to_value(&meta)?;
        let mut resource = Resource::new(uri.clone(), name);
        resource.mime_type = Some(APP_MIME_TYPE.to_owned());
        resource.meta = Some([("ui".to_owned(), ui.clone())].into_iter().collect());
        let contents = json!({ "uri": uri, "mimeType": APP_MIME_TYPE, "text": html.into(), "_meta": { "ui": ui } });
        let result: ReadResourceResult = serde_json::from_value(json!({ "contents": [contents] }))?;
        self.add_resource(resource, move |_request, _context| {
            let result = result.clone();
            async move { Ok(result) }
        })?;
        self.inner.apps.store(true, Ordering::Relaxed);
        Ok(())
    }
}

impl ServerBuilder {
    /// Serves the HTML view of an app, as [`Server::add_app_view`] does.
    pub fn app_view(
        self,
        uri: impl Into<String>,
        name: impl Into<String>,
        html: impl Into<String>,
        meta: AppViewMeta,
    ) -> Self {
        let outcome = self.server.add_app_view(uri, name, html, meta);
        self.record(outcome)
    }
}

impl ServerSession {
    /// Whether this request's client renders app views: a session's from its `initialize`, a
    /// 2026-07-28 request's from its `_meta`. Always true when the server serves no view, so
    /// that nothing is filtered.
    pub(super) fn renders_apps(self: &Arc<Self>, params: Option<&Value>) -> bool {
        if !self.server.apps.load(Ordering::Relaxed) {
            return true;
        }
        if let Some(client) = self.client_params() {
            return client_supports_apps(&client.capabilities);
        }
        params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta_keys::CLIENT_CAPABILITIES))
            .and_then(|c| serde_json::from_value::<ClientCapabilities>(c.clone()).ok())
            .is_some_and(|c| client_supports_apps(&c))
    }
}

/// Whether a client without Apps sees `resource`: not when it is an app's view.
pub(super) fn resource_listed_without_apps(resource: &Resource) -> bool {
    resource.mime_type.as_deref() != Some(APP_MIME_TYPE)
}
