//! `LimitRanger` (`plugin/pkg/admission/limitranger/admission.go`): fills in the
//! `Container` defaults of the namespace's `LimitRanges` (`default` → limits,
//! `defaultRequest` → requests) and annotates the Pod with what it set, then
//! refuses Pods outside their `min`, `max` and `maxLimitRequestRatio`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, LimitRange, Pod, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::{
    AdmissionRequest, Plugin, SideEffects, Verdict, aggregate, deny, is_kind, quantity, zero,
};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::kinds::kind_of;
use podflow_model::quantity::ParsedQuantity;
use podflow_model::{Kind, Object};

/// The annotation that records the defaults applied.
pub const ANNOTATION: &str = "kubernetes.io/limit-ranger";

type Resources = BTreeMap<String, Quantity>;

/// One of the three checks: `(kind, resource, enforced, request, limit) -> error`.
type Constraint = fn(
    &str,
    &str,
    ParsedQuantity,
    Option<ParsedQuantity>,
    Option<ParsedQuantity>,
) -> Option<String>;

/// `resource.MaxMilliValue`: the largest value whose thousandths fit an `int64`.
const MAX_MILLI_VALUE: i64 = i64::MAX / 1000;

/// The `LimitRanger` admission plugin (mutating and validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct LimitRanger;

impl Plugin for LimitRanger {
    fn name(&self) -> &'static str {
        "LimitRanger"
    }

    /// `SupportsAttributes`: Pod creates, `pods/resize` updates, and `PersistentVolumeClaims`.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        if is_kind(kind, "", "Pod") {
            return match subresource {
                None => operation == Operation::Create,
                Some("resize") => operation == Operation::Update,
                Some(_) => false,
            };
        }
        is_kind(kind, "", "PersistentVolumeClaim")
            && subresource.is_none()
            && matches!(operation, Operation::Create | Operation::Update)
    }

    fn mutating(&self) -> bool {
        true
    }

    fn validating(&self) -> bool {
        true
    }

    fn admit(&self, req: &AdmissionRequest<'_>, object: &mut Object, _rng: &mut Rng) -> Verdict {
        let Object::Pod(pod) = object else {
            return Verdict::Allow;
        };
        let mut set = Vec::new();
        for range in limit_ranges(req) {
            set.extend(merge_defaults(pod, &range));
        }
        if set.is_empty() {
            return Verdict::Allow;
        }
        let value = format!("LimitRanger plugin set: {}", set.join("; "));
        pod.metadata
            .annotations
            .get_or_insert_default()
            .insert(ANNOTATION.into(), value);
        Verdict::Mutate(format!(
            "applied LimitRange defaults: {} (annotation {ANNOTATION})",
            set.join("; ")
        ))
    }

    fn validate(
        &self,
        req: &AdmissionRequest<'_>,
        object: &Object,
        _effects: &mut SideEffects,
    ) -> Verdict {
        let Object::Pod(pod) = object else {
            return Verdict::Allow;
        };
        let errors: Vec<String> = limit_ranges(req)
            .iter()
            .flat_map(|r| pod_violations(r, pod))
            .collect();
        if errors.is_empty() {
            Verdict::Allow
        } else {
            deny(req, &aggregate(&errors))
        }
    }
}

