//! `podflow drill check`: every generated drill is broken when its goals
//! start (the goal does not hold when the run has settled) and fixed by its
//! own solution, proved headless by the lesson checker
//! ([`podflow_lesson::check`]), with the fault kinds each seed drew.

use std::collections::BTreeSet;

use crate::{Kind, Level, generate};

/// The outcome of one seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub seed: u64,
    pub kinds: Vec<Kind>,
    /// `Err` says which goal failed and how.
    pub result: Result<(), String>,
}

impl Outcome {
    /// `seed 17: fault=missing-configmap-key fault=wrong-service-selector ok`.
    pub fn line(&self) -> String {
        let faults: Vec<String> = self
            .kinds
            .iter()
            .map(|k| format!("fault={}", k.name()))
            .collect();
        let verdict = if let Err(e) = &self.result {
            format!("FAILED: {e}")
        } else {
            "ok".to_owned()
        };
        format!("seed {}: {} {verdict}", self.seed, faults.join(" "))
    }
}

/// Checks the drill of `seed` at `level`.
pub fn check(seed: u64, level: Level) -> Outcome {
    let drill = generate(seed, level);
    let result = podflow_lesson::check(&drill.lesson)
        .map(|_| ())
        .map_err(|e| e.to_string());
    Outcome {
        seed,
        kinds: drill.kinds(),
        result,
    }
}

/// The kinds of `level` no outcome drew.
pub fn missing_kinds(outcomes: &[Outcome], level: Level) -> Vec<Kind> {
    let seen: BTreeSet<Kind> = outcomes.iter().flat_map(|o| o.kinds.clone()).collect();
    Kind::at(level)
        .into_iter()
        .filter(|k| !seen.contains(k))
        .collect()
}

/// Reads `A..B` (seeds A to B, both included) or a single seed.
pub fn parse_seeds(text: &str) -> Result<std::ops::RangeInclusive<u64>, String> {
    let number = |t: &str| {
        t.trim()
            .parse::<u64>()
            .map_err(|_| format!("invalid seeds {text:?}: want N or A..B (A to B, both included)"))
    };
    let (a, b) = if let Some((a, b)) = text.split_once("..") {
        (number(a)?, number(b.trim_start_matches('='))?)
    } else {
        let n = number(text)?;
        (n, n)
    };
    if a > b {
        return Err(format!("invalid seeds {text:?}: {a} is after {b}"));
    }
    Ok(a..=b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_read_as_inclusive_ranges() {
        assert_eq!(parse_seeds("1..200").unwrap(), 1..=200);
        assert_eq!(parse_seeds("5").unwrap(), 5..=5);
        assert_eq!(parse_seeds("3..=4").unwrap(), 3..=4);
        assert!(parse_seeds("9..2").is_err());
        assert!(parse_seeds("a..b").is_err());
    }
}
