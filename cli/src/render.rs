//! The human-readable output of the inspection commands: one line per item, aligned, and the
//! contents of results as text.

use std::fmt::Write as _;

use mcpweft::model::{
    CallToolResult, ContentBlock, GetPromptResult, InitializeResult, Prompt, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Role, Tool,
};
use serde_json::Value;

/// Lines of two columns, the first padded to the widest; a row without a second column is its
/// first alone.
fn columns(rows: &[(String, String)], indent: &str) -> String {
    let width = rows.iter().map(|(left, _)| left.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (left, right) in rows {
        if right.is_empty() {
            let _ = writeln!(out, "{indent}{left}");
        } else {
            let _ = writeln!(out, "{indent}{left:<width$}  {right}");
        }
    }
    out
}

/// The first line of a description, or nothing.
fn summary(description: Option<&str>) -> String {
    description.and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty())).unwrap_or("").to_owned()
}

/// A tool's name with its parameters, `?` after the optional ones: `add(a, b)`.
fn signature(tool: &Tool) -> String {
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let params: Vec<String> = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .keys()
                .map(|name| if required.contains(&name.as_str()) { name.clone() } else { format!("{name}?") })
                .collect()
        })
        .unwrap_or_default();
    format!("{}({})", tool.name, params.join(", "))
}

/// A prompt's name with its arguments, `?` after the optional ones.
fn prompt_signature(prompt: &Prompt) -> String {
    let arguments: Vec<String> = prompt
        .arguments
        .iter()
        .flatten()
        .map(|a| if a.required == Some(true) { a.name.clone() } else { format!("{}?", a.name) })
        .collect();
    format!("{}({})", prompt.name, arguments.join(", "))
}

/// One line per tool: its name and the first line of its description.
pub(crate) fn tools(tools: &[Tool]) -> String {
    let rows: Vec<_> = tools.iter().map(|t| (t.name.clone(), summary(t.description.as_deref()))).collect();
    columns(&rows, "")
}

/// What a resource is: its name, the first line of its description, its media type.
fn resource_label(name: &str, description: Option<&str>, mime_type: Option<&str>) -> String {
    let mut label = name.to_owned();
    let description = summary(description);
    if !description.is_empty() {
        let _ = write!(label, ": {description}");
    }
    if let Some(mime_type) = mime_type {
        let _ = write!(label, " ({mime_type})");
    }
    label
}

/// One line per resource (its URI and what it is), then the resource templates under a heading.
pub(crate) fn resources(resources: &[Resource], templates: &[ResourceTemplate]) -> String {
    let mut out = columns(&resource_rows(resources), "");
    if !templates.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("Resource templates:\n");
        out.push_str(&columns(&template_rows(templates), "  "));
    }
    out
}

fn resource_rows(resources: &[Resource]) -> Vec<(String, String)> {
    resources
        .iter()
        .map(|r| (r.uri.clone(), resource_label(&r.name, r.description.as_deref(), r.mime_type.as_deref())))
        .collect()
}

fn template_rows(templates: &[ResourceTemplate]) -> Vec<(String, String)> {
    templates
        .iter()
        .map(|t| (t.uri_template.clone(), resource_label(&t.name, t.description.as_deref(), t.mime_type.as_deref())))
        .collect()
}

/// One line per prompt: its name and arguments, and the first line of its description.
pub(crate) fn prompts(prompts: &[Prompt]) -> String {
    let rows: Vec<_> = prompts.iter().map(|p| (prompt_signature(p), summary(p.description.as_deref()))).collect();
    columns(&rows, "")
}

/// Everything a server offers, in sections.
pub(crate) fn inspect(
    server: &InitializeResult,
    tools: &[Tool],
    resources: &[Resource],
    templates: &[ResourceTemplate],
    prompts: &[Prompt],
) -> String {
    let info = &server.server_info;
    let mut out = String::new();
    let _ = write!(out, "{} {}", info.name, info.version);
    if let Some(title) = &info.title {
        let _ = write!(out, " ({title})");
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "protocol: {}", server.protocol_version);
    let capabilities = match serde_json::to_value(&server.capabilities) {
        Ok(Value::Object(map)) if !map.is_empty() => map.keys().cloned().collect::<Vec<_>>().join(", "),
        _ => "none".to_owned(),
    };
    let _ = writeln!(out, "capabilities: {capabilities}");
    if let Some(instructions) = &server.instructions {
        let _ = writeln!(out, "instructions: {}", instructions.trim_end());
    }
    let tool_rows: Vec<_> = tools.iter().map(|t| (signature(t), summary(t.description.as_deref()))).collect();
    let prompt_rows: Vec<_> =
        prompts.iter().map(|p| (prompt_signature(p), summary(p.description.as_deref()))).collect();
    let sections = [
        ("tools", tool_rows),
        ("resources", resource_rows(resources)),
        ("resource templates", template_rows(templates)),
        ("prompts", prompt_rows),
    ];
    for (heading, rows) in sections {
        if rows.is_empty() {
            let _ = writeln!(out, "\n{heading}: none");
        } else {
            let _ = writeln!(out, "\n{heading} ({}):", rows.len());
            out.push_str(&columns(&rows, "  "));
        }
    }
    out
}

