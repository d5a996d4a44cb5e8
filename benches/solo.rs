//! Hot paths of the foundation: one turn of the kernel, the full solitaire solve, and a
//! table open plus advice. Each bench checks its known answer, so a fast wrong kernel
//! cannot pass unnoticed. `scripts/bench-solo` runs them and prints a table.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use yz::game::RollsLeft;
use yz::game::{Card, Game, Rules, parse_dice};
use yz::solo::{self, SoloTable};
use yz::store::DataTable;
use yz::turn::simd::{self, SimdWork};
use yz::turn::{TurnBuffer, kernel::edges_per_turn};

/// Lanes of the kernel bench: the solitaire solver's widest slot.
const LANES: usize = 64;

/// The kernel alone: the four lane phases of one turn on a 64-lane buffer.
struct KernelTurn<'a>(&'a mut TurnBuffer<f64>);

impl SimdWork for KernelTurn<'_> {
    type Output = f64;
    #[inline(always)]
    fn run(self) -> f64 {
        let mut out = [0.0; LANES];
        for _ in 0..2 {
            self.0.average_keeps();
            self.0.choose_keeps();
        }
        self.0.start_value(&mut out);
        out[LANES - 1]
    }
}

fn kernel(c: &mut Criterion) {
    let mut buffer = TurnBuffer::<f64>::new(LANES);
    let mut group = c.benchmark_group("kernel");
    group.throughput(Throughput::Elements((edges_per_turn() * LANES) as u64));
    group.bench_function("turn_64_lanes", |b| {
        b.iter(|| {
            buffer.score_rolls(&|roll: yz::game::RollId, out: &mut [f64]| out.fill(roll.0 as f64));
            let value = simd::dispatch(KernelTurn(&mut buffer));
            assert!(value > 100.0 && value < 251.0);
            black_box(value)
        })
    });
    group.finish();
}

fn full_solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("solo");
    group.sample_size(10);
    group.bench_function("solve_official", |b| {
        b.iter(|| {
            let solution = solo::solve(Game::full(Rules::OFFICIAL));
            assert!((solution.start_value() - 254.5896).abs() < 5e-5);
            black_box(solution.start_value())
        })
    });
    group.bench_function("solve_yatzy", |b| {
        b.iter(|| {
            let solution = solo::solve(Game::full(Rules::yatzy()));
            assert!((solution.start_value() - 248.4399894).abs() < 5e-8);
            black_box(solution.start_value())
        })
    });
    group.finish();
}

fn table(c: &mut Criterion) {
    let game = Game::full(Rules::OFFICIAL);
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join(SoloTable::file_name(game));
    SoloTable::write(&solo::solve(game), &path).expect("table written");
    let card = Card::parse("ones=3,fh=25,yahtzee=50", game).expect("card");
    let roll = parse_dice("2,2,5,5,6").expect("dice");
    let mut group = c.benchmark_group("table");
    group.bench_function("open_checked", |b| b.iter(|| black_box(SoloTable::open(&path, game).expect("open"))));
    let table = SoloTable::open(&path, game).expect("open");
    group.bench_function("advise_two_rerolls", |b| {
        b.iter(|| {
            let ranked = solo::advise(&table, game, &card, roll, RollsLeft::TWO).expect("advice");
            black_box(ranked[0].expected_final)
        })
    });
    group.finish();
}

criterion_group!(benches, kernel, full_solve, table);
criterion_main!(benches);
