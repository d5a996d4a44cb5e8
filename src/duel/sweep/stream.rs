//! The streamed solve: layers larger than a rank's memory, solved in blocks of opponent
//! cards through files in a scratch directory.
//!
//! **Data flow.** The pairs of layer `t` whose opponent is card `B` read only row `B` of
//! layer `t + 1` (every pair whose mover is `B`). So the cards between two layers (the
//! opponents of `t`, the movers of `t + 1`) are cut into consecutive *blocks*. One *pass*
//! of the sweep reads the rows of layer `u` block by block and, per block, writes the shards
//! of `u` those rows hold, then solves the column of layer `u − 1` whose opponents are the
//! block (every mover against them) and cuts it into *frames*: one per block of the next
//! pass (a range of movers of `u − 1`), each the column's pairs of those movers, mover by
//! mover. The next pass assembles a block's rows from one frame of every block of this
//! pass. The last pass only reads the rows of the last layer solved and writes its shards.
//! A layer below `--write`'s first passes through frames only: the pass reading it writes
//! and lists nothing.
//!
//! **Scratch files.** A finished block leaves one *block file* ([`crate::store::PartsFile`]):
//! its frames, compressed, each read alone by the block of the next pass it belongs to,
//! and last its *done record*, naming the shards it wrote. So a pass keeps one file per
//! block in the scratch directory, and the directory holds at most the files of two passes
//! (the one read, the one written) whatever the block count: never one file per pair of
//! blocks, which for the full game would be tens of millions. A pass's files are removed
//! when the pass after it (which reads them) ends.
//!
//! **Memory.** A block holds its rows, its column, their offsets, and its frames
//! compressed; blocks are cut so that twice their rows and column fit the budget (the
//! second copy bounds the transient buffers: the compressed frames are at most the
//! column), and finer where a pass would have fewer than 4,096 blocks of at least 64 MiB, at the boundaries of the layer's shards, so that each shard is written from
//! the rows of one block. What a rank holds besides (the per-card tables, each thread's
//! turn scratch) is a constant, stated by `duel solve`.
//!
//! **Resume.** A block file is written (atomically) after the shards it names are durable;
//! a killed solve resumes from the blocks finished. Every file is the same bytes as the
//! in-memory solve's: shards depend only on the values, and each pair's value only on the
//! layer after it ([`crate::duel::solve`]).
//!
//! **Balance.** Blocks are dealt to the ranks by their work, the largest first, each to the
//! rank with the least so far, so that no rank waits long for the
//! others at a pass's end; the ranks share the scratch directory (the table directory's
//! file system, or a parallel one).
//!
//! **Collectives.** A pass ends with every rank's
//! done records gathered on rank 0, which lists the layer in the manifest. A record names
//! the next pass's blocks by a fingerprint, not a list, so the gather grows with the
//! blocks and shards of one pass, never with their square, and it goes in bounded rounds
//! ([`Ranks::gather`]).

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use bytemuck::Pod;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::driver::{Begun, Frontier, sweep};
use super::kernel::Kernel;
use super::outcome::{LayerReport, Outcome};
use super::scratch::{block_file, is_block_file, remove_scratch_files};
use super::shards::read_rows;
use crate::duel::cards::window;
use crate::duel::cluster::budget::Budget;
use crate::duel::cluster::error::{BelowFloor, ClusterError};
use crate::duel::cluster::exchange::{gather_then_decide, pack_part, rank_zero_decides, unpack_part};
use crate::duel::cluster::partition;
use crate::duel::cluster::ranks::Ranks;
use crate::duel::layout::{per_card_sums, window_len};
use crate::duel::shard::{self, Column, LayerEntry, Manifest, ShardEntry, ShardError, ShardSpan, shard_ranges};
use crate::duel::solve::LayerRows;
use crate::duel::{DuelValue, LayerShape, Space, Tile};
use crate::store::{self, Durability, PartsFile, StoreError};

/// Bytes of tile offsets per pair a block computes: the tile's offset and the kernel's
/// per-pair output slot ([`solve_tile`](crate::duel::solve::solve_tile)).
const COLUMN_PAIR_BYTES: u64 = 8 + 32;
/// Bytes of tile offsets per pair of the rows a block reads.
const ROW_PAIR_BYTES: u64 = 8;
/// Blocks a pass is cut into at least, where its blocks are not smaller than
/// [`MIN_BLOCK_BYTES`]: a budget-sized block each would leave most of 1,024 ranks idle on
/// the full game's narrower passes (fewer blocks than ranks), and the blocks dealt by work
/// balance better the more each rank has.
const PASS_BLOCKS: u64 = 4096;
/// The least bytes a block is cut to for [`PASS_BLOCKS`]' sake: smaller blocks would cost
/// more in files, fsyncs and per-block work than they gain in balance.
const MIN_BLOCK_BYTES: u64 = 64 << 20;

/// Store kind of a block file: a finished block's frames, each a part of its solved column
/// compressed ([`pack_part`]), then its done record ([`Done`]).
const BLOCK_KIND: &str = "duel-stream-block";
/// Most metadata a block file holds (its part count): longer metadata is refused before it
/// is parsed.
const SCRATCH_METADATA_LIMIT: usize = 4 << 10;

/// How a solve streams: the memory a rank may use and where its scratch files go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    /// What a rank may hold in blocks (rows, column, offsets, buffers), and where that
    /// comes from.
    pub budget: Budget,
    /// The scratch directory, seen by every rank; created if missing, removed when the
    /// solve finishes.
    pub scratch: PathBuf,
    /// Layers that fit the budget whole and are solved in memory (with rows read back
    /// from the shards of a streamed layer above); the others stream. Where a layer not
    /// written streams, every layer not written must ([`crate::duel::sizing::plan::Plan::streamed`]
    /// decides so): its rows reach the layer below only through frames.
    pub in_memory: Vec<usize>,
}

