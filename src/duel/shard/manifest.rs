//! The manifest of a table directory: the game, the layers written, and every shard as a
//! fixed binary record in the payload.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ShardError;
use super::format::{
    Column, MANIFEST_FILE, SHARD_RECORD_BYTES, ShardEntry, linked, parse_shard_file, remove_file, shard_file,
    shard_ranges,
};
use crate::duel::layout::LayerShape;
use crate::game::Game;
use crate::store::{self, Checksum, FileKind, Identity, IdentityError, StoreError};

/// Manifests. Version 3: shards as binary records in the payload, names derived, the shard
/// size recorded. Version 2 (every shard in the JSON metadata, which the full game's
/// 528,800 shards outgrow) is refused with advice to solve the tables again. Its
/// metadata lists the layers, about 70 bytes each.
pub const MANIFEST_KIND: FileKind =
    FileKind { name: "duel-manifest", version: 3, remedy: MANIFEST_REMEDY, metadata_limit: 64 << 10 };

/// What to do with a manifest of another version.
const MANIFEST_REMEDY: &str = "its shard list is in another format; read these tables with the yz that wrote them, \
     or solve them again with yz duel solve --force";

/// A layer as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerEntry {
    /// The layer.
    pub layer: usize,
    /// Positions in the layer.
    pub positions: u64,
    /// Its shards, by ascending movers, covering every mover.
    pub shards: Vec<ShardEntry>,
    /// Shards of its draw probabilities, over the same movers ([`Column::Draw`]), or none.
    pub draws: Vec<ShardEntry>,
}

impl LayerEntry {
    /// A finished layer's entry from the shards its writers report by index (with the
    /// draw shards beside them where the values carry draws): each of its `expected`
    /// shards once, the draws none or as many. The one check before a layer is listed,
    /// whether it was solved in memory or streamed through scratch.
    pub fn from_written(
        layer: usize,
        positions: u64,
        mut shards: Vec<(usize, ShardEntry)>,
        mut draws: Vec<(usize, ShardEntry)>,
        expected: usize,
    ) -> Result<LayerEntry, ShardError> {
        shards.sort_by_key(|s| s.0);
        draws.sort_by_key(|s| s.0);
        let whole =
            |list: &[(usize, ShardEntry)]| list.len() == expected && list.iter().enumerate().all(|(i, s)| s.0 == i);
        if expected == 0 || !whole(&shards) || !(draws.is_empty() || whole(&draws)) {
            let indices = |list: &[(usize, ShardEntry)]| list.iter().map(|s| s.0).collect();
            return Err(ShardError::Unwritten { layer, written: indices(&shards), draws: indices(&draws), expected });
        }
        let entries = |list: Vec<(usize, ShardEntry)>| list.into_iter().map(|s| s.1).collect();
        Ok(LayerEntry { layer, positions, shards: entries(shards), draws: entries(draws) })
    }

    /// Its shards of `column`.
    pub fn column(&self, column: Column) -> &[ShardEntry] {
        match column {
            Column::Value => &self.shards,
            Column::Draw => &self.draws,
        }
    }
}

/// A shard as the manifest lists it, with where: its layer, column and index there.
#[derive(Clone, Copy, Debug)]
pub struct Listed<'m> {
    /// The layer.
    pub layer: usize,
    /// What it holds.
    pub column: Column,
    /// Its index among the layer's shards of that column.
    pub index: usize,
    /// The entry.
    pub entry: &'m ShardEntry,
    /// For a draw shard, the value shard of the same movers: its draws are checked
    /// against those values.
    pub values: Option<&'m ShardEntry>,
}

impl Listed<'_> {
    /// Its file name inside the table directory.
    pub fn file(&self) -> String {
        shard_file(self.layer, self.index, self.column)
    }

    /// For a draw shard, the file name of its value shard.
    pub fn value_file(&self) -> Option<String> {
        self.values.map(|_| shard_file(self.layer, self.index, Column::Value))
    }
}

/// A layer as the manifest's metadata lists it: its shards are the next records of the
/// payload.
#[derive(Serialize, Deserialize)]
struct LayerLine {
    layer: usize,
    positions: u64,
    /// Value shards: the next records.
    shards: u64,
    /// Draw shards: the records after those.
    draws: u64,
}

/// The manifest's metadata: everything but the shard records.
#[derive(Serialize, Deserialize)]
struct ManifestHeader {
    #[serde(flatten)]
    identity: Identity,
    first_layer: usize,
    end_layer: usize,
    complete: bool,
    shard_positions: u64,
    layers: Vec<LayerLine>,
}

