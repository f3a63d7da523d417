//! The lesson file format (`lessons/*.yaml`, documented in `lessons/README.md`):
//! serde structs that refuse unknown fields, every value that a later check
//! may complain about wrapped in [`Spanned`] so the complaint names its line
//! and column.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_saphyr::Spanned;

/// A whole lesson file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonFile {
    /// Short and stable: `apply-to-running`. Progress is saved under it.
    pub id: Spanned<String>,
    pub title: Spanned<Text>,
    pub summary: Spanned<Text>,
    /// How long the lesson takes, for the picker.
    #[serde(default)]
    pub minutes: Option<u32>,
    /// The cluster the lesson starts on; the default cluster when absent.
    #[serde(default)]
    pub cluster: Option<ClusterSource>,
    /// Who kubectl is in this lesson; the cluster admin when absent.
    #[serde(default)]
    pub identity: Option<Identity>,
    /// Manifests the lesson's commands name (`apply -f pod.yaml`), by file name.
    #[serde(default)]
    pub files: BTreeMap<String, Spanned<String>>,
    pub steps: Vec<Spanned<Step>>,
}

/// One text in both languages. Both are optional to serde so that a missing
/// one is reported as a missing translation, at the text's place.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    #[serde(default)]
    pub en: Option<String>,
    #[serde(default)]
    pub zh: Option<String>,
}

impl Text {
    /// The text in `zh` (Chinese) or English; empty when missing (a checked
    /// lesson has both).
    pub fn pick(&self, zh: bool) -> &str {
        let text = if zh { &self.zh } else { &self.en };
        text.as_deref().unwrap_or_default()
    }
}

/// Where the lesson's cluster comes from: a cluster file in the lesson's
/// folder, or the same text inline.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSource {
    #[serde(default)]
    pub file: Option<Spanned<String>>,
    #[serde(default)]
    pub yaml: Option<Spanned<String>>,
}

/// kubectl's identity: a bearer token of the cluster's `Simulation` users, or
/// an impersonated user (as `--token` and `--as` do for `podflow trace`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    #[serde(default)]
    pub token: Option<String>,
    #[serde(default, rename = "as")]
    pub as_user: Option<String>,
    #[serde(default)]
    pub groups: Vec<String>,
}

/// One step of a lesson; the key names its kind.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    /// Text shown while the engine runs to a moment.
    Narrate(Narrate),
    /// A cluster-language command, typed for the student.
    Command(CommandStep),
    /// A marker where a presenter stops and talks.
    Pause(Pause),
    /// A question with one or more right answers.
    Quiz(Quiz),
    /// Something the student must change until a check holds.
    Goal(Goal),
}

impl Step {
    /// The step's presenter notes (`notes:`), if it has them.
    pub fn notes(&self) -> Option<&Spanned<Text>> {
        match self {
            Step::Narrate(s) => s.notes.as_ref(),
            Step::Command(s) => s.notes.as_ref(),
            Step::Pause(s) => s.notes.as_ref(),
            Step::Quiz(s) => s.notes.as_ref(),
            Step::Goal(s) => s.notes.as_ref(),
        }
    }
}

/// `narrate:` text, and the moment the engine runs to while it shows.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Narrate {
    pub text: Spanned<Text>,
    #[serde(default)]
    pub until: Option<Spanned<String>>,
    /// What the presenter says here, shown only in presenter mode's status bar.
    #[serde(default)]
    pub notes: Option<Spanned<Text>>,
}

/// `command:` a line of the cluster language, with optional text.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandStep {
    pub run: Spanned<String>,
    #[serde(default)]
    pub text: Option<Spanned<Text>>,
    /// What the presenter says here, shown only in presenter mode's status bar.
    #[serde(default)]
    pub notes: Option<Spanned<Text>>,
}

/// `pause:` with an optional note for the presenter.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pause {
    #[serde(default)]
    pub text: Option<Spanned<Text>>,
    /// What the presenter says here, shown only in presenter mode's status bar.
    #[serde(default)]
    pub notes: Option<Spanned<Text>>,
}

