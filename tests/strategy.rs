//! The strategy zoo: Glenn's Table VII by exact analysis, the bounds every strategy must
//! respect, a brute force of the greedy strategy, and `yz strategy eval`.
//!
//! Where Glenn's words leave a strategy open, `src/strategy/` documents the reading we
//! play; its exact average then differs from Table VII by a gap we assert to ±0.01, so that
//! any change of play shows.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use yz::game::{Category, CategorySet, Game, KeepId, RollId, Rules, ScoreState, YAHTZEE_RULES};
use yz::solo::policy::TIE;
use yz::solo::{Analysis, analyze, solve};
use yz::strategy::anchors::{self, CategoryMeans};
use yz::strategy::evolve::{self, EvolveParams};
use yz::strategy::learned::{self, ActionTable};
use yz::strategy::upper_lower::UpperLowerValues;
use yz::strategy::{STRATEGY_NAMES, Strategy, StrategyError, StrategyName, box_means, optimal_statistics};

use crate::cli::{fails_with, json, yz};
use crate::golden::table_vii;

const OFFICIAL: Game = Game::full(Rules::OFFICIAL);

/// The data directory these tests build strategies from: each game's optimal table is
/// solved and written once.
static DATA: LazyLock<tempfile::TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());

fn data() -> &'static Path {
    DATA.path()
}

/// `name` built for `game` from [`DATA`].
fn build(name: &StrategyName, game: Game) -> Strategy {
    Strategy::build(name, game, data()).unwrap()
}

/// The optimal strategy's statistics in the official game: Glenn's Table III, the input of
/// the category means heuristics (tests/analysis.rs checks them against Glenn's).
static TABLE_III: LazyLock<Analysis> = LazyLock::new(|| optimal_statistics(OFFICIAL, data()).unwrap());

/// Asserts that `ours` is Glenn's `published` figure plus `gap`, to ±0.01 (`gap` 0: equal
/// at Glenn's two decimals).
fn assert_table_vii(what: &str, ours: f64, published: f64, gap: f64) {
    if gap == 0.0 {
        assert_eq!(format!("{ours:.2}"), format!("{published:.2}"), "{what}: {ours}");
    } else {
        let measured = ours - published;
        assert!(
            (measured - gap).abs() < 0.01,
            "{what}: {ours:.4}, Glenn {published}, gap {measured:.4} (expected {gap})"
        );
    }
}

fn full_game(name: StrategyName) -> f64 {
    build(&name, OFFICIAL).analyze().expected_score()
}

#[test]
#[cfg_attr(debug_assertions, ignore = "analyses the full game; run with --release")]
fn table_vii_optimal() {
    assert_table_vii("optimal", full_game(StrategyName::Optimal), table_vii::OPTIMAL, 0.0);
}

/// Our greedy strategy (ties to the first box in card order, the fewest dice) averages
/// 217.38, 1.16 below Glenn's. Glenn does not say how his program breaks ties; which box
/// takes a zero or an equal sum moves greedy play by this much (ties to the last box in
/// card order average 217.47), and the bonuses counted or not in the turn's points do not
/// (217.31 without the upper bonus).
#[test]
#[cfg_attr(debug_assertions, ignore = "analyses the full game; run with --release")]
fn table_vii_greedy() {
    assert_table_vii("greedy", full_game(StrategyName::Greedy), table_vii::GREEDY, -1.16);
}

/// Eq. 12 with the means-only bonus adjustment (`CategoryMeans`): 225.58 against 225.40.
#[test]
#[cfg_attr(debug_assertions, ignore = "analyses the full game; run with --release")]
fn table_vii_means() {
    let means = anchors::means(OFFICIAL, CategoryMeans::new(Rules::OFFICIAL, box_means(&TABLE_III)));
    assert_table_vii("means", analyze(OFFICIAL, &means).expected_score(), table_vii::MEANS, 0.18);
}

/// The normal approximation of the upper bonus, with continuity correction: 242.09 against
/// 241.94.
#[test]
#[cfg_attr(debug_assertions, ignore = "analyses the full game; run with --release")]
fn table_vii_means_var() {
    let means_var = anchors::means_var(OFFICIAL, &TABLE_III);
    assert_table_vii("means-var", analyze(OFFICIAL, &means_var).expected_score(), table_vii::MEANS_VAR, 0.15);
}

/// Eq. 14 is read from solved sub-games, so it has no free choice but ties: 249.77 against
/// 250.41.
#[test]
#[cfg_attr(debug_assertions, ignore = "analyses the full game; run with --release")]
fn table_vii_upper_lower() {
    assert_table_vii("upper-lower", full_game(StrategyName::UpperLower), table_vii::UPPER_LOWER, -0.64);
}

