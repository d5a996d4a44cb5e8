//! Opening store files: map, check every byte, then hand out views.

use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::{
    BYTE_ORDER_MARK, Checksum, FORMAT_VERSION, MAGIC, MAX_KIND_LEN, MAX_METADATA_LEN, PAYLOAD_ALIGN, StoreError,
    chunk_count,
};

/// A store file mapped into memory, every byte of it checked.
///
/// [`StoreFile::open`] is the only way to get one, so holding a `StoreFile` means the
/// file was complete and matched all its hashes when it was opened.
///
/// The file is memory-mapped, so its bytes are read from the file itself for as long as
/// the `StoreFile` lives: like [`memmap2::Mmap::map`], opening is `unsafe`, and the caller
/// promises that nobody modifies the file in place meanwhile.
#[derive(Debug)]
pub struct StoreFile {
    path: PathBuf,
    map: Held,
    layout: Layout,
}

/// A store file's bytes: mapped from its file, or held in memory of our own
/// ([`StoreFile::from_bytes`]), 8-byte aligned like a mapping so that payloads of `f64`
/// can be viewed in place.
#[derive(Debug)]
enum Held {
    Mapped(Mmap),
    Owned { words: Vec<u64>, len: usize },
}

impl std::ops::Deref for Held {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Held::Mapped(map) => map,
            Held::Owned { words, len } => &bytemuck::cast_slice(words)[..*len],
        }
    }
}

impl StoreFile {
    /// Maps the store file at `path` and checks it completely: that this host is
    /// little-endian, magic, byte order,
    /// format version, header hash, that its kind is `expected_kind`, its exact length,
    /// every chunk hash and the hash of hashes.
    ///
    /// # Safety
    /// The file must not be truncated or written in place while the `StoreFile` lives (a
    /// changed mapping is undefined behaviour, a truncated one a bus error). yz's writers
    /// never do that: they write a temporary file and rename it over the old name, which
    /// leaves a mapped file's contents alone. Other programs must not either.
    pub unsafe fn open(path: &Path, expected_kind: &str) -> Result<StoreFile, StoreError> {
        // SAFETY: as the caller ensures.
        unsafe { StoreFile::open_with_metadata_limit(path, expected_kind, MAX_METADATA_LEN) }
    }

    /// [`StoreFile::open`] for a kind whose metadata is a short header: metadata longer
    /// than `metadata_limit` bytes (at most [`MAX_METADATA_LEN`]) is refused before it is
    /// parsed, where 16 MiB of forged JSON would cost hundreds of megabytes to parse.
    ///
    /// # Safety
    /// As for [`StoreFile::open`].
    pub unsafe fn open_with_metadata_limit(
        path: &Path,
        expected_kind: &str,
        metadata_limit: usize,
    ) -> Result<StoreFile, StoreError> {
        super::check_host(path, cfg!(target_endian = "big"))?;
        // SAFETY: the caller keeps the file unchanged while the map lives.
        let map = unsafe { map_file(path)? };
        let limit = metadata_limit.min(MAX_METADATA_LEN);
        let layout = Checked { bytes: &map, path, metadata_limit: limit }.validate(Some(expected_kind))?;
        tracing::debug!(path = %path.display(), kind = expected_kind, checksum = %layout.checksum, "opened store file");
        Ok(StoreFile { path: path.to_owned(), map: Held::Mapped(map), layout })
    }

    /// A store file's whole `bytes` (from [`super::encode`], or kept by a program with no
    /// file system: the web app's cache), checked as [`StoreFile::open_with_metadata_limit`]
    /// checks a file and copied into memory of its own; `label` names them in errors.
    pub fn from_bytes(
        bytes: &[u8],
        label: &Path,
        expected_kind: &str,
        metadata_limit: usize,
    ) -> Result<StoreFile, StoreError> {
        super::check_host(label, cfg!(target_endian = "big"))?;
        let checked = Checked { bytes, path: label, metadata_limit: metadata_limit.min(MAX_METADATA_LEN) };
        let layout = checked.validate(Some(expected_kind))?;
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        Ok(StoreFile { path: label.to_owned(), map: Held::Owned { words, len: bytes.len() }, layout })
    }

