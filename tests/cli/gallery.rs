//! The README's pictures are podflow's own output, kept current: every
//! screen under `assets/screens/` and the cast under `assets/casts/` must be
//! what podflow writes today. After a change that moves them, regenerate
//! each with the command its test names.

use std::process::Command;

fn podflow(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_podflow"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("podflow runs");
    assert!(
        out.status.success(),
        "podflow {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn asset(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `podflow ARGS --screenshot - --cols 120 --rows 36` gives `file`.
fn screen_is(file: &str, args: &[&str]) {
    let mut all = args.to_vec();
    all.extend(["--screenshot", "-", "--cols", "120", "--rows", "36"]);
    let now = podflow(&all);
    assert!(
        now == asset(file),
        "{file} is out of date; regenerate it with: podflow {} --screenshot {file} --cols 120 --rows 36",
        args.join(" ")
    );
}

#[test]
fn the_scheduler_choosing_a_node() {
    screen_is(
        "assets/screens/nginx-select.txt",
        &[
            "play",
            "-f",
            "assets/manifests/nginx-pod.yaml",
            "--at-step",
            "68",
        ],
    );
    // The README shows the same screen in its Gallery.
    let readme = asset("README.md");
    let gallery = &readme[readme.find("## Gallery").expect("a Gallery section")..];
    let start = gallery.find("```text\n").expect("a screen in the Gallery") + "```text\n".len();
    let end = start + gallery[start..].find("```\n").expect("the screen's end");
    assert!(
        gallery[start..end] == asset("assets/screens/nginx-select.txt"),
        "the README's Gallery screen differs from assets/screens/nginx-select.txt: paste the file there"
    );
}

#[test]
fn a_lesson_quiz() {
    screen_is(
        "assets/screens/lesson-scheduler-quiz.txt",
        &["play", "--lesson", "the-scheduler", "--at-step", "11"],
    );
}

#[test]
fn a_deployment_as_an_owner_tree() {
    screen_is(
        "assets/screens/deployment-owners.txt",
        &[
            "play",
            "-f",
            "tests/fixtures/web-deployment.yaml",
            "--at-step",
            "685",
        ],
    );
}

#[test]
fn the_recorded_first_lesson() {
    let now = podflow(&["record", "--lesson", "apply-to-running", "-o", "-"]);
    assert!(
        now == asset("assets/casts/apply-to-running.cast"),
        "assets/casts/apply-to-running.cast is out of date; regenerate it with: \
         podflow record --lesson apply-to-running -o assets/casts/apply-to-running.cast"
    );
}
