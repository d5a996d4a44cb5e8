//! Forged table files: well formed, with valid checksums, made by the library's own
//! writers (or, for the store header's own fields, byte by byte), but lying about what they
//! hold. Shared by `shard_verify` and `hostile`.

use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;
use yz::duel::shard::{Column, Manifest, ShardEntry, ShardSpan, write_shard};
use yz::duel::{Cards, DuelValue, LayerShape, Space, WinDraw};
use yz::game::{Game, Rules};
use yz::store::{Durability, StoreFile, write_atomic};

use super::cli::{json, yz};

/// Two-player tables of the official game's first boxes, solved by the binary, and their
/// manifest as written: the material every forgery starts from.
pub struct Forge {
    /// The table directory.
    pub dir: PathBuf,
    /// The game of the tables.
    pub game: Game,
    /// The manifest the solve wrote.
    pub pristine: Manifest,
}

impl Forge {
    /// Solves the game of the first `boxes` boxes into `dir`.
    pub fn solve(dir: &Path, boxes: usize) -> Forge {
        let out = dir.to_str().unwrap();
        json(&yz(dir.parent().unwrap(), &["--json", "duel", "solve", "--first", &boxes.to_string(), "--out", out]));
        Forge::open(dir, boxes)
    }

    /// The tables of the first `boxes` boxes already in `dir`.
    pub fn open(dir: &Path, boxes: usize) -> Forge {
        let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(boxes).unwrap() };
        Forge { dir: dir.to_owned(), game, pristine: Manifest::open(dir).unwrap() }
    }

    /// The pristine manifest's entry of the first shard of `layer`.
    pub fn entry(&self, layer: usize) -> &ShardEntry {
        &self.pristine.layers.iter().find(|l| l.layer == layer).unwrap().shards[0]
    }

    /// Writes the pristine manifest changed by `edit` (with a valid checksum).
    pub fn with_manifest(&self, edit: impl FnOnce(&mut Manifest)) {
        let mut manifest = self.pristine.clone();
        edit(&mut manifest);
        manifest.write(&self.dir).unwrap();
    }

    /// Writes the pristine manifest with the first shard entry of `layer` changed by `edit`.
    pub fn with_entry(&self, layer: usize, edit: impl FnOnce(&mut ShardEntry)) {
        self.with_manifest(|m| edit(&mut m.layers.iter_mut().find(|l| l.layer == layer).unwrap().shards[0]));
    }

    /// The shape of `layer` of the whole game.
    pub fn shape(&self, layer: usize) -> LayerShape {
        LayerShape::new(&Space::whole_game(&Cards::new(self.game)), layer)
    }

    /// Writes `values` as the first shard of `layer` (over the movers the pristine entry
    /// lists) with the library's writer, and returns its manifest entry; the manifest is
    /// left as it is.
    pub fn write_values(&self, layer: usize, values: &[f32]) -> ShardEntry {
        self.write_column(layer, values, Column::Value)
    }

    /// Writes `column` of `values` as the first shard of `layer` (over the movers the
    /// pristine entry lists) and returns its manifest entry.
    fn write_column<V: DuelValue>(&self, layer: usize, values: &[V], column: Column) -> ShardEntry {
        let (entry, shape) = (self.entry(layer), self.shape(layer));
        let span = ShardSpan { movers: entry.mover_start..entry.mover_end, positions: entry.span(&shape).unwrap() };
        write_shard(&self.dir, self.game, &shape, (0, &span), values, (column, Durability::Synced)).unwrap()
    }

    /// Replaces every P(draw) of `layer`'s first draw shard by `lie` and lists the shard,
    /// with its new checksum, in the manifest: draws every checksum vouches for.
    pub fn lie_draws(&self, layer: usize, lie: f32) {
        let draws = vec![WinDraw { value: 0.0, draw: lie }; self.entry(layer).positions as usize];
        let forged = self.write_column(layer, &draws, Column::Draw);
        self.with_manifest(|m| m.layers.iter_mut().find(|l| l.layer == layer).unwrap().draws[0] = forged);
    }

    /// Replaces every value of `layer`'s first shard by `lie` and lists the shard, with its
    /// new checksum, in the manifest: a file every checksum vouches for.
    pub fn lie_values(&self, layer: usize, lie: f32) {
        let forged = self.write_values(layer, &vec![lie; self.entry(layer).positions as usize]);
        self.with_entry(layer, |e| *e = forged);
    }
}

