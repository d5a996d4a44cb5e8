//! Published figures the tests reproduce, each with its source (`../shared/reference/golden.md`
//! lists them all; the seeds are the papers themselves).

/// Expected score of optimal solitaire play, official rules, to the four published decimals.
/// Source: Verhoeff (seed 001); Glenn 2007 §II-A gives 254.59; Pawlewicz 2011 §4.1 254.589.
pub const OFFICIAL_EXPECTED: f64 = 254.5896;

/// The same with neither Extra Yahtzee Bonus nor Joker, to the two published decimals.
/// Source: the foundation issue's published figure for Brown et al.'s variant (seed 003).
pub const NO_BONUS_EXPECTED: f64 = 245.87;

/// Official minus forced-Joker (Hasbro) expected score, "about 0.0019" (foundation issue).
pub const FORCED_JOKER_GAP: f64 = 0.0019;

/// Score states after reachability and equivalence. Source: Pawlewicz 2011 §3.1.
pub const SCORE_STATES: usize = 310_656;
