//! The layered solve over ranks: compute a share of each layer, exchange, write, resume.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use bytemuck::Pod;
use crossbeam_channel::{Receiver, Sender, bounded};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::partition::{compute_bounds, received_rows, row_bounds, row_positions, segment, shard_owners};
use super::ranks::Ranks;
use crate::duel::shard::{
    self, LayerEntry, Manifest, ShardEntry, ShardError, check_manifest, shard_ranges, verify_listed,
};
use crate::duel::solve::{LayerRows, solve_columns};
use crate::duel::{DuelValue, LayerShape, Space};

/// zstd level of the exchanged frontier (speed matters more than the last percent).
const EXCHANGE_ZSTD_LEVEL: i32 = 1;

/// Why a distributed solve stopped.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// A table file could not be written or read, or does not verify.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The ranks could not exchange what they must.
    #[error("exchange between ranks failed: {0}")]
    Exchange(String),
    /// `--resume` found tables it cannot continue.
    #[error("cannot resume in {dir}: {reason}")]
    Resume {
        /// The table directory.
        dir: String,
        /// Why not.
        reason: String,
    },
    /// Rank 0 stopped the solve (its own error says why).
    #[error("rank 0 stopped the solve; its message says why")]
    StoppedByRankZero,
}

/// One finished layer: its shards are written and listed in the manifest.
#[derive(Clone, Debug, Serialize)]
pub struct LayerReport {
    /// The layer.
    pub layer: usize,
    /// Positions in the layer.
    pub positions: u64,
    /// Seconds from the start of the layer's computation to the end of its exchange.
    pub seconds: f64,
    /// Seconds of computation, per rank.
    pub compute_seconds: Vec<f64>,
    /// Seconds of the exchange (compression, transfer, assembly), per rank.
    pub exchange_seconds: Vec<f64>,
    /// Bytes of values sent between ranks after the layer, before compression.
    pub exchanged_raw_bytes: u64,
    /// The same, as sent (zstd).
    pub exchanged_bytes: u64,
}

/// What a solve returns.
#[derive(Clone, Debug)]
pub struct Outcome<V> {
    /// The layer the solve continued from (its values read from the tables), if resumed.
    pub resumed_from: Option<usize>,
    /// The layers solved now, in solve order (rank 0 only).
    pub layers: Vec<LayerReport>,
    /// Bytes of every shard the manifest lists (rank 0 only).
    pub table_bytes: u64,
    /// The value of the first position of the space's first layer (the start of the game
    /// when the space starts at layer 0), on the rank that holds it.
    pub first_value: Option<V>,
}

/// A finished layer's rows that this rank holds: those it reads for the layer before and
/// those of the shards it writes.
struct Held<V> {
    shape: Arc<LayerShape>,
    first_mover: usize,
    values: Vec<V>,
}

impl<V> Held<V> {
    fn rows(&self) -> LayerRows<'_, V> {
        LayerRows { shape: &self.shape, first_mover: self.first_mover, values: &self.values }
    }
}

/// What each rank tells rank 0 about a layer once its shards are written.
#[derive(Serialize, Deserialize)]
struct Written {
    shards: Vec<(usize, ShardEntry)>,
    compute_seconds: f64,
    exchange_seconds: f64,
    raw_bytes: u64,
    bytes: u64,
}

/// Shards to write in the background: the held rows and (shard index, movers) to write.
type WriteJob<V> = (Arc<Held<V>>, Vec<(usize, Range<usize>)>);

