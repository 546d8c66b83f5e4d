//! The rules that turn what a handler returns into an MCP result, the same in every language.
//!
//! A binding converts its language's values into JSON (a dict, a JS object, a `Codable`
//! value); these functions then apply the shorthands below. A value that is already shaped
//! as the result passes through untouched.
//!
//! **Tools** ([`tool_result`]):
//! 1. An object with a `content` array and no keys but `content`, `structuredContent`,
//!    `isError` and `_meta` is a `CallToolResult` as it is.
//! 2. When the tool declares an output schema, the value is the structured content: an
//!    object as it is, anything else wrapped as `{"result": value}`. An object is wrapped
//!    too when the schema has the single required property `result` and the object has no
//!    `result` key. The content is one text block with the JSON of the structured content's
//!    value (a string as it is).
//! 3. Otherwise `null` is no content, a string is a text block, a content block (an object
//!    whose `type` is `text`, `image`, `audio`, `resource` or `resource_link`) is itself, an
//!    array is one block per item (strings as text, blocks as they are, anything else as
//!    JSON text), an object is its JSON text and also the structured content, and a number
//!    or boolean is its JSON text.
//!
//! **Resources** ([`resource_result`]):
//! 1. An object with a `contents` array is a `ReadResourceResult` as it is.
//! 2. An object with a `text` or `blob` key is one contents item; its `uri` defaults to the
//!    URI read and its `mimeType` to the resource's.
//! 3. A string is text contents (`mimeType` the resource's, else `text/plain`).
//! 4. An array is one contents item per element, by rules 2 and 3 (other values as JSON).
//! 5. Anything else is its JSON text (`mimeType` the resource's, else `application/json`).
//!
//! **Prompts** ([`prompt_result`]):
//! 1. An object with a `messages` array is a `GetPromptResult` as it is (the prompt's
//!    description is added when it has none).
//! 2. An array is one message per item; any other value is one message.
//! 3. A string is a user text message; an object with a `role` is a message whose `content`
//!    is a block as for tools (a string becomes text); anything else is a user message with
//!    that block.
//!
//! **Completions** ([`completion_result`]): an array of strings is the values (the first 100,
//! with `total` and `hasMore` set when there were more), an object with a `completion` key is
//! a `CompleteResult` as it is, and an object with `values` is the completion itself.
//!
//! **Errors**: a handler that fails with an [`crate::ErrorKind::Rpc`] error answers with that
//! JSON-RPC error. A tool that fails with any other error returns an `isError` result whose
//! text is the error's message, so the model sees it; any other handler answers with an
//! internal error (-32603) carrying the message.

use mcpweft::{
    ErrorData,
    model::{CallToolResult, CompleteResult, GetPromptResult, JsonObject, ReadResourceResult},
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

const RESULT_KEYS: [&str; 4] = ["content", "structuredContent", "isError", "_meta"];
const BLOCK_TYPES: [&str; 5] = ["text", "image", "audio", "resource", "resource_link"];

fn decode<T: DeserializeOwned>(value: Value, what: &str) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|e| ErrorData::internal_error(format!("the {what} handler returned an invalid result: {e}")))
}

fn json_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn text_block(text: String) -> Value {
    json!({ "type": "text", "text": text })
}

fn is_block(value: &Value) -> bool {
    value.get("type").and_then(Value::as_str).is_some_and(|t| BLOCK_TYPES.contains(&t))
}

fn to_block(value: Value) -> Value {
    if is_block(&value) { value } else { text_block(json_text(&value)) }
}

fn is_call_tool_result(object: &Map<String, Value>) -> bool {
    object.get("content").is_some_and(Value::is_array) && object.keys().all(|k| RESULT_KEYS.contains(&k.as_str()))
}

/// Returns whether an output schema describes the wrapper `{"result": ...}` of a value that
/// is not an object.
fn wraps_result(schema: &JsonObject) -> bool {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    properties.is_some_and(|p| p.len() == 1 && p.contains_key("result"))
        && required.is_some_and(|r| r.len() == 1 && r[0] == "result")
}

