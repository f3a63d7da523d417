//! `:edit KIND NAME` in the TUI: the object, as the current step's etcd holds
//! it, opens in the editor pane with kubectl's header; Ctrl-S hands what was
//! saved to kubectl, which patches the difference (a `PATCH` in the trace,
//! `pod/nginx edited`); Esc, or a save with nothing changed, is kubectl's
//! `Edit cancelled, no changes made.`. A file that does not read stays open
//! with its error, as kubectl reopens it with the failures.

use super::action::Effect;
use super::app::{App, Overlay};
use super::lesson::editor::{EditTarget, Editor};
use podflow_engine::kubectl::Command;
use podflow_engine::kubectl::edit::shown_text;
use podflow_engine::store::key_for;
use podflow_model::{Kind, Object};

/// kubectl's words when an edit ends without a change.
const CANCELLED: &str = "Edit cancelled, no changes made.";

impl App {
    /// Opens the editor on the object, or says why it cannot.
    pub(crate) fn open_object_editor(
        &mut self,
        kind: &'static Kind,
        name: &str,
        namespace: Option<String>,
    ) -> Result<(), String> {
        let namespace = namespace
            .or_else(|| Some("default".to_owned()))
            .filter(|_| kind.namespaced);
        let key = key_for(kind, namespace.as_deref(), name);
        let view = self.view();
        let Some(entry) = view.store.get(&key) else {
            return Err(format!(
                "Error from server (NotFound): {} \"{name}\" not found",
                podflow_engine::kubectl::type_name(kind)
            ));
        };
        let shown = shown_text(&entry.object.load());
        let file = format!("{}-{name}.yaml", kind.resource);
        let mut editor = Editor::new(vec![(file, shown.clone())], None);
        editor.target = Some(EditTarget {
            kind,
            name: name.to_owned(),
            namespace,
            shown,
        });
        self.pause();
        self.overlay = Overlay::Editor(Box::new(editor));
        Ok(())
    }

