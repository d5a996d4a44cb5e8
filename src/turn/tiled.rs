//! The turn of [`super::kernel`] over many lanes in tiles of `W` lanes, each tile's turn
//! in the L1 data cache.
//!
//! [`super::TurnBuffer`] keeps a lane vector per keep over all its lanes: wide vectors
//! stream from L2 in the average phase, six of them per keep. Here the lanes are cut in
//! tiles of `W` and the buffer is laid out tile by tile (a vector of `W` lanes per keep,
//! tiles [`TILE_STRIDE`] vectors apart), so a tile's turn touches 462 vectors of `W`
//! numbers (29.6 KB for 16 `f32`: in L1). The tiles go four at a time (`STARTS_AT_ONCE`):
//! the rolls are scored for the four (each roll's boxes found once for all of them, from
//! offsets the scorer computed once per plan), then each tile runs its two rerolls: the
//! average and choose phases as straight-line code over registers (`keep_graph.rs`,
//! [`super::register`]), every keep a constant, so that no edge table shares the L1 with
//! the tile. The four tiles' start values follow together; the four tiles' vectors
//! (131 KB) stay in L2 from their scoring to their start values.
//!
//! Every lane's numbers go through the same operations in the same order as in
//! [`super::TurnBuffer::solve`] (a tile's lanes never meet another tile's), so the values
//! are the kernel's bit for bit. One plane only: a value with a follower (P(draw)) runs
//! on [`super::TurnBuffer`].

use std::ops::Range;

use super::keep_graph::{self, KeepSteps};
use super::kernel::EDGES;
use super::lanes::Lane;
use super::register::{Register, RegisterWork};
use crate::game::dice::{NUM_FACES, NUM_KEEPS, NUM_PARTIAL_KEEPS};
use crate::game::{NUM_ROLLS, RollId};

/// Lanes per tile of the two-player turn: 16 `f32`, one AVX-512 register (two AVX2 ones)
/// per vector, so that a tile's 462 vectors (29.6 KB) fit a 32 KiB L1 data cache. With the
/// keep graph as straight-line register code (no edge tables beside the tile in L1), 16
/// lanes beat 32 on Zen 4; with loops over edge tables 32 had won (`docs/benchmarks.md`).
pub const TILE_LANES: usize = 16;

/// Vectors a tile's phases may index: one per keep ([`NUM_KEEPS`]), padded to a power of
/// two so that a keep index masked to it (`& (TILE_VECTORS - 1)`, which leaves every keep
/// index as it is) needs no bounds check. The phases never read or write the padding
/// ([`SPARE_VECTORS`]).
const TILE_VECTORS: usize = 512;
const _: () = assert!(TILE_VECTORS.is_power_of_two() && TILE_VECTORS >= NUM_KEEPS);

/// Vectors from one tile to the next in a [`TiledTurn`]: one more than the 512 a tile's
/// phases index, so that the tiles' vectors of one keep (which the scoring writes one
/// after another) lie in different cache sets, not a power of two bytes apart.
pub const TILE_STRIDE: usize = TILE_VECTORS + 1;

/// The vectors of a tile that hold no keep ([`NUM_KEEPS`] on, to the next tile): a
/// [`TileScorer`] may keep vectors of its own there while it scores the rolls
/// ([`TileScorer::prepare`]); the phases never read them.
pub const SPARE_VECTORS: Range<usize> = NUM_KEEPS..TILE_STRIDE;

/// A lane vector of one tile, on a cache line boundary.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Vector<N, const W: usize>(pub [N; W]);

/// How rolls are scored into a tiled turn: the value of scoring each roll now, for every
/// tile.
pub trait TileScorer<N: Lane, const W: usize> {
    /// Writes the value of scoring `roll` in its best open box for the turn's tiles
    /// `tiles` (tile `t` holds lanes `t · W..(t + 1) · W`), the `i`-th of them to
    /// `vectors[i · TILE_STRIDE + keep]`, `keep` being the roll's keep id.
    fn score_tiles(&self, roll: RollId, tiles: Range<usize>, vectors: &mut [Vector<N, W>], keep: usize);

