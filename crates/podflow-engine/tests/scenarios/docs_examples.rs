//! The Kubernetes docs' task pages, run as a reader runs them: their example
//! files unmodified (`tests/fixtures/docs/`, and the init-containers example
//! in `kubelet.rs`), the commands the pages give, and the outcome each page
//! describes, in the words and fields kubectl shows there.

use crate::common::{fixture, kubectl_output, run};

/// `kubectl apply -f FILE --namespace=NS`, for a file of `tests/fixtures/docs/`.
fn apply_in(name: &str, namespace: &str) -> String {
    format!(
        "apply -f {} --namespace={namespace}",
        fixture(&format!("docs/{name}"))
    )
}

/// The lines kubectl printed, as one text.
fn printed(steps: &[&str]) -> String {
    kubectl_output(&run(None, steps, |_| {})).join("\n")
}

/// "Configure Quality of Service for Pods": each Pod's `status.qosClass`.
#[test]
fn quality_of_service_classes() {
    let steps: Vec<String> = [
        "create namespace qos-example".to_owned(),
        apply_in("qos-pod.yaml", "qos-example"),
        apply_in("qos-pod-2.yaml", "qos-example"),
        apply_in("qos-pod-3.yaml", "qos-example"),
        apply_in("qos-pod-4.yaml", "qos-example"),
        "wait 30s".to_owned(),
        "get pod qos-demo --namespace=qos-example --output=yaml".to_owned(),
        "get pod qos-demo-2 --namespace=qos-example --output=yaml".to_owned(),
        "get pod qos-demo-3 --namespace=qos-example --output=yaml".to_owned(),
        "get pod qos-demo-4 --namespace=qos-example --output=yaml".to_owned(),
    ]
    .into();
    let out = printed(&steps.iter().map(String::as_str).collect::<Vec<_>>());
    let classes: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("qosClass: "))
        .collect();
    assert_eq!(
        classes,
        ["Guaranteed", "Burstable", "BestEffort", "Burstable"],
        "{out}"
    );
    // The Guaranteed Pod as the page shows it.
    assert!(
        out.contains("        cpu: 700m\n        memory: 200Mi"),
        "{out}"
    );
}

/// "Configure Default Memory Requests and Limits for a Namespace": the
/// `LimitRanger` admission plugin fills in the container's memory.
#[test]
fn a_limit_range_gives_default_memory() {
    let out = printed(&[
        "create namespace default-mem-example",
        &apply_in("memory-defaults.yaml", "default-mem-example"),
        &apply_in("memory-defaults-pod.yaml", "default-mem-example"),
        "get pod default-mem-demo --output=yaml --namespace=default-mem-example",
    ]);
    assert!(
        out.contains("    resources:\n      limits:\n        memory: 512Mi\n      requests:\n        memory: 256Mi"),
        "{out}"
    );
}

/// "Configure Minimum and Maximum Memory Constraints for a Namespace": the
/// stored `LimitRange` has defaults from `max`, and a container over `max` is
/// refused with the page's message.
#[test]
fn a_limit_range_refuses_a_container_over_its_max() {
    let out = printed(&[
        "create namespace constraints-mem-example",
        &apply_in("memory-constraints.yaml", "constraints-mem-example"),
        "get limitrange mem-min-max-demo-lr --namespace=constraints-mem-example --output=yaml",
        &apply_in("memory-constraints-pod-2.yaml", "constraints-mem-example"),
    ]);
    assert!(
        out.contains(
            "  limits:\n  - default:\n      memory: 1Gi\n    defaultRequest:\n      memory: 1Gi\n    max:\n      memory: 1Gi\n    min:\n      memory: 500Mi\n    type: Container"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "pods \"constraints-mem-demo-2\" is forbidden: maximum memory usage per Container is 1Gi, but limit is 1536Mi"
        ),
        "{out}"
    );
}