/// The manifest of a table directory.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// The table version and the game.
    pub identity: Identity,
    /// First layer the tables will hold when complete.
    pub first_layer: usize,
    /// One past the last layer in which someone moves.
    pub end_layer: usize,
    /// Whether every layer from `first_layer` on is written.
    pub complete: bool,
    /// Most positions per shard the layers are cut with ([`shard_ranges`]).
    pub shard_positions: u64,
    /// Layers written so far, last layer first (the solve order).
    pub layers: Vec<LayerEntry>,
}

impl Manifest {
    /// An empty manifest for tables of `game` from `first_layer` to `end_layer`, cut into
    /// shards of at most `shard_positions` positions.
    pub fn new(game: Game, first_layer: usize, end_layer: usize, shard_positions: u64) -> Manifest {
        Manifest {
            identity: MANIFEST_KIND.identity(game),
            first_layer,
            end_layer,
            complete: false,
            shard_positions,
            layers: Vec::new(),
        }
    }

    /// Reads and checks the manifest of the table directory `dir`.
    pub fn open(dir: &Path) -> Result<Manifest, ShardError> {
        let path = dir.join(MANIFEST_FILE);
        // SAFETY: yz replaces store files by rename and never writes one in place.
        let file = unsafe { MANIFEST_KIND.open_unchecked(&path) }?;
        MANIFEST_KIND.check(&path, file.metadata(), None)?;
        Manifest::from_parts(file.metadata(), file.payload()).map_err(|what| ShardError::Mismatch { path, what })
    }

    /// Writes the manifest into `dir` atomically; returns its checksum and size in bytes.
    pub fn write(&self, dir: &Path) -> Result<(Checksum, u64), ShardError> {
        let (metadata, records) = self.to_parts();
        let path = dir.join(MANIFEST_FILE);
        let checksum = store::write_atomic(&path, MANIFEST_KIND.name, &metadata, &records)?;
        let bytes =
            std::fs::metadata(&path).map_err(|source| StoreError::Io { path: path.clone(), action: "stat", source })?;
        Ok((checksum, bytes.len()))
    }

    /// The metadata and the payload of shard records the manifest is stored as.
    fn to_parts(&self) -> (serde_json::Value, Vec<u8>) {
        let header = ManifestHeader {
            identity: self.identity.clone(),
            first_layer: self.first_layer,
            end_layer: self.end_layer,
            complete: self.complete,
            shard_positions: self.shard_positions,
            layers: self
                .layers
                .iter()
                .map(|l| LayerLine {
                    layer: l.layer,
                    positions: l.positions,
                    shards: l.shards.len() as u64,
                    draws: l.draws.len() as u64,
                })
                .collect(),
        };
        let records = self.layers.iter().flat_map(|l| l.shards.iter().chain(&l.draws)).flat_map(|s| s.record());
        (serde_json::to_value(header).expect("a manifest header serialises"), records.collect())
    }

    /// The manifest stored as `metadata` and `records`, or what does not parse: the
    /// record count the layers claim is checked against the payload before anything is
    /// allocated for it.
    fn from_parts(metadata: &serde_json::Value, records: &[u8]) -> Result<Manifest, String> {
        let header: ManifestHeader =
            serde_json::from_value(metadata.clone()).map_err(|e| format!("manifest metadata does not parse: {e}"))?;
        let claimed = header.layers.iter().try_fold(0u64, |sum, l| sum.checked_add(l.shards)?.checked_add(l.draws));
        let held = (records.len() / SHARD_RECORD_BYTES) as u64;
        if claimed != Some(held) || !records.len().is_multiple_of(SHARD_RECORD_BYTES) {
            return Err(format!(
                "the layers list {} shards, but the payload holds {} bytes ({held} records of {SHARD_RECORD_BYTES} bytes)",
                claimed.map_or("more than 2^64".to_owned(), |c| c.to_string()),
                records.len()
            ));
        }
        let mut records = records.chunks_exact(SHARD_RECORD_BYTES).map(ShardEntry::from_record);
        let mut take = |count: u64| records.by_ref().take(count as usize).collect::<Result<Vec<_>, _>>();
        let mut layers = Vec::with_capacity(header.layers.len());
        for line in &header.layers {
            let shards = take(line.shards)?;
            let draws = take(line.draws)?;
            layers.push(LayerEntry { layer: line.layer, positions: line.positions, shards, draws });
        }
        Ok(Manifest {
            identity: header.identity,
            first_layer: header.first_layer,
            end_layer: header.end_layer,
            complete: header.complete,
            shard_positions: header.shard_positions,
            layers,
        })
    }

    /// The manifest as bytes, to send to other ranks ([`Manifest::from_bytes`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let (metadata, records) = self.to_parts();
        let metadata = serde_json::to_vec(&metadata).expect("a manifest header serialises");
        let mut bytes = (metadata.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(&metadata);
        bytes.extend_from_slice(&records);
        bytes
    }

