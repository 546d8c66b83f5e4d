//! `subscriptions/listen` (revision 2026-07-28): long-lived streams of the notifications a
//! client opts in to, in place of 2025-11-25's GET stream and `resources/subscribe`.
//!
//! Each open stream is a [`Listener`] with its filter and a bounded queue. The server publishes
//! every list change and resource update to all listeners; each takes only what its filter
//! asked for, and the request that opened it forwards them, tagged with its subscription id,
//! until the client goes away.

use std::sync::Mutex;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::{
    jsonrpc::ErrorData,
    model::{ServerCapabilities, methods},
    sync::lock,
};

/// How many notifications wait for one listener before later ones are dropped. A listener that
/// falls this far behind only loses list-changed or updated signals, which say "read again".
const QUEUE: usize = 64;

/// How many `subscriptions/listen` streams a server keeps open at once.
pub(crate) const MAX_LISTENERS: usize = 4096;

/// What one stream asked for (its `notifications` field).
#[derive(Clone, Debug, Default)]
pub(crate) struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
}

impl Filter {
    /// Reads the filter of a `subscriptions/listen` request, refusing more than `max_uris`
    /// resource subscriptions or URIs longer than `max_uri_length`.
    pub(crate) fn parse(params: Option<&Value>, max_uris: usize, max_uri_length: usize) -> Result<Filter, ErrorData> {
        let Some(wanted) = params.and_then(|p| p.get("notifications")) else {
            return Err(ErrorData::invalid_params("subscriptions/listen needs a notifications filter"));
        };
        let Value::Object(wanted) = wanted else {
            return Err(ErrorData::invalid_params("notifications must be an object"));
        };
        let flag = |name: &str| -> Result<bool, ErrorData> {
            match wanted.get(name) {
                None | Some(Value::Null) => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => Err(ErrorData::invalid_params(format!("notifications.{name} must be a boolean"))),
            }
        };
        let uris = match wanted.get("resourceSubscriptions") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                if items.len() > max_uris {
                    return Err(ErrorData::invalid_params(format!(
                        "a stream may subscribe to at most {max_uris} resources"
                    )));
                }
                let mut uris = Vec::with_capacity(items.len());
                for item in items {
                    match item.as_str() {
                        Some(uri) if uri.len() <= max_uri_length => uris.push(uri.to_owned()),
                        Some(_) => {
                            return Err(ErrorData::invalid_params(format!(
                                "a resource URI is longer than {max_uri_length} bytes"
                            )));
                        }
                        None => return Err(ErrorData::invalid_params("resourceSubscriptions must be strings")),
                    }
                }
                uris
            }
            Some(_) => return Err(ErrorData::invalid_params("resourceSubscriptions must be an array of URIs")),
        };
        Ok(Filter {
            tools: flag("toolsListChanged")?,
            prompts: flag("promptsListChanged")?,
            resources: flag("resourcesListChanged")?,
            uris,
        })
    }

    /// Keeps only what a server with `caps` can send.
    pub(crate) fn supported(mut self, caps: &ServerCapabilities) -> Filter {
        let listed = |c: Option<Option<bool>>| c.flatten() == Some(true);
        self.tools &= listed(caps.tools.as_ref().map(|t| t.list_changed));
        self.prompts &= listed(caps.prompts.as_ref().map(|p| p.list_changed));
        self.resources &= listed(caps.resources.as_ref().map(|r| r.list_changed));
        if !listed(caps.resources.as_ref().map(|r| r.subscribe)) {
            self.uris.clear();
        }
        self
    }

    /// The filter as the acknowledgement states it: only what the server agreed to send.
    pub(crate) fn to_json(&self) -> Value {
        let mut out = serde_json::Map::new();
        for (name, on) in [
            ("toolsListChanged", self.tools),
            ("promptsListChanged", self.prompts),
            ("resourcesListChanged", self.resources),
        ] {
            if on {
                out.insert(name.to_owned(), Value::Bool(true));
            }
        }
        if !self.uris.is_empty() {
            out.insert("resourceSubscriptions".to_owned(), json!(self.uris));
        }
        Value::Object(out)
    }

    fn wants(&self, method: &str, params: &Value) -> bool {
        match method {
            methods::NOTIFICATIONS_TOOLS_LIST_CHANGED => self.tools,
            methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED => self.prompts,
            methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED => self.resources,
            methods::NOTIFICATIONS_RESOURCES_UPDATED => {
                params.get("uri").and_then(Value::as_str).is_some_and(|uri| self.uris.iter().any(|u| u == uri))
            }
            _ => false,
        }
    }
}

