//! Bodies read in part (unknown fields, repeated messages, enveloped JSON)
//! or refused with a reason.

use serde_json::json;

use super::super::{decode, decode_detailed};
use super::encoder::{Msg, envelope, object_meta, pod};

#[test]
fn unknown_fields_are_skipped_and_named() {
    let container = Msg::new()
        .string(1, "app")
        .message(8, &Msg::new())
        .string(99, "from a newer kubectl");
    let spec = Msg::new().message(2, &container).int(200, 7);
    let meta =
        object_meta("p", "").message(11, &Msg::new().string(1, "app").string(2, "web").int(3, 1));
    let body = envelope("v1", "Pod", &pod(&spec).message(1, &meta).int(9, 1));
    let decoded = decode_detailed(&body).unwrap();
    assert_eq!(
        decoded.object,
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "p", "labels": {"app": "web"}},
               "spec": {"containers": [{"name": "app", "resources": {}}]},
               "status": {}})
    );
    assert_eq!(
        decoded.unknown_fields,
        [
            "spec.containers[0]#99",
            "spec#200",
            "metadata.labels#3",
            "#9"
        ]
    );
}

#[test]
fn a_singular_message_met_twice_is_merged() {
    let body = envelope(
        "v1",
        "ConfigMap",
        &Msg::new()
            .message(1, &Msg::new().string(1, "cfg"))
            .message(1, &Msg::new().string(3, "default")),
    );
    assert_eq!(
        decode(&body).unwrap(),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "default"}})
    );
}

#[test]
fn an_enveloped_json_object_is_taken_as_it_is() {
    let unknown = Msg::new()
        .message(1, &Msg::new().string(1, "v1").string(2, "ConfigMap"))
        .bytes(2, br#"{"metadata":{"name":"cfg"}}"#)
        .string(4, "application/json");
    let mut body = b"k8s\0".to_vec();
    body.extend(unknown.into_bytes());
    assert_eq!(
        decode(&body).unwrap(),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}})
    );
}

#[test]
fn malformed_bodies_are_refused_with_a_reason() {
    let error = |body: &[u8]| decode(body).unwrap_err();
    assert!(error(b"{\"kind\":\"Pod\"}").contains("not a Kubernetes protobuf body"));
    let pod = envelope("v1", "Pod", &Msg::new().message(1, &object_meta("p", "")));
    // Without contentEncoding and contentType (two bytes each) and the last
    // two bytes of raw.
    assert!(error(&pod[..pod.len() - 6]).contains("2 bytes short of"));
    assert!(error(&envelope("v1", "Node", &Msg::new())).contains("cannot read a Node (v1)"));
    assert!(error(&envelope("", "", &Msg::new())).contains("names no kind"));
    let wrong_wire = envelope(
        "apps/v1",
        "Deployment",
        &Msg::new().message(2, &Msg::new().string(1, "2")),
    );
    assert_eq!(
        error(&wrong_wire),
        "spec.replicas: expected a varint, found length-delimited bytes"
    );
    let gzip = Msg::new()
        .message(1, &Msg::new().string(1, "v1").string(2, "Pod"))
        .string(3, "gzip");
    let mut body = b"k8s\0".to_vec();
    body.extend(gzip.into_bytes());
    assert!(error(&body).contains("content encoding \"gzip\""));
    let overflow = envelope(
        "v1",
        "Pod",
        &Msg::new().message(2, &Msg::new().int(25, 1 << 40)),
    );
    assert!(error(&overflow).contains("spec.priority: 1099511627776 does not fit an int32"));
    let group = envelope("v1", "Pod", &Msg::new().raw(&[0x0B]));
    assert!(error(&group).contains("group"));
}
