//! Simulation against exact analysis, reproducibility across thread counts, matches, and the
//! strategies made by playing (genetic algorithm, action table) with their files.

use std::path::Path;

use yz::game::{Game, Rules};
use yz::players::matchplay::play_match;
use yz::progress::Silent;
use yz::simulate::{ScoreTally, simulate};
use yz::solo::{Policy, analyze};
use yz::strategy::evolve::{self, EvolveParams};
use yz::strategy::learned::{ActionTable, LearnedPolicy};
use yz::strategy::{Strategy, StrategyError, StrategyName};

use crate::cli::{fails_with, json, yz};

/// Six boxes from both sections under the official rules: upper bonus, Joker, Extra
/// Yahtzee Bonus and straights all occur, and a game is six turns.
fn mixed_game() -> Game {
    let categories = Rules::OFFICIAL.parse_list("ones,sixes,fh,ls,yahtzee,chance").unwrap();
    Game { rules: Rules::OFFICIAL, categories }
}

/// Brown et al.'s 6-round game: Ones to Sixes, no Extra Yahtzee Bonus or Joker.
fn six_rounds() -> Game {
    Game { rules: Rules::NO_BONUS, categories: Rules::OFFICIAL.first(6).unwrap() }
}

/// The strategy called `name` for `game`, built from the data directory `data`.
fn by_name(name: &str, game: Game, data: &Path) -> Result<Strategy, StrategyError> {
    Strategy::build(&name.parse()?, game, data)
}

fn simulated(game: Game, policy: &impl Policy, games: u64, seed: u64) -> ScoreTally {
    simulate(game, policy, games, seed, &Silent)
}

fn in_thread_pool<T: Send>(threads: usize, work: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(work)
}

#[test]
fn simulated_means_agree_with_exact_analysis_within_their_interval() {
    let data = tempfile::tempdir().unwrap();
    for (name, game) in [("greedy", mixed_game()), ("expert", six_rounds()), ("expert", mixed_game())] {
        let policy = by_name(name, game, data.path()).unwrap();
        let exact = analyze(game, &policy);
        let tally = simulated(game, &policy, 20_000, 11);
        let (mean, half) = (tally.mean(), tally.half_width_95());
        assert!(
            (mean - exact.expected_score()).abs() <= half,
            "{name}: simulated {mean:.3} ± {half:.3}, exact {:.4}",
            exact.expected_score()
        );
        let sd = exact.distribution().standard_deviation();
        assert!(
            (tally.standard_deviation() / sd - 1.0).abs() < 0.03,
            "{name}: sd {} vs {sd}",
            tally.standard_deviation()
        );
        // The histogram sees every possible score with about its exact frequency.
        let p = exact.distribution().probabilities();
        for (score, &count) in tally.counts.iter().enumerate() {
            assert!(count == 0 || p[score] > 0.0, "{name}: score {score} is impossible");
        }
    }
}

#[test]
fn a_seed_gives_the_same_games_on_one_and_two_threads() {
    let game = mixed_game();
    let data = tempfile::tempdir().unwrap();
    let expert = by_name("expert", game, data.path()).unwrap();
    let greedy = by_name("greedy", game, data.path()).unwrap();
    let run = || {
        let solo = simulated(game, &expert, 3_000, 5);
        let players: [&dyn Policy; 2] = [&expert, &greedy];
        let duel = play_match(game, &players, 2_000, 5, &Silent);
        (solo, duel)
    };
    let one = in_thread_pool(1, run);
    let two = in_thread_pool(2, run);
    assert_eq!(one, two);
    assert_ne!(one.0, simulated(game, &expert, 3_000, 6), "another seed deals other games");
}

#[test]
fn a_strategy_against_itself_wins_half_and_optimal_beats_greedy() {
    let game = mixed_game();
    let data = tempfile::tempdir().unwrap();
    let greedy = by_name("greedy", game, data.path()).unwrap();
    let optimal = by_name("optimal", game, data.path()).unwrap();
    let quiet = Silent;
    let mirror = play_match(game, &[&greedy as &dyn Policy, &greedy], 20_000, 3, &quiet);
    for p in 0..2 {
        assert!((mirror.win_share(p) - 0.5).abs() <= mirror.win_half_width_95(p), "{}", mirror.win_share(p));
    }
    assert!((mirror.win_share(0) + mirror.win_share(1) - 1.0).abs() < 1e-12);
    let duel = play_match(game, &[&optimal as &dyn Policy, &greedy], 20_000, 3, &quiet);
    assert!(duel.win_share(0) - duel.win_half_width_95(0) > 0.5, "optimal wins {}", duel.win_share(0));
    assert!(duel.scores[0].mean() > duel.scores[1].mean());
    // Each player's scores are those of the same strategy played alone on its own dice.
    let exact = analyze(game, &optimal).expected_score();
    assert!((duel.scores[0].mean() - exact).abs() <= duel.scores[0].half_width_95());
}

