//! The resource-server side of the HTTP server: bearer tokens, challenges, scope checks and the
//! Protected Resource Metadata document.

use std::{
    sync::Arc,
    time::{SystemTime, UNIX_EPOCH},
};

use axum::{
    Json, Router,
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};

use crate::{
    auth::{AuthInfo, ResourceServerOptions, TokenError},
    jsonrpc::JsonRpcMessage,
    model::methods,
};

/// Checks the request's bearer token, returning who it speaks for or the response that
/// refuses it. The token is read from the `Authorization` header only, never from the URL.
pub(super) async fn authenticate(
    options: &ResourceServerOptions,
    headers: &HeaderMap,
) -> Result<Arc<AuthInfo>, Response> {
    let Some(token) = bearer_token(headers) else {
        return Err(challenge(options, StatusCode::UNAUTHORIZED, None, &options.required_scopes));
    };
    let invalid = |reason: &str| {
        tracing::debug!(reason, "a bearer token was refused");
        challenge(options, StatusCode::UNAUTHORIZED, Some(("invalid_token", reason)), &options.required_scopes)
    };
    let info = match options.verifier.verify(token).await {
        Ok(info) => info,
        Err(TokenError::Invalid(reason)) => return Err(invalid(&reason)),
        Err(TokenError::Unavailable(reason)) => {
            tracing::warn!(%reason, "a bearer token could not be verified");
            return Err(challenge(options, StatusCode::SERVICE_UNAVAILABLE, None, &[]));
        }
    };
    if !info.audience.is_empty() && !info.audience.iter().any(|a| same_resource(a, &options.resource)) {
        return Err(invalid("the token was issued for another resource"));
    }
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    if info.expires_at.is_some_and(|exp| exp.saturating_add(options.leeway.as_secs()) < now) {
        return Err(invalid("the token has expired"));
    }
    Ok(Arc::new(info))
}

/// Compares resource URLs, forgiving a trailing slash.
fn same_resource(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Returns the scopes a message needs that `caller` was not granted, or `None` when it has
/// them all.
pub(super) fn missing_scopes(
    options: &ResourceServerOptions,
    caller: &AuthInfo,
    message: &JsonRpcMessage,
) -> Option<Vec<String>> {
    let JsonRpcMessage::Request(request) = message else {
        return (!caller.has_scopes(&options.required_scopes)).then(|| options.required_scopes.clone());
    };
    let tool = (request.method == methods::TOOLS_CALL)
        .then(|| request.params.as_ref().and_then(|p| p.get("name")).and_then(|n| n.as_str()))
        .flatten();
    let needed = options.scopes_for(&request.method, tool);
    (!caller.has_scopes(&needed)).then_some(needed)
}

/// Answers `403 insufficient_scope`, naming every scope the operation needs.
pub(super) fn insufficient_scope(options: &ResourceServerOptions, needed: &[String]) -> Response {
    let reason = "the token lacks a scope this operation needs";
    challenge(options, StatusCode::FORBIDDEN, Some(("insufficient_scope", reason)), needed)
}

/// Answers with a `WWW-Authenticate: Bearer` challenge naming the metadata document, the
/// scopes and, for a refused token, the error.
fn challenge(
    options: &ResourceServerOptions,
    status: StatusCode,
    error: Option<(&str, &str)>,
    scopes: &[String],
) -> Response {
    let mut parts = Vec::new();
    if let Some((code, description)) = error {
        parts.push(format!("error=\"{code}\""));
        parts.push(format!("error_description=\"{}\"", quoted(description)));
    }
    if !scopes.is_empty() {
        parts.push(format!("scope=\"{}\"", quoted(&scopes.join(" "))));
    }
    parts.push(format!("resource_metadata=\"{}\"", quoted(&options.metadata_url())));
    let value = format!("Bearer {}", parts.join(", "));
    let message = match error {
        Some((code, description)) => format!("{code}: {description}"),
        None if status == StatusCode::UNAUTHORIZED => "Unauthorized: a bearer token is required".to_owned(),
        None => "Service Unavailable: the token could not be verified".to_owned(),
    };
    let code = if status == StatusCode::SERVICE_UNAVAILABLE { -32603 } else { -32001 };
    let mut response = super::response::error_response(status, code, &message);
    if status != StatusCode::SERVICE_UNAVAILABLE
        && let Ok(value) = HeaderValue::from_str(&value)
    {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// Keeps a challenge parameter a valid quoted string: no quotes, backslashes or control
/// characters.
fn quoted(text: &str) -> String {
    text.chars().map(|c| if c == '"' || c == '\\' || c.is_control() { '\'' } else { c }).collect()
}

/// Serves the Protected Resource Metadata document at its path-based well-known URL and, when
/// that differs, at the root one.
pub(super) fn metadata_routes(options: &ResourceServerOptions) -> Router {
    let document = Arc::new(options.metadata());
    let serve = move || {
        let document = document.clone();
        async move { ([(header::CACHE_CONTROL, "max-age=3600")], Json(document.as_ref().clone())).into_response() }
    };
    let path = options.metadata_path();
    let root = "/.well-known/oauth-protected-resource";
    let router = Router::new().route(&path, get(serve.clone()));
    if path == root { router } else { router.route(root, get(serve)) }
}
