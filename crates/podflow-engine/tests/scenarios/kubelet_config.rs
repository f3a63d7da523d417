//! `ConfigMaps` and `Secrets` for the kubelet, end to end, with the examples of
//! the Kubernetes documentation unmodified ("Configure a Pod to Use a
//! `ConfigMap`", "Distribute Credentials Securely Using Secrets"): the
//! environment (`makeEnvironmentVariables` in `pkg/kubelet/kubelet_pods.go`),
//! `configMap`/`secret` volumes (`pkg/volume/configmap`, `pkg/volume/secret`),
//! `CreateContainerConfigError` and `FailedMount` while a `ConfigMap` is
//! missing, and the recovery when it is applied later.
//!
//! What a container printed is not in the trace, so the output checks run the
//! container as the kubelet launches it (its environment and mounted files
//! from the `ConfigMaps` and `Secrets` of the final store) in the runtime's shell.

use podflow_engine::trace::Actor;

use crate::common;
use crate::common::{apply, final_object, final_objects, kubelet_events, run};
use podflow_engine::kubelet::config::ConfigCache;
use podflow_engine::kubelet::dns::{Dns, Services};
use podflow_engine::kubelet::env::{self, EnvInput};
use podflow_engine::kubelet::payload;
use podflow_engine::kubelet::process::{Launch, Process};
use podflow_engine::trace::{Outcome, StageName};
use podflow_engine::trace::{Record, TraceRecord};
use podflow_model::Object;
use podflow_model::kinds::kind_of;

fn kubelet_logs(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Log {
                component: Actor::Kubelet(_),
                line,
                ..
            } => Some(line.clone()),
            _ => None,
        })
        .collect()
}

fn status(records: &[TraceRecord], pod: &str) -> serde_json::Value {
    final_object(records, "Pod", pod)["status"].clone()
}

/// What the pod's first container prints when started as the kubelet starts
/// it, from the final store's `ConfigMaps` and `Secrets`.
fn container_output(records: &[TraceRecord], pod: &str) -> String {
    let mut cache = ConfigCache::default();
    for object in final_objects(records) {
        let kind = object["kind"].as_str().unwrap_or_default().to_owned();
        if kind == "ConfigMap" || kind == "Secret" {
            let object = Object::from_json(kind_of(&kind), object).expect("a stored object");
            cache.observe(&object, false);
        }
    }
    let Object::Pod(pod) =
        Object::from_json(kind_of("Pod"), final_object(records, "Pod", pod)).expect("a pod")
    else {
        panic!("not a pod");
    };
    let container = &pod.spec.as_ref().expect("a spec").containers[0];
    let services = Services::new();
    let input = EnvInput {
        pod: &pod,
        services: &services,
        node_name: "node-1",
        pod_ip: "10.244.1.2",
        host_ip: "192.168.49.3",
        config: &cache,
    };
    let environment = env::container_env(container, &input).expect("the environment builds");
    let mut files = env::service_account_files(container, &pod);
    files.extend(payload::container_files(container, &pod, &cache));
    let net = podflow_engine::kubelet::dns::NodeNet::default();
    let world = Dns::new(&services, "default", &net);
    let empty = Vec::new();
    let launch = Launch {
        image: None,
        command: container.command.as_ref().unwrap_or(&empty),
        args: container.args.as_ref().unwrap_or(&empty),
        env: environment,
        files,
        dirs: Vec::new(),
        memory_limit_bytes: None,
    };
    let process = Process::start(launch, podflow_engine::clock::SimTime::ZERO, &world);
    process.output().join("\n")
}

#[test]
fn config_map_key_refs_expand_in_the_command() {
    // pods/pod-configmap-env-var-valueFrom.yaml: prints "very charm".
    let records = run(
        None,
        &[
            &apply("configmap-multikeys.yaml"),
            &apply("pod-configmap-env-var-valueFrom.yaml"),
            "wait 30s",
        ],
        |_| {},
    );
    let status = status(&records, "dapi-test-pod");
    assert_eq!(status["phase"], "Succeeded", "{status}");
    assert_eq!(container_output(&records, "dapi-test-pod"), "very charm");
}

