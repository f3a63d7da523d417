//! Hostile input through the real binary: every file ends `podflow` within a
//! bound, never with a panic or a hang. Input kubectl would refuse before it
//! sends anything exits 2 with one line naming the file (and line:column where
//! one applies); input kubectl sends and the API server refuses is shown in the
//! trace with the API server's words (`422 ... is invalid`), as on a real cluster.
//!
//! Small files live in `tests/bad-input/hostile/`; the huge ones (100 MB,
//! 100,000 `[`, 10,000 containers, a 10,000-character name) are made here.

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bad-input/hostile");

/// Generous for a slow, shared CI machine (a debug build reads 10,000 containers in
/// about 3 s of CPU); a hang never ends.
const DEADLINE: Duration = Duration::from_secs(30);

/// Runs podflow in `dir`, killing it at the deadline; `None` if it did not end.
fn podflow(dir: &Path, args: &[&str]) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_podflow"))
        .args(args)
        .current_dir(dir)
        .env("XDG_STATE_HOME", dir.join("state"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Drain the pipes on threads, so a large trace cannot block the child.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::yield_now();
    };
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    status.map(|status| Output {
        status,
        stdout,
        stderr,
    })
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("podflow-hostile-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The file is refused: exit 2, one line on stderr starting `FILE:` and
/// holding `want`, nothing on stdout.
fn assert_refused(dir: &Path, args: &[&str], file: &str, want: &str) {
    let output =
        podflow(dir, args).unwrap_or_else(|| panic!("{args:?}: no end within {DEADLINE:?}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.starts_with(&format!("{file}:")),
        "{args:?}: {stderr}"
    );
    assert!(stderr.contains(want), "{args:?}: want {want:?} in {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Both ways in: `trace -f` and `play -f --screenshot`.
fn assert_manifest_refused(dir: &Path, file: &str, want: &str) {
    assert_refused(dir, &["trace", "-f", file], file, want);
    assert_refused(
        dir,
        &["play", "-f", file, "--screenshot", "-", "--at-step", "1"],
        file,
        want,
    );
}

/// The trace runs to its end and shows `want` (the API server's answer).
fn assert_traced(dir: &Path, args: &[&str], want: &str) {
    let output =
        podflow(dir, args).unwrap_or_else(|| panic!("{args:?}: no end within {DEADLINE:?}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
    assert!(stdout.contains(want), "{args:?}: want {want:?}");
}

#[test]
fn refused_files_exit_2_with_one_line_naming_the_place() {
    let dir = Path::new(DIR);
    let cases = [
        (
            "alias-bomb.yaml",
            "alias-bomb.yaml:8:22: error parsing alias-bomb.yaml: error converting YAML to JSON: yaml: document contains excessive aliasing",
        ),
        (
            "nul-bytes.yaml",
            "nul-bytes.yaml:4:10: error parsing nul-bytes.yaml: error converting YAML to JSON: yaml: control characters are not allowed",
        ),
        (
            "invalid-utf8.yaml",
            "invalid-utf8.yaml:4:12: error parsing invalid-utf8.yaml: error converting YAML to JSON: yaml: invalid trailing UTF-8 octet",
        ),
        (
            "malformed.yaml",
            "malformed.yaml:4:5: error parsing malformed.yaml: error converting YAML to JSON: yaml: line 4:",
        ),
        (
            "wrong-kind.yaml",
            "wrong-kind.yaml:1:1: resource mapping not found for name: \"web\" namespace: \"\" from \"wrong-kind.yaml\": no matches for kind \"Deployment\" in version \"v1\"; ensure CRDs are installed first",
        ),
        (
            "infinite-cpu.yaml",
            "infinite-cpu.yaml:9:23: error parsing infinite-cpu.yaml: error converting YAML to JSON: json: unsupported value: +Inf",
        ),
    ];
    for (file, want) in cases {
        assert_manifest_refused(dir, file, want);
    }
}

#[test]
fn huge_and_deep_files_are_refused_quickly() {
    let dir = scratch("huge");
    // 100 MB: a sparse file, refused after reading 16 MiB + 1 byte.
    let huge = std::fs::File::create(dir.join("huge.yaml")).unwrap();
    huge.set_len(100 * 1000 * 1000).unwrap();
    drop(huge);
    assert_manifest_refused(
        &dir,
        "huge.yaml",
        "huge.yaml: error reading huge.yaml: the file is larger than the 16 MiB (16777216 bytes) podflow reads",
    );
    std::fs::write(
        dir.join("deep.yaml"),
        "a: ".to_owned() + &"[".repeat(100_000),
    )
    .unwrap();
    assert_manifest_refused(&dir, "deep.yaml", "error parsing deep.yaml");
    std::fs::write(dir.join("deep.json"), "[".repeat(100_000)).unwrap();
    assert_manifest_refused(
        &dir,
        "deep.json",
        "deep.json:1:128: error parsing deep.json: recursion limit exceeded",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn absurd_values_reach_the_api_server_and_are_answered_as_kubernetes_answers() {
    let dir = Path::new(DIR);
    assert_traced(
        dir,
        &["trace", "-f", "cpu-negative.yaml"],
        "422 Pod \"p\" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
    );
    // An overflowing float stays the string go-yaml makes of it: a Quantity too big for any node.
    for file in ["memory-1e400.yaml", "memory-exabytes.yaml"] {
        assert_traced(
            dir,
            &["trace", "-f", file],
            "NodeResourcesFit node-1 [default/p] → fail: Insufficient memory",
        );
    }
    // kubectl sends a value of the wrong type; the API server's decoder refuses it.
    assert_traced(
        dir,
        &["trace", "-f", "wrong-type.yaml"],
        "400 Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container",
    );
    // A repeated key: the last one wins, as `sigs.k8s.io/yaml` reads it.
    assert_traced(
        dir,
        &["trace", "-f", "duplicate-keys.yaml"],
        "POST /api/v1/namespaces/default/pods",
    );
    let output = podflow(dir, &["trace", "-f", "duplicate-keys.yaml"]).unwrap();
    assert!(String::from_utf8_lossy(&output.stdout).contains("pods/second"));
}

#[test]
fn huge_objects_are_refused_by_the_api_server() {
    let dir = scratch("big");
    let name = "x".repeat(10_000);
    std::fs::write(
        dir.join("long-name.yaml"),
        format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers: [{{name: c, image: nginx}}]\n"),
    )
    .unwrap();
    assert_traced(
        &dir,
        &["trace", "-f", "long-name.yaml"],
        "metadata.name: Invalid value: \"xxxx",
    );
    let mut pod =
        String::from("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n");
    for i in 0..10_000 {
        writeln!(pod, "  - {{name: c{i}, image: nginx}}").unwrap();
    }
    std::fs::write(dir.join("many.yaml"), pod).unwrap();
    // kubectl apply's last-applied-configuration annotation outgrows the API server's limit.
    assert_traced(
        &dir,
        &["trace", "-f", "many.yaml"],
        "422 Pod \"p\" is invalid: metadata.annotations: Too long: must have at most 262144 bytes",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_owner_reference_cycle_deleted_in_the_foreground_terminates() {
    let dir = Path::new(DIR);
    assert_traced(
        dir,
        &[
            "trace",
            "-f",
            "owner-cycle.yaml",
            "--step",
            "delete rs a --cascade=foreground",
        ],
        "DELETE /apis/apps/v1/namespaces/default/replicasets/b",
    );
}

#[test]
fn hostile_lessons_are_refused_with_their_place() {
    let dir = Path::new(DIR);
    let cases = [
        (
            "lesson-alias-bomb.yaml",
            "lesson-alias-bomb.yaml:4:1: unknown field `x`",
        ),
        (
            "lesson-nul.yaml",
            "lesson-nul.yaml:1:9: error parsing lesson-nul.yaml: error converting YAML to JSON: yaml: control characters are not allowed",
        ),
        (
            "lesson-invalid-utf8.yaml",
            "lesson-invalid-utf8.yaml:2:13: error parsing lesson-invalid-utf8.yaml: error converting YAML to JSON: yaml: invalid leading UTF-8 octet",
        ),
        (
            "lesson-duplicate-keys.yaml",
            "lesson-duplicate-keys.yaml:2:1: duplicate mapping key: id",
        ),
        (
            "lesson-wrong-type.yaml",
            "lesson-wrong-type.yaml:4:10: invalid u32",
        ),
        (
            "lesson-negative.yaml",
            "lesson-negative.yaml:4:10: invalid u32",
        ),
    ];
    for (file, want) in cases {
        assert_refused(
            dir,
            &[
                "play",
                "--lesson",
                file,
                "--screenshot",
                "-",
                "--at-step",
                "1",
            ],
            file,
            want,
        );
        assert_refused(dir, &["lessons", "check", file], file, want);
    }
}

#[test]
fn a_lesson_that_fails_to_load_leaves_the_progress_file_alone() {
    let dir = scratch("progress");
    let progress = dir.join("state").join("podflow").join("progress.json");
    std::fs::create_dir_all(progress.parent().unwrap()).unwrap();
    let saved = "{\"lessons\":{\"apply-to-running\":{\"step\":3,\"steps\":9,\"done\":false}}}";
    std::fs::write(&progress, saved).unwrap();
    std::fs::copy(
        Path::new(DIR).join("lesson-nul.yaml"),
        dir.join("lesson-nul.yaml"),
    )
    .unwrap();
    let output = podflow(&dir, &["play", "--lesson", "lesson-nul.yaml"]).unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&progress).unwrap(), saved);
    assert_eq!(
        std::fs::read_dir(progress.parent().unwrap())
            .unwrap()
            .count(),
        1
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
