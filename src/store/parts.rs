//! Store files of many parts, each read alone: a streamed solve's block of frames, read
//! one frame at a time by as many readers as there are frames.
//!
//! The file is an ordinary store file (so [`super::StoreFile::open`] and `yz verify` check
//! it whole); its payload is an index, then the parts:
//!
//! | Field   | Bytes  | Contents                                                            |
//! |---------|--------|---------------------------------------------------------------------|
//! | index   | 32 *N* | per part: offset in the payload, length, xxh3-64 of the part, and  |
//! |         |        | xxh3-64 of the part's number and those three numbers               |
//! | parts   | Σ      | the parts, one after the other                                      |
//!
//! *N* is in the metadata (under [`PARTS_KEY`]), which the header hash covers. A reader of
//! one part checks the header, that part's index entry against its own hash and the part
//! against its hash: a few hundred bytes besides the part, however many parts the file
//! holds, where checking every chunk would read the whole file for each part.

use std::path::{Path, PathBuf};

use memmap2::Mmap;
use xxhash_rust::xxh3::xxh3_64;

use super::read::{Layout, map_file, validate_header};
use super::{Checksum, Durability, StoreError, StoreWriter};

/// The metadata key holding the number of parts.
pub const PARTS_KEY: &str = "parts";

/// Bytes of one index entry.
const ENTRY_BYTES: usize = 32;

/// Writes a store file of `kind` holding `parts`, with `metadata` (an object, to which the
/// part count is added), atomically; returns its checksum.
pub fn write_parts(
    path: &Path,
    kind: &str,
    metadata: &serde_json::Value,
    parts: &[Vec<u8>],
    durability: Durability,
) -> Result<Checksum, StoreError> {
    let mut metadata = metadata.clone();
    let Some(object) = metadata.as_object_mut() else {
        return Err(StoreError::InvalidInput {
            path: path.to_owned(),
            reason: "the metadata of a file of parts must be a JSON object".to_owned(),
        });
    };
    object.insert(PARTS_KEY.to_owned(), parts.len().into());
    let mut index = Vec::with_capacity(parts.len() * ENTRY_BYTES);
    let mut offset = (parts.len() * ENTRY_BYTES) as u64;
    for (i, part) in parts.iter().enumerate() {
        index.extend_from_slice(&entry(i as u64, offset, part.len() as u64, xxh3_64(part)));
        offset += part.len() as u64;
    }
    let mut writer = StoreWriter::create(path, kind, &metadata, offset)?;
    writer.write_payload(&index)?;
    for part in parts {
        writer.write_payload(part)?;
    }
    writer.finish_with(durability)
}

/// The index entry of part `i`: its offset, length and hash, and the hash of the four.
fn entry(i: u64, offset: u64, len: u64, hash: u64) -> [u8; ENTRY_BYTES] {
    let mut entry = [0u8; ENTRY_BYTES];
    for (field, value) in entry.chunks_exact_mut(8).zip([offset, len, hash]) {
        field.copy_from_slice(&value.to_le_bytes());
    }
    let mut numbered = [0u8; ENTRY_BYTES];
    numbered[..8].copy_from_slice(&i.to_le_bytes());
    numbered[8..].copy_from_slice(&entry[..24]);
    entry[24..].copy_from_slice(&xxh3_64(&numbered).to_le_bytes());
    entry
}

/// A file of parts, opened with its header checked and none of its parts read yet.
#[derive(Debug)]
pub struct PartsFile {
    path: PathBuf,
    map: Mmap,
    layout: Layout,
    count: usize,
}