    /// The kind of file, as given to the writer.
    pub fn kind(&self) -> &str {
        &self.layout.kind
    }

    /// The metadata given to the writer.
    pub fn metadata(&self) -> &serde_json::Value {
        &self.layout.metadata
    }

    /// The payload bytes, starting at a multiple of [`PAYLOAD_ALIGN`](super::PAYLOAD_ALIGN)
    /// bytes in memory.
    pub fn payload(&self) -> &[u8] {
        &self.map[self.layout.payload.clone()]
    }

    /// The payload viewed in place as a slice of plain numbers written with
    /// [`as_bytes`](super::as_bytes).
    ///
    /// Fails if the payload length is not a multiple of `size_of::<T>()`.
    pub fn payload_as<T: bytemuck::Pod>(&self) -> Result<&[T], StoreError> {
        let payload = self.payload();
        let size = size_of::<T>();
        let reason = if size == 0 {
            "the type has size 0"
        } else if !payload.len().is_multiple_of(size) {
            "the length is not a multiple of the element size"
        } else if !payload.as_ptr().cast::<T>().is_aligned() {
            "the payload is not aligned for the type"
        } else {
            return Ok(bytemuck::cast_slice(payload));
        };
        Err(StoreError::PayloadLayout {
            path: self.path.clone(),
            type_name: std::any::type_name::<T>(),
            len: payload.len(),
            reason,
        })
    }

    /// The file's checksum, the hash of its chunk hashes.
    pub fn checksum(&self) -> Checksum {
        self.layout.checksum
    }

