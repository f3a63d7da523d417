//! Replays every file of the fuzz corpora (`fuzz/corpus/<target>/`) through the
//! entry points the fuzz targets call, so a plain `cargo test` (no nightly, no
//! cargo-fuzz) keeps every input the fuzzers found, and every crash they found
//! (`fuzz/corpus/<target>/crash-*`), from regressing: each must return, not panic.

use std::path::Path;

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
fn manifests_corpus() {
    let files = corpus("manifests");
    assert!(!files.is_empty());
    for (name, bytes) in files {
        eprintln!("{name}");
        let _ = podflow_scenario::parse_manifests("fuzz.yaml", &bytes);
    }
}

#[test]
fn cluster_corpus() {
    let files = corpus("cluster");
    assert!(!files.is_empty());
    for (name, bytes) in files {
        eprintln!("{name}");
        let _ = podflow_scenario::parse_cluster("fuzz.yaml", &bytes);
    }
}

#[test]
fn lesson_corpus() {
    let files = corpus("lesson");
    assert!(!files.is_empty());
    for (name, bytes) in files {
        eprintln!("{name}");
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let _ = podflow_lesson::Lesson::parse("fuzz.yaml", text, None);
        }
    }
}

#[test]
fn command_corpus() {
    let files = corpus("command");
    assert!(!files.is_empty());
    for (name, bytes) in files {
        eprintln!("{name}");
        if let Ok(line) = std::str::from_utf8(&bytes) {
            let _ = podflow_engine::command::parse(line);
        }
    }
}
