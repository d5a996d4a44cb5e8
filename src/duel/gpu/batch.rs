//! What a launch of the kernel reads, laid out flat: the edge tables (constant memory), the
//! movers' scoring plans, the cards' bounds and where the next layer's pairs start, and one
//! job per strip of a pair. Both the device and the host build of `turn.cu` read exactly
//! this, so the CPU-run test checks the layout the GPU gets.

use std::ops::Range;
use std::sync::LazyLock;

use crate::duel::cards::window;
use crate::duel::solve::LayerRows;
use crate::duel::{LayerShape, Space, Tile};
use crate::game::dice::{NUM_FACES, NUM_KEEPS, NUM_PARTIAL_KEEPS, TABLES};
use crate::game::{KeepId, MAX_BOXES, NUM_ROLLS, RollId};
use crate::turn::{ScoringPlan, Shift};

/// Lanes of a pair one thread block solves (`YZ_STRIP` in `turn.cu`).
pub const STRIP: usize = 64;
/// Threads per block (`YZ_THREADS`).
pub const THREADS: u32 = 512;
/// Successors of one mover's turn at most (`YZ_MAX_SUCC`).
pub const MAX_SUCC: usize = 64;
/// Entries of the remove-one-die table at most (`YZ_REMOVE_CAP`).
const REMOVE_CAP: usize = 1536;
/// Numbers per job (`YZ_JOB`): mover, opponent, the window's lo, its lanes, the strip's first lane.
const JOB: usize = 5;
/// Bounds per card (`YZ_BOUNDS`).
const BOUNDS: usize = 4;
/// Bytes of shared memory a block uses (`YZ_SHARED_BYTES`).
pub const SHARED_BYTES: u32 = (NUM_KEEPS * STRIP * 4 + MAX_SUCC * 32) as u32;

const _: () = assert!(MAX_BOXES == 15 && NUM_KEEPS == 462 && NUM_PARTIAL_KEEPS == 210 && NUM_ROLLS == 252);

/// `YzTables` of `turn.cu`, field for field.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Tables {
    add_die: [u16; NUM_PARTIAL_KEEPS * NUM_FACES],
    remove_start: [u16; NUM_KEEPS + 2],
    remove_die: [u16; REMOVE_CAP],
    roll_probability: [f32; NUM_ROLLS],
    sixth: f32,
    size_start: [u32; 8],
}

// SAFETY: plain numbers in a `repr(C)` struct whose fields leave no padding (u16 arrays of
// even total length, then 4-byte numbers).
unsafe impl bytemuck::Zeroable for Tables {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Tables {}

/// The turn's tables as the kernel reads them, built once from the CPU kernel's own.
pub static TABLES_FLAT: LazyLock<Tables> = LazyLock::new(|| {
    let tables = &*TABLES;
    let mut flat: Tables = bytemuck::Zeroable::zeroed();
    for (keep, next) in tables.add_die[..NUM_PARTIAL_KEEPS].iter().enumerate() {
        flat.add_die[keep * NUM_FACES..][..NUM_FACES].copy_from_slice(next);
    }
    let mut at = 0;
    for (keep, subs) in tables.remove_die.iter().enumerate() {
        flat.remove_start[keep] = at as u16;
        flat.remove_die[at..at + subs.len()].copy_from_slice(subs);
        at += subs.len();
    }
    flat.remove_start[NUM_KEEPS] = at as u16;
    // As the CPU's `T::Number::from_f64`.
    for (p, &q) in flat.roll_probability.iter_mut().zip(&tables.roll_probability) {
        *p = q as f32;
    }
    flat.sixth = (1.0f64 / 6.0) as f32;
    // Keeps come by size (`KeepId`'s table): the first of each size.
    let mut size = 0;
    for keep in KeepId::all() {
        while keep.size() > size {
            size += 1;
            flat.size_start[size] = keep.0 as u32;
        }
        assert_eq!(keep.size(), size, "keeps ordered by size");
    }
    flat.size_start[6] = NUM_KEEPS as u32;
    flat.size_start[7] = NUM_KEEPS as u32;
    flat
});

/// Positions one launch writes at most (1 GiB of values), unless one mover's row alone
/// holds more: a layer larger than the GPU's memory goes through it in launches.
pub const POSITIONS_PER_BATCH: usize = 1 << 28;

/// A tile's movers in runs of at most `movers_per_batch` movers and [`POSITIONS_PER_BATCH`]
/// positions (one [`Batch`] and one launch each; at least one mover), with where each
/// run's values lie among the tile's.
pub fn batches(tile: &Tile, movers_per_batch: usize) -> impl Iterator<Item = (Range<usize>, Range<usize>)> + '_ {
    assert!(movers_per_batch > 0, "a batch holds some mover");
    let end = tile.movers.end;
    let mut start = tile.movers.start;
    std::iter::from_fn(move || {
        if start >= end {
            return None;
        }
        let first = tile.rows(start..start + 1).start;
        let mut stop = start + 1;
        while stop < end
            && stop - start < movers_per_batch
            && tile.rows(start..stop + 1).end - first <= POSITIONS_PER_BATCH
        {
            stop += 1;
        }
        let these = start..stop;
        start = stop;
        Some((these.clone(), tile.rows(these)))
    })
}

