//! The environment and files the kubelet gives a container
//! (`pkg/kubelet/kubelet_pods.go`: `makeEnvironmentVariables`,
//! `getServiceEnvVarMap`, `podFieldSelectorRuntimeValue`;
//! `pkg/kubelet/envvars/envvars.go`: `FromServices`), and the service-account
//! files of the projected `kube-api-access-…` volume.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod, Service};

use super::dns::{Services, cluster_ip};
use super::process::command::expand;

/// Where the projected service-account volume is mounted.
pub const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// What the pod's environment draws on besides the pod itself.
pub struct EnvInput<'a> {
    pub pod: &'a Pod,
    pub services: &'a Services,
    pub node_name: &'a str,
    pub pod_ip: &'a str,
    pub host_ip: &'a str,
}

/// `SERVICE_NAME` of `service-name` (`makeEnvVariableName`).
fn env_name(name: &str) -> String {
    name.to_ascii_uppercase().replace('-', "_")
}

/// The variables of one Service (`FromServices`, docker-links style).
fn service_vars(service: &Service, out: &mut Vec<(String, String)>) {
    let Some(ip) = cluster_ip(service) else {
        return;
    };
    let ip = ip.as_str();
    let name = env_name(service.metadata.name.as_deref().unwrap_or_default());
    let ports = service
        .spec
        .as_ref()
        .and_then(|s| s.ports.clone())
        .unwrap_or_default();
    out.push((format!("{name}_SERVICE_HOST"), ip.to_owned()));
    let Some(first) = ports.first() else {
        return;
    };
    out.push((format!("{name}_SERVICE_PORT"), first.port.to_string()));
    for port in &ports {
        if let Some(port_name) = port.name.as_deref().filter(|n| !n.is_empty()) {
            out.push((
                format!("{name}_SERVICE_PORT_{}", env_name(port_name)),
                port.port.to_string(),
            ));
        }
    }
    let proto = |p: &k8s_openapi::api::core::v1::ServicePort| {
        p.protocol.clone().unwrap_or_else(|| "TCP".into())
    };
    out.push((
        format!("{name}_PORT"),
        format!(
            "{}://{ip}:{}",
            proto(first).to_ascii_lowercase(),
            first.port
        ),
    ));
    for port in &ports {
        let protocol = proto(port);
        let prefix = format!(
            "{name}_PORT_{}_{}",
            port.port,
            protocol.to_ascii_uppercase()
        );
        out.push((
            prefix.clone(),
            format!("{}://{ip}:{}", protocol.to_ascii_lowercase(), port.port),
        ));
        out.push((format!("{prefix}_PROTO"), protocol.to_ascii_lowercase()));
        out.push((format!("{prefix}_PORT"), port.port.to_string()));
        out.push((format!("{prefix}_ADDR"), ip.to_owned()));
    }
}

/// The service variables of a pod (`getServiceEnvVarMap`): the `kubernetes`
/// Service of `default` always, the pod's namespace's Services when
/// `enableServiceLinks` (default true). Sorted by Service name.
pub fn service_env(pod: &Pod, services: &Services) -> Vec<(String, String)> {
    let ns = pod.metadata.namespace.as_deref().unwrap_or("default");
    let links = pod
        .spec
        .as_ref()
        .and_then(|s| s.enable_service_links)
        .unwrap_or(true);
    let mut chosen: BTreeMap<String, &Service> = BTreeMap::new();
    for (key, service) in services {
        let (svc_ns, name) = key.split_once('/').unwrap_or(("", key));
        if svc_ns == "default" && name == "kubernetes" {
            chosen.entry(name.to_owned()).or_insert(service);
        } else if svc_ns == ns && links {
            chosen.insert(name.to_owned(), service);
        }
    }
    let mut out = Vec::new();
    for service in chosen.values() {
        service_vars(service, &mut out);
    }
    out
}