/// Solves the layers of `space` from the last one down to its first over `ranks`, writing
/// them as shards and a manifest into `dir`; with `resume`, continues from the last layer
/// the manifest there lists (after checking every listed shard). `progress` sees each
/// layer on rank 0 once it is written. Every rank must call it with the same arguments.
pub fn solve_tables<V: DuelValue + Pod>(
    space: &Space,
    ranks: &impl Ranks,
    dir: &Path,
    resume: bool,
    mut progress: impl FnMut(&LayerReport),
) -> Result<Outcome<V>, ClusterError> {
    let (me, size) = (ranks.rank(), ranks.size());
    let game = space.cards().game();
    let first = space.first_layer();
    let mut manifest = start(space, ranks, dir, resume)?;
    let mut outcome = Outcome { resumed_from: None, layers: Vec::new(), table_bytes: 0, first_value: None };
    // The rows of the last finished layer this rank holds.
    let mut held: Option<Arc<Held<V>>> = None;
    let mut top = space.end_layer();
    if let Some(last) = manifest.layers.last() {
        top = last.layer;
        outcome.resumed_from = Some(top);
        let shape = Arc::new(space.shape(top));
        let before = (top > first).then(|| space.shape(top - 1));
        let rows = row_bounds(&shape, before.as_ref(), size);
        let mine = rows[me]..rows[me + 1];
        let values = read_rows(dir, space, &shape, last, mine.clone())?;
        held = Some(Arc::new(Held { shape, first_mover: mine.start, values }));
        tracing::info!(layer = top, rank = me, "resuming from the tables' last layer");
    }
    std::thread::scope(|scope| -> Result<(), ClusterError> {
        let (jobs, job_inbox) = bounded::<WriteJob<V>>(1);
        let (done_outbox, done) = bounded(1);
        scope.spawn(move || write_shards(dir, game, job_inbox, done_outbox));
        let mut writing: Option<(usize, u64, Written)> = None;
        let mut next_shape = None;
        for layer in (first..top).rev() {
            let started = Instant::now();
            let shape = Arc::new(next_shape.take().unwrap_or_else(|| space.shape(layer)));
            let columns = compute_bounds(&shape, size);
            let mine = columns[me]..columns[me + 1];
            let block = solve_columns(space, &shape, held.as_ref().map(|h| h.rows()), mine);
            let compute_seconds = started.elapsed().as_secs_f64();
            if let Some(pending) = writing.take() {
                record(ranks, dir, &mut manifest, pending, &done, &mut outcome, &mut progress)?;
            }
            let exchange_started = Instant::now();
            let before = (layer > first).then(|| space.shape(layer - 1));
            let rows = row_bounds(&shape, before.as_ref(), size);
            let owners = shard_owners(&shape, &rows);
            let received: Vec<Range<usize>> = (0..size).map(|r| received_rows(&shape, &rows, &owners, r)).collect();
            let (values, raw_bytes, bytes) = exchange(ranks, &shape, &columns, block, &received)?;
            let exchange_seconds = exchange_started.elapsed().as_secs_f64();
            let mine = Arc::new(Held { shape: shape.clone(), first_mover: received[me].start, values });
            let to_write = shard_ranges(&shape).into_iter().enumerate().filter(|&(i, _)| owners[i] == me).collect();
            jobs.send((mine.clone(), to_write))
                .map_err(|_| ClusterError::Exchange("the shard writer stopped".into()))?;
            let written = Written { shards: Vec::new(), compute_seconds, exchange_seconds, raw_bytes, bytes };
            writing = Some((layer, shape.positions(), written));
            held = Some(mine);
            next_shape = before;
        }
        if let Some(pending) = writing.take() {
            record(ranks, dir, &mut manifest, pending, &done, &mut outcome, &mut progress)?;
        }
        drop(jobs);
        Ok(())
    })?;
    if let Some(held) = &held
        && held.first_mover == 0
        && held.shape.layer == first
        && let Some(&value) = held.values.first()
    {
        outcome.first_value = Some(value);
    }
    Ok(outcome)
}

