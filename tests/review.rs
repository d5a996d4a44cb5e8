//! Game records and their reviews: optimal games lose nothing, a planted blunder loses the
//! advisor's gap, two-player losses match the brute force, bad records name their line.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::cli::{fails_with, json, yz};
use crate::duel_brute_force::Brute;
use yz::coach::record::{Location, Record, RecordError, Turn};
use yz::coach::review::{self, ReviewOptions, Source};
use yz::game::{Card, Game, KeepId, RollId, Rules};
use yz::game::{Choice, RollsLeft};
use yz::progress::Silent;
use yz::simulate::{PlanCache, roll_missing};
use yz::solo::{self, FutureValue, OptimalPolicy, Start, WithinTurn, analyze_from};
use yz::turn::choice;

/// Plays a game of `players` players, each decision `choose(card, roll, rolls_left)`, all
/// three rolls of every turn rolled (keeping all five dice stops), dice from `seed`.
fn play(
    game: Game,
    players: usize,
    seed: u64,
    mut choose: impl FnMut(&Card, RollId, RollsLeft, &mut ChaCha8Rng) -> Choice,
) -> Record {
    let names = ["ann", "bob"].iter().take(players).map(|s| s.to_string()).collect();
    let mut record = Record::new(game, names).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while !record.is_over() {
        let player = record.mover();
        let card = record.cards()[player].clone();
        let mut rolls = vec![roll_missing(KeepId(0), &mut rng)];
        let mut keeps = Vec::new();
        for rolls_left in [RollsLeft::TWO, RollsLeft::ONE] {
            let Choice::Keep(keep) = choose(&card, *rolls.last().unwrap(), rolls_left, &mut rng) else {
                panic!("a keep with rerolls left")
            };
            keeps.push(keep);
            rolls.push(roll_missing(keep, &mut rng));
        }
        let roll = *rolls.last().unwrap();
        let Choice::Score(category) = choose(&card, roll, RollsLeft::NONE, &mut rng) else { panic!("a box") };
        let state = card.state();
        let points = game.score(category, roll, state.filled, state.yahtzee_50).unwrap().box_points;
        let at = Location::Turn(record.turns().len() + 1);
        record.push(Turn { player, rolls, keeps, category, points, at }).unwrap();
    }
    record
}

/// The optimal solitaire strategy's own choice, from its turn plans (not the advisor).
fn optimal_record(game: Game, seed: u64) -> Record {
    let table = solo::solve(game);
    let policy = OptimalPolicy::new(game, &table);
    let plans = PlanCache::new(&policy);
    play(game, 1, seed, |card, roll, rolls_left, _| {
        let plan = plans.plan(card.state());
        let r = roll.0 as usize;
        match rolls_left.get() {
            2 => Choice::Keep(plan.keep_after_first[r]),
            1 => Choice::Keep(plan.keep_after_second[r]),
            _ => Choice::Score(plan.box_for_roll[r]),
        }
    })
}

fn options(data: &std::path::Path) -> ReviewOptions<'_> {
    ReviewOptions {
        data,
        top: 5,
        tolerance: review::DEFAULT_TOLERANCE,
        on_the_fly: yz::duel::source::ON_THE_FLY_POSITIONS,
    }
}

