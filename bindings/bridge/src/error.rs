//! The one flat error of the bridge, and the table of JSON-RPC error codes.
//!
//! Every binding maps [`Error`] once to its own error types: the stable [`ErrorKind`] picks
//! the class, the JSON-RPC `code`, `message` and `data` fill it in, and `causes` carries the
//! chain of underlying errors, outermost first.

use mcpweft::{ErrorData, jsonrpc};
use serde_json::Value;

/// What kind of failure an [`Error`] is; the names are stable and shared by every language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A JSON-RPC error: one the peer answered with, or one a handler raised on purpose.
    Rpc,
    /// The connection is closed, or closed while the request was in flight.
    TransportClosed,
    /// The request got no response within its time-out.
    Timeout,
    /// The request was cancelled by this side.
    Cancelled,
    /// The peer broke the protocol, or the negotiation failed.
    Protocol,
    /// The peer did not declare the capability that a request needs.
    CapabilityMissing,
    /// A registration or setting is invalid (a schema, a URI template, a name, an option).
    Config,
    /// A value handed to the bridge does not have the shape it needs.
    InvalidInput,
    /// An input/output error, such as a command that cannot be spawned or a port in use.
    Io,
    /// A handler failed without choosing a JSON-RPC error (an exception, a rejected promise).
    Handler,
    /// Too much work is queued already; the call was refused and may be tried again.
    Overloaded,
    /// A failure inside mcpweft itself, such as a panic.
    Internal,
}

impl ErrorKind {
    /// Every kind, in the order bindings list them.
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::Rpc,
        ErrorKind::TransportClosed,
        ErrorKind::Timeout,
        ErrorKind::Cancelled,
        ErrorKind::Protocol,
        ErrorKind::CapabilityMissing,
        ErrorKind::Config,
        ErrorKind::InvalidInput,
        ErrorKind::Io,
        ErrorKind::Handler,
        ErrorKind::Overloaded,
        ErrorKind::Internal,
    ];

    /// Returns the stable name of the kind, such as `"transport_closed"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Rpc => "rpc",
            ErrorKind::TransportClosed => "transport_closed",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Protocol => "protocol",
            ErrorKind::CapabilityMissing => "capability_missing",
            ErrorKind::Config => "config",
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::Io => "io",
            ErrorKind::Handler => "handler",
            ErrorKind::Overloaded => "overloaded",
            ErrorKind::Internal => "internal",
        }
    }

    /// Returns the kind with the stable name `name`.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Returns the JSON-RPC code that a local error of this kind stands for, when there is one
    /// (an [`ErrorKind::Rpc`] error carries its own code).
    pub fn code(self) -> Option<i64> {
        match self {
            ErrorKind::TransportClosed => Some(jsonrpc::CONNECTION_CLOSED),
            ErrorKind::Timeout => Some(jsonrpc::REQUEST_TIMEOUT),
            ErrorKind::Cancelled => Some(REQUEST_CANCELLED),
            ErrorKind::CapabilityMissing => Some(jsonrpc::METHOD_NOT_FOUND),
            _ => None,
        }
    }

    /// Returns what the kind means, in one line for people.
    pub fn meaning(self) -> &'static str {
        match self {
            ErrorKind::Rpc => "a JSON-RPC error: one the peer answered with, or one a handler raised on purpose",
            ErrorKind::TransportClosed => "the connection is closed, or closed while the request was in flight",
            ErrorKind::Timeout => "the request got no response within its time-out",
            ErrorKind::Cancelled => "the request was cancelled by this side",
            ErrorKind::Protocol => "the peer broke the protocol, or the negotiation failed",
            ErrorKind::CapabilityMissing => "the peer did not declare the capability that a request needs",
            ErrorKind::Config => "a registration or setting is invalid, such as a name registered twice",
            ErrorKind::InvalidInput => "a value handed to mcpweft does not have the shape it needs",
            ErrorKind::Io => "an input/output error, such as a command that cannot be spawned or a port in use",
            ErrorKind::Handler => "a handler failed without choosing a JSON-RPC error",
            ErrorKind::Overloaded => "too much work is queued already; the call may be tried again",
            ErrorKind::Internal => "a failure inside mcpweft itself, such as a panic",
        }
    }
}

/// The code that JSON-RPC peers (the Language Server Protocol's `RequestCancelled`) give a
/// request cancelled on purpose; MCP itself answers a cancelled request with nothing.
const REQUEST_CANCELLED: i64 = -32800;

