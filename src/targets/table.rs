//! The target table on disk: every state's curve s ↦ max P(future points ≥ s) as lossless
//! `f32`, in independently compressed blocks of a store file.
//!
//! # Payload
//!
//! Numbers are little-endian (as every store payload, see [`crate::store`]); `n` is the
//! state count and `b` the block count, both in the metadata. Every section starts at a
//! multiple of 8 bytes, so the index can be viewed in place.
//!
//! | section | contents |
//! |---|---|
//! | `first: [u32; n]`, zero-padded to 8 bytes | each state's [`Curve::first`] threshold, by [`StateId`] |
//! | `value_start: [u64; n + 1]` | where each state's values start in the stream of all values; the last entry is the value count |
//! | `block_state: [u32; b + 1]`, zero-padded to 8 bytes | first state of each block; the last entry is `n` |
//! | `block_start: [u64; b + 1]` | where each block starts in the block area; the last entry is the area's length |
//! | block area | the blocks, one after the other, zero-padded to 8 bytes |
//!
//! A block holds whole curves, about [`BLOCK_VALUES`] values. Its `m` values are encoded as
//! words: within each curve, the first word is the bit pattern of 1.0 minus the bit
//! pattern of the first value and each later word the previous value's bit pattern minus
//! this one's (wrapping `u32` arithmetic). The curves fall, so the words are small. The
//! words are then split into four byte planes, most significant byte first (`4m` bytes),
//! and the planes compressed as one zstd frame at level [`ZSTD_LEVEL`]. A block whose frame
//! would not be smaller than its `4m` plane bytes is stored as the plane bytes: a stored
//! length of exactly `4m` means uncompressed, a shorter one a zstd frame.
//!
//! Reading one curve decompresses only its block; [`CurveReader`] keeps the blocks it has
//! decompressed for a run of lookups.
//!
//! # Why this encoding
//!
//! Measured on the full official game (175,339,501 values, 701 MB as raw `f32`), blocks of
//! 64 Ki values at zstd level 3: the raw bits compress to 444 MB, byte planes of the raw
//! bits to 314 MB, the differences alone to 354 MB, their XOR in planes to 301 MB, second
//! differences in planes to 266 MB and first differences in planes to 265 MB. Level 9 saves
//! 2 % for three times the time; blocks of 16 Ki values cost 4 % and of 256 Ki values save
//! 0.2 % but take 0.7 ms to decompress. Blocks of 32 Ki values give a 275 MB file.

use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;
use serde_json::json;

use super::solve::{Curve, TargetCurves, max_future_points};
use crate::game::{Game, ScoreState, StateId, StateIndex};
use crate::progress::Progress;
use crate::store::{
    self, Checksum, DataTable, FileKind, IdentityError, StoreError, StoreFile, StoreWriter, TableError,
};

/// Target tables. Bump the version when the payload layout or its encoding (sections, word
/// transform, byte planes, compression rule) changes, or when [`StateIndex`] numbers states
/// differently.
pub const KIND: FileKind = FileKind {
    name: "target-table",
    version: 1,
    remedy: "delete it or pass another --data directory",
    metadata_limit: 16 << 10,
};

/// Values a block holds at least (its last curve may take it beyond): 128 KiB of `f32`,
/// which one lookup decompresses in well under a millisecond.
pub const BLOCK_VALUES: usize = 32 * 1024;

/// zstd level of the blocks: higher levels cost several times the time for 1 to 2 % less.
pub const ZSTD_LEVEL: i32 = 3;

/// Blocks a [`CurveReader`] keeps decompressed. The successors of one turn lie in a few
/// dozen blocks at most: per box, those of one (filled set, Yahtzee flag), consecutive.
pub const CACHED_BLOCKS: usize = 64;

/// Most plane bytes a block may declare; a larger claim is corruption, not an allocation.
const MAX_BLOCK_BYTES: u64 = 64 << 20;

/// Bit pattern of 1.0, the value the first word of each curve is taken from.
const ONE_BITS: u32 = 0x3f80_0000;

/// Byte ranges of the payload's index sections; the block area follows them.
#[derive(Clone, Debug)]
struct Sections {
    first: Range<usize>,
    value_start: Range<usize>,
    block_state: Range<usize>,
    block_start: Range<usize>,
}

