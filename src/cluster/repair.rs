//! Repair: shards that `--resume` found damaged or missing, recomputed from the layer
//! above by the same sweep that wrote them, and put back only if they are the very files
//! the manifest lists.

use std::path::Path;
use std::sync::Arc;

use bytemuck::Pod;

use super::error::ClusterError;
use super::exchange::gather_findings;
use super::memory::{InMemory, Keep};
use super::ranks::Ranks;
use super::shards::{Held, Pending, read_held};
use super::sweep::sweep;
use crate::duel::shard::{self, Column, Manifest, ShardEntry, ShardError, ShardSpan};
use crate::duel::{DuelValue, LayerShape, Space};
use crate::store::{self, Durability};

/// Recomputes the shards `damaged` (indices in the layer) of `layer` from the layer above
/// as listed in `manifest` (every layer above is intact or repaired already), the way the
/// solve computed them, and checks each against the checksum the manifest lists: the
/// values are bit-identical, so the files are too.
pub(super) fn repair_layer<V: DuelValue + Pod>(
    space: &Space,
    ranks: &impl Ranks,
    dir: &Path,
    manifest: &Manifest,
    layer: usize,
    damaged: &[usize],
) -> Result<(), ClusterError> {
    let shape = LayerShape::new(space, layer);
    let above = manifest.layer(layer + 1).map(|entry| {
        let above = Arc::new(LayerShape::new(space, layer + 1));
        read_held::<V>(space, dir, entry, above, Some(&shape), ranks.size(), ranks.rank())
    });
    let held = above.transpose()?.map(Arc::new);
    let listed = manifest.layer(layer).map_or(&[][..], |l| &l.shards);
    let keep =
        Repair { space, ranks, dir, shard_positions: manifest.shard_positions, listed, damaged, problems: Vec::new() };
    let mut frontier = InMemory::new(space, ranks, layer, keep, held);
    sweep(space, layer..layer + 1, &mut frontier)
}

/// The damaged shards of a layer rewritten from its values, and what did not match.
struct Repair<'r, 's, 'a, R> {
    space: &'s Space<'a>,
    ranks: &'r R,
    dir: &'r Path,
    shard_positions: u64,
    /// The layer's shards as the manifest lists them.
    listed: &'r [ShardEntry],
    /// The indices of the shards to repair.
    damaged: &'r [usize],
    /// Shards recomputed to other files than the manifest lists.
    problems: Vec<String>,
}

impl<V: DuelValue, R: Ranks> Keep<V> for Repair<'_, '_, '_, R> {
    fn shard_positions(&self, _: usize) -> Option<u64> {
        Some(self.shard_positions)
    }

    fn take(&mut self, held: Held<V>, to_write: Vec<(usize, ShardSpan)>) -> Result<Arc<Held<V>>, ClusterError> {
        let (dir, layer) = (self.dir, held.shape.layer);
        for (i, span) in to_write.into_iter().filter(|(i, _)| self.damaged.contains(i)) {
            // Written beside the tables first: it replaces the damaged file only if it is
            // the file the manifest lists, so a failed repair loses nothing.
            let scratch = dir.join(format!(".repair.{}.{layer:02}.{i:05}", std::process::id()));
            let io =
                |action| move |source| ShardError::from(store::StoreError::Io { path: dir.to_owned(), action, source });
            std::fs::create_dir_all(&scratch).map_err(io("create"))?;
            let file = shard::shard_file(layer, i, Column::Value);
            let game = self.space.cards().game();
            let values = held.span_values(&span.positions);
            let written = (Column::Value, Durability::Synced);
            let entry = shard::write_shard(&scratch, game, &held.shape, (i, &span), values, written);
            let entry = entry.and_then(|entry| {
                if self.listed.get(i) == Some(&entry) {
                    std::fs::rename(scratch.join(&file), dir.join(&file)).map_err(io("rename"))?;
                }
                Ok(entry)
            });
            std::fs::remove_dir_all(&scratch).map_err(io("remove"))?;
            let entry = entry?;
            match self.listed.get(i) {
                Some(was) if *was == entry => tracing::info!(file, "repaired from the layer above"),
                was => self.problems.push(format!(
                    "{file}: recomputed from layer {} with checksum {}, but the manifest lists {}, so it was left as \
                     it is: the manifest's entry, or the layers above, are not what the solve wrote",
                    layer + 1,
                    entry.checksum,
                    was.map_or("nothing".to_owned(), |w| w.checksum.to_string())
                )),
            }
        }
        Ok(Arc::new(held))
    }

    /// Every rank's problems gathered: any stops every rank, rank 0 naming them all.
    fn record(&mut self, _: Pending) -> Result<(), ClusterError> {
        let (stop, found) = gather_findings(self.ranks, &self.problems, "repairs")?;
        if !stop {
            return Ok(());
        }
        if self.ranks.rank() == 0 {
            let problems = found.into_iter().map(|(_, problem)| problem).collect();
            return Err(ShardError::Unsound { dir: self.dir.to_owned(), problems }.into());
        }
        Err(ClusterError::StoppedByRankZero)
    }
}
