//! What `kubectl taint` does with a node's taints, as a pure plan
//! (`pkg/cmd/taint/utils.go`: `parseTaints`, `parseTaint`,
//! `reorganizeTaints`, `checkIfTaintsAlreadyExists`; `pkg/cmd/taint/taint.go`:
//! `Validate`, `updateTaints`): the taints to add and remove read from the
//! arguments, then the node's new taints and the word that ends
//! `node/NAME tainted`, or kubectl's refusal.

use k8s_openapi::api::core::v1::Taint;

use crate::apiserver::validation::{label_value, qualified_name};

/// `tainted`, `untainted` or `modified`, as `reorganizeTaints` decides.
pub const TAINTED: &str = "tainted";
pub const UNTAINTED: &str = "untainted";
pub const MODIFIED: &str = "modified";

/// The taint changes of one command: what to add, what to remove (a key,
/// with an effect or without, which removes every effect).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TaintChanges {
    pub add: Vec<Taint>,
    pub remove: Vec<Taint>,
}

fn taint(key: &str, value: &str, effect: &str) -> Taint {
    Taint {
        key: key.to_owned(),
        value: Some(value.to_owned()).filter(|v| !v.is_empty()),
        effect: effect.to_owned(),
        time_added: None,
    }
}

fn value_of(t: &Taint) -> &str {
    t.value.as_deref().unwrap_or_default()
}

/// `Taint.ToString`: `key=value:effect`, without the parts that are empty.
pub fn taint_string(t: &Taint) -> String {
    match (t.effect.is_empty(), value_of(t).is_empty()) {
        (true, true) => t.key.clone(),
        (true, false) => format!("{}={}:", t.key, value_of(t)),
        (false, true) => format!("{}:{}", t.key, t.effect),
        (false, false) => format!("{}={}:{}", t.key, value_of(t), t.effect),
    }
}

/// `validateTaintEffect`.
fn validate_effect(effect: &str) -> Result<(), String> {
    match effect {
        "NoSchedule" | "PreferNoSchedule" | "NoExecute" => Ok(()),
        other => Err(format!(
            "invalid taint effect: {other}, unsupported taint effect"
        )),
    }
}

/// `parseTaint`: `key[=value]:effect`, or a bare `key`.
fn parse_taint(spec: &str) -> Result<Taint, String> {
    let parts: Vec<&str> = spec.split(':').collect();
    let (key, value, effect) = match parts.as_slice() {
        [key] => (*key, "", ""),
        [kv, effect] => {
            validate_effect(effect)?;
            let kv: Vec<&str> = kv.split('=').collect();
            match kv.as_slice() {
                [key] => (*key, "", *effect),
                [key, value] => {
                    let errs = label_value(value);
                    if !errs.is_empty() {
                        return Err(format!("invalid taint spec: {spec}, {}", errs.join("; ")));
                    }
                    (*key, *value, *effect)
                }
                _ => return Err(format!("invalid taint spec: {spec}")),
            }
        }
        _ => return Err(format!("invalid taint spec: {spec}")),
    };
    let errs = qualified_name(key);
    if !errs.is_empty() {
        return Err(format!("invalid taint spec: {spec}, {}", errs.join("; ")));
    }
    Ok(taint(key, value, effect))
}

/// `parseTaints`: the arguments ending in `-` remove, the others add.
pub fn parse_taints(specs: &[String]) -> Result<TaintChanges, String> {
    let mut changes = TaintChanges::default();
    for spec in specs {
        if let Some(spec) = spec.strip_suffix('-') {
            let t = parse_taint(spec)?;
            changes.remove.push(taint(&t.key, "", &t.effect));
            continue;
        }
        let t = parse_taint(spec)?;
        if t.effect.is_empty() {
            return Err(format!("invalid taint spec: {spec}"));
        }
        if changes
            .add
            .iter()
            .any(|a| a.key == t.key && a.effect == t.effect)
        {
            // `%v` of the Go struct: `{key value effect <nil>}`.
            return Err(format!(
                "duplicated taints with the same key and effect: {{{} {} {} <nil>}}",
                t.key,
                value_of(&t),
                t.effect
            ));
        }
        changes.add.push(t);
    }
    Ok(changes)
}

