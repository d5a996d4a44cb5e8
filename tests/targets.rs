//! Target tables: the file against the in-memory solve, corrupt and foreign files, the
//! advisor against the curves, and the `yz targets` commands.

use std::path::Path;

use super::cli::{fails_with, json, yz};

use yz::game::RollsLeft;
use yz::game::{Card, Category, CategorySet, Game, KeepId, RollId, Rules, ScoreState, StateId, parse_dice};
use yz::progress::Silent;
use yz::solo::Choice;
use yz::store::DataTable;
use yz::store::TableError;
use yz::store::open_or_solve;
use yz::store::{self, Field, IdentityError, StoreError, StoreFile};
use yz::targets::advise::{self, TargetAdviseError};
use yz::targets::table::{KIND, TargetTable};
use yz::targets::{TargetCurves, solve};

/// Upper boxes and the Yahtzee box: long tails of Extra Yahtzee Bonuses, several blocks.
fn game() -> Game {
    Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(6).unwrap().with(Category::Yahtzee) }
}

fn solved(game: Game) -> (tempfile::TempDir, std::path::PathBuf, TargetCurves<f32>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(TargetTable::file_name(game));
    let curves = solve::<f32>(game);
    TargetTable::write(&curves, &path).unwrap();
    (dir, path, curves)
}

#[test]
fn every_curve_round_trips_bit_for_bit() {
    let game = game();
    let (_dir, path, curves) = solved(game);
    let table = TargetTable::open(&path, game).unwrap();
    assert!(table.blocks() > 1, "{} blocks", table.blocks());
    assert_eq!(table.states(), curves.curves().len());
    let values: usize = curves.curves().iter().map(|c| c.values.len()).sum();
    assert_eq!(table.values(), values as u64);
    let mut reader = table.reader();
    for id in 0..table.states() as u32 {
        let state = curves.index().state(StateId(id));
        let (stored, solved) = (reader.curve(state).unwrap(), curves.curve(state));
        assert_eq!(stored.first, solved.first, "state {id}");
        let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&stored.values), bits(&solved.values), "state {id}");
    }
    assert_eq!(table.start().unwrap(), *curves.start());
    let start = ScoreState::start(game);
    assert_eq!(table.probability(start, 100).unwrap(), curves.start().at(100));
    // One thread solves and writes the same bytes.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let again = path.with_file_name("again.yzt");
    let checksum = pool.install(|| TargetTable::write(&solve::<f32>(game), &again)).unwrap();
    assert_eq!(checksum, table.checksum());
}

#[test]
fn damaged_and_foreign_files_are_refused() {
    let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(3).unwrap().with(Category::Yahtzee) };
    let (dir, path, _) = solved(game);
    let good = std::fs::read(&path).unwrap();
    let open = |bytes: &[u8]| {
        let patched = dir.path().join("patched.yzt");
        std::fs::write(&patched, bytes).unwrap();
        TargetTable::open(&patched, game).unwrap_err()
    };

    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x10;
    assert!(matches!(open(&flipped), TableError::Store(StoreError::ChunkCorrupted { .. })));
    assert!(matches!(open(&good[..good.len() - 5]), TableError::Store(StoreError::Truncated { .. })));

    let other = Game { categories: Rules::OFFICIAL.first(4).unwrap().with(Category::Yahtzee), ..game };
    let err = TargetTable::open(&path, other).unwrap_err();
    assert!(matches!(err, TableError::Identity(IdentityError { field: Field::Categories, .. })), "{err}");
    let err = TargetTable::open(&path, Game { rules: Rules::NO_BONUS, ..game }).unwrap_err();
    assert!(matches!(err, TableError::Identity(IdentityError { field: Field::Rules, .. })), "{err}");
    let solo = dir.path().join("solo.yzt");
    yz::solo::SoloTable::write(&yz::solo::solve(game), &solo).unwrap();
    let err = TargetTable::open(&solo, game).unwrap_err();
    assert!(matches!(err, TableError::Store(StoreError::KindMismatch { .. })), "{err}");
}

