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
//! A turn is score, average, choose, average, choose, then [`TurnBuffer::start_value`]
//! (the probability-weighted sum over the first roll). The average phase uses the
//! one-die-at-a-time recurrence: a keep of fewer than five dice is the mean of its six
//! one-die extensions (Glenn §II-B), 6 edges instead of up to 252. The choose phase is a
//! running maximum over sub-keeps built in order of size, again a handful of edges per keep.

use std::sync::LazyLock;

use super::lanes::{Lane, max_assign_many, sum6_scaled};
use crate::game::dice::{NUM_FACES, NUM_KEEPS, NUM_PARTIAL_KEEPS, TABLES};
use crate::game::{KeepId, NUM_ROLLS, RollId};

/// The edges of the two phases, flattened for the hot loops.
struct Edges {
    /// For each keep of fewer than five dice, its six one-die extensions.
    add_die: Vec<[u16; NUM_FACES]>,
    /// `remove_die[remove_start[k]..remove_start[k + 1]]`: keeps with one die of `k` removed.
    remove_start: Vec<u32>,
    remove_die: Vec<u16>,
    /// Probability of each roll of five dice, as `f64`.
    roll_probability: Vec<f64>,
}

static EDGES: LazyLock<Edges> = LazyLock::new(|| {
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
pub trait RollScorer<T> {
    /// Writes to `out` (one entry per lane) the best value of scoring `roll` in an open box.
    fn score(&self, roll: RollId, out: &mut [T]);
}

/// Any closure scores rolls too, for tests and one-lane uses where speed does not matter.
impl<T, F: Fn(RollId, &mut [T])> RollScorer<T> for F {
    fn score(&self, roll: RollId, out: &mut [T]) {
        self(roll, out)
    }
}

/// Working memory of one turn: a lane vector per keep.
///
/// The vectors start on a 64-byte boundary, so that with a lane count that is a multiple
/// of [`super::lanes::BLOCK`] no vector load straddles two cache lines.
#[derive(Clone, Debug)]
pub struct TurnBuffer<T> {
    lanes: usize,
    /// Allocation with room to align `values[start..]`.
    storage: Vec<T>,
    start: usize,
}

const ALIGN: usize = 64;

impl<T: Lane> TurnBuffer<T> {
    /// A buffer for `lanes` lanes.
    pub fn new(lanes: usize) -> TurnBuffer<T> {
        let mut buffer = TurnBuffer { lanes: 0, storage: Vec::new(), start: 0 };
        buffer.set_lanes(lanes);
        buffer
    }

    /// Changes the number of lanes, keeping the allocation when it is large enough.
    pub fn set_lanes(&mut self, lanes: usize) {
        self.lanes = lanes;
        let slack = ALIGN / std::mem::size_of::<T>();
        if self.storage.len() < NUM_KEEPS * lanes + slack {
            self.storage = vec![T::ZERO; NUM_KEEPS * lanes + slack];
            self.start = self.storage.as_ptr().align_offset(ALIGN).min(slack);
        }
    }

    #[inline(always)]
    fn values(&self) -> &[T] {
        &self.storage[self.start..self.start + NUM_KEEPS * self.lanes]
    }

    #[inline(always)]
    fn values_mut(&mut self) -> &mut [T] {
        let len = NUM_KEEPS * self.lanes;
        &mut self.storage[self.start..self.start + len]
    }

    /// Lanes per vector.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// The vector of `roll`, to be filled with the value of scoring it before a turn's phases.
    #[inline(always)]
    pub fn roll_mut(&mut self, roll: RollId) -> &mut [T] {
        let (start, lanes) = (roll.as_keep().0 as usize * self.lanes, self.lanes);
        &mut self.values_mut()[start..start + lanes]
    }

    /// The vector of `keep` as the last phase left it.
    #[inline(always)]
    pub fn keep(&self, keep: KeepId) -> &[T] {
        let start = keep.0 as usize * self.lanes;
        &self.values()[start..start + self.lanes]
    }

    /// The vector of `roll` as the last phase left it.
    #[inline(always)]
    pub fn roll(&self, roll: RollId) -> &[T] {
        self.keep(roll.as_keep())
    }

    /// Fills every roll's vector by `scorer`: step 1 of a turn.
    #[inline(always)]
    pub fn score_rolls(&mut self, scorer: &impl RollScorer<T>) {
        for roll in RollId::all() {
            scorer.score(roll, self.roll_mut(roll));
        }
    }

    /// Keeps of fewer than five dice become the mean of their six one-die extensions,
    /// in decreasing size (Pawlewicz App. B eq. 4). Rolls are left as they are.
    #[inline(always)]
    pub fn average_keeps(&mut self) {
        let lanes = self.lanes;
        let sixth = T::from_f64(1.0 / 6.0);
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
    /// (Pawlewicz App. B eq. 6): a roll then holds the value of its best keep.
    #[inline(always)]
    pub fn choose_keeps(&mut self) {
        let lanes = self.lanes;
        let edges = &*EDGES;
        for keep in 1..NUM_KEEPS {
            let (low, high) = self.values_mut().split_at_mut(keep * lanes);
            let subs = &edges.remove_die[edges.remove_start[keep] as usize..edges.remove_start[keep + 1] as usize];
            let mut sources: [&[T]; NUM_FACES] = [&[]; NUM_FACES];
            for (source, &sub) in sources.iter_mut().zip(subs) {
                *source = &low[sub as usize * lanes..(sub as usize + 1) * lanes];
            }
            max_assign_many(&mut high[..lanes], &sources[..subs.len()]);
        }
    }

    /// `out = Σ P(roll) · value(roll)`: the value at the start of the turn.
    #[inline(always)]
    pub fn start_value(&self, out: &mut [T]) {
        out.fill(T::ZERO);
        for roll in RollId::all() {
            super::lanes::add_scaled(out, self.roll(roll), T::from_f64(EDGES.roll_probability[roll.0 as usize]));
        }
    }

    /// A whole turn: scores the rolls with `score`, runs the two rerolls and writes the
    /// value at the start of the turn to `out`.
    #[inline(always)]
    pub fn solve(&mut self, scorer: &impl RollScorer<T>, out: &mut [T]) {
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
