//! Exact move errors: the values they are measured with against an independent brute force
//! and a whole-game solve, the exact strategy's error, and the command.

use yz::duel::advise::Solved;
use yz::duel::{Cards, Space};
use yz::game::{Category, CategorySet, Game, Rules, ScoreState};
use yz::move_errors::{MoveErrors, Tested, exact_endings};
use yz::players::{Evaluation, Searcher};
use yz::players::{MatchPlayer, Position, SolitairePlayer};
use yz::progress::Silent;
use yz::simulate::{game_rng, play_turn};
use yz::solo::Policy;
use yz::strategy::{Strategy, StrategyName};

use crate::duel_brute_force::{Brute, solve_all};
use yz::store::open_or_solve;
use yz::targets::TargetTable;

/// The positions at the start of every turn of a few games between two optimal solitaire
/// players (any play reaches a variety of positions; these are only places to check).
fn positions(game: Game, games: u64) -> Vec<Position> {
    let dir = tempfile::tempdir().unwrap();
    let optimal = Strategy::build(&StrategyName::Optimal, game, dir.path()).unwrap();
    let player = SolitairePlayer::new(&optimal as &dyn Policy);
    let mut all = Vec::new();
    for g in 0..games {
        let mut rng = game_rng(3, g);
        let mut position = Position::start(game, 2);
        while !position.is_over() {
            all.push(position.clone());
            let state = position.seats[position.mover].state;
            let t = play_turn(game, state, &player.plan(&position).unwrap(), &mut rng);
            position = position.after(t.next, t.points);
        }
    }
    all
}

/// Every way the mover's turn can end from `position`, with the difference the opponent
/// then faces.
fn endings(game: Game, position: &Position) -> Vec<(yz::game::Transition, i32)> {
    let state = position.seats[position.mover].state;
    let d = position.seats[position.mover].points as i32 - position.seats[1 - position.mover].points as i32;
    state
        .filled
        .complement()
        .iter()
        .flat_map(|c| yz::game::RollId::all().filter_map(move |r| state.score(game, c, r)))
        .map(|t| (t, -(d + t.points as i32)))
        .collect()
}

