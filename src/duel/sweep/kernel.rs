//! What solves a sweep's blocks: the CPU kernel on rayon's threads, or (feature `gpu`) the
//! GPU kernel of `crate::duel::gpu`, whose values are the CPU's bit for bit, so that the
//! choice changes no file.

#[cfg(feature = "gpu")]
use std::ops::Range;

use crate::duel::cluster::error::ClusterError;
use crate::duel::solve::{LayerRows, solve_tile_until};
use crate::duel::{DuelValue, LayerShape, Space, Tile};

/// What solves a sweep's blocks.
#[derive(Clone, Debug)]
pub(super) enum Kernel {
    /// The CPU kernel, on rayon's threads.
    Cpu,
    /// The GPU kernel ([`crate::duel::gpu`]), for `f32` values.
    #[cfg(feature = "gpu")]
    Gpu(std::sync::Arc<crate::duel::gpu::Gpu>),
    /// The GPU kernel's source run on the host (`YZ_GPU=host`): one thread, slow, for
    /// checking a `--gpu` solve end to end on a machine without a GPU.
    #[cfg(feature = "gpu")]
    Host,
}

impl Kernel {
    /// The GPU (rank `rank`'s, one per rank: device `rank` modulo the devices seen) where
    /// `gpu` says so, else the CPU; refused for values that carry `draws`.
    pub(super) fn open(gpu: bool, draws: bool, rank: usize) -> Result<Kernel, ClusterError> {
        if !gpu {
            return Ok(Kernel::Cpu);
        }
        if draws {
            return Err(ClusterError::Gpu("the GPU kernel solves values without draws only".into()));
        }
        #[cfg(feature = "gpu")]
        {
            if std::env::var("YZ_GPU").is_ok_and(|v| v == "host") {
                tracing::info!(rank, "solving with the GPU kernel run on the host (YZ_GPU=host)");
                return Ok(Kernel::Host);
            }
            let gpu = crate::duel::gpu::Gpu::open_for_rank(rank).map_err(|e| ClusterError::Gpu(e.to_string()))?;
            tracing::info!(rank, device = gpu.name.as_str(), "solving on the GPU");
            Ok(Kernel::Gpu(std::sync::Arc::new(gpu)))
        }
        #[cfg(not(feature = "gpu"))]
        {
            let _ = rank;
            Err(ClusterError::Gpu("this yz was built without the `gpu` feature (cargo build --features gpu)".into()))
        }
    }

