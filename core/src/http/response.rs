//! The JSON answers of the HTTP server's endpoints: a body with its status, and the JSON-RPC
//! error that refuses a request before any session sees it.

use axum::{
    body::Body,
    http::{HeaderValue, StatusCode, header},
    response::Response,
};

use crate::jsonrpc::{ErrorData, JsonRpcMessage};

/// A JSON-RPC error without an id, answered with `status`.
pub(super) fn error_response(status: StatusCode, code: i64, message: &str) -> Response {
    json_response(status, JsonRpcMessage::error(None, ErrorData::new(code, message)).encode())
}

/// A response with a JSON body.
pub(super) fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
