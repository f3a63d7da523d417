//! The upstream messages whose JSON is not an object: `resource.Quantity`
//! (`k8s.io/apimachinery/pkg/api/resource/generated.proto`),
//! `intstr.IntOrString` (`pkg/util/intstr/generated.proto`), `Time`,
//! `MicroTime`, `Duration` and `FieldsV1` (`pkg/apis/meta/v1/generated.proto`,
//! with the encoders of `time_proto.go` and `micro_time_proto.go`),
//! `runtime.RawExtension` (`pkg/runtime/generated.proto`) and the `[]string`
//! types given a message `{repeated string items = 1}`.

use serde_json::Value;

use super::envelope;
use super::format::{go_duration, rfc3339};
use super::message::{Decoder, expect_bytes, expect_varint, shown};
use super::schema::Ty;
use super::wire::{Reader, Wire};

impl Decoder {
    /// The JSON of `bytes`, a message of the special type `ty`.
    pub(super) fn special(&mut self, ty: Ty, bytes: &[u8], path: &str) -> Result<Value, String> {
        match ty {
            Ty::Quantity => {
                // A zero Quantity is written as "0"; an empty one means the same.
                let text = self.string_at(bytes, 1, path)?;
                Ok(Value::String(text.unwrap_or_else(|| "0".to_string())))
            }
            Ty::IntOrString => self.int_or_string(bytes, path),
            Ty::Time | Ty::MicroTime => self.time(bytes, matches!(ty, Ty::MicroTime), path),
            Ty::Duration => {
                let mut nanos = 0;
                self.each(bytes, path, |tag, wire| match tag {
                    1 => {
                        nanos = expect_varint(wire, path)?.cast_signed();
                        Ok(true)
                    }
                    _ => Ok(false),
                })?;
                Ok(Value::String(go_duration(nanos)))
            }
            Ty::FieldsV1 => {
                let raw = self.bytes_at(bytes, 1, path)?.unwrap_or_default();
                json(raw, path)
            }
            Ty::RawExtension => {
                let raw = self.bytes_at(bytes, 1, path)?.unwrap_or_default();
                if raw.starts_with(envelope::MAGIC) {
                    envelope::open(self, raw, path).map(Value::Object)
                } else {
                    json(raw, path)
                }
            }
            Ty::StringItems => {
                let mut items = Vec::new();
                self.each(bytes, path, |tag, wire| match tag {
                    1 => {
                        let item = String::from_utf8_lossy(expect_bytes(wire, path)?);
                        items.push(Value::String(item.into()));
                        Ok(true)
                    }
                    _ => Ok(false),
                })?;
                Ok(Value::Array(items))
            }
            Ty::String
            | Ty::Bytes
            | Ty::Bool
            | Ty::Int32
            | Ty::Int64
            | Ty::Double
            | Ty::Message(_) => unreachable!("not a special type"),
        }
    }

    /// `{int64 type = 1; int32 intVal = 2; string strVal = 3}`: type 1 is a
    /// string, anything else the number.
    fn int_or_string(&mut self, bytes: &[u8], path: &str) -> Result<Value, String> {
        let (mut kind, mut number, mut text) = (0, 0, String::new());
        self.each(bytes, path, |tag, wire| {
            match tag {
                1 => kind = expect_varint(wire, path)?,
                2 => {
                    let signed = expect_varint(wire, path)?.cast_signed();
                    number = i32::try_from(signed)
                        .map_err(|_| format!("{}: {signed} does not fit an int32", shown(path)))?;
                }
                3 => text = String::from_utf8_lossy(expect_bytes(wire, path)?).into(),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(if kind == 1 {
            Value::String(text)
        } else {
            Value::from(number)
        })
    }

    /// `{int64 seconds = 1; int32 nanos = 2}`: an empty message is Go's zero
    /// time (JSON `null`); `Time` drops the nanoseconds, `MicroTime` keeps
    /// whole microseconds.
    fn time(&mut self, bytes: &[u8], micro: bool, path: &str) -> Result<Value, String> {
        if bytes.is_empty() {
            return Ok(Value::Null);
        }
        let (mut seconds, mut nanos) = (0i64, 0i64);
        self.each(bytes, path, |tag, wire| {
            match tag {
                1 => seconds = expect_varint(wire, path)?.cast_signed(),
                2 => nanos = expect_varint(wire, path)?.cast_signed(),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        let micros = if micro {
            let micros = u32::try_from(nanos / 1000)
                .ok()
                .filter(|micros| *micros < 1_000_000 && nanos >= 0)
                .ok_or_else(|| format!("{}: {nanos} nanoseconds is out of range", shown(path)))?;
            Some(micros)
        } else {
            None
        };
        let text = rfc3339(seconds, micros).map_err(|error| format!("{}: {error}", shown(path)))?;
        Ok(Value::String(text))
    }

    /// The last string of field `tag`, if any.
    fn string_at(&mut self, bytes: &[u8], tag: u32, path: &str) -> Result<Option<String>, String> {
        Ok(self
            .bytes_at(bytes, tag, path)?
            .map(|raw| String::from_utf8_lossy(raw).into_owned()))
    }

    /// The last bytes of field `tag`, if any.
    fn bytes_at<'a>(
        &mut self,
        bytes: &'a [u8],
        tag: u32,
        path: &str,
    ) -> Result<Option<&'a [u8]>, String> {
        let mut found = None;
        self.each(bytes, path, |number, wire| {
            if number != tag {
                return Ok(false);
            }
            found = Some(expect_bytes(wire, path)?);
            Ok(true)
        })?;
        Ok(found)
    }

    /// Calls `visit` on each field; one it answers `false` for is unknown.
    fn each<'a>(
        &mut self,
        bytes: &'a [u8],
        path: &str,
        mut visit: impl FnMut(u32, Wire<'a>) -> Result<bool, String>,
    ) -> Result<(), String> {
        let mut reader = Reader::new(bytes);
        while let Some((tag, wire)) = reader
            .field()
            .map_err(|error| format!("{}: {error}", shown(path)))?
        {
            if !visit(tag, wire)? {
                self.unknown.push(format!("{path}#{tag}"));
            }
        }
        Ok(())
    }
}

/// Raw JSON bytes as a value; none at all is `null`.
fn json(raw: &[u8], path: &str) -> Result<Value, String> {
    if raw.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(raw)
        .map_err(|error| format!("{}: the raw bytes are not JSON: {error}", shown(path)))
}
