//! Model and widget tests of the objects pane, on the nginx story.

use super::*;
use crate::tui::lang::Lang;
use crate::tui::panes::{PaneId, PaneState};
use crate::tui::testing::{
    find, nginx_timeline, render_pane, render_pane_with, timeline, write_revisions,
};
use crate::tui::theme::{Theme, ThemeName};
use podflow_engine::timeline::Timeline;

const POD: &str = "/registry/pods/default/nginx";

/// Which write of the Pod: its create, the scheduler's bind, or the
/// kubelet's last status patch (phase Running).
#[derive(Clone, Copy)]
enum PodWrite {
    Create,
    Bind,
    Last,
}

/// The revision of that write.
fn revision(t: &Timeline, write: PodWrite) -> u64 {
    let all = write_revisions(t, POD);
    match write {
        PodWrite::Create => all[0],
        PodWrite::Bind => all[1],
        PodWrite::Last => *all.last().expect("writes"),
    }
}

/// The index of that write's `persist` record.
fn at_write(t: &Timeline, write: PodWrite) -> usize {
    find(
        t,
        &format!("wrote {POD} at revision {}", revision(t, write)),
    )
}

fn model_at(t: &Timeline, index: usize, state: &PaneState) -> Model {
    let theme = Theme::new(ThemeName::Dark, false);
    let cx = PaneCx {
        view: &t.view(index),
        lang: Lang::En,
        theme: &theme,
        focused: false,
        state,
    };
    Model::build(&cx)
}

fn selected_key(model: &Model) -> &str {
    let i = model.selected.expect("a selection") - model.first;
    &model.keys[i].key
}

fn changed_line(shown: &Shown, text: &str) -> bool {
    shown
        .lines
        .iter()
        .find(|l| l.text.trim_start() == text)
        .unwrap_or_else(|| panic!("no line {text:?}"))
        .changed
}

#[test]
fn at_the_binds_persist_the_pod_is_selected_and_its_node_lit() {
    let t = nginx_timeline();
    let at = at_write(&t, PodWrite::Bind);
    let model = model_at(&t, at, &PaneState::default());
    assert_eq!(selected_key(&model), POD);
    let row = model
        .keys
        .iter()
        .find(|k| k.key == POD)
        .expect("the pod key");
    assert!(row.changed);
    assert_eq!(row.mod_revision, revision(&t, PodWrite::Bind));
    assert_eq!(model.keys.iter().filter(|k| k.changed).count(), 1);

    let shown = model.shown.as_ref().expect("the pod");
    assert_eq!(shown.key, POD);
    assert_eq!(shown.revision, revision(&t, PodWrite::Bind));
    assert!(!shown.created);
    for path in ["spec.nodeName", "metadata.resourceVersion"] {
        assert!(
            shown.changed_paths.iter().any(|p| p == path),
            "{path}: {shown:?}"
        );
    }
    assert!(!shown.changed_paths.iter().any(|p| p == "status.phase"));
    let node = shown
        .lines
        .iter()
        .find(|l| l.text.trim_start().starts_with("nodeName: node-"))
        .expect("nodeName");
    assert!(node.changed);
    assert!(changed_line(
        shown,
        &format!("resourceVersion: \"{}\"", revision(&t, PodWrite::Bind))
    ));
    assert!(!changed_line(shown, "kind: Pod"));
    assert!(!changed_line(shown, "phase: Pending"));
    // The focus is the node name, not the resourceVersion every write changes.
    let focus = shown.focus.expect("a focus");
    assert!(shown.lines[focus].text.contains("nodeName"));

    let text = render_pane(&t, at, PaneId::Objects, 120, 30);
    assert!(text.contains("* /registry/pods/default/nginx"), "{text}");
    assert!(text.contains("changed: "), "{text}");
    assert!(text.contains("spec.nodeName"), "{text}");
    assert!(text.contains("nodeName: node-"), "{text}");
}

#[test]
fn the_kubelets_last_status_patch_lights_the_phase() {
    let t = nginx_timeline();
    let at = at_write(&t, PodWrite::Last);
    let model = model_at(&t, at, &PaneState::default());
    assert_eq!(selected_key(&model), POD);
    let shown = model.shown.as_ref().expect("the pod");
    assert!(
        shown.changed_paths.iter().any(|p| p == "status.phase"),
        "{shown:?}"
    );
    assert!(changed_line(shown, "phase: Running"));
    assert!(
        !shown
            .lines
            .iter()
            .any(|l| l.changed && l.text.contains("nodeName"))
    );
    // The response and the log after the write still belong to its step.
    let model = model_at(&t, at + 1, &PaneState::default());
    assert_eq!(selected_key(&model), POD);
    assert!(model.keys.iter().any(|k| k.changed));
}

#[test]
fn the_create_is_marked_created() {
    let t = nginx_timeline();
    let at = at_write(&t, PodWrite::Create);
    let shown = model_at(&t, at, &PaneState::default())
        .shown
        .expect("the pod");
    assert!(shown.created);
    assert!(shown.changed_paths.is_empty());
    let text = render_pane(&t, at, PaneId::Objects, 120, 20);
    assert!(text.contains("created at this step"), "{text}");
}

