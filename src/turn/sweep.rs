//! The layer driver: the backward sweep every table solve runs around the turn.
//!
//! A solve holds what the later layers left (`store`) and solves the layers from the last
//! to the first. A layer's items (solitaire slots, target or payoff states) only read
//! later layers, so they run in parallel on rayon, each thread with its own scratch (a
//! turn buffer, a plan); the results are then written back in the layer's order. Every
//! item is computed alone, in a fixed order of operations, so the result does not depend
//! on the number of threads.
//!
//! The two-player solve runs its layers through the same turn, [`super::plan`] and
//! padding, but not through this loop: its layers are split into tiles across ranks and
//! written in place (`crate::duel::solve`).

use rayon::prelude::*;

use crate::progress::Progress;

/// Solves `layers` (given from the last to the first) into `store`: each item by
/// `solve(store, scratch, item)` in parallel, then the layer's results by
/// `commit(store, items, results)`, results in the items' order. Every item solved
/// advances `progress` by one.
pub fn sweep_backward<S, I, O, W, L>(
    store: &mut S,
    layers: impl IntoIterator<Item = L>,
    progress: &dyn Progress,
    scratch: impl Fn() -> W + Sync + Send,
    solve: impl Fn(&S, &mut W, &I) -> O + Sync + Send,
    mut commit: impl FnMut(&mut S, &[I], Vec<O>),
) where
    S: Sync,
    I: Sync,
    O: Send,
    L: AsRef<[I]>,
{
    for layer in layers {
        let items = layer.as_ref();
        let shared: &S = store;
        let results: Vec<O> = items
            .par_iter()
            .map_init(&scratch, |scratch, item| {
                let result = solve(shared, scratch, item);
                progress.advance(1);
                result
            })
            .collect();
        commit(store, items, results);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_layer_reads_the_layers_after_it() {
        // Item i of layer k is worth 1 + the sum of layer k + 1: a layer read before its
        // successor was written would show it.
        let mut sums = vec![0u64; 4];
        let layers = (0..3usize).rev().map(|k| (0..=k as u64).map(|i| (k, i)).collect::<Vec<_>>());
        sweep_backward(
            &mut sums,
            layers,
            &crate::progress::Silent,
            || (),
            |sums, _, &(k, i)| 1 + i + sums[k + 1],
            |sums, items, values| sums[items[0].0] = values.iter().sum(),
        );
        assert_eq!(sums, vec![16, 15, 6, 0]);
    }
}
