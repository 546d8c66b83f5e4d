//! The one error of the Swift bindings and the JSON conversions at the boundary.

use std::collections::HashMap;

use mcpweft_bridge::{ERROR_CODES, Error};
use serde_json::Value;

/// The flat bridge error as Swift sees it: the stable kind name, the JSON-RPC code, the
/// message, the JSON text of the error's `data`, and the messages of its causes.
#[derive(Debug, thiserror::Error, uniffi::Error)]
pub enum NativeError {
    /// The only case; the Swift layer turns it into its own error type.
    #[error("{message}")]
    Failure {
        /// The stable name of the error's kind, such as `"rpc"` or `"timeout"`.
        kind: String,
        /// The JSON-RPC error code, for kind `rpc`.
        code: Option<i64>,
        /// A message for people.
        message: String,
        /// The JSON text of the error's `data`.
        data: Option<String>,
        /// The messages of the underlying errors, outermost first.
        causes: Vec<String>,
    },
}

impl From<Error> for NativeError {
    fn from(e: Error) -> Self {
        NativeError::Failure {
            kind: e.kind_name().to_owned(),
            code: e.code,
            data: e.data_text(),
            message: e.message,
            causes: e.causes,
        }
    }
}

impl From<NativeError> for Error {
    /// A Swift error becomes a bridge error by the rule every binding shares
    /// (`Error::from_foreign_text`).
    fn from(e: NativeError) -> Self {
        let NativeError::Failure { kind, code, message, data, causes } = e;
        Error::from_foreign_text(Some(&kind), code, message, data.as_deref(), causes)
    }
}

/// Returns the JSON-RPC error codes MCP uses by name (`"InvalidParams"` and so on), from the
/// bridge's table, so that the Swift layer can test its constants against it.
#[uniffi::export]
pub fn native_error_codes() -> HashMap<String, i64> {
    ERROR_CODES.iter().map(|(name, code)| ((*name).to_owned(), *code)).collect()
}

/// Returns the bridge's table of error kinds as JSON text, an array of `{name, code, meaning}`,
/// so that the Swift layer can test its `MCPError.Kind` against it.
#[uniffi::export]
pub fn native_error_kinds() -> String {
    mcpweft_bridge::error_kinds().to_string()
}

/// The result type of every fallible export.
pub(crate) type Result<T> = std::result::Result<T, NativeError>;

/// Parses the JSON text `text` handed over by Swift, naming `what` in the error.
pub(crate) fn parse(text: &str, what: &str) -> Result<Value> {
    Ok(mcpweft_bridge::parse_json(text, what)?)
}

/// Parses optional JSON text; `None` is `null`.
pub(crate) fn parse_optional(text: Option<String>, what: &str) -> Result<Value> {
    text.map_or(Ok(Value::Null), |t| parse(&t, what))
}
