//! What a Service's `EndpointSlice` should hold, worked out from the cache
//! (`staging/src/k8s.io/endpointslice/reconciler.go`, `utils.go`:
//! `podToEndpoint`, `getEndpointPorts`, `newEndpointSlice`,
//! `setEndpointSliceLabels`; `pkg/api/v1/pod/util.go`: `FindPort`;
//! `pkg/controller/util/endpoint/controller_utils.go`: `ShouldPodBeInEndpoints`).
//!
//! podflow keeps one slice per Service (upstream splits at 100 endpoints,
//! `--max-endpoints-per-slice`): existing endpoints keep their place, changed
//! ones are replaced, new ones appended, and a Service without endpoints
//! keeps a placeholder slice with no endpoints and no ports.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ObjectReference, Pod, Service, ServicePort};
use k8s_openapi::api::discovery::v1::{Endpoint, EndpointConditions, EndpointPort, EndpointSlice};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::pods::{controller_ref, is_ready, node_of, phase};

/// `discovery.LabelServiceName`.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";
/// `discovery.LabelManagedBy`.
pub const MANAGED_BY_LABEL: &str = "endpointslice.kubernetes.io/managed-by";
/// The endpointslice controller's `managed-by` value.
pub const MANAGED_BY: &str = "endpointslice-controller.k8s.io";
/// `v1.IsHeadlessService`'s label.
const HEADLESS_LABEL: &str = "service.kubernetes.io/headless";
/// `v1.LabelTopologyZone`.
const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// `ShouldPodBeInEndpoints(pod, includeTerminating=true)`: the Pod has an IP
/// and has not finished.
pub fn should_pod_be_in_endpoints(pod: &Pod) -> bool {
    let status = pod.status.as_ref();
    let has_ip = status.is_some_and(|s| {
        s.pod_ip.as_deref().is_some_and(|ip| !ip.is_empty())
            || s.pod_ips.as_ref().is_some_and(|ips| !ips.is_empty())
    });
    if !has_ip {
        return false;
    }
    let restart = pod
        .spec
        .as_ref()
        .and_then(|s| s.restart_policy.as_deref())
        .unwrap_or("Always");
    match phase(pod) {
        "Failed" => false,
        "Succeeded" => restart == "Always",
        _ => true,
    }
}

/// `podutil.FindPort`: the container port a Service port targets on `pod`.
pub fn find_port(pod: &Pod, port: &ServicePort) -> Option<i32> {
    let protocol = port.protocol.as_deref().unwrap_or("TCP");
    match &port.target_port {
        None => Some(port.port),
        Some(IntOrString::Int(n)) => Some(*n),
        Some(IntOrString::String(name)) => pod
            .spec
            .as_ref()?
            .containers
            .iter()
            .flat_map(|c| c.ports.iter().flatten())
            .find(|p| {
                p.name.as_deref() == Some(name.as_str())
                    && p.protocol.as_deref().unwrap_or("TCP") == protocol
            })
            .map(|p| p.container_port),
    }
}

/// `getEndpointPorts`: one port per Service port the Pod can serve.
pub fn endpoint_ports(service: &Service, pod: &Pod) -> Vec<EndpointPort> {
    let ports = service.spec.as_ref().and_then(|s| s.ports.as_ref());
    ports
        .into_iter()
        .flatten()
        .filter_map(|sp| {
            let number = find_port(pod, sp)?;
            Some(EndpointPort {
                name: Some(sp.name.clone().unwrap_or_default()),
                port: Some(number),
                protocol: Some(sp.protocol.clone().unwrap_or_else(|| "TCP".into())),
                app_protocol: sp.app_protocol.clone(),
            })
        })
        .collect()
}

