//! Turning typed values into JSON without losing numbers: NaN and infinities are refused.
//!
//! JSON has no NaN or infinity, and `serde_json` silently writes them as `null`, which would
//! hand the peer a value the sender never meant. Every typed value this crate puts on the wire
//! goes through [`to_value`], which walks it once and fails on such a number instead.

use serde::{
    Serialize,
    ser::{self, Error as _},
};
use serde_json::{Value, value::RawValue};

/// Converts `value` to JSON, failing when it holds a NaN or an infinite float.
pub(crate) fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, serde_json::Error> {
    value.serialize(FiniteCheck)?;
    serde_json::to_value(value)
}

/// Encodes `value` as compact JSON text, failing when it holds a NaN or an infinite float.
pub(crate) fn to_raw_value<T: Serialize + ?Sized>(value: &T) -> Result<Box<RawValue>, serde_json::Error> {
    value.serialize(FiniteCheck)?;
    serde_json::value::to_raw_value(value)
}

/// A serializer that produces nothing and fails on the first float that is not finite.
#[derive(Clone, Copy)]
struct FiniteCheck;

type Check = Result<(), serde_json::Error>;

fn float(v: f64) -> Check {
    if v.is_finite() {
        Ok(())
    } else {
        Err(serde_json::Error::custom(format_args!("{v} is not a JSON number (NaN and infinities are not allowed)")))
    }
}

impl ser::Serializer for FiniteCheck {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, _: bool) -> Check {
        Ok(())
    }
    fn serialize_i8(self, _: i8) -> Check {
        Ok(())
    }
    fn serialize_i16(self, _: i16) -> Check {
        Ok(())
    }
    fn serialize_i32(self, _: i32) -> Check {
        Ok(())
    }
    fn serialize_i64(self, _: i64) -> Check {
        Ok(())
    }
    fn serialize_i128(self, _: i128) -> Check {
        Ok(())
    }
    fn serialize_u8(self, _: u8) -> Check {
        Ok(())
    }
    fn serialize_u16(self, _: u16) -> Check {
        Ok(())
    }
    fn serialize_u32(self, _: u32) -> Check {
        Ok(())
    }
    fn serialize_u64(self, _: u64) -> Check {
        Ok(())
    }
    fn serialize_u128(self, _: u128) -> Check {
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Check {
        float(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Check {
        float(v)
    }
    fn serialize_char(self, _: char) -> Check {
        Ok(())
    }
    fn serialize_str(self, _: &str) -> Check {
        Ok(())
    }
    fn serialize_bytes(self, _: &[u8]) -> Check {
        Ok(())
    }
    fn serialize_none(self) -> Check {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Check {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Check {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Check {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Check {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Check {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Check {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, serde_json::Error> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, serde_json::Error> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, serde_json::Error> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, serde_json::Error> {
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, serde_json::Error> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, serde_json::Error> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, serde_json::Error> {
        Ok(self)
    }
}

impl ser::SerializeSeq for FiniteCheck {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Check {
        value.serialize(*self)
    }
    fn end(self) -> Check {
        Ok(())
    }
}

impl ser::SerializeTuple for FiniteCheck {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Check {
        value.serialize(*self)
    }
    fn end(self) -> Check {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for FiniteCheck {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Check {
        value.serialize(*self)
    }
    fn end(self) -> Check {
        Ok(())
    }
}

impl ser::SerializeTupleVariant for FiniteCheck {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Check {
        value.serialize(*self)
    }
    fn end(self) -> Check {
        Ok(())
    }
}

impl ser::SerializeMap for FiniteCheck {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Check {
        key.serialize(*self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Check {
        value.serialize(*self)
    }
    fn end(self) -> Check {
        Ok(())
    }
}

impl ser::SerializeStruct for FiniteCheck {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Check {
        value.serialize(*self)
    }
    fn end(self) -> Check {
        Ok(())
    }
}

impl ser::SerializeStructVariant for FiniteCheck {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Check {
        value.serialize(*self)
    }
    fn end(self) -> Check {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Reading {
        label: &'static str,
        values: Vec<f64>,
        nested: Option<Box<Reading>>,
    }

    #[test]
    fn finite_values_convert_as_serde_json_does() {
        let reading = Reading { label: "a", values: vec![1.5, -2.0], nested: None };
        assert_eq!(to_value(&reading).unwrap(), serde_json::to_value(&reading).unwrap());
        assert_eq!(to_raw_value(&reading).unwrap().get(), serde_json::to_string(&reading).unwrap());
    }

    #[test]
    fn nan_and_infinities_are_refused_wherever_they_are() {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            // serde_json alone turns them into null.
            assert_eq!(serde_json::to_value(bad).unwrap(), Value::Null);
            assert!(to_value(&bad).is_err());
            let inner = Reading { label: "in", values: vec![0.0, bad], nested: None };
            let outer = Reading { label: "out", values: vec![], nested: Some(Box::new(inner)) };
            let e = to_value(&outer).unwrap_err();
            assert!(e.to_string().contains("not a JSON number"), "{e}");
            let e = to_raw_value(&outer).unwrap_err();
            assert!(e.to_string().contains("not a JSON number"), "{e}");
        }
        assert!(to_value(&f32::NAN).is_err());
    }
}
