//! Writing store files: to a temporary name, synced, then renamed into place.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use xxhash_rust::xxh3::{Xxh3Default, xxh3_64};

use super::{
    BYTE_ORDER_MARK, CHUNK_SIZE, Checksum, FORMAT_VERSION, MAGIC, MAX_KIND_LEN, MAX_METADATA_LEN, PAYLOAD_ALIGN,
    StoreError, chunk_count,
};

/// Writes a whole store file atomically and returns its checksum.
///
/// The file appears at `path` complete or not at all: it is written under a temporary
/// name in the same directory, synced, renamed over `path` (replacing any old file) and
/// the directory is synced. Missing parent directories are created. For a payload that
/// is not one contiguous slice, use [`StoreWriter`].
pub fn write_atomic(
    path: &Path,
    kind: &str,
    metadata: &serde_json::Value,
    payload: &[u8],
) -> Result<Checksum, StoreError> {
    write_atomic_with(path, kind, metadata, payload, Durability::Synced)
}

/// When a written file reaches the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Before the write returns: the file and its directory are synced, two disk flushes
    /// per file.
    Synced,
    /// At the writer's next [`sync_batch`]: for many small files (a layer's shards), which
    /// would otherwise cost two flushes each. Until then a crash may lose the file or leave
    /// it empty under its final name, so nothing may refer to it (a manifest may not list
    /// it) before the batch is synced.
    Batched,
}

/// [`write_atomic`] with a choice of [`Durability`].
pub fn write_atomic_with(
    path: &Path,
    kind: &str,
    metadata: &serde_json::Value,
    payload: &[u8],
    durability: Durability,
) -> Result<Checksum, StoreError> {
    let mut writer = StoreWriter::create(path, kind, metadata, payload.len() as u64)?;
    writer.write_payload(payload)?;
    writer.finish_with(durability)
}

/// Makes every file written with [`Durability::Batched`] in `dir` durable, with their
/// renames: on Linux one `syncfs` of the file system holding `dir` (which flushes it
/// whole), elsewhere a sync of each of `files` and of `dir`.
pub fn sync_batch(dir: &Path, files: &[PathBuf]) -> Result<(), StoreError> {
    #[cfg(target_os = "linux")]
    {
        let _ = files;
        let handle = File::open(dir).map_err(io_error(dir, "open directory"))?;
        crate::sys::sync_file_system(&handle).map_err(io_error(dir, "sync file system"))
    }
    #[cfg(not(target_os = "linux"))]
    {
        for file in files {
            File::open(file).and_then(|f| f.sync_all()).map_err(io_error(file, "sync"))?;
        }
        sync_dir(dir)
    }
}

/// Writes a text file (a game record) atomically, as [`write_atomic`] writes a store file:
/// a temporary name in the same directory, synced, renamed over `path`, the directory
/// synced.
pub fn write_text_atomic(path: &Path, text: &str) -> Result<(), StoreError> {
    let name = path.file_name().ok_or_else(|| StoreError::Io {
        path: path.to_owned(),
        action: "name",
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"),
    })?;
    check_replaceable(path)?;
    let (mut file, tmp_path) = create_temp(parent_dir(path), name)?;
    let written = (|| {
        file.write_all(text.as_bytes()).map_err(io_error(&tmp_path, "write"))?;
        file.sync_all().map_err(io_error(&tmp_path, "sync"))?;
        fs::rename(&tmp_path, path).map_err(io_error(path, "rename into place"))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp_path);
    }
    written?;
    sync_dir(parent_dir(path))
}

/// Writes a store file whose payload arrives in pieces, so a payload of many gigabytes
/// need not sit in one buffer.
///
/// The payload length is declared up front because the header precedes the payload.
/// Nothing appears at the target path until [`finish`](Self::finish) succeeds; a writer
/// dropped before that, or after an error, removes its temporary file.
pub struct StoreWriter {
    path: PathBuf,
    tmp_path: PathBuf,
    /// `None` once finished or after a failed write.
    out: Option<BufWriter<File>>,
    renamed: bool,
    payload_len: u64,
    written: u64,
    chunk_size: u32,
    chunk_filled: u32,
    chunk_hasher: Box<Xxh3Default>,
    /// Little-endian hashes of the completed chunks.
    chunk_hashes: Vec<u8>,
}

