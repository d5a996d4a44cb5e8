//! Which rank computes, holds and writes what, as a function of a layer's shape and the
//! number of ranks only (see the [module docs](super) for the design).

use std::ops::Range;

use crate::duel::LayerShape;
use crate::duel::shard::shard_ranges;
use crate::turn::lanes::BLOCK;

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
/// blocks, plus a per-pair overhead).
pub fn compute_bounds(shape: &LayerShape, ranks: usize) -> Vec<usize> {
    let width = shape.opponents.len();
    let mut weights = vec![0u64; width];
    for m in 0..shape.movers.len() {
        for (o, weight) in weights.iter_mut().enumerate() {
            let len = shape.pair_range(m, o).len() as u64;
            if len > 0 {
                *weight += len.div_ceil(BLOCK as u64) * BLOCK as u64 + PAIR_OVERHEAD_LANES;
            }
        }
    }
    split(&weights, ranks)
}

/// The rows (movers) of a finished layer that rank `r` keeps as `bounds[r]..bounds[r + 1]`:
/// the opponents it computes in the layer before (`before`, that layer's shape), or, for
/// the last layer solved, a split by positions.
pub fn row_bounds(shape: &LayerShape, before: Option<&LayerShape>, ranks: usize) -> Vec<usize> {
    match before {
        Some(before) => {
            debug_assert_eq!(before.opponents, shape.movers);
            compute_bounds(before, ranks)
        }
        None => {
            let weights: Vec<u64> =
                (0..shape.movers.len()).map(|m| row_positions(shape, m..m + 1).len() as u64).collect();
            split(&weights, ranks)
        }
    }
}

/// Where each shard of a finished layer is written: by the rank that keeps most of its
/// positions (the lowest such rank on a tie), so that few values travel only to be written.
pub fn shard_owners(shape: &LayerShape, rows: &[usize]) -> Vec<usize> {
    shard_ranges(shape)
        .iter()
        .map(|shard| {
            let overlap = |r: usize| {
                let (start, end) = (shard.start.max(rows[r]), shard.end.min(rows[r + 1]));
                if start < end { row_positions(shape, start..end).len() } else { 0 }
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
pub fn received_rows(shape: &LayerShape, rows: &[usize], owners: &[usize], rank: usize) -> Range<usize> {
    let mut start = rows[rank];
    let mut end = rows[rank + 1];
    for (shard, &owner) in shard_ranges(shape).iter().zip(owners) {
        if owner == rank {
            start = start.min(shard.start);
            end = end.max(shard.end);
        }
    }
    start..end.max(start)
}

/// The value indices of the rows (movers) `movers` of a layer.
pub fn row_positions(shape: &LayerShape, movers: Range<usize>) -> Range<usize> {
    let width = shape.opponents.len();
    shape.offsets[movers.start * width] as usize..shape.offsets[movers.end * width] as usize
}

/// The positions of mover `m`'s pairs with the opponents `columns`: one row's part of a
/// rank's computed block.
pub fn segment(shape: &LayerShape, m: usize, columns: &Range<usize>) -> usize {
    let width = shape.opponents.len();
    (shape.offsets[m * width + columns.end] - shape.offsets[m * width + columns.start]) as usize
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
}
