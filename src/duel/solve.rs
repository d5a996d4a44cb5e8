//! The pairs of a layer of two-player Yahtzee solved from the layer after it (Pawlewicz §4,
//! App. D); the sweep over layers is [`crate::duel::sweep`]'s.
//!
//! A position between turns is (mover's card A, opponent's card B, d = A's points − B's).
//! Layer `t` holds the positions with `t` boxes filled on both cards together; the mover
//! has `⌊t/2⌋` of them. Every successor of a layer-`t` position lies in layer `t + 1`, so
//! the sweep runs from the last layer in which someone moves down to the first.
//!
//! **One pair is one turn.** Within A's turn, B and d do not change, so the positions of
//! a pair (A, B) are one turn of the kernel with lanes over d, from the window's `lo` on.
//! Scoring `p` points moves A to A' and hands the turn over: the mover's value is
//! `flip(W(B, A', −(d + p)))`, the successor pair's lane vector read reversed and shifted.
//! Per successor A' the solver lays that reversed vector out once, indexed by `x = d + p`,
//! so scoring a roll is the same shifted maximum as in the target tables.
//!
//! **Reads outside a window.** A successor's difference outside its window is decided
//! (won or lost whatever happens; [`super::cards::decided`]) and gives `WIN` or `LOSS`;
//! after the very last turn the sign of the difference decides. A difference inside the
//! decided bounds but outside what the filled boxes can produce is never read for a real
//! lane (the bounds of A' contain A's plus the points); the lanes the block padding adds
//! may read it and get the nearest stored value.
//!
//! **Tiles and strips.** A wide window's turn does not fit a core's L1 (462 lane vectors
//! of 1,000 lanes are 1.8 MB of `f32`), so every phase would stream from L2 or L3. Lanes
//! never interact, so a pair's turn of plain `f32` values runs in tiles of
//! [`TILE_LANES`] ([`crate::turn::tiled`]: the rolls scored for every tile at once, then
//! each tile's rerolls in L1), and a turn of other values (a follower plane: P(draw)) in
//! strips of equal width, at most [`strip_lanes`], each strip a whole turn over its lanes.
//! Either way every lane's arithmetic is the same as in one turn over the whole window,
//! bit for bit.
//!
//! **Reads of the next layer.** A pair's successor rows read pairs of the next layer, which
//! lie in memory far beyond the caches. Each pair's turn asks the core for the next pair's
//! reads (where it has the same mover, whose plan says which they are) before it computes,
//! so that they arrive in L2 during the turn rather than stall the next pair's rows
//! (`prefetch_after_turn`).
//!
//! **Determinism.** Each pair is computed alone from the finished next layer, in a fixed
//! order of operations, so the values do not depend on the number of threads (or, in the
//! cluster solve, of ranks). Ties between equally good choices keep the earlier candidate:
//! the first open box in card order, and among keeps the larger one (kept dice first).

use std::any::Any;
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::cards::{Cards, decided, window};
use super::layout::{LayerShape, Tile, window_len};
use super::space::Space;
use super::value::DuelValue;
use crate::game::StateId;
use crate::game::dice::NUM_KEEPS;
use crate::turn::lanes::{BLOCK, Lane, join_planes, padded_lanes, prefetch_to_l2};
use crate::turn::plan::FlatEntries;
use crate::turn::simd::{self, SimdWork};
use crate::turn::tiled::{TILE_LANES, TiledTurn};
use crate::turn::{ScoringPlan, Shift, TurnBuffer};

/// The solved values of one whole layer.
#[derive(Clone, Debug)]
pub struct LayerValues<V> {
    /// Which cards, and where each mover's row starts.
    pub shape: Arc<LayerShape>,
    /// Where each pair starts: the whole layer as one rectangle.
    pub tile: Tile,
    /// One value per position, in the layer's order.
    pub values: Vec<V>,
}

