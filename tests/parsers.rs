//! Every parser of outside input against arbitrary and nearly valid text, and every file
//! reader against damaged and forged files: the right value or a clean error, never a panic.
//!
//! Text: arbitrary strings, and valid inputs with characters inserted, removed or replaced
//! (separators, digits, huge numbers, unicode). Files: a tiny solved duel, target, solitaire
//! and strategy tables written by the library, then damaged byte by byte (the store's
//! checksums must catch it: the content read back is the original one or an error), or
//! rewritten with forged metadata or payload and valid checksums (a clean error or a value).

use std::fmt::Display;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value;
use tempfile::TempDir;
use xxhash_rust::xxh3::xxh3_64;

use super::cli::yz;

use yz::duel::advise::{PositionSource, Tables};
use yz::duel::cards::window;
use yz::duel::cluster::Alone;
use yz::duel::shard::{
    Column, MANIFEST_FILE, MANIFEST_KIND, Manifest, SHARD_KIND, check_manifest, read_shard, verify_file, verify_listed,
    verify_tables,
};
use yz::duel::sweep::{SolveOptions, solve_tables};
use yz::duel::{Cards, LayerShape, Space};
use yz::game::RollsLeft;
use yz::game::{
    ALL_CATEGORIES, Card, Category, CategorySet, Game, MAX_BOXES, RollId, Rules, ScoreState, StateId, StateIndex,
    parse_dice,
};
use yz::move_errors::MoveErrorReport;
use yz::pattern::{Pattern, Setup};
use yz::players::PlayerName;
use yz::progress::Silent;
use yz::solo::SoloTable;
use yz::store::DataTable;
use yz::store::open_or_solve;
use yz::store::{self, FORMAT_VERSION, StoreFile};
use yz::strategy::StrategyName;
use yz::strategy::anchors::BoxValues;
use yz::strategy::{evolve, learned};
use yz::targets::advise as target_advise;
use yz::targets::table::{self as target_table, TargetTable};

// ---------------------------------------------------------------------------------------
// Running properties

/// Runs `test` on `cases` values of `strategy`; a failure (or a panic) fails the test with
/// the smallest input found.
fn check<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    if let Err(failure) = TestRunner::new(config).run(&strategy, test) {
        panic!("{failure}");
    }
}

/// An error fit to show a user: a message that says something.
fn clean(error: impl Display) -> Result<(), TestCaseError> {
    let message = error.to_string();
    prop_assert!(!message.trim().is_empty(), "an error with an empty message");
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Text

/// Separators, digits, signs, huge numbers and unicode that parsers may trip over.
const PIECES: &[&str] = &[
    ",",
    "=",
    " ",
    "-",
    "..",
    "..=",
    ":",
    ".",
    "0",
    "1",
    "5",
    "6",
    "7",
    "9",
    "00",
    "+",
    "_",
    "\t",
    "\n",
    "é",
    "ß",
    "K",
    "\u{212a}",
    "\u{130}",
    "\u{200b}",
    "🎲",
    "\u{0}",
    "\u{7f}",
    "-1",
    "255",
    "256",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "1e9",
    "NaN",
    "inf",
];

/// One piece to insert or put in place of a character.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(PIECES).prop_map(str::to_owned),
        1 => any::<char>().prop_map(String::from),
    ]
}

/// `samples` with up to three characters inserted, removed or replaced.
fn edited(samples: &'static [&'static str]) -> impl Strategy<Value = String> {
    let edit = (0..3u8, any::<Index>(), piece());
    (prop::sample::select(samples), prop::collection::vec(edit, 0..4)).prop_map(|(sample, edits)| {
        let mut chars: Vec<String> = sample.chars().map(String::from).collect();
        for (op, at, piece) in edits {
            let i = at.index(chars.len() + 1);
            match op {
                0 => chars.insert(i, piece),
                1 if i < chars.len() => drop(chars.remove(i)),
                _ if i < chars.len() => chars[i] = piece,
                _ => chars.push(piece),
            }
        }
        chars.concat()
    })
}

/// Arbitrary text, the samples, and the samples edited.
fn text(samples: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        1 => any::<String>(),
        1 => prop::sample::select(samples).prop_map(str::to_owned),
        4 => edited(samples),
    ]
}

const CARDS: &[&str] = &[
    "",
    "ones=3",
    "ones=3,twos=6",
    "ones=3,fh=25,yahtzee=50,bonus=100",
    " 3k=17, 4k=0 ,chance=22",
    "ss=30,ls=40,FH=0",
    "sixes=30,bonus=0",
    "yahtzee=50,ones=5,twos=10,bonus=200",
    "ones=1,twos=2",
    "ones=2,twos=4",
];
const DICE: &[&str] = &["1,3,3,5,6", "6,6,6,6,6", " 1, 2,3,4,5 ", "1,1,1,1,1", "2,2,3,3,3"];
const LISTS: &[&str] = &[
    "ones,twos,yahtzee",
    "pair,2pairs,yatzy",
    "ones",
    "fh, ss,LS",
    "3k,4k,chance,",
    "ones,twos,threes,fours,fives,sixes,3k,4k,fh,ss,ls,yahtzee,chance",
];
const RULES: &[&str] =
    &["official", "forced-joker", "no-joker", "no-bonus", "yatzy", "+forced-order", "+four-kind-two-pairs"];
const STRATEGIES: &[&str] = &[
    "optimal",
    "greedy",
    "means",
    "means-iter",
    "means-iter:3",
    "means-var",
    "upper-lower",
    "rules",
    "novice",
    "evolved",
    "evolved:anchors.yzs",
    "expert",
    "learned",
    "learned:/tmp/table.yzs",
    "emp1",
    "dyns2",
    "E",
    "EMP0",
];
const PATTERNS: &[&str] =
    &["yahtzee", "full-house", "large-straight", "small-straight", "3-of-a-kind", "011", "12,0,1", "00001", "5", "0"];
