//! Request bodies in Kubernetes protobuf
//! (`Content-Type: application/vnd.kubernetes.protobuf`), read into the JSON
//! the API server would have received. kubectl 1.32 and later sends its
//! typed-client requests this way (`kubectl create deployment|namespace|…`,
//! `kubectl auth can-i`, `kubectl auth whoami`, `kubectl drain`'s
//! `DeleteOptions`), while accepting JSON answers.
//!
//! The decoder is driven by tables (`tables/`), one entry per field of each
//! upstream message: its number, JSON name, type and JSON shape, transcribed
//! from upstream's `generated.proto` files and the `json` tags of the Go
//! types beside them. The JSON is what Go's `encoding/json` writes for the Go
//! object the API server decodes: a field Go sends only when set (a pointer,
//! such as `replicas`) appears whenever it is on the wire, even as `0`; a
//! zero scalar with `omitempty` (which Go's protobuf encoder writes anyway)
//! is left out; a field not on the wire takes Go's zero value (`{}` for a
//! struct, `null` for a nil list, map or pointer without `omitempty`);
//! `bytes` are base64; `Quantity`, `IntOrString`, `Time`, `MicroTime`,
//! `Duration`, `FieldsV1` and `RawExtension` take their JSON forms. So the
//! bodies kubectl 1.32 sends read as exactly the JSON kubectl 1.31 sent for
//! the same commands (`tests/fixtures/protobuf/`).
//!
//! Simplifications: fields the tables do not know are skipped (their paths
//! are reported by [`decode_detailed`], and [`decode`] ignores them), so a
//! newer client's new field is dropped rather than refused; a singular
//! message met twice is merged one level deep; only the kinds of `kinds.rs`
//! are read, and an envelope with a content encoding is refused.

mod envelope;
mod format;
mod kinds;
mod message;
mod schema;
mod special;
mod tables;
mod wire;

#[cfg(test)]
mod tests;

use serde_json::Value;

/// The media type.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// A decoded body, with what the decoder skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The object as JSON, with `apiVersion` and `kind` set.
    pub object: Value,
    /// The fields skipped because the tables lack them, as JSON paths ending
    /// in the field number: `spec.template.spec#99`, `metadata.labels#3` (in a map entry).
    pub unknown_fields: Vec<String>,
}

/// Decodes a Kubernetes protobuf body: the 4-byte magic `k8s\0`, then a
/// `runtime.Unknown` {typeMeta{apiVersion, kind}, raw, contentEncoding,
/// contentType}; `raw` is the message of that kind. Returns the object as the
/// JSON the API server would have received (with apiVersion and kind set),
/// or an error message (the API server answers 400 with it).
pub fn decode(body: &[u8]) -> Result<Value, String> {
    decode_detailed(body).map(|decoded| decoded.object)
}

/// As [`decode`], also naming the fields it skipped.
pub fn decode_detailed(body: &[u8]) -> Result<Decoded, String> {
    let mut decoder = message::Decoder::default();
    let object = envelope::open(&mut decoder, body, "")?;
    Ok(Decoded {
        object: Value::Object(object),
        unknown_fields: decoder.unknown,
    })
}
