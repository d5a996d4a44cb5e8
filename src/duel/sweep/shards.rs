//! A rank's rows of a finished layer: read back from the layer's shards, written as
//! shards by a background thread while the next layer is computed, and listed in the
//! manifest by rank 0 once every rank's shards of the layer are in place.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::outcome::{LayerReport, Outcome};
use crate::duel::cluster::error::ClusterError;
use crate::duel::cluster::exchange::gather_then_decide;
use crate::duel::cluster::partition::row_bounds;
use crate::duel::cluster::ranks::Ranks;
use crate::duel::shard::{self, Column, LayerEntry, Manifest, ShardEntry, ShardError, ShardSpan};
use crate::duel::solve::LayerRows;
use crate::duel::{DuelValue, LayerShape, Space, Tile};
use crate::store::{self, Durability};

/// A finished layer's rows that this rank holds: those it keeps for the layer before (with
/// their tile, for reading pairs) and those of the shards it writes.
pub(super) struct Held<V> {
    pub(super) shape: Arc<LayerShape>,
    /// The rows kept, with every opponent.
    pub(super) kept: Tile,
    /// The first row held.
    pub(super) first_mover: usize,
    /// The values of the rows held, from `first_mover` on, in layer order.
    pub(super) values: Vec<V>,
}

impl<V> Held<V> {
    pub(super) fn rows(&self) -> LayerRows<'_, V> {
        let before = self.shape.rows(self.first_mover..self.kept.movers.start);
        let start = (before.end - before.start) as usize;
        LayerRows { tile: &self.kept, values: &self.values[start..start + self.kept.positions() as usize] }
    }

    /// The values of the layer's positions `span`, which must be held.
    pub(super) fn span_values(&self, span: &Range<u64>) -> &[V] {
        let base = self.shape.rows(0..self.first_mover).end;
        &self.values[(span.start - base) as usize..(span.end - base) as usize]
    }
}

/// Reads the rows of the written layer `entry` (of shape `shape`) that this rank (`me` of
/// `size`) keeps for computing the layer before (of shape `before`; none if that layer is
/// not solved).
pub(super) fn read_held<V: DuelValue>(
    space: &Space,
    dir: &Path,
    entry: &LayerEntry,
    shape: Arc<LayerShape>,
    before: Option<&LayerShape>,
    size: usize,
    me: usize,
) -> Result<Held<V>, ShardError> {
    let rows = row_bounds(space, &shape, before, size);
    let mine = rows[me]..rows[me + 1];
    let values = read_rows(dir, space, &shape, entry, mine.clone())?;
    let kept = Tile::new(space, &shape, mine.clone(), 0..shape.opponents.len());
    Ok(Held { shape, kept, first_mover: mine.start, values })
}

/// Reads the rows `movers` of a written layer from its shards (each checked on reading),
/// with their draw probabilities where the lanes carry them and the layer lists them.
pub(super) fn read_rows<V: DuelValue>(
    dir: &Path,
    space: &Space,
    shape: &LayerShape,
    entry: &LayerEntry,
    movers: Range<usize>,
) -> Result<Vec<V>, ShardError> {
    let values = read_column(dir, space, shape, entry, Column::Value, movers.clone())?;
    if V::DRAWS && !entry.draws.is_empty() {
        let draws = read_column(dir, space, shape, entry, Column::Draw, movers.clone())?;
        if let Some(at) = values.iter().zip(&draws).position(|(&v, &d)| !shard::draw_fits(v, d)) {
            // The shard holding it: the first whose positions reach past it.
            let position = shape.rows(movers).start + at as u64;
            let index = (entry.draws.iter().map(|d| d.span(shape).map_or(0, |span| span.end)))
                .position(|end| end > position)
                .unwrap_or(0);
            return Err(ShardError::Mismatch {
                path: dir.join(shard::shard_file(shape.layer, index, Column::Draw)),
                what: format!(
                    "P(draw) {} of position {position} cannot go with its value {} \
                     (0 <= P(draw) <= 2 min(value, 1 - value)); {}",
                    draws[at],
                    values[at],
                    shard::draw_remedy(dir)
                ),
            });
        }
        return Ok(values.into_iter().zip(draws).map(|(v, d)| V::from_stored(v, Some(d))).collect());
    }
    Ok(values.into_iter().map(|v| V::from_stored(v, None)).collect())
}