/// `podToEndpoint`: the Pod's address, conditions, node, zone and reference.
pub fn pod_to_endpoint(service: &Service, pod: &Pod, zone: Option<&str>) -> Endpoint {
    let publish_not_ready = service
        .spec
        .as_ref()
        .and_then(|s| s.publish_not_ready_addresses)
        .unwrap_or(false);
    let serving = is_ready(pod);
    let terminating = pod.metadata.deletion_timestamp.is_some();
    // A terminating Pod is never "ready", unless publishNotReadyAddresses says so.
    let ready = publish_not_ready || (serving && !terminating);
    let status = pod.status.clone().unwrap_or_default();
    let addresses = match status.pod_ips.as_deref() {
        Some([first, ..]) => vec![first.ip.clone()],
        _ => status.pod_ip.into_iter().collect(),
    };
    let node = node_of(pod);
    let spec = pod.spec.as_ref();
    let hostname = spec
        .and_then(|s| s.hostname.clone())
        .filter(|h| !h.is_empty())
        .filter(|_| spec.and_then(|s| s.subdomain.as_deref()) == service.metadata.name.as_deref());
    Endpoint {
        addresses,
        conditions: Some(EndpointConditions {
            ready: Some(ready),
            serving: Some(serving),
            terminating: Some(terminating),
        }),
        hostname,
        node_name: (!node.is_empty()).then(|| node.to_owned()),
        zone: zone.map(str::to_owned),
        target_ref: Some(ObjectReference {
            kind: Some("Pod".into()),
            namespace: pod.metadata.namespace.clone(),
            name: pod.metadata.name.clone(),
            uid: pod.metadata.uid.clone(),
            ..ObjectReference::default()
        }),
        ..Endpoint::default()
    }
}

/// The desired endpoints and ports of `service` over `pods` (already
/// selected); `zone_of` gives a node's zone label, `None` when the node is
/// unknown (the Pod is then left out, as upstream does until the node appears).
pub fn desired<'a>(
    service: &Service,
    pods: impl IntoIterator<Item = &'a Pod>,
    zone_of: impl Fn(&str) -> Option<Option<String>>,
) -> (Vec<Endpoint>, Vec<EndpointPort>) {
    let mut endpoints = Vec::new();
    let mut ports = Vec::new();
    for pod in pods {
        if !should_pod_be_in_endpoints(pod) {
            continue;
        }
        let Some(zone) = zone_of(node_of(pod)) else {
            continue;
        };
        if endpoints.is_empty() {
            ports = endpoint_ports(service, pod);
        }
        endpoints.push(pod_to_endpoint(service, pod, zone.as_deref()));
    }
    (endpoints, ports)
}

/// The key an endpoint is known by across syncs: its Pod, or its first address.
fn endpoint_key(endpoint: &Endpoint) -> String {
    endpoint
        .target_ref
        .as_ref()
        .and_then(|r| r.name.clone())
        .unwrap_or_else(|| endpoint.addresses.first().cloned().unwrap_or_default())
}

/// The endpoints a slice should hold after the change: existing ones keep
/// their place (replaced when changed, dropped when gone), new ones follow.
pub fn merge_endpoints(existing: &[Endpoint], wanted: Vec<Endpoint>) -> Vec<Endpoint> {
    let mut wanted: BTreeMap<String, (usize, Endpoint)> = wanted
        .into_iter()
        .enumerate()
        .map(|(i, e)| (endpoint_key(&e), (i, e)))
        .collect();
    let mut out: Vec<Endpoint> = existing
        .iter()
        .filter_map(|e| wanted.remove(&endpoint_key(e)).map(|(_, e)| e))
        .collect();
    let mut rest: Vec<(usize, Endpoint)> = wanted.into_values().collect();
    rest.sort_by_key(|(i, _)| *i);
    out.extend(rest.into_iter().map(|(_, e)| e));
    out
}

