//! Hand-encoded bodies of the kinds kubectl sends, read back as JSON.

use serde_json::json;

use super::super::decode;
use super::encoder::{Msg, app_web, envelope, object_meta, pod, quantity};

#[test]
fn a_deployment_as_kubectl_create_deployment_sends_it() {
    // kubectl create deployment web --image=nginx:1.27 --replicas=2
    let container = Msg::new()
        .string(1, "nginx")
        .string(2, "nginx:1.27")
        .message(8, &Msg::new())
        .string(13, "")
        .string(14, "")
        .bool(16, false)
        .string(20, "");
    let pod_spec = Msg::new()
        .message(2, &container)
        .string(3, "")
        .string(6, "")
        .string(8, "")
        .bool(11, false)
        .string(19, "");
    let template = Msg::new()
        .message(1, &app_web(object_meta("", "")))
        .message(2, &pod_spec);
    let spec = Msg::new()
        .int(1, 2)
        .message(2, &Msg::new().entry(1, "app", b"web"))
        .message(3, &template)
        .message(4, &Msg::new().string(1, ""))
        .int(5, 0)
        .bool(7, false);
    let status = Msg::new()
        .int(1, 0)
        .int(2, 0)
        .int(3, 0)
        .int(4, 0)
        .int(5, 0)
        .int(7, 0);
    let deployment = Msg::new()
        .message(1, &app_web(object_meta("web", "")))
        .message(2, &spec)
        .message(3, &status);
    let object = decode(&envelope("apps/v1", "Deployment", &deployment)).unwrap();
    assert_eq!(
        object,
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27", "resources": {}}]},
                },
                "strategy": {},
            },
            "status": {},
        })
    );
}

#[test]
fn an_explicit_zero_is_kept_where_go_sends_a_pointer() {
    // replicas and revisionHistoryLimit are *int32: sent only when set, so 0
    // means 0; minReadySeconds is an int32 with omitempty.
    let template = Msg::new().message(1, &object_meta("", "")).message(
        2,
        &Msg::new().message(2, &Msg::new().string(1, "app").message(8, &Msg::new())),
    );
    let spec = Msg::new()
        .int(1, 0)
        .message(2, &Msg::new())
        .message(3, &template)
        .message(4, &Msg::new())
        .int(5, 0)
        .int(6, 0);
    let deployment = Msg::new()
        .message(1, &object_meta("web", ""))
        .message(2, &spec)
        .message(3, &Msg::new());
    let body = envelope("apps/v1", "Deployment", &deployment);
    assert_eq!(
        decode(&body).unwrap(),
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web"},
               "spec": {
                   "replicas": 0,
                   "revisionHistoryLimit": 0,
                   "selector": {},
                   "template": {"metadata": {}, "spec": {"containers": [{"name": "app", "resources": {}}]}},
                   "strategy": {},
               },
               "status": {}})
    );
}

#[test]
fn fields_left_off_the_wire_read_as_go_zero_values() {
    // A sender other than Go may leave out what Go always writes; the API
    // server decodes that into Go's zero values, which JSON writes as below:
    // structs as objects, nil slices and pointers without omitempty as null.
    let body = envelope("apps/v1", "Deployment", &Msg::new());
    assert_eq!(
        decode(&body).unwrap(),
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {},
            "spec": {
                "selector": null,
                "template": {"metadata": {}, "spec": {"containers": null}},
                "strategy": {},
            },
            "status": {},
        })
    );
}

#[test]
fn a_self_subject_access_review_as_kubectl_auth_can_i_sends_it() {
    // kubectl auth can-i get pods -n default
    let attributes = Msg::new()
        .string(1, "default")
        .string(2, "get")
        .string(3, "")
        .string(4, "")
        .string(5, "pods")
        .string(6, "")
        .string(7, "");
    let review = Msg::new()
        .message(1, &object_meta("", ""))
        .message(2, &Msg::new().message(1, &attributes))
        .message(
            3,
            &Msg::new()
                .bool(1, false)
                .string(2, "")
                .string(3, "")
                .bool(4, false),
        );
    let body = envelope(
        "authorization.k8s.io/v1",
        "SelfSubjectAccessReview",
        &review,
    );
    assert_eq!(
        decode(&body).unwrap(),
        json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "metadata": {},
            "spec": {"resourceAttributes": {"namespace": "default", "verb": "get", "resource": "pods"}},
            "status": {"allowed": false},
        })
    );
}

#[test]
fn an_eviction_carries_its_delete_options() {
    let delete_options = Msg::new()
        .int(1, 30)
        .string(4, "Foreground")
        .string(5, "All");
    let eviction = Msg::new()
        .message(1, &object_meta("web-1", "default"))
        .message(2, &delete_options);
    assert_eq!(
        decode(&envelope("policy/v1", "Eviction", &eviction)).unwrap(),
        json!({
            "apiVersion": "policy/v1",
            "kind": "Eviction",
            "metadata": {"name": "web-1", "namespace": "default"},
            "deleteOptions": {"gracePeriodSeconds": 30, "propagationPolicy": "Foreground", "dryRun": ["All"]},
        })
    );
}

#[test]
fn delete_options_are_read_in_any_group_version() {
    let options = Msg::new()
        .int(1, 0)
        .message(2, &Msg::new().string(1, "uid-1"));
    for api_version in ["v1", "meta.k8s.io/v1", "apps/v1"] {
        assert_eq!(
            decode(&envelope(api_version, "DeleteOptions", &options)).unwrap(),
            json!({"apiVersion": api_version, "kind": "DeleteOptions",
                   "gracePeriodSeconds": 0, "preconditions": {"uid": "uid-1"}})
        );
    }
}

