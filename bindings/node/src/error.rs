//! The one mapping between the bridge's flat error and JavaScript.
//!
//! A bridge error crosses as the JSON text of `{kind, code, message, data, causes}` (the
//! bridge's `Error::to_json`): as the first argument of a settle callback, or as the message of
//! a thrown error. The package's JavaScript turns it into its error classes. A JavaScript
//! handler fails by naming a kind, which the bridge's `Error::from_foreign_text` turns into a
//! bridge error by the rule every binding shares.

use mcpweft_bridge::Error;
use serde_json::Value;

/// Returns the JSON text of `error`.
pub(crate) fn to_json(error: &Error) -> String {
    error.to_json().to_string()
}

/// Returns the JavaScript error thrown by a synchronous call that failed with `error`.
pub(crate) fn throw(error: Error) -> napi::Error {
    napi::Error::from_reason(to_json(&error))
}

/// Returns the error a JavaScript handler or middleware threw, as its `reject` passes it: `kind`
/// is `rpc` for the JSON-RPC error `code` with the JSON text of `data`, another kind name keeps
/// its kind, anything else is a failure the bridge's error policy decides about; `causes` are
/// the messages of its causes.
pub(crate) fn thrown(
    kind: &str,
    code: Option<i64>,
    message: String,
    data: Option<&str>,
    causes: Option<Vec<String>>,
) -> Error {
    Error::from_foreign_text(Some(kind), code, message, data, causes.unwrap_or_default())
}

/// Parses the JSON text `json` of a value named `what`, throwing when it is not JSON.
pub(crate) fn parse_or_throw(json: &str, what: &str) -> napi::Result<Value> {
    mcpweft_bridge::parse_json(json, what).map_err(throw)
}