/// Makes temporary names unique among the writers of one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Tries at a fresh temporary name before giving up: names already taken are another
/// writer's, or planted.
const TEMP_ATTEMPTS: u32 = 64;

/// Creates a temporary file for `name` in `dir`, at a name no file or link holds yet
/// (`O_CREAT | O_EXCL`, which never follows a link), so that a link planted at a temporary
/// name cannot turn the write onto another file. The names' numbers start at a random
/// point of each process, so that they cannot be foreseen either.
fn create_temp(dir: &Path, name: &std::ffi::OsStr) -> Result<(File, PathBuf), StoreError> {
    let start = *temp_start();
    let mut last = None;
    for _ in 0..TEMP_ATTEMPTS {
        let tmp_path = dir.join(temp_name(name, start.wrapping_add(TEMP_COUNTER.fetch_add(1, Ordering::Relaxed))));
        match OpenOptions::new().write(true).create_new(true).open(&tmp_path) {
            Ok(file) => return Ok((file, tmp_path)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some((tmp_path, e)),
            Err(e) => return Err(io_error(&tmp_path, "create")(e)),
        }
    }
    let (tmp_path, e) = last.expect("at least one attempt");
    Err(io_error(&tmp_path, "create (every temporary name tried is taken)")(e))
}

/// Where this process's temporary names start counting: random, drawn once.
fn temp_start() -> &'static u64 {
    use std::hash::{BuildHasher, Hasher};
    static START: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    START.get_or_init(|| std::collections::hash_map::RandomState::new().build_hasher().finish() >> 16)
}

/// Refuses to replace what is at `path` unless it is a regular file (or nothing): a
/// rename over a device, FIFO, socket or directory would put a file in its place.
fn check_replaceable(path: &Path) -> Result<(), StoreError> {
    match fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Err(StoreError::InvalidInput {
            path: path.to_owned(),
            reason: "it exists and is not a regular file (a directory, device, FIFO or socket); \
                     give the path of a file to write"
                .to_owned(),
        }),
        _ => Ok(()),
    }
}

/// The temporary name of `name` for this process's writer number `n`: hidden, and never a
/// name a reader looks for.
fn temp_name(name: &std::ffi::OsStr, n: u64) -> String {
    format!(".{}.tmp.{}.{n}", name.to_string_lossy(), std::process::id())
}

/// Whether `name` is the temporary name of some writer (of any process): exactly
/// `.NAME.tmp.PID.N`, so that a user's `.notes.tmp.backup` is never taken for one.
pub fn is_temp_name(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mut parts = name.rsplitn(3, '.');
    let (n, pid, rest) = (parts.next(), parts.next(), parts.next());
    name.starts_with('.')
        && n.is_some_and(digits)
        && pid.is_some_and(digits)
        && rest.and_then(|r| r.strip_suffix(".tmp")).is_some_and(|base| base.len() > 1)
}

/// Removes the temporary files that writers killed before their rename left in `dir`, and
/// returns their names. Only for a directory no other writer is using at the time (a solve
/// starting or resuming in its table directory): a live writer's file would go too.
pub fn remove_stale_temp_files(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut removed = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_temp_name(&name) && entry.file_type()?.is_file() {
            fs::remove_file(entry.path())?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}

/// How long a dead writer's temporary file must have been left untouched before
/// [`remove_dead_temp_files`] takes it: a writer on another host sharing the directory,
/// whose process this host cannot see, writes more often than that.
const DEAD_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the temporary files of `path` (`.NAME.tmp.PID.N` beside it) that writers killed
/// before their rename left, and returns their names: a killed solve of a large table
/// would otherwise leave hundreds of MB for good. A file is taken only if its process is
/// gone from this host and it has not been written for a minute, so a live writer's file
/// stays, even beside concurrent writers.
pub fn remove_dead_temp_files(path: &Path) -> std::io::Result<Vec<String>> {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else { return Ok(Vec::new()) };
    let prefix = format!(".{name}.tmp.");
    let mut removed = Vec::new();
    for entry in fs::read_dir(parent_dir(path))? {
        let entry = entry?;
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = file.strip_prefix(&prefix).and_then(|rest| rest.split('.').next()) else { continue };
        let (Ok(pid), true) = (pid.parse::<i32>(), is_temp_name(&file)) else { continue };
        let meta = entry.metadata()?;
        let idle = meta.modified().ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age >= DEAD_TEMP_AGE);
        if meta.is_file() && idle && !crate::sys::process_runs(pid) {
            fs::remove_file(entry.path())?;
            removed.push(file);
        }
    }
    Ok(removed)
}