const WRITES: &[&str] = &["all", "none", "3..", "0..", " 12 .. "];
const NUMBERS: &[&str] = &["0", "1", "2", "3", "-5", "300", "1..3", "2..=4", "4"];

/// The games cards are parsed for: every rule set, the full card and parts of it.
fn games() -> Vec<Game> {
    let mut games: Vec<Game> = Rules::all().into_iter().map(Game::full).collect();
    games.push(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(3).unwrap() });
    games.push(Game::from_list(Rules::NO_JOKER, "ones,yahtzee").unwrap());
    games.push(Game::from_list(Rules::yatzy(), "pair,2pairs,yatzy").unwrap());
    games
}

#[test]
fn card_text_parses_or_is_refused() {
    let games: Vec<(Game, StateIndex)> = games().into_iter().map(|g| (g, StateIndex::new(g))).collect();
    check(256, text(CARDS), |text| {
        for (game, index) in &games {
            match Card::parse(&text, *game) {
                Ok(card) => {
                    prop_assert_eq!(Card::parse(&card.to_string(), *game), Ok(card.clone()), "{:?}", text);
                    let _ = (card.points(), index.id(card.state()));
                }
                Err(error) => clean(error)?,
            }
        }
        Ok(())
    });
}

/// A card a game can produce: boxes scored with rolls, and bonuses only as earned.
fn played_card() -> impl Strategy<Value = (Game, Card)> {
    let boxes = prop::collection::vec(prop::option::of(0..252u8), MAX_BOXES);
    (prop::sample::select(Rules::all()), 1..0x8000u16, boxes, 0..15u32).prop_filter_map(
        "a game needs a box of its card",
        |(rules, mask, rolls, bonuses)| {
            let categories = CategorySet(mask & rules.boxes().0);
            if categories.is_empty() {
                return None;
            }
            let game = Game { rules, categories };
            let mut card = Card::new(game);
            for (category, roll) in ALL_CATEGORIES.iter().zip(rolls) {
                if let (true, Some(roll)) = (game.categories.contains(*category), roll) {
                    card.boxes[category.index()] = Some(rules.points(*category, RollId(roll)));
                }
            }
            let later = card.boxes.iter().flatten().count() as u32;
            if rules.has_extra_bonus() && card.boxes[Category::Yahtzee.index()] == Some(50) {
                card.bonus = rules.extra_bonus() * bonuses.min(later - 1);
            }
            Some((game, card))
        },
    )
}

#[test]
fn cards_round_trip() {
    check(256, played_card(), |(game, card)| {
        let text = card.to_string();
        prop_assert_eq!(Card::parse(&text, game), Ok(card.clone()), "{}", text);
        Ok(())
    });
}

#[test]
fn dice_parse_round_trip_or_are_refused() {
    check(256, text(DICE), |text| {
        match parse_dice(&text) {
            Ok(roll) => prop_assert_eq!(parse_dice(&roll.to_string()), Ok(roll)),
            Err(error) => clean(error)?,
        }
        Ok(())
    });
    for roll in RollId::all() {
        assert_eq!(parse_dice(&roll.to_string()), Ok(roll));
    }
}

#[test]
fn category_lists_and_rules_parse_round_trip_or_are_refused() {
    check(256, (text(LISTS), text(RULES)), |(list, rules)| {
        for card_rules in Rules::all() {
            match card_rules.parse_list(&list) {
                Ok(set) => prop_assert_eq!(card_rules.parse_list(&set.names().join(",")), Ok(set)),
                Err(error) => clean(error)?,
            }
        }
        let _ = Category::parse(&list);
        match rules.parse::<Rules>() {
            Ok(parsed) => prop_assert_eq!(parsed.name().parse::<Rules>(), Ok(parsed)),
            Err(error) => clean(error)?,
        }
        Ok(())
    });
    check(256, (prop::sample::select(Rules::all()), 1..0x8000u16), |(rules, mask)| {
        let set = CategorySet(mask & rules.boxes().0);
        if !set.is_empty() {
            prop_assert_eq!(rules.parse_list(&set.names().join(",")), Ok(set));
            prop_assert_eq!(Game { rules, categories: set }.box_names().len(), set.len());
        }
        Ok(())
    });
}

#[test]
fn strategy_and_player_names_parse_round_trip_or_are_refused() {
    check(256, text(STRATEGIES), |text| {
        match text.parse::<StrategyName>() {
            Ok(name) => prop_assert_eq!(name.to_string().parse::<StrategyName>().ok(), Some(name)),
            Err(error) => clean(error)?,
        }
        match text.parse::<PlayerName>() {
            Ok(name) => prop_assert_eq!(name.to_string().parse::<PlayerName>().ok(), Some(name)),
            Err(error) => clean(error)?,
        }
        Ok(())
    });
}

#[test]
fn patterns_parse_round_trip_or_are_refused() {
    let setup = (1..=8u32, 0..=8u32, 0..=3u32).prop_map(|(faces, dice, rolls)| Setup { faces, dice, rolls });
    check(256, (text(PATTERNS), setup), |(text, setup)| {
        match text.parse::<Pattern>() {
            Ok(pattern) => {
                // The setup's own check is the solve's, but `check` is public too.
                let _ = pattern.check(setup);
                let shown = pattern.to_string();
                prop_assert_eq!(shown.parse::<Pattern>().map(|p| p.to_string()), Ok(shown));
                match setup.checked_denominator().and_then(|_| pattern.check(setup)) {
                    Ok(()) => {
                        let _ = pattern.meaning(setup);
                        if setup.faces <= 4 && setup.dice <= 4 {
                            yz::pattern::solve(&pattern, setup).map(drop).or_else(clean)?;
                        }
                    }
                    Err(error) => clean(error)?,
                }
            }
            Err(error) => clean(error)?,
        }
        Ok(())
    });
}