/// The scratch directory of a solve into `dir` when none is given: the job's node-local
/// `$TMPDIR` under Slurm when all `ranks` run on one node (ranks on several nodes must
/// share it), else `scratch/` inside `dir`. `var` reads the environment.
pub fn default_scratch(dir: &Path, var: impl Fn(&str) -> Option<String>, ranks: usize) -> PathBuf {
    let one_node = var("SLURM_JOB_NUM_NODES").is_some_and(|n| n.trim() == "1") || ranks == 1;
    match (var("SLURM_JOB_ID"), var("TMPDIR")) {
        (Some(job), Some(tmp)) if one_node && !tmp.is_empty() => Path::new(&tmp).join(format!("yz-stream-{job}")),
        _ => dir.join("scratch"),
    }
}

/// One pass: it reads the rows of layer `upper` (none at the game's end) in blocks, writes
/// that layer's shards (where not listed yet) and solves layer `upper − 1` (where it is
/// solved) block by block.
struct Pass {
    upper: usize,
    /// The shape of `upper`, whose rows are read (none at the end of the game).
    rows: Option<LayerShape>,
    /// The shape of `upper − 1`, solved (none in the last pass).
    column: Option<Arc<LayerShape>>,
    /// The blocks: ranges of the cards between the two layers.
    blocks: Vec<Range<usize>>,
    /// Each block's work: the positions it solves (or, in the last pass, reads).
    work: Vec<u64>,
    /// The shards of `upper`.
    shards: Vec<ShardSpan>,
}

impl Pass {
    /// The pass reading layer `upper`, for a solve down to `last`, with blocks cut for
    /// `budget` bytes (at least the [`floor`]) of values of `value_bytes` each.
    fn new(space: &Space, (upper, last): (usize, usize), shard_positions: u64, budget: u64, value_bytes: u64) -> Pass {
        let Layout { rows, column, shards, units } = Layout::new(space, (upper, last), shard_positions, value_bytes);
        // Twice a block's bytes fit the budget; a wide pass has at least PASS_BLOCKS blocks
        // (of at least MIN_BLOCK_BYTES), so that each rank of a large job gets several.
        let total: u64 = units.iter().map(|u| u.bytes).sum();
        let largest = units.iter().map(|u| u.bytes).max().unwrap_or(0);
        let half = budget / 2;
        assert!(largest <= half, "a block of {largest} bytes is over the budget's half, {half}: check the floor first");
        let limit = total.div_ceil(PASS_BLOCKS).max(MIN_BLOCK_BYTES).min(half).max(largest);
        let (mut blocks, mut work) = (Vec::new(), Vec::new());
        let (mut start, mut held, mut worked) = (0, 0u64, 0u64);
        for unit in &units {
            let bytes = unit.bytes;
            if held + bytes > limit && held > 0 {
                blocks.push(start..unit.cards.start);
                work.push(worked);
                (start, held, worked) = (unit.cards.start, 0, 0);
            }
            held += bytes;
            worked += unit.work;
        }
        if let Some(unit) = units.last() {
            blocks.push(start..unit.cards.end);
            work.push(worked);
        }
        Pass { upper, rows, column: column.map(Arc::new), blocks, work, shards }
    }

    /// The rank of `ranks` that solves each block: the blocks are dealt by their work, the
    /// largest first, each to the rank with the least work so far (the lowest of equals),
    /// so that the ranks finish a pass together; the same on every rank and every run.
    fn dealt(&self, ranks: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.blocks.len()).collect();
        order.sort_by_key(|&b| (std::cmp::Reverse(self.work[b]), b));
        let mut loads: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> =
            (0..ranks).map(|r| std::cmp::Reverse((0, r))).collect();
        let mut owner = vec![0; self.blocks.len()];
        for b in order {
            let std::cmp::Reverse((load, r)) = loads.pop().expect("at least one rank");
            owner[b] = r;
            loads.push(std::cmp::Reverse((load + self.work[b], r)));
        }
        owner
    }

    /// The blocks rank `rank` of `ranks` solves ([`Pass::dealt`]), in order.
    fn blocks_of(&self, (ranks, rank): (usize, usize)) -> Vec<usize> {
        (self.dealt(ranks).into_iter().enumerate()).filter(|&(_, r)| r == rank).map(|(b, _)| b).collect()
    }

    /// Each rank's work when the blocks are dealt ([`Pass::dealt`]).
    fn loads(&self, ranks: usize) -> Vec<u64> {
        let mut loads = vec![0u64; ranks];
        for (b, r) in self.dealt(ranks).into_iter().enumerate() {
            loads[r] += self.work[b];
        }
        loads
    }
}

/// The balance of the streamed pass that solves layer `layer` of a solve of `space` down
/// to `last` at `ranks` ranks of `budget` bytes, with shards of `shard_positions`
/// (dealt by work, the largest first onto the least loaded rank): the mean rank's work over the busiest's, the share of the pass's wall
/// time the ranks are busy. The budget must be at least the pass's [`floor`].
pub fn pass_balance(
    space: &Space,
    (layer, last): (usize, usize),
    ranks: usize,
    (budget, value_bytes, shard_positions): (u64, u64, u64),
) -> f64 {
    partition::balance_of(&Pass::new(space, (layer + 1, last), shard_positions, budget, value_bytes).loads(ranks))
}

/// What a pass reads, writes and solves, before it is cut into blocks.
struct Layout {
    /// The shape of the layer read (none at the end of the game).
    rows: Option<LayerShape>,
    /// The shape of the layer solved (none in the last pass).
    column: Option<LayerShape>,
    /// The shards of the layer read.
    shards: Vec<ShardSpan>,
    /// The units a block never splits.
    units: Vec<Unit>,
}

