//! What a Service's v1 `Endpoints` object should hold, worked out from the
//! cache (`pkg/controller/endpoint/endpoints_controller.go`: `syncService`,
//! `podToEndpointAddressForService`, `addEndpointSubset`,
//! `endpointPortFromServicePort`; `pkg/api/v1/endpoints/util.go`:
//! `RepackSubsets`, `LessEndpointAddress`).
//!
//! The object has the Service's name and labels. Each selected Pod with an
//! IP gives one address per Service port it serves, ready or not ready; the
//! subsets are then repacked so that addresses offering the same ports share
//! one subset. Upstream orders subsets and ports by an MD5 of their Go
//! dump; podflow orders them by their content (the same set, one order).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    EndpointAddress, EndpointPort, EndpointSubset, Endpoints, ObjectReference, Pod, Service,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::endpointslice_plan::{find_port, should_pod_be_in_endpoints};
use super::pods::{is_ready, node_of};

/// `v1.IsHeadlessService`: the label a Service without a cluster IP's
/// Endpoints carry.
pub const HEADLESS_LABEL: &str = "service.kubernetes.io/headless";

/// `ShouldPodBeInEndpoints(pod, service.Spec.PublishNotReadyAddresses)`: the
/// Endpoints controller counts a terminating Pod only when the Service
/// publishes not-ready addresses.
fn included(service: &Service, pod: &Pod) -> bool {
    should_pod_be_in_endpoints(pod)
        && (publish_not_ready(service) || pod.metadata.deletion_timestamp.is_none())
}

fn publish_not_ready(service: &Service) -> bool {
    service
        .spec
        .as_ref()
        .and_then(|s| s.publish_not_ready_addresses)
        .unwrap_or(false)
}

/// `podToEndpointAddressForService`, with the hostname `ShouldSetHostname`
/// allows (the Pod's subdomain names the Service).
pub fn address_of(service: &Service, pod: &Pod) -> Option<EndpointAddress> {
    let status = pod.status.as_ref()?;
    let ip = match status.pod_ips.as_deref() {
        Some([first, ..]) => first.ip.clone(),
        _ => status.pod_ip.clone().filter(|ip| !ip.is_empty())?,
    };
    let spec = pod.spec.as_ref();
    let hostname = spec
        .and_then(|s| s.hostname.clone())
        .filter(|h| !h.is_empty())
        .filter(|_| {
            spec.and_then(|s| s.subdomain.as_deref()) == service.metadata.name.as_deref()
                && pod.metadata.namespace == service.metadata.namespace
        });
    Some(EndpointAddress {
        ip,
        hostname,
        node_name: Some(node_of(pod).to_owned()),
        target_ref: Some(ObjectReference {
            kind: Some("Pod".into()),
            namespace: pod.metadata.namespace.clone(),
            name: pod.metadata.name.clone(),
            uid: pod.metadata.uid.clone(),
            ..ObjectReference::default()
        }),
    })
}

/// The subsets `syncService` computes for `service` over `pods` (already
/// selected), repacked, and how many addresses are (ready, not ready).
pub fn desired_subsets<'a>(
    service: &Service,
    pods: impl IntoIterator<Item = &'a Pod>,
) -> (Vec<EndpointSubset>, usize, usize) {
    let spec = service.spec.clone().unwrap_or_default();
    let ports = spec.ports.unwrap_or_default();
    let tolerate = publish_not_ready(service);
    let mut subsets = Vec::new();
    let (mut ready, mut not_ready) = (0, 0);
    for pod in pods {
        if !included(service, pod) {
            continue;
        }
        let Some(address) = address_of(service, pod) else {
            continue;
        };
        let is_ready = tolerate || is_ready(pod);
        let mut add = |port: Option<EndpointPort>| {
            let (addresses, not_ready_addresses) = if is_ready {
                (Some(vec![address.clone()]), None)
            } else {
                (None, Some(vec![address.clone()]))
            };
            subsets.push(EndpointSubset {
                addresses,
                not_ready_addresses,
                ports: Some(port.into_iter().collect()),
            });
            if is_ready { ready += 1 } else { not_ready += 1 }
        };
        if ports.is_empty() {
            // A headless Service may have no ports (its addresses are then
            // dropped by the repacking, which groups by port).
            if spec.cluster_ip.as_deref() == Some("None") {
                add(None);
            }
            continue;
        }
        for port in &ports {
            if let Some(number) = find_port(pod, port) {
                add(Some(EndpointPort {
                    name: port.name.clone().filter(|n| !n.is_empty()),
                    port: number,
                    protocol: port.protocol.clone(),
                    app_protocol: port.app_protocol.clone(),
                }));
            }
        }
    }
    (repack(&subsets), ready, not_ready)
}

