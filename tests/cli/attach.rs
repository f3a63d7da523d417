//! `podflow attach` as a user runs it, against `podflow serve` in-process
//! (the nginx Pod applied as it starts): `--format jsonl --until` prints the
//! observed records and a final one, `--record` saves them, and `podflow
//! play --observed` draws the recording; without `--format` and without a
//! terminal it says what to use instead.

use std::process::{Command, Output};

use podflow_engine::engine::Engine;
use podflow_server::driver::Speed;
use podflow_server::served::served_setup;
use podflow_server::{Listen, Options, start};

fn podflow(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_podflow"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("podflow runs")
}

#[test]
fn attach_prints_records_and_its_recording_replays() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let manifest = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/manifests/nginx-pod.yaml"
    );
    let epoch = podflow_engine::clock::EPOCH_UNIX_SECONDS;
    let (setup, users) = served_setup(None, &[manifest.to_owned()], 1, epoch).unwrap();
    let running = runtime
        .block_on(start(Options {
            listen: Listen {
                address: "127.0.0.1".into(),
                port: 0,
                users,
                recording: false,
            },
            engine: Engine::new(setup),
            speed: Speed::Max,
            sink: None,
            session: None,
        }))
        .expect("the server starts");
    let dir = std::env::temp_dir().join(format!("podflow-attach-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(&kubeconfig, &running.kubeconfig).unwrap();
    let recording = dir.join("observed.jsonl");
    let (kc, rec) = (kubeconfig.to_str().unwrap(), recording.to_str().unwrap());

    let out = podflow(&[
        "attach",
        "--kubeconfig",
        kc,
        "--format",
        "jsonl",
        "--until",
        "2s",
        "--record",
        rec,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["seq"], 0);
    assert!(lines.iter().any(|l| l["kind"] == "watch"
        && l["type"] == "ADDED"
        && l["resource"] == "pods"
        && l["name"] == "nginx"));
    assert!(
        lines
            .iter()
            .any(|l| l["kind"] == "event" && l["reason"] == "Started")
    );
    let last = lines.last().unwrap();
    assert_eq!(last["kind"], "final");
    assert!(
        last["objects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["kind"] == "Pod")
    );
    let recorded = std::fs::read_to_string(&recording).unwrap();
    assert_eq!(recorded.lines().count(), lines.len());
    assert!(recorded.contains(r#""object":{"apiVersion":"v1","kind":"Pod""#));

    let shot = podflow(&[
        "play",
        "--observed",
        rec,
        "--screenshot",
        "-",
        "--at-step",
        "2",
    ]);
    assert_eq!(
        shot.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    assert!(String::from_utf8_lossy(&shot.stdout).contains("podflow-attach"));

    refusals(kc);
    runtime.block_on(running.stop());
    let _ = std::fs::remove_dir_all(&dir);
}

/// What `attach` refuses, in kubectl's words where kubectl has some.
fn refusals(kc: &str) {
    let no_tui = podflow(&["attach", "--kubeconfig", kc]);
    assert_eq!(no_tui.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&no_tui.stderr),
        "error: podflow attach needs a terminal for its TUI; use --format jsonl or --format text\n"
    );
    let no_context = podflow(&[
        "attach",
        "--kubeconfig",
        kc,
        "--context",
        "nope",
        "--format",
        "jsonl",
    ]);
    assert_eq!(no_context.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&no_context.stderr),
        "Error in configuration: context was not found for specified context: nope\n"
    );
}
