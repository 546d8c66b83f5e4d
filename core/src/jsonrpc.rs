//! JSON-RPC 2.0 envelopes as MCP uses them, and the one codec that turns bytes into them.
//!
//! MCP narrows JSON-RPC: ids are strings or integers (never `null`), batches are not allowed,
//! and `params` is an object when present. [`JsonRpcMessage::decode`] applies those rules once
//! for every transport and reports each violation with the JSON-RPC error code the peer must
//! receive. A message is read only from a JSON object with each key at most once: an array is
//! never taken for a message, whatever its items look like.

use std::{borrow::Cow, fmt};

use serde::{
    Deserialize, Deserializer, Serialize, Serializer,
    de::{Error as _, IgnoredAny, MapAccess, Visitor},
};
use serde_json::{Value, value::RawValue};

use crate::json_write;

/// Returns `value` as compact JSON text, byte for byte what `serde_json::to_string` gives.
///
/// It is written by the writer of this crate's messages, which checks sixteen bytes of a string
/// at a time for the characters JSON must escape and copies each run without one at once: a
/// large text costs a fraction of what `serde_json`'s writer, which looks at every byte through
/// a table, costs. The language bindings hand payloads to their handlers as this text.
///
/// The text is written into one allocation sized from the value's strings (a 64 KiB text is not
/// copied again when the buffer grows) and is not checked for UTF-8 afterwards.
pub fn to_json_text(value: &Value) -> String {
    let mut out = Vec::with_capacity(json_write::size_hint(value));
    json_write::write_value(&mut out, value);
    debug_assert!(std::str::from_utf8(&out).is_ok());
    // SAFETY: the writer copies whole `&str`s or the runs of one between the ASCII bytes it
    // escapes, so every character it copies is whole, and writes only ASCII of its own.
    unsafe { String::from_utf8_unchecked(out) }
}

/// The error code for input that is not valid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The error code for JSON that is not a valid JSON-RPC request.
pub const INVALID_REQUEST: i64 = -32600;
/// The error code for a method the receiver does not offer.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The error code for parameters that do not match what the method takes.
pub const INVALID_PARAMS: i64 = -32602;
/// The error code for a failure inside the receiver.
pub const INTERNAL_ERROR: i64 = -32603;
/// The MCP error code for a resource that does not exist.
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// The MCP error code that asks the client to complete a URL-mode elicitation first.
pub const URL_ELICITATION_REQUIRED: i64 = -32042;
/// The error code this implementation uses when a request timed out before its response came.
pub const REQUEST_TIMEOUT: i64 = -32001;
/// Revision 2026-07-28: an HTTP header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) does
/// not match the request's body.
pub const HEADER_MISMATCH: i64 = -32020;
/// Revision 2026-07-28: the request needs a client capability the client did not declare.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// Revision 2026-07-28: the server does not support the request's protocol version.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// The error code a client transport of this implementation gives a request it could not
/// deliver because the server could not be reached (a refused or failed connection), as the
/// official SDKs' "connection closed"; such an error is local, never sent by the peer.
pub const CONNECTION_CLOSED: i64 = -32000;
/// The error code this implementation answers with when a session already runs as many
/// requests as its limit allows; the request was not started and may be sent again later.
pub const TOO_MANY_REQUESTS: i64 = -32003;

/// The most bytes of peer-supplied text (a method name, a tool name, an id) that an error
/// message quotes; longer text is cut at a character boundary and marked with `…`.
pub const MAX_QUOTED_LEN: usize = 128;

/// Returns `text` as an error message may quote it: at most [`MAX_QUOTED_LEN`] bytes, cut at a
/// character boundary and marked with `…` when it was longer.
pub fn quoted(text: &str) -> Cow<'_, str> {
    if text.len() <= MAX_QUOTED_LEN {
        return Cow::Borrowed(text);
    }
    let mut end = MAX_QUOTED_LEN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…", &text[..end]))
}

/// The identifier of a request: a string or an integer, echoed with its original JSON type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