/// Reads `column` of the rows `movers` of a written layer from its shards.
pub(super) fn read_column(
    dir: &Path,
    space: &Space,
    shape: &LayerShape,
    entry: &LayerEntry,
    column: Column,
    movers: Range<usize>,
) -> Result<Vec<f32>, ShardError> {
    let span = shape.rows(movers.clone());
    let mut values = Vec::with_capacity((span.end - span.start) as usize);
    for (i, shard) in entry.column(column).iter().enumerate() {
        let held = shard.span(shape).map_err(|what| ShardError::Mismatch {
            path: dir.join(shard::MANIFEST_FILE),
            what: format!("layer {} lists {what}", shape.layer),
        })?;
        let (start, end) = (held.start.max(span.start), held.end.min(span.end));
        if start >= end {
            continue;
        }
        let stored = shard::read_shard(dir, space.cards().game(), shape, (i, shard), column)?;
        values.extend_from_slice(&stored[(start - held.start) as usize..(end - held.start) as usize]);
    }
    if values.len() as u64 != span.end - span.start {
        return Err(ShardError::Mismatch {
            path: dir.join(shard::MANIFEST_FILE),
            what: format!("layer {}'s {column:?} shards do not cover movers {movers:?}", shape.layer),
        });
    }
    Ok(values)
}

/// What each rank tells rank 0 about a layer once its shards are written.
#[derive(Serialize, Deserialize)]
pub(super) struct Written {
    pub(super) shards: Vec<(usize, ShardEntry)>,
    /// The draw shards written beside them, if the values carry draws.
    pub(super) draws: Vec<(usize, ShardEntry)>,
    pub(super) tile_bytes: u64,
    pub(super) card_bytes: u64,
    pub(super) value_bytes: u64,
    pub(super) compute_seconds: f64,
    pub(super) exchange_seconds: f64,
    pub(super) raw_bytes: u64,
    pub(super) bytes: u64,
}

/// A shard the background writer wrote: its index, its entry and that of its draws.
pub(super) type WrittenShard = (usize, ShardEntry, Option<ShardEntry>);

/// Shards to write in the background: the held rows and (shard index, movers) to write.
pub(super) type WriteJob<V> = (Arc<Held<V>>, Vec<(usize, ShardSpan)>);

/// A layer solved and exchanged whose shards may still be being written.
pub(super) struct Pending {
    pub(super) layer: usize,
    pub(super) positions: u64,
    pub(super) written: Written,
    /// Whether its shards are written (else it is only reported).
    pub(super) writes: bool,
    /// How many shards the layer has (all ranks' together).
    pub(super) shards: usize,
}