/// How many bytes Base64 text decodes to.
fn decoded_len(base64: &str) -> usize {
    let padding = base64.bytes().rev().take_while(|b| *b == b'=').count();
    (base64.len() / 4 * 3).saturating_sub(padding)
}

/// Resource contents as text: the text itself, or a line naming binary contents.
fn contents_text(contents: &ResourceContents) -> String {
    match contents {
        ResourceContents::Text(text) => text.text.clone(),
        ResourceContents::Blob(blob) => format!(
            "[binary contents of {}: {}, {} bytes]",
            blob.uri,
            blob.mime_type.as_deref().unwrap_or("no media type"),
            decoded_len(&blob.blob)
        ),
    }
}

/// A content block as text: text as it is, anything else as a line that names it.
fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => format!("[image: {}, {} bytes]", image.mime_type, decoded_len(&image.data)),
        ContentBlock::Audio(audio) => format!("[audio: {}, {} bytes]", audio.mime_type, decoded_len(&audio.data)),
        ContentBlock::ResourceLink(link) => format!("[resource link: {} ({})]", link.uri, link.name),
        ContentBlock::Resource(embedded) => contents_text(&embedded.resource),
    }
}

/// Appends `text` as lines.
fn push_lines(out: &mut String, text: &str) {
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

/// A tool result as text: its content blocks, then its structured content as indented JSON.
/// A text block that is only the structured content written as JSON (as servers add it for
/// older clients) is left out.
pub(crate) fn call_result(result: &CallToolResult) -> String {
    let structured = result.structured_content.as_ref();
    let mut out = String::new();
    for block in &result.content {
        if let (ContentBlock::Text(text), Some(structured)) = (block, structured)
            && serde_json::from_str::<Value>(&text.text).ok().as_ref().and_then(Value::as_object) == Some(structured)
        {
            continue;
        }
        push_lines(&mut out, &block_text(block));
    }
    if let Some(structured) = structured {
        let pretty = serde_json::to_string_pretty(structured).unwrap_or_default();
        push_lines(&mut out, &pretty);
    }
    out
}

/// The text contents of a resource, and a note for each binary one.
pub(crate) fn read_result(result: &ReadResourceResult) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut notes = Vec::new();
    for contents in &result.contents {
        match contents {
            ResourceContents::Text(text) => push_lines(&mut out, &text.text),
            blob @ ResourceContents::Blob(_) => notes.push(contents_text(blob)),
        }
    }
    (out, notes)
}

/// A prompt's messages, each after its role.
pub(crate) fn prompt_result(result: &GetPromptResult) -> String {
    let mut out = String::new();
    if let Some(description) = &result.description {
        push_lines(&mut out, &format!("# {description}"));
    }
    for message in &result.messages {
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        push_lines(&mut out, &format!("{role}: {}", block_text(&message.content)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_lengths_count_the_padding() {
        assert_eq!(decoded_len(""), 0);
        assert_eq!(decoded_len("aGk="), 2);
        assert_eq!(decoded_len("aGV5"), 3);
        assert_eq!(decoded_len("aA=="), 1);
    }

    #[test]
    fn text_that_repeats_the_structured_content_is_left_out() {
        let result: CallToolResult = serde_json::from_value(serde_json::json!({
            "content": [{ "type": "text", "text": "{\"sum\":5}" }, { "type": "text", "text": "done" }],
            "structuredContent": { "sum": 5 }
        }))
        .expect("a result");
        assert_eq!(call_result(&result), "done\n{\n  \"sum\": 5\n}\n");
    }

    #[test]
    fn columns_are_aligned() {
        let rows = [("a".to_owned(), "first".to_owned()), ("long".to_owned(), String::new())];
        assert_eq!(columns(&rows, "  "), "  a     first\n  long\n");
    }
}
