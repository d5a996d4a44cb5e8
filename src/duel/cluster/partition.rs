//! Which rank computes, holds and writes what, as a function of a layer's shape and the
//! number of ranks only (see the [module docs](super) for the design).

use std::ops::Range;

use rayon::prelude::*;

use crate::duel::cards::window;
use crate::duel::layout::{per_card_sums, window_len};
use crate::duel::shard::{ShardSpan, shard_ranges};
use crate::duel::{LayerShape, Space, Tile};
use crate::turn::lanes::{BLOCK, padded_lanes};

/// Kernel lanes a pair of `len` positions costs beyond its lanes, in lanes: filling the
/// successor rows and the scratch set-up. A rough constant; it only sharpens the balance.
const PAIR_OVERHEAD_LANES: u64 = BLOCK as u64;

/// Bounds `b` (`parts + 1` of them, from 0 to `weights.len()`) splitting `weights` into
/// consecutive ranges `b[r]..b[r + 1]` of about equal total weight: `b[r]` is the first
/// index where the weight before it reaches `r / parts` of the total.
pub fn split(weights: &[u64], parts: usize) -> Vec<usize> {
    assert!(parts > 0, "at least one part");
    let mut before = Vec::with_capacity(weights.len() + 1);
    let mut sum = 0u128;
    before.push(0);
    for &w in weights {
        sum += u128::from(w);
        before.push(sum);
    }
    let mut bounds: Vec<usize> = (0..parts)
        .map(|r| before.partition_point(|&b| b * (parts as u128) < sum * r as u128).min(weights.len()))
        .collect();
    bounds.push(weights.len());
    bounds
}

/// How layer `shape.layer` is computed: rank `r` solves the pairs whose opponent position
/// lies in `bounds[r]..bounds[r + 1]`, balanced by kernel work (lanes rounded up to whole
/// blocks, plus a per-pair overhead), summed per opponent over bound classes.
pub fn compute_bounds(space: &Space, shape: &LayerShape, ranks: usize) -> Vec<usize> {
    split(&opponent_work(space, shape), ranks)
}

/// The kernel work of each opponent card of layer `shape.layer` against every mover, in
/// lanes (rounded up to whole blocks, plus a per-pair overhead).
fn opponent_work(space: &Space, shape: &LayerShape) -> Vec<u64> {
    let work = |opponent, mover| {
        let len = window_len(window(mover, opponent));
        if len == 0 { 0 } else { padded_lanes(len as usize) as u64 + PAIR_OVERHEAD_LANES }
    };
    per_card_sums(space.cards(), &shape.opponents, &shape.movers, work)
}

/// The balance of layer `shape.layer` solved in memory over `ranks` ranks
/// ([`compute_bounds`]): the mean rank's kernel work over the busiest's, the share of the
/// layer's wall time the ranks are busy (below 1 where a layer has few opponent cards, the
/// unit a rank takes whole).
pub fn compute_balance(space: &Space, shape: &LayerShape, ranks: usize) -> f64 {
    let work = opponent_work(space, shape);
    let bounds = split(&work, ranks);
    let loads: Vec<u64> = bounds.windows(2).map(|b| work[b[0]..b[1]].iter().sum()).collect();
    balance_of(&loads)
}

/// The rows (movers) of a finished layer that rank `r` keeps as `bounds[r]..bounds[r + 1]`:
/// the opponents it computes in the layer before (`before`, that layer's shape), or, for
/// the last layer solved, a split by positions.
pub fn row_bounds(space: &Space, shape: &LayerShape, before: Option<&LayerShape>, ranks: usize) -> Vec<usize> {
    match before {
        Some(before) => {
            debug_assert_eq!(before.opponents, shape.movers);
            compute_bounds(space, before, ranks)
        }
        None => {
            let weights: Vec<u64> = (0..shape.movers.len())
                .map(|m| {
                    let rows = shape.rows(m..m + 1);
                    rows.end - rows.start
                })
                .collect();
            split(&weights, ranks)
        }
    }
}