impl Layout {
    /// The layout of the pass reading layer `upper` of a solve down to `last`.
    fn new(space: &Space, (upper, last): (usize, usize), shard_positions: u64, value_bytes: u64) -> Layout {
        let rows = (upper < space.end_layer()).then(|| LayerShape::new(space, upper));
        let column = (upper > last).then(|| LayerShape::new(space, upper - 1));
        let shards = rows.as_ref().map_or_else(Vec::new, |shape| shard_ranges(shape, shard_positions));
        let units = units(space, rows.as_ref(), column.as_ref(), &shards, value_bytes);
        Layout { rows, column, shards, units }
    }
}

/// Cards a block never splits.
struct Unit {
    cards: Range<usize>,
    /// Bytes a block holds for them: their rows' and their column's values and offsets.
    bytes: u64,
    /// Positions of their column (solved), or of their rows where no column is solved.
    work: u64,
}

/// The cards between layer `rows` (read) and layer `column` (solved) cut into the units a
/// block never splits (at the starts of rows where a shard starts), with what a block holds
/// and does for each.
fn units(
    space: &Space,
    rows: Option<&LayerShape>,
    column: Option<&LayerShape>,
    shards: &[ShardSpan],
    value_bytes: u64,
) -> Vec<Unit> {
    let count = rows.map(|r| r.movers.len()).or(column.map(|c| c.opponents.len())).unwrap_or(0);
    let (mut cost, mut work) = (vec![0u64; count], vec![0u64; count]);
    if let Some(shape) = rows {
        let pairs = shape.opponents.len() as u64 * ROW_PAIR_BYTES;
        for (k, (c, w)) in cost.iter_mut().zip(&mut work).enumerate() {
            let row = shape.rows(k..k + 1);
            *c += (row.end - row.start) * value_bytes + pairs;
            *w = row.end - row.start;
        }
    }
    if let Some(shape) = column {
        let lengths = per_card_sums(space.cards(), &shape.opponents, &shape.movers, |o, m| window_len(window(m, o)));
        let pairs = shape.movers.len() as u64 * COLUMN_PAIR_BYTES;
        for ((c, w), len) in cost.iter_mut().zip(&mut work).zip(lengths) {
            *c += len * value_bytes + pairs;
            *w = len;
        }
    }
    let mut cuts: Vec<usize> = match rows {
        Some(shape) => shards
            .iter()
            .filter(|s| s.positions.start == shape.rows(s.movers.start..s.movers.start).start)
            .map(|s| s.movers.start)
            .collect(),
        None => (0..count).collect(),
    };
    cuts.push(count);
    cuts.dedup();
    let sum = |of: &[u64], cards: &Range<usize>| of[cards.clone()].iter().sum();
    cuts.windows(2)
        .map(|pair| {
            let cards = pair[0]..pair[1];
            Unit { bytes: sum(&cost, &cards), work: sum(&work, &cards), cards }
        })
        .collect()
}

/// The least budget per rank that streams the passes of a solve of `space` from layer
/// `top` (the lowest listed, or the game's end) down to `last`: twice the largest unit of
/// any of them. Returns it with the layer whose unit needs it.
pub fn floor(space: &Space, (top, last): (usize, usize), shard_positions: u64, value_bytes: u64) -> (u64, usize) {
    // Each layer's shape serves two passes (as rows, then as a column): built once.
    let shapes: Vec<LayerShape> =
        (last..=top).filter(|&layer| layer < space.end_layer()).map(|layer| LayerShape::new(space, layer)).collect();
    let shape = |layer: usize| layer.checked_sub(last).and_then(|i| shapes.get(i));
    (last..=top)
        .map(|upper| {
            let (rows, column) = (shape(upper), (upper > last).then(|| shape(upper - 1)).flatten());
            let shards = rows.map_or_else(Vec::new, |rows| shard_ranges(rows, shard_positions));
            let most = units(space, rows, column, &shards, value_bytes).iter().map(|u| u.bytes).max();
            (2 * most.unwrap_or(0), column.map_or(upper, |c| c.layer))
        })
        .max()
        .unwrap_or((0, last))
}

/// What a finished block records: its place in the pass, and the shards of the layer read
/// that it wrote (index, values, draws).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Done {
    upper: usize,
    block: usize,
    cards: Range<usize>,
    /// The blocks of the pass after it (the frames its column was cut into), by their
    /// fingerprint.
    frames: Cuts,
    budget: u64,
    written: Vec<(usize, ShardEntry, Option<ShardEntry>)>,
}

/// A list of blocks named in a few bytes: how many, and a hash of their ranges. A done
/// record names the next pass's blocks so; the list itself (thousands of ranges in the full
/// game) in every record would make the records of a pass grow with the square of its
/// blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Cuts {
    blocks: usize,
    hash: u64,
}

impl Cuts {
    fn of(blocks: &[Range<usize>]) -> Cuts {
        let bounds: Vec<u64> = blocks.iter().flat_map(|b| [b.start as u64, b.end as u64]).collect();
        let bytes: Vec<u8> = bounds.iter().flat_map(|n| n.to_le_bytes()).collect();
        Cuts { blocks: blocks.len(), hash: xxhash_rust::xxh3::xxh3_64(&bytes) }
    }
}

/// Opens a block file.
fn open_block(path: &Path) -> Result<PartsFile, StoreError> {
    // SAFETY: scratch files are written by rename and never in place.
    unsafe { PartsFile::open(path, BLOCK_KIND, SCRATCH_METADATA_LIMIT) }
}

/// The record of a finished block, if its file is there, sound and of this very block.
fn read_done(scratch: &Path, expected: &Done) -> Option<Done> {
    let path = block_file(scratch, expected.upper, expected.block);
    if !path.exists() {
        return None;
    }
    let file = open_block(&path).ok()?;
    let done: Done = serde_json::from_slice(file.part(file.count().checked_sub(1)?).ok()?).ok()?;
    let same = (done.upper, done.block, &done.cards, done.frames, done.budget)
        == (expected.upper, expected.block, &expected.cards, expected.frames, expected.budget);
    (same && file.count() == done.frames.blocks + 1).then_some(done)
}