    /// Readies the scoring of the turn's tiles `tiles` (laid out in `vectors` as for
    /// [`TileScorer::score_tiles`]) before their rolls are scored, writing only each tile's
    /// [`SPARE_VECTORS`]: nothing, unless the scorer shares work between rolls.
    #[inline(always)]
    fn prepare(&self, tiles: Range<usize>, vectors: &mut [Vector<N, W>]) {
        let _ = (tiles, vectors);
    }

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
    /// Each roll's probability as a lane's number: its weight in the start value.
    weights: [N; NUM_ROLLS],
}

impl<N: Lane, const W: usize> Default for TiledTurn<N, W> {
    fn default() -> TiledTurn<N, W> {
        let weights = std::array::from_fn(|roll| N::from_f64(EDGES.roll_probability[roll]));
        TiledTurn { vectors: Vec::new(), tiles: 0, weights }
    }
}

impl<N: Lane, const W: usize> TiledTurn<N, W> {
    /// A whole turn over `tiles` tiles: scores the rolls with `scorer`, runs the two
    /// rerolls and writes the value at the start of the turn of lane `i` to `out[i]`
    /// (`out` holds `tiles · W` lanes). The tiles go `STARTS_AT_ONCE` at a time, each
    /// group scored, then each of its tiles through its rerolls back to back (its vectors
    /// in L1 from the first reroll to the last), then their start values: a group's
    /// vectors (131 KB) stay in L2 from its scoring to its start values, where the whole
    /// turn's (1 MB for 30 tiles) would not.
    #[inline(always)]
    pub fn solve(&mut self, tiles: usize, scorer: &impl TileScorer<N, W>, out: &mut [N]) {
        assert_eq!(out.len(), tiles * W, "a start value per lane of the tiles");
        for first in (0..tiles).step_by(STARTS_AT_ONCE) {
            let group = first..tiles.min(first + STARTS_AT_ONCE);
            let out = &mut out[group.start * W..group.end * W];
            self.score_rolls(group, scorer);
            self.run_phases(&REROLLS, Some(out));
        }
    }

