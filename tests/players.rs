//! EMP(d) and DynS(d): the evaluations against brute force, matches with them, and their
//! choices against the exact two-player values where the search reaches the end of the game.

use yz::duel::advise::{Solved, advise};
use yz::duel::sweep::solve_layers;
use yz::duel::{Cards, Space};
use yz::game::Choice;
use yz::game::RollsLeft;
use yz::game::{Category, CategorySet, Game, RollId, Rules, ScoreState};
use yz::players::matchplay::play_match_players;
use yz::players::{Evaluation, FinalScore, PlayerName, Searcher, dynamic_score, expected_match_points};
use yz::players::{MatchPlayer, Position, Seat, SolitairePlayer};
use yz::progress::Silent;
use yz::solo::{Policy, TurnPlan};
use yz::store::open_or_solve;
use yz::strategy::{Strategy, StrategyName};
use yz::targets::TargetTable;

/// Three hand-made final-score distributions with ties between them.
fn three_players() -> Vec<(i64, Vec<f64>)> {
    vec![(10, vec![0.2, 0.3, 0.5]), (11, vec![0.6, 0.1, 0.1, 0.2]), (8, vec![0.25, 0.0, 0.25, 0.25, 0.25])]
}

/// Every joint outcome of independent players: (scores, probability).
fn joint(players: &[(i64, Vec<f64>)]) -> Vec<(Vec<i64>, f64)> {
    let mut all = vec![(Vec::new(), 1.0)];
    for (lowest, mass) in players {
        all = all
            .into_iter()
            .flat_map(|(scores, p): (Vec<i64>, f64)| {
                mass.iter().enumerate().map(move |(k, &m)| {
                    let mut s = scores.clone();
                    s.push(lowest + k as i64);
                    (s, p * m)
                })
            })
            .collect();
    }
    all
}

#[test]
fn expected_match_points_equal_brute_force_and_the_mean_rank() {
    for n in [2, 3] {
        let players = &three_players()[..n];
        let scores: Vec<FinalScore> = players.iter().map(|(l, m)| FinalScore::from_mass(*l, m.clone())).collect();
        let emp = expected_match_points(&scores);
        for (i, &value) in emp.iter().enumerate() {
            let mut points = 0.0;
            let mut rank = 0.0;
            for (outcome, p) in joint(players) {
                let me = outcome[i];
                let above = outcome.iter().filter(|&&s| s > me).count() as f64;
                let below = outcome.iter().filter(|&&s| s < me).count() as f64;
                let level = outcome.iter().filter(|&&s| s == me).count() as f64 - 1.0;
                points += p * (below + 0.5 * level);
                rank += p * (1.0 + above + 0.5 * level);
            }
            assert!((value - points).abs() < 1e-12, "player {i} of {n}: {value} vs {points}");
            assert!((n as f64 - value - rank).abs() < 1e-12, "player {i} of {n}: rank {rank}");
        }
        let total: f64 = emp.iter().sum();
        assert!((total - (n * (n - 1)) as f64 / 2.0).abs() < 1e-12);
    }
}

#[test]
fn dynamic_score_equals_brute_force() {
    let players = three_players();
    let scores: Vec<FinalScore> = players.iter().map(|(l, m)| FinalScore::from_mass(*l, m.clone())).collect();
    let reach = |(lowest, mass): &(i64, Vec<f64>), s: i64| -> f64 {
        mass.iter().enumerate().filter(|&(k, _)| lowest + k as i64 >= s).map(|(_, m)| m).sum()
    };
    let dyns = dynamic_score(&scores);
    for (i, &value) in dyns.iter().enumerate() {
        let best = (-5..30)
            .map(|s| {
                let missed: f64 = (0..3).filter(|&j| j != i).map(|j| 1.0 - reach(&players[j], s)).sum();
                reach(&players[i], s) * missed
            })
            .fold(0.0, f64::max);
        assert!((value - best).abs() < 1e-12, "player {i}: {value} vs {best}");
    }
    assert_eq!(Evaluation::DynamicScore.values(&scores), dyns);
}

#[test]
fn player_names_parse() {
    let emp1 = PlayerName::Search { evaluation: Evaluation::ExpectedMatchPoints, depth: 1 };
    assert_eq!("EMP1".parse::<PlayerName>().unwrap(), emp1);
    assert_eq!(emp1.to_string(), "emp1");
    assert_eq!("dyns3".parse::<PlayerName>().unwrap().to_string(), "dyns3");
    assert_eq!("E".parse::<PlayerName>().unwrap(), PlayerName::Solitaire(StrategyName::Optimal));
    assert_eq!("greedy".parse::<PlayerName>().unwrap(), PlayerName::Solitaire(StrategyName::Greedy));
    for bad in ["emp", "empx", "dyns-1", "nobody"] {
        let message = bad.parse::<PlayerName>().unwrap_err().to_string();
        assert!(message.contains("empD"), "{bad}: {message}");
    }
}

