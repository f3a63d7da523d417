//! Defaults the API server gives objects other than Pods when it stores them,
//! which the admission plugins then read: a `LimitRange`'s
//! (`SetDefaults_LimitRangeItem`) and a `PriorityClass`'s
//! (`SetDefaults_PriorityClass`).

use crate::common::{TempFile, apply, final_object, run, text};

/// The docs' `cpu-constraints` range (`concepts/policy/limit-range.md`,
/// `tasks/administer-cluster/manage-resources/cpu-constraint-namespace.md`):
/// only `max` and `min`.
const CPU_CONSTRAINTS: &str = r"
apiVersion: v1
kind: LimitRange
metadata: {name: cpu-min-max-demo-lr, namespace: dev}
spec:
  limits:
    - type: Container
      max: {cpu: 800m}
      min: {cpu: 200m}
";

const DEV: &str = r"
apiVersion: v1
kind: Namespace
metadata: {name: dev}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: default, namespace: dev}
";

/// As the docs show it, `kubectl get limitrange -o yaml` has `default` and
/// `defaultRequest` of 800m, and a Pod without resources gets both.
fn check_cpu_constraints(records: &[podflow_engine::trace::TraceRecord]) {
    let range = final_object(records, "LimitRange", "cpu-min-max-demo-lr");
    let item = &range["spec"]["limits"][0];
    assert_eq!(item["default"], serde_json::json!({"cpu": "800m"}));
    assert_eq!(item["defaultRequest"], serde_json::json!({"cpu": "800m"}));
    let pod = final_object(records, "Pod", "nginx");
    let resources = &pod["spec"]["containers"][0]["resources"];
    assert_eq!(resources["limits"]["cpu"], "800m");
    assert_eq!(resources["requests"]["cpu"], "800m");
}

#[test]
fn a_limit_range_created_through_the_api_is_defaulted() {
    let cluster = TempFile::new("dev", DEV);
    let range = TempFile::new("cpu-constraints", CPU_CONSTRAINTS);
    let records = run(
        None,
        &[
            &format!("apply -f {}", range.path()),
            &apply("dev-pod.yaml"),
        ],
        |a| a.cluster = Some(cluster.path()),
    );
    check_cpu_constraints(&records);
}

#[test]
fn a_cluster_files_limit_range_is_stored_defaulted() {
    let cluster = TempFile::new("dev-limited", &format!("{DEV}---{CPU_CONSTRAINTS}"));
    let records = run(None, &[&apply("dev-pod.yaml")], |a| {
        a.cluster = Some(cluster.path());
    });
    check_cpu_constraints(&records);
}

/// `SetDefaults_PriorityClass` (`pkg/apis/scheduling/v1/defaults.go`): a class
/// without `preemptionPolicy` is stored with `PreemptLowerPriority`, which the
/// Priority admission plugin copies into the Pod.
#[test]
fn a_priority_class_without_a_preemption_policy_preempts_lower_priority() {
    let cluster = TempFile::new(
        "high",
        &format!(
            "{DEV}---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {{name: high}}
value: 1000
"
        ),
    );
    let pod = TempFile::new(
        "high-pod",
        "apiVersion: v1
kind: Pod
metadata: {name: urgent, namespace: dev}
spec:
  priorityClassName: high
  containers: [{name: c, image: nginx:1.27}]
",
    );
    let records = run(None, &[&format!("apply -f {}", pod.path())], |a| {
        a.cluster = Some(cluster.path());
    });
    let class = final_object(&records, "PriorityClass", "high");
    assert_eq!(class["preemptionPolicy"], "PreemptLowerPriority");
    let pod = final_object(&records, "Pod", "urgent");
    assert_eq!(pod["spec"]["preemptionPolicy"], "PreemptLowerPriority");
    assert!(text(&records).contains(
        "set priority to 1000 and preemptionPolicy to PreemptLowerPriority (from PriorityClass high)"
    ));
}

/// Go's `encoding/json` writes a non-pointer struct even when empty
/// (`k8s.io/api/core/v1/types.go`: `Container.Resources`,
/// `PodTemplateSpec.ObjectMeta`, `ServiceStatus.LoadBalancer`), so
/// `kubectl get -o yaml` shows `resources: {}` and `status: {loadBalancer: {}}`
/// for objects sent without them; the pod-template-hash (go-spew's dump of
/// the same struct) does not change.
#[test]
fn empty_go_structs_are_stored_as_go_writes_them() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            &apply("web-service.yaml"),
            "wait 10s",
        ],
        |_| {},
    );
    let deployment = final_object(&records, "Deployment", "web");
    let template = &deployment["spec"]["template"];
    assert_eq!(
        template["spec"]["containers"][0]["resources"],
        serde_json::json!({})
    );
    let rs = final_object(&records, "ReplicaSet", "web-69c6f74b8b");
    assert_eq!(
        rs["spec"]["template"]["spec"]["containers"][0]["resources"],
        serde_json::json!({})
    );
    let pods = crate::common::of_kind(&records, "Pod");
    assert!(!pods.is_empty());
    for pod in pods {
        assert_eq!(
            pod["spec"]["containers"][0]["resources"],
            serde_json::json!({})
        );
        assert_eq!(
            pod["status"]["containerStatuses"][0]["lastState"],
            serde_json::json!({})
        );
    }
    let service = final_object(&records, "Service", "web");
    assert_eq!(service["status"], serde_json::json!({"loadBalancer": {}}));
}