/// `setEndpointSliceLabels`: the Service's labels (but the reserved ones),
/// the headless mark, the Service's name and the managing controller.
pub fn slice_labels(service: &Service) -> BTreeMap<String, String> {
    let mut labels: BTreeMap<String, String> = service
        .metadata
        .labels
        .clone()
        .unwrap_or_default()
        .into_iter()
        .filter(|(k, _)| {
            ![SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL].contains(&k.as_str())
        })
        .collect();
    if service.spec.as_ref().and_then(|s| s.cluster_ip.as_deref()) == Some("None") {
        labels.insert(HEADLESS_LABEL.into(), String::new());
    }
    labels.insert(
        SERVICE_NAME_LABEL.into(),
        service.metadata.name.clone().unwrap_or_default(),
    );
    labels.insert(MANAGED_BY_LABEL.into(), MANAGED_BY.into());
    labels
}

/// `newEndpointSlice`: a slice for `service`, named by the API server from
/// `generateName` `<service>-`, owned by the Service.
pub fn new_slice(
    service: &Service,
    endpoints: Vec<Endpoint>,
    ports: Vec<EndpointPort>,
) -> EndpointSlice {
    let name = service.metadata.name.clone().unwrap_or_default();
    EndpointSlice {
        metadata: ObjectMeta {
            generate_name: Some(format!("{name}-")),
            namespace: service.metadata.namespace.clone(),
            labels: Some(slice_labels(service)),
            owner_references: Some(vec![controller_ref("v1", "Service", &service.metadata)]),
            ..ObjectMeta::default()
        },
        address_type: "IPv4".into(),
        endpoints: non_empty(endpoints),
        ports: non_empty(ports),
    }
}

/// `None` for an empty list, as a list reads back from storage.
fn non_empty<T>(list: Vec<T>) -> Option<Vec<T>> {
    (!list.is_empty()).then_some(list)
}

/// The zone of a node from its labels.
pub fn zone_label(labels: Option<&BTreeMap<String, String>>) -> Option<String> {
    labels.and_then(|l| l.get(ZONE_LABEL).cloned())
}

