//! Params of the utility notifications `notifications/progress` and `notifications/cancelled`.

use serde::{Deserialize, Serialize};

use crate::jsonrpc::RequestId;

use super::common::{Meta, ProgressToken};

/// The params of `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProgressNotificationParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// The progress so far; must increase with each notification.
    pub progress: f64,
    /// The total amount of work, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable description of the current progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ProgressNotificationParams {
    /// Creates a progress update for `progress_token`.
    pub fn new(progress_token: ProgressToken, progress: f64, total: Option<f64>) -> Self {
        Self { progress_token, progress, total, message: None, meta: None }
    }

    /// Sets the human-readable description of the current progress.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// Sets the notification metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The params of `notifications/cancelled`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CancelledNotificationParams {
    /// The id of the request to cancel (required except for task cancellation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// A human-readable reason for the cancellation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CancelledNotificationParams {
    /// Creates a cancellation of `request_id` with an optional reason.
    pub fn new(request_id: RequestId, reason: Option<String>) -> Self {
        Self { request_id: Some(request_id), reason, meta: None }
    }

    /// Sets the notification metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}
