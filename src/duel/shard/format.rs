//! A shard file: its header, its payload of little-endian `f32` values, its name, and the
//! cut of a layer into shards; written and read, every read checked against the manifest's
//! entry by the one header check (`header_problem`).

use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ShardError;
use crate::duel::layout::LayerShape;
use crate::duel::value::DuelValue;
use crate::game::Game;
use crate::store::{self, Checksum, Durability, FileKind, Identity, StoreError, StoreFile};

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
pub(super) unsafe fn open_shard_file(path: &Path) -> Result<StoreFile, StoreError> {
    // SAFETY: as the caller ensures.
    unsafe { SHARD_KIND.open_unchecked(path) }
}

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
            _ => Err(format!(
                "{SHARD_POSITIONS_VAR}={}: expected a number of positions per shard, at least 1",
                crate::quote::quote(&text)
            )),
        },
    }
}

/// How a shard's values become its payload. A repair keeps a recomputed shard only if it
/// is byte for byte the file the manifest lists, so every codec yz has written tables with
/// stays writable; readers take any of them (zstd frames, the level in the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// zstd level 1, the values converted a piece at a time on their way into the
    /// compressor (since issue 42). Level 3 gained little on the near-random bits of the
    /// middle layers' values and cost several times the time: on the plan's stand-in for
    /// them (docs/benchmarks.md, "Compression"), ratio 1.112 at 152 MB/s a core at level 3,
    /// 1.108 at 740 MB/s at level 1.
    Level1,
    /// zstd level 3 over the whole raw bytes at once: tables written before issue 42.
    Level3,
}

impl Codec {
    /// The codec solves write with.
    pub const NEWEST: Codec = Codec::Level1;
    /// Every codec, newest first: the order in which a repair tries them.
    pub const ALL: [Codec; 2] = [Codec::Level1, Codec::Level3];