    /// The first phase of a turn over the turn's tiles `tiles`: the value of scoring each
    /// roll now, from `scorer`. The phases after it ([`TiledTurn::average_keeps`],
    /// [`TiledTurn::choose_keeps`], [`TiledTurn::start_values`]) run over these tiles.
    #[inline(always)]
    pub fn score_rolls(&mut self, tiles: Range<usize>, scorer: &impl TileScorer<N, W>) {
        let count = tiles.len();
        self.tiles = count;
        if self.vectors.len() < count * TILE_STRIDE {
            self.vectors.resize(count * TILE_STRIDE, Vector([N::ZERO; W]));
        }
        let vectors = &mut self.vectors[..count * TILE_STRIDE];
        scorer.prepare(tiles.clone(), vectors);
        for roll in RollId::all() {
            let (alike, keep) = (scorer.first_alike(roll), roll.as_keep().0 as usize);
            if alike == roll {
                scorer.score_tiles(roll, tiles.clone(), vectors, keep);
            } else {
                let from = alike.as_keep().0 as usize;
                for t in 0..count {
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
        self.run_phases(&[Phase::Average], None);
    }

    /// Every tile's choose phase: a keep becomes the best of itself and its sub-keeps.
    #[inline(always)]
    pub fn choose_keeps(&mut self) {
        self.run_phases(&[Phase::Choose], None);
    }

    /// Every tile's value at the start of the turn, lane `i`'s to `out[i]`.
    #[inline(always)]
    pub fn start_values(&mut self, out: &mut [N]) {
        self.run_phases(&[], Some(out));
    }

    /// Runs `phases` on every tile, [`STARTS_AT_ONCE`] tiles at a time: each tile's phases
    /// back to back, then, where `out` is given (`tiles · W` lanes), the group's start
    /// values together.
    #[inline(always)]
    fn run_phases(&mut self, phases: &[Phase], mut out: Option<&mut [N]>) {
        if let Some(out) = &out {
            assert_eq!(out.len(), self.tiles * W, "a start value per lane of the tiles");
        }
        for first in (0..self.tiles).step_by(STARTS_AT_ONCE) {
            let tiles = STARTS_AT_ONCE.min(self.tiles - first);
            let vectors = &mut self.vectors[first * TILE_STRIDE..(first + tiles) * TILE_STRIDE];
            let out = out.as_deref_mut().map(|out| &mut out[first * W..(first + tiles) * W]);
            N::with_registers(TilePhases { vectors, phases, out, weights: &self.weights });
        }
    }
}

/// One tile's vectors: one per keep, then padding.
type Tile<N, const W: usize> = [Vector<N, W>; TILE_VECTORS];

/// Tiles whose start values are summed together. A tile's start value is a chain of 252
/// dependent adds (the rolls in roll order, 3 cycles each on Zen 4): summed alone it keeps
/// the core waiting, summed with three other tiles' it does not. The tiles' rolls are read
/// from L2 by then, which costs less than the wait.
const STARTS_AT_ONCE: usize = 4;
const _: () = assert!(NUM_KEEPS - NUM_PARTIAL_KEEPS == NUM_ROLLS, "the rolls are the last keeps");

/// Where keep `keep`'s vector lies in a [`Tile`]: `keep` itself, masked so that indexing a
/// tile needs no check. A check per step would be a branch per step in the straight-line
/// keep graph, which takes LLVM minutes to compile.
#[inline(always)]
fn at(keep: usize) -> usize {
    keep & (TILE_VECTORS - 1)
}

/// A phase of a tile's rerolls.
#[derive(Clone, Copy)]
enum Phase {
    /// Keeps of fewer than five dice become the mean of their extensions.
    Average,
    /// Keeps become the best of themselves and their sub-keeps.
    Choose,
}

/// The phases of a turn between the scoring and the start values: the two rerolls.
const REROLLS: [Phase; 4] = [Phase::Average, Phase::Choose, Phase::Average, Phase::Choose];

/// Phases run on a few tiles with registers ([`Lane::with_registers`]): compiled once per
/// number type, width and instruction set, each phase once, not into every caller.
struct TilePhases<'a, N, const W: usize> {
    /// The tiles' vectors, [`TILE_STRIDE`] apart.
    vectors: &'a mut [Vector<N, W>],
    phases: &'a [Phase],
    /// Where the tiles' start values go, where they are wanted after the phases.
    out: Option<&'a mut [N]>,
    /// Each roll's weight in the start value.
    weights: &'a [N; NUM_ROLLS],
}

impl<N: Lane, const W: usize> RegisterWork<N> for TilePhases<'_, N, W> {
    type Output = ();

    /// Each phase runs over the tile a register's width of lanes at a time (one pass for 16
    /// `f32` on AVX-512), so that the keep graph's code is there once per instruction set.
    /// Plain loops, no closures: a closure would be a function of its own, compiled without
    /// the instruction set, its every register operation a call.
    #[inline(always)]
    fn run<R: Register<N>>(self) {
        let TilePhases { vectors, phases, out, weights } = self;
        let tiles = vectors.len() / TILE_STRIDE;
        for t in 0..tiles {
            let tile: &mut Tile<N, W> =
                (&mut vectors[t * TILE_STRIDE..][..TILE_VECTORS]).try_into().expect("TILE_VECTORS vectors");
            for phase in phases {
                match phase {
                    Phase::Average => {
                        for part in 0..W / R::LANES {
                            keep_graph::average(&mut InRegisters::<_, R, W>::new(tile, part));
                        }
                    }
                    Phase::Choose => {
                        for part in 0..W / R::LANES {
                            keep_graph::choose(&mut InRegisters::<_, R, W>::new(tile, part));
                        }
                    }
                }
            }
        }
        let Some(out) = out else { return };
        const { assert!(STARTS_AT_ONCE == 4) };
        match tiles {
            1 => start_values::<N, R, W, 1>(vectors, out, weights),
            2 => start_values::<N, R, W, 2>(vectors, out, weights),
            3 => start_values::<N, R, W, 3>(vectors, out, weights),
            _ => start_values::<N, R, W, STARTS_AT_ONCE>(vectors, out, weights),
        }
    }
}

/// A register's width of lanes of one tile (lanes `first..first + R::LANES` of every
/// vector): what the steps of the keep graph ([`keep_graph`]) work on.
struct InRegisters<'a, N, R, const W: usize> {
    tile: &'a mut Tile<N, W>,
    first: usize,
    /// 1.0 in every lane, opaque to LLVM: the multiplier of the sums moved to the
    /// multiply-add units ([`Register::add_on_multipliers`]).
    one: R,
}

