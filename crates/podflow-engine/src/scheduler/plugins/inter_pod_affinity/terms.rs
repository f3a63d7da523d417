//! A pod's (anti-)affinity terms parsed (`framework.AffinityTerm`,
//! `newAffinityTerm` and `getNamespacesFromPodAffinityTerm` in
//! `pkg/scheduler/framework/types.go`).

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Pod, PodAffinityTerm, WeightedPodAffinityTerm};

use crate::scheduler::plugins::labels::{Labels, Selector, labels_of};

/// The label every namespace carries with its own name (set by the API server).
const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// The labels of namespace `ns` as far as podflow's scheduler knows them:
/// only `kubernetes.io/metadata.name`, which the API server puts on every
/// namespace (upstream reads the namespace lister, `GetNamespaceLabelsSnapshot`).
pub fn namespace_labels(ns: &str) -> Labels {
    [(NAMESPACE_NAME_LABEL.to_owned(), ns.to_owned())].into()
}

/// One term: which pods it selects, in which namespaces, over which topology.
#[derive(Debug, Clone)]
pub struct AffinityTerm {
    pub namespaces: BTreeSet<String>,
    pub selector: Selector,
    pub topology_key: String,
    pub namespace_selector: Selector,
}

impl AffinityTerm {
    /// `newAffinityTerm`: a term with neither `namespaces` nor a
    /// `namespaceSelector` means the owning pod's own namespace.
    pub fn new(owner: &Pod, term: &PodAffinityTerm) -> Result<AffinityTerm, String> {
        let selector = Selector::parse(term.label_selector.as_ref())?;
        let listed = term.namespaces.as_deref().unwrap_or_default();
        let namespaces = if listed.is_empty() && term.namespace_selector.is_none() {
            [owner.metadata.namespace.clone().unwrap_or_default()].into()
        } else {
            listed.iter().cloned().collect()
        };
        let namespace_selector = Selector::parse(term.namespace_selector.as_ref())?;
        Ok(AffinityTerm {
            namespaces,
            selector,
            topology_key: term.topology_key.clone(),
            namespace_selector,
        })
    }

    /// `AffinityTerm.Matches`: the pod is in one of the namespaces (listed, or
    /// selected by the namespace selector) and the selector selects its labels.
    pub fn matches(&self, pod: &Pod) -> bool {
        let ns = pod.metadata.namespace.as_deref().unwrap_or_default();
        (self.namespaces.contains(ns) || self.namespace_selector.matches(&namespace_labels(ns)))
            && self
                .selector
                .matches(labels_of(pod.metadata.labels.as_ref()))
    }
}

/// A preferred term and its weight (`framework.WeightedAffinityTerm`).
#[derive(Debug, Clone)]
pub struct WeightedTerm {
    pub term: AffinityTerm,
    pub weight: i32,
}

/// A pod's four term lists (`framework.PodInfo`'s).
#[derive(Debug, Clone, Default)]
#[allow(clippy::struct_field_names)] // as upstream names them
pub struct PodTerms {
    pub required_affinity: Vec<AffinityTerm>,
    pub required_anti_affinity: Vec<AffinityTerm>,
    pub preferred_affinity: Vec<WeightedTerm>,
    pub preferred_anti_affinity: Vec<WeightedTerm>,
}

impl PodTerms {
    /// Parses every term; the first selector that does not parse is the error.
    pub fn parse(pod: &Pod) -> Result<PodTerms, String> {
        let affinity = pod.spec.as_ref().and_then(|s| s.affinity.as_ref());
        let pod_affinity = affinity.and_then(|a| a.pod_affinity.as_ref());
        let anti = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
        let required = |terms: Option<&Vec<PodAffinityTerm>>| {
            terms
                .into_iter()
                .flatten()
                .map(|t| AffinityTerm::new(pod, t))
                .collect::<Result<Vec<_>, _>>()
        };
        let preferred = |terms: Option<&Vec<WeightedPodAffinityTerm>>| {
            terms
                .into_iter()
                .flatten()
                .map(|t| {
                    Ok(WeightedTerm {
                        term: AffinityTerm::new(pod, &t.pod_affinity_term)?,
                        weight: t.weight,
                    })
                })
                .collect::<Result<Vec<_>, String>>()
        };
        Ok(PodTerms {
            required_affinity: required(pod_affinity.and_then(|a| {
                a.required_during_scheduling_ignored_during_execution
                    .as_ref()
            }))?,
            required_anti_affinity: required(anti.and_then(|a| {
                a.required_during_scheduling_ignored_during_execution
                    .as_ref()
            }))?,
            preferred_affinity: preferred(pod_affinity.and_then(|a| {
                a.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            }))?,
            preferred_anti_affinity: preferred(anti.and_then(|a| {
                a.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            }))?,
        })
    }

    /// The terms of a pod already placed: one whose selectors do not parse
    /// (the API server validates them, so this should not happen) has none.
    pub fn of_existing(pod: &Pod) -> PodTerms {
        PodTerms::parse(pod).unwrap_or_default()
    }
}

/// `podWithAffinity`: the pod has pod affinity or anti-affinity of any kind.
pub fn has_pod_affinity(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.affinity.as_ref())
        .is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
}

/// `podWithRequiredAntiAffinity`: the pod has required pod anti-affinity terms.
pub fn has_required_anti_affinity(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.affinity.as_ref())
        .and_then(|a| a.pod_anti_affinity.as_ref())
        .and_then(|a| {
            a.required_during_scheduling_ignored_during_execution
                .as_ref()
        })
        .is_some_and(|terms| !terms.is_empty())
}

/// `podMatchesAllAffinityTerms`: false for no terms.
pub fn matches_all(terms: &[AffinityTerm], pod: &Pod) -> bool {
    !terms.is_empty() && terms.iter().all(|t| t.matches(pod))
}
