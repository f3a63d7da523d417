//! go-spew's `%#v` formatter (`github.com/davecgh/go-spew/spew/format.go`),
//! as `dump.ForHash` configures it (`SortKeys`, `DisableMethods`,
//! `DisablePointerAddresses`, `DisableCapacities`), run over an object's JSON
//! guided by the Go declarations in [`super::go_types`].
//!
//! What the formatter writes, checked against `dump_test.go`'s `TestForHash`
//! table (`staging/src/k8s.io/apimachinery/pkg/util/dump/`):
//! - a value's Go type in parentheses, `(int32)80`, except for slice elements
//!   and map keys and values;
//! - strings raw, `(string)nginx`; a nil pointer, slice or map `<nil>`;
//! - a pointer as its type and then the value, `(*int64)30`;
//! - a struct as `{Field:value Field:value}`, a slice `[a b]`, a map
//!   `map[k:v k:v]` with its keys sorted.
//!
//! Values arrive as the controller decodes them from protobuf: an empty list
//! or map is nil, and an absent scalar is its zero value.

use serde_json::{Map, Value};

use super::go_types::{GoSchema, Shape, adapt};

/// A template the Go declarations do not describe (a field or a value shape
/// podflow does not model): the caller falls back to another hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

/// The `%#v` text of `value`, read as the Go type `ty`.
pub fn dump(schema: &GoSchema, ty: &str, value: &Value) -> Result<String, Unsupported> {
    let mut out = String::new();
    Formatter {
        schema,
        out: &mut out,
    }
    .format(ty, present(Some(value)), true)?;
    Ok(out)
}

struct Formatter<'a> {
    schema: &'a GoSchema,
    out: &'a mut String,
}

/// `None` for what Go holds as a zero or nil value: JSON `null`, an absent
/// field, and (as protobuf decodes them) an empty list or map.
fn present(value: Option<&Value>) -> Option<&Value> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) if items.is_empty() => None,
        other => other,
    }
}

impl Formatter<'_> {
    /// `formatState.format`: the type (unless `show_type` is off), then the value.
    fn format(
        &mut self,
        ty: &str,
        value: Option<&Value>,
        show_type: bool,
    ) -> Result<(), Unsupported> {
        if let Some(inner) = ty.strip_prefix('*') {
            return self.pointer(ty, inner, value, show_type);
        }
        if show_type {
            self.out.push('(');
            self.out.push_str(ty);
            self.out.push(')');
        }
        self.body(ty, value)
    }

    /// `formatState.formatPtr`.
    fn pointer(
        &mut self,
        ty: &str,
        inner: &str,
        value: Option<&Value>,
        show_type: bool,
    ) -> Result<(), Unsupported> {
        match (value, show_type) {
            (None, true) => {
                self.out.push('(');
                self.out.push_str(ty);
                self.out.push_str(")<nil>");
                Ok(())
            }
            (None, false) => {
                self.out.push_str("<nil>");
                Ok(())
            }
            (Some(v), _) => {
                if show_type {
                    self.out.push('(');
                    self.out.push_str(ty);
                    self.out.push(')');
                } else {
                    self.out.push_str("<*>");
                }
                self.body(inner, Some(v))
            }
        }
    }

    /// The value without its type.
    fn body(&mut self, ty: &str, value: Option<&Value>) -> Result<(), Unsupported> {
        let schema = self.schema;
        match schema.shape(ty)? {
            Shape::Slice(elem) => self.slice(elem, value),
            Shape::Map(val) => self.map(ty, val, value),
            Shape::Struct(fields) => {
                let adapted = adapt(ty, value)?;
                let object = match adapted.as_deref() {
                    None => None,
                    Some(Value::Object(map)) => Some(map),
                    Some(_) => return Err(Unsupported(format!("{ty}: not an object"))),
                };
                self.structure(ty, fields, object, true)
            }
            Shape::String => match value {
                None => Ok(()),
                Some(Value::String(s)) => {
                    self.out.push_str(s);
                    Ok(())
                }
                Some(_) => Err(Unsupported(format!("{ty}: not a string"))),
            },
            Shape::Int => match value {
                None => {
                    self.out.push('0');
                    Ok(())
                }
                Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {
                    self.out.push_str(&n.to_string());
                    Ok(())
                }
                Some(_) => Err(Unsupported(format!("{ty}: not an integer"))),
            },
            Shape::Bool => match value {
                None | Some(Value::Bool(false)) => {
                    self.out.push_str("false");
                    Ok(())
                }
                Some(Value::Bool(true)) => {
                    self.out.push_str("true");
                    Ok(())
                }
                Some(_) => Err(Unsupported(format!("{ty}: not a bool"))),
            },
        }
    }

    fn slice(&mut self, elem: &str, value: Option<&Value>) -> Result<(), Unsupported> {
        let Some(value) = value else {
            self.out.push_str("<nil>");
            return Ok(());
        };
        let Value::Array(items) = value else {
            return Err(Unsupported(format!("[]{elem}: not a list")));
        };
        self.out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            self.format(elem, Some(item), false)?;
        }
        self.out.push(']');
        Ok(())
    }

    /// A map with string keys, sorted as `SortKeys` sorts strings.
    fn map(&mut self, ty: &str, val: &str, value: Option<&Value>) -> Result<(), Unsupported> {
        let map = match value {
            None => None,
            Some(Value::Object(map)) if map.is_empty() => None,
            Some(Value::Object(map)) => Some(map),
            Some(_) => return Err(Unsupported(format!("{ty}: not a map"))),
        };
        let Some(map) = map else {
            self.out.push_str("<nil>");
            return Ok(());
        };
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort();
        self.out.push_str("map[");
        for (i, key) in keys.into_iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            self.out.push_str(key);
            self.out.push(':');
            self.format(val, present(map.get(key)), false)?;
        }
        self.out.push(']');
        Ok(())
    }

    /// A struct's fields in declaration order. An embedded `json:",inline"`
    /// struct reads the same JSON object; `check` refuses JSON keys that no
    /// field (nor an inlined one) declares.
    fn structure(
        &mut self,
        ty: &str,
        fields: &[super::go_types::Field],
        object: Option<&Map<String, Value>>,
        check: bool,
    ) -> Result<(), Unsupported> {
        if check && let Some(object) = object {
            for key in object.keys() {
                if !self.schema.declares(ty, key) {
                    return Err(Unsupported(format!("{ty}.{key}")));
                }
            }
        }
        self.out.push('{');
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            self.out.push_str(field.name);
            self.out.push(':');
            if field.inline {
                self.out.push('(');
                self.out.push_str(field.ty);
                self.out.push(')');
                let Shape::Struct(inner) = self.schema.shape(field.ty)? else {
                    return Err(Unsupported(format!(
                        "{ty}.{}: inline non-struct",
                        field.name
                    )));
                };
                self.structure(field.ty, inner, object, false)?;
            } else {
                let value = field.json.and_then(|key| object.and_then(|o| o.get(key)));
                self.format(field.ty, present(value), true)?;
            }
        }
        self.out.push('}');
        Ok(())
    }
}
