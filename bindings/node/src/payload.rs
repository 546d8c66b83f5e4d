//! The payload of a handler call as JavaScript gets it: JSON text, or for a payload that holds
//! a long string, the JavaScript values themselves.
//!
//! For a small payload, JSON text read by `JSON.parse` is the cheapest way into V8 (made as a
//! Latin-1 string when it is ASCII, which V8 copies without decoding). A long
//! string would cost three passes that way: `serde_json` escaping it, V8 decoding the text's
//! UTF-8, and `JSON.parse` scanning it and copying it once more. Built directly, an ASCII string
//! is one check and one copy into a Latin-1 string of V8. (An external Latin-1 string would
//! save the copy, but V8 frees its bytes only at its next scavenge: the buffers then in flight
//! made a 64 KiB echo cost more, see bench/README.md.) The values are made as `JSON.parse`
//! makes them: every member of an object is an own property (`__proto__` too), numbers are the
//! nearest doubles.

use std::ptr;

use napi::{Error, Result, Status, bindgen_prelude::ToNapiValue, sys};
use serde_json::Value;

/// The length in bytes from which a string is worth building directly.
const LONG_STRING: usize = 1024;

/// How many values of a payload are looked at for a long string; a payload with more is sent
/// as JSON text unless one was found before.
const LOOK_AT_MOST: usize = 256;

/// The payload of one call.
pub(crate) enum Payload {
    /// The JSON text of a payload without a long string, which the trampoline parses.
    Json(String),
    /// An object holding a long string, which becomes a JavaScript object directly.
    Object(Value),
}

impl Payload {
    /// Makes the payload of `value`: an object holding a long string among its first values
    /// is built directly, anything else is sent as JSON text.
    pub(crate) fn new(value: Value) -> Payload {
        let mut budget = LOOK_AT_MOST;
        if value.is_object() && holds_long_string(&value, &mut budget) {
            Payload::Object(value)
        } else {
            Payload::Json(mcpweft_bridge::to_json_text(&value))
        }
    }
}

/// Returns whether `value` holds a string of [`LONG_STRING`] bytes or more among the first
/// `budget` values it visits, counting them off `budget`.
fn holds_long_string(value: &Value, budget: &mut usize) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    match value {
        Value::String(text) => text.len() >= LONG_STRING,
        Value::Array(items) => items.iter().any(|item| holds_long_string(item, budget)),
        Value::Object(members) => members.values().any(|member| holds_long_string(member, budget)),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Fails with what a call of Node-API returned, unless it succeeded.
fn check(status: sys::napi_status) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::from(status), "Failed to build a handler's payload".to_owned()))
    }
}

/// Makes the JavaScript string `text`: an ASCII one as Latin-1, which V8 copies as it is.
///
/// # Safety
///
/// `env` is valid.
unsafe fn string(env: sys::napi_env, text: &str) -> Result<sys::napi_value> {
    let mut result = ptr::null_mut();
    let (data, len) = (text.as_ptr().cast(), text.len() as isize);
    // SAFETY: `data` holds `len` bytes; ASCII is the same text in Latin-1 and UTF-8.
    check(unsafe {
        if text.is_ascii() {
            sys::napi_create_string_latin1(env, data, len, &mut result)
        } else {
            sys::napi_create_string_utf8(env, data, len, &mut result)
        }
    })?;
    Ok(result)
}

/// Makes the JavaScript value of `value`, as `JSON.parse` makes it from its JSON text.
///
/// # Safety
///
/// `env` is valid.
unsafe fn build(env: sys::napi_env, value: &Value) -> Result<sys::napi_value> {
    let mut result = ptr::null_mut();
    // SAFETY: every call gets the valid `env`, values it made, and pointers to live locals.
    unsafe {
        match value {
            Value::Null => check(sys::napi_get_null(env, &mut result))?,
            Value::Bool(flag) => check(sys::napi_get_boolean(env, *flag, &mut result))?,
            // Without arbitrary precision every number has a nearest double, as JSON.parse reads it.
            Value::Number(number) => {
                check(sys::napi_create_double(env, number.as_f64().unwrap_or(f64::NAN), &mut result))?;
            }
            Value::String(text) => result = string(env, text)?,
            Value::Array(items) => {
                check(sys::napi_create_array_with_length(env, items.len(), &mut result))?;
                for (index, item) in (0..).zip(items) {
                    check(sys::napi_set_element(env, result, index, build(env, item)?))?;
                }
            }
            Value::Object(members) => {
                check(sys::napi_create_object(env, &mut result))?;
                // Defined rather than set, so that a member named `__proto__` is an own
                // property, as JSON.parse makes it, and not the object's prototype.
                let properties = members
                    .iter()
                    .map(|(key, member)| {
                        Ok(sys::napi_property_descriptor {
                            utf8name: ptr::null(),
                            name: string(env, key)?,
                            method: None,
                            getter: None,
                            setter: None,
                            value: build(env, member)?,
                            attributes: sys::PropertyAttributes::writable
                                | sys::PropertyAttributes::enumerable
                                | sys::PropertyAttributes::configurable,
                            data: ptr::null_mut(),
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                check(sys::napi_define_properties(env, result, properties.len(), properties.as_ptr()))?;
            }
        }
    }
    Ok(result)
}

impl ToNapiValue for Payload {
    unsafe fn to_napi_value(env: sys::napi_env, payload: Self) -> Result<sys::napi_value> {
        match payload {
            // SAFETY: `env` is valid, as the caller guarantees.
            Payload::Json(text) => unsafe { string(env, &text) },
            // SAFETY: as above.
            Payload::Object(value) => unsafe { build(env, &value) },
        }
    }
}
