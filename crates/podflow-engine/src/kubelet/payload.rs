//! What `configMap`, `secret` and `projected` volumes hold: one file per key,
//! or the `items` with their `path` (`MakePayload` in
//! `pkg/volume/configmap/configmap.go` and `pkg/volume/secret/secret.go`;
//! `collectData` in `pkg/volume/projected/projected.go`), the error that fails
//! their `SetUp`, and the files a container sees at its `volumeMounts`.

use k8s_openapi::api::core::v1::{Container, KeyToPath, Pod, Volume};

use super::config::{ConfigCache, Data};
use super::env::SERVICE_ACCOUNT_DIR;

/// `MakePayload`: the keys as files (all of them, or `items` by `path`).
fn make_payload(
    items: Option<&Vec<KeyToPath>>,
    data: &Data,
    optional: bool,
    missing_key: impl Fn(&str) -> String,
) -> Result<Data, String> {
    let Some(items) = items.filter(|i| !i.is_empty()) else {
        return Ok(data.clone());
    };
    let mut out = Data::new();
    for item in items {
        match data.get(&item.key) {
            Some(value) => {
                out.insert(item.path.clone(), value.clone());
            }
            None if optional => {}
            None => return Err(missing_key(&item.key)),
        }
    }
    Ok(out)
}

fn config_map_missing_key(key: &str) -> String {
    format!("configmap references non-existent config key: {key}")
}

fn secret_missing_key(key: &str) -> String {
    format!("references non-existent secret key: {key}")
}

/// A source's data: a missing object that is `optional` is empty.
fn fetched(result: Result<Data, String>, optional: bool) -> Result<Option<Data>, String> {
    match result {
        Ok(data) => Ok(Some(data)),
        Err(_) if optional => Ok(None),
        Err(e) => Err(e),
    }
}

/// The files of `volume` relative to its mount point, for a `configMap`,
/// `secret` or `projected` volume (`None` for the other kinds); `Err` is the
/// error its `SetUp` fails with (`configmap "special-config" not found`).
/// A projected volume's `serviceAccountToken` and `downwardAPI` sources are
/// the service-account files (`env::service_account_files`), not here.
pub fn volume_payload(
    volume: &Volume,
    namespace: &str,
    cache: &ConfigCache,
) -> Result<Option<Data>, String> {
    if let Some(source) = &volume.config_map {
        let optional = source.optional == Some(true);
        let data = fetched(cache.config_map_files(namespace, &source.name), optional)?;
        return make_payload(
            source.items.as_ref(),
            &data.unwrap_or_default(),
            optional,
            config_map_missing_key,
        )
        .map(Some);
    }
    if let Some(source) = &volume.secret {
        let optional = source.optional == Some(true);
        let name = source.secret_name.as_deref().unwrap_or_default();
        let data = fetched(cache.secret_data(namespace, name), optional)?;
        return make_payload(
            source.items.as_ref(),
            &data.unwrap_or_default(),
            optional,
            secret_missing_key,
        )
        .map(Some);
    }
    let Some(projected) = &volume.projected else {
        return Ok(None);
    };
    let mut files = Data::new();
    let mut errors = Vec::new();
    for source in projected.sources.iter().flatten() {
        let part = if let Some(cm) = &source.config_map {
            let optional = cm.optional == Some(true);
            fetched(cache.config_map_files(namespace, &cm.name), optional).and_then(|data| {
                make_payload(
                    cm.items.as_ref(),
                    &data.unwrap_or_default(),
                    optional,
                    config_map_missing_key,
                )
            })
        } else if let Some(secret) = &source.secret {
            let optional = secret.optional == Some(true);
            fetched(cache.secret_data(namespace, &secret.name), optional).and_then(|data| {
                make_payload(
                    secret.items.as_ref(),
                    &data.unwrap_or_default(),
                    optional,
                    secret_missing_key,
                )
            })
        } else {
            continue;
        };
        match part {
            Ok(part) => files.extend(part),
            Err(e) => errors.push(e),
        }
    }
    // `utilerrors.NewAggregate`: one error as it is, several as `[a, b]`.
    match errors.len() {
        0 => Ok(Some(files)),
        1 => Err(errors.remove(0)),
        _ => Err(format!("[{}]", errors.join(", "))),
    }
}

