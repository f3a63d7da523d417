//! The namespace controller's decisions, pure (`pkg/controller/namespace/deletion/`):
//! which resources it empties, how long graceful Pods may take
//! (`estimateGracefulTerminationForPods`), what a resource's remaining
//! objects mean (`deleteAllContentForGroupVersionResource`), and the
//! namespace's deletion conditions (`status_condition_utils.go`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NamespaceCondition, NamespaceStatus};

use crate::clock::SimTime;
use podflow_model::kinds::KINDS;
use podflow_model::{Kind, Object};

/// `finalizerEstimateSeconds`: how long to wait for objects held by finalizers.
pub const FINALIZER_ESTIMATE_SECONDS: i64 = 15;
/// `namespaceDeletionGracePeriod`: a namespace event is looked at after 5 s.
pub const DELETION_GRACE_PERIOD_MS: u64 = 5_000;
/// `nsControllerRateLimiter`'s longest back-off: 60 s.
pub const MAX_RETRY_DELAY_MS: u64 = 60_000;

/// The namespaced resources the controller empties, in the order it takes
/// them (upstream walks discovery's set, in no set order). Events are left:
/// podflow's API server keeps them in memory, not in etcd.
pub fn resources() -> impl Iterator<Item = &'static Kind> {
    KINDS.iter().filter(|k| k.namespaced && k.kind != "Event")
}

/// `schema.GroupVersionResource`'s `String()`: `/v1, Resource=pods`.
pub fn gvr(kind: &Kind) -> String {
    format!(
        "{}/{}, Resource={}",
        kind.group, kind.version, kind.resource
    )
}

/// `estimateGracefulTerminationForPods` and `estimateGracefulTermination`:
/// the longest grace period of the Pods that have not finished, or 0 once
/// that long has passed since the namespace was deleted (`elapsed_ms` ago).
pub fn pods_estimate(pods: &[std::sync::Arc<Object>], elapsed_ms: u64) -> i64 {
    let estimate = pods
        .iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| {
            let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
            !matches!(phase, Some("Succeeded" | "Failed"))
        })
        .filter_map(|p| p.spec.as_ref()?.termination_grace_period_seconds)
        .max()
        .unwrap_or(0)
        .max(0);
    if elapsed_ms >= u64::try_from(estimate).unwrap_or(0) * 1000 {
        0
    } else {
        estimate
    }
}

/// What one resource's check after its deletions found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Remaining {
    /// Objects still there.
    pub count: usize,
    /// How many of them each finalizer holds.
    pub finalizers: BTreeMap<String, usize>,
    /// How long to wait for them, in seconds.
    pub estimate: i64,
    /// `unexpected items still remain …`, when nothing explains them.
    pub error: Option<String>,
}

/// `deleteAllContentForGroupVersionResource`'s verdict on the objects of
/// `kind` listed after the deletions, given the resource's own `estimate`.
pub fn remaining(
    kind: &Kind,
    namespace: &str,
    items: &[std::sync::Arc<Object>],
    estimate: i64,
) -> Remaining {
    let mut out = Remaining {
        count: items.len(),
        estimate,
        ..Remaining::default()
    };
    if items.is_empty() {
        out.estimate = 0;
        return out;
    }
    for item in items {
        for finalizer in item.metadata().finalizers.iter().flatten() {
            *out.finalizers.entry(finalizer.clone()).or_default() += 1;
        }
    }
    if estimate == 0 {
        if out.finalizers.is_empty() {
            out.error = Some(format!(
                "unexpected items still remain in namespace: {namespace} for gvr: {}",
                gvr(kind)
            ));
        } else {
            out.estimate = FINALIZER_ESTIMATE_SECONDS;
        }
    }
    out
}