#[test]
fn emp0_against_optimal_is_reproducible_on_any_thread_count() {
    let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(3).unwrap() };
    let dir = tempfile::tempdir().unwrap();
    let table = open_or_solve::<TargetTable>(dir.path(), game, &Silent).unwrap();
    let optimal = Strategy::build(&StrategyName::Optimal, game, dir.path()).unwrap();
    let run = |threads: usize| {
        let emp0 = Searcher::new(&table, Evaluation::ExpectedMatchPoints, 0);
        let e = SolitairePlayer::new(&optimal as &dyn Policy);
        let players: [&dyn MatchPlayer; 2] = [&emp0, &e];
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| play_match_players(game, &players, 400, 9, &Silent).unwrap())
    };
    let one = run(1);
    assert_eq!(one, run(3));
    assert_eq!(one.games, 400);
    // Mirrored seats would split the games evenly; a player who ignores the opponent gives
    // away a little, never a lot, in a three-box game.
    let share = one.win_share(0);
    assert!((0.4..0.65).contains(&share), "emp0 won {share}");
    assert!((one.win_share(0) + one.win_share(1) - 1.0).abs() < 1e-12);
    assert!((one.expected_rank(0) + one.expected_rank(1) - 3.0).abs() < 1e-12);
}

/// Checks that `plan` makes, for every roll, a choice worth the exact best winning chance
/// (within `tolerance`), with the values from `value_choices`.
fn assert_optimal(plan: &TurnPlan, tolerance: f64, value_choices: impl Fn(RollId, RollsLeft) -> Vec<yz::game::Valued>) {
    for roll in RollId::all() {
        for rolls_left in [RollsLeft::TWO, RollsLeft::ONE, RollsLeft::NONE] {
            let ranked = value_choices(roll, rolls_left);
            let chosen = match rolls_left.get() {
                2 => Choice::Keep(plan.keep_after_first[roll.0 as usize]),
                1 => Choice::Keep(plan.keep_after_second[roll.0 as usize]),
                _ => Choice::Score(plan.box_for_roll[roll.0 as usize]),
            };
            let value = ranked.iter().find(|v| v.choice == chosen).expect("the plan's choice is ranked").value;
            assert!(
                value >= ranked[0].value - tolerance,
                "{roll} with {rolls_left} left: {chosen:?} {value} vs {:?}",
                ranked[0]
            );
        }
    }
}

/// In a one-box game the search of the first player's EMP(1) and the second player's EMP(0)
/// reaches the end of the game, where EvalEMP is the exact P(win) + ½ P(draw): their plans
/// must be optimal for the two-player game.
#[test]
fn emp_plays_the_exact_optimum_where_its_search_reaches_the_end() {
    for category in [Category::Chance, Category::ThreeOfAKind] {
        let game = Game { rules: Rules::OFFICIAL, categories: CategorySet::EMPTY.with(category) };
        let dir = tempfile::tempdir().unwrap();
        let table = open_or_solve::<TargetTable>(dir.path(), game, &Silent).unwrap();
        let cards = Cards::new(game);
        let space = Space::whole_game(&cards);
        let start = ScoreState::start(game);
        let id = |s: ScoreState| cards.index().id(s).unwrap();

        // The first player, EMP(1): the exact values after its turn come from a solve of layer 1.
        let emp1 = Searcher::new(&table, Evaluation::ExpectedMatchPoints, 1);
        let plan = emp1.plan(&Position::start(game, 2)).unwrap();
        let layer = solve_layers::<f32>(&space, 1, |_| Ok(())).unwrap();
        let after_first = Solved { space: &space, layer: Some(&layer) };
        assert_optimal(&plan, 1e-5, |roll, left| {
            advise(&after_first, &cards, id(start), id(start), 0, roll, left).unwrap()
        });

        // The second player, EMP(0), after the first scored `a`.
        let emp0 = Searcher::new(&table, Evaluation::ExpectedMatchPoints, 0);
        let finished = ScoreState { filled: CategorySet::ALL, ..start };
        let at_end = Solved::<f32> { space: &space, layer: None };
        for a in [0u32, 12, 20, 24, 27] {
            let position = Position {
                seats: vec![Seat { state: finished, points: a }, Seat { state: start, points: 0 }],
                mover: 1,
            };
            let plan = emp0.plan(&position).unwrap();
            assert_optimal(&plan, 1e-12, |roll, left| {
                advise(&at_end, &cards, id(start), id(finished), -(a as i32), roll, left).unwrap()
            });
        }
    }
}

#[test]
fn match_command_takes_searchers_and_strategies() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--json", "match", "--first", "3", "--players", "emp1,E,dyns0", "--games", "60", "--seed", "4"];
    let out = crate::cli::json(&crate::cli::yz(dir.path(), &args));
    let players = out["players"].as_array().unwrap();
    assert_eq!(players.iter().map(|p| p["strategy"].as_str().unwrap()).collect::<Vec<_>>(), ["emp1", "E", "dyns0"]);
    let ranks: f64 = players.iter().map(|p| p["expected_rank"].as_f64().unwrap()).sum();
    assert!((ranks - 6.0).abs() < 1e-9, "ranks 1 + 2 + 3 in every game: {ranks}");
    for p in players {
        let (rank, ci) = (p["expected_rank"].as_f64().unwrap(), p["rank_ci95"].as_array().unwrap());
        assert!(ci[0].as_f64().unwrap() <= rank && rank <= ci[1].as_f64().unwrap());
    }
    // The same seed plays the same games.
    let again = crate::cli::json(&crate::cli::yz(dir.path(), &args));
    assert_eq!(again["players"], out["players"]);
    crate::cli::fails_with(dir.path(), &["match", "--first", "3", "--players", "emp,E"], "empD");
}