impl<V: DuelValue> LayerValues<V> {
    /// The value of the position (`mover`, `opponent`, `d`), decided differences included;
    /// `None` if the cards are not in the layer or `d` cannot occur for them.
    pub fn value(&self, space: &Space, mover: StateId, opponent: StateId, d: i32) -> Option<V> {
        let cards = space.cards();
        let m = space.movers(self.shape.layer).position(mover)?;
        let o = space.opponents(self.shape.layer).position(opponent)?;
        let (bm, bo) = (cards.bounds(mover), cards.bounds(opponent));
        if let Some(won) = decided(bm, bo, d) {
            return Some(if won { V::WIN } else { V::LOSS });
        }
        let (lo, hi) = window(bm, bo);
        (lo..=hi).contains(&d).then(|| self.values[self.tile.pair_range(m, o).start + (d - lo) as usize])
    }
}

/// Where a pair's turn reads the values of the next layer: the pair of that layer at mover
/// position `m`, opponent position `o`. A pair of layer `t` whose opponent is `B` reads
/// only the row of mover `B` in layer `t + 1`, which is what lets a rank of the cluster
/// solve hold a part of a layer.
pub trait NextValues<V>: Sync {
    /// The values of the pair (`m`, `o`) of the next layer, one per difference of its window.
    fn pair(&self, m: usize, o: usize) -> &[V];
}

/// Some consecutive movers' rows of a solved layer: their pairs with every opponent.
#[derive(Clone, Copy, Debug)]
pub struct LayerRows<'a, V> {
    /// Where each pair of the rows lies in `values`.
    pub tile: &'a Tile,
    /// The rows' values, in layer order.
    pub values: &'a [V],
}

impl<V: Sync> NextValues<V> for LayerRows<'_, V> {
    /// # Panics
    /// If mover `m` is not among the rows held.
    fn pair(&self, m: usize, o: usize) -> &[V] {
        &self.values[self.tile.pair_range(m, o)]
    }
}

impl<V> LayerValues<V> {
    /// Every row of the layer.
    pub fn rows(&self) -> LayerRows<'_, V> {
        LayerRows { tile: &self.tile, values: &self.values }
    }
}

/// Bytes of a strip's turn buffer (its lane vectors, one per keep) at most: a Zen 4 core's
/// L2. Measured on sampled full-game layers (`benches/duel.rs`), strips of 512 `f32` lanes
/// solve the wide layers 2-6% faster than whole windows; strips of 256 lanes cost more per
/// strip than the cache saves (6% slower on layer 24, whose windows have 180-340 lanes).
pub const STRIP_BYTES: usize = 1 << 20;

/// Lanes per strip for values of type `V`: the largest power of two (at least [`BLOCK`])
/// whose turn buffer fits [`STRIP_BYTES`]: 512 for `f32`, 256 for `f64`.
pub fn strip_lanes<V>() -> usize {
    let fits = STRIP_BYTES / (NUM_KEEPS * std::mem::size_of::<V>());
    1 << fits.max(BLOCK).ilog2()
}

/// Solves the pairs of the rectangle `tile` of layer `shape.layer`, reading the next layer
/// from `next` (`None` when the next layer is the end of the game). Returns their values in
/// the tile's order: by mover, then opponent.
pub fn solve_tile<V: DuelValue>(
    space: &Space,
    shape: &LayerShape,
    next: Option<&impl NextValues<V>>,
    tile: &Tile,
) -> Vec<V> {
    solve_pairs(space, shape, next, tile, TurnLayout::of::<V>(), &|| false)
        .expect("a tile never stopped is solved whole")
}

/// How a pair's turn goes over its lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TurnLayout {
    /// In tiles of [`TILE_LANES`] ([`crate::turn::tiled`]): plain `f32` values.
    Tiles,
    /// In strips of at most this many lanes, each a whole [`TurnBuffer`] turn.
    Strips(usize),
}

impl TurnLayout {
    /// The faster layout for values of type `V`: tiles for one plane of `f32`, else strips
    /// of [`strip_lanes`].
    fn of<V: DuelValue>() -> TurnLayout {
        if V::PLANES == 1 && std::mem::size_of::<V::Number>() == 4 {
            TurnLayout::Tiles
        } else {
            TurnLayout::Strips(strip_lanes::<V>())
        }
    }

