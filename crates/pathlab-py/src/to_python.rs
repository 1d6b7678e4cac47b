//! Serde values straight into Python objects, in serde_json's data model: what `json.loads` of
//! `serde_json::to_string` gave, without the text in between. Structs and maps become dicts (keys
//! in serialization order, map keys as strings), sequences and tuples lists, `None` and non-finite
//! floats `None`, enums as serde_json writes them. Keys are made once per conversion and shared
//! by every dict that has them, as `json.loads` shares them (a table of 40,000 path rows holds
//! its 20 keys once, not 800,000 times).
//!
//! pythonize (the crate) was the first choice and does not fit: it turns tuples into Python
//! tuples and keeps integer map keys as integers, so `data` would differ from the JSON's.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};
use pyo3::IntoPyObjectExt;
use serde::ser::{self, Serialize};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// `value` as Python objects; a value serde cannot write this way (a map key that is no string,
/// number or bool) is a RuntimeError: an engine bug, not bad input.
pub fn to_python<'py, T: Serialize + ?Sized>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    let mut keys = Keys { py, made: HashMap::new() };
    value.serialize(Converter { keys: &mut keys, only: Only::All }).map_err(|e| e.0)
}

/// Per table of a struct (its field holding a sequence of rows), the fields each row keeps.
pub type RowFields = HashMap<String, HashSet<String>>;

/// `to_python` of a struct whose tables named in `rows` keep only the fields named there in each
/// row (a pilot's passes read 10 of a path row's 28 fields: 128,000 rows on 32 × 500 × 8).
pub fn to_python_rows<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
    rows: &RowFields,
) -> PyResult<Bound<'py, PyAny>> {
    let mut keys = Keys { py, made: HashMap::new() };
    value.serialize(Converter { keys: &mut keys, only: Only::Tables(rows) }).map_err(|e| e.0)
}

/// What a value being converted keeps (`to_python_rows`).
#[derive(Clone, Copy)]
enum Only<'a> {
    /// All of it.
    All,
    /// A struct whose fields named here are tables of rows keeping the fields listed.
    Tables(&'a RowFields),
    /// A sequence of rows, each keeping these fields.
    Rows(&'a HashSet<String>),
    /// A row: these fields of it.
    Fields(&'a HashSet<String>),
}

/// The conversion's error: a Python error, or serde's message as a RuntimeError.
pub struct Error(PyErr);

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(PyRuntimeError::new_err(msg.to_string()))
    }
}

type Result<T> = std::result::Result<T, Error>;

/// The dict keys made so far in one conversion, by text.
struct Keys<'py> {
    py: Python<'py>,
    made: HashMap<String, Bound<'py, PyString>>,
}

impl<'py> Keys<'py> {
    fn get(&mut self, text: &str) -> Bound<'py, PyString> {
        if let Some(key) = self.made.get(text) {
            return key.clone();
        }
        let key = PyString::new(self.py, text);
        self.made.insert(text.to_owned(), key.clone());
        key
    }
}

/// Whether a row (`only`) leaves out its entry `key`.
fn leaves_out(only: Only<'_>, key: &str) -> bool {
    matches!(only, Only::Fields(fields) if !fields.contains(key))
}

/// What the value of entry `key` keeps: a table's rows their fields.
fn value_only<'a>(only: Only<'a>, key: &str) -> Only<'a> {
    match only {
        Only::Tables(tables) => tables.get(key).map_or(Only::All, Only::Rows),
        _ => Only::All,
    }
}

/// A map key as serde_json writes it: a string as it is, a number or bool as its text.
fn key_text<T: Serialize + ?Sized>(key: &T) -> Result<String> {
    match serde_json::to_value(key).map_err(<Error as ser::Error>::custom)? {
        serde_json::Value::String(text) => Ok(text),
        serde_json::Value::Number(n) => Ok(n.to_string()),
        serde_json::Value::Bool(b) => Ok(b.to_string()),
        other => Err(<Error as ser::Error>::custom(format!("a map key must be a string, not {other}"))),
    }
}

