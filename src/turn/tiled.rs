//! The turn of [`super::kernel`] over many lanes in tiles of `W` lanes, each tile's turn
//! in the L1 data cache.
//!
//! [`super::TurnBuffer`] keeps a lane vector per keep over all its lanes: wide vectors
//! stream from L2 in the average phase, six of them per keep. Here the lanes are cut in
//! tiles of `W` and the buffer is laid out tile by tile (a vector of `W` lanes per keep,
//! tiles [`TILE_STRIDE`] vectors apart), so a tile's turn touches 462 vectors of `W`
//! numbers (59 KB for 32 `f32`: mostly in L1 where that is 48 KiB, in L2 where it is 32
//! KiB). The rolls are scored for every tile at once (each roll's boxes found once for
//! all of them, where strips found them per strip), then each tile runs its two rerolls
//! and its start value with its vectors as fixed-size arrays.
//!
//! Every lane's numbers go through the same operations in the same order as in
//! [`super::TurnBuffer::solve`] (a tile's lanes never meet another tile's), so the values
//! are the kernel's bit for bit. One plane only: a value with a follower (P(draw)) runs
//! on [`super::TurnBuffer`].

use super::kernel::{ChooseRun, EDGES};
use super::lanes::{Lane, lane_max};
use crate::game::dice::{NUM_FACES, NUM_KEEPS, NUM_PARTIAL_KEEPS};
use crate::game::{NUM_ROLLS, RollId};

/// Lanes per tile of the two-player turn: 32 `f32` (two AVX-512 registers, four AVX2 ones
/// per vector). On full-game layers 12-18 (one thread, AVX-512) 32-lane tiles ran at
/// 3.9e10 lane-updates/s against 3.0e10 for 512-lane strips on Zen 5, 16-lane tiles at
/// 3.1-3.4e10 and 64-lane ones level with 32; on Zen 4 (32 KiB L1d, where 16-lane tiles
/// fit it and 32-lane ones do not) 32-lane tiles at 2.5-2.6e10, 16-lane ones at
/// 2.1-2.3e10 and 64-lane ones within the runs' spread of 32 (`docs/benchmarks.md`).
pub const TILE_LANES: usize = 32;

/// Vectors a tile's phases may index: one per keep ([`NUM_KEEPS`]), padded to a power of
/// two so that a keep index masked to it (`& (TILE_VECTORS - 1)`, which leaves every keep
/// index as it is) needs no bounds check in the hot loops. The padding is never read or
/// written, so it takes no room in the cache.
const TILE_VECTORS: usize = 512;
const _: () = assert!(TILE_VECTORS.is_power_of_two() && TILE_VECTORS >= NUM_KEEPS);

/// Vectors from one tile to the next in a [`TiledTurn`]: one more than the 512 a tile's
/// phases index (a vector per keep, padded to a power of two so that a masked keep index
/// needs no bounds check), so that the tiles' vectors of one keep (which the scoring
/// writes one after another) lie in different cache sets, not a power of two bytes apart.
pub const TILE_STRIDE: usize = TILE_VECTORS + 1;

/// A lane vector of one tile, on a cache line boundary.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Vector<N, const W: usize>(pub [N; W]);

/// How rolls are scored into a tiled turn: the value of scoring each roll now, for every
/// tile.
pub trait TileScorer<N: Lane, const W: usize> {
    /// Writes the value of scoring `roll` in its best open box for every tile `t` (lanes
    /// `t · W..(t + 1) · W` of the turn) to `vectors[t · TILE_STRIDE + keep]`, `keep`
    /// being the roll's keep id.
    fn score_tiles(&self, roll: RollId, vectors: &mut [Vector<N, W>], keep: usize);

    /// The first roll that scores as `roll` does in every lane (`roll` itself where no
    /// earlier one does): [`TiledTurn::score_rolls`] copies that roll's vectors instead of
    /// scoring `roll` again, as [`super::RollScorer::first_alike`] for strips.
    #[inline(always)]
    fn first_alike(&self, roll: RollId) -> RollId {
        roll
    }
}

/// Working memory of a tiled turn: a vector per keep and tile, tile by tile
/// ([`TILE_STRIDE`] apart).
#[derive(Clone, Debug)]
pub struct TiledTurn<N, const W: usize> {
    vectors: Vec<Vector<N, W>>,
    /// Tiles of the turn under way (set by [`TiledTurn::score_rolls`]).
    tiles: usize,
}

impl<N: Lane, const W: usize> Default for TiledTurn<N, W> {
    fn default() -> TiledTurn<N, W> {
        TiledTurn { vectors: Vec::new(), tiles: 0 }
    }
}

