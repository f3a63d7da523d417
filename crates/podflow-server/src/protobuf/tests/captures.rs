//! Bodies the real kubectl sent as protobuf, read back and compared with
//! the JSON an older kubectl sent for the same command
//! (`tests/fixtures/protobuf/README.md` says how they were recorded).

use serde_json::Value;

use super::super::decode_detailed;

macro_rules! capture {
    ($protobuf:literal, $json:literal) => {
        (
            $protobuf,
            include_bytes!(concat!(
                "../../../tests/fixtures/protobuf/",
                $protobuf,
                ".pb"
            ))
            .as_slice(),
            include_str!(concat!("../../../tests/fixtures/protobuf/", $json, ".json")),
        )
    };
    ($name:literal) => {
        capture!($name, $name)
    };
}

const CAPTURES: &[(&str, &[u8], &str)] = &[
    capture!("namespace"),
    capture!("configmap"),
    capture!("configmap-binary"),
    capture!("secret-generic"),
    capture!("secret-docker-registry"),
    capture!("service-clusterip"),
    capture!("job"),
    capture!("job-from-cronjob"),
    capture!("cronjob"),
    capture!("serviceaccount"),
    capture!("role"),
    capture!("rolebinding"),
    capture!("clusterrole"),
    capture!("clusterrole-aggregation"),
    capture!("clusterrolebinding"),
    capture!("deployment"),
    capture!("deployment-kubectl-1.33", "deployment"),
    capture!("deployment-zero-replicas"),
    capture!("resourcequota"),
    capture!("poddisruptionbudget"),
    capture!("ingress"),
    capture!("priorityclass"),
    capture!("horizontalpodautoscaler"),
    capture!("selfsubjectaccessreview"),
    capture!("selfsubjectaccessreview-subresource"),
    capture!("selfsubjectrulesreview"),
    capture!("selfsubjectreview"),
    capture!("tokenrequest"),
    capture!("deleteoptions-drain"),
];

/// kubectl 1.31's Go types wrote a zero `creationTimestamp` as `null`; since
/// it is `omitzero` upstream (as in the tables) it is left out.
fn without_null_creation_timestamps(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            if fields.get("creationTimestamp") == Some(&Value::Null) {
                fields.remove("creationTimestamp");
            }
            fields
                .values_mut()
                .for_each(without_null_creation_timestamps);
        }
        Value::Array(items) => items.iter_mut().for_each(without_null_creation_timestamps),
        _ => {}
    }
}

#[test]
fn every_capture_reads_as_the_json_kubectl_sent_before() {
    for (name, protobuf, json) in CAPTURES {
        let decoded = decode_detailed(protobuf).unwrap_or_else(|error| panic!("{name}: {error}"));
        assert!(
            decoded.unknown_fields.is_empty(),
            "{name}: skipped {:?}",
            decoded.unknown_fields
        );
        let mut expected: Value = serde_json::from_str(json).unwrap();
        without_null_creation_timestamps(&mut expected);
        assert_eq!(decoded.object, expected, "{name}");
    }
}

#[test]
fn a_capture_cut_short_is_refused() {
    for (name, protobuf, _) in CAPTURES {
        for len in [protobuf.len() - 1, protobuf.len() / 2] {
            assert!(
                decode_detailed(&protobuf[..len]).is_err(),
                "{name} cut to {len} bytes"
            );
        }
    }
}