/// Solves the layers of `space` from what `manifest` lists (nothing: the game's end) down
/// to `last`, streaming, each block solved by `kernel`, and lists each finished layer in
/// `manifest`.
#[allow(clippy::too_many_arguments)]
pub(super) fn solve_streamed<V: DuelValue + Pod>(
    space: &Space,
    ranks: &impl Ranks,
    dir: &Path,
    (stream, kernel): (&Stream, &Kernel),
    manifest: &mut Manifest,
    (last, write_from): (usize, usize),
    outcome: &mut Outcome<V>,
    progress: &mut impl FnMut(&LayerReport),
) -> Result<(), ClusterError> {
    let me = ranks.rank();
    let scratch = &stream.scratch;
    let value_bytes = std::mem::size_of::<V>() as u64;
    let shard_positions = manifest.shard_positions;
    let pass = |upper| Pass::new(space, (upper, last), shard_positions, stream.budget.per_rank(), value_bytes);
    // Every pass's blocks fit, checked before anything is computed.
    let listed = manifest.layers.last().map_or(space.end_layer(), |l| l.layer);
    let (needed, layer) = floor(space, (listed, last), shard_positions, value_bytes);
    if needed > stream.budget.per_rank() {
        return Err(ClusterError::Budget(BelowFloor::new(ranks.size() as u64, stream.budget, needed, layer)));
    }
    if listed == last {
        return finish(ranks, scratch, last);
    }
    // Rank 0 decides where to continue: after the pass reading the lowest listed layer if
    // its blocks are all done (their frames hold the layer below), else at that pass.
    let first = pass(listed);
    let decide = || -> Result<bool, ClusterError> {
        std::fs::create_dir_all(scratch).map_err(io_error(scratch, "create"))?;
        store::remove_stale_temp_files(scratch).map_err(io_error(scratch, "clean"))?;
        let next_frames = if first.column.is_some() { pass(listed - 1).blocks } else { Vec::new() };
        let done = (0..first.blocks.len())
            .all(|b| read_done(scratch, &expected(&first, b, &next_frames, stream.budget.per_rank())).is_some());
        // The block files of the pass to run next (finished blocks, with the frames of the
        // layer below it) are kept, and where it is done, those of the pass after it.
        let keep = |name: &str| is_block_file(name, Some(listed)) || (done && is_block_file(name, Some(listed - 1)));
        remove_scratch_files(scratch, |name| is_block_file(name, None) && !keep(name))?;
        Ok(done)
    };
    // Whether the pass is done: continue after it, or at it.
    let pass_done = rank_zero_decides(ranks, decide, |&done| vec![u8::from(done)], |bytes| Ok(bytes == [1]))?;
    let mut frontier = Streamed {
        space,
        ranks,
        dir,
        stream,
        manifest,
        last,
        write_from,
        outcome,
        progress,
        upcoming: Some(first),
        previous: None,
        current: None,
        block: None,
    };
    if pass_done {
        // The pass is done: its frames hold the rows the next pass reads.
        let done = frontier.upcoming.replace(pass(listed - 1)).expect("the first pass");
        if me == 0 {
            frontier.outcome.resumed_blocks += done.blocks.len();
        }
        frontier.previous = Some(done.blocks);
    }
    let top = frontier.upcoming.as_ref().expect("a pass to run").upper;
    sweep(space, last..top, &mut frontier, &|| false, kernel)
}

/// Layers streamed in blocks through scratch files: the layer `t` of the sweep is solved
/// by the pass reading layer `t + 1`, and the sweep ends with the pass that only reads
/// (and writes) its lowest layer.
struct Streamed<'s, 'a, 'm, V, R, P> {
    space: &'s Space<'a>,
    ranks: &'s R,
    dir: &'s Path,
    stream: &'s Stream,
    manifest: &'m mut Manifest,
    last: usize,
    /// Layers from this one on are written; the others only pass through frames.
    write_from: usize,
    outcome: &'m mut Outcome<V>,
    progress: &'m mut P,
    /// The pass to run next.
    upcoming: Option<Pass>,
    /// The blocks of the pass before, whose frames hold the rows the next pass reads
    /// (none: the rows are read from the listed shards).
    previous: Option<Vec<Range<usize>>>,
    /// The pass running.
    current: Option<Running>,
    /// The block whose column is being solved: its record, before its frames are written.
    block: Option<Done>,
}

/// A pass running: where its rows come from and what its blocks recorded.
struct Running {
    pass: Pass,
    /// The blocks of the pass after it, which cut its columns into frames.
    frames: Vec<Range<usize>>,
    source: Source,
    records: Vec<Done>,
    /// Blocks of it found finished by an earlier run.
    resumed: usize,
    started: Instant,
}

/// The rows a block read, with their tile.
struct BlockRows<V> {
    values: Vec<V>,
    tile: Tile,
}

/// Where a pass reads the rows of its layer.
enum Source {
    /// Nowhere: the pass solves the game's last layer.
    End,
    /// From the frames the pass before wrote, cut by its blocks.
    Frames(Vec<Range<usize>>),
    /// From the layer's shards, listed in the manifest.
    Shards(LayerEntry),
}