/// The manifest to continue: a fresh one (written by rank 0), or with `resume` the one in
/// `dir` after rank 0 checked it and every rank checked a share of its shards.
fn start(space: &Space, ranks: &impl Ranks, dir: &Path, resume: bool) -> Result<Manifest, ClusterError> {
    let (me, size) = (ranks.rank(), ranks.size());
    let game = space.cards().game();
    let fresh = Manifest::new(game, space.first_layer(), space.end_layer());
    let refuse = |reason: String| ClusterError::Resume { dir: dir.display().to_string(), reason };
    // Rank 0 decides: a manifest to continue, a fresh start, or an error it reports.
    let mut decision: Result<Manifest, ClusterError> = Ok(fresh.clone());
    if me == 0 {
        // Writers killed mid-write (a cancelled or requeued job) leave their temporary files.
        if dir.is_dir() {
            match crate::store::remove_stale_temp_files(dir) {
                Ok(removed) if !removed.is_empty() => {
                    tracing::info!(dir = %dir.display(), ?removed, "removed temporary files of an interrupted run")
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(dir = %dir.display(), error = %e, "cannot clear old temporary files"),
            }
        }
        let exists = dir.join(shard::MANIFEST_FILE).exists();
        decision = if resume && exists {
            match check_manifest(dir) {
                (Some(manifest), check) if check.problem.is_none() => {
                    if manifest.game != fresh.game {
                        Err(ShardError::Mismatch {
                            path: check.path,
                            what: format!("tables of {:?}, but {:?} was asked for", manifest.game, fresh.game),
                        }
                        .into())
                    } else if (manifest.first_layer, manifest.end_layer) != (fresh.first_layer, fresh.end_layer) {
                        Err(refuse(format!(
                            "the tables are of layers {}..{}, but this solve is of layers {}..{}",
                            manifest.first_layer, manifest.end_layer, fresh.first_layer, fresh.end_layer
                        )))
                    } else {
                        Ok(manifest)
                    }
                }
                (_, check) => Err(ShardError::Unsound {
                    dir: dir.to_owned(),
                    problems: vec![format!("{}: {}", check.path.display(), check.problem.unwrap_or_default())],
                }
                .into()),
            }
        } else {
            if resume {
                tracing::info!(dir = %dir.display(), "no manifest to resume from: starting afresh");
            }
            fresh.write(dir).map(|_| fresh.clone()).map_err(ClusterError::from)
        };
    }
    let shared = match &decision {
        Ok(manifest) => serde_json::to_vec(manifest).expect("a manifest serialises"),
        Err(_) => Vec::new(),
    };
    let shared = ranks.broadcast(shared).map_err(ClusterError::Exchange)?;
    if shared.is_empty() {
        return Err(decision.err().unwrap_or(ClusterError::StoppedByRankZero));
    }
    let manifest: Manifest =
        serde_json::from_slice(&shared).map_err(|e| ClusterError::Exchange(format!("manifest: {e}")))?;
    // Every rank checks its share of the listed shards; rank 0 collects the problems.
    let listed = manifest.listed();
    let problems: Vec<String> = listed
        .par_iter()
        .enumerate()
        .filter(|(i, _)| i % size == me)
        .filter_map(|(_, &(layer, entry))| {
            let check = verify_listed(dir, &manifest.game, layer, entry);
            check.problem.map(|p| format!("{}: {p}", check.path.display()))
        })
        .collect();
    let all =
        ranks.gather(serde_json::to_vec(&problems).expect("strings serialise")).map_err(ClusterError::Exchange)?;
    let mut verdict = vec![1u8];
    let mut problems_found = Vec::new();
    if me == 0 {
        for bytes in all {
            let theirs: Vec<String> =
                serde_json::from_slice(&bytes).map_err(|e| ClusterError::Exchange(format!("problems: {e}")))?;
            problems_found.extend(theirs);
        }
        if !problems_found.is_empty() {
            verdict = vec![0];
        }
    }
    if ranks.broadcast(verdict).map_err(ClusterError::Exchange)? != [1] {
        if me == 0 {
            problems_found.sort();
            return Err(ShardError::Unsound { dir: dir.to_owned(), problems: problems_found }.into());
        }
        return Err(ClusterError::StoppedByRankZero);
    }
    Ok(manifest)
}

/// Collects the shards a layer's writer wrote, and on rank 0 adds the layer to the
/// manifest (written atomically) once every rank's shards of it are in place.
#[allow(clippy::too_many_arguments)]
fn record<V>(
    ranks: &impl Ranks,
    dir: &Path,
    manifest: &mut Manifest,
    (layer, positions, mut written): (usize, u64, Written),
    done: &Receiver<Result<Vec<(usize, ShardEntry)>, ShardError>>,
    outcome: &mut Outcome<V>,
    progress: &mut impl FnMut(&LayerReport),
) -> Result<(), ClusterError> {
    written.shards = done.recv().map_err(|_| ClusterError::Exchange("the shard writer stopped".into()))??;
    let all = ranks.gather(serde_json::to_vec(&written).expect("serialises")).map_err(ClusterError::Exchange)?;
    if ranks.rank() != 0 {
        return Ok(());
    }
    let mut report = LayerReport {
        layer,
        positions,
        seconds: 0.0,
        compute_seconds: Vec::new(),
        exchange_seconds: Vec::new(),
        exchanged_raw_bytes: 0,
        exchanged_bytes: 0,
    };
    let mut shards = Vec::new();
    for bytes in all {
        let theirs: Written =
            serde_json::from_slice(&bytes).map_err(|e| ClusterError::Exchange(format!("written shards: {e}")))?;
        shards.extend(theirs.shards);
        report.compute_seconds.push(theirs.compute_seconds);
        report.exchange_seconds.push(theirs.exchange_seconds);
        report.exchanged_raw_bytes += theirs.raw_bytes;
        report.exchanged_bytes += theirs.bytes;
    }
    report.seconds = report.compute_seconds[0] + report.exchange_seconds[0];
    shards.sort_by_key(|&(i, _)| i);
    if shards.iter().enumerate().any(|(i, &(j, _))| i != j) {
        return Err(ClusterError::Exchange(format!(
            "layer {layer}: the ranks wrote shards {:?}",
            shards.iter().map(|s| s.0).collect::<Vec<_>>()
        )));
    }
    let entry = LayerEntry { layer, positions, shards: shards.into_iter().map(|(_, s)| s).collect() };
    outcome.table_bytes += entry.shards.iter().map(|s| s.bytes).sum::<u64>();
    manifest.layers.push(entry);
    manifest.complete = manifest.layers.len() == manifest.end_layer - manifest.first_layer;
    manifest.write(dir)?;
    tracing::info!(
        layer,
        positions,
        compute_seconds = ?report.compute_seconds,
        exchanged_raw_bytes = report.exchanged_raw_bytes,
        exchanged_bytes = report.exchanged_bytes,
        "layer written"
    );
    progress(&report);
    outcome.layers.push(report);
    Ok(())
}

/// The background writer: compresses and writes each job's shards while the next layer is
/// computed, and reports their manifest entries.
fn write_shards<V: DuelValue>(
    dir: &Path,
    game: crate::game::Game,
    jobs: Receiver<WriteJob<V>>,
    done: Sender<Result<Vec<(usize, ShardEntry)>, ShardError>>,
) {
    for (held, shards) in jobs {
        let base = row_positions(&held.shape, 0..held.first_mover).end;
        let result = shards
            .into_par_iter()
            .map(|(i, movers)| {
                let span = row_positions(&held.shape, movers.clone());
                let values = &held.values[span.start - base..span.end - base];
                shard::write_shard(dir, game, &held.shape, i, movers, values).map(|entry| (i, entry))
            })
            .collect();
        if done.send(result).is_err() {
            return;
        }
    }
}

/// Sends each rank the rows it receives of this rank's computed block (every mover's pairs
/// with this rank's opponents `columns[me]..columns[me + 1]`), and assembles the rows this
/// rank receives from every rank's blocks. Returns them with the bytes sent, raw and
/// compressed.
fn exchange<V: DuelValue + Pod>(
    ranks: &impl Ranks,
    shape: &LayerShape,
    columns: &[usize],
    block: Vec<V>,
    received: &[Range<usize>],
) -> Result<(Vec<V>, u64, u64), ClusterError> {
    let (me, size) = (ranks.rank(), ranks.size());
    if size == 1 {
        return Ok((block, 0, 0));
    }
    let columns_of = |r: usize| columns[r]..columns[r + 1];
    let mut before = Vec::with_capacity(shape.movers.len() + 1);
    before.push(0);
    for m in 0..shape.movers.len() {
        before.push(before[m] + segment(shape, m, &columns_of(me)));
    }
    let slice = |rows: &Range<usize>| &block[before[rows.start]..before[rows.end]];
    let outgoing: Vec<Vec<u8>> = (0..size)
        .into_par_iter()
        .map(|r| {
            let values = slice(&received[r]);
            if r == me || values.is_empty() {
                return Ok(Vec::new());
            }
            zstd::bulk::compress(bytemuck::cast_slice(values), EXCHANGE_ZSTD_LEVEL)
                .map_err(|e| ClusterError::Exchange(format!("compressing for rank {r}: {e}")))
        })
        .collect::<Result<_, _>>()?;
    let raw_bytes: u64 =
        (0..size).filter(|&r| r != me).map(|r| std::mem::size_of_val(slice(&received[r])) as u64).sum();
    let bytes: u64 = outgoing.iter().map(|b| b.len() as u64).sum();
    let incoming = ranks.all_to_all(outgoing).map_err(ClusterError::Exchange)?;
    let rows = received[me].clone();
    let parts: Vec<Vec<V>> = incoming
        .into_par_iter()
        .enumerate()
        .map(|(r, packed)| {
            let len: usize = rows.clone().map(|m| segment(shape, m, &columns_of(r))).sum();
            if r == me || (len == 0 && packed.is_empty()) {
                return Ok(Vec::new());
            }
            let mut part = vec![V::ZERO; len];
            let unpacked = zstd::bulk::decompress_to_buffer(&packed, bytemuck::cast_slice_mut(&mut part));
            match unpacked {
                Ok(n) if n == std::mem::size_of_val(part.as_slice()) => Ok(part),
                Ok(n) => Err(format!("{n} bytes from rank {r}, expected {}", std::mem::size_of_val(part.as_slice()))),
                Err(e) => Err(format!("from rank {r}: {e}")),
            }
            .map_err(ClusterError::Exchange)
        })
        .collect::<Result<_, _>>()?;
    let own = slice(&rows);
    let mut values = Vec::with_capacity(row_positions(shape, rows.clone()).len());
    let mut cursors = vec![0; size];
    for m in rows {
        for (r, cursor) in cursors.iter_mut().enumerate() {
            let len = segment(shape, m, &columns_of(r));
            let part = if r == me { own } else { &parts[r] };
            values.extend_from_slice(&part[*cursor..*cursor + len]);
            *cursor += len;
        }
    }
    Ok((values, raw_bytes, bytes))
}

/// Reads the rows `movers` of a written layer from its shards (each checked on reading).
fn read_rows<V: DuelValue>(
    dir: &Path,
    space: &Space,
    shape: &LayerShape,
    entry: &LayerEntry,
    movers: Range<usize>,
) -> Result<Vec<V>, ShardError> {
    let span = row_positions(shape, movers.clone());
    let mut values = Vec::with_capacity(span.len());
    for shard in &entry.shards {
        let (start, end) = (shard.mover_start.max(movers.start), shard.mover_end.min(movers.end));
        if start >= end {
            continue;
        }
        let stored = shard::read_shard(dir, space.cards().game(), shape, shard)?;
        let base = row_positions(shape, 0..shard.mover_start).end;
        let wanted = row_positions(shape, start..end);
        values.extend(stored[wanted.start - base..wanted.end - base].iter().map(|&v| V::from_stored(v)));
    }
    if values.len() != span.len() {
        return Err(ShardError::Mismatch {
            path: dir.join(shard::MANIFEST_FILE),
            what: format!("layer {}'s shards do not cover movers {movers:?}", shape.layer),
        });
    }
    Ok(values)
}

impl<V> Outcome<V> {
    /// The same outcome with the first value mapped.
    pub fn map_first<W>(self, f: impl FnOnce(V) -> W) -> Outcome<W> {
        Outcome {
            resumed_from: self.resumed_from,
            layers: self.layers,
            table_bytes: self.table_bytes,
            first_value: self.first_value.map(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;
    use crate::cluster::ranks::{Alone, threads};
    use crate::duel::{Cards, WinDraw};
    use crate::game::{CategorySet, Game, Rules};

    fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect()
    }

    /// Solves on `size` thread ranks into a fresh directory.
    fn solve_on_threads<V: DuelValue + Pod>(space: &Space, size: usize, dir: &Path) -> Outcome<V> {
        let outcomes: Vec<Outcome<V>> = std::thread::scope(|s| {
            let handles: Vec<_> = threads::group(size)
                .into_iter()
                .map(|rank| s.spawn(move || solve_tables::<V>(space, &rank, dir, false, |_| {}).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        outcomes.into_iter().next().unwrap()
    }

    #[test]
    fn any_number_of_ranks_writes_the_same_files() {
        for (categories, max_empty) in [(CategorySet::first(4), None), (CategorySet::first(5), Some(5))] {
            let cards = Cards::new(Game { rules: Rules::Official, categories });
            let space = match max_empty {
                Some(k) => Space::endgame(&cards, k),
                None => Space::whole_game(&cards),
            };
            let root = tempfile::tempdir().unwrap();
            let alone: PathBuf = root.path().join("alone");
            let expected = solve_tables::<WinDraw<f32>>(&space, &Alone, &alone, false, |_| {}).unwrap();
            let expected_files = files(&alone);
            assert!(expected_files.len() > 3);
            for size in 2..=4 {
                let dir = root.path().join(format!("ranks-{size}"));
                let outcome = solve_on_threads::<WinDraw<f32>>(&space, size, &dir);
                assert_eq!(files(&dir), expected_files, "{size} ranks");
                assert_eq!(outcome.table_bytes, expected.table_bytes);
                if max_empty.is_none() {
                    let (a, b) = (outcome.first_value.unwrap(), expected.first_value.unwrap());
                    assert_eq!((a.value, a.draw), (b.value, b.draw));
                }
                assert!(outcome.layers.iter().any(|l| l.exchanged_raw_bytes > 0));
            }
        }
    }

    #[test]
    fn resume_continues_to_the_same_files() {
        let cards = Cards::new(Game { rules: Rules::Official, categories: CategorySet::first(4) });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let (whole, cut) = (root.path().join("whole"), root.path().join("cut"));
        solve_tables::<f32>(&space, &Alone, &whole, false, |_| {}).unwrap();
        // A solve of the layers from 3 on, as if stopped there, then resumed over 3 ranks.
        let late = Space::endgame(&cards, 2 * cards.boxes() - 3);
        solve_tables::<f32>(&late, &Alone, &cut, false, |_| {}).unwrap();
        let mut manifest = Manifest::open(&cut).unwrap();
        manifest.first_layer = 0;
        manifest.complete = false;
        manifest.write(&cut).unwrap();
        // What a writer killed before its rename leaves behind; the resumed solve clears it.
        std::fs::write(cut.join(".manifest.yzs.tmp.4242.7"), b"half a manifest").unwrap();
        let outcomes: Vec<Outcome<f32>> = std::thread::scope(|s| {
            let handles: Vec<_> = threads::group(3)
                .into_iter()
                .map(|rank| {
                    let (space, cut) = (&space, &cut);
                    s.spawn(move || solve_tables::<f32>(space, &rank, cut, true, |_| {}).unwrap())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(outcomes[0].resumed_from, Some(3));
        assert_eq!(outcomes[0].layers.len(), 3);
        assert_eq!(files(&cut), files(&whole));
    }
}
