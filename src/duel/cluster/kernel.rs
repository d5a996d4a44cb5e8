//! What solves a sweep's blocks: the CPU kernel on rayon's threads, or (feature `gpu`) the
//! GPU kernel of `crate::duel::gpu`, whose values are the CPU's bit for bit, so that the
//! choice changes no file.

use super::error::ClusterError;
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
                let values = match self {
                    Kernel::Gpu(gpu) => gpu
                        .solve_tile(space, shape, rows.as_ref(), tile)
                        .map_err(|e| ClusterError::Gpu(e.to_string()))?,
                    _ => crate::duel::gpu::solve_tile_on_host(space, shape, rows.as_ref(), tile, usize::MAX),
                };
                let values: Box<dyn Any> = Box::new(values);
                Ok(*values.downcast::<Vec<V>>().expect("V is f32"))
            }
        }
    }
}
