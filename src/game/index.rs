//! A dense index of the score states that can occur and matter.
//!
//! A naive state is (filled boxes, upper total 0..=63, Yahtzee box holds 50): 2^13 · 64 · 2,
//! or 786,432 = 3 · 2^12 · 64 once the flag is dropped while the Yahtzee box is open
//! (Pawlewicz §3.1). The upper total is the only part worth reducing; per filled upper set:
//!
//! 1. **Reachability.** A total must be a sum the filled upper boxes can make (box `f`
//!    holds `0, f, …, 5f`), capped at 63: with only Sixes filled, 1 is impossible.
//!    This alone leaves 536,448 states.
//! 2. **Totals no future can tell apart.** What a total means for the rest of the game is
//!    the smallest sum the open upper boxes could still add that earns the bonus. With only
//!    Sixes open, totals 51 and 56 both need two sixes (12 points); they are one state. This leaves
//!    314,880 states, exactly Glenn's bound (§II-A).
//! 3. **No bonus ahead.** A total of 63 (bonus already paid) and a total that can no longer
//!    reach 63 have the same future: no upper bonus. Merging them leaves **310,656** states,
//!    exactly Pawlewicz's count (§3.1), the terminal states included.
//!
//! The merged totals' values agree bit for bit in the solver, since the same operations
//! run on equal inputs (the solver's `merged_totals_share_one_value` test checks it).

use std::sync::LazyLock;

use super::category::CategorySet;
use super::rules::Rules;
use super::scoring::Game;
use super::state::ScoreState;

/// Upper totals 0..=63: the lanes of a slot. A rule set's threshold is at most 63.
pub const NUM_UPPER_TOTALS: usize = 64;

/// Dense index of a score state within a [`StateIndex`].
///
/// | range | encoding |
/// |---|---|
/// | `0..index.len()` | by slot ([`Game::slot`] order), then settled class first, then live upper totals ascending |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId(pub u32);

const NO_CLASS: u8 = u8::MAX;

/// The classes of upper totals for one filled upper mask.
#[derive(Clone, Copy, Debug)]
struct UpperClasses {
    /// Class of each upper total, or `NO_CLASS` if unreachable.
    class: [u8; NUM_UPPER_TOTALS],
    /// The smallest upper total of each class.
    representative: [u8; NUM_UPPER_TOTALS],
    /// Number of classes.
    count: u8,
}

impl UpperClasses {
    /// Splits the `reachable` totals (bit `u`) into classes, given `future_sums` (bit `s`:
    /// the open upper boxes can still add exactly `s` points).
    fn new(reachable: u64, future_sums: u128, threshold: u32) -> UpperClasses {
        let mut classes = UpperClasses { class: [NO_CLASS; 64], representative: [0; 64], count: 0 };
        let mut class_of_key = [NO_CLASS; 128];
        for u in (0..NUM_UPPER_TOTALS).filter(|&u| reachable & (1 << u) != 0) {
            let key = bonus_key(u as u32, future_sums, threshold);
            if class_of_key[key] == NO_CLASS {
                class_of_key[key] = classes.count;
                classes.representative[classes.count as usize] = u as u8;
                classes.count += 1;
            }
            classes.class[u] = class_of_key[key];
        }
        classes
    }
}

/// What upper total `u` means for the future: the smallest future upper sum that would
/// earn the bonus, or 0 when no future play can earn it (earned already, or out of reach).
fn bonus_key(u: u32, future_sums: u128, threshold: u32) -> usize {
    if u >= threshold {
        return 0;
    }
    let needed = threshold - u;
    let reaching = future_sums >> needed << needed;
    if reaching == 0 { 0 } else { reaching.trailing_zeros() as usize }
}

/// Exact sums (bit `s`) the upper boxes not in `mask` can add, each box `f` adding `0, f, …, 5f`.
fn future_upper_sums(mask: usize) -> u128 {
    let mut sums: u128 = 1;
    for face in (1..=6).filter(|f| mask & (1 << (f - 1)) == 0) {
        sums = (0..=5).fold(0, |acc, count| acc | sums << (count * face));
    }
    sums
}

/// Upper totals (bit `u`, capped at `threshold`) that the filled upper boxes in `mask` can make.
fn reachable_upper_totals(mask: usize, threshold: u32) -> u64 {
    let mut reachable: u64 = 1;
    for face in 1..=6u32 {
        if mask & (1 << (face - 1)) != 0 {
            let mut next = 0u64;
            for count in 0..=5 {
                for u in (0..NUM_UPPER_TOTALS as u32).filter(|&u| reachable & (1 << u) != 0) {
                    next |= 1 << (u + count * face).min(threshold);
                }
            }
            reachable = next;
        }
    }
    reachable
}