/// `podFieldSelectorRuntimeValue` and the downward API's metadata paths.
fn field_value(path: &str, input: &EnvInput<'_>) -> String {
    let meta = &input.pod.metadata;
    let spec = input.pod.spec.as_ref();
    let label = |prefix: &str, map: Option<&BTreeMap<String, String>>| {
        path.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix("']"))
            .and_then(|k| map.and_then(|m| m.get(k)).cloned())
            .unwrap_or_default()
    };
    match path {
        "metadata.name" => meta.name.clone().unwrap_or_default(),
        "metadata.namespace" => meta.namespace.clone().unwrap_or_default(),
        "metadata.uid" => meta.uid.clone().unwrap_or_default(),
        "spec.nodeName" => input.node_name.to_owned(),
        "spec.serviceAccountName" => spec
            .and_then(|s| s.service_account_name.clone())
            .unwrap_or_default(),
        "status.podIP" | "status.podIPs" => input.pod_ip.to_owned(),
        "status.hostIP" | "status.hostIPs" => input.host_ip.to_owned(),
        p if p.starts_with("metadata.labels['") => label("metadata.labels['", meta.labels.as_ref()),
        p if p.starts_with("metadata.annotations['") => {
            label("metadata.annotations['", meta.annotations.as_ref())
        }
        _ => String::new(),
    }
}

/// The container's environment (`makeEnvironmentVariables`): its `env` in
/// order, each value `$(VAR)`-expanded from the variables before it and the
/// service variables, then the service variables it does not define, then
/// `HOSTNAME` as the runtime sets it.
pub fn container_env(container: &Container, input: &EnvInput<'_>) -> Vec<(String, String)> {
    let service = service_env(input.pod, input.services);
    let mut env: Vec<(String, String)> = Vec::new();
    for var in container.env.iter().flatten() {
        let value = if let Some(from) = &var.value_from {
            from.field_ref
                .as_ref()
                .map(|f| field_value(&f.field_path, input))
                .unwrap_or_default()
        } else {
            let mut scope = service.clone();
            scope.extend(env.iter().cloned());
            expand(var.value.as_deref().unwrap_or_default(), &scope)
        };
        env.retain(|(k, _)| *k != var.name);
        env.push((var.name.clone(), value));
    }
    for (k, v) in service {
        if !env.iter().any(|(name, _)| *name == k) {
            env.push((k, v));
        }
    }
    if !env.iter().any(|(k, _)| k == "HOSTNAME") {
        let host = input
            .pod
            .spec
            .as_ref()
            .and_then(|s| s.hostname.clone())
            .or_else(|| input.pod.metadata.name.clone())
            .unwrap_or_default();
        env.push(("HOSTNAME".into(), host));
    }
    env
}

/// The files of the service-account volume, when the container mounts it.
pub fn service_account_files(container: &Container, pod: &Pod) -> Vec<(String, String)> {
    let mounted = container
        .volume_mounts
        .iter()
        .flatten()
        .any(|m| m.mount_path.trim_end_matches('/') == SERVICE_ACCOUNT_DIR);
    if !mounted {
        return Vec::new();
    }
    let ns = pod.metadata.namespace.clone().unwrap_or_default();
    let uid = pod.metadata.uid.clone().unwrap_or_default();
    vec![
        (
            format!("{SERVICE_ACCOUNT_DIR}/token"),
            format!("eyJhbGciOiJSUzI1NiIsImtpZCI6InBvZGZsb3cifQ.{uid}.c2lnbmF0dXJl"),
        ),
        (
            format!("{SERVICE_ACCOUNT_DIR}/ca.crt"),
            "-----BEGIN CERTIFICATE-----\nMIIDBTCCAe2gAwIBAgIIcG9kZmxvdzANBgkqhkiG9w0BAQsFADAVMRMwEQYDVQQD\nEwprdWJlcm5ldGVzMB4XDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowFTET\n-----END CERTIFICATE-----\n".into(),
        ),
        (format!("{SERVICE_ACCOUNT_DIR}/namespace"), ns),
    ]
}

