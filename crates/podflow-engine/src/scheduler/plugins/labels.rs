//! Label selectors as the scheduler uses them (`k8s.io/apimachinery/pkg/labels`,
//! `metav1.LabelSelectorAsSelector` in `pkg/apis/meta/v1/helpers.go`): a nil
//! selector selects nothing, an empty one everything, and otherwise every
//! requirement (`matchLabels` as `=`, `matchExpressions` as
//! `In`/`NotIn`/`Exists`/`DoesNotExist`) must hold.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

/// A label set: an object's `metadata.labels`.
pub type Labels = BTreeMap<String, String>;

static NO_LABELS: Labels = BTreeMap::new();

/// The labels of an object's metadata, empty when it has none.
pub fn labels_of(labels: Option<&Labels>) -> &Labels {
    labels.unwrap_or(&NO_LABELS)
}

/// A requirement's operator (`selection.Operator`, the ones selectors use).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    /// `key=value` (from `matchLabels`).
    Equals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

/// One requirement of a selector (`labels.Requirement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub key: String,
    pub operator: Operator,
    pub values: Vec<String>,
}

impl Requirement {
    /// Whether `labels` satisfy the requirement (`Requirement.Matches`).
    pub fn matches(&self, labels: &Labels) -> bool {
        let value = labels.get(&self.key);
        match self.operator {
            Operator::Equals | Operator::In => value.is_some_and(|v| self.values.contains(v)),
            Operator::NotIn => value.is_none_or(|v| !self.values.contains(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
        }
    }
}

/// Go's `%#v` of a string slice, as `field.Invalid` prints it.
fn go_slice(values: &[String]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

/// `validation.IsValidLabelValue`: at most 63 characters, alphanumerics with
/// `-`, `_` or `.` inside; the messages joined as upstream joins them.
fn label_value_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 characters".to_owned());
    }
    let alnum = |c: char| c.is_ascii_alphanumeric();
    let ok = value.is_empty()
        || (value.starts_with(alnum)
            && value.ends_with(alnum)
            && value
                .chars()
                .all(|c| alnum(c) || matches!(c, '-' | '_' | '.')));
    if !ok {
        errors.push(
            concat!(
                "a valid label must be an empty string or consist of alphanumeric characters, ",
                "'-', '_' or '.', and must start and end with an alphanumeric character ",
                "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is ",
                "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            )
            .to_owned(),
        );
    }
    errors
}

/// `labels.NewRequirement`'s checks of the values against the operator
/// (the key's syntax is left to the API server's validation).
fn check_values(operator: Operator, values: &[String]) -> Result<(), String> {
    match operator {
        Operator::In | Operator::NotIn if values.is_empty() => {
            return Err(format!(
                "values: Invalid value: {}: for 'in', 'notin' operators, values set can't be empty",
                go_slice(values)
            ));
        }
        Operator::Equals if values.len() != 1 => {
            return Err(format!(
                "values: Invalid value: {}: exact-match compatibility requires one single value",
                go_slice(values)
            ));
        }
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
            return Err(format!(
                "values: Invalid value: {}: values set must be empty for exists and does not exist",
                go_slice(values)
            ));
        }
        _ => {}
    }
    for (i, value) in values.iter().enumerate() {
        let errors = label_value_errors(value);
        if !errors.is_empty() {
            return Err(format!(
                "values[{i}]: Invalid value: {value:?}: {}",
                errors.join("; ")
            ));
        }
    }
    Ok(())
}

/// A parsed selector (`labels.Selector`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// Selects nothing (`labels.Nothing()`, a nil `LabelSelector`).
    Nothing,
    /// Selects what meets every requirement; none selects everything.
    Requirements(Vec<Requirement>),
}

impl Selector {
    /// `labels.Everything()`.
    pub fn everything() -> Selector {
        Selector::Requirements(Vec::new())
    }

    /// `labels.SelectorFromSet`: every `key=value` of `set`.
    pub fn from_set(set: &Labels) -> Selector {
        Selector::Requirements(
            set.iter()
                .map(|(k, v)| Requirement {
                    key: k.clone(),
                    operator: Operator::Equals,
                    values: vec![v.clone()],
                })
                .collect(),
        )
    }

    /// `metav1.LabelSelectorAsSelector`; the error is upstream's for a bad
    /// operator or a values list that does not suit its operator.
    pub fn parse(selector: Option<&LabelSelector>) -> Result<Selector, String> {
        let Some(selector) = selector else {
            return Ok(Selector::Nothing);
        };
        let match_labels = selector.match_labels.as_ref();
        let expressions = selector.match_expressions.as_deref().unwrap_or_default();
        let mut requirements = Vec::new();
        for (key, value) in match_labels.into_iter().flatten() {
            check_values(Operator::Equals, std::slice::from_ref(value))?;
            requirements.push(Requirement {
                key: key.clone(),
                operator: Operator::Equals,
                values: vec![value.clone()],
            });
        }
        for expression in expressions {
            let operator = match expression.operator.as_str() {
                "In" => Operator::In,
                "NotIn" => Operator::NotIn,
                "Exists" => Operator::Exists,
                "DoesNotExist" => Operator::DoesNotExist,
                other => return Err(format!("{other:?} is not a valid label selector operator")),
            };
            let values = expression.values.clone().unwrap_or_default();
            check_values(operator, &values)?;
            requirements.push(Requirement {
                key: expression.key.clone(),
                operator,
                values,
            });
        }
        Ok(Selector::Requirements(requirements))
    }