impl<V: DuelValue + Pod, R: Ranks, P: FnMut(&LayerReport)> Streamed<'_, '_, '_, V, R, P> {
    /// Starts the upcoming pass: its source, and its blocks for this rank not finished yet
    /// (those finished by an earlier run are recorded as they are).
    fn start_pass(&mut self) -> Result<Vec<usize>, ClusterError> {
        let (space, last) = (self.space, self.last);
        let pass = self.upcoming.take().expect("a pass to run");
        let value_bytes = std::mem::size_of::<V>() as u64;
        let next = (pass.upper > last).then(|| {
            Pass::new(
                space,
                (pass.upper - 1, last),
                self.manifest.shard_positions,
                self.stream.budget.per_rank(),
                value_bytes,
            )
        });
        let frames = next.as_ref().map_or_else(Vec::new, |n| n.blocks.clone());
        let source = match (&pass.rows, self.previous.take()) {
            (None, _) => Source::End,
            (Some(_), Some(blocks)) => Source::Frames(blocks),
            (Some(shape), None) => Source::Shards(self.manifest.checked_layer(self.dir, shape)?.clone()),
        };
        let (me, size) = (self.ranks.rank(), self.ranks.size());
        let mut running = Running { pass, frames, source, records: Vec::new(), resumed: 0, started: Instant::now() };
        let mut blocks = Vec::new();
        for b in running.pass.blocks_of((size, me)) {
            let record = expected(&running.pass, b, &running.frames, self.stream.budget.per_rank());
            match read_done(&self.stream.scratch, &record) {
                Some(done) => {
                    tracing::info!(upper = running.pass.upper, block = b, "block finished by an earlier run");
                    running.records.push(done);
                    running.resumed += 1;
                }
                None => blocks.push(b),
            }
        }
        self.current = Some(running);
        self.upcoming = next;
        Ok(blocks)
    }

    /// Reads the rows of block `b` of the running pass and writes the shards they hold
    /// (where the pass writes its layer): the rows, with their tile, and the block's
    /// record naming those shards.
    fn read_block(&self, b: usize) -> Result<(Option<BlockRows<V>>, Done), ClusterError> {
        let Running { pass, frames, source, .. } = self.current.as_ref().expect("a pass running");
        let (space, dir, scratch) = (self.space, self.dir, &self.stream.scratch);
        let mut record = expected(pass, b, frames, self.stream.budget.per_rank());
        let cards = pass.blocks[b].clone();
        let rows = match (&pass.rows, source) {
            (Some(shape), Source::Frames(blocks)) => {
                let tile = Tile::new(space, shape, cards.clone(), 0..shape.opponents.len());
                Some(BlockRows { values: read_frames::<V>(scratch, shape, &tile, blocks, b)?, tile })
            }
            (Some(shape), Source::Shards(entry)) => {
                let tile = Tile::new(space, shape, cards.clone(), 0..shape.opponents.len());
                Some(BlockRows { values: read_rows::<V>(dir, space, shape, entry, cards.clone())?, tile })
            }
            _ => None,
        };
        // Rows read from frames are of a layer not written yet: its shards are written here
        // (where the layer is written at all).
        let writes = pass.upper >= self.write_from;
        if let (Some(shape), Some(BlockRows { values, .. }), Source::Frames(_), true) =
            (&pass.rows, &rows, source, writes)
        {
            let base = shape.rows(cards.clone()).start;
            let game = space.cards().game();
            let inside: Vec<(usize, &ShardSpan)> =
                pass.shards.iter().enumerate().filter(|(_, s)| cards.contains(&s.movers.start)).collect();
            record.written = inside
                .into_par_iter()
                .map(|(i, span)| {
                    let values = &values[(span.positions.start - base) as usize..(span.positions.end - base) as usize];
                    let write =
                        |column| shard::write_shard(dir, game, shape, (i, span), values, (column, Durability::Batched));
                    let draws = if V::DRAWS { Some(write(Column::Draw)?) } else { None };
                    Ok((i, write(Column::Value)?, draws))
                })
                .collect::<Result<_, ShardError>>()?;
            let files: Vec<PathBuf> = record
                .written
                .iter()
                .flat_map(|(i, _, draws)| {
                    let draw = draws.as_ref().map(|_| shard::shard_file(pass.upper, *i, Column::Draw));
                    [Some(shard::shard_file(pass.upper, *i, Column::Value)), draw]
                })
                .flatten()
                .map(|file| dir.join(file))
                .collect();
            store::sync_batch(dir, &files)?;
        }
        Ok((rows, record))
    }

    /// Records block `b` of the running pass as done, after the shards it names are
    /// durable: writes its block file, its `frames` (compressed) then its record.
    fn close_block(&mut self, b: usize, record: Done, mut frames: Vec<Vec<u8>>) -> Result<(), ClusterError> {
        let running = self.current.as_mut().expect("a pass running");
        let path = block_file(&self.stream.scratch, running.pass.upper, b);
        frames.push(serde_json::to_vec(&record).expect("a record serialises"));
        store::write_parts(&path, BLOCK_KIND, &serde_json::json!({}), &frames, Durability::Synced)?;
        running.records.push(record);
        Ok(())
    }

    /// Ends the running pass on every rank: lists its layer and reports the layer it solved.
    fn end_running(&mut self) -> Result<(), ClusterError> {
        let Running { pass, records, resumed, started, .. } = self.current.take().expect("a pass running");
        let (ranks, dir) = (self.ranks, self.dir);
        let writes = pass.upper >= self.write_from;
        self.outcome.resumed_blocks +=
            end_pass(ranks, dir, &self.stream.scratch, self.manifest, (&pass, writes), (records, resumed))?;
        if let Some(column) = &pass.column {
            let report = LayerReport {
                layer: column.layer,
                positions: column.positions(),
                written: true,
                seconds: started.elapsed().as_secs_f64(),
                ..LayerReport::default()
            };
            if ranks.rank() == 0 {
                (self.progress)(&report);
                self.outcome.layers.push(report);
            }
        }
        self.previous = pass.column.is_some().then_some(pass.blocks);
        Ok(())
    }
}

