//! What a layer costs outside the kernel, measured on this machine on real values: the
//! exchange's codec, shard writing and shard checking, each through the solve's own code
//! ([`crate::duel::sweep::solve`]'s parts, [`shard::write_shard`], [`shard::verify_listed`]).
//!
//! The values are the last layers of the planned game itself (its endgame with at least
//! [`SAMPLE_POSITIONS`] positions, solved in memory with the lanes the solve runs), made
//! to look like the middle of the game ([`mid_game_stand_in`]): in late layers neighbouring
//! values repeat each other, and they compress about twice; the wide mid-game layers
//! compress 1.1 to 1.25 times, and zstd is slower per byte on them. Shuffled, the sample's
//! values compress about 1.1 to 1.2 times (reported as the sample's ratios), as the middle
//! of the game's do, and the codec is timed on those; the plan counts bytes with its own
//! ratio ([`crate::duel::sizing::plan::EXCHANGE_COMPRESSION`]). Each part is timed on one thread, wall clock (writing includes
//! waiting for the disk), and the median of [`REPEATS`] passes is kept.

use std::path::Path;
use std::time::Instant;

use bytemuck::Pod;

use super::count::count_layers;
use super::plan::ByteCosts;
use crate::duel::cluster::exchange::{pack_part, unpack_part};
use crate::duel::shard::{self, Column, Listed, SHARD_POSITIONS, ShardError};
use crate::duel::solve::LayerValues;
use crate::duel::{Cards, DuelValue, Space};
use crate::store::{self, Durability};

/// Positions the sample holds at least (the whole game where it has fewer).
pub const SAMPLE_POSITIONS: u64 = 1_000_000;
/// Bytes of one exchanged part in the measurement: about what two ranks exchange per
/// layer and pair of ranks at 1,024 ranks.
const PART_BYTES: usize = 2 << 20;
/// Passes over the sample per part measured.
pub const REPEATS: usize = 3;

/// Measures [`ByteCosts`] for a solve of `cards` with lanes `V`, writing its sample's
/// shards into `scratch` (an empty directory).
pub fn measure<V: DuelValue + Pod>(cards: &Cards, scratch: &Path) -> Result<ByteCosts, ShardError> {
    let most = 2 * cards.boxes();
    let positions = |k: usize| count_layers(&Space::endgame(cards, k)).iter().map(|l| l.positions).sum::<u64>();
    let open = (1..=most).find(|&k| positions(k) >= SAMPLE_POSITIONS).unwrap_or(most);
    let space = Space::endgame(cards, open);
    let mut layers: Vec<LayerValues<V>> = Vec::new();
    crate::duel::sweep::solve_layers::<V>(&space, space.first_layer(), |layer| {
        layers.push(layer.clone());
        Ok(())
    })
    .expect("a solve in memory, alone and writing nothing");
    let layers = mid_game_stand_in(layers);
    let sample_bytes: u64 = layers.iter().map(|l| std::mem::size_of_val(l.values.as_slice()) as u64).sum();
    let stored_bytes: u64 = layers.iter().map(|l| 4 * l.values.len() as u64).sum();

    let mut sent = 0;
    // One receiving buffer, as the exchange places parts into the rows it already holds.
    let mut placed: Vec<V> = Vec::with_capacity(PART_BYTES / std::mem::size_of::<V>());
    let exchange = median_seconds(|| {
        sent = 0;
        for layer in &layers {
            let raw: &[u8] = bytemuck::cast_slice(&layer.values);
            for part in raw.chunks(PART_BYTES) {
                let packed = pack_part(part).expect("compressing values in memory");
                sent += packed.len() as u64;
                placed.clear();
                unpack_part::<V>(&packed, part.len(), |piece| placed.extend_from_slice(piece))
                    .expect("a part just packed unpacks");
                std::hint::black_box(&placed);
            }
        }
    });

    let game = cards.game();
    let mut listed = Vec::new();
    let mut stored = 0;
    let mut written: Result<(), ShardError> = Ok(());
    let write = median_seconds(|| {
        listed.clear();
        stored = 0;
        for layer in &layers {
            for (i, span) in shard::shard_ranges(&layer.shape, SHARD_POSITIONS).iter().enumerate() {
                let values = &layer.values[span.positions.start as usize..span.positions.end as usize];
                let batched = (Column::Value, Durability::Batched);
                match shard::write_shard(scratch, game, &layer.shape, (i, span), values, batched) {
                    Ok(entry) => {
                        stored += entry.bytes;
                        listed.push((layer.shape.layer, i, entry, layer.shape.opponents.len()));
                    }
                    Err(e) => written = Err(e),
                }
            }
            // As the solve's writer does: the layer's shards made durable together.
            let files: Vec<_> = (0..shard::shard_ranges(&layer.shape, SHARD_POSITIONS).len())
                .map(|i| scratch.join(shard::shard_file(layer.shape.layer, i, Column::Value)))
                .collect();
            if let Err(e) = store::sync_batch(scratch, &files) {
                written = Err(e.into());
            }
        }
    });
    written?;
    let mut problems = Vec::new();
    let check = median_seconds(|| {
        problems.clear();
        for (layer, index, entry, opponents) in &listed {
            let shard = Listed { layer: *layer, column: Column::Value, index: *index, entry, values: None };
            let check = shard::verify_listed(scratch, game, &shard, *opponents);
            problems.extend(check.problem.map(|p| format!("{}: {p}", check.path.display())));
        }
    });
    if !problems.is_empty() {
        return Err(ShardError::Unsound { dir: scratch.to_owned(), problems, remedy: None });
    }
    let (first, last) = (space.first_layer(), space.end_layer() - 1);
    Ok(ByteCosts {
        sample: format!(
            "layers {first} to {last} of this game, shuffled ({} positions, solved here)",
            layers.iter().map(|l| l.values.len()).sum::<usize>()
        ),
        sample_bytes,
        exchange_ratio: sample_bytes as f64 / sent.max(1) as f64,
        exchange_seconds_per_byte: exchange / sample_bytes as f64,
        shard_ratio: stored_bytes as f64 / stored.max(1) as f64,
        write_seconds_per_byte: write / stored_bytes as f64,
        check_seconds_per_byte: check / stored_bytes as f64,
    })
}

