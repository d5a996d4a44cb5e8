//! Counting two-player positions layer by layer without enumerating pairs.
//!
//! A layer's count is the sum over (mover, opponent) card pairs of their window length
//! ([`crate::duel::cards::window`]). The window depends on the two cards only through their
//! bounds, and many cards share bounds, so the sum runs over pairs of *bound classes*
//! weighted by how many cards each class holds: thousands of classes instead of billions
//! of pairs.

use std::fmt;
use std::ops::Range;

use serde::Serialize;

use crate::duel::units::group;

use crate::duel::cards::{CardSet, Cards, window};
use rayon::prelude::*;

use crate::duel::layout::{Tile, bound_classes, window_len};
use crate::duel::space::{Space, layer_split};
use crate::game::{NUM_ROLLS, Rules};
use crate::progress::{Progress, Silent};
use crate::turn::kernel::edges_per_turn;
use crate::turn::lanes::padded_lanes;

/// Counts of one layer: every position with `layer` boxes filled on the two cards together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LayerCount {
    /// Boxes filled on both cards together.
    pub layer: usize,
    /// Boxes filled on the mover's card (the opponent has `layer − mover_filled`).
    pub mover_filled: usize,
    /// Cards the mover can hold.
    pub movers: u64,
    /// Cards the opponent can hold.
    pub opponents: u64,
    /// Card pairs with at least one position (of `movers · opponents`).
    pub pairs: u64,
    /// Positions: (mover card, opponent card, difference) triples.
    pub positions: u64,
    /// Lanes the solver runs: each pair's window rounded up to the SIMD block.
    pub lanes: u64,
}

impl LayerCount {
    /// Lane-updates the layer's turns take in a game of `boxes` boxes per player.
    pub fn lane_updates(&self, boxes: usize) -> u64 {
        self.lanes * lane_updates_per_lane(boxes - self.mover_filled)
    }
}

/// Lane-updates of one lane of one turn of a mover with `open` boxes: the kernel's edges,
/// plus one more candidate per roll for every open box beyond the first when scoring.
pub fn lane_updates_per_lane(open: usize) -> u64 {
    edges_per_turn() as u64 + (NUM_ROLLS * open.saturating_sub(1)) as u64
}

/// Lane-updates of the turns of movers `movers` against opponents `opponents` in `tile`
/// (a rectangle of layer `layer` of `space`): each pair's lanes padded as the solver runs
/// them, times a lane's lane-updates at the movers' open boxes.
pub fn tile_lane_updates(
    space: &Space,
    layer: usize,
    tile: &Tile,
    movers: Range<usize>,
    opponents: Range<usize>,
) -> u64 {
    let per_lane = lane_updates_per_lane(space.cards().boxes() - layer_split(layer).0);
    let lanes: u64 = movers
        .flat_map(|m| opponents.clone().map(move |o| (m, o)))
        .map(|(m, o)| padded_lanes(tile.pair_range(m, o).len()) as u64)
        .sum();
    lanes * per_lane
}

/// Counts every layer of `space` in which someone moves.
pub fn count_layers(space: &Space) -> Vec<LayerCount> {
    count_layers_from(space, space.first_layer())
}

/// Counts the layers of `space` from `first` (at least the space's first layer) on.
pub fn count_layers_from(space: &Space, first: usize) -> Vec<LayerCount> {
    count_layers_reporting(space, first, &Silent)
}

/// [`count_layers_from`], reporting each layer counted to `progress`.
pub fn count_layers_reporting(space: &Space, first: usize, progress: &dyn Progress) -> Vec<LayerCount> {
    let layers = first.max(space.first_layer())..space.end_layer();
    progress.start("counting", layers.len() as u64, "layers");
    let counts = layers
        .into_par_iter()
        .map(|layer| {
            let count = count_layer(space, layer);
            progress.advance(1);
            count
        })
        .collect();
    progress.finish();
    counts
}

/// Counts the layers of `space` from `first` on while their positions add up to at most
/// `limit`, from the last layer down (the small layers first): the counts, or (once the
/// limit is passed) the positions counted so far, more than `limit`. A whole count of a
/// large game takes seconds; whether it is larger than a bound is known after its smallest
/// layers.
pub fn count_layers_up_to(space: &Space, first: usize, limit: u64) -> Result<Vec<LayerCount>, u64> {
    let mut counts = Vec::new();
    let mut positions = 0u64;
    for layer in (first.max(space.first_layer())..space.end_layer()).rev() {
        let count = count_layer(space, layer);
        positions = positions.saturating_add(count.positions);
        if positions > limit {
            return Err(positions);
        }
        counts.push(count);
    }
    counts.reverse();
    Ok(counts)
}

/// Counts one layer of `space`.
fn count_layer(space: &Space, layer: usize) -> LayerCount {
    let cards = space.cards();
    let classes = |set: &CardSet, k: usize| bound_classes(cards, set.with_filled(k));
    let (mover_filled, opponent_filled) = layer_split(layer);
    let opponents = classes(space.opponents(layer), opponent_filled);
    let movers = classes(space.movers(layer), mover_filled);
    let mut count = LayerCount {
        layer,
        mover_filled,
        movers: movers.iter().map(|&(_, n)| n).sum(),
        opponents: opponents.iter().map(|&(_, n)| n).sum(),
        ..LayerCount::default()
    };
    let (pairs, positions, lanes) = movers
        .par_iter()
        .map(|&(mover, m)| {
            let mut sums = (0, 0, 0);
            for &(opponent, o) in &opponents {
                let len = window_len(window(mover, opponent));
                if len > 0 {
                    sums.0 += m * o;
                    sums.1 += m * o * len;
                    sums.2 += m * o * padded_lanes(len as usize) as u64;
                }
            }
            sums
        })
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    (count.pairs, count.positions, count.lanes) = (pairs, positions, lanes);
    count
}

