//! What a decoding table is made of: for each protobuf message, its fields
//! by number, each with its JSON name, its type and how it appears in JSON.
//! The tables themselves are under `tables/`.

/// One protobuf message.
pub(crate) struct Message {
    /// The upstream message, fully qualified (`k8s.io.api.core.v1.PodSpec`).
    pub(crate) name: &'static str,
    pub(crate) fields: &'static [Field],
}

/// One field of a message.
pub(crate) struct Field {
    /// The protobuf field number.
    pub(crate) tag: u32,
    /// The field's name in JSON (empty for an [`Shape::Inline`] field).
    pub(crate) json: &'static str,
    pub(crate) ty: Ty,
    pub(crate) shape: Shape,
    /// What the JSON holds when the field is not on the wire.
    pub(crate) absent: Absent,
    /// Whether a zero value on the wire (`""`, `0`, `false`, the zero time,
    /// an empty list) is left out of the JSON, as Go's `omitempty` (or
    /// `omitzero`) leaves it out. Go's protobuf encoder writes a non-pointer
    /// scalar even when zero.
    pub(crate) omit_zero: bool,
}

/// How a field sits in the JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One value.
    One,
    /// A repeated field: a JSON array. Packed and unpacked scalars are read.
    List,
    /// A `map<string, T>`: a JSON object.
    Map,
    /// An embedded Go struct (`json:",inline"`): a message on the wire whose
    /// fields sit in the parent's JSON object.
    Inline,
}

/// What Go's `encoding/json` writes for a field that was not on the wire,
/// that is for the Go zero value of the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Absent {
    /// Nothing: `omitempty` on a pointer, a slice, a map or a scalar.
    Omit,
    /// `null`: a nil pointer, slice or map without `omitempty`.
    Null,
    /// The type's zero value: a scalar without `omitempty` (`""`, `0`,
    /// `false`) or a struct (`{}` with its own fields' zero values; the zero
    /// `Time` is `null`).
    Zero,
}

/// A field's type, and so its wire type and its JSON form.
#[derive(Clone, Copy)]
pub(crate) enum Ty {
    /// `string`: a JSON string.
    String,
    /// `bytes`: a base64 JSON string.
    Bytes,
    /// `bool`, a varint.
    Bool,
    /// `int32`, a varint (negative values sign-extended to ten bytes).
    Int32,
    /// `int64`, a varint.
    Int64,
    /// `double`, a 64-bit word.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "no message decoded yet has one")
    )]
    Double,
    /// `resource.Quantity` (`{string string = 1}`): a JSON string (`250m`).
    Quantity,
    /// `intstr.IntOrString` (`{int64 type = 1; int32 intVal = 2; string
    /// strVal = 3}`): a JSON number when `type` is 0, a string when it is 1.
    IntOrString,
    /// `meta/v1.Time` (`{int64 seconds = 1; int32 nanos = 2}`): RFC 3339 in
    /// UTC to the second; an empty message is the zero time, JSON `null`.
    Time,
    /// `meta/v1.MicroTime`: RFC 3339 in UTC with six fractional digits.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "no message decoded yet has one")
    )]
    MicroTime,
    /// `meta/v1.Duration` (`{int64 duration = 1}`, nanoseconds): a Go
    /// duration string (`1m0s`).
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "no message decoded yet has one")
    )]
    Duration,
    /// `meta/v1.FieldsV1` (`{bytes Raw = 1}`): the raw bytes are JSON.
    FieldsV1,
    /// `runtime.RawExtension` (`{bytes raw = 1}`): JSON, or a nested
    /// Kubernetes protobuf envelope.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "no message decoded yet has one")
    )]
    RawExtension,
    /// A Go `[]string` type given a message of its own (`{repeated string
    /// items = 1}`, the `ExtraValue` of authentication and authorization): a
    /// JSON array of strings.
    StringItems,
    /// A message of the tables: a JSON object.
    Message(&'static Message),
}

const fn field(
    tag: u32,
    json: &'static str,
    ty: Ty,
    shape: Shape,
    absent: Absent,
    omit_zero: bool,
) -> Field {
    Field {
        tag,
        json,
        ty,
        shape,
        absent,
        omit_zero,
    }
}

/// A Go field that is neither a pointer nor `omitempty` (or is a struct):
/// Go sends it always, and JSON has it always.
pub(crate) const fn always(tag: u32, json: &'static str, ty: Ty) -> Field {
    field(tag, json, ty, Shape::One, Absent::Zero, false)
}

/// A Go scalar with `omitempty` (or a `Time` with `omitzero`): left out of
/// JSON when zero.
pub(crate) const fn omitempty(tag: u32, json: &'static str, ty: Ty) -> Field {
    field(tag, json, ty, Shape::One, Absent::Omit, true)
}

/// A Go pointer with `omitempty`: sent only when set, so an explicit zero
/// (`replicas: 0`) stays.
pub(crate) const fn pointer(tag: u32, json: &'static str, ty: Ty) -> Field {
    field(tag, json, ty, Shape::One, Absent::Omit, false)
}

/// A Go pointer without `omitempty`: `null` when not set.
pub(crate) const fn pointer_or_null(tag: u32, json: &'static str, ty: Ty) -> Field {
    field(tag, json, ty, Shape::One, Absent::Null, false)
}

/// A repeated field with `omitempty`.
pub(crate) const fn list(tag: u32, json: &'static str, ty: Ty) -> Field {
    field(tag, json, ty, Shape::List, Absent::Omit, true)
}

/// A repeated field without `omitempty`: `null` when empty.
pub(crate) const fn list_or_null(tag: u32, json: &'static str, ty: Ty) -> Field {
    field(tag, json, ty, Shape::List, Absent::Null, false)
}

/// A `map<string, T>` field with `omitempty`.
pub(crate) const fn map(tag: u32, json: &'static str, ty: Ty) -> Field {
    field(tag, json, ty, Shape::Map, Absent::Omit, true)
}

/// A `map<string, T>` field without `omitempty`: `null` when empty.
pub(crate) const fn map_or_null(tag: u32, json: &'static str, ty: Ty) -> Field {
    field(tag, json, ty, Shape::Map, Absent::Null, false)
}

/// An embedded struct whose fields sit in the parent's JSON ([`Shape::Inline`]).
pub(crate) const fn inline(tag: u32, message: &'static Message) -> Field {
    field(
        tag,
        "",
        Ty::Message(message),
        Shape::Inline,
        Absent::Zero,
        false,
    )
}