#[test]
fn env_from_and_several_config_maps() {
    let records = run(
        None,
        &[
            &apply("configmap-multikeys.yaml"),
            &apply("pod-configmap-envFrom.yaml"),
            "wait 30s",
        ],
        |_| {},
    );
    assert_eq!(status(&records, "dapi-test-pod")["phase"], "Succeeded");
    let out = container_output(&records, "dapi-test-pod");
    assert!(out.contains("SPECIAL_LEVEL=very"), "{out}");
    assert!(out.contains("SPECIAL_TYPE=charm"), "{out}");

    // pods/pod-multiple-configmap-env-variable.yaml over configmap/configmaps.yaml.
    let records = run(
        None,
        &[
            &apply("configmaps.yaml"),
            &apply("pod-multiple-configmap-env-variable.yaml"),
            "wait 30s",
        ],
        |_| {},
    );
    assert_eq!(status(&records, "dapi-test-pod")["phase"], "Succeeded");
    let out = container_output(&records, "dapi-test-pod");
    assert!(out.contains("SPECIAL_LEVEL_KEY=very"), "{out}");
    assert!(out.contains("LOG_LEVEL=INFO"), "{out}");
}

#[test]
fn config_map_volumes_hold_one_file_per_key() {
    let records = run(
        None,
        &[
            &apply("configmap-multikeys.yaml"),
            &apply("pod-configmap-volume.yaml"),
            "wait 30s",
        ],
        |_| {},
    );
    assert_eq!(status(&records, "dapi-test-pod")["phase"], "Succeeded");
    assert_eq!(
        container_output(&records, "dapi-test-pod"),
        "SPECIAL_LEVEL\nSPECIAL_TYPE"
    );
    let mounted = records.iter().any(|r| {
        matches!(&r.body, Record::Stage(s) if s.stage == StageName::Volume
            && s.outcome == Outcome::Mounted
            && s.detail == "config-volume (kubernetes.io/configmap)")
    });
    assert!(mounted);

    let records = run(
        None,
        &[
            &apply("configmap-multikeys.yaml"),
            &apply("pod-configmap-volume-specific-key.yaml"),
            "wait 30s",
        ],
        |_| {},
    );
    assert_eq!(status(&records, "dapi-test-pod")["phase"], "Succeeded");
    assert_eq!(container_output(&records, "dapi-test-pod"), "very");
}

#[test]
fn secrets_as_files_and_as_environment() {
    // pods/inject/secret.yaml (base64 data), secret-pod.yaml, secret-envars-pod.yaml.
    let records = run(
        None,
        &[
            &apply("secret.yaml"),
            &apply("secret-pod.yaml"),
            &apply("secret-envars-pod.yaml"),
            "wait 30s",
        ],
        |_| {},
    );
    for pod in ["secret-test-pod", "secret-envars-test-pod"] {
        let status = status(&records, pod);
        assert_eq!(status["phase"], "Running", "{status}");
    }
    let secret = final_object(&records, "Secret", "test-secret");
    assert_eq!(secret["data"]["username"], "bXktYXBw");
    // `ls /etc/secret-volume` and `cat` in the container's shell.
    let mut shell = podflow_engine::kubelet::config::ConfigCache::default();
    shell.observe(
        &Object::from_json(kind_of("Secret"), secret).expect("a secret"),
        false,
    );
    let Object::Pod(pod) = Object::from_json(
        kind_of("Pod"),
        final_object(&records, "Pod", "secret-test-pod"),
    )
    .expect("a pod") else {
        panic!("not a pod");
    };
    let files = payload::container_files(&pod.spec.as_ref().unwrap().containers[0], &pod, &shell);
    assert_eq!(
        files,
        vec![
            (
                "/etc/secret-volume/password".to_owned(),
                "39528$vdg7Jb".to_owned()
            ),
            (
                "/etc/secret-volume/username".to_owned(),
                "my-app".to_owned()
            ),
        ]
    );
    let Object::Pod(envars) = Object::from_json(
        kind_of("Pod"),
        final_object(&records, "Pod", "secret-envars-test-pod"),
    )
    .expect("a pod") else {
        panic!("not a pod");
    };
    let services = Services::new();
    let environment = env::container_env(
        &envars.spec.as_ref().unwrap().containers[0],
        &EnvInput {
            pod: &envars,
            services: &services,
            node_name: "node-1",
            pod_ip: "10.244.1.2",
            host_ip: "192.168.49.3",
            config: &shell,
        },
    )
    .unwrap();
    assert!(environment.contains(&("SECRET_USERNAME".to_owned(), "my-app".to_owned())));
    assert!(environment.contains(&("SECRET_PASSWORD".to_owned(), "39528$vdg7Jb".to_owned())));
}

