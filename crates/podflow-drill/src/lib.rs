//! Drills (`podflow drill`): a broken cluster generated from a seed, as an
//! exam's troubleshooting task. The drill is a generated [`Lesson`]: the
//! cluster and the team's manifests, commands that apply them, two minutes
//! of the cluster, a narration that states the symptom, and a goal per fault whose check holds only once
//! the fault is fixed and whose solution is the fix. The lesson player does
//! the rest (hints on `i`, the cause and the fix on `s`, `:` commands, `r`).
//!
//! Everything comes from the seed through podflow's own generator
//! ([`podflow_engine::rng::Rng`]): the same seed and level give the same drill.

pub mod faults;
pub mod lesson;
pub mod nodes;
pub mod score;
pub mod verify;

mod app;
mod yaml;

use podflow_engine::rng::Rng;
use podflow_lesson::Lesson;

pub use faults::{Fault, Kind};

/// How hard a drill is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// One fault, its symptom on the broken object itself.
    One,
    /// Two faults in two workloads.
    Two,
    /// One fault whose symptom shows far from its cause: a frontend that is
    /// not Ready because the backend it probes is broken.
    Three,
}

impl Level {
    /// The level numbered 1, 2 or 3.
    pub fn from_number(n: u8) -> Option<Level> {
        match n {
            1 => Some(Level::One),
            2 => Some(Level::Two),
            3 => Some(Level::Three),
            _ => None,
        }
    }

    /// 1, 2 or 3.
    pub fn number(self) -> u8 {
        match self {
            Level::One => 1,
            Level::Two => 2,
            Level::Three => 3,
        }
    }
}

/// A text in English and Chinese.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Say {
    pub en: String,
    pub zh: String,
}

/// A [`Say`] from its two texts.
pub fn say(en: impl Into<String>, zh: impl Into<String>) -> Say {
    Say {
        en: en.into(),
        zh: zh.into(),
    }
}

/// A generated drill.
#[derive(Debug, Clone)]
pub struct Drill {
    pub seed: u64,
    pub level: Level,
    pub faults: Vec<Fault>,
    /// The nodes as the faults left them.
    pub nodes: nodes::Nodes,
    /// The drill as a lesson the player and the checker run.
    pub lesson: Lesson,
}

impl Drill {
    /// The cluster file of the drill (for a served cluster: `podflow serve`).
    pub fn cluster_yaml(&self) -> String {
        lesson::cluster(&self.faults, &self.nodes)
    }

    /// The drill's id, under which its score is saved: `drill-l1-17`.
    pub fn id(&self) -> String {
        id(self.seed, self.level)
    }

    /// The kinds of its faults, in the order of their goals.
    pub fn kinds(&self) -> Vec<Kind> {
        self.faults.iter().map(|f| f.kind).collect()
    }
}

/// The id of drill `seed` at `level`.
pub fn id(seed: u64, level: Level) -> String {
    format!("drill-l{}-{seed}", level.number())
}

/// The drill of `seed` at `level`: the same arguments give the same drill.
pub fn generate(seed: u64, level: Level) -> Drill {
    // Each level draws from its own stream, so level 2 of a seed is not level 1 plus more.
    let mut rng = Rng::new(seed.wrapping_mul(4).wrapping_add(u64::from(level.number())));
    let (faults, nodes) = faults::pick(seed, &mut rng, level);
    let lesson = lesson::build(seed, level, &faults, &nodes);
    Drill {
        seed,
        level,
        faults,
        nodes,
        lesson,
    }
}
