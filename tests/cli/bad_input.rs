//! Bad input is refused as kubectl refuses it, in one line naming the file, line,
//! column and, where one field is at fault, its path; good input reads in order.
//!
//! The wording follows kubectl: `staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go`
//! (`error parsing`, `error validating`), `staging/src/k8s.io/kubectl/pkg/util/openapi/validation/validation.go`
//! (`apiVersion not set`, `kind not set`), `staging/src/k8s.io/cli-runtime/pkg/resource/mapper.go`
//! (`resource mapping not found ... ensure CRDs are installed first`) and `builder.go`
//! (`the path "x" does not exist`). Large and hostile inputs are made here, not committed.

use std::fmt::Write as _;

use podflow_scenario::{
    MAX_INPUT_BYTES, parse_cluster, parse_manifests, read_file, read_manifests,
};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bad-input");

/// Reads a fixture under the short name a user would type.
fn fixture_error(name: &str) -> String {
    let bytes = read_file(&format!("{DIR}/{name}")).unwrap();
    parse_manifests(name, &bytes).unwrap_err().to_string()
}

#[test]
fn each_bad_input_gets_kubectls_words_and_a_place() {
    let cases = [
        (
            "malformed.yaml",
            "malformed.yaml:5:10: error parsing malformed.yaml: error converting YAML to JSON: yaml: line 5: mapping values are not allowed in this context",
        ),
        (
            "malformed.json",
            "malformed.json:4:1: error parsing malformed.json: trailing comma",
        ),
        (
            "no-type-meta.yaml",
            "no-type-meta.yaml:1:1: error validating \"no-type-meta.yaml\": error validating data: [apiVersion not set, kind not set]",
        ),
        (
            "missing-kind.yaml",
            "missing-kind.yaml:6:1: error validating \"missing-kind.yaml\": error validating data: kind not set",
        ),
        (
            "empty-kind.yaml",
            "empty-kind.yaml:1:1: Object 'Kind' is missing in '{\"apiVersion\":\"v1\",\"kind\":\"\",\"metadata\":{\"name\":\"x\"}}'",
        ),
        (
            "unknown-kind.yaml",
            "unknown-kind.yaml:1:1: resource mapping not found for name: \"x\" namespace: \"\" from \"unknown-kind.yaml\": no matches for kind \"Widget\" in version \"v1\"; ensure CRDs are installed first",
        ),
        (
            "wrong-type.yaml",
            "wrong-type.yaml:10:22: spec.containers[0].ports[0].containerPort: invalid type: string \"eighty\", expected i32",
        ),
        (
            "wrong-type.json",
            "wrong-type.json:6:17: spec.replicas: invalid type: string \"three\", expected i32",
        ),
    ];
    for (name, want) in cases {
        assert_eq!(fixture_error(name), want, "{name}");
    }
}

#[test]
fn a_missing_file_is_named_as_kubectl_names_it() {
    let error = read_manifests("does-not-exist.yaml").unwrap_err();
    assert_eq!(
        error.message,
        "the path \"does-not-exist.yaml\" does not exist"
    );
    assert_eq!(
        error.to_string(),
        "does-not-exist.yaml: the path \"does-not-exist.yaml\" does not exist"
    );
}

#[test]
fn binary_and_non_utf8_files_are_refused() {
    let cases: [(&[u8], &str); 3] = [
        (
            b"apiVersion: v1\n\x7fELF\x02\x01\x01\x00\x00",
            "app.bin:2:1: error parsing app.bin: error converting YAML to JSON: yaml: control characters are not allowed",
        ),
        (
            b"\x00\x00\x00\x00",
            "app.bin:1:1: error parsing app.bin: error converting YAML to JSON: yaml: control characters are not allowed",
        ),
        (
            b"kind: Pod\nmetadata:\n  name: caf\xe9\n",
            "app.bin:3:12: error parsing app.bin: error converting YAML to JSON: yaml: invalid trailing UTF-8 octet",
        ),
    ];
    for (bytes, want) in cases {
        assert_eq!(
            parse_manifests("app.bin", bytes).unwrap_err().to_string(),
            want
        );
    }
}