#[test]
fn evolved_champion_is_written_read_and_exactly_evaluated() {
    let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.parse_list("ones,twos,3k,chance").unwrap() };
    let params = EvolveParams { generations: 3, population: 12, sample: 20, seed: 4, finalists: 2, polish: 2 };
    let mut generations = 0;
    let evolution = evolve::evolve(game, params, |_| generations += 1);
    assert_eq!(generations, 4);
    assert!(evolution.finalists.windows(2).all(|w| w[0].1 >= w[1].1));
    // The polish analyses 2 × 4 neighbours per round and never makes the champion worse.
    assert!(evolution.polish_analyses >= 16 && evolution.polish_analyses % 8 == 0);
    assert!(evolution.champion_mean >= evolution.finalists[0].1);
    let again = evolve::evolve(game, params, |_| {});
    assert_eq!(again.champion, evolution.champion, "a run is a function of its seed");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(evolve::file_name(game));
    evolve::write(&path, game, &evolution.champion, serde_json::json!({})).unwrap();
    assert_eq!(evolve::load(&path, game).unwrap(), evolution.champion);
    let named = by_name("evolved", game, dir.path()).unwrap();
    assert_eq!(analyze(game, &named).expected_score(), evolution.champion_mean);

    let other = Game { rules: Rules::NO_BONUS, ..game };
    let err = by_name("evolved", other, dir.path()).unwrap_err().to_string();
    assert!(err.contains("No such file") || err.contains("could not"), "{err}");
    let err = evolve::load(&path, other).unwrap_err().to_string();
    assert!(err.contains("rules") && err.contains("no-bonus") && err.contains("strategy evolve"), "{err}");
    corrupt_and_check(&path, |p| evolve::load(p, game).map(|_| ()).map_err(|e| e.to_string()));
}

#[test]
fn action_table_trains_reproducibly_and_round_trips() {
    let game = Game { rules: Rules::NO_BONUS, categories: Rules::OFFICIAL.first(3).unwrap() };
    let mut table = ActionTable::new(game);
    let mut reports = 0;
    table.train(70_000, 9, 0, |_| reports += 1);
    assert_eq!(reports, 1, "progress every 2^16 games");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(yz::strategy::learned::file_name(game));
    table.write(&path, serde_json::json!({"games": 70_000})).unwrap();
    let loaded = LearnedPolicy::load(&path, game).unwrap();
    let trained = LearnedPolicy::new(table);
    let start = yz::game::ScoreState::start(game);
    assert_eq!(loaded.plan(start), trained.plan(start));
    let named = by_name(&format!("learned:{}", path.display()), game, Path::new("/nonexistent")).unwrap();
    let exact = analyze(game, &named).expected_score();
    // An empty table never rerolls; training must find the rerolls that pay, and nothing
    // beats optimal play.
    let untrained = analyze(game, &LearnedPolicy::new(ActionTable::new(game))).expected_score();
    let optimal = analyze(game, &by_name("optimal", game, dir.path()).unwrap()).expected_score();
    eprintln!("three rounds: never reroll {untrained:.4}, learned {exact:.4}, optimal {optimal:.4}");
    assert!(
        exact <= optimal + 1e-9 && exact > untrained + 2.0,
        "learned {exact}, untrained {untrained}, optimal {optimal}"
    );

    let other = Game { categories: Rules::OFFICIAL.first(4).unwrap(), ..game };
    let err = LearnedPolicy::load(&path, other).unwrap_err().to_string();
    assert!(err.contains("categories") && err.contains("strategy train"), "{err}");
    corrupt_and_check(&path, |p| LearnedPolicy::load(p, game).map(|_| ()).map_err(|e| e.to_string()));
}