/// `quiz:` a question, its choices and the explanation shown after answering.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quiz {
    pub question: Spanned<Text>,
    pub choices: Vec<Spanned<Choice>>,
    pub explain: Spanned<Text>,
    /// What the presenter says here, shown only in presenter mode's status bar.
    #[serde(default)]
    pub notes: Option<Spanned<Text>>,
}

/// One choice of a quiz.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    #[serde(default)]
    pub en: Option<String>,
    #[serde(default)]
    pub zh: Option<String>,
    #[serde(default)]
    pub correct: bool,
}

impl Choice {
    /// The choice as a [`Text`].
    pub fn text(&self) -> Text {
        Text {
            en: self.en.clone(),
            zh: self.zh.clone(),
        }
    }
}

/// `goal:` the task, the check that says it is done, hints and the solution.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Goal {
    pub task: Spanned<Text>,
    /// A check of the goal language ([`crate::goal`]).
    pub check: Spanned<String>,
    #[serde(default)]
    pub hints: Vec<Spanned<Text>>,
    /// Cluster-language commands that reach the goal from its start.
    pub solution: Vec<Spanned<String>>,
    /// Why the goal does not hold at its start, shown with the solution
    /// (`s`): a drill's fault, named.
    #[serde(default)]
    pub cause: Option<Spanned<Text>>,
    /// The lesson file the editor opens at (`e`), for the student to change.
    #[serde(default)]
    pub edit: Option<Spanned<String>>,
    /// What the presenter says here, shown only in presenter mode's status bar.
    #[serde(default)]
    pub notes: Option<Spanned<Text>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_reach_inside_steps() {
        let yaml = "id: x\ntitle: {en: a, zh: b}\nsummary: {en: a, zh: b}\nsteps:\n  - narrate:\n      text: {en: a}\n      until: bind\n  - pause: {}\n";
        let file: LessonFile = serde_saphyr::from_str(yaml).unwrap();
        assert_eq!(file.steps[0].referenced.line(), 5);
        let Step::Narrate(n) = &file.steps[0].value else {
            panic!("a narrate step")
        };
        assert_eq!(n.until.as_ref().unwrap().referenced.line(), 7);
        assert_eq!(n.until.as_ref().unwrap().referenced.column(), 14);
        assert!(n.text.value.zh.is_none());
        assert!(matches!(file.steps[1].value, Step::Pause(_)));
    }

    #[test]
    fn notes_are_optional_on_every_step_kind() {
        let head = "id: x\ntitle: {en: a, zh: b}\nsummary: {en: a, zh: b}\nsteps:\n";
        let table = [
            ("  - narrate: {text: {en: a, zh: b}}\n", None),
            (
                "  - narrate: {text: {en: a, zh: b}, notes: {en: say, zh: 说}}\n",
                Some("say"),
            ),
            (
                "  - command: {run: get pods, notes: {en: run it, zh: 运行}}\n",
                Some("run it"),
            ),
            ("  - pause: {notes: {en: talk, zh: 讲}}\n", Some("talk")),
            ("  - pause: {}\n", None),
            (
                "  - quiz: {question: {en: q}, choices: [{en: a, correct: true}], explain: {en: e}, notes: {en: ask}}\n",
                Some("ask"),
            ),
            (
                "  - goal: {task: {en: t}, check: pod web Running, solution: [get pods], notes: {en: wait}}\n",
                Some("wait"),
            ),
        ];
        for (step, want) in table {
            let file: LessonFile = serde_saphyr::from_str(&format!("{head}{step}"))
                .unwrap_or_else(|e| panic!("{step}: {e}"));
            let notes = file.steps[0].value.notes().map(|n| n.value.pick(false));
            assert_eq!(notes, want, "{step}");
        }
        // Unknown fields are still refused next to notes.
        let bad = format!("{head}  - pause: {{notes: {{en: a}}, note: {{en: b}}}}\n");
        assert!(serde_saphyr::from_str::<LessonFile>(&bad).is_err());
    }
}