/// `Validate`'s check that no taint is both added and removed.
pub fn check_conflicts(changes: &TaintChanges) -> Result<(), String> {
    let conflicts: Vec<String> = changes
        .add
        .iter()
        .flat_map(|add| {
            changes
                .remove
                .iter()
                .filter(move |r| {
                    r.key == add.key && (r.effect.is_empty() || r.effect == add.effect)
                })
                .map(|r| format!("{}={}", r.key, r.effect))
        })
        .collect();
    if conflicts.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "can not both modify and remove the following taint(s) in the same command: {}",
            conflicts.join(", ")
        ))
    }
}

/// The node's new taints and the word printed, or the refusal.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub taints: Vec<Taint>,
    pub operation: &'static str,
}

/// `MatchTaint`: the same key and effect.
fn same(a: &Taint, b: &Taint) -> bool {
    a.key == b.key && a.effect == b.effect
}

/// `updateTaints` for the node `node` with `current` taints.
pub fn plan(
    node: &str,
    current: &[Taint],
    changes: &TaintChanges,
    overwrite: bool,
) -> Result<Plan, String> {
    if !overwrite {
        let existing: Vec<&str> = changes
            .add
            .iter()
            .filter(|t| current.iter().any(|old| same(t, old)))
            .map(|t| t.key.as_str())
            .collect();
        if !existing.is_empty() {
            return Err(format!(
                "node {node} already has {} taint(s) with same effect(s) and --overwrite is false",
                existing.join(",")
            ));
        }
    }
    reorganize(current, overwrite, changes)
}

/// `reorganizeTaints`: the added taints first, then the old ones they do
/// not replace, less the removed ones; `taint "x" not found` for each
/// removal that found nothing.
fn reorganize(current: &[Taint], overwrite: bool, changes: &TaintChanges) -> Result<Plan, String> {
    let mut taints = changes.add.clone();
    for old in current {
        if !taints.iter().any(|t| same(t, old)) {
            taints.push(old.clone());
        }
    }
    let added = current.len() != taints.len();
    let mut errors = Vec::new();
    // As upstream, `deleted` is whether the last removal removed something.
    let mut deleted = false;
    for remove in &changes.remove {
        let before = taints.len();
        taints.retain(|t| {
            if remove.effect.is_empty() {
                t.key != remove.key
            } else {
                !same(t, remove)
            }
        });
        deleted = taints.len() != before;
        if !deleted {
            errors.push(format!("taint {:?} not found", taint_string(remove)));
        }
    }
    if !errors.is_empty() {
        return Err(aggregate(&errors));
    }
    let operation = if (added && deleted) || overwrite {
        MODIFIED
    } else if added {
        TAINTED
    } else {
        UNTAINTED
    };
    Ok(Plan { taints, operation })
}

