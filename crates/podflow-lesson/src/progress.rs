//! The student's progress, per user: `$XDG_STATE_HOME/podflow/progress.json`
//! (or `~/.local/state/podflow/progress.json`), written atomically (a
//! temporary file renamed over the old one). A file that cannot be read is
//! set aside as `progress.json.corrupt-N` with a warning; podflow starts
//! afresh and never fails because of it.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Everything podflow remembers about one student.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// By lesson id.
    #[serde(default)]
    pub lessons: BTreeMap<String, LessonProgress>,
    /// By drill id (`drill-l1-17`): its scores and times.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub drills: BTreeMap<String, DrillProgress>,
}

/// A drill solved: its last and best score, and how long it took.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrillProgress {
    /// Points of the last time it was solved (100 less what hints and the solution cost).
    pub score: u32,
    /// The best score it was solved with.
    pub best: u32,
    /// Seconds from opening it to solving it, the last time.
    pub seconds: u64,
    /// Hints asked the last time.
    pub hints: usize,
    /// The solution was shown the last time.
    pub solution: bool,
    /// How many times it was solved.
    pub solved: u32,
}

/// How far the student got in one lesson.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonProgress {
    /// The furthest step reached (0-based).
    pub step: usize,
    /// The lesson's number of steps when it was saved.
    pub steps: usize,
    /// Every step was reached.
    #[serde(default)]
    pub done: bool,
}

impl Progress {
    /// Notes that the student reached `step` of `steps` in lesson `id`.
    pub fn reached(&mut self, id: &str, step: usize, steps: usize) {
        let entry = self.lessons.entry(id.to_owned()).or_default();
        entry.step = entry.step.max(step);
        entry.steps = steps;
        entry.done |= step + 1 >= steps;
    }

    /// Notes that drill `id` was solved with `score` in `seconds`.
    pub fn drilled(&mut self, id: &str, score: u32, seconds: u64, hints: usize, solution: bool) {
        let entry = self.drills.entry(id.to_owned()).or_default();
        entry.best = entry.best.max(score);
        entry.score = score;
        entry.seconds = seconds;
        entry.hints = hints;
        entry.solution = solution;
        entry.solved += 1;
    }
}

/// podflow's state directory (the student's progress, the diagnostics log):
/// `podflow` under `state_home` (`$XDG_STATE_HOME`) when set and absolute,
/// else under `home`'s `.local/state`, as the XDG Base Directory specification says.
pub fn state_dir_from(state_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let state = state_home
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            home.map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(".local").join("state"))
        })?;
    Some(state.join("podflow"))
}

/// The state directory of the user running podflow.
pub fn state_dir() -> Option<PathBuf> {
    state_dir_from(std::env::var_os("XDG_STATE_HOME"), std::env::var_os("HOME"))
}

/// The progress file, in the state directory of [`state_dir_from`].
pub fn path_from(state_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    Some(state_dir_from(state_home, home)?.join("progress.json"))
}

/// The progress file of the user running podflow.
pub fn default_path() -> Option<PathBuf> {
    Some(state_dir()?.join("progress.json"))
}

/// Reads the progress at `path`: empty when there is none; when the file
/// cannot be read as progress, it is set aside and the warning says where.
pub fn load(path: &Path) -> (Progress, Option<String>) {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return (Progress::default(), None),
        Err(e) => {
            return (
                Progress::default(),
                Some(format!(
                    "warning: reading {}: {e}; progress is not loaded",
                    path.display()
                )),
            );
        }
    };
    match serde_json::from_slice(&bytes) {
        Ok(progress) => (progress, None),
        Err(e) => {
            let warning = match set_aside(path) {
                Ok(aside) => format!(
                    "warning: {} is not valid progress ({e}); set aside as {}, starting afresh",
                    path.display(),
                    aside.display()
                ),
                Err(io) => format!(
                    "warning: {} is not valid progress ({e}) and could not be set aside: {io}",
                    path.display()
                ),
            };
            (Progress::default(), Some(warning))
        }
    }
}

/// Renames `path` to the first free `NAME.corrupt-N`.
fn set_aside(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .map_or_else(|| OsString::from("progress.json"), OsString::from);
    for n in 1..1000 {
        let mut aside = name.clone();
        aside.push(format!(".corrupt-{n}"));
        let aside = path.with_file_name(aside);
        if !aside.exists() {
            std::fs::rename(path, &aside)?;
            return Ok(aside);
        }
    }
    Err(io::Error::other("too many corrupt progress files"))
}

/// Writes `progress` to `path` atomically, creating its folder.
pub fn save(path: &Path, progress: &Progress) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut text = serde_json::to_string_pretty(progress).map_err(io::Error::other)?;
    text.push('\n');
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("podflow-progress-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn the_path_follows_xdg() {
        let cases = [
            (Some("/s"), Some("/h"), Some("/s/podflow/progress.json")),
            (
                None,
                Some("/h"),
                Some("/h/.local/state/podflow/progress.json"),
            ),
            (
                Some("relative"),
                Some("/h"),
                Some("/h/.local/state/podflow/progress.json"),
            ),
            (None, None, None),
        ];
        for (state, home, want) in cases {
            assert_eq!(
                path_from(state.map(OsString::from), home.map(OsString::from)),
                want.map(PathBuf::from)
            );
        }
    }

    #[test]
    fn round_trips() {
        let dir = scratch("round-trip");
        let path = dir.join("podflow").join("progress.json");
        assert_eq!(load(&path), (Progress::default(), None));
        let mut progress = Progress::default();
        progress.reached("apply-to-running", 3, 10);
        progress.reached("apply-to-running", 1, 10);
        progress.reached("inside-the-api-server", 7, 8);
        progress.drilled("drill-l1-17", 85, 240, 1, false);
        progress.drilled("drill-l1-17", 40, 90, 0, true);
        save(&path, &progress).unwrap();
        let (read, warning) = load(&path);
        assert_eq!(warning, None);
        assert_eq!(read, progress);
        assert_eq!(read.lessons["apply-to-running"].step, 3);
        assert!(read.lessons["inside-the-api-server"].done);
        let drill = &read.drills["drill-l1-17"];
        assert_eq!(
            (drill.score, drill.best, drill.seconds, drill.solved),
            (40, 85, 90, 2)
        );
        // A file written before drills existed still reads.
        std::fs::write(&path, r#"{"lessons": {}}"#).unwrap();
        assert_eq!(load(&path), (Progress::default(), None));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_corrupt_file_is_set_aside_with_a_warning() {
        let dir = scratch("corrupt");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("progress.json");
        std::fs::write(dir.join("progress.json.corrupt-1"), "older").unwrap();
        std::fs::write(&path, "{not json").unwrap();
        let (progress, warning) = load(&path);
        assert_eq!(progress, Progress::default());
        let warning = warning.unwrap();
        assert!(warning.starts_with("warning: "), "{warning}");
        assert!(warning.contains("set aside as"), "{warning}");
        assert!(!path.exists());
        assert_eq!(
            std::fs::read_to_string(dir.join("progress.json.corrupt-2")).unwrap(),
            "{not json"
        );
        // Saving again works.
        save(&path, &Progress::default()).unwrap();
        assert_eq!(load(&path).1, None);
        let _ = std::fs::remove_dir_all(dir);
    }
}
