//! What a container sees of the cluster: cluster DNS (`CoreDNS` answering
//! `NAME`, `NAME.NS`, `NAME.NS.svc`, `NAME.NS.svc.cluster.local` with a Service's
//! `ClusterIP`) from the Services the kubelet's informer holds
//! (`pkg/kubelet/network/dns/dns.go` writes the search path
//! `NS.svc.cluster.local svc.cluster.local cluster.local`), and HTTP through
//! the node's kube-proxy rules ([`crate::kube_proxy::rules`]): a `ClusterIP`
//! is DNAT-ed to one of its endpoints (round-robin on the node, for the
//! kernel's `--probability` draws) or rejected when it has none; a Pod IP is
//! reached directly. A name outside `cluster.local` is forwarded, as
//! `CoreDNS`'s `forward . /etc/resolv.conf` does, to the node's resolver and
//! the internet ([`podflow_scenario::public_name`]); a cluster cut off from
//! it (`Simulation` `internet: false`) gets `SERVFAIL`.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};

use k8s_openapi::api::core::v1::Service;

use super::process::{Answer, World};
use crate::kube_proxy::rules::{Route, Table};
use crate::trace::{Actor, NodeName, Outcome, Stage, StageName};
use podflow_model::Shared;
use podflow_scenario::{PublicName, looks_public, public_address, public_name};

/// The Services the kubelet knows, by `NS/NAME`: the store's objects,
/// shared (each node's kubelet holds the same few).
pub type Services = BTreeMap<String, Shared<Service>>;

/// How many connections the node's rules have DNAT-ed: the round-robin's
/// place. Copied with the kubelet (a checkpoint keeps its own count).
#[derive(Debug, Default)]
pub struct Picks(AtomicU64);

impl Clone for Picks {
    fn clone(&self) -> Picks {
        Picks(AtomicU64::new(self.0.load(Ordering::Relaxed)))
    }
}

impl Picks {
    fn next(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }
}

/// The node's network as its containers reach it: kube-proxy's rules and
/// the round-robin's place.
#[derive(Debug, Clone, Default)]
pub struct NodeNet {
    pub rules: std::sync::Arc<Table>,
    pub picks: Picks,
    /// The cluster has no way out (`Simulation` `internet: false`).
    pub offline: bool,
}

/// The cluster as seen from a Pod in `namespace` on the node whose network is `net`.
pub struct Dns<'a> {
    pub services: &'a Services,
    pub namespace: &'a str,
    pub net: &'a NodeNet,
    /// Pod IPs known to exist beyond the rules' endpoints (`kubectl exec`'s
    /// caller knows every Pod's).
    pub pod_ips: Option<&'a BTreeSet<String>>,
    /// What each connection through a Service address did, for the trace.
    connections: RefCell<Vec<(Outcome, String)>>,
}