struct Converter<'a, 'py> {
    keys: &'a mut Keys<'py>,
    only: Only<'a>,
}

impl<'a, 'py> Converter<'a, 'py> {
    fn py(&self) -> Python<'py> {
        self.keys.py
    }

    fn object<T: IntoPyObject<'py>>(&self, value: T) -> Result<Bound<'py, PyAny>> {
        Ok(value.into_bound_py_any(self.py())?)
    }

    fn none(&self) -> Bound<'py, PyAny> {
        self.py().None().into_bound(self.py())
    }

    /// `{variant: value}`, as serde_json writes a variant with data.
    fn tagged(self, variant: &'static str, value: Bound<'py, PyAny>) -> Result<Bound<'py, PyAny>> {
        let dict = PyDict::new(self.py());
        dict.set_item(self.keys.get(variant), value)?;
        Ok(dict.into_any())
    }
}

impl<'a, 'py> ser::Serializer for Converter<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = Seq<'a, 'py>;
    type SerializeTuple = Seq<'a, 'py>;
    type SerializeTupleStruct = Seq<'a, 'py>;
    type SerializeTupleVariant = Seq<'a, 'py>;
    type SerializeMap = Map<'a, 'py>;
    type SerializeStruct = Map<'a, 'py>;
    type SerializeStructVariant = Map<'a, 'py>;

    fn serialize_bool(self, v: bool) -> Result<Self::Ok> {
        Ok(PyBool::new(self.py(), v).to_owned().into_any())
    }

    fn serialize_i8(self, v: i8) -> Result<Self::Ok> {
        self.object(v)
    }

    fn serialize_i16(self, v: i16) -> Result<Self::Ok> {
        self.object(v)
    }

    fn serialize_i32(self, v: i32) -> Result<Self::Ok> {
        self.object(v)
    }

    fn serialize_i64(self, v: i64) -> Result<Self::Ok> {
        self.object(v)
    }

    fn serialize_u8(self, v: u8) -> Result<Self::Ok> {
        self.object(v)
    }

    fn serialize_u16(self, v: u16) -> Result<Self::Ok> {
        self.object(v)
    }

    fn serialize_u32(self, v: u32) -> Result<Self::Ok> {
        self.object(v)
    }

    fn serialize_u64(self, v: u64) -> Result<Self::Ok> {
        self.object(v)
    }

    fn serialize_f32(self, v: f32) -> Result<Self::Ok> {
        // serde_json writes an f32 through its shortest decimal form, which Python reads back.
        if v.is_finite() {
            self.object(v.to_string().parse::<f64>().map_err(<Error as ser::Error>::custom)?)
        } else {
            Ok(self.none())
        }
    }

    fn serialize_f64(self, v: f64) -> Result<Self::Ok> {
        // serde_json writes NaN and the infinities as null.
        if v.is_finite() {
            self.object(v)
        } else {
            Ok(self.none())
        }
    }

    fn serialize_char(self, v: char) -> Result<Self::Ok> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result<Self::Ok> {
        Ok(PyString::new(self.py(), v).into_any())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<Self::Ok> {
        Ok(PyList::new(self.py(), v)?.into_any())
    }

    fn serialize_none(self) -> Result<Self::Ok> {
        Ok(self.none())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Self::Ok> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<Self::Ok> {
        Ok(self.none())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<Self::Ok> {
        Ok(self.none())
    }

    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<Self::Ok> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<Self::Ok> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Self::Ok> {
        let inner = value.serialize(Converter { keys: &mut *self.keys, only: Only::All })?;
        self.tagged(variant, inner)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq> {
        let each = match self.only {
            Only::Rows(fields) => Only::Fields(fields),
            _ => Only::All,
        };
        Ok(Seq { keys: self.keys, items: Vec::with_capacity(len.unwrap_or(0)), variant: None, each })
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Self::SerializeTupleStruct> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Ok(Seq { keys: self.keys, items: Vec::with_capacity(len), variant: Some(variant), each: Only::All })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        let dict = PyDict::new(self.py());
        Ok(Map { keys: self.keys, dict, key: None, variant: None, only: self.only, skip: false })
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        self.serialize_map(None)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        let dict = PyDict::new(self.py());
        Ok(Map { keys: self.keys, dict, key: None, variant: Some(variant), only: Only::All, skip: false })
    }
}

/// A sequence or tuple being made (a list), of a variant when `variant` is set.
pub struct Seq<'a, 'py> {
    keys: &'a mut Keys<'py>,
    items: Vec<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
    /// What each item keeps.
    each: Only<'a>,
}

impl<'a, 'py> Seq<'a, 'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let item = value.serialize(Converter { keys: &mut *self.keys, only: self.each })?;
        self.items.push(item);
        Ok(())
    }

    fn finish(self) -> Result<Bound<'py, PyAny>> {
        let list = PyList::new(self.keys.py, self.items)?.into_any();
        match self.variant {
            Some(variant) => Converter { keys: self.keys, only: Only::All }.tagged(variant, list),
            None => Ok(list),
        }
    }
}

