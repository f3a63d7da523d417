//! The envelope around every Kubernetes protobuf body
//! (`k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go`): the
//! four bytes `k8s\0`, then a `runtime.Unknown`
//! (`k8s.io/apimachinery/pkg/runtime/generated.proto`):
//!
//! ```text
//! message Unknown { TypeMeta typeMeta = 1; bytes raw = 2;
//!                   string contentEncoding = 3; string contentType = 4; }
//! message TypeMeta { string apiVersion = 1; string kind = 2; }
//! ```
//!
//! `raw` is the object of that kind, without its type fields.

use serde_json::{Map, Value};

use super::kinds;
use super::message::{Decoder, expect_bytes, shown};
use super::wire::Reader;

/// The prefix of a Kubernetes protobuf body.
pub(super) const MAGIC: &[u8] = b"k8s\0";

/// The object in `body`, with its `apiVersion` and `kind`.
pub(super) fn open(
    decoder: &mut Decoder,
    body: &[u8],
    path: &str,
) -> Result<Map<String, Value>, String> {
    let Some(unknown) = body.strip_prefix(MAGIC) else {
        return Err(format!(
            "{}: not a Kubernetes protobuf body (it does not start with the bytes \"k8s\\0\")",
            shown(path)
        ));
    };
    let envelope = Envelope::read(unknown).map_err(|error| format!("{}: {error}", shown(path)))?;
    let Envelope {
        api_version,
        kind,
        raw,
        content_encoding,
        content_type,
    } = envelope;
    if kind.is_empty() {
        return Err(format!(
            "{}: the protobuf envelope names no kind",
            shown(path)
        ));
    }
    if !content_encoding.is_empty() {
        return Err(format!(
            "{}: the protobuf envelope's content encoding {content_encoding:?} is not supported",
            shown(path)
        ));
    }
    let fields = match content_type.as_str() {
        "" | super::MEDIA_TYPE => {
            let Some(message) = kinds::root(&api_version, &kind) else {
                return Err(format!(
                    "{}: podflow cannot read a {kind} ({api_version}) sent as protobuf; send it as JSON",
                    shown(path)
                ));
            };
            decoder.message(message, raw, path)?
        }
        "application/json" => match serde_json::from_slice(raw) {
            Ok(Value::Object(fields)) => fields,
            Ok(_) => {
                return Err(format!(
                    "{}: the enveloped JSON is not an object",
                    shown(path)
                ));
            }
            Err(error) => return Err(format!("{}: the enveloped JSON: {error}", shown(path))),
        },
        other => {
            return Err(format!(
                "{}: the protobuf envelope's content type {other:?} is not supported",
                shown(path)
            ));
        }
    };
    let mut object = Map::new();
    object.insert("apiVersion".into(), Value::String(api_version));
    object.insert("kind".into(), Value::String(kind));
    object.extend(fields);
    Ok(object)
}

/// A `runtime.Unknown`, read.
#[derive(Default)]
struct Envelope<'a> {
    api_version: String,
    kind: String,
    raw: &'a [u8],
    content_encoding: String,
    content_type: String,
}

impl<'a> Envelope<'a> {
    fn read(bytes: &'a [u8]) -> Result<Self, String> {
        let mut envelope = Envelope::default();
        let mut reader = Reader::new(bytes);
        while let Some((tag, wire)) = reader.field()? {
            match tag {
                1 => {
                    let mut type_meta = Reader::new(expect_bytes(wire, "typeMeta")?);
                    while let Some((tag, wire)) = type_meta.field()? {
                        let value = expect_bytes(wire, "typeMeta").map(text);
                        match tag {
                            1 => envelope.api_version = value?,
                            2 => envelope.kind = value?,
                            _ => {}
                        }
                    }
                }
                2 => envelope.raw = expect_bytes(wire, "raw")?,
                3 => envelope.content_encoding = text(expect_bytes(wire, "contentEncoding")?),
                4 => envelope.content_type = text(expect_bytes(wire, "contentType")?),
                _ => {}
            }
        }
        Ok(envelope)
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