impl<'a, N: Lane, R: Register<N>, const W: usize> InRegisters<'a, N, R, W> {
    /// The `part`-th register's width of lanes of `tile`.
    #[inline(always)]
    fn new(tile: &'a mut Tile<N, W>, part: usize) -> Self {
        const { assert!(W.is_multiple_of(R::LANES), "a tile is whole registers wide") };
        assert!(part < W / R::LANES, "part {part} of a tile of {W} lanes");
        let one = R::splat(std::hint::black_box(N::from_f64(1.0)));
        InRegisters { tile, first: part * R::LANES, one }
    }

    /// Keep `keep`'s register.
    #[inline(always)]
    fn load(&self, keep: usize) -> R {
        // SAFETY: `first + R::LANES <= W` (`new`): the register's numbers lie in the vector.
        unsafe { R::load(self.tile[at(keep)].0.as_ptr().add(self.first)) }
    }

    /// Writes keep `keep`'s register.
    #[inline(always)]
    fn store(&mut self, keep: usize, register: R) {
        // SAFETY: as in `load`.
        unsafe { register.store(self.tile[at(keep)].0.as_mut_ptr().add(self.first)) }
    }
}

impl<N: Lane, R: Register<N>, const W: usize> KeepSteps for InRegisters<'_, N, R, W> {
    type Held = R;

    /// Keep `keep`'s register, read from the tile (after the steps before it).
    #[inline(always)]
    fn read(&mut self, keep: usize) -> R {
        step_apart();
        self.load(keep)
    }

    /// Keep `keep` becomes the mean of its six one-die extensions `next`, summed in face
    /// order as [`super::lanes::sum6_scaled`] sums: one step of [`keep_graph::average`].
    #[inline(always)]
    fn mean_of_six(&mut self, keep: usize, next: [R; NUM_FACES]) -> R {
        let [a, b, c, d, e, f] = next;
        let sixth = R::splat(N::from_f64(1.0 / 6.0));
        // Two of the five sums on the multiply-add units, three on the adders: the phase
        // has no maxima, and this splits its operations evenly between the two.
        let one = self.one;
        let mean = a.add(b).add_on_multipliers(c, one).add(d).add_on_multipliers(e, one).add(f).mul(sixth);
        self.store(keep, mean);
        mean
    }

    /// Keep `keep` becomes the best of itself and its `S` sub-keeps `subs`, taken in face
    /// order: one step of [`keep_graph::choose`].
    #[inline(always)]
    fn best_of<const S: usize>(&mut self, keep: usize, subs: [R; S]) -> R {
        let best = subs.into_iter().fold(self.load(keep), R::max);
        self.store(keep, best);
        best
    }
}

/// Keeps each read of a phase ([`KeepSteps::read`]) apart from the ones before: without it,
/// LLVM keeps a register it loaded to use again many steps later, and runs out of registers
/// (of 32, it spilled hundreds to the stack: stores as costly as the tile's own, in the same
/// L1). Which registers stay for later steps is the generated code's choice (at most
/// `REGISTERS_HELD`, in the generator among this module's tests), in both phases.
#[inline(always)]
fn step_apart() {
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
}