/// One open stream: its filter and the queue its request drains.
struct Listener {
    filter: Filter,
    queue: mpsc::Sender<(String, Value)>,
}

/// The open `subscriptions/listen` streams of a server.
#[derive(Default)]
pub(crate) struct Listeners {
    open: Mutex<Vec<Listener>>,
}

impl Listeners {
    /// Opens a stream with `filter`, returning the queue of its notifications, or `None` when
    /// [`MAX_LISTENERS`] streams are open.
    pub(crate) fn open(&self, filter: Filter) -> Option<mpsc::Receiver<(String, Value)>> {
        let mut open = lock(&self.open);
        open.retain(|l| !l.queue.is_closed());
        if open.len() >= MAX_LISTENERS {
            return None;
        }
        let (queue, rx) = mpsc::channel(QUEUE);
        open.push(Listener { filter, queue });
        Some(rx)
    }

    /// Hands a notification to every stream whose filter asked for it.
    pub(crate) fn publish(&self, method: &str, params: Value) {
        let mut open = lock(&self.open);
        open.retain(|l| !l.queue.is_closed());
        let mut dropped = 0usize;
        for listener in open.iter().filter(|l| l.filter.wants(method, &params)) {
            if listener.queue.try_send((method.to_owned(), params.clone())).is_err() {
                dropped += 1;
            }
        }
        if dropped > 0 {
            tracing::debug!(method, streams = dropped, "subscriptions/listen streams are full; notification dropped");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ListChangedCapability, ResourcesCapability};

    #[test]
    fn streams_get_only_what_they_asked_for_and_the_server_offers() {
        let caps = ServerCapabilities {
            tools: Some(ListChangedCapability { list_changed: Some(true) }),
            resources: Some(ResourcesCapability { subscribe: Some(true), list_changed: Some(true) }),
            ..ServerCapabilities::default()
        };
        let params = json!({ "notifications": {
            "toolsListChanged": true, "promptsListChanged": true, "resourceSubscriptions": ["file:///a"] } });
        let filter = Filter::parse(Some(&params), 10, 100).unwrap().supported(&caps);
        assert_eq!(filter.to_json(), json!({ "toolsListChanged": true, "resourceSubscriptions": ["file:///a"] }));

        let listeners = Listeners::default();
        let mut rx = listeners.open(filter).unwrap();
        listeners.publish(methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED, json!({}));
        listeners.publish(methods::NOTIFICATIONS_RESOURCES_UPDATED, json!({ "uri": "file:///b" }));
        listeners.publish(methods::NOTIFICATIONS_RESOURCES_UPDATED, json!({ "uri": "file:///a" }));
        listeners.publish(methods::NOTIFICATIONS_TOOLS_LIST_CHANGED, json!({}));
        assert_eq!(rx.try_recv().unwrap().1, json!({ "uri": "file:///a" }));
        assert_eq!(rx.try_recv().unwrap().0, methods::NOTIFICATIONS_TOOLS_LIST_CHANGED);
        assert!(rx.try_recv().is_err());

        assert!(Filter::parse(Some(&json!({})), 10, 100).is_err());
        assert!(Filter::parse(Some(&json!({ "notifications": { "toolsListChanged": 1 } })), 10, 100).is_err());
    }
}
