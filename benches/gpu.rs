//! The GPU turn kernel beside the CPU's on real pairs (feature `gpu`): a sample from the
//! middle of the first layer of the full game's `--max-empty 4` (layer 22, windows of
//! hundreds of lanes), reading the real layer 23 solved on the CPU first. The CPU:
//! `solve_tile` on every core and on one. The GPU, where one opens: the whole tile (the
//! host's preparation, copies and the kernel), then the kernel alone for a whole turn and
//! for each phase alone (score: each roll's best box from the next layer; rerolls: average
//! and choose, twice; start: the value written out; none: a launch that does nothing).
//! The GPU's values are checked against the CPU's bit for bit before anything is timed.
//! `scripts/bench-gpu` runs it; YZ_GPU_BENCH_POSITIONS sizes the sample (default 2e6).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use yz::duel::gpu::{Gpu, Phases};
use yz::duel::solve::solve_tile;
use yz::duel::sweep::solve_layers;
use yz::duel::{Cards, LayerShape, Space, Tile};
use yz::game::{Game, Rules};

fn kernel(c: &mut Criterion) {
    let cards = Cards::new(Game::full(Rules::OFFICIAL));
    let space = Space::endgame(&cards, 4);
    let first = space.first_layer();
    let next = solve_layers::<f32>(&space, first + 1, |_| Ok(())).unwrap();
    let rows = next.rows();
    let shape = LayerShape::new(&space, first);
    let wanted: u64 = std::env::var("YZ_GPU_BENCH_POSITIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000_000);
    let nm = shape.movers.len();
    let take = ((wanted / shape.positions().div_ceil(nm as u64).max(1)) as usize).clamp(1, nm);
    let tile = Tile::new(&space, &shape, (nm - take) / 2..(nm - take) / 2 + take, 0..shape.opponents.len());
    let expected = solve_tile(&space, &shape, Some(&rows), &tile);

    let mut group = c.benchmark_group("gpu");
    group.sample_size(10).throughput(Throughput::Elements(tile.positions()));
    group.bench_function("cpu_all_cores", |b| b.iter(|| black_box(solve_tile(&space, &shape, Some(&rows), &tile))));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    group.bench_function("cpu_one_core", |b| {
        b.iter(|| one.install(|| black_box(solve_tile(&space, &shape, Some(&rows), &tile))))
    });
    let gpu = match Gpu::open(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("gpu bench: {e}; the CPU alone");
            return;
        }
    };
    let device_rows = gpu.upload_rows(Some(&rows)).unwrap();
    let got = gpu.solve_tile_from(&space, &shape, Some(&rows), &device_rows, &tile).unwrap();
    assert!(got.len() == expected.len() && got.iter().zip(&expected).all(|(a, b)| a.to_bits() == b.to_bits()));
    group.bench_function("gpu_tile", |b| {
        b.iter(|| black_box(gpu.solve_tile_from(&space, &shape, Some(&rows), &device_rows, &tile).unwrap()))
    });
    for (name, phases) in [
        ("gpu_kernel_turn", Phases::TURN),
        ("gpu_kernel_score", Phases::SCORE),
        ("gpu_kernel_rerolls", Phases::REROLLS),
        ("gpu_kernel_start", Phases::START),
        ("gpu_kernel_none", Phases(0)),
    ] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let before = gpu.kernel_seconds();
                for _ in 0..iters {
                    black_box(gpu.run_phases(&space, &shape, Some(&rows), &device_rows, &tile, phases).unwrap());
                }
                Duration::from_secs_f64(gpu.kernel_seconds() - before)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, kernel);
criterion_main!(benches);
