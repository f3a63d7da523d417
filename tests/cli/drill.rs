//! `podflow drill` as a script uses it: `drill check` prints a line per seed
//! and its exit status says whether every drill was broken then fixed;
//! `drill show` prints a lesson `lessons check` accepts; without a terminal
//! the TUI is refused with a hint.

use std::process::{Command, Output};

fn podflow(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_podflow"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("podflow runs")
}

#[test]
fn drill_check_prints_a_line_per_seed_with_its_faults() {
    let out = podflow(&["drill", "check", "--seeds", "14..15"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "seed 14: fault=image-typo ok");
    assert_eq!(lines[1], "seed 15: fault=missing-configmap-key ok");
    assert!(lines[2].starts_with("2 drills ok at level 1"), "{text}");
}

#[test]
fn drill_check_refuses_bad_seeds_and_levels() {
    let out = podflow(&["drill", "check", "--seeds", "9..2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("9 is after 2"));
    let out = podflow(&["drill", "check", "--level", "4"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn drill_show_prints_a_lesson_that_checks() {
    let out = podflow(&["drill", "show", "--seed", "11", "--level", "2"]);
    assert_eq!(out.status.code(), Some(0));
    let dir = std::env::temp_dir().join(format!("podflow-drill-show-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("drill.json");
    std::fs::write(&file, &out.stdout).unwrap();
    let checked = podflow(&["lessons", "check", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&checked.stdout);
    assert_eq!(
        checked.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    assert!(text.contains("drill-l2-11"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn drill_without_a_terminal_says_what_works_headless() {
    let out = podflow(&["drill", "--seed", "3"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("podflow drill needs a terminal"), "{err}");
}
