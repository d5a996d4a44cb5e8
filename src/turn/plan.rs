//! How a turn can end, planned once per state, and the best-box scoring every solver
//! shares.
//!
//! Scoring a roll is the same step in every solver: the best, over the boxes the roll may
//! fill, of a successor's lane vector read at some offset, plus some points. What differs
//! is what a lane counts, and so how points move between lanes ([`Shift`]):
//!
//! | solver | lanes over | scoring `p` points | [`Shift`] |
//! |---|---|---|---|
//! | solitaire | upper total | adds `p` (upper boxes: a row per count of the face, the total moved inside it) | [`Shift::Add`] |
//! | target tables | points still wanted | reads `p` lanes back | [`Shift::Down`] |
//! | payoff | points already scored | reads `p` lanes on | [`Shift::Up`] |
//! | duel | score difference | reads `p` lanes on | [`Shift::Up`] |
//!
//! A [`ScoringPlan`] is built from one roll per class of rolls ([`RollClasses`]), not from
//! all 252: every roll of a class scores the same in a box. The solver then lays out one
//! row per successor over [`ScoringPlan::row_span`] (its padding: decided values, curves
//! beyond their stored part) and scores with [`ScoringPlan::scorer`]; a tiled turn's rows lie
//! in one buffer, a fixed stride apart, each roll's boxes found there by the offsets of
//! [`ScoringPlan::flat_entries`] ([`ScoringPlan::tile_scorer`]).

use std::collections::HashMap;
use std::ops::Range;

use crate::game::{Category, MAX_BOXES, NUM_ROLLS, RollClasses, RollId};
use crate::turn::RollScorer;
use crate::turn::lanes::{Candidate, Lane, LaneValue, lane_max, max_of_plus};
use crate::turn::tiled::{SPARE_VECTORS, TILE_STRIDE, TileScorer, Vector};

/// How the points of a scoring move between lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift {
    /// Lanes count points already scored: scoring `p` reads the successor `p` lanes on.
    /// A successor's row starts at the fewest points that lead to it.
    Up,
    /// Lanes count points still wanted: scoring `p` reads the successor `p` lanes back. A
    /// successor's row starts at the most points that lead to it.
    Down,
    /// Lanes are not points: scoring `p` adds `p` to the successor's value in the same lane.
    Add,
}

/// One box a roll may fill: which successor row, where in it, and the points to add.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Entry {
    row: u16,
    offset: u16,
    add: u16,
}

/// The distinct successors of one state's turn (keyed by `K`: a score state, a card id, a
/// row of the solitaire solve) and, per roll, the boxes it may fill in card order.
#[derive(Clone, Debug)]
pub struct ScoringPlan<K> {
    shift: Shift,
    successors: Vec<K>,
    /// Per successor: the fewest and most points that lead to it.
    points: Vec<(u32, u32)>,
    /// Per roll: the first `entry_count[roll]` entries are the boxes it may fill.
    entries: Vec<[Entry; MAX_BOXES]>,
    entry_count: Vec<u8>,
    /// Per roll: the first roll with the same entries (itself where none comes before):
    /// rolls alike in every open box score the same, so a turn copies their values.
    first_alike: Vec<RollId>,
}

impl<K: Copy + PartialEq> ScoringPlan<K> {
    /// An empty plan, to be [built](ScoringPlan::build) for each state in turn (the
    /// allocation is kept).
    pub fn new(shift: Shift) -> ScoringPlan<K> {
        ScoringPlan {
            shift,
            successors: Vec::new(),
            points: Vec::new(),
            entries: vec![[Entry::default(); MAX_BOXES]; NUM_ROLLS],
            entry_count: vec![0; NUM_ROLLS],
            first_alike: RollId::all().collect(),
        }
    }

