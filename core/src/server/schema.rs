//! The compiled schemas of a tool, built when they are first needed.
//!
//! Compiling a schema checks it against the JSON Schema meta-schema, whose own validator takes
//! millions of instructions to build, once per process: most of what a small server did before
//! it could answer `initialize`. A schema made of the common keywords only (types, properties,
//! items, required, bounds, annotations) is checked here by hand instead, which is enough to know
//! it is valid, and compiled on its first use; any other schema is compiled, and so checked,
//! when the tool is registered.
//!
//! A valid instance of a plain schema is also recognised by hand ([`ToolSchema::surely_valid`]),
//! so that a tool whose calls are all valid never compiles its validator: building one runs
//! through so much of the validator crate that it made up most of a small stdio server's memory
//! (its code pages, 2.8 MiB of 8 MiB). The hand check only ever answers "valid" when the
//! compiled validator would; whatever it cannot decide exactly (a failure, whose messages come
//! from the validator, numbers it cannot compare exactly, `uniqueItems` over numbers or
//! containers) goes to the validator.

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
    /// Whether the schema passed the hand check, so that [`ToolSchema::surely_valid`] applies.
    plain: bool,
    validator: OnceLock<Result<jsonschema::Validator, String>>,
}

impl ToolSchema {
    /// Checks `schema` (the `kind` of `tool`), compiling it now unless the hand check already
    /// knows it is valid.
    pub(crate) fn new(tool: &str, kind: &str, schema: &JsonObject) -> Result<ToolSchema, Error> {
        let source = Value::Object(schema.clone());
        let validator = OnceLock::new();
        let plain = is_plain_schema(&source, 0);
        if !plain {
            let compiled = jsonschema::validator_for(&source)
                .map_err(|e| Error::Config(format!("the {kind} of tool {tool} is not a valid JSON Schema: {e}")))?;
            let _ = validator.set(Ok(compiled));
        }
        Ok(ToolSchema { source, plain, validator })
    }

    /// Returns `true` when `instance` is valid for sure, without the compiled validator; `false`
    /// means the validator must decide.
    pub(crate) fn surely_valid(&self, instance: &Value) -> bool {
        self.plain && surely_valid(&self.source, instance)
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

/// Whether `instance` is valid under the plain `schema` for sure, keyword by keyword.
fn surely_valid(schema: &Value, instance: &Value) -> bool {
    let map = match schema {
        Value::Bool(accepts) => return *accepts,
        Value::Object(map) => map,
        _ => return false,
    };
    map.iter().all(|(key, value)| match key.as_str() {
        "type" => match value {
            Value::String(name) => has_type(instance, name),
            Value::Array(names) => names.iter().any(|name| name.as_str().is_some_and(|name| has_type(instance, name))),
            _ => false,
        },
        "properties" => match (value, instance) {
            (Value::Object(properties), Value::Object(fields)) => {
                properties.iter().all(|(name, schema)| fields.get(name).is_none_or(|field| surely_valid(schema, field)))
            }
            _ => true,
        },
        "additionalProperties" => match instance {
            Value::Object(fields) => {
                let listed = map.get("properties").and_then(Value::as_object);
                fields
                    .iter()
                    .filter(|(name, _)| listed.is_none_or(|listed| !listed.contains_key(*name)))
                    .all(|(_, field)| surely_valid(value, field))
            }
            _ => true,
        },
        "items" => match instance {
            Value::Array(items) => items.iter().all(|item| surely_valid(value, item)),
            _ => true,
        },
        "required" => match instance {
            Value::Object(fields) => value
                .as_array()
                .is_some_and(|names| names.iter().all(|n| n.as_str().is_some_and(|n| fields.contains_key(n)))),
            _ => true,
        },
        "enum" => value.as_array().is_some_and(|options| options.contains(instance)),
        "const" => value == instance,
        "minimum" => at_least(instance, value, true),
        "exclusiveMinimum" => at_least(instance, value, false),
        "maximum" => at_most(instance, value, true),
        "exclusiveMaximum" => at_most(instance, value, false),
        "minLength" | "maxLength" => match instance {
            Value::String(text) => within(text.chars().count(), key == "minLength", value),
            _ => true,
        },
        "minItems" | "maxItems" => match instance {
            Value::Array(items) => within(items.len(), key == "minItems", value),
            _ => true,
        },
        "minProperties" | "maxProperties" => match instance {
            Value::Object(fields) => within(fields.len(), key == "minProperties", value),
            _ => true,
        },
        "uniqueItems" => match (value, instance) {
            (Value::Bool(true), Value::Array(items)) => surely_unique(items),
            _ => true,
        },
        // Annotations: `format` asserts nothing under the 2020-12 dialect unless asked to.
        _ => true,
    })
}

/// Whether `instance` is of the JSON Schema type `name`; an integer written with a fraction
/// (`1.0`) is left to the validator.
fn has_type(instance: &Value, name: &str) -> bool {
    match name {
        "null" => instance.is_null(),
        "boolean" => instance.is_boolean(),
        "string" => instance.is_string(),
        "array" => instance.is_array(),
        "object" => instance.is_object(),
        "number" => instance.is_number(),
        "integer" => instance.is_i64() || instance.is_u64(),
        _ => false,
    }
}

/// Compares two JSON numbers exactly, or gives `None` when it cannot (an integer beyond 2^53
/// beside a float).
fn compare(a: &serde_json::Number, b: &serde_json::Number) -> Option<std::cmp::Ordering> {
    const EXACT: u64 = 1 << 53;
    let exact_float = |n: &serde_json::Number| match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => (u <= EXACT).then_some(u as f64),
        (None, Some(i)) => (i.unsigned_abs() <= EXACT).then_some(i as f64),
        (None, None) => n.as_f64(),
    };
    match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
        (Some(x), Some(y), _, _) => Some(x.cmp(&y)),
        (_, _, Some(x), Some(y)) => Some(x.cmp(&y)),
        // One is above i64's range and the other a negative integer.
        (Some(_), None, None, Some(_)) => Some(std::cmp::Ordering::Less),
        (None, Some(_), Some(_), None) => Some(std::cmp::Ordering::Greater),
        _ => exact_float(a)?.partial_cmp(&exact_float(b)?),
    }
}

