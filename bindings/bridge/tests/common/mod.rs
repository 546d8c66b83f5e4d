//! What the bridge's integration tests share.

use std::{future::Future, sync::Arc};

use mcpweft_bridge::{Callback, Context, Error};
use serde_json::Value;

/// Turns an async closure into the bridge's `Callback`.
pub(crate) fn callback<F, Fut>(f: F) -> Arc<dyn Callback>
where
    F: Fn(Value, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, Error>> + Send + 'static,
{
    Arc::new(f)
}
