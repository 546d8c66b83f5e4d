//! The one callback shape every foreign handler takes.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use serde_json::Value;
use tokio::sync::oneshot;

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

/// Where the answer of one call of foreign code goes, made with [`reply`]: the first answer
/// counts and later ones are dropped. A binding hands it to the code it calls (as the native
/// object the code settles through) and awaits the [`PendingAnswer`].
pub struct Reply(Mutex<Option<oneshot::Sender<Result<Value, Error>>>>);

/// The answer a [`Reply`] is waiting to get.
pub struct PendingAnswer(oneshot::Receiver<Result<Value, Error>>);

/// Makes the two ends of one call's answer.
pub fn reply() -> (Reply, PendingAnswer) {
    let (sender, receiver) = oneshot::channel();
    (Reply(Mutex::new(Some(sender))), PendingAnswer(receiver))
}

impl Reply {
    fn sender(&self) -> MutexGuard<'_, Option<oneshot::Sender<Result<Value, Error>>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Answers with `outcome`, unless the call was answered already.
    pub fn send(&self, outcome: Result<Value, Error>) {
        if let Some(sender) = self.sender().take() {
            let _ = sender.send(outcome);
        }
    }

    /// Answers with the value of the JSON text `text`, what the foreign code (named `what` in
    /// the error when the text is not JSON) returned.
    pub fn resolve_json(&self, text: &str, what: &str) {
        self.send(crate::parse_json(text, what));
    }

    /// Answers with the string `text` itself: the foreign code returned that string, which
    /// crosses without being escaped into JSON text and parsed again.
    pub fn resolve_text(&self, text: String) {
        self.send(Ok(Value::String(text)));
    }

    /// Fails the call with `error`.
    pub fn reject(&self, error: Error) {
        self.send(Err(error));
    }

    /// Returns whether the call was answered.
    pub fn is_answered(&self) -> bool {
        self.sender().is_none()
    }
}

impl PendingAnswer {
    /// Waits for the answer; when the reply was dropped without one, the call fails with the
    /// error `unanswered` makes.
    pub async fn wait(self, unanswered: impl FnOnce() -> Error) -> Result<Value, Error> {
        self.0.await.unwrap_or_else(|_| Err(unanswered()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[tokio::test]
    async fn the_first_answer_counts() {
        let (reply, answer) = crate::reply();
        assert!(!reply.is_answered());
        reply.resolve_json(r#"{"a":[1,"b"]}"#, "the result");
        assert!(reply.is_answered());
        reply.resolve_text("later".to_owned());
        reply.reject(Error::internal("later"));
        assert_eq!(answer.wait(|| Error::internal("none")).await.unwrap(), serde_json::json!({"a": [1, "b"]}));
    }

    #[tokio::test]
    async fn a_text_crosses_as_itself_and_bad_json_is_invalid_input() {
        let (reply, answer) = crate::reply();
        reply.resolve_text("\"not json\\".to_owned());
        assert_eq!(answer.wait(|| Error::internal("none")).await.unwrap(), Value::String("\"not json\\".to_owned()));
        let (reply, answer) = crate::reply();
        reply.resolve_json("{", "the handler's result");
        let error = answer.wait(|| Error::internal("none")).await.unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidInput);
        assert!(error.to_string().contains("the handler's result is not valid JSON"), "{error}");
    }

    #[tokio::test]
    async fn a_reply_dropped_unanswered_fails_with_the_given_error() {
        let (reply, answer) = crate::reply();
        drop(reply);
        let error = answer.wait(|| Error::handler("dropped without an answer")).await.unwrap_err();
        assert_eq!(error.kind, ErrorKind::Handler);
        assert!(error.to_string().contains("dropped without an answer"), "{error}");
    }
}