    /// What the shard header's `compression` says.
    fn name(self) -> &'static str {
        match self {
            Codec::Level1 => "zstd level 1",
            Codec::Level3 => "zstd level 3",
        }
    }

    /// `values`, each as `stored` makes it and little-endian, compressed as one zstd frame
    /// that records its size.
    fn compress<V>(self, values: &[V], stored: impl Fn(&V) -> f32) -> std::io::Result<Vec<u8>> {
        match self {
            Codec::Level1 => compress_in_pieces(values, stored, 1),
            Codec::Level3 => {
                let raw = values.iter().map(|v| stored(v).to_le_bytes()).collect::<Vec<_>>();
                zstd::bulk::compress(raw.as_flattened(), 3)
            }
        }
    }
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
    pub(super) fn meaning(self) -> &'static str {
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
    pub(super) fn record(&self) -> [u8; SHARD_RECORD_BYTES] {
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
    pub(super) fn from_record(record: &[u8]) -> Result<ShardEntry, String> {
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
    pub(super) fn cut(&self, shape: &LayerShape) -> Option<ShardSpan> {
        Some(ShardSpan { movers: self.mover_start..self.mover_end, positions: self.span(shape).ok()? })
    }
}

/// Writes shard number `index` of a layer, the `column` of the positions `span` holds
/// from their `values` (in layer order), with [`Codec::NEWEST`], and returns its manifest
/// entry. The bytes depend only on the values, so any process that holds them writes the
/// same file. A layer's many shards are written [`Durability::Batched`] and made durable
/// together before a manifest lists them; a lone repaired shard is written
/// [`Durability::Synced`].
pub fn write_shard<V: DuelValue>(
    dir: &Path,
    game: Game,
    shape: &LayerShape,
    span: (usize, &ShardSpan),
    values: &[V],
    written: (Column, Durability),
) -> Result<ShardEntry, ShardError> {
    write_shard_with(Codec::NEWEST, dir, game, shape, span, values, written)
}

/// [`write_shard`] with `codec`: a repair rewrites a shard with the codec that wrote it.
pub fn write_shard_with<V: DuelValue>(
    codec: Codec,
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
        compression: codec.name().to_owned(),
    };
    let path = dir.join(shard_file(shape.layer, index, column));
    // Little-endian whatever the machine, as `read_shard` reads them.
    let stored = |v: &V| match column {
        Column::Value => v.value() as f32,
        Column::Draw => v.stored_draw(),
    };
    let packed = codec
        .compress(values, stored)
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

/// Values converted per piece while compressing: 1 MiB of raw bytes.
const PIECE_VALUES: usize = 1 << 18;

/// `values`, each as `stored` makes it and little-endian, compressed at zstd `level` as
/// one frame that records its size. They are converted a piece at a time on their way into
/// the compressor: a shard's raw bytes (64 MiB) are never held whole, which cost a fifth of
/// the compression's time in fresh pages of memory.
fn compress_in_pieces<V>(values: &[V], stored: impl Fn(&V) -> f32, level: i32) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let raw_len = 4 * values.len();
    let out = Vec::with_capacity(zstd::zstd_safe::compress_bound(raw_len));
    let mut encoder = zstd::stream::write::Encoder::new(out, level)?;
    encoder.set_pledged_src_size(Some(raw_len as u64))?;
    encoder.include_contentsize(true)?;
    let mut piece: Vec<[u8; 4]> = Vec::with_capacity(PIECE_VALUES.min(values.len()));
    for chunk in values.chunks(PIECE_VALUES) {
        piece.clear();
        piece.extend(chunk.iter().map(|v| stored(v).to_le_bytes()));
        encoder.write_all(piece.as_flattened())?;
    }
    encoder.finish()
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
    let span = entry.span(shape).map_err(|what| mismatch(format!("the manifest lists {what}")))?;
    let expected_positions = span.end - span.start;
    if let Some(what) = header_problem(&file, shape.layer, entry, shape.opponents.len(), column) {
        return Err(mismatch(what));
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

/// What is wrong with an open shard (its identity already checked), read as the one the
/// manifest lists as `entry` of `layer` for `column`, in a layer of `opponents` opponent
/// cards: its header against the entry, then its checksum. The one header check of every
/// reader ([`read_shard`], [`super::verify_listed`]), so a problem reads the same whoever
/// finds it.
pub(super) fn header_problem(
    file: &StoreFile,
    layer: usize,
    entry: &ShardEntry,
    opponents: usize,
    column: Column,
) -> Option<String> {
    let h = match serde_json::from_value::<ShardHeader>(file.metadata().clone()) {
        Ok(header) => header,
        Err(e) => return Some(format!("shard metadata does not parse: {e}")),
    };
    if h.opponents != opponents {
        return Some(format!("holds rows of {} opponents, but layer {layer} has {opponents}", h.opponents));
    }
    if h.value != column.meaning() {
        return Some(format!("holds {:?}, but the manifest lists it for {:?}", h.value, column.meaning()));
    }
    if (h.layer, h.mover_start, h.mover_end, h.row_offset, h.positions)
        != (layer, entry.mover_start, entry.mover_end, entry.row_offset, entry.positions)
    {
        return Some(format!(
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
        ));
    }
    if file.checksum() != entry.checksum {
        return Some(format!("checksum {} but the manifest lists {}", file.checksum(), entry.checksum));
    }
    None
}

/// Little-endian `f32`s from stored bytes (a multiple of 4).
pub(super) fn decode_values(raw: &[u8]) -> Vec<f32> {
    raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// The first of `values` (positions `first..` of the shard `entry` of `layer`) that is
/// not a probability, finite and within 0 to 1 up to [`ROUNDING`], described.
pub(super) fn stray_value(values: &[f32], first: u64, layer: usize, entry: &ShardEntry) -> Option<String> {
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
        "draw shards cannot be recomputed from the layer above, which keeps none: `{}` finishes the solve with \
         P(draw) unknown, or a solve without --resume computes it again",
        super::repair_command(dir, true)
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
pub(super) fn stray_draw(
    values: &[f32],
    draws: &[f32],
    first: u64,
    layer: usize,
    entry: &ShardEntry,
) -> Option<String> {
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
pub(super) mod tests {
    use super::*;
    use crate::duel::{Cards, Space};
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

    /// A layer of the official game's first four boxes, one shard of its first movers
    /// written with values 0, 1/n, 2/n, ...: the game, shape, span, entry and values.
    pub(in crate::duel::shard) fn written(dir: &Path) -> (Game, LayerShape, ShardSpan, ShardEntry, Vec<f32>) {
        let game = Game::first(Rules::OFFICIAL, 4).unwrap();
        let cards = Cards::new(game);
        let shape = LayerShape::new(&Space::whole_game(&cards), 3);
        let span = shard_ranges(&shape, 40).remove(0);
        let n = (span.positions.end - span.positions.start) as usize;
        let values: Vec<f32> = (0..n).map(|i| i as f32 / n as f32).collect();
        let entry = write_shard(dir, game, &shape, (0, &span), &values, (Column::Value, Durability::Synced)).unwrap();
        (game, shape, span, entry, values)
    }

    #[test]
    fn a_shard_reads_back_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let (game, shape, span, entry, values) = written(dir.path());
        assert_eq!(entry.positions, span.positions.end - span.positions.start);
        assert_eq!(entry.bytes, std::fs::metadata(dir.path().join(shard_file(3, 0, Column::Value))).unwrap().len());
        let read = read_shard(dir.path(), game, &shape, (0, &entry), Column::Value).unwrap();
        assert_eq!(
            read.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            values.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }

    /// A shard of the full game's size (just under [`SHARD_POSITIONS`]: 64 pieces of the
    /// compressor's input, the last one short) goes through every codec as one zstd frame
    /// that records its size and decompresses to the values' little-endian bytes.
    #[test]
    fn a_full_size_shard_compresses_whole_with_every_codec() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(7);
        // Near-random bits, as in the middle layers, among runs of 0 and 1, as at windows' edges.
        let values: Vec<f32> = (0..SHARD_POSITIONS as usize - 1_000)
            .map(|i| match i % 1_000 {
                0..100 => 0.0,
                900.. => 1.0,
                _ => rng.random::<f32>(),
            })
            .collect();
        assert!(values.len() > 63 * PIECE_VALUES && !values.len().is_multiple_of(PIECE_VALUES));
        let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        for codec in Codec::ALL {
            let packed = codec.compress(&values, |&v| v).unwrap();
            let recorded = zstd::zstd_safe::get_frame_content_size(&packed).ok().flatten();
            assert_eq!(recorded, Some(raw.len() as u64), "{codec:?}");
            assert!(packed.len() < raw.len(), "{codec:?}");
            assert!(zstd::bulk::decompress(&packed, raw.len()).unwrap() == raw, "{codec:?}");
        }
    }

    #[test]
    fn a_shard_of_another_column_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (game, shape, _, entry, _) = written(dir.path());
        std::fs::rename(
            dir.path().join(shard_file(3, 0, Column::Value)),
            dir.path().join(shard_file(3, 0, Column::Draw)),
        )
        .unwrap();
        let read = read_shard(dir.path(), game, &shape, (0, &entry), Column::Draw).unwrap_err().to_string();
        assert!(read.contains("but the manifest lists it for \"f32 P(draw)\""), "{read}");
    }
}
