//! Test builders for pod (anti-)affinity terms (after upstream's test helpers).

use k8s_openapi::api::core::v1::{
    Affinity, Pod, PodAffinity, PodAffinityTerm, PodAntiAffinity, PodSpec, WeightedPodAffinityTerm,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

/// One `matchExpressions` item.
pub fn expr(key: &str, op: &str, values: &[&str]) -> LabelSelectorRequirement {
    LabelSelectorRequirement {
        key: key.into(),
        operator: op.into(),
        values: (!values.is_empty()).then(|| values.iter().map(|v| (*v).to_owned()).collect()),
    }
}

/// A selector of these expressions.
pub fn selector(expressions: Vec<LabelSelectorRequirement>) -> LabelSelector {
    LabelSelector {
        match_expressions: Some(expressions),
        ..LabelSelector::default()
    }
}

/// A term selecting pods by `expressions` over `topology_key`.
pub fn term(expressions: Vec<LabelSelectorRequirement>, topology_key: &str) -> PodAffinityTerm {
    PodAffinityTerm {
        label_selector: Some(selector(expressions)),
        topology_key: topology_key.into(),
        ..PodAffinityTerm::default()
    }
}

/// A weighted term.
pub fn weighted(weight: i32, term: PodAffinityTerm) -> WeightedPodAffinityTerm {
    WeightedPodAffinityTerm {
        pod_affinity_term: term,
        weight,
    }
}

fn affinity(pod: &mut Pod) -> &mut Affinity {
    pod.spec
        .get_or_insert_with(PodSpec::default)
        .affinity
        .get_or_insert_with(Affinity::default)
}

/// Sets required affinity and anti-affinity terms (`createPodWithAffinityTerms`).
pub fn with_terms(
    mut pod: Pod,
    required_affinity: Vec<PodAffinityTerm>,
    required_anti: Vec<PodAffinityTerm>,
) -> Pod {
    let a = affinity(&mut pod);
    if !required_affinity.is_empty() {
        a.pod_affinity
            .get_or_insert_with(PodAffinity::default)
            .required_during_scheduling_ignored_during_execution = Some(required_affinity);
    }
    if !required_anti.is_empty() {
        a.pod_anti_affinity
            .get_or_insert_with(PodAntiAffinity::default)
            .required_during_scheduling_ignored_during_execution = Some(required_anti);
    }
    pod
}

/// Adds preferred affinity and anti-affinity terms.
pub fn with_preferred(
    mut pod: Pod,
    affinity_terms: Vec<WeightedPodAffinityTerm>,
    anti_terms: Vec<WeightedPodAffinityTerm>,
) -> Pod {
    let a = affinity(&mut pod);
    if !affinity_terms.is_empty() {
        a.pod_affinity
            .get_or_insert_with(PodAffinity::default)
            .preferred_during_scheduling_ignored_during_execution = Some(affinity_terms);
    }
    if !anti_terms.is_empty() {
        a.pod_anti_affinity
            .get_or_insert_with(PodAntiAffinity::default)
            .preferred_during_scheduling_ignored_during_execution = Some(anti_terms);
    }
    pod
}
