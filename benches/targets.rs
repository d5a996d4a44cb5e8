//! Target tables once mapped: opening with every checksum, a query (one curve) and the
//! advisor (every successor's curve). Uses the full official table when
//! `$YZ_DATA/targets-official-1fff.yzt` exists (`scripts/bench-targets` makes one), else a
//! truncated game solved here. Each bench checks its known answer.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use yz::game::RollsLeft;
use yz::game::{Card, Category, Game, Rules, parse_dice};
use yz::solo::Choice;
use yz::store::DataTable;
use yz::targets::{TargetTable, advise};

/// A position to query and advise, and what the answers must be.
struct Case {
    game: Game,
    path: PathBuf,
    card: &'static str,
    dice: &'static str,
    target: i64,
    /// P(final ≥ target) from the start of the turn.
    probability: f32,
    /// The best keep with two rerolls left.
    best_keep: &'static str,
    /// Keeps the temporary directory of a table solved here.
    _dir: Option<tempfile::TempDir>,
}

fn case() -> Case {
    let full = Game::full(Rules::OFFICIAL);
    let data = std::env::var_os("YZ_DATA").map(PathBuf::from).map(|d| d.join(TargetTable::file_name(full)));
    if let Some(path) = data.filter(|p| p.exists()) {
        eprintln!("benchmarking the full table {}", path.display());
        return Case {
            game: full,
            path,
            card: "ones=3,fh=25,yahtzee=50",
            dice: "2,2,5,5,6",
            target: 250,
            probability: f32::from_bits(FULL_PROBABILITY_BITS),
            best_keep: "5,5",
            _dir: None,
        };
    }
    let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(6).unwrap().with(Category::Yahtzee) };
    eprintln!("no full table in $YZ_DATA; benchmarking {}", game.box_names().join(","));
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join(TargetTable::file_name(game));
    let curves = yz::targets::solve::<f32>(game);
    TargetTable::write(&curves, &path).expect("table written");
    let card = Card::parse("ones=3,yahtzee=50", game).expect("card");
    let probability = curves.curve(card.state()).at(120 - card.points() as i64);
    Case {
        game,
        path,
        card: "ones=3,yahtzee=50",
        dice: "2,2,5,5,6",
        target: 120,
        probability,
        best_keep: "5,5",
        _dir: Some(dir),
    }
}

/// P(final ≥ 250) from the turn start with ones=3,fh=25,yahtzee=50, official rules.
const FULL_PROBABILITY_BITS: u32 = 0x3f55_2413;

fn targets(c: &mut Criterion) {
    let case = case();
    let game = case.game;
    let card = Card::parse(case.card, game).expect("card");
    let roll = parse_dice(case.dice).expect("dice");
    let mut group = c.benchmark_group("targets");
    group.sample_size(20);
    group.bench_function("open_checked", |b| b.iter(|| black_box(TargetTable::open(&case.path, game).expect("open"))));
    let table = TargetTable::open(&case.path, game).expect("open");
    group.sample_size(100);
    group.bench_function("query", |b| {
        b.iter(|| {
            let p = advise::probability(&table, game, &card, case.target).expect("query");
            assert_eq!(p, case.probability);
            black_box(p)
        })
    });
    group.bench_function("advise_two_rerolls", |b| {
        b.iter(|| {
            let ranked = advise::advise(&table, game, &card, roll, RollsLeft::TWO, case.target).expect("advice");
            let Choice::Keep(best) = ranked[0].choice else { panic!("a keep was expected") };
            assert_eq!(best.to_string(), case.best_keep);
            black_box(ranked[0].probability)
        })
    });
    group.bench_function("advise_box", |b| {
        b.iter(|| {
            let ranked = advise::advise(&table, game, &card, roll, RollsLeft::NONE, case.target).expect("advice");
            black_box(ranked[0].probability)
        })
    });
    group.finish();
}

criterion_group!(benches, targets);
criterion_main!(benches);
