//! Frame cost: the full layout at 200×50 in the middle of the default story,
//! and seeking to a step. The aim is under 1 ms a frame.

mod allocator;

use podflow::tui::action::Action;
use podflow::tui::app::App;
use podflow::tui::lang::Lang;
use podflow::tui::theme::ThemeName;
use podflow_engine::engine::Engine;
use podflow_engine::setup::{NGINX_POD, SetupArgs, build_setup};
use podflow_engine::timeline::Timeline;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn main() {
    podflow::memory::no_huge_pages();
    divan::main();
}

fn nginx_app() -> App {
    let args = SetupArgs {
        embedded: vec![NGINX_POD],
        seed: 1,
        ..SetupArgs::default()
    };
    let timeline = Timeline::new(Engine::new(build_setup(&args).expect("setup")));
    let mut app = App::new(timeline, Lang::En, ThemeName::Dark, false);
    let middle = app.last() / 2;
    app.update(Action::Seek(middle));
    app
}

#[divan::bench]
fn full_frame_200x50(bencher: divan::Bencher) {
    let app = nginx_app();
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
    bencher.bench_local(|| {
        terminal
            .draw(|frame| frame.render_widget(&app, frame.area()))
            .expect("draw");
    });
}

#[divan::bench]
fn seek_and_frame_120x40(bencher: divan::Bencher) {
    let mut app = nginx_app();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    let mut step = 0;
    bencher.bench_local(|| {
        step = (step + 37) % app.timeline.len();
        app.update(Action::Seek(step));
        terminal
            .draw(|frame| frame.render_widget(&app, frame.area()))
            .expect("draw");
    });
}
