//! Where a layer's positions lie, in structures sized by the cards or by a share of the
//! pairs, never by the whole layer's pairs.
//!
//! A layer stores its pairs mover by mover, each mover's row by opponent, each pair's
//! window of differences from its `lo` on. Two structures describe that order:
//!
//! | structure | size | what it gives |
//! |---|---|---|
//! | [`LayerShape`] | per card: movers, opponents, one row start per mover | where each mover's row starts; shard and rank boundaries |
//! | [`Tile`] | one offset per pair of a rectangle (some movers × some opponents) | where each pair of the rectangle starts in the rectangle's values |
//!
//! The full game's largest layers have about 6e9 pairs, so one offset per pair of a whole
//! layer would be 48 GB. A rank of the cluster solve builds only the tiles of the pairs it
//! computes (every mover × its opponents) and of the rows it keeps (its movers × every
//! opponent): about `1/P` of the layer's pairs each. Row lengths and rank loads are sums
//! over card pairs that depend on the two cards only through their bounds, so they are
//! summed over bound classes ([`per_card_sums`]), as in [`super::sizing::count`].

use std::collections::HashMap;
use std::ops::Range;

use rayon::prelude::*;

use super::cards::{CardBounds, Cards, window};
use super::space::{Space, layer_split};
use crate::game::StateId;

/// Positions of a pair window `(lo, hi)`: its length, 0 when empty.
pub fn window_len((lo, hi): (i32, i32)) -> u64 {
    (hi - lo + 1).max(0) as u64
}

/// The cards of `ids` grouped by bounds, with how many cards share each.
pub fn bound_classes(cards: &Cards, ids: &[StateId]) -> Vec<(CardBounds, u64)> {
    let mut classes: HashMap<CardBounds, u64> = HashMap::new();
    for &id in ids {
        *classes.entry(cards.bounds(id)).or_insert(0) += 1;
    }
    let mut classes: Vec<(CardBounds, u64)> = classes.into_iter().collect();
    classes.sort_unstable();
    classes
}

/// For each card `a` of `these`, the sum over every card `b` of `those` of `f(a, b)`, where
/// `f` sees the two cards' bounds only: computed once per pair of bound classes, in
/// parallel.
pub fn per_card_sums(
    cards: &Cards,
    these: &[StateId],
    those: &[StateId],
    f: impl Fn(CardBounds, CardBounds) -> u64 + Sync,
) -> Vec<u64> {
    let theirs = bound_classes(cards, those);
    let ours = bound_classes(cards, these);
    let sums: HashMap<CardBounds, u64> =
        ours.par_iter().map(|&(a, _)| (a, theirs.iter().map(|&(b, n)| n * f(a, b)).sum())).collect();
    these.iter().map(|&id| sums[&cards.bounds(id)]).collect()
}

/// Which cards a layer pairs and where each mover's row starts: per-card facts only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerShape {
    /// The layer.
    pub layer: usize,
    /// Cards of the player to move, ascending.
    pub movers: Vec<StateId>,
    /// Cards of the player waiting, ascending.
    pub opponents: Vec<StateId>,
    /// `row_starts[m]..row_starts[m + 1]`: the value indices of mover `m`'s pairs.
    row_starts: Vec<u64>,
}

impl LayerShape {
    /// The shape of `layer` of `space`.
    pub fn new(space: &Space, layer: usize) -> LayerShape {
        let (mover_filled, opponent_filled) = layer_split(layer);
        let movers = space.movers(layer).with_filled(mover_filled).to_vec();
        let opponents = space.opponents(layer).with_filled(opponent_filled).to_vec();
        let lengths = per_card_sums(space.cards(), &movers, &opponents, |m, o| window_len(window(m, o)));
        let mut row_starts = Vec::with_capacity(movers.len() + 1);
        row_starts.push(0);
        let mut total = 0;
        for len in lengths {
            total += len;
            row_starts.push(total);
        }
        LayerShape { layer, movers, opponents, row_starts }
    }

    /// Positions in the layer.
    pub fn positions(&self) -> u64 {
        *self.row_starts.last().unwrap_or(&0)
    }

    /// Card pairs in the layer (empty windows included).
    pub fn pairs(&self) -> u64 {
        self.movers.len() as u64 * self.opponents.len() as u64
    }

    /// The value indices of the rows (movers) `movers`, in the layer's order.
    pub fn rows(&self, movers: Range<usize>) -> Range<u64> {
        self.row_starts[movers.start]..self.row_starts[movers.end]
    }

    /// Bytes this structure holds.
    pub fn bytes(&self) -> u64 {
        std::mem::size_of_val(self.movers.as_slice()) as u64
            + std::mem::size_of_val(self.opponents.as_slice()) as u64
            + std::mem::size_of_val(self.row_starts.as_slice()) as u64
    }
}