    /// The path the file was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// What [`verify`] found in a sound store file.
#[derive(Clone, Debug)]
pub struct VerifyReport {
    /// The kind of file.
    pub kind: String,
    /// The writer's metadata.
    pub metadata: serde_json::Value,
    /// Payload length in bytes.
    pub payload_len: u64,
    /// Bytes covered by each chunk hash.
    pub chunk_size: u32,
    /// Number of chunk hashes.
    pub chunk_count: u64,
    /// The hash of the chunk hashes.
    pub checksum: Checksum,
}

/// Checks a store file of any kind as thoroughly as [`StoreFile::open`] does and says
/// what it holds.
///
/// # Safety
/// As for [`StoreFile::open`], while the check runs.
pub unsafe fn verify(path: &Path) -> Result<VerifyReport, StoreError> {
    // SAFETY: the caller keeps the file unchanged while the map lives.
    let map = unsafe { map_file(path)? };
    let layout = validate(&map, path, None)?;
    Ok(VerifyReport {
        payload_len: layout.payload.len() as u64,
        chunk_count: chunk_count(layout.payload.len() as u64, layout.chunk_size),
        kind: layout.kind,
        metadata: layout.metadata,
        chunk_size: layout.chunk_size,
        checksum: layout.checksum,
    })
}

/// Whether store files are read into this process's memory instead of mapped
/// ([`hold_files_in_memory`]).
static IN_MEMORY: AtomicBool = AtomicBool::new(false);

/// From now on, every store file this process opens is read into memory of its own
/// instead of mapped: a file truncated or rewritten in place afterwards (what `cp` over it
/// does) then changes nothing the process holds, where a mapping would stop it with a bus
/// error. For long-lived processes that serve others (`yz serve`); a solve keeps mapping,
/// since it reads far more than it could hold.
pub fn hold_files_in_memory() {
    IN_MEMORY.store(true, Ordering::Relaxed);
}

/// Maps the regular file at `path`, or reads it into anonymous memory after
/// [`hold_files_in_memory`].
///
/// # Safety
/// The file must stay unchanged while the map lives ([`StoreFile::open`]).
pub(super) unsafe fn map_file(path: &Path) -> Result<Mmap, StoreError> {
    check_regular(path)?;
    let io = |action| move |source| StoreError::Io { path: path.to_owned(), action, source };
    let mut file = File::open(path).map_err(io("open"))?;
    if IN_MEMORY.load(Ordering::Relaxed) {
        let len = file.metadata().map_err(io("stat"))?.len() as usize;
        let mut held = MmapMut::map_anon(len.max(1)).map_err(io("allocate memory for"))?;
        file.read_exact(&mut held[..len]).map_err(io("read"))?;
        return held.make_read_only().map_err(io("protect"));
    }
    // SAFETY: the caller keeps the file unchanged while the map lives.
    unsafe { Mmap::map(&file) }.map_err(io("map"))
}

/// Refuses a path that is not a regular file (after following symbolic links) before it
/// is opened: opening a FIFO blocks until a writer comes.
pub fn check_regular(path: &Path) -> Result<(), StoreError> {
    let meta =
        std::fs::metadata(path).map_err(|source| StoreError::Io { path: path.to_owned(), action: "open", source })?;
    if meta.is_file() {
        return Ok(());
    }
    let what = if meta.is_dir() { "directory" } else { "special file (FIFO, socket or device)" };
    Err(StoreError::NotARegularFile { path: path.to_owned(), what })
}

/// The kind a store file's header names and, where it reads, its metadata, without
/// checking any hash: what a damaged file was meant to be and for which game, for a
/// message, never to read it by. `None` where its first bytes are not those of a store
/// file of this format version, or the kind is not there.
pub fn peek(path: &Path) -> Option<(String, Option<serde_json::Value>)> {
    check_regular(path).ok()?;
    let mut head = Vec::new();
    let fixed = MAGIC.len() + 12;
    let most = fixed + MAX_KIND_LEN + 4 + MAX_METADATA_LEN;
    File::open(path).ok()?.take(most as u64).read_to_end(&mut head).ok()?;
    let word = |at: usize| head.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let (mark, version, len) = (word(MAGIC.len())?, word(MAGIC.len() + 4)?, word(MAGIC.len() + 8)?);
    let known = mark == BYTE_ORDER_MARK as usize && version == FORMAT_VERSION as usize;
    if !head.starts_with(&MAGIC) || !known || len > MAX_KIND_LEN {
        return None;
    }
    let kind = String::from_utf8(head.get(fixed..fixed + len)?.to_vec()).ok()?;
    let metadata = word(fixed + len)
        .filter(|&m| m <= MAX_METADATA_LEN)
        .and_then(|m| head.get(fixed + len + 4..fixed + len + 4 + m))
        .and_then(|bytes| serde_json::from_slice(bytes).ok());
    Some((kind, metadata))
}

/// Reads a small text file given from outside (a report, a list): a regular file, so a
/// FIFO or a device cannot block or flood the reader, of at most `max_bytes`.
pub fn read_text(path: &Path, max_bytes: u64) -> Result<String, StoreError> {
    check_regular(path)?;
    let io = |action| move |source| StoreError::Io { path: path.to_owned(), action, source };
    let len = std::fs::metadata(path).map_err(io("stat"))?.len();
    if len > max_bytes {
        return Err(StoreError::TooLarge { path: path.to_owned(), len, max: max_bytes });
    }
    // A file may hold more than its stated size (procfs states 0): read one byte past the
    // limit at most.
    let mut text = String::new();
    let file = File::open(path).map_err(io("open"))?;
    file.take(max_bytes + 1).read_to_string(&mut text).map_err(io("read"))?;
    if text.len() as u64 > max_bytes {
        return Err(StoreError::TooLarge { path: path.to_owned(), len: text.len() as u64, max: max_bytes });
    }
    Ok(text)
}

/// Where things are in a checked file, and what its header says.
#[derive(Debug)]
pub(super) struct Layout {
    kind: String,
    pub(super) metadata: serde_json::Value,
    chunk_size: u32,
    pub(super) payload: Range<usize>,
    checksum: Checksum,
}

/// Checks a whole file's bytes; `expected_kind: None` accepts any kind.
pub(super) fn validate(bytes: &[u8], path: &Path, expected_kind: Option<&str>) -> Result<Layout, StoreError> {
    Checked { bytes, path, metadata_limit: MAX_METADATA_LEN }.validate(expected_kind)
}

/// Checks a file's header, its kind and its length, but none of its chunks: for a reader
/// of one part of a large file that checks what it reads by hashes of its own
/// ([`super::PartsFile`]).
pub(super) fn validate_header(
    bytes: &[u8],
    path: &Path,
    expected_kind: &str,
    metadata_limit: usize,
) -> Result<Layout, StoreError> {
    let checked = Checked { bytes, path, metadata_limit: metadata_limit.min(MAX_METADATA_LEN) };
    let (layout, _) = checked.header()?;
    checked.kind(&layout, Some(expected_kind))?;
    Ok(layout)
}

/// A file's bytes being checked, its path for error messages, and the most metadata its
/// kind may hold.
struct Checked<'a> {
    bytes: &'a [u8],
    path: &'a Path,
    metadata_limit: usize,
}

