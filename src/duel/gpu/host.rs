//! `turn.cu` built for the host (`host.cpp`, `shim.h`): the GPU kernel's logic run on the
//! CPU, block after block, over the same flat inputs as on the device. Slow (one thread, no
//! vectors); it exists so that the tests check the kernel bit for bit without a GPU.

use super::batch::{Batch, Params, Phases, TABLES_FLAT, Tables, batches};
use crate::duel::solve::LayerRows;
use crate::duel::{LayerShape, Space, Tile};

unsafe extern "C" {
    /// Runs blocks `0..blocks` of the kernel over `params` with `tables` as constant memory.
    fn yz_turn_host(tables: *const Tables, params: *const Params, blocks: u32);
}

/// The values of `tile`'s pairs (as [`crate::duel::solve::solve_tile`] gives them, for
/// `f32` lanes), computed by the GPU kernel's source run on the host, in launches of at
/// most `movers_per_batch` movers as on the device.
pub fn solve_tile_on_host(
    space: &Space,
    shape: &LayerShape,
    next: Option<&LayerRows<'_, f32>>,
    tile: &Tile,
    movers_per_batch: usize,
) -> Vec<f32> {
    let mut values = vec![0.0f32; tile.positions() as usize];
    for (movers, into) in batches(tile, movers_per_batch) {
        let batch = Batch::new(space, shape, next, tile, movers);
        let out = &mut values[into];
        assert_eq!(out.len(), batch.positions, "a batch fills its movers' rows");
        let params = Params {
            next_values: next.map_or(0, |n| n.values.as_ptr() as u64),
            next_offsets: next.map_or(0, |n| n.tile.offsets().as_ptr() as u64),
            plan_counts: batch.plan_counts.as_ptr() as u64,
            plan_entries: batch.plan_entries.as_ptr() as u64,
            succ_count: batch.succ_count.as_ptr() as u64,
            succ_col: batch.succ_col.as_ptr() as u64,
            succ_bounds: batch.succ_bounds.as_ptr() as u64,
            opp_row: batch.opp_row.as_ptr() as u64,
            opp_bounds: batch.opp_bounds.as_ptr() as u64,
            jobs: batch.jobs.as_ptr() as u64,
            job_out: batch.job_out.as_ptr() as u64,
            out: out.as_mut_ptr() as u64,
            job_count: batch.jobs() as u32,
            end_of_game: batch.end_of_game as u32,
            phases: Phases::TURN.0,
        };
        // SAFETY: every address points into a live vector of the length the kernel reads
        // (the batch's, the next layer's rows and offsets it was built from, `out` of the
        // batch's positions); the kernel writes only `out`.
        unsafe { yz_turn_host(&*TABLES_FLAT, &params, batch.jobs() as u32) };
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::Cards;
    use crate::duel::solve::{LayerValues, solve_tile};
    use crate::game::{Game, Rules};

    /// The layers of `space` above `lowest`, solved on the CPU, by layer.
    fn solved(space: &Space, lowest: usize) -> Vec<Option<LayerValues<f32>>> {
        let mut layers: Vec<Option<LayerValues<f32>>> = vec![None; space.end_layer() + 1];
        if lowest + 1 < space.end_layer() {
            crate::duel::sweep::solve_layers::<f32>(space, lowest + 1, |layer| {
                layers[layer.shape.layer] = Some(layer.clone());
                Ok(())
            })
            .unwrap();
        }
        layers
    }

    /// The kernel's source run on the host against the CPU's `solve_tile`, bit for bit, on
    /// real pairs of the layers of `space` from `lowest` on, each reading the real next
    /// layer: a rectangle of about `positions` positions from the middle of each layer (and
    /// above `lowest`, against the values the whole solve stored too), in launches of
    /// `movers_per_batch` movers. Returns the positions compared.
    fn compare(space: &Space, lowest: usize, positions: u64, movers_per_batch: usize) -> u64 {
        let layers = solved(space, lowest);
        let mut compared = 0;
        for layer in lowest..space.end_layer() {
            let shape = LayerShape::new(space, layer);
            let next = layers[layer + 1].as_ref().map(LayerValues::rows);
            let (nm, no) = (shape.movers.len(), shape.opponents.len());
            // Movers from the middle, until the rectangle holds about `positions`.
            let per_mover = shape.positions().div_ceil(nm as u64).max(1);
            let take = ((positions / per_mover) as usize).clamp(1, nm);
            let movers = (nm - take) / 2..(nm - take) / 2 + take;
            let tile = Tile::new(space, &shape, movers, 0..no);
            let cpu = solve_tile(space, &shape, next.as_ref(), &tile);
            let host = solve_tile_on_host(space, &shape, next.as_ref(), &tile, movers_per_batch);
            assert_eq!(cpu.len(), host.len());
            let differ = cpu.iter().zip(&host).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
            let first = cpu.iter().zip(&host).position(|(a, b)| a.to_bits() != b.to_bits());
            assert_eq!(differ, 0, "layer {layer}: {differ} of {} values differ, the first at {first:?}", cpu.len());
            if let Some(values) = &layers[layer] {
                let whole = &values.values[values.tile.rows(tile.movers.clone())];
                assert!(whole.iter().zip(&host).all(|(a, b)| a.to_bits() == b.to_bits()), "layer {layer}");
            }
            compared += host.len() as u64;
        }
        compared
    }

    #[test]
    fn the_kernel_on_the_host_equals_the_cpu_on_the_first_six_boxes() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(6).unwrap() });
        let compared = compare(&Space::whole_game(&cards), 0, 3_000, 7);
        assert!(compared > 10_000, "{compared}");
    }

    #[test]
    fn the_kernel_on_the_host_equals_the_cpu_on_four_open_boxes() {
        let cards = Cards::new(Game::full(Rules::OFFICIAL));
        let space = Space::endgame(&cards, 4);
        let compared = compare(&space, space.first_layer(), 4_000, usize::MAX);
        assert!(compared > 10_000, "{compared}");
    }
}
