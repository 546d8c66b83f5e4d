//! The Python value conversion of the Python package: any Python value a handler may return,
//! however deep, self-referencing or unrepresentable, becomes JSON or a `TypeError` or
//! `ValueError`; never a crash, and what converts comes back unchanged from a round trip.
//!
//! Input: a little stack program that builds the value. Each byte picks an operation; some take
//! their operand from the following bytes.

#![no_main]

use _native::convert::{MAX_DEPTH, from_py, to_py};
use libfuzzer_sys::fuzz_target;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySet, PyTuple};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    Python::attach(|py| {
        let value = build(py, data).expect("building a value never fails");
        match from_py(&value) {
            Ok(json) => {
                assert!(depth(&json) <= MAX_DEPTH + 1, "a value deeper than the limit converted");
                let again = to_py(py, &json).expect("JSON converts to Python");
                assert_eq!(from_py(&again).expect("a converted value converts again"), json);
            }
            Err(e) => assert!(
                e.is_instance_of::<PyTypeError>(py) || e.is_instance_of::<PyValueError>(py),
                "unexpected exception {e}"
            ),
        }
    });
});

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Runs the stack program in `data`; the result is the list of what is left on the stack.
fn build<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let mut stack: Vec<Bound<'py, PyAny>> = Vec::new();
    let mut bytes = data.iter().copied();
    while let Some(op) = bytes.next() {
        let arg = bytes.next().unwrap_or(0);
        match op % 12 {
            0 => stack.push(py.None().into_bound(py)),
            1 => stack.push((arg & 1 == 1).into_pyobject(py)?.to_owned().into_any()),
            2 => stack.push(i64::from(arg as i8).wrapping_mul(i64::MAX / 100).into_pyobject(py)?.into_any()),
            3 => stack.push(py.eval(&std::ffi::CString::new(format!("2 ** {arg}"))?, None, None)?),
            4 => stack.push(f64::from_bits(u64::from(arg).wrapping_mul(0x0101_0101_0101_0101)).into_pyobject(py)?.into_any()),
            5 => stack.push(String::from_utf8_lossy(&data[..usize::from(arg).min(data.len())]).into_pyobject(py)?.into_any()),
            6 => {
                let items = take(&mut stack, arg);
                stack.push(PyList::new(py, items)?.into_any());
            }
            7 => {
                let items = take(&mut stack, arg);
                stack.push(PyTuple::new(py, items)?.into_any());
            }
            8 => {
                let dict = PyDict::new(py);
                for (i, item) in take(&mut stack, arg).into_iter().enumerate() {
                    if arg & 0x80 == 0 { dict.set_item(format!("k{i}"), item)? } else { dict.set_item(i, item)? }
                }
                stack.push(dict.into_any());
            }
            9 => {
                // A container that holds itself.
                if let Some(top) = stack.last() {
                    if let Ok(list) = top.cast::<PyList>() {
                        list.append(list)?;
                    } else if let Ok(dict) = top.cast::<PyDict>() {
                        dict.set_item("self", dict)?;
                    }
                }
            }
            10 => {
                // The same object twice: shared, not a cycle.
                if let Some(top) = stack.last().cloned() {
                    stack.push(top);
                }
            }
            _ => {
                if arg & 0x80 == 0 {
                    // Deep nesting: wrap the top in `arg` lists.
                    let mut top = stack.pop().unwrap_or_else(|| py.None().into_bound(py));
                    for _ in 0..arg {
                        top = PyList::new(py, [top])?.into_any();
                    }
                    stack.push(top);
                } else {
                    let set = PySet::new(py, [i64::from(arg), 1, 2])?;
                    stack.push(set.into_any());
                }
            }
        }
    }
    Ok(PyList::new(py, stack)?.into_any())
}

/// Takes up to `count % 8` items off the top of the stack, in order.
fn take<'py>(stack: &mut Vec<Bound<'py, PyAny>>, count: u8) -> Vec<Bound<'py, PyAny>> {
    let n = usize::from(count % 8).min(stack.len());
    stack.split_off(stack.len() - n)
}
