//! The one home of yz's on-disk file format: a versioned, checksummed, memory-mappable
//! container that knows nothing about what its payloads hold.
//!
//! Every table yz keeps on disk (solitaire tables, target tables, two-player layer shards,
//! strategy files) is a *store file*: a header naming the file's *kind* and carrying free
//! JSON metadata (what produced it, rules, counts…), then the payload bytes, then one hash
//! per fixed-size chunk of the payload. The metadata of every kind starts with the same
//! keys, which say which game and which version of the kind the file was made for; the
//! `identity` module ([`FileKind`], [`Identity`]) is their one home, with their one check
//! ([`FileKind::check`]). Files are written once, under a temporary name, and
//! renamed into place ([`write_atomic`], [`StoreWriter`]). They are read by mapping them
//! into memory with [`StoreFile::open`], which checks every byte first, so nothing
//! half-written or corrupt is ever read as good.
//!
//! # Layout
//!
//! Every number is little-endian: the header's, and those of every payload. Payloads are
//! stored as they lie in memory (see [`as_bytes`]) so that a mapped file can be used in
//! place ([`StoreFile::payload_as`]); that is little-endian only on a little-endian host,
//! so yz refuses to write or open a store file on a big-endian one
//! ([`StoreError::BigEndianHost`]). Every host yz is built for (x86-64, AArch64,
//! RISC-V…) is little-endian. The byte-order mark is the little-endian `0x0102_0304`; a
//! file whose mark reads swapped came from a writer that stored numbers big-endian and is
//! refused ([`StoreError::ByteOrder`]).
//!
//! | Field               | Bytes | Contents                                               |
//! |---------------------|-------|--------------------------------------------------------|
//! | magic               | 8     | `b"YZSTORE\0"`                                         |
//! | byte-order mark     | 4     | `0x0102_0304` (bytes `04 03 02 01`)                    |
//! | format version      | 4     | [`FORMAT_VERSION`]                                     |
//! | kind length *K*     | 4     | at most [`MAX_KIND_LEN`]                               |
//! | kind                | *K*   | UTF-8, e.g. `solo-table`                               |
//! | metadata length *M* | 4     | at most [`MAX_METADATA_LEN`]                           |
//! | metadata            | *M*   | UTF-8 JSON                                             |
//! | payload length *P*  | 8     |                                                        |
//! | chunk size *C*      | 4     | [`CHUNK_SIZE`] (tests may choose smaller)              |
//! | chunk count *N*     | 8     | ⌈*P* / *C*⌉                                            |
//! | header hash         | 8     | xxh3-64 of every byte above                            |
//! | padding             | 0–63  | zeros up to a multiple of [`PAYLOAD_ALIGN`]            |
//! | payload             | *P*   | the caller's bytes                                     |
//! | chunk hashes        | 8 *N* | xxh3-64 of each *C*-byte chunk (the last may be short) |
//! | hash of hashes      | 8     | xxh3-64 of the chunk hashes: the [`Checksum`]          |
//!
//! The first 16 bytes (magic, byte-order mark, version) keep their meaning in every
//! format version, so any yz can tell which version a file has. Because the mapping
//! starts on a page boundary and the payload at a multiple of 64 bytes, a mapped payload
//! can be viewed as `&[f64]` or `&[f32]` without copying ([`StoreFile::payload_as`]).
//!
//! The checksum depends only on the payload and the chunk size, not on how a writer
//! split its writes, so two runs that produce the same table report the same checksum.
//!
//! # Checks on opening
//!
//! First that this host is little-endian; then, in order: magic, byte-order mark, version
//! (before the header hash, because another version may lay the rest of the header out
//! differently), header hash, file length, padding, kind, then the chunk hash table
//! against the hash of hashes and every chunk against its hash. Each failure is its own
//! [`StoreError`] variant.

mod error;
mod identity;
mod lock;
mod parts;
mod read;
mod table;
mod write;