/// Turns a tool handler's JSON into its result, by the tool rules of this module.
pub fn tool_result(value: Value, output_schema: Option<&JsonObject>) -> Result<CallToolResult, ErrorData> {
    if let Value::Object(object) = &value
        && is_call_tool_result(object)
    {
        return decode(value, "tool");
    }
    if let Some(schema) = output_schema {
        let structured = match value {
            Value::Object(object) if !wraps_result(schema) || object.contains_key("result") => object,
            other => {
                let mut wrapper = JsonObject::new();
                wrapper.insert("result".to_owned(), other);
                wrapper
            }
        };
        let shown = match (structured.len(), structured.get("result")) {
            (1, Some(inner)) if wraps_result(schema) => json_text(inner),
            _ => Value::Object(structured.clone()).to_string(),
        };
        return Ok(CallToolResult::text(shown).with_structured_content(structured));
    }
    let (content, structured) = match value {
        // A scalar is one text block, built directly rather than decoded from its JSON.
        Value::String(text) => return Ok(CallToolResult::text(text)),
        scalar @ (Value::Bool(_) | Value::Number(_)) => return Ok(CallToolResult::text(scalar.to_string())),
        Value::Null => (Vec::new(), None),
        Value::Array(items) => (items.into_iter().map(to_block).collect(), None),
        Value::Object(object) if !is_block(&Value::Object(object.clone())) => {
            (vec![text_block(Value::Object(object.clone()).to_string())], Some(object))
        }
        other => (vec![to_block(other)], None),
    };
    let mut result: CallToolResult = decode(json!({ "content": content }), "tool")?;
    result.structured_content = structured;
    Ok(result)
}

fn contents_item(value: Value, uri: &str, mime_type: Option<&str>) -> Value {
    match value {
        Value::Object(mut object) if object.contains_key("text") || object.contains_key("blob") => {
            object.entry("uri").or_insert_with(|| Value::String(uri.to_owned()));
            if let Some(mime) = mime_type {
                object.entry("mimeType").or_insert_with(|| Value::String(mime.to_owned()));
            }
            Value::Object(object)
        }
        Value::String(text) => {
            json!({ "uri": uri, "mimeType": mime_type.unwrap_or("text/plain"), "text": text })
        }
        other => json!({ "uri": uri, "mimeType": mime_type.unwrap_or("application/json"), "text": other.to_string() }),
    }
}

