//! `subscriptions/listen` (revision 2026-07-28) on the client side.
//!
//! A 2026-07-28 server sends notifications only on a stream the client opened for them, with a
//! filter of what it wants. [`Client::listen`] opens one and waits for the server's
//! acknowledgment; the notifications that come on it reach the [`ClientHandler`] as over any
//! other revision, and [`Subscription::next`] as well; dropping the [`Subscription`] ends it.
//! The client also keeps one stream of its own: [`Client::subscribe`] and
//! [`Client::unsubscribe`] reopen it with the resources subscribed to, and
//! [`ClientOptions::with_list_changed_notifications`] adds the list changes the server offers.
//!
//! [`ClientHandler`]: super::ClientHandler
//! [`ClientOptions::with_list_changed_notifications`]: super::ClientOptions::with_list_changed_notifications

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::{
    sync::{mpsc, oneshot},
    task::JoinHandle,
};
use tokio_util::sync::CancellationToken;

use super::Client;
use crate::{
    Error, RequestOptions,
    jsonrpc::{Notification, RequestId},
    model::{meta_keys, methods},
    sync::lock,
};

/// How long a `subscriptions/listen` stream may stay open: as long as the client wants it.
const STREAM_LIFETIME: Duration = Duration::from_secs(365 * 24 * 3600);

/// How many notifications of a stream wait for [`Subscription::next`]; while that many are
/// unread, later ones are not kept for it (they still reach the handler).
const UNREAD_LIMIT: usize = 256;

/// Where a stream's notifications go besides the handler: to its [`Subscription::next`], or
/// nowhere for the client's own stream.
type Tap = Option<mpsc::Sender<Notification>>;

/// Which notifications a `subscriptions/listen` stream asks for, or which the server agreed to
/// send.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tools_list_changed: bool,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prompts_list_changed: bool,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resources_list_changed: bool,
    /// `notifications/resources/updated` for these resource URIs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_subscriptions: Vec<String>,
}

impl SubscriptionFilter {
    /// Creates a filter that asks for nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks for changes of the tool list.
    pub fn with_tools_list_changed(mut self) -> Self {
        self.tools_list_changed = true;
        self
    }

    /// Asks for changes of the prompt list.
    pub fn with_prompts_list_changed(mut self) -> Self {
        self.prompts_list_changed = true;
        self
    }

    /// Asks for changes of the resource list.
    pub fn with_resources_list_changed(mut self) -> Self {
        self.resources_list_changed = true;
        self
    }

    /// Asks for updates of the resource at `uri`.
    pub fn with_resource(mut self, uri: impl Into<String>) -> Self {
        let uri = uri.into();
        if !self.resource_subscriptions.contains(&uri) {
            self.resource_subscriptions.push(uri);
        }
        self
    }

    /// Returns whether the filter asks for nothing.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

/// The client's `subscriptions/listen` streams, by subscription id: those waiting for their
/// acknowledgment, and those open, each with its tap. Notifications of a stream that is not
/// open (one that has just ended) are not delivered.
#[derive(Default)]
pub(super) struct Streams {
    waiting: Mutex<HashMap<String, (oneshot::Sender<SubscriptionFilter>, Tap)>>,
    open: Mutex<HashMap<String, Tap>>,
}

/// The key of a subscription id: its JSON text (the id of the `subscriptions/listen` request).
fn key_of(id: &Value) -> String {
    id.to_string()
}

/// The subscription id a notification carries, as a key.
fn subscription_of(params: Option<&Value>) -> Option<String> {
    params?.get("_meta")?.get(meta_keys::SUBSCRIPTION_ID).map(key_of)
}

impl Streams {
    /// Takes a `notifications/subscriptions/acknowledged`, returning whether a stream opened by
    /// this client was waiting for it (the stream is open from then on).
    pub(super) fn acknowledge(&self, params: Option<&Value>) -> bool {
        let Some(key) = subscription_of(params) else { return false };
        let Some((waiter, tap)) = lock(&self.waiting).remove(&key) else { return false };
        let agreed = params.and_then(|p| p.get("notifications")).cloned().unwrap_or(Value::Null);
        lock(&self.open).insert(key, tap);
        let _ = waiter.send(serde_json::from_value(agreed).unwrap_or_default());
        true
    }