impl<'a> Checked<'a> {
    /// Checks the whole file; `expected_kind: None` accepts any kind.
    fn validate(&self, expected_kind: Option<&str>) -> Result<Layout, StoreError> {
        let (layout, hashes) = self.header()?;
        self.kind(&layout, expected_kind)?;
        self.chunks(&layout, hashes)?;
        Ok(layout)
    }

    /// Checks that the file is of `expected_kind` (any kind for `None`).
    fn kind(&self, layout: &Layout, expected_kind: Option<&str>) -> Result<(), StoreError> {
        match expected_kind {
            Some(expected) if expected != layout.kind => Err(StoreError::KindMismatch {
                path: self.path.to_owned(),
                expected: expected.to_owned(),
                found: layout.kind.clone(),
            }),
            _ => Ok(()),
        }
    }

    /// Checks everything up to and including the file length; returns the layout and the
    /// range of the chunk hashes.
    fn header(&self) -> Result<(Layout, Range<usize>), StoreError> {
        let bytes = self.bytes;
        let prefix = &bytes[..bytes.len().min(MAGIC.len())];
        if prefix != &MAGIC[..prefix.len()] {
            return Err(StoreError::NotAStoreFile { path: self.path.to_owned() });
        }

        let mut cursor = Cursor { checked: self, pos: 0 };
        cursor.take(MAGIC.len())?;
        let mark = cursor.u32()?;
        if mark == BYTE_ORDER_MARK.swap_bytes() {
            return Err(StoreError::ByteOrder { path: self.path.to_owned() });
        } else if mark != BYTE_ORDER_MARK {
            return Err(self.corrupted(format!("byte-order mark is {mark:#010x}")));
        }
        let version = cursor.u32()?;
        if version != FORMAT_VERSION {
            return Err(StoreError::VersionMismatch {
                path: self.path.to_owned(),
                expected: FORMAT_VERSION,
                found: version,
            });
        }

        // Cap lengths before using them, so a damaged length reads as a damaged header.
        let kind_len = cursor.u32()? as usize;
        if kind_len > MAX_KIND_LEN {
            return Err(self.corrupted(format!("kind length {kind_len} exceeds {MAX_KIND_LEN}")));
        }
        let kind = cursor.take(kind_len)?;
        let metadata_len = cursor.u32()? as usize;
        if metadata_len > self.metadata_limit {
            let limit = self.metadata_limit;
            return Err(self.corrupted(format!("metadata length {metadata_len} exceeds the {limit} bytes of its kind")));
        }
        let metadata = cursor.take(metadata_len)?;
        let payload_len = cursor.u64()?;
        let chunk_size = cursor.u32()?;
        let chunks = cursor.u64()?;
        let hashed = cursor.pos;
        let header_hash = cursor.u64()?;
        if xxh3_64(&bytes[..hashed]) != header_hash {
            return Err(self.corrupted("header hash mismatch".to_owned()));
        }
        if chunk_size == 0 {
            return Err(self.corrupted("chunk size is 0".to_owned()));
        }
        if chunks != chunk_count(payload_len, chunk_size) {
            return Err(
                self.corrupted(format!("{chunks} chunks cannot cover {payload_len} bytes in chunks of {chunk_size}"))
            );
        }

        // The header is intact, so its lengths say how long the file must be.
        let payload_start = cursor.pos.next_multiple_of(PAYLOAD_ALIGN);
        let expected = (payload_start as u64)
            .saturating_add(payload_len)
            .saturating_add(chunks.saturating_mul(8))
            .saturating_add(8);
        let found = bytes.len() as u64;
        if expected != found {
            return Err(StoreError::Truncated { path: self.path.to_owned(), expected, found });
        }
        // From here on every offset is within the file, so every cast to usize is exact.
        if bytes[cursor.pos..payload_start].iter().any(|&byte| byte != 0) {
            return Err(self.corrupted("padding after the header is not zero".to_owned()));
        }
        let kind = std::str::from_utf8(kind).map_err(|_| self.corrupted("kind is not UTF-8".to_owned()))?.to_owned();
        let metadata = serde_json::from_slice(metadata)
            .map_err(|err| self.corrupted(format!("metadata is not valid JSON: {err}")))?;

        let payload = payload_start..payload_start + payload_len as usize;
        let hashes = payload.end..payload.end + 8 * chunks as usize;
        let checksum = Checksum(le_u64(&bytes[hashes.end..]));
        Ok((Layout { kind, metadata, chunk_size, payload, checksum }, hashes))
    }

