//! JSON-shaped values across the boundary: Python dicts, lists and scalars to and from JSON.
//!
//! Richer Python values (bytes, media, dataclasses, pydantic models) are turned into JSON
//! shapes by the package's `_convert` module before they get here. Turning a Python value into
//! JSON is bounded: nesting deeper than [`MAX_DEPTH`] containers, more than [`MAX_VALUES`]
//! values (an object held in several places counts each time, so that a few shared lists cannot
//! unfold into billions of values), a container that holds itself, a NaN or infinite float and an
//! integer outside 64 bits are `ValueError`s, which fail the one call that produced the value and
//! never the process.

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PyMapping, PySet, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// The deepest nesting of containers a Python value may have to become JSON; it matches the
/// nesting the JSON-RPC decoder reads back.
pub const MAX_DEPTH: usize = 128;

/// The most JSON values a Python value may turn into (about a million: a list of as many small
/// numbers is a message of several megabytes). Fuzzing builds use a smaller limit, so that a
/// fuzzer's input that unfolds to the limit still runs in well under its time-out.
pub const MAX_VALUES: usize = if cfg!(fuzzing) { 4096 } else { 1024 * 1024 };

/// The package's hook for values that have no JSON shape of their own (dataclasses, pydantic
/// models, enums, dates, bytes…): called with one, it returns a JSON-shaped replacement one level
/// deep, whose contents the walk then converts, within the same bounds.
static DEFAULT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Sets the hook for values that have no JSON shape of their own; the package sets it once, at
/// import.
#[pyfunction]
pub(crate) fn set_json_default(py: Python<'_>, default: Py<PyAny>) -> PyResult<()> {
    DEFAULT.set(py, default).map_err(|_| PyRuntimeError::new_err("the JSON default is already set"))
}

/// Converts a JSON value into the matching Python value (dict, list, str, ...).
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(pythonize::pythonize(py, value)?)
}

/// Converts a JSON-shaped Python value into JSON; `None` is `null`.
pub fn from_py(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    Walker { open: Vec::new(), left: MAX_VALUES, replacing: false }.value(value)
}

/// Converts an optional JSON-shaped Python value; a missing one is `null`.
pub(crate) fn from_opt(value: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    value.map_or(Ok(Value::Null), from_py)
}

/// A key and its value in a mapping.
type Pair<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>);

/// Walks a Python value depth first, remembering the containers it is inside of.
struct Walker {
    /// The addresses of the containers on the current path, outermost first.
    open: Vec<usize>,
    /// How many more values the JSON may hold.
    left: usize,
    /// Whether the value being converted is what the default hook just returned, which must
    /// have a JSON shape itself (its contents may go through the hook again).
    replacing: bool,
}

impl Walker {
    fn value(&mut self, value: &Bound<'_, PyAny>) -> PyResult<Value> {
        let replacing = std::mem::replace(&mut self.replacing, false);
        self.left = self.left.checked_sub(1).ok_or_else(|| {
            PyValueError::new_err(format!(
                "the value holds more than {MAX_VALUES} JSON values (an object held in several places counts each time)"
            ))
        })?;
        if value.is_none() {
            return Ok(Value::Null);
        }
        if let Ok(text) = value.cast::<PyString>() {
            return Ok(Value::String(text.to_cow()?.into_owned()));
        }
        if let Ok(flag) = value.cast::<PyBool>() {
            return Ok(Value::Bool(flag.is_true()));
        }
        if let Ok(int) = value.cast::<PyInt>() {
            return integer(int);
        }
        if let Ok(float) = value.cast::<PyFloat>() {
            return number(float.value());
        }
        if let Ok(dict) = value.cast::<PyDict>() {
            return self.nested(value, |walker| walker.dict(dict));
        }
        if let Ok(list) = value.cast::<PyList>() {
            return self.nested(value, |walker| walker.items(list.iter()));
        }
        if let Ok(tuple) = value.cast::<PyTuple>() {
            return self.nested(value, |walker| walker.items(tuple.iter()));
        }
        if value.cast::<PySet>().is_ok() || value.cast::<PyFrozenSet>().is_ok() {
            return self.nested(value, |walker| walker.items(value.try_iter()?.flatten()));
        }
        if let Ok(mapping) = value.cast::<PyMapping>() {
            return self.nested(value, |walker| walker.dict(&mapping.items()?.into_any().call_method0("__iter__")?));
        }
        let name = value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        if let Some(default) = DEFAULT.get(value.py()).filter(|_| !replacing) {
            let replacement = default.bind(value.py()).call1((value,))?;
            // The value stays open while its replacement converts: one that holds itself is
            // found as a container's would be.
            return self.nested(value, |walker| {
                walker.replacing = true;
                walker.value(&replacement)
            });
        }
        Err(PyTypeError::new_err(format!("a value of type {name} cannot be sent as JSON")))
    }

    /// Converts the contents of a container once it is known not to contain itself and not to
    /// be nested too deep.
    fn nested(
        &mut self,
        container: &Bound<'_, PyAny>,
        convert: impl FnOnce(&mut Self) -> PyResult<Value>,
    ) -> PyResult<Value> {
        let address = container.as_ptr() as usize;
        if self.open.contains(&address) {
            return Err(PyValueError::new_err("the value contains itself, which JSON cannot express"));
        }
        if self.open.len() == MAX_DEPTH {
            return Err(PyValueError::new_err(format!("the value is nested deeper than {MAX_DEPTH} levels")));
        }
        self.open.push(address);
        let converted = convert(self);
        self.open.pop();
        converted
    }

    fn items<'py>(&mut self, items: impl Iterator<Item = Bound<'py, PyAny>>) -> PyResult<Value> {
        items.map(|item| self.value(&item)).collect::<PyResult<Vec<_>>>().map(Value::Array)
    }

    /// Converts a dict, or the `(key, value)` pairs an iterator yields for other mappings.
    fn dict(&mut self, source: &Bound<'_, PyAny>) -> PyResult<Value> {
        let mut map = Map::new();
        let pairs: Box<dyn Iterator<Item = PyResult<Pair<'_>>>> = match source.cast::<PyDict>() {
            Ok(dict) => Box::new(dict.iter().map(Ok)),
            Err(_) => Box::new(source.try_iter()?.map(|pair| pair?.extract())),
        };
        for pair in pairs {
            let (key, item) = pair?;
            // A key that is not a string becomes its `str()`, as the package has always done.
            let key = match key.cast::<PyString>() {
                Ok(text) => text.to_cow()?.into_owned(),
                Err(_) => key.str()?.to_cow()?.into_owned(),
            };
            map.insert(key, self.value(&item)?);
        }
        Ok(Value::Object(map))
    }
}

fn integer(int: &Bound<'_, PyInt>) -> PyResult<Value> {
    if let Ok(n) = int.extract::<i64>() {
        return Ok(Value::from(n));
    }
    if let Ok(n) = int.extract::<u64>() {
        return Ok(Value::from(n));
    }
    Err(PyValueError::new_err(format!("the integer {int} does not fit in 64 bits; send it as a string")))
}

fn number(float: f64) -> PyResult<Value> {
    Number::from_f64(float).map(Value::Number).ok_or_else(|| {
        PyValueError::new_err(format!("{float} is not a JSON number (NaN and infinities are not allowed)"))
    })
}
