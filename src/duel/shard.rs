//! Layer shards and the manifest: the one home of the two-player table format.
//!
//! A solved layer is cut into **shards**: contiguous ranges of mover cards, or pieces of
//! one mover's row where that row alone exceeds the shard size ([`shard_ranges`], which
//! depend on the layer and the shard size alone: a rank of the cluster solve writes whole
//! shards, so the files do not depend on the number of ranks). A shard is a [`crate::store`] file of kind
//! [`SHARD_KIND`] whose payload is the zstd-compressed little-endian `f32` values (the
//! mover's P(win) + ½ P(draw)) of its pairs in layer order, and whose JSON metadata says
//! which game ([`Identity`]), layer and movers it holds, how many positions, and the raw
//! length. The store already gives magic, version, chunk hashes and atomic writes.
//!
//! The **manifest** ([`MANIFEST_KIND`], `manifest.yzs` in the table directory) lists the
//! game, the layers covered and every shard with its checksum. It is rewritten (atomically)
//! after each finished layer, so an interrupted solve leaves a manifest that is true about
//! what exists; `complete` turns true with the last layer. Its JSON metadata holds the
//! game, the shard size and one line per layer; the shards themselves are fixed 40-byte
//! records in the payload ([`SHARD_RECORD_BYTES`]), so the index of the full game's
//! 528,800 shards (21 MiB) is far from the metadata's cap, and a shard's file name is not
//! stored but follows from its layer, column and index ([`shard_file`]).
//!
//! [`verify_tables`] recomputes every listed shard and compares it with the manifest; it is
//! what `yz shard verify` and `yz duel solve --resume` run.
//!
//! Shards carry no offset index: the order and size of every pair's window follow from the
//! cards' bounds ([`super::LayerShape`]), which a reader recomputes and checks against
//! the shard's position count.

use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::cards::Cards;
use super::layout::LayerShape;
use super::space::Space;
use super::value::DuelValue;
use crate::game::Game;
use crate::store::{self, Checksum, Durability, FileKind, Identity, IdentityError, StoreError, StoreFile};

/// What to do with two-player tables made for something else.
const REMEDY: &str = "pass the tables of this game, or solve them with yz duel solve";
/// Layer shards. Version 2: the game as the identity keys of [`Identity`] (rules and box
/// names), no longer a `game` object with a box mask.
/// Its metadata is a few hundred bytes of JSON; a forged 16 MiB of it cost `shard verify`
/// about 470 MB per thread to parse, hence the limit.
pub const SHARD_KIND: FileKind = FileKind { name: "duel-shard", version: 2, remedy: REMEDY, metadata_limit: 64 << 10 };

/// Opens the shard file at `path`, refusing metadata over the kind's limit before parsing it.
///
/// # Safety
/// As for [`StoreFile::open`].
unsafe fn open_shard_file(path: &Path) -> Result<StoreFile, StoreError> {
    // SAFETY: as the caller ensures.
    unsafe { SHARD_KIND.open_unchecked(path) }
}

/// Manifests. Version 3: shards as binary records in the payload, names derived, the shard
/// size recorded. Version 2 (every shard in the JSON metadata, which the full game's
/// 528,800 shards outgrow) is refused with advice to solve the tables again. Its
/// metadata lists the layers, about 70 bytes each.
pub const MANIFEST_KIND: FileKind =
    FileKind { name: "duel-manifest", version: 3, remedy: MANIFEST_REMEDY, metadata_limit: 64 << 10 };
/// What to do with a manifest of another version.
const MANIFEST_REMEDY: &str = "its shard list is in another format; read these tables with the yz that wrote them, \
     or solve them again with yz duel solve --force";
/// Bytes of one shard's record in the manifest's payload: mover start, mover end, row
/// offset, positions, checksum and file size, each a little-endian `u64`.
pub const SHARD_RECORD_BYTES: usize = 48;
/// File name of the manifest inside a table directory.
pub const MANIFEST_FILE: &str = "manifest.yzs";
/// Most positions per shard by default (64 MiB of raw values); a mover's row longer than
/// that is cut into pieces. `YZ_SHARD_POSITIONS` lowers it ([`shard_positions_from_env`]), so that a small
/// game is cut into as many shards as the full game; the manifest records the size used.
pub const SHARD_POSITIONS: u64 = 1 << 24;
/// The variable that sets another shard size, for tests and rehearsals.
pub const SHARD_POSITIONS_VAR: &str = "YZ_SHARD_POSITIONS";

/// The shard size a fresh solve cuts its layers with: `YZ_SHARD_POSITIONS` if set (a
/// number of positions, at least 1), else [`SHARD_POSITIONS`].
pub fn shard_positions_from_env() -> Result<u64, String> {
    match std::env::var(SHARD_POSITIONS_VAR) {
        Err(_) => Ok(SHARD_POSITIONS),
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!("{SHARD_POSITIONS_VAR}={text:?}: expected a number of positions per shard, at least 1")),
        },
    }
}
/// zstd level: values far from a window's centre are runs of 0 and 1 that any level finds.
const ZSTD_LEVEL: i32 = 3;