    /// Checks the chunk hash table against the hash of hashes, then every chunk against
    /// its hash.
    fn chunks(&self, layout: &Layout, hashes: Range<usize>) -> Result<(), StoreError> {
        let hashes = &self.bytes[hashes];
        if Checksum(xxh3_64(hashes)) != layout.checksum {
            return Err(StoreError::ChecksumMismatch { path: self.path.to_owned() });
        }
        let bad = self.bytes[layout.payload.clone()]
            .par_chunks(layout.chunk_size as usize)
            .zip(hashes.par_chunks_exact(8))
            .position_first(|(chunk, hash)| xxh3_64(chunk) != le_u64(hash));
        match bad {
            Some(chunk) => Err(StoreError::ChunkCorrupted { path: self.path.to_owned(), chunk: chunk as u64 }),
            None => Ok(()),
        }
    }

    fn corrupted(&self, detail: String) -> StoreError {
        StoreError::HeaderCorrupted { path: self.path.to_owned(), detail }
    }
}

/// Reads header fields in order, reporting a file that ends too soon as truncated.
struct Cursor<'c, 'a> {
    checked: &'c Checked<'a>,
    pos: usize,
}

impl<'a> Cursor<'_, 'a> {
    fn take(&mut self, len: usize) -> Result<&'a [u8], StoreError> {
        let bytes = self.checked.bytes;
        match bytes.get(self.pos..).and_then(|rest| rest.get(..len)) {
            Some(taken) => {
                self.pos += len;
                Ok(taken)
            }
            None => Err(StoreError::Truncated {
                path: self.checked.path.to_owned(),
                expected: self.pos as u64 + len as u64,
                found: bytes.len() as u64,
            }),
        }
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], StoreError> {
        let mut array = [0; N];
        array.copy_from_slice(self.take(N)?);
        Ok(array)
    }

    fn u32(&mut self) -> Result<u32, StoreError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, StoreError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
}

/// Reads a little-endian u64 from the first 8 bytes of `bytes`, which has at least 8.
fn le_u64(bytes: &[u8]) -> u64 {
    let mut array = [0; 8];
    array.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(array)
}
