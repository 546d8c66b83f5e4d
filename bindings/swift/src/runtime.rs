//! Cancellation from Swift: a uniffi future cannot be dropped from Swift, so a cancelled Swift
//! task cancels its call through a handle.

use std::sync::Arc;

use mcpweft_bridge::{CancelHandle, Task};

/// A switch the Swift layer cancels when the Swift task awaiting a call is cancelled; the call
/// then ends with an error of kind `cancelled`, and an MCP request in flight is cancelled.
#[derive(uniffi::Object, Default)]
pub struct NativeCancelHandle {
    inner: CancelHandle,
}

#[uniffi::export]
impl NativeCancelHandle {
    /// Creates a switch that is not cancelled.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Cancels the calls tied to the switch.
    pub fn cancel(&self) {
        self.inner.cancel();
    }

    /// Returns whether the switch was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }
}

/// Ties `task` to `cancel`, when there is one.
pub(crate) fn cancellable<T: Send + 'static>(task: Task<T>, cancel: Option<Arc<NativeCancelHandle>>) -> Task<T> {
    match cancel {
        Some(cancel) => task.cancel_on(&cancel.inner),
        None => task,
    }
}