impl<V: DuelValue + Pod, R: Ranks, P: FnMut(&LayerReport)> Frontier<V> for Streamed<'_, '_, '_, V, R, P> {
    fn begin(&mut self, layer: usize) -> Result<Begun, ClusterError> {
        let blocks = self.start_pass()?;
        let running = self.current.as_ref().expect("a pass running");
        debug_assert_eq!(running.pass.upper, layer + 1);
        let shape = running.pass.column.clone().expect("a pass above the lowest layer solves one");
        let blocks = blocks.into_iter().map(|b| (b, running.pass.blocks[b].clone())).collect();
        Ok(Begun { movers: 0..shape.movers.len(), shape, blocks })
    }

    fn solve(
        &mut self,
        b: usize,
        solve: impl FnOnce(Option<LayerRows<'_, V>>) -> Result<Vec<V>, ClusterError>,
    ) -> Result<Vec<V>, ClusterError> {
        let (rows, record) = self.read_block(b)?;
        self.block = Some(record);
        solve(rows.as_ref().map(|BlockRows { values, tile }| LayerRows { tile, values }))
    }

    fn hand(&mut self, b: usize, tile: &Tile, values: Vec<V>) -> Result<(), ClusterError> {
        let record = self.block.take().expect("the block was solved");
        let running = self.current.as_ref().expect("a pass running");
        let frames = running
            .frames
            .par_iter()
            .map(|movers| pack_part(bytemuck::cast_slice(&values[tile.rows(movers.clone())])))
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(|source| ClusterError::Compress { what: "a frame of a block file".into(), source })?;
        drop(values);
        self.close_block(b, record, frames)
    }

    fn end(&mut self) -> Result<(), ClusterError> {
        self.end_running()
    }

    /// The last pass: it reads the rows of the lowest layer solved, writes its shards (where
    /// it is written) and, at the space's first layer, keeps its first value (row 0's
    /// first, as the in-memory solve hands it back).
    fn finish(&mut self) -> Result<(), ClusterError> {
        if self.upcoming.is_some() {
            for b in self.start_pass()? {
                let (rows, record) = self.read_block(b)?;
                if b == 0 && self.last == self.space.first_layer() {
                    self.outcome.first_value = rows.and_then(|rows| rows.values.first().copied());
                }
                self.close_block(b, record, Vec::new())?;
            }
            self.end_running()?;
        }
        finish(self.ranks, &self.stream.scratch, self.last)
    }
}

/// The record block `b` of `pass` leaves when done, before its shards are named.
fn expected(pass: &Pass, b: usize, frames: &[Range<usize>], budget: u64) -> Done {
    Done {
        upper: pass.upper,
        block: b,
        cards: pass.blocks[b].clone(),
        frames: Cuts::of(frames),
        budget,
        written: Vec::new(),
    }
}

/// Assembles the rows `tile` of layer `shape` from frame `b` of every block `blocks` of the
/// pass that solved it.
fn read_frames<V: DuelValue + Pod>(
    scratch: &Path,
    shape: &LayerShape,
    tile: &Tile,
    blocks: &[Range<usize>],
    b: usize,
) -> Result<Vec<V>, ClusterError> {
    let mut values = vec![V::NOTHING; tile.positions() as usize];
    for (b_above, opponents) in blocks.iter().enumerate() {
        let path = block_file(scratch, shape.layer + 1, b_above);
        let file = open_block(&path).map_err(|e| damaged(&path, e.fault()))?;
        let frames = file.count().saturating_sub(1);
        if b >= frames {
            return Err(damaged(&path, format!("it holds {frames} frames, block {b} reads one")));
        }
        let expected: usize =
            tile.movers.clone().map(|m| tile.span(m, opponents.clone()).len()).sum::<usize>() * size_of::<V>();
        let mut movers = tile.movers.clone();
        let (mut at, mut left) = (0..0, 0);
        let part = file.part(b).map_err(|e| damaged(&path, e.fault()))?;
        unpack_part::<V>(part, expected, |mut piece| {
            while !piece.is_empty() {
                if left == 0 {
                    let Some(m) = movers.next() else { return };
                    at = tile.span(m, opponents.clone());
                    left = at.len();
                    continue;
                }
                let n = left.min(piece.len());
                let start = at.end - left;
                values[start..start + n].copy_from_slice(&piece[..n]);
                (left, piece) = (left - n, &piece[n..]);
            }
        })
        .map_err(|damage| damaged(&path, damage.to_string()))?;
    }
    Ok(values)
}

/// Gathers the pass's records (and how many blocks each rank found finished) on rank 0,
/// which lists the layer read (if this pass wrote it) and removes the scratch files no
/// pass reads any more ([`gather_then_decide`]). Returns the blocks found finished (on
/// rank 0; 0 on the others, whose outcome is not reported).
fn end_pass(
    ranks: &impl Ranks,
    dir: &Path,
    scratch: &Path,
    manifest: &mut Manifest,
    (pass, writes): (&Pass, bool),
    records: (Vec<Done>, usize),
) -> Result<usize, ClusterError> {
    let mine = serde_json::to_vec(&records).expect("records serialise");
    let decide = |all: Vec<Vec<u8>>| -> Result<usize, ClusterError> {
        let (mut written, mut resumed) = (Vec::new(), 0);
        for bytes in all {
            let (theirs, found): (Vec<Done>, usize) = serde_json::from_slice(&bytes)
                .map_err(|source| ClusterError::Record { what: "finished blocks", source })?;
            written.extend(theirs.into_iter().flat_map(|d| d.written));
            resumed += found;
        }
        if let Some(shape) = &pass.rows
            && writes
            && manifest.layer(pass.upper).is_none()
        {
            let mut shards = Vec::with_capacity(written.len());
            let mut draws = Vec::new();
            for (index, value, draw) in written {
                shards.push((index, value));
                draws.extend(draw.map(|d| (index, d)));
            }
            let entry = LayerEntry::from_written(pass.upper, shape.positions(), shards, draws, pass.shards.len())?;
            manifest.list(dir, entry)?;
        }
        // The pass above's block files: this pass read their frames, and their records
        // are no longer asked for.
        remove_scratch_files(scratch, |name| is_block_file(name, Some(pass.upper + 1)))?;
        Ok(resumed)
    };
    let resumed = gather_then_decide(
        ranks,
        mine,
        decide,
        |n| serde_json::to_vec(n).expect("a count serialises"),
        |bytes| {
            serde_json::from_slice(bytes).map_err(|source| ClusterError::Record { what: "finished blocks", source })
        },
    )?;
    Ok(if ranks.rank() == 0 { resumed } else { 0 })
}

