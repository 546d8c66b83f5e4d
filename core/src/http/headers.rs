//! The checks of revision 2026-07-28's request headers against the body: `Mcp-Method`,
//! `Mcp-Name` (the tool or prompt name, resource URI or task id) and the `Mcp-Param-*` headers
//! of tool parameters annotated with `x-mcp-header`. A failed check is answered with
//! `HeaderMismatch` (-32020) and HTTP 400; so is a header sent more than once, since a proxy
//! and the server could each read a different copy.

use axum::http::HeaderMap;
use serde_json::Value;

use crate::{
    jsonrpc::{Request, quoted},
    model::{
        headers::{HeaderParam, decode_header_value, header_matches},
        methods,
    },
};

/// Returns why the headers of a 2026-07-28 request do not match its body, if they do not.
/// `header_params` gives the `x-mcp-header` parameters of a tool by name, when it is known.
pub(super) fn mismatch(
    header_params: impl FnOnce(&str) -> Option<Vec<HeaderParam>>,
    headers: &HeaderMap,
    request: &Request,
) -> Option<String> {
    let method = text(headers, "mcp-method").map(|r| r.map(str::trim));
    match method {
        Some(Ok(m)) if m == request.method => {}
        Some(Ok(m)) => {
            return Some(format!("the Mcp-Method header ({m}) does not match the method {}", quoted(&request.method)));
        }
        Some(Err(unreadable)) => return Some(unreadable.describe("Mcp-Method")),
        None => return Some(format!("the Mcp-Method header is missing (the method is {})", quoted(&request.method))),
    }
    let params = request.params.as_ref();
    let name_key = match request.method.as_str() {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => Some("taskId"),
        _ => None,
    };
    if let Some(key) = name_key
        && let Some(name) = params.and_then(|p| p.get(key)).and_then(Value::as_str)
    {
        let header = match text(headers, "mcp-name") {
            None => return Some(format!("the Mcp-Name header is missing (the request's {key} is {})", quoted(name))),
            Some(Err(unreadable)) => return Some(unreadable.describe("Mcp-Name")),
            Some(Ok(raw)) => match decode_header_value(raw.trim()) {
                Ok(decoded) => decoded,
                Err(e) => return Some(format!("the Mcp-Name header: {e}")),
            },
        };
        if header != name {
            return Some(format!("the Mcp-Name header ({}) does not match the request's {key}", quoted(&header)));
        }
    }
    if request.method == methods::TOOLS_CALL {
        let name = params.and_then(|p| p.get("name")).and_then(Value::as_str)?;
        let header_params = header_params(name)?;
        let arguments = params.and_then(|p| p.get("arguments")).and_then(Value::as_object);
        for param in &header_params {
            let header_name = param.header_name();
            let body = param.body_value(arguments);
            let header = match text(headers, &header_name) {
                None if body.is_none() => continue,
                None => return Some(format!("the {header_name} header is missing but the argument is set")),
                Some(Err(unreadable)) => return Some(unreadable.describe(&header_name)),
                Some(Ok(raw)) => match decode_header_value(raw.trim()) {
                    Ok(decoded) => decoded,
                    Err(e) => return Some(format!("the {header_name} header: {e}")),
                },
            };
            match body {
                Some(body) if header_matches(&header, body) => {}
                Some(_) => return Some(format!("the {header_name} header does not match the argument")),
                None => return Some(format!("the {header_name} header is set but the argument is not")),
            }
        }
    }
    None
}

/// Why a header's value cannot be checked.
enum Unreadable {
    /// The value is not visible ASCII.
    NotText,
    /// The header is sent more than once.
    Repeated,
}

impl Unreadable {
    /// The mismatch message for header `name`.
    fn describe(&self, name: &str) -> String {
        match self {
            Unreadable::NotText => format!("the {name} header is not visible ASCII text"),
            Unreadable::Repeated => format!("the {name} header is sent more than once"),
        }
    }
}

/// A header's one value as text: `None` when absent, an error when it is not visible ASCII or
/// is sent more than once.
fn text<'a>(headers: &'a HeaderMap, name: &str) -> Option<Result<&'a str, Unreadable>> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    if values.next().is_some() {
        return Some(Err(Unreadable::Repeated));
    }
    Some(first.to_str().map_err(|_| Unreadable::NotText))
}
