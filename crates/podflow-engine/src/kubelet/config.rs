//! The kubelet's `ConfigMap` and `Secret` managers: a cache fed by the
//! kubelet's watch, as upstream's watch-based managers keep one
//! (`pkg/kubelet/configmap/configmap_manager.go`,
//! `pkg/kubelet/secret/secret_manager.go`,
//! `pkg/kubelet/util/manager/watch_based_manager.go`). The data comes through
//! the API server's watch, never from the store; a name the cache lacks is
//! `configmap "NAME" not found` / `secret "NAME" not found`, as the manager's
//! `GetObject` words its `NotFound`.
//!
//! Besides the cache, what the kubelet remembers about config while a pod
//! waits: volumes not mounted yet and the pod worker's retry after a
//! `CreateContainerConfigError` (see `mount.rs`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{ConfigMap, Secret};

use crate::clock::SimTime;
use podflow_model::Object;

/// The `kube-root-ca.crt` `ConfigMap`'s `ca.crt`, which the root-ca-cert-publisher
/// puts in every namespace (and the service-account volume projects).
pub const ROOT_CA_CRT: &str = "-----BEGIN CERTIFICATE-----\nMIIDBTCCAe2gAwIBAgIIcG9kZmxvdzANBgkqhkiG9w0BAQsFADAVMRMwEQYDVQQD\nEwprdWJlcm5ldGVzMB4XDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowFTET\n-----END CERTIFICATE-----\n";

/// The name of the `ConfigMap` every namespace holds for the cluster's CA.
pub const ROOT_CA_CONFIG_MAP: &str = "kube-root-ca.crt";

/// The `ConfigMaps` and `Secrets` the kubelet's informers hold, by `NS/NAME`.
#[derive(Debug, Clone, Default)]
pub struct ConfigCache {
    config_maps: BTreeMap<String, ConfigMap>,
    secrets: BTreeMap<String, Secret>,
}

/// A `ConfigMap`'s or `Secret`'s keys and values, as text.
pub type Data = BTreeMap<String, String>;

fn key_of(namespace: Option<&str>, name: Option<&str>) -> String {
    format!(
        "{}/{}",
        namespace.unwrap_or_default(),
        name.unwrap_or_default()
    )
}

impl ConfigCache {
    /// Takes a watch event's object (or a listed one); returns whether it was
    /// a `ConfigMap` or a `Secret`.
    pub fn observe(&mut self, object: &Object, deleted: bool) -> bool {
        match object {
            Object::ConfigMap(cm) => {
                let key = key_of(
                    cm.metadata.namespace.as_deref(),
                    cm.metadata.name.as_deref(),
                );
                if deleted {
                    self.config_maps.remove(&key);
                } else {
                    self.config_maps.insert(key, cm.clone());
                }
                true
            }
            Object::Secret(secret) => {
                let key = key_of(
                    secret.metadata.namespace.as_deref(),
                    secret.metadata.name.as_deref(),
                );
                if deleted {
                    self.secrets.remove(&key);
                } else {
                    self.secrets.insert(key, secret.clone());
                }
                true
            }
            _ => false,
        }
    }

    /// `GetConfigMap`: the `ConfigMap`'s `data` (what the environment reads).
    /// `kube-root-ca.crt` is there even before the informer lists one: the
    /// root-ca-cert-publisher makes it in namespaces created during the
    /// story, and the default cluster's namespaces stand for having it
    /// (docs/simplified.md).
    pub fn config_map_data(&self, namespace: &str, name: &str) -> Result<Data, String> {
        match self.config_maps.get(&format!("{namespace}/{name}")) {
            Some(cm) => Ok(cm.data.clone().unwrap_or_default()),
            None if name == ROOT_CA_CONFIG_MAP => {
                Ok([("ca.crt".to_owned(), ROOT_CA_CRT.to_owned())].into())
            }
            None => Err(not_found("configmap", name)),
        }
    }

    /// The keys a `ConfigMap` volume writes: `data` and `binaryData`.
    pub fn config_map_files(&self, namespace: &str, name: &str) -> Result<Data, String> {
        let mut data = self.config_map_data(namespace, name)?;
        if let Some(cm) = self.config_maps.get(&format!("{namespace}/{name}")) {
            for (k, v) in cm.binary_data.iter().flatten() {
                data.insert(k.clone(), String::from_utf8_lossy(&v.0).into_owned());
            }
        }
        Ok(data)
    }