impl Sections {
    /// Where the sections of a table with `states` states and `blocks` blocks lie; `None`
    /// if that overflows.
    fn new(states: usize, blocks: usize) -> Option<Sections> {
        let mut at = 0usize;
        let mut next = |bytes: usize| -> Option<Range<usize>> {
            let start = at;
            at = start.checked_add(bytes.checked_next_multiple_of(8)?)?;
            Some(start..start + bytes)
        };
        Some(Sections {
            first: next(states.checked_mul(4)?)?,
            value_start: next(states.checked_add(1)?.checked_mul(8)?)?,
            block_state: next(blocks.checked_add(1)?.checked_mul(4)?)?,
            block_start: next(blocks.checked_add(1)?.checked_mul(8)?)?,
        })
    }

    /// Payload bytes before the block area.
    fn len(&self) -> usize {
        self.block_start.end.next_multiple_of(8)
    }
}

/// A memory-mapped, checked target table.
#[derive(Debug)]
pub struct TargetTable {
    file: StoreFile,
    index: StateIndex,
    sections: Sections,
}

impl TargetTable {
    /// Writes `curves` atomically to `path` and returns its checksum. Blocks are compressed
    /// in parallel; the bytes do not depend on the number of threads.
    ///
    /// # Panics
    /// If the curves are those of the game below a position: a table holds every state.
    pub fn write(curves: &TargetCurves<f32>, path: &Path) -> Result<Checksum, StoreError> {
        assert!(curves.below().is_none(), "a target table holds every state's curve, not those below a position");
        let game = curves.index().game();
        let all = curves.curves();
        let mut value_start = Vec::with_capacity(all.len() + 1);
        let mut block_state = vec![0u32];
        let mut values = 0u64;
        let mut in_block = 0;
        for (id, curve) in all.iter().enumerate() {
            if in_block >= BLOCK_VALUES {
                block_state.push(id as u32);
                in_block = 0;
            }
            value_start.push(values);
            values += curve.values.len() as u64;
            in_block += curve.values.len();
        }
        value_start.push(values);
        block_state.push(all.len() as u32);
        let first: Vec<u32> = all.iter().map(|curve| curve.first).collect();

        let encoded: Vec<Vec<u8>> = block_state
            .par_windows(2)
            .map(|w| {
                let planes = encode_block(&all[w[0] as usize..w[1] as usize]);
                match zstd::bulk::compress(&planes, ZSTD_LEVEL) {
                    Ok(frame) if frame.len() < planes.len() => frame,
                    _ => planes,
                }
            })
            .collect();
        let mut block_start = vec![0u64];
        for block in &encoded {
            block_start.push(block_start[block_start.len() - 1] + block.len() as u64);
        }

        let blocks = encoded.len();
        let area = block_start[blocks] as usize;
        let invalid =
            || StoreError::InvalidInput { path: path.to_owned(), reason: "the table is too large".to_owned() };
        let sections = Sections::new(all.len(), blocks).ok_or_else(invalid)?;
        let payload_len = (sections.len() as u64).checked_add(area.next_multiple_of(8) as u64).ok_or_else(invalid)?;
        let mut metadata = KIND.metadata(game);
        metadata["value"] =
            json!("max P(future points >= s) at the start of a turn, per state id, thresholds from first on");
        metadata["value_type"] = json!("f32");
        metadata["states"] = json!(all.len());
        metadata["values"] = json!(values);
        metadata["blocks"] = json!(blocks);
        metadata["compression"] = json!({
            "codec": "zstd",
            "level": ZSTD_LEVEL,
            "block_values": BLOCK_VALUES,
            "transform": "per-curve differences of f32 bit patterns from 1.0, then 4 byte planes, most significant first",
            "uncompressed_when": "the frame would not be smaller",
        });
        // A killed solve's temporary file of this table is taken before writing a new one.
        if let Ok(removed) = store::remove_dead_temp_files(path)
            && !removed.is_empty()
        {
            tracing::info!(?removed, "removed temporary files of killed writers");
        }
        let mut writer = StoreWriter::create(path, KIND.name, &metadata, payload_len)?;
        let padding = [0u8; 8];
        let section = |writer: &mut StoreWriter, bytes: &[u8]| {
            writer.write_payload(bytes)?;
            writer.write_payload(&padding[..bytes.len().next_multiple_of(8) - bytes.len()])
        };
        section(&mut writer, store::as_bytes(&first))?;
        section(&mut writer, store::as_bytes(&value_start))?;
        section(&mut writer, store::as_bytes(&block_state))?;
        section(&mut writer, store::as_bytes(&block_start))?;
        for block in &encoded {
            writer.write_payload(block)?;
        }
        writer.write_payload(&padding[..area.next_multiple_of(8) - area])?;
        writer.finish()
    }