/// Returns the table of error kinds every binding exports and tests its error classes
/// against: a JSON array with, for each kind in [`ErrorKind::ALL`] order, `{"name", "code",
/// "meaning"}` (`code` is `null` for a kind without one).
pub fn error_kinds() -> Value {
    ErrorKind::ALL
        .iter()
        .map(|kind| serde_json::json!({ "name": kind.as_str(), "code": kind.code(), "meaning": kind.meaning() }))
        .collect()
}

/// Parses the JSON text `text` that a binding was handed for a value named `what`; text that
/// is not JSON is an [`ErrorKind::InvalidInput`] error naming the value.
pub fn parse_json(text: &str, what: &str) -> Result<Value, Error> {
    serde_json::from_str(text).map_err(|e| Error::invalid_input(format!("{what} is not valid JSON: {e}")))
}

/// The JSON-RPC error codes MCP uses, by the name each binding gives its error class.
///
/// Bindings generate their classes from this table or test their own against it.
pub const ERROR_CODES: [(&str, i64); 8] = [
    ("ParseError", jsonrpc::PARSE_ERROR),
    ("InvalidRequest", jsonrpc::INVALID_REQUEST),
    ("MethodNotFound", jsonrpc::METHOD_NOT_FOUND),
    ("InvalidParams", jsonrpc::INVALID_PARAMS),
    ("InternalError", jsonrpc::INTERNAL_ERROR),
    ("RequestTimeout", jsonrpc::REQUEST_TIMEOUT),
    ("ResourceNotFound", jsonrpc::RESOURCE_NOT_FOUND),
    ("UrlElicitationRequired", jsonrpc::URL_ELICITATION_REQUIRED),
];

/// The flat error every bridge call fails with, and every foreign handler fails with.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// What kind of failure this is.
    pub kind: ErrorKind,
    /// The JSON-RPC error code, for kind [`ErrorKind::Rpc`].
    pub code: Option<i64>,
    /// A message for people.
    pub message: String,
    /// The JSON-RPC error's `data`, when it had some.
    pub data: Option<Value>,
    /// The messages of the underlying errors, outermost first.
    pub causes: Vec<String>,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Creates an error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, code: None, message: message.into(), data: None, causes: Vec::new() }
    }

    /// Creates a JSON-RPC error, as a handler raises it to answer with exactly that error.
    pub fn rpc(code: i64, message: impl Into<String>, data: Option<Value>) -> Self {
        Error { kind: ErrorKind::Rpc, code: Some(code), message: message.into(), data, causes: Vec::new() }
    }

    /// Creates the error of a handler that failed without choosing a JSON-RPC error.
    ///
    /// A tool's such failure becomes an `isError` result; any other handler's becomes an
    /// internal error (-32603) with this message.
    pub fn handler(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Handler, message)
    }

    /// Creates an error for a value that does not have the shape it needs.
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidInput, message)
    }

    /// Creates an error for an invalid registration or setting.
    pub fn config(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Config, message)
    }

    /// Creates an error for work refused because too much is queued.
    pub fn overloaded(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Overloaded, message)
    }

    /// Creates an internal error.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Internal, message)
    }

    /// Adds the message of an underlying error to the cause chain.
    pub fn with_cause(mut self, cause: impl Into<String>) -> Self {
        self.causes.push(cause.into());
        self
    }

    /// Returns the stable name of the error's kind.
    pub fn kind_name(&self) -> &'static str {
        self.kind.as_str()
    }

    /// Returns the JSON text of the error's `data`, for bindings that hand it over as text.
    pub fn data_text(&self) -> Option<String> {
        self.data.as_ref().map(Value::to_string)
    }

    /// Returns the error as the JSON object `{"kind", "code", "message", "data", "causes"}`, the
    /// shape in which bindings that cross it as JSON hand it to their language.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "kind": self.kind_name(),
            "code": self.code,
            "message": self.message,
            "data": self.data,
            "causes": self.causes,
        })
    }

    /// Builds the error a foreign handler or callback failed with, from what its language's
    /// error says; this is the one rule every binding applies to a thrown exception.
    ///
    /// Kind `rpc` with a `code` is exactly that JSON-RPC error (the peer gets its code,
    /// message and `data`); another known kind name keeps its kind (a cancellation stays one);
    /// an unknown or missing kind, or `rpc` without a code, is a [`ErrorKind::Handler`]
    /// failure. The causes are kept, outermost first.
    pub fn from_foreign(
        kind: Option<&str>,
        code: Option<i64>,
        message: impl Into<String>,
        data: Option<Value>,
        causes: Vec<String>,
    ) -> Self {
        let kind = kind.and_then(ErrorKind::from_name).unwrap_or(ErrorKind::Handler);
        let error = match (kind, code) {
            (ErrorKind::Rpc, Some(code)) => Error::rpc(code, message, data),
            (ErrorKind::Rpc, None) => Error::handler(message),
            (kind, _) => Error::new(kind, message),
        };
        Error { causes, ..error }
    }

    /// Builds the error a foreign handler failed with, as [`Error::from_foreign`] does, when
    /// its `data` crosses as JSON text; text that is not JSON is dropped.
    pub fn from_foreign_text(
        kind: Option<&str>,
        code: Option<i64>,
        message: impl Into<String>,
        data: Option<&str>,
        causes: Vec<String>,
    ) -> Self {
        let data = data.and_then(|text| serde_json::from_str(text).ok());
        Error::from_foreign(kind, code, message, data, causes)
    }

    /// Returns the JSON-RPC error a server answers with when a handler fails with this error:
    /// an [`ErrorKind::Rpc`] error keeps its code, message and data, and anything else is an
    /// internal error (-32603) carrying the message.
    pub fn to_error_data(&self) -> ErrorData {
        match (self.kind, self.code) {
            (ErrorKind::Rpc, Some(code)) => {
                let data = ErrorData::new(code, self.message.clone());
                match &self.data {
                    Some(d) => data.with_data(d.clone()),
                    None => data,
                }
            }
            _ => ErrorData::internal_error(self.message.clone()),
        }
    }

    /// Converts a task that failed to join (a panic or an abort).
    pub(crate) fn from_join(e: tokio::task::JoinError) -> Self {
        if e.is_cancelled() {
            return Error::new(ErrorKind::Cancelled, "the task was cancelled");
        }
        Error::from_panic(e.into_panic().as_ref())
    }

    /// Converts the payload of a panic.
    pub(crate) fn from_panic(panic: &(dyn std::any::Any + Send)) -> Self {
        let text = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Error::internal(format!("mcpweft panicked: {text}"))
    }

    /// Converts a JSON (de)serialization failure of a value named `what`.
    pub(crate) fn json(what: &str, e: serde_json::Error) -> Self {
        Error::invalid_input(format!("invalid {what}: {e}"))
    }
}

