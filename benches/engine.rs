//! Engine throughput: the whole default story, headless, as `podflow trace` runs it.

mod allocator;

use podflow_engine::engine::{Engine, Until};
use podflow_engine::setup::{NGINX_POD, SetupArgs, build_setup};

fn main() {
    podflow::memory::no_huge_pages();
    divan::main();
}

#[divan::bench]
fn nginx_story_to_running() -> usize {
    let args = SetupArgs {
        embedded: vec![NGINX_POD],
        seed: 1,
        ..SetupArgs::default()
    };
    let mut engine = Engine::new(build_setup(&args).expect("setup"));
    engine.run_until(Until::Idle).len()
}