/// Turns a resource handler's JSON into its result, by the resource rules of this module;
/// `uri` is the URI read and `mime_type` the one the resource declares.
pub fn resource_result(value: Value, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, ErrorData> {
    let contents = match value {
        Value::Object(object) if object.get("contents").is_some_and(Value::is_array) => {
            return decode(Value::Object(object), "resource");
        }
        Value::Array(items) => items.into_iter().map(|v| contents_item(v, uri, mime_type)).collect(),
        other => vec![contents_item(other, uri, mime_type)],
    };
    decode(json!({ "contents": contents }), "resource")
}

fn message(value: Value) -> Value {
    match value {
        Value::String(text) => json!({ "role": "user", "content": text_block(text) }),
        Value::Object(mut object) if object.contains_key("role") => {
            let content = object.remove("content").unwrap_or(Value::Null);
            object.insert("content".to_owned(), to_block(content));
            Value::Object(object)
        }
        other => json!({ "role": "user", "content": to_block(other) }),
    }
}

/// Turns a prompt handler's JSON into its result, by the prompt rules of this module;
/// `description` is the prompt's own.
pub fn prompt_result(value: Value, description: Option<&str>) -> Result<GetPromptResult, ErrorData> {
    let mut result = match value {
        Value::Object(object) if object.get("messages").is_some_and(Value::is_array) => Value::Object(object),
        Value::Array(items) => json!({ "messages": items.into_iter().map(message).collect::<Vec<_>>() }),
        other => json!({ "messages": [message(other)] }),
    };
    if let (Some(text), Some(object)) = (description, result.as_object_mut()) {
        object.entry("description").or_insert_with(|| Value::String(text.to_owned()));
    }
    decode(result, "prompt")
}

/// Turns a completion handler's JSON into its result, by the completion rules of this module.
pub fn completion_result(value: Value) -> Result<CompleteResult, ErrorData> {
    match value {
        Value::Array(_) => Ok(CompleteResult::new(decode(value, "completion")?)),
        Value::Object(object) if object.contains_key("completion") => decode(Value::Object(object), "completion"),
        other => decode(json!({ "completion": other }), "completion"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(value: Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }

    fn tool(value: Value, output: Option<Value>) -> Value {
        let output = output.map(schema);
        serde_json::to_value(tool_result(value, output.as_ref()).unwrap()).unwrap()
    }

    #[test]
    fn tool_shorthands_without_an_output_schema() {
        assert_eq!(tool(Value::Null, None), json!({ "content": [] }));
        assert_eq!(tool(json!("hi"), None), json!({ "content": [{ "type": "text", "text": "hi" }] }));
        assert_eq!(tool(json!(3), None), json!({ "content": [{ "type": "text", "text": "3" }] }));
        assert_eq!(tool(json!(true), None), json!({ "content": [{ "type": "text", "text": "true" }] }));
        assert_eq!(
            tool(json!(["a", { "type": "image", "data": "AA==", "mimeType": "image/png" }, 1]), None),
            json!({ "content": [
                { "type": "text", "text": "a" },
                { "type": "image", "data": "AA==", "mimeType": "image/png" },
                { "type": "text", "text": "1" },
            ] })
        );
        assert_eq!(
            tool(json!({ "b": 1, "a": 2 }), None),
            json!({ "content": [{ "type": "text", "text": "{\"b\":1,\"a\":2}" }], "structuredContent": { "b": 1, "a": 2 } })
        );
        let shaped = json!({ "content": [{ "type": "text", "text": "x" }], "isError": true });
        assert_eq!(tool(shaped.clone(), None), shaped);
    }

    #[test]
    fn tool_shorthands_with_an_output_schema() {
        let object = json!({ "type": "object", "properties": { "sum": { "type": "number" } } });
        assert_eq!(
            tool(json!({ "sum": 5 }), Some(object)),
            json!({ "content": [{ "type": "text", "text": "{\"sum\":5}" }], "structuredContent": { "sum": 5 } })
        );
        let wrapped =
            json!({ "type": "object", "properties": { "result": { "type": "string" } }, "required": ["result"] });
        assert_eq!(
            tool(json!("ok"), Some(wrapped.clone())),
            json!({ "content": [{ "type": "text", "text": "ok" }], "structuredContent": { "result": "ok" } })
        );
        assert_eq!(
            tool(json!({ "k": 1 }), Some(wrapped.clone())),
            json!({ "content": [{ "type": "text", "text": "{\"k\":1}" }], "structuredContent": { "result": { "k": 1 } } })
        );
        assert_eq!(tool(json!({ "result": "x" }), Some(wrapped))["structuredContent"], json!({ "result": "x" }));
    }

    #[test]
    fn an_invalid_result_shape_is_an_internal_error() {
        let error = tool_result(json!({ "content": [{ "type": "text" }] }), None).unwrap_err();
        assert_eq!(error.code, mcpweft::jsonrpc::INTERNAL_ERROR);
        assert!(error.message.contains("tool handler returned an invalid result"), "{}", error.message);
    }

    #[test]
    fn resource_shorthands() {
        let read =
            |v: Value, mime: Option<&str>| serde_json::to_value(resource_result(v, "a://b", mime).unwrap()).unwrap();
        assert_eq!(
            read(json!("hi"), None),
            json!({ "contents": [{ "uri": "a://b", "mimeType": "text/plain", "text": "hi" }] })
        );
        assert_eq!(
            read(json!({ "n": 1 }), None),
            json!({ "contents": [{ "uri": "a://b", "mimeType": "application/json", "text": "{\"n\":1}" }] })
        );
        assert_eq!(
            read(json!({ "blob": "AA==" }), Some("image/png")),
            json!({ "contents": [{ "uri": "a://b", "mimeType": "image/png", "blob": "AA==" }] })
        );
        assert_eq!(read(json!(["x", "y"]), Some("text/markdown"))["contents"][1]["mimeType"], "text/markdown");
        let shaped = json!({ "contents": [{ "uri": "z://", "text": "t" }] });
        assert_eq!(read(shaped.clone(), None), shaped);
    }

    #[test]
    fn prompt_shorthands() {
        let get = |v: Value| serde_json::to_value(prompt_result(v, Some("d")).unwrap()).unwrap();
        assert_eq!(
            get(json!("hi")),
            json!({ "description": "d", "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }] })
        );
        assert_eq!(
            get(json!([{ "role": "assistant", "content": "a" }, "b"]))["messages"],
            json!([
                { "role": "assistant", "content": { "type": "text", "text": "a" } },
                { "role": "user", "content": { "type": "text", "text": "b" } },
            ])
        );
        assert_eq!(get(json!({ "messages": [], "description": "own" }))["description"], "own");
    }

    #[test]
    fn completion_shorthands() {
        let values: Vec<String> = (0..150).map(|i| i.to_string()).collect();
        let result = completion_result(json!(values)).unwrap();
        assert_eq!(result.completion.values.len(), 100);
        assert_eq!(result.completion.has_more, Some(true));
        let result = completion_result(json!({ "values": ["a"], "total": 9 })).unwrap();
        assert_eq!(result.completion.total, Some(9));
        let result = completion_result(json!({ "completion": { "values": ["b"] } })).unwrap();
        assert_eq!(result.completion.values, ["b"]);
    }
}