/// `layers` with their values shuffled across all the layers (a seeded random
/// permutation): the game's own values, without the order in which late layers' neighbours
/// repeat each other.
pub fn mid_game_stand_in<V: DuelValue>(mut layers: Vec<LayerValues<V>>) -> Vec<LayerValues<V>> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let mut all: Vec<V> = layers.iter().flat_map(|l| l.values.iter().copied()).collect();
    all.shuffle(&mut rand::rngs::ChaCha8Rng::seed_from_u64(1));
    let mut source = all.into_iter();
    for layer in &mut layers {
        layer.values.iter_mut().zip(&mut source).for_each(|(value, shuffled)| *value = shuffled);
    }
    layers
}

/// The median wall time of [`REPEATS`] runs of `work`.
fn median_seconds(mut work: impl FnMut()) -> f64 {
    let mut seconds: Vec<f64> = (0..REPEATS)
        .map(|_| {
            let started = Instant::now();
            work();
            started.elapsed().as_secs_f64()
        })
        .collect();
    seconds.sort_by(f64::total_cmp);
    seconds[REPEATS / 2]
}

/// Bytes the bandwidth measurement writes.
pub const BANDWIDTH_BYTES: usize = 64 << 20;

/// The disk bandwidth of the file system holding `dir`, in bytes per second: the median
/// over [`REPEATS`] writes of [`BANDWIDTH_BYTES`] of incompressible bytes to a fresh file
/// made durable (fsync), as scratch frames and shards are. Reads are taken to run at least
/// as fast. The file is removed.
pub fn disk_bandwidth(dir: &Path) -> std::io::Result<f64> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    // Incompressible: a file system that compresses must not flatter the figure.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let chunk: Vec<u8> = (0..4 << 20)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let path = dir.join(format!(".yz-bandwidth-{}", std::process::id()));
    let mut failed = Ok(());
    let seconds = median_seconds(|| {
        let written = (|| -> std::io::Result<()> {
            let mut file = std::fs::File::create(&path)?;
            for _ in 0..BANDWIDTH_BYTES / chunk.len() {
                file.write_all(&chunk)?;
            }
            file.sync_all()
        })();
        if let Err(e) = written {
            failed = Err(e);
        }
    });
    let removed = std::fs::remove_file(&path);
    failed?;
    removed?;
    Ok(BANDWIDTH_BYTES as f64 / seconds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, Rules};

    /// The stand-in keeps every layer's shape and the sample's values (shuffled), and it
    /// compresses less than the late layers it is made of, as the middle of the game does.
    #[test]
    fn the_mid_game_stand_in_shuffles_the_samples_values() {
        let cards = Cards::new(Game::first(Rules::OFFICIAL, 4).unwrap());
        let space = Space::endgame(&cards, 8);
        let mut layers: Vec<LayerValues<f32>> = Vec::new();
        crate::duel::sweep::solve_layers::<f32>(&space, space.first_layer(), |layer| {
            layers.push(layer.clone());
            Ok(())
        })
        .unwrap();
        let sorted = |layers: &[LayerValues<f32>]| {
            let mut all: Vec<f32> = layers.iter().flat_map(|l| l.values.iter().copied()).collect();
            all.sort_by(f32::total_cmp);
            all
        };
        let packed = |layers: &[LayerValues<f32>]| -> usize {
            (layers.iter().flat_map(|l| bytemuck::cast_slice::<f32, u8>(&l.values).chunks(PART_BYTES)))
                .map(|part| pack_part(part).unwrap().len())
                .sum()
        };
        let stand_in = mid_game_stand_in(layers.clone());
        assert_eq!(sorted(&stand_in), sorted(&layers));
        for (shuffled, layer) in stand_in.iter().zip(&layers) {
            assert_eq!(shuffled.values.len(), layer.values.len());
            assert_eq!(shuffled.shape.layer, layer.shape.layer);
        }
        assert_ne!(
            stand_in.iter().map(|l| &l.values).collect::<Vec<_>>(),
            layers.iter().map(|l| &l.values).collect::<Vec<_>>()
        );
        assert!(packed(&stand_in) > packed(&layers), "shuffled values compress less than the late layers' own order");
    }
}