#[test]
fn write_ranges_parse_round_trip_or_are_refused() {
    check(256, text(WRITES), |text| {
        match SolveOptions::parse_write(&text) {
            Ok(_) => {}
            Err(error) => clean(error)?,
        }
        Ok(())
    });
    check(256, any::<usize>(), |k| {
        prop_assert_eq!(SolveOptions::parse_write(&format!("{k}..")), Ok(k));
        Ok(())
    });
}

/// A card of the game, as text that may be damaged.
fn card_for_cli() -> impl Strategy<Value = String> {
    text(&["", "ones=1", "ones=2", "twos=4", "ones=1,twos=2", "ones=3,twos=6"])
}

/// Text without NUL, which no command line can carry.
fn arg(text: String) -> String {
    text.replace('\0', "")
}

/// The flags the binary parses itself (positions, differences, targets, rolls left, layer
/// and depth ranges) on a two-box game: exit status 0, or 2 with a message; never a panic.
#[test]
fn cli_flags_parse_or_are_refused() {
    let data = tempfile::tempdir().unwrap();
    let out = data.path().join("tables");
    let flags = (card_for_cli(), card_for_cli(), text(NUMBERS), text(DICE), text(NUMBERS), text(WRITES));
    check(24, flags, |(me, opp, number, dice, rolls, write)| {
        let (me, opp, number, dice, rolls, write) = (arg(me), arg(opp), arg(number), arg(dice), arg(rolls), arg(write));
        let (me, opp, diff) = (format!("--me={me}"), format!("--opp={opp}"), format!("--diff={number}"));
        let (card, dice, target) =
            (format!("--card={}", &me[5..]), format!("--dice={dice}"), format!("--target={number}"));
        let (rolls, write, empty) =
            (format!("--rolls-left={rolls}"), format!("--write={write}"), format!("--empty={number}"));
        let out = format!("--out={}", out.display());
        let runs: [&[&str]; 8] = [
            &["duel", "value", "--first=2", &me, &opp, &diff],
            &["duel", "value", "--first=2", &me, &opp],
            &["duel", "advise", "--first=2", &me, &opp, &dice, &rolls],
            &["targets", "query", "--first=2", &card, &target],
            &["targets", "advise", "--first=2", &card, &dice, &rolls, &target],
            &["solo", "advise", "--first=2", &card, &dice, &rolls],
            &["duel", "solve", "--first=1", "--force", &out, &write],
            &["duel", "move-errors", "--first=2", "--strategy=greedy", "--games=1", &empty],
        ];
        for args in runs {
            exits_cleanly(args, &yz(data.path(), args))?;
        }
        Ok(())
    });
}

/// Fails the case unless `yz args` succeeded or gave an input error (status 2 with a message).
fn exits_cleanly(args: &[&str], output: &std::process::Output) -> Result<(), TestCaseError> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let fine = output.status.success() || output.status.code() == Some(2) && !stderr.trim().is_empty();
    prop_assert!(fine, "{:?}: {:?}\n{}", args, output.status, stderr);
    Ok(())
}

