//! Deployments and `ReplicaSets` (`pkg/apis/apps/validation/validation.go`:
//! `ValidateDeploymentSpec`, `ValidateReplicaSetSpec`,
//! `ValidatePodTemplateSpecForReplicaSet`), Services (`ValidateService`,
//! `validateServicePort`) and Nodes (`ValidateNode`), in upstream's order.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, PodTemplateSpec, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::field::{
    duplicate, forbidden, go_map, inclusive_range, invalid, invalid_raw, nonnegative,
    not_supported, required,
};
use super::names::{dns1123_label, label_value, qualified_name, validate_labels};
use super::pod::{validate_pod_spec, validate_port_num_or_name};
use podflow_model::status::FieldError;

/// The parts of a Deployment or `ReplicaSet` spec validated alike.
pub struct WorkloadSpec<'a> {
    pub replicas: Option<i32>,
    pub min_ready_seconds: Option<i32>,
    pub selector: Option<&'a LabelSelector>,
    pub template: &'a PodTemplateSpec,
}

/// `ValidateDeploymentSpec` / `ValidateReplicaSetSpec` (`deployment` decides the order).
pub fn validate_workload_spec(
    spec: &WorkloadSpec<'_>,
    deployment: bool,
    errs: &mut Vec<FieldError>,
) {
    errs.extend(nonnegative(
        "spec.replicas",
        i64::from(spec.replicas.unwrap_or(1)),
    ));
    if !deployment {
        errs.extend(nonnegative(
            "spec.minReadySeconds",
            i64::from(spec.min_ready_seconds.unwrap_or_default()),
        ));
    }
    match spec.selector {
        None => errs.push(required("spec.selector", "")),
        Some(sel) => {
            validate_label_selector(sel, "spec.selector", errs);
            let count = sel.match_labels.as_ref().map_or(0, BTreeMap::len)
                + sel.match_expressions.as_ref().map_or(0, Vec::len);
            if count == 0 {
                errs.push(invalid_raw(
                    "spec.selector",
                    &selector_string(sel),
                    "empty selector is invalid for deployment",
                ));
            }
        }
    }
    validate_template_for_replica_set(spec.template, spec.selector, "spec.template", errs);
    if deployment {
        errs.extend(nonnegative(
            "spec.minReadySeconds",
            i64::from(spec.min_ready_seconds.unwrap_or_default()),
        ));
    }
}

/// The generated `(*LabelSelector).String()` that `ErrorBody` prints.
fn selector_string(sel: &LabelSelector) -> String {
    let labels: Vec<String> = sel
        .match_labels
        .iter()
        .flatten()
        .map(|(k, v)| format!("{k}: {v},"))
        .collect();
    let exprs: Vec<String> = sel
        .match_expressions
        .iter()
        .flatten()
        .map(|e| {
            let values = e.values.clone().unwrap_or_default().join(" ");
            format!(
                "&LabelSelectorRequirement{{Key:{},Operator:{},Values:[{values}],}},",
                e.key, e.operator
            )
        })
        .collect();
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{}}},MatchExpressions:[]LabelSelectorRequirement{{{}}},}}",
        labels.concat(),
        exprs.concat()
    )
}

/// `ValidateLabelSelector` (match labels and the operators of its expressions).
fn validate_label_selector(sel: &LabelSelector, path: &str, errs: &mut Vec<FieldError>) {
    for (i, e) in sel.match_expressions.iter().flatten().enumerate() {
        let p = format!("{path}.matchExpressions[{i}]");
        let values = e.values.as_ref().map_or(0, Vec::len);
        match e.operator.as_str() {
            "In" | "NotIn" => {
                if values == 0 {
                    errs.push(required(
                        &format!("{p}.values"),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    ));
                }
            }
            "Exists" | "DoesNotExist" => {
                if values > 0 {
                    errs.push(forbidden(
                        &format!("{p}.values"),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    ));
                }
            }
            op => errs.push(invalid(
                &format!("{p}.operator"),
                op,
                "not a valid selector operator",
            )),
        }
        errs.extend(
            qualified_name(&e.key)
                .iter()
                .map(|m| invalid(&format!("{p}.key"), &e.key, m)),
        );
        for (j, v) in e.values.iter().flatten().enumerate() {
            errs.extend(
                label_value(v)
                    .iter()
                    .map(|m| invalid(&format!("{p}.values[{j}]"), v, m)),
            );
        }
    }
    if let Some(labels) = &sel.match_labels {
        validate_labels(labels, &format!("{path}.matchLabels"), errs);
    }
}

