//! `podflow drill`: a broken cluster from a seed, opened in the TUI's lesson
//! player with a score; `podflow drill check` proves headless that each
//! seed's drill is broken at its start and fixed by its own solution;
//! `podflow drill show` prints the generated drill as a lesson file.

use clap::{Args, Subcommand};

use super::play::{LangArg, PlayArgs, Start, ThemeArg};
use podflow_drill::{Level, generate, verify};

/// `podflow drill`'s arguments.
#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DrillArgs {
    #[command(subcommand)]
    pub command: Option<DrillCommand>,
    /// The drill's seed (default: one from the clock, shown in the title).
    #[arg(long)]
    pub seed: Option<u64>,
    /// 1: one fault; 2: two faults; 3: a fault whose symptom shows far from its cause.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub level: u8,
    /// The language of the interface and the drill's texts.
    #[arg(long, value_enum, default_value_t)]
    pub lang: LangArg,
    /// The colours: dark, light, or high contrast for projectors.
    #[arg(long, value_enum, default_value_t)]
    pub theme: ThemeArg,
}

/// `podflow drill`'s subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum DrillCommand {
    /// Prove that each seed's drill is broken at its start and fixed by its solution.
    Check {
        /// Seeds: `A..B` (A to B, both included) or one seed.
        #[arg(long, default_value = "1..200")]
        seeds: String,
        /// The level (default: 1).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
        level: u8,
    },
    /// Print a drill as a lesson file (JSON, which is YAML): `lessons check` and `play --lesson` read it.
    Show {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
        level: u8,
    },
}

fn level(n: u8) -> Level {
    Level::from_number(n).unwrap_or(Level::One)
}

/// Runs `podflow drill ...`.
pub fn run(args: &DrillArgs) -> Result<(), String> {
    match &args.command {
        Some(DrillCommand::Check { seeds, level: n }) => check(seeds, level(*n)),
        Some(DrillCommand::Show { seed, level: n }) => {
            let drill = generate(*seed, level(*n));
            let doc =
                podflow_drill::lesson::document(*seed, level(*n), &drill.faults, &drill.nodes);
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            Ok(())
        }
        None => {
            use std::io::IsTerminal;
            if !std::io::stdout().is_terminal() {
                return Err("error: podflow drill needs a terminal; `podflow drill show --seed N` prints a drill, `podflow drill check` checks drills headless".into());
            }
            let seed = args.seed.unwrap_or_else(clock_seed);
            let drill = generate(seed, level(args.level));
            let play = PlayArgs {
                lang: args.lang,
                theme: args.theme,
                ..PlayArgs::default()
            };
            super::play::run_with(&play, Vec::new(), Start::Drill(Box::new(drill.lesson)))
        }
    }
}

/// A seed from the clock: 1 to 10,000.
fn clock_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_secs());
    now % 10_000 + 1
}

/// `podflow drill check`: a line per seed; an error when a seed fails or a
/// fault kind of the level never appears.
fn check(seeds: &str, level: Level) -> Result<(), String> {
    let seeds = verify::parse_seeds(seeds)?;
    let mut outcomes = Vec::new();
    let mut failed = 0;
    for seed in seeds {
        let outcome = verify::check(seed, level);
        println!("{}", outcome.line());
        if outcome.result.is_err() {
            failed += 1;
        }
        outcomes.push(outcome);
    }
    let missing = verify::missing_kinds(&outcomes, level);
    let names: Vec<&str> = missing.iter().map(|k| k.name()).collect();
    if failed > 0 {
        return Err(format!(
            "error: {failed} of {} drills failed",
            outcomes.len()
        ));
    }
    if !missing.is_empty() && outcomes.len() >= 100 {
        return Err(format!(
            "error: fault kinds that never appeared: {}",
            names.join(", ")
        ));
    }
    let kinds = podflow_drill::Kind::at(level).len() - missing.len();
    println!(
        "{} drills ok at level {}; {kinds} fault kinds appeared{}",
        outcomes.len(),
        level.number(),
        if names.is_empty() {
            String::new()
        } else {
            format!(" (not: {})", names.join(", "))
        }
    );
    Ok(())
}
