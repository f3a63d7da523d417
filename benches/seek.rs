//! Seek latency in a long trace (issue 9): a Deployment of 1,000 replicas on
//! a generated cluster of 100 workers, `--detail summary` (over 100,000
//! records), then seeks to pseudo-random steps: the seek alone (the App's
//! `Action::Seek` and the timeline's view of the step) and the seek with one
//! frame at 120×40 and at 200×50, and steps forward with a frame each (as a
//! teacher steps), then prints the 200×50 frame at the trace's last step.
//! Prints the median and the worst; the aim is under 1 ms.
//!
//! `cargo bench --bench seek`; a plain `main` that prints, as `benches/scheduler.rs`.
//! `PODFLOW_BENCH_REPLICAS=10000 PODFLOW_BENCH_NODES=1000` runs it on a larger
//! Deployment and cluster (the aim there: a frame under 16 ms).

mod allocator;

mod common;

use std::time::{Duration, Instant};

use podflow::tui::action::Action;
use podflow::tui::app::App;
use podflow::tui::lang::Lang;
use podflow::tui::theme::ThemeName;
use podflow_engine::timeline::Timeline;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const NODES: usize = 100;
const ZONES: usize = 10;
const REPLICAS: usize = 1_000;
/// A trace shorter than this is a mistake in the bench.
const MIN_RECORDS: usize = 100_000;
/// Seeks measured alone, and with a frame each.
const SEEKS: usize = 500;
const FRAMES: usize = 200;
/// Stepping forward: this many runs of this many steps.
const STEP_RUNS: usize = 20;
const STEPS_EACH: usize = 10;

/// The run, as `podflow trace --cluster <gen-cluster> -f web.yaml --detail summary` computes it.
fn timeline(replicas: usize, nodes: usize) -> Timeline {
    Timeline::new(common::deployment_engine(nodes, ZONES, replicas))
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

/// Seeks to each of `targets` and draws one `width`×`height` frame.
fn framed(app: &mut App, targets: &[usize], width: u16, height: u16) -> Vec<Duration> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    targets
        .iter()
        .map(|&step| {
            let t = Instant::now();
            app.update(Action::Seek(step));
            terminal
                .draw(|frame| frame.render_widget(&*app, frame.area()))
                .expect("draw");
            t.elapsed()
        })
        .collect()
}

fn main() {
    // As `podflow play` does: the panes read replaced versions' digests.
    podflow::tui::panes::store_index::keep_digests();
    podflow::memory::no_huge_pages();
    let replicas = common::env_or("PODFLOW_BENCH_REPLICAS", REPLICAS);
    let nodes = common::env_or("PODFLOW_BENCH_NODES", NODES);
    let started = Instant::now();
    let timeline = timeline(replicas, nodes);
    let built = started.elapsed();
    let records = timeline.len();
    assert!(
        replicas != REPLICAS || records >= MIN_RECORDS,
        "only {records} records"
    );
    println!(
        "seek: {records} records (Deployment of {replicas} replicas on {nodes} nodes, \
         --detail summary), built in {:.1} s",
        built.as_secs_f64()
    );
    let started = Instant::now();
    let mut app = App::new(timeline, Lang::En, ThemeName::Dark, false);
    println!(
        "app: ready in {:.1} ms (the panes' summaries of 64 steps across the run kept)",
        started.elapsed().as_secs_f64() * 1e3
    );
    let targets = steps(records, SEEKS);

    let mut alone = Vec::with_capacity(SEEKS);
    for &step in &targets {
        let t = Instant::now();
        app.update(Action::Seek(step));
        std::hint::black_box(app.timeline.view(step));
        alone.push(t.elapsed());
    }
    println!("seek alone: {SEEKS} random seeks, {}", summary(alone));

    for (width, height) in [(120, 40), (200, 50)] {
        let samples = framed(&mut app, &targets[..FRAMES], width, height);
        println!(
            "seek + frame {width}×{height}: {FRAMES} random seeks, {}",
            summary(samples)
        );
    }

    // Stepping: from each of a few random steps, ten steps forward.
    let stepped: Vec<usize> = targets[..STEP_RUNS]
        .iter()
        .flat_map(|&from| (from..from + STEPS_EACH).map(|s| s.min(records - 1)))
        .collect();
    let samples = framed(&mut app, &stepped, 120, 40);
    println!(
        "step + frame 120×40: {} steps forward from {STEP_RUNS} random steps, {}",
        stepped.len(),
        summary(samples)
    );

    let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
    app.update(Action::Seek(records - 1));
    let t = Instant::now();
    terminal
        .draw(|frame| frame.render_widget(&app, frame.area()))
        .expect("draw");
    let last = t.elapsed();
    println!(
        "frame 200×50 at the last step ({:.3} ms):",
        last.as_secs_f64() * 1e3
    );
    let buffer = terminal.backend().buffer();
    for y in 0..buffer.area.height {
        let line: String = (0..buffer.area.width)
            .map(|x| buffer[(x, y)].symbol())
            .collect();
        println!("{}", line.trim_end());
    }
}