/// The dense index of every score state of one game.
#[derive(Clone, Debug)]
pub struct StateIndex {
    game: Game,
    /// Classes by filled upper mask (absent upper boxes count as filled, scoring 0).
    classes: Vec<UpperClasses>,
    /// First [`StateId`] of each slot; `u32::MAX` where the slot is not part of the game.
    offsets: Vec<u32>,
    /// The slots that are part of the game, ascending (so their offsets ascend too).
    slots_in_game: Vec<u32>,
    len: usize,
}

impl StateIndex {
    /// Indexes every state of `game`.
    ///
    /// # Panics
    /// If the game plays a box its rules do not have ([`Game::is_valid`]).
    pub fn new(game: Game) -> StateIndex {
        assert!(game.is_valid(), "{game:?} plays boxes its rules do not have");
        let absent_upper = game.absent().upper_mask();
        let threshold = game.rules.upper_threshold();
        let classes = (0..64)
            .map(|mask| {
                let reachable = reachable_upper_totals(mask & !absent_upper, threshold);
                UpperClasses::new(reachable, future_upper_sums(mask), threshold)
            })
            .collect::<Vec<_>>();
        let mut offsets = vec![u32::MAX; game.num_slots()];
        let mut slots_in_game = Vec::new();
        let mut len = 0usize;
        for (slot, offset) in offsets.iter_mut().enumerate() {
            let (filled, yahtzee_50) = game.slot_key(slot);
            if game.slot(filled, yahtzee_50) == slot && (!yahtzee_50 || filled.contains(crate::game::Category::Yahtzee))
            {
                *offset = len as u32;
                slots_in_game.push(slot as u32);
                len += classes[filled.upper_mask()].count as usize;
            }
        }
        StateIndex { game, classes, offsets, slots_in_game, len }
    }

    /// The game indexed.
    pub fn game(&self) -> Game {
        self.game
    }

    /// Number of states, the terminal one(s) included.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if the index holds no state (never, for a real game).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The dense id of `state`, or `None` if it cannot occur in this game.
    pub fn id(&self, state: ScoreState) -> Option<StateId> {
        let game = self.game;
        let in_vocabulary = CategorySet::ALL.is_superset(state.filled);
        if !in_vocabulary || !state.filled.is_superset(game.absent()) || state.yahtzee_50 && !game.tracks_yahtzee_50() {
            return None;
        }
        let offset = self.offsets[game.slot(state.filled, state.yahtzee_50)];
        let class = self.classes[state.filled.upper_mask()].class[state.upper_total.min(63) as usize];
        (offset != u32::MAX && class != NO_CLASS).then(|| StateId(offset + class as u32))
    }

    /// A representative state of `id` (the smallest upper total of its class).
    ///
    /// # Panics
    /// If `id` is out of range.
    pub fn state(&self, id: StateId) -> ScoreState {
        assert!((id.0 as usize) < self.len, "state id {} out of range", id.0);
        let position = self.slots_in_game.partition_point(|&s| self.offsets[s as usize] <= id.0) - 1;
        let slot = self.slots_in_game[position] as usize;
        let (filled, yahtzee_50) = self.game.slot_key(slot);
        let class = (id.0 - self.offsets[slot]) as usize;
        let upper_total = self.classes[filled.upper_mask()].representative[class];
        ScoreState { filled, upper_total, yahtzee_50 }
    }
}

/// The index of the full game under the official rules, built on first use.
pub static FULL_INDEX: LazyLock<StateIndex> = LazyLock::new(|| StateIndex::new(Game::full(Rules::OFFICIAL)));

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reachable_totals_of_sixes_alone() {
        let sixes = reachable_upper_totals(1 << 5, 63);
        let totals: Vec<u32> = (0..64).filter(|u| sixes & (1 << u) != 0).collect();
        assert_eq!(totals, vec![0, 6, 12, 18, 24, 30]);
    }

    #[test]
    fn full_game_state_count() {
        assert_eq!(FULL_INDEX.len(), 310_656);
    }

    proptest! {
        #[test]
        fn state_index_round_trips(filled in 0u16..(1 << 15), upper in 0u8..64, flag: bool) {
            let state = ScoreState { filled: CategorySet(filled), upper_total: upper, yahtzee_50: flag };
            if let Some(id) = FULL_INDEX.id(state) {
                let back = FULL_INDEX.state(id);
                prop_assert_eq!(FULL_INDEX.id(back), Some(id));
                prop_assert_eq!((back.filled, back.yahtzee_50), (state.filled, state.yahtzee_50));
            }
        }

        #[test]
        fn ids_are_dense(id in 0u32..310_656) {
            prop_assert_eq!(FULL_INDEX.id(FULL_INDEX.state(StateId(id))), Some(StateId(id)));
        }
    }
}