/// The mean of `loads` over their largest: 1 where they are all equal (or all 0).
pub fn balance_of(loads: &[u64]) -> f64 {
    let most = loads.iter().copied().max().unwrap_or(0);
    if most == 0 { 1.0 } else { loads.iter().sum::<u64>() as f64 / loads.len() as f64 / most as f64 }
}

/// Who computes, keeps and writes what of one layer: a few numbers per rank and per shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankShares {
    /// Rank `r` computes every mover against the opponents `columns[r]..columns[r + 1]`.
    pub columns: Vec<usize>,
    /// Rank `r` keeps the rows (movers) `rows[r]..rows[r + 1]` for the layer before.
    pub rows: Vec<usize>,
    /// The shards of the layer (none when it is not written).
    pub shards: Vec<ShardSpan>,
    /// The rank that writes each shard.
    pub owners: Vec<usize>,
    /// The rows each rank receives after the layer: those it keeps and those of the
    /// shards it writes.
    pub received: Vec<Range<usize>>,
}

impl RankShares {
    /// The shares of layer `shape.layer` over `ranks` ranks; `before` is the shape of the
    /// layer solved next (none after the last layer solved); `written`: the shard size
    /// ([`shard_ranges`]) where the layer's shards are written, else none (and no rank
    /// receives rows only to write them). `columns` are
    /// the layer's [`compute_bounds`] where known already: the `rows` of the shares of the
    /// layer after it, which were computed from this layer's shape.
    pub fn new(
        space: &Space,
        shape: &LayerShape,
        columns: Option<Vec<usize>>,
        before: Option<&LayerShape>,
        ranks: usize,
        written: Option<u64>,
    ) -> RankShares {
        let columns = columns.unwrap_or_else(|| compute_bounds(space, shape, ranks));
        let rows = row_bounds(space, shape, before, ranks);
        let shards = written.map_or_else(Vec::new, |shard_positions| shard_ranges(shape, shard_positions));
        let owners = shard_owners(shape, &shards, &rows);
        let received = (0..ranks).map(|r| received_rows(&shards, &rows, &owners, r)).collect();
        RankShares { columns, rows, shards, owners, received }
    }

    /// Bytes these shares hold.
    pub fn bytes(&self) -> u64 {
        let word = std::mem::size_of::<usize>() as u64;
        word * (self.columns.len()
            + self.rows.len()
            + 4 * self.shards.len()
            + self.owners.len()
            + 2 * self.received.len()) as u64
    }

    /// The opponents rank `rank` computes.
    pub fn computed(&self, rank: usize) -> Range<usize> {
        self.columns[rank]..self.columns[rank + 1]
    }

    /// The rows rank `rank` keeps.
    pub fn kept(&self, rank: usize) -> Range<usize> {
        self.rows[rank]..self.rows[rank + 1]
    }

    /// The pairs rank `rank` computes: every mover against its opponents.
    pub fn computed_tile(&self, space: &Space, shape: &LayerShape, rank: usize) -> Tile {
        Tile::new(space, shape, 0..shape.movers.len(), self.computed(rank))
    }

    /// The pairs of the rows rank `rank` keeps, with every opponent.
    pub fn kept_tile(&self, space: &Space, shape: &LayerShape, rank: usize) -> Tile {
        Tile::new(space, shape, self.kept(rank), 0..shape.opponents.len())
    }

    /// For each row rank `rank` receives, the positions of its pairs with each rank's
    /// opponents: `segments[i · ranks + r]` for the `i`-th row received, from rank `r`.
    pub fn received_segments(&self, space: &Space, shape: &LayerShape, rank: usize) -> Vec<u64> {
        let ranks = self.columns.len() - 1;
        let cards = space.cards();
        let mut segments = vec![0u64; self.received[rank].len() * ranks];
        if ranks == 0 {
            return segments;
        }
        segments.par_chunks_mut(ranks).zip(self.received[rank].clone().into_par_iter()).for_each(|(row, m)| {
            let bm = cards.bounds(shape.movers[m]);
            for (r, segment) in row.iter_mut().enumerate() {
                let opponents = &shape.opponents[self.columns[r]..self.columns[r + 1]];
                *segment = opponents.iter().map(|&b| window_len(window(bm, cards.bounds(b)))).sum();
            }
        });
        segments
    }
}