    /// `Selector.Empty()`: true for a selector without requirements
    /// (which selects everything); false for `Nothing`.
    pub fn is_empty(&self) -> bool {
        matches!(self, Selector::Requirements(r) if r.is_empty())
    }

    /// Whether `labels` are selected (`Selector.Matches`).
    pub fn matches(&self, labels: &Labels) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::Requirements(requirements) => requirements.iter().all(|r| r.matches(labels)),
        }
    }

    /// The selector `set` merged with this one's requirements
    /// (podtopologyspread's `mergeLabelSetWithSelector`); `Nothing` stays `Nothing`.
    #[must_use]
    pub fn merged_with_set(self, set: &Labels) -> Selector {
        match self {
            Selector::Nothing => Selector::Nothing,
            Selector::Requirements(own) => {
                let Selector::Requirements(mut merged) = Selector::from_set(set) else {
                    return Selector::Nothing;
                };
                merged.extend(own);
                Selector::Requirements(merged)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    fn set(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn expression(key: &str, op: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: (!values.is_empty()).then(|| values.iter().map(|v| (*v).to_owned()).collect()),
        }
    }

    #[test]
    fn label_selector_as_selector() {
        // staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers_test.go,
        // TestLabelSelectorAsSelector, and labels/selector_test.go's matching cases.
        let nothing = Selector::parse(None).unwrap();
        assert!(!nothing.matches(&set(&[])));
        assert!(!nothing.is_empty());
        let everything = Selector::parse(Some(&LabelSelector::default())).unwrap();
        assert!(everything.matches(&set(&[("a", "b")])));
        assert!(everything.is_empty());

        let selector = Selector::parse(Some(&LabelSelector {
            match_labels: Some(set(&[("foo", "bar")])),
            match_expressions: Some(vec![
                expression("env", "In", &["prod", "staging"]),
                expression("tier", "NotIn", &["db"]),
                expression("app", "Exists", &[]),
                expression("legacy", "DoesNotExist", &[]),
            ]),
        }))
        .unwrap();
        let cases: [(Labels, bool); 6] = [
            (set(&[("foo", "bar"), ("env", "prod"), ("app", "x")]), true),
            (
                set(&[
                    ("foo", "bar"),
                    ("env", "prod"),
                    ("app", "x"),
                    ("tier", "web"),
                ]),
                true,
            ),
            (
                set(&[
                    ("foo", "bar"),
                    ("env", "prod"),
                    ("app", "x"),
                    ("tier", "db"),
                ]),
                false,
            ),
            (set(&[("foo", "bar"), ("env", "dev"), ("app", "x")]), false),
            (set(&[("foo", "bar"), ("env", "prod")]), false),
            (
                set(&[
                    ("foo", "bar"),
                    ("env", "prod"),
                    ("app", "x"),
                    ("legacy", ""),
                ]),
                false,
            ),
        ];
        for (labels, want) in cases {
            assert_eq!(selector.matches(&labels), want, "{labels:?}");
        }

        let bad = |e| {
            Selector::parse(Some(&LabelSelector {
                match_expressions: Some(vec![e]),
                ..LabelSelector::default()
            }))
        };
        assert_eq!(
            bad(expression("a", "Equals", &["b"])).unwrap_err(),
            "\"Equals\" is not a valid label selector operator"
        );
        assert_eq!(
            bad(expression("a", "In", &[])).unwrap_err(),
            "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"
        );
        assert_eq!(
            bad(expression("a", "Exists", &["b"])).unwrap_err(),
            "values: Invalid value: []string{\"b\"}: values set must be empty for exists and does not exist"
        );
        // interpodaffinity/scoring_test.go's "invalid Affinity fails PreScore".
        let err = bad(expression("security", "In", &["{{.bad-value.}}"])).unwrap_err();
        assert!(
            err.starts_with("values[0]: Invalid value: \"{{.bad-value.}}\": a valid label must be"),
            "{err}"
        );
    }

    #[test]
    fn merging_a_set() {
        let merged = Selector::parse(Some(&LabelSelector {
            match_expressions: Some(vec![expression("app", "Exists", &[])]),
            ..LabelSelector::default()
        }))
        .unwrap()
        .merged_with_set(&set(&[("pod-template-hash", "abc")]));
        assert!(merged.matches(&set(&[("app", "x"), ("pod-template-hash", "abc")])));
        assert!(!merged.matches(&set(&[("app", "x"), ("pod-template-hash", "def")])));
        assert_eq!(
            Selector::Nothing.merged_with_set(&set(&[("a", "b")])),
            Selector::Nothing
        );
    }
}
