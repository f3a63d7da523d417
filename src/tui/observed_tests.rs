//! The TUI on an observed cluster: a recording of `podflow attach` against
//! `podflow serve` while `kubectl apply -f assets/manifests/nginx-pod.yaml`
//! ran (tests/fixtures/observed-nginx.jsonl), replayed as `play --observed`
//! does, drawn on ratatui's `TestBackend`; batches arriving as the watches
//! make them; and the `:` bar, which has no cluster of its own to command.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::action::Action;
use super::app::{App, Overlay};
use super::lang::Lang;
use super::observed::{Batch, Observing};
use super::testing::{buffer_text, find};
use super::theme::ThemeName;
use podflow_engine::clock::SimTime;
use podflow_engine::store::Store;
use podflow_engine::timeline::Timeline;

const RECORDING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/observed-nginx.jsonl"
);

fn replayed() -> Timeline {
    let file = std::fs::File::open(RECORDING).expect("the recording is there");
    let recorded = podflow_attach::replay::read(std::io::BufReader::new(file), RECORDING)
        .expect("the recording reads");
    podflow_attach::replay::timeline(recorded)
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("drawing never fails");
    buffer_text(terminal.backend().buffer())
}

/// The Pod's last change (Running, with its IP) and the moment it was
/// scheduled: time travel over what was observed.
#[test]
fn a_recorded_observation_replays_in_the_panes() {
    let timeline = replayed();
    let scheduled = find(&timeline, "Successfully assigned default/nginx");
    let running = find(&timeline, "pods/default/nginx rv=107");
    let mut app = App::new(timeline, Lang::En, ThemeName::Dark, false);
    app.update(Action::Seek(running));
    insta::assert_snapshot!("observed_nginx_running_120x40", screen(&app, 120, 40));
    app.update(Action::Seek(scheduled));
    insta::assert_snapshot!("observed_nginx_scheduled_120x40", screen(&app, 120, 40));
    app.lang = Lang::Zh;
    insta::assert_snapshot!("observed_nginx_scheduled_zh_120x40", screen(&app, 120, 40));
}

#[test]
fn observed_batches_are_appended_and_commands_are_refused() {
    let (sender, batches) = tokio::sync::mpsc::channel(8);
    let mut app = App::new(Timeline::observed(), Lang::En, ThemeName::Dark, false);
    app.observing = Some(Box::new(Observing { batches }));
    assert!(!app.run_is_over(), "an attached cluster goes on");
    let replay = replayed();
    for (i, record) in replay.records().iter().take(3).enumerate() {
        let batch = Batch {
            records: vec![record.clone()],
            store: Store::default(),
            now: SimTime(u64::try_from(i).unwrap()),
        };
        sender.try_send(batch).unwrap();
    }
    app.observe_tick();
    assert_eq!(app.timeline.len(), 3);
    app.update(Action::OpenCommand);
    assert!(matches!(app.overlay, Overlay::None));
    assert_eq!(
        app.notice.as_deref(),
        Some("attached to a real cluster: commands go through kubectl, not the : bar")
    );
}
