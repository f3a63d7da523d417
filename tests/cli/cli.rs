//! The `podflow` binary as scripts use it: exit statuses and one-line errors
//! (docs/architecture.md and README.md, "Use").

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn podflow(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_podflow"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("podflow runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_refused_request_is_part_of_the_story_not_an_error() {
    let out = podflow(&["trace", "-f", "tests/fixtures/dev-pod.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(r#"404 namespaces "dev" not found"#), "{text}");
}

#[test]
fn a_missing_file_exits_2_naming_it() {
    let out = podflow(&["trace", "-f", "nope.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out).trim(),
        r#"nope.yaml: the path "nope.yaml" does not exist"#
    );
    assert!(
        out.stdout.is_empty(),
        "nothing is printed before the input is read"
    );
}

#[test]
fn malformed_yaml_names_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("podflow-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [oops\n",
    )
    .unwrap();
    let out = podflow(&["trace", "-f", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(
        message.starts_with(&format!("{}:", file.display())),
        "{message}"
    );
}

#[test]
fn a_bad_step_is_a_usage_error() {
    let out = podflow(&["trace", "--step", "frobnicate x"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out).trim(),
        r#"--step "frobnicate x": error: unknown command "frobnicate" for "kubectl""#
    );
}

#[test]
fn a_bad_flag_is_a_usage_error() {
    let out = podflow(&["trace", "--until", "soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(r#"invalid duration "soon""#),
        "{}",
        stderr(&out)
    );
}

#[test]
fn manifests_come_from_standard_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_podflow"))
        .args([
            "trace", "-f", "-", "--format", "jsonl", "--detail", "summary",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("podflow runs");
    let manifest = std::fs::read("assets/manifests/nginx-pod.yaml").unwrap();
    child.stdin.take().unwrap().write_all(&manifest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .starts_with(r#"{"seq":0,"t_ms":0,"kind":"message""#)
    );
    assert!(text.contains(r#""reason":"Started""#));
}

#[test]
fn until_a_duration_stops_the_clock_there() {
    let out = podflow(&[
        "trace",
        "-f",
        "assets/manifests/nginx-pod.yaml",
        "--until",
        "1s",
        "--format",
        "jsonl",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains(r#""reason":"Started""#),
        "the container starts after 1s"
    );
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "final");
    assert_eq!(last["t_ms"], 1000);
}

#[test]
fn mermaid_is_a_sequence_diagram_of_declared_participants() {
    let out = podflow(&[
        "trace",
        "-f",
        "assets/manifests/nginx-pod.yaml",
        "--format",
        "mermaid",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("sequenceDiagram"));
    let declared: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("participant "))
        .filter_map(|l| l.split(' ').next())
        .collect();
    for line in text.lines().map(str::trim).filter(|l| l.contains("->>")) {
        let (from, rest) = line.split_once('-').unwrap();
        let to = rest
            .trim_start_matches(['-', '>'])
            .split(':')
            .next()
            .unwrap();
        assert!(declared.contains(&from), "{from} undeclared in {line}");
        assert!(declared.contains(&to), "{to} undeclared in {line}");
    }
}

/// `PODFLOW_LOG` writes diagnostics to the state directory's `podflow.log`,
/// never to the terminal: the trace on standard output is the same bytes.
#[test]
fn podflow_log_writes_to_the_state_directory_not_the_screen() {
    let state = std::env::temp_dir().join(format!("podflow-log-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let args = ["trace", "-f", "assets/manifests/nginx-pod.yaml"];
    let quiet = podflow(&args);
    let logged = Command::new(env!("CARGO_BIN_EXE_podflow"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PODFLOW_LOG", "info")
        .env("XDG_STATE_HOME", &state)
        .output()
        .expect("podflow runs");
    assert_eq!(logged.status.code(), Some(0), "{}", stderr(&logged));
    assert_eq!(logged.stdout, quiet.stdout);
    assert!(logged.stderr.is_empty(), "{}", stderr(&logged));
    let log = std::fs::read_to_string(state.join("podflow/podflow.log")).expect("the log file");
    assert!(log.contains("podflow started"), "{log}");
    assert!(log.contains("command{name=\"trace\"}"), "{log}");
    assert!(log.contains("run finished"), "{log}");
    let _ = std::fs::remove_dir_all(&state);

    // A filter tracing cannot read is said once, and the run goes on.
    let bad = Command::new(env!("CARGO_BIN_EXE_podflow"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PODFLOW_LOG", "=[")
        .output()
        .expect("podflow runs");
    assert_eq!(bad.status.code(), Some(0));
    assert_eq!(bad.stdout, quiet.stdout);
    assert!(
        stderr(&bad).starts_with("podflow: PODFLOW_LOG="),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn only_keeps_one_objects_story_in_a_small_diagram() {
    let out = podflow(&[
        "trace",
        "-f",
        "tests/fixtures/missing-image-pod.yaml",
        "--until",
        "40s",
        "--only",
        "pod/missing",
        "--format",
        "mermaid",
        "--detail",
        "summary",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("sequenceDiagram\n"), "{text}");
    assert!(
        text.contains("apiserver->>etcd: txn put /registry/pods/default/missing"),
        "{text}"
    );
    assert!(
        text.contains("Warning Failed: Error: ErrImagePull"),
        "{text}"
    );
    assert!(!text.contains("/leases/"), "{text}");
    assert!(text.len() < 10_000, "{} characters", text.len());
    let bad = podflow(&["trace", "--only", "nginx"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("want KIND/NAME"), "{}", stderr(&bad));
}
