//! The SSE events of the HTTP server's streams: their ids, the frames queued for one response,
//! and the bytes of one event.
//!
//! The server's streams and the cluster's Redis log (feature `redis`) both make frames; the
//! event store reads the ids back when a client resumes with `Last-Event-ID`.

use axum::body::Bytes;
use tokio::sync::mpsc;

use crate::jsonrpc::JsonRpcMessage;

/// The written id of event `seq` of this process's stream `stream`, as [`parse_event_id`] reads it.
pub(super) fn event_id(stream: u64, seq: u64) -> String {
    EventId::Local(stream, seq).to_string()
}

/// Reads an id that [`event_id`] wrote: its stream and its sequence number.
pub(super) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.split_once('_')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// A frame on its way to one HTTP response.
///
/// Frames are boxed in their queues: an idle queue then costs a few hundred bytes, not a few
/// kilobytes, which keeps idle sessions and per-request streams small.
pub(super) enum Frame {
    /// A message with its event id.
    Event(EventId, JsonRpcMessage),
}

/// The id of an SSE event, written out only when the event is stored or sent as SSE (a
/// plain JSON answer has none).
pub(super) enum EventId {
    /// The event `seq` of this process's stream `stream`.
    Local(u64, u64),
    /// An id already written, as the cluster's log gives it.
    #[cfg(feature = "redis")]
    Written(String),
}

impl std::fmt::Display for EventId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EventId::Local(stream, seq) => write!(f, "{stream}_{seq}"),
            #[cfg(feature = "redis")]
            EventId::Written(id) => f.write_str(id),
        }
    }
}

/// The queue of one HTTP response's frames, bounded by
/// [`HttpServerOptions::max_queued_events`](super::HttpServerOptions::max_queued_events).
pub(super) type FrameSender = mpsc::Sender<Box<Frame>>;
/// The receiving end of a [`FrameSender`].
pub(super) type FrameReceiver = mpsc::Receiver<Box<Frame>>;

/// The bytes of one SSE event carrying `message`, with its id when it has one.
pub(super) fn sse_event(id: Option<&dyn std::fmt::Display>, message: &JsonRpcMessage) -> Bytes {
    use std::io::Write as _;
    let mut out = Vec::with_capacity(128);
    if let Some(id) = id {
        // Writing into a vector cannot fail.
        let _ = writeln!(out, "id: {id}");
    }
    out.extend_from_slice(b"event: message\ndata: ");
    message.encode_into(&mut out);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}