    /// Returns whether a notification is to be delivered to the handler: one outside any
    /// stream is, one of a stream only while the stream is open, and then it is also handed to
    /// the stream's tap.
    pub(super) fn delivers(&self, notification: &Notification) -> bool {
        let Some(key) = subscription_of(notification.params.as_ref()) else { return true };
        let open = lock(&self.open);
        let Some(tap) = open.get(&key) else { return false };
        if let Some(tap) = tap
            && let Err(mpsc::error::TrySendError::Full(_)) = tap.try_send(notification.clone())
        {
            tracing::warn!(
                method = %notification.method,
                "{UNREAD_LIMIT} notifications of a subscription are unread: this one reaches the handler only"
            );
        }
        true
    }

    /// Forgets the stream `key`, whether it was waiting or open: its tap ends.
    fn forget(&self, key: &str) {
        lock(&self.waiting).remove(key);
        lock(&self.open).remove(key);
    }
}

/// An open `subscriptions/listen` stream. Dropping it (or [`Subscription::close`]) ends it.
#[derive(Debug)]
pub struct Subscription {
    acknowledged: SubscriptionFilter,
    cancel: CancellationToken,
    request: Option<JoinHandle<Result<Value, Error>>>,
    streams: Arc<Streams>,
    key: String,
    notifications: mpsc::Receiver<Notification>,
}

impl std::fmt::Debug for Streams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streams").field("open", &lock(&self.open).len()).finish_non_exhaustive()
    }
}

impl Subscription {
    /// Returns what the server agreed to send: the requested notifications it supports.
    pub fn acknowledged(&self) -> &SubscriptionFilter {
        &self.acknowledged
    }

    /// Waits for the next notification of this stream, in the order they came, and returns
    /// `None` once the stream ended (closed, ended by the server, or dropped with the
    /// connection). Each notification reaches the client's handler as well; while 256 are
    /// unread here, later ones reach only the handler.
    pub async fn next(&mut self) -> Option<Notification> {
        self.notifications.recv().await
    }

    /// Waits until the server ends the stream: `Ok` when it closed it gracefully (its
    /// `subscriptions/listen` result), an error when the connection dropped it.
    pub async fn ended(&mut self) -> Result<(), Error> {
        match self.request.take() {
            Some(request) => match request.await {
                Ok(outcome) => outcome.map(drop),
                Err(e) => Err(Error::Protocol(format!("the subscription's task failed: {e}"))),
            },
            None => Ok(()),
        }
    }

    /// Ends the stream and waits until the request is over.
    pub async fn close(mut self) {
        self.end();
        if let Some(request) = self.request.take() {
            let _ = request.await;
        }
    }
}

impl Subscription {
    /// Stops delivering the stream's notifications and cancels its request.
    fn end(&self) {
        self.streams.forget(&self.key);
        self.cancel.cancel();
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.end();
    }
}

/// The stream the client keeps for [`Client::subscribe`] and list changes.
#[derive(Debug, Default)]
pub(super) struct Managed {
    filter: SubscriptionFilter,
    stream: Option<Subscription>,
}

impl Client {
    /// Opens a `subscriptions/listen` stream for the notifications `filter` names and waits for
    /// the server's acknowledgment (within the client's request time-out). The notifications
    /// reach the client's handler and [`Subscription::next`]; the stream lasts until the
    /// [`Subscription`] is dropped.
    ///
    /// Only a server of revision 2026-07-28 has such streams: with an older one this fails with
    /// [`Error::CapabilityMissing`] (it sends its notifications without being asked, and
    /// resources are subscribed to with [`Client::subscribe`]).
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, Error> {
        self.open_stream(filter, true).await
    }