/// The `LimitRanges` of the request's namespace.
fn limit_ranges(req: &AdmissionRequest<'_>) -> Vec<LimitRange> {
    let Some(namespace) = req.namespace else {
        return Vec::new();
    };
    req.cluster
        .list(kind_of("LimitRange"), Some(namespace))
        .iter()
        .filter_map(|o| match &**o {
            Object::LimitRange(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

/// The `Container` items of a `LimitRange`.
fn items<'a>(
    range: &'a LimitRange,
    kind: &'a str,
) -> impl Iterator<Item = &'a k8s_openapi::api::core::v1::LimitRangeItem> {
    range
        .spec
        .iter()
        .flat_map(|s| s.limits.iter())
        .filter(move |item| item.type_ == kind)
}

/// `mergePodResourceRequirements`: applies the defaults and returns the annotation parts.
fn merge_defaults(pod: &mut Pod, range: &LimitRange) -> Vec<String> {
    let mut requests = Resources::new();
    let mut limits = Resources::new();
    for item in items(range, "Container") {
        requests.extend(item.default_request.clone().unwrap_or_default());
        limits.extend(item.default.clone().unwrap_or_default());
    }
    let mut parts = Vec::new();
    let Some(spec) = pod.spec.as_mut() else {
        return parts;
    };
    for container in &mut spec.containers {
        parts.extend(merge_container(container, "container", &requests, &limits));
    }
    for container in spec.init_containers.iter_mut().flatten() {
        parts.extend(merge_container(
            container,
            "init container",
            &requests,
            &limits,
        ));
    }
    parts
}

fn merge_container(
    container: &mut Container,
    what: &str,
    requests: &Resources,
    limits: &Resources,
) -> Vec<String> {
    let resources = container
        .resources
        .get_or_insert_with(ResourceRequirements::default);
    let mut parts = Vec::new();
    let set_requests = fill(&mut resources.requests, requests);
    let set_limits = fill(&mut resources.limits, limits);
    if !set_requests.is_empty() {
        parts.push(format!(
            "{} request for {what} {}",
            set_requests.join(", "),
            container.name
        ));
    }
    if !set_limits.is_empty() {
        parts.push(format!(
            "{} limit for {what} {}",
            set_limits.join(", "),
            container.name
        ));
    }
    parts
}

/// Adds the missing defaults; returns the names set, sorted.
fn fill(target: &mut Option<Resources>, defaults: &Resources) -> Vec<String> {
    let missing: Vec<(&String, &Quantity)> = defaults
        .iter()
        .filter(|(name, _)| target.as_ref().is_none_or(|t| !t.contains_key(*name)))
        .collect();
    if !missing.is_empty() {
        let map = target.get_or_insert_default();
        for (name, value) in &missing {
            map.insert((*name).clone(), (*value).clone());
        }
    }
    missing.into_iter().map(|(name, _)| name.clone()).collect()
}

fn get(list: Option<&Resources>, name: &str) -> Option<ParsedQuantity> {
    list.and_then(|l| l.get(name)).map(quantity)
}

/// `requestLimitEnforcedValues`: the three values compared, in thousandths
/// unless one is too large for that, then in whole units (a missing one is zero).
fn enforced_values(
    request: Option<ParsedQuantity>,
    limit: Option<ParsedQuantity>,
    enforced: ParsedQuantity,
) -> (i64, i64, i64) {
    let request = request.unwrap_or_else(zero);
    let limit = limit.unwrap_or_else(zero);
    let whole = (request.value(), limit.value(), enforced.value());
    if whole.0 <= MAX_MILLI_VALUE && whole.1 <= MAX_MILLI_VALUE && whole.2 <= MAX_MILLI_VALUE {
        (
            request.milli_value(),
            limit.milli_value(),
            enforced.milli_value(),
        )
    } else {
        whole
    }
}

/// `minConstraint`.
fn min_constraint(
    kind: &str,
    name: &str,
    enforced: ParsedQuantity,
    request: Option<ParsedQuantity>,
    limit: Option<ParsedQuantity>,
) -> Option<String> {
    let (observed_request, observed_limit, enforced_value) =
        enforced_values(request, limit, enforced);
    let Some(request) = request else {
        return Some(format!(
            "minimum {name} usage per {kind} is {enforced}.  No request is specified"
        ));
    };
    if observed_request < enforced_value {
        return Some(format!(
            "minimum {name} usage per {kind} is {enforced}, but request is {request}"
        ));
    }
    match limit {
        Some(limit) if observed_limit < enforced_value => Some(format!(
            "minimum {name} usage per {kind} is {enforced}, but limit is {limit}"
        )),
        _ => None,
    }
}

/// `maxConstraint`.
fn max_constraint(
    kind: &str,
    name: &str,
    enforced: ParsedQuantity,
    request: Option<ParsedQuantity>,
    limit: Option<ParsedQuantity>,
) -> Option<String> {
    let (observed_request, observed_limit, enforced_value) =
        enforced_values(request, limit, enforced);
    let Some(limit) = limit else {
        return Some(format!(
            "maximum {name} usage per {kind} is {enforced}.  No limit is specified"
        ));
    };
    if observed_limit > enforced_value {
        return Some(format!(
            "maximum {name} usage per {kind} is {enforced}, but limit is {limit}"
        ));
    }
    match request {
        Some(request) if observed_request > enforced_value => Some(format!(
            "maximum {name} usage per {kind} is {enforced}, but request is {request}"
        )),
        _ => None,
    }
}

/// `limitRequestRatioConstraint`.
#[allow(clippy::cast_precision_loss)]
fn ratio_constraint(
    kind: &str,
    name: &str,
    enforced: ParsedQuantity,
    request: Option<ParsedQuantity>,
    limit: Option<ParsedQuantity>,
) -> Option<String> {
    let (observed_request, observed_limit, _) = enforced_values(request, limit, enforced);
    if request.is_none() || observed_request == 0 {
        return Some(format!(
            "{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or request is 0"
        ));
    }
    if limit.is_none() || observed_limit == 0 {
        return Some(format!(
            "{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or limit is 0"
        ));
    }
    let ratio = observed_limit as f64 / observed_request as f64;
    let (observed, allowed) = if enforced.value() <= MAX_MILLI_VALUE {
        (ratio * 1000.0, enforced.milli_value() as f64)
    } else {
        (ratio, enforced.value() as f64)
    };
    (observed > allowed).then(|| {
        format!("{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {ratio:.6}")
    })
}

/// Checks one set of requests and limits against one `LimitRange` item.
fn check(
    item: &k8s_openapi::api::core::v1::LimitRangeItem,
    requests: Option<&Resources>,
    limits: Option<&Resources>,
) -> Vec<String> {
    let kind = item.type_.as_str();
    let mut errors = Vec::new();
    let checks: [(&Option<Resources>, Constraint); 3] = [
        (&item.min, min_constraint),
        (&item.max, max_constraint),
        (&item.max_limit_request_ratio, ratio_constraint),
    ];
    for (bounds, constraint) in checks {
        for (name, enforced) in bounds.iter().flatten() {
            let enforced = quantity(enforced);
            errors.extend(constraint(
                kind,
                name,
                enforced,
                get(requests, name),
                get(limits, name),
            ));
        }
    }
    errors
}

/// `PodValidateLimitFunc`: every container and init container against `Container`
/// items, the Pod's total against `Pod` items.
fn pod_violations(range: &LimitRange, pod: &Pod) -> Vec<String> {
    let Some(spec) = &pod.spec else {
        return Vec::new();
    };
    let all: Vec<&Container> = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .collect();
    let mut errors = Vec::new();
    for item in items(range, "Container") {
        for container in &all {
            let resources = container.resources.as_ref();
            errors.extend(check(
                item,
                resources.and_then(|r| r.requests.as_ref()),
                resources.and_then(|r| r.limits.as_ref()),
            ));
        }
    }
    for item in items(range, "Pod") {
        let requests = pod_total(spec, |r| r.requests.as_ref());
        let limits = pod_total(spec, |r| r.limits.as_ref());
        errors.extend(check(item, Some(&requests), Some(&limits)));
    }
    errors
}

/// The Pod's effective total: the sum over containers, or the largest init container if larger.
fn pod_total(
    spec: &k8s_openapi::api::core::v1::PodSpec,
    pick: fn(&ResourceRequirements) -> Option<&Resources>,
) -> Resources {
    let mut total: BTreeMap<String, ParsedQuantity> = BTreeMap::new();
    for container in &spec.containers {
        for (name, q) in container
            .resources
            .as_ref()
            .and_then(pick)
            .into_iter()
            .flatten()
        {
            let q = quantity(q);
            let sum = total.get(name).map_or(q, |t| t.add(&q));
            total.insert(name.clone(), sum);
        }
    }
    for container in spec.init_containers.iter().flatten() {
        for (name, q) in container
            .resources
            .as_ref()
            .and_then(pick)
            .into_iter()
            .flatten()
        {
            let q = quantity(q);
            if total.get(name).is_none_or(|t| q > *t) {
                total.insert(name.clone(), q);
            }
        }
    }
    total
        .into_iter()
        .map(|(k, v)| (k, Quantity(v.to_string())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::{meta, pod, request};
    use k8s_openapi::api::core::v1::{LimitRangeItem, LimitRangeSpec};
    use serde_json::json;

    #[allow(clippy::unnecessary_wraps)] // fits the Option fields of LimitRangeItem
    fn q(pairs: &[(&str, &str)]) -> Option<Resources> {
        Some(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Quantity((*v).to_owned())))
                .collect(),
        )
    }

    fn range(item: LimitRangeItem) -> Object {
        Object::LimitRange(LimitRange {
            metadata: meta(Some("dev"), "limits"),
            spec: Some(LimitRangeSpec { limits: vec![item] }),
        })
    }

    fn nginx(resources: &serde_json::Value) -> Object {
        pod(json!({
            "metadata": {"name": "nginx", "namespace": "dev"},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27", "resources": resources}]}
        }))
    }

    /// Mirrors `limitranger/admission_test.go` `TestPodLimitFunc` and `TestLimitRangerAdmitPod`.
    #[test]
    fn defaults_are_applied_and_annotated() {
        let cluster = StaticCluster::new(vec![range(LimitRangeItem {
            type_: "Container".into(),
            default: q(&[("cpu", "500m"), ("memory", "512Mi")]),
            default_request: q(&[("cpu", "250m"), ("memory", "256Mi")]),
            ..LimitRangeItem::default()
        })]);
        let req = request(Operation::Create, "Pod", Some("dev"), "nginx", &cluster);
        let mut object = nginx(&json!({}));
        let verdict = LimitRanger.admit(&req, &mut object, &mut Rng::new(1));
        assert_eq!(
            verdict,
            Verdict::Mutate(
                "applied LimitRange defaults: cpu, memory request for container nginx; cpu, memory limit for container nginx (annotation kubernetes.io/limit-ranger)".into()
            )
        );
        let pod = object.as_pod().unwrap();
        assert_eq!(
            pod.metadata.annotations.as_ref().unwrap()[ANNOTATION],
            "LimitRanger plugin set: cpu, memory request for container nginx; cpu, memory limit for container nginx"
        );
        let resources = pod.spec.as_ref().unwrap().containers[0]
            .resources
            .clone()
            .unwrap();
        assert_eq!(resources.limits, q(&[("cpu", "500m"), ("memory", "512Mi")]));
        assert_eq!(
            resources.requests,
            q(&[("cpu", "250m"), ("memory", "256Mi")])
        );

        // A container that states its own values keeps them; only what is missing is set.
        let mut object = nginx(&json!({"limits": {"cpu": "1"}}));
        LimitRanger.admit(&req, &mut object, &mut Rng::new(1));
        assert_eq!(
            object.metadata().annotations.as_ref().unwrap()[ANNOTATION],
            "LimitRanger plugin set: cpu, memory request for container nginx; memory limit for container nginx"
        );
    }

    /// Mirrors `TestPodLimitFunc`'s error cases, with upstream's wording.
    #[test]
    fn violations_are_refused_with_upstreams_messages() {
        let item =
            |min: &[(&str, &str)], max: &[(&str, &str)], ratio: &[(&str, &str)]| LimitRangeItem {
                type_: "Container".into(),
                min: q(min),
                max: q(max),
                max_limit_request_ratio: q(ratio),
                ..LimitRangeItem::default()
            };
        let cases = [
            (
                item(&[], &[("cpu", "2")], &[]),
                json!({"limits": {"cpu": "4"}}),
                Some("maximum cpu usage per Container is 2, but limit is 4"),
            ),
            (
                item(&[], &[("cpu", "2")], &[]),
                json!({"requests": {"cpu": "1"}}),
                Some("maximum cpu usage per Container is 2.  No limit is specified"),
            ),
            (
                item(&[], &[("cpu", "2")], &[]),
                json!({"limits": {"cpu": "2"}}),
                None,
            ),
            (
                item(&[("memory", "64Mi")], &[], &[]),
                json!({"requests": {"memory": "32Mi"}}),
                Some("minimum memory usage per Container is 64Mi, but request is 32Mi"),
            ),
            (
                item(&[("memory", "64Mi")], &[], &[]),
                json!({}),
                Some("minimum memory usage per Container is 64Mi.  No request is specified"),
            ),
            (
                item(&[], &[("memory", "1Gi")], &[]),
                json!({"limits": {"memory": "1.5Gi"}}),
                Some("maximum memory usage per Container is 1Gi, but limit is 1536Mi"),
            ),
            (
                item(&[("cpu", "100m")], &[], &[]),
                json!({"requests": {"cpu": "0.1"}}),
                None,
            ),
            (
                item(&[("cpu", "100m")], &[], &[]),
                json!({"requests": {"cpu": "99m"}, "limits": {"cpu": "1"}}),
                Some("minimum cpu usage per Container is 100m, but request is 99m"),
            ),
            (
                item(&[], &[], &[("cpu", "2")]),
                json!({"requests": {"cpu": "250m"}, "limits": {"cpu": "1"}}),
                Some(
                    "cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000",
                ),
            ),
            (
                item(&[], &[], &[("cpu", "2")]),
                json!({"limits": {"cpu": "1"}}),
                Some(
                    "cpu max limit to request ratio per Container is 2, but no request is specified or request is 0",
                ),
            ),
            (
                item(&[], &[("cpu", "2"), ("memory", "1Gi")], &[]),
                json!({"limits": {"cpu": "4", "memory": "2Gi"}}),
                Some(
                    "[maximum cpu usage per Container is 2, but limit is 4, maximum memory usage per Container is 1Gi, but limit is 2Gi]",
                ),
            ),
        ];
        for (item, resources, want) in cases {
            let cluster = StaticCluster::new(vec![range(item)]);
            let req = request(Operation::Create, "Pod", Some("dev"), "nginx", &cluster);
            let verdict =
                LimitRanger.validate(&req, &nginx(&resources), &mut SideEffects::default());
            match (want, verdict) {
                (None, Verdict::Allow) => {}
                (Some(message), Verdict::Deny(status)) => {
                    assert_eq!(status.code, Some(403));
                    assert_eq!(
                        status.message.unwrap(),
                        format!(r#"pods "nginx" is forbidden: {message}"#)
                    );
                }
                (want, got) => panic!("{resources}: want {want:?}, got {got:?}"),
            }
        }
    }

    /// Mirrors `TestLimitRangerIgnoresSubresource` and `TestLimitRangerAdmitPod`'s update case.
    #[test]
    fn ignores_subresources_and_pod_updates() {
        let pods = kind_of("Pod");
        assert!(LimitRanger.handles(Operation::Create, pods, None));
        assert!(!LimitRanger.handles(Operation::Update, pods, None));
        assert!(!LimitRanger.handles(Operation::Update, pods, Some("status")));
        assert!(LimitRanger.handles(Operation::Update, pods, Some("resize")));
        assert!(!LimitRanger.handles(Operation::Create, kind_of("Node"), None));
    }
}