/// "Configure a Pod Quota for a Namespace": a Deployment of 3 under a quota of
/// 2 Pods gets 2, and says why in a `ReplicaFailure` condition.
#[test]
fn a_pod_quota_holds_a_deployment_at_two() {
    let out = printed(&[
        "create namespace quota-pod-example",
        &apply_in("quota-pod.yaml", "quota-pod-example"),
        "wait 5s",
        "get resourcequota pod-demo --namespace=quota-pod-example --output=yaml",
        &apply_in("quota-pod-deployment.yaml", "quota-pod-example"),
        "wait 1m",
        "get deployment pod-quota-demo --namespace=quota-pod-example --output=yaml",
    ]);
    assert!(
        out.contains("status:\n  hard:\n    pods: \"2\"\n  used:\n    pods: \"0\""),
        "{out}"
    );
    let deployment = out.split("kind: Deployment").nth(1).expect(&out);
    assert!(deployment.contains("  replicas: 3\n"), "{deployment}");
    assert!(
        deployment.contains("  availableReplicas: 2\n"),
        "{deployment}"
    );
    assert!(deployment.contains("  readyReplicas: 2\n"), "{deployment}");
    // The page's output is from 2017 (`unable to create pods: pods
    // "pod-quota-demo-1650323038-" …`); today the replicaset controller
    // keeps the API server's error as it is, naming the Pod with its
    // generated name, and kubectl folds the line past column 80.
    let message = deployment
        .split("\n    message: ")
        .find(|m| m.starts_with("'pods \"pod-quota-demo-"))
        .expect(deployment);
    assert!(
        message.contains("\" is forbidden: exceeded quota:\n      pod-demo, requested: pods=1, used: pods=2, limited: pods=2'"),
        "{message}"
    );
    assert!(
        deployment
            .contains("    reason: FailedCreate\n    status: \"True\"\n    type: ReplicaFailure"),
        "{deployment}"
    );
}

/// "Pod Scheduling Readiness": a gated Pod is `SchedulingGated` until its
/// gates are removed by re-applying the manifest without them.
#[test]
fn scheduling_gates_hold_a_pod_until_removed() {
    let gated = fixture("docs/pod-with-scheduling-gates.yaml");
    let ungated = fixture("docs/pod-without-scheduling-gates.yaml");
    let out = printed(&[
        &format!("apply -f {gated}"),
        "wait 7s",
        "get pod test-pod",
        "get pod test-pod -o jsonpath='{.spec.schedulingGates}'",
        &format!("apply -f {ungated}"),
        "wait 10s",
        "get pod test-pod -o jsonpath='{.spec.schedulingGates}'",
        "get pod test-pod -o wide",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.contains(&"test-pod   0/1     SchedulingGated   0          7s"),
        "{out}"
    );
    let listed = r#"[{"name":"example.com/foo"},{"name":"example.com/bar"}]"#;
    assert_eq!(lines.iter().filter(|l| **l == listed).count(), 1, "{out}");
    let wide = lines.last().expect(&out);
    assert!(wide.starts_with("test-pod   1/1     Running"), "{out}");
}

/// The same Pod made by `kubectl create`: it has no last-applied
/// configuration, so `apply` warns, and the gates the new manifest leaves out
/// are not deleted (`apply.go`; a three-way patch deletes only what the
/// last-applied configuration had) — the Pod stays gated.
#[test]
fn apply_over_create_cannot_remove_the_gates() {
    let out = printed(&[
        &format!(
            "create -f {}",
            fixture("docs/pod-with-scheduling-gates.yaml")
        ),
        &format!(
            "apply -f {}",
            fixture("docs/pod-without-scheduling-gates.yaml")
        ),
        "wait 10s",
        "get pod test-pod",
    ]);
    assert!(
        out.contains("Warning: resource pods/test-pod is missing the kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply."),
        "{out}"
    );
    assert!(out.contains("pod/test-pod configured"), "{out}");
    assert!(
        out.lines().last().unwrap().contains("SchedulingGated"),
        "{out}"
    );
}