/// The condition types the deleter keeps (`conditionTypes`), with the reason
/// and message of their "ok" variant (`okReasons`, `okMessages`).
const CONDITIONS: [(&str, &str, &str); 5] = [
    (
        "NamespaceDeletionDiscoveryFailure",
        "ResourcesDiscovered",
        "All resources successfully discovered",
    ),
    (
        "NamespaceDeletionGroupVersionParsingFailure",
        "ParsedGroupVersions",
        "All legacy kube types successfully parsed",
    ),
    (
        "NamespaceDeletionContentFailure",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    (
        "NamespaceContentRemaining",
        "ContentRemoved",
        "All content successfully removed",
    ),
    (
        "NamespaceFinalizersRemaining",
        "ContentRemoved",
        "All content successfully removed",
    ),
];

/// What a pass over the content found: objects remaining by resource,
/// objects held by each finalizer, and the resources that failed.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    pub remaining: BTreeMap<&'static str, (String, usize)>,
    pub finalizers: BTreeMap<String, usize>,
    pub errors: Vec<String>,
}

impl Totals {
    /// Adds one resource's [`Remaining`].
    pub fn add(&mut self, kind: &'static Kind, found: &Remaining) {
        if let Some(error) = &found.error {
            self.errors.push(error.clone());
        }
        if found.count == 0 {
            return;
        }
        self.remaining
            .insert(kind.resource, (kind.group.to_owned(), found.count));
        for (finalizer, n) in &found.finalizers {
            *self.finalizers.entry(finalizer.clone()).or_default() += n;
        }
    }

    /// The failing conditions (`ProcessContentTotals`, `makeDeleteContentCondition`).
    fn failing(&self) -> BTreeMap<&'static str, (&'static str, String)> {
        let mut out = BTreeMap::new();
        if !self.remaining.is_empty() {
            let mut parts: Vec<String> = self
                .remaining
                .iter()
                .map(|(resource, (group, n))| {
                    format!("{resource}.{group} has {n} resource instances")
                })
                .collect();
            parts.sort();
            out.insert(
                "NamespaceContentRemaining",
                (
                    "SomeResourcesRemain",
                    format!("Some resources are remaining: {}", parts.join(", ")),
                ),
            );
        }
        if !self.finalizers.is_empty() {
            let mut parts: Vec<String> = self
                .finalizers
                .iter()
                .map(|(f, n)| format!("{f} in {n} resource instances"))
                .collect();
            parts.sort();
            out.insert(
                "NamespaceFinalizersRemaining",
                (
                    "SomeFinalizerRemain",
                    format!("Some finalizers are remaining: {}", parts.join(", ")),
                ),
            );
        }
        if !self.errors.is_empty() {
            let mut messages = self.errors.clone();
            messages.sort();
            out.insert(
                "NamespaceDeletionContentFailure",
                (
                    "ContentDeletionFailed",
                    format!(
                        "Failed to delete all resource types, {} remaining: {}",
                        messages.len(),
                        messages.join(", ")
                    ),
                ),
            );
        }
        out
    }
}

