//! The one mapping between the bridge's flat error and JavaScript.
//!
//! A bridge error crosses as the JSON text of `{kind, code, message, data, causes}`: as the
//! first argument of a settle callback, or as the message of a thrown error. The package's
//! JavaScript turns it into its error classes. A JavaScript handler fails by naming a kind:
//! `rpc` with a code answers with that JSON-RPC error, anything else is a handler failure.

use mcpweft_bridge::Error;
use serde_json::{Value, json};

/// Returns the JSON text of `error`.
pub(crate) fn to_json(error: &Error) -> String {
    json!({
        "kind": error.kind_name(),
        "code": error.code,
        "message": error.message,
        "data": error.data,
        "causes": error.causes,
    })
    .to_string()
}

/// Returns the JavaScript error thrown by a synchronous call that failed with `error`.
pub(crate) fn throw(error: Error) -> napi::Error {
    napi::Error::from_reason(to_json(&error))
}

/// Returns the error of JSON text, of a value named `what`, that does not parse.
pub(crate) fn invalid_json(what: &str, error: serde_json::Error) -> Error {
    Error::invalid_input(format!("invalid {what}: {error}"))
}

/// Parses the JSON text `json` of a value named `what`, throwing when it is not JSON.
pub(crate) fn parse_or_throw(json: &str, what: &str) -> napi::Result<Value> {
    serde_json::from_str(json).map_err(|e| throw(invalid_json(what, e)))
}

/// Returns the error a JavaScript handler failed with: `kind` is `rpc` for a JSON-RPC error
/// it chose (with `code` and the JSON text of `data`), anything else for a plain failure.
pub(crate) fn from_js(kind: &str, code: Option<i64>, message: String, data: Option<String>) -> Error {
    match (kind, code) {
        ("rpc", Some(code)) => {
            let data = data.and_then(|d| serde_json::from_str(&d).ok());
            Error::rpc(code, message, data)
        }
        _ => Error::handler(message),
    }
}
