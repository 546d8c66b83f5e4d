//! A compact JSON writer for [`serde_json::Value`], byte for byte what `serde_json` writes.
//!
//! Every message the peer runtime sends is encoded here, so the cost of writing a large text
//! (a tool result of some megabytes, say) is the cost of scanning it for the bytes JSON must
//! escape. `serde_json` looks at every byte through a table; this writer checks sixteen bytes
//! at a time, which the compiler turns into a few vector instructions, and copies each run
//! that needs no escape at once.

use serde_json::Value;

/// How many bytes are checked together for characters that need an escape.
const BLOCK: usize = 16;

/// The hexadecimal digits of a `\u00XX` escape, lower-case as `serde_json` writes them.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Tells whether JSON requires `byte` to be escaped inside a string.
#[inline(always)]
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Appends the escape sequence of `byte`, one for which [`needs_escape`] holds.
fn write_escape(out: &mut Vec<u8>, byte: u8) {
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0c => b'f',
        _ => {
            let (high, low) = (HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]);
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', high, low]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

/// Appends the bytes of `bytes` from `*copied` up to each one in `range` that needs an escape,
/// then its escape, moving `*copied` past it.
fn escape_run(out: &mut Vec<u8>, bytes: &[u8], range: std::ops::Range<usize>, copied: &mut usize) {
    for at in range {
        if needs_escape(bytes[at]) {
            out.extend_from_slice(&bytes[*copied..at]);
            write_escape(out, bytes[at]);
            *copied = at + 1;
        }
    }
}

/// Appends `text` as a JSON string, quotes included.
pub(crate) fn write_str(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // `copied` is the start of the run of bytes not yet appended.
    let mut copied = 0;
    let mut at = 0;
    for block in bytes.chunks_exact(BLOCK) {
        // A fold with no early exit, so that the check of a block is vectorized.
        if block.iter().fold(false, |found, &byte| found | needs_escape(byte)) {
            escape_run(out, bytes, at..at + BLOCK, &mut copied);
        }
        at += BLOCK;
    }
    escape_run(out, bytes, at..bytes.len(), &mut copied);
    out.extend_from_slice(&bytes[copied..]);
    out.push(b'"');
}

/// About how many bytes `value` takes once written, when its strings need no escapes: what a
/// buffer is sized with so that a large text is written into one allocation instead of one that
/// doubles (and is copied) a dozen times.
pub(crate) fn size_hint(value: &Value) -> usize {
    /// The nesting below which values are no longer counted: a hint needs no more.
    const DEPTH: usize = 16;
    fn size(value: &Value, depth: usize) -> usize {
        match value {
            Value::String(s) => s.len() + 2,
            Value::Array(items) if depth < DEPTH => 2 + items.iter().map(|v| size(v, depth + 1) + 1).sum::<usize>(),
            Value::Object(map) if depth < DEPTH => {
                2 + map.iter().map(|(k, v)| k.len() + 4 + size(v, depth + 1)).sum::<usize>()
            }
            _ => 8,
        }
    }
    size(value, 0)
}

/// Appends `value` as compact JSON, members in the map's order.
pub(crate) fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_str(out, text),
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_value(out, item);
            }
            out.push(b']');
        }
        Value::Object(members) => {
            out.push(b'{');
            for (index, (name, member)) in members.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_str(out, name);
                out.push(b':');
                write_value(out, member);
            }
            out.push(b'}');
        }
    }
}

/// Appends a number with `serde_json`'s own formatting, which writing to a vector cannot fail.
fn write_number(out: &mut Vec<u8>, number: &serde_json::Number) {
    let _ = serde_json::to_writer(out, number);
}

/// Appends an integer with `serde_json`'s own formatting.
pub(crate) fn write_i64(out: &mut Vec<u8>, n: i64) {
    let _ = serde_json::to_writer(out, &n);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn written(value: &Value) -> String {
        let mut out = Vec::new();
        write_value(&mut out, value);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_ascii_byte_is_escaped_as_serde_json_escapes_it() {
        for byte in 0u8..=0x7f {
            let text = String::from(char::from(byte));
            let value = Value::String(text);
            assert_eq!(written(&value), serde_json::to_string(&value).unwrap(), "byte {byte:#x}");
        }
    }

    #[test]
    fn escapes_at_every_position_of_a_block_and_in_the_tail_come_out_right() {
        let alphabet = ["a", "\"", "\\", "\n", "\u{1}", "é", "日本", "\u{1f600}", "\u{7f}", "\t", "/"];
        // A fixed pseudo-random sequence covers block edges, multi-byte characters that span
        // them, and runs with and without escapes.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in 0..200 {
            let mut text = String::new();
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let pick = if state.is_multiple_of(3) { 0 } else { (state >> 8) as usize % alphabet.len() };
                text.push_str(alphabet[pick]);
            }
            let value = Value::String(text);
            assert_eq!(written(&value), serde_json::to_string(&value).unwrap());
        }
    }

    #[test]
    fn values_of_every_kind_match_serde_json() {
        let value = json!({
            "null": null, "yes": true, "no": false,
            "u": u64::MAX, "i": i64::MIN, "zero": 0, "f": 1.5, "big": 1e300, "small": -2.5e-8, "neg": -0.0,
            "text": "line\nbreak \"quoted\" back\\slash \u{1f600}",
            "empty": {}, "none": [], "nested": [[1, [2, {"k\"ey": [null]}]], {"z": 1, "a": 2}],
            "long": "0123456789abcdef".repeat(1000) + "\u{0}",
        });
        assert_eq!(written(&value), serde_json::to_string(&value).unwrap());
    }
}
