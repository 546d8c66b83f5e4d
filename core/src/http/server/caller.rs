//! Who sends a request: the identity its bearer token speaks for when the server is protected,
//! the checks of its token and scopes, and the rule that only a session's creator may use it.

use std::sync::Arc;

use axum::{http::HeaderMap, response::Response};

#[cfg(feature = "auth")]
use crate::auth::AuthInfo;
use crate::{jsonrpc::JsonRpcMessage, server::SessionHandle};

use super::HttpState;

/// Without the `auth` feature no request carries an identity.
#[cfg(not(feature = "auth"))]
#[derive(Debug)]
pub(super) enum AuthInfo {}

/// Who sent a request: the identity its bearer token speaks for, when the server is protected.
pub(super) type Caller = Option<Arc<AuthInfo>>;

/// Returns whether a request from `caller` may use a session created by `owner`: only the
/// identity that created a session may use it.
pub(super) fn same_caller(owner: &Caller, caller: &Caller) -> bool {
    match (owner, caller) {
        (None, None) => true,
        #[cfg(feature = "auth")]
        (Some(owner), Some(caller)) => owner.identity() == caller.identity(),
        _ => false,
    }
}

/// Shows handlers of the session who sent the request being delivered.
pub(super) fn set_caller(handle: &SessionHandle, caller: &Caller) {
    #[cfg(feature = "auth")]
    handle.set_auth(caller.clone());
    #[cfg(not(feature = "auth"))]
    let _ = (handle, caller);
}

impl HttpState {
    /// Checks the request's bearer token when the server is protected.
    #[allow(clippy::result_large_err)] // the error is the response to send, built once
    pub(super) async fn authenticate(&self, headers: &HeaderMap) -> Result<Caller, Response> {
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.options.auth {
            return crate::http::auth::authenticate(auth, headers).await.map(Some);
        }
        let _ = headers;
        Ok(None)
    }

    /// Refuses a message that needs scopes the caller was not granted.
    #[allow(clippy::result_large_err)] // the error is the response to send, built once
    pub(super) fn check_scopes(&self, caller: &Caller, message: &JsonRpcMessage) -> Result<(), Response> {
        #[cfg(feature = "auth")]
        if let (Some(auth), Some(caller)) = (&self.options.auth, caller)
            && let Some(needed) = crate::http::auth::missing_scopes(auth, caller, message)
        {
            return Err(crate::http::auth::insufficient_scope(auth, &needed));
        }
        let _ = (caller, message);
        Ok(())
    }
}