impl<N: Lane, const W: usize> TiledTurn<N, W> {
    /// A whole turn over `tiles` tiles: scores the rolls with `scorer`, runs the two
    /// rerolls and writes the value at the start of the turn of lane `i` to `out[i]`
    /// (`out` holds `tiles · W` lanes). Each tile runs its phases back to back, so that
    /// its vectors stay in L1 from the first reroll to the start value.
    #[inline(always)]
    pub fn solve(&mut self, tiles: usize, scorer: &impl TileScorer<N, W>, out: &mut [N]) {
        self.score_rolls(tiles, scorer);
        assert_eq!(out.len(), tiles * W, "a start value per lane of the tiles");
        for t in 0..tiles {
            let tile = self.tile(t);
            for _ in 0..2 {
                average(tile);
                choose(tile);
            }
            out[t * W..(t + 1) * W].copy_from_slice(&start_value(tile).0);
        }
    }

    /// The first phase of a turn over `tiles` tiles: the value of scoring each roll now,
    /// from `scorer`. The phases after it ([`TiledTurn::average_keeps`],
    /// [`TiledTurn::choose_keeps`], [`TiledTurn::start_values`]) run over these tiles.
    #[inline(always)]
    pub fn score_rolls(&mut self, tiles: usize, scorer: &impl TileScorer<N, W>) {
        self.tiles = tiles;
        if self.vectors.len() < tiles * TILE_STRIDE {
            self.vectors.resize(tiles * TILE_STRIDE, Vector([N::ZERO; W]));
        }
        let vectors = &mut self.vectors[..tiles * TILE_STRIDE];
        for roll in RollId::all() {
            let (alike, keep) = (scorer.first_alike(roll), roll.as_keep().0 as usize);
            if alike == roll {
                scorer.score_tiles(roll, vectors, keep);
            } else {
                let from = alike.as_keep().0 as usize;
                for t in 0..tiles {
                    vectors[t * TILE_STRIDE + keep] = vectors[t * TILE_STRIDE + from];
                }
            }
        }
    }

    /// Every tile's average phase: a keep of fewer than five dice becomes the mean of its
    /// six one-die extensions. [`TiledTurn::solve`] runs it tile by tile; alone it serves
    /// to time the phase.
    #[inline(always)]
    pub fn average_keeps(&mut self) {
        for t in 0..self.tiles {
            average(self.tile(t));
        }
    }

    /// Every tile's choose phase: a keep becomes the best of itself and its sub-keeps.
    #[inline(always)]
    pub fn choose_keeps(&mut self) {
        for t in 0..self.tiles {
            choose(self.tile(t));
        }
    }

    /// Every tile's value at the start of the turn, lane `i`'s to `out[i]`.
    #[inline(always)]
    pub fn start_values(&mut self, out: &mut [N]) {
        assert_eq!(out.len(), self.tiles * W, "a start value per lane of the tiles");
        for t in 0..self.tiles {
            out[t * W..(t + 1) * W].copy_from_slice(&start_value(self.tile(t)).0);
        }
    }

    /// Tile `t` of the turn: a vector per keep. Plain indexing, no iterator adaptors: the
    /// phases must inline into the caller's SIMD copy ([`super::simd::dispatch`]).
    #[inline(always)]
    fn tile(&mut self, t: usize) -> &mut Tile<N, W> {
        (&mut self.vectors[t * TILE_STRIDE..][..TILE_VECTORS]).try_into().expect("a tile holds TILE_VECTORS vectors")
    }
}

/// One tile's vectors: one per keep, then padding.
type Tile<N, const W: usize> = [Vector<N, W>; TILE_VECTORS];

/// Where keep `keep`'s vector lies in a tile: `keep` itself, masked so that indexing
/// a [`Tile`] needs no check.
#[inline(always)]
fn at(keep: u16) -> usize {
    usize::from(keep) & (TILE_VECTORS - 1)
}

/// Keeps of fewer than five dice become the mean of their six one-die extensions, in
/// decreasing size, summed in extension order as [`super::lanes::sum6_scaled`] sums.
#[inline(always)]
fn average<N: Lane, const W: usize>(tile: &mut Tile<N, W>) {
    let sixth = N::from_f64(1.0 / 6.0);
    let add_die: &[[u16; NUM_FACES]; NUM_PARTIAL_KEEPS] =
        EDGES.add_die.as_slice().try_into().expect("an extension row per partial keep");
    for keep in (0..NUM_PARTIAL_KEEPS).rev() {
        let [a, b, c, d, e, f] = add_die[keep].map(|next| &tile[at(next)].0);
        let mut sum = [N::ZERO; W];
        for k in 0..W {
            sum[k] = (a[k] + b[k] + c[k] + d[k] + e[k] + f[k]) * sixth;
        }
        tile[keep].0 = sum;
    }
}

/// Every keep becomes the best of itself and its sub-keeps, in increasing size, run by
/// run (keeps of one size with as many sub-keeps each).
#[inline(always)]
fn choose<N: Lane, const W: usize>(tile: &mut Tile<N, W>) {
    choose_runs(tile, &EDGES.choose_runs);
}