/// One launch's inputs, flat (see `YzParams` in `turn.cu`), for some movers of a tile
/// against all of its opponents.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Per mover and roll: boxes the roll may fill.
    pub plan_counts: Vec<u8>,
    /// Per mover, roll and box: successor slot | points << 16.
    pub plan_entries: Vec<u32>,
    /// Per mover: successors of its turn.
    pub succ_count: Vec<u32>,
    /// Per mover and successor slot: the card's position among the next layer's rows' opponents.
    pub succ_col: Vec<u32>,
    /// Per mover and successor slot: the card's bounds.
    pub succ_bounds: Vec<i32>,
    /// Per opponent: where its row (as the next layer's mover) starts among the next
    /// layer's pair offsets.
    pub opp_row: Vec<u64>,
    /// Per opponent: its bounds.
    pub opp_bounds: Vec<i32>,
    /// Per job: mover, opponent, lo, lanes, first lane.
    pub jobs: Vec<i32>,
    /// Per job: where its pair's lane 0 goes among the batch's values.
    pub job_out: Vec<u64>,
    /// Values the batch writes: the tile's rows of its movers.
    pub positions: usize,
    /// Whether the next layer is the end of the game.
    pub end_of_game: bool,
}

fn bounds_of(b: crate::duel::CardBounds) -> [i32; BOUNDS] {
    [b.past_min, b.past_max, b.future_min, b.future_max]
}

impl Batch {
    /// The inputs of the movers `movers` (positions in `shape`, within `tile`'s) against
    /// every opponent of `tile`, reading `next` (`None`: the next layer ends the game).
    ///
    /// # Panics
    /// If a mover's turn has more than [`MAX_SUCC`] successors or `movers` lies outside the tile.
    pub fn new(
        space: &Space,
        shape: &LayerShape,
        next: Option<&LayerRows<'_, f32>>,
        tile: &Tile,
        movers: Range<usize>,
    ) -> Batch {
        let cards = space.cards();
        let layer = shape.layer;
        let mut batch = Batch { end_of_game: next.is_none(), ..Batch::default() };
        let count = movers.len();
        batch.plan_counts.resize(count * NUM_ROLLS, 0);
        batch.plan_entries.resize(count * NUM_ROLLS * MAX_BOXES, 0);
        batch.succ_count.resize(count, 0);
        batch.succ_col.resize(count * MAX_SUCC, 0);
        batch.succ_bounds.resize(count * MAX_SUCC * BOUNDS, 0);
        let mut plan = ScoringPlan::new(Shift::Up);
        for (ml, m) in movers.clone().enumerate() {
            cards.plan_turn(shape.movers[m], &mut plan);
            let successors = plan.successors();
            assert!(
                successors.len() <= MAX_SUCC,
                "a turn with {} successors (the kernel takes {MAX_SUCC})",
                successors.len()
            );
            batch.succ_count[ml] = successors.len() as u32;
            for (k, &card) in successors.iter().enumerate() {
                let at = ml * MAX_SUCC + k;
                batch.succ_bounds[at * BOUNDS..][..BOUNDS].copy_from_slice(&bounds_of(cards.bounds(card)));
                // Where it cannot be found, the CPU never reads it either (an empty window).
                if let Some(next) = next
                    && let Some(o) = space.opponents(layer + 1).position(card)
                {
                    batch.succ_col[at] = o.saturating_sub(next.tile.opponents.start) as u32;
                }
            }
            for roll in RollId::all() {
                let at = ml * NUM_ROLLS + roll.0 as usize;
                let mut boxes = 0;
                for (j, (slot, points)) in plan.boxes(roll).enumerate() {
                    batch.plan_entries[at * MAX_BOXES + j] = slot as u32 | points << 16;
                    boxes += 1;
                }
                assert!(boxes > 0, "every roll fills some box");
                batch.plan_counts[at] = boxes;
            }
        }
        for &opponent in &shape.opponents[tile.opponents.clone()] {
            batch.opp_bounds.extend(bounds_of(cards.bounds(opponent)));
            let row = next.and_then(|next| {
                let m = space.movers(layer + 1).position(opponent)?;
                let rows = &next.tile.movers;
                rows.contains(&m).then(|| ((m - rows.start) * next.tile.opponents.len()) as u64)
            });
            batch.opp_row.push(row.unwrap_or(0));
        }
        let base = tile.rows(movers.clone()).start;
        for (ml, m) in movers.clone().enumerate() {
            let bm = cards.bounds(shape.movers[m]);
            for (ol, o) in tile.opponents.clone().enumerate() {
                let range = tile.pair_range(m, o);
                let (lo, _) = window(bm, cards.bounds(shape.opponents[o]));
                for first in (0..range.len()).step_by(STRIP) {
                    batch.jobs.extend([ml as i32, ol as i32, lo, range.len() as i32, first as i32]);
                    batch.job_out.push((range.start - base) as u64);
                }
            }
        }
        batch.positions = tile.rows(movers).len();
        batch
    }