/// The start values of the `G` tiles from the first of `vectors` on (each `Σ P(roll) ·
/// value(roll)` in roll order, as [`super::TurnBuffer::start_value`] sums), to `out`
/// (`G · W` lanes): one sum per tile in flight.
#[inline(always)]
fn start_values<N: Lane, R: Register<N>, const W: usize, const G: usize>(
    vectors: &[Vector<N, W>],
    out: &mut [N],
    weights: &[N; NUM_ROLLS],
) {
    const { assert!(W.is_multiple_of(R::LANES), "a tile is whole registers wide") };
    assert_eq!(out.len(), G * W, "a start value per lane of the tiles");
    let rolls: [&[Vector<N, W>; NUM_ROLLS]; G] = std::array::from_fn(|g| {
        (&vectors[g * TILE_STRIDE + NUM_PARTIAL_KEEPS..][..NUM_ROLLS]).try_into().expect("a vector per roll")
    });
    for part in (0..W).step_by(R::LANES) {
        let mut sums = [R::splat(N::ZERO); G];
        for (roll, &weight) in weights.iter().enumerate() {
            let weight = R::splat(weight);
            for (sum, rolls) in sums.iter_mut().zip(&rolls) {
                // SAFETY: `part + R::LANES <= W` (W is whole registers): in the vector.
                let value = unsafe { R::load(rolls[roll].0.as_ptr().add(part)) };
                *sum = sum.add(weight.mul(value));
            }
        }
        for (sum, out) in sums.into_iter().zip(out.chunks_exact_mut(W)) {
            // SAFETY: as above; `out` is W lanes.
            unsafe { sum.store(out.as_mut_ptr().add(part)) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::dice::TABLES;
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
        fn score_tiles(&self, roll: RollId, tiles: Range<usize>, vectors: &mut [Vector<N, W>], keep: usize) {
            let values: Vec<N> = self.roll(roll).collect();
            for (i, lanes) in values.chunks_exact(W).skip(tiles.start).take(tiles.len()).enumerate() {
                vectors[i * TILE_STRIDE + keep].0.copy_from_slice(lanes);
            }
        }
    }

    /// The source of `keep_graph.rs`: every edge of the average and choose phases, from
    /// [`TABLES`], as one call per keep, the reads of both scheduled over registers.
    fn keep_graph_source() -> String {
        let mut source = String::from(KEEP_GRAPH_HEADER);
        source += "/// Keeps of fewer than five dice, in decreasing size: each the mean of its six one-die\n";
        source += "/// extensions ([`KeepSteps::mean_of_six`]), read from the tile ([`KeepSteps::read`]) unless\n";
        source += "/// still held from a step before.\n#[inline(always)]\n";
        source += "pub(super) fn average<T: KeepSteps>(t: &mut T) {\n";
        let averages: Vec<Step> =
            (0..NUM_PARTIAL_KEEPS).rev().map(|keep| (keep, TABLES.add_die[keep].map(usize::from).to_vec())).collect();
        source += &schedule(&averages, "mean_of_six");
        source += "}\n\n/// Every keep but the empty one, in increasing size: each the best of itself and its\n";
        source +=
            "/// sub-keeps ([`KeepSteps::best_of`]), these read from the tile unless still held.\n#[inline(always)]\n";
        source += "pub(super) fn choose<T: KeepSteps>(t: &mut T) {\n";
        let choices: Vec<Step> = (1..NUM_KEEPS)
            .map(|keep| (keep, TABLES.remove_die[keep].iter().map(|&k| usize::from(k)).collect()))
            .collect();
        source += &schedule(&choices, "best_of");
        source + "}\n"
    }

    /// Vectors a phase keeps in registers for later steps: with the step's own few, within
    /// the 16 registers of AVX2 and SSE2.
    const REGISTERS_HELD: usize = 12;

    /// One step of a phase: the keep it writes and the keeps whose vectors it takes, in
    /// the order it takes them.
    type Step = (usize, Vec<usize>);

    /// A phase's steps as calls of `method`, each step's vectors taken from registers where
    /// a step before left them there: at most [`REGISTERS_HELD`] held, the one needed
    /// furthest ahead let go first (Belady's rule), so that about half the tile reads go.
    fn schedule(steps: &[Step], method: &str) -> String {
        // The first step from `step` on that takes `keep`.
        let next_read = |keep: usize, step: usize| steps[step..].iter().position(|(_, takes)| takes.contains(&keep));
        // Each keep held: the line that put it in a register, and whether a later step
        // took it from there (else the step's result is not kept in a variable).
        let mut held: Vec<(usize, usize)> = Vec::new();
        let mut lines: Vec<(String, bool)> = Vec::new();
        for (step, (keep, takes)) in steps.iter().enumerate() {
            for &n in takes {
                match held.iter().find(|&&(h, _)| h == n) {
                    Some(&(_, line)) => lines[line].1 = true,
                    None => {
                        held.push((n, lines.len()));
                        lines.push((format!("let k{n} = t.read({n});"), true));
                    }
                }
            }
            held.push((*keep, lines.len()));
            let taken: Vec<String> = takes.iter().map(|n| format!("k{n}")).collect();
            lines.push((format!("t.{method}({keep}, [{}]);", taken.join(", ")), false));
            // Let go of what is taken again furthest ahead (or never) until few enough are held.
            while held.len() > REGISTERS_HELD {
                let furthest = (0..held.len()).max_by_key(|&i| next_read(held[i].0, step + 1).unwrap_or(usize::MAX));
                held.swap_remove(furthest.expect("some register held"));
            }
        }
        let call = format!("t.{method}(");
        let line = |(code, kept): &(String, bool)| match (code.strip_prefix(&call), kept) {
            (Some(rest), true) => format!("    let k{} = {code}\n", &rest[..rest.find(',').expect("a keep")]),
            _ => format!("    {code}\n"),
        };
        lines.iter().map(line).collect()
    }

    /// What `keep_graph.rs` says of itself, before its two functions.
    const KEEP_GRAPH_HEADER: &str = "\
//! The keep graph of one turn as straight-line code: every edge of a tile's average and
//! choose phases with its keeps as constants, so that the phases read no edge tables
//! (which would share the L1 data cache with the tile) and run no loop over keeps.
//!
//! Generated from [`crate::game::dice::TABLES`] by the test
//! `the_keep_graph_is_the_dice_tables_edges` (src/turn/tiled.rs); do not edit:
//! `YZ_REGENERATE=1 cargo test --lib the_keep_graph` writes it again.

/// The steps the phases are made of, on vectors of lanes kept by keep id.
pub(super) trait KeepSteps {
    /// A keep's vector held in registers.
    type Held: Copy;
    /// Keep `keep`'s vector, read from the tile.
    fn read(&mut self, keep: usize) -> Self::Held;
    /// Keep `keep` becomes the mean of its six one-die extensions `next`, summed in face
    /// order, and is written to the tile; its vector is returned, held.
    fn mean_of_six(&mut self, keep: usize, next: [Self::Held; 6]) -> Self::Held;
    /// Keep `keep` becomes the best of itself (read from the tile) and its `S` sub-keeps
    /// `subs`, taken in face order, and is written to the tile; its vector is returned, held.
    fn best_of<const S: usize>(&mut self, keep: usize, subs: [Self::Held; S]) -> Self::Held;
}

";

    /// `keep_graph.rs` holds the edges of the dice tables, in the phases' order (with
    /// `YZ_REGENERATE` set, the test writes it first).
    #[test]
    fn the_keep_graph_is_the_dice_tables_edges() {
        let source = keep_graph_source();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/turn/keep_graph.rs");
        if std::env::var_os("YZ_REGENERATE").is_some() {
            std::fs::write(path, &source).expect("write src/turn/keep_graph.rs");
        }
        let written = std::fs::read_to_string(path).expect("read src/turn/keep_graph.rs");
        assert!(
            written == source,
            "src/turn/keep_graph.rs is not the dice tables' edges: run YZ_REGENERATE=1 cargo test --lib the_keep_graph"
        );
    }

    /// Six tiles' turns (a whole group of [`STARTS_AT_ONCE`] and a part) are the lanes'
    /// turns of [`TurnBuffer::solve`] bit for bit, for `f32` and `f64`, and a second solve
    /// in the same memory gives them again.
    #[test]
    fn tiles_give_the_turn_buffer_s_values_bit_for_bit() {
        fn check<N: Lane>(bits: impl Fn(N) -> u64) {
            const TILES: usize = 6;
            let made = Made::new(TILES * TILE_LANES);
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
                tiled.solve(TILES, &made, &mut tiles);
                assert!(whole.iter().zip(&tiles).all(|(&a, &b)| bits(a) == bits(b)), "{whole:?}\n{tiles:?}");
            }
        }
        check::<f32>(|x| u64::from(x.to_bits()));
        check::<f64>(f64::to_bits);
    }
}
