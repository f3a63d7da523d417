//! `podflow lessons check`: a lesson is good when it parses, every text has
//! English and Chinese, every quiz has a right answer, every command and goal
//! check reads, and, run headless from the start, every step's moment is
//! reached and every goal is unsolved when it starts and solved by its
//! solution. The first problem is the error, as `file:line:col: message`.

use serde_saphyr::Spanned;

use super::format::{Step, Text};
use super::goal;
use super::load::Lesson;
use super::moment;
use super::run;
use podflow_engine::timeline::Timeline;
use podflow_scenario::InputError;

/// What a good lesson holds, for `lessons check` to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub id: String,
    pub steps: usize,
}

/// The language codes every text needs.
fn missing(text: &Text) -> Option<&'static str> {
    let empty = |t: &Option<String>| t.as_deref().is_none_or(|t| t.trim().is_empty());
    if empty(&text.en) {
        Some("en")
    } else if empty(&text.zh) {
        Some("zh")
    } else {
        None
    }
}

fn translated(lesson: &Lesson, what: &str, text: &Spanned<Text>) -> Result<(), InputError> {
    match missing(&text.value) {
        None => Ok(()),
        Some(lang) => Err(InputError::at(
            &lesson.at(text),
            format!("{what}: missing translation: no {lang:?} text"),
        )),
    }
}

/// Checks everything that needs no run.
fn statics(lesson: &Lesson) -> Result<(), InputError> {
    let doc = &lesson.doc;
    let id = &doc.id.value;
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(InputError::at(
            &lesson.at(&doc.id),
            format!("id {id:?}: use lowercase letters, digits and '-'"),
        ));
    }
    translated(lesson, "title", &doc.title)?;
    translated(lesson, "summary", &doc.summary)?;
    if doc.steps.is_empty() {
        return Err(InputError::file(
            &lesson.file,
            "steps: a lesson needs at least one step",
        ));
    }
    for (i, step) in doc.steps.iter().enumerate() {
        let n = i + 1;
        if let Some(notes) = step.value.notes() {
            translated(lesson, &format!("step {n} notes"), notes)?;
        }
        match &step.value {
            Step::Narrate(narrate) => {
                translated(lesson, &format!("step {n} (narrate)"), &narrate.text)?;
                if let Some(until) = &narrate.until {
                    moment::parse(&until.value)
                        .map_err(|e| InputError::at(&lesson.at(until), e))?;
                }
            }
            Step::Command(command) => {
                if let Some(text) = &command.text {
                    translated(lesson, &format!("step {n} (command)"), text)?;
                }
                run::command(lesson, &command.run)?;
            }
            Step::Pause(pause) => {
                if let Some(text) = &pause.text {
                    translated(lesson, &format!("step {n} (pause)"), text)?;
                }
            }
            Step::Quiz(quiz) => {
                translated(lesson, &format!("step {n} (quiz) question"), &quiz.question)?;
                translated(lesson, &format!("step {n} (quiz) explain"), &quiz.explain)?;
                for choice in &quiz.choices {
                    let text = Spanned::new(choice.value.text(), choice.referenced, choice.defined);
                    translated(lesson, &format!("step {n} (quiz) choice"), &text)?;
                }
                if quiz.choices.len() < 2 || quiz.choices.len() > 9 {
                    return Err(InputError::at(
                        &lesson.at(step),
                        format!("step {n} (quiz): give 2 to 9 choices"),
                    ));
                }
                if !quiz.choices.iter().any(|c| c.value.correct) {
                    return Err(InputError::at(
                        &lesson.at(step),
                        format!("step {n} (quiz): no choice is marked `correct: true`"),
                    ));
                }
            }
            Step::Goal(g) => {
                translated(lesson, &format!("step {n} (goal) task"), &g.task)?;
                for hint in &g.hints {
                    translated(lesson, &format!("step {n} (goal) hint"), hint)?;
                }
                if let Some(cause) = &g.cause {
                    translated(lesson, &format!("step {n} (goal) cause"), cause)?;
                }
                goal::parse(&g.check.value).map_err(|e| InputError::at(&lesson.at(&g.check), e))?;
                if g.solution.is_empty() {
                    return Err(InputError::at(
                        &lesson.at(step),
                        format!("step {n} (goal): the solution needs at least one command"),
                    ));
                }
                for line in &g.solution {
                    run::command(lesson, line)?;
                }
                if let Some(file) = &g.edit
                    && !doc.files.contains_key(&file.value)
                {
                    return Err(InputError::at(
                        &lesson.at(file),
                        format!(
                            "step {n} (goal): edit names {:?}, which is not one of the lesson's `files:`",
                            file.value
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The end of the run holds the goal that began at record `since`?
fn goal_holds(check: &goal::Check, timeline: &Timeline, since: Option<usize>) -> bool {
    check.holds_in(&timeline.view(usize::MAX), since)
}

/// Checks a lesson: statics, then every step run headless from the start.
pub fn check(lesson: &Lesson) -> Result<Summary, InputError> {
    statics(lesson)?;
    let mut timeline = run::timeline(lesson)?;
    let mut cursor = None;
    for (i, step) in lesson.doc.steps.iter().enumerate() {
        cursor = run::enter(lesson, i, &mut timeline, cursor)?;
        if let Step::Goal(g) = &step.value {
            let at = lesson.at(&g.check);
            let check = goal::parse(&g.check.value).map_err(|e| InputError::at(&at, e))?;
            let since = (!timeline.is_empty()).then(|| timeline.len() - 1);
            if goal_holds(&check, &timeline, since) {
                return Err(InputError::at(
                    &at,
                    format!("goal `{check}` already holds when the goal starts"),
                ));
            }
            let mut end = (!timeline.is_empty()).then(|| timeline.len() - 1);
            for line in &g.solution {
                run::submit(&mut timeline, end, run::command(lesson, line)?);
                end = (!timeline.is_empty()).then(|| timeline.len() - 1);
            }
            if !goal_holds(&check, &timeline, since) {
                return Err(InputError::at(
                    &at,
                    format!("goal `{check}` does not hold after its solution"),
                ));
            }
            cursor = end;
        }
    }
    Ok(Summary {
        id: lesson.id().to_owned(),
        steps: lesson.doc.steps.len(),
    })
}
