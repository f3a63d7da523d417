//! Label and field selectors as clients write them in a list or watch URL
//! (`?labelSelector=app=web,tier!=db&fieldSelector=spec.nodeName=node-1`):
//! parsed as `k8s.io/apimachinery/pkg/labels/selector.go` (`Parse`) and
//! `k8s.io/apimachinery/pkg/fields/selector.go` (`ParseSelector`) read them,
//! with their error wording.

use std::collections::BTreeMap;

/// How a label requirement compares (`selection.Operator`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelOp {
    /// `key=value`, `key==value`, `key in (a,b)`.
    In,
    /// `key!=value`, `key notin (a,b)`.
    NotIn,
    /// `key`.
    Exists,
    /// `!key`.
    DoesNotExist,
    /// `key>1`.
    GreaterThan,
    /// `key<1`.
    LessThan,
}

/// One term of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelRequirement {
    pub key: String,
    pub op: LabelOp,
    pub values: Vec<String>,
}

impl LabelRequirement {
    /// `key=value`.
    pub fn equals(key: &str, value: &str) -> LabelRequirement {
        LabelRequirement {
            key: key.to_owned(),
            op: LabelOp::In,
            values: vec![value.to_owned()],
        }
    }

    /// Whether labels `labels` meet this term (`Requirement.Matches`).
    pub fn matches(&self, labels: Option<&BTreeMap<String, String>>) -> bool {
        let value = labels.and_then(|l| l.get(&self.key));
        match self.op {
            LabelOp::In => value.is_some_and(|v| self.values.contains(v)),
            LabelOp::NotIn => value.is_none_or(|v| !self.values.contains(v)),
            LabelOp::Exists => value.is_some(),
            LabelOp::DoesNotExist => value.is_none(),
            LabelOp::GreaterThan | LabelOp::LessThan => {
                let (Some(have), Some(bound)) = (
                    value.and_then(|v| v.parse::<i64>().ok()),
                    self.values.first().and_then(|v| v.parse::<i64>().ok()),
                ) else {
                    return false;
                };
                if self.op == LabelOp::GreaterThan {
                    have > bound
                } else {
                    have < bound
                }
            }
        }
    }
}

/// Whether `labels` meet every term of `selector`.
pub fn labels_match(
    selector: &[LabelRequirement],
    labels: Option<&BTreeMap<String, String>>,
) -> bool {
    selector.iter().all(|r| r.matches(labels))
}

/// Parses a label selector string; the error is the API server's message.
pub fn parse_labels(text: &str) -> Result<Vec<LabelRequirement>, String> {
    let mut out = Vec::new();
    for term in split_terms(text) {
        let term = term.trim();
        if term.is_empty() {
            continue;
        }
        out.push(parse_label_term(term)?);
    }
    Ok(out)
}

/// Splits at the commas outside parentheses (`a in (x,y),b` has two terms).
fn split_terms(text: &str) -> Vec<&str> {
    let mut terms = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                terms.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&text[start..]);
    terms
}

fn parse_label_term(term: &str) -> Result<LabelRequirement, String> {
    let requirement = |key: &str, op, values: Vec<String>| -> Result<LabelRequirement, String> {
        let key = key.trim();
        validate_key(key)?;
        for value in &values {
            validate_value(value)?;
        }
        Ok(LabelRequirement {
            key: key.to_owned(),
            op,
            values,
        })
    };
    if let Some(key) = term.strip_prefix('!') {
        return requirement(key, LabelOp::DoesNotExist, Vec::new());
    }
    for (token, op) in [
        ("!=", LabelOp::NotIn),
        ("==", LabelOp::In),
        ("=", LabelOp::In),
        (">", LabelOp::GreaterThan),
        ("<", LabelOp::LessThan),
    ] {
        if let Some((key, value)) = term.split_once(token) {
            return requirement(key, op, vec![value.trim().to_owned()]);
        }
    }
    for (word, op) in [(" notin ", LabelOp::NotIn), (" in ", LabelOp::In)] {
        if let Some((key, set)) = term.split_once(word) {
            let set = set.trim();
            let Some(inner) = set.strip_prefix('(').and_then(|s| s.strip_suffix(')')) else {
                return Err(format!(
                    "unable to parse requirement: found '{set}', expected: '('"
                ));
            };
            let values = inner
                .split(',')
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
                .collect();
            return requirement(key, op, values);
        }
    }
    requirement(term, LabelOp::Exists, Vec::new())
}