    /// Lanes of the turn of a pair whose window has `n` differences: whole tiles, or
    /// whole blocks.
    fn lanes(self, n: usize) -> usize {
        match self {
            TurnLayout::Tiles => n.next_multiple_of(TILE_LANES),
            TurnLayout::Strips(_) => padded_lanes(n),
        }
    }
}

/// [`solve_tile`] with each pair's turn in strips of at most `strip` lanes (a multiple of
/// [`BLOCK`]; `usize::MAX` for one turn over the whole window): the same values for any
/// `strip`, at a different speed.
pub fn solve_tile_in_strips<V: DuelValue>(
    space: &Space,
    shape: &LayerShape,
    next: Option<&impl NextValues<V>>,
    tile: &Tile,
    strip: usize,
) -> Vec<V> {
    solve_pairs(space, shape, next, tile, TurnLayout::Strips(strip), &|| false)
        .expect("a tile never stopped is solved whole")
}

/// [`solve_tile`] that gives up once `stop` says so (whoever asked has gone): `stop` is
/// asked before each pair's turn, so a large tile stops within a turn, not at its end.
/// `None` when it stopped.
pub fn solve_tile_until<V: DuelValue>(
    space: &Space,
    shape: &LayerShape,
    next: Option<&impl NextValues<V>>,
    tile: &Tile,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<V>> {
    solve_pairs(space, shape, next, tile, TurnLayout::of::<V>(), stop)
}

/// The pairs of `tile`, each turn laid out as `layout` says, unless `stop` says to give up.
fn solve_pairs<V: DuelValue>(
    space: &Space,
    shape: &LayerShape,
    next: Option<&impl NextValues<V>>,
    tile: &Tile,
    layout: TurnLayout,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<V>> {
    let mut values = vec![V::NOTHING; tile.positions() as usize];
    let mut outputs: Vec<(usize, usize, &mut [V])> = Vec::with_capacity(tile.movers.len() * tile.opponents.len());
    let mut rest = values.as_mut_slice();
    for m in tile.movers.clone() {
        for o in tile.opponents.clone() {
            let (out, tail) = rest.split_at_mut(tile.pair_range(m, o).len());
            if !out.is_empty() {
                outputs.push((m, o, out));
            }
            rest = tail;
        }
    }
    let layer = shape.layer;
    let widest = outputs.iter().map(|(_, _, out)| out.len().next_multiple_of(TILE_LANES)).max().unwrap_or(0);
    // The strips' turn buffer: a strip, or the widest window if narrower; a tiled turn
    // keeps its own, and the strips' is left at its least.
    let buffer_lanes = match layout {
        TurnLayout::Strips(strip) => {
            let lanes = strip.min(widest.max(BLOCK));
            assert!(lanes > 0 && lanes % BLOCK == 0, "a strip of {lanes} lanes is not whole blocks");
            lanes
        }
        TurnLayout::Tiles => BLOCK,
    };
    let stopped = AtomicBool::new(false);
    outputs.into_par_iter().for_each_init(
        || Lease::<V>::take(buffer_lanes),
        |Lease(scratch), (m, o, out)| {
            if stopped.load(Ordering::Relaxed) || stop() {
                stopped.store(true, Ordering::Relaxed);
                return;
            }
            let scratch = scratch.as_mut().expect("a lease holds its scratch until dropped");
            let (mover, opponent) = (shape.movers[m], shape.opponents[o]);
            if scratch.plan_of != Some(mover) {
                scratch.set_mover(space.cards(), mover, widest, layout);
            }
            // The turn brings in the next pair's reads of the next layer where it has the
            // same mover (whose plan says which successors those are). Found from the tile,
            // not listed: the plan counts 32 bytes per pair for `outputs` and no more.
            let ahead = (o + 1..tile.opponents.end)
                .find(|&next| !tile.pair_range(m, next).is_empty())
                .map(|next| shape.opponents[next]);
            simd::dispatch(PairTurn { space, layer, next, mover, opponent, ahead, layout, scratch, out });
        },
    );
    (!stopped.into_inner()).then_some(values)
}

thread_local! {
    /// Each thread's pair scratch of the last tile it solved, of whatever lane type. A
    /// tile's work is split into jobs, and each job would otherwise allocate and zero its
    /// own turn buffer (about 1 MB): on small tiles (the plan's samples, solves below a
    /// position) that cost more than the turns themselves.
    static SPARE: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

/// A job's pair scratch, taken from this thread's [`SPARE`] (or made) and put back there
/// when the job ends.
struct Lease<V: DuelValue>(Option<PairScratch<V>>);

impl<V: DuelValue> Lease<V> {
    /// Scratch for strips of `strip` lanes, with no mover planned.
    fn take(strip: usize) -> Lease<V> {
        let spare = SPARE.with(|spare| spare.borrow_mut().take()).and_then(|b| b.downcast::<PairScratch<V>>().ok());
        let scratch = match spare {
            Some(mut scratch) => {
                scratch.plan_of = None;
                scratch.out.resize(scratch.out.len().max(V::PLANES * strip), <V::Number as Lane>::ZERO);
                *scratch
            }
            None => PairScratch::new(strip),
        };
        Lease(Some(scratch))
    }
}

impl<V: DuelValue> Drop for Lease<V> {
    fn drop(&mut self) {
        if let Some(scratch) = self.0.take() {
            SPARE.with(|spare| *spare.borrow_mut() = Some(Box::new(scratch)));
        }
    }
}

/// Per-thread working memory, sized once so that no pair's turn allocates.
struct PairScratch<V: DuelValue> {
    /// A strip's turn.
    buffer: TurnBuffer<V>,
    /// A tiled turn (one plane).
    tiled: TiledTurn<V::Number, TILE_LANES>,
    /// How the mover's turn can end, shared by every opponent of the mover.
    plan: ScoringPlan<StateId>,
    plan_of: Option<StateId>,
    /// Per successor: the mover's value after scoring, by `x = d + p` from the window's
    /// `lo` plus the fewest points leading there, as planes (a strip's turn).
    successors: Vec<Vec<V::Number>>,
    /// The same rows for a tiled turn (one plane), in one buffer, `row_stride` apart.
    flat_rows: Vec<V::Number>,
    /// Where a tiled turn reads each roll's boxes in `flat_rows`, for the mover planned.
    flat_entries: FlatEntries,
    /// Numbers from one row of `flat_rows` to the next: the longest row of the tile's
    /// widest window.
    row_stride: usize,
    /// A strip's values as planes (a tiled turn's: all its lanes), padding lanes included.
    out: Vec<V::Number>,
}

impl<V: DuelValue> PairScratch<V> {
    fn new(strip: usize) -> PairScratch<V> {
        PairScratch {
            buffer: TurnBuffer::new(strip),
            tiled: TiledTurn::default(),
            plan: ScoringPlan::new(Shift::Up),
            plan_of: None,
            successors: Vec::new(),
            flat_rows: Vec::new(),
            flat_entries: FlatEntries::default(),
            row_stride: 0,
            out: vec![<V::Number as Lane>::ZERO; V::PLANES * strip],
        }
    }

    /// Plans `mover`'s turns, with successor rows long enough for windows of `widest`
    /// lanes, laid out for `layout`: one buffer for tiles, a row each for strips.
    fn set_mover(&mut self, cards: &Cards, mover: StateId, widest: usize, layout: TurnLayout) {
        cards.plan_turn(mover, &mut self.plan);
        self.plan_of = Some(mover);
        let count = self.plan.successors().len();
        let spread = (0..count).map(|k| self.plan.points(k)).map(|(least, most)| (most - least) as usize).max();
        let longest = widest + spread.unwrap_or(0);
        match layout {
            TurnLayout::Tiles => {
                self.row_stride = longest;
                self.flat_rows.resize(count * longest, <V::Number as Lane>::ZERO);
                self.plan.flat_entries(longest, &mut self.flat_entries);
            }
            TurnLayout::Strips(_) => {
                self.successors.resize_with(self.successors.len().max(count), Vec::new);
                for row in &mut self.successors {
                    row.clear();
                    row.reserve(V::PLANES * longest);
                }
            }
        }
    }
}

/// One pair's turn with lanes over its window, in even strips of at most `strip` lanes.
struct PairTurn<'s, 'a, V: DuelValue, N> {
    space: &'s Space<'a>,
    layer: usize,
    next: Option<&'s N>,
    mover: StateId,
    opponent: StateId,
    /// The opponent of the pair after this one where it has the same mover: its reads of
    /// the next layer are prefetched during this turn.
    ahead: Option<StateId>,
    layout: TurnLayout,
    scratch: &'s mut PairScratch<V>,
    out: &'s mut [V],
}

impl<V: DuelValue, N: NextValues<V>> SimdWork for PairTurn<'_, '_, V, N> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        let PairTurn { space, layer, next, mover, opponent, ahead, layout, scratch, out } = self;
        let cards = space.cards();
        let (lo, _) = window(cards.bounds(mover), cards.bounds(opponent));
        let n = out.len();
        let lanes = layout.lanes(n);
        let plan = &scratch.plan;
        let count = plan.successors().len();
        // Plain loops, no closures: a closure would be a function of its own, compiled
        // without the instruction set `simd::dispatch` chose. Lane 0 is `x = lo`.
        match layout {
            TurnLayout::Tiles => {
                let rows = scratch.flat_rows.chunks_exact_mut(scratch.row_stride);
                for ((k, &card), row) in plan.successors().iter().enumerate().zip(rows) {
                    let (start, len) = plan.row_span(k, lanes);
                    fill_after_turn(space, layer, next, opponent, card, lo + start as i32, &mut row[..len]);
                }
            }
            TurnLayout::Strips(_) => {
                for ((k, &card), row) in plan.successors().iter().enumerate().zip(&mut scratch.successors) {
                    let (start, len) = plan.row_span(k, lanes);
                    row.resize(V::PLANES * len, <V::Number as Lane>::ZERO);
                    fill_after_turn(space, layer, next, opponent, card, lo + start as i32, row);
                }
            }
        }
        if let (Some(next), Some(ahead)) = (next, ahead) {
            prefetch_after_turn(space, layer, next, plan, (mover, ahead), layout);
        }
        let strip = match layout {
            TurnLayout::Tiles => {
                let scorer = plan.tile_scorer(&scratch.flat_entries, &scratch.flat_rows);
                scratch.out.resize(scratch.out.len().max(lanes), <V::Number as Lane>::ZERO);
                let values = &mut scratch.out[..lanes];
                scratch.tiled.solve(lanes / TILE_LANES, &scorer, values);
                join_planes(values, out);
                return;
            }
            TurnLayout::Strips(strip) => strip,
        };
        // Strips of equal width (whole blocks), at most `strip`: no narrow last strip.
        let even = lanes.div_ceil(lanes.div_ceil(strip)).next_multiple_of(BLOCK);
        for first in (0..lanes).step_by(even) {
            let width = even.min(lanes - first);
            scratch.buffer.set_lanes(width);
            let scorer = plan.scorer(&scratch.successors[..count], first, width);
            let planes = &mut scratch.out[..V::PLANES * width];
            scratch.buffer.solve(&scorer, planes);
            let real = width.min(n - first);
            join_planes(planes, &mut out[first..first + real]);
        }
    }
}

/// Where the row of successor `card` comes from, for `len` consecutive `x = d + points`
/// from `x_start` of a pair whose opponent is `opponent`: lane `i` reads `e = −(x_start + i)`,
/// which falls as `i` grows, so the lanes split into runs of won (`..won_end`), stored
/// (clamped to the window: its top `won_end..above`, the window reversed `above..below`,
/// its bottom `below..lost_start`) and lost (`lost_start..`) values.
struct SuccessorRow<'n, V> {
    won_end: usize,
    above: usize,
    below: usize,
    lost_start: usize,
    /// The next layer's values of the pair (`opponent`, `card`); empty where its window is.
    stored: &'n [V],
    /// The index in `stored` that lane `above` reads.
    top: usize,
}