    /// Opens and checks a table for `game`: the store's header and every checksum, that it
    /// was made for this game with this state numbering, and that its index is consistent
    /// (offsets ascending and inside the payload, block sizes within bounds, every curve
    /// within the points its state can still make). Blocks are checked as they are read.
    pub fn open(path: &Path, game: Game) -> Result<TargetTable, TableError> {
        // SAFETY: yz replaces store files by rename and never writes one in place.
        let file = unsafe { KIND.open::<TableError>(path, game) }?;
        let index = StateIndex::new(game);
        let count = |field: &'static str| {
            file.metadata()
                .get(field)
                .and_then(serde_json::Value::as_u64)
                .and_then(|v| usize::try_from(v).ok())
                .ok_or_else(|| TableError::Corrupt {
                    path: path.to_path_buf(),
                    what: format!("no valid {field:?} in its metadata"),
                })
        };
        let (values, blocks) = (count("values")?, count("blocks")?);
        let payload_len = file.payload().len();
        let sections = Sections::new(index.len(), blocks).filter(|s| s.len() <= payload_len).ok_or_else(|| {
            TableError::Corrupt {
                path: path.to_path_buf(),
                what: format!("{payload_len} payload bytes cannot hold the index of {blocks} blocks"),
            }
        })?;
        let table = TargetTable { file, index, sections };
        table.check_index(values)?;
        Ok(table)
    }

    /// Checks the index sections against each other, the value count and the payload.
    fn check_index(&self, values: usize) -> Result<(), TableError> {
        let corrupt = |what: String| TableError::Corrupt { path: self.path().to_path_buf(), what };
        let (states, blocks) = (self.index.len(), self.blocks());
        let payload_len = self.file.payload().len() as u64;
        let area = self.block_start()[blocks];
        if area.checked_next_multiple_of(8).and_then(|a| a.checked_add(self.sections.len() as u64)) != Some(payload_len)
        {
            return Err(corrupt(format!(
                "a block area of {area} bytes after an index of {} bytes does not fill a payload of {payload_len} bytes",
                self.sections.len()
            )));
        }
        let value_start = self.value_start();
        if value_start[0] != 0 || value_start[states] != values as u64 {
            return Err(corrupt(format!(
                "the value offsets run from {} to {}, not from 0 to the {values} values the metadata promises",
                value_start[0], value_start[states]
            )));
        }
        for (id, (w, &first)) in value_start.windows(2).zip(self.first()).enumerate() {
            let most = max_future_points(self.index.game(), self.index.state(StateId(id as u32))) as u64;
            let last = w[1].checked_sub(w[0]).and_then(|len| (first as u64).checked_add(len)?.checked_sub(1));
            if first == 0 || last.is_none_or(|last| last > most) {
                return Err(corrupt(format!(
                    "state {id} claims first threshold {first} and value offsets {} to {}, \
                     but it can make at most {most} more points",
                    w[0], w[1]
                )));
            }
        }
        let block_state = self.block_state();
        if block_state[0] != 0 || block_state[blocks] as usize != states {
            return Err(corrupt(format!(
                "the blocks cover states {} to {}, not 0 to {states}",
                block_state[0], block_state[blocks]
            )));
        }
        for block in 0..blocks {
            let (from, to) = (block_state[block] as usize, block_state[block + 1] as usize);
            let values = if from < to && to <= states { value_start[to] - value_start[from] } else { u64::MAX };
            let stored = self.block_bytes(block).map(<[u8]>::len);
            if values > MAX_BLOCK_BYTES / 4 || stored.is_none_or(|len| len as u64 > 4 * values) {
                return Err(corrupt(format!(
                    "block {block} claims states {from} to {to} and bytes {} to {} of a block area of {area} bytes",
                    self.block_start()[block],
                    self.block_start()[block + 1]
                )));
            }
        }
        Ok(())
    }

    fn first(&self) -> &[u32] {
        bytemuck::cast_slice(&self.file.payload()[self.sections.first.clone()])
    }

    fn value_start(&self) -> &[u64] {
        bytemuck::cast_slice(&self.file.payload()[self.sections.value_start.clone()])
    }

    fn block_state(&self) -> &[u32] {
        bytemuck::cast_slice(&self.file.payload()[self.sections.block_state.clone()])
    }

    fn block_start(&self) -> &[u64] {
        bytemuck::cast_slice(&self.file.payload()[self.sections.block_start.clone()])
    }

    /// The stored bytes of `block`, or `None` if its offsets leave the block area.
    fn block_bytes(&self, block: usize) -> Option<&[u8]> {
        let area = &self.file.payload()[self.sections.len()..];
        let (start, end) = (self.block_start()[block], self.block_start()[block + 1]);
        area.get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }

    /// The curve of `state` at the start of its turn; decompresses the block holding it.
    /// For several lookups, a [`CurveReader`] decompresses each block once.
    pub fn curve(&self, state: ScoreState) -> Result<Curve<f32>, TableError> {
        self.reader().curve(state)
    }

    /// The curve at the start of the game.
    pub fn start(&self) -> Result<Curve<f32>, TableError> {
        self.curve(ScoreState::start(self.index.game()))
    }

    /// max P(future points ≥ `threshold`) from the start of a turn in `state`.
    pub fn probability(&self, state: ScoreState, threshold: i64) -> Result<f32, TableError> {
        Ok(self.curve(state)?.at(threshold))
    }

    /// A reader that keeps the blocks it decompresses, for a run of lookups.
    pub fn reader(&self) -> CurveReader<'_> {
        CurveReader { table: self, blocks: Vec::new(), decompressor: None }
    }

    /// The game the table was made for.
    pub fn game(&self) -> Game {
        self.index.game()
    }

    /// Checks that the table was made for `game`, as [`TargetTable::open`] did for its own.
    pub fn check_game(&self, game: Game) -> Result<(), IdentityError> {
        KIND.check(self.path(), self.file.metadata(), Some(game)).map(drop)
    }

    /// Number of states stored.
    pub fn states(&self) -> usize {
        self.index.len()
    }

    /// Number of curve values stored.
    pub fn values(&self) -> u64 {
        self.value_start()[self.index.len()]
    }

    /// Number of compressed blocks.
    pub fn blocks(&self) -> usize {
        self.block_start().len() - 1
    }

    /// The file's checksum.
    pub fn checksum(&self) -> Checksum {
        self.file.checksum()
    }

    /// Where the table lives.
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