/// A label key: an optional DNS-subdomain prefix and `/`, then a name of up to
/// 63 characters (`validation.IsQualifiedName`).
fn validate_key(key: &str) -> Result<(), String> {
    let name = key.rsplit_once('/').map_or(key, |(_, name)| name);
    let ok = !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "unable to parse requirement: <nil>: Invalid value: \"{key}\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ))
    }
}

/// A label value: empty, or up to 63 characters (`validation.IsValidLabelValue`).
fn validate_value(value: &str) -> Result<(), String> {
    let ok = value.is_empty()
        || (value.len() <= 63
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && value.starts_with(|c: char| c.is_ascii_alphanumeric())
            && value.ends_with(|c: char| c.is_ascii_alphanumeric()));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "unable to parse requirement: <nil>: Invalid value: \"{value}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ))
    }
}

/// What a list or watch asks for beyond its kind and namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    pub labels: Vec<LabelRequirement>,
    pub fields: Vec<FieldRequirement>,
}

impl Selector {
    /// The watch filter for objects of `kind` in `namespace` this selector selects.
    pub fn filter(
        &self,
        kind: &'static podflow_model::Kind,
        namespace: Option<&str>,
    ) -> super::WatchFilter {
        let mut filter = super::WatchFilter::all(kind);
        filter.namespace = namespace.map(str::to_owned);
        for term in &self.fields {
            let pair = (term.field.clone(), term.value.clone());
            if term.negated {
                filter.not_fields.push(pair);
            } else {
                filter.fields.push(pair);
            }
        }
        filter.labels.clone_from(&self.labels);
        filter
    }
}

/// One term of a field selector: `field=value` or `field!=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRequirement {
    pub field: String,
    pub value: String,
    /// `!=`.
    pub negated: bool,
}

/// Parses a field selector string (`fields.ParseSelector`).
pub fn parse_fields(text: &str) -> Result<Vec<FieldRequirement>, String> {
    let mut out = Vec::new();
    for term in text.split(',') {
        if term.is_empty() {
            continue;
        }
        let (field, value, negated) = if let Some((f, v)) = term.split_once("!=") {
            (f, v, true)
        } else if let Some((f, v)) = term.split_once("==") {
            (f, v, false)
        } else if let Some((f, v)) = term.split_once('=') {
            (f, v, false)
        } else {
            return Err(format!(
                "invalid selector: '{text}'; can't understand '{term}'"
            ));
        };
        out.push(FieldRequirement {
            field: field.to_owned(),
            value: value.to_owned(),
            negated,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    /// The cases of `TestSelectorMatches` in `labels/selector_test.go`, in spirit.
    #[test]
    fn selectors_match_as_upstreams_do() {
        let web = labels(&[("app", "web"), ("tier", "front"), ("gen", "3")]);
        let cases = [
            ("", true),
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app=db", false),
            ("app", true),
            ("!app", false),
            ("!owner", true),
            ("app in (web,db)", true),
            ("app notin (web,db)", false),
            ("tier in (back)", false),
            ("app=web,tier=front", true),
            ("app=web,tier=back", false),
            ("gen>2", true),
            ("gen<2", false),
            ("missing!=x", true),
        ];
        for (selector, want) in cases {
            let parsed = parse_labels(selector).unwrap();
            assert_eq!(labels_match(&parsed, Some(&web)), want, "{selector}");
        }
    }

    #[test]
    fn a_bad_selector_is_refused_with_the_api_servers_words() {
        let error = parse_labels("app=we b").unwrap_err();
        assert!(error.starts_with("unable to parse requirement"), "{error}");
        let error = parse_labels("app in web").unwrap_err();
        assert!(error.contains("expected: '('"), "{error}");
        assert!(parse_fields("spec.nodeName").is_err());
    }

    #[test]
    fn field_selectors_read_equal_and_not_equal() {
        let parsed = parse_fields("spec.nodeName=node-1,status.phase!=Failed").unwrap();
        assert_eq!(parsed.len(), 2);
        assert!(!parsed[0].negated);
        assert_eq!(parsed[1].value, "Failed");
        assert!(parsed[1].negated);
    }
}
