//! The special JSON forms, on a test-only message: the kinds decoded today
//! carry no `MicroTime`, `Duration`, `RawExtension` or `double`.

use serde_json::json;

use super::super::message::Decoder;
use super::super::schema::{Message, Ty, always, list, map, omitempty, pointer};
use super::encoder::{Msg, envelope, object_meta};

static SAMPLE: Message = Message {
    name: "test.Sample",
    fields: &[
        pointer(1, "eventTime", Ty::MicroTime),
        always(2, "timeout", Ty::Duration),
        pointer(3, "object", Ty::RawExtension),
        omitempty(4, "ratio", Ty::Double),
        map(5, "extra", Ty::StringItems),
        pointer(6, "fieldsV1", Ty::FieldsV1),
        list(7, "weights", Ty::Double),
        always(8, "port", Ty::IntOrString),
        always(9, "size", Ty::Quantity),
        always(10, "since", Ty::Time),
        always(11, "data", Ty::RawExtension),
    ],
};

fn sample(message: &Msg) -> serde_json::Value {
    let mut decoder = Decoder::default();
    let object = decoder
        .message(&SAMPLE, &message.clone().into_bytes(), "")
        .unwrap();
    assert!(decoder.unknown.is_empty(), "{:?}", decoder.unknown);
    serde_json::Value::Object(object)
}

#[test]
fn absent_values_read_as_go_zero_values() {
    assert_eq!(
        sample(&Msg::new()),
        json!({"timeout": "0s", "port": 0, "size": "0", "since": null, "data": null})
    );
}

#[test]
fn special_values_take_their_json_forms() {
    let config_map = Msg::new().message(1, &object_meta("inner", ""));
    let message = Msg::new()
        .message(1, &Msg::new().int(1, 1_767_323_045).int(2, 123_456_789))
        .message(2, &Msg::new().int(1, 90_000_000_000))
        .message(
            3,
            &Msg::new().bytes(1, &envelope("v1", "ConfigMap", &config_map)),
        )
        .double(4, 0.5)
        .message(
            5,
            &Msg::new()
                .string(1, "groups")
                .message(2, &Msg::new().string(1, "a").string(1, "b")),
        )
        .message(6, &Msg::new().bytes(1, br#"{"f:metadata":{}}"#))
        .double(7, 1.5)
        .message(8, &Msg::new().int(1, 1).string(3, "http"))
        .message(9, &Msg::new().string(1, "1Gi"))
        .message(10, &Msg::new().int(1, 0))
        .message(11, &Msg::new().bytes(1, br#"{"kind":"Anything"}"#));
    assert_eq!(
        sample(&message),
        json!({
            "eventTime": "2026-01-02T03:04:05.123456Z",
            "timeout": "1m30s",
            "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "inner"}},
            "ratio": 0.5,
            "extra": {"groups": ["a", "b"]},
            "fieldsV1": {"f:metadata": {}},
            "weights": [1.5],
            "port": "http",
            "size": "1Gi",
            "since": "1970-01-01T00:00:00Z",
            "data": {"kind": "Anything"},
        })
    );
}

#[test]
fn a_zero_double_is_left_out_and_bad_raw_json_is_refused() {
    assert_eq!(
        sample(&Msg::new().double(4, 0.0))["ratio"],
        serde_json::Value::Null
    );
    let mut decoder = Decoder::default();
    let bad = Msg::new()
        .message(6, &Msg::new().bytes(1, b"{not json"))
        .into_bytes();
    let error = decoder.message(&SAMPLE, &bad, "").unwrap_err();
    assert!(
        error.starts_with("fieldsV1: the raw bytes are not JSON"),
        "{error}"
    );
    let bad_time = Msg::new()
        .message(1, &Msg::new().int(1, 0).int(2, -5))
        .into_bytes();
    let error = decoder.message(&SAMPLE, &bad_time, "").unwrap_err();
    assert_eq!(error, "eventTime: -5 nanoseconds is out of range");
}