#[test]
fn exact_values_agree_with_brute_force() {
    let game =
        Game { rules: Rules::OFFICIAL, categories: CategorySet::EMPTY.with(Category::Twos).with(Category::Yahtzee) };
    let cards = Cards::new(game);
    let brute = Brute::new(game);
    let mut checked = 0;
    for position in positions(game, 6) {
        let exact = exact_endings(&cards, &position).unwrap();
        let opponent = position.seats[1 - position.mover].state;
        for (t, e) in endings(game, &position) {
            let expected = 1.0 - brute.value(opponent, t.next, e);
            assert!((exact.value(t) - expected).abs() < 1e-12, "{position:?}, {t:?}: {} vs {expected}", exact.value(t));
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn exact_values_agree_with_a_whole_game_solve() {
    let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() };
    let cards = Cards::new(game);
    let space = Space::whole_game(&cards);
    let layers = solve_all(&cards);
    let id = |s: ScoreState| cards.index().id(s).unwrap();
    let mut checked = 0;
    for position in positions(game, 4) {
        let exact = exact_endings(&cards, &position).unwrap();
        let (mover, opponent) = (position.seats[position.mover].state, position.seats[1 - position.mover].state);
        let after = cards.filled(id(mover)) + cards.filled(id(opponent)) + 1;
        let whole = Solved { space: &space, layer: layers.get(after) };
        for (t, e) in endings(game, &position) {
            use yz::duel::advise::PositionSource;
            let expected = 1.0 - whole.value(id(opponent), id(t.next), e).unwrap();
            assert!((exact.value(t) - expected).abs() < 1e-12, "{position:?}, {t:?}");
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// The exact strategy gives nothing away; the solitaire optimum does, and EMP(1) far less;
/// and the measurement is the same on any number of threads.
#[test]
fn the_exact_strategy_errs_nowhere_and_others_do() {
    let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() };
    let dir = tempfile::tempdir().unwrap();
    let table = open_or_solve::<TargetTable>(dir.path(), game, &Silent).unwrap();
    let optimal = Strategy::build(&StrategyName::Optimal, game, dir.path()).unwrap();
    let cards = Cards::new(game);
    let typical = Searcher::new(&table, Evaluation::ExpectedMatchPoints, 1);
    let run = |threads: usize| {
        let e = SolitairePlayer::new(&optimal as &dyn Policy);
        let emp1 = Searcher::new(&table, Evaluation::ExpectedMatchPoints, 1);
        let tested = vec![Tested::Exact, Tested::Player(&e), Tested::Player(&emp1)];
        let measure = MoveErrors::new(&cards, &typical, tested, 1..=8).unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| measure.measure(5, 0, 300, &Silent).unwrap())
    };
    let report = run(1);
    assert_eq!(report, run(2));
    let [exact, e, emp1] = &report.strategies[..] else { panic!("three strategies") };
    for depth in &exact.depths {
        // Every game meets every depth once, with one to three decisions in the turn.
        assert!((300..=900).contains(&depth.sums.moves), "{depth:?}");
        assert!(depth.per_move.mean.abs() < 1e-12, "{depth:?}");
    }
    assert!(exact.per_game.mean.abs() < 1e-12);
    assert!(e.per_game.mean > 1e-3, "E gives away winning chance: {:?}", e.per_game);
    assert!(emp1.per_game.mean * 2.0 < e.per_game.mean, "EMP(1) {:?} vs E {:?}", emp1.per_game, e.per_game);
    assert!(MoveErrors::new(&cards, &typical, vec![Tested::Exact], 0..=3).is_err());
    assert!(MoveErrors::new(&cards, &typical, vec![Tested::Exact], 2..=9).is_err());
}

#[test]
fn move_errors_command_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let run = |games: &str, first: &str| {
        let args = [
            "--json",
            "duel",
            "move-errors",
            "--first",
            "3",
            "--strategy",
            "exact,E,emp1",
            "--empty",
            "2..5",
            "--games",
            games,
            "--first-game",
            first,
        ];
        crate::cli::json(&crate::cli::yz(dir.path(), &args))
    };
    let whole = run("40", "0");
    let strategies = whole["strategies"].as_array().unwrap();
    let names: Vec<&str> = strategies.iter().map(|s| s["strategy"].as_str().unwrap()).collect();
    assert_eq!(names, ["exact", "E", "emp1"]);
    for s in strategies {
        let depths = s["depths"].as_array().unwrap();
        assert_eq!(depths.iter().map(|d| d["empty"].as_u64().unwrap()).collect::<Vec<_>>(), [2, 3, 4, 5]);
    }
    assert!(strategies[0]["per_game"]["mean"].as_f64().unwrap().abs() < 1e-12);
    assert!(strategies[1]["per_game"]["mean"].as_f64().unwrap() > 0.0, "E errs somewhere in 40 games");
    assert_eq!(run("40", "0")["strategies"], whole["strategies"], "a seed plays the same games");

    // Two runs over disjoint games merge into the whole run (up to the order of sums).
    let (head, tail) = (run("25", "0"), run("15", "25"));
    let file = |name: &str, value: &serde_json::Value| {
        let path = dir.path().join(name);
        std::fs::write(&path, value.to_string()).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let (a, b) = (file("a.json", &head), file("b.json", &tail));
    let merged = crate::cli::json(&crate::cli::yz(dir.path(), &["--json", "duel", "move-errors", "--merge", &a, &b]));
    assert_eq!(merged["games"], 40);
    for (m, w) in merged["strategies"].as_array().unwrap().iter().zip(strategies) {
        let close =
            |x: &serde_json::Value, y: &serde_json::Value| (x.as_f64().unwrap() - y.as_f64().unwrap()).abs() < 1e-12;
        assert!(close(&m["per_game"]["mean"], &w["per_game"]["mean"]));
        assert!(close(&m["per_game"]["half_width_95"], &w["per_game"]["half_width_95"]));
        for (dm, dw) in m["depths"].as_array().unwrap().iter().zip(w["depths"].as_array().unwrap()) {
            assert_eq!(dm["sums"]["moves"], dw["sums"]["moves"]);
            assert!(close(&dm["per_move"]["mean"], &dw["per_move"]["mean"]));
        }
    }
    let fails = |args: &[&str], needle: &str| crate::cli::fails_with(dir.path(), args, needle);
    fails(&["duel", "move-errors", "--merge", &a, &a], "games 0..25 are in two reports");
    let garbage = file("garbage.json", &serde_json::json!({"format": "yz-move-errors/1"}));
    fails(&["duel", "move-errors", "--merge", &a, &garbage], "is not a JSON report");

    let fails = |extra: &[&str], needle: &str| {
        let mut args = vec!["duel", "move-errors", "--first", "3", "--games", "2"];
        args.extend_from_slice(extra);
        crate::cli::fails_with(dir.path(), &args, needle);
    };
    fails(&["--strategy", "E", "--empty", "0..3"], "expected 1 ≤ first ≤ last ≤ 6");
    fails(&["--strategy", "E", "--empty", "7"], "expected 1 ≤ first ≤ last ≤ 6");
    fails(&["--strategy", "E", "--empty", "5..2"], "expected 1 ≤ first ≤ last ≤ 6");
    fails(&["--strategy", "E", "--empty", "a..b"], "expected D or A..B");
    fails(&["--strategy", "nobody", "--empty", "2"], "unknown strategy");
}
