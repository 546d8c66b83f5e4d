//! Resumability: the store of each session's SSE events, from which a client that reconnects
//! with `Last-Event-ID` gets what it missed.

use std::{
    collections::{HashMap, VecDeque},
    sync::Mutex,
};

use crate::{http::sse::parse_event_id, jsonrpc::JsonRpcMessage, sync::lock};

/// One stored SSE event: its id and the message it carried.
#[derive(Clone, Debug)]
pub struct StoredEvent {
    /// The event id, unique within the session.
    pub id: String,
    /// The message.
    pub message: JsonRpcMessage,
}

/// Keeps the SSE events of each session so that a client that reconnects with
/// `Last-Event-ID` gets exactly what it missed on that stream.
pub trait EventStore: Send + Sync + 'static {
    /// Stores an event of `stream` in `session`.
    fn append(&self, session: &str, stream: u64, event: StoredEvent);

    /// Returns the events of `stream` in `session` that came after the event `after`, oldest
    /// first, or `None` when that event is no longer known.
    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<StoredEvent>>;

    /// Forgets a session's events.
    fn remove_session(&self, session: &str);
}

/// An in-memory [`EventStore`] that keeps a bounded number of recent events per session.
#[derive(Debug)]
pub struct InMemoryEventStore {
    per_session: usize,
    sessions: Mutex<HashMap<String, SessionEvents>>,
}

/// The stored events of one session: stream, sequence number and event, oldest first.
type SessionEvents = VecDeque<(u64, u64, StoredEvent)>;

impl InMemoryEventStore {
    /// Creates a store that keeps at most `per_session` events for each session.
    pub fn new(per_session: usize) -> Self {
        InMemoryEventStore { per_session: per_session.max(1), sessions: Mutex::default() }
    }
}

impl Default for InMemoryEventStore {
    fn default() -> Self {
        Self::new(1024)
    }
}

impl EventStore for InMemoryEventStore {
    fn append(&self, session: &str, stream: u64, event: StoredEvent) {
        let Some((_, seq)) = parse_event_id(&event.id) else { return };
        let mut sessions = lock(&self.sessions);
        let events = sessions.entry(session.to_owned()).or_default();
        if events.len() == self.per_session {
            events.pop_front();
        }
        events.push_back((stream, seq, event));
    }

    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<StoredEvent>> {
        let sessions = lock(&self.sessions);
        let Some(events) = sessions.get(session) else { return Some(Vec::new()) };
        let oldest = events.iter().find(|(s, _, _)| *s == stream).map(|(_, seq, _)| *seq);
        // A gap between what the client saw and what is kept means events were lost. The id
        // comes from the client: nothing follows the largest one.
        let Some(next) = after.checked_add(1) else { return Some(Vec::new()) };
        if oldest.is_some_and(|oldest| oldest > next) {
            return None;
        }
        Some(events.iter().filter(|(s, seq, _)| *s == stream && *seq > after).map(|(_, _, e)| e.clone()).collect())
    }

    fn remove_session(&self, session: &str) {
        lock(&self.sessions).remove(session);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::sse::event_id;

    #[test]
    fn the_largest_last_event_id_replays_nothing() {
        let store = InMemoryEventStore::default();
        let message = JsonRpcMessage::notification("n", None);
        store.append("s", 3, StoredEvent { id: event_id(3, 1), message });
        assert_eq!(store.replay("s", 3, u64::MAX).map(|e| e.len()), Some(0));
        assert_eq!(store.replay("s", 3, 0).map(|e| e.len()), Some(1));
    }
}