/// A target far below or above anything a card can reach is certain or impossible, even at
/// the ends of the integers.
#[test]
fn extreme_targets_are_certain_or_impossible() {
    let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(2).unwrap() };
    let dir = tempfile::tempdir().unwrap();
    let table = open_or_solve::<TargetTable>(dir.path(), game, &Silent).unwrap();
    let cards = prop::sample::select(&["", "ones=3", "ones=5,twos=10"][..]);
    let targets =
        prop_oneof![any::<i64>(), prop::sample::select(&[i64::MIN, i64::MIN + 1, -1, 0, 1, 1000, i64::MAX][..])];
    check(128, (cards, targets, 0..=2u8, 0..252u8), |(card, target, rolls_left, roll)| {
        let card = Card::parse(card, game).unwrap();
        let points = i64::from(card.points());
        let p = target_advise::probability(&table, game, &card, target).unwrap();
        if target <= points {
            prop_assert_eq!(p, 1.0, "target {}", target);
        } else if target > points + 1000 {
            prop_assert_eq!(p, 0.0, "target {}", target);
        }
        let rolls_left = RollsLeft::new(rolls_left).unwrap();
        match target_advise::advise(&table, game, &card, RollId(roll), rolls_left, target) {
            Ok(ranked) => {
                let best = ranked.first().map_or(0.0, |r| r.probability);
                if target <= points {
                    prop_assert_eq!(best, 1.0, "target {}", target);
                } else if target > points + 1000 {
                    prop_assert_eq!(best, 0.0, "target {}", target);
                }
            }
            Err(error) => clean(error)?,
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------
// Damaged bytes

/// One way of damaging a file's bytes.
#[derive(Clone, Debug)]
enum Damage {
    /// XOR a byte with a non-zero mask.
    Flip(Index, u8),
    /// Cut the file there.
    Truncate(Index),
    /// Append bytes.
    Extend(Vec<u8>),
    /// Overwrite a run of bytes.
    Overwrite(Index, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Vec<Damage>> {
    let one = prop_oneof![
        4 => (any::<Index>(), 1..=255u8).prop_map(|(at, mask)| Damage::Flip(at, mask)),
        2 => any::<Index>().prop_map(Damage::Truncate),
        1 => prop::collection::vec(any::<u8>(), 1..80).prop_map(Damage::Extend),
        2 => (any::<Index>(), prop::collection::vec(any::<u8>(), 1..16)).prop_map(|(at, b)| Damage::Overwrite(at, b)),
    ];
    prop::collection::vec(one, 1..4)
}

/// The bytes with the damage done.
fn damaged(bytes: &[u8], damage: &[Damage]) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    for d in damage {
        match d {
            Damage::Flip(at, mask) if !bytes.is_empty() => {
                let i = at.index(bytes.len());
                bytes[i] ^= mask;
            }
            Damage::Truncate(at) => bytes.truncate(at.index(bytes.len() + 1)),
            Damage::Extend(tail) => bytes.extend_from_slice(tail),
            Damage::Overwrite(at, run) if !bytes.is_empty() => {
                let i = at.index(bytes.len());
                let end = (i + run.len()).min(bytes.len());
                bytes[i..end].copy_from_slice(&run[..end - i]);
            }
            _ => {}
        }
    }
    bytes
}

// ---------------------------------------------------------------------------------------
// Forged JSON

/// Field names of the table formats' metadata, so that forged objects get read further.
const FIELDS: &[&str] = &[
    "table_version",
    "rules",
    "categories",
    "first_layer",
    "end_layer",
    "complete",
    "layers",
    "layer",
    "positions",
    "shards",
    "file",
    "mover_start",
    "mover_end",
    "checksum",
    "bytes",
    "opponents",
    "value",
    "compression",
    "seed",
    "game_ranges",
    "start",
    "end",
    "strategies",
    "depths",
    "empty",
    "sums",
    "games",
    "moves",
    "x",
];

fn json_leaf() -> impl Strategy<Value = Value> {
    let numbers: &[u64] =
        &[0, 1, 2, 3, 4, 5, 8, 255, 1 << 24, u32::MAX as u64, 1 << 32, 1 << 53, (1 << 53) + 1, u64::MAX];
    let strings: &[&str] = &[
        "official",
        "no-bonus",
        "layer-00-shard-00000.yzs",
        "layer-03-shard-00000.yzs",
        "layer-03-shard-00001.yzs",
        "../manifest.yzs",
        "/etc/passwd",
        "manifest.yzs",
        "zstd level 3",
        "0000000000000000",
        "",
    ];
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        prop::sample::select(numbers).prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop::sample::select(&[-1i64, -2, i64::MIN][..]).prop_map(Value::from),
        prop::sample::select(&[0.5f64, -0.0, 1.5, 1e300, -1e300, 1e-300][..]).prop_map(Value::from),
        prop::sample::select(strings).prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(prop::sample::select(FIELDS), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

/// An edit at one place of a JSON document.
#[derive(Clone, Debug)]
enum JsonEdit {
    /// Put this value there.
    Replace(Value),
    /// Take it out.
    Remove,
    /// Add it again: a second copy of an array element, or the number plus or minus one.
    Again(i8),
}

/// Where an edit goes: a depth, then a place at that depth (so that the few fields near
/// the top are edited as often as the many leaves), and what it does there.
type JsonEdits = Vec<(Index, Index, JsonEdit)>;

fn json_edits() -> impl Strategy<Value = JsonEdits> {
    let edit = prop_oneof![
        3 => json_value().prop_map(JsonEdit::Replace),
        1 => Just(JsonEdit::Replace(Value::Array(Vec::new()))),
        1 => Just(JsonEdit::Remove),
        2 => prop::sample::select(&[-1i8, 1][..]).prop_map(JsonEdit::Again),
    ];
    prop::collection::vec((any::<Index>(), any::<Index>(), edit), 1..4)
}

/// JSON pointers to every value in `value`, itself included, by depth.
fn pointers(value: &Value, at: String, depth: usize, out: &mut Vec<Vec<String>>) {
    match value {
        Value::Array(items) => {
            items.iter().enumerate().for_each(|(i, v)| pointers(v, format!("{at}/{i}"), depth + 1, out))
        }
        Value::Object(map) => map.iter().for_each(|(k, v)| pointers(v, format!("{at}/{k}"), depth + 1, out)),
        _ => {}
    }
    if out.len() <= depth {
        out.resize(depth + 1, Vec::new());
    }
    out[depth].push(at);
}

/// `value` with the edits made, each at a place chosen among those there are by then.
fn edited_json(value: &Value, edits: &[(Index, Index, JsonEdit)]) -> Value {
    let mut value = value.clone();
    for (depth, at, edit) in edits {
        let mut by_depth = Vec::new();
        pointers(&value, String::new(), 0, &mut by_depth);
        let level = &by_depth[depth.index(by_depth.len())];
        let pointer = &level[at.index(level.len())];
        let Some((parent, key)) = pointer.rsplit_once('/') else {
            if let JsonEdit::Replace(v) = edit {
                value = v.clone();
            }
            continue;
        };
        let target = value.pointer(pointer).cloned().unwrap_or(Value::Null);
        let new = match edit {
            JsonEdit::Replace(v) => Some(v.clone()),
            JsonEdit::Remove => None,
            JsonEdit::Again(step) => Some(match (target.as_u64(), target.as_i64()) {
                (Some(n), _) => Value::from(n.wrapping_add_signed(i64::from(*step))),
                (None, Some(n)) => Value::from(n.wrapping_add(i64::from(*step))),
                _ => target.clone(),
            }),
        };
        match value.pointer_mut(parent) {
            Some(Value::Object(map)) => match new {
                Some(new) => drop(map.insert(key.to_owned(), new)),
                None => drop(map.remove(key)),
            },
            Some(Value::Array(items)) => {
                let i: usize = key.parse().unwrap();
                match (new, edit) {
                    (None, _) => drop(items.remove(i)),
                    (Some(_), JsonEdit::Again(_)) if !target.is_number() => items.push(target),
                    (Some(new), _) => items[i] = new,
                }
            }
            _ => {}
        }
    }
    value
}

/// A document: the pristine one edited, or anything at all.
fn forged_json(pristine: Value) -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => json_edits().prop_map(move |edits| edited_json(&pristine, &edits)),
        1 => json_value(),
    ]
}

// ---------------------------------------------------------------------------------------
// Duel tables

/// A two-box duel solved into a directory, and what its tables answer.
struct Duel {
    _root: TempDir,
    pristine: PathBuf,
    cards: Cards,
    manifest: Manifest,
    /// Positions and their values, read from the pristine tables.
    values: Vec<((StateId, StateId, i32), f64)>,
    /// Every listed shard's values, by place in the manifest's list.
    shards: Vec<Vec<f32>>,
    first_value: f32,
}

impl Duel {
    fn new() -> Duel {
        let root = tempfile::tempdir().unwrap();
        let pristine = root.path().join("pristine");
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(2).unwrap() });
        let space = Space::whole_game(&cards);
        let outcome = solve_tables::<f32>(&space, &Alone, &pristine, SolveOptions::whole(&space), |_| {}).unwrap();
        let manifest = Manifest::open(&pristine).unwrap();
        let tables = Tables::open(&pristine, &cards).unwrap();
        let mut values = Vec::new();
        for layer in space.first_layer()..space.end_layer() {
            let m = layer / 2;
            for &mover in space.movers(layer).with_filled(m) {
                for &opponent in space.opponents(layer).with_filled(layer - m) {
                    let (lo, hi) = window(cards.bounds(mover), cards.bounds(opponent));
                    for d in [lo - 1, lo, (lo + hi) / 2, hi, hi + 1] {
                        if let Ok(v) = tables.value(mover, opponent, d) {
                            values.push(((mover, opponent, d), v));
                        }
                    }
                }
            }
        }
        assert!(values.len() > 20, "{} positions", values.len());
        let shards = manifest
            .listed()
            .iter()
            .map(|l| {
                read_shard(&pristine, cards.game(), &LayerShape::new(&space, l.layer), (l.index, l.entry), l.column)
                    .unwrap()
            })
            .collect();
        let first_value = outcome.first_value.unwrap();
        drop(tables);
        Duel { _root: root, pristine, cards, manifest, values, shards, first_value }
    }

    /// A fresh copy of the pristine tables.
    fn copy(&self) -> TempDir {
        let dir = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(&self.pristine).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
            }
        }
        dir
    }

    /// Every reader of the tables in `dir`: each gives a clean error or a value, the
    /// pristine manifest with `same_manifest`, the pristine values with `same_values`.
    fn read_everything(&self, dir: &Path, same_manifest: bool, same_values: bool) -> Result<(), TestCaseError> {
        let game = self.cards.game();
        let space = Space::whole_game(&self.cards);
        match Manifest::open(dir) {
            Ok(manifest) => {
                if same_manifest {
                    prop_assert_eq!(&manifest, &self.manifest);
                }
                manifest.check_game(game, dir).or_else(clean)?;
            }
            Err(error) => clean(error)?,
        }
        let (_, check) = check_manifest(dir);
        check.problem.map_or(Ok(()), clean)?;
        let tables = verify_tables(dir);
        for file in &tables.files {
            file.problem.as_ref().map_or(Ok(()), clean)?;
        }
        let mut names: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        for path in names {
            verify_file(&path).files.iter().try_for_each(|f| f.problem.as_ref().map_or(Ok(()), clean))?;
        }
        for (i, l) in self.manifest.listed().iter().enumerate() {
            let layer = l.layer;
            let opponents = space.opponent_count(layer);
            let check = verify_listed(dir, game, l, opponents);
            check.problem.map_or(Ok(()), clean)?;
            match read_shard(dir, game, &LayerShape::new(&space, layer), (l.index, l.entry), l.column) {
                Ok(values) if same_values => {
                    prop_assert!(values == self.shards[i], "layer {} reads other values", layer)
                }
                Ok(_) => {}
                Err(error) => clean(error)?,
            }
        }
        match Tables::open(dir, &self.cards) {
            Ok(tables) => {
                for &((mover, opponent, d), value) in &self.values {
                    match tables.value(mover, opponent, d) {
                        Ok(v) if same_values => prop_assert_eq!(v, value, "({:?}, {:?}, {})", mover, opponent, d),
                        Ok(_) => {}
                        Err(error) => clean(error)?,
                    }
                }
            }
            Err(error) => clean(error)?,
        }
        // Last, as it rewrites the tables: resume checks every listed shard first.
        let options = SolveOptions { resume: true, ..SolveOptions::whole(&space) };
        match solve_tables::<f32>(&space, &Alone, dir, options, |_| {}) {
            Ok(outcome) if same_values => prop_assert_eq!(outcome.first_value, Some(self.first_value)),
            Ok(_) => {}
            Err(error) => clean(error)?,
        }
        Ok(())
    }
}

