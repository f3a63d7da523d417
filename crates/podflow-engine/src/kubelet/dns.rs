//! What a container sees of the cluster: cluster DNS (`CoreDNS` answering
//! `NAME`, `NAME.NS`, `NAME.NS.svc`, `NAME.NS.svc.cluster.local` with a Service's
//! `ClusterIP`) and HTTP to those Services, from the Services the kubelet's
//! informer holds (`pkg/kubelet/network/dns/dns.go` writes the search path
//! `NS.svc.cluster.local svc.cluster.local cluster.local`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Service;

use super::process::World;

/// The Services the kubelet knows, by `NS/NAME`.
pub type Services = BTreeMap<String, Service>;

/// The cluster as seen from a Pod in `namespace`.
pub struct Dns<'a> {
    pub services: &'a Services,
    pub namespace: &'a str,
}

impl Dns<'_> {
    /// The Service a DNS name means from this namespace.
    fn service(&self, name: &str) -> Option<&Service> {
        let name = name.trim_end_matches('.');
        let name = name
            .strip_suffix(".cluster.local")
            .unwrap_or(name)
            .trim_end_matches(".svc");
        let (svc, ns) = name.split_once('.').unwrap_or((name, self.namespace));
        self.services.get(&format!("{ns}/{svc}"))
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
    fn lookup(&self, name: &str) -> Option<String> {
        // A headless Service answers with its Pods' addresses; one stands for them.
        self.service(name)
            .map(|s| cluster_ip(s).unwrap_or_else(|| "10.244.0.2".into()))
    }

    fn http_get(&self, url: &str) -> Option<u16> {
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let host = rest.split(['/', ':']).next().unwrap_or(rest);
        let known = self.service(host).is_some()
            || self
                .services
                .values()
                .any(|s| cluster_ip(s).as_deref() == Some(host));
        known.then_some(200)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ServiceSpec;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    #[test]
    fn names_resolve_as_the_search_path_does() {
        let mut services = Services::new();
        services.insert(
            "default/myservice".into(),
            Service {
                metadata: ObjectMeta::default(),
                spec: Some(ServiceSpec {
                    cluster_ip: Some("10.96.12.7".into()),
                    ..ServiceSpec::default()
                }),
                status: None,
            },
        );
        let dns = Dns {
            services: &services,
            namespace: "default",
        };
        for name in [
            "myservice",
            "myservice.default",
            "myservice.default.svc",
            "myservice.default.svc.cluster.local",
        ] {
            assert_eq!(dns.lookup(name).as_deref(), Some("10.96.12.7"), "{name}");
        }
        assert_eq!(dns.lookup("mydb"), None);
        assert_eq!(dns.lookup("myservice.other"), None);
        assert_eq!(dns.http_get("http://myservice:80/"), Some(200));
        assert_eq!(dns.http_get("http://10.96.12.7/"), Some(200));
        assert_eq!(dns.http_get("http://nope/"), None);
    }
}
