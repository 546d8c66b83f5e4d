//! JavaScript strings read into Rust in one pass over their characters.
//!
//! napi-rs reads a `String` argument as Node-API suggests: it asks V8 for the length of the
//! string's UTF-8 (one pass over the characters), fills a zeroed buffer of that length, then
//! writes the UTF-8 into it (a second pass). A handler's result can be megabytes of JSON text,
//! so [`read`] reads it once into a buffer sized from the string's length in UTF-16 code units,
//! which V8 knows without a pass: as many bytes as units hold the whole string when it is
//! ASCII, which the bytes written then show; any other string is read again into a buffer of
//! three bytes per unit, the most UTF-8 a unit takes.

use std::ptr;

use napi::{Error, JsString, JsValue, Result, Status, sys};

/// Fails with what a call of Node-API returned, unless it succeeded.
fn check(status: sys::napi_status, what: &str) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::from(status), format!("Failed to read {what}: not a string")))
    }
}

/// Writes the UTF-8 of the string `value` into a new buffer of `capacity` bytes (its last one
/// kept for the terminating NUL Node-API writes) and returns the bytes written before it.
///
/// # Safety
///
/// `env` and `value` are valid, and `value` is a string.
unsafe fn write_utf8(env: sys::napi_env, value: sys::napi_value, capacity: usize) -> Result<Vec<u8>> {
    let mut bytes = Vec::<u8>::with_capacity(capacity);
    let mut written = 0;
    // SAFETY: the buffer holds `capacity` bytes, of which Node-API writes at most `capacity - 1`
    // and a NUL; `written` is the number before the NUL, all initialized by the call.
    unsafe {
        check(sys::napi_get_value_string_utf8(env, value, bytes.as_mut_ptr().cast(), capacity, &mut written), "text")?;
        bytes.set_len(written);
    }
    Ok(bytes)
}

/// Reads the JavaScript string `text` as UTF-8, in one pass when it is ASCII (lone surrogates
/// become U+FFFD, as with any string Node-API reads).
pub(crate) fn read(text: &JsString<'_>) -> Result<String> {
    let (env, value) = (text.value().env, text.value().value);
    let mut units = 0;
    // SAFETY: `env` and `value` are a live string of this call; without a buffer, Node-API
    // only returns its length in UTF-16 units.
    check(unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut units) }, "text")?;
    // SAFETY: as above.
    let bytes = unsafe { write_utf8(env, value, units + 1)? };
    // Every ASCII character is one unit and one byte: `units` ASCII bytes are the whole
    // string, while any other character takes more bytes than units and cuts the write short.
    if bytes.len() == units && bytes.is_ascii() {
        // SAFETY: ASCII is UTF-8.
        return Ok(unsafe { String::from_utf8_unchecked(bytes) });
    }
    // SAFETY: as above; a unit takes at most three bytes of UTF-8 (a surrogate pair, two units,
    // takes four; a lone surrogate becomes U+FFFD, three), so the whole string fits.
    let bytes = unsafe { write_utf8(env, value, 3 * units + 1)? };
    // SAFETY: Node-API writes well-formed UTF-8, lone surrogates replaced.
    Ok(unsafe { String::from_utf8_unchecked(bytes) })
}