impl StoreWriter {
    /// Starts writing a store file of `kind` whose payload will be exactly `payload_len`
    /// bytes, creating missing parent directories of `path`.
    pub fn create(
        path: &Path,
        kind: &str,
        metadata: &serde_json::Value,
        payload_len: u64,
    ) -> Result<StoreWriter, StoreError> {
        StoreWriter::create_with_chunk_size(path, kind, metadata, payload_len, CHUNK_SIZE)
    }

    /// [`create`](Self::create) with another chunk size; tests use small ones to get
    /// many chunks cheaply.
    pub(super) fn create_with_chunk_size(
        path: &Path,
        kind: &str,
        metadata: &serde_json::Value,
        payload_len: u64,
        chunk_size: u32,
    ) -> Result<StoreWriter, StoreError> {
        let header = encode_prelude(path, kind, metadata, payload_len, chunk_size)?;
        let Some(name) = path.file_name() else {
            return Err(StoreError::InvalidInput {
                path: path.to_owned(),
                reason: "the path does not name a file".into(),
            });
        };

        let dir = parent_dir(path);
        fs::create_dir_all(dir).map_err(io_error(dir, "create directory"))?;
        check_replaceable(path)?;
        let (file, tmp_path) = create_temp(dir, name)?;

        // Build the writer before writing anything, so that its drop removes the file.
        let mut writer = StoreWriter {
            path: path.to_owned(),
            tmp_path,
            // A small file's buffer is its size: a megabyte for each of many small shards
            // would be mapped and unmapped each time.
            out: Some(BufWriter::with_capacity(payload_len.saturating_add(1 << 12).min(1 << 20) as usize, file)),
            renamed: false,
            payload_len,
            written: 0,
            chunk_size,
            chunk_filled: 0,
            chunk_hasher: Box::new(Xxh3Default::new()),
            chunk_hashes: Vec::new(),
        };
        writer.write_raw(&header)?;
        Ok(writer)
    }

    /// Appends the next piece of the payload.
    ///
    /// Fails, writing nothing, if the payload would exceed the declared length.
    pub fn write_payload(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        let total = self.written.checked_add(bytes.len() as u64);
        if total.is_none_or(|total| total > self.payload_len) {
            return Err(self.invalid(format!(
                "the payload was declared as {} bytes, but {} + {} bytes were given",
                self.payload_len,
                self.written,
                bytes.len()
            )));
        }
        self.write_raw(bytes)?;
        self.written += bytes.len() as u64;

        let mut rest = bytes;
        while !rest.is_empty() {
            let room = (self.chunk_size - self.chunk_filled) as usize;
            let (now, later) = rest.split_at(room.min(rest.len()));
            self.chunk_hasher.update(now);
            self.chunk_filled += now.len() as u32;
            if self.chunk_filled == self.chunk_size {
                self.end_chunk();
            }
            rest = later;
        }
        Ok(())
    }

    /// Writes the chunk hashes, syncs the file, renames it into place, syncs the
    /// directory and returns the checksum.
    ///
    /// Fails if fewer payload bytes were written than declared.
    pub fn finish(self) -> Result<Checksum, StoreError> {
        self.finish_with(Durability::Synced)
    }