/// `utilerrors.NewAggregate(...).Error()`: one error alone, several in brackets.
pub fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// The strategic merge patch `CreateTwoWayMergePatch` makes of the change:
/// `spec.taints` is atomic, so the whole new list (or `null` when none is left).
pub fn patch(taints: &[Taint]) -> serde_json::Value {
    let list = if taints.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::to_value(taints).unwrap_or_default()
    };
    serde_json::json!({"spec": {"taints": list}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(key: &str, value: &str, effect: &str) -> Taint {
        taint(key, value, effect)
    }

    fn specs(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    /// After `pkg/cmd/taint/utils_test.go`, `TestParseTaints`.
    #[test]
    fn taint_arguments_parse_as_kubectl_reads_them() {
        let refused = [
            ("", "invalid taint spec: "),
            ("foo=abc", "invalid taint spec: foo=abc, "),
            (
                "foo=abc=xyz:NoSchedule",
                "invalid taint spec: foo=abc=xyz:NoSchedule",
            ),
            (
                "foo=abc:xyz:NoSchedule",
                "invalid taint spec: foo=abc:xyz:NoSchedule",
            ),
            ("foo", "invalid taint spec: foo"),
            (
                "foo=abc:invalid_effect",
                "invalid taint effect: invalid_effect, unsupported taint effect",
            ),
            (
                "foo:invalid_effect-",
                "invalid taint effect: invalid_effect, unsupported taint effect",
            ),
        ];
        for (spec, prefix) in refused {
            let got = parse_taints(&specs(&[spec])).unwrap_err();
            assert!(got.starts_with(prefix), "{spec}: {got}");
        }
        let added = parse_taints(&specs(&[
            "foo=abc:NoSchedule",
            "bar=abc:NoSchedule",
            "baz:NoSchedule",
            "qux:NoSchedule",
            "foobar=:NoSchedule",
        ]))
        .unwrap();
        assert_eq!(
            added.add,
            [
                t("foo", "abc", "NoSchedule"),
                t("bar", "abc", "NoSchedule"),
                t("baz", "", "NoSchedule"),
                t("qux", "", "NoSchedule"),
                t("foobar", "", "NoSchedule"),
            ]
        );
        let removed = parse_taints(&specs(&["foo:NoSchedule-", "bar-"])).unwrap();
        assert_eq!(
            removed.remove,
            [t("foo", "", "NoSchedule"), t("bar", "", "")]
        );
        assert_eq!(
            parse_taints(&specs(&["foo=bar:NoExecute", "foo=barz:NoExecute"])).unwrap_err(),
            "duplicated taints with the same key and effect: {foo barz NoExecute <nil>}"
        );
        let both = parse_taints(&specs(&["foo=:NoExecute", "foo=:NoExecute-"])).unwrap();
        assert_eq!(
            check_conflicts(&both).unwrap_err(),
            "can not both modify and remove the following taint(s) in the same command: foo=NoExecute"
        );
    }

    /// After `pkg/cmd/taint/utils_test.go`, `TestReorganizeTaints` (its node
    /// has `foo:NoSchedule`), and `taint_test.go`'s overwrite refusal.
    #[test]
    fn taints_change_as_reorganize_taints_decides() {
        type Case = (
            TaintChanges,
            bool,
            Result<(Vec<Taint>, &'static str), &'static str>,
        );
        let node = [t("foo", "", "NoSchedule")];
        let change = |add: Vec<Taint>, remove: Vec<Taint>| TaintChanges { add, remove };

        let cases: Vec<Case> = vec![
            (change(vec![], vec![]), true, Ok((node.to_vec(), MODIFIED))),
            (
                change(vec![], vec![]),
                false,
                Ok((node.to_vec(), UNTAINTED)),
            ),
            (
                change(vec![t("foo_1", "", "NoExecute")], vec![]),
                false,
                Ok((vec![t("foo_1", "", "NoExecute"), node[0].clone()], TAINTED)),
            ),
            (
                change(vec![], vec![t("foo", "", "NoSchedule")]),
                false,
                Ok((vec![], UNTAINTED)),
            ),
            (
                change(vec![], vec![t("foo", "", "")]),
                false,
                Ok((vec![], UNTAINTED)),
            ),
            (
                change(vec![], vec![t("foo_1", "", "NoSchedule")]),
                false,
                Err("taint \"foo_1:NoSchedule\" not found"),
            ),
            (
                change(
                    vec![t("foo_1", "", "NoSchedule")],
                    vec![t("foo", "", "NoSchedule")],
                ),
                false,
                Ok((vec![t("foo_1", "", "NoSchedule")], MODIFIED)),
            ),
            (
                change(vec![t("foo", "bar", "NoSchedule")], vec![]),
                false,
                Err(
                    "node node-1 already has foo taint(s) with same effect(s) and --overwrite is false",
                ),
            ),
            (
                change(vec![t("foo", "bar", "NoSchedule")], vec![]),
                true,
                Ok((vec![t("foo", "bar", "NoSchedule")], MODIFIED)),
            ),
        ];
        for (changes, overwrite, want) in cases {
            let got = plan("node-1", &node, &changes, overwrite).map(|p| (p.taints, p.operation));
            assert_eq!(got, want.map_err(str::to_owned), "{changes:?} {overwrite}");
        }
    }

    #[test]
    fn the_patch_replaces_the_atomic_list() {
        assert_eq!(
            patch(&[t("dedicated", "gpu", "NoSchedule")]),
            serde_json::json!({"spec": {"taints": [{"effect": "NoSchedule", "key": "dedicated", "value": "gpu"}]}})
        );
        assert_eq!(patch(&[]), serde_json::json!({"spec": {"taints": null}}));
    }
}