#[test]
fn a_watch_record_selects_the_object_it_delivers() {
    let t = nginx_timeline();
    let at = find(
        &t,
        &format!(
            "← ADDED pods/default/nginx rv={}",
            revision(&t, PodWrite::Bind)
        ),
    );
    let model = model_at(&t, at, &PaneState::default());
    assert_eq!(selected_key(&model), POD);
    let shown = model.shown.expect("the pod");
    assert!(shown.changed_paths.iter().any(|p| p == "spec.nodeName"));
}

#[test]
fn without_a_write_the_first_key_is_selected() {
    let t = nginx_timeline();
    let model = model_at(&t, 0, &PaneState::default());
    assert_eq!(model.selected, Some(0));
    assert!(model.keys.iter().all(|k| !k.changed));
    let shown = model.shown.expect("an object");
    assert_eq!(shown.key, model.keys[0].key);
    assert!(shown.changed_paths.is_empty());
}

#[test]
fn selection_is_one_based_and_clamped() {
    let t = nginx_timeline();
    let end = t.len() - 1;
    // (selected, index chosen)
    for (selected, want) in [(1, 0), (2, 1), (usize::MAX, usize::MAX)] {
        let state = PaneState {
            selected,
            ..PaneState::default()
        };
        let model = model_at(&t, end, &state);
        let want = want.min(model.total - 1);
        assert_eq!(model.selected, Some(want), "{selected}");
        assert_eq!(
            model.shown.expect("shown").key,
            model.keys[want - model.first].key
        );
    }
}

#[test]
fn rbac_keys_hide_unless_the_filter_asks() {
    let t = nginx_timeline();
    let end = t.len() - 1;
    let model = model_at(&t, end, &PaneState::default());
    assert!(model.hidden_rbac > 10, "{}", model.hidden_rbac);
    assert!(!model.keys.iter().any(|k| is_rbac(&k.key)));
    let text = render_pane(&t, end, PaneId::Objects, 120, 40);
    assert!(
        text.contains(&format!("+{} rbac objects", model.hidden_rbac)),
        "{text}"
    );

    // (filter, every listed key holds, some key is listed)
    let cases = [
        ("clusterrolebindings", "clusterrolebindings", true),
        ("pods nginx", "nginx", true),
        ("nodes", "/registry/nodes/", true),
        ("no-such-key", "", false),
    ];
    for (filter, holds, some) in cases {
        let state = PaneState {
            filter: filter.into(),
            ..PaneState::default()
        };
        let model = model_at(&t, end, &state);
        assert_eq!(model.hidden_rbac, 0);
        assert_eq!(model.total > 0, some, "{filter}");
        assert!(model.keys.iter().all(|k| k.key.contains(holds)), "{filter}");
    }
    let state = PaneState {
        filter: "no-such-key".into(),
        ..PaneState::default()
    };
    let text = render_pane_with(&t, end, PaneId::Objects, 60, 10, Lang::En, &state);
    assert!(text.contains("no key matches the filter"), "{text}");
}

#[test]
fn narrow_panes_put_the_object_below() {
    let t = nginx_timeline();
    let at = at_write(&t, PodWrite::Bind);
    let text = render_pane(&t, at, PaneId::Objects, 60, 30);
    let rows: Vec<&str> = text.lines().collect();
    let key_row = rows
        .iter()
        .position(|l| l.contains("* /registry/pods/default/nginx"))
        .expect("the key row");
    let header = rows
        .iter()
        .position(|l| l.contains(&format!("rev {}", revision(&t, PodWrite::Bind))))
        .expect("the header");
    assert!(header > key_row, "{text}");
    assert!(text.contains("nodeName: node-"), "{text}");
    let text = render_pane_with(
        &t,
        at,
        PaneId::Objects,
        60,
        30,
        Lang::Zh,
        &PaneState::default(),
    );
    assert!(text.contains("改动"), "{text}");
}

#[test]
fn renders_at_every_size_without_panic() {
    let t = nginx_timeline();
    let at = at_write(&t, PodWrite::Last);
    for index in [0, at, t.len() - 1] {
        for w in (0..=120).step_by(7) {
            for h in (0..=40).step_by(3) {
                render_pane(&t, index, PaneId::Objects, w, h);
            }
        }
    }
    render_pane(&t, at, PaneId::Objects, 20, 5);
    render_pane(&t, at, PaneId::Objects, 300, 100);
    let state = PaneState {
        scroll: 10_000,
        selected: 3,
        ..PaneState::default()
    };
    render_pane_with(&t, at, PaneId::Objects, 90, 12, Lang::Zh, &state);
}

