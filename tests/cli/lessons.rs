//! Lessons: every shipped lesson passes `lessons check`, and every bad lesson
//! under `tests/bad-lessons/` is refused with its `file:line:col: message`,
//! by the checker and by `podflow lessons check` alike.

use podflow_lesson::{self as lesson, Lesson, embedded};

fn check(path: &str) -> Result<lesson::Summary, String> {
    let lesson = Lesson::load(path).map_err(|e| e.to_string())?;
    lesson::check(&lesson).map_err(|e| e.to_string())
}

#[test]
fn shipped_lessons_pass_check() {
    for (file, _) in embedded::LESSONS {
        let summary = check(file).unwrap_or_else(|e| panic!("{e}"));
        assert!(summary.steps >= 5, "{file}");
    }
}

#[test]
fn bad_lessons_give_their_message() {
    let cases = [
        (
            "tests/bad-lessons/broken-yaml.yaml",
            "tests/bad-lessons/broken-yaml.yaml:3:",
        ),
        (
            "tests/bad-lessons/unknown-step.yaml",
            "tests/bad-lessons/unknown-step.yaml:7:5: unknown variant `dance`, expected one of narrate, command, pause, quiz, goal",
        ),
        (
            "tests/bad-lessons/unreachable-until.yaml",
            "tests/bad-lessons/unreachable-until.yaml:16:14: until \"pod ghost scheduled\" is never reached: the run goes idle at",
        ),
        (
            "tests/bad-lessons/missing-translation.yaml",
            "tests/bad-lessons/missing-translation.yaml:7:9: step 1 (narrate): missing translation: no \"zh\" text",
        ),
        (
            "tests/bad-lessons/path-outside.yaml",
            "tests/bad-lessons/path-outside.yaml:6:12: the path \"../fixtures/ssd-pod.yaml\" is outside the lesson's folder; a lesson may only name its own files",
        ),
    ];
    for (path, want) in cases {
        let got = check(path).expect_err(path);
        assert!(got.starts_with(want), "{path}:\n got {got}\nwant {want}");
        // The player refuses the lesson with the same message.
        assert_eq!(embedded::open(path).unwrap_err().to_string(), got);
    }
}

#[test]
fn lessons_check_exits_non_zero_on_the_first_bad_lesson() {
    let bin = env!("CARGO_BIN_EXE_podflow");
    let out = std::process::Command::new(bin)
        .args([
            "lessons",
            "check",
            "lessons",
            "tests/bad-lessons/unknown-step.yaml",
            "tests/bad-lessons/path-outside.yaml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("tests/bad-lessons/unknown-step.yaml:7:5: unknown variant `dance`"),
        "{stderr}"
    );
    assert!(!stderr.contains("path-outside"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("ok  lessons/01-apply-to-running.yaml  apply-to-running"),
        "{stdout}"
    );
    let out = std::process::Command::new(bin)
        .args(["lessons", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    // The ids in a column as wide as the longest, `storage-from-claim-to-mount`.
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        list.starts_with(&format!(
            "{:<27} From kubectl apply to Running\n",
            "apply-to-running"
        )),
        "{list}"
    );
    assert_eq!(list.lines().count(), 12, "{list}");
}

/// `lessons show ID` prints the built-in file as written (a template for a
/// lesson of one's own); an unknown id names the ones there are.
#[test]
fn lessons_show_prints_a_built_in_lesson() {
    let bin = env!("CARGO_BIN_EXE_podflow");
    let out = std::process::Command::new(bin)
        .args(["lessons", "show", "the-kubelet"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let shown = String::from_utf8_lossy(&out.stdout);
    let (_, text) = embedded::LESSONS
        .iter()
        .find(|(file, _)| file.ends_with("05-the-kubelet.yaml"))
        .expect("lesson 5 is built in");
    assert_eq!(shown, *text);
    let out = std::process::Command::new(bin)
        .args(["lessons", "show", "the-kubelett"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the built-in lessons are apply-to-running,"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