impl<'a> Dns<'a> {
    /// The view from a Pod in `namespace`.
    pub fn new(services: &'a Services, namespace: &'a str, net: &'a NodeNet) -> Dns<'a> {
        Dns {
            services,
            namespace,
            net,
            pod_ips: None,
            connections: RefCell::new(Vec::new()),
        }
    }

    /// kube-proxy's `connect` stages for the connections made through
    /// Service addresses, on `node`.
    pub fn connection_stages(&self, node: &NodeName) -> Vec<Stage> {
        self.connections
            .take()
            .into_iter()
            .map(|(outcome, detail)| {
                Stage::new(
                    Actor::KubeProxy(node.clone()),
                    StageName::Connect,
                    outcome,
                    detail,
                )
                .node(&**node)
            })
            .collect()
    }

    fn note(&self, outcome: Outcome, detail: String) {
        self.connections.borrow_mut().push((outcome, detail));
    }
    /// The Service a DNS name means from this namespace.
    fn service(&self, name: &str) -> Option<&Service> {
        let name = name.trim_end_matches('.');
        let name = name
            .strip_suffix(".cluster.local")
            .unwrap_or(name)
            .trim_end_matches(".svc");
        let (svc, ns) = name.split_once('.').unwrap_or((name, self.namespace));
        self.services.get(&format!("{ns}/{svc}")).map(|s| &**s)
    }
}

/// A Service's `ClusterIP` (`None` for a headless Service). A Service the API
/// server gave no address yet gets a stable one of `10.96.0.0/16` from its name.
pub fn cluster_ip(service: &Service) -> Option<String> {
    match service.spec.as_ref().and_then(|s| s.cluster_ip.as_deref()) {
        Some("None") => None,
        Some(ip) if !ip.is_empty() => Some(ip.to_owned()),
        _ => {
            let name = format!(
                "{}/{}",
                service.metadata.namespace.as_deref().unwrap_or_default(),
                service.metadata.name.as_deref().unwrap_or_default()
            );
            let h = name.bytes().fold(2_166_136_261_u32, |h, b| {
                (h ^ u32::from(b)).wrapping_mul(16_777_619)
            });
            Some(format!("10.96.{}.{}", (h >> 8) % 256, (h % 254) + 1))
        }
    }
}

/// The `kubernetes` Service of `default` every cluster has (the API server's
/// own), for the kubelet to use until its informer lists one.
pub fn kubernetes_service() -> Service {
    use k8s_openapi::api::core::v1::{ServicePort, ServiceSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    Service {
        metadata: ObjectMeta {
            name: Some("kubernetes".into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        },
        spec: Some(ServiceSpec {
            cluster_ip: Some("10.96.0.1".into()),
            ports: Some(vec![ServicePort {
                name: Some("https".into()),
                port: 443,
                protocol: Some("TCP".into()),
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        status: None,
    }
}

impl World for Dns<'_> {
    fn lookup(&self, name: &str) -> Answer {
        // A headless Service answers with its Pods' addresses; one stands for them.
        if let Some(service) = self.service(name) {
            return Answer::Cluster(cluster_ip(service).unwrap_or_else(|| "10.244.0.2".into()));
        }
        let bare = name.trim_end_matches('.');
        if bare.ends_with(".cluster.local")
            || bare.rsplit('.').next() == Some("svc")
            || !looks_public(bare)
        {
            return Answer::NoSuchName;
        }
        if self.net.offline {
            // CoreDNS's forward plugin reaches no upstream.
            return Answer::ServerFailure;
        }
        match public_name(bare) {
            PublicName::Exists => Answer::Public(public_address(bare)),
            PublicName::NoSuchDomain | PublicName::NotPublic => Answer::NoSuchName,
        }
    }

    fn http_get(&self, url: &str) -> Option<u16> {
        let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
        let authority = rest.split('/').next().unwrap_or(rest);
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) => (host, port.parse().ok()),
            None => (authority, None),
        };
        let port = port.unwrap_or(if scheme == "https" { 443 } else { 80 });
        let ip = if let Ok(ip) = host.parse::<std::net::IpAddr>() {
            if is_public(ip) {
                return (!self.net.offline).then_some(200);
            }
            host.to_owned()
        } else if let Some(service) = self.service(host) {
            match cluster_ip(service) {
                Some(ip) => ip,
                // A headless Service's name resolves to its Pods: reached directly.
                None => return Some(200),
            }
        } else {
            // A public server answers (podflow knows no paths of it).
            return matches!(self.lookup(host), Answer::Public(_)).then_some(200);
        };
        match self.net.rules.route(&ip, port, self.net.picks.next()) {
            Route::Reject(p) => {
                self.note(
                    Outcome::Reject,
                    format!(
                        "{ip}:{port} ({} has no endpoints) → REJECT: Connection refused",
                        p.name
                    ),
                );
                None
            }
            Route::Dnat(p, i) => {
                let (endpoint, chain) = &p.endpoints[i];
                self.note(
                    Outcome::Dnat,
                    format!(
                        "{ip}:{port} ({}) → {endpoint} via {} → {chain} (endpoint {} of {}, round-robin)",
                        p.name,
                        p.chain,
                        i + 1,
                        p.endpoints.len()
                    ),
                );
                Some(200)
            }
            Route::NoService => {
                let pod = self.net.rules.has_endpoint_ip(&ip)
                    || self.pod_ips.is_some_and(|ips| ips.contains(&ip));
                pod.then_some(200)
            }
        }
    }
}

/// An address beyond the cluster's networks and the node's (not private,
/// loopback or link-local).
fn is_public(ip: std::net::IpAddr) -> bool {
    match ip {
        std::net::IpAddr::V4(v4) => {
            !(v4.is_private() || v4.is_loopback() || v4.is_link_local() || v4.is_unspecified())
        }
        std::net::IpAddr::V6(v6) => !(v6.is_loopback() || v6.is_unspecified()),
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ServiceSpec;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;
    use crate::kube_proxy::rules::{Endpoint, ServicePort, plan};

    #[test]
    fn names_resolve_as_the_search_path_does() {
        let mut services = Services::new();
        services.insert(
            "default/myservice".into(),
            Shared::from(Service {
                metadata: ObjectMeta::default(),
                spec: Some(ServiceSpec {
                    cluster_ip: Some("10.96.12.7".into()),
                    ..ServiceSpec::default()
                }),
                status: None,
            }),
        );
        let port = |name: &str, ip: &str, endpoints: Vec<Endpoint>| ServicePort {
            name: name.into(),
            cluster_ip: ip.into(),
            port: 80,
            protocol: "TCP".into(),
            endpoints,
        };
        let ready = Endpoint {
            ip: "10.244.1.5".into(),
            port: 80,
            ready: true,
            serving: true,
            terminating: false,
        };
        let net = NodeNet {
            rules: std::sync::Arc::new(plan(&[
                port("default/myservice:http", "10.96.12.7", vec![ready]),
                port("default/empty:http", "10.96.12.8", vec![]),
            ])),
            picks: Picks::default(),
            offline: false,
        };
        let dns = Dns::new(&services, "default", &net);
        for name in [
            "myservice",
            "myservice.default",
            "myservice.default.svc",
            "myservice.default.svc.cluster.local",
        ] {
            assert_eq!(
                dns.lookup(name),
                Answer::Cluster("10.96.12.7".into()),
                "{name}"
            );
        }
        assert_eq!(dns.lookup("mydb"), Answer::NoSuchName);
        assert_eq!(dns.lookup("myservice.other"), Answer::NoSuchName);
        assert_eq!(dns.http_get("http://myservice:80/"), Some(200));
        assert_eq!(dns.http_get("http://10.96.12.7/"), Some(200));
        assert_eq!(dns.http_get("http://10.96.12.7:8080/"), None);
        assert_eq!(dns.http_get("http://10.96.12.8/"), None);
        assert_eq!(dns.http_get("http://10.244.1.5/"), Some(200));
        assert_eq!(dns.http_get("http://10.244.9.9/"), None);
        assert_eq!(dns.http_get("http://nope/"), None);
        let outcomes: Vec<Outcome> = dns
            .connection_stages(&NodeName::from("node-1"))
            .iter()
            .map(|s| s.outcome)
            .collect();
        assert_eq!(
            outcomes,
            [Outcome::Dnat, Outcome::Dnat, Outcome::Reject],
            "a Service port without endpoints is rejected"
        );
    }

    /// `CoreDNS`'s Corefile (kubeadm's `forward . /etc/resolv.conf`): names
    /// outside `cluster.local` go to the node's resolver. The Kubernetes
    /// docs' init-container example fetches `http://info.cern.ch`; without a
    /// way out the forward fails (`SERVFAIL`).
    #[test]
    fn public_names_are_forwarded_to_the_node_resolver() {
        let services = Services::new();
        let mut net = NodeNet::default();
        let dns = Dns::new(&services, "default", &net);
        assert!(matches!(dns.lookup("info.cern.ch"), Answer::Public(_)));
        assert!(matches!(dns.lookup("kubernetes.io."), Answer::Public(_)));
        for name in [
            "nothere.example",
            "registry.invalid",
            "a.test",
            "x.svc.cluster.local",
            "web",
        ] {
            assert_eq!(dns.lookup(name), Answer::NoSuchName, "{name}");
        }
        assert_eq!(dns.http_get("http://info.cern.ch"), Some(200));
        assert_eq!(dns.http_get("https://kubernetes.io/docs/"), Some(200));
        assert_eq!(dns.http_get("http://1.1.1.1/"), Some(200));
        assert_eq!(dns.http_get("http://nothere.example/"), None);
        net.offline = true;
        let dns = Dns::new(&services, "default", &net);
        assert_eq!(dns.lookup("info.cern.ch"), Answer::ServerFailure);
        assert_eq!(
            dns.lookup("web"),
            Answer::NoSuchName,
            "the cluster zone still answers"
        );
        assert_eq!(dns.http_get("http://info.cern.ch"), None);
        assert_eq!(dns.http_get("http://1.1.1.1/"), None);
    }
}