    /// Jobs (thread blocks) in the batch.
    pub fn jobs(&self) -> usize {
        self.jobs.len() / JOB
    }
}

// `YzParams` is twelve addresses and three 32-bit numbers, padded to 8 bytes (112 bytes in
// the PTX's parameter).
const _: () = assert!(std::mem::size_of::<Params>() == 112);
// `YzTables`: 7,564 bytes (the PTX's `c_tables`; also checked against the module on loading).
const _: () = assert!(std::mem::size_of::<Tables>() == 7564);

/// `YzParams` of `turn.cu`, field for field: addresses (on the device or the host) of a
/// [`Batch`]'s arrays, the next layer's and the output.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Params {
    /// The next layer's values.
    pub next_values: u64,
    /// The next layer's pair offsets.
    pub next_offsets: u64,
    /// [`Batch::plan_counts`].
    pub plan_counts: u64,
    /// [`Batch::plan_entries`].
    pub plan_entries: u64,
    /// [`Batch::succ_count`].
    pub succ_count: u64,
    /// [`Batch::succ_col`].
    pub succ_col: u64,
    /// [`Batch::succ_bounds`].
    pub succ_bounds: u64,
    /// [`Batch::opp_row`].
    pub opp_row: u64,
    /// [`Batch::opp_bounds`].
    pub opp_bounds: u64,
    /// [`Batch::jobs`].
    pub jobs: u64,
    /// [`Batch::job_out`].
    pub job_out: u64,
    /// The batch's values.
    pub out: u64,
    /// Jobs in the batch.
    pub job_count: u32,
    /// 1 when the next layer ends the game.
    pub end_of_game: u32,
    /// Which [`Phases`] run.
    pub phases: u32,
}

/// Which phases of the turn a launch runs: all of them to solve, fewer to time each
/// (`benches/gpu.rs`); `YZ_SCORE`, `YZ_REROLLS`, `YZ_START` in `turn.cu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phases(pub u32);

impl Phases {
    /// Each roll's best box, reading the next layer.
    pub const SCORE: Phases = Phases(1);
    /// The two rerolls: average and choose, twice.
    pub const REROLLS: Phases = Phases(2);
    /// The start value, written out.
    pub const START: Phases = Phases(4);
    /// A whole turn.
    pub const TURN: Phases = Phases(7);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::Cards;
    use crate::game::{Game, Rules};

    #[test]
    fn batches_cover_a_tile_in_order() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(5).unwrap() });
        let space = Space::whole_game(&cards);
        let shape = LayerShape::new(&space, 5);
        let tile = Tile::new(&space, &shape, 2..shape.movers.len() - 1, 0..shape.opponents.len());
        for per in [1, 3, 1000, usize::MAX] {
            let (mut movers, mut values) = (tile.movers.start, 0);
            for (these, into) in batches(&tile, per) {
                assert!(these.start == movers && !these.is_empty() && these.len() <= per, "{these:?}");
                assert_eq!(into, tile.rows(these.clone()));
                assert_eq!(into.start, values);
                (movers, values) = (these.end, into.end);
            }
            assert_eq!((movers, values as u64), (tile.movers.end, tile.positions()));
        }
        assert!(tile.movers.len() > 3, "{:?}", tile.movers);
    }
}