/// Shows a number as is and a string quoted, cut to [`MAX_QUOTED_LEN`] bytes like every
/// peer-supplied text in an error message.
impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{:?}", quoted(s)),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}

/// The error object of a JSON-RPC error response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} (code {code})")]
pub struct ErrorData {
    /// The numeric error code.
    pub code: i64,
    /// A short description of the error.
    pub message: String,
    /// Extra information about the error, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorData {
    /// Creates an error with the given code and message and no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorData { code, message: message.into(), data: None }
    }

    /// Attaches data to the error.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// Creates a parse error (-32700).
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(PARSE_ERROR, message)
    }

    /// Creates an invalid-request error (-32600).
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(INVALID_REQUEST, message)
    }

    /// Creates a method-not-found error (-32601) naming the method, cut to
    /// [`MAX_QUOTED_LEN`] bytes.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("Method not found: {}", quoted(method)))
    }

    /// Creates an invalid-params error (-32602).
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    /// Creates an internal error (-32603).
    pub fn internal_error(message: impl Into<String>) -> Self {
        Self::new(INTERNAL_ERROR, message)
    }

    /// Creates a resource-not-found error (-32002) whose data names the URI; the message
    /// quotes it cut to [`MAX_QUOTED_LEN`] bytes.
    pub fn resource_not_found(uri: &str) -> Self {
        Self::new(RESOURCE_NOT_FOUND, format!("Resource not found: {}", quoted(uri)))
            .with_data(serde_json::json!({ "uri": uri }))
    }

    /// Creates the error (-32003) that refuses a request because the session already runs
    /// `limit` requests.
    pub fn too_many_requests(limit: usize) -> Self {
        Self::new(
            TOO_MANY_REQUESTS,
            format!(
                "Too many requests in flight: this session runs at most {limit} at once; retry after some complete"
            ),
        )
        .with_data(serde_json::json!({ "limit": limit }))
    }
}

/// Returns the `_meta` member of request or notification params.
///
/// Params hold a handful of members, so they are scanned in order: a lookup in an ordered map
/// hashes the key with SipHash, which costs more than comparing it with each member.
pub(crate) fn meta_of(params: Option<&Value>) -> Option<&Value> {
    let params = params?.as_object()?;
    if params.len() > 8 {
        return params.get("_meta");
    }
    params.iter().find_map(|(key, value)| (key == "_meta").then_some(value))
}

/// The `"jsonrpc": "2.0"` marker, which serializes to the version string.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Version2;

impl Serialize for Version2 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for Version2 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = <&str>::deserialize(d)?;
        if v == "2.0" { Ok(Version2) } else { Err(D::Error::custom("jsonrpc must be \"2.0\"")) }
    }
}

/// A request: it has an id and expects exactly one response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The protocol marker.
    pub jsonrpc: Version2,
    /// The id the response will echo.
    pub id: RequestId,
    /// The method to invoke.
    pub method: String,
    /// The parameters, an object when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

/// A notification: it has no id and gets no response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// The protocol marker.
    pub jsonrpc: Version2,
    /// The notification's method.
    pub method: String,
    /// The parameters, an object when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

/// A successful response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The protocol marker.
    pub jsonrpc: Version2,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result object.
    pub result: Value,
}

/// A successful response whose result was encoded straight from its typed form: writers copy
/// the JSON text as it is, and no [`Value`] is built on the way.
#[derive(Clone, Debug)]
pub struct EncodedResponse {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result object, as compact JSON text.
    pub result: Box<RawValue>,
}

impl EncodedResponse {
    /// Returns the response with its result decoded into a [`Value`].
    pub fn to_response(&self) -> Response {
        Response { jsonrpc: Version2, id: self.id.clone(), result: decode_raw(&self.result) }
    }
}

/// Decodes JSON text the crate encoded from a typed value; such text always reads back.
pub(crate) fn decode_raw(text: &RawValue) -> Value {
    serde_json::from_str(text.get()).unwrap_or(Value::Null)
}