/// A rectangle of a layer's pairs, some consecutive movers × some consecutive opponents,
/// with where each pair starts in the rectangle's values (stored mover by mover).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tile {
    /// The movers (positions in the shape's mover list).
    pub movers: Range<usize>,
    /// The opponents (positions in the shape's opponent list).
    pub opponents: Range<usize>,
    /// `offsets[i]`: values before pair `i = (m − movers.start) · width + (o − opponents.start)`;
    /// one more entry holds the total.
    offsets: Vec<u64>,
}

impl Tile {
    /// The rectangle `movers` × `opponents` of `shape` (a layer of `space`), its offsets
    /// computed in parallel by mover.
    pub fn new(space: &Space, shape: &LayerShape, movers: Range<usize>, opponents: Range<usize>) -> Tile {
        let cards = space.cards();
        let width = opponents.len();
        let mut offsets = vec![0u64; movers.len() * width + 1];
        if width > 0 {
            offsets[1..].par_chunks_mut(width).zip(movers.clone().into_par_iter()).for_each(|(row, m)| {
                let bm = cards.bounds(shape.movers[m]);
                for (len, &b) in row.iter_mut().zip(&shape.opponents[opponents.clone()]) {
                    *len = window_len(window(bm, cards.bounds(b)));
                }
            });
        }
        let mut total = 0;
        for entry in &mut offsets[1..] {
            total += *entry;
            *entry = total;
        }
        Tile { movers, opponents, offsets }
    }

    /// Positions in the rectangle.
    pub fn positions(&self) -> u64 {
        *self.offsets.last().unwrap_or(&0)
    }

    /// The value indices, within the rectangle, of mover `m`'s pairs with the opponents
    /// `opponents` (a sub-range of the rectangle's).
    ///
    /// # Panics
    /// If `m` or `opponents` lie outside the rectangle.
    pub fn span(&self, m: usize, opponents: Range<usize>) -> Range<usize> {
        assert!(
            self.movers.contains(&m)
                && self.opponents.start <= opponents.start
                && opponents.start <= opponents.end
                && opponents.end <= self.opponents.end,
            "mover {m}, opponents {opponents:?} are outside the tile {:?} × {:?}",
            self.movers,
            self.opponents
        );
        let row = (m - self.movers.start) * self.opponents.len();
        let at = |o: usize| self.offsets[row + o - self.opponents.start] as usize;
        at(opponents.start)..at(opponents.end)
    }

    /// The value indices, within the rectangle, of the pair at mover `m`, opponent `o`.
    pub fn pair_range(&self, m: usize, o: usize) -> Range<usize> {
        self.span(m, o..o + 1)
    }

    /// The value indices, within the rectangle, of the rows `movers` (a sub-range of its
    /// movers).
    pub fn rows(&self, movers: Range<usize>) -> Range<usize> {
        let width = self.opponents.len();
        let at = |m: usize| self.offsets[(m - self.movers.start) * width] as usize;
        at(movers.start)..at(movers.end)
    }

    /// The rows `movers` (a sub-range of its movers) as a rectangle of their own: its
    /// values are those of [`Tile::rows`] of the same movers.
    pub fn rows_tile(&self, movers: Range<usize>) -> Tile {
        let width = self.opponents.len();
        let (from, to) = ((movers.start - self.movers.start) * width, (movers.end - self.movers.start) * width);
        let base = self.offsets[from];
        Tile {
            movers,
            opponents: self.opponents.clone(),
            offsets: self.offsets[from..=to].iter().map(|o| o - base).collect(),
        }
    }

    /// Where each pair starts, by `(m − movers.start) · opponents.len() + (o − opponents.start)`,
    /// then the total: the table a GPU kernel reads the pairs by.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Bytes this structure holds.
    pub fn bytes(&self) -> u64 {
        std::mem::size_of_val(self.offsets.as_slice()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::cards::Cards;
    use crate::game::{Game, Rules};

    #[test]
    fn tiles_agree_with_the_shape_and_with_each_other() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        for layer in 0..space.end_layer() {
            let shape = LayerShape::new(&space, layer);
            let (nm, no) = (shape.movers.len(), shape.opponents.len());
            let whole = Tile::new(&space, &shape, 0..nm, 0..no);
            assert_eq!(whole.positions(), shape.positions());
            for m in 0..nm {
                let row = shape.rows(m..m + 1);
                assert_eq!(whole.rows(m..m + 1), row.start as usize..row.end as usize);
                for o in 0..no {
                    let (lo, hi) = window(cards.bounds(shape.movers[m]), cards.bounds(shape.opponents[o]));
                    assert_eq!(whole.pair_range(m, o).len() as u64, window_len((lo, hi)));
                }
            }
            // A rectangle in the middle: the same pair lengths, offsets from its own start.
            let (movers, opponents) = (nm / 3..nm - nm / 3, no / 4..no - no / 5);
            let part = Tile::new(&space, &shape, movers.clone(), opponents.clone());
            let mut expected = 0;
            for m in movers {
                for o in opponents.clone() {
                    assert_eq!(part.pair_range(m, o).start, expected);
                    expected += whole.pair_range(m, o).len();
                }
            }
            assert_eq!(part.positions() as usize, expected);
        }
    }
}
