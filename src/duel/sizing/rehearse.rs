//! A rank's rehearsal: the partition and layout structures one rank of a solve would build
//! at each layer, built for real but without computing a value, and measured; for a
//! solve that streams, its passes' blocks, done records, gathers and scratch files
//! ([`rehearse_streamed`]).
//!
//! It also writes the manifest the solve would write after each layer, with every real
//! shard of the layer listed (checksums and sizes stand-ins), into a directory of the
//! caller's, reads it back and checks it against the layer's shape: the index of a game
//! too large to solve here, written and read for real.
//!
//! This turns a plan's memory claim for a game too large to solve here (the full game at
//! 1,024 ranks, say) into a measurement on one ordinary machine: the structures are the
//! very ones the cluster solve builds ([`RankShares`], its tiles and exchange segments),
//! only the values are left out, and they are counted instead.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::duel::cluster::error::BelowFloor;
use crate::duel::cluster::partition::RankShares;
use crate::duel::cluster::ranks::{PIECE_BYTES, gather_piece_bytes};
use crate::duel::shard::{LayerEntry, Manifest, ShardEntry, ShardError};
use crate::duel::sweep::stream::{self, PassRehearsal};
use crate::duel::{LayerShape, Space, Tile};

/// What one rank holds at one layer of a solve, in bytes.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RankLayer {
    /// The layer.
    pub layer: usize,
    /// The per-card shapes of this layer and of the layer solved next.
    pub shape_bytes: u64,
    /// Who computes, keeps and writes what (a few numbers per rank and per shard).
    pub shares_bytes: u64,
    /// The tile of the pairs this rank computes (every mover against its opponents).
    pub computed_tile_bytes: u64,
    /// The tile of the rows it keeps of this layer (its movers against every opponent).
    pub kept_tile_bytes: u64,
    /// The tile of the rows it kept of the layer after, still held while computing.
    pub held_tile_bytes: u64,
    /// The exchange's per-row segment lengths.
    pub segment_bytes: u64,
    /// The list of outputs the solve of the computed tile hands its threads (one entry
    /// per pair: the pair and its slice of values).
    pub output_bytes: u64,
    /// All of the above.
    pub layout_bytes: u64,
    /// Positions it computes.
    pub computed_positions: u64,
    /// Positions of the rows it receives (kept, and of the shards it writes).
    pub received_positions: u64,
    /// Bytes of values it would hold at once, at `value_bytes` per value: the computed
    /// pairs with the larger of the next layer's rows and the rows received.
    pub value_bytes: u64,
    /// Shards the layer is cut into.
    pub shards: usize,
    /// Bytes of the manifest file once this layer is listed.
    pub manifest_bytes: u64,
    /// Bytes rank 0 gathers at the layer's end: every rank's written shards, as the solve
    /// sends them (JSON, with a few hundred bytes of timings a rank).
    pub gather_bytes: u64,
    /// Seconds the structures took to build (and the manifest to be written and read).
    pub seconds: f64,
}

/// Bytes a rank's report of its timings and sizes adds to a layer's gather (about half of
/// it in practice).
const GATHER_REPORT_BYTES: u64 = 512;

/// What a rank's rehearsal built and measured.
#[derive(Clone, Debug, Serialize)]
pub struct Rehearsal {
    /// Each layer, in solve order.
    pub layers: Vec<RankLayer>,
    /// Shards listed by the last manifest written (draws included).
    pub manifest_shards: usize,
    /// Bytes of the last manifest written: the table directory's index once every layer
    /// rehearsed is listed.
    pub manifest_bytes: u64,
    /// The most bytes one layer's end gathers on rank 0, in all.
    pub largest_gather_bytes: u64,
    /// The most bytes rank 0 receives in one round of a gather: at most the rank count times
    /// a round's piece ([`crate::duel::cluster::Ranks::gather`]).
    pub largest_gather_round_bytes: u64,
}

/// What a rank's rehearsal of a streamed solve built and measured: every pass, and the
/// figures a cluster's limits are held against.
#[derive(Clone, Debug, Serialize)]
pub struct StreamRehearsal {
    /// Each pass, from the game's end down.
    pub passes: Vec<PassRehearsal>,
    /// The most bytes rank 0 receives in one round of any gather: what one MPI call
    /// carries (under 2³¹ by construction, [`crate::duel::cluster::Ranks::gather`]).
    pub largest_gather_round_bytes: u64,
    /// The most bytes one pass's end gathers in all, over its rounds.
    pub largest_gather_bytes: u64,
    /// The most files the scratch directory holds at once, over every pass.
    pub most_scratch_files_in_one_directory: usize,
}