    /// [`finish`](Self::finish), syncing now or leaving it to a [`sync_batch`].
    pub fn finish_with(mut self, durability: Durability) -> Result<Checksum, StoreError> {
        if self.written != self.payload_len {
            return Err(self.invalid(format!(
                "the payload was declared as {} bytes, but only {} were written",
                self.payload_len, self.written
            )));
        }
        if self.chunk_filled > 0 {
            self.end_chunk();
        }
        debug_assert_eq!(self.chunk_hashes.len() as u64, 8 * chunk_count(self.payload_len, self.chunk_size));
        let (checksum, trailer) = trailer(std::mem::take(&mut self.chunk_hashes));
        self.write_raw(&trailer)?;

        let out = self.out.take().ok_or_else(|| self.broken())?;
        {
            // Closed at the end of this block, before the rename.
            let file = out.into_inner().map_err(|err| io_error(&self.tmp_path, "write")(err.into_error()))?;
            if durability == Durability::Synced {
                file.sync_all().map_err(io_error(&self.tmp_path, "sync"))?;
            }
        }
        fs::rename(&self.tmp_path, &self.path).map_err(io_error(&self.path, "rename into place"))?;
        self.renamed = true;
        if durability == Durability::Synced {
            sync_dir(parent_dir(&self.path))?;
        }

        tracing::debug!(path = %self.path.display(), %checksum, bytes = self.payload_len, "wrote store file");
        Ok(checksum)
    }

    fn end_chunk(&mut self) {
        self.chunk_hashes.extend_from_slice(&self.chunk_hasher.digest().to_le_bytes());
        self.chunk_hasher.reset();
        self.chunk_filled = 0;
    }

    /// Writes bytes to the temporary file; after a failure the writer refuses further
    /// work, since the file's contents are unknown.
    fn write_raw(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        let Some(out) = self.out.as_mut() else {
            return Err(self.broken());
        };
        if let Err(err) = out.write_all(bytes) {
            self.out = None;
            return Err(io_error(&self.tmp_path, "write")(err));
        }
        Ok(())
    }

    fn broken(&self) -> StoreError {
        self.invalid("an earlier write to it failed".to_owned())
    }

    fn invalid(&self, reason: String) -> StoreError {
        StoreError::InvalidInput { path: self.path.clone(), reason }
    }
}

impl Drop for StoreWriter {
    fn drop(&mut self) {
        if !self.renamed {
            // Close the file before removing it; this is cleanup, so errors are moot.
            self.out = None;
            let _ = fs::remove_file(&self.tmp_path);
        }
    }
}

/// A whole store file's bytes in memory, as [`write_atomic`] would write them to a file:
/// for a program with no file system (the web app keeps its solved tables this way).
pub fn encode(kind: &str, metadata: &serde_json::Value, payload: &[u8]) -> Result<Vec<u8>, StoreError> {
    let label = Path::new("(in memory)");
    let mut bytes = encode_prelude(label, kind, metadata, payload.len() as u64, CHUNK_SIZE)?;
    bytes.extend_from_slice(payload);
    let hashes = payload.chunks(CHUNK_SIZE as usize).flat_map(|chunk| xxh3_64(chunk).to_le_bytes()).collect();
    bytes.extend_from_slice(&trailer(hashes).1);
    Ok(bytes)
}

/// Checks a file's kind, metadata and chunk size against the limits, then encodes its
/// header ([`encode_header`]); `path` names the file in errors.
fn encode_prelude(
    path: &Path,
    kind: &str,
    metadata: &serde_json::Value,
    payload_len: u64,
    chunk_size: u32,
) -> Result<Vec<u8>, StoreError> {
    super::check_host(path, cfg!(target_endian = "big"))?;
    let invalid = |reason: String| StoreError::InvalidInput { path: path.to_owned(), reason };
    if kind.len() > MAX_KIND_LEN {
        return Err(invalid(format!("kind is {} bytes long, the limit is {MAX_KIND_LEN}", kind.len())));
    }
    let metadata =
        serde_json::to_vec(metadata).map_err(|err| invalid(format!("metadata cannot be serialized: {err}")))?;
    if metadata.len() > MAX_METADATA_LEN {
        return Err(invalid(format!("metadata is {} bytes of JSON, the limit is {MAX_METADATA_LEN}", metadata.len())));
    }
    if chunk_size == 0 {
        return Err(invalid("chunk size must not be 0".to_owned()));
    }
    Ok(encode_header(kind, &metadata, payload_len, chunk_size))
}

/// Everything after the payload, from the chunks' hashes (little-endian): the hashes, then
/// the hash of the hashes, which is the file's checksum.
fn trailer(mut chunk_hashes: Vec<u8>) -> (Checksum, Vec<u8>) {
    let checksum = Checksum(xxh3_64(&chunk_hashes));
    chunk_hashes.extend_from_slice(&checksum.0.to_le_bytes());
    (checksum, chunk_hashes)
}