#[test]
#[ignore = "solves the full game: about two minutes on two cores"]
fn full_table_is_under_400_mb_and_round_trips() {
    let game = Game::full(Rules::OFFICIAL);
    let (_dir, path, curves) = solved(game);
    let bytes = std::fs::metadata(&path).unwrap().len();
    assert!(bytes < 400_000_000, "{bytes} bytes");
    let table = TargetTable::open(&path, game).unwrap();
    assert_eq!(table.states(), 310_656);
    let mut reader = table.reader();
    for id in 0..table.states() as u32 {
        let state = curves.index().state(StateId(id));
        assert_eq!(reader.curve(state).unwrap(), *curves.curve(state), "state {id}");
    }
}

/// Rewrites the table with valid checksums around a damaged payload or metadata.
fn rewritten(
    path: &Path,
    edit_metadata: impl FnOnce(&mut serde_json::Value),
    edit_payload: impl FnOnce(&mut Vec<u8>),
) -> std::path::PathBuf {
    let file = unsafe { StoreFile::open(path, KIND.name) }.unwrap();
    let mut metadata = file.metadata().clone();
    let mut payload = file.payload().to_vec();
    edit_metadata(&mut metadata);
    edit_payload(&mut payload);
    let out = path.with_file_name("rewritten.yzt");
    store::write_atomic(&out, KIND.name, &metadata, &payload).unwrap();
    out
}

#[test]
fn inconsistent_payloads_with_good_checksums_are_refused() {
    let game = game();
    let (_dir, path, curves) = solved(game);
    let table = TargetTable::open(&path, game).unwrap();
    let (states, blocks) = (table.states(), table.blocks());
    drop(table);
    // Section offsets, as the table module documents them.
    let value_start = (4 * states).next_multiple_of(8);
    let block_state = value_start + 8 * (states + 1);
    let block_start = block_state + (4 * (blocks + 1)).next_multiple_of(8);
    let area = block_start + 8 * (blocks + 1);
    let u64_at = |bytes: &mut Vec<u8>, at: usize, value: u64| bytes[at..at + 8].copy_from_slice(&value.to_ne_bytes());
    // Offsets that contradict each other or the payload: refused on opening, as corrupt
    // (not as a damaged file: every checksum holds).
    let index_error = |err: &TableError| matches!(err, TableError::Corrupt { .. });

    let no_blocks = rewritten(&path, |m| drop(m.as_object_mut().unwrap().remove("blocks")), |_| {});
    let err = TargetTable::open(&no_blocks, game).unwrap_err();
    assert!(matches!(&err, TableError::Corrupt { what, .. } if what == "no valid \"blocks\" in its metadata"), "{err}");

    let more_values = rewritten(&path, |m| m["values"] = (table_values(&curves) + 1).into(), |_| {});
    let err = TargetTable::open(&more_values, game).unwrap_err();
    assert!(index_error(&err), "{err}");

    let falling = rewritten(&path, |_| {}, |p| u64_at(p, value_start + 8 * (states / 2), u64::MAX / 2));
    let err = TargetTable::open(&falling, game).unwrap_err();
    assert!(index_error(&err), "{err}");

    // State 0's values would end past u64::MAX: its first threshold plus their count wraps.
    let wrapping = rewritten(&path, |_| {}, |p| u64_at(p, value_start + 8, u64::MAX));
    let err = TargetTable::open(&wrapping, game).unwrap_err();
    assert!(index_error(&err), "{err}");

    let outside = rewritten(&path, |_| {}, |p| u64_at(p, block_start + 8, 1 << 40));
    let err = TargetTable::open(&outside, game).unwrap_err();
    assert!(index_error(&err), "{err}");

    let short = rewritten(&path, |_| {}, |p| p.truncate(p.len() - 8));
    let err = TargetTable::open(&short, game).unwrap_err();
    assert!(index_error(&err), "{err}");

    // A block that is no zstd frame opens (blocks are read lazily) but fails on reading.
    let zeroed = rewritten(&path, |_| {}, |p| p[area..area + 16].fill(0));
    let table = TargetTable::open(&zeroed, game).unwrap();
    let err = table.start().unwrap_err();
    assert!(matches!(&err, TableError::Corrupt { what, .. } if what.starts_with("block 0 ")), "{err}");
    let unknown = ScoreState { filled: CategorySet::EMPTY, upper_total: 0, yahtzee_50: false };
    assert!(matches!(table.curve(unknown).unwrap_err(), TableError::UnknownState { .. }));
}