/// The slice `existing` brought up to date, or `None` when it already is.
pub fn updated_slice(
    service: &Service,
    existing: &EndpointSlice,
    endpoints: Vec<Endpoint>,
    ports: Vec<EndpointPort>,
) -> Option<EndpointSlice> {
    let merged = merge_endpoints(existing.endpoints.as_deref().unwrap_or_default(), endpoints);
    let ports = if merged.is_empty() {
        None
    } else {
        non_empty(ports)
    };
    let merged = non_empty(merged);
    let labels = slice_labels(service);
    let same_labels = existing.metadata.labels.as_ref() == Some(&labels);
    if existing.endpoints == merged && existing.ports == ports && same_labels {
        return None;
    }
    let mut slice = existing.clone();
    slice.endpoints = merged;
    slice.ports = ports;
    slice.metadata.labels = Some(labels);
    Some(slice)
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{
        Container, ContainerPort, PodCondition, PodIP, PodSpec, PodStatus, ServiceSpec,
    };
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

    use super::*;

    fn service(target: Option<IntOrString>) -> Service {
        Service {
            metadata: ObjectMeta {
                name: Some("web".into()),
                namespace: Some("default".into()),
                uid: Some("svc-uid".into()),
                labels: Some([("app".to_owned(), "web".to_owned())].into()),
                ..ObjectMeta::default()
            },
            spec: Some(ServiceSpec {
                selector: Some([("app".to_owned(), "web".to_owned())].into()),
                ports: Some(vec![ServicePort {
                    port: 80,
                    target_port: target,
                    protocol: Some("TCP".into()),
                    ..ServicePort::default()
                }]),
                ..ServiceSpec::default()
            }),
            status: None,
        }
    }

    fn pod(name: &str, ip: Option<&str>, ready: bool, phase: &str) -> Pod {
        Pod {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                uid: Some(format!("{name}-uid")),
                ..ObjectMeta::default()
            },
            spec: Some(PodSpec {
                node_name: Some("node-1".into()),
                containers: vec![Container {
                    name: "nginx".into(),
                    ports: Some(vec![ContainerPort {
                        name: Some("http".into()),
                        container_port: 8080,
                        protocol: Some("TCP".into()),
                        ..ContainerPort::default()
                    }]),
                    ..Container::default()
                }],
                ..PodSpec::default()
            }),
            status: Some(PodStatus {
                phase: Some(phase.into()),
                pod_ip: ip.map(str::to_owned),
                pod_ips: ip.map(|ip| vec![PodIP { ip: ip.into() }]),
                conditions: Some(vec![PodCondition {
                    type_: "Ready".into(),
                    status: if ready { "True" } else { "False" }.into(),
                    last_transition_time: Some(Time(k8s_openapi::jiff::Timestamp::UNIX_EPOCH)),
                    ..PodCondition::default()
                }]),
                ..PodStatus::default()
            }),
        }
    }

    /// Mirrors `TestShouldPodBeInEndpoints` (`pkg/controller/util/endpoint/controller_utils_test.go`).
    #[test]
    fn should_pod_be_in_endpoints_table() {
        let mut never = pod("a", Some("10.244.1.2"), false, "Succeeded");
        never.spec.as_mut().unwrap().restart_policy = Some("Never".into());
        let cases = [
            ("no IP", pod("a", None, false, "Pending"), false),
            (
                "running",
                pod("a", Some("10.244.1.2"), true, "Running"),
                true,
            ),
            (
                "pending with IP",
                pod("a", Some("10.244.1.2"), false, "Pending"),
                true,
            ),
            (
                "failed",
                pod("a", Some("10.244.1.2"), false, "Failed"),
                false,
            ),
            ("succeeded, restartPolicy Never", never, false),
        ];
        for (name, pod, want) in cases {
            assert_eq!(should_pod_be_in_endpoints(&pod), want, "{name}");
        }
    }

    /// Mirrors `TestPodToEndpoint` (`staging/src/k8s.io/endpointslice/utils_test.go`):
    /// ready, serving and terminating.
    #[test]
    fn pod_to_endpoint_conditions() {
        let svc = service(None);
        let cases = [
            ("ready", true, false, (true, true, false)),
            ("not ready", false, false, (false, false, false)),
            ("ready and terminating", true, true, (false, true, true)),
            (
                "not ready and terminating",
                false,
                true,
                (false, false, true),
            ),
        ];
        for (name, ready, terminating, (r, s, t)) in cases {
            let mut p = pod("web-1", Some("10.244.1.2"), ready, "Running");
            if terminating {
                p.metadata.deletion_timestamp =
                    Some(Time(k8s_openapi::jiff::Timestamp::UNIX_EPOCH));
            }
            let ep = pod_to_endpoint(&svc, &p, None);
            let c = ep.conditions.unwrap();
            assert_eq!(
                (c.ready, c.serving, c.terminating),
                (Some(r), Some(s), Some(t)),
                "{name}"
            );
            assert_eq!(ep.addresses, vec!["10.244.1.2".to_owned()]);
            assert_eq!(ep.node_name.as_deref(), Some("node-1"));
            let target = ep.target_ref.unwrap();
            assert_eq!(target.kind.as_deref(), Some("Pod"));
            assert_eq!(target.name.as_deref(), Some("web-1"));
            assert_eq!(target.uid.as_deref(), Some("web-1-uid"));
        }
        let mut publish = svc.clone();
        publish.spec.as_mut().unwrap().publish_not_ready_addresses = Some(true);
        let ep = pod_to_endpoint(
            &publish,
            &pod("x", Some("10.0.0.1"), false, "Running"),
            None,
        );
        assert_eq!(ep.conditions.unwrap().ready, Some(true));
    }

    /// Mirrors `TestFindPort` (`pkg/api/v1/pod/util_test.go`).
    #[test]
    fn find_port_table() {
        let p = pod("a", Some("10.0.0.1"), true, "Running");
        let cases = [
            ("unset: the port", None, Some(80)),
            ("number", Some(IntOrString::Int(9376)), Some(9376)),
            (
                "named, found",
                Some(IntOrString::String("http".into())),
                Some(8080),
            ),
            (
                "named, missing",
                Some(IntOrString::String("grpc".into())),
                None,
            ),
        ];
        for (name, target, want) in cases {
            let svc = service(target);
            let port = &svc.spec.as_ref().unwrap().ports.as_ref().unwrap()[0];
            assert_eq!(find_port(&p, port), want, "{name}");
        }
    }

    #[test]
    fn new_slice_is_named_labelled_and_owned() {
        let svc = service(Some(IntOrString::Int(8080)));
        let pods = [pod("web-1", Some("10.244.1.2"), true, "Running")];
        let (endpoints, ports) = desired(&svc, &pods, |_| Some(None));
        let slice = new_slice(&svc, endpoints, ports);
        assert_eq!(slice.metadata.generate_name.as_deref(), Some("web-"));
        let labels = slice.metadata.labels.unwrap();
        assert_eq!(labels[SERVICE_NAME_LABEL], "web");
        assert_eq!(labels[MANAGED_BY_LABEL], MANAGED_BY);
        assert_eq!(labels["app"], "web");
        let owner = &slice.metadata.owner_references.unwrap()[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str()),
            ("Service", "web")
        );
        assert_eq!(owner.controller, Some(true));
        assert_eq!(slice.address_type, "IPv4");
        let port = &slice.ports.unwrap()[0];
        assert_eq!(
            (port.name.as_deref(), port.port, port.protocol.as_deref()),
            (Some(""), Some(8080), Some("TCP"))
        );
    }

    /// `reconcile`: endpoints keep their place; a Pod becoming ready is updated in place.
    #[test]
    fn updates_keep_order_and_mark_readiness() {
        let svc = service(None);
        let before = [
            pod("b", Some("10.0.0.2"), false, "Running"),
            pod("a", Some("10.0.0.1"), false, "Running"),
        ];
        let (endpoints, ports) = desired(&svc, &before, |_| Some(None));
        let mut slice = new_slice(&svc, endpoints, ports.clone());
        slice.metadata.name = Some("web-abcde".into());
        let after = [
            pod("a", Some("10.0.0.1"), true, "Running"),
            pod("b", Some("10.0.0.2"), false, "Running"),
            pod("c", Some("10.0.0.3"), true, "Running"),
        ];
        let (endpoints, ports) = desired(&svc, &after, |_| Some(None));
        let updated = updated_slice(&svc, &slice, endpoints.clone(), ports.clone()).unwrap();
        let order: Vec<(&str, Option<bool>)> = updated
            .endpoints
            .iter()
            .flatten()
            .map(|e| {
                (
                    e.addresses[0].as_str(),
                    e.conditions.as_ref().unwrap().ready,
                )
            })
            .collect();
        assert_eq!(
            order,
            [
                ("10.0.0.2", Some(false)),
                ("10.0.0.1", Some(true)),
                ("10.0.0.3", Some(true))
            ]
        );
        assert!(
            updated_slice(&svc, &updated, endpoints, ports).is_none(),
            "already current"
        );
        // No endpoints left: the placeholder holds no ports either.
        let empty = updated_slice(&svc, &updated, Vec::new(), Vec::new()).unwrap();
        assert_eq!(empty.endpoints, None);
        assert_eq!(empty.ports, None);
    }

    #[test]
    fn pods_on_unknown_nodes_are_left_out() {
        let svc = service(None);
        let pods = [pod("a", Some("10.0.0.1"), true, "Running")];
        let (endpoints, _) = desired(&svc, &pods, |_| None);
        assert!(endpoints.is_empty());
        let (endpoints, _) = desired(&svc, &pods, |_| Some(Some("zone-a".into())));
        assert_eq!(endpoints[0].zone.as_deref(), Some("zone-a"));
    }
}
