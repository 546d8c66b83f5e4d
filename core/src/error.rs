//! The one error type of local failures.

use crate::jsonrpc::ErrorData;

/// Everything that can go wrong when talking to a peer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The peer answered with a JSON-RPC error.
    #[error("{0}")]
    Rpc(#[from] ErrorData),
    /// Revision 2026-07-28: the handler asked the client for input it does not have yet. The
    /// server answers with an `input_required` result and the client retries the request with
    /// the answers; a handler lets this error through (with `?`) and runs again on the retry.
    #[error("input required: the client is asked for input and retries the request")]
    InputRequired,
    /// The connection is closed, or closed while the request was in flight.
    #[error("transport closed")]
    TransportClosed,
    /// The peer ended the connection and the transport knows how: a spawned server process
    /// exited, with its exit status and the last of what it wrote to stderr.
    #[error("transport closed: {0}")]
    Disconnected(std::sync::Arc<CloseReason>),
    /// The request got no response within its time-out; a cancellation was sent.
    #[error("request timed out after {0:?}")]
    Timeout(std::time::Duration),
    /// The request was cancelled by this side before its response came.
    #[error("request cancelled")]
    Cancelled,
    /// The peer broke the protocol, or the negotiation failed.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// A configuration mistake, found when something is registered or set up, before any
    /// message is exchanged: an invalid tool name or schema, an invalid URI template, a name
    /// registered twice without asking to replace it, an invalid endpoint URL or header value.
    #[error("configuration error: {0}")]
    Config(String),
    /// The peer did not declare the capability that a request needs.
    #[error("the peer does not support {0}")]
    CapabilityMissing(String),
    /// A payload could not be converted from or to JSON.
    #[error("invalid JSON payload: {0}")]
    Json(#[from] serde_json::Error),
    /// The peer reads so slowly that the queue of messages to it is full: this one was not
    /// sent.
    #[error("the peer does not keep up: its outgoing queue is full")]
    QueueFull,
    /// Authorization failed: the server refused the client's credentials, or logging in
    /// could not be completed.
    #[error("authorization failed: {0}")]
    Auth(String),
    /// An input/output error in a transport.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// Why a connection ended, as far as its transport knows: for a spawned server process, how it
/// exited and the last of what it wrote to stderr.
///
/// It serializes to JSON as `{"message", "exitCode", "signal", "stderr"}`, leaving out what is
/// not known. Fields may be added in later versions.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CloseReason {
    /// What ended the connection, in words, such as "the server process exited with code 3".
    pub message: String,
    /// The process's exit code, when it exited by itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended the process (Unix only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The last bytes the process wrote to its stderr (at most
    /// [`STDERR_TAIL_BYTES`](crate::transport::STDERR_TAIL_BYTES)), as text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
}

impl CloseReason {
    /// Creates a reason that is only a message.
    pub fn new(message: impl Into<String>) -> Self {
        CloseReason { message: message.into(), ..Self::default() }
    }
}

impl std::fmt::Display for CloseReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        match &self.stderr {
            Some(stderr) if !stderr.is_empty() => write!(f, "; its stderr ended with:\n{stderr}"),
            _ => Ok(()),
        }
    }
}

impl Error {
    /// Returns the JSON-RPC error the peer sent, when this is one.
    pub fn rpc(&self) -> Option<&ErrorData> {
        match self {
            Error::Rpc(e) => Some(e),
            _ => None,
        }
    }

    /// Returns whether the connection is closed: [`Error::TransportClosed`] or
    /// [`Error::Disconnected`].
    pub fn is_transport_closed(&self) -> bool {
        matches!(self, Error::TransportClosed | Error::Disconnected(_))
    }
}