/// Why two-player tables could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// The file itself is bad (missing, truncated, corrupt, wrong kind or version).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A sound file made for another game or by another version.
    #[error(transparent)]
    Identity(#[from] IdentityError),
    /// The metadata does not parse or describes something else than expected.
    #[error("{}: {what}", .path.display())]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What differs, with the expected and found values.
        what: String,
    },
    /// The compressed payload does not decompress to the declared values.
    #[error("{}: payload does not decompress ({reason}); the shard is corrupt, solve the layer again", .path.display())]
    Decompress {
        /// The file.
        path: PathBuf,
        /// What zstd said, or the length found.
        reason: String,
    },
    /// Files of a table directory failed their checks.
    #[error("the tables in {} do not verify ({} bad files): {}", .dir.display(), .problems.len(), .problems.join("; "))]
    Unsound {
        /// The table directory.
        dir: PathBuf,
        /// One line per bad file, naming it.
        problems: Vec<String>,
    },
    /// The manifest has no such layer.
    #[error("the tables in {} do not hold layer {layer} (they hold {first}..{end})", .dir.display())]
    MissingLayer {
        /// The table directory.
        dir: PathBuf,
        /// The layer asked for.
        layer: usize,
        /// First layer held.
        first: usize,
        /// One past the last layer held.
        end: usize,
    },
}

/// What a shard holds of each position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Column {
    /// The mover's P(win) + ½ P(draw): the tables themselves.
    Value,
    /// P(draw) under the play the values imply, written only where the solve carries it and
    /// listed for the last finished layer only: what a resumed solve needs to report the
    /// start's P(draw) as an uninterrupted one does.
    Draw,
}

impl Column {
    /// The word in the file name (`layer-NN-WORD-NNNNN.yzs`).
    fn word(self) -> &'static str {
        match self {
            Column::Value => "shard",
            Column::Draw => "draw",
        }
    }

    /// What a value is, as the shard header says.
    fn meaning(self) -> &'static str {
        match self {
            Column::Value => "f32 P(win) + P(draw)/2 of the mover",
            Column::Draw => "f32 P(draw)",
        }
    }
}

/// Metadata of one shard file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardHeader {
    /// The table version and the game.
    #[serde(flatten)]
    pub identity: Identity,
    /// The layer.
    pub layer: usize,
    /// First mover (position in the layer's mover list) held.
    pub mover_start: usize,
    /// One past the last mover held.
    pub mover_end: usize,
    /// Positions of the first mover's row before the first one held: 0 but for the second
    /// and later pieces of a row cut into pieces (and then absent from the file, so that
    /// whole-mover shards are written as before pieces existed).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub row_offset: u64,
    /// Opponents per mover.
    pub opponents: usize,
    /// Values held.
    pub positions: u64,
    /// What a value is.
    pub value: String,
    /// How the payload is compressed.
    pub compression: String,
}

/// Whether a number is 0 (a default field left out of a header).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One shard of a layer's cut ([`shard_ranges`]): the movers whose rows it touches and the
/// positions of the layer it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardSpan {
    /// The movers touched: whole rows, or one row of which it holds a piece.
    pub movers: Range<usize>,
    /// The positions held, in layer order.
    pub positions: Range<u64>,
}

/// A shard as the manifest lists it (its file name follows from its place: [`shard_file`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardEntry {
    /// First mover held.
    pub mover_start: usize,
    /// One past the last mover held.
    pub mover_end: usize,
    /// Positions of the first mover's row before the first one held ([`ShardHeader::row_offset`]).
    pub row_offset: u64,
    /// Values held.
    pub positions: u64,
    /// Store checksum of the file.
    pub checksum: Checksum,
    /// File size.
    pub bytes: u64,
}

impl ShardEntry {
    /// The record of the manifest's payload ([`SHARD_RECORD_BYTES`]).
    fn record(&self) -> [u8; SHARD_RECORD_BYTES] {
        let fields = [
            self.mover_start as u64,
            self.mover_end as u64,
            self.row_offset,
            self.positions,
            self.checksum.0,
            self.bytes,
        ];
        let mut record = [0u8; SHARD_RECORD_BYTES];
        for (slot, field) in record.chunks_exact_mut(8).zip(fields) {
            slot.copy_from_slice(&field.to_le_bytes());
        }
        record
    }

