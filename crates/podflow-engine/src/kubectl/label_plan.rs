//! What `kubectl label` and `kubectl annotate` do with an object's labels or
//! annotations, as a pure plan (`pkg/cmd/label/label.go`: `parseLabels`,
//! `labelFunc`, `validateNoOverwrites`, `updateDataChangeMsg`;
//! `pkg/cmd/annotate/annotate.go`: `validateNoAnnotationOverwrites`): the
//! lines printed before, the refusal, or the merge patch and the word that
//! ends `pod/nginx labeled`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// What kubectl does.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Lines printed whatever happens (`label "x" not found.`).
    pub notices: Vec<String>,
    pub result: Result<Plan, String>,
}

/// The patch to send and the word to print.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The new `metadata.labels` (or `annotations`) as a merge patch: a key's
    /// value, or `null` to remove it; `None` when nothing changes and no
    /// request is sent (`label` only: `annotate` always patches).
    pub patch: Option<Value>,
    /// `labeled`, `unlabeled`, `modified`, `not labeled`, or `annotated`.
    pub message: &'static str,
}

/// The plan for `changes` (a key's new value, or `None` to remove it) to
/// `current`.
pub fn plan(
    current: &BTreeMap<String, String>,
    changes: &[(String, Option<String>)],
    overwrite: bool,
    annotate: bool,
) -> Outcome {
    let mut notices = Vec::new();
    let set = |key: &str| changes.iter().any(|(k, v)| k == key && v.is_some());
    if changes.iter().any(|(k, v)| v.is_none() && set(k)) {
        let what = if annotate { "annotation" } else { "label" };
        return Outcome {
            notices,
            result: Err(format!(
                "can not both modify and remove {} in the same command",
                if annotate {
                    format!("an {what}")
                } else {
                    format!("a {what}")
                }
            )),
        };
    }
    if !annotate {
        for (key, _) in changes.iter().filter(|(_, v)| v.is_none()) {
            if !current.contains_key(key) {
                notices.push(format!("label \"{key}\" not found."));
            }
        }
    }
    let conflicts: Vec<String> = changes
        .iter()
        .filter_map(|(key, value)| {
            let (value, now) = (value.as_ref()?, current.get(key)?);
            (now != value).then(|| format!("'{key}' already has a value ({now})"))
        })
        .collect();
    if !overwrite && !conflicts.is_empty() {
        let message = if annotate {
            format!(
                "--overwrite is false but found the following declared annotation(s): {}",
                conflicts.join("; ")
            )
        } else {
            let each: Vec<String> = conflicts
                .iter()
                .map(|c| format!("{c}, and --overwrite is false"))
                .collect();
            aggregate(&each)
        };
        return Outcome {
            notices,
            result: Err(message),
        };
    }
    let mut patch = Map::new();
    let (mut added, mut removed) = (false, false);
    for (key, value) in changes {
        match value {
            Some(value) if current.get(key) != Some(value) => {
                added = true;
                patch.insert(key.clone(), Value::String(value.clone()));
            }
            None if current.contains_key(key) => {
                removed = true;
                patch.insert(key.clone(), Value::Null);
            }
            _ => {}
        }
    }
    let plan = if annotate {
        Plan {
            patch: Some(Value::Object(patch)),
            message: "annotated",
        }
    } else {
        let message = match (added, removed) {
            (true, true) => "modified",
            (true, false) => "labeled",
            (false, true) => "unlabeled",
            (false, false) => "not labeled",
        };
        Plan {
            patch: (added || removed).then_some(Value::Object(patch)),
            message,
        }
    };
    Outcome {
        notices,
        result: Ok(plan),
    }
}

/// `utilerrors.NewAggregate(...).Error()`: one error alone, several in brackets.
fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Changes, `--overwrite`, and the patch and word (or the refusal) expected.
    type Case = (
        Vec<(String, Option<String>)>,
        bool,
        Result<(Option<Value>, &'static str), &'static str>,
    );

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn set(key: &str, value: &str) -> (String, Option<String>) {
        (key.to_owned(), Some(value.to_owned()))
    }

    fn unset(key: &str) -> (String, Option<String>) {
        (key.to_owned(), None)
    }

    /// After `pkg/cmd/label/label_test.go`, `TestLabelFunc` and `TestValidateNoOverwrites`.
    #[test]
    fn labels_as_kubectl_changes_them() {
        let current = labels(&[("app", "nginx"), ("tier", "web")]);
        let cases: Vec<Case> = vec![
            (
                vec![set("env", "prod")],
                false,
                Ok((Some(json!({"env": "prod"})), "labeled")),
            ),
            (
                vec![unset("tier")],
                false,
                Ok((Some(json!({"tier": null})), "unlabeled")),
            ),
            (
                vec![set("env", "prod"), unset("tier")],
                false,
                Ok((Some(json!({"env": "prod", "tier": null})), "modified")),
            ),
            (vec![set("app", "nginx")], false, Ok((None, "not labeled"))),
            (
                vec![set("tier", "db")],
                false,
                Err("'tier' already has a value (web), and --overwrite is false"),
            ),
            (
                vec![set("tier", "db")],
                true,
                Ok((Some(json!({"tier": "db"})), "labeled")),
            ),
            (
                vec![set("tier", "db"), unset("tier")],
                true,
                Err("can not both modify and remove a label in the same command"),
            ),
        ];
        for (changes, overwrite, expected) in cases {
            let got = plan(&current, &changes, overwrite, false)
                .result
                .map(|p| (p.patch, p.message));
            let expected = expected.map_err(str::to_owned);
            assert_eq!(got, expected, "{changes:?}");
        }
        let missing = plan(&current, &[unset("nope")], false, false);
        assert_eq!(missing.notices, ["label \"nope\" not found."]);
        assert_eq!(missing.result.unwrap().message, "not labeled");
    }

    #[test]
    fn annotations_always_patch_and_word_their_refusal() {
        let current = labels(&[("note", "hello")]);
        let refused = plan(&current, &[set("note", "bye")], false, true);
        assert_eq!(
            refused.result,
            Err("--overwrite is false but found the following declared annotation(s): 'note' already has a value (hello)".to_owned())
        );
        let same = plan(&current, &[set("note", "hello")], false, true)
            .result
            .unwrap();
        assert_eq!((same.patch, same.message), (Some(json!({})), "annotated"));
    }
}