fn table_values(curves: &TargetCurves<f32>) -> u64 {
    curves.curves().iter().map(|c| c.values.len() as u64).sum()
}

#[test]
fn advice_agrees_with_the_curves() {
    let game = game();
    let (_dir, path, _) = solved(game);
    let table = TargetTable::open(&path, game).unwrap();
    let card = Card::parse("ones=2,fours=12,yahtzee=50", game).unwrap();
    let state = card.state();
    let target = 160;
    let need = target - card.points() as i64;

    // Choosing a box: each option is the successor's curve after the box's points.
    let roll = parse_dice("5,5,5,5,5").unwrap();
    let boxes = advise::advise(&table, game, &card, roll, RollsLeft::NONE, target).unwrap();
    assert_eq!(boxes.len(), state.filled.complement().len());
    for option in &boxes {
        let Choice::Score(c) = option.choice else { panic!("{option:?}") };
        let t = state.score(game, c, roll).unwrap();
        assert_eq!(option.points, Some(t.points));
        assert_eq!(option.probability, table.curve(t.next).unwrap().at(need - t.points as i64));
        assert_eq!(option.gap, boxes[0].probability - option.probability);
    }
    assert!(boxes.windows(2).all(|w| w[0].probability >= w[1].probability));

    // With one reroll left, keeping all five dice is worth the best box of the roll.
    let keeps = advise::advise(&table, game, &card, roll, RollsLeft::ONE, target).unwrap();
    let all_five = keeps.iter().find(|r| r.choice == Choice::Keep(roll.as_keep())).unwrap();
    assert_eq!(all_five.probability, boxes[0].probability);
    assert_eq!(keeps.len(), KeepId::all().filter(|k| k.is_within(roll)).count());

    // The best keep of every first roll, weighted as the solve weights it, is the curve at
    // the start of the turn, bit for bit.
    let mut start = 0f32;
    for r in RollId::all() {
        let best = advise::advise(&table, game, &card, r, RollsLeft::TWO, target).unwrap()[0].probability;
        start += r.probability() as f32 * best;
    }
    assert_eq!(start, advise::probability(&table, game, &card, target).unwrap());
    assert_eq!(start, table.curve(state).unwrap().at(need));

    // A target already reached, and one out of reach.
    let reached = advise::advise(&table, game, &card, roll, RollsLeft::TWO, card.points() as i64).unwrap();
    assert!(reached.iter().all(|r| r.probability == 1.0 && r.gap == 0.0));
    assert!(
        advise::advise(&table, game, &card, roll, RollsLeft::NONE, 5000).unwrap().iter().all(|r| r.probability == 0.0)
    );

    let other = Game { rules: Rules::NO_BONUS, ..game };
    let err = advise::advise(&table, other, &Card::new(other), roll, RollsLeft::TWO, target).unwrap_err();
    assert!(matches!(err, TargetAdviseError::WrongGame { .. }), "{err}");
    let full = Card::parse("ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,yahtzee=0", game).unwrap();
    assert!(matches!(
        advise::advise(&table, game, &full, roll, RollsLeft::NONE, target),
        Err(TargetAdviseError::GameOver)
    ));
    assert_eq!(advise::probability(&table, game, &full, 21).unwrap(), 1.0);
    assert_eq!(advise::probability(&table, game, &full, 22).unwrap(), 0.0);
}

/// Runs `yz --json targets ARGS --first 6` (the upper-section game).
fn upper(data: &Path, args: &[&str]) -> serde_json::Value {
    let all: Vec<&str> = ["--json", "targets"].iter().chain(args).chain(&["--first", "6"]).copied().collect();
    json(&yz(data, &all))
}