/// Our reading of Tables V and VI plays 7.87 points better than Glenn's 218.18: his rule
/// texts leave which dice a rule keeps open, and ours keep the most useful ones.
#[test]
#[cfg_attr(debug_assertions, ignore = "analyses the full game; run with --release")]
fn table_vii_rules() {
    assert_table_vii("rules", full_game(StrategyName::Rules), table_vii::RULES, 7.87);
}

/// The novice as we read §III-A averages 166.92, 3.53 below Glenn's 170.45; no reading we
/// tried of its ties and of "hard to get" came closer (see `src/strategy/novice.rs`).
#[test]
#[cfg_attr(debug_assertions, ignore = "analyses the full game; run with --release")]
fn table_vii_novice() {
    assert_table_vii("novice", full_game(StrategyName::Novice), table_vii::NOVICE, -3.53);
}

/// `yz strategy evolve` with its defaults (Glenn's population 256 and sample 100, 30
/// generations, seed 1, then the exact polish) beats Glenn's best evolved values. The
/// genetic algorithm alone reached 243.5510 (2026-11-21), the polish 244.7872.
#[test]
#[ignore = "a genetic algorithm and about 1,100 exact analyses of the full game: 40 to 70 minutes on two cores; run by scripts/long-tests"]
fn table_vii_evolved_reaches_glenns_champion() {
    let params = EvolveParams { generations: 30, population: 256, sample: 100, seed: 1, finalists: 4, polish: 6 };
    let evolution = evolve::evolve(OFFICIAL, params, |_| {});
    assert!(
        evolution.champion_mean >= table_vii::EVOLVED,
        "champion {} (genetic algorithm {}) below Glenn's {}",
        evolution.champion_mean,
        evolution.finalists[0].1,
        table_vii::EVOLVED
    );
}

/// Glenn's iteration of Eq. 13 goes up, down, up: 225.40, 236.56, 232.27, 235.79. Ours,
/// with the same bonus adjustment, follows it 0.2 to 1.6 points higher.
#[test]
#[ignore = "four analyses of the full game; run by scripts/long-tests"]
fn table_vii_means_iterated() {
    let (_, averages) = anchors::iterate_means(OFFICIAL, box_means(&TABLE_III), 4);
    let gaps = [0.18, 1.42, 0.75, 1.64];
    for (round, ((&ours, glenn), gap)) in averages.iter().zip(table_vii::MEANS_ITER).zip(gaps).enumerate() {
        assert_table_vii(&format!("means-iter round {round}"), ours, glenn, gap);
    }
}

fn set(boxes: &[Category]) -> CategorySet {
    boxes.iter().fold(CategorySet::EMPTY, |s, &c| s.with(c))
}

/// Every strategy, `evolved` and `learned` reading their files from the data directory.
const ALL_NAMES: [StrategyName; 11] = [
    StrategyName::Optimal,
    StrategyName::Greedy,
    StrategyName::Means,
    StrategyName::MeansIter { rounds: 2 },
    StrategyName::MeansVar,
    StrategyName::UpperLower,
    StrategyName::Rules,
    StrategyName::Novice,
    StrategyName::Evolved { file: None },
    StrategyName::Expert,
    StrategyName::Learned { file: None },
];

/// Writes a briefly evolved and a briefly trained strategy for `game` into [`DATA`], where
/// `evolved` and `learned` look for them.
fn evolve_and_train(game: Game) {
    let params = EvolveParams { generations: 2, population: 8, sample: 10, seed: 1, finalists: 1, polish: 0 };
    let champion = evolve::evolve(game, params, |_| {}).champion;
    evolve::write(&data().join(evolve::file_name(game)), game, &champion, serde_json::json!({})).unwrap();
    let mut table = ActionTable::new(game);
    table.train(5_000, 1, 0, |_| {});
    table.write(&data().join(learned::file_name(game)), serde_json::json!({})).unwrap();
}

/// Every strategy plays every rule variant and truncated game, never better than optimal
/// play, and the optimal strategy exactly as well; each analysis is a probability
/// distribution whose mean is the sum of the box and bonus means.
#[test]
fn no_strategy_beats_optimal_in_small_games() {
    use Category::*;
    let boxes = [
        Rules::OFFICIAL.first(6).unwrap(),
        set(&[Ones, Sixes, ThreeOfAKind, FullHouse, LargeStraight, Yahtzee, Chance]),
    ];
    for rules in YAHTZEE_RULES {
        for categories in boxes {
            let game = Game { rules, categories };
            let optimal = solve(game).start_value();
            evolve_and_train(game);
            for name in ALL_NAMES {
                let analysis = build(&name, game).analyze();
                let (mean, total) =
                    (analysis.expected_score(), analysis.distribution().probabilities().iter().sum::<f64>());
                assert!((total - 1.0).abs() < 1e-12, "{name} {game:?}: probabilities add to {total}");
                assert!((analysis.distribution().mean() - mean).abs() < 1e-9, "{name} {game:?}");
                assert!(mean <= optimal + 1e-9, "{name} {game:?}: {mean} beats optimal {optimal}");
                if name == StrategyName::Optimal {
                    assert!((mean - optimal).abs() < 1e-9, "{game:?}: {mean} vs {optimal}");
                }
            }
        }
    }
}

