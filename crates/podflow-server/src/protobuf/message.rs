//! The table-driven decoder: reads a message field by field, looks each
//! field number up in the message's table and writes the JSON the Go types
//! would have written. Fields the table lacks are skipped, their paths kept.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Number, Value};

use super::schema::{Absent, Field, Message, Shape, Ty};
use super::wire::{Reader, Wire};

/// How deep messages may nest (the tables reach about a dozen levels; a
/// nested envelope in a `RawExtension` adds its own).
const MAX_DEPTH: usize = 64;

/// Decodes messages, keeping the paths of the fields it skipped.
#[derive(Default)]
pub(super) struct Decoder {
    /// `spec.template.spec.containers[0]#42`: field 42 of that container,
    /// which the tables do not know.
    pub(super) unknown: Vec<String>,
    depth: usize,
}

impl Decoder {
    /// `bytes`, a `message`, as a JSON object; `path` names it in errors.
    pub(super) fn message(
        &mut self,
        message: &'static Message,
        bytes: &[u8],
        path: &str,
    ) -> Result<Map<String, Value>, String> {
        if self.depth >= MAX_DEPTH {
            return Err(format!(
                "{}: messages nest deeper than {MAX_DEPTH} levels",
                shown(path)
            ));
        }
        self.depth += 1;
        let object = self.fields(message, bytes, path);
        self.depth -= 1;
        object
    }

    fn fields(
        &mut self,
        message: &'static Message,
        bytes: &[u8],
        path: &str,
    ) -> Result<Map<String, Value>, String> {
        let mut object = Map::new();
        let mut seen = vec![false; message.fields.len()];
        let mut reader = Reader::new(bytes);
        while let Some((tag, wire)) = reader
            .field()
            .map_err(|error| format!("{} ({}): {error}", shown(path), message.name))?
        {
            let Some(index) = message.fields.iter().position(|field| field.tag == tag) else {
                self.unknown.push(format!("{path}#{tag}"));
                continue;
            };
            seen[index] = true;
            let field = &message.fields[index];
            let here = child(path, field.json);
            match field.shape {
                Shape::One => {
                    let value = self.value(field.ty, wire, &here)?;
                    set(&mut object, field.json, value);
                }
                Shape::List => self.items(&mut object, field, wire, &here)?,
                Shape::Map => {
                    let (key, value) = self.entry(field.ty, wire, &here)?;
                    let Value::Object(entries) = object
                        .entry(field.json)
                        .or_insert_with(|| Value::Object(Map::new()))
                    else {
                        unreachable!("a map field holds an object")
                    };
                    entries.insert(key, value);
                }
                Shape::Inline => {
                    let inner = self.value(field.ty, wire, path)?;
                    merge_inline(&mut object, inner);
                }
            }
        }
        for (field, seen) in message.fields.iter().zip(seen) {
            if seen {
                if field.omit_zero && object.get(field.json).is_some_and(is_zero) {
                    object.remove(field.json);
                }
                continue;
            }
            match field.absent {
                Absent::Omit => {}
                Absent::Null => {
                    object.insert(field.json.to_string(), Value::Null);
                }
                Absent::Zero if field.shape == Shape::Inline => {
                    let inner = self.zero(field.ty, path)?;
                    merge_inline(&mut object, inner);
                }
                Absent::Zero => {
                    let value = self.zero(field.ty, &child(path, field.json))?;
                    object.insert(field.json.to_string(), value);
                }
            }
        }
        Ok(object)
    }

    /// One value of type `ty`.
    pub(super) fn value(&mut self, ty: Ty, wire: Wire<'_>, path: &str) -> Result<Value, String> {
        Ok(match ty {
            Ty::String => Value::String(String::from_utf8_lossy(expect_bytes(wire, path)?).into()),
            Ty::Bytes => Value::String(STANDARD.encode(expect_bytes(wire, path)?)),
            Ty::Bool => Value::Bool(expect_varint(wire, path)? != 0),
            Ty::Int32 => {
                let signed = expect_varint(wire, path)?.cast_signed();
                let narrow = i32::try_from(signed)
                    .map_err(|_| format!("{}: {signed} does not fit an int32", shown(path)))?;
                Value::from(narrow)
            }
            Ty::Int64 => Value::from(expect_varint(wire, path)?.cast_signed()),
            Ty::Double => {
                let Wire::Fixed64(bits) = wire else {
                    return Err(mismatch(path, "a 64-bit word", wire));
                };
                let number = f64::from_bits(bits);
                Value::Number(
                    Number::from_f64(number)
                        .ok_or_else(|| format!("{}: {number} has no JSON form", shown(path)))?,
                )
            }
            Ty::Message(message) => {
                Value::Object(self.message(message, expect_bytes(wire, path)?, path)?)
            }
            special => self.special(special, expect_bytes(wire, path)?, path)?,
        })
    }