impl<'n, V: DuelValue> SuccessorRow<'n, V> {
    /// The runs of the row of `card` (see the module docs for reads outside a window),
    /// which lies in layer `layer + 1`.
    #[inline(always)]
    fn new(
        space: &Space,
        layer: usize,
        next: &'n impl NextValues<V>,
        (opponent, card): (StateId, StateId),
        x_start: i32,
        len: usize,
    ) -> SuccessorRow<'n, V> {
        let cards = space.cards();
        let (bo, bc) = (cards.bounds(opponent), cards.bounds(card));
        let (won_above, lost_below) = (bc.future_max - bo.future_min, bc.future_min - bo.future_max);
        let (lo, hi) = window(bo, bc);
        let stored: &[V] = if lo <= hi {
            let m = space.movers(layer + 1).position(opponent).expect("the opponent moves next");
            let o = space.opponents(layer + 1).position(card).expect("the mover's next card is in the space");
            next.pair(m, o)
        } else {
            &[]
        };
        let lane_of = |e: i32| (-x_start - e).clamp(0, len as i32) as usize;
        let won_end = lane_of(won_above);
        let lost_start = lane_of(lost_below - 1).max(won_end);
        let (above, below) = if stored.is_empty() {
            (lost_start, lost_start)
        } else {
            (lane_of(hi).clamp(won_end, lost_start), lane_of(lo - 1).clamp(won_end, lost_start))
        };
        let top = (-x_start - above as i32 - lo).max(0) as usize;
        SuccessorRow { won_end, above, below, lost_start, stored, top }
    }

    /// The stored values lanes `above..below` read, in the order they lie (the lanes read
    /// them reversed).
    #[inline(always)]
    fn read(&self) -> &'n [V] {
        let Some(last) = self.stored.len().checked_sub(1) else { return &[] };
        let top = self.top.min(last);
        let count = (self.below - self.above).min(top + 1);
        &self.stored[top + 1 - count..=top]
    }
}