#[test]
fn damaged_manifests_are_refused_or_read_alike() {
    let duel = Duel::new();
    let bytes = std::fs::read(duel.pristine.join(MANIFEST_FILE)).unwrap();
    check(64, damage(), |damage| {
        let dir = duel.copy();
        std::fs::write(dir.path().join(MANIFEST_FILE), damaged(&bytes, &damage)).unwrap();
        duel.read_everything(dir.path(), true, true)
    });
}

#[test]
fn damaged_shards_are_refused_or_read_alike() {
    let duel = Duel::new();
    let files: Vec<String> = duel.manifest.listed().iter().map(|l| l.file()).collect();
    check(64, (prop::sample::select(files), damage()), |(file, damage)| {
        let dir = duel.copy();
        let bytes = std::fs::read(dir.path().join(&file)).unwrap();
        std::fs::write(dir.path().join(&file), damaged(&bytes, &damage)).unwrap();
        duel.read_everything(dir.path(), true, true)
    });
}

#[test]
fn forged_manifests_are_refused_or_read_alike() {
    let duel = Duel::new();
    let file = unsafe { StoreFile::open(&duel.pristine.join(MANIFEST_FILE), MANIFEST_KIND.name) }.unwrap();
    let (pristine, records) = (file.metadata().clone(), file.payload().to_vec());
    check(128, forged_json(pristine), |metadata| {
        let dir = duel.copy();
        store::write_atomic(&dir.path().join(MANIFEST_FILE), MANIFEST_KIND.name, &metadata, &records).unwrap();
        // Every shard it can name is one of the solve's own, checked against its header and
        // checksum, so whatever it reads is the true value.
        duel.read_everything(dir.path(), false, true)
    });
}

