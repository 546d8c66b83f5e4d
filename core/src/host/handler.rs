//! The host's own side, given once for every server: each request and notification names the
//! server it came from.

use std::sync::{Arc, Weak};

use async_trait::async_trait;

use super::{Inner, ListKind, Slot};
use crate::{
    ClientHandler,
    jsonrpc::{ErrorData, Notification},
    model::{
        CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
        ElicitationCompleteNotificationParams, ListRootsResult, LoggingMessageNotificationParams,
        ResourceUpdatedNotificationParams, methods,
    },
    session::IncomingRequest,
};

/// How a host answers the requests of its servers and hears their notifications.
///
/// It is given once, to the [`Host`](super::Host), and serves every server: each method is told
/// the name of the server that sent the request or notification. Every method has a default:
/// requests are refused with "method not found" and notifications are ignored. Declare the
/// matching capabilities with [`HostBuilder::with_capabilities`](super::HostBuilder::with_capabilities).
#[async_trait]
pub trait HostHandler: Send + Sync + 'static {
    /// Answers `sampling/createMessage` from `server`.
    async fn create_message(
        &self,
        server: &str,
        params: CreateMessageRequestParams,
        context: IncomingRequest,
    ) -> Result<CreateMessageResult, ErrorData> {
        let _ = (server, params, context);
        Err(ErrorData::method_not_found(methods::SAMPLING_CREATE_MESSAGE))
    }

    /// Answers `elicitation/create` from `server`.
    async fn elicit(
        &self,
        server: &str,
        params: ElicitRequestParams,
        context: IncomingRequest,
    ) -> Result<ElicitResult, ErrorData> {
        let _ = (server, params, context);
        Err(ErrorData::method_not_found(methods::ELICITATION_CREATE))
    }

    /// Answers `roots/list` from `server`.
    async fn list_roots(&self, server: &str, context: IncomingRequest) -> Result<ListRootsResult, ErrorData> {
        let _ = (server, context);
        Err(ErrorData::method_not_found(methods::ROOTS_LIST))
    }

    /// Hears `notifications/message` from `server`.
    async fn on_log_message(&self, server: &str, params: LoggingMessageNotificationParams) {
        let _ = (server, params);
    }

    /// Hears `notifications/resources/updated` from `server`.
    async fn on_resource_updated(&self, server: &str, params: ResourceUpdatedNotificationParams) {
        let _ = (server, params);
    }

    /// Hears `notifications/elicitation/complete` from `server`.
    async fn on_elicitation_complete(&self, server: &str, params: ElicitationCompleteNotificationParams) {
        let _ = (server, params);
    }

    /// Hears any other notification from `server` (list changes are the host's own: it
    /// refreshes its view and sends a [`HostEvent::ListChanged`](super::HostEvent::ListChanged)).
    async fn on_notification(&self, server: &str, notification: Notification) {
        let _ = (server, notification);
    }
}

/// A host handler that supports nothing and ignores every notification.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHostHandler;

impl HostHandler for NoHostHandler {}

/// The client handler of one connection to one server: it names the server to the host's
/// handler and turns list changes into a refresh of the host's view.
pub(super) struct ServerHandler {
    pub(super) server: Arc<str>,
    pub(super) handler: Arc<dyn HostHandler>,
    pub(super) host: Weak<Inner>,
    pub(super) slot: Weak<Slot>,
}

#[async_trait]
impl ClientHandler for ServerHandler {
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: IncomingRequest,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.handler.create_message(&self.server, params, context).await
    }

    async fn elicit(&self, params: ElicitRequestParams, context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        self.handler.elicit(&self.server, params, context).await
    }

    async fn list_roots(&self, context: IncomingRequest) -> Result<ListRootsResult, ErrorData> {
        self.handler.list_roots(&self.server, context).await
    }

    async fn on_log_message(&self, params: LoggingMessageNotificationParams) {
        self.handler.on_log_message(&self.server, params).await;
    }

    async fn on_resource_updated(&self, params: ResourceUpdatedNotificationParams) {
        self.handler.on_resource_updated(&self.server, params).await;
    }

    async fn on_list_changed(&self, method: &str) {
        let kind = match method {
            methods::NOTIFICATIONS_TOOLS_LIST_CHANGED => ListKind::Tools,
            methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED => ListKind::Prompts,
            _ => ListKind::Resources,
        };
        let (Some(host), Some(slot)) = (self.host.upgrade(), self.slot.upgrade()) else { return };
        // The refresh sends requests on this connection, so it leaves the notification's turn.
        tokio::spawn(async move { host.refresh(&slot, kind).await });
    }

    async fn on_elicitation_complete(&self, params: ElicitationCompleteNotificationParams) {
        self.handler.on_elicitation_complete(&self.server, params).await;
    }

    async fn on_notification(&self, notification: Notification) {
        self.handler.on_notification(&self.server, notification).await;
    }
}
