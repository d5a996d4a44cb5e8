//! Hot paths of the two-player solve: a whole small game, and one layer of real full-game
//! endgame positions (the layer `yz duel plan` calibrates on). Each bench checks a known
//! answer. `scripts/bench-duel` runs them and prints a table.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use yz::duel::count::count_layers;
use yz::duel::solve::solve_layer;
use yz::duel::{Cards, Space, WinDraw, solve};
use yz::game::{Category, CategorySet, Game, Rules};

fn whole_games(c: &mut Criterion) {
    let mut group = c.benchmark_group("duel");
    group.sample_size(10);
    // Yahtzee alone: value ½, P(first player wins) = q(1 − q).
    let yahtzee = Cards::new(Game { rules: Rules::Official, categories: CategorySet::EMPTY.with(Category::Yahtzee) });
    let q = 2_783_176.0 / 6f64.powi(10);
    group.bench_function("yahtzee_alone", |b| {
        b.iter(|| {
            let start = solve::<WinDraw<f64>, ()>(&Space::whole_game(&yahtzee), 0, |_| Ok(())).unwrap().values[0];
            assert!((start.win() - q * (1.0 - q)).abs() < 1e-12);
            black_box(start)
        })
    });
    let five = Cards::new(Game { rules: Rules::Official, categories: CategorySet::first(5) });
    let space = Space::whole_game(&five);
    let positions: u64 = count_layers(&space).iter().map(|l| l.positions).sum();
    group.throughput(Throughput::Elements(positions));
    group.bench_function("first_5_from_start", |b| {
        b.iter(|| {
            let start = solve::<WinDraw<f32>, ()>(&space, 0, |_| Ok(())).unwrap().values[0];
            assert!((start.win() + start.draw() + start.loss() - 1.0).abs() < 1e-5 && start.value < 0.5);
            black_box(start)
        })
    });
    group.finish();
}

fn endgame_layer(c: &mut Criterion) {
    let cards = Cards::new(Game::full(Rules::Official));
    let space = Space::endgame(&cards, 2);
    let last = solve_layer::<f32>(&space, 25, None);
    let counts = count_layers(&space);
    let layer_24 = counts.iter().find(|l| l.layer == 24).unwrap();
    let mut group = c.benchmark_group("duel");
    group.sample_size(10);
    group.throughput(Throughput::Elements(layer_24.positions));
    group.bench_function("full_game_layer_24", |b| {
        b.iter(|| {
            let layer = solve_layer::<f32>(&space, 24, Some(&last));
            assert_eq!(layer.values.len() as u64, layer_24.positions);
            assert!(layer.values.iter().all(|v| (0.0..=1.0).contains(v)));
            black_box(layer.values[0])
        })
    });
    group.finish();
}

criterion_group!(benches, whole_games, endgame_layer);
criterion_main!(benches);
