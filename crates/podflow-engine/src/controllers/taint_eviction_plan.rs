//! The taint eviction controller's decisions, as pure functions
//! (`pkg/controller/tainteviction/taint_eviction.go`: `getMinTolerationTime`,
//! `processPodOnNode`, the `TaintManagerEviction` event): whether a Pod on a
//! node with `NoExecute` taints is deleted now, later or never. The controller
//! that acts on them: [`super::taint_eviction`].

use k8s_openapi::api::core::v1::{Taint, Toleration};

/// `ToleratesTaint`.
fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    if toleration
        .effect
        .as_deref()
        .is_some_and(|e| !e.is_empty() && e != taint.effect)
    {
        return false;
    }
    let key = toleration.key.as_deref().unwrap_or_default();
    if !key.is_empty() && key != taint.key {
        return false;
    }
    match toleration.operator.as_deref().unwrap_or("Equal") {
        "Exists" => true,
        _ => {
            toleration.value.as_deref().unwrap_or_default()
                == taint.value.as_deref().unwrap_or_default()
        }
    }
}

/// What the taint eviction controller does with a Pod on a node with
/// `NoExecute` taints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eviction {
    /// A taint is not tolerated: delete the Pod now.
    Now,
    /// Every taint is tolerated for ever.
    Never,
    /// Delete it this many milliseconds after the taints were added (`getMinTolerationTime`).
    After(i64),
}

/// `processPodOnNode`: `getMatchingTolerations`, then the shortest `tolerationSeconds`.
pub fn eviction(tolerations: &[Toleration], taints: &[Taint]) -> Eviction {
    let no_execute: Vec<&Taint> = taints.iter().filter(|t| t.effect == "NoExecute").collect();
    if no_execute.is_empty() {
        return Eviction::Never;
    }
    let mut min: Option<i64> = None;
    for taint in no_execute {
        let Some(toleration) = tolerations.iter().find(|t| tolerates(t, taint)) else {
            return Eviction::Now;
        };
        if let Some(seconds) = toleration.toleration_seconds {
            let ms = seconds.max(0) * 1000;
            min = Some(min.map_or(ms, |m| m.min(ms)));
        }
    }
    min.map_or(Eviction::Never, Eviction::After)
}

/// The `TaintManagerEviction` event's message.
pub fn eviction_message(namespace: &str, name: &str) -> String {
    format!("Marking for deletion Pod {namespace}/{name}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SimTime;
    use crate::controllers::node_lifecycle_plan::{NOT_READY, UNREACHABLE, taints_for_ready};

    fn toleration(key: &str, seconds: Option<i64>) -> Toleration {
        Toleration {
            key: Some(key.into()),
            operator: Some("Exists".into()),
            effect: Some("NoExecute".into()),
            toleration_seconds: seconds,
            value: None,
        }
    }

    /// Mirrors `TestGetMinTolerationTime` and `TestUpdateNodeWithMultipleTaints`
    /// (`pkg/controller/tainteviction/taint_eviction_test.go`).
    #[test]
    fn min_toleration_time_table() {
        let unreachable = taints_for_ready("Unknown", SimTime(0));
        let defaults = [
            toleration(NOT_READY, Some(300)),
            toleration(UNREACHABLE, Some(300)),
        ];
        let cases = [
            (
                "DefaultTolerationSeconds",
                defaults.to_vec(),
                Eviction::After(300_000),
            ),
            ("no toleration", vec![], Eviction::Now),
            (
                "tolerated for ever",
                vec![toleration(UNREACHABLE, None)],
                Eviction::Never,
            ),
            (
                "the shortest wins",
                vec![toleration(UNREACHABLE, Some(60)), toleration("", Some(30))],
                Eviction::After(60_000),
            ),
            (
                "another key only",
                vec![toleration(NOT_READY, Some(300))],
                Eviction::Now,
            ),
        ];
        for (name, tolerations, want) in cases {
            assert_eq!(eviction(&tolerations, &unreachable), want, "{name}");
        }
        assert_eq!(eviction(&[], &[]), Eviction::Never, "no NoExecute taint");
        assert_eq!(
            eviction_message("default", "web-7c5ddbdf54-x8k2p"),
            "Marking for deletion Pod default/web-7c5ddbdf54-x8k2p"
        );
    }
}