#[test]
fn a_missing_config_map_is_a_config_error_until_it_is_applied() {
    let records = run(
        None,
        &[
            &apply("pod-configmap-env-var-valueFrom.yaml"),
            "wait 30s",
            "get pod dapi-test-pod",
            &apply("configmap-multikeys.yaml"),
            "wait 60s",
        ],
        |_| {},
    );
    let events = kubelet_events(&records, "dapi-test-pod");
    let failed: Vec<&(u64, String, String, String)> =
        events.iter().filter(|e| e.2 == "Failed").collect();
    assert!(failed.len() >= 2, "{events:#?}");
    for (_, kind, _, message) in &failed {
        assert_eq!(kind, "Warning");
        assert_eq!(message, "Error: configmap \"special-config\" not found");
    }
    // The pod worker retries after its back-off: 10 s with a jitter factor of 0.5.
    let gaps: Vec<u64> = failed.windows(2).map(|w| w[1].0 - w[0].0).collect();
    assert!(
        gaps.iter().all(|g| (10_000..=15_000).contains(g)),
        "{gaps:?}"
    );
    let field = records.iter().find_map(|r| match &r.body {
        Record::Event(e) if e.reason == "Failed" => e.object.field_path.clone(),
        _ => None,
    });
    assert_eq!(field.as_deref(), Some("spec.containers{test-container}"));
    let out = common::kubectl_output(&records).join("\n");
    assert!(out.contains("CreateContainerConfigError"), "{out}");
    assert!(out.contains("Pending") || out.contains("0/1"), "{out}");
    let logs = kubelet_logs(&records).join("\n");
    assert!(
        logs.contains(r#""Error syncing pod, skipping" err="failed to \"StartContainer\" for \"test-container\" with CreateContainerConfigError: \"configmap \\\"special-config\\\" not found\"""#),
        "{logs}"
    );
    // Applied at 30 s: the next retry starts the container, and it runs to completion.
    let started = events
        .iter()
        .find(|e| e.2 == "Started")
        .expect("the container starts");
    assert!(started.0 > 30_000 && started.0 <= 45_100, "{started:?}");
    let status = status(&records, "dapi-test-pod");
    assert_eq!(status["phase"], "Succeeded", "{status}");
    assert_eq!(container_output(&records, "dapi-test-pod"), "very charm");
}

#[test]
fn the_waiting_reason_and_message() {
    let records = run(
        None,
        &[&apply("pod-configmap-env-var-valueFrom.yaml"), "wait 5s"],
        |_| {},
    );
    let status = status(&records, "dapi-test-pod");
    assert_eq!(status["phase"], "Pending", "{status}");
    let waiting = &status["containerStatuses"][0]["state"]["waiting"];
    assert_eq!(waiting["reason"], "CreateContainerConfigError", "{status}");
    assert_eq!(
        waiting["message"], "configmap \"special-config\" not found",
        "{status}"
    );
}

#[test]
fn a_missing_config_map_volume_keeps_the_pod_creating() {
    let records = run(
        None,
        &[
            &apply("pod-configmap-volume.yaml"),
            "wait 150s",
            &apply("configmap-multikeys.yaml"),
            "wait 200s",
        ],
        |_| {},
    );
    let events = kubelet_events(&records, "dapi-test-pod");
    let mounts: Vec<&(u64, String, String, String)> =
        events.iter().filter(|e| e.2 == "FailedMount").collect();
    // The reconciler's back-off: 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5, 63.5 s, then 2m2s apart.
    let times: Vec<u64> = mounts.iter().map(|e| e.0 - mounts[0].0).collect();
    assert_eq!(
        &times[..8],
        &[0, 500, 1500, 3500, 7500, 15_500, 31_500, 63_500],
        "{times:?}"
    );
    for (_, kind, _, message) in &mounts {
        assert_eq!(kind, "Warning");
        assert_eq!(
            message,
            "MountVolume.SetUp failed for volume \"config-volume\" : configmap \"special-config\" not found"
        );
    }
    // Since 1.28 a timed-out wait records no "Unable to attach or mount volumes" event.
    assert!(!events.iter().any(|e| e.3.starts_with("Unable to attach")));
    let logs = kubelet_logs(&records).join("\n");
    assert!(
        logs.contains(r#""Error syncing pod, skipping" err="unmounted volumes=[config-volume], unattached volumes=[], failed to process volumes=[]: context deadline exceeded""#),
        "{logs}"
    );
    assert!(
        logs.contains(
            "nestedpendingoperations.go:348] Operation for \"{volumeName:kubernetes.io/configmap/"
        ),
        "{logs}"
    );
    assert!(logs.contains("(durationBeforeRetry 500ms). Error: MountVolume.SetUp failed for volume \"config-volume\" (UniqueName: \"kubernetes.io/configmap/"), "{logs}");
    // No sandbox before the volumes are mounted.
    let sandbox = records
        .iter()
        .find(|r| matches!(&r.body, Record::Stage(s) if s.stage == StageName::Sandbox))
        .expect("the sandbox starts once mounted");
    assert!(sandbox.t_ms > 150_000, "{}", sandbox.t_ms);
    let status = status(&records, "dapi-test-pod");
    assert_eq!(status["phase"], "Succeeded", "{status}");
}

#[test]
fn pending_while_the_volume_is_missing() {
    let records = run(
        None,
        &[
            &apply("pod-configmap-volume.yaml"),
            "wait 20s",
            "get pod dapi-test-pod",
        ],
        |_| {},
    );
    let status = status(&records, "dapi-test-pod");
    assert_eq!(status["phase"], "Pending", "{status}");
    assert_eq!(
        status["containerStatuses"][0]["state"]["waiting"]["reason"], "ContainerCreating",
        "{status}"
    );
    let out = common::kubectl_output(&records).join("\n");
    assert!(out.contains("ContainerCreating"), "{out}");
}

#[test]
fn projected_volumes_and_optional_keys() {
    let records = run(
        None,
        &[
            &apply("configmap-multikeys.yaml"),
            &apply("secret.yaml"),
            &apply("projected-config-pod.yaml"),
            "wait 30s",
        ],
        |_| {},
    );
    assert_eq!(status(&records, "projected-config")["phase"], "Succeeded");
    assert_eq!(
        container_output(&records, "projected-config"),
        "verymy-app[]"
    );
}

#[test]
fn a_missing_secret_volume_fails_its_mount() {
    let records = run(None, &[&apply("secret-pod.yaml"), "wait 5s"], |_| {});
    let events = kubelet_events(&records, "secret-test-pod");
    let (_, kind, _, message) = events
        .iter()
        .find(|e| e.2 == "FailedMount")
        .expect("a FailedMount event");
    assert_eq!(kind, "Warning");
    assert_eq!(
        message,
        "MountVolume.SetUp failed for volume \"secret-volume\" : secret \"test-secret\" not found"
    );
    let status = status(&records, "secret-test-pod");
    assert_eq!(
        status["containerStatuses"][0]["state"]["waiting"]["reason"], "ContainerCreating",
        "{status}"
    );
}