/// In a game of only upper or only lower boxes one half of Eq. 14 is the game itself and
/// the other is 0, so the upper and lower heuristic plays optimally.
#[test]
fn upper_lower_is_optimal_in_either_half_alone() {
    use Category::*;
    let halves = [CategorySet::UPPER, set(&[ThreeOfAKind, FourOfAKind, FullHouse, SmallStraight, Yahtzee, Chance])];
    for rules in YAHTZEE_RULES {
        for categories in halves {
            let game = Game { rules, categories };
            let mean = build(&StrategyName::UpperLower, game).analyze().expected_score();
            let optimal = solve(game).start_value();
            assert!((mean - optimal).abs() < 1e-9, "{game:?}: {mean} vs {optimal}");
        }
    }
    assert_eq!(
        UpperLowerValues::solve(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(3).unwrap() }).count(),
        4288
    );
}

/// Greedy play by direct enumeration: every reroll as a sequence of dice, the best keep by
/// trying every sub-multiset, the best box by trying every box, for points this turn only,
/// with the documented ties (first box in card order, first keep in `KeepId` order); then
/// the expected final score of that play, state by state.
struct GreedyBruteForce {
    game: Game,
    totals: HashMap<ScoreState, f64>,
}

impl GreedyBruteForce {
    /// The mean of `value` over every way of rolling the dice missing from `keep`.
    fn reroll(keep: KeepId, value: &dyn Fn(RollId) -> f64) -> f64 {
        let missing = 5 - keep.size();
        let outcomes = 6usize.pow(missing as u32);
        let mut sum = 0.0;
        for sequence in 0..outcomes {
            let mut counts = keep.counts();
            let mut rest = sequence;
            for _ in 0..missing {
                counts[rest % 6] += 1;
                rest /= 6;
            }
            sum += value(RollId::from_counts(counts));
        }
        sum / outcomes as f64
    }

    /// For each roll, the first sub-keep in `KeepId` order whose `keep_value` is within TIE
    /// of the best.
    fn best_keeps(keep_value: &[f64]) -> Vec<KeepId> {
        RollId::all()
            .map(|roll| {
                let within: Vec<KeepId> = KeepId::all().filter(|k| k.is_within(roll)).collect();
                let best = within.iter().map(|k| keep_value[k.0 as usize]).fold(f64::NEG_INFINITY, f64::max);
                *within.iter().find(|k| keep_value[k.0 as usize] >= best - TIE).unwrap()
            })
            .collect()
    }

    fn total(&mut self, state: ScoreState) -> f64 {
        if state.is_terminal() {
            return 0.0;
        }
        if let Some(&t) = self.totals.get(&state) {
            return t;
        }
        let game = self.game;
        // The box each final roll goes to, its points and the state after it.
        let scored: Vec<(u32, ScoreState)> = RollId::all()
            .map(|roll| {
                let options: Vec<_> =
                    state.filled.complement().iter().filter_map(|c| state.score(game, c, roll)).collect();
                let best = options.iter().map(|t| t.points).max().unwrap();
                let t = options.iter().find(|t| t.points == best).unwrap();
                (t.points, t.next)
            })
            .collect();
        let points = |roll: RollId| scored[roll.0 as usize].0 as f64;
        let last_keep_value: Vec<f64> = KeepId::all().map(|k| Self::reroll(k, &points)).collect();
        let last_keeps = Self::best_keeps(&last_keep_value);
        let turn_points = |roll: RollId| last_keep_value[last_keeps[roll.0 as usize].0 as usize];
        let first_keep_value: Vec<f64> = KeepId::all().map(|k| Self::reroll(k, &turn_points)).collect();
        let first_keeps = Self::best_keeps(&first_keep_value);

        // The expected final score of that play.
        let after: Vec<f64> = scored.iter().map(|&(p, next)| p as f64 + self.total(next)).collect();
        let last = |roll: RollId| Self::reroll(last_keeps[roll.0 as usize], &|r| after[r.0 as usize]);
        let second: Vec<f64> = RollId::all().map(last).collect();
        let first = |roll: RollId| Self::reroll(first_keeps[roll.0 as usize], &|r| second[r.0 as usize]);
        let first: Vec<f64> = RollId::all().map(first).collect();
        let total = Self::reroll(KeepId(0), &|r| first[r.0 as usize]);
        self.totals.insert(state, total);
        total
    }
}