#[test]
fn an_optimal_game_loses_nothing_and_a_planted_blunder_loses_the_advisors_gap() {
    let data = tempfile::tempdir().unwrap();
    let game = Game::full(Rules::OFFICIAL);
    for seed in [1, 2] {
        let record = optimal_record(game, seed);
        let reviewed = review::review(&record, options(data.path()), &Silent).unwrap();
        assert_eq!(reviewed.decisions.len(), 39);
        for d in &reviewed.decisions {
            assert!(d.loss <= 1e-9, "seed {seed}, turn {}: loss {}", d.turn, d.loss);
            assert_eq!(d.source, Source::SoloTable);
        }
        assert!(reviewed.mistakes.is_empty());
        assert!(reviewed.players[0].total_loss <= 1e-8);
    }

    // Plant a blunder: turn 5 rerolls everything after its first roll (the rolls stay).
    let record = optimal_record(game, 3);
    let mut text = record.to_text();
    let line = text.lines().nth(7).unwrap().to_string();
    let (first, rest) = line.split_once(" keep ").unwrap();
    let (kept, after) = rest.split_once(' ').unwrap();
    assert_ne!(kept, "-", "the optimal first keep of turn 5 keeps something for this seed");
    text = text.replace(&line, &format!("{first} keep - {after}"));
    let path = data.path().join("blunder.txt");
    std::fs::write(&path, &text).unwrap();
    let out = yz(data.path(), &["--json", "review", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reviewed = json(&out);
    let decisions = reviewed["decisions"].as_array().unwrap();
    let lossy: Vec<&serde_json::Value> = decisions.iter().filter(|d| d["loss"].as_f64().unwrap() > 1e-9).collect();
    assert_eq!(lossy.len(), 1, "only the planted decision loses");
    let planted = lossy[0];
    assert_eq!((planted["turn"].as_u64(), planted["line"].as_u64()), (Some(5), Some(8)));
    assert_eq!(planted["chosen"]["keep"], serde_json::json!([]));
    let advice = yz(
        data.path(),
        &[
            "--json",
            "solo",
            "advise",
            "--card",
            planted["card"].as_str().unwrap(),
            "--dice",
            planted["dice"].as_str().unwrap(),
            "--rolls-left",
            "2",
        ],
    );
    let options = json(&advice)["options"].as_array().unwrap().clone();
    let reroll_all = options.iter().find(|o| o["keep"] == serde_json::json!([])).unwrap();
    assert_eq!(planted["loss"].as_f64(), reroll_all["gap"].as_f64(), "the loss is the advisor's gap");
    assert_eq!(planted["best"], serde_json::json!({"action": "keep", "keep": options[0]["keep"]}));
    let mistake = &reviewed["mistakes"][0];
    assert_eq!(mistake["decision"].as_u64(), Some(12), "turn 5's first decision");
    let drop =
        mistake["best"]["expected_final"].as_f64().unwrap() - mistake["chosen"]["expected_final"].as_f64().unwrap();
    assert!((drop - planted["loss"].as_f64().unwrap()).abs() < 1e-9, "the breakdown's total is the loss: {drop}");
    assert_eq!(reviewed["players"][0]["total_loss"], planted["loss"]);
}

#[test]
fn the_analysis_from_within_a_turn_values_each_choice_as_the_advisor_does() {
    let game = Game::full(Rules::OFFICIAL);
    let table = solo::solve(game);
    let policy = OptimalPolicy::new(game, &table);
    let card = Card::parse("ones=2,threes=9,fh=25,yahtzee=50,ss=30,chance=21", game).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for rolls_left in [RollsLeft::TWO, RollsLeft::ONE, RollsLeft::NONE] {
        let roll = roll_missing(KeepId(0), &mut rng);
        let ranked = solo::advise(&table, game, &card, roll, rolls_left).unwrap();
        for r in ranked.iter().take(4).chain(ranked.last()) {
            let within = Some(WithinTurn { roll, rolls_left, choice: r.choice });
            let start = Start { state: card.state(), points: card.points(), within };
            let analysis = analyze_from(game, &policy, start, &Silent).unwrap();
            let total: f64 = analysis.distribution().probabilities().iter().sum();
            assert!((total - 1.0).abs() < 1e-12);
            let mean = analysis.distribution().mean();
            assert!((mean - r.expected_final).abs() < 1e-9, "{roll} {rolls_left}: {mean} against {}", r.expected_final);
        }
    }
    let start = Start { state: card.state(), points: card.points(), within: None };
    let whole_turn = analyze_from(game, &policy, start, &Silent).unwrap().distribution().mean();
    assert!((whole_turn - card.points() as f64 - table.future_value(card.state())).abs() < 1e-9);
}

/// How close the on-the-fly two-player values come to exact ones: the solve below a
/// position computes and stores f32 values (24-bit mantissas, sums over 252 rolls at each
/// step of each turn), a few parts in 10^7 per layer.
const F32_VALUES: f64 = 5e-6;

#[test]
fn two_player_losses_are_the_brute_forces() {
    let data = tempfile::tempdir().unwrap();
    let game = Game::from_list(Rules::OFFICIAL, "threes,fh,chance").unwrap();
    let brute = Brute::new(game);
    for seed in [4, 5] {
        // Both players choose at random among their options: plenty of mistakes.
        let record = play(game, 2, seed, |card, roll, rolls_left, rng| {
            let options = choice::rank(game, card.state(), roll, rolls_left, |t| t.points as f64);
            options[rng.random_range(0..options.len())].choice
        });
        let reviewed = review::review(&record, options(data.path()), &Silent).unwrap();
        assert_eq!(reviewed.decisions.len(), 18);
        let mut lossy = 0;
        let mut worst: f64 = 0.0;
        for (d, (_, cards)) in
            reviewed.decisions.iter().zip(record.replay().iter().flat_map(|t| [t.clone(), t.clone(), t.clone()]))
        {
            assert!(matches!(d.source, Source::Exact(_)), "{:?}", d.source);
            let (me, opp) = (&cards[0], &cards[1]);
            let diff = me.points() as i32 - opp.points() as i32;
            let value = |c: Choice| match c {
                Choice::Keep(keep) => {
                    brute.keep_value(me.state(), opp.state(), diff, keep.counts(), d.rolls_left.get())
                }
                Choice::Score(category) => {
                    brute.box_value(opp.state(), diff, me.state().score(game, category, d.roll).unwrap())
                }
            };
            let (chosen, best) = (value(d.chosen.choice), value(d.best.choice));
            for (exact, reviewed) in [(chosen, d.chosen.value), (best, d.best.value), (best - chosen, d.loss)] {
                worst = worst.max((exact - reviewed).abs());
                assert!((exact - reviewed).abs() < F32_VALUES, "turn {}: {exact} against {reviewed}", d.turn);
            }
            lossy += usize::from(d.loss > 1e-6);
        }
        assert!(lossy >= 3, "random play makes mistakes: {lossy}");
        eprintln!("seed {seed}: largest difference from the brute force {worst:.2e}");
    }
}

#[test]
fn malformed_records_fail_with_the_line() {
    let data = tempfile::tempdir().unwrap();
    let cases = [
        (
            "yz-record 1\nrules official\n13356 keep 4 11245 keep 11 11135 ones=3\n",
            "line 3: keep 4 is not in the roll 1,3,3,5,6",
        ),
        ("yz-record 1\n\n11111 yahtzee=50\n22222 yahtzee=50\n", "line 4: box yahtzee is already filled (line 3)"),
        ("yz-record 1\n11235 chance=13\n", "line 2: chance=13 is wrong: 1,1,2,3,5 scores 12 in chance"),
        (
            "yz-record 1\n11235 fives=5\n66666 yahtzee=50\n66666 sixes=25\n",
            "line 4: sixes=25 is wrong: 6,6,6,6,6 scores 30 in sixes",
        ),
        ("yz-record 1\n11235 kep 1 12345 ss=30\n", "line 2: \"kep\" is not BOX=POINTS"),
        (
            "{\"format\":\"yz-record\",\"version\":1,\"turns\":[{\"rolls\":[\"1123\"],\"box\":\"ones\",\"points\":2}]}",
            "turn 1: \"1123\" is not dice",
        ),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let path = data.path().join(format!("bad{i}.txt"));
        std::fs::write(&path, text).unwrap();
        fails_with(data.path(), &["review", path.to_str().unwrap()], needle);
    }
    let huge = data.path().join("huge.txt");
    std::fs::write(&huge, "#".repeat(300_000)).unwrap();
    fails_with(data.path(), &["review", huge.to_str().unwrap()], "more than the 262144 such a file can");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// Any text, and any valid record with a line changed, reads or is refused with a place
    /// inside it: never a panic.
    #[test]
    fn any_text_reads_or_names_its_line(garbage in "\\PC{0,200}", line in 0usize..16, edit in "[0-9a-z =:,#-]{0,30}") {
        let _ = Record::parse(&garbage);
        let valid = optimal_record_text();
        let mut lines: Vec<String> = valid.lines().map(String::from).collect();
        let at = line.min(lines.len() - 1);
        lines[at] = edit;
        if let Err(RecordError { at: Location::Line(n), problem }) = Record::parse(&lines.join("\n")) {
            proptest::prop_assert!(n >= 1 && n <= lines.len(), "line {n}: {problem}");
        }
    }
}

/// A valid 13-turn record, made once.
fn optimal_record_text() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| optimal_record(Game::full(Rules::OFFICIAL), 8).to_text())
}

/// A review whose asker has gone ([`yz::progress::Progress::cancelled`], as the web app's
/// is once its client hangs up) stops before its next turn instead of running on.
#[test]
fn a_cancelled_review_stops() {
    struct Gone;
    impl yz::progress::Progress for Gone {
        fn start(&self, _: &str, _: u64, _: &'static str) {}
        fn advance(&self, _: u64) {}
        fn finish(&self) {}
        fn cancelled(&self) -> bool {
            true
        }
    }
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/records/duel-endgame.txt")).unwrap();
    let record = Record::parse(&text).unwrap();
    let data = tempfile::tempdir().unwrap();
    let options = |data| ReviewOptions { data, top: 3, tolerance: review::DEFAULT_TOLERANCE, on_the_fly: 1_000_000 };
    assert!(review::review(&record, options(data.path()), &Silent).is_ok());
    let stopped = review::review(&record, options(data.path()), &Gone);
    assert!(matches!(stopped, Err(review::ReviewError::Cancelled)), "{:?}", stopped.err());
}