    /// Plans a turn whose player may fill `boxes` (in card order): `outcome(c, roll)` is
    /// the successor and the points of scoring `roll` in `c`, `None` where `c` cannot take
    /// it. It is asked once per class of rolls of `classes`. Successors reached through
    /// different boxes must have different keys (a state after filling a box differs from
    /// one after filling another).
    pub fn build(
        &mut self,
        classes: &RollClasses,
        boxes: impl IntoIterator<Item = Category>,
        mut outcome: impl FnMut(Category, RollId) -> Option<(K, u32)>,
    ) {
        self.successors.clear();
        self.points.clear();
        self.entry_count.fill(0);
        // The largest class count of any box: Chance's sums and the five of a kinds.
        let mut by_class: Vec<Option<(usize, u32)>> = Vec::new();
        for c in boxes {
            let first_of_box = self.successors.len();
            by_class.clear();
            for &roll in &classes.representatives[c.index()] {
                let planned = outcome(c, roll).map(|(next, points)| {
                    let slot = match self.successors[first_of_box..].iter().position(|&s| s == next) {
                        Some(k) => first_of_box + k,
                        None => {
                            self.successors.push(next);
                            self.points.push((points, points));
                            self.successors.len() - 1
                        }
                    };
                    let range = &mut self.points[slot];
                    *range = (range.0.min(points), range.1.max(points));
                    (slot, points)
                });
                by_class.push(planned);
            }
            for (roll, &class) in classes.class[c.index()].iter().enumerate() {
                let Some((slot, points)) = by_class[class as usize] else { continue };
                let (least, most) = self.points[slot];
                let (offset, add) = match self.shift {
                    Shift::Up => (points - least, 0),
                    Shift::Down => (most - points, 0),
                    Shift::Add => (0, points),
                };
                let n = &mut self.entry_count[roll];
                self.entries[roll][*n as usize] = Entry { row: slot as u16, offset: offset as u16, add: add as u16 };
                *n += 1;
            }
        }
        let mut firsts = HashMap::with_capacity(NUM_ROLLS);
        for roll in RollId::all() {
            let r = roll.0 as usize;
            self.first_alike[r] = *firsts.entry(&self.entries[r][..self.entry_count[r] as usize]).or_insert(roll);
        }
    }

    /// The distinct successors, in the order of their rows.
    pub fn successors(&self) -> &[K] {
        &self.successors
    }

    /// The boxes `roll` may fill, in card order: each one's successor slot and the points
    /// it scores (what a GPU kernel needs to score a roll itself).
    pub fn boxes(&self, roll: RollId) -> impl Iterator<Item = (usize, u32)> + '_ {
        let r = roll.0 as usize;
        self.entries[r][..self.entry_count[r] as usize].iter().map(|e| {
            let (least, most) = self.points[e.row as usize];
            let points = match self.shift {
                Shift::Up => least + e.offset as u32,
                Shift::Down => most - e.offset as u32,
                Shift::Add => e.add as u32,
            };
            (e.row as usize, points)
        })
    }

    /// The fewest and most points that lead to successor `slot`.
    pub fn points(&self, slot: usize) -> (u32, u32) {
        self.points[slot]
    }

    /// Where successor `slot`'s row must start and how long it must be for a turn of
    /// `lanes` lanes: its first entry holds the successor's value at the coordinate of
    /// lane 0 plus `start` (in the lanes' units), and the row runs on for `len` lanes.
    pub fn row_span(&self, slot: usize, lanes: usize) -> (i64, usize) {
        let (least, most) = self.points[slot];
        match self.shift {
            Shift::Up => (least as i64, lanes + (most - least) as usize),
            Shift::Down => (-(most as i64), lanes + (most - least) as usize),
            Shift::Add => (0, lanes),
        }
    }

    /// Scores rolls over lanes `first..first + lanes` of a turn from `rows`, one per
    /// successor laid out over its [`ScoringPlan::row_span`] (for the turn's whole width;
    /// `first` selects a strip of it), as planes of that length each.
    pub fn scorer<'a, N, R: AsRef<[N]>>(&'a self, rows: &'a [R], first: usize, lanes: usize) -> PlanScorer<'a, K, R> {
        assert_eq!(rows.len(), self.successors.len(), "one row per successor");
        PlanScorer { plan: self, rows, first, lanes }
    }
}

/// A [`RollScorer`] from a [`ScoringPlan`] and its successors' rows.
pub struct PlanScorer<'a, K, R> {
    plan: &'a ScoringPlan<K>,
    rows: &'a [R],
    first: usize,
    lanes: usize,
}