/// Collects the shards a layer's writer wrote, and on rank 0 adds the layer to the
/// manifest (written atomically) once every rank's shards of it are in place; a layer not
/// written is only reported.
pub(super) fn record<V>(
    ranks: &impl Ranks,
    dir: &Path,
    manifest: &mut Manifest,
    Pending { layer, positions, mut written, writes, shards: expected_shards }: Pending,
    done: &Receiver<Result<Vec<WrittenShard>, ShardError>>,
    outcome: &mut Outcome<V>,
    progress: &mut impl FnMut(&LayerReport),
) -> Result<(), ClusterError> {
    // A rank whose writer failed still takes part in the gather, so that every rank stops
    // together, each with its own error (the others with the failed rank's message).
    let mut wrote = || -> Result<(), ClusterError> {
        if writes {
            let shards: Vec<WrittenShard> = done.recv().map_err(|_| ClusterError::WriterStopped)??;
            for (i, values, draws) in shards {
                written.shards.push((i, values));
                written.draws.extend(draws.map(|d| (i, d)));
            }
        }
        Ok(())
    };
    let local = wrote();
    let mine = local.as_ref().map(|()| &written).map_err(ToString::to_string);
    let decide = |all: Vec<Vec<u8>>| -> Result<LayerReport, ClusterError> {
        let mut report = LayerReport { layer, positions, written: writes, ..LayerReport::default() };
        let (mut shards, mut draws) = (Vec::new(), Vec::new());
        for (rank, bytes) in all.iter().enumerate() {
            let theirs: Result<Written, String> = serde_json::from_slice(bytes)
                .map_err(|source| ClusterError::Record { what: "written shards", source })?;
            let theirs = theirs.map_err(|reason| ClusterError::RankStopped { rank, reason })?;
            shards.extend(theirs.shards);
            draws.extend(theirs.draws);
            report.compute_seconds.push(theirs.compute_seconds);
            report.exchange_seconds.push(theirs.exchange_seconds);
            report.tile_bytes.push(theirs.tile_bytes);
            report.card_bytes.push(theirs.card_bytes);
            report.value_bytes.push(theirs.value_bytes);
            report.exchanged_raw_bytes += theirs.raw_bytes;
            report.exchanged_bytes += theirs.bytes;
        }
        report.seconds = report.compute_seconds[0] + report.exchange_seconds[0];
        if writes {
            manifest.list(dir, LayerEntry::from_written(layer, positions, shards, draws, expected_shards)?)?;
        }
        Ok(report)
    };
    let mine = serde_json::to_vec(&mine).expect("written shards serialise");
    // Only rank 0 reports the layer: the others hear that it is listed, not the report.
    let listed = gather_then_decide(ranks, mine, decide, |_| Vec::new(), |_| Ok(LayerReport::default()));
    local?;
    let report = listed?;
    if ranks.rank() != 0 {
        return Ok(());
    }
    tracing::info!(
        layer,
        positions,
        written = writes,
        compute_seconds = ?report.compute_seconds,
        exchanged_raw_bytes = report.exchanged_raw_bytes,
        exchanged_bytes = report.exchanged_bytes,
        "layer finished"
    );
    progress(&report);
    outcome.layers.push(report);
    Ok(())
}

/// The background writer: compresses and writes each job's shards (and their draws, where
/// the values carry them) while the next layer is computed, makes them durable together
/// (one flush per layer, not two per file), and reports their manifest entries.
pub(super) fn write_shards<V: DuelValue>(
    dir: &Path,
    game: crate::game::Game,
    jobs: Receiver<WriteJob<V>>,
    done: Sender<Result<Vec<WrittenShard>, ShardError>>,
) {
    for (held, shards) in jobs {
        let result = shards
            .into_par_iter()
            .map(|(i, span)| {
                let values = held.span_values(&span.positions);
                let write = |column| {
                    shard::write_shard(dir, game, &held.shape, (i, &span), values, (column, Durability::Batched))
                };
                let draws = if V::DRAWS { Some(write(Column::Draw)?) } else { None };
                Ok((i, write(Column::Value)?, draws))
            })
            .collect::<Result<Vec<WrittenShard>, ShardError>>()
            .and_then(|written| {
                let files: Vec<_> = written
                    .iter()
                    .flat_map(|&(i, _, ref draws)| {
                        let draw = draws.as_ref().map(|_| shard::shard_file(held.shape.layer, i, Column::Draw));
                        [Some(shard::shard_file(held.shape.layer, i, Column::Value)), draw]
                    })
                    .flatten()
                    .map(|file| dir.join(file))
                    .collect();
                store::sync_batch(dir, &files)?;
                Ok(written)
            });
        if done.send(result).is_err() {
            return;
        }
    }
}
