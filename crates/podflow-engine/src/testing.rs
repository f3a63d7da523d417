//! Fixtures for tests, here and in the crates above (feature `testing`):
//! engines and timelines of the default story and of the cluster files under
//! the repository's `tests/fixtures/`.

use crate::engine::Engine;
use crate::setup::{NGINX_POD, SetupArgs, build_setup};
use crate::timeline::Timeline;

/// The path of a file under the repository's `tests/fixtures/`.
pub fn fixture(name: &str) -> String {
    format!("{}/../../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The default story: the bare nginx Pod on the default cluster.
pub fn nginx_timeline() -> Timeline {
    timeline(&[], None)
}

/// The default story's engine, before its first step.
pub fn nginx_engine() -> Engine {
    engine(&[], None)
}

/// A timeline of the nginx Pod followed by `steps`, on `cluster` (a file under
/// `tests/fixtures/`, or the default cluster).
pub fn timeline(steps: &[&str], cluster: Option<&str>) -> Timeline {
    Timeline::new(engine(steps, cluster))
}

/// The engine of [`timeline`], before its first step.
pub fn engine(steps: &[&str], cluster: Option<&str>) -> Engine {
    let args = SetupArgs {
        embedded: vec![NGINX_POD],
        steps: steps.iter().map(|s| (*s).to_owned()).collect(),
        cluster: cluster.map(fixture),
        seed: 1,
        ..SetupArgs::default()
    };
    Engine::new(build_setup(&args).expect("the test setup builds"))
}

/// The revisions of the writes to `key` (`/registry/pods/default/nginx`),
/// in order: tests name "the bind's write" without counting the cluster's
/// own objects.
pub fn write_revisions(timeline: &Timeline, key: &str) -> Vec<u64> {
    let prefix = format!("wrote {key} at revision ");
    timeline
        .records()
        .iter()
        .filter_map(|r| {
            let line = crate::export::text::line(r);
            let at = line.find(&prefix)? + prefix.len();
            line[at..].split_whitespace().next()?.parse().ok()
        })
        .collect()
}

/// The index of the first record whose text line contains `needle`.
pub fn find(timeline: &Timeline, needle: &str) -> usize {
    timeline
        .records()
        .iter()
        .position(|r| crate::export::text::line(r).contains(needle))
        .unwrap_or_else(|| panic!("no record contains {needle:?}"))
}

/// Checks that [`write_final`](crate::export::jsonl::write_final) with
/// `serialize` writes the nginx run's `final` line as serde writes it, in
/// chunks of one object to more than all.
pub fn assert_final_line_is_serdes(serialize: crate::export::jsonl::SerializeChunks<'_>) {
    let mut engine = nginx_engine();
    engine.run_until(crate::engine::Until::Idle);
    let last = engine.final_record();
    let serde_line = serde_json::to_vec(&last).unwrap();
    let crate::trace::Record::Final { objects } = &last.body else {
        panic!("not the final record");
    };
    for chunk in [1, 2, 3, 7, objects.len() + 1] {
        let mut line = Vec::new();
        crate::export::jsonl::write_final(&mut line, &last, chunk, serialize).unwrap();
        assert_eq!(line, serde_line, "in chunks of {chunk}");
    }
}
