//! Seek latency in a long trace (issue 9): a Deployment of 1,000 replicas on
//! a generated cluster of 100 workers, `--detail summary` (over 100,000
//! records), then seeks to pseudo-random steps: the seek alone (the App's
//! `Action::Seek` and the timeline's view of the step) and the seek with one
//! frame at 120×40. Prints the median and the worst; the aim is under 1 ms.
//!
//! `cargo bench --bench seek`; a plain `main` that prints, as `benches/scheduler.rs`.

mod common;

use std::time::{Duration, Instant};

use podflow::timeline::Timeline;
use podflow::tui::action::Action;
use podflow::tui::app::App;
use podflow::tui::lang::Lang;
use podflow::tui::theme::ThemeName;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const NODES: usize = 100;
const ZONES: usize = 10;
const REPLICAS: usize = 1_000;
/// Seeks measured alone, and with a frame each.
const SEEKS: usize = 500;
const FRAMES: usize = 200;

/// The run, as `podflow trace --cluster <gen-cluster> -f web.yaml --detail summary` computes it.
fn timeline() -> Timeline {
    Timeline::new(common::deployment_engine(NODES, ZONES, REPLICAS))
}

/// A deterministic pseudo-random sequence of steps in `0..len` (an LCG).
fn steps(len: usize, count: usize) -> Vec<usize> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..count)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            #[allow(clippy::cast_possible_truncation)]
            let step = (x >> 33) as usize % len;
            step
        })
        .collect()
}

/// "median 0.012 ms, max 0.345 ms".
fn summary(mut samples: Vec<Duration>) -> String {
    samples.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    format!(
        "median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() * 99 / 100]),
        ms(samples[samples.len() - 1])
    )
}

fn main() {
    let started = Instant::now();
    let timeline = timeline();
    let built = started.elapsed();
    let records = timeline.len();
    assert!(records >= 100_000, "only {records} records");
    println!(
        "seek: {records} records (Deployment of {REPLICAS} replicas on {NODES} nodes, \
         --detail summary), built in {:.1} s",
        built.as_secs_f64()
    );
    let mut app = App::new(timeline, Lang::En, ThemeName::Dark, false);
    let targets = steps(records, SEEKS);

    let mut alone = Vec::with_capacity(SEEKS);
    for &step in &targets {
        let t = Instant::now();
        app.update(Action::Seek(step));
        std::hint::black_box(app.timeline.view(step));
        alone.push(t.elapsed());
    }
    println!("seek alone: {SEEKS} random seeks, {}", summary(alone));

    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    let mut framed = Vec::with_capacity(FRAMES);
    for &step in &targets[..FRAMES] {
        let t = Instant::now();
        app.update(Action::Seek(step));
        terminal
            .draw(|frame| frame.render_widget(&app, frame.area()))
            .expect("draw");
        framed.push(t.elapsed());
    }
    println!(
        "seek + frame 120×40: {FRAMES} random seeks, {}",
        summary(framed)
    );
}
