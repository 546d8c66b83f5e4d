//! Logging: levels, `logging/setLevel` and `notifications/message`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::{Meta, ProgressToken, progress_token};

/// The severity of a log message, ordered as in RFC 5424 (debug is the lowest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// General informational messages.
    #[default]
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Returns the wire name of the level.
    pub fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

impl std::fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The params of `logging/setLevel`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SetLevelRequestParams {
    /// The minimum level the client wants to receive.
    pub level: LoggingLevel,
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SetLevelRequestParams {
    /// Returns the progress token carried in `_meta`, if any.
    pub fn progress_token(&self) -> Option<ProgressToken> {
        progress_token(self.meta.as_ref())
    }

    /// Creates params asking for messages of `level` and above.
    pub fn new(level: LoggingLevel) -> Self {
        Self { level, meta: None }
    }

    /// Sets the request metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The params of `notifications/message`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LoggingMessageNotificationParams {
    /// The severity of the message.
    pub level: LoggingLevel,
    /// The name of the logger that emitted the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message payload: any JSON value.
    pub data: Value,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl LoggingMessageNotificationParams {
    /// Creates a log message at `level` carrying `data`.
    pub fn new(level: LoggingLevel, data: impl Into<Value>) -> Self {
        Self { level, logger: None, data: data.into(), meta: None }
    }

    /// Sets the name of the logger that emitted the message.
    pub fn with_logger(mut self, logger: impl Into<String>) -> Self {
        self.logger = Some(logger.into());
        self
    }

    /// Sets the notification metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}