    /// Solves `tile` of `shape` from `rows` (none at the end of the game), unless `stop`
    /// says to give up (the GPU solves a tile whole).
    pub(super) fn solve<V: DuelValue>(
        &self,
        space: &Space,
        shape: &LayerShape,
        rows: Option<&LayerRows<'_, V>>,
        tile: &Tile,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<V>, ClusterError> {
        match self {
            Kernel::Cpu => solve_tile_until(space, shape, rows, tile, stop).ok_or(ClusterError::Cancelled),
            #[cfg(feature = "gpu")]
            Kernel::Gpu(_) | Kernel::Host => {
                use std::any::{Any, TypeId};
                if TypeId::of::<V>() != TypeId::of::<f32>() {
                    return Err(ClusterError::Gpu("the GPU kernel solves f32 values without draws only".into()));
                }
                let rows = rows.map(|r| LayerRows {
                    tile: r.tile,
                    // SAFETY: `V` is `f32` (checked above), so the slice is one of `f32`.
                    values: unsafe { &*(r.values as *const [V] as *const [f32]) },
                });
                let values = self.solve_in_blocks(space, shape, rows.as_ref(), tile, self.rows_budget()?)?;
                let values: Box<dyn Any> = Box::new(values);
                Ok(*values.downcast::<Vec<V>>().expect("V is f32"))
            }
        }
    }

    /// Bytes of the next layer's rows the device holds at once: `YZ_GPU_MEMORY` where set
    /// (to rehearse a layer larger than the GPU on a small game), else half the GPU's free
    /// memory (the rest holds a launch's inputs and values), unbounded on the host.
    #[cfg(feature = "gpu")]
    fn rows_budget(&self) -> Result<usize, ClusterError> {
        if let Ok(given) = std::env::var("YZ_GPU_MEMORY") {
            return given.parse().map_err(|_| {
                ClusterError::Gpu(format!("YZ_GPU_MEMORY={}: expected a number of bytes", crate::quote::quote(&given)))
            });
        }
        match self {
            Kernel::Gpu(gpu) => Ok(gpu.free_bytes().map_err(|e| ClusterError::Gpu(e.to_string()))? / 2),
            _ => Ok(usize::MAX),
        }
    }

    /// The GPU kernel's values of `tile`, the next layer's `rows` going to the device in
    /// blocks of at most `budget` bytes: where all of them do not fit, the tile is solved
    /// a run of opponents at a time, each run reading only its opponents' rows (the next
    /// layer's rows of those movers), and the values put back in the tile's order.
    #[cfg(feature = "gpu")]
    fn solve_in_blocks(
        &self,
        space: &Space,
        shape: &LayerShape,
        rows: Option<&LayerRows<'_, f32>>,
        tile: &Tile,
        budget: usize,
    ) -> Result<Vec<f32>, ClusterError> {
        let whole = |rows: Option<&LayerRows<'_, f32>>, tile: &Tile| match self {
            Kernel::Gpu(gpu) => gpu.solve_tile(space, shape, rows, tile).map_err(|e| ClusterError::Gpu(e.to_string())),
            _ => Ok(crate::duel::gpu::solve_tile_on_host(space, shape, rows, tile, usize::MAX)),
        };
        let Some(rows) = rows else { return whole(None, tile) };
        // The bytes of the rows of next-layer movers `them`: values and pair offsets.
        let width = rows.tile.opponents.len();
        let bytes = |them: Range<usize>| rows.tile.rows(them.clone()).len() * 4 + (them.len() * width + 1) * 8;
        if bytes(tile.opponents.clone()) <= budget {
            return whole(Some(rows), tile);
        }
        let mut values = vec![0.0f32; tile.positions() as usize];
        let mut start = tile.opponents.start;
        while start < tile.opponents.end {
            if bytes(start..start + 1) > budget {
                return Err(ClusterError::Gpu(format!(
                    "the next layer's rows of one opponent need {} bytes, more than the {budget} bytes of the GPU's \
                     memory they may take",
                    bytes(start..start + 1)
                )));
            }
            let mut end = start + 1;
            while end < tile.opponents.end && bytes(start..end + 1) <= budget {
                end += 1;
            }
            let block_rows = rows.tile.rows_tile(start..end);
            let read = LayerRows { tile: &block_rows, values: &rows.values[rows.tile.rows(start..end)] };
            let block = Tile::new(space, shape, tile.movers.clone(), start..end);
            let solved = whole(Some(&read), &block)?;
            for m in tile.movers.clone() {
                values[tile.span(m, start..end)].copy_from_slice(&solved[block.span(m, start..end)]);
            }
            start = end;
        }
        Ok(values)
    }
}

#[cfg(all(test, feature = "gpu"))]
mod tests {
    use super::*;
    use crate::duel::Cards;
    use crate::duel::solve::{LayerValues, solve_tile};
    use crate::game::{Game, Rules};

    /// A layer whose next rows do not fit the device's budget goes through it a run of
    /// opponents at a time, with the CPU's values bit for bit, however small the budget;
    /// a budget below one opponent's rows is refused with the figure.
    #[test]
    fn rows_larger_than_the_device_go_through_it_in_blocks() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        let layer = 4;
        let next: LayerValues<f32> = crate::duel::sweep::solve_layers(&space, layer + 1, |_| Ok(())).unwrap();
        let shape = LayerShape::new(&space, layer);
        let tile = Tile::new(&space, &shape, 0..shape.movers.len(), 0..shape.opponents.len());
        let rows = next.rows();
        let cpu = solve_tile(&space, &shape, Some(&rows), &tile);
        let widest = (0..shape.opponents.len()).map(|o| rows.tile.rows(o..o + 1).len()).max().unwrap();
        let one = widest * 4 + (rows.tile.opponents.len() + 1) * 8;
        for budget in [usize::MAX, 3 * one, one] {
            let gpu = Kernel::Host.solve_in_blocks(&space, &shape, Some(&rows), &tile, budget).unwrap();
            assert!(cpu.iter().zip(&gpu).all(|(a, b)| a.to_bits() == b.to_bits()), "budget {budget}");
            assert_eq!(cpu.len(), gpu.len());
        }
        let refused = Kernel::Host.solve_in_blocks(&space, &shape, Some(&rows), &tile, 16).unwrap_err();
        assert!(refused.to_string().contains("more than the 16 bytes"), "{refused}");
    }
}