/// Where each shard (`shards`, of `shape`) of a finished layer is written: by the rank
/// that keeps most of the rows it touches (the lowest such rank on a tie), so that few
/// values travel only to be written; every piece of a row goes to the rank keeping it.
pub fn shard_owners(shape: &LayerShape, shards: &[ShardSpan], rows: &[usize]) -> Vec<usize> {
    shards
        .iter()
        .map(|ShardSpan { movers: shard, .. }| {
            let overlap = |r: usize| {
                let (start, end) = (shard.start.max(rows[r]), shard.end.min(rows[r + 1]));
                if start < end {
                    let kept = shape.rows(start..end);
                    kept.end - kept.start
                } else {
                    0
                }
            };
            let mut best = 0;
            for r in 1..rows.len() - 1 {
                if overlap(r) > overlap(best) {
                    best = r;
                }
            }
            best
        })
        .collect()
}

/// The rows rank `rank` receives after a layer: those it keeps for the layer before and
/// those of the shards it writes (one range: every such shard overlaps the rows it keeps,
/// or it would not write it).
pub fn received_rows(shards: &[ShardSpan], rows: &[usize], owners: &[usize], rank: usize) -> Range<usize> {
    let mut start = rows[rank];
    let mut end = rows[rank + 1];
    for (shard, &owner) in shards.iter().zip(owners) {
        if owner == rank {
            start = start.min(shard.movers.start);
            end = end.max(shard.movers.end);
        }
    }
    start..end.max(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_balances_and_covers() {
        assert_eq!(split(&[1, 1, 1, 1], 2), vec![0, 2, 4]);
        assert_eq!(split(&[5], 3), vec![0, 1, 1, 1]);
        assert_eq!(split(&[], 2), vec![0, 0, 0]);
        assert_eq!(split(&[0, 0, 9, 0], 1), vec![0, 4]);
        let weights: Vec<u64> = (0..100).map(|i| (i * 37 % 11) as u64).collect();
        for parts in 1..8 {
            let b = split(&weights, parts);
            assert_eq!((b[0], b[parts]), (0, 100));
            assert!(b.windows(2).all(|w| w[0] <= w[1]));
            let total: u64 = weights.iter().sum();
            for r in 0..parts {
                let part: u64 = weights[b[r]..b[r + 1]].iter().sum();
                assert!(part <= total / parts as u64 + 10, "{parts} parts: {b:?}");
            }
        }
    }

    /// A layer's balance over its ranks: whole on one rank, the mean over the busiest rank
    /// where the ranks split its opponent cards, and below one half where there are more
    /// ranks than cards.
    #[test]
    fn a_layers_balance_is_its_mean_rank_over_its_busiest() {
        use crate::duel::Cards;
        use crate::game::{Game, Rules};
        let cards = Cards::new(Game::first(Rules::OFFICIAL, 5).unwrap());
        let space = Space::whole_game(&cards);
        let shape = LayerShape::new(&space, 5);
        assert_eq!(compute_balance(&space, &shape, 1), 1.0);
        let work = opponent_work(&space, &shape);
        let bounds = compute_bounds(&space, &shape, 3);
        let loads: Vec<u64> = bounds.windows(2).map(|b| work[b[0]..b[1]].iter().sum()).collect();
        let mean = loads.iter().sum::<u64>() as f64 / 3.0;
        assert_eq!(compute_balance(&space, &shape, 3), mean / *loads.iter().max().unwrap() as f64);
        let many = 2 * shape.opponents.len();
        assert!(compute_balance(&space, &shape, many) <= 0.5, "half the ranks idle");
        assert_eq!(balance_of(&[0, 0]), 1.0);
        assert_eq!(balance_of(&[2, 4]), 0.75);
    }
}