/// What a forged shard holds.
#[derive(Clone, Debug)]
enum ShardPayload {
    /// The solve's own compressed values.
    Original,
    /// Bytes that are no zstd frame, most likely.
    Bytes(Vec<u8>),
    /// These values compressed; `None` for as many as the shard holds, all 0.5.
    Values(Option<Vec<f32>>),
}

fn shard_payload() -> impl Strategy<Value = ShardPayload> {
    let value = prop_oneof![0.0f32..=1.0, any::<f32>(), Just(f32::NAN), Just(1.001f32), Just(-0.0f32)];
    prop_oneof![
        Just(ShardPayload::Original),
        prop::collection::vec(any::<u8>(), 0..64).prop_map(ShardPayload::Bytes),
        Just(ShardPayload::Values(None)),
        prop::collection::vec(value, 0..200).prop_map(|v| ShardPayload::Values(Some(v))),
    ]
}

#[test]
fn forged_shards_are_refused_or_read() {
    let duel = Duel::new();
    let listed = duel.manifest.listed().len();
    let header = |i: usize| {
        let file = duel.manifest.listed()[i].file();
        unsafe { StoreFile::open(&duel.pristine.join(file), SHARD_KIND.name) }.unwrap().metadata().clone()
    };
    let forged = (0..listed)
        .prop_flat_map(move |i| (Just(i), prop_oneof![Just(header(i)), forged_json(header(i))]))
        .prop_flat_map(|(i, metadata)| (Just(i), Just(metadata), shard_payload(), any::<bool>()));
    check(128, forged, |(i, metadata, payload, relist)| {
        let dir = duel.copy();
        let listed = duel.manifest.listed()[i];
        let (entry, file) = (listed.entry, listed.file());
        let path = dir.path().join(&file);
        let payload = match payload {
            ShardPayload::Original => unsafe { StoreFile::open(&path, SHARD_KIND.name) }.unwrap().payload().to_vec(),
            ShardPayload::Bytes(bytes) => bytes,
            ShardPayload::Values(values) => {
                let values = values.unwrap_or_else(|| vec![0.5; entry.positions as usize]);
                zstd::bulk::compress(store::as_bytes(&values), 3).unwrap()
            }
        };
        let checksum = store::write_atomic(&path, SHARD_KIND.name, &metadata, &payload).unwrap();
        if relist {
            // The manifest lists the forged file's checksum and size, as a solve that wrote
            // it would have.
            let mut manifest = duel.manifest.clone();
            let layer = manifest.layers.iter_mut().find(|l| l.layer == listed.layer).unwrap();
            let column = if listed.column == Column::Value { &mut layer.shards } else { &mut layer.draws };
            let shard = &mut column[listed.index];
            shard.checksum = checksum;
            shard.bytes = std::fs::metadata(&path).unwrap().len();
            manifest.write(dir.path()).unwrap();
        }
        duel.read_everything(dir.path(), false, false)
    });
}

// ---------------------------------------------------------------------------------------
// Store files of every kind

/// A store header field as written, or in place of it.
#[derive(Clone, Debug)]
struct ForgedStore {
    byte_order: u32,
    version: u32,
    kind: Vec<u8>,
    kind_len: Option<u32>,
    metadata: Vec<u8>,
    metadata_len: Option<u32>,
    payload_len: u64,
    chunk_size: u32,
    chunks: Option<u64>,
    /// A non-zero byte in the padding.
    padding: Option<(Index, u8)>,
    /// Chunk hashes and their hash as the payload needs them, else garbage.
    true_hashes: bool,
    /// Damage after everything was written.
    damage: Vec<Damage>,
}

fn forged_store(metadata: Vec<Value>) -> impl Strategy<Value = ForgedStore> {
    let kinds: Vec<Vec<u8>> =
        [SHARD_KIND, MANIFEST_KIND, target_table::KIND, yz::solo::table::KIND, evolve::KIND, learned::KIND]
            .iter()
            .map(|k| k.name)
            .chain(["", "x"])
            .map(|k| k.as_bytes().to_vec())
            .collect();
    let metadata = prop_oneof![
        4 => prop::sample::select(metadata).prop_flat_map(forged_json).prop_map(|v| serde_json::to_vec(&v).unwrap()),
        1 => prop::collection::vec(any::<u8>(), 0..40),
        1 => prop::sample::select(&["{", "{\"a\":", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "\"\u{1}\"", "1e99999"][..])
            .prop_map(|s| s.as_bytes().to_vec()),
    ];
    (
        (
            prop_oneof![8 => Just(0x0102_0304u32), 1 => Just(0x0403_0201u32), 1 => any::<u32>()],
            prop_oneof![8 => Just(FORMAT_VERSION), 1 => any::<u32>()],
            prop_oneof![4 => prop::sample::select(kinds), 1 => prop::collection::vec(any::<u8>(), 0..8)],
            prop_oneof![6 => Just(None), 1 => any::<u32>().prop_map(Some), 1 => (250..260u32).prop_map(Some)],
            metadata,
            prop_oneof![6 => Just(None), 1 => any::<u32>().prop_map(Some), 1 => Just(Some(16 << 20 | 1))],
        ),
        (
            prop_oneof![6 => 0..300u64, 1 => any::<u64>(), 1 => Just(u64::MAX)],
            prop_oneof![1 => 0..=1u32, 4 => 1..200u32, 1 => any::<u32>()],
            prop_oneof![6 => Just(None), 1 => any::<u64>().prop_map(Some), 1 => Just(Some(u64::MAX / 8 + 1))],
            prop::option::weighted(0.1, (any::<Index>(), 1..=255u8)),
            prop::bool::weighted(0.8),
            prop_oneof![6 => Just(Vec::new()), 1 => damage()],
        ),
    )
        .prop_map(|((byte_order, version, kind, kind_len, metadata, metadata_len), rest)| {
            let (payload_len, chunk_size, chunks, padding, true_hashes, damage) = rest;
            ForgedStore {
                byte_order,
                version,
                kind,
                kind_len,
                metadata,
                metadata_len,
                payload_len,
                chunk_size,
                chunks,
                padding,
                true_hashes,
                damage,
            }
        })
}

