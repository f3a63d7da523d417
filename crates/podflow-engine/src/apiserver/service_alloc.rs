//! What the Service registry gives a new Service before it is validated
//! (`pkg/registry/core/service/storage/alloc.go`, `initIPFamilyFields`,
//! `allocClusterIPs`; `pkg/registry/core/service/portallocator`): its IP
//! families, a cluster IP from the service CIDR and node ports.
//!
//! Upstream's allocator picks a random free address of `--service-cluster-ip-range`
//! (kind's `10.96.0.0/16`, kubeadm's `10.96.0.0/12`); podflow takes the
//! lowest free one from `10.96.0.10` up (`10.96.0.1` is the `kubernetes`
//! Service's; the default cluster's kube-dns holds `10.96.0.10`, so the
//! first Service made gets `10.96.0.11`), so runs read alike.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;

use k8s_openapi::api::core::v1::Service;

use crate::rng::Rng;
use crate::store::Store;
use podflow_model::Object;

/// The first address handed out.
const FIRST: Ipv4Addr = Ipv4Addr::new(10, 96, 0, 10);
/// The last address of `10.96.0.0/12` before its broadcast address.
const LAST: Ipv4Addr = Ipv4Addr::new(10, 111, 255, 254);
/// `--service-node-port-range`.
const NODE_PORTS: (u64, u64) = (30000, 32767);

/// The cluster IPs and node ports the stored Services hold.
fn in_use(store: &Store) -> (BTreeSet<String>, BTreeSet<i32>) {
    let mut ips = BTreeSet::new();
    let mut ports = BTreeSet::new();
    for (_, entry) in store.range("/registry/services/") {
        if let Object::Service(svc) = &*entry.object
            && let Some(spec) = &svc.spec
        {
            ips.extend(spec.cluster_ip.clone());
            ips.extend(spec.cluster_ips.clone().into_iter().flatten());
            ports.extend(spec.ports.iter().flatten().filter_map(|p| p.node_port));
        }
    }
    (ips, ports)
}

/// The lowest free cluster IP, `None` when the range is full.
fn next_ip(used: &BTreeSet<String>) -> Option<String> {
    (u32::from(FIRST)..=u32::from(LAST))
        .map(|n| Ipv4Addr::from(n).to_string())
        .find(|ip| !used.contains(ip))
}

/// Gives a new Service its IP family fields, its cluster IP and its node ports.
pub fn allocate(store: &Store, rng: &mut Rng, svc: &mut Service) {
    let (used_ips, mut used_ports) = in_use(store);
    let has_selector = svc
        .spec
        .as_ref()
        .and_then(|s| s.selector.as_ref())
        .is_some_and(|s| !s.is_empty());
    let Some(spec) = svc.spec.as_mut() else {
        return;
    };
    let service_type = spec.type_.clone().unwrap_or_else(|| "ClusterIP".into());
    if service_type == "ExternalName" {
        return;
    }
    let headless = spec.cluster_ip.as_deref() == Some("None");
    spec.ip_families.get_or_insert_with(|| vec!["IPv4".into()]);
    spec.ip_family_policy.get_or_insert_with(|| {
        if headless && !has_selector {
            "RequireDualStack".into()
        } else {
            "SingleStack".into()
        }
    });
    if headless {
        spec.cluster_ips.get_or_insert_with(|| vec!["None".into()]);
    } else {
        let requested = spec
            .cluster_ip
            .clone()
            .filter(|ip| !ip.is_empty())
            .or_else(|| {
                spec.cluster_ips
                    .as_ref()
                    .and_then(|ips| ips.first().cloned())
            });
        if let Some(ip) = requested.or_else(|| next_ip(&used_ips)) {
            spec.cluster_ip = Some(ip.clone());
            spec.cluster_ips = Some(vec![ip]);
        }
    }
    if matches!(service_type.as_str(), "NodePort" | "LoadBalancer") {
        for port in spec.ports.iter_mut().flatten() {
            if port.node_port.is_some() {
                continue;
            }
            let free = (0..)
                .map(|_| {
                    i32::try_from(rng.between(NODE_PORTS.0, NODE_PORTS.1 + 1)).unwrap_or(30000)
                })
                .take(64)
                .find(|p| !used_ports.contains(p));
            let chosen = free.or_else(|| (30000..=32767).find(|p| !used_ports.contains(p)));
            if let Some(p) = chosen {
                used_ports.insert(p);
                port.node_port = Some(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{ServicePort, ServiceSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;
    use crate::store::key_for;
    use podflow_model::kinds::kind_of;

    fn svc(name: &str, spec: ServiceSpec) -> Service {
        Service {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                ..ObjectMeta::default()
            },
            spec: Some(spec),
            status: None,
        }
    }

    #[test]
    fn cluster_ips_are_handed_out_in_order_and_never_twice() {
        let mut store = Store::new();
        let mut rng = Rng::new(1);
        let kubernetes = svc(
            "kubernetes",
            ServiceSpec {
                cluster_ip: Some("10.96.0.1".into()),
                ..ServiceSpec::default()
            },
        );
        let _ = store.create(
            &key_for(kind_of("Service"), Some("default"), "kubernetes"),
            Object::Service(kubernetes),
        );
        let mut web = svc("web", ServiceSpec::default());
        allocate(&store, &mut rng, &mut web);
        let spec = web.spec.clone().unwrap();
        assert_eq!(spec.cluster_ip.as_deref(), Some("10.96.0.10"));
        assert_eq!(spec.cluster_ips, Some(vec!["10.96.0.10".to_owned()]));
        assert_eq!(spec.ip_families, Some(vec!["IPv4".to_owned()]));
        assert_eq!(spec.ip_family_policy.as_deref(), Some("SingleStack"));
        let _ = store.create(
            &key_for(kind_of("Service"), Some("default"), "web"),
            Object::Service(web),
        );
        let mut api = svc("api", ServiceSpec::default());
        allocate(&store, &mut rng, &mut api);
        assert_eq!(api.spec.unwrap().cluster_ip.as_deref(), Some("10.96.0.11"));
    }

    #[test]
    fn headless_and_node_port_services() {
        let store = Store::new();
        let mut rng = Rng::new(1);
        let mut headless = svc(
            "db",
            ServiceSpec {
                cluster_ip: Some("None".into()),
                ..ServiceSpec::default()
            },
        );
        allocate(&store, &mut rng, &mut headless);
        let spec = headless.spec.unwrap();
        assert_eq!(spec.cluster_ips, Some(vec!["None".to_owned()]));
        assert_eq!(spec.ip_family_policy.as_deref(), Some("RequireDualStack"));
        let mut np = svc(
            "np",
            ServiceSpec {
                type_: Some("NodePort".into()),
                ports: Some(vec![ServicePort {
                    port: 80,
                    ..ServicePort::default()
                }]),
                ..ServiceSpec::default()
            },
        );
        allocate(&store, &mut rng, &mut np);
        let port = np.spec.unwrap().ports.unwrap()[0].node_port.unwrap();
        assert!((30000..=32767).contains(&port), "{port}");
    }
}