/// Everything before the payload: the header fields, the header hash and the padding.
fn encode_header(kind: &str, metadata: &[u8], payload_len: u64, chunk_size: u32) -> Vec<u8> {
    let mut header = Vec::with_capacity(64 + kind.len() + metadata.len() + PAYLOAD_ALIGN);
    header.extend_from_slice(&MAGIC);
    header.extend_from_slice(&BYTE_ORDER_MARK.to_le_bytes());
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    // Both lengths fit in a u32: the caller checked them against the limits.
    header.extend_from_slice(&(kind.len() as u32).to_le_bytes());
    header.extend_from_slice(kind.as_bytes());
    header.extend_from_slice(&(metadata.len() as u32).to_le_bytes());
    header.extend_from_slice(metadata);
    header.extend_from_slice(&payload_len.to_le_bytes());
    header.extend_from_slice(&chunk_size.to_le_bytes());
    header.extend_from_slice(&chunk_count(payload_len, chunk_size).to_le_bytes());
    let hash = xxh3_64(&header);
    header.extend_from_slice(&hash.to_le_bytes());
    header.resize(header.len().next_multiple_of(PAYLOAD_ALIGN), 0);
    header
}

/// The directory holding `path`; `.` for a bare file name.
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Makes a rename in `dir` durable. Only Unix can sync a directory.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    File::open(dir).and_then(|dir| dir.sync_all()).map_err(io_error(dir, "sync directory"))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

fn io_error(path: &Path, action: &'static str) -> impl FnOnce(std::io::Error) -> StoreError {
    let path = path.to_owned();
    move |source| StoreError::Io { path, action, source }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Links planted at the next temporary names are skipped, never written through: the
    /// files they point at keep their bytes, and the output is a file of its own.
    #[cfg(unix)]
    #[test]
    fn a_planted_link_at_a_temporary_name_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, b"precious").unwrap();
        let out = dir.path().join("record.txt");
        write_text_atomic(&out, "first").unwrap();
        let start = *temp_start();
        let next = TEMP_COUNTER.load(Ordering::Relaxed);
        for n in next..next + 8 {
            let name = temp_name(out.file_name().unwrap(), start.wrapping_add(n));
            std::os::unix::fs::symlink(&victim, dir.path().join(name)).unwrap();
        }
        write_text_atomic(&out, "second").unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        assert!(fs::symlink_metadata(&out).unwrap().file_type().is_file());
        assert_eq!(fs::read_to_string(&out).unwrap(), "second");
    }

    /// A directory or FIFO at the output is refused, left as it was.
    #[cfg(unix)]
    #[test]
    fn an_output_that_is_no_regular_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the NUL-terminated path it is given.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        for path in [fifo.as_path(), dir.path()] {
            let refused = write_text_atomic(path, "x").unwrap_err().to_string();
            assert!(refused.contains("not a regular file"), "{refused}");
            let refused = write_atomic(path, "k", &serde_json::json!({}), b"x").unwrap_err().to_string();
            assert!(refused.contains("not a regular file"), "{refused}");
        }
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }

    /// A killed writer's temporary file (its process gone, untouched for a minute) is
    /// removed; a live writer's, a fresh one and another output's stay.
    #[cfg(unix)]
    #[test]
    fn dead_writers_temporary_files_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("table.yzs");
        let old = std::time::SystemTime::now() - 2 * DEAD_TEMP_AGE;
        let make = |name: &str, when: std::time::SystemTime| {
            let file = File::create(dir.path().join(name)).unwrap();
            file.set_modified(when).unwrap();
        };
        let dead = i32::MAX - 1;
        make(&format!(".table.yzs.tmp.{dead}.7"), old);
        make(&format!(".table.yzs.tmp.{dead}.8"), std::time::SystemTime::now());
        make(&format!(".table.yzs.tmp.{}.9", std::process::id()), old);
        make(&format!(".other.yzs.tmp.{dead}.7"), old);
        make(".table.yzs.tmp.notes", old);
        let removed = remove_dead_temp_files(&out).unwrap();
        assert_eq!(removed, vec![format!(".table.yzs.tmp.{dead}.7")]);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 4);
    }
}