    /// One occurrence of a repeated field: an element, or a packed run of them.
    fn items(
        &mut self,
        object: &mut Map<String, Value>,
        field: &Field,
        wire: Wire<'_>,
        path: &str,
    ) -> Result<(), String> {
        let Value::Array(array) = object
            .entry(field.json)
            .or_insert_with(|| Value::Array(Vec::new()))
        else {
            unreachable!("a repeated field holds an array")
        };
        match (field.ty, wire) {
            (Ty::Bool | Ty::Int32 | Ty::Int64, Wire::Bytes(packed)) => {
                let mut reader = Reader::new(packed);
                while !reader.is_empty() {
                    let element = reader
                        .varint()
                        .map_err(|error| format!("{}: {error}", shown(path)))?;
                    let here = format!("{path}[{}]", array.len());
                    array.push(self.value(field.ty, Wire::Varint(element), &here)?);
                }
            }
            (Ty::Double, Wire::Bytes(packed)) => {
                let mut reader = Reader::new(packed);
                while !reader.is_empty() {
                    let word = reader
                        .take_array::<8>()
                        .map_err(|error| format!("{}: {error}", shown(path)))?;
                    let here = format!("{path}[{}]", array.len());
                    array.push(self.value(
                        field.ty,
                        Wire::Fixed64(u64::from_le_bytes(word)),
                        &here,
                    )?);
                }
            }
            _ => {
                let here = format!("{path}[{}]", array.len());
                let value = self.value(field.ty, wire, &here)?;
                array.push(value);
            }
        }
        Ok(())
    }

    /// One entry of a `map<string, T>`: a message `{key = 1; value = 2}`.
    fn entry(&mut self, ty: Ty, wire: Wire<'_>, path: &str) -> Result<(String, Value), String> {
        let mut reader = Reader::new(expect_bytes(wire, path)?);
        let (mut key, mut value) = (String::new(), None);
        while let Some((tag, wire)) = reader
            .field()
            .map_err(|error| format!("{}: {error}", shown(path)))?
        {
            match tag {
                1 => key = String::from_utf8_lossy(expect_bytes(wire, path)?).into(),
                2 => value = Some(wire),
                _ => self.unknown.push(format!("{path}#{tag}")),
            }
        }
        let here = format!("{path}[{key}]");
        let value = match value {
            Some(wire) => self.value(ty, wire, &here)?,
            None => self.zero(ty, &here)?,
        };
        Ok((key, value))
    }

    /// The JSON of Go's zero value of `ty`, for a value the wire left out.
    fn zero(&mut self, ty: Ty, path: &str) -> Result<Value, String> {
        Ok(match ty {
            Ty::Bool => Value::Bool(false),
            Ty::Int32 | Ty::Int64 | Ty::Double => Value::from(0),
            Ty::String | Ty::Bytes => Value::String(String::new()),
            Ty::StringItems => Value::Null,
            other => self.value(other, Wire::Bytes(&[]), path)?,
        })
    }
}

/// Sets `key`; a message met again is merged into the first, as protobuf
/// merges a repeated occurrence of a singular message field.
fn set(object: &mut Map<String, Value>, key: &str, value: Value) {
    match (object.get_mut(key), value) {
        (Some(Value::Object(earlier)), Value::Object(later)) => earlier.extend(later),
        (_, value) => {
            object.insert(key.to_string(), value);
        }
    }
}

/// Puts the fields of an inline struct into its parent.
fn merge_inline(object: &mut Map<String, Value>, inner: Value) {
    if let Value::Object(fields) = inner {
        for (key, value) in fields {
            set(object, &key, value);
        }
    }
}

/// Whether Go's `omitempty` leaves `value` out of JSON.
fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(set) => !set,
        Value::Number(number) => number.as_f64() == Some(0.0),
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(fields) => fields.is_empty(),
    }
}

pub(super) fn expect_bytes<'a>(wire: Wire<'a>, path: &str) -> Result<&'a [u8], String> {
    match wire {
        Wire::Bytes(bytes) => Ok(bytes),
        other => Err(mismatch(path, "length-delimited bytes", other)),
    }
}

pub(super) fn expect_varint(wire: Wire<'_>, path: &str) -> Result<u64, String> {
    match wire {
        Wire::Varint(value) => Ok(value),
        other => Err(mismatch(path, "a varint", other)),
    }
}

fn mismatch(path: &str, wanted: &str, found: Wire<'_>) -> String {
    format!(
        "{}: expected {wanted}, found {}",
        shown(path),
        found.describe()
    )
}

/// `path.name`, or `name` at the top.
fn child(path: &str, name: &str) -> String {
    match (path.is_empty(), name.is_empty()) {
        (_, true) => path.to_string(),
        (true, false) => name.to_string(),
        (false, false) => format!("{path}.{name}"),
    }
}

/// How an error names a path (the top object has the empty path).
pub(super) fn shown(path: &str) -> &str {
    if path.is_empty() { "the object" } else { path }
}