impl PartialEq for EncodedResponse {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.result.get() == other.result.get()
    }
}

impl Serialize for EncodedResponse {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut response = s.serialize_struct("EncodedResponse", 3)?;
        response.serialize_field("jsonrpc", &Version2)?;
        response.serialize_field("id", &self.id)?;
        response.serialize_field("result", &self.result)?;
        response.end()
    }
}

/// An error response; the id is absent when the request's id could not be read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorResponse {
    /// The protocol marker.
    pub jsonrpc: Version2,
    /// The id of the request this answers, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorData,
}

/// Any JSON-RPC message MCP allows on the wire.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum JsonRpcMessage {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A successful response.
    Response(Response),
    /// A successful response whose result is already encoded; decoding never makes one.
    Encoded(EncodedResponse),
    /// An error response.
    Error(ErrorResponse),
}

/// Why bytes could not be decoded into a [`JsonRpcMessage`], with what to answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{error}")]
pub struct DecodeError {
    /// The id of the offending request, when it could be read.
    pub id: Option<RequestId>,
    /// The error to send back.
    pub error: ErrorData,
    /// Whether the peer expects an answer: false for broken notifications and responses.
    pub answerable: bool,
}

impl DecodeError {
    fn invalid(id: Option<RequestId>, message: impl Into<String>, answerable: bool) -> Self {
        DecodeError { id, error: ErrorData::invalid_request(message), answerable }
    }
}

/// The loosest shape a message may have; [`JsonRpcMessage::decode`] checks the rest.
///
/// A present field is `Some` even when it is `null`, so that `null` and absence can be told
/// apart. It is read only from a JSON object (never from an array, as a derived
/// implementation would allow), and a known key that appears twice is refused.
#[derive(Default)]
struct RawMessage {
    jsonrpc: Option<IsVersion2>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
}

impl<'de> Deserialize<'de> for RawMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = RawMessage;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawMessage, A::Error> {
        let mut raw = RawMessage::default();
        while let Some(key) = map.next_key::<Key>()? {
            let slot = match key {
                Key::Jsonrpc => {
                    if raw.jsonrpc.replace(map.next_value()?).is_some() {
                        return Err(A::Error::custom("duplicate key \"jsonrpc\""));
                    }
                    continue;
                }
                Key::Id => &mut raw.id,
                Key::Method => &mut raw.method,
                Key::Params => &mut raw.params,
                Key::Result => &mut raw.result,
                Key::Error => &mut raw.error,
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            if slot.is_some() {
                return Err(A::Error::custom(format_args!("duplicate key \"{}\"", key.name())));
            }
            *slot = Some(map.next_value()?);
        }
        Ok(raw)
    }
}

/// Whether the `jsonrpc` member of a message is the string `"2.0"`, read from any JSON value
/// without copying it.
struct IsVersion2(bool);