impl<T: LaneValue, K, R: AsRef<[T::Number]>> RollScorer<T> for PlanScorer<'_, K, R> {
    #[inline(always)]
    fn score(&self, roll: RollId, out: &mut [T::Number]) {
        let r = roll.0 as usize;
        let entries = &self.plan.entries[r][..self.plan.entry_count[r] as usize];
        let mut terms = [Candidate::<T::Number>::NONE; MAX_BOXES];
        for (term, e) in terms.iter_mut().zip(entries) {
            let row = self.rows[e.row as usize].as_ref();
            let (start, stride) = (self.first + e.offset as usize, row.len() / T::PLANES);
            let end = (T::PLANES - 1) * stride + start + self.lanes;
            *term = Candidate { row: &row[start..end], stride, add: T::Number::from_f64(e.add as f64) };
        }
        max_of_plus::<T>(out, &terms[..entries.len()]);
    }

    #[inline(always)]
    fn first_alike(&self, roll: RollId) -> RollId {
        self.plan.first_alike[roll.0 as usize]
    }
}

/// Each roll's boxes as offsets into one buffer that holds the successors' rows
/// `row_stride` numbers apart (row `k` from `k · row_stride` on), for lanes over points
/// (nothing added): computed once per plan ([`ScoringPlan::flat_entries`]), so that a tiled
/// turn scoring a few tiles at a time finds each of a roll's rows with one read.
///
/// The boxes in which a roll scores no points are read by many rolls alike (every roll
/// without a straight scores none in the straights, say): each such set of boxes is a
/// shared group, whose best is found once per tile ([`TileScorer::prepare`]) and read
/// by each of its rolls in one step. A roll's value is the largest of its boxes' values
/// however they are grouped: the rows hold no NaN and no −0.0 (a flipped winning chance
/// is `1 − v`), so two equal values are the same bits, and the best is the same number.
#[derive(Clone, Debug, Default)]
pub struct FlatEntries {
    /// Per box read, the rolls' and then the groups': where its row is read for lane 0.
    offsets: Vec<u32>,
    /// Per roll: the range in `offsets` of its boxes outside its group, and its group.
    rolls: Vec<FlatRoll>,
    /// Per shared group: its boxes' range in `offsets`.
    groups: Vec<(u32, u32)>,
}

/// One roll's reads in [`FlatEntries`].
#[derive(Clone, Copy, Debug)]
struct FlatRoll {
    /// The range in `offsets` of its boxes that no group holds.
    boxes: (u32, u32),
    /// The shared group of the boxes in which it scores no points, where it has one.
    group: Option<u16>,
}

/// The boxes a roll scores no points in, as offsets (at most one per box), and how many.
type ZeroBoxes = ([u32; MAX_BOXES], usize);

impl<K: Copy + PartialEq> ScoringPlan<K> {
    /// Sets `into` to this plan's boxes for rows `row_stride` numbers apart, each row laid
    /// out over its [`ScoringPlan::row_span`], with a shared group per set of at least two
    /// boxes in which some roll scores no points (at most as many as a tile has
    /// [`SPARE_VECTORS`]; later sets are read box by box).
    ///
    /// # Panics
    /// For a plan whose scoring adds points ([`Shift::Add`]), or rows beyond `u32` offsets.
    pub fn flat_entries(&self, row_stride: usize, into: &mut FlatEntries) {
        assert!(self.shift != Shift::Add, "flat entries read rows at offsets; they add no points");
        let end = u32::try_from(self.successors.len() * row_stride).expect("successor rows within u32 offsets");
        into.offsets.clear();
        into.rolls.clear();
        into.groups.clear();
        let offset = |e: &Entry| {
            debug_assert!((e.offset as usize) < row_stride && (e.row as usize * row_stride) < end as usize);
            (e.row as usize * row_stride + e.offset as usize) as u32
        };
        let scores_nothing = |e: &Entry| {
            let (least, most) = self.points[e.row as usize];
            let points = if self.shift == Shift::Up { least + e.offset as u32 } else { most - e.offset as u32 };
            points == 0
        };
        let mut groups: HashMap<ZeroBoxes, u16> = HashMap::new();
        for (entries, &count) in self.entries.iter().zip(&self.entry_count) {
            let entries = &entries[..count as usize];
            let mut zero: ZeroBoxes = ([0; MAX_BOXES], 0);
            for e in entries.iter().filter(|e| scores_nothing(e)) {
                zero.0[zero.1] = offset(e);
                zero.1 += 1;
            }
            let group = match groups.get(&zero) {
                _ if zero.1 < 2 => None,
                Some(&group) => Some(group),
                None if into.groups.len() < SPARE_VECTORS.len() => {
                    let first = into.offsets.len() as u32;
                    into.offsets.extend_from_slice(&zero.0[..zero.1]);
                    into.groups.push((first, into.offsets.len() as u32));
                    let group = (into.groups.len() - 1) as u16;
                    groups.insert(zero, group);
                    Some(group)
                }
                None => None,
            };
            let first = into.offsets.len() as u32;
            for e in entries.iter().filter(|e| group.is_none() || !scores_nothing(e)) {
                into.offsets.push(offset(e));
            }
            into.rolls.push(FlatRoll { boxes: (first, into.offsets.len() as u32), group });
        }
    }

