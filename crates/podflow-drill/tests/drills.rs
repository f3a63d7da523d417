//! `podflow drill check` for a range of seeds at each level: every drill is
//! broken when its goals start and fixed by its own solution, the same seed
//! gives the same drill, and the seeds draw many fault kinds.

use podflow_drill::{Kind, Level, generate, verify};

/// Seeds per level: as many as level 1 has kinds (a run of that many seeds
/// meets every kind), few enough for a debug build (`podflow drill check`
/// runs 200).
const SEEDS: u64 = Kind::ALL.len() as u64;

fn check_level(level: Level) -> Vec<verify::Outcome> {
    let outcomes: Vec<_> = (1..=SEEDS).map(|seed| verify::check(seed, level)).collect();
    let failed: Vec<String> = outcomes
        .iter()
        .filter(|o| o.result.is_err())
        .map(verify::Outcome::line)
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    outcomes
}

#[test]
fn level_1_drills_are_broken_then_fixed() {
    let outcomes = check_level(Level::One);
    assert_eq!(verify::missing_kinds(&outcomes, Level::One), []);
}

#[test]
fn level_2_drills_have_two_faults_broken_then_fixed() {
    for outcome in check_level(Level::Two) {
        assert_eq!(outcome.kinds.len(), 2, "{}", outcome.line());
        assert_ne!(outcome.kinds[0], outcome.kinds[1]);
    }
}

#[test]
fn level_3_drills_show_the_symptom_on_a_frontend() {
    let outcomes = check_level(Level::Three);
    assert_eq!(verify::missing_kinds(&outcomes, Level::Three), []);
    for seed in 1..=SEEDS {
        let drill = generate(seed, Level::Three);
        let check = &drill.faults[0].check;
        assert!(check.contains("-frontend has 1 ready replica"), "{check}");
    }
}

#[test]
fn the_same_seed_gives_the_same_drill() {
    for level in [Level::One, Level::Two, Level::Three] {
        let a = podflow_drill::lesson::document(
            7,
            level,
            &generate(7, level).faults,
            &generate(7, level).nodes,
        );
        let b = podflow_drill::lesson::document(
            7,
            level,
            &generate(7, level).faults,
            &generate(7, level).nodes,
        );
        assert_eq!(a, b);
    }
    assert_ne!(
        generate(7, Level::One).kinds(),
        generate(7, Level::Two).kinds()
    );
}

/// The lines `drill check` prints, as the issue spells them.
#[test]
fn a_line_names_the_seed_and_its_faults() {
    let outcome = verify::Outcome {
        seed: 17,
        kinds: vec![Kind::MissingConfigMapKey, Kind::WrongServiceSelector],
        result: Ok(()),
    };
    assert_eq!(
        outcome.line(),
        "seed 17: fault=missing-configmap-key fault=wrong-service-selector ok"
    );
}