impl PartsFile {
    /// Maps the file of parts at `path` and checks its header, kind (`expected_kind`),
    /// length and part count; parts are checked as they are read ([`PartsFile::part`]).
    /// Metadata over `metadata_limit` bytes is refused before it is parsed.
    ///
    /// # Safety
    /// As for [`super::StoreFile::open`]: nobody writes the file in place or truncates it
    /// while this lives.
    pub unsafe fn open(path: &Path, expected_kind: &str, metadata_limit: usize) -> Result<PartsFile, StoreError> {
        super::check_host(path, cfg!(target_endian = "big"))?;
        // SAFETY: as the caller ensures.
        let map = unsafe { map_file(path)? };
        let layout = validate_header(&map, path, expected_kind, metadata_limit)?;
        let damaged = |detail: String| StoreError::HeaderCorrupted { path: path.to_owned(), detail };
        let count = layout
            .metadata
            .get(PARTS_KEY)
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| damaged(format!("the metadata of a file of parts has no number under {PARTS_KEY:?}")))?;
        let payload = layout.payload.len() as u64;
        if count.checked_mul(ENTRY_BYTES as u64).is_none_or(|index| index > payload) {
            return Err(damaged(format!("{count} parts cannot have their index in a payload of {payload} bytes")));
        }
        Ok(PartsFile { path: path.to_owned(), map, layout, count: count as usize })
    }

    /// The metadata, as written (with the part count).
    pub fn metadata(&self) -> &serde_json::Value {
        &self.layout.metadata
    }

    /// How many parts the file holds.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Part `i`, checked against its index entry's hash (itself checked first).
    pub fn part(&self, i: usize) -> Result<&[u8], StoreError> {
        let payload = &self.map[self.layout.payload.clone()];
        if i >= self.count {
            let reason = format!("part {i} was asked of a file of {} parts", self.count);
            return Err(StoreError::InvalidInput { path: self.path.clone(), reason });
        }
        let at = i * ENTRY_BYTES;
        let field = |k: usize| u64::from_le_bytes(payload[at + 8 * k..at + 8 * k + 8].try_into().expect("8 bytes"));
        let (offset, len, hash) = (field(0), field(1), field(2));
        let damaged = |detail: String| StoreError::HeaderCorrupted { path: self.path.clone(), detail };
        if entry(i as u64, offset, len, hash)[..] != payload[at..at + ENTRY_BYTES] {
            return Err(damaged(format!("the index entry of part {i} does not match its hash")));
        }
        let range = offset.checked_add(len).filter(|&end| end <= payload.len() as u64).map(|end| offset..end);
        let Some(range) = range else {
            return Err(damaged(format!("part {i} ({len} bytes at {offset}) lies past the payload's end")));
        };
        let part = &payload[range.start as usize..range.end as usize];
        if xxh3_64(part) != hash {
            return Err(StoreError::ChecksumMismatch { path: self.path.clone() });
        }
        Ok(part)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts() -> Vec<Vec<u8>> {
        vec![b"first".to_vec(), Vec::new(), (0..=255).collect(), b"last".to_vec()]
    }

    /// Every part reads back as written, and the whole file is an ordinary store file.
    #[test]
    fn parts_read_back_one_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.yzs");
        write_parts(&path, "parts-test", &serde_json::json!({"a": 1}), &parts(), Durability::Synced).unwrap();
        // SAFETY: the test's own file, not changed while open.
        let file = unsafe { PartsFile::open(&path, "parts-test", 1 << 10) }.unwrap();
        assert_eq!((file.count(), &file.metadata()["a"]), (4, &serde_json::json!(1)));
        for (i, part) in parts().iter().enumerate() {
            assert_eq!(file.part(i).unwrap(), &part[..]);
        }
        assert!(file.part(4).is_err());
        // SAFETY: as above.
        unsafe { super::super::StoreFile::open(&path, "parts-test") }.unwrap();
    }

    /// A flipped byte anywhere in the index or a part is caught by the reader of that part,
    /// and no other part is read wrong.
    #[test]
    fn a_flipped_byte_is_caught_by_the_part_it_lies_in() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.yzs");
        write_parts(&path, "parts-test", &serde_json::json!({}), &parts(), Durability::Synced).unwrap();
        let good = std::fs::read(&path).unwrap();
        // SAFETY: as above.
        let start = unsafe { PartsFile::open(&path, "parts-test", 1 << 10) }.unwrap().layout.payload.start;
        let payload_len = 4 * ENTRY_BYTES + parts().iter().map(Vec::len).sum::<usize>();
        for at in start..start + payload_len {
            let mut bad = good.clone();
            bad[at] ^= 0x04;
            std::fs::write(&path, &bad).unwrap();
            // SAFETY: as above.
            let file = unsafe { PartsFile::open(&path, "parts-test", 1 << 10) }.unwrap();
            let read: Vec<_> = (0..4).map(|i| file.part(i).map(<[u8]>::to_vec)).collect();
            assert!(read.iter().any(Result::is_err), "byte {at} flipped unseen");
            for (i, part) in read.iter().enumerate() {
                if let Ok(part) = part {
                    assert_eq!(part, &parts()[i], "byte {at}: part {i} read wrong");
                }
            }
        }
        // In the header: refused on opening.
        let mut bad = good.clone();
        bad[30] ^= 0x01;
        std::fs::write(&path, &bad).unwrap();
        // SAFETY: as above.
        assert!(unsafe { PartsFile::open(&path, "parts-test", 1 << 10) }.is_err());
    }
}
