//! The states of a turn, from no dice up to all N, and how one more rolled die moves between
//! them: the graph every phase of the one-turn solve walks.

use std::collections::HashMap;

use super::kind::multiplicity_label;

/// How the states of a turn are told apart (and written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notation {
    /// Multiplicity states in whuber's notation: entry i counts the faces showing on exactly
    /// i dice (`31` is one pair and three singles, `011` a full house, `0` no dice). Enough
    /// for a pattern that is symmetric in the faces, and far fewer states than rolls.
    Multiplicities,
    /// Every distinct roll, a multiset of faces written in increasing order (`2,3,4,5,5`);
    /// keeping no dice is written `none`.
    Rolls,
}

impl Notation {
    /// The notation's name in the JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Notation::Multiplicities => "multiplicities",
            Notation::Rolls => "rolls",
        }
    }
}

/// One state as stored: face counts (`Rolls`, one entry per face) or multiplicity entries
/// (`Multiplicities`, entry i − 1 for multiplicity i, one entry per die).
type Key = Box<[u8]>;

/// The states of 0 to N dice, by number of dice, with the one-die links between them.
///
/// Keeps and rolls are the same objects: a keep of k dice is a state of level k, and a roll
/// is a state of level N.
pub(super) struct KeepGraph {
    notation: Notation,
    /// `levels[k]`: the states of k dice, in display order (rolls in increasing order of
    /// their sorted faces; multiplicity states in increasing order of their face counts
    /// sorted down, so five different faces come first and a Yahtzee last, as in `002_…`).
    levels: Vec<Vec<Key>>,
    /// `up[k][i]`: `(w, j)` when one more die, rolled onto state i of level k, lands on state
    /// j of level k + 1 for w of the faces; the weights of a state add up to the faces.
    up: Vec<Vec<Vec<(u32, u32)>>>,
    /// `down[k][i]`: the states of level k − 1 that are state i of level k less one die.
    down: Vec<Vec<Vec<u32>>>,
}

impl KeepGraph {
    /// The graph for `dice` dice of `faces` equally likely faces, in this notation.
    pub(super) fn new(notation: Notation, faces: u32, dice: u32) -> Self {
        let width = match notation {
            Notation::Rolls => faces as usize,
            Notation::Multiplicities => dice as usize,
        };
        let mut levels: Vec<Vec<Key>> = vec![vec![vec![0; width].into_boxed_slice()]];
        let mut up = Vec::new();
        for _ in 0..dice {
            let below = levels.last().expect("level 0 exists");
            let successors: Vec<Vec<(u32, Key)>> = below.iter().map(|key| add_die(notation, faces, key)).collect();
            let mut level: Vec<Key> = successors.iter().flatten().map(|(_, key)| key.clone()).collect();
            level.sort_by_cached_key(|key| display_order(notation, key));
            level.dedup();
            let index: HashMap<&Key, u32> = level.iter().zip(0..).collect();
            up.push(successors.iter().map(|links| links.iter().map(|(w, key)| (*w, index[key])).collect()).collect());
            levels.push(level);
        }
        up.push(vec![Vec::new(); levels[dice as usize].len()]);
        let mut down: Vec<Vec<Vec<u32>>> = levels.iter().map(|level| vec![Vec::new(); level.len()]).collect();
        for (k, links) in up.iter().enumerate().take(dice as usize) {
            for (i, links) in links.iter().enumerate() {
                for &(_, j) in links {
                    down[k + 1][j as usize].push(i as u32);
                }
            }
        }
        KeepGraph { notation, levels, up, down }
    }

    /// How many states of 0 to `dice` dice the rolls notation has, all sizes together:
    /// C(faces + dice, dice), or `None` past `u128`.
    pub(super) fn roll_keeps(faces: u32, dice: u32) -> Option<u128> {
        (1..=u128::from(dice)).try_fold(1u128, |count, i| Some(count.checked_mul(u128::from(faces) + i)? / i))
    }

    /// The notation of the states.
    pub(super) fn notation(&self) -> Notation {
        self.notation
    }

    /// The number of dice of the largest states (the rolls).
    pub(super) fn dice(&self) -> usize {
        self.levels.len() - 1
    }

    /// How many states hold k dice.
    pub(super) fn level_len(&self, k: usize) -> usize {
        self.levels[k].len()
    }

    /// One-die successors of state i of level k with their weights (out of the faces).
    pub(super) fn up(&self, k: usize, i: usize) -> &[(u32, u32)] {
        &self.up[k][i]
    }