impl<'de> Deserialize<'de> for IsVersion2 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct VersionVisitor;
        impl<'de> Visitor<'de> for VersionVisitor {
            type Value = IsVersion2;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<IsVersion2, E> {
                Ok(IsVersion2(v == "2.0"))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<IsVersion2, E> {
                Ok(IsVersion2(false))
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<IsVersion2, E> {
                Ok(IsVersion2(false))
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<IsVersion2, E> {
                Ok(IsVersion2(false))
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<IsVersion2, E> {
                Ok(IsVersion2(false))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<IsVersion2, E> {
                Ok(IsVersion2(false))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<IsVersion2, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IsVersion2(false))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<IsVersion2, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(IsVersion2(false))
            }
        }
        d.deserialize_any(VersionVisitor)
    }
}

/// A key of a message object: one the envelope uses, or any other.
#[derive(Clone, Copy)]
enum Key {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl Key {
    fn name(self) -> &'static str {
        match self {
            Key::Jsonrpc => "jsonrpc",
            Key::Id => "id",
            Key::Method => "method",
            Key::Params => "params",
            Key::Result => "result",
            Key::Error => "error",
            Key::Other => "",
        }
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "jsonrpc" => Key::Jsonrpc,
                    "id" => Key::Id,
                    "method" => Key::Method,
                    "params" => Key::Params,
                    "result" => Key::Result,
                    "error" => Key::Error,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

/// What a message that is not a well-formed object is, for the error that refuses it.
fn misshapen(bytes: &[u8], error: &serde_json::Error) -> DecodeError {
    // A data error may come before the end of the input: whether the whole input is JSON
    // decides between a parse error and an invalid request.
    if let Err(e) = serde_json::from_slice::<IgnoredAny>(bytes) {
        return DecodeError { id: None, error: ErrorData::parse_error(format!("Parse error: {e}")), answerable: true };
    }
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let message = match first {
        Some(b'[') => {
            Cow::Borrowed("JSON-RPC batches are not supported: send each message as one JSON object, not in an array")
        }
        Some(b'{') => Cow::Owned(format!("invalid JSON-RPC message: {error}")),
        _ => Cow::Borrowed("a JSON-RPC message must be a JSON object"),
    };
    DecodeError::invalid(None, message, true)
}

/// Appends the `id` member of an envelope.
fn write_id(out: &mut Vec<u8>, id: &RequestId) {
    out.extend_from_slice(br#","id":"#);
    match id {
        RequestId::Number(n) => json_write::write_i64(out, *n),
        RequestId::String(s) => json_write::write_str(out, s),
    }
}

/// Appends the `method` and `params` members of a request or notification.
fn write_method(out: &mut Vec<u8>, method: &str, params: Option<&Value>) {
    out.extend_from_slice(br#","method":"#);
    json_write::write_str(out, method);
    if let Some(params) = params {
        out.extend_from_slice(br#","params":"#);
        json_write::write_value(out, params);
    }
}

impl JsonRpcMessage {
    /// Decodes one message, enforcing the MCP rules on ids, batches and envelopes.
    #[allow(
        clippy::result_large_err,
        reason = "a decoded message is nearly as large as the error, so boxing the error would not shrink the result"
    )]
    pub fn decode(bytes: &[u8]) -> Result<JsonRpcMessage, DecodeError> {
        // The text is checked for UTF-8 once, here: read from a `str`, serde_json takes each
        // string of it as it is instead of checking every one again.
        let text = std::str::from_utf8(bytes).map_err(|e| DecodeError {
            id: None,
            error: ErrorData::parse_error(format!("Parse error: the message is not UTF-8 ({e})")),
            answerable: true,
        })?;
        let raw: RawMessage = match serde_json::from_str(text) {
            Ok(raw) => raw,
            Err(e) if e.is_data() => return Err(misshapen(bytes, &e)),
            Err(e) => {
                return Err(DecodeError {
                    id: None,
                    error: ErrorData::parse_error(format!("Parse error: {e}")),
                    answerable: true,
                });
            }
        };
        raw.into_message()
    }

    /// Encodes the message as compact JSON with no newline.
    ///
    /// The buffer is sized from the message's strings first, so that a large message is written
    /// into one allocation instead of one that doubles (and is copied) a dozen times.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_size_hint());
        self.encode_into(&mut out);
        out
    }

    /// Appends the message as compact JSON with no newline, exactly as its `Serialize`
    /// implementation writes it, but scanning strings for escapes many bytes at a time.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(br#"{"jsonrpc":"2.0""#);
        match self {
            JsonRpcMessage::Request(request) => {
                write_id(out, &request.id);
                write_method(out, &request.method, request.params.as_ref());
            }
            JsonRpcMessage::Notification(notification) => {
                write_method(out, &notification.method, notification.params.as_ref());
            }
            JsonRpcMessage::Response(response) => {
                write_id(out, &response.id);
                out.extend_from_slice(br#","result":"#);
                json_write::write_value(out, &response.result);
            }
            JsonRpcMessage::Encoded(response) => {
                write_id(out, &response.id);
                out.extend_from_slice(br#","result":"#);
                out.extend_from_slice(response.result.get().as_bytes());
            }
            JsonRpcMessage::Error(error) => {
                if let Some(id) = &error.id {
                    write_id(out, id);
                }
                out.extend_from_slice(br#","error":{"code":"#);
                json_write::write_i64(out, error.error.code);
                out.extend_from_slice(br#","message":"#);
                json_write::write_str(out, &error.error.message);
                if let Some(data) = &error.error.data {
                    out.extend_from_slice(br#","data":"#);
                    json_write::write_value(out, data);
                }
                out.push(b'}');
            }
        }
        out.push(b'}');
    }

    /// About how many bytes the message takes once encoded, when its strings need no escapes.
    fn encoded_size_hint(&self) -> usize {
        let body = match self {
            JsonRpcMessage::Request(r) => r.method.len() + r.params.as_ref().map_or(0, json_write::size_hint),
            JsonRpcMessage::Notification(n) => n.method.len() + n.params.as_ref().map_or(0, json_write::size_hint),
            JsonRpcMessage::Response(r) => json_write::size_hint(&r.result),
            JsonRpcMessage::Encoded(r) => r.result.get().len(),
            JsonRpcMessage::Error(e) => e.error.message.len() + e.error.data.as_ref().map_or(0, json_write::size_hint),
        };
        // The envelope: `jsonrpc`, the id and the member names.
        body + 64
    }

    /// Creates a request.
    pub fn request(id: RequestId, method: impl Into<String>, params: Option<Value>) -> Self {
        JsonRpcMessage::Request(Request { jsonrpc: Version2, id, method: method.into(), params })
    }

    /// Creates a notification.
    pub fn notification(method: impl Into<String>, params: Option<Value>) -> Self {
        JsonRpcMessage::Notification(Notification { jsonrpc: Version2, method: method.into(), params })
    }

    /// Creates a successful response.
    pub fn response(id: RequestId, result: Value) -> Self {
        JsonRpcMessage::Response(Response { jsonrpc: Version2, id, result })
    }

    /// Creates an error response.
    pub fn error(id: Option<RequestId>, error: ErrorData) -> Self {
        JsonRpcMessage::Error(ErrorResponse { jsonrpc: Version2, id, error })
    }

    /// Returns the id of the request a response or error answers.
    pub fn answers(&self) -> Option<&RequestId> {
        match self {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Encoded(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_) => None,
        }
    }

    /// Returns whether the message answers a request: a response or an error.
    pub fn is_answer(&self) -> bool {
        matches!(self, JsonRpcMessage::Response(_) | JsonRpcMessage::Encoded(_) | JsonRpcMessage::Error(_))
    }

    /// Returns the method name of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            JsonRpcMessage::Request(r) => Some(&r.method),
            JsonRpcMessage::Notification(n) => Some(&n.method),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for JsonRpcMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawMessage::deserialize(d)?;
        raw.into_message().map_err(|e| D::Error::custom(e.error.message))
    }
}

fn read_id(v: Value) -> Result<RequestId, &'static str> {
    match v {
        Value::String(s) => Ok(RequestId::String(s)),
        Value::Number(n) => n.as_i64().map(RequestId::Number).ok_or("id must be an integer or a string"),
        Value::Null => Err("id must not be null"),
        _ => Err("id must be an integer or a string"),
    }
}

impl RawMessage {
    #[allow(
        clippy::result_large_err,
        reason = "a decoded message is nearly as large as the error, so boxing the error would not shrink the result"
    )]
    fn into_message(self) -> Result<JsonRpcMessage, DecodeError> {
        let is_request = self.method.is_some() && self.id.is_some();
        let has_method = self.method.is_some();
        let id = match self.id {
            None => None,
            Some(v) => match read_id(v) {
                Ok(id) => Some(id),
                Err(why) => return Err(DecodeError::invalid(None, why, true)),
            },
        };
        if !self.jsonrpc.is_some_and(|version| version.0) {
            return Err(DecodeError::invalid(id, "jsonrpc must be \"2.0\"", is_request || !has_method));
        }
        if let Some(method) = self.method {
            let Value::String(method) = method else {
                let answerable = id.is_some();
                return Err(DecodeError::invalid(id, "method must be a string", answerable));
            };
            if self.result.is_some() || self.error.is_some() {
                let answerable = id.is_some();
                return Err(DecodeError::invalid(id, "a request carries no result or error", answerable));
            }
            let params = match self.params {
                None => None,
                Some(p @ Value::Object(_)) => Some(p),
                Some(_) => {
                    return Err(DecodeError {
                        answerable: id.is_some(),
                        id,
                        error: ErrorData::invalid_params("params must be an object"),
                    });
                }
            };
            return Ok(match id {
                Some(id) => JsonRpcMessage::Request(Request { jsonrpc: Version2, id, method, params }),
                None => JsonRpcMessage::Notification(Notification { jsonrpc: Version2, method, params }),
            });
        }
        match (self.result, self.error) {
            (Some(_), Some(_)) => Err(DecodeError::invalid(id, "a response has a result or an error, not both", false)),
            (Some(result), None) => match id {
                Some(id) => Ok(JsonRpcMessage::response(id, result)),
                None => Err(DecodeError::invalid(None, "a result response needs an id", false)),
            },
            (None, Some(error)) => match serde_json::from_value::<ErrorData>(error) {
                Ok(error) => Ok(JsonRpcMessage::error(id, error)),
                Err(_) => Err(DecodeError::invalid(id, "malformed error object", false)),
            },
            (None, None) => Err(DecodeError::invalid(id, "a message needs a method, a result or an error", true)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_is_what_serde_json_writes() {
        let long = "0123456789abcdef\"\\\n\u{1}é😀".repeat(300);
        let value = serde_json::json!({"text": long, "list": [1, -2.5, null, true, {"k\u{7f}": "v\t"}], "empty": {}});
        assert_eq!(to_json_text(&value), serde_json::to_string(&value).unwrap());
    }

    #[test]
    fn json_text_outgrows_its_size_hint_whole() {
        // Escapes, numbers and nesting past the hint's depth write more than the hint counts.
        let mut deep = serde_json::json!(["\u{0}".repeat(100), 12345678901234567u64, "日本語😀"]);
        for _ in 0..40 {
            deep = serde_json::json!({"n": [deep, "\"\"\"", -1.25]});
        }
        for value in [deep, Value::String("\u{1}\u{1f}\"".repeat(5000)), Value::String("😀".repeat(20000)), Value::Null]
        {
            let text = to_json_text(&value);
            assert_eq!(text, serde_json::to_string(&value).unwrap());
            assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
        }
    }

    fn decode(s: &str) -> Result<JsonRpcMessage, Box<DecodeError>> {
        JsonRpcMessage::decode(s.as_bytes()).map_err(Box::new)
    }

    #[test]
    fn ids_keep_their_type() {
        let m = decode(r#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#).unwrap();
        let JsonRpcMessage::Request(r) = &m else { panic!("not a request") };
        assert_eq!(r.id, RequestId::String("7".into()));
        let reply = JsonRpcMessage::response(r.id.clone(), serde_json::json!({}));
        assert_eq!(String::from_utf8(reply.encode()).unwrap(), r#"{"jsonrpc":"2.0","id":"7","result":{}}"#);
        let m = decode(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#).unwrap();
        assert_eq!(String::from_utf8(m.encode()).unwrap(), r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
    }

    #[test]
    fn an_encoded_response_is_written_serialized_and_read_as_the_response_it_stands_for() {
        let result = serde_json::json!({ "content": [{ "type": "text", "text": "a \"quoted\" line\n" }], "n": 1.5 });
        let plain = JsonRpcMessage::response(RequestId::Number(7), result.clone());
        let raw = serde_json::value::to_raw_value(&result).unwrap();
        let encoded = JsonRpcMessage::Encoded(EncodedResponse { id: RequestId::Number(7), result: raw });
        assert_eq!(encoded.encode(), plain.encode());
        assert_eq!(serde_json::to_string(&encoded).unwrap(), serde_json::to_string(&plain).unwrap());
        assert_eq!(decode(std::str::from_utf8(&encoded.encode()).unwrap()).unwrap(), plain);
        let JsonRpcMessage::Encoded(response) = &encoded else { unreachable!() };
        assert_eq!(JsonRpcMessage::Response(response.to_response()), plain);
        assert_eq!(encoded.answers(), Some(&RequestId::Number(7)));
        assert!(encoded.is_answer() && plain.is_answer());
        assert_eq!(encoded.method(), None);
    }

    #[test]
    fn a_large_message_is_encoded_into_one_allocation() {
        let text = "x".repeat(70_000);
        let result = serde_json::json!({"content": [{"type": "text", "text": text}], "n": [1, 2.5, null]});
        let reply = JsonRpcMessage::response(RequestId::Number(3), result);
        let encoded = reply.encode();
        assert_eq!(encoded, serde_json::to_vec(&reply).unwrap());
        assert!(encoded.capacity() <= encoded.len() + 128, "{} bytes in {}", encoded.len(), encoded.capacity());
    }

    #[test]
    fn every_kind_of_message_is_encoded_as_serde_would_write_it() {
        let params =
            serde_json::json!({"name": "t\u{1}\"x\"", "arguments": {"n": -3, "f": 0.25, "list": [true, null]}});
        let messages = [
            JsonRpcMessage::request(RequestId::Number(-9), "tools/call", Some(params.clone())),
            JsonRpcMessage::request(RequestId::String("a\nb".into()), "ping", None),
            JsonRpcMessage::notification("notifications/progress", Some(params.clone())),
            JsonRpcMessage::notification("notifications/initialized", None),
            JsonRpcMessage::response(RequestId::Number(i64::MAX), params.clone()),
            JsonRpcMessage::error(None, ErrorData::new(PARSE_ERROR, "Parse error: \"x\"")),
            JsonRpcMessage::error(Some(RequestId::from("r")), ErrorData::new(-32602, "bad").with_data(params)),
        ];
        for message in messages {
            let mut appended = b"prefix".to_vec();
            message.encode_into(&mut appended);
            assert_eq!(appended[6..], serde_json::to_vec(&message).unwrap());
            assert_eq!(message.encode(), serde_json::to_vec(&message).unwrap());
        }
    }

    #[test]
    fn malformed_json_is_a_parse_error_without_id() {
        let e = decode(r#"{"jsonrpc":"2.0","id":1,"method":"#).unwrap_err();
        assert_eq!(e.error.code, PARSE_ERROR);
        assert_eq!(e.id, None);
        let reply = JsonRpcMessage::error(e.id, e.error);
        let v: Value = serde_json::from_slice(&reply.encode()).unwrap();
        assert!(v.get("id").is_none(), "an error for an unreadable id omits it: {v}");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_a_parse_error_naming_the_byte() {
        let mut bytes = br#"{"jsonrpc":"2.0","id":1,"method":"pi"#.to_vec();
        bytes.extend_from_slice(&[0xff, b'"', b'}']);
        let e = JsonRpcMessage::decode(&bytes).unwrap_err();
        assert_eq!(e.error.code, PARSE_ERROR);
        assert_eq!(e.id, None);
        assert!(e.error.message.contains("not UTF-8") && e.error.message.contains("index 36"), "{}", e.error.message);
    }

    #[test]
    fn envelope_violations_are_invalid_requests() {
        for (input, id) in [
            (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, None),
            (r#""hello""#, None),
            (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, None),
            (r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#, Some(RequestId::Number(3))),
            (r#"{"jsonrpc":2.0,"id":3,"method":"ping"}"#, Some(RequestId::Number(3))),
            (r#"{"jsonrpc":null,"id":3,"method":"ping"}"#, Some(RequestId::Number(3))),
            (r#"{"jsonrpc":["2.0"],"id":3,"method":"ping"}"#, Some(RequestId::Number(3))),
            (r#"{"jsonrpc":{"v":"2.0"},"id":3,"method":"ping"}"#, Some(RequestId::Number(3))),
            (r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":3,"method":"ping"}"#, None),
            (r#"{"id":4,"method":"ping"}"#, Some(RequestId::Number(4))),
            (r#"{"jsonrpc":"2.0","id":5,"method":12}"#, Some(RequestId::Number(5))),
            (r#"{"jsonrpc":"2.0","id":6}"#, Some(RequestId::Number(6))),
        ] {
            let e = decode(input).unwrap_err();
            assert_eq!(e.error.code, INVALID_REQUEST, "{input}");
            assert_eq!(e.id, id, "{input}");
        }
    }

    #[test]
    fn arrays_are_never_messages() {
        for input in [
            r#"["2.0", 1, "ping"]"#,
            r#"  ["2.0", 1, "tools/call", {"name": "echo"}]"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            "[]",
        ] {
            let e = decode(input).unwrap_err();
            assert_eq!(e.error.code, INVALID_REQUEST, "{input}");
            assert!(e.error.message.contains("batches are not supported"), "{input}: {}", e.error.message);
            let parsed: Result<JsonRpcMessage, _> = serde_json::from_str(input);
            assert!(parsed.is_err(), "{input} deserialized as a message");
        }
    }

    #[test]
    fn errors_name_the_real_problem() {
        let e = decode(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#).unwrap_err();
        assert_eq!(e.error.code, INVALID_REQUEST);
        assert!(e.error.message.contains(r#"duplicate key "id""#), "{}", e.error.message);
        assert!(!e.error.message.contains("must be a JSON object"), "{}", e.error.message);
        // Unknown keys may repeat; they are ignored.
        assert!(decode(r#"{"jsonrpc":"2.0","x":1,"x":2,"method":"ping"}"#).is_ok());
        // Escaped keys are recognised.
        let e = decode(r#"{"jsonrpc":"2.0","\u006dethod":"a","method":"b"}"#).unwrap_err();
        assert!(e.error.message.contains(r#"duplicate key "method""#), "{}", e.error.message);
        // Broken JSON is a parse error even when its start looks like the wrong type.
        assert_eq!(decode("[1, 2").unwrap_err().error.code, PARSE_ERROR);
        assert_eq!(decode("42").unwrap_err().error.message, "a JSON-RPC message must be a JSON object");
    }

    #[test]
    fn quoted_peer_text_is_cut() {
        let method = "m".repeat(1 << 20);
        let e = ErrorData::method_not_found(&method);
        assert!(e.message.len() < 200, "{} bytes", e.message.len());
        assert!(e.message.ends_with('…'));
        // A cut never splits a character.
        let wide = "é".repeat(100);
        assert!(quoted(&wide).ends_with('…'));
        assert_eq!(quoted("short"), "short");
        let id = RequestId::String("i".repeat(10_000));
        assert!(id.to_string().len() < 200);
    }

    #[test]
    fn non_object_params_are_invalid_params() {
        let e = decode(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}"#).unwrap_err();
        assert_eq!(e.error.code, INVALID_PARAMS);
        assert_eq!(e.id, Some(RequestId::Number(1)));
    }

    #[test]
    fn classifies_every_kind() {
        assert!(matches!(decode(r#"{"jsonrpc":"2.0","method":"x"}"#), Ok(JsonRpcMessage::Notification(_))));
        assert!(matches!(decode(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Ok(JsonRpcMessage::Response(_))));
        let e = decode(r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}"#).unwrap();
        assert!(matches!(e, JsonRpcMessage::Error(ErrorResponse { id: None, .. })));
        let m = decode(r#"{"jsonrpc":"2.0","id":1,"method":"x","extra":true,"params":{"a":1}}"#).unwrap();
        assert_eq!(m.method(), Some("x"));
    }
}