/// Positions of the final layer, where both cards are full and only `d = 0` (a draw) is
/// not decided: reported apart, since nobody moves there.
pub fn count_terminal(cards: &Cards) -> u64 {
    let full = CardSet::all(cards);
    let full = full.with_filled(cards.boxes());
    full.iter()
        .flat_map(|&a| full.iter().map(move |&b| window(cards.bounds(a), cards.bounds(b))))
        .map(|(lo, hi)| if lo <= hi { (hi - lo + 1) as u64 } else { 0 })
        .sum()
}

/// The positions of a two-player game counted layer by layer (`yz duel count`).
#[derive(Clone, Debug, Serialize)]
pub struct CountReport {
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// Cards a player can hold.
    pub cards: usize,
    /// Every layer in which someone moves.
    pub layers: Vec<LayerCount>,
    /// Positions of those layers.
    pub positions: u64,
    /// Card pairs of those layers.
    pub pairs: u64,
    /// Finished games: both cards full, one position per pair of cards (d = 0).
    pub terminal_positions: u64,
    /// Seconds the count took.
    pub seconds: f64,
}

impl CountReport {
    /// Counts the layers of `space` (reporting to `progress`) and the finished games.
    pub fn count(space: &Space, progress: &dyn Progress) -> CountReport {
        let started = std::time::Instant::now();
        let cards = space.cards();
        let layers = count_layers_reporting(space, space.first_layer(), progress);
        let game = cards.game();
        CountReport {
            rules: game.rules,
            categories: game.box_names(),
            cards: cards.index().len(),
            positions: layers.iter().map(|l| l.positions).sum(),
            pairs: layers.iter().map(|l| l.pairs).sum(),
            layers,
            terminal_positions: count_terminal(cards),
            seconds: started.elapsed().as_secs_f64(),
        }
    }
}

/// The layers as a table: layer, boxes filled by each player, pairs and positions, and
/// their totals.
pub struct LayerTable<'a>(pub &'a [LayerCount]);

impl fmt::Display for LayerTable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  {:>5} {:>6} {:>16} {:>22}", "layer", "filled", "pairs", "positions")?;
        for l in self.0 {
            let filled = format!("{}+{}", l.mover_filled, l.layer - l.mover_filled);
            writeln!(f, "  {:>5} {filled:>6} {:>16} {:>22}", l.layer, group(l.pairs), group(l.positions))?;
        }
        let positions: u64 = self.0.iter().map(|l| l.positions).sum();
        let pairs: u64 = self.0.iter().map(|l| l.pairs).sum();
        write!(f, "  {:>5} {:>6} {:>16} {:>22}", "total", "", group(pairs), group(positions))
    }
}

impl fmt::Display for CountReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "rules       {}", self.rules)?;
        writeln!(f, "categories  {}", self.categories.join(","))?;
        writeln!(f, "cards       {} per player", self.cards)?;
        writeln!(f)?;
        writeln!(f, "{}", LayerTable(&self.layers))?;
        writeln!(f)?;
        writeln!(f, "finished games (both cards full, d = 0 only): {}", group(self.terminal_positions))?;
        write!(f, "counted in {:.2} s", self.seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(12_671_976_997_282), "12,671,976,997,282");
    }
    use crate::game::{Category, CategorySet, Game, Rules};

    /// The same counts by enumerating every pair and every difference.
    fn enumerate(cards: &Cards, set: &CardSet) -> Vec<u64> {
        (0..2 * cards.boxes())
            .map(|layer| {
                let (km, ko) = layer_split(layer);
                let mut n = 0;
                for &a in set.with_filled(km) {
                    for &b in set.with_filled(ko) {
                        let (ba, bb) = (cards.bounds(a), cards.bounds(b));
                        for d in -2000..=2000 {
                            let possible = (ba.past_min - bb.past_max..=ba.past_max - bb.past_min).contains(&d);
                            let open = crate::duel::cards::decided(ba, bb, d).is_none();
                            n += (possible && open) as u64;
                        }
                    }
                }
                n
            })
            .collect()
    }

    #[test]
    fn class_counting_equals_enumeration() {
        for categories in
            [Rules::OFFICIAL.first(3).unwrap(), CategorySet::EMPTY.with(Category::ThreeOfAKind).with(Category::Yahtzee)]
        {
            let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories });
            let set = CardSet::all(&cards);
            let counted: Vec<u64> = count_layers(&Space::whole_game(&cards)).iter().map(|c| c.positions).collect();
            assert_eq!(counted, enumerate(&cards, &set));
        }
    }

    #[test]
    fn chance_alone() {
        // One box each: the first player's card is empty at d = 0; after his turn he holds
        // 5..=30 points, so d for the second player runs over −30..=−5.
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: CategorySet::EMPTY.with(Category::Chance) });
        let counts = count_layers(&Space::whole_game(&cards));
        assert_eq!(counts.iter().map(|c| c.positions).collect::<Vec<_>>(), vec![1, 26]);
    }
}