/// `addressKey`: addresses are told apart by IP and their Pod's UID.
type AddressKey = (String, String);

fn address_key(address: &EndpointAddress) -> AddressKey {
    let uid = address
        .target_ref
        .as_ref()
        .and_then(|r| r.uid.clone())
        .unwrap_or_default();
    (address.ip.clone(), uid)
}

/// A port as a sortable key: (name, port, protocol, appProtocol).
type PortKey = (String, i32, String, String);

fn port_key(port: &EndpointPort) -> PortKey {
    (
        port.name.clone().unwrap_or_default(),
        port.port,
        port.protocol.clone().unwrap_or_default(),
        port.app_protocol.clone().unwrap_or_default(),
    )
}

/// `RepackSubsets`: each port mapped to the addresses offering it (not ready
/// wins over ready for an address offering it twice), then ports sharing the
/// same addresses grouped into one subset. Addresses sorted by IP and UID
/// (`LessEndpointAddress`).
pub fn repack(subsets: &[EndpointSubset]) -> Vec<EndpointSubset> {
    let mut all: BTreeMap<AddressKey, EndpointAddress> = BTreeMap::new();
    let mut by_port: BTreeMap<PortKey, (EndpointPort, BTreeMap<AddressKey, bool>)> =
        BTreeMap::new();
    for subset in subsets {
        for port in subset.ports.iter().flatten() {
            let lists = [
                (subset.addresses.iter().flatten(), true),
                (subset.not_ready_addresses.iter().flatten(), false),
            ];
            for (addresses, ready) in lists {
                for address in addresses {
                    let key = address_key(address);
                    all.entry(key.clone()).or_insert_with(|| address.clone());
                    let entry = by_port
                        .entry(port_key(port))
                        .or_insert_with(|| (port.clone(), BTreeMap::new()));
                    let seen = entry.1.entry(key).or_insert(ready);
                    *seen = *seen && ready;
                }
            }
        }
    }
    let mut groups: BTreeMap<Vec<(AddressKey, bool)>, Vec<EndpointPort>> = BTreeMap::new();
    for (port, addresses) in by_port.into_values() {
        groups
            .entry(addresses.into_iter().collect())
            .or_default()
            .push(port);
    }
    groups
        .into_iter()
        .map(|(addresses, ports)| {
            let pick = |want: bool| {
                let list: Vec<EndpointAddress> = addresses
                    .iter()
                    .filter(|(_, ready)| *ready == want)
                    .map(|(key, _)| all[key].clone())
                    .collect();
                (!list.is_empty()).then_some(list)
            };
            EndpointSubset {
                addresses: pick(true),
                not_ready_addresses: pick(false),
                ports: Some(ports),
            }
        })
        .collect()
}

/// The labels the Endpoints carry: the Service's, with the headless mark
/// when it has no cluster IP (`IsServiceIPSet`).
pub fn labels_for(service: &Service) -> BTreeMap<String, String> {
    let mut labels = service.metadata.labels.clone().unwrap_or_default();
    let cluster_ip = service.spec.as_ref().and_then(|s| s.cluster_ip.as_deref());
    if matches!(cluster_ip, None | Some("" | "None")) {
        labels.insert(HEADLESS_LABEL.into(), String::new());
    } else {
        labels.remove(HEADLESS_LABEL);
    }
    labels
}