/// `resources.limits.memory` in bytes.
pub fn memory_limit(container: &Container) -> Option<u64> {
    let q = container
        .resources
        .as_ref()?
        .limits
        .as_ref()?
        .get("memory")?;
    let parsed = crate::model::quantity::parse_k8s(q).ok()?;
    u64::try_from(parsed.value()).ok()
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{
        EnvVar, EnvVarSource, ObjectFieldSelector, PodSpec, ServicePort, ServiceSpec,
    };
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    fn service(ns: &str, name: &str, ip: &str, ports: &[(Option<&str>, i32)]) -> (String, Service) {
        (
            format!("{ns}/{name}"),
            Service {
                metadata: ObjectMeta {
                    name: Some(name.into()),
                    namespace: Some(ns.into()),
                    ..ObjectMeta::default()
                },
                spec: Some(ServiceSpec {
                    cluster_ip: Some(ip.into()),
                    ports: Some(
                        ports
                            .iter()
                            .map(|(n, p)| ServicePort {
                                name: n.map(str::to_owned),
                                port: *p,
                                protocol: Some("TCP".into()),
                                ..ServicePort::default()
                            })
                            .collect(),
                    ),
                    ..ServiceSpec::default()
                }),
                status: None,
            },
        )
    }

    fn pod(ns: &str) -> Pod {
        Pod {
            metadata: ObjectMeta {
                name: Some("web".into()),
                namespace: Some(ns.into()),
                ..ObjectMeta::default()
            },
            spec: Some(PodSpec {
                service_account_name: Some("default".into()),
                ..PodSpec::default()
            }),
            status: None,
        }
    }

    #[test]
    fn service_variables_follow_from_services() {
        // pkg/kubelet/envvars/envvars_test.go, TestFromServices.
        let services: Services = [
            service(
                "default",
                "kubernetes",
                "10.96.0.1",
                &[(Some("https"), 443)],
            ),
            service("default", "my-db", "10.96.3.4", &[(None, 5432)]),
            service("other", "elsewhere", "10.96.9.9", &[(None, 80)]),
        ]
        .into_iter()
        .collect();
        let env = service_env(&pod("default"), &services);
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("KUBERNETES_SERVICE_HOST"), Some("10.96.0.1"));
        assert_eq!(get("KUBERNETES_SERVICE_PORT"), Some("443"));
        assert_eq!(get("KUBERNETES_SERVICE_PORT_HTTPS"), Some("443"));
        assert_eq!(get("KUBERNETES_PORT"), Some("tcp://10.96.0.1:443"));
        assert_eq!(get("KUBERNETES_PORT_443_TCP_ADDR"), Some("10.96.0.1"));
        assert_eq!(get("MY_DB_SERVICE_HOST"), Some("10.96.3.4"));
        assert_eq!(get("MY_DB_PORT_5432_TCP_PROTO"), Some("tcp"));
        assert_eq!(get("ELSEWHERE_SERVICE_HOST"), None);
        let other = service_env(&pod("other"), &services);
        assert!(other.iter().any(|(k, _)| k == "KUBERNETES_SERVICE_HOST"));
        assert!(other.iter().any(|(k, _)| k == "ELSEWHERE_SERVICE_HOST"));
        assert!(!other.iter().any(|(k, _)| k == "MY_DB_SERVICE_HOST"));
    }

    #[test]
    fn env_expands_and_reads_the_downward_api() {
        let field = |path: &str| EnvVarSource {
            field_ref: Some(ObjectFieldSelector {
                field_path: path.into(),
                api_version: None,
            }),
            ..EnvVarSource::default()
        };
        let var = |name: &str, value: &str| EnvVar {
            name: name.into(),
            value: Some(value.into()),
            value_from: None,
        };
        let container = Container {
            name: "c".into(),
            env: Some(vec![
                EnvVar {
                    name: "MY_POD_NAME".into(),
                    value: None,
                    value_from: Some(field("metadata.name")),
                },
                EnvVar {
                    name: "MY_POD_IP".into(),
                    value: None,
                    value_from: Some(field("status.podIP")),
                },
                EnvVar {
                    name: "MY_NODE".into(),
                    value: None,
                    value_from: Some(field("spec.nodeName")),
                },
                var("GREETING", "Warm greetings to"),
                var("MESSAGE", "$(GREETING) $(MY_POD_NAME) $(NOPE)"),
            ]),
            ..Container::default()
        };
        let services = Services::new();
        let p = pod("default");
        let env = container_env(
            &container,
            &EnvInput {
                pod: &p,
                services: &services,
                node_name: "node-1",
                pod_ip: "10.244.1.2",
                host_ip: "192.168.49.3",
            },
        );
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("MY_POD_NAME"), Some("web"));
        assert_eq!(get("MY_POD_IP"), Some("10.244.1.2"));
        assert_eq!(get("MY_NODE"), Some("node-1"));
        assert_eq!(get("MESSAGE"), Some("Warm greetings to web $(NOPE)"));
        assert_eq!(get("HOSTNAME"), Some("web"));
    }
}
