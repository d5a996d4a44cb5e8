//! The turn dynamic program (roll, keep, roll, keep, roll, score) over lane vectors.
//!
//! One buffer holds a lane vector per keep (462 of them, rolls included as the keeps of
//! five dice) and every phase rewrites it in place:
//!
//! | phase | what the buffer holds afterwards | source |
//! |---|---|---|
//! | [`TurnBuffer::roll_mut`] (by the caller) | rolls: value of scoring the roll now | the game |
//! | [`TurnBuffer::average_keeps`] | keeps: expected value of rerolling the missing dice | Pawlewicz App. B eq. 4 |
//! | [`TurnBuffer::choose_keeps`] | keeps: best value of any sub-keep, so a roll holds its best keep | Pawlewicz App. B eq. 6 |
//!
//! A lane vector is stored as planes ([`super::lanes`]): for a lane of one number, the
//! lanes themselves; for a value with a follower (P(draw)), the values, then the followers.
//!
//! A turn is score, average, choose, average, choose, then [`TurnBuffer::start_value`]
//! (the probability-weighted sum over the first roll). The average phase uses the
//! one-die-at-a-time recurrence: a keep of fewer than five dice is the mean of its six
//! one-die extensions (Glenn §II-B), 6 edges instead of up to 252. The choose phase is a
//! running maximum over sub-keeps built in order of size, again a handful of edges per keep.

use std::sync::LazyLock;

use super::lanes::{Lane, LaneValue, MAX_PLANES, max_assign_many, sum6_scaled};
use crate::game::dice::{NUM_FACES, NUM_KEEPS, NUM_PARTIAL_KEEPS, TABLES};
use crate::game::{KeepId, NUM_ROLLS, RollId};

/// The edges of the two phases, flattened for the hot loops.
pub(super) struct Edges {
    /// For each keep of fewer than five dice, its six one-die extensions.
    pub(super) add_die: Vec<[u16; NUM_FACES]>,
    /// `remove_die[remove_start[k]..remove_start[k + 1]]`: keeps with one die of `k` removed.
    remove_start: Vec<u32>,
    remove_die: Vec<u16>,
    /// Probability of each roll of five dice, as `f64`.
    pub(super) roll_probability: Vec<f64>,
}

/// The edges, built on first use.
pub(super) static EDGES: LazyLock<Edges> = LazyLock::new(|| {
    let tables = &*TABLES;
    let add_die = tables.add_die[..NUM_PARTIAL_KEEPS].to_vec();
    let mut remove_start = vec![0u32];
    let mut remove_die = Vec::new();
    for subs in &tables.remove_die {
        remove_die.extend_from_slice(subs);
        remove_start.push(remove_die.len() as u32);
    }
    Edges { add_die, remove_start, remove_die, roll_probability: tables.roll_probability.clone() }
});

/// Edges walked by one turn: the figure to set beside Glenn's 15,228 (§II-B).
pub fn edges_per_turn() -> usize {
    let edges = &*EDGES;
    let score_to_keep = NUM_ROLLS;
    let average = edges.add_die.len() * NUM_FACES;
    let choose = edges.remove_die.len();
    let start = NUM_ROLLS;
    2 * (average + choose) + score_to_keep + start
}

/// The game-specific step of a turn: the value of scoring each final roll.
///
/// Implement `score` with `#[inline(always)]`: it is the hottest code of a solve after the
/// kernel's own loops and must be compiled into the caller's SIMD copy
/// ([`super::simd::dispatch`]); a closure would stay a separate baseline function.
pub trait RollScorer<T: LaneValue> {
    /// Writes to `out` (a lane vector, as planes) the best value of scoring `roll` in an
    /// open box.
    fn score(&self, roll: RollId, out: &mut [T::Number]);

    /// The first roll that scores as `roll` does in every lane (`roll` itself where no
    /// earlier one does): [`TurnBuffer::score_rolls`] copies that roll's vector instead of
    /// scoring `roll` again.
    #[inline(always)]
    fn first_alike(&self, roll: RollId) -> RollId {
        roll
    }
}

/// Any closure scores rolls too, for tests and one-lane uses where speed does not matter.
impl<T: LaneValue, F: Fn(RollId, &mut [T::Number])> RollScorer<T> for F {
    fn score(&self, roll: RollId, out: &mut [T::Number]) {
        self(roll, out)
    }
}

/// Working memory of one turn: a lane vector per keep, each `T::PLANES` runs of `lanes`
/// numbers.
///
/// The vectors start on a 64-byte boundary, so that with a lane count that is a multiple
/// of [`super::lanes::BLOCK`] no vector load straddles two cache lines.
#[derive(Clone, Debug)]
pub struct TurnBuffer<T: LaneValue> {
    lanes: usize,
    /// Numbers per lane vector: `T::PLANES · lanes`.
    width: usize,
    /// Allocation with room to align `values[start..]`.
    storage: Vec<T::Number>,
    start: usize,
}

const ALIGN: usize = 64;

impl<T: LaneValue> TurnBuffer<T> {
    /// A buffer for `lanes` lanes.
    pub fn new(lanes: usize) -> TurnBuffer<T> {
        const { assert!(T::PLANES >= 1 && T::PLANES <= MAX_PLANES) };
        let mut buffer = TurnBuffer { lanes: 0, width: 0, storage: Vec::new(), start: 0 };
        buffer.set_lanes(lanes);
        buffer
    }

