//! Small helpers for the standard library's synchronization types, and the map the sessions
//! keep their bookkeeping in.

use std::sync::{Mutex, MutexGuard};

/// A hash map with a fast, randomly seeded hasher, for the maps consulted on every message:
/// request ids (at most a session's in-flight limit of them), stream numbers, the server's own
/// session ids and the names of its tools, prompts and resources. A peer only looks keys up in
/// them (or adds a bounded number), so the map needs no defence against chosen collisions, and
/// SipHash, the standard library's default, costs each lookup more than the rest of it.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// Locks a mutex, ignoring poisoning: the maps it guards stay consistent between operations.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
