//! Published figures the tests reproduce, each with its source: `docs/published.md` lists
//! them all with the documents they come from.

/// Expected score of optimal solitaire play, official rules, to the four published decimals.
/// Source: Verhoeff; Glenn 2007 §II-A gives 254.59; Pawlewicz 2011 §4.1 254.589.
pub const OFFICIAL_EXPECTED: f64 = 254.5896;

/// The same with neither Extra Yahtzee Bonus nor Joker, to the two published decimals.
/// Source: attributed to Verhoeff and Glenn (`docs/published.md`), for Brown et al.'s variant.
pub const NO_BONUS_EXPECTED: f64 = 245.87;

/// Official minus forced-Joker (Hasbro) expected score, "about 0.0019" (the project's first
/// issue; `docs/published.md`).
pub const FORCED_JOKER_GAP: f64 = 0.0019;

/// Score states after reachability and equivalence. Source: Pawlewicz 2011 §3.1.
pub const SCORE_STATES: usize = 310_656;

/// The optimal strategy's points per box, mean and variance, printed to four decimals, in
/// Glenn's order. Source: Glenn 2007 §II-C, Table III.
pub const GLENN_BOX_STATISTICS: [(&str, f64, f64); 13] = [
    ("ones", 1.8813, 1.4786),
    ("twos", 5.2825, 3.9916),
    ("threes", 8.5693, 7.3641),
    ("fours", 12.1583, 10.8039),
    ("fives", 15.6874, 14.8300),
    ("sixes", 19.1889, 21.5585),
    ("3k", 21.6614, 31.5904),
    ("4k", 13.0977, 122.6289),
    ("fh", 22.5918, 54.4056),
    ("ss", 29.4612, 15.8734),
    ("ls", 32.7113, 238.4223),
    ("chance", 22.0091, 6.4477),
    ("yahtzee", 16.8683, 558.8751),
];

/// The upper bonus under the optimal strategy: mean and variance. Source: Glenn 2007 Table III.
pub const GLENN_UPPER_BONUS: (f64, f64) = (23.8413, 266.0375);

/// Mean Extra Yahtzee Bonus under the optimal strategy. Source: Glenn 2007 Table III.
pub const GLENN_YAHTZEE_BONUS_MEAN: f64 = 9.5801;

/// Standard deviation of the optimal final score, two decimals. Source: Glenn 2007 §III-B.
pub const OPTIMAL_STANDARD_DEVIATION: f64 = 59.61;

/// P(score >= n) under the optimal strategy, as printed. Source: Glenn 2007
/// §II-D, Table IV (its n = 50 row is [`GLENN_BELOW_50`]).
pub const GLENN_AT_LEAST: [(u32, &str); 11] = [
    (100, "0.999998"),
    (150, "0.991230"),
    (200, "0.863584"),
    (250, "0.483683"),
    (300, "0.143265"),
    (400, "0.038351"),
    (500, "0.007192"),
    (750, "5.11603e-6"),
    (1000, "5.57508e-9"),
    (1250, "6.49213e-13"),
    (1500, "3.93308e-19"),
];

/// Table IV prints P(score >= 50) as 1 − 6.661782 · 10^-12: this is P(score < 50).
/// Source: Glenn 2007 Table IV.
pub const GLENN_BELOW_50: &str = "6.661782e-12";

/// The optimal chance of a Yahtzee in one turn of three rolls: 2,783,176 / 6^10.
/// Source: whuber.
pub const YAHTZEE_IN_ONE_TURN: f64 = 2_783_176.0 / 60_466_176.0;

/// Exact average scores of Glenn's other solitaire strategies, two decimals. Source: Glenn
/// 2007 §III-C, Table VII (the two strategies from his genetic algorithm aside).
pub mod table_vii {
    /// "Yahtzee Bonus", the novice (§III-A).
    pub const NOVICE: f64 = 170.45;
    /// Rule-based, Tables V and VI.
    pub const RULES: f64 = 218.18;
    /// Greedy, anchor values all 0.
    pub const GREEDY: f64 = 218.54;
    /// Category means heuristic, Eq. 12.
    pub const MEANS: f64 = 225.40;
    /// Eq. 13 iterated from Eq. 12, rounds 0 to 3 (§III-B.1; Table VII lists round 1).
    pub const MEANS_ITER: [f64; 4] = [225.40, 236.56, 232.27, 235.79];
    /// Category means heuristic with variances.
    pub const MEANS_VAR: f64 = 241.94;
    /// Upper and lower heuristic, Eq. 14.
    pub const UPPER_LOWER: f64 = 250.41;
    /// Optimal.
    pub const OPTIMAL: f64 = 254.59;
    /// Category means heuristic (from GA): Glenn's best evolved values of Eq. 13.
    pub const EVOLVED: f64 = 243.63;
}

/// Scandinavian Yatzy under the rules docs/rules.md states (15 boxes, bonus 50 at 63, no
/// Joker, no extra bonus): the optimal expected score to seven decimals, ours. Public
/// solvers print 248.44 (Laurii1i/Yatzy) and 248.4401398 (dlangk/yatzy, `f32`);
/// Castux/yahtzee's 248.4394 differs at the fourth decimal (`docs/published.md` says why).
pub const YATZY_EXPECTED: f64 = 248.4399894;

/// The same figure as Laurii1i/Yatzy prints it, two decimals (`docs/published.md`).
pub const YATZY_PUBLISHED: f64 = 248.44;

/// Larsson and Sjöberg's published optimum for Yatzy, two decimals. Source: their thesis
/// (`docs/published.md`); their code scores a single pair in Two pairs, which is what the
/// figure measures.
pub const LARSSON_SJOBERG_EXPECTED: f64 = 248.63;