#[test]
fn greedy_matches_a_brute_force() {
    use Category::*;
    let games = [
        Game { rules: Rules::OFFICIAL, categories: set(&[Fours, Fives, Sixes]) },
        Game { rules: Rules::OFFICIAL, categories: set(&[Threes, FullHouse, Yahtzee]) },
        Game { rules: Rules::FORCED_JOKER, categories: set(&[Threes, SmallStraight, Yahtzee]) },
    ];
    for game in games {
        let brute = GreedyBruteForce { game, totals: HashMap::new() }.total(ScoreState::start(game));
        let ours = build(&StrategyName::Greedy, game).analyze().expected_score();
        assert!((ours - brute).abs() < 1e-9, "{game:?}: {ours} vs brute force {brute}");
    }
}

#[test]
fn strategy_names_parse_and_unknown_names_are_listed() {
    let with_files = [
        StrategyName::MeansIter { rounds: 1 },
        StrategyName::Evolved { file: Some("runs/Champion.yzs".into()) },
        StrategyName::Learned { file: Some("/tmp/table.yzs".into()) },
    ];
    for name in ALL_NAMES.into_iter().chain(with_files) {
        assert_eq!(name.to_string().parse::<StrategyName>().unwrap(), name);
    }
    assert_eq!("means-iter".parse::<StrategyName>().unwrap(), StrategyName::MeansIter { rounds: 1 });
    assert_eq!(" Expert ".parse::<StrategyName>().unwrap(), StrategyName::Expert);
    for bad in ["optimum", "means-iter:x", "", "greedy:file", "evolved:", "expert:x"] {
        let err = bad.parse::<StrategyName>().unwrap_err();
        assert!(matches!(err, StrategyError::Unknown(_)), "{bad}: {err}");
        assert!(err.to_string().ends_with(&format!("expected one of {STRATEGY_NAMES}")), "{err}");
    }
    // Rounds that cannot run: none, or more than the means need to settle.
    for bad in ["means-iter:0", "means-iter:101", "means-iter:4294967295"] {
        let err = bad.parse::<StrategyName>().unwrap_err();
        assert!(matches!(err, StrategyError::OutOfRange(_)), "{bad}: {err}");
        assert!(err.to_string().contains("1 to 100 rounds"), "{err}");
    }
    for name in ["optimal", "means-iter[:ROUNDS]", "evolved[:FILE]", "expert", "learned[:FILE]"] {
        assert!(STRATEGY_NAMES.contains(name), "{name}");
    }
}

/// `yz strategy eval` reports the library's analysis; means-iter the average of every round.
#[test]
fn eval_command_reports_the_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = Game { rules: Rules::NO_BONUS, categories: Rules::OFFICIAL.first(6).unwrap() };
    let report = json(&yz(d, &["--json", "strategy", "eval", "greedy", "--rules", "no-bonus", "--first", "6"]));
    let analysis = build(&StrategyName::Greedy, game).analyze();
    assert_eq!(report["strategy"], "greedy");
    assert_eq!(report["rules"], "no-bonus");
    assert!((report["expected_score"].as_f64().unwrap() - analysis.expected_score()).abs() < 1e-12);
    let sd = report["score"]["standard_deviation"].as_f64().unwrap();
    assert!((sd - analysis.distribution().standard_deviation()).abs() < 1e-12);
    assert_eq!(report["boxes"].as_array().unwrap().len(), 6);
    assert!(report.get("rounds").is_none());

    let iterated =
        json(&yz(d, &["--json", "strategy", "eval", "means-iter:2", "--categories", "ones,sixes,fh,yahtzee"]));
    let means = json(&yz(d, &["--json", "strategy", "eval", "means", "--categories", "ones,sixes,fh,yahtzee"]));
    let rounds = iterated["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 3);
    assert_eq!(rounds[0], means["expected_score"]);
    assert_eq!(rounds[2], iterated["expected_score"]);

    let expert = json(&yz(d, &["--json", "strategy", "eval", "expert", "--rules", "no-bonus", "--first", "6"]));
    let analysis = build(&StrategyName::Expert, game).analyze();
    assert_eq!(expert["strategy"], "expert");
    assert!((expert["expected_score"].as_f64().unwrap() - analysis.expected_score()).abs() < 1e-12);

    fails_with(d, &["strategy", "eval", "smart"], "unknown strategy \"smart\"; expected one of optimal");
    fails_with(d, &["strategy", "eval", "evolved", "--first", "6"], "evolved-official-003f.yzs");
    fails_with(d, &["strategy", "eval", "greedy", "--first", "14"], "--first takes 1 to 13");
}