/// Rewrites the store file `path` of `kind` with its metadata and payload changed by
/// `edit`, under `new_kind`: new, valid checksums over the lie.
pub fn reseal(path: &Path, kind: &str, new_kind: &str, edit: impl FnOnce(&mut serde_json::Value, &mut Vec<u8>)) {
    let file = unsafe { StoreFile::open(path, kind) }.unwrap();
    let (mut metadata, mut payload) = (file.metadata().clone(), file.payload().to_vec());
    drop(file);
    edit(&mut metadata, &mut payload);
    write_atomic(path, new_kind, &metadata, &payload).unwrap();
}

/// A store file's fields, written byte by byte with a valid header hash and chunk hashes
/// (see the layout in `src/store/mod.rs`), so that each field can lie on its own.
#[derive(Clone)]
pub struct RawStore {
    /// Magic label.
    pub magic: [u8; 8],
    /// Byte-order mark as written (native order).
    pub byte_order_mark: u32,
    /// Format version.
    pub version: u32,
    /// Kind bytes.
    pub kind: Vec<u8>,
    /// Metadata bytes.
    pub metadata: Vec<u8>,
    /// Payload bytes.
    pub payload: Vec<u8>,
    /// Chunk size.
    pub chunk_size: u32,
    /// Payload length written in the header, if not the payload's.
    pub payload_len: Option<u64>,
    /// Chunk count written in the header, if not the one the lengths give.
    pub chunks: Option<u64>,
}

impl RawStore {
    /// The fields of the sound store file `path` of `kind`.
    pub fn of(path: &Path, kind: &str) -> RawStore {
        let file = unsafe { StoreFile::open(path, kind) }.unwrap();
        RawStore {
            magic: *b"YZSTORE\0",
            byte_order_mark: 0x0102_0304,
            version: yz::store::FORMAT_VERSION,
            kind: kind.as_bytes().to_vec(),
            metadata: serde_json::to_vec(file.metadata()).unwrap(),
            payload: file.payload().to_vec(),
            chunk_size: yz::store::CHUNK_SIZE,
            payload_len: None,
            chunks: None,
        }
    }

    /// The file's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let payload_len = self.payload_len.unwrap_or(self.payload.len() as u64);
        let chunk_size = u64::from(self.chunk_size.max(1));
        let chunks = self.chunks.unwrap_or(payload_len.div_ceil(chunk_size));
        let mut out = Vec::new();
        out.extend_from_slice(&self.magic);
        out.extend_from_slice(&self.byte_order_mark.to_le_bytes());
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&(self.kind.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.kind);
        out.extend_from_slice(&(self.metadata.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.metadata);
        out.extend_from_slice(&payload_len.to_le_bytes());
        out.extend_from_slice(&self.chunk_size.to_le_bytes());
        out.extend_from_slice(&chunks.to_le_bytes());
        let hash = xxh3_64(&out);
        out.extend_from_slice(&hash.to_le_bytes());
        out.resize(out.len().next_multiple_of(yz::store::PAYLOAD_ALIGN), 0);
        out.extend_from_slice(&self.payload);
        let hashes: Vec<u8> = self.payload.chunks(chunk_size as usize).flat_map(|c| xxh3_64(c).to_le_bytes()).collect();
        out.extend_from_slice(&hashes);
        out.extend_from_slice(&xxh3_64(&hashes).to_le_bytes());
        out
    }

    /// Writes the file at `path`.
    pub fn write(&self, path: &Path) {
        std::fs::write(path, self.bytes()).unwrap();
    }
}