/// The files of the pod's `configMap`, `secret` and `projected` volumes that
/// `container` mounts, at their `mountPath` (a `subPath` mounts one file).
/// The service-account directory is left to `env::service_account_files`.
pub fn container_files(
    container: &Container,
    pod: &Pod,
    cache: &ConfigCache,
) -> Vec<(String, String)> {
    let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
    let volumes = pod
        .spec
        .as_ref()
        .and_then(|s| s.volumes.as_ref())
        .map_or(&[][..], Vec::as_slice);
    let mut out = Vec::new();
    for mount in container.volume_mounts.iter().flatten() {
        let dir = mount.mount_path.trim_end_matches('/');
        if dir == SERVICE_ACCOUNT_DIR {
            continue;
        }
        let Some(volume) = volumes.iter().find(|v| v.name == mount.name) else {
            continue;
        };
        let Ok(Some(files)) = volume_payload(volume, namespace, cache) else {
            continue;
        };
        match mount.sub_path.as_deref().filter(|p| !p.is_empty()) {
            Some(sub) => {
                if let Some(value) = files.get(sub) {
                    out.push((dir.to_owned(), value.clone()));
                }
            }
            None => out.extend(
                files
                    .into_iter()
                    .map(|(path, value)| (format!("{dir}/{path}"), value)),
            ),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use k8s_openapi::ByteString;
    use k8s_openapi::api::core::v1::{
        ConfigMap, ConfigMapProjection, ConfigMapVolumeSource, PodSpec, ProjectedVolumeSource,
        Secret, SecretProjection, SecretVolumeSource, VolumeMount, VolumeProjection,
    };
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;
    use podflow_model::Object;

    fn cache() -> ConfigCache {
        let mut cache = ConfigCache::default();
        cache.observe(
            &Object::ConfigMap(ConfigMap {
                metadata: ObjectMeta {
                    name: Some("special-config".into()),
                    namespace: Some("default".into()),
                    ..ObjectMeta::default()
                },
                data: Some(
                    [
                        ("SPECIAL_LEVEL".to_owned(), "very".to_owned()),
                        ("SPECIAL_TYPE".to_owned(), "charm".to_owned()),
                    ]
                    .into(),
                ),
                ..ConfigMap::default()
            }),
            false,
        );
        cache.observe(
            &Object::Secret(Secret {
                metadata: ObjectMeta {
                    name: Some("test-secret".into()),
                    namespace: Some("default".into()),
                    ..ObjectMeta::default()
                },
                data: Some(
                    [
                        ("username".to_owned(), ByteString(b"my-app".to_vec())),
                        ("password".to_owned(), ByteString(b"39528$vdg7Jb".to_vec())),
                    ]
                    .into(),
                ),
                ..Secret::default()
            }),
            false,
        );
        cache
    }

    fn cm_volume(name: &str, items: &[(&str, &str)], optional: bool) -> Volume {
        Volume {
            name: "config-volume".into(),
            config_map: Some(ConfigMapVolumeSource {
                name: name.into(),
                items: (!items.is_empty()).then(|| {
                    items
                        .iter()
                        .map(|(k, p)| KeyToPath {
                            key: (*k).into(),
                            path: (*p).into(),
                            ..KeyToPath::default()
                        })
                        .collect()
                }),
                optional: optional.then_some(true),
                ..ConfigMapVolumeSource::default()
            }),
            ..Volume::default()
        }
    }

    fn secret_volume(name: &str) -> Volume {
        Volume {
            name: "secret-volume".into(),
            secret: Some(SecretVolumeSource {
                secret_name: Some(name.into()),
                ..SecretVolumeSource::default()
            }),
            ..Volume::default()
        }
    }

    #[test]
    fn payloads_of_config_map_and_secret_volumes() {
        // pkg/volume/configmap/configmap_test.go, TestMakePayload; and
        // pkg/volume/secret/secret_test.go, TestMakePayload (rows by name).
        let c = cache();
        let files = |v: &Volume| volume_payload(v, "default", &c);
        let all = files(&cm_volume("special-config", &[], false))
            .unwrap()
            .unwrap();
        assert_eq!(
            all.keys().collect::<Vec<_>>(),
            ["SPECIAL_LEVEL", "SPECIAL_TYPE"]
        );
        let keyed = files(&cm_volume(
            "special-config",
            &[("SPECIAL_LEVEL", "keys")],
            false,
        ))
        .unwrap()
        .unwrap();
        assert_eq!(keyed, [("keys".to_owned(), "very".to_owned())].into());
        let rows: Vec<(Volume, Result<Option<Data>, String>)> = vec![
            (
                cm_volume("nope", &[], false),
                Err("configmap \"nope\" not found".into()),
            ),
            (cm_volume("nope", &[], true), Ok(Some(Data::new()))),
            (
                cm_volume("special-config", &[("MISSING", "m")], false),
                Err("configmap references non-existent config key: MISSING".into()),
            ),
            (
                cm_volume("special-config", &[("MISSING", "m")], true),
                Ok(Some(Data::new())),
            ),
            (
                secret_volume("nope"),
                Err("secret \"nope\" not found".into()),
            ),
            (
                Volume {
                    name: "scratch".into(),
                    ..Volume::default()
                },
                Ok(None),
            ),
        ];
        for (i, (volume, want)) in rows.into_iter().enumerate() {
            assert_eq!(files(&volume), want, "row {i}");
        }
        let secret = files(&secret_volume("test-secret")).unwrap().unwrap();
        assert_eq!(secret["username"], "my-app");
        assert_eq!(secret["password"], "39528$vdg7Jb");
    }

    #[test]
    fn projected_volumes_gather_their_sources() {
        // pkg/volume/projected/projected_test.go, TestCollectDataWithSource.
        let c = cache();
        let projected = |cm: &str, secret: &str| Volume {
            name: "all-in-one".into(),
            projected: Some(ProjectedVolumeSource {
                sources: Some(vec![
                    VolumeProjection {
                        config_map: Some(ConfigMapProjection {
                            name: cm.into(),
                            items: Some(vec![KeyToPath {
                                key: "SPECIAL_LEVEL".into(),
                                path: "my-group/level".into(),
                                ..KeyToPath::default()
                            }]),
                            optional: None,
                        }),
                        ..VolumeProjection::default()
                    },
                    VolumeProjection {
                        secret: Some(SecretProjection {
                            name: secret.into(),
                            items: None,
                            optional: None,
                        }),
                        ..VolumeProjection::default()
                    },
                ]),
                ..ProjectedVolumeSource::default()
            }),
            ..Volume::default()
        };
        let files = volume_payload(&projected("special-config", "test-secret"), "default", &c)
            .unwrap()
            .unwrap();
        assert_eq!(
            files.keys().collect::<Vec<_>>(),
            ["my-group/level", "password", "username"]
        );
        assert_eq!(
            volume_payload(&projected("special-config", "gone"), "default", &c),
            Err("secret \"gone\" not found".into())
        );
        assert_eq!(
            volume_payload(&projected("absent", "gone"), "default", &c),
            Err("[configmap \"absent\" not found, secret \"gone\" not found]".into())
        );
    }

    #[test]
    fn a_container_sees_its_mounts() {
        let c = cache();
        let pod = Pod {
            metadata: ObjectMeta {
                namespace: Some("default".into()),
                ..ObjectMeta::default()
            },
            spec: Some(PodSpec {
                volumes: Some(vec![
                    cm_volume("special-config", &[], false),
                    secret_volume("test-secret"),
                ]),
                ..PodSpec::default()
            }),
            status: None,
        };
        let container = Container {
            volume_mounts: Some(vec![
                VolumeMount {
                    name: "config-volume".into(),
                    mount_path: "/etc/config/".into(),
                    ..VolumeMount::default()
                },
                VolumeMount {
                    name: "secret-volume".into(),
                    mount_path: "/etc/app/user".into(),
                    sub_path: Some("username".into()),
                    ..VolumeMount::default()
                },
            ]),
            ..Container::default()
        };
        assert_eq!(
            container_files(&container, &pod, &c),
            vec![
                ("/etc/config/SPECIAL_LEVEL".to_owned(), "very".to_owned()),
                ("/etc/config/SPECIAL_TYPE".to_owned(), "charm".to_owned()),
                ("/etc/app/user".to_owned(), "my-app".to_owned()),
            ]
        );
    }
}