/// What `syncService` writes: `None` when `current` already holds `subsets`
/// and the Service's labels; otherwise the object to create (when there is
/// no `current`) or to update.
pub fn wanted(
    service: &Service,
    current: Option<&Endpoints>,
    subsets: Vec<EndpointSubset>,
) -> Option<Endpoints> {
    let labels = labels_for(service);
    let subsets = (!subsets.is_empty()).then_some(subsets);
    if let Some(current) = current {
        let same_labels = current.metadata.labels.clone().unwrap_or_default() == labels;
        if current.subsets == subsets && same_labels {
            return None;
        }
        let mut updated = current.clone();
        updated.subsets = subsets;
        updated.metadata.labels = (!labels.is_empty()).then_some(labels);
        return Some(updated);
    }
    Some(Endpoints {
        metadata: ObjectMeta {
            name: service.metadata.name.clone(),
            namespace: service.metadata.namespace.clone(),
            labels: (!labels.is_empty()).then_some(labels),
            ..ObjectMeta::default()
        },
        subsets,
    })
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{
        Container, ContainerPort, PodCondition, PodSpec, PodStatus, ServicePort, ServiceSpec,
    };
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    use super::*;

    fn service(ports: &[(&str, i32, Option<&str>)]) -> Service {
        Service {
            metadata: ObjectMeta {
                name: Some("web".into()),
                namespace: Some("default".into()),
                labels: Some([("app".to_owned(), "web".to_owned())].into()),
                ..ObjectMeta::default()
            },
            spec: Some(ServiceSpec {
                cluster_ip: Some("10.96.0.10".into()),
                selector: Some([("app".to_owned(), "web".to_owned())].into()),
                ports: Some(
                    ports
                        .iter()
                        .map(|(name, port, target)| ServicePort {
                            name: Some((*name).into()),
                            port: *port,
                            protocol: Some("TCP".into()),
                            target_port: target.map(|t| IntOrString::String(t.into())),
                            ..ServicePort::default()
                        })
                        .collect(),
                ),
                ..ServiceSpec::default()
            }),
            status: None,
        }
    }

    fn pod(name: &str, ip: &str, ready: bool, ports: &[(&str, i32)]) -> Pod {
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
                    name: "c".into(),
                    ports: Some(
                        ports
                            .iter()
                            .map(|(n, p)| ContainerPort {
                                name: Some((*n).into()),
                                container_port: *p,
                                protocol: Some("TCP".into()),
                                ..ContainerPort::default()
                            })
                            .collect(),
                    ),
                    ..Container::default()
                }],
                ..PodSpec::default()
            }),
            status: Some(PodStatus {
                phase: Some("Running".into()),
                pod_ip: Some(ip.into()),
                conditions: Some(vec![PodCondition {
                    type_: "Ready".into(),
                    status: if ready { "True" } else { "False" }.into(),
                    last_transition_time: Some(
                        k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                            k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
                        ),
                    ),
                    ..PodCondition::default()
                }]),
                ..PodStatus::default()
            }),
        }
    }

    fn ips(list: Option<&Vec<EndpointAddress>>) -> Vec<&str> {
        list.into_iter().flatten().map(|a| a.ip.as_str()).collect()
    }

    /// Mirrors `TestSyncEndpointsItemsPreexisting` and
    /// `TestSyncEndpointsItemsWithLabels` (`endpoints_controller_test.go`):
    /// ready and not-ready Pods in one subset of the Service's port.
    #[test]
    fn ready_and_not_ready_pods_share_one_subset() {
        let svc = service(&[("http", 80, None)]);
        let pods = [
            pod("b", "10.244.2.3", true, &[]),
            pod("a", "10.244.1.2", true, &[]),
            pod("c", "10.244.3.4", false, &[]),
        ];
        let (subsets, ready, not_ready) = desired_subsets(&svc, &pods);
        assert_eq!((ready, not_ready), (2, 1));
        assert_eq!(subsets.len(), 1);
        assert_eq!(
            ips(subsets[0].addresses.as_ref()),
            ["10.244.1.2", "10.244.2.3"]
        );
        assert_eq!(ips(subsets[0].not_ready_addresses.as_ref()), ["10.244.3.4"]);
        let port = &subsets[0].ports.as_ref().unwrap()[0];
        assert_eq!(
            (port.name.as_deref(), port.port, port.protocol.as_deref()),
            (Some("http"), 80, Some("TCP"))
        );
        let address = &subsets[0].addresses.as_ref().unwrap()[0];
        assert_eq!(address.node_name.as_deref(), Some("node-1"));
        assert_eq!(
            address.target_ref.as_ref().unwrap().name.as_deref(),
            Some("a")
        );
    }

    /// Mirrors `TestRepackSubsets` (`pkg/api/v1/endpoints/util_test.go`):
    /// Pods serving different ports of a Service land in different subsets.
    #[test]
    fn pods_serving_different_ports_get_different_subsets() {
        let svc = service(&[
            ("http", 80, Some("web")),
            ("metrics", 9090, Some("metrics")),
        ]);
        let pods = [
            pod("a", "10.244.1.2", true, &[("web", 8080), ("metrics", 9100)]),
            pod("b", "10.244.2.3", true, &[("web", 8080)]),
        ];
        let (subsets, ready, _) = desired_subsets(&svc, &pods);
        assert_eq!(ready, 3, "one per (Pod, port)");
        assert_eq!(subsets.len(), 2, "{subsets:?}");
        let both = subsets
            .iter()
            .find(|s| ips(s.addresses.as_ref()).len() == 2)
            .unwrap();
        assert_eq!(both.ports.as_ref().unwrap()[0].port, 8080);
        let one = subsets
            .iter()
            .find(|s| ips(s.addresses.as_ref()).len() == 1)
            .unwrap();
        assert_eq!(ips(one.addresses.as_ref()), ["10.244.1.2"]);
        assert_eq!(one.ports.as_ref().unwrap()[0].port, 9100);
    }

    /// `mapAddressByPort`: an address both ready and not ready for a port
    /// is not ready.
    #[test]
    fn not_ready_wins() {
        let address = EndpointAddress {
            ip: "10.0.0.1".into(),
            ..EndpointAddress::default()
        };
        let port = EndpointPort {
            port: 80,
            ..EndpointPort::default()
        };
        let subsets = [
            EndpointSubset {
                addresses: Some(vec![address.clone()]),
                not_ready_addresses: None,
                ports: Some(vec![port.clone()]),
            },
            EndpointSubset {
                addresses: None,
                not_ready_addresses: Some(vec![address]),
                ports: Some(vec![port]),
            },
        ];
        let packed = repack(&subsets);
        assert_eq!(packed.len(), 1);
        assert_eq!(packed[0].addresses, None);
        assert_eq!(ips(packed[0].not_ready_addresses.as_ref()), ["10.0.0.1"]);
    }

    /// `syncService`: a Service without Pods still gets its (empty)
    /// Endpoints; an unchanged one is not written again; a terminating Pod
    /// is left out unless the Service publishes not-ready addresses.
    #[test]
    fn create_skip_and_terminating() {
        let svc = service(&[("http", 80, None)]);
        let created = wanted(&svc, None, Vec::new()).expect("created even when empty");
        assert_eq!(created.metadata.name.as_deref(), Some("web"));
        assert_eq!(created.metadata.labels.as_ref().unwrap()["app"], "web");
        assert_eq!(created.subsets, None);
        assert!(wanted(&svc, Some(&created), Vec::new()).is_none());

        let mut leaving = pod("a", "10.244.1.2", true, &[]);
        leaving.metadata.deletion_timestamp =
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
            ));
        let (subsets, ..) = desired_subsets(&svc, [&leaving]);
        assert!(subsets.is_empty());
        let mut publish = svc.clone();
        publish.spec.as_mut().unwrap().publish_not_ready_addresses = Some(true);
        let (subsets, ready, _) = desired_subsets(&publish, [&leaving]);
        assert_eq!((subsets.len(), ready), (1, 1));
    }

    #[test]
    fn a_headless_service_marks_its_endpoints() {
        let mut svc = service(&[("http", 80, None)]);
        svc.spec.as_mut().unwrap().cluster_ip = Some("None".into());
        assert_eq!(labels_for(&svc)[HEADLESS_LABEL], "");
        let svc = service(&[("http", 80, None)]);
        assert!(!labels_for(&svc).contains_key(HEADLESS_LABEL));
    }
}