    /// The manifest [`Manifest::to_bytes`] made, or what does not parse.
    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest, String> {
        let (len, rest) = bytes.split_at_checked(8).ok_or("a manifest of fewer than 8 bytes")?;
        let len = usize::try_from(u64::from_le_bytes(len.try_into().expect("8 bytes"))).unwrap_or(usize::MAX);
        let (metadata, records) = rest.split_at_checked(len).ok_or("a manifest shorter than its metadata")?;
        let metadata = serde_json::from_slice(metadata).map_err(|e| format!("manifest metadata: {e}"))?;
        Manifest::from_parts(&metadata, records)
    }

    /// Lists the finished layer `entry` (its shards written and durable) and writes the
    /// manifest into `dir` atomically. Only the last listed layer's draws are kept: those
    /// of the layer listed before it are removed once the manifest no longer lists them.
    pub fn list(&mut self, dir: &Path, entry: LayerEntry) -> Result<(), ShardError> {
        let stale = self.layers.last_mut().map(|l| (l.layer, std::mem::take(&mut l.draws).len()));
        self.layers.push(entry);
        self.complete = self.layers.len() == self.end_layer - self.first_layer;
        self.write(dir)?;
        if let Some((stale_layer, count)) = stale {
            for i in 0..count {
                remove_file(&dir.join(shard_file(stale_layer, i, Column::Draw)))?;
            }
        }
        Ok(())
    }

    /// The entry of `layer`, if written.
    pub fn layer(&self, layer: usize) -> Option<&LayerEntry> {
        self.layers.iter().find(|l| l.layer == layer)
    }