/// Whether `labels` match the selector (`metav1.LabelSelectorAsSelector` then `Matches`);
/// `None` (no selector) matches nothing, as `labels.Nothing()`.
pub fn selector_matches(
    sel: Option<&LabelSelector>,
    labels: Option<&BTreeMap<String, String>>,
) -> bool {
    let Some(sel) = sel else { return false };
    let get = |k: &str| labels.and_then(|l| l.get(k));
    let by_labels = sel
        .match_labels
        .iter()
        .flatten()
        .all(|(k, v)| get(k) == Some(v));
    let by_exprs = sel.match_expressions.iter().flatten().all(|e| {
        let values = e.values.as_deref().unwrap_or_default();
        match e.operator.as_str() {
            "In" => get(&e.key).is_some_and(|v| values.contains(v)),
            "NotIn" => get(&e.key).is_none_or(|v| !values.contains(v)),
            "Exists" => get(&e.key).is_some(),
            "DoesNotExist" => get(&e.key).is_none(),
            _ => false,
        }
    });
    by_labels && by_exprs
}

/// Whether the selector has no terms: no `matchLabels`, no `matchExpressions`.
pub fn selector_is_empty(sel: &LabelSelector) -> bool {
    sel.match_labels.as_ref().is_none_or(BTreeMap::is_empty)
        && sel.match_expressions.as_ref().is_none_or(Vec::is_empty)
}

/// `ValidatePodTemplateSpecForReplicaSet`.
fn validate_template_for_replica_set(
    template: &PodTemplateSpec,
    selector: Option<&LabelSelector>,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    let labels = template.metadata.as_ref().and_then(|m| m.labels.as_ref());
    let empty = selector.is_some_and(selector_is_empty);
    if !empty && !selector_matches(selector, labels) {
        errs.push(invalid_raw(
            &format!("{path}.metadata.labels"),
            &go_map(labels),
            "`selector` does not match template `labels`",
        ));
    }
    if let Some(l) = template.metadata.as_ref().and_then(|m| m.labels.as_ref()) {
        validate_labels(l, &format!("{path}.labels"), errs);
    }
    let Some(spec) = &template.spec else {
        errs.push(required(&format!("{path}.spec.containers"), ""));
        return;
    };
    validate_pod_spec(spec, &format!("{path}.spec"), errs);
    if spec
        .ephemeral_containers
        .as_ref()
        .is_some_and(|e| !e.is_empty())
    {
        errs.push(forbidden(
            &format!("{path}.spec.ephemeralContainers"),
            "ephemeral containers not allowed in pod template",
        ));
    }
    if let Some(p) = spec
        .restart_policy
        .as_deref()
        .filter(|p| !p.is_empty() && *p != "Always")
    {
        errs.push(not_supported(
            &format!("{path}.spec.restartPolicy"),
            p,
            &["Always"],
        ));
    }
    if spec.active_deadline_seconds.is_some() {
        errs.push(forbidden(
            &format!("{path}.spec.activeDeadlineSeconds"),
            "activeDeadlineSeconds in ReplicaSet is not Supported",
        ));
    }
}