impl ForgedStore {
    /// The file's bytes, laid out as the store module documents, with a true header hash.
    fn bytes(&self) -> Vec<u8> {
        let mut bytes = b"YZSTORE\0".to_vec();
        bytes.extend_from_slice(&self.byte_order.to_ne_bytes());
        bytes.extend_from_slice(&self.version.to_le_bytes());
        bytes.extend_from_slice(&self.kind_len.unwrap_or(self.kind.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&self.kind);
        bytes.extend_from_slice(&self.metadata_len.unwrap_or(self.metadata.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&self.metadata);
        bytes.extend_from_slice(&self.payload_len.to_le_bytes());
        bytes.extend_from_slice(&self.chunk_size.to_le_bytes());
        let chunks = self.chunks.unwrap_or(self.payload_len.div_ceil(u64::from(self.chunk_size.max(1))));
        bytes.extend_from_slice(&chunks.to_le_bytes());
        let hash = xxh3_64(&bytes);
        bytes.extend_from_slice(&hash.to_le_bytes());
        let padding_start = bytes.len();
        bytes.resize(bytes.len().next_multiple_of(64), 0);
        if let Some((at, byte)) = self.padding
            && bytes.len() > padding_start
        {
            let i = padding_start + at.index(bytes.len() - padding_start);
            bytes[i] = byte;
        }
        // A payload of at most a few hundred bytes, whatever the header says.
        let payload: Vec<u8> = (0..self.payload_len.min(300)).map(|i| (i * 37 % 251) as u8).collect();
        bytes.extend_from_slice(&payload);
        let mut hashes = Vec::new();
        if self.true_hashes {
            for chunk in payload.chunks(self.chunk_size.clamp(1, 1 << 20) as usize) {
                hashes.extend_from_slice(&xxh3_64(chunk).to_le_bytes());
            }
        } else {
            hashes.extend((0..chunks.min(40) * 8).map(|i| i as u8));
        }
        bytes.extend_from_slice(&hashes);
        bytes.extend_from_slice(&xxh3_64(&hashes).to_le_bytes());
        damaged(&bytes, &self.damage)
    }
}

/// Small tables of every kind and game, written by the library.
struct Files {
    _root: TempDir,
    game: Game,
    solo: PathBuf,
    targets: PathBuf,
    evolved: PathBuf,
    learned: PathBuf,
}

impl Files {
    fn new() -> Files {
        let root = tempfile::tempdir().unwrap();
        let game =
            Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(2).unwrap().with(Category::Yahtzee) };
        let solo = root.path().join("solo.yzt");
        SoloTable::write(&yz::solo::solve(game), &solo).unwrap();
        let targets = root.path().join(TargetTable::file_name(game));
        TargetTable::write(&yz::targets::solve::<f32>(game), &targets).unwrap();
        let evolved = root.path().join("evolved.yzs");
        let anchors = BoxValues(std::array::from_fn(|i| i as f64 * 1.5));
        evolve::write(&evolved, game, &anchors, serde_json::json!({})).unwrap();
        let learned = root.path().join("learned.yzs");
        learned::ActionTable::new(game).write(&learned, serde_json::json!({})).unwrap();
        Files { _root: root, game, solo, targets, evolved, learned }
    }

    fn all(&self) -> [(&Path, &str); 4] {
        [
            (&self.solo, yz::solo::table::KIND.name),
            (&self.targets, target_table::KIND.name),
            (&self.evolved, evolve::KIND.name),
            (&self.learned, learned::KIND.name),
        ]
    }

    fn metadata(&self) -> Vec<Value> {
        self.all()
            .iter()
            .map(|(path, kind)| unsafe { StoreFile::open(path, kind) }.unwrap().metadata().clone())
            .collect()
    }

    /// Every reader of a store file at `path`, also as the manifest of a table directory;
    /// with an `original` (`path` is it damaged), whatever opens holds what it holds.
    fn read_everything(&self, path: &Path, original: Option<&Path>) -> Result<(), TestCaseError> {
        match unsafe { store::verify(path) } {
            Ok(report) => {
                if let Some(original) = original {
                    let was = unsafe { store::verify(original) }.unwrap();
                    prop_assert_eq!((&report.kind, &report.metadata), (&was.kind, &was.metadata));
                    prop_assert_eq!(report.checksum, was.checksum);
                }
            }
            Err(error) => clean(error)?,
        }
        for kind in [SHARD_KIND, MANIFEST_KIND, target_table::KIND, yz::solo::table::KIND].map(|k| k.name) {
            match unsafe { StoreFile::open(path, kind) } {
                Ok(file) => {
                    if let Some(original) = original {
                        let was = unsafe { StoreFile::open(original, kind) }.unwrap();
                        prop_assert!(file.payload() == was.payload() && file.metadata() == was.metadata());
                    }
                    file.payload_as::<f64>().map(drop).or_else(clean)?;
                    file.payload_as::<u16>().map(drop).or_else(clean)?;
                }
                Err(error) => clean(error)?,
            }
        }
        match SoloTable::open(path, self.game) {
            Ok(table) => {
                let _ = table.start_value();
            }
            Err(error) => clean(error)?,
        }
        match TargetTable::open(path, self.game) {
            Ok(table) => {
                let index = StateIndex::new(self.game);
                // A damaged file that opens is the original, a target table.
                let was = original.map(|original| TargetTable::open(original, self.game).unwrap());
                let mut reader = table.reader();
                for id in 0..index.len() as u32 {
                    let state = index.state(StateId(id));
                    match (reader.curve(state), &was) {
                        (Ok(curve), Some(was)) => prop_assert_eq!(curve, was.curve(state).unwrap()),
                        (Ok(curve), None) => prop_assert!(curve.values.iter().all(|v| (0.0..=1.0).contains(v))),
                        (Err(error), _) => clean(error)?,
                    }
                }
                let start = ScoreState::start(self.game);
                table.curve(start).map(drop).or_else(clean)?;
            }
            Err(error) => clean(error)?,
        }
        match evolve::load(path, self.game) {
            Ok(values) => prop_assert!(values.0.iter().all(|v| v.is_finite())),
            Err(error) => clean(error)?,
        }
        match learned::ActionTable::load(path, self.game) {
            Ok(table) => {
                table.best_keep(ScoreState::start(self.game), RollId(7));
            }
            Err(error) => clean(error)?,
        }
        // As a manifest in a table directory of its own.
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join(MANIFEST_FILE);
        std::fs::copy(path, &manifest).unwrap();
        Manifest::open(dir.path()).map(drop).or_else(clean)?;
        verify_tables(dir.path()).files.iter().try_for_each(|f| f.problem.as_ref().map_or(Ok(()), clean))?;
        verify_file(&manifest).files.iter().try_for_each(|f| f.problem.as_ref().map_or(Ok(()), clean))?;
        Ok(())
    }
}

#[test]
fn forged_store_files_are_refused_or_read() {
    let files = Files::new();
    check(256, forged_store(files.metadata()), |forged| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("forged.yzs");
        std::fs::write(&path, forged.bytes()).unwrap();
        files.read_everything(&path, None)
    });
}