#[test]
fn secret_data_is_base64_and_string_data_is_text() {
    let secret = Msg::new()
        .message(1, &object_meta("sec", "default"))
        .entry(2, "password", b"s3cr3t")
        .entry(2, "blob", &[0, 1, 2, 0xFF])
        .entry(4, "note", b"plain")
        .string(3, "Opaque")
        .bool(5, true);
    assert_eq!(
        decode(&envelope("v1", "Secret", &secret)).unwrap(),
        json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "sec", "namespace": "default"},
            "data": {"password": "czNjcjN0", "blob": "AAEC/w=="},
            "stringData": {"note": "plain"},
            "type": "Opaque",
            "immutable": true,
        })
    );
}

#[test]
fn resources_hold_quantities_and_ports_hold_int_or_strings() {
    let resources = Msg::new()
        .entry_message(1, "cpu", &quantity("250m"))
        .entry_message(1, "memory", &quantity("64Mi"))
        .entry_message(2, "cpu", &quantity("100m"));
    let by_number = Msg::new().int(1, 0).int(2, 8080).string(3, "");
    let by_name = Msg::new().int(1, 1).int(2, 0).string(3, "http");
    let http_get = Msg::new().string(1, "/healthz").message(2, &by_name);
    let probe = Msg::new()
        .message(1, &Msg::new().message(2, &http_get))
        .int(2, 5)
        .int(3, 0);
    let container = Msg::new()
        .string(1, "app")
        .message(
            6,
            &Msg::new().string(1, "http").int(3, 8080).string(4, "TCP"),
        )
        .message(8, &resources)
        .message(10, &probe);
    let pod = Msg::new()
        .message(1, &object_meta("p", ""))
        .message(2, &Msg::new().message(2, &container));
    let service_port = Msg::new()
        .string(1, "")
        .string(2, "TCP")
        .int(3, 80)
        .message(4, &by_number)
        .int(5, 0);
    let service = Msg::new().message(
        2,
        &Msg::new().message(1, &service_port).string(4, "ClusterIP"),
    );
    assert_eq!(
        decode(&envelope("v1", "Pod", &pod)).unwrap(),
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {"containers": [{
                "name": "app",
                "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "initialDelaySeconds": 5},
                "resources": {"limits": {"cpu": "250m", "memory": "64Mi"}, "requests": {"cpu": "100m"}},
            }]},
            "status": {},
        })
    );
    assert_eq!(
        decode(&envelope("v1", "Service", &service)).unwrap(),
        json!({
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {},
            "spec": {"ports": [{"protocol": "TCP", "port": 80, "targetPort": 8080}], "type": "ClusterIP"},
            "status": {"loadBalancer": {}},
        })
    );
}

#[test]
fn times_are_rfc3339_and_the_zero_time_is_left_out() {
    let meta = object_meta("ns1", "")
        .message(9, &Msg::new().int(1, 1_767_323_045).int(2, 999))
        .int(10, 30);
    let condition = Msg::new()
        .string(1, "NamespaceDeletionContentFailure")
        .string(2, "True")
        .message(4, &Msg::new());
    let namespace = Msg::new().message(1, &meta).message(
        3,
        &Msg::new().string(1, "Terminating").message(2, &condition),
    );
    assert_eq!(
        decode(&envelope("v1", "Namespace", &namespace)).unwrap(),
        json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": "ns1",
                "deletionTimestamp": "2026-01-02T03:04:05Z",
                "deletionGracePeriodSeconds": 30,
            },
            "spec": {},
            "status": {
                "phase": "Terminating",
                "conditions": [{"type": "NamespaceDeletionContentFailure", "status": "True", "lastTransitionTime": null}],
            },
        })
    );
}

#[test]
fn inline_structs_sit_in_their_parent() {
    // Volume embeds VolumeSource; SecretKeySelector embeds LocalObjectReference.
    let volume = Msg::new().string(1, "scratch").message(
        2,
        &Msg::new().message(
            2,
            &Msg::new().string(1, "Memory").message(2, &quantity("1Gi")),
        ),
    );
    let secret_ref = Msg::new()
        .message(1, &Msg::new().string(1, "db"))
        .string(2, "password");
    let env = Msg::new()
        .string(1, "PASSWORD")
        .string(2, "")
        .message(3, &Msg::new().message(4, &secret_ref));
    let spec = Msg::new().message(1, &volume).message(
        2,
        &Msg::new()
            .string(1, "app")
            .message(7, &env)
            .message(8, &Msg::new()),
    );
    let body = envelope("v1", "Pod", &pod(&spec));
    assert_eq!(
        decode(&body).unwrap(),
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {},
            "spec": {
                "volumes": [{"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}}],
                "containers": [{
                    "name": "app",
                    "env": [{"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}],
                    "resources": {},
                }],
            },
            "status": {},
        })
    );
}

#[test]
fn repeated_numbers_are_read_packed_or_not() {
    let security = Msg::new().packed(4, &[1, 2]).int(4, 3).int(2, -1);
    let spec = Msg::new().message(14, &security);
    let body = envelope("v1", "Pod", &pod(&spec));
    assert_eq!(
        decode(&body).unwrap()["spec"],
        json!({"containers": null, "securityContext": {"supplementalGroups": [1, 2, 3], "runAsUser": -1}})
    );
}