    /// Every shard listed (a layer's draw shards after its values), in the manifest's order.
    pub fn listed(&self) -> Vec<Listed<'_>> {
        self.layers
            .iter()
            .flat_map(|l| {
                [Column::Value, Column::Draw].into_iter().flat_map(move |column| {
                    l.column(column).iter().enumerate().map(move |(index, entry)| Listed {
                        layer: l.layer,
                        column,
                        index,
                        entry,
                        values: (column == Column::Draw).then(|| &l.shards[index]),
                    })
                })
            })
            .collect()
    }

    /// Reads the manifest of `dir` and checks everything in it that needs no layer's
    /// shape before any of its numbers is used: a game this yz knows (`game`, if given),
    /// the layers of that game written from the last one down, and each layer covered
    /// by contiguous shards adding up to its positions. Each layer's shards are checked
    /// against the layer's shape by [`Manifest::checked_layer`] before they are read.
    pub fn open_checked(dir: &Path, game: Option<Game>) -> Result<Manifest, ShardError> {
        let manifest = Manifest::open(dir)?;
        if let Some(what) = manifest.inconsistency() {
            return Err(ShardError::Mismatch { path: dir.join(MANIFEST_FILE), what });
        }
        if let Some(game) = game {
            manifest.check_game(game, dir)?;
        }
        Ok(manifest)
    }

    /// The game of the tables, if this yz knows it ([`Manifest::open`] checked that it does).
    pub fn game(&self) -> Option<Game> {
        self.identity.game()
    }

    /// What makes the manifest contradict itself or its game, if anything.
    fn inconsistency(&self) -> Option<String> {
        let Some(game) = self.game() else {
            return Some(format!("names no game this yz knows: {:?}", self.identity));
        };
        let end = 2 * game.categories.len();
        if self.shard_positions == 0 {
            return Some("says shards hold at most 0 positions".to_owned());
        }
        if self.end_layer != end || self.first_layer >= end {
            return Some(format!(
                "lists layers {}..{}, but a game of {} boxes has layers 0..{end}",
                self.first_layer,
                self.end_layer,
                game.categories.len()
            ));
        }
        let layers: Vec<usize> = self.layers.iter().map(|l| l.layer).collect();
        let solved = self.end_layer - self.first_layer;
        let expected: Vec<usize> = (self.end_layer.saturating_sub(layers.len())..self.end_layer).rev().collect();
        if layers != expected || layers.len() > solved {
            return Some(format!(
                "lists layers {layers:?}, but a solve of layers {}..{} writes them from the last down",
                self.first_layer, self.end_layer
            ));
        }
        if self.complete != (layers.len() == solved) {
            return Some(format!("says complete = {} with {} of {solved} layers", self.complete, layers.len()));
        }
        for layer in &self.layers {
            let mut next_mover = 0usize;
            for (index, shard) in layer.shards.iter().enumerate() {
                // A later piece of a row starts within the last mover of the shard before.
                let start = if shard.row_offset > 0 { next_mover.wrapping_sub(1) } else { next_mover };
                if shard.mover_start != start || shard.mover_end <= shard.mover_start {
                    return Some(format!(
                        "layer {} lists {} for movers {}..{} after mover {next_mover}",
                        layer.layer,
                        shard_file(layer.layer, index, Column::Value),
                        shard.mover_start,
                        shard.mover_end
                    ));
                }
                next_mover = shard.mover_end;
            }
            let last = self.layers.last().is_some_and(|l| std::ptr::eq(l, layer));
            let draws_fit = layer.draws.is_empty()
                || (last
                    && layer.draws.len() == layer.shards.len()
                    && layer.draws.iter().zip(&layer.shards).all(|(d, s)| {
                        (d.mover_start, d.mover_end, d.row_offset, d.positions)
                            == (s.mover_start, s.mover_end, s.row_offset, s.positions)
                    }));
            if !draws_fit {
                return Some(format!(
                    "layer {} lists draw shards that are not those of the last layer, over its shards' movers",
                    layer.layer
                ));
            }
            let sum = layer.shards.iter().try_fold(0u64, |sum, s| sum.checked_add(s.positions));
            if sum != Some(layer.positions) {
                return Some(format!(
                    "layer {}'s shards do not add up to its {} positions",
                    layer.layer, layer.positions
                ));
            }
        }
        None
    }

    /// The entry of the layer of `shape`, checked against that shape (the layer's true
    /// movers and positions, and its shards as [`shard_ranges`] cuts it) so that no number
    /// read from the manifest can index past it.
    pub fn checked_layer(&self, dir: &Path, shape: &LayerShape) -> Result<&LayerEntry, ShardError> {
        let layer = shape.layer;
        let entry = self.layer(layer).ok_or_else(|| ShardError::MissingLayer {
            dir: dir.to_owned(),
            layer,
            first: self.first_layer,
            end: self.end_layer,
        })?;
        let mismatch = |what: String| ShardError::Mismatch { path: dir.join(MANIFEST_FILE), what };
        let movers = shape.movers.len();
        let covered = entry.shards.last().map_or(0, |s| s.mover_end);
        if covered != movers || entry.positions != shape.positions() {
            return Err(mismatch(format!(
                "layer {layer} lists movers 0..{covered} and {} positions, but it has movers 0..{movers} and {} positions",
                entry.positions,
                shape.positions()
            )));
        }
        for (index, shard) in entry.shards.iter().enumerate() {
            if let Err(what) = shard.span(shape) {
                return Err(mismatch(format!("{} lists {what}", shard_file(layer, index, Column::Value))));
            }
        }
        let cut = shard_ranges(shape, self.shard_positions);
        if cut.len() != entry.shards.len()
            || cut.iter().zip(&entry.shards).any(|(c, s)| s.cut(shape).as_ref() != Some(c))
        {
            return Err(mismatch(format!(
                "layer {layer} lists {} shards that are not its cut into shards of at most {} positions ({} shards)",
                entry.shards.len(),
                self.shard_positions,
                cut.len()
            )));
        }
        Ok(entry)
    }

    /// Checks that the tables in `dir` are of `game`.
    pub fn check_game(&self, game: Game, dir: &Path) -> Result<(), IdentityError> {
        let metadata = serde_json::to_value(&self.identity).expect("an identity serialises");
        MANIFEST_KIND.check(&dir.join(MANIFEST_FILE), &metadata, Some(game)).map(drop)
    }
}

/// The file names of `listed`, for lookups by name.
pub(super) fn listed_names(listed: &[Listed<'_>]) -> std::collections::HashSet<String> {
    listed.iter().map(Listed::file).collect()
}

/// Removes the draw shards in `dir` that `manifest` no longer lists (those of a layer
/// listed before the last one, left by a solve stopped between writing the manifest and
/// removing them, and those of the last listed layer where a resume dropped the draws)
/// and returns their names. Draw shards of the layers below the last listed one are kept:
/// a streamed pass's finished blocks wrote them, and their records list them when the
/// pass ends. Only the writer's own names are touched.
pub fn remove_unlisted_draws(dir: &Path, manifest: &Manifest) -> Result<Vec<String>, StoreError> {
    let io = |action: &'static str| move |source| StoreError::Io { path: dir.to_owned(), action, source };
    let listed = listed_names(&manifest.listed());
    let Some(lowest) = manifest.layers.last().map(|l| l.layer) else { return Ok(Vec::new()) };
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io("list"))? {
        let name = entry.map_err(io("list"))?.file_name().to_string_lossy().into_owned();
        let stale = parse_shard_file(&name).is_some_and(|(layer, column, _)| column == Column::Draw && layer >= lowest)
            && linked(dir, &name).is_none();
        if stale && !listed.contains(&name) {
            remove_file(&dir.join(&name))?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}