/// Removes the block files once the streamed layers are done (rank 0), after every rank;
/// the directory goes when the solve ends ([`ScratchClaim::release`](super::scratch::ScratchClaim::release)).
fn finish(ranks: &impl Ranks, scratch: &Path, last: usize) -> Result<(), ClusterError> {
    ranks.gather(Vec::new())?;
    if ranks.rank() == 0 && scratch.exists() {
        remove_scratch_files(scratch, |name| is_block_file(name, None))?;
        tracing::info!(last, scratch = %scratch.display(), "streamed layers finished; block files removed");
    }
    Ok(())
}

/// A block file of the pass before, whose frames a block reads, found damaged: it cannot
/// be produced again alone (the frames it was solved from are gone), so the remedy is to
/// start the streamed layers again from the tables.
fn damaged(path: &Path, reason: String) -> ClusterError {
    let scratch = path.parent().unwrap_or(Path::new(".")).display().to_string();
    ClusterError::DamagedScratch { path: path.display().to_string(), reason, scratch }
}

fn io_error(path: &Path, action: &'static str) -> impl Fn(std::io::Error) -> ClusterError {
    let path = path.to_owned();
    move |source| ClusterError::Shard(ShardError::from(StoreError::Io { path: path.clone(), action, source }))
}

/// One pass of a streamed solve as the ranks would run it, its structures built for real
/// (blocks, done records with an entry per shard written, the gather of those records),
/// without a value computed, and measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PassRehearsal {
    /// The layer the pass reads (the pass solves the layer below it).
    pub upper: usize,
    /// Blocks the pass is cut into.
    pub blocks: usize,
    /// Blocks the rehearsed rank solves.
    pub rank_blocks: usize,
    /// The mean rank's work over the busiest rank's (positions solved): the share of the
    /// pass's wall time the ranks are busy, 1 for a perfect balance.
    pub balance: f64,
    /// The same had the blocks gone round-robin (block `b` to rank `b mod ranks`).
    pub round_robin_balance: f64,
    /// Bytes the largest block holds (its rows, column and offsets), half the budget at most.
    pub largest_block_bytes: u64,
    /// Frames each block file holds: the blocks of the next pass.
    pub frames_per_block: usize,
    /// Bytes of the largest done record (JSON).
    pub largest_done_record_bytes: u64,
    /// Bytes of every rank's records that the pass's end gathers on rank 0, in all.
    pub gather_bytes: u64,
    /// Bytes rank 0 receives in the largest round of that gather ([`Ranks::gather`]):
    /// at most the rank count times [`Ranks::gather_piece_bytes`].
    pub largest_gather_round_bytes: u64,
    /// Most files the scratch directory holds during the pass: the block files of the pass
    /// before (read) and of this one, a temporary file per rank, and the owner record
    /// (`owner.yzs`).
    pub scratch_files: usize,
    /// Seconds the structures took to build.
    pub seconds: f64,
}