/// Rehearses rank `rank` of a streamed solve of `space` at `ranks` ranks of `budget` bytes
/// each, from the game's end down to `stop_after`, the layers `in_memory` solved in memory:
/// every streamed pass's blocks, done records and gathers built for real
/// ([`stream::rehearse_passes`]), without a value computed.
pub fn rehearse_streamed(
    space: &Space,
    (ranks, rank): (usize, usize),
    (stop_after, in_memory): (usize, &[usize]),
    (budget, value_bytes, draws): (u64, u64, bool),
    shard_positions: u64,
) -> Result<StreamRehearsal, BelowFloor> {
    assert!(rank < ranks, "rank {rank} of {ranks}");
    let gather_piece = gather_piece_bytes(PIECE_BYTES, ranks);
    let passes = stream::rehearse_passes(
        space,
        (ranks, rank),
        (stop_after.max(space.first_layer()), in_memory),
        (budget, value_bytes, draws),
        (shard_positions, gather_piece),
    )?;
    let most = |f: fn(&PassRehearsal) -> u64| passes.iter().map(f).max().unwrap_or(0);
    Ok(StreamRehearsal {
        largest_gather_round_bytes: most(|p| p.largest_gather_round_bytes),
        largest_gather_bytes: most(|p| p.gather_bytes),
        most_scratch_files_in_one_directory: most(|p| p.scratch_files as u64) as usize,
        passes,
    })
}

/// Builds rank `rank`'s structures for every layer of `space` from the last down to
/// `stop_after`, as a solve over `ranks` ranks writing every layer cut into shards of at
/// most `shard_positions` positions would, one layer at a time, and measures them; values
/// are counted at `value_bytes` bytes each, not computed. After each layer the manifest
/// listing every shard so far (and, with `draws`, the last layer's draw shards) is written
/// into `manifest_dir`, read back and checked.
pub fn rehearse(
    space: &Space,
    (ranks, rank): (usize, usize),
    stop_after: usize,
    (value_bytes, draws): (u64, bool),
    shard_positions: u64,
    manifest_dir: &Path,
) -> Result<Rehearsal, ShardError> {
    assert!(rank < ranks, "rank {rank} of {ranks}");
    let mut manifest = Manifest::new(space.cards().game(), space.first_layer(), space.end_layer(), shard_positions);
    let mut held: Option<(Tile, u64)> = None;
    let (mut next_shape, mut next_columns) = (None, None);
    let mut layers = Vec::new();
    for layer in (stop_after.max(space.first_layer())..space.end_layer()).rev() {
        let started = Instant::now();
        let shape = next_shape.take().unwrap_or_else(|| LayerShape::new(space, layer));
        let before = (layer > stop_after).then(|| LayerShape::new(space, layer - 1));
        let shares = RankShares::new(space, &shape, next_columns.take(), before.as_ref(), ranks, Some(shard_positions));
        let computed = shares.computed_tile(space, &shape, rank);
        let kept = shares.kept_tile(space, &shape, rank);
        let segments = if ranks > 1 { shares.received_segments(space, &shape, rank) } else { Vec::new() };
        let received = shape.rows(shares.received[rank].clone());
        let received_positions = received.end - received.start;
        let (held_tile_bytes, held_positions) = held.as_ref().map_or((0, 0), |(tile, values)| (tile.bytes(), *values));
        let mut report = RankLayer {
            layer,
            shape_bytes: shape.bytes() + before.as_ref().map_or(0, LayerShape::bytes),
            shares_bytes: shares.bytes(),
            computed_tile_bytes: computed.bytes(),
            kept_tile_bytes: kept.bytes(),
            held_tile_bytes,
            segment_bytes: std::mem::size_of_val(segments.as_slice()) as u64,
            output_bytes: (std::mem::size_of::<(usize, usize, &mut [f32])>()
                * computed.movers.len()
                * computed.opponents.len()) as u64,
            computed_positions: computed.positions(),
            received_positions,
            value_bytes: value_bytes * (computed.positions() + held_positions.max(received_positions)),
            shards: shares.shards.len(),
            ..RankLayer::default()
        };
        let entries = list_layer(&mut manifest, &shape, &shares, draws, manifest_dir)?;
        report.manifest_bytes = entries.0;
        report.gather_bytes = entries.1 + GATHER_REPORT_BYTES * ranks as u64;
        report.layout_bytes = report.shape_bytes
            + report.shares_bytes
            + report.computed_tile_bytes
            + report.kept_tile_bytes
            + report.held_tile_bytes
            + report.segment_bytes
            + report.output_bytes;
        report.seconds = started.elapsed().as_secs_f64();
        tracing::info!(layer, seconds = report.seconds, layout_bytes = report.layout_bytes, "rehearsed");
        layers.push(report);
        held = Some((kept, received_positions));
        next_columns = before.is_some().then(|| shares.rows.clone());
        next_shape = before;
    }
    let manifest_bytes = layers.last().map_or(0, |l| l.manifest_bytes);
    let manifest_shards = manifest.listed().len();
    let largest_gather_bytes = layers.iter().map(|l| l.gather_bytes).max().unwrap_or(0);
    let round = (gather_piece_bytes(PIECE_BYTES, ranks) * ranks) as u64;
    let largest_gather_round_bytes = largest_gather_bytes.min(round);
    Ok(Rehearsal { layers, manifest_shards, manifest_bytes, largest_gather_bytes, largest_gather_round_bytes })
}