    /// The states of level k − 1 inside state i of level k.
    pub(super) fn down(&self, k: usize, i: usize) -> &[u32] {
        &self.down[k][i]
    }

    /// How to write state i of level k.
    pub(super) fn label(&self, k: usize, i: usize) -> String {
        let key = &self.levels[k][i];
        match self.notation {
            Notation::Multiplicities => multiplicity_label(&key.iter().map(|&m| u32::from(m)).collect::<Vec<_>>()),
            Notation::Rolls if k == 0 => "none".into(),
            Notation::Rolls => sorted_faces(key).iter().map(u32::to_string).collect::<Vec<_>>().join(","),
        }
    }

    /// Face counts of state i of level k: the roll itself, or for a multiplicity state one
    /// roll of that state (the largest counts on the lowest faces).
    pub(super) fn face_counts(&self, k: usize, i: usize) -> Vec<u8> {
        let key = &self.levels[k][i];
        match self.notation {
            Notation::Rolls => key.to_vec(),
            Notation::Multiplicities => {
                counts_down(key).into_iter().map(|c| u8::try_from(c).expect("at most 255 dice")).collect()
            }
        }
    }
}

/// The states one more die leads to, with how many faces lead to each. For multiplicity
/// entries this is `002_…`'s rule: a face already on i dice moves one entry from i to
/// i + 1 (for each of those faces), a face on no die adds a single.
fn add_die(notation: Notation, faces: u32, key: &Key) -> Vec<(u32, Key)> {
    let bump = |steps: &[(usize, i8)]| {
        let mut next = key.clone();
        for &(at, by) in steps {
            next[at] = next[at].checked_add_signed(by).expect("a die count stays in 0..=255");
        }
        next
    };
    match notation {
        Notation::Rolls => (0..key.len()).map(|face| (1, bump(&[(face, 1)]))).collect(),
        Notation::Multiplicities => {
            let showing: u32 = key.iter().map(|&m| u32::from(m)).sum();
            let new_face = (faces > showing).then(|| (faces - showing, bump(&[(0, 1)])));
            let repeats =
                (0..key.len() - 1).filter(|&i| key[i] > 0).map(|i| (u32::from(key[i]), bump(&[(i, -1), (i + 1, 1)])));
            new_face.into_iter().chain(repeats).collect()
        }
    }
}

/// The sort key of a state within its level (see [`KeepGraph::levels`]).
fn display_order(notation: Notation, key: &Key) -> Vec<u32> {
    match notation {
        Notation::Rolls => sorted_faces(key),
        Notation::Multiplicities => counts_down(key),
    }
}

/// The faces of a roll given by its face counts, in increasing order.
fn sorted_faces(counts: &[u8]) -> Vec<u32> {
    (1..).zip(counts).flat_map(|(face, &count)| std::iter::repeat_n(face, usize::from(count))).collect()
}

/// The face counts of a multiplicity state, largest first.
fn counts_down(entries: &[u8]) -> Vec<u32> {
    entries.iter().enumerate().rev().flat_map(|(i, &m)| std::iter::repeat_n(i as u32 + 1, usize::from(m))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_dice_have_the_papers_seven_states_and_252_rolls() {
        let graph = KeepGraph::new(Notation::Multiplicities, 6, 5);
        let labels: Vec<String> = (0..graph.level_len(5)).map(|i| graph.label(5, i)).collect();
        assert_eq!(labels, ["5", "31", "12", "201", "011", "1001", "00001"]);
        let keeps: usize = (0..=5).map(|k| graph.level_len(k)).sum();
        assert_eq!(keeps, 19, "002_… counts 19 options, no dice included");
        let rolls = KeepGraph::new(Notation::Rolls, 6, 5);
        assert_eq!(rolls.level_len(5), 252);
        assert_eq!((0..=5).map(|k| rolls.level_len(k) as u128).sum::<u128>(), KeepGraph::roll_keeps(6, 5).unwrap());
        assert_eq!(rolls.label(5, 0), "1,1,1,1,1");
        assert_eq!(rolls.label(0, 0), "none");
    }

    #[test]
    fn the_papers_example_option_01_moves_to_11_five_ways_and_001_one_way() {
        let graph = KeepGraph::new(Notation::Multiplicities, 6, 3);
        let pair = (0..graph.level_len(2)).find(|&i| graph.label(2, i) == "01").unwrap();
        let mut moves: Vec<(u32, String)> =
            graph.up(2, pair).iter().map(|&(w, j)| (w, graph.label(3, j as usize))).collect();
        moves.sort();
        assert_eq!(moves, [(1, "001".to_string()), (5, "11".to_string())]);
    }
}