/// Whether a number `instance` is at least `bound` (or above it when not `inclusive`); any
/// other instance passes, as the keyword only constrains numbers.
fn at_least(instance: &Value, bound: &Value, inclusive: bool) -> bool {
    match (instance, bound) {
        (Value::Number(n), Value::Number(bound)) => {
            compare(n, bound).is_some_and(|o| o.is_gt() || (inclusive && o.is_eq()))
        }
        (Value::Number(_), _) => false,
        _ => true,
    }
}

/// Whether a number `instance` is at most `bound` (or below it when not `inclusive`).
fn at_most(instance: &Value, bound: &Value, inclusive: bool) -> bool {
    match (instance, bound) {
        (Value::Number(n), Value::Number(bound)) => {
            compare(n, bound).is_some_and(|o| o.is_lt() || (inclusive && o.is_eq()))
        }
        (Value::Number(_), _) => false,
        _ => true,
    }
}

/// Whether `count` is at least (`lower`) or at most the bound, an integer.
fn within(count: usize, lower: bool, bound: &Value) -> bool {
    let Some(bound) = bound.as_u64().or_else(|| bound.as_f64().filter(|b| b.fract() == 0.0).map(|b| b as u64)) else {
        return false;
    };
    let count = count as u64;
    if lower { count >= bound } else { count <= bound }
}

/// Whether the items are pairwise different for sure: only strings, booleans and nulls are
/// compared here, as numbers (`1` and `1.0`) and containers holding them need the validator's
/// equality.
fn surely_unique(items: &[Value]) -> bool {
    items.iter().all(|item| matches!(item, Value::String(_) | Value::Bool(_) | Value::Null)) && all_unique(items)
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
    fn the_hand_check_accepts_only_what_the_validator_accepts() {
        let schema = object(json!({
            "type": "object",
            "properties": {
                "text": {"type": "string", "minLength": 2, "maxLength": 4, "format": "email"},
                "count": {"type": ["integer", "null"], "minimum": 0, "exclusiveMaximum": 10},
                "ratio": {"type": "number", "exclusiveMinimum": 0.5, "maximum": 18446744073709551615u64},
                "tags": {"type": "array", "items": {"enum": ["a", "b", 1]}, "uniqueItems": true, "maxItems": 3},
                "any": {"uniqueItems": true},
                "mode": {"const": {"k": [1, 2]}}
            },
            "required": ["text"],
            "additionalProperties": {"type": "boolean"},
            "minProperties": 1,
            "maxProperties": 5
        }));
        let checked = ToolSchema::new("t", "inputSchema", &schema).unwrap();
        let instances = [
            json!({"text": "hé"}),
            json!({"text": "h"}),
            json!({"text": "hello"}),
            json!({"text": "a b"}),
            json!({"count": 1}),
            json!({"text": "ab", "count": null}),
            json!({"text": "ab", "count": -1}),
            json!({"text": "ab", "count": 10}),
            json!({"text": "ab", "count": 9}),
            json!({"text": "ab", "count": 2.0}),
            json!({"text": "ab", "count": 2.5}),
            json!({"text": "ab", "ratio": 0.5}),
            json!({"text": "ab", "ratio": 1}),
            json!({"text": "ab", "ratio": 18446744073709551615u64}),
            json!({"text": "ab", "ratio": -9223372036854775808i64}),
            json!({"text": "ab", "ratio": 1e30}),
            json!({"text": "ab", "tags": ["a", "b"]}),
            json!({"text": "ab", "tags": ["a", "a"]}),
            json!({"text": "ab", "tags": [1, 1.0]}),
            json!({"text": "ab", "tags": ["c"]}),
            json!({"text": "ab", "tags": ["a", "b", "a", "b"]}),
            json!({"text": "ab", "any": [[1], [1.0]]}),
            json!({"text": "ab", "any": "not an array"}),
            json!({"text": "ab", "mode": {"k": [1, 2]}}),
            json!({"text": "ab", "mode": {"k": [1.0, 2]}}),
            json!({"text": "ab", "mode": {"k": [2, 1]}}),
            json!({"text": "ab", "extra": true}),
            json!({"text": "ab", "extra": 1}),
            json!({"text": "ab", "a": true, "b": true, "c": true, "d": true, "e": true}),
            json!([]),
            json!("text"),
        ];
        let validator = jsonschema::validator_for(&Value::Object(schema)).unwrap();
        let mut surely = 0;
        for instance in &instances {
            if checked.surely_valid(instance) {
                assert!(validator.is_valid(instance), "the hand check accepted {instance}");
                surely += 1;
            }
        }
        assert_eq!(surely, 9, "the hand check decides the common valid cases itself");
        assert!(checked.validator.get().is_none(), "the hand check needs no validator");
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
