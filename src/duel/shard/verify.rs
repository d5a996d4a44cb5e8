//! A table directory checked file by file, as `yz shard verify` and `yz duel solve
//! --resume` do: the manifest, then every shard it lists recomputed from its bytes; and the
//! digest of every layer, to compare tables solved in other ways.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::ShardError;
use super::format::{Column, MANIFEST_FILE, SHARD_KIND, ShardEntry, ShardHeader, linked, read_shard};
use super::format::{decode_values, header_problem, open_shard_file, parse_shard_file, stray_draw, stray_value};
use super::manifest::listed_names;
use super::manifest::{Listed, MANIFEST_KIND, Manifest};
use crate::duel::cards::Cards;
use crate::duel::layout::LayerShape;
use crate::duel::space::Space;
use crate::game::Game;
use crate::store::{self, Identity, StoreError, StoreFile};

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

    /// What to do about the bad files, in a sentence, if any is bad: where the manifest is
    /// sound, the exact command that repairs them ([`repair_command`]: a resume takes the
    /// game from the manifest, checks every shard and recomputes the bad ones from the
    /// layer above; with `--no-draws` where a draw shard is bad, as draws cannot be
    /// recomputed); where it is not, a solve afresh. None without a manifest at all.
    pub fn remedy(&self) -> Option<String> {
        let name = |f: &FileCheck| f.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let bad: Vec<String> = self.problems().map(name).collect();
        // Without a manifest, this is no table directory: the problem says so.
        if bad.is_empty() || !self.dir.join(MANIFEST_FILE).exists() {
            return None;
        }
        if self.game.is_none() || bad.iter().any(|name| name == MANIFEST_FILE) {
            return Some(format!(
                "no resume repairs a missing or damaged {MANIFEST_FILE}: solve the tables afresh with `yz duel solve \
                 --force --out {}` and the game's flags",
                crate::sys::shell_word(&self.dir)
            ));
        }
        let draws = bad.iter().any(|name| parse_shard_file(name).is_some_and(|(_, column, _)| column == Column::Draw));
        Some(format!(
            "`{}` checks every shard and recomputes the bad ones from the layer above{}",
            repair_command(&self.dir, draws),
            if draws { " (draw shards cannot be recomputed: the tables then carry no P(draw))" } else { "" }
        ))
    }
}

/// `yz duel solve --resume --out DIR` (with `--no-draws` where `no_draws`), `DIR` quoted
/// for a shell where it needs it: the command that continues or repairs the tables in
/// `dir`, whatever their game ([`crate::duel::sweep::resumed_game`]).
pub fn repair_command(dir: &Path, no_draws: bool) -> String {
    format!("yz duel solve --resume{} --out {}", if no_draws { " --no-draws" } else { "" }, crate::sys::shell_word(dir))
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
            ShardError::Store(error) => error.fault(),
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
/// manifest (the whole directory, see [`verify_tables`]). Whatever is wrong with it (damage,
/// another kind of file) is a problem of its [`FileCheck`].
pub fn verify_file(path: &Path) -> TableCheck {
    // SAFETY: yz replaces store files by rename and never writes one in place.
    let report = unsafe { store::verify(path) };
    let dir = path.parent().unwrap_or(Path::new(".")).to_owned();
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match &report {
        Ok(report) if report.kind == MANIFEST_KIND.name => return verify_tables(&dir),
        Err(_) if name == MANIFEST_FILE => return verify_tables(&dir),
        _ => {}
    }
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
                    Err(error) => (None, Some(error.fault())),
                };
                FileCheck {
                    path: path.to_owned(),
                    layer: header.map(|h| h.layer),
                    checksum: report.as_ref().ok().map(|r| r.checksum.to_string()),
                    problem,
                }
            }
        };
    let unlisted = if listed.is_none() { vec![name] } else { Vec::new() };
    TableCheck {
        dir,
        game: manifest.as_ref().map(|m| m.identity.clone()),
        layers: manifest.as_ref().map_or(0, |m| m.layers.len()),
        complete: manifest.as_ref().is_some_and(|m| m.complete),
        files: vec![file],
        unlisted,
        temporary: Vec::new(),
    }
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
                error => error.fault(),
            });
            return check;
        }
    };
    check.checksum = Some(file.checksum().to_string());
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    check.problem = if let Err(error) = SHARD_KIND.check(&path, file.metadata(), Some(game)) {
        Some(error.to_string())
    } else if let Some(problem) = header_problem(&file, layer, entry, opponents, column) {
        Some(problem)
    } else if bytes != entry.bytes {
        Some(format!("{bytes} bytes but the manifest lists {}", entry.bytes))
    } else {
        // SAFETY: as above.
        let value_file = (listed.value_file())
            .filter(|name| linked(dir, name).is_none())
            .and_then(|name| unsafe { open_shard_file(&dir.join(name)) }.ok());
        check_payload(file.payload(), layer, entry, value_file.as_ref().map(StoreFile::payload))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::shard::format::tests::written;
    use crate::store::Checksum;

    /// Every way an entry can disagree with the shard it names is found by the reader and
    /// by `shard verify` alike, in the same words.
    #[test]
    fn readers_and_verify_name_a_lying_entry_alike() {
        let dir = tempfile::tempdir().unwrap();
        let (game, shape, _, entry, _) = written(dir.path());
        type Lie = fn(&mut ShardEntry);
        let lies: [(&str, Lie); 3] = [
            ("movers", |e| e.mover_end += 1),
            ("positions", |e| e.positions -= 1),
            ("checksum", |e| e.checksum = Checksum(e.checksum.0 ^ 1)),
        ];
        for (what, lie) in lies {
            let mut told = entry.clone();
            lie(&mut told);
            let read = read_shard(dir.path(), game, &shape, (0, &told), Column::Value).unwrap_err().to_string();
            let listed = Listed { layer: 3, column: Column::Value, index: 0, entry: &told, values: None };
            let verified = verify_listed(dir.path(), game, &listed, shape.opponents.len());
            let problem = verified.problem.unwrap_or_else(|| panic!("{what}: shard verify found nothing"));
            assert!(read.contains(&problem), "{what}: the reader says {read:?}, shard verify {problem:?}");
        }
    }
}
