//! Repair: shards that `--resume` found damaged or missing, recomputed from the layer
//! above by the same sweep that wrote them, and put back only if they are the very files
//! the manifest lists.
//!
//! A shard holds some rows of its layer (or a piece of one row), and a row's pairs read
//! every row of the layer above. So a repair solves only the shard's movers, against the
//! layer above's rows read back from its shards in blocks of at most a set size: its
//! memory is one block of rows and the shard's own rows, whatever the layer's size.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use bytemuck::Pod;

use super::driver::{Begun, Frontier, sweep};
use super::kernel::Kernel;
use super::shards::read_rows;
use crate::duel::cluster::error::ClusterError;
use crate::duel::cluster::exchange::gather_then_decide;
use crate::duel::cluster::ranks::Ranks;
use crate::duel::shard::{self, Codec, Column, LayerEntry, Manifest, ShardEntry, ShardError, ShardSpan, shard_ranges};
use crate::duel::solve::LayerRows;
use crate::duel::{DuelValue, LayerShape, Space, Tile};
use crate::store::{self, Durability};

/// Bytes of the layer above's rows a repair reads at once, when the solve gives no budget
/// (a block holds at least one row).
pub(super) const REPAIR_BLOCK_BYTES: u64 = 1 << 30;

/// Recomputes the shards `damaged` (indices in the layer) of `layer` from the layer above
/// as listed in `manifest` (every layer above is intact or repaired already), the way the
/// solve computed them, reading the layer above in blocks of at most `block_bytes` of
/// rows, and checks each against the checksum the manifest lists: the values are
/// bit-identical, so the files are too. The ranks share the shards; every rank must call it.
pub(super) fn repair_layer<V: DuelValue + Pod>(
    space: &Space,
    ranks: &impl Ranks,
    dir: &Path,
    manifest: &Manifest,
    layer: usize,
    damaged: &[usize],
    block_bytes: u64,
) -> Result<(), ClusterError> {
    let shape = Arc::new(LayerShape::new(space, layer));
    let above = manifest.layer(layer + 1).map(|entry| (LayerShape::new(space, layer + 1), entry));
    let blocks = blocks(&shape, above.as_ref().map(|a| &a.0), block_bytes / std::mem::size_of::<V>() as u64);
    let spans = shard_ranges(&shape, manifest.shard_positions);
    let listed = manifest.layer(layer).map_or(&[][..], |l| &l.shards);
    let mut problems = Vec::new();
    for &i in damaged.iter().skip(ranks.rank()).step_by(ranks.size()) {
        let span = spans.get(i).ok_or_else(|| ClusterError::Resume {
            dir: dir.display().to_string(),
            reason: format!("layer {layer} has no shard {i}"),
        })?;
        let rows = Tile::new(space, &shape, span.movers.clone(), 0..shape.opponents.len());
        let values = vec![V::NOTHING; rows.positions() as usize];
        let mut frontier =
            ShardRepair { space, dir, shape: shape.clone(), above: above.as_ref(), blocks: &blocks, rows, values };
        sweep(space, layer..layer + 1, &mut frontier, &|| false, &Kernel::Cpu)?;
        let base = shape.rows(span.movers.clone()).start;
        let values = &frontier.values[(span.positions.start - base) as usize..(span.positions.end - base) as usize];
        problems.extend(put_back(space, dir, &shape, (i, span), values, listed.get(i))?);
    }
    let mine = serde_json::to_vec(&problems).expect("problems serialise");
    let decide = |all: Vec<Vec<u8>>| -> Result<(), ClusterError> {
        let mut problems: Vec<String> = Vec::new();
        for bytes in &all {
            let theirs: Vec<String> =
                serde_json::from_slice(bytes).map_err(|source| ClusterError::Record { what: "repairs", source })?;
            problems.extend(theirs);
        }
        match problems.is_empty() {
            true => Ok(()),
            false => Err(ShardError::Unsound { dir: dir.to_owned(), problems, remedy: None }.into()),
        }
    };
    gather_then_decide(ranks, mine, decide, |()| Vec::new(), |_| Ok(()))
}

/// The opponents of `shape` (the movers of the layer above, `above`) cut into consecutive
/// blocks of at most `values` values of the layer above's rows, at least one row each; one
/// block when there is no layer above.
fn blocks(shape: &LayerShape, above: Option<&LayerShape>, values: u64) -> Vec<Range<usize>> {
    let Some(above) = above else { return std::iter::once(0..shape.opponents.len()).collect() };
    debug_assert_eq!(shape.opponents, above.movers);
    let mut blocks = Vec::new();
    let mut start = 0;
    for end in 1..=above.movers.len() {
        let rows = above.rows(start..end);
        if rows.end - rows.start > values && end - start > 1 {
            blocks.push(start..end - 1);
            start = end - 1;
        }
    }
    blocks.push(start..above.movers.len());
    blocks
}

/// One shard's rows solved block by block of the layer above.
struct ShardRepair<'r, 's, 'a, V> {
    space: &'s Space<'a>,
    dir: &'r Path,
    shape: Arc<LayerShape>,
    /// The layer above, listed (none at the game's end).
    above: Option<&'r (LayerShape, &'r LayerEntry)>,
    blocks: &'r [Range<usize>],
    /// The shard's rows with every opponent, and their values as solved so far.
    rows: Tile,
    values: Vec<V>,
}

