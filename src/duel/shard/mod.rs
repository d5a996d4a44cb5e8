//! Layer shards and the manifest: the one home of the two-player table format.
//!
//! A solved layer is cut into **shards**: contiguous ranges of mover cards, or pieces of
//! one mover's row where that row alone exceeds the shard size ([`shard_ranges`], which
//! depend on the layer and the shard size alone: a rank of the cluster solve writes whole
//! shards, so the files do not depend on the number of ranks). A shard is a [`crate::store`] file of kind
//! [`SHARD_KIND`] whose payload is the zstd-compressed little-endian `f32` values (the
//! mover's P(win) + ½ P(draw)) of its pairs in layer order, and whose JSON metadata says
//! which game ([`crate::store::Identity`]), layer and movers it holds, how many positions, and the raw
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
//! - [`format`](mod@format): a shard file (header, payload, name, the cut of a layer), written and read;
//! - [`manifest`]: the manifest, its layers and its shard records;
//! - [`verify`]: every file of a table directory checked, and the layers' digests.
//!
//! Shards carry no offset index: the order and size of every pair's window follow from the
//! cards' bounds ([`super::LayerShape`]), which a reader recomputes and checks against
//! the shard's position count.

pub mod format;
pub mod manifest;
pub mod verify;

use std::path::PathBuf;

use crate::store::{IdentityError, StoreError};

pub use format::{
    Codec, Column, MANIFEST_FILE, SHARD_KIND, SHARD_POSITIONS, SHARD_POSITIONS_VAR, SHARD_RECORD_BYTES, ShardEntry,
    ShardHeader, ShardSpan, draw_fits, draw_remedy, linked, parse_shard_file, read_shard, remove_file, shard_file,
    shard_positions_from_env, shard_ranges, write_shard, write_shard_with,
};
pub use manifest::{LayerEntry, Listed, MANIFEST_KIND, Manifest, remove_unlisted_draws};
pub use verify::{
    FileCheck, LayerDigest, TableCheck, check_manifest, layer_digests, repair_command, verify_file, verify_listed,
    verify_tables,
};

/// Why two-player tables could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// The file itself is bad (missing, truncated, corrupt, wrong kind or version).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A sound file made for another game or by another version.
    #[error(transparent)]
    Identity(#[from] IdentityError),
    /// A finished layer whose writers did not report each of its shards once.
    #[error(
        "layer {layer}: the shards written are {written:?} and their draws {draws:?}, not each of its {expected} once"
    )]
    Unwritten {
        /// The layer.
        layer: usize,
        /// The indices of the value shards reported.
        written: Vec<usize>,
        /// The indices of the draw shards reported (none where values carry no draws).
        draws: Vec<usize>,
        /// How many shards the layer has.
        expected: usize,
    },
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
    #[error(
        "the tables in {} do not verify ({} bad {}): {}{}",
        .dir.display(),
        .problems.len(),
        if .problems.len() == 1 { "file" } else { "files" },
        .problems.join("; "),
        .remedy.as_ref().map(|r| format!("; {r}")).unwrap_or_default()
    )]
    Unsound {
        /// The table directory.
        dir: PathBuf,
        /// One line per bad file, naming it.
        problems: Vec<String>,
        /// What to do about them, where a command does it.
        remedy: Option<String>,
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