fn causes_of(error: &dyn std::error::Error) -> Vec<String> {
    let mut causes = Vec::new();
    let mut source = error.source();
    while let Some(cause) = source {
        causes.push(cause.to_string());
        source = cause.source();
    }
    causes
}

impl From<mcpweft::Error> for Error {
    fn from(e: mcpweft::Error) -> Self {
        let causes = causes_of(&e);
        let kind = match &e {
            // A client transport's own error for a server it could not reach.
            mcpweft::Error::Rpc(data)
                if data.code == mcpweft::jsonrpc::CONNECTION_CLOSED
                    && data.data.as_ref().is_some_and(|d| d["unreachable"] == true) =>
            {
                return Error {
                    kind: ErrorKind::TransportClosed,
                    code: None,
                    message: data.message.clone(),
                    data: None,
                    causes,
                };
            }
            mcpweft::Error::Rpc(data) => {
                return Error { causes, ..Error::rpc(data.code, data.message.clone(), data.data.clone()) };
            }
            mcpweft::Error::TransportClosed | mcpweft::Error::Disconnected(_) => ErrorKind::TransportClosed,
            mcpweft::Error::Timeout(_) => ErrorKind::Timeout,
            mcpweft::Error::Cancelled => ErrorKind::Cancelled,
            mcpweft::Error::Protocol(_) => ErrorKind::Protocol,
            mcpweft::Error::CapabilityMissing(_) => ErrorKind::CapabilityMissing,
            mcpweft::Error::Json(_) => ErrorKind::InvalidInput,
            mcpweft::Error::Io(_) => ErrorKind::Io,
            mcpweft::Error::QueueFull => ErrorKind::Overloaded,
            mcpweft::Error::Config(_) => ErrorKind::Config,
            // A login that failed is the server's (or its authorization server's) refusal.
            mcpweft::Error::Auth(_) => ErrorKind::Protocol,
            _ => ErrorKind::Internal,
        };
        Error { kind, code: None, message: e.to_string(), data: None, causes }
    }
}