impl<V: DuelValue> Frontier<V> for ShardRepair<'_, '_, '_, V> {
    fn begin(&mut self, _: usize) -> Result<Begun, ClusterError> {
        let blocks = self.blocks.iter().cloned().enumerate().collect();
        Ok(Begun { shape: self.shape.clone(), movers: self.rows.movers.clone(), blocks })
    }

    fn solve(
        &mut self,
        b: usize,
        solve: impl FnOnce(Option<LayerRows<'_, V>>) -> Result<Vec<V>, ClusterError>,
    ) -> Result<Vec<V>, ClusterError> {
        let Some((above, entry)) = self.above else { return solve(None) };
        let cards = self.blocks[b].clone();
        let values = read_rows::<V>(self.dir, self.space, above, entry, cards.clone())?;
        let tile = Tile::new(self.space, above, cards, 0..above.opponents.len());
        solve(Some(LayerRows { tile: &tile, values: &values }))
    }

    fn hand(&mut self, b: usize, tile: &Tile, values: Vec<V>) -> Result<(), ClusterError> {
        for m in self.rows.movers.clone() {
            let to = self.rows.span(m, self.blocks[b].clone());
            self.values[to].copy_from_slice(&values[tile.rows(m..m + 1)]);
        }
        Ok(())
    }

    fn end(&mut self) -> Result<(), ClusterError> {
        Ok(())
    }

    fn finish(&mut self) -> Result<(), ClusterError> {
        Ok(())
    }
}

/// Writes shard `i` of `shape` from its recomputed `values` beside the tables, with each
/// codec yz has written in turn ([`Codec::ALL`]: tables may come from an older release),
/// and moves it into place only if it is the file the manifest lists (`listed`), so a
/// failed repair loses nothing. Returns the problem, if it is not.
fn put_back<V: DuelValue>(
    space: &Space,
    dir: &Path,
    shape: &LayerShape,
    (i, span): (usize, &ShardSpan),
    values: &[V],
    listed: Option<&ShardEntry>,
) -> Result<Option<String>, ClusterError> {
    let layer = shape.layer;
    let scratch = dir.join(format!(".repair.{}.{layer:02}.{i:05}", std::process::id()));
    let io = |action| move |source| ShardError::from(store::StoreError::Io { path: dir.to_owned(), action, source });
    std::fs::create_dir_all(&scratch).map_err(io("create"))?;
    let file = shard::shard_file(layer, i, Column::Value);
    let written = (Column::Value, Durability::Synced);
    // The listed file's entry if a codec gives it (the file then moved into place), else
    // the newest codec's entry, to report.
    let entry = (|| -> Result<ShardEntry, ShardError> {
        let mut newest = None;
        for codec in Codec::ALL {
            let entry =
                shard::write_shard_with(codec, &scratch, space.cards().game(), shape, (i, span), values, written)?;
            if listed == Some(&entry) {
                std::fs::rename(scratch.join(&file), dir.join(&file)).map_err(io("rename"))?;
                return Ok(entry);
            }
            newest.get_or_insert(entry);
        }
        Ok(newest.expect("there is a codec"))
    })();
    std::fs::remove_dir_all(&scratch).map_err(io("remove"))?;
    let entry = entry?;
    Ok(match listed {
        Some(was) if *was == entry => {
            tracing::info!(file, "repaired from the layer above");
            None
        }
        was => Some(format!(
            "{file}: recomputed from layer {} with checksum {}, but the manifest lists {}, so it was left as it is: \
             the manifest's entry, or the layers above, are not what the solve wrote",
            layer + 1,
            entry.checksum,
            was.map_or("nothing".to_owned(), |w| w.checksum.to_string())
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::Cards;
    use crate::game::{Game, Rules};

    /// Blocks cover the layer above's movers in order, each within the limit unless it is
    /// one row; no layer above: one block of every opponent.
    #[test]
    fn blocks_cover_the_rows_above_within_the_limit() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(5).unwrap() });
        let space = Space::whole_game(&cards);
        let (shape, above) = (LayerShape::new(&space, 6), LayerShape::new(&space, 7));
        let biggest = (0..above.movers.len()).map(|k| above.rows(k..k + 1)).map(|r| r.end - r.start).max().unwrap();
        for limit in [0, biggest / 2, biggest, 3 * biggest, u64::MAX] {
            let cut = blocks(&shape, Some(&above), limit);
            assert_eq!((cut[0].start, cut.last().unwrap().end), (0, above.movers.len()), "limit {limit}");
            assert!(cut.windows(2).all(|w| w[0].end == w[1].start && w[0].start < w[0].end), "limit {limit}");
            for block in &cut {
                let rows = above.rows(block.clone());
                assert!(block.len() == 1 || rows.end - rows.start <= limit, "limit {limit}: {block:?}");
            }
            assert_eq!(cut.len() == 1, limit >= above.positions(), "limit {limit}");
        }
        let last = LayerShape::new(&space, space.end_layer() - 1);
        let whole: Vec<Range<usize>> = std::iter::once(0..last.opponents.len()).collect();
        assert_eq!(blocks(&last, None, 0), whole);
    }
}