    /// Scores rolls for a tiled turn ([`crate::turn::tiled`], one plane) from `rows`, the
    /// successors' rows laid out as `entries` says ([`ScoringPlan::flat_entries`] of this
    /// plan), lane 0 of the turn at each row's start.
    pub fn tile_scorer<'a, N>(&'a self, entries: &'a FlatEntries, rows: &'a [N]) -> FlatScorer<'a, K, N> {
        assert_eq!(entries.rolls.len(), NUM_ROLLS, "flat entries of a plan");
        FlatScorer { plan: self, entries, rows }
    }
}

/// A [`TileScorer`] from a [`ScoringPlan`], its [`FlatEntries`] and its successors' rows.
pub struct FlatScorer<'a, K, N> {
    plan: &'a ScoringPlan<K>,
    entries: &'a FlatEntries,
    rows: &'a [N],
}

impl<N: Lane, const W: usize, K> TileScorer<N, W> for FlatScorer<'_, K, N> {
    /// Each shared group's best, into the tiles' spare vectors (group `g` into the `g`-th).
    #[inline(always)]
    fn prepare(&self, tiles: Range<usize>, vectors: &mut [Vector<N, W>]) {
        for (g, &(first, end)) in self.entries.groups.iter().enumerate() {
            let offsets = &self.entries.offsets[first as usize..end as usize];
            score_tiles_of(self.rows, (offsets, None), tiles.clone(), vectors, SPARE_VECTORS.start + g);
        }
    }

    #[inline(always)]
    fn score_tiles(&self, roll: RollId, tiles: Range<usize>, vectors: &mut [Vector<N, W>], keep: usize) {
        let FlatRoll { boxes: (first, end), group } = self.entries.rolls[roll.0 as usize];
        let offsets = &self.entries.offsets[first as usize..end as usize];
        let shared = group.map(|g| SPARE_VECTORS.start + g as usize);
        assert!(!offsets.is_empty() || shared.is_some(), "roll {roll:?} fills no box");
        score_tiles_of(self.rows, (offsets, shared), tiles, vectors, keep);
    }

    #[inline(always)]
    fn first_alike(&self, roll: RollId) -> RollId {
        self.plan.first_alike[roll.0 as usize]
    }
}

/// The best of the rows at `offsets` in `rows` and of each tile's vector `shared` (where
/// given) for the turn's tiles `tiles`, written to vector `keep` of each (the `i`-th tile
/// at `vectors`' `i`-th), [`TILES_AT_ONCE`] tiles at a time.
#[inline(always)]
fn score_tiles_of<N: Lane, const W: usize>(
    rows: &[N],
    reads: (&[u32], Option<usize>),
    tiles: Range<usize>,
    vectors: &mut [Vector<N, W>],
    keep: usize,
) {
    let whole = tiles.len() - tiles.len() % TILES_AT_ONCE;
    for i in (0..whole).step_by(TILES_AT_ONCE) {
        score_tile_group::<N, W, TILES_AT_ONCE>(rows, reads, (tiles.start + i, i), vectors, keep);
    }
    for i in whole..tiles.len() {
        score_tile_group::<N, W, 1>(rows, reads, (tiles.start + i, i), vectors, keep);
    }
}

