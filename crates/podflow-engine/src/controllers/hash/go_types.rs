//! The Go declarations the pod-template-hash walks: each struct's fields in
//! declaration order, with their Go types and JSON names, and the named types
//! over strings, integers and maps. They are written down in
//! `declarations.txt`, transcribed from upstream's
//! `staging/src/k8s.io/api/core/v1/types.go`,
//! `staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go`,
//! `…/pkg/api/resource/quantity.go` and `amount.go`, and
//! `…/pkg/util/intstr/intstr.go`.
//!
//! The file's grammar, one item per line (`#` starts a comment):
//! - `TypeName` starts a struct; each following indented line is a field:
//!   `GoName GoType json`, where `json` is the JSON key, `inline` for an
//!   embedded `json:",inline"` struct, or `-` for a field JSON never carries;
//! - `type TypeName Underlying` declares a named non-struct type.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{Value, json};

use super::spew::Unsupported;
use podflow_model::quantity_go::{as_controller_reads, format_name};

const DECLARATIONS: &str = include_str!("declarations.txt");

/// One struct field.
#[derive(Debug)]
pub struct Field {
    /// The Go field name, as spew prints it.
    pub name: &'static str,
    /// The Go type, as `reflect.Type.String()` prints it.
    pub ty: &'static str,
    /// The JSON key, if JSON carries the field.
    pub json: Option<&'static str>,
    /// An embedded struct whose fields JSON holds inline.
    pub inline: bool,
}

/// What a Go type is made of, for the formatter.
#[derive(Debug)]
pub enum Shape<'a> {
    /// A struct and its fields.
    Struct(&'a [Field]),
    /// `[]T`: the element type.
    Slice(&'a str),
    /// `map[K]V` with string keys: the value type.
    Map(&'a str),
    /// A string kind.
    String,
    /// An integer kind.
    Int,
    /// `bool`.
    Bool,
}

/// The parsed declarations.
#[derive(Debug, Default)]
pub struct GoSchema {
    structs: HashMap<&'static str, Vec<Field>>,
    named: HashMap<&'static str, &'static str>,
}

/// The declarations, parsed once.
pub fn schema() -> &'static GoSchema {
    static SCHEMA: OnceLock<GoSchema> = OnceLock::new();
    SCHEMA.get_or_init(|| GoSchema::parse(DECLARATIONS))
}

impl GoSchema {
    /// Reads the grammar above; a malformed line is a bug caught by the tests.
    pub fn parse(text: &'static str) -> Self {
        let mut schema = GoSchema::default();
        let mut current: Option<&'static str> = None;
        for raw in text.lines() {
            let line = raw.split('#').next().unwrap_or_default();
            if line.trim().is_empty() {
                continue;
            }
            let words: Vec<&'static str> = line.split_whitespace().collect();
            if line.starts_with(char::is_whitespace) {
                let (Some(owner), [name, ty, json]) = (current, words.as_slice()) else {
                    continue;
                };
                schema.structs.entry(owner).or_default().push(Field {
                    name,
                    ty,
                    json: (*json != "-" && *json != "inline").then_some(*json),
                    inline: *json == "inline",
                });
            } else if let ["type", name, underlying] = words.as_slice() {
                schema.named.insert(name, underlying);
                current = None;
            } else if let [name] = words.as_slice() {
                schema.structs.entry(name).or_default();
                current = Some(name);
            }
        }
        schema
    }

    /// The shape of the (non-pointer) type `ty`.
    pub fn shape<'a>(&'a self, ty: &'a str) -> Result<Shape<'a>, Unsupported> {
        if let Some(elem) = ty.strip_prefix("[]") {
            return Ok(Shape::Slice(elem));
        }
        if let Some(rest) = ty.strip_prefix("map[") {
            let (key, val) = rest
                .split_once(']')
                .ok_or_else(|| Unsupported(format!("bad map type {ty}")))?;
            return match self.shape(key)? {
                Shape::String => Ok(Shape::Map(val)),
                _ => Err(Unsupported(format!("{ty}: keys are not strings"))),
            };
        }
        match ty {
            "string" => return Ok(Shape::String),
            "int" | "int32" | "int64" | "uint8" | "uint32" | "uint64" => return Ok(Shape::Int),
            "bool" => return Ok(Shape::Bool),
            _ => {}
        }
        if let Some(fields) = self.structs.get(ty) {
            return Ok(Shape::Struct(fields));
        }
        match self.named.get(ty) {
            Some(underlying) => self.shape(underlying),
            None => Err(Unsupported(format!("undeclared type {ty}"))),
        }
    }

    /// Whether struct `ty` (or a struct it inlines) has the JSON key `key`.
    pub fn declares(&self, ty: &str, key: &str) -> bool {
        self.structs.get(ty).is_some_and(|fields| {
            fields
                .iter()
                .any(|f| f.json == Some(key) || (f.inline && self.declares(f.ty, key)))
        })
    }

    /// The field of struct `ty` (or of a struct it inlines) that JSON calls `key`.
    pub fn field_by_json(&self, ty: &str, key: &str) -> Option<&Field> {
        self.structs.get(ty)?.iter().find_map(|f| {
            if f.json == Some(key) {
                Some(f)
            } else if f.inline {
                self.field_by_json(f.ty, key)
            } else {
                None
            }
        })
    }

    /// Every declared type, for the tests.
    #[cfg(test)]
    pub fn struct_names(&self) -> impl Iterator<Item = &&'static str> {
        self.structs.keys()
    }

    /// A struct's fields, for the tests.
    #[cfg(test)]
    pub fn fields(&self, ty: &str) -> &[Field] {
        self.structs.get(ty).map_or(&[], Vec::as_slice)
    }
}

/// The Go shape of a value whose JSON form differs from its struct:
/// a quantity's private fields, an int-or-string's three fields, a time.
pub fn adapt<'v>(
    ty: &str,
    value: Option<&'v Value>,
) -> Result<Option<Cow<'v, Value>>, Unsupported> {
    let Some(value) = value else {
        return Ok(None);
    };
    match (ty, value) {
        ("resource.Quantity", Value::String(text)) => {
            let q =
                as_controller_reads(text).ok_or_else(|| Unsupported(format!("quantity {text}")))?;
            Ok(Some(Cow::Owned(json!({
                "i": {"value": q.value, "scale": q.scale},
                "s": q.cached,
                "Format": format_name(q.format),
            }))))
        }
        ("intstr.IntOrString", Value::Number(n)) => {
            Ok(Some(Cow::Owned(json!({"Type": 0, "IntVal": n}))))
        }
        ("intstr.IntOrString", Value::String(s)) => {
            Ok(Some(Cow::Owned(json!({"Type": 1, "StrVal": s}))))
        }
        ("resource.Quantity" | "intstr.IntOrString", _) => {
            Err(Unsupported(format!("{ty}: {value}")))
        }
        ("v1.Time", _) => Err(Unsupported("a set timestamp in a template".into())),
        _ => Ok(Some(Cow::Borrowed(value))),
    }
}