/// Rehearses the passes of a streamed solve of `space` from the game's end down to `last`
/// at `ranks` ranks of `budget` bytes each, for rank `rank`, with values of `value_bytes`
/// (and draw shards where `draws`), shards of `shard_positions` positions, and gathers in
/// rounds of `gather_piece` bytes a rank: the passes that read or solve a layer that
/// streams (the layers `in_memory` are solved in memory). Refuses a budget below the floor
/// of those passes, as the solve.
pub fn rehearse_passes(
    space: &Space,
    (ranks, rank): (usize, usize),
    (last, in_memory): (usize, &[usize]),
    (budget, value_bytes, draws): (u64, u64, bool),
    (shard_positions, gather_piece): (u64, usize),
) -> Result<Vec<PassRehearsal>, BelowFloor> {
    let streams = |layer: usize| !in_memory.contains(&layer);
    let included = |upper: usize| (upper < space.end_layer() && streams(upper)) || (upper > last && streams(upper - 1));
    let uppers: Vec<usize> = (last..=space.end_layer()).rev().filter(|&upper| included(upper)).collect();
    for &upper in &uppers {
        let (needed, layer) = floor(space, (upper, upper.saturating_sub(1).max(last)), shard_positions, value_bytes);
        if needed > budget {
            return Err(BelowFloor::new(ranks as u64, Budget::PerRank(budget), needed, layer));
        }
    }
    let pass_at = |upper: usize| Pass::new(space, (upper, last), shard_positions, budget, value_bytes);
    let mut passes = Vec::new();
    let mut upcoming = uppers.first().map(|&upper| pass_at(upper));
    let mut above_blocks = 0;
    while let Some(pass) = upcoming.take() {
        let started = Instant::now();
        let next = (pass.upper > last && included(pass.upper - 1)).then(|| pass_at(pass.upper - 1));
        let frames = next.as_ref().map_or_else(Vec::new, |n| n.blocks.clone());
        let units = Layout::new(space, (pass.upper, last), shard_positions, value_bytes).units;
        let owner = pass.dealt(ranks);
        let loads = pass.loads(ranks);
        let mut dealt_in_turn = vec![0u64; ranks];
        for (b, work) in pass.work.iter().enumerate() {
            dealt_in_turn[b % ranks] += work;
        }
        let (balance, round_robin_balance) = (partition::balance_of(&loads), partition::balance_of(&dealt_in_turn));
        let mut message = vec![Vec::<Done>::new(); ranks];
        let mut largest_done = 0u64;
        for (b, cards) in pass.blocks.iter().enumerate() {
            let mut record = expected(&pass, b, &frames, budget);
            if let Some(shape) = &pass.rows {
                record.written = pass
                    .shards
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| cards.contains(&s.movers.start))
                    .map(|(i, span)| {
                        let entry = stand_in_entry(shape, i, span);
                        (i, entry.clone(), draws.then_some(entry))
                    })
                    .collect();
            }
            largest_done = largest_done.max(serde_json::to_vec(&record).expect("a record serialises").len() as u64);
            message[owner[b]].push(record);
        }
        let lengths: Vec<u64> = message
            .iter()
            .map(|records| serde_json::to_vec(&(records, 0usize)).expect("serialises").len() as u64)
            .collect();
        let rounds = lengths.iter().max().map_or(0, |&l| l.div_ceil(gather_piece as u64));
        let largest_round = (0..rounds)
            .map(|round| {
                lengths.iter().map(|&l| l.saturating_sub(round * gather_piece as u64).min(gather_piece as u64)).sum()
            })
            .max()
            .unwrap_or(0);
        let largest_block = pass
            .blocks
            .iter()
            .map(|b| units.iter().filter(|u| b.start <= u.cards.start && u.cards.end <= b.end).map(|u| u.bytes).sum())
            .max()
            .unwrap_or(0);
        passes.push(PassRehearsal {
            upper: pass.upper,
            blocks: pass.blocks.len(),
            rank_blocks: message[rank].len(),
            balance,
            round_robin_balance,
            largest_block_bytes: largest_block,
            frames_per_block: frames.len(),
            largest_done_record_bytes: largest_done,
            gather_bytes: lengths.iter().sum(),
            largest_gather_round_bytes: largest_round,
            scratch_files: above_blocks + pass.blocks.len() + ranks + 1,
            seconds: started.elapsed().as_secs_f64(),
        });
        above_blocks = if pass.column.is_some() { pass.blocks.len() } else { 0 };
        upcoming = next.or_else(|| {
            // The next run of streamed layers, below layers solved in memory.
            uppers.iter().find(|&&upper| upper < pass.upper).map(|&upper| {
                above_blocks = 0;
                pass_at(upper)
            })
        });
    }
    Ok(passes)
}

/// The entry shard `i` of layer `shape` would have in a done record or the manifest, with
/// a stand-in checksum and its raw size: what a rehearsal lists.
pub(crate) fn stand_in_entry(shape: &LayerShape, i: usize, span: &ShardSpan) -> ShardEntry {
    let rows = shape.rows(span.movers.clone());
    let positions = span.positions.end - span.positions.start;
    ShardEntry {
        mover_start: span.movers.start,
        mover_end: span.movers.end,
        row_offset: span.positions.start - rows.start,
        positions,
        checksum: store::Checksum(xxhash_rust::xxh3::xxh3_64(
            &[shape.layer as u64, i as u64].map(u64::to_le_bytes).concat(),
        )),
        bytes: 4 * positions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of very unequal work are dealt once each, the same way on every rank, and
    /// closer to balance than round-robin dealing.
    #[test]
    fn blocks_are_dealt_by_their_work() {
        let work: Vec<u64> = (0..48u64).map(|b| if b % 4 == 0 { 1_000 + b } else { 10 + b % 7 }).collect();
        let pass = Pass {
            upper: 3,
            rows: None,
            column: None,
            blocks: (0..work.len()).map(|b| b..b + 1).collect(),
            work: work.clone(),
            shards: Vec::new(),
        };
        let ranks = 4;
        let dealt: Vec<Vec<usize>> = (0..ranks).map(|r| pass.blocks_of((ranks, r))).collect();
        let mut all: Vec<usize> = dealt.concat();
        all.sort_unstable();
        assert_eq!(all, (0..work.len()).collect::<Vec<_>>());
        assert_eq!(dealt, (0..ranks).map(|r| pass.blocks_of((ranks, r))).collect::<Vec<_>>());
        let loads: Vec<u64> = dealt.iter().map(|bs| bs.iter().map(|&b| work[b]).sum()).collect();
        let mut in_turn = vec![0u64; ranks];
        for (b, w) in work.iter().enumerate() {
            in_turn[b % ranks] += w;
        }
        assert!(partition::balance_of(&loads) > 0.95, "{loads:?}");
        assert!(partition::balance_of(&in_turn) < 0.5, "{in_turn:?}");
    }

    /// Only block files are taken for the solve's own: no other name in the scratch
    /// directory, however close.
    #[test]
    fn block_files_are_named_exactly() {
        assert!(is_block_file("block-07-000012.yzs", None));
        assert!(is_block_file("block-07-000012.yzs", Some(7)));
        assert!(!is_block_file("block-07-000012.yzs", Some(8)));
        for other in
            ["block-7-000012.yzs", "block-07-12.yzs", "block-07-000012.yzs.bak", "history.yzs", "done-07-000001.yzs"]
        {
            assert!(!is_block_file(other, None), "{other}");
        }
    }

    /// A block file forged with long metadata (its checksums valid) is refused before its
    /// metadata is parsed.
    #[test]
    fn a_block_file_with_long_metadata_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = block_file(dir.path(), 5, 0);
        let metadata = serde_json::json!({ "padding": "x".repeat(8 << 10) });
        store::write_parts(&path, BLOCK_KIND, &metadata, &[b"{}".to_vec()], Durability::Synced).unwrap();
        let refused = open_block(&path).unwrap_err();
        assert!(refused.to_string().contains("metadata"), "{refused}");
    }
}
