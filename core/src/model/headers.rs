//! Request headers of revision 2026-07-28 that mirror the body: `Mcp-Name` and the custom
//! `Mcp-Param-{Name}` headers a tool declares with `x-mcp-header` on its parameters, and the
//! Base64 sentinel encoding (`=?base64?...?=`) of values that are not plain header text.

use base64::Engine;
use serde_json::Value;

use super::JsonObject;

/// The schema keyword that mirrors a tool parameter into an `Mcp-Param-{Name}` header.
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// The prefix of custom parameter headers.
pub const PARAM_HEADER_PREFIX: &str = "Mcp-Param-";

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// The largest integer a header may mirror: JavaScript's safe range.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// One tool parameter mirrored into a header.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeaderParam {
    /// The chain of `properties` keys from the schema root to the parameter.
    pub path: Vec<String>,
    /// The header name without its prefix: the header is `Mcp-Param-{name}`.
    pub name: String,
}

impl HeaderParam {
    /// The full header name, `Mcp-Param-{name}`.
    pub fn header_name(&self) -> String {
        format!("{PARAM_HEADER_PREFIX}{}", self.name)
    }

    /// The parameter's value in a call's arguments; `None` when it is absent or `null` (the
    /// header is then omitted).
    pub fn body_value<'a>(&self, arguments: Option<&'a JsonObject>) -> Option<&'a Value> {
        let (last, parents) = self.path.split_last()?;
        let mut object = arguments?;
        for key in parents {
            object = object.get(key)?.as_object()?;
        }
        object.get(last).filter(|v| !v.is_null())
    }

    /// The parameter's value in a call's arguments as header text before encoding.
    pub fn value_in(&self, arguments: Option<&JsonObject>) -> Option<String> {
        self.body_value(arguments).and_then(header_text)
    }

    /// Creates a parameter at the given chain of `properties` keys, mirrored into the header
    /// `Mcp-Param-{name}`.
    pub fn new(path: Vec<String>, name: impl Into<String>) -> Self {
        Self { path, name: name.into() }
    }
}

/// A body value as header text: strings as they are, integers in decimal, booleans as
/// `true`/`false`; `None` for other values.
fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Returns the parameters of a tool's input schema mirrored into headers, or why the
/// annotations are invalid: a name that is not an HTTP token, two names equal but for case, an
/// annotated parameter that is not a string, integer or boolean, or an annotation not reachable
/// from the root through `properties` alone.
pub fn header_params(input_schema: &JsonObject) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    collect(input_schema, &mut Vec::new(), &mut found)?;
    let mut seen = std::collections::HashSet::new();
    for param in &found {
        if !seen.insert(param.name.to_ascii_lowercase()) {
            return Err(format!("the x-mcp-header name {:?} is used twice", param.name));
        }
    }
    if has_stray_annotation(&Value::Object(input_schema.clone()), true) {
        return Err("an x-mcp-header annotation is not reachable through properties alone".into());
    }
    Ok(found)
}

fn collect(schema: &JsonObject, path: &mut Vec<String>, found: &mut Vec<HeaderParam>) -> Result<(), String> {
    let Some(Value::Object(properties)) = schema.get("properties") else { return Ok(()) };
    for (key, property) in properties {
        let Value::Object(property) = property else { continue };
        path.push(key.clone());
        if let Some(name) = property.get(X_MCP_HEADER) {
            let Some(name) = name.as_str().filter(|n| is_token(n)) else {
                return Err(format!("the x-mcp-header of {} is not an HTTP header name", path.join(".")));
            };
            let kind = property.get("type").and_then(Value::as_str);
            if !matches!(kind, Some("string" | "integer" | "boolean")) {
                return Err(format!(
                    "the x-mcp-header parameter {} must be a string, integer or boolean",
                    path.join(".")
                ));
            }
            found.push(HeaderParam { path: path.clone(), name: name.to_owned() });
        }
        collect(property, path, found)?;
        path.pop();
    }
    Ok(())
}

/// Whether an annotation sits anywhere but on a property reached through `properties` keys.
fn has_stray_annotation(schema: &Value, reachable: bool) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(key, value)| {
            if key == X_MCP_HEADER {
                return !reachable;
            }
            if key == "properties"
                && reachable
                && let Value::Object(properties) = value
            {
                return properties.values().any(|p| has_stray_annotation(p, true));
            }
            has_stray_annotation(value, false)
        }),
        Value::Array(items) => items.iter().any(|v| has_stray_annotation(v, false)),
        _ => false,
    }
}

