//! A drill's score: 100 points, less for each hint asked (`i`) and for the
//! solution shown (`s`), never below zero.

/// The points of a drill solved without help.
pub const FULL: u32 = 100;
/// What each hint costs.
pub const HINT_COST: u32 = 15;
/// What showing the cause and the fix costs.
pub const SOLUTION_COST: u32 = 60;

/// The score of a drill solved after `hints` hints, with the solution shown or not.
pub fn score(hints: usize, solution: bool) -> u32 {
    let hints = u32::try_from(hints).unwrap_or(u32::MAX);
    let cost =
        hints
            .saturating_mul(HINT_COST)
            .saturating_add(if solution { SOLUTION_COST } else { 0 });
    FULL.saturating_sub(cost)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_and_the_solution_cost_points() {
        let cases = [
            (0, false, 100),
            (1, false, 85),
            (2, false, 70),
            (0, true, 40),
            (2, true, 10),
            (7, false, 0),
            (usize::MAX, true, 0),
        ];
        for (hints, solution, want) in cases {
            assert_eq!(score(hints, solution), want, "{hints} {solution}");
        }
    }
}