/// Looks up curves of one [`TargetTable`], keeping the last [`CACHED_BLOCKS`] blocks it
/// decompressed: enough for every successor of a turn, in about 8 MiB.
pub struct CurveReader<'t> {
    table: &'t TargetTable,
    /// Decoded blocks: (block, its plane bytes).
    blocks: Vec<(usize, Vec<u8>)>,
    decompressor: Option<zstd::bulk::Decompressor<'static>>,
}

impl CurveReader<'_> {
    /// The curve of `state` at the start of its turn.
    pub fn curve(&mut self, state: ScoreState) -> Result<Curve<f32>, TableError> {
        let table = self.table;
        let id = table
            .index
            .id(state)
            .ok_or_else(|| TableError::UnknownState { path: table.path().to_path_buf(), state })?;
        self.curve_by_id(id.0 as usize)
    }

    /// The curve of the state numbered `id`, which is below the state count.
    fn curve_by_id(&mut self, id: usize) -> Result<Curve<f32>, TableError> {
        let table = self.table;
        let block = table.block_state().partition_point(|&s| s as usize <= id) - 1;
        let value_start = table.value_start();
        let block_first = value_start[table.block_state()[block] as usize];
        let (start, end) = ((value_start[id] - block_first) as usize, (value_start[id + 1] - block_first) as usize);
        let planes = self.planes(block)?;
        let first = table.first()[id];
        let mut values = Vec::with_capacity(end - start);
        for (k, value) in decode(planes, start..end).enumerate() {
            if !(0.0..=1.0).contains(&value) {
                let threshold = first as u64 + k as u64;
                return Err(TableError::Corrupt {
                    path: table.path().to_path_buf(),
                    what: format!("state {id} holds {value} at threshold {threshold}"),
                });
            }
            values.push(value);
        }
        Ok(Curve { first, values })
    }

    /// The plane bytes of `block`, decompressed on first use.
    fn planes(&mut self, block: usize) -> Result<&[u8], TableError> {
        if let Some(position) = self.blocks.iter().position(|(b, _)| *b == block) {
            return Ok(&self.blocks[position].1);
        }
        let table = self.table;
        let bad = |detail: String| TableError::Corrupt {
            path: table.path().to_path_buf(),
            what: format!("block {block} {detail}"),
        };
        let states = table.block_state()[block] as usize..table.block_state()[block + 1] as usize;
        let value_start = table.value_start();
        // `open` checked the block's offsets and bounded its size.
        let expected = 4 * (value_start[states.end] - value_start[states.start]) as usize;
        let stored = table.block_bytes(block).ok_or_else(|| bad("lies outside the payload".to_owned()))?;
        let planes = if stored.len() == expected {
            stored.to_vec()
        } else {
            let decompressor = match &mut self.decompressor {
                Some(d) => d,
                None => self.decompressor.insert(
                    zstd::bulk::Decompressor::new().map_err(|err| bad(format!("cannot be decompressed: {err}")))?,
                ),
            };
            let mut planes = vec![0u8; expected];
            let found = decompressor
                .decompress_to_buffer(stored, &mut planes[..])
                .map_err(|err| bad(format!("does not decompress to {expected} bytes: {err}")))?;
            if found != expected {
                return Err(bad(format!("decompresses to {found} bytes, not {expected}")));
            }
            planes
        };
        if self.blocks.len() == CACHED_BLOCKS {
            self.blocks.remove(0);
        }
        self.blocks.push((block, planes));
        Ok(&self.blocks[self.blocks.len() - 1].1)
    }
}