    /// The entry a record holds, or why it cannot be one (a mover past `usize`).
    fn from_record(record: &[u8]) -> Result<ShardEntry, String> {
        let field = |i: usize| u64::from_le_bytes(record[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        let mover = |i: usize| usize::try_from(field(i)).map_err(|_| format!("mover {} is out of range", field(i)));
        Ok(ShardEntry {
            mover_start: mover(0)?,
            mover_end: mover(1)?,
            row_offset: field(2),
            positions: field(3),
            checksum: Checksum(field(4)),
            bytes: field(5),
        })
    }

    /// The positions of the layer of `shape` it holds, or why they are not in the layer
    /// (checked before any of its numbers indexes anything).
    pub fn span(&self, shape: &LayerShape) -> Result<Range<u64>, String> {
        let beyond = || {
            format!(
                "movers {}..{} from position {} of the first row, {} positions: not within layer {}'s {} movers and {} positions",
                self.mover_start,
                self.mover_end,
                self.row_offset,
                self.positions,
                shape.layer,
                shape.movers.len(),
                shape.positions()
            )
        };
        if self.mover_start >= self.mover_end || self.mover_end > shape.movers.len() {
            return Err(beyond());
        }
        let rows = shape.rows(self.mover_start..self.mover_end);
        let start = rows.start.checked_add(self.row_offset).ok_or_else(beyond)?;
        let end = start.checked_add(self.positions).ok_or_else(beyond)?;
        if end > rows.end {
            return Err(beyond());
        }
        Ok(start..end)
    }

    /// The span it lists, in the terms of [`shard_ranges`].
    fn cut(&self, shape: &LayerShape) -> Option<ShardSpan> {
        Some(ShardSpan { movers: self.mover_start..self.mover_end, positions: self.span(shape).ok()? })
    }
}

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

/// Writes shard number `index` of a layer, the `column` of the positions `span` holds
/// from their `values` (in layer order), and returns its manifest entry. The bytes depend
/// only on the values, so any process that holds them writes the same file. A layer's many
/// shards are written [`Durability::Batched`] and made durable together before a manifest
/// lists them; a lone repaired shard is written [`Durability::Synced`].
pub fn write_shard<V: DuelValue>(
    dir: &Path,
    game: Game,
    shape: &LayerShape,
    (index, span): (usize, &ShardSpan),
    values: &[V],
    (column, durability): (Column, Durability),
) -> Result<ShardEntry, ShardError> {
    debug_assert_eq!(values.len() as u64, span.positions.end - span.positions.start);
    let header = ShardHeader {
        identity: SHARD_KIND.identity(game),
        layer: shape.layer,
        mover_start: span.movers.start,
        mover_end: span.movers.end,
        row_offset: span.positions.start - shape.rows(span.movers.clone()).start,
        opponents: shape.opponents.len(),
        positions: values.len() as u64,
        value: column.meaning().to_owned(),
        compression: format!("zstd level {ZSTD_LEVEL}"),
    };
    let path = dir.join(shard_file(shape.layer, index, column));
    // Little-endian whatever the machine, as `read_shard` reads them.
    let stored = |v: &V| match column {
        Column::Value => v.value() as f32,
        Column::Draw => v.stored_draw(),
    };
    let raw: Vec<u8> = values.iter().flat_map(|v| stored(v).to_le_bytes()).collect();
    let packed = zstd::bulk::compress(&raw, ZSTD_LEVEL)
        .map_err(|e| ShardError::Decompress { path: path.clone(), reason: format!("compression failed: {e}") })?;
    let metadata = serde_json::to_value(&header).expect("a shard header serialises");
    let checksum = store::write_atomic_with(&path, SHARD_KIND.name, &metadata, &packed, durability)?;
    let bytes =
        std::fs::metadata(&path).map_err(|source| StoreError::Io { path: path.clone(), action: "stat", source })?.len();
    Ok(ShardEntry {
        mover_start: header.mover_start,
        mover_end: header.mover_end,
        row_offset: header.row_offset,
        positions: header.positions,
        checksum,
        bytes,
    })
}

/// File name of shard `index` of `layer` holding `column`: `layer-NN-shard-NNNNN.yzs` or
/// `layer-NN-draw-NNNNN.yzs` (more digits past index 99,999). The manifest stores no
/// names, so it can never make a reader open a file outside its directory.
pub fn shard_file(layer: usize, index: usize, column: Column) -> String {
    format!("layer-{layer:02}-{}-{index:05}.yzs", column.word())
}

/// The layer, column and index of a name [`shard_file`] gives, if `name` is one.
pub fn parse_shard_file(name: &str) -> Option<(usize, Column, usize)> {
    let rest = name.strip_prefix("layer-")?.strip_suffix(".yzs")?;
    let (layer, rest) = rest.split_once('-')?;
    let (word, index) = rest.split_once('-')?;
    let column = [Column::Value, Column::Draw].into_iter().find(|c| c.word() == word)?;
    let (layer, index) = (layer.parse().ok()?, index.parse().ok()?);
    (shard_file(layer, index, column) == name).then_some((layer, column, index))
}

/// Why the shard file `file` in `dir` may not be opened (or rewritten by a repair), if it
/// may not: a symbolic link, which could lead a reader or a repair outside the directory.
pub fn linked(dir: &Path, file: &str) -> Option<String> {
    let is_link = std::fs::symlink_metadata(dir.join(file)).is_ok_and(|m| m.file_type().is_symlink());
    is_link.then(|| format!("{file} is a symbolic link; shards must be regular files in the table directory"))
}

/// How far a stored winning chance may stray outside 0 to 1: `f32` rounding in the turns
/// (a mean of six values scaled by 1/6, say) leaves a few units in the last place per
/// turn; 1.0000006 occurs in real tables.
const ROUNDING: f32 = 1e-4;

/// Reads the `column` of the movers that shard `index` of the layer of `shape` (listed
/// as `entry`) holds, checking them against `shape`: each a probability, finite and
/// within 0 to 1 up to 1e-4 (rounding in a turn: 1.0000006 occurs in real tables).
pub fn read_shard(
    dir: &Path,
    game: Game,
    shape: &LayerShape,
    (index, entry): (usize, &ShardEntry),
    column: Column,
) -> Result<Vec<f32>, ShardError> {
    let file = shard_file(shape.layer, index, column);
    let path = dir.join(&file);
    if let Some(what) = linked(dir, &file) {
        return Err(ShardError::Mismatch { path: dir.join(MANIFEST_FILE), what });
    }
    // SAFETY: yz replaces store files by rename and never writes one in place.
    let file = unsafe { open_shard_file(&path) }?;
    SHARD_KIND.check(&path, file.metadata(), Some(game))?;
    let mismatch = |what: String| ShardError::Mismatch { path: path.clone(), what };
    let header: ShardHeader = serde_json::from_value(file.metadata().clone())
        .map_err(|e| mismatch(format!("shard metadata does not parse: {e}")))?;
    let span = entry.span(shape).map_err(|what| mismatch(format!("the manifest lists {what}")))?;
    let expected_positions = span.end - span.start;
    let expected = ShardHeader {
        identity: SHARD_KIND.identity(game),
        layer: shape.layer,
        mover_start: entry.mover_start,
        mover_end: entry.mover_end,
        row_offset: entry.row_offset,
        opponents: shape.opponents.len(),
        positions: expected_positions,
        value: column.meaning().to_owned(),
        compression: header.compression.clone(),
    };
    if header != expected {
        return Err(mismatch(format!("shard header {header:?} does not match the expected {expected:?}")));
    }
    if file.checksum() != entry.checksum {
        return Err(mismatch(format!("checksum {} but the manifest lists {}", file.checksum(), entry.checksum)));
    }
    let raw_len = expected_positions as usize * 4;
    let raw = zstd::bulk::decompress(file.payload(), raw_len)
        .map_err(|e| ShardError::Decompress { path: path.clone(), reason: e.to_string() })?;
    if raw.len() != raw_len {
        return Err(ShardError::Decompress { path, reason: format!("{} bytes instead of {raw_len}", raw.len()) });
    }
    let values = decode_values(&raw);
    if let Some(what) = stray_value(&values, 0, shape.layer, entry) {
        return Err(mismatch(what));
    }
    Ok(values)
}

/// Little-endian `f32`s from stored bytes (a multiple of 4).
fn decode_values(raw: &[u8]) -> Vec<f32> {
    raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// The first of `values` (positions `first..` of the shard `entry` of `layer`) that is
/// not a probability, finite and within 0 to 1 up to [`ROUNDING`], described.
fn stray_value(values: &[f32], first: u64, layer: usize, entry: &ShardEntry) -> Option<String> {
    let at = values.iter().position(|v| !(-ROUNDING..=1.0 + ROUNDING).contains(v))?;
    Some(format!(
        "value {} at position {} of layer {layer} movers {}..{} is not a probability (0 to 1)",
        values[at],
        first + at as u64,
        entry.mover_start,
        entry.mover_end
    ))
}

/// What to do about a damaged draw shard of the tables in `dir`: the layer above keeps no
/// draws to recompute it from.
pub fn draw_remedy(dir: &Path) -> String {
    format!(
        "draw shards cannot be recomputed from the layer above, which keeps none: `yz duel solve --resume --no-draws \
         --out {}` (with the game's flags) finishes the solve with P(draw) unknown, or a solve without --resume \
         computes it again",
        dir.display()
    )
}

/// Whether `draw` can be the P(draw) of a position worth `value` (P(win) + ½ P(draw))
/// under the same play: P(win) = value − ½ P(draw) and P(lose) = 1 − value − ½ P(draw)
/// are not negative, so 0 ≤ P(draw) ≤ 2 min(value, 1 − value), up to `ROUNDING` (1e-4).
pub fn draw_fits(value: f32, draw: f32) -> bool {
    draw >= -ROUNDING && draw <= 2.0 * value.min(1.0 - value) + ROUNDING
}

/// The first position of `draws` (positions `first..` of the draw shard `entry` of
/// `layer`) that its `values` rule out ([`draw_fits`]), described.
fn stray_draw(values: &[f32], draws: &[f32], first: u64, layer: usize, entry: &ShardEntry) -> Option<String> {
    let at = values.iter().zip(draws).position(|(&v, &d)| !draw_fits(v, d))?;
    Some(format!(
        "P(draw) {} at position {} of layer {layer} movers {}..{} cannot go with the value {} stored for it \
         (0 <= P(draw) <= 2 min(value, 1 - value))",
        draws[at],
        first + at as u64,
        entry.mover_start,
        entry.mover_end,
        values[at]
    ))
}

/// A shard's payload decompressed piece by piece: never more than a bounded buffer,
/// whatever the file claims.
struct Pieces<'a> {
    decoder: std::io::Take<zstd::stream::read::Decoder<'a, &'a [u8]>>,
    /// Bytes of values the shard must hold.
    expected: u64,
    /// Bytes read so far.
    seen: u64,
}

impl<'a> Pieces<'a> {
    /// Bytes of values read at a time.
    const PIECE: usize = 1 << 20;

    fn new(payload: &'a [u8], positions: u64) -> Result<Pieces<'a>, String> {
        use std::io::Read;
        let expected = positions.saturating_mul(4);
        let decoder = zstd::stream::read::Decoder::with_buffer(payload)
            .map_err(|e| format!("payload does not decompress ({e})"))?
            .take(expected.saturating_add(1));
        Ok(Pieces { decoder, expected, seen: 0 })
    }

    /// Fills `piece` as far as the payload goes; the bytes read (0 at its end).
    fn fill(&mut self, piece: &mut [u8]) -> Result<usize, String> {
        use std::io::Read;
        let mut filled = 0;
        while filled < piece.len() {
            match self.decoder.read(&mut piece[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) => return Err(format!("payload does not decompress ({e})")),
            }
        }
        self.seen += filled as u64;
        Ok(filled)
    }

    /// What is wrong with the length read, once the payload is read to its end.
    fn length_problem(&self) -> Option<String> {
        let (seen, expected) = (self.seen, self.expected);
        match seen.cmp(&expected) {
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Less => Some(format!("payload holds {seen} bytes of values, expected {expected}")),
            std::cmp::Ordering::Greater => {
                Some(format!("payload holds more than the {expected} bytes of values expected"))
            }
        }
    }
}

/// Decompresses a shard's payload piece by piece and checks it holds `entry.positions`
/// probabilities; for a draw shard, `values` is its value shard's payload, and each P(draw)
/// is checked against its value ([`draw_fits`]).
fn check_payload(payload: &[u8], layer: usize, entry: &ShardEntry, values: Option<&[u8]>) -> Option<String> {
    let mut pieces = match Pieces::new(payload, entry.positions) {
        Ok(pieces) => pieces,
        Err(problem) => return Some(problem),
    };
    // The value shard is checked on its own; one that does not read is reported there.
    let mut values = values.and_then(|payload| Pieces::new(payload, entry.positions).ok());
    let (mut piece, mut value_piece) = (vec![0u8; Pieces::PIECE], vec![0u8; Pieces::PIECE]);
    loop {
        let filled = match pieces.fill(&mut piece) {
            Ok(0) => break,
            Ok(filled) => filled,
            Err(problem) => return Some(problem),
        };
        if pieces.seen > pieces.expected || filled % 4 != 0 {
            break;
        }
        let first = (pieces.seen - filled as u64) / 4;
        let numbers = decode_values(&piece[..filled]);
        if let Some(what) = stray_value(&numbers, first, layer, entry) {
            return Some(what);
        }
        if let Some(reader) = &mut values {
            match reader.fill(&mut value_piece[..filled]) {
                Ok(n) if n == filled => {
                    let stored = decode_values(&value_piece[..n]);
                    if let Some(what) = stray_draw(&stored, &numbers, first, layer, entry) {
                        return Some(what);
                    }
                }
                _ => values = None,
            }
        }
    }
    pieces.length_problem()
}

/// The shards of a layer: contiguous mover ranges of at most `shard_positions` positions,
/// and a row longer than that alone cut into pieces of `shard_positions` positions (the
/// last one shorter). They follow from the layer's shape and the shard size alone, never
/// from how many processes solve it.
pub fn shard_ranges(shape: &LayerShape, shard_positions: u64) -> Vec<ShardSpan> {
    assert!(shard_positions > 0, "a shard holds at least one position");
    let mut spans = Vec::new();
    let mut start = 0;
    while start < shape.movers.len() {
        let rows = shape.rows(start..start + 1);
        if rows.end - rows.start > shard_positions {
            let mut at = rows.start;
            while at < rows.end {
                let end = (at + shard_positions).min(rows.end);
                spans.push(ShardSpan { movers: start..start + 1, positions: at..end });
                at = end;
            }
            start += 1;
            continue;
        }
        let mut end = start + 1;
        while end < shape.movers.len() && shape.rows(start..end + 1).end - rows.start <= shard_positions {
            end += 1;
        }
        spans.push(ShardSpan { movers: start..end, positions: shape.rows(start..end) });
        start = end;
    }
    spans
}

/// What [`verify_tables`] or [`verify_file`] found about one file.
#[derive(Clone, Debug, Serialize)]
pub struct FileCheck {
    /// The file.
    pub path: PathBuf,
    /// Its layer (shards only).
    pub layer: Option<usize>,
    /// The checksum recomputed from its bytes, when it could be.
    pub checksum: Option<String>,
    /// What is wrong with it; `None` for a sound file.
    pub problem: Option<String>,
}

/// What [`verify_tables`] found in a table directory.
#[derive(Clone, Debug, Serialize)]
pub struct TableCheck {
    /// The directory.
    pub dir: PathBuf,
    /// The table version and game the manifest names, if it could be read.
    pub game: Option<Identity>,
    /// Layers the manifest lists as written.
    pub layers: usize,
    /// Whether the manifest says every layer is written.
    pub complete: bool,
    /// The manifest first, then every listed shard by layer and movers.
    pub files: Vec<FileCheck>,
    /// Shard files the manifest does not list (from a layer that was being written when a
    /// solve stopped): never read, and overwritten by `duel solve --resume`.
    pub unlisted: Vec<String>,
    /// Temporary files of writers that stopped before renaming them: never read, and
    /// removed by the next solve in the directory.
    pub temporary: Vec<String>,
}

impl TableCheck {
    /// The files with a problem.
    pub fn problems(&self) -> impl Iterator<Item = &FileCheck> {
        self.files.iter().filter(|f| f.problem.is_some())
    }
}

/// Checks a table directory: the manifest, and every shard it lists recomputed from its
/// bytes and compared with the manifest (checksum, size, game, layer, movers, positions).
/// Problems are reported per file, never as an early error.
pub fn verify_tables(dir: &Path) -> TableCheck {
    let (manifest, manifest_check) = check_manifest(dir);
    let mut check = TableCheck {
        dir: dir.to_owned(),
        game: None,
        layers: 0,
        complete: false,
        files: vec![manifest_check],
        unlisted: Vec::new(),
        temporary: Vec::new(),
    };
    let names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    check.temporary = names.iter().filter(|name| store::is_temp_name(name)).cloned().collect();
    check.temporary.sort();
    if !dir.join(MANIFEST_FILE).exists() {
        check.files[0].problem = Some(format!(
            "no {MANIFEST_FILE} here: not a table directory (yz duel solve --out DIR writes one), or a solve \
             that stopped before its first layer"
        ));
        return check;
    }
    let Some((game, manifest)) = manifest.and_then(|m| Some((m.game()?, m))) else { return check };
    let opponents = layer_opponents(game, manifest.end_layer);
    let listed = manifest.listed();
    check.files.extend(
        listed
            .par_iter()
            .map(|l| {
                let opponents = opponents.get(l.layer).copied().unwrap_or_default();
                verify_listed(dir, game, l, opponents)
            })
            .collect::<Vec<_>>(),
    );
    let listed = listed_names(&listed);
    check.unlisted = names
        .into_iter()
        .filter(|name| name.starts_with("layer-") && name.ends_with(".yzs") && !listed.contains(name))
        .collect();
    check.unlisted.sort();
    check.game = Some(manifest.identity.clone());
    check.layers = manifest.layers.len();
    check.complete = manifest.complete;
    check
}

/// The file names of `listed`, for lookups by name.
fn listed_names(listed: &[Listed<'_>]) -> std::collections::HashSet<String> {
    listed.iter().map(Listed::file).collect()
}

/// The number of opponent cards of each layer of `game` below `end_layer`.
fn layer_opponents(game: Game, end_layer: usize) -> Vec<usize> {
    let cards = Cards::new(game);
    let space = Space::endgame(&cards, end_layer);
    (0..end_layer).map(|layer| space.opponent_count(layer)).collect()
}

/// Opens the manifest of `dir` and checks it whole ([`Manifest::open_checked`], then every
/// listed layer against its shape, [`Manifest::checked_layer`]): what `shard verify` and
/// `duel solve --resume` run before reading any shard. Returns the manifest if it could be
/// read, and the check of the manifest file.
pub fn check_manifest(dir: &Path) -> (Option<Manifest>, FileCheck) {
    let path = dir.join(MANIFEST_FILE);
    let problem = |error: ShardError| {
        Some(match error {
            ShardError::Mismatch { what, .. } => what,
            error => error.to_string(),
        })
    };
    let (manifest, game) = match Manifest::open_checked(dir, None).and_then(|m| {
        let game = m.game().ok_or_else(|| ShardError::Mismatch {
            path: path.clone(),
            what: format!("names no game this yz knows: {:?}", m.identity),
        })?;
        Ok((m, game))
    }) {
        Ok(found) => found,
        Err(error) => return (None, FileCheck { path, layer: None, checksum: None, problem: problem(error) }),
    };
    let cards = Cards::new(game);
    let space = Space::endgame(&cards, manifest.end_layer);
    let wrong = manifest
        .layers
        .par_iter()
        .find_map_first(|entry| manifest.checked_layer(dir, &LayerShape::new(&space, entry.layer)).err());
    (Some(manifest), FileCheck { path, layer: None, checksum: None, problem: wrong.and_then(problem) })
}

/// Checks one file: a shard (against the manifest beside it, when that lists it) or a
/// manifest (the whole directory, see [`verify_tables`]).
pub fn verify_file(path: &Path) -> Result<TableCheck, ShardError> {
    // SAFETY: yz replaces store files by rename and never writes one in place.
    let report = unsafe { store::verify(path) }?;
    let dir = path.parent().unwrap_or(Path::new(".")).to_owned();
    if report.kind == MANIFEST_KIND.name {
        return Ok(verify_tables(&dir));
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let manifest = Manifest::open_checked(&dir, None).ok();
    let listed = manifest.as_ref().and_then(|m| m.listed().into_iter().find(|l| l.file() == name));
    let known = manifest.as_ref().and_then(|m| Some((m.game()?, m.end_layer)));
    let file =
        match listed.zip(known).and_then(|(l, (game, end))| Some((game, l, *layer_opponents(game, end).get(l.layer)?)))
        {
            Some((game, listed, opponents)) => verify_listed(&dir, game, &listed, opponents),
            None => {
                // SAFETY: yz replaces store files by rename and never writes one in place.
                let (header, problem) = match unsafe { open_shard_file(path) } {
                    Ok(file) => (serde_json::from_value::<ShardHeader>(file.metadata().clone()).ok(), None),
                    Err(error) => (None, Some(error.to_string())),
                };
                FileCheck {
                    path: path.to_owned(),
                    layer: header.map(|h| h.layer),
                    checksum: Some(report.checksum.to_string()),
                    problem,
                }
            }
        };
    let unlisted = if listed.is_none() { vec![name] } else { Vec::new() };
    Ok(TableCheck {
        dir,
        game: manifest.as_ref().map(|m| m.identity.clone()),
        layers: manifest.as_ref().map_or(0, |m| m.layers.len()),
        complete: manifest.as_ref().is_some_and(|m| m.complete),
        files: vec![file],
        unlisted,
        temporary: Vec::new(),
    })
}

/// Checks the shard `listed` that a manifest of `game` lists, in a layer of `opponents`
/// opponent cards: every byte, its header, size and checksum against the entry, and
/// every value.
pub fn verify_listed(dir: &Path, game: Game, listed: &Listed<'_>, opponents: usize) -> FileCheck {
    let &Listed { layer, column, entry, .. } = listed;
    let file = listed.file();
    let path = dir.join(&file);
    let mut check = FileCheck { path: path.clone(), layer: Some(layer), checksum: None, problem: None };
    if let Some(problem) = linked(dir, &file) {
        check.problem = Some(problem);
        return check;
    }
    // SAFETY: yz replaces store files by rename and never writes one in place.
    let file = match unsafe { open_shard_file(&path) } {
        Ok(file) => file,
        Err(error) => {
            check.problem = Some(match error {
                StoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                    "missing: the manifest lists it but there is no such file".to_owned()
                }
                error => error.to_string(),
            });
            return check;
        }
    };
    check.checksum = Some(file.checksum().to_string());
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let header = SHARD_KIND.check(&path, file.metadata(), Some(game)).map_err(|e| e.to_string()).and_then(|_| {
        serde_json::from_value::<ShardHeader>(file.metadata().clone())
            .map_err(|e| format!("shard metadata does not parse: {e}"))
    });
    check.problem = match header {
        Err(problem) => Some(problem),
        Ok(h) if h.opponents != opponents => {
            Some(format!("holds rows of {} opponents, but layer {layer} has {opponents}", h.opponents))
        }
        Ok(h) if h.value != column.meaning() => {
            Some(format!("holds {:?}, but the manifest lists it for {:?}", h.value, column.meaning()))
        }
        Ok(h)
            if (h.layer, h.mover_start, h.mover_end, h.row_offset, h.positions)
                != (layer, entry.mover_start, entry.mover_end, entry.row_offset, entry.positions) =>
        {
            Some(format!(
                "holds layer {} movers {}..{} from position {} of the first row ({} positions), but the manifest \
                 lists layer {layer} movers {}..{} from position {} ({} positions)",
                h.layer,
                h.mover_start,
                h.mover_end,
                h.row_offset,
                h.positions,
                entry.mover_start,
                entry.mover_end,
                entry.row_offset,
                entry.positions
            ))
        }
        Ok(_) if file.checksum() != entry.checksum => {
            Some(format!("checksum {} but the manifest lists {}", file.checksum(), entry.checksum))
        }
        Ok(_) if bytes != entry.bytes => Some(format!("{bytes} bytes but the manifest lists {}", entry.bytes)),
        Ok(_) => {
            // SAFETY: as above.
            let value_file = (listed.value_file())
                .filter(|name| linked(dir, name).is_none())
                .and_then(|name| unsafe { open_shard_file(&dir.join(name)) }.ok());
            check_payload(file.payload(), layer, entry, value_file.as_ref().map(StoreFile::payload))
        }
    };
    check
}

/// One layer's values, summarised whatever the shards they are cut into.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LayerDigest {
    /// The layer.
    pub layer: usize,
    /// Its positions.
    pub positions: u64,
    /// The xxh3-64 of its values as stored (little-endian `f32`, layer order), as 16 hex
    /// digits.
    pub values: String,
    /// The same of its draw probabilities, where the manifest lists them.
    pub draws: Option<String>,
}

/// The [`LayerDigest`] of every layer the manifest of `dir` lists, from the last one down:
/// tables of one game solved with other shard sizes, rank counts or budgets have the same
/// digests exactly when they hold the same values. Every shard is read (and checked) one at
/// a time.
pub fn layer_digests(dir: &Path) -> Result<Vec<LayerDigest>, ShardError> {
    let (manifest, check) = check_manifest(dir);
    let manifest = match (manifest, check.problem) {
        (Some(manifest), None) => manifest,
        (_, problem) => {
            let what = problem.unwrap_or_else(|| "the manifest does not open".to_owned());
            return Err(ShardError::Mismatch { path: check.path, what });
        }
    };
    let game = manifest.game().ok_or_else(|| ShardError::Mismatch {
        path: dir.join(MANIFEST_FILE),
        what: "names no game this yz knows".to_owned(),
    })?;
    let cards = Cards::new(game);
    let space = Space::endgame(&cards, manifest.end_layer);
    let digest = |shape: &LayerShape, entries: &[ShardEntry], column| -> Result<String, ShardError> {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for (i, entry) in entries.iter().enumerate() {
            let values = read_shard(dir, game, shape, (i, entry), column)?;
            hasher.update(&values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>());
        }
        Ok(format!("{:016x}", hasher.digest()))
    };
    let mut digests = Vec::new();
    for entry in &manifest.layers {
        let shape = LayerShape::new(&space, entry.layer);
        let values = digest(&shape, &entry.shards, Column::Value)?;
        let draws = if entry.draws.is_empty() { None } else { Some(digest(&shape, &entry.draws, Column::Draw)?) };
        digests.push(LayerDigest { layer: entry.layer, positions: entry.positions, values, draws });
    }
    Ok(digests)
}

/// Removes the draw shards in `dir` that `manifest` does not list (those of a layer before
/// the last finished one, left by a solve stopped between writing the manifest and removing
/// them) and returns their names. Only the writer's own names are touched.
pub fn remove_unlisted_draws(dir: &Path, manifest: &Manifest) -> Result<Vec<String>, StoreError> {
    let io = |action: &'static str| move |source| StoreError::Io { path: dir.to_owned(), action, source };
    let listed = listed_names(&manifest.listed());
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io("list"))? {
        let name = entry.map_err(io("list"))?.file_name().to_string_lossy().into_owned();
        let ours = parse_shard_file(&name).is_some_and(|(_, column, _)| column == Column::Draw)
            && linked(dir, &name).is_none();
        if ours && !listed.contains(&name) {
            remove_file(&dir.join(&name))?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}

/// Removes a file the writer owns; one already gone is fine.
pub fn remove_file(path: &Path) -> Result<(), StoreError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(StoreError::Io { path: path.to_owned(), action: "remove", source: e })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;

    /// The cut covers every position once, in order; no shard exceeds the size but a
    /// whole mover's row never does; a row longer than the size is cut into pieces of the
    /// size (the last shorter); the cut depends on the size only.
    #[test]
    fn draws_fit_their_values() {
        for (value, draw) in [(0.5, 1.0), (0.0, 0.0), (1.0, 0.0), (0.25, 0.5), (0.9, 0.2), (0.3, 0.0)] {
            assert!(draw_fits(value, draw), "{value} {draw}");
        }
        for (value, draw) in [(0.3, 0.7), (0.9, 0.3), (1.0, 1.0), (0.0, 0.01), (0.5, -0.01), (0.5, f32::NAN)] {
            assert!(!draw_fits(value, draw), "{value} {draw}");
        }
    }

    #[test]
    fn shards_cover_the_layer_in_pieces_of_at_most_the_size() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(5).unwrap() });
        let space = Space::whole_game(&cards);
        for layer in [3, 5, 8] {
            let shape = LayerShape::new(&space, layer);
            let longest = (0..shape.movers.len()).map(|m| shape.rows(m..m + 1)).map(|r| r.end - r.start).max().unwrap();
            for size in [1, 2, 7, longest - 1, longest, SHARD_POSITIONS] {
                let cut = shard_ranges(&shape, size);
                let mut at = 0;
                for span in &cut {
                    assert_eq!(span.positions.start, at, "layer {layer} size {size}");
                    at = span.positions.end;
                    let rows = shape.rows(span.movers.clone());
                    let len = span.positions.end - span.positions.start;
                    if span.movers.len() > 1 {
                        assert!(len <= size && span.positions == rows, "layer {layer} size {size}: {span:?}");
                    } else if rows.end - rows.start > size {
                        assert!(len <= size && len > 0, "a piece of {len} positions at size {size}");
                        assert!(span.positions.start == rows.start || len == size || span.positions.end == rows.end);
                    } else {
                        assert_eq!(span.positions, rows);
                    }
                }
                assert_eq!(at, shape.positions());
                assert_eq!(cut.last().unwrap().movers.end, shape.movers.len());
            }
        }
    }
}