#[test]
fn cli_solves_queries_and_advises() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A query solves the table on first use.
    let query = upper(d, &["query", "--card", "sixes=24", "--target", "90"]);
    assert_eq!(query["points"], 24);
    assert_eq!(query["needed"], 66);
    let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(6).unwrap() };
    let table = TargetTable::open(&d.join("targets-official-003f.yzt"), game).unwrap();
    let card = Card::parse("sixes=24", game).unwrap();
    let p = advise::probability(&table, game, &card, 90).unwrap();
    assert_eq!(query["probability"].as_f64(), Some(p as f64));

    let out = d.join("t.yzt");
    let solved = upper(d, &["solve", "--out", out.to_str().unwrap()]);
    assert_eq!(solved["states"], 1618);
    assert_eq!(solved["checksum"], table.checksum().to_string());
    assert_eq!(solved["file_bytes"], std::fs::metadata(&out).unwrap().len());
    assert_eq!(solved["start_curve_mean"].as_f64(), Some(table.start().unwrap().mean()));

    let advice = upper(d, &["advise", "--card", "", "--dice", "6,6,6,2,1", "--rolls-left", "2", "--target", "80"]);
    let options = advice["options"].as_array().unwrap();
    assert_eq!(options[0]["keep"], serde_json::json!([6, 6, 6]));
    assert_eq!(options[0]["gap"].as_f64(), Some(0.0));
    let scored =
        upper(d, &["advise", "--card", "sixes=18", "--dice", "5,5,5,2,1", "--rolls-left", "0", "--target", "70"]);
    assert_eq!(scored["options"][0]["category"], "fives");
    // Text output; a target already reached makes every choice certain.
    let args = ["targets", "advise", "--card", "", "--dice", "1,3,3,5,6", "--rolls-left", "1", "--target", "-4"];
    let text = yz(d, &[&args[..], &["--first", "6"]].concat());
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("keep 1,3,3,5,6") && text.contains("1.000000"), "{text}");
}

#[test]
fn cli_bad_input_is_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let advise = |card: &'static str, dice: &'static str, rolls: &'static str, target: &'static str| {
        ["targets", "advise", "--first", "6", "--card", card, "--dice", dice, "--rolls-left", rolls, "--target", target]
    };
    fails_with(d, &advise("", "1,2,3,4,5", "1", "12x"), "target \"12x\" is not a whole number");
    fails_with(d, &advise("", "1,2,3,4,5", "3", "50"), "rolls left must be 0, 1 or 2");
    fails_with(d, &advise("", "1,2,3,4,5", "two", "50"), "rolls left must be 0, 1 or 2");
    fails_with(d, &advise("", "1,2,3,4,9", "1", "50"), "not a face");
    fails_with(d, &advise("ones=7", "1,2,3,4,5", "1", "50"), "ones=7 is impossible");
    fails_with(d, &advise("fh=25", "1,2,3,4,5", "1", "50"), "not in play");
    let full = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6";
    fails_with(d, &advise(full, "1,2,3,4,5", "0", "50"), "every box");
    fails_with(d, &["targets", "query", "--card", "", "--target", "", "--first", "6"], "not a whole number");

    // Corrupt, truncated and foreign tables under this game's name.
    let table = d.join("targets-official-003f.yzt");
    let query = ["targets", "query", "--card", "", "--target", "60", "--first", "6"];
    assert!(yz(d, &query).status.success());
    let good = std::fs::read(&table).unwrap();
    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x01;
    std::fs::write(&table, &flipped).unwrap();
    fails_with(d, &query, "targets-official-003f.yzt");
    std::fs::write(&table, &good[..good.len() - 3]).unwrap();
    fails_with(d, &query, "truncated");
    assert!(yz(d, &["targets", "solve", "--first", "5", "--out", table.to_str().unwrap()]).status.success());
    fails_with(d, &query, "was made for categories");
}

/// Found by `parsers::extreme_targets_are_certain_or_impossible`: the points still needed
/// wrapped around below `i64::MIN` (a panic with overflow checks, else a certain target read
/// as impossible).
#[test]
fn a_target_of_i64_min_is_certain() {
    let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(2).unwrap() };
    let dir = tempfile::tempdir().unwrap();
    let table = open_or_solve::<TargetTable>(dir.path(), game, &Silent).unwrap();
    let card = Card::parse("ones=3", game).unwrap();
    assert_eq!(advise::needed(&card, i64::MIN), i64::MIN);
    assert_eq!(advise::probability(&table, game, &card, i64::MIN).unwrap(), 1.0);
    let ranked = advise::advise(&table, game, &card, RollId(0), RollsLeft::NONE, i64::MIN).unwrap();
    assert!(ranked.iter().all(|r| r.probability == 1.0));
}