/// The words of `curves` in byte planes (see the [module docs](self)).
fn encode_block(curves: &[Curve<f32>]) -> Vec<u8> {
    let m: usize = curves.iter().map(|c| c.values.len()).sum();
    let mut planes = vec![0u8; 4 * m];
    let mut k = 0;
    for curve in curves {
        let mut previous = ONE_BITS;
        for value in &curve.values {
            let bits = value.to_bits();
            let [b0, b1, b2, b3] = previous.wrapping_sub(bits).to_be_bytes();
            (planes[k], planes[m + k], planes[2 * m + k], planes[3 * m + k]) = (b0, b1, b2, b3);
            previous = bits;
            k += 1;
        }
    }
    planes
}

/// The values of the curve whose words are `range` of a block's plane bytes.
fn decode(planes: &[u8], range: Range<usize>) -> impl Iterator<Item = f32> + '_ {
    let m = planes.len() / 4;
    range.scan(ONE_BITS, move |previous, k| {
        let word = u32::from_be_bytes([planes[k], planes[m + k], planes[2 * m + k], planes[3 * m + k]]);
        *previous = previous.wrapping_sub(word);
        Some(f32::from_bits(*previous))
    })
}

impl DataTable for TargetTable {
    const STEM: &'static str = "targets";

    /// The full game takes a minute or two.
    fn solve_into(game: Game, path: &Path, progress: &dyn Progress) -> Result<Checksum, StoreError> {
        TargetTable::write(&super::solve_with_progress::<f32>(game, progress), path)
    }

    fn open(path: &Path, game: Game) -> Result<TargetTable, TableError> {
        TargetTable::open(path, game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_bit_pattern_survives_the_block_encoding() {
        // Falling, rising, zero, subnormal, one, and an empty curve: the words wrap, so
        // nothing depends on the curves being monotone.
        let curves = [
            Curve { first: 1, values: vec![0.9, 0.95, 0.0, 1e-30, f32::MIN_POSITIVE / 3.0, 1.0, 0.25] },
            Curve { first: 4, values: Vec::new() },
            Curve { first: 2, values: vec![0.5, 0.5, 0.125] },
        ];
        let planes = encode_block(&curves);
        assert_eq!(planes.len(), 4 * 10);
        let mut at = 0;
        for curve in &curves {
            let decoded: Vec<u32> = decode(&planes, at..at + curve.values.len()).map(f32::to_bits).collect();
            assert_eq!(decoded, curve.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
            at += curve.values.len();
        }
    }
}