/// Fills `row` (as planes, `len` lanes each) with the mover's values after scoring into
/// `card`, for `len` consecutive `x = d + points` from `x_start`: the flipped value for the
/// player to move next, `opponent`, of (`opponent`, `card`, `−x`), which lies in layer
/// `layer + 1` (see the module docs for reads outside a window).
#[inline(always)]
fn fill_after_turn<V: DuelValue>(
    space: &Space,
    layer: usize,
    next: Option<&impl NextValues<V>>,
    opponent: StateId,
    card: StateId,
    x_start: i32,
    row: &mut [V::Number],
) {
    let len = row.len() / V::PLANES;
    let Some(next) = next else {
        debug_assert_eq!(layer + 1, space.end_layer());
        for (p, plane) in row.chunks_exact_mut(len.max(1)).enumerate() {
            for (number, x) in plane.iter_mut().zip(x_start..) {
                let v = match (-x).cmp(&0) {
                    std::cmp::Ordering::Greater => V::WIN,
                    std::cmp::Ordering::Equal => V::DRAW,
                    std::cmp::Ordering::Less => V::LOSS,
                };
                *number = v.flip().plane(p);
            }
        }
        return;
    };
    let runs = SuccessorRow::new(space, layer, next, (opponent, card), x_start, len);
    let SuccessorRow { won_end, above, below, lost_start, stored, .. } = runs;
    let read = runs.read();
    for (p, plane) in row.chunks_exact_mut(len.max(1)).enumerate() {
        plane[..won_end].fill(V::WIN.flip().plane(p));
        if stored.is_empty() {
            plane[won_end..lost_start].fill(V::DRAW.flip().plane(p));
        } else {
            plane[won_end..above].fill(stored[stored.len() - 1].flip().plane(p));
            for (number, value) in plane[above..below].iter_mut().zip(read.iter().rev()) {
                *number = value.flip().plane(p);
            }
            plane[below..lost_start].fill(stored[0].flip().plane(p));
        }
        plane[lost_start..].fill(V::LOSS.flip().plane(p));
    }
}