    /// Opens a stream as [`Client::listen`] does; `tapped` says whether its notifications also
    /// go to [`Subscription::next`] (the client's own stream has no reader).
    async fn open_stream(&self, filter: SubscriptionFilter, tapped: bool) -> Result<Subscription, Error> {
        if self.stateless.is_none() {
            return Err(Error::CapabilityMissing(format!(
                "{} (revision 2026-07-28; this server speaks {})",
                methods::SUBSCRIPTIONS_LISTEN,
                self.protocol_version()
            )));
        }
        let (tx, rx) = oneshot::channel();
        let (tap, notifications) = mpsc::channel(UNREAD_LIMIT);
        let sender = Mutex::new(Some((tx, tapped.then_some(tap))));
        let opened: Arc<Mutex<Option<String>>> = Arc::default();
        let acks = self.streams.clone();
        let opened_id = opened.clone();
        let on_id = move |id: &RequestId| {
            let key = key_of(&serde_json::to_value(id).unwrap_or(Value::Null));
            if let Some(waiter) = lock(&sender).take() {
                lock(&acks.waiting).insert(key.clone(), waiter);
                *lock(&opened_id) = Some(key);
            }
        };
        let cancel = CancellationToken::new();
        let mut options = RequestOptions::new().with_timeout(STREAM_LIFETIME).with_cancel(cancel.clone());
        options.on_id = Some(Arc::new(on_id));
        let params = serde_json::json!({ "notifications": filter });
        // The request holds the connection, not the client's own stream (no cycle through it).
        let client = Client { managed: Arc::default(), ..self.clone() };
        let (streams, stream_key) = (self.streams.clone(), opened.clone());
        let mut request = tokio::spawn(async move {
            let outcome = client.send(methods::SUBSCRIPTIONS_LISTEN, Some(params), options).await;
            // A stream the server or the connection ended has no more notifications to tap.
            if let Some(key) = lock(&stream_key).clone() {
                streams.forget(&key);
            }
            outcome
        });
        let outcome = tokio::select! {
            agreed = rx => agreed.map_err(|_| Error::Protocol("the subscription was never acknowledged".into())),
            ended = &mut request => Err(match ended {
                Ok(Err(e)) => e,
                _ => Error::Protocol("the server ended the subscription before acknowledging it".into()),
            }),
            _ = tokio::time::sleep(self.request_timeout) => Err(Error::Timeout(self.request_timeout)),
        };
        match outcome {
            Ok(acknowledged) => {
                let key = lock(&opened).clone().unwrap_or_default();
                let streams = self.streams.clone();
                Ok(Subscription { acknowledged, cancel, request: Some(request), streams, key, notifications })
            }
            Err(e) => {
                cancel.cancel();
                if let Some(key) = lock(&opened).clone() {
                    self.streams.forget(&key);
                }
                Err(e)
            }
        }
    }

    /// Reopens the client's own stream with the filter `change` makes, unless it stays the
    /// same; the old stream ends once the new one is acknowledged. Returns what the server
    /// agreed to.
    pub(super) async fn update_managed(
        &self,
        change: impl FnOnce(&mut SubscriptionFilter),
    ) -> Result<SubscriptionFilter, Error> {
        let mut managed = self.managed.lock().await;
        let mut filter = managed.filter.clone();
        change(&mut filter);
        if let Some(stream) = &managed.stream
            && filter == managed.filter
        {
            return Ok(stream.acknowledged.clone());
        }
        let stream = if filter.is_empty() { None } else { Some(self.open_stream(filter.clone(), false).await?) };
        let agreed = stream.as_ref().map(|s| s.acknowledged.clone()).unwrap_or_default();
        managed.stream = stream;
        managed.filter = filter;
        Ok(agreed)
    }

    /// Asks a 2026-07-28 server for the list changes its capabilities offer, on the client's
    /// own stream.
    pub(super) async fn listen_for_list_changes(&self) -> Result<(), Error> {
        let caps = &self.server.capabilities;
        let tools = caps.tools.as_ref().and_then(|c| c.list_changed) == Some(true);
        let prompts = caps.prompts.as_ref().and_then(|c| c.list_changed) == Some(true);
        let resources = caps.resources.as_ref().and_then(|c| c.list_changed) == Some(true);
        if !(tools || prompts || resources) {
            return Ok(());
        }
        self.update_managed(|filter| {
            filter.tools_list_changed = tools;
            filter.prompts_list_changed = prompts;
            filter.resources_list_changed = resources;
        })
        .await
        .map(drop)
    }

    /// Subscribes to `uri` on the client's own stream of a 2026-07-28 server.
    pub(super) async fn listen_to_resource(&self, uri: &str) -> Result<(), Error> {
        let agreed = self
            .update_managed(|filter| {
                if !filter.resource_subscriptions.iter().any(|u| u == uri) {
                    filter.resource_subscriptions.push(uri.to_owned());
                }
            })
            .await?;
        if agreed.resource_subscriptions.iter().any(|u| u == uri) {
            Ok(())
        } else {
            Err(Error::CapabilityMissing(format!("updates of {uri} (the server did not acknowledge them)")))
        }
    }

    /// Ends the subscription to `uri` on the client's own stream of a 2026-07-28 server.
    pub(super) async fn stop_listening_to_resource(&self, uri: &str) -> Result<(), Error> {
        self.update_managed(|filter| filter.resource_subscriptions.retain(|u| u != uri)).await.map(drop)
    }
}
