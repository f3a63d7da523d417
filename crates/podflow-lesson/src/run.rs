//! Runs a lesson's steps on a timeline, the same way for the checker
//! (headless, every step) and the player (one step at a time): the lesson's
//! engine setup, its commands, and where each step leaves the cursor.

use serde_saphyr::Spanned;

use super::format::Step;
use super::load::Lesson;
use super::moment;
use podflow_engine::command;
use podflow_engine::engine::{Engine, Setup};
use podflow_engine::kubectl::Command;
use podflow_engine::setup::{SetupArgs, build_setup_on};
use podflow_engine::timeline::Timeline;
use podflow_scenario::{self as scenario, ClusterSpec, InputError};

/// The lesson's cluster: the default one, or the default merged with its own.
pub fn cluster(lesson: &Lesson) -> Result<ClusterSpec, InputError> {
    let Some(source) = &lesson.doc.cluster else {
        return Ok(scenario::default_cluster());
    };
    let spec = match (&source.file, &source.yaml) {
        (Some(file), None) => {
            let path = lesson.path(&file.value, &lesson.at(file))?;
            let path = path.to_string_lossy();
            scenario::parse_cluster(&path, &scenario::read_file(&path)?)?
        }
        (None, Some(yaml)) => scenario::parse_cluster(&lesson.file, yaml.value.as_bytes())
            .map_err(|mut e| {
                if let Some((line, column)) = e.position {
                    e.position = Some((
                        usize::try_from(yaml.referenced.line()).unwrap_or(0) + line,
                        column,
                    ));
                }
                e
            })?,
        _ => {
            return Err(InputError::file(
                &lesson.file,
                "cluster: give either `file` or `yaml`, not both or neither",
            ));
        }
    };
    Ok(scenario::merge_with_default(spec))
}

/// The engine's setup for the lesson: its cluster and identity, no commands.
pub fn setup(lesson: &Lesson) -> Result<Setup, InputError> {
    let identity = lesson.doc.identity.clone();
    let args = SetupArgs {
        seed: 1,
        token: identity.as_ref().and_then(|i| i.token.clone()),
        as_user: identity.as_ref().and_then(|i| i.as_user.clone()),
        as_groups: identity.map(|i| i.groups).unwrap_or_default(),
        ..SetupArgs::default()
    };
    build_setup_on(&cluster(lesson)?, &args)
        .map_err(|e| InputError::file(&lesson.file, e.to_string()))
}

/// The lesson's timeline before its first step.
pub fn timeline(lesson: &Lesson) -> Result<Timeline, InputError> {
    Ok(Timeline::new(Engine::new(setup(lesson)?)))
}

/// A command line of the lesson as the engine's command, files read from the lesson.
pub fn command(lesson: &Lesson, line: &Spanned<String>) -> Result<Command, InputError> {
    let at = lesson.at(line);
    let parsed = command::parse(&line.value).map_err(|e| InputError::at(&at, e.0))?;
    command::resolve(parsed, |file| lesson.manifests(file, &at))
}

/// Hands `command` to kubectl after `cursor`; the cursor of its first record.
pub fn submit(timeline: &mut Timeline, cursor: Option<usize>, command: Command) -> Option<usize> {
    let first = timeline.submit_at(cursor, command);
    (!timeline.is_empty()).then(|| first.min(timeline.len() - 1))
}

/// Runs step `index` from `cursor` (the last record shown; `None` before
/// any): the cursor the step ends at. A moment never reached is an error at
/// its `until:`.
pub fn enter(
    lesson: &Lesson,
    index: usize,
    timeline: &mut Timeline,
    cursor: Option<usize>,
) -> Result<Option<usize>, InputError> {
    let Some(step) = lesson.doc.steps.get(index) else {
        return Ok(cursor);
    };
    match &step.value {
        Step::Narrate(narrate) => {
            let Some(until) = &narrate.until else {
                return Ok(cursor);
            };
            let at = lesson.at(until);
            let moment = moment::parse(&until.value).map_err(|e| InputError::at(&at, e))?;
            let from = cursor.map_or(0, |c| c + 1);
            if let Some(found) = moment::find(&moment, timeline, from) {
                return Ok(Some(found));
            }
            let end = timeline.view(usize::MAX).now;
            Err(InputError::at(
                &at,
                format!(
                    "until {:?} is never reached: the run goes idle at {end} without it",
                    until.value
                ),
            ))
        }
        Step::Command(step) => Ok(submit(timeline, cursor, command(lesson, &step.run)?)),
        Step::Pause(_) | Step::Quiz(_) | Step::Goal(_) => Ok(cursor),
    }
}