/// `updateConditions`: each kept condition type takes its failing or "ok"
/// variant; a changed status moves its transition time. Whether anything changed.
pub fn update_conditions(status: &mut NamespaceStatus, totals: &Totals, now: SimTime) -> bool {
    let failing = totals.failing();
    let mut changed = false;
    for (type_, ok_reason, ok_message) in CONDITIONS {
        let (state, reason, message) = match failing.get(type_) {
            Some((reason, message)) => ("True", *reason, message.clone()),
            None => ("False", ok_reason, ok_message.to_owned()),
        };
        let conditions = status.conditions.get_or_insert_with(Vec::new);
        match conditions.iter_mut().find(|c| c.type_ == type_) {
            None => {
                conditions.push(NamespaceCondition {
                    type_: type_.to_owned(),
                    status: state.to_owned(),
                    reason: Some(reason.to_owned()),
                    message: Some(message),
                    last_transition_time: Some(now.to_time()),
                });
                changed = true;
            }
            Some(old) => {
                if old.status != state
                    || old.reason.as_deref() != Some(reason)
                    || old.message.as_deref() != Some(message.as_str())
                {
                    if old.status != state {
                        old.last_transition_time = Some(now.to_time());
                    }
                    state.clone_into(&mut old.status);
                    old.reason = Some(reason.to_owned());
                    old.message = Some(message);
                    changed = true;
                }
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_model::kinds::kind_of;
    use std::sync::Arc;

    fn pod(grace: i64, phase: &str, finalizers: &[&str]) -> Arc<Object> {
        Arc::new(
            Object::from_json(
                kind_of("Pod"),
                serde_json::json!({
                    "metadata": {"name": "p", "namespace": "dev", "finalizers": finalizers},
                    "spec": {"containers": [], "terminationGracePeriodSeconds": grace},
                    "status": {"phase": phase}
                }),
            )
            .unwrap(),
        )
    }

    /// Mirrors `estimateGracefulTerminationForPods` and `estimateGracefulTermination`:
    /// the longest grace of the unfinished Pods, none once it has passed.
    #[test]
    fn pods_estimate_table() {
        let pods = [pod(30, "Running", &[]), pod(60, "Succeeded", &[])];
        assert_eq!(pods_estimate(&pods, 10_000), 30);
        assert_eq!(pods_estimate(&pods, 30_000), 0);
        assert_eq!(pods_estimate(&[], 0), 0);
    }

    /// `deleteAllContentForGroupVersionResource`'s end: nothing left is 0;
    /// objects left with an estimate wait for it; held by finalizers, 15 s;
    /// else an error naming the resource.
    #[test]
    fn remaining_table() {
        let pods = kind_of("Pod");
        assert_eq!(remaining(pods, "dev", &[], 30), Remaining::default());
        let left = remaining(pods, "dev", &[pod(30, "Running", &[])], 30);
        assert_eq!((left.count, left.estimate, left.error), (1, 30, None));
        let held = remaining(pods, "dev", &[pod(30, "Running", &["x/y"])], 0);
        assert_eq!(held.estimate, FINALIZER_ESTIMATE_SECONDS);
        assert_eq!(held.finalizers.get("x/y"), Some(&1));
        let odd = remaining(pods, "dev", &[pod(30, "Running", &[])], 0);
        assert_eq!(
            odd.error.as_deref(),
            Some("unexpected items still remain in namespace: dev for gvr: /v1, Resource=pods")
        );
        assert_eq!(gvr(kind_of("Deployment")), "apps/v1, Resource=deployments");
    }

    /// Mirrors `status_condition_utils_test.go` `TestUpdateConditions`: every
    /// kept type is set, failing ones with upstream's words; an unchanged
    /// update is no change.
    #[test]
    fn update_conditions_table() {
        let mut totals = Totals::default();
        let found = remaining(kind_of("Pod"), "dev", &[pod(30, "Running", &["a"])], 30);
        totals.add(kind_of("Pod"), &found);
        let mut status = NamespaceStatus::default();
        assert!(update_conditions(&mut status, &totals, SimTime::ZERO));
        let conditions = status.conditions.clone().unwrap();
        assert_eq!(conditions.len(), 5);
        let find = |t: &str| conditions.iter().find(|c| c.type_ == t).unwrap().clone();
        let content = find("NamespaceContentRemaining");
        assert_eq!(content.status, "True");
        assert_eq!(content.reason.as_deref(), Some("SomeResourcesRemain"));
        assert_eq!(
            content.message.as_deref(),
            Some("Some resources are remaining: pods. has 1 resource instances")
        );
        let held = find("NamespaceFinalizersRemaining");
        assert_eq!(
            held.message.as_deref(),
            Some("Some finalizers are remaining: a in 1 resource instances")
        );
        let discovery = find("NamespaceDeletionDiscoveryFailure");
        assert_eq!(
            (discovery.status.as_str(), discovery.reason.as_deref()),
            ("False", Some("ResourcesDiscovered"))
        );
        assert!(!update_conditions(&mut status, &totals, SimTime::ZERO));
        assert!(update_conditions(
            &mut status,
            &Totals::default(),
            SimTime::ZERO
        ));
        assert!(
            status
                .conditions
                .unwrap()
                .iter()
                .all(|c| c.status == "False")
        );
    }
}