impl<'a, 'py> ser::SerializeSeq for Seq<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.push(value)
    }

    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}

impl<'a, 'py> ser::SerializeTuple for Seq<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.push(value)
    }

    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}

impl<'a, 'py> ser::SerializeTupleStruct for Seq<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.push(value)
    }

    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}

impl<'a, 'py> ser::SerializeTupleVariant for Seq<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.push(value)
    }

    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}

/// A map or struct being made (a dict), of a variant when `variant` is set.
pub struct Map<'a, 'py> {
    keys: &'a mut Keys<'py>,
    dict: Bound<'py, PyDict>,
    /// The key given by `serialize_key` and what its value keeps, until its value comes.
    key: Option<(Bound<'py, PyString>, Only<'a>)>,
    variant: Option<&'static str>,
    /// What it keeps of its entries (`Only::Tables`, `Only::Fields`: a struct's fields, flattened ones too).
    only: Only<'a>,
    /// The key given by `serialize_key` is one a row leaves out: its value is skipped.
    skip: bool,
}

impl<'a, 'py> Map<'a, 'py> {
    fn insert<T: Serialize + ?Sized>(&mut self, key: Bound<'py, PyString>, value: &T, only: Only<'a>) -> Result<()> {
        let value = value.serialize(Converter { keys: &mut *self.keys, only })?;
        self.dict.set_item(key, value)?;
        Ok(())
    }

    /// A struct's field, unless its row leaves it out.
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        if leaves_out(self.only, key) {
            return Ok(());
        }
        let only = value_only(self.only, key);
        let key = self.keys.get(key);
        self.insert(key, value, only)
    }

    fn finish(self) -> Result<Bound<'py, PyAny>> {
        match self.variant {
            Some(variant) => Converter { keys: self.keys, only: Only::All }.tagged(variant, self.dict.into_any()),
            None => Ok(self.dict.into_any()),
        }
    }
}

impl<'a, 'py> ser::SerializeMap for Map<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        let text = key_text(key)?;
        self.skip = leaves_out(self.only, &text);
        if !self.skip {
            self.key = Some((self.keys.get(&text), value_only(self.only, &text)));
        }
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        if std::mem::take(&mut self.skip) {
            return Ok(());
        }
        let (key, only) =
            self.key.take().ok_or_else(|| <Error as ser::Error>::custom("a map value without its key"))?;
        self.insert(key, value, only)
    }

    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}

impl<'a, 'py> ser::SerializeStruct for Map<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }

    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}

impl<'a, 'py> ser::SerializeStructVariant for Map<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }

    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}
