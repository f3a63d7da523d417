//! Field errors built and worded as `k8s.io/apimachinery/pkg/util/validation/field`
//! (`errors.go`: `Required`, `Invalid`, `Duplicate`, `NotSupported`, `NotFound`,
//! `Forbidden`, and `ErrorBody`'s rendering of the bad value).

pub use std::fmt::Write as _;

pub use podflow_model::status::FieldError;

/// Go's `%q` of a string (`strconv.Quote`).
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%#v` of a `map[string]string`: `map[string]string{"a":"b"}`, keys sorted.
pub fn go_map<'a>(map: Option<impl IntoIterator<Item = (&'a String, &'a String)>>) -> String {
    let Some(map) = map else {
        return "map[string]string(nil)".into();
    };
    let mut pairs: Vec<_> = map.into_iter().collect();
    pairs.sort();
    let inner: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}:{}", go_quote(k), go_quote(v)))
        .collect();
    format!("map[string]string{{{}}}", inner.join(", "))
}

fn error(field: &str, cause: &'static str, body: String) -> FieldError {
    FieldError {
        field: field.to_owned(),
        cause,
        body,
    }
}

fn with_detail(head: &str, detail: &str) -> String {
    if detail.is_empty() {
        head.to_owned()
    } else {
        format!("{head}: {detail}")
    }
}

/// `field.Required`: `Required value` (`: detail`).
pub fn required(field: &str, detail: &str) -> FieldError {
    error(
        field,
        "FieldValueRequired",
        with_detail("Required value", detail),
    )
}

/// `field.Invalid` with a string value: `Invalid value: "v": detail`.
pub fn invalid(field: &str, value: &str, detail: &str) -> FieldError {
    invalid_raw(field, &go_quote(value), detail)
}

/// `field.Invalid` with a value printed as is (integers, `fmt.Stringer`s, maps).
pub fn invalid_raw(field: &str, value: &str, detail: &str) -> FieldError {
    let head = format!("Invalid value: {value}");
    error(field, "FieldValueInvalid", with_detail(&head, detail))
}

/// `field.Duplicate` with a string value: `Duplicate value: "v"`.
pub fn duplicate(field: &str, value: &str) -> FieldError {
    duplicate_raw(field, &go_quote(value))
}

/// `field.Duplicate` with a value printed as is.
pub fn duplicate_raw(field: &str, value: &str) -> FieldError {
    error(
        field,
        "FieldValueDuplicate",
        format!("Duplicate value: {value}"),
    )
}

/// `field.NotFound` with a string value: `Not found: "v"`.
pub fn not_found(field: &str, value: &str) -> FieldError {
    error(
        field,
        "FieldValueNotFound",
        format!("Not found: {}", go_quote(value)),
    )
}

/// `field.NotSupported`: `Unsupported value: "v": supported values: "a", "b"`.
pub fn not_supported(field: &str, value: &str, supported: &[&str]) -> FieldError {
    let quoted: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
    let head = format!("Unsupported value: {}", go_quote(value));
    let detail = if quoted.is_empty() {
        String::new()
    } else {
        format!("supported values: {}", quoted.join(", "))
    };
    error(field, "FieldValueNotSupported", with_detail(&head, &detail))
}

/// `field.Forbidden`: `Forbidden: detail`.
pub fn forbidden(field: &str, detail: &str) -> FieldError {
    error(
        field,
        "FieldValueForbidden",
        with_detail("Forbidden", detail),
    )
}

/// `ValidateNonnegativeField`: `Invalid value: -1: must be greater than or equal to 0`.
pub fn nonnegative(field: &str, value: i64) -> Option<FieldError> {
    (value < 0).then(|| invalid_raw(field, &value.to_string(), IS_NEGATIVE))
}

/// `apimachineryvalidation.IsNegativeErrorMsg`.
pub const IS_NEGATIVE: &str = "must be greater than or equal to 0";

/// `validation.InclusiveRangeError`.
pub fn inclusive_range(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_as_error_body_prints_them() {
        assert_eq!(required("a", "").body, "Required value");
        assert_eq!(
            required("metadata.name", "name or generateName is required").message(),
            "metadata.name: Required value: name or generateName is required"
        );
        assert_eq!(
            invalid("x", "a\"b", "bad").body,
            r#"Invalid value: "a\"b": bad"#
        );
        assert_eq!(
            not_supported("p", "Sometimes", &["Always", "OnFailure", "Never"]).body,
            r#"Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never""#
        );
        assert_eq!(forbidden("p", "x").body, "Forbidden: x");
        assert_eq!(
            nonnegative("r", -1).unwrap().body,
            "Invalid value: -1: must be greater than or equal to 0"
        );
        let labels: std::collections::BTreeMap<String, String> = [
            ("b".to_owned(), "2".to_owned()),
            ("a".to_owned(), "1".to_owned()),
        ]
        .into();
        assert_eq!(
            go_map(Some(&labels)),
            r#"map[string]string{"a":"1", "b":"2"}"#
        );
        assert_eq!(
            go_map(None::<&std::collections::BTreeMap<String, String>>),
            "map[string]string(nil)"
        );
    }
}