/// Tiles whose roll is scored together: as many chains of maxima in flight, each waiting
/// on its last maximum (one per box the roll may fill), so that the core is not left
/// waiting on one.
const TILES_AT_ONCE: usize = 4;

/// [`score_tiles_of`] for the `G` tiles from the turn's tile `tile` on, which lie from
/// `vectors`' tile `at` on.
#[inline(always)]
fn score_tile_group<N: Lane, const W: usize, const G: usize>(
    rows: &[N],
    (offsets, shared): (&[u32], Option<usize>),
    (tile, at): (usize, usize),
    vectors: &mut [Vector<N, W>],
    keep: usize,
) {
    let lanes = |offset: u32| -> [[N; W]; G] {
        let group = &rows[offset as usize + tile * W..][..G * W];
        std::array::from_fn(|g| group[g * W..(g + 1) * W].try_into().expect("W lanes"))
    };
    let (mut best, rest) = match shared {
        Some(shared) => (std::array::from_fn(|g| vectors[(at + g) * TILE_STRIDE + shared].0), offsets),
        None => {
            let (&first, rest) = offsets.split_first().expect("a roll fills some box");
            (lanes(first), rest)
        }
    };
    for &offset in rest {
        for (best, tile) in best.iter_mut().zip(lanes(offset)) {
            for k in 0..W {
                best[k] = lane_max(best[k], tile[k]);
            }
        }
    }
    for (g, best) in best.into_iter().enumerate() {
        vectors[(at + g) * TILE_STRIDE + keep].0 = best;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, Rules, ScoreState};

    /// Plans the start of a game three ways and checks every roll and box against
    /// [`ScoreState::score`] directly.
    #[test]
    fn a_plan_gives_every_rolls_successor_and_points() {
        for rules in [Rules::OFFICIAL, Rules::yatzy()] {
            let game = Game::full(rules);
            let state = ScoreState::start(game);
            for shift in [Shift::Up, Shift::Down, Shift::Add] {
                let mut plan = ScoringPlan::new(shift);
                plan.build(rules.roll_classes(), game.choices(state.filled).iter(), |c, roll| {
                    state.score(game, c, roll).map(|t| (t.next, t.points))
                });
                for roll in RollId::all() {
                    let r = roll.0 as usize;
                    let planned = &plan.entries[r][..plan.entry_count[r] as usize];
                    let direct: Vec<_> =
                        game.choices(state.filled).iter().filter_map(|c| state.score(game, c, roll)).collect();
                    assert_eq!(planned.len(), direct.len());
                    for (e, t) in planned.iter().zip(&direct) {
                        assert!(plan.successors()[e.row as usize] == t.next);
                        let (least, most) = plan.points(e.row as usize);
                        let points = match shift {
                            Shift::Up => least + e.offset as u32,
                            Shift::Down => most - e.offset as u32,
                            Shift::Add => e.add as u32,
                        };
                        assert_eq!(points, t.points, "{roll:?}");
                    }
                }
            }
        }
    }

    /// Each roll's first alike is the first roll, itself or before it, whose boxes,
    /// successors and points are its own, by brute force over every pair of rolls: at the
    /// start (where the upper boxes set every roll apart) and with the upper boxes filled
    /// (where rolls of one sum and one pattern are alike).
    #[test]
    fn a_roll_s_first_alike_is_the_first_roll_that_scores_as_it_does() {
        let game = Game::full(Rules::OFFICIAL);
        let start = ScoreState::start(game);
        let upper: Vec<Category> = game.choices(start.filled).iter().take(6).collect();
        let later = upper.iter().fold(start, |state, &c| state.score(game, c, RollId(0)).expect("open").next);
        // At the start every face's count is a box of its own: no two rolls alike.
        for (state, alike_rolls) in [(start, 0..=0), (later, 100..=NUM_ROLLS)] {
            let mut plan = ScoringPlan::new(Shift::Up);
            plan.build(game.rules.roll_classes(), game.choices(state.filled).iter(), |c, roll| {
                state.score(game, c, roll).map(|t| (t.next, t.points))
            });
            let entries = |r: usize| &plan.entries[r][..plan.entry_count[r] as usize];
            let mut alike = 0;
            for roll in RollId::all() {
                let r = roll.0 as usize;
                let first = (0..=r).find(|&q| entries(q) == entries(r)).expect("a roll is alike itself");
                assert_eq!(plan.first_alike[r], RollId(first as u8), "{roll:?}");
                alike += usize::from(first != r);
            }
            assert!(alike_rolls.contains(&alike), "{alike} rolls alike an earlier one");
        }
    }

    /// A tiled turn's scoring from flat entries gives every roll the strips' values bit for
    /// bit, the rows full of ties: at the start of a game (more sets of boxes scoring
    /// nothing than a tile has spare vectors, so that some rolls read theirs box by box)
    /// and with the upper boxes filled (few sets, every one shared).
    #[test]
    fn flat_entries_score_every_roll_as_the_strips_do() {
        use crate::turn::tiled::TILE_LANES;
        const TILES: usize = 6;
        let lanes = TILES * TILE_LANES;
        let game = Game::full(Rules::OFFICIAL);
        let start = ScoreState::start(game);
        let upper: Vec<Category> = game.choices(start.filled).iter().take(6).collect();
        let later = upper.iter().fold(start, |state, &c| state.score(game, c, RollId(0)).expect("open").next);
        let mut rng = 0x9e37_79b9_u32;
        for (state, all_shared) in [(start, false), (later, true)] {
            let mut plan = ScoringPlan::new(Shift::Up);
            plan.build(game.rules.roll_classes(), game.choices(state.filled).iter(), |c, roll| {
                state.score(game, c, roll).map(|t| (t.next, t.points))
            });
            // Values in quarters: many equal values among every roll's boxes.
            let rows: Vec<Vec<f32>> = (0..plan.successors().len())
                .map(|k| {
                    (0..plan.row_span(k, lanes).1)
                        .map(|_| {
                            rng ^= rng << 13;
                            rng ^= rng >> 17;
                            rng ^= rng << 5;
                            (rng % 5) as f32 / 4.0
                        })
                        .collect()
                })
                .collect();
            let stride = rows.iter().map(Vec::len).max().expect("successors");
            let mut flat = Vec::new();
            for row in &rows {
                flat.extend(row.iter().copied().chain(std::iter::repeat_n(-1.0, stride - row.len())));
            }
            let mut entries = FlatEntries::default();
            plan.flat_entries(stride, &mut entries);
            let grouped = entries.rolls.iter().filter(|r| r.group.is_some()).count();
            let alone = entries.rolls.iter().filter(|r| r.group.is_none() && r.boxes.1 - r.boxes.0 >= 2).count();
            assert!(grouped > 0 && (alone == 0) == all_shared, "{grouped} rolls grouped, {alone} not");
            assert!(entries.groups.len() <= SPARE_VECTORS.len());
            let scorer = plan.tile_scorer(&entries, &flat);
            let mut vectors = vec![Vector([0.0f32; TILE_LANES]); TILES * TILE_STRIDE];
            // Tiles 1 to 5 of the turn: a group of four and one more.
            TileScorer::prepare(&scorer, 1..TILES, &mut vectors);
            let strips = plan.scorer(&rows, 0, lanes);
            let mut expected = vec![0.0f32; lanes];
            for roll in RollId::all() {
                let keep = roll.as_keep().0 as usize;
                scorer.score_tiles(roll, 1..TILES, &mut vectors, keep);
                RollScorer::<f32>::score(&strips, roll, &mut expected);
                for i in 0..TILES - 1 {
                    let tile = &expected[(i + 1) * TILE_LANES..(i + 2) * TILE_LANES];
                    let scored = &vectors[i * TILE_STRIDE + keep].0;
                    assert!(tile.iter().zip(scored).all(|(a, b)| a.to_bits() == b.to_bits()), "{roll:?} tile {i}");
                }
            }
        }
    }
}