pub use error::{StoreError, TableError};
pub use identity::{Field, FileKind, Identity, IdentityError};
pub use lock::lock_exclusive;
pub use parts::{PARTS_KEY, PartsFile, write_parts};
pub use read::{StoreFile, VerifyReport, hold_files_in_memory, peek, read_text, verify};
pub use table::{DataTable, default_data_dir, open_or_solve};
pub use write::{
    Durability, StoreWriter, encode, is_temp_name, remove_dead_temp_files, remove_stale_temp_files, sync_batch,
    write_atomic, write_atomic_with, write_text_atomic,
};

use std::fmt;
use std::path::Path;

/// Version of the byte layout described in the [module docs](self).
///
/// Bump it whenever a file written by this code could be misread by older code or the
/// other way round: a field added, moved, widened or reinterpreted, another hash
/// function, another padding rule. Do not bump it for a change in what some kind of
/// payload means; record that in the kind or its metadata instead.
pub const FORMAT_VERSION: u32 = 1;

/// Bytes of payload covered by each chunk hash (1 MiB).
pub const CHUNK_SIZE: u32 = 1 << 20;

/// The payload starts at an offset that is a multiple of this many bytes.
pub const PAYLOAD_ALIGN: usize = 64;

/// Longest kind accepted, in bytes.
pub const MAX_KIND_LEN: usize = 255;

/// Largest metadata accepted, in bytes of JSON.
pub const MAX_METADATA_LEN: usize = 16 << 20;

const MAGIC: [u8; 8] = *b"YZSTORE\0";
const BYTE_ORDER_MARK: u32 = 0x0102_0304;

/// A store file's checksum: the xxh3-64 hash of its chunk hashes.
///
/// Displayed as 16 lowercase hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Checksum(pub u64);

impl fmt::Display for Checksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Views a slice of plain numbers as bytes, for writing as a payload.
///
/// The bytes are in this machine's byte order, which is little-endian wherever a store file
/// can be written ([`StoreError::BigEndianHost`]).
pub fn as_bytes<T: bytemuck::Pod>(values: &[T]) -> &[u8] {
    bytemuck::cast_slice(values)
}

/// Refuses store files on a big-endian host (`big_endian`, i.e. `cfg!(target_endian =
/// "big")`): their payloads are little-endian numbers used in place.
fn check_host(path: &Path, big_endian: bool) -> Result<(), StoreError> {
    if big_endian { Err(StoreError::BigEndianHost { path: path.to_owned() }) } else { Ok(()) }
}

/// Number of chunks covering `payload_len` bytes; 0 for an empty payload.
fn chunk_count(payload_len: u64, chunk_size: u32) -> u64 {
    payload_len.div_ceil(u64::from(chunk_size))
}