    /// Ctrl-S (`save`) or Esc on an object's editor.
    pub(crate) fn finish_object_edit(&mut self, save: bool) -> Vec<Effect> {
        let Overlay::Editor(editor) = &mut self.overlay else {
            return Vec::new();
        };
        let Some(target) = editor.target.clone() else {
            return Vec::new();
        };
        let text = editor.text();
        if !save || text == target.shown {
            self.overlay = Overlay::None;
            self.notice = Some(CANCELLED.to_owned());
            return Vec::new();
        }
        let file = editor.name().to_owned();
        let read = |text: &str| -> Result<Object, String> {
            let mut objects = podflow_scenario::parse_manifests(&file, text.as_bytes())
                .map_err(|e| e.to_string())?;
            match objects.len() {
                0 => Err(CANCELLED.to_owned()),
                1 => Ok(objects.remove(0).object),
                n => Err(format!(
                    "error: the edited file holds {n} objects; edit keeps one"
                )),
            }
        };
        let saved = match read(&text) {
            Ok(object) => object,
            Err(message) if message == CANCELLED => {
                self.overlay = Overlay::None;
                self.notice = Some(CANCELLED.to_owned());
                return Vec::new();
            }
            Err(message) => {
                editor.saved(false, message);
                return Vec::new();
            }
        };
        let Ok(shown) = read(&target.shown) else {
            return Vec::new();
        };
        self.overlay = Overlay::None;
        self.submit_in_background(Command::Edit {
            kind: target.kind,
            name: target.name,
            namespace: target.namespace,
            change: Some(Box::new((shown, saved))),
        });
        self.typed_command_ran()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::action::Action;
    use crate::tui::lang::Lang;
    use crate::tui::lesson::editor::EditKey;
    use crate::tui::testing::nginx_timeline;
    use crate::tui::theme::ThemeName;
    use podflow_engine::trace::{Actor, Record};
    use podflow_model::kinds::kind_of;

    fn running_nginx() -> App {
        let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
        app.update(Action::Last);
        app
    }

    fn kubectl_said(app: &App) -> Vec<String> {
        app.timeline
            .records()
            .iter()
            .filter_map(|r| match &r.body {
                Record::Log {
                    component: Actor::Kubectl,
                    line,
                    ..
                } => Some(line.clone()),
                _ => None,
            })
            .collect()
    }

    /// Moves the cursor to the end of the line holding `needle`.
    fn to_line_end(app: &mut App, needle: &str) {
        let Overlay::Editor(editor) = &app.overlay else {
            panic!("the editor is open");
        };
        let row = editor
            .lines()
            .position(|l| l.contains(needle))
            .expect(needle);
        for _ in 0..row {
            app.update(Action::Edit(EditKey::Down));
        }
        app.update(Action::Edit(EditKey::End));
    }

    #[test]
    fn a_saved_edit_is_kubectls_patch_of_what_changed() {
        let mut app = running_nginx();
        app.open_object_editor(kind_of("Pod"), "nginx", None)
            .expect("the Pod exists");
        to_line_end(&mut app, "app: nginx");
        for _ in 0.."nginx".len() {
            app.update(Action::Edit(EditKey::Backspace));
        }
        for c in "web".chars() {
            app.update(Action::Edit(EditKey::Char(c)));
        }
        app.update(Action::Edit(EditKey::Save));
        assert_eq!(app.overlay, Overlay::None);
        app.timeline.finish();
        assert_eq!(
            kubectl_said(&app).last().map(String::as_str),
            Some("pod/nginx edited")
        );
        let patch = app.timeline.records().iter().any(|r| {
            matches!(&r.body, Record::Message { from: Actor::Kubectl, label, .. }
                if label == "PATCH /api/v1/namespaces/default/pods/nginx")
        });
        assert!(patch, "kubectl patches the Pod");
        let view = app.timeline.view(app.timeline.len() - 1);
        let pod = view
            .store
            .get("/registry/pods/default/nginx")
            .expect("the Pod");
        let labels = pod
            .object
            .load()
            .metadata()
            .labels
            .clone()
            .unwrap_or_default();
        assert_eq!(labels.get("app").map(String::as_str), Some("web"));
    }

    #[test]
    fn nothing_changed_or_esc_is_cancelled_and_a_missing_object_not_found() {
        let mut app = running_nginx();
        let before = app.timeline.len();
        app.open_object_editor(kind_of("Pod"), "nginx", None)
            .unwrap();
        app.update(Action::Edit(EditKey::Save));
        assert_eq!(app.notice.as_deref(), Some(CANCELLED));
        app.open_object_editor(kind_of("Pod"), "nginx", None)
            .unwrap();
        app.update(Action::Edit(EditKey::Char('x')));
        app.update(Action::Edit(EditKey::Close));
        assert_eq!(app.notice.as_deref(), Some(CANCELLED));
        assert_eq!(app.timeline.len(), before, "no request was sent");
        let missing = app.open_object_editor(kind_of("Pod"), "nosuch", None);
        assert_eq!(
            missing,
            Err("Error from server (NotFound): pod \"nosuch\" not found".into())
        );
    }

    #[test]
    fn a_file_that_does_not_read_stays_open_with_its_error() {
        let mut app = running_nginx();
        app.open_object_editor(kind_of("Pod"), "nginx", None)
            .unwrap();
        to_line_end(&mut app, "app: nginx");
        app.update(Action::Edit(EditKey::Enter));
        for c in "  : [".chars() {
            app.update(Action::Edit(EditKey::Char(c)));
        }
        app.update(Action::Edit(EditKey::Save));
        let Overlay::Editor(editor) = &app.overlay else {
            panic!("the editor stays open");
        };
        assert!(
            matches!(&editor.message, Some((false, _))),
            "{:?}",
            editor.message
        );
    }
}
