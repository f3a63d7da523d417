//! Finds the lessons to build in: every `lessons/*.yaml` of the repository, in
//! file-name order (the course order), written to `$OUT_DIR/lessons.rs` as a
//! list of (file, text) for `embedded.rs`. A new lesson file is embedded (and
//! checked by the tests) without editing any source.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest_dir).join("../../lessons");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut out = String::from("&[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 file name");
        let absolute = path.canonicalize().expect("the lesson file exists");
        let absolute = absolute.to_str().expect("a UTF-8 path");
        writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            format!("lessons/{name}"),
            absolute
        )
        .expect("writing to a String");
    }
    out.push(']');
    let target =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("lessons.rs");
    std::fs::write(&target, out).unwrap_or_else(|e| panic!("write {}: {e}", target.display()));
}
