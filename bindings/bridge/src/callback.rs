//! The one callback shape every foreign handler takes.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::{Context, Error};

/// A handler written in another language: a JSON payload and a context in, JSON or an error
/// out.
///
/// The same shape serves every kind of handler; what the payload holds and how the returned
/// JSON becomes a result is written in the [`crate::results`] module and in the method that
/// registers the callback. A binding implements this trait once, for its own callables.
#[async_trait]
pub trait Callback: Send + Sync + 'static {
    /// Calls the handler.
    async fn call(&self, payload: Value, context: Context) -> Result<Value, Error>;
}

#[async_trait]
impl<F, Fut> Callback for F
where
    F: Fn(Value, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, Error>> + Send + 'static,
{
    async fn call(&self, payload: Value, context: Context) -> Result<Value, Error> {
        self(payload, context).await
    }
}

impl std::fmt::Debug for dyn Callback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Callback")
    }
}

/// A callback shared between registrations.
pub type SharedCallback = Arc<dyn Callback>;
