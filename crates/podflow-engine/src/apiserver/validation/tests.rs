//! Tables mirroring upstream validation tests (`validation_test.go` of
//! `pkg/apis/core/validation` and `pkg/apis/apps/validation`): each row a
//! manifest and the exact `field: body` messages, in upstream's order.

use serde_json::{Value, json};

use super::*;
use podflow_model::kinds::kind_of;
use podflow_model::status::invalid as invalid_status;

fn object(kind: &str, value: Value) -> Object {
    Object::from_json(kind_of(kind), value).expect("test manifest decodes")
}

fn pod(spec: &Value) -> Object {
    object(
        "Pod",
        json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "nginx", "namespace": "default"}, "spec": spec}),
    )
}

fn messages(errs: &[FieldError]) -> Vec<String> {
    errs.iter().map(FieldError::message).collect()
}

const SUBDOMAIN: &str = r"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/// Mirrors `TestValidatePodSpec`, `TestValidateContainers`, `TestValidateVolumes`,
/// `TestValidateResourceRequirements` and `TestValidateObjectMeta` cases.
#[test]
fn pod_create_table() {
    let c = |extra: Value| {
        let mut base = json!({"name": "nginx", "image": "nginx:1.27"});
        if let (Some(b), Some(e)) = (base.as_object_mut(), extra.as_object()) {
            b.extend(e.clone());
        }
        base
    };
    let table: Vec<(Value, Vec<String>)> = vec![
        (json!({"containers": [c(json!({}))]}), vec![]),
        (json!({"containers": []}), vec!["spec.containers: Required value".into()]),
        (json!({"containers": [{"name": "nginx"}]}), vec!["spec.containers[0].image: Required value".into()]),
        (json!({"containers": [c(json!({"name": "Nginx"}))]}),
            vec![format!(r#"spec.containers[0].name: Invalid value: "Nginx": {LABEL}"#)]),
        (json!({"containers": [c(json!({})), c(json!({}))]}),
            vec![r#"spec.containers[1].name: Duplicate value: "nginx""#.into()]),
        (json!({"containers": [c(json!({}))], "initContainers": [c(json!({}))]}),
            vec![r#"spec.initContainers[0].name: Duplicate value: "nginx""#.into()]),
        (json!({"containers": [c(json!({"imagePullPolicy": "Sometimes"}))]}),
            vec![r#"spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never""#.into()]),
        (json!({"containers": [c(json!({}))], "restartPolicy": "Sometimes"}),
            vec![r#"spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never""#.into()]),
        (json!({"containers": [c(json!({"ports": [{"containerPort": 70000}, {"containerPort": 80, "protocol": "HTTP"}]}))]}),
            vec!["spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive".into(),
                 r#"spec.containers[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP""#.into()]),
        (json!({"containers": [c(json!({"resources": {"limits": {"cpu": "-1"}}}))]}),
            vec![r#"spec.containers[0].resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0"#.into()]),
        (json!({"containers": [c(json!({"resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "2"}}}))]}),
            vec![r#"spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1"#.into()]),
        (json!({"containers": [c(json!({"resources": {"limits": {"memory": "1Gi"}, "requests": {"memory": "2048Mi"}}}))]}),
            vec![r#"spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi"#.into()]),
        (json!({"containers": [c(json!({"resources": {"requests": {"cpuu": "1"}}}))]}),
            vec!["spec.containers[0].resources.requests[cpuu]: Invalid value: cpuu: must be a standard resource type or fully qualified".into(),
                 "spec.containers[0].resources.requests[cpuu]: Invalid value: cpuu: must be a standard resource for containers".into()]),
        (json!({"containers": [c(json!({"resources": {"requests": {"example.com/gpu": "1"}}}))]}),
            vec!["spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources".into()]),
        (json!({"containers": [c(json!({"env": [{"name": "A=B", "value": "x"}]}))]}),
            vec![r#"spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='"#.into()]),
        (json!({"containers": [c(json!({"volumeMounts": [{"name": "data", "mountPath": "/data"}]}))]}),
            vec![r#"spec.containers[0].volumeMounts[0].name: Not found: "data""#.into()]),
        (json!({"containers": [c(json!({}))], "volumes": [{"name": "data", "emptyDir": {}}, {"name": "data", "emptyDir": {}}]}),
            vec![r#"spec.volumes[1].name: Duplicate value: "data""#.into()]),
        (json!({"containers": [c(json!({"livenessProbe": {"periodSeconds": 5}}))]}),
            vec!["spec.containers[0].livenessProbe: Required value: must specify a handler type".into()]),
        (json!({"containers": [c(json!({"livenessProbe": {"httpGet": {"port": 0}, "successThreshold": 2}}))]}),
            vec!["spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive".into(),
                 "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1".into()]),
        (json!({"containers": [c(json!({}))], "initContainers": [c(json!({"name": "init", "readinessProbe": {"exec": {"command": ["true"]}}}))]}),
            vec!["spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always".into()]),
        (json!({"containers": [c(json!({"image": " nginx"}))]}),
            vec![r#"spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace"#.into()]),
        (json!({"containers": [c(json!({}))], "nodeName": "Node_1"}),
            vec![format!(r#"spec.nodeName: Invalid value: "Node_1": {SUBDOMAIN}"#)]),
        (json!({"containers": [c(json!({}))], "activeDeadlineSeconds": 0}),
            vec!["spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive".into()]),
    ];
    for (spec, want) in table {
        let got = messages(&validate_create(&pod(&spec)));
        assert_eq!(got, want, "{spec}");
    }
}

/// `TestValidateObjectMeta`: name required, name a DNS-1123 subdomain; the whole line.
#[test]
fn pod_metadata_and_whole_message() {
    let unnamed = object(
        "Pod",
        json!({"metadata": {"namespace": "default"},
        "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}),
    );
    assert_eq!(
        messages(&validate_create(&unnamed)),
        ["metadata.name: Required value: name or generateName is required"]
    );
    let bad = object(
        "Pod",
        json!({"metadata": {"name": "Nginx", "namespace": "default"},
        "spec": {"containers": [{"name": "nginx"}]}}),
    );
    let errs = validate_create(&bad);
    let status = invalid_status(kind_of("Pod"), "Nginx", &errs);
    assert_eq!(
        status.message.as_deref(),
        Some(format!(r#"Pod "Nginx" is invalid: [metadata.name: Invalid value: "Nginx": {SUBDOMAIN}, spec.containers[0].image: Required value]"#).as_str())
    );
    let causes = status.details.unwrap().causes.unwrap();
    assert_eq!(causes[1].reason.as_deref(), Some("FieldValueRequired"));
    let one = validate_create(&pod(&json!({"containers": [{"name": "web"}]})));
    assert_eq!(
        invalid_status(kind_of("Pod"), "nginx", &one)
            .message
            .as_deref(),
        Some(r#"Pod "nginx" is invalid: spec.containers[0].image: Required value"#)
    );
}

/// Mirrors `TestValidatePodUpdate`: only images (and a few fields) may change.
#[test]
fn pod_update_table() {
    let old = object(
        "Pod",
        json!({"metadata": {"name": "nginx", "namespace": "default", "uid": "u1", "resourceVersion": "5"},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}], "restartPolicy": "Always"}}),
    );
    let with = |spec: Value, name: &str| {
        object(
            "Pod",
            json!({"metadata": {"name": name, "namespace": "default", "uid": "u1", "resourceVersion": "5"}, "spec": spec}),
        )
    };
    let image_only = with(
        json!({"containers": [{"name": "nginx", "image": "nginx:1.28"}], "restartPolicy": "Always"}),
        "nginx",
    );
    assert!(validate_update(&image_only, &old).is_empty());
    let renamed = with(
        json!({"containers": [{"name": "nginx", "image": "nginx:1.27"}], "restartPolicy": "Always"}),
        "web",
    );
    assert_eq!(
        messages(&validate_update(&renamed, &old)),
        [r#"metadata.name: Invalid value: "web": field is immutable"#]
    );
    let added = with(
        json!({"containers": [{"name": "nginx", "image": "nginx"}, {"name": "b", "image": "b"}], "restartPolicy": "Always"}),
        "nginx",
    );
    assert_eq!(
        messages(&validate_update(&added, &old)),
        ["spec.containers: Forbidden: pod updates may not add or remove containers"]
    );
    let policy = with(
        json!({"containers": [{"name": "nginx", "image": "nginx:1.27"}], "restartPolicy": "Never"}),
        "nginx",
    );
    let errs = validate_update(&policy, &old);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].cause, "FieldValueForbidden");
    assert!(errs[0].message().starts_with(
        "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n  core.PodSpec{\n"
    ));
    assert!(
        errs[0]
            .body
            .contains("- \tRestartPolicy: \"Always\",\n+ \tRestartPolicy: \"Never\",\n")
    );
}

/// Mirrors `TestValidateDeployment` / `TestValidateReplicaSet` selector cases.
#[test]
fn workload_table() {
    let deploy = |spec: Value| {
        object(
            "Deployment",
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"}, "spec": spec}),
        )
    };
    let template = json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}});
    let table: Vec<(Object, Vec<&str>)> = vec![
        (
            deploy(json!({"selector": {"matchLabels": {"app": "web"}}, "template": template})),
            vec![],
        ),
        (
            deploy(json!({"template": template})),
            vec![
                "spec.selector: Required value",
                r#"spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`"#,
            ],
        ),
        (
            deploy(
                json!({"selector": {"matchLabels": {"app": "api"}}, "template": template, "replicas": -1}),
            ),
            vec![
                "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
                r#"spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`"#,
            ],
        ),
        (
            deploy(json!({"selector": {"matchLabels": {}}, "template": template})),
            vec![
                "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}: empty selector is invalid for deployment",
            ],
        ),
        (
            object(
                "ReplicaSet",
                json!({"metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}, "template": template}}),
            ),
            vec![],
        ),
    ];
    for (obj, want) in table {
        assert_eq!(messages(&validate_create(&obj)), want, "{}", obj.to_json());
    }
}

/// `TestValidateNamespace`, `TestValidateService`, `TestValidateNode` basics.
#[test]
fn namespace_service_node_table() {
    let ns = object("Namespace", json!({"metadata": {"name": "team.a"}}));
    assert_eq!(
        messages(&validate_create(&ns)),
        [r#"metadata.name: Invalid value: "team.a": must not contain dots"#]
    );
    let svc = object(
        "Service",
        json!({"metadata": {"name": "web", "namespace": "default"}, "spec": {"selector": {"app": "web"}}}),
    );
    assert_eq!(
        messages(&validate_create(&svc)),
        ["spec.ports: Required value"]
    );
    let headless = object(
        "Service",
        json!({"metadata": {"name": "web", "namespace": "default"}, "spec": {"clusterIP": "None"}}),
    );
    assert!(validate_create(&headless).is_empty());
    let node = object("Node", json!({"metadata": {"name": "Node_1"}}));
    assert_eq!(
        messages(&validate_create(&node)),
        [format!(
            r#"metadata.name: Invalid value: "Node_1": {SUBDOMAIN}"#
        )]
    );
    let taint = object(
        "Node",
        json!({"metadata": {"name": "n"}, "spec": {"taints": [{"key": "k", "effect": "Sometimes"}]}}),
    );
    assert_eq!(
        messages(&validate_create(&taint)),
        [
            r#"spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute""#
        ]
    );
}

/// A malformed quantity is a 400 decode error, worded by `transformDecodeError`.
#[test]
fn decode_errors_as_transform_decode_error() {
    let bad = pod(
        &json!({"containers": [{"name": "a", "image": "a", "resources": {"limits": {"cpu": "2x"}}}]}),
    );
    assert_eq!(
        decode_errors(&bad).as_deref(),
        Some(
            "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        )
    );
    let suffix = pod(
        &json!({"containers": [{"name": "a", "image": "a", "resources": {"requests": {"memory": "32MMi"}}}]}),
    );
    assert_eq!(
        decode_errors(&suffix).as_deref(),
        Some("Pod in version \"v1\" cannot be handled as a Pod: unable to parse quantity's suffix")
    );
    let fine = pod(
        &json!({"containers": [{"name": "a", "image": "a", "resources": {"requests": {"memory": " 64Mi "}}}]}),
    );
    assert_eq!(decode_errors(&fine), None);
}