    /// Changes the number of lanes, keeping the allocation when it is large enough.
    pub fn set_lanes(&mut self, lanes: usize) {
        self.lanes = lanes;
        self.width = T::PLANES * lanes;
        let slack = ALIGN / std::mem::size_of::<T::Number>();
        if self.storage.len() < NUM_KEEPS * self.width + slack {
            self.storage = vec![T::Number::ZERO; NUM_KEEPS * self.width + slack];
            self.start = self.storage.as_ptr().align_offset(ALIGN).min(slack);
        }
    }

    #[inline(always)]
    fn values(&self) -> &[T::Number] {
        &self.storage[self.start..self.start + NUM_KEEPS * self.width]
    }

    #[inline(always)]
    fn values_mut(&mut self) -> &mut [T::Number] {
        let len = NUM_KEEPS * self.width;
        &mut self.storage[self.start..self.start + len]
    }

    /// Lanes per vector.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// The vector of `roll` (as planes), to be filled with the value of scoring it before a
    /// turn's phases.
    #[inline(always)]
    pub fn roll_mut(&mut self, roll: RollId) -> &mut [T::Number] {
        let (start, width) = (roll.as_keep().0 as usize * self.width, self.width);
        &mut self.values_mut()[start..start + width]
    }

    /// The vector of `keep` (as planes) as the last phase left it.
    #[inline(always)]
    pub fn keep(&self, keep: KeepId) -> &[T::Number] {
        let start = keep.0 as usize * self.width;
        &self.values()[start..start + self.width]
    }

    /// The vector of `roll` (as planes) as the last phase left it.
    #[inline(always)]
    pub fn roll(&self, roll: RollId) -> &[T::Number] {
        self.keep(roll.as_keep())
    }

    /// Fills every roll's vector by `scorer`: step 1 of a turn.
    #[inline(always)]
    pub fn score_rolls(&mut self, scorer: &impl RollScorer<T>) {
        let width = self.width;
        for roll in RollId::all() {
            let alike = scorer.first_alike(roll);
            if alike == roll {
                scorer.score(roll, self.roll_mut(roll));
            } else {
                let from = alike.as_keep().0 as usize * width;
                self.values_mut().copy_within(from..from + width, roll.as_keep().0 as usize * width);
            }
        }
    }

    /// Keeps of fewer than five dice become the mean of their six one-die extensions,
    /// in decreasing size (Pawlewicz App. B eq. 4). Rolls are left as they are. Every plane
    /// is averaged alike.
    #[inline(always)]
    pub fn average_keeps(&mut self) {
        let lanes = self.width;
        let sixth = T::Number::from_f64(1.0 / 6.0);
        for keep in (0..NUM_PARTIAL_KEEPS).rev() {
            let (low, high) = self.values_mut().split_at_mut((keep + 1) * lanes);
            let dst = &mut low[keep * lanes..];
            let parts = EDGES.add_die[keep].map(|next| {
                let start = (next as usize - keep - 1) * lanes;
                &high[start..start + lanes]
            });
            sum6_scaled(dst, parts, sixth);
        }
    }

    /// Every keep becomes the best of itself and its sub-keeps, in increasing size
    /// (Pawlewicz App. B eq. 6): a roll then holds the value of its best keep. Plane 0
    /// decides; a follower plane takes the chosen sub-keep's numbers.
    #[inline(always)]
    pub fn choose_keeps(&mut self) {
        let lanes = self.width;
        let edges = &*EDGES;
        for keep in 1..NUM_KEEPS {
            let (low, high) = self.values_mut().split_at_mut(keep * lanes);
            let subs = &edges.remove_die[edges.remove_start[keep] as usize..edges.remove_start[keep + 1] as usize];
            let mut sources: [&[T::Number]; NUM_FACES] = [&[]; NUM_FACES];
            for (source, &sub) in sources.iter_mut().zip(subs) {
                *source = &low[sub as usize * lanes..(sub as usize + 1) * lanes];
            }
            max_assign_many::<T>(&mut high[..lanes], &sources[..subs.len()]);
        }
    }

    /// `out = Σ P(roll) · value(roll)`: the value at the start of the turn, as planes.
    #[inline(always)]
    pub fn start_value(&self, out: &mut [T::Number]) {
        out.fill(T::Number::ZERO);
        for roll in RollId::all() {
            let weight = T::Number::from_f64(EDGES.roll_probability[roll.0 as usize]);
            super::lanes::add_scaled(out, self.roll(roll), weight);
        }
    }

    /// A whole turn: scores the rolls with `score`, runs the two rerolls and writes the
    /// value at the start of the turn to `out` (as planes).
    #[inline(always)]
    pub fn solve(&mut self, scorer: &impl RollScorer<T>, out: &mut [T::Number]) {
        self.score_rolls(scorer);
        for _ in 0..2 {
            self.average_keeps();
            self.choose_keeps();
        }
        self.start_value(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_count_is_below_glenns() {
        // Glenn §II-B: 15,228 edges with one-die-at-a-time keeps; the subset-max recurrence
        // needs fewer.
        let edges = edges_per_turn();
        assert!(edges < 15_228, "{edges}");
    }

    #[test]
    fn a_constant_value_passes_through_a_turn() {
        let mut buffer = TurnBuffer::<f64>::new(3);
        let mut out = [0.0; 3];
        buffer.solve(&|_: RollId, v: &mut [f64]| v.copy_from_slice(&[1.0, 2.0, 3.0]), &mut out);
        for (o, e) in out.iter().zip([1.0, 2.0, 3.0]) {
            assert!((o - e).abs() < 1e-12);
        }
    }
}
