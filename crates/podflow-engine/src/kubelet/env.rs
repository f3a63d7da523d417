//! The environment and files the kubelet gives a container
//! (`pkg/kubelet/kubelet_pods.go`: `makeEnvironmentVariables`,
//! `getServiceEnvVarMap`, `podFieldSelectorRuntimeValue`;
//! `pkg/kubelet/envvars/envvars.go`: `FromServices`), with `envFrom` and the
//! `configMapKeyRef`/`secretKeyRef` sources read from the kubelet's
//! `ConfigMap`/`Secret` cache, and the service-account files of the projected
//! `kube-api-access-…` volume.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod, Service};

use super::config::{ConfigCache, ROOT_CA_CRT};
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
    /// The `ConfigMaps` and `Secrets` the kubelet's informers hold.
    pub config: &'a ConfigCache,
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

/// The variables of `container.envFrom` (`makeEnvironmentVariables`, first
/// loop): each source's keys in order, with its `prefix`; a later source
/// overrides an earlier one. A missing source that is not `optional` is the
/// error. Since `RelaxedEnvironmentVariableValidation` (GA in 1.34) the kubelet
/// no longer skips keys that are not C identifiers (the old
/// `InvalidEnvironmentVariableNames` event is gone).
fn env_from(
    container: &Container,
    namespace: &str,
    config: &ConfigCache,
) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for source in container.env_from.iter().flatten() {
        let (data, optional) = if let Some(cm) = &source.config_map_ref {
            (
                config.config_map_data(namespace, &cm.name),
                cm.optional == Some(true),
            )
        } else if let Some(secret) = &source.secret_ref {
            (
                config.secret_data(namespace, &secret.name),
                secret.optional == Some(true),
            )
        } else {
            continue;
        };
        let data = match data {
            Ok(data) => data,
            Err(_) if optional => continue,
            Err(e) => return Err(e),
        };
        let prefix = source.prefix.as_deref().unwrap_or_default();
        for (k, v) in data {
            let name = format!("{prefix}{k}");
            out.retain(|(n, _)| *n != name);
            out.push((name, v));
        }
    }
    Ok(out)
}

/// A `configMapKeyRef` or `secretKeyRef`: `Ok(None)` when it is `optional` and
/// missing (the variable is left out).
fn key_ref(
    source: &k8s_openapi::api::core::v1::EnvVarSource,
    namespace: &str,
    config: &ConfigCache,
) -> Result<Option<String>, String> {
    let (data, name, key, optional, kind) = if let Some(r) = &source.config_map_key_ref {
        (
            config.config_map_data(namespace, &r.name),
            &r.name,
            &r.key,
            r.optional == Some(true),
            "ConfigMap",
        )
    } else if let Some(r) = &source.secret_key_ref {
        (
            config.secret_data(namespace, &r.name),
            &r.name,
            &r.key,
            r.optional == Some(true),
            "Secret",
        )
    } else {
        return Ok(Some(String::new()));
    };
    let data = match data {
        Ok(data) => data,
        Err(_) if optional => return Ok(None),
        Err(e) => return Err(e),
    };
    match data.get(key) {
        Some(value) => Ok(Some(value.clone())),
        None if optional => Ok(None),
        None => Err(format!(
            "couldn't find key {key} in {kind} {namespace}/{name}"
        )),
    }
}