/// The keeps of `runs`, run by run, each with the loop of its number of sub-keeps.
#[inline(always)]
fn choose_runs<N: Lane, const W: usize>(tile: &mut Tile<N, W>, runs: &[ChooseRun]) {
    for run in runs {
        match run.subs {
            1 => choose_run::<N, W, 1>(tile, &run.keeps),
            2 => choose_run::<N, W, 2>(tile, &run.keeps),
            3 => choose_run::<N, W, 3>(tile, &run.keeps),
            4 => choose_run::<N, W, 4>(tile, &run.keeps),
            _ => choose_run::<N, W, 5>(tile, &run.keeps),
        }
    }
}

/// The keeps of one run of `S` sub-keeps each.
#[inline(always)]
fn choose_run<N: Lane, const W: usize, const S: usize>(tile: &mut Tile<N, W>, keeps: &[(u16, [u16; NUM_FACES - 1])]) {
    for (keep, subs) in keeps {
        tile[at(*keep)].0 = best_of::<N, W, S>(tile, *keep, subs);
    }
}

/// The best of keep `keep` and its first `S` sub-keeps `subs`, as [`choose_run`] finds it.
#[inline(always)]
fn best_of<N: Lane, const W: usize, const S: usize>(
    tile: &Tile<N, W>,
    keep: u16,
    subs: &[u16; NUM_FACES - 1],
) -> [N; W] {
    let mut best = tile[at(keep)].0;
    for &sub in &subs[..S] {
        let sub = &tile[at(sub)].0;
        for k in 0..W {
            best[k] = lane_max(best[k], sub[k]);
        }
    }
    best
}

/// `Σ P(roll) · value(roll)` in roll order, as [`super::TurnBuffer::start_value`] sums.
#[inline(always)]
fn start_value<N: Lane, const W: usize>(tile: &Tile<N, W>) -> Vector<N, W> {
    let mut sum = [N::ZERO; W];
    for (roll, &probability) in tile[NUM_PARTIAL_KEEPS..NUM_KEEPS].iter().zip(&EDGES.roll_probability) {
        let weight = N::from_f64(probability);
        for (sum, &value) in sum.iter_mut().zip(&roll.0) {
            *sum = *sum + weight * value;
        }
    }
    debug_assert_eq!(NUM_KEEPS - NUM_PARTIAL_KEEPS, NUM_ROLLS);
    Vector(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::TurnBuffer;

    /// Values of scoring each roll now, lane by lane: a fixed sequence in [0, 1) with
    /// many ties, so that the maxima's choices vary from lane to lane.
    struct Made {
        lanes: usize,
        values: Vec<f64>,
    }

    impl Made {
        fn new(lanes: usize) -> Made {
            let mut state = 0x2545_f491_u32;
            let values = (0..NUM_ROLLS * lanes)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    f64::from(state % 97) / 97.0
                })
                .collect();
            Made { lanes, values }
        }

        fn roll<N: Lane>(&self, roll: RollId) -> impl Iterator<Item = N> + '_ {
            let start = roll.0 as usize * self.lanes;
            self.values[start..start + self.lanes].iter().map(|&v| N::from_f64(v))
        }
    }

    impl<N: Lane, const W: usize> TileScorer<N, W> for Made {
        fn score_tiles(&self, roll: RollId, vectors: &mut [Vector<N, W>], keep: usize) {
            let values: Vec<N> = self.roll(roll).collect();
            for (t, lanes) in values.chunks_exact(W).enumerate() {
                vectors[t * TILE_STRIDE + keep].0.copy_from_slice(lanes);
            }
        }
    }

    /// Three tiles' turns are the lanes' turns of [`TurnBuffer::solve`] bit for bit, for
    /// `f32` and `f64`, and a second solve in the same memory gives them again.
    #[test]
    fn tiles_give_the_turn_buffer_s_values_bit_for_bit() {
        fn check<N: Lane>(bits: impl Fn(N) -> u64) {
            let made = Made::new(3 * TILE_LANES);
            let mut buffer = TurnBuffer::<N>::new(made.lanes);
            let mut whole = vec![N::ZERO; made.lanes];
            let scorer = |roll: RollId, out: &mut [N]| {
                for (o, v) in out.iter_mut().zip(made.roll::<N>(roll)) {
                    *o = v;
                }
            };
            buffer.solve(&scorer, &mut whole);
            let mut tiled = TiledTurn::<N, TILE_LANES>::default();
            for _ in 0..2 {
                let mut tiles = vec![N::ZERO; made.lanes];
                tiled.solve(3, &made, &mut tiles);
                assert!(whole.iter().zip(&tiles).all(|(&a, &b)| bits(a) == bits(b)), "{whole:?}\n{tiles:?}");
            }
        }
        check::<f32>(|x| u64::from(x.to_bits()));
        check::<f64>(f64::to_bits);
    }
}