#[test]
fn damaged_tables_are_refused_or_read_alike() {
    let files = Files::new();
    let which = 0..files.all().len();
    check(128, (which, damage()), |(i, damage)| {
        let original = files.all()[i].0;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("damaged.yzs");
        std::fs::write(&path, damaged(&std::fs::read(original).unwrap(), &damage)).unwrap();
        files.read_everything(&path, Some(original))
    });
}

#[test]
fn forged_table_payloads_are_refused_or_read() {
    let files = Files::new();
    let which = 0..files.all().len();
    let forged = (which, damage(), any::<bool>(), json_edits());
    check(128, forged, |(i, damage, edit_metadata, edits)| {
        let (original, kind) = files.all()[i];
        let file = unsafe { StoreFile::open(original, kind) }.unwrap();
        let metadata = if edit_metadata { edited_json(file.metadata(), &edits) } else { file.metadata().clone() };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("forged.yzs");
        store::write_atomic(&path, kind, &metadata, &damaged(file.payload(), &damage)).unwrap();
        files.read_everything(&path, None)
    });
}

// ---------------------------------------------------------------------------------------
// Move-error reports

/// A report of a short `yz duel move-errors` run on a two-box game.
fn measured_report(data: &Path) -> Value {
    let args = ["--json", "duel", "move-errors", "--first=2", "--strategy=greedy,E", "--empty=1..2", "--games=3"];
    super::cli::json(&yz(data, &args))
}

#[test]
fn forged_move_error_reports_merge_or_are_refused() {
    let data = tempfile::tempdir().unwrap();
    let report = measured_report(data.path());
    // The library's part of the report.
    let library = serde_json::json!({
        "seed": report["seed"], "game_ranges": report["game_ranges"],
        "strategies": report["strategies"].as_array().unwrap().iter().map(|s| {
            serde_json::json!({ "depths": s["depths"], "per_game": s["per_game"], "game_sums": s["game_sums"] })
        }).collect::<Vec<_>>(),
    });
    serde_json::from_value::<MoveErrorReport>(library.clone()).unwrap();
    check(256, (forged_json(library.clone()), forged_json(library)), |(a, b)| {
        let reports: Vec<MoveErrorReport> = [a, b].into_iter().filter_map(|r| serde_json::from_value(r).ok()).collect();
        match MoveErrorReport::merge(&reports) {
            Ok(merged) => {
                merged.games();
            }
            Err(error) => clean(error)?,
        }
        Ok(())
    });
    // The command reads whole reports from files.
    let files = (forged_json(report.clone()), forged_json(report), any::<bool>());
    check(24, files, |(a, b, as_json)| {
        let (a_path, b_path) = (data.path().join("a.json"), data.path().join("b.json"));
        std::fs::write(&a_path, serde_json::to_vec(&a).unwrap()).unwrap();
        std::fs::write(&b_path, serde_json::to_vec(&b).unwrap()).unwrap();
        for files in [vec![&a_path], vec![&a_path, &b_path]] {
            let mut args = vec!["duel".to_owned(), "move-errors".to_owned(), "--merge".to_owned()];
            args.extend(files.iter().map(|p| p.display().to_string()));
            if as_json {
                args.insert(0, "--json".to_owned());
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            exits_cleanly(&args, &yz(data.path(), &args))?;
        }
        Ok(())
    });
}

/// Found by `forged_move_error_reports_merge_or_are_refused`: reports that measured no
/// strategy, a strategy at no depth, or strategies at different depths made the text report
/// index out of bounds, and a backward game range counted games around `u64`.
#[test]
fn move_error_reports_no_run_writes_are_refused() {
    let data = tempfile::tempdir().unwrap();
    let report = measured_report(data.path());
    /// A report's JSON forged in place.
    type Forge = fn(&mut Value);
    let forgeries: [(Forge, &str); 4] = [
        (|r| r["strategies"] = Value::Array(Vec::new()), "lists no strategies"),
        (|r| r["strategies"][0]["depths"] = Value::Array(Vec::new()), "at no depth"),
        (|r| drop(r["strategies"][1]["depths"].as_array_mut().unwrap().pop()), "at different depths"),
        (|r| r["game_ranges"] = serde_json::json!([{ "start": 5, "end": 2 }]), "ends before it starts"),
    ];
    for (forge, needle) in forgeries {
        let mut forged = report.clone();
        forge(&mut forged);
        let path = data.path().join("forged.json");
        std::fs::write(&path, serde_json::to_vec(&forged).unwrap()).unwrap();
        super::cli::fails_with(data.path(), &["duel", "move-errors", "--merge", path.to_str().unwrap()], needle);
    }
}