#[test]
fn a_delete_shows_the_last_state() {
    let t = timeline(&["wait 5s", "delete pod nginx"], None);
    // The graceful delete first sets metadata.deletionTimestamp ...
    let at = find(&t, "DELETE /api/v1/namespaces/default/pods/nginx");
    let at = at
        + t.records()[at..]
            .iter()
            .position(|r| podflow_engine::export::text::line(r).contains("etcd persist"))
            .expect("the first write of the delete");
    let shown = model_at(&t, at, &PaneState::default())
        .shown
        .expect("the pod");
    assert!(
        shown
            .changed_paths
            .iter()
            .any(|p| p == "metadata.deletionTimestamp"),
        "{:?}",
        shown.changed_paths
    );
    // ... and the key goes when the kubelet has stopped the Pod.
    let at = find(&t, "deleted /registry/pods/default/nginx");
    let model = model_at(&t, at, &PaneState::default());
    assert_eq!(model.selected, None);
    assert!(!model.keys.iter().any(|k| k.key == POD));
    let shown = model.shown.expect("the last state");
    assert!(shown.deleted);
    assert_eq!(shown.key, POD);
    assert!(shown.lines.iter().any(|l| l.text == "kind: Pod"));
    let text = render_pane(&t, at, PaneId::Objects, 120, 20);
    assert!(text.contains("deleted at this step"), "{text}");
    let watch = render_pane(&t, t.len() - 1, PaneId::Watch, 80, 10);
    assert!(watch.contains("← DELETED pods/default/nginx"), "{watch}");
}

#[test]
fn without_etcd_history_the_trace_gives_the_previous_write() {
    use podflow_engine::trace::Stage;
    use serde_json::json;
    let persist = |seq: u64, revision: u64, object: serde_json::Value| TraceRecord {
        seq,
        t_ms: seq,
        body: Record::from({
            let mut stage =
                Stage::new(Actor::Etcd, StageName::Persist, Outcome::Ok, "").at_key(POD, revision);
            stage.extra_mut().object = Some(object);
            stage
        }),
    };
    let records = [
        persist(0, 7, json!({"spec": {}, "status": {"phase": "Pending"}})),
        persist(1, 9, json!({"spec": {}, "status": {"phase": "Running"}})),
    ];
    let write = Write {
        key: POD.to_owned(),
        revision: 9,
        deleted: false,
    };
    let (before, after) = change_at(
        &podflow_engine::store::Snapshot::default(),
        &records,
        &write,
    )
    .expect("found");
    let before = before.expect("the earlier write");
    assert_eq!(
        yaml::changed_paths(&before, &after.expect("this write")),
        ["status.phase"]
    );
    // Without a request between them, both writes are the step's, newest first.
    assert_eq!(step_writes(&records)[0], write);
}

#[test]
fn between_writes_the_pane_stays_on_the_object_the_story_is_about() {
    let t = nginx_timeline();
    let created = find(&t, "event Normal Created");
    let model = model_at(&t, created, &PaneState::default());
    assert_eq!(selected_key(&model), "/registry/pods/default/nginx");
}

#[test]
fn before_the_create_is_stored_the_pane_says_not_in_etcd_yet() {
    let t = nginx_timeline();
    let at = find(&t, "admission (mutating) ServiceAccount");
    let model = model_at(&t, at, &PaneState::default());
    assert_eq!(
        model.absent,
        Some(Absent {
            key: POD.to_owned(),
            deleted: false
        })
    );
    assert_eq!(model.selected, None);
    assert_eq!(model.shown, None);
    let text = render_pane(&t, at, PaneId::Objects, 120, 20);
    assert!(text.contains("│/registry/pods/default/nginx "), "{text}");
    assert!(
        text.contains("Not in etcd yet: the API server writes"),
        "{text}"
    );
    assert!(!text.contains("kind: CSIDriver"), "{text}");
    // Moving the selection leaves the story for the list.
    let state = PaneState {
        selected: 1,
        ..PaneState::default()
    };
    let model = model_at(&t, at, &state);
    assert_eq!((model.selected, model.absent), (Some(0), None));
}

#[test]
fn after_the_delete_the_pane_says_the_key_is_gone() {
    let t = timeline(&["wait 5s", "delete pod nginx"], None);
    let at = find(&t, "pods cache: DELETED default/nginx");
    let model = model_at(&t, at, &PaneState::default());
    assert_eq!(
        model.absent,
        Some(Absent {
            key: POD.to_owned(),
            deleted: true
        })
    );
    let text = render_pane_with(
        &t,
        at,
        PaneId::Objects,
        60,
        20,
        Lang::Zh,
        &PaneState::default(),
    );
    assert!(text.contains("已删除"), "{text}");
}

#[test]
fn a_remembered_object_is_the_one_made_afresh() {
    let t = timeline(&["wait 5s", "delete pod nginx"], None);
    for index in 0..t.len() {
        // Often a hit: the step before showed the same object and write.
        let remembered = model_at(&t, index, &PaneState::default());
        SHOWN.with(|memo| memo.borrow_mut().clear());
        let fresh = model_at(&t, index, &PaneState::default());
        assert_eq!(remembered, fresh, "at {index}");
    }
}
