//! Small helpers for the standard library's synchronization types.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, ignoring poisoning: the maps it guards stay consistent between operations.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