    /// `GetSecret`: the `Secret`'s `data`, decoded (`stringData` merged over
    /// it, as the API server's conversion does on write).
    pub fn secret_data(&self, namespace: &str, name: &str) -> Result<Data, String> {
        let secret = self
            .secrets
            .get(&format!("{namespace}/{name}"))
            .ok_or_else(|| not_found("secret", name))?;
        let mut data: Data = secret
            .data
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), String::from_utf8_lossy(&v.0).into_owned()))
            .collect();
        for (k, v) in secret.string_data.iter().flatten() {
            data.insert(k.clone(), v.clone());
        }
        Ok(data)
    }
}

/// A `NotFound` as the watch-based manager words it (`apierrors.NewNotFound`
/// with the resource `configmap` or `secret`).
pub fn not_found(resource: &str, name: &str) -> String {
    format!("{resource} \"{name}\" not found")
}

/// One volume waiting to be set up: the reconciler's exponential back-off
/// (`pkg/util/goroutinemap/exponentialbackoff`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingVolume {
    pub name: String,
    /// `durationBeforeRetry` of the last failure.
    pub backoff_ms: u64,
    /// No retries before this.
    pub retry_at: SimTime,
}

/// The volume manager's wait for one pod's volumes.
#[derive(Debug, Clone, Default)]
pub struct PodMounts {
    pub pending: Vec<PendingVolume>,
    /// The running `WaitForAttachAndMount`: when it began, when it times out.
    pub wait: Option<(SimTime, SimTime)>,
    /// The pod worker's next sync after a timed-out one.
    pub next_sync: Option<SimTime>,
}

/// What the kubelet keeps about `ConfigMaps` and `Secrets`.
#[derive(Debug, Clone, Default)]
pub struct ConfigState {
    pub cache: ConfigCache,
    /// Pods whose volumes are not all mounted yet.
    pub mounts: BTreeMap<String, PodMounts>,
    /// The pod worker's retry after a failed sync (`CreateContainerConfigError`).
    pub retry_at: BTreeMap<String, SimTime>,
    /// Containers (pod key, index) whose config failed in the current sync:
    /// they are tried again on the retry.
    pub blocked: BTreeSet<(String, usize)>,
}

#[cfg(test)]
mod tests {
    use k8s_openapi::ByteString;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    fn meta(name: &str) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        }
    }

    #[test]
    fn the_cache_follows_the_watch() {
        // pkg/kubelet/util/manager/watch_based_manager_test.go, TestWatchBasedManager:
        // objects come and go with the watch; a missing one is NotFound.
        let mut cache = ConfigCache::default();
        let cm = Object::ConfigMap(ConfigMap {
            metadata: meta("special-config"),
            data: Some([("SPECIAL_LEVEL".to_owned(), "very".to_owned())].into()),
            ..ConfigMap::default()
        });
        assert_eq!(
            cache.config_map_data("default", "special-config"),
            Err("configmap \"special-config\" not found".to_owned())
        );
        assert!(cache.observe(&cm, false));
        assert_eq!(
            cache.config_map_data("default", "special-config").unwrap()["SPECIAL_LEVEL"],
            "very"
        );
        assert_eq!(
            cache.config_map_data("other", "special-config"),
            Err("configmap \"special-config\" not found".to_owned())
        );
        assert!(cache.observe(&cm, true));
        assert!(cache.config_map_data("default", "special-config").is_err());
        assert!(!cache.observe(
            &Object::Pod(k8s_openapi::api::core::v1::Pod::default()),
            false
        ));
    }

    #[test]
    fn secrets_decode_and_merge_string_data() {
        let mut cache = ConfigCache::default();
        assert_eq!(
            cache.secret_data("default", "test-secret"),
            Err("secret \"test-secret\" not found".to_owned())
        );
        cache.observe(
            &Object::Secret(Secret {
                metadata: meta("test-secret"),
                data: Some(
                    [
                        ("username".to_owned(), ByteString(b"my-app".to_vec())),
                        ("password".to_owned(), ByteString(b"old".to_vec())),
                    ]
                    .into(),
                ),
                string_data: Some([("password".to_owned(), "39528$vdg7Jb".to_owned())].into()),
                ..Secret::default()
            }),
            false,
        );
        let data = cache.secret_data("default", "test-secret").unwrap();
        assert_eq!(data["username"], "my-app");
        assert_eq!(data["password"], "39528$vdg7Jb");
    }

    #[test]
    fn every_namespace_has_its_root_ca() {
        let cache = ConfigCache::default();
        let data = cache
            .config_map_files("team-a", ROOT_CA_CONFIG_MAP)
            .unwrap();
        assert_eq!(data["ca.crt"], ROOT_CA_CRT);
    }
}