impl From<ErrorData> for Error {
    fn from(e: ErrorData) -> Self {
        Error::rpc(e.code, e.message, e.data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_have_unique_stable_names() {
        let names: std::collections::HashSet<_> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(names.len(), ErrorKind::ALL.len());
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(kind.as_str()), Some(kind));
        }
    }

    #[test]
    fn the_code_table_holds_every_mcp_code() {
        let codes: Vec<i64> = ERROR_CODES.iter().map(|(_, c)| *c).collect();
        for code in [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32042] {
            assert!(codes.contains(&code), "{code} is missing");
        }
    }

    #[test]
    fn the_error_policy_keeps_chosen_codes_only() {
        let chosen = Error::rpc(-32602, "bad", Some(serde_json::json!(1))).to_error_data();
        assert_eq!((chosen.code, chosen.data), (-32602, Some(serde_json::json!(1))));
        let other = Error::handler("oops").to_error_data();
        assert_eq!((other.code, other.message.as_str()), (jsonrpc::INTERNAL_ERROR, "oops"));
    }

    #[test]
    fn the_kind_table_lists_every_kind_once_with_its_meaning() {
        let table = error_kinds();
        let rows = table.as_array().unwrap();
        assert_eq!(rows.len(), ErrorKind::ALL.len());
        for (row, kind) in rows.iter().zip(ErrorKind::ALL) {
            assert_eq!(row["name"], kind.as_str());
            assert_eq!(row["code"].as_i64(), kind.code());
            assert!(!row["meaning"].as_str().unwrap().is_empty());
        }
        assert_eq!(ErrorKind::Timeout.code(), Some(jsonrpc::REQUEST_TIMEOUT));
        assert_eq!(ErrorKind::Config.code(), None);
    }

    #[test]
    fn foreign_errors_follow_one_rule() {
        let rpc = Error::from_foreign(Some("rpc"), Some(-32602), "bad", Some(serde_json::json!({"a": 1})), vec![]);
        assert_eq!(rpc, Error::rpc(-32602, "bad", Some(serde_json::json!({"a": 1}))));
        let cancelled = Error::from_foreign(Some("cancelled"), None, "stop", None, vec!["why".into()]);
        assert_eq!((cancelled.kind, cancelled.causes), (ErrorKind::Cancelled, vec!["why".to_owned()]));
        for (kind, code) in [(None, None), (Some("rpc"), None), (Some("no_such_kind"), Some(1))] {
            let error = Error::from_foreign(kind, code, "oops", None, vec![]);
            assert_eq!((error.kind, error.code), (ErrorKind::Handler, None), "{kind:?}");
        }
        let text = Error::from_foreign_text(Some("rpc"), Some(-32002), "gone", Some("{\"uri\":\"x\"}"), vec![]);
        assert_eq!(text.data, Some(serde_json::json!({"uri": "x"})));
        let garbled = Error::from_foreign_text(Some("rpc"), Some(-32002), "gone", Some("{"), vec![]);
        assert_eq!(garbled.data, None);
    }

    #[test]
    fn errors_cross_as_one_json_shape_and_bad_json_text_is_invalid_input() {
        let error = Error::rpc(-32602, "bad", Some(serde_json::json!([1]))).with_cause("inner");
        assert_eq!(
            error.to_json(),
            serde_json::json!({"kind": "rpc", "code": -32602, "message": "bad", "data": [1], "causes": ["inner"]})
        );
        assert_eq!(error.data_text().as_deref(), Some("[1]"));
        let bad = parse_json("{", "tool").unwrap_err();
        assert_eq!(bad.kind, ErrorKind::InvalidInput);
        assert!(bad.message.starts_with("tool is not valid JSON: "), "{}", bad.message);
        assert_eq!(parse_json("[1]", "tool").unwrap(), serde_json::json!([1]));
    }

    #[test]
    fn core_errors_keep_their_kind() {
        let timeout: Error = mcpweft::Error::Timeout(std::time::Duration::from_secs(1)).into();
        assert_eq!(timeout.kind, ErrorKind::Timeout);
        let io: Error = mcpweft::Error::Io(std::io::Error::other("disk")).into();
        assert_eq!(io.kind, ErrorKind::Io);
    }
}