/// A flipped byte in the payload and a truncated copy are both refused with a message that
/// names the file.
fn corrupt_and_check(path: &Path, load: impl Fn(&Path) -> Result<(), String>) {
    let good = std::fs::read(path).unwrap();
    let bad = path.with_extension("bad");
    let mut flipped = good.clone();
    let at = good.len() - 40;
    flipped[at] ^= 0x10;
    std::fs::write(&bad, &flipped).unwrap();
    let err = load(&bad).unwrap_err();
    assert!(err.contains(&bad.display().to_string()) && err.contains("corrupt"), "{err}");
    std::fs::write(&bad, &good[..good.len() / 2]).unwrap();
    let err = load(&bad).unwrap_err();
    assert!(err.contains(&bad.display().to_string()), "{err}");
}

#[test]
fn unknown_strategies_are_named() {
    let game = six_rounds();
    let err = by_name("smart", game, Path::new(".")).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("unknown strategy \"smart\"") && err.contains("expert"), "{err}");
    assert!(matches!(by_name("greedy:file", game, Path::new(".")), Err(StrategyError::Unknown(_))));
    let missing = StrategyName::Learned { file: Some("/nonexistent/table.yzs".into()) };
    let err = Strategy::build(&missing, game, Path::new(".")).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("/nonexistent/table.yzs"), "{err}");
}

#[test]
fn simulate_match_and_train_commands() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out =
        json(&yz(d, &["--json", "simulate", "--strategy", "expert", "--games", "2000", "--seed", "2", "--first", "6"]));
    let counts: u64 = out["counts"]["games"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).sum();
    assert_eq!(counts, 2000);
    let binned: u64 = out["histogram"]["bins"].as_array().unwrap().iter().map(|b| b["games"].as_u64().unwrap()).sum();
    assert_eq!(binned, 2000);
    let (lo, hi) = (out["ci95"][0].as_f64().unwrap(), out["ci95"][1].as_f64().unwrap());
    assert!(lo < out["mean"].as_f64().unwrap() && out["mean"].as_f64().unwrap() < hi);
    let again =
        json(&yz(d, &["--json", "simulate", "--strategy", "expert", "--games", "2000", "--seed", "2", "--first", "6"]));
    assert_eq!(out["counts"], again["counts"]);

    let duel =
        json(&yz(d, &["--json", "match", "--players", "expert,greedy,expert", "--games", "500", "--first", "6"]));
    let shares: f64 = duel["players"].as_array().unwrap().iter().map(|p| p["win_share"].as_f64().unwrap()).sum();
    assert!((shares - 1.0).abs() < 1e-9);

    let trained =
        json(&yz(d, &["--json", "strategy", "train", "--games", "5000", "--first", "2", "--rules", "no-bonus"]));
    assert!(trained["exact_mean"].as_f64().unwrap() > 0.0);
    let played = json(&yz(
        d,
        &["--json", "simulate", "--strategy", "learned", "--games", "100", "--first", "2", "--rules", "no-bonus"],
    ));
    assert_eq!(played["games"], 100);
    let evolved = json(&yz(
        d,
        &[
            "--json",
            "strategy",
            "evolve",
            "--generations",
            "1",
            "--population",
            "4",
            "--sample",
            "5",
            "--categories",
            "ones,chance",
        ],
    ));
    assert_eq!(evolved["history"].as_array().unwrap().len(), 2);

    fails_with(d, &["simulate", "--strategy", "smart", "--first", "6"], "unknown strategy \"smart\"");
    fails_with(d, &["simulate", "--strategy", "expert", "--games", "0"], "--games must be 1 to");
    fails_with(d, &["simulate", "--strategy", "expert", "--games", "1000000000000"], "--games must be 1 to");
    fails_with(d, &["simulate", "--strategy", "learned", "--first", "6"], "learned-official-003f.yzs");
    fails_with(d, &["match", "--players", "expert", "--first", "6"], "at least two strategies");
    fails_with(d, &["strategy", "evolve", "--population", "2"], "--population must be 3 to");
    fails_with(d, &["strategy", "evolve", "--population", "1000000000000"], "--population must be 3 to");
    fails_with(d, &["strategy", "eval", "means-iter:1000000000"], "means-iter takes 1 to 100 rounds");
    let wrong = d.join("learned-no-bonus-0003.yzs");
    fails_with(
        d,
        &["simulate", "--strategy", &format!("learned:{}", wrong.display()), "--first", "2", "--rules", "official"],
        "strategy train",
    );
    std::fs::write(d.join("junk.yzs"), b"not a table").unwrap();
    let junk = format!("evolved:{}", d.join("junk.yzs").display());
    fails_with(d, &["simulate", "--strategy", &junk], "junk.yzs");
}
