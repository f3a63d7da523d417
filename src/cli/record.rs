//! `podflow record`: a lesson, or a sandbox run, rendered headless to an
//! asciicast v2 file on simulated time (the same inputs, the same bytes).

use std::io::Write as _;

use clap::Args;
use clap::builder::RangedU64ValueParser;

use super::play::LangArg;
use crate::record::{self, Options};
use podflow_engine::engine::Engine;
use podflow_engine::setup::{SetupArgs, build_setup};
use podflow_engine::timeline::Timeline;
use podflow_lesson::embedded;

/// `podflow record`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct RecordArgs {
    /// The lesson to record: a built-in lesson's id, or the path of a lesson file.
    #[arg(long, value_name = "ID|PATH", conflicts_with_all = ["files", "steps", "cluster"])]
    pub lesson: Option<String>,
    /// A manifest to apply, for a sandbox recording. Repeatable.
    #[arg(
        short = 'f',
        long = "filename",
        visible_alias = "manifest",
        value_name = "FILE"
    )]
    pub files: Vec<String>,
    /// A cluster-language command to run after the files. Repeatable.
    #[arg(long = "step", value_name = "CMD")]
    pub steps: Vec<String>,
    /// A cluster file.
    #[arg(long, value_name = "FILE")]
    pub cluster: Option<String>,
    /// The cast file to write (`-` for standard output).
    #[arg(short = 'o', long = "output", value_name = "FILE.cast")]
    pub output: String,
    /// The terminal's width.
    #[arg(long, default_value_t = 120, value_parser = size_parser())]
    pub cols: u16,
    /// The terminal's height.
    #[arg(long, default_value_t = 40, value_parser = size_parser())]
    pub rows: u16,
    /// The language of the interface and the narration.
    #[arg(long, value_enum, default_value_t)]
    pub lang: LangArg,
    /// Multiplies every duration: 2 is twice as slow, 0.5 twice as fast.
    #[arg(long, default_value_t = 1.0, value_parser = parse_pace)]
    pub pace: f64,
    /// Seed for everything random.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Terminal sizes podflow draws on: 10 to 1000 cells.
pub fn size_parser() -> RangedU64ValueParser<u16> {
    RangedU64ValueParser::<u16>::new().range(10..=1000)
}

/// `--pace`: a positive number up to 100.
fn parse_pace(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(pace) if pace.is_finite() && pace > 0.0 && pace <= 100.0 => Ok(pace),
        _ => Err(format!("{text:?} is not a pace between 0 and 100")),
    }
}

/// Records, writes the file, and says how long the recording is.
pub fn run(args: &RecordArgs) -> Result<(), String> {
    let mut options = Options {
        cols: args.cols,
        rows: args.rows,
        lang: args.lang.lang(),
        pace: args.pace,
        title: None,
    };
    let recording = if let Some(id) = &args.lesson {
        let lesson = embedded::open(id).map_err(|e| e.to_string())?;
        let zh = options.lang == crate::tui::lang::Lang::Zh;
        options.title = Some(format!("podflow: {}", lesson.doc.title.value.pick(zh)));
        record::record_lesson(lesson, &options)?
    } else if args.files.is_empty() && args.steps.is_empty() {
        return Err("error: podflow record needs --lesson ID, or -f FILE / --step CMD".into());
    } else {
        let setup = build_setup(&SetupArgs {
            files: args.files.clone(),
            steps: args.steps.clone(),
            cluster: args.cluster.clone(),
            seed: args.seed,
            ..SetupArgs::default()
        })
        .map_err(|e| e.to_string())?;
        options.title = Some("podflow".to_owned());
        record::record_sandbox(Timeline::new(Engine::new(setup)), &options)
    };
    write_output(&args.output, &recording.cast)?;
    if args.output != "-" {
        #[allow(clippy::cast_precision_loss)]
        let seconds = recording.duration_ms as f64 / 1000.0;
        eprintln!(
            "wrote {}: {} bytes, {seconds:.1} s, {} markers",
            args.output,
            recording.cast.len(),
            recording.markers
        );
    }
    Ok(())
}

/// Writes `text` to `path`, or to standard output for `-`.
pub fn write_output(path: &str, text: &str) -> Result<(), String> {
    let result = if path == "-" {
        std::io::stdout().lock().write_all(text.as_bytes())
    } else {
        std::fs::write(path, text)
    };
    result.map_err(|e| format!("error: writing {path}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pace_must_be_a_positive_number() {
        assert_eq!(parse_pace("1.5"), Ok(1.5));
        for bad in ["0", "-1", "nan", "inf", "101", "fast"] {
            assert!(parse_pace(bad).is_err(), "{bad}");
        }
    }
}