/// Asks the core to bring into its L2 the next layer's values that [`fill_after_turn`]
/// will read for the pair (`mover`, `opponent`) (`plan` being `mover`'s), its turn laid out
/// as `layout` says: issued a pair ahead, while the current pair's turn computes, so that
/// the next pair's rows do not wait on memory.
#[inline(always)]
fn prefetch_after_turn<V: DuelValue>(
    space: &Space,
    layer: usize,
    next: &impl NextValues<V>,
    plan: &ScoringPlan<StateId>,
    (mover, opponent): (StateId, StateId),
    layout: TurnLayout,
) {
    let cards = space.cards();
    let window = window(cards.bounds(mover), cards.bounds(opponent));
    let lanes = layout.lanes(window_len(window) as usize);
    for (k, &card) in plan.successors().iter().enumerate() {
        let (start, len) = plan.row_span(k, lanes);
        prefetch_to_l2(SuccessorRow::new(space, layer, next, (opponent, card), window.0 + start as i32, len).read());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::value::WinDraw;
    use crate::game::{Category, CategorySet, Game, Rules};

    fn start_value<V: DuelValue + bytemuck::Pod>(categories: CategorySet) -> V {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories });
        let space = Space::whole_game(&cards);
        let layer = crate::duel::sweep::solve_layers::<V>(&space, 0, |_| Ok(())).unwrap();
        assert_eq!(layer.values.len(), 1);
        layer.values[0]
    }

    #[test]
    fn yahtzee_alone_is_even_and_the_first_player_wins_q_times_one_minus_q() {
        let q = 2_783_176.0 / 6f64.powi(10);
        let v: WinDraw<f64> = start_value(CategorySet::EMPTY.with(Category::Yahtzee));
        assert!((v.value - 0.5).abs() < 1e-12, "{v:?}");
        assert!((v.win() - q * (1.0 - q)).abs() < 1e-12, "{v:?}");
        // f32 lanes: the same to single precision, the draw probability following the play.
        let v: WinDraw<f32> = start_value(CategorySet::EMPTY.with(Category::Yahtzee));
        assert!((v.value() - 0.5).abs() < 1e-5 && (v.win() - q * (1.0 - q)).abs() < 1e-5, "{v:?}");
    }

    /// Tiles (the solve's layout for `f32`) and strips of any width give the values of one
    /// turn over the whole window, on every layer of a game whose widest window is many
    /// tiles wide and whose narrowest is less than one.
    #[test]
    fn strips_and_tiles_give_the_values_of_whole_turns_bit_for_bit() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(5).unwrap() });
        let space = Space::whole_game(&cards);
        let (mut next, mut widest, mut narrowest): (Option<LayerValues<f32>>, usize, usize) = (None, 0, usize::MAX);
        for layer in (0..space.end_layer()).rev() {
            let shape = LayerShape::new(&space, layer);
            let tile = Tile::new(&space, &shape, 0..shape.movers.len(), 0..shape.opponents.len());
            let rows = next.as_ref().map(LayerValues::rows);
            let whole = solve_tile_in_strips(&space, &shape, rows.as_ref(), &tile, usize::MAX);
            for strip in [BLOCK, 3 * BLOCK] {
                let strips = solve_tile_in_strips(&space, &shape, rows.as_ref(), &tile, strip);
                assert!(whole.iter().zip(&strips).all(|(a, b)| a.to_bits() == b.to_bits()), "layer {layer}, {strip}");
            }
            assert_eq!(TurnLayout::of::<f32>(), TurnLayout::Tiles);
            let tiles = solve_tile(&space, &shape, rows.as_ref(), &tile);
            assert!(whole.iter().zip(&tiles).all(|(a, b)| a.to_bits() == b.to_bits()), "layer {layer}, tiles");
            assert_eq!(tiles.len(), whole.len());
            let pairs = (0..shape.movers.len()).flat_map(|m| (0..shape.opponents.len()).map(move |o| (m, o)));
            let windows: Vec<usize> = pairs.map(|(m, o)| tile.pair_range(m, o).len()).filter(|&n| n > 0).collect();
            widest = widest.max(windows.iter().copied().max().unwrap_or(0));
            narrowest = narrowest.min(windows.iter().copied().min().unwrap_or(usize::MAX));
            next = Some(LayerValues { shape: Arc::new(shape), tile, values: whole });
        }
        assert!(widest > 2 * TILE_LANES && narrowest < TILE_LANES, "windows of {narrowest} to {widest} lanes");
    }

    #[test]
    fn aces_alone_is_even() {
        let v: f64 = start_value(Rules::OFFICIAL.first(1).unwrap());
        assert!((v - 0.5).abs() < 1e-12, "{v}");
    }
}
