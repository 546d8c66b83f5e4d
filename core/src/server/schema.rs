//! The compiled schemas of a tool, built when they are first needed.
//!
//! Compiling a schema checks it against the JSON Schema meta-schema, whose own validator takes
//! millions of instructions to build, once per process: most of what a small server did before
//! it could answer `initialize`. A schema made of the common keywords only (types, properties,
//! items, required, bounds, annotations) is checked here by hand instead, which is enough to know
//! it is valid, and compiled on its first use; any other schema is compiled, and so checked,
//! when the tool is registered.

use std::sync::OnceLock;

use serde_json::Value;

use crate::{Error, model::JsonObject};

/// The meta-schema of the default dialect, which a root schema may name (as schemars does).
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The deepest nesting of subschemas the hand check follows before it leaves a schema to the
/// meta-schema.
const MAX_DEPTH: usize = 32;

/// A tool's schema and, once needed, its validator.
pub(crate) struct ToolSchema {
    source: Value,
    validator: OnceLock<Result<jsonschema::Validator, String>>,
}

impl ToolSchema {
    /// Checks `schema` (the `kind` of `tool`), compiling it now unless the hand check already
    /// knows it is valid.
    pub(crate) fn new(tool: &str, kind: &str, schema: &JsonObject) -> Result<ToolSchema, Error> {
        let source = Value::Object(schema.clone());
        let validator = OnceLock::new();
        if !is_plain_schema(&source, 0) {
            let compiled = jsonschema::validator_for(&source)
                .map_err(|e| Error::Config(format!("the {kind} of tool {tool} is not a valid JSON Schema: {e}")))?;
            let _ = validator.set(Ok(compiled));
        }
        Ok(ToolSchema { source, validator })
    }

    /// The validator, compiled on first use; an error only if the schema, which passed the
    /// hand check, still fails to compile.
    pub(crate) fn validator(&self) -> Result<&jsonschema::Validator, &str> {
        self.validator
            .get_or_init(|| jsonschema::validator_for(&self.source).map_err(|e| format!("invalid JSON Schema: {e}")))
            .as_ref()
            .map_err(String::as_str)
    }
}

/// Whether `schema` holds only keywords whose values the hand check knows are valid under the
/// 2020-12 meta-schema (the default dialect; a schema naming another `$schema` is left to the
/// meta-schema).
fn is_plain_schema(schema: &Value, depth: usize) -> bool {
    match schema {
        Value::Bool(_) => true,
        Value::Object(map) => depth < MAX_DEPTH && map.iter().all(|(key, value)| is_plain_keyword(key, value, depth)),
        _ => false,
    }
}

fn is_plain_keyword(key: &str, value: &Value, depth: usize) -> bool {
    match key {
        "type" => match value {
            Value::String(name) => is_type_name(name),
            Value::Array(names) => {
                !names.is_empty() && names.iter().all(|n| n.as_str().is_some_and(is_type_name)) && all_unique(names)
            }
            _ => false,
        },
        "properties" => value.as_object().is_some_and(|map| map.values().all(|s| is_plain_schema(s, depth + 1))),
        "items" | "additionalProperties" => is_plain_schema(value, depth + 1),
        "required" => value.as_array().is_some_and(|names| names.iter().all(Value::is_string) && all_unique(names)),
        "$schema" => depth == 0 && value.as_str().is_some_and(|uri| uri.trim_end_matches('#') == DRAFT_2020_12),
        "title" | "description" | "format" | "$comment" => value.is_string(),
        "default" | "const" => true,
        "enum" | "examples" => value.as_array().is_some_and(|items| !items.is_empty()),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => value.is_number(),
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            value.as_u64().is_some() || value.as_f64().is_some_and(|n| n >= 0.0 && n.fract() == 0.0)
        }
        "uniqueItems" | "readOnly" | "writeOnly" | "deprecated" => value.is_boolean(),
        _ => false,
    }
}

fn is_type_name(name: &str) -> bool {
    matches!(name, "array" | "boolean" | "integer" | "null" | "number" | "object" | "string")
}

fn all_unique(items: &[Value]) -> bool {
    items.iter().enumerate().all(|(i, item)| !items[..i].contains(item))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> JsonObject {
        let Value::Object(map) = value else { panic!("not an object") };
        map
    }

    #[test]
    fn common_schemas_are_checked_by_hand_and_compiled_on_first_use() {
        let schema = object(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "what to echo", "minLength": 1},
                "count": {"type": ["integer", "null"], "minimum": 0, "default": 1},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "uniqueItems": true}
            },
            "required": ["text"],
            "additionalProperties": false
        }));
        let checked = ToolSchema::new("echo", "inputSchema", &schema).unwrap();
        assert!(checked.validator.get().is_none(), "a plain schema is compiled lazily");
        let validator = checked.validator().unwrap();
        assert!(validator.is_valid(&json!({"text": "hi", "tags": ["a"]})));
        assert!(!validator.is_valid(&json!({"text": ""})));
        assert!(!validator.is_valid(&json!({"text": "hi", "other": 1})));
    }

    #[test]
    fn other_schemas_are_checked_against_the_meta_schema_at_once() {
        for invalid in [
            json!({"type": "object", "properties": {"a": {"type": "strin"}}}),
            json!({"type": "object", "required": "a"}),
            json!({"type": "object", "properties": {"a": {"minLength": -1}}}),
            json!({"type": "object", "properties": {"a": {"pattern": "("}}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": "a"}),
        ] {
            assert!(ToolSchema::new("t", "inputSchema", &object(invalid.clone())).is_err(), "{invalid}");
        }
        let with_refs = object(
            json!({"type": "object", "$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}),
        );
        let checked = ToolSchema::new("t", "inputSchema", &with_refs).unwrap();
        assert!(checked.validator.get().is_some(), "a schema beyond the hand check is compiled at once");
        assert!(!checked.validator().unwrap().is_valid(&json!({"a": "x"})));
    }
}
