//! `podflow lessons list`, `podflow lessons show ID` and `podflow lessons check [PATH]...`.

use clap::Subcommand;
use std::io::Write as _;

use podflow_lesson::{self as lesson, Lesson, embedded};

/// `podflow lessons`'s subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum LessonsCommand {
    /// The built-in lessons: id and title.
    List,
    /// Print a built-in lesson's file, to start a lesson of your own from.
    Show {
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Check lesson files (the built-in ones without a PATH); a folder checks its `.yaml` files.
    Check {
        #[arg(value_name = "PATH")]
        paths: Vec<String>,
    },
}

/// The lesson files behind the paths: each file, or a folder's `.yaml`/`.yml` files in name order.
fn files(paths: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for path in paths {
        match std::fs::read_dir(path) {
            Ok(entries) => {
                let mut found: Vec<String> = entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| {
                        p.is_file() && p.extension().is_some_and(|e| e == "yaml" || e == "yml")
                    })
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                found.sort();
                out.extend(found);
            }
            Err(_) => out.push(path.clone()),
        }
    }
    out
}

/// Runs `podflow lessons ...`: the first bad lesson is the error.
pub fn run(command: &LessonsCommand) -> Result<(), String> {
    match command {
        LessonsCommand::List => {
            let lessons = embedded::all().map_err(|e| e.to_string())?;
            // The ids in a column as wide as the longest.
            let width = lessons.iter().map(|l| l.id().len()).max().unwrap_or(0);
            let mut out = std::io::stdout().lock();
            for lesson in lessons {
                // A closed pipe (`| head`) ends the list quietly.
                if writeln!(
                    out,
                    "{:<width$} {}",
                    lesson.id(),
                    lesson.doc.title.value.pick(false)
                )
                .is_err()
                {
                    break;
                }
            }
            Ok(())
        }
        LessonsCommand::Show { id } => match embedded::source(id) {
            Some(text) => {
                print!("{text}");
                Ok(())
            }
            None => Err(format!(
                "{id}: no built-in lesson has this id; the built-in lessons are {}",
                embedded::ids().join(", ")
            )),
        },
        LessonsCommand::Check { paths } if paths.is_empty() => {
            for lesson in embedded::all().map_err(|e| e.to_string())? {
                report(&lesson)?;
            }
            Ok(())
        }
        LessonsCommand::Check { paths } => {
            for file in files(paths) {
                report(&Lesson::load(&file).map_err(|e| e.to_string())?)?;
            }
            Ok(())
        }
    }
}

/// Checks one lesson and says so on standard output.
fn report(lesson: &Lesson) -> Result<(), String> {
    let summary = lesson::check(lesson).map_err(|e| e.to_string())?;
    crate::record::driver::play_every_step(lesson)
        .map_err(|e| format!("{}: playing every step: {e}", lesson.file))?;
    println!(
        "ok  {}  {} ({} steps)",
        lesson.file, summary.id, summary.steps
    );
    Ok(())
}