#[test]
fn files_over_the_limit_are_refused_without_reading_them() {
    let mut big = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  k: ".to_vec();
    big.resize(MAX_INPUT_BYTES + 1, b'x');
    assert_eq!(
        parse_manifests("big.yaml", &big).unwrap_err().to_string(),
        "big.yaml: error reading big.yaml: the file is 16777217 bytes, larger than the 16 MiB (16777216 bytes) podflow reads"
    );
}

#[test]
fn alias_bombs_are_refused() {
    // "Billion laughs": nine levels of ten aliases each, 10^9 values if expanded.
    let mut bomb = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let p = i - 1;
        let refs = vec![format!("*a{p}"); 10].join(", ");
        writeln!(bomb, "a{i}: &a{i} [{refs}]").unwrap();
    }
    let error = parse_manifests("bomb.yaml", bomb.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("bomb.yaml:")
            && error.ends_with("yaml: document contains excessive aliasing"),
        "{error}"
    );

    // Wide: one large anchor referenced many times.
    let mut wide = format!("a: &a [{}]\nb:\n", vec!["x"; 1_000].join(", "));
    for _ in 0..200 {
        wide.push_str("  - *a\n");
    }
    let error = parse_manifests("wide.yaml", wide.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("wide.yaml:") && error.contains("error parsing wide.yaml"),
        "{error}"
    );
}

#[test]
fn deep_nesting_is_refused() {
    let mut block = String::new();
    for i in 0..200 {
        writeln!(block, "{}a:", "  ".repeat(i)).unwrap();
    }
    assert_eq!(
        parse_manifests("deep.yaml", block.as_bytes())
            .unwrap_err()
            .to_string(),
        "deep.yaml:49:97: error parsing deep.yaml: error converting YAML to JSON: yaml: exceeded max depth of 48"
    );
    let flow = "a: ".to_owned() + &"[".repeat(100_000);
    let error = parse_manifests("flow.yaml", flow.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("flow.yaml:1:"), "{error}");
    let json = "{\"a\":".repeat(100_000);
    assert_eq!(
        parse_manifests("deep.json", json.as_bytes())
            .unwrap_err()
            .to_string(),
        "deep.json:1:636: error parsing deep.json: recursion limit exceeded"
    );
}

#[test]
fn bad_simulation_fields_are_named() {
    let bytes = read_file(&format!("{DIR}/bad-simulation.yaml")).unwrap();
    assert_eq!(
        parse_cluster("cluster.yaml", &bytes)
            .unwrap_err()
            .to_string(),
        "cluster.yaml:6:12: users[0].grups: unknown field `grups`, expected one of `name`, `token`, `groups`"
    );
}

fn summary(name: &str) -> Vec<(String, String, usize, Vec<String>)> {
    let bytes = read_file(&format!("{DIR}/{name}")).unwrap();
    parse_manifests(name, &bytes)
        .unwrap()
        .into_iter()
        .map(|m| {
            (
                m.object.kind().kind.to_owned(),
                m.object.namespaced_name(),
                m.location.line,
                m.unknown_fields,
            )
        })
        .collect()
}

#[test]
fn good_files_read_in_order() {
    let s = |k: &str, n: &str, line: usize, unknown: &[&str]| {
        (
            k.to_owned(),
            n.to_owned(),
            line,
            unknown.iter().map(|u| (*u).to_owned()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        summary("good-multi.yaml"),
        [
            s("Namespace", "dev", 2, &[]),
            s(
                "Pod",
                "dev/nginx",
                10,
                &["spec.containers[0].imagePullPolicyy"]
            ),
            s("Deployment", "web", 21, &[]),
        ]
    );
    assert_eq!(summary("good.json"), [s("Service", "web", 1, &[])]);
    assert_eq!(
        summary("list.yaml"),
        [
            s("ConfigMap", "a", 4, &[]),
            s("Pod", "b", 11, &[]),
            s("Secret", "c", 14, &[])
        ]
    );
}

#[test]
fn a_directory_reads_its_manifests_in_name_order() {
    let dir = std::env::temp_dir().join(format!("podflow-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("b.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("a.json"),
        "{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"a\"}}",
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), "not a manifest").unwrap();
    let names: Vec<String> = read_manifests(dir.to_str().unwrap())
        .unwrap()
        .iter()
        .map(|m| m.object.name().to_owned())
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(names, ["a", "b"]);
}