/// `ValidateService`'s spec checks (type defaulted to `ClusterIP`).
pub fn validate_service_spec(svc: &Service, errs: &mut Vec<FieldError>) {
    let Some(spec) = &svc.spec else {
        errs.push(required("spec.ports", ""));
        return;
    };
    let ty = spec
        .type_
        .as_deref()
        .filter(|t| !t.is_empty())
        .unwrap_or("ClusterIP");
    let headless = spec.cluster_ip.as_deref() == Some("None")
        || spec
            .cluster_ips
            .as_ref()
            .and_then(|c| c.first())
            .is_some_and(|c| c == "None");
    let ports = spec.ports.as_deref().unwrap_or_default();
    if ports.is_empty() && !headless && ty != "ExternalName" {
        errs.push(required("spec.ports", ""));
    }
    if ty == "ExternalName" {
        let cname = spec
            .external_name
            .as_deref()
            .unwrap_or_default()
            .trim_end_matches('.');
        if cname.is_empty() {
            errs.push(required("spec.externalName", ""));
        } else {
            errs.extend(
                super::names::dns1123_subdomain(cname)
                    .iter()
                    .map(|m| invalid("spec.externalName", cname, m)),
            );
        }
    }
    validate_service_ports(ports, errs);
    if let Some(sel) = &spec.selector {
        validate_labels(sel, "spec.selector", errs);
    }
    if let Some(t) = spec.type_.as_deref().filter(|t| !t.is_empty())
        && !matches!(
            t,
            "ClusterIP" | "ExternalName" | "LoadBalancer" | "NodePort"
        )
    {
        errs.push(not_supported(
            "spec.type",
            t,
            &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"],
        ));
    }
    if ty == "ClusterIP" {
        for (i, port) in ports.iter().enumerate() {
            if port.node_port.is_some_and(|n| n != 0) {
                errs.push(forbidden(
                    &format!("spec.ports[{i}].nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
}

/// `validateServicePort` for each port (a name is required when there are several).
fn validate_service_ports(
    ports: &[k8s_openapi::api::core::v1::ServicePort],
    errs: &mut Vec<FieldError>,
) {
    let mut names = std::collections::BTreeSet::new();
    for (i, port) in ports.iter().enumerate() {
        let p = format!("spec.ports[{i}]");
        match port.name.as_deref().filter(|n| !n.is_empty()) {
            None if ports.len() > 1 => errs.push(required(&format!("{p}.name"), "")),
            None => {}
            Some(name) => {
                errs.extend(
                    dns1123_label(name)
                        .iter()
                        .map(|m| invalid(&format!("{p}.name"), name, m)),
                );
                if !names.insert(name.to_owned()) {
                    errs.push(duplicate(&format!("{p}.name"), name));
                }
            }
        }
        if !(1..=65535).contains(&port.port) {
            errs.push(invalid_raw(
                &format!("{p}.port"),
                &port.port.to_string(),
                &inclusive_range(1, 65535),
            ));
        }
        if let Some(proto) = port
            .protocol
            .as_deref()
            .filter(|p| !p.is_empty() && !matches!(*p, "SCTP" | "TCP" | "UDP"))
        {
            errs.push(not_supported(
                &format!("{p}.protocol"),
                proto,
                &["SCTP", "TCP", "UDP"],
            ));
        }
        let target = port
            .target_port
            .clone()
            .unwrap_or(IntOrString::Int(port.port));
        let target = if target == IntOrString::Int(0) {
            IntOrString::Int(port.port)
        } else {
            target
        };
        validate_port_num_or_name(&target, &format!("{p}.targetPort"), errs);
    }
}

/// `ValidateNode`'s spec checks: taints.
pub fn validate_node_spec(node: &Node, errs: &mut Vec<FieldError>) {
    let taints = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default();
    for (i, t) in taints.iter().enumerate() {
        let p = format!("spec.taints[{i}]");
        errs.extend(
            qualified_name(&t.key)
                .iter()
                .map(|m| invalid(&format!("{p}.key"), &t.key, m)),
        );
        if let Some(v) = t.value.as_deref() {
            errs.extend(
                label_value(v)
                    .iter()
                    .map(|m| invalid(&format!("{p}.value"), v, m)),
            );
        }
        if t.effect.is_empty() {
            errs.push(required(&format!("{p}.effect"), ""));
        } else if !matches!(
            t.effect.as_str(),
            "NoSchedule" | "PreferNoSchedule" | "NoExecute"
        ) {
            errs.push(not_supported(
                &format!("{p}.effect"),
                &t.effect,
                &["NoSchedule", "PreferNoSchedule", "NoExecute"],
            ));
        }
    }
}