/// The container's environment (`makeEnvironmentVariables`): its `envFrom`
/// variables, then its `env` in order (overriding them), each value
/// `$(VAR)`-expanded from the variables before it and the service variables,
/// then the service variables it does not define, then `HOSTNAME` as the
/// runtime sets it. `Err` is the message of `CreateContainerConfigError`
/// (`configmap "app-config" not found`).
pub fn container_env(
    container: &Container,
    input: &EnvInput<'_>,
) -> Result<Vec<(String, String)>, String> {
    let namespace = input.pod.metadata.namespace.as_deref().unwrap_or("default");
    let service = service_env(input.pod, input.services);
    let mut env = env_from(container, namespace, input.config)?;
    for var in container.env.iter().flatten() {
        let value = match (&var.value_from, var.value.as_deref()) {
            (Some(from), None | Some("")) if from.field_ref.is_some() => from
                .field_ref
                .as_ref()
                .map(|f| field_value(&f.field_path, input))
                .unwrap_or_default(),
            (Some(from), None | Some("")) => match key_ref(from, namespace, input.config)? {
                Some(value) => value,
                None => continue,
            },
            (_, value) => {
                let mut scope = service.clone();
                scope.extend(env.iter().cloned());
                expand(value.unwrap_or_default(), &scope)
            }
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
    Ok(env)
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
        (format!("{SERVICE_ACCOUNT_DIR}/ca.crt"), ROOT_CA_CRT.into()),
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
    let parsed = podflow_model::quantity::parse_k8s(q).ok()?;
    u64::try_from(parsed.value()).ok()
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{
        EnvVar, EnvVarSource, ObjectFieldSelector, PodSpec, ServicePort, ServiceSpec,
    };
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;
    use podflow_model::Shared;

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
        .map(|(key, service)| (key, Shared::from(service)))
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
        let config = ConfigCache::default();
        let env = container_env(
            &container,
            &EnvInput {
                pod: &p,
                services: &services,
                node_name: "node-1",
                pod_ip: "10.244.1.2",
                host_ip: "192.168.49.3",
                config: &config,
            },
        )
        .unwrap();
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("MY_POD_NAME"), Some("web"));
        assert_eq!(get("MY_POD_IP"), Some("10.244.1.2"));
        assert_eq!(get("MY_NODE"), Some("node-1"));
        assert_eq!(get("MESSAGE"), Some("Warm greetings to web $(NOPE)"));
        assert_eq!(get("HOSTNAME"), Some("web"));
    }

    fn config() -> ConfigCache {
        use k8s_openapi::ByteString;
        use k8s_openapi::api::core::v1::{ConfigMap, Secret};
        let meta = |name: &str| ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        };
        let mut cache = ConfigCache::default();
        cache.observe(
            &podflow_model::Object::ConfigMap(ConfigMap {
                metadata: meta("special-config"),
                data: Some(
                    [
                        ("SPECIAL_LEVEL".to_owned(), "very".to_owned()),
                        ("SPECIAL_TYPE".to_owned(), "charm".to_owned()),
                        ("1bad-key".to_owned(), "kept".to_owned()),
                    ]
                    .into(),
                ),
                ..ConfigMap::default()
            }),
            false,
        );
        cache.observe(
            &podflow_model::Object::Secret(Secret {
                metadata: meta("test-secret"),
                data: Some([("username".to_owned(), ByteString(b"my-app".to_vec()))].into()),
                ..Secret::default()
            }),
            false,
        );
        cache
    }

    fn cm_ref(name: &str, key: &str, optional: bool) -> EnvVarSource {
        EnvVarSource {
            config_map_key_ref: Some(k8s_openapi::api::core::v1::ConfigMapKeySelector {
                name: name.into(),
                key: key.into(),
                optional: optional.then_some(true),
            }),
            ..EnvVarSource::default()
        }
    }

    fn secret_ref(name: &str, key: &str, optional: bool) -> EnvVarSource {
        EnvVarSource {
            secret_key_ref: Some(k8s_openapi::api::core::v1::SecretKeySelector {
                name: name.into(),
                key: key.into(),
                optional: optional.then_some(true),
            }),
            ..EnvVarSource::default()
        }
    }

    fn from_var(name: &str, source: EnvVarSource) -> EnvVar {
        EnvVar {
            name: name.into(),
            value: None,
            value_from: Some(source),
        }
    }

    fn env_of(container: &Container) -> Result<Vec<(String, String)>, String> {
        let services = Services::new();
        let p = pod("default");
        let config = config();
        container_env(
            container,
            &EnvInput {
                pod: &p,
                services: &services,
                node_name: "node-1",
                pod_ip: "10.244.1.2",
                host_ip: "192.168.49.3",
                config: &config,
            },
        )
    }

    #[test]
    fn key_refs_read_config_maps_and_secrets() {
        // pkg/kubelet/kubelet_pods_test.go, TestMakeEnvironmentVariables
        // ("configmap", "configmap_missing", "configmap_missing_optional",
        // "configmap_invalid_keys_valid", "secret", "secret_missing", ... rows).
        type Row<'a> = (Vec<EnvVar>, Result<Vec<(&'a str, &'a str)>, &'a str>);
        let rows: Vec<Row<'_>> = vec![
            (
                vec![
                    from_var(
                        "SPECIAL_LEVEL_KEY",
                        cm_ref("special-config", "SPECIAL_LEVEL", false),
                    ),
                    from_var(
                        "SECRET_USERNAME",
                        secret_ref("test-secret", "username", false),
                    ),
                ],
                Ok(vec![
                    ("SPECIAL_LEVEL_KEY", "very"),
                    ("SECRET_USERNAME", "my-app"),
                ]),
            ),
            (
                vec![from_var("X", cm_ref("app-config", "mode", false))],
                Err("configmap \"app-config\" not found"),
            ),
            (
                vec![from_var("X", cm_ref("app-config", "mode", true))],
                Ok(vec![]),
            ),
            (
                vec![from_var("X", cm_ref("special-config", "mode", false))],
                Err("couldn't find key mode in ConfigMap default/special-config"),
            ),
            (
                vec![from_var("X", cm_ref("special-config", "mode", true))],
                Ok(vec![]),
            ),
            (
                vec![from_var("X", secret_ref("db", "password", false))],
                Err("secret \"db\" not found"),
            ),
            (
                vec![from_var("X", secret_ref("test-secret", "password", false))],
                Err("couldn't find key password in Secret default/test-secret"),
            ),
            (
                vec![from_var("X", secret_ref("test-secret", "password", true))],
                Ok(vec![]),
            ),
        ];
        for (i, (env, want)) in rows.into_iter().enumerate() {
            let container = Container {
                name: "c".into(),
                env: Some(env),
                ..Container::default()
            };
            let got = env_of(&container).map(|vars| {
                vars.into_iter()
                    .filter(|(k, _)| k != "HOSTNAME" && !k.starts_with("KUBERNETES"))
                    .collect::<Vec<_>>()
            });
            let want = want
                .map(|v| {
                    v.into_iter()
                        .map(|(k, v)| (k.to_owned(), v.to_owned()))
                        .collect::<Vec<_>>()
                })
                .map_err(str::to_owned);
            assert_eq!(got, want, "row {i}");
        }
    }

    #[test]
    fn env_from_takes_every_key_with_its_prefix() {
        use k8s_openapi::api::core::v1::{ConfigMapEnvSource, EnvFromSource, SecretEnvSource};
        let container = |sources: Vec<EnvFromSource>, env: Vec<EnvVar>| Container {
            name: "c".into(),
            env_from: Some(sources),
            env: Some(env),
            ..Container::default()
        };
        let cm = |name: &str, prefix: Option<&str>, optional: bool| EnvFromSource {
            config_map_ref: Some(ConfigMapEnvSource {
                name: name.into(),
                optional: optional.then_some(true),
            }),
            prefix: prefix.map(str::to_owned),
            secret_ref: None,
        };
        let env = env_of(&container(
            vec![
                cm("special-config", None, false),
                EnvFromSource {
                    secret_ref: Some(SecretEnvSource {
                        name: "test-secret".into(),
                        optional: None,
                    }),
                    prefix: Some("DB_".into()),
                    config_map_ref: None,
                },
                cm("absent", None, true),
            ],
            vec![EnvVar {
                name: "SPECIAL_TYPE".into(),
                value: Some("$(SPECIAL_LEVEL) strange".into()),
                value_from: None,
            }],
        ))
        .unwrap();
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("SPECIAL_LEVEL"), Some("very"));
        assert_eq!(get("SPECIAL_TYPE"), Some("very strange"));
        assert_eq!(get("DB_username"), Some("my-app"));
        // Kept since RelaxedEnvironmentVariableValidation.
        assert_eq!(get("1bad-key"), Some("kept"));
        assert_eq!(
            env_of(&container(vec![cm("absent", Some("P_"), false)], vec![])),
            Err("configmap \"absent\" not found".to_owned())
        );
    }
}