/// Adds the layer of `shape`, cut as `shares` cuts it, to `manifest` as a solve would
/// (stand-in checksums, raw sizes; the draws moved to it with `draws`), writes the
/// manifest into `dir`, reads it back, checks that it is the same and that the layer
/// checks against its shape; returns the file's bytes, and those of the layer's shards
/// as the ranks send them to rank 0 (JSON).
fn list_layer(
    manifest: &mut Manifest,
    shape: &LayerShape,
    shares: &RankShares,
    draws: bool,
    dir: &Path,
) -> Result<(u64, u64), ShardError> {
    let entries: Vec<ShardEntry> = (shares.shards.iter().enumerate())
        .map(|(i, span)| crate::duel::sweep::stream::stand_in_entry(shape, i, span))
        .collect();
    if let Some(last) = manifest.layers.last_mut() {
        last.draws.clear();
    }
    let draws = if draws { entries.clone() } else { Vec::new() };
    let numbered = |list: &[ShardEntry]| list.iter().cloned().enumerate().collect::<Vec<_>>();
    let sent = serde_json::to_vec(&(numbered(&entries), numbered(&draws))).expect("serialises").len() as u64;
    manifest.layers.push(LayerEntry { layer: shape.layer, positions: shape.positions(), shards: entries, draws });
    manifest.complete = manifest.layers.len() == manifest.end_layer - manifest.first_layer;
    let (_, bytes) = manifest.write(dir)?;
    let read = Manifest::open_checked(dir, manifest.game())?;
    if read != *manifest {
        return Err(ShardError::Mismatch {
            path: dir.join(crate::duel::shard::MANIFEST_FILE),
            what: "the manifest read back differs from the one written".to_owned(),
        });
    }
    read.checked_layer(dir, shape)?;
    Ok((bytes, sent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::Cards;
    use crate::duel::shard::SHARD_POSITIONS;
    use crate::game::{Game, Rules};

    /// The rehearsal builds what the solve builds: the same tile bytes and values, rank by
    /// rank, as the thread-rank solve reports.
    #[test]
    fn the_rehearsal_measures_what_the_solve_holds() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(5).unwrap() });
        let space = Space::whole_game(&cards);
        let dir = tempfile::tempdir().unwrap();
        let solved = crate::duel::sweep::solve::tests::solve_on_threads::<f32>(&space, 3, dir.path());
        for rank in 0..3 {
            let manifests = tempfile::tempdir().unwrap();
            let rehearsed = rehearse(&space, (3, rank), 0, (4, false), SHARD_POSITIONS, manifests.path()).unwrap();
            assert_eq!(rehearsed.layers.len(), solved.layers.len());
            let written = Manifest::open(dir.path()).unwrap();
            assert_eq!(
                rehearsed.manifest_shards,
                written.listed().len(),
                "the rehearsed manifest lists the solve's shards"
            );
            for (r, s) in rehearsed.layers.iter().zip(&solved.layers) {
                assert_eq!(r.layer, s.layer);
                assert_eq!(
                    r.computed_tile_bytes + r.kept_tile_bytes + r.held_tile_bytes,
                    s.tile_bytes[rank],
                    "layer {}",
                    r.layer
                );
                assert_eq!(r.value_bytes, s.value_bytes[rank], "layer {}", r.layer);
            }
        }
    }
}