/// Serialises a [`Checksum`] as its hex text, as every report prints it.
pub fn checksum_as_text<S: serde::Serializer>(checksum: &Checksum, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(checksum)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use proptest::prelude::*;
    use serde_json::json;
    use tempfile::TempDir;
    use xxhash_rust::xxh3::xxh3_64;

    use super::*;

    const KIND: &str = "test-table";

    fn metadata() -> serde_json::Value {
        // Keys in sorted order, so the bytes do not depend on serde_json's map ordering.
        json!({ "count": 3, "producer": "yz tests", "rules": "official" })
    }

    fn f64_payload(n: usize) -> Vec<f64> {
        (0..n).map(|i| i as f64 * 0.25 - 7.0).collect()
    }

    fn byte_payload(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 31 + i / 251) as u8).collect()
    }

    /// Writes a file with a small chunk size and returns its bytes.
    fn small_file_bytes(dir: &TempDir, payload: &[u8], chunk_size: u32) -> Vec<u8> {
        let path = dir.path().join("small.yzs");
        let mut writer =
            StoreWriter::create_with_chunk_size(&path, KIND, &metadata(), payload.len() as u64, chunk_size).unwrap();
        writer.write_payload(payload).unwrap();
        writer.finish().unwrap();
        fs::read(&path).unwrap()
    }

    fn open_bytes(dir: &TempDir, bytes: &[u8]) -> Result<StoreFile, StoreError> {
        let path = dir.path().join("patched.yzs");
        fs::write(&path, bytes).unwrap();
        unsafe { StoreFile::open(&path, KIND) }
    }

    fn header_len(bytes: &[u8]) -> usize {
        let kind_len = u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
        let meta_at = 20 + kind_len;
        let meta_len = u32::from_le_bytes(bytes[meta_at..meta_at + 4].try_into().unwrap()) as usize;
        meta_at + 4 + meta_len + 8 + 4 + 8
    }

    fn payload_offset(bytes: &[u8]) -> usize {
        (header_len(bytes) + 8).next_multiple_of(PAYLOAD_ALIGN)
    }

    /// Recomputes the header hash after a test patched a header field.
    fn fix_header_hash(bytes: &mut [u8]) {
        let end = header_len(bytes);
        let hash = xxh3_64(&bytes[..end]);
        bytes[end..end + 8].copy_from_slice(&hash.to_le_bytes());
    }

    fn temp_files(dir: &Path) -> Vec<PathBuf> {
        fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.file_name().unwrap().to_string_lossy().contains(".tmp."))
            .collect()
    }

    #[test]
    fn round_trip() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("round.yzs");
        let values = f64_payload(1000);
        let checksum = write_atomic(&path, KIND, &metadata(), as_bytes(&values)).unwrap();

        let file = unsafe { StoreFile::open(&path, KIND) }.unwrap();
        assert_eq!(file.kind(), KIND);
        assert_eq!(file.metadata(), &metadata());
        assert_eq!(file.payload_as::<f64>().unwrap(), values.as_slice());
        assert_eq!(file.payload().as_ptr() as usize % PAYLOAD_ALIGN, 0);
        assert_eq!(file.checksum(), checksum);
        assert_eq!(file.path(), path);

        // One chunk, so the checksum is the hash of that chunk's hash.
        let chunk_hash = xxh3_64(as_bytes(&values));
        assert_eq!(checksum, Checksum(xxh3_64(&chunk_hash.to_le_bytes())));

        // The same input gives the same checksum and the same bytes.
        let first = fs::read(&path).unwrap();
        let again = dir.path().join("again.yzs");
        assert_eq!(write_atomic(&again, KIND, &metadata(), as_bytes(&values)).unwrap(), checksum);
        assert_eq!(fs::read(&again).unwrap(), first);
    }

    /// Pins the exact bytes of a small file. If this fails, the format changed: bump
    /// FORMAT_VERSION, then update the expected values.
    #[test]
    fn format_is_stable() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("golden.yzs");
        let checksum = write_atomic(&path, KIND, &metadata(), &byte_payload(100)).unwrap();
        let bytes = fs::read(&path).unwrap();
        assert_eq!(FORMAT_VERSION, 1);
        assert_eq!(checksum.to_string(), format!("{:016x}", GOLDEN_CHECKSUM));
        assert_eq!(bytes.len(), 128 + 100 + 8 + 8);
        assert_eq!(xxh3_64(&bytes), GOLDEN_FILE_HASH);
    }
    const GOLDEN_CHECKSUM: u64 = 0x152d_53f3_4a54_67ec;
    const GOLDEN_FILE_HASH: u64 = 0x15d9_37f3_cb8e_95f1;

    #[test]
    fn checksum_displays_as_16_hex_digits() {
        assert_eq!(Checksum(0xab).to_string(), "00000000000000ab");
        assert_eq!(Checksum(u64::MAX).to_string(), "ffffffffffffffff");
    }

    #[test]
    fn empty_payload() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("empty.yzs");
        let checksum = write_atomic(&path, KIND, &json!({}), &[]).unwrap();
        assert_eq!(checksum, Checksum(xxh3_64(&[])));

        let file = unsafe { StoreFile::open(&path, KIND) }.unwrap();
        assert!(file.payload().is_empty());
        assert!(file.payload_as::<f64>().unwrap().is_empty());
        let report = unsafe { verify(&path) }.unwrap();
        assert_eq!((report.payload_len, report.chunk_count), (0, 0));
        assert_eq!(fs::metadata(&path).unwrap().len() % 64, 8);
    }

    #[test]
    fn payload_spanning_default_chunks() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("big.yzs");
        let payload = byte_payload(5 * CHUNK_SIZE as usize / 2);
        let checksum = write_atomic(&path, KIND, &metadata(), &payload).unwrap();

        let report = unsafe { verify(&path) }.unwrap();
        assert_eq!(report.chunk_count, 3);
        assert_eq!(report.chunk_size, CHUNK_SIZE);
        assert_eq!(report.payload_len, payload.len() as u64);
        assert_eq!(report.checksum, checksum);
        assert_eq!(unsafe { StoreFile::open(&path, KIND) }.unwrap().payload(), payload.as_slice());

        let hashes: Vec<u8> =
            payload.chunks(CHUNK_SIZE as usize).flat_map(|chunk| xxh3_64(chunk).to_le_bytes()).collect();
        assert_eq!(checksum, Checksum(xxh3_64(&hashes)));
    }

    #[test]
    fn checksum_does_not_depend_on_how_writes_are_split() {
        let dir = TempDir::new().unwrap();
        let payload = byte_payload(10_000);
        let whole = small_file_bytes(&dir, &payload, 1000);

        let path = dir.path().join("pieces.yzs");
        let mut writer =
            StoreWriter::create_with_chunk_size(&path, KIND, &metadata(), payload.len() as u64, 1000).unwrap();
        for piece in payload.chunks(777) {
            writer.write_payload(piece).unwrap();
        }
        writer.write_payload(&[]).unwrap();
        writer.finish().unwrap();
        assert_eq!(fs::read(&path).unwrap(), whole);

        let file = unsafe { StoreFile::open(&path, KIND) }.unwrap();
        assert_eq!(file.payload(), payload.as_slice());
    }

    #[test]
    fn wrong_kind() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("kind.yzs");
        write_atomic(&path, KIND, &metadata(), &[1, 2, 3]).unwrap();
        match unsafe { StoreFile::open(&path, "solo-table") } {
            Err(StoreError::KindMismatch { expected, found, .. }) => {
                assert_eq!((expected.as_str(), found.as_str()), ("solo-table", KIND));
            }
            other => panic!("expected KindMismatch, got {other:?}"),
        }
        assert_eq!(unsafe { verify(&path) }.unwrap().kind, KIND);
    }

    #[test]
    fn flipped_payload_byte_names_its_chunk() {
        let dir = TempDir::new().unwrap();
        let mut bytes = small_file_bytes(&dir, &byte_payload(10_000), 1000);
        let payload_start = payload_offset(&bytes);
        bytes[payload_start + 4321] ^= 0x10;
        match open_bytes(&dir, &bytes) {
            Err(StoreError::ChunkCorrupted { chunk, .. }) => assert_eq!(chunk, 4),
            other => panic!("expected ChunkCorrupted, got {other:?}"),
        }
    }

    #[test]
    fn flipped_chunk_hash_is_a_checksum_mismatch() {
        let dir = TempDir::new().unwrap();
        let mut bytes = small_file_bytes(&dir, &byte_payload(10_000), 1000);
        let at = bytes.len() - 8 - 3 * 8;
        bytes[at] ^= 1;
        assert!(matches!(open_bytes(&dir, &bytes), Err(StoreError::ChecksumMismatch { .. })));
    }

    #[test]
    fn flipped_header_byte() {
        let dir = TempDir::new().unwrap();
        let good = small_file_bytes(&dir, &byte_payload(100), 1000);

        let mut bytes = good.clone();
        bytes[header_len(&good) - 30] ^= 0x01; // inside the metadata JSON
        assert!(matches!(open_bytes(&dir, &bytes), Err(StoreError::HeaderCorrupted { .. })));

        let mut bytes = good.clone();
        bytes[header_len(&good) - 10] ^= 0x01; // the chunk size
        assert!(matches!(open_bytes(&dir, &bytes), Err(StoreError::HeaderCorrupted { .. })));

        let mut bytes = good.clone();
        bytes[2] ^= 0x01; // the magic
        assert!(matches!(open_bytes(&dir, &bytes), Err(StoreError::NotAStoreFile { .. })));

        let mut bytes = good.clone();
        assert!(payload_offset(&good) > header_len(&good) + 8);
        bytes[header_len(&good) + 8] = 1; // the padding
        assert!(matches!(open_bytes(&dir, &bytes), Err(StoreError::HeaderCorrupted { .. })));
    }

    #[test]
    fn truncated_by_one_byte() {
        let dir = TempDir::new().unwrap();
        let bytes = small_file_bytes(&dir, &byte_payload(3000), 1000);
        let len = bytes.len() as u64;
        match open_bytes(&dir, &bytes[..bytes.len() - 1]) {
            Err(err @ StoreError::Truncated { expected, found, .. }) => {
                assert_eq!((expected, found), (len, len - 1));
                let message = err.to_string();
                assert!(message.contains("patched.yzs is truncated"), "{message}");
                assert!(message.contains(&format!("expected {len} bytes, found {}", len - 1)), "{message}");
                assert!(!message.contains('\n'));
            }
            other => panic!("expected Truncated, got {other:?}"),
        }
    }

    #[test]
    fn trailing_bytes() {
        let dir = TempDir::new().unwrap();
        let mut bytes = small_file_bytes(&dir, &byte_payload(3000), 1000);
        let len = bytes.len() as u64;
        bytes.extend_from_slice(&[0; 5]);
        match open_bytes(&dir, &bytes) {
            Err(err @ StoreError::Truncated { expected, found, .. }) => {
                assert_eq!((expected, found), (len, len + 5));
                assert!(err.to_string().contains("is too long"));
            }
            other => panic!("expected Truncated, got {other:?}"),
        }
    }

    #[test]
    fn garbage_and_empty_files() {
        let dir = TempDir::new().unwrap();
        let garbage: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        assert!(matches!(open_bytes(&dir, &garbage), Err(StoreError::NotAStoreFile { .. })));
        assert!(matches!(open_bytes(&dir, b"YZS"), Err(StoreError::Truncated { found: 3, .. })));
        assert!(matches!(open_bytes(&dir, b""), Err(StoreError::Truncated { found: 0, .. })));
        assert!(matches!(
            unsafe { StoreFile::open(&dir.path().join("missing.yzs"), KIND) },
            Err(StoreError::Io { action: "open", .. })
        ));
    }

    #[test]
    fn version_mismatch() {
        let dir = TempDir::new().unwrap();
        let mut bytes = small_file_bytes(&dir, &byte_payload(100), 1000);
        bytes[12..16].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        fix_header_hash(&mut bytes);
        match open_bytes(&dir, &bytes) {
            Err(StoreError::VersionMismatch { expected, found, .. }) => {
                assert_eq!((expected, found), (FORMAT_VERSION, FORMAT_VERSION + 1));
            }
            other => panic!("expected VersionMismatch, got {other:?}"),
        }
    }

    #[test]
    fn byte_order() {
        let dir = TempDir::new().unwrap();
        let mut bytes = small_file_bytes(&dir, &byte_payload(100), 1000);
        assert_eq!(bytes[8..12], [4, 3, 2, 1], "the mark is little-endian");
        bytes[8..12].copy_from_slice(&BYTE_ORDER_MARK.to_be_bytes());
        fix_header_hash(&mut bytes);
        assert!(matches!(open_bytes(&dir, &bytes), Err(StoreError::ByteOrder { .. })));
    }

    #[test]
    fn big_endian_hosts_are_refused() {
        assert!(check_host(Path::new("t.yzs"), false).is_ok());
        let message = check_host(Path::new("t.yzs"), true).unwrap_err().to_string();
        assert!(message.contains("t.yzs") && message.contains("big-endian"), "{message}");
    }

    #[test]
    fn payload_of_the_wrong_length_for_the_type() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("odd.yzs");
        write_atomic(&path, KIND, &metadata(), &[0; 12]).unwrap();
        let file = unsafe { StoreFile::open(&path, KIND) }.unwrap();
        assert_eq!(file.payload_as::<f32>().unwrap().len(), 3);
        assert!(matches!(file.payload_as::<f64>(), Err(StoreError::PayloadLayout { len: 12, .. })));
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_file() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("nested/deeper/table.yzs");
        write_atomic(&path, KIND, &metadata(), &[1; 100]).unwrap();
        let second = write_atomic(&path, KIND, &json!({ "second": true }), &[2; 50]).unwrap();

        let file = unsafe { StoreFile::open(&path, KIND) }.unwrap();
        assert_eq!(file.payload(), &[2; 50]);
        assert_eq!(file.metadata(), &json!({ "second": true }));
        assert_eq!(file.checksum(), second);
        let parent = path.parent().unwrap();
        assert!(temp_files(parent).is_empty());
        assert_eq!(fs::read_dir(parent).unwrap().count(), 1);
    }

    #[test]
    fn batched_writes_are_the_same_files_and_sync_together() {
        let dir = TempDir::new().unwrap();
        let payload: Vec<u8> = (0..3000u32).map(|i| (i * 7) as u8).collect();
        let synced = dir.path().join("synced.yzs");
        let checksum = write_atomic(&synced, KIND, &metadata(), &payload).unwrap();
        let batched: Vec<PathBuf> = (0..3).map(|i| dir.path().join(format!("batched-{i}.yzs"))).collect();
        for path in &batched {
            let written = write_atomic_with(path, KIND, &metadata(), &payload, Durability::Batched).unwrap();
            assert_eq!(written, checksum);
        }
        sync_batch(dir.path(), &batched).unwrap();
        for path in &batched {
            assert_eq!(fs::read(path).unwrap(), fs::read(&synced).unwrap());
        }
        assert!(temp_files(dir.path()).is_empty());
        let missing = dir.path().join("no such directory");
        assert!(matches!(sync_batch(&missing, &[]), Err(StoreError::Io { .. })));
    }

    #[test]
    fn stale_temp_files_are_removed_and_nothing_else() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("kept.yzs");
        write_atomic(&path, KIND, &metadata(), &[1; 10]).unwrap();
        let mut writer = StoreWriter::create(&dir.path().join("killed.yzs"), KIND, &metadata(), 10).unwrap();
        writer.write_payload(&[1; 4]).unwrap();
        std::mem::forget(writer); // as a killed process: no drop, no clean-up
        fs::write(dir.path().join("notes.tmp.txt"), b"not ours").unwrap();
        for mine in [".thesis.tmp.backup", ".a.tmp.12", ".tmp.1.2", ".x.tmp.1.two"] {
            fs::write(dir.path().join(mine), b"a user's").unwrap();
        }
        assert_eq!(temp_files(dir.path()).len(), 6);
        let removed = remove_stale_temp_files(dir.path()).unwrap();
        assert_eq!(removed.len(), 1);
        assert!(removed[0].starts_with(".killed.yzs.tmp."), "{removed:?}");
        assert_eq!(temp_files(dir.path()).len(), 5, "only the writer's own pattern is removed");
        assert_eq!(unsafe { StoreFile::open(&path, KIND) }.unwrap().payload(), &[1; 10]);
    }

    #[test]
    fn writer_misuse_leaves_nothing_behind() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("misused.yzs");

        let mut writer = StoreWriter::create(&path, KIND, &metadata(), 10).unwrap();
        writer.write_payload(&[0; 6]).unwrap();
        assert!(matches!(writer.write_payload(&[0; 6]), Err(StoreError::InvalidInput { .. })));
        assert!(matches!(writer.finish(), Err(StoreError::InvalidInput { .. })));

        let writer = StoreWriter::create(&path, KIND, &metadata(), 10).unwrap();
        drop(writer);

        let long_kind = "k".repeat(MAX_KIND_LEN + 1);
        assert!(matches!(write_atomic(&path, &long_kind, &metadata(), &[]), Err(StoreError::InvalidInput { .. })));
        assert!(!path.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// Every single flipped bit, anywhere in a small multi-chunk file, is caught.
    #[test]
    fn every_flipped_bit_is_caught() {
        let dir = TempDir::new().unwrap();
        let bytes = small_file_bytes(&dir, &byte_payload(700), 256);
        let path = Path::new("memory.yzs");
        read::validate(&bytes, path, Some(KIND)).unwrap();
        let mut patched = bytes.clone();
        for at in 0..bytes.len() {
            for bit in 0..8 {
                patched[at] ^= 1 << bit;
                assert!(read::validate(&patched, path, Some(KIND)).is_err(), "byte {at} bit {bit}");
                patched[at] ^= 1 << bit;
            }
        }
    }

    proptest! {
        #[test]
        fn damaged_files_never_open(
            payload_len in 0usize..2000,
            chunk_size in 1u32..600,
            cut in any::<prop::sample::Index>(),
            flip in any::<prop::sample::Index>(),
            mask in 1u8..=255,
            extra in prop::collection::vec(any::<u8>(), 1..10),
        ) {
            let dir = TempDir::new().unwrap();
            let bytes = small_file_bytes(&dir, &byte_payload(payload_len), chunk_size);
            let path = Path::new("memory.yzs");
            prop_assert!(read::validate(&bytes, path, Some(KIND)).is_ok());

            let truncated = &bytes[..cut.index(bytes.len())];
            prop_assert!(read::validate(truncated, path, Some(KIND)).is_err());
            prop_assert!(read::validate(truncated, path, None).is_err());

            let mut flipped = bytes.clone();
            flipped[flip.index(bytes.len())] ^= mask;
            prop_assert!(read::validate(&flipped, path, None).is_err());

            let mut longer = bytes.clone();
            longer.extend_from_slice(&extra);
            prop_assert!(read::validate(&longer, path, None).is_err());
        }

        #[test]
        fn garbage_never_panics(tail in prop::collection::vec(any::<u8>(), 0..300), header in 0usize..4) {
            // Start with as much of a real header as chosen, so parsing gets further in.
            let mut bytes = MAGIC.to_vec();
            if header >= 1 { bytes.extend_from_slice(&BYTE_ORDER_MARK.to_le_bytes()); }
            if header >= 2 { bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes()); }
            if header >= 3 { bytes.extend_from_slice(&4u32.to_le_bytes()); bytes.extend_from_slice(b"kind"); }
            bytes.extend_from_slice(&tail);
            let _ = read::validate(&bytes, Path::new("garbage.yzs"), None);
            let _ = read::validate(&tail, Path::new("garbage.yzs"), None);
        }
    }

    /// A file that states no size but holds more (procfs) is read one byte past the limit
    /// at most, and refused.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_text_file_larger_than_its_stated_size_is_refused() {
        let maps = Path::new("/proc/self/maps");
        assert_eq!(fs::metadata(maps).unwrap().len(), 0);
        match read_text(maps, 16) {
            Err(StoreError::TooLarge { len, max: 16, .. }) => assert_eq!(len, 17),
            other => panic!("{other:?}"),
        }
        assert!(read_text(maps, 1 << 20).unwrap().contains('\n'));
    }
}