/// Whether `name` is an HTTP field-name token (RFC 9110 `1*tchar`).
fn is_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Encodes a value for a header: as is when it is plain header text, else as
/// `=?base64?{Base64 of its UTF-8}?=` (also when it looks like that form itself).
pub fn encode_header_value(value: &str) -> String {
    let visible = value.bytes().all(|b| b == b' ' || b == b'\t' || (0x21..=0x7e).contains(&b));
    let padded = value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']);
    let sentinel = value.starts_with(SENTINEL_START) && value.ends_with(SENTINEL_END);
    if visible && !padded && !sentinel {
        value.to_owned()
    } else {
        format!("{SENTINEL_START}{}{SENTINEL_END}", base64::engine::general_purpose::STANDARD.encode(value))
    }
}

/// Decodes a header value: the text inside `=?base64?...?=` when it has that form (strict
/// Base64 with padding, UTF-8), else the value itself; an error says what is wrong.
pub fn decode_header_value(raw: &str) -> Result<String, String> {
    let Some(encoded) = raw
        .strip_prefix(SENTINEL_START)
        .and_then(|rest| rest.strip_suffix(SENTINEL_END))
        .filter(|_| raw.len() >= SENTINEL_START.len() + SENTINEL_END.len())
    else {
        return Ok(raw.to_owned());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| format!("the Base64 of the header value is invalid: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "the Base64 of the header value is not UTF-8".to_owned())
}

/// Whether a header value (decoded) matches the body's value: numbers compare as numbers
/// (`42.0` matches `42`), everything else as text.
pub fn header_matches(header: &str, body: &Value) -> bool {
    match body {
        Value::Number(n) => match (header.trim().parse::<f64>(), n.as_f64()) {
            (Ok(h), Some(b)) => h == b && b.abs() <= MAX_SAFE_INTEGER as f64,
            _ => false,
        },
        other => header_text(other).is_some_and(|text| text == header),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn finds_annotated_parameters_and_refuses_bad_ones() {
        let schema = object(json!({ "type": "object", "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "nested": { "type": "object", "properties": { "n": { "type": "integer", "x-mcp-header": "N" } } },
            "query": { "type": "string" } } }));
        let params = header_params(&schema).unwrap();
        assert_eq!(params.len(), 2);
        assert_eq!(params[1].path, ["nested", "n"]);
        let args = object(json!({ "region": "us-west1", "nested": { "n": 42 } }));
        assert_eq!(params[0].value_in(Some(&args)).as_deref(), Some("us-west1"));
        assert_eq!(params[1].value_in(Some(&args)).as_deref(), Some("42"));
        assert_eq!(params[0].header_name(), "Mcp-Param-Region");

        let twice = object(json!({ "properties": {
            "a": { "type": "string", "x-mcp-header": "X" }, "b": { "type": "string", "x-mcp-header": "x" } } }));
        assert!(header_params(&twice).is_err());
        let number = object(json!({ "properties": { "a": { "type": "number", "x-mcp-header": "A" } } }));
        assert!(header_params(&number).is_err());
        let in_items = object(
            json!({ "properties": { "a": { "type": "array", "items": { "type": "string", "x-mcp-header": "A" } } } }),
        );
        assert!(header_params(&in_items).is_err());
        let bad_name = object(json!({ "properties": { "a": { "type": "string", "x-mcp-header": "A B" } } }));
        assert!(header_params(&bad_name).is_err());
    }

    #[test]
    fn encodes_and_decodes_values() {
        assert_eq!(encode_header_value("us-west1"), "us-west1");
        assert_eq!(encode_header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
        assert_eq!(decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(), "Hello, 世界");
        assert_eq!(decode_header_value("SGVsbG8=").unwrap(), "SGVsbG8=");
        assert_eq!(decode_header_value("=?base64?SGVsbG8=").unwrap(), "=?base64?SGVsbG8=");
        assert!(decode_header_value("=?base64?SGVsbG8?=").is_err(), "missing padding");
        assert!(decode_header_value("=?base64?SGVs!!!bG8=?=").is_err(), "not Base64");
        assert!(header_matches("42.0", &json!(42)));
        assert!(!header_matches("43", &json!(42)));
        assert!(header_matches("true", &json!(true)));
        assert!(!header_matches("42.0", &json!("42")));
    }
}
