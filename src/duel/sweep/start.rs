//! Where a solve starts: the table directory locked, a fresh manifest or the one to
//! continue (checked, with every listed shard checked by the ranks), and the damaged
//! shards to repair.

use std::path::Path;
use std::time::Duration;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::options::SolveOptions;
use super::scratch::{ScratchClaim, claim_scratch, lock_dir};
use crate::duel::Space;
use crate::duel::cluster::error::ClusterError;
use crate::duel::cluster::exchange::{gather_then_decide, rank_zero_decides};
use crate::duel::cluster::ranks::Ranks;
use crate::duel::shard::{self, Column, Manifest, ShardError, check_manifest, verify_listed};
use crate::game::{Game, GameFlags};
use crate::store;

/// The manifest to continue: a fresh one (written by rank 0), or with `resume` the one in
/// `dir` after rank 0 checked it and every rank checked a share of its shards; with the
/// directory's lock (rank 0) and the damaged shards to repair. `carries_draws`: whether
/// the solve's values carry P(draw).
pub(super) fn start(
    space: &Space,
    ranks: &impl Ranks,
    dir: &Path,
    SolveOptions { resume, force, shard_positions, stream, .. }: SolveOptions,
    carries_draws: bool,
) -> Result<Start, ClusterError> {
    let (me, size) = (ranks.rank(), ranks.size());
    let game = space.cards().game();
    let fresh = Manifest::new(game, space.first_layer(), space.end_layer(), shard_positions);
    // Rank 0 decides: a manifest to continue, a fresh start, or an error it reports.
    let (mut lock, mut scratch) = (None, None);
    let decide = || -> Result<Manifest, ClusterError> {
        lock = Some(lock_dir(dir, LOCK_WAIT)?);
        // The scratch claimed before anything is decided: a solve refused its scratch
        // touches nothing.
        if let Some(stream) = &stream {
            scratch = Some(claim_scratch(&stream.scratch, dir)?);
        }
        clear_dead_writers(dir);
        match decide(dir, game, &fresh, resume, force)? {
            Decision::Continue(manifest) => Ok(manifest),
            Decision::Fresh => Ok(fresh.write(dir).map(|_| fresh.clone())?),
        }
    };
    let mut manifest = rank_zero_decides(ranks, decide, Manifest::to_bytes, |bytes| {
        Manifest::from_bytes(bytes).map_err(ClusterError::SharedManifest)
    })?;
    // Every rank checks its share of the listed shards; rank 0 collects the problems. A
    // shard that is missing or fails its checks, under a name the manifest may list, is
    // repaired from the layer above; any other problem stops the solve.
    // Damaged draw shards (kept for the last layer only) cannot be recomputed, since the
    // layer above kept none: a solve that carries draws stops and says what to do; one
    // that does not (`carries_draws` false) would drop them anyway, and does.
    let listed = manifest.listed();
    let found: Vec<ShardDamage> = listed
        .par_iter()
        .enumerate()
        .filter(|(i, _)| i % size == me)
        .filter_map(|(_, listed)| {
            let &shard::Listed { layer, column, index, .. } = listed;
            let check = verify_listed(dir, game, listed, space.opponent_count(layer));
            let problem = format!("{}: {}", check.path.display(), check.problem?);
            let repairable =
                shard::linked(dir, &listed.file()).is_none() && (column == Column::Value || !carries_draws);
            Some(ShardDamage { layer, index, column, problem, repairable })
        })
        .collect();
    // Rank 0's verdict: the value shards to repair and whether to drop the draws, or the
    // solve stops with the problems it cannot repair.
    let decide = |all: Vec<Vec<u8>>| -> Result<(Vec<(usize, usize)>, bool), ClusterError> {
        let mut damage: Vec<ShardDamage> = Vec::new();
        for bytes in &all {
            let theirs: Vec<ShardDamage> =
                serde_json::from_slice(bytes).map_err(|source| ClusterError::Record { what: "problems", source })?;
            damage.extend(theirs);
        }
        damage.sort_by_key(|d| (d.layer, d.index));
        if !damage.iter().all(|d| d.repairable) {
            let problems: Vec<String> = damage.iter().filter(|d| !d.repairable).map(|d| d.problem.clone()).collect();
            let draws_lost = damage.iter().any(|d| !d.repairable && d.column == Column::Draw);
            let remedy = draws_lost.then(|| shard::draw_remedy(dir));
            return Err(ShardError::Unsound { dir: dir.to_owned(), problems, remedy }.into());
        }
        for d in &damage {
            match d.column {
                Column::Value => {
                    tracing::warn!(problem = %d.problem, "damaged shard: recomputing it from the layer above")
                }
                Column::Draw => {
                    tracing::warn!(problem = %d.problem, "damaged draw shard dropped: this solve carries no draws")
                }
            }
        }
        let repairs = damage.iter().filter(|d| d.column == Column::Value).map(|d| (d.layer, d.index)).collect();
        Ok((repairs, damage.iter().any(|d| d.column == Column::Draw)))
    };
    let mine = serde_json::to_vec(&found).expect("problems serialise");
    let (repairs, drop_draws) = gather_then_decide(
        ranks,
        mine,
        decide,
        |verdict| serde_json::to_vec(verdict).expect("a verdict serialises"),
        |bytes| serde_json::from_slice(bytes).map_err(|source| ClusterError::Record { what: "verdict", source }),
    )?;
    if drop_draws && let Some(last) = manifest.layers.last_mut() {
        last.draws.clear();
        if me == 0 {
            manifest.write(dir)?;
        }
    }
    if me == 0 {
        let removed = shard::remove_unlisted_draws(dir, &manifest).map_err(ShardError::from)?;
        if !removed.is_empty() {
            tracing::info!(?removed, "removed draw shards the manifest no longer lists");
        }
    }
    Ok(Start { manifest, _lock: lock, scratch, repairs })
}

/// Removes the temporary files that writers killed mid-write (a cancelled or requeued job,
/// or the ranks of a killed `mpirun`, which run on for seconds) left in the table
/// directory `dir`: with the directory locked by rank 0, no live writer of this solve's
/// can be among them. Run where a solve starts and again where it ends, so that finished
/// tables hold nothing else of yz's. A failure to clear is only logged.
pub(super) fn clear_dead_writers(dir: &Path) {
    match store::remove_stale_temp_files(dir) {
        Ok(removed) if !removed.is_empty() => {
            tracing::info!(dir = %dir.display(), ?removed, "removed temporary files of interrupted writers")
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(dir = %dir.display(), error = %e, "cannot clear old temporary files"),
    }
}

/// The game and scope (`--max-empty`, `None` for every position) of the tables a resume
/// into `dir` continues: its manifest's, so that `yz duel solve --resume --out DIR`
/// continues or repairs any tables, as `yz shard verify` advises. Game flags (`flags`) and
/// a `max_empty` given must agree with the manifest, and are refused naming both where
/// they do not. `None` where `dir` holds no manifest (a solve stopped before its first
/// layer): the resume starts afresh, with the game the flags name. A `dir` that does not
/// exist is refused: there is nothing to resume, and the path is likely mistyped.
pub fn resumed_game(
    dir: &Path,
    flags: &GameFlags,
    max_empty: Option<usize>,
) -> Result<Option<(Game, Option<usize>)>, ClusterError> {
    let refuse = |reason: String| ClusterError::Resume { dir: dir.display().to_string(), reason };
    if !dir.exists() {
        return Err(refuse(
            "it does not exist, so there is nothing to resume; check the path (yz shard verify DIR lists what a \
             directory holds), or leave out --resume to start a solve there"
                .to_owned(),
        ));
    }
    if !dir.join(shard::MANIFEST_FILE).exists() {
        return Ok(None);
    }
    let manifest = Manifest::open(dir)?;
    let game = manifest.game().ok_or_else(|| {
        refuse(format!("its {} names no game this yz knows ({:?})", shard::MANIFEST_FILE, manifest.identity))
    })?;
    let held = (manifest.first_layer > 0).then(|| manifest.end_layer - manifest.first_layer);
    let described = |game: Game| format!("the {} rules with boxes {}", game.rules, game.box_names().join(","));
    if !flags.agree_with(game) {
        let named = flags.game().map_or_else(|e| e.to_string(), described);
        return Err(refuse(format!(
            "its {} holds tables of {} ({}), but {flags} names {named}; leave out the game flags to resume the \
             tables' own game",
            shard::MANIFEST_FILE,
            described(game),
            if game.flags().is_empty() { "no game flags".to_owned() } else { game.flags().to_string() }
        )));
    }
    let scope = |k: Option<usize>| k.map_or_else(|| "every position".to_owned(), |k| format!("--max-empty {k}"));
    let first_layer = |k: Option<usize>| k.map_or(0, |k| manifest.end_layer.saturating_sub(k));
    if max_empty.is_some() && first_layer(max_empty) != manifest.first_layer {
        return Err(refuse(format!(
            "its {} holds tables of {} ({}), but {} was given; leave out --max-empty to resume the tables' own",
            shard::MANIFEST_FILE,
            scope(held),
            if held.is_some() {
                "from layer ".to_owned() + &manifest.first_layer.to_string()
            } else {
                "from the start".to_owned()
            },
            scope(max_empty)
        )));
    }
    Ok(Some((game, held)))
}

/// What a solve does with the table directory `dir`, decided by rank 0 before any rank
/// reads it.
#[derive(Debug, PartialEq)]
pub(super) enum Decision {
    /// Start afresh: no manifest there, or (not resuming) tables of the same game and
    /// layers, which the solve overwrites.
    Fresh,
    /// Continue the manifest there (`--resume`), checked against the game and layers.
    Continue(Manifest),
}

/// Decides, from what `dir` holds, whether a solve of `game` whose fresh manifest would be
/// `fresh` continues the tables there (`resume`), starts afresh, or is refused: tables of
/// another game or layers are not overwritten without `force`, and a manifest to resume
/// must open, pass its checks and be of this game and layers. Reads files, writes none.
pub(super) fn decide(
    dir: &Path,
    game: Game,
    fresh: &Manifest,
    resume: bool,
    force: bool,
) -> Result<Decision, ClusterError> {
    let refuse = |reason: String| ClusterError::Resume { dir: dir.display().to_string(), reason };
    let exists = dir.join(shard::MANIFEST_FILE).exists();
    if exists && !resume && !force {
        let there = match Manifest::open(dir) {
            Ok(m)
                if (m.identity == fresh.identity
                    && (m.first_layer, m.end_layer) == (fresh.first_layer, fresh.end_layer)) =>
            {
                None
            }
            Ok(m) => Some(format!(
                "tables of the {} rules with categories {}, layers {}..{}",
                m.identity.rules,
                m.identity.categories.join(","),
                m.first_layer,
                m.end_layer
            )),
            Err(e) => Some(format!("a manifest that does not open ({e})")),
        };
        match there {
            None => Ok(Decision::Fresh),
            Some(what) => Err(ClusterError::Overwrite { dir: dir.display().to_string(), what }),
        }
    } else if resume && exists {
        match check_manifest(dir) {
            (Some(manifest), check) if check.problem.is_none() => {
                if let Err(e) = manifest.check_game(game, dir) {
                    Err(ShardError::from(e).into())
                } else if (manifest.first_layer, manifest.end_layer) != (fresh.first_layer, fresh.end_layer) {
                    Err(refuse(format!(
                        "the tables are of layers {}..{}, but this solve is of layers {}..{}",
                        manifest.first_layer, manifest.end_layer, fresh.first_layer, fresh.end_layer
                    )))
                } else {
                    Ok(Decision::Continue(manifest))
                }
            }
            (_, check) => Err(ShardError::Unsound {
                dir: dir.to_owned(),
                problems: vec![format!("{}: {}", check.path.display(), check.problem.unwrap_or_default())],
                remedy: None,
            }
            .into()),
        }
    } else {
        if resume {
            tracing::info!(dir = %dir.display(), "no manifest to resume from: starting afresh");
        }
        Ok(Decision::Fresh)
    }
}

/// Where a solve starts: what [`start`] found and decided.
pub(super) struct Start {
    /// The manifest to continue.
    pub(super) manifest: Manifest,
    /// The table directory's lock (rank 0), held until the solve ends.
    pub(super) _lock: Option<std::fs::File>,
    /// A streamed solve's scratch directory, claimed by rank 0 until the solve ends.
    pub(super) scratch: Option<ScratchClaim>,
    /// The damaged shards to repair, as (layer, index in the layer).
    pub(super) repairs: Vec<(usize, usize)>,
}

/// A listed shard that failed its checks when a solve resumed.
#[derive(Serialize, Deserialize)]
struct ShardDamage {
    layer: usize,
    /// Its index in the layer.
    index: usize,
    /// What it holds.
    column: Column,
    /// What is wrong, naming the file.
    problem: String,
    /// Whether recomputing it would repair it (its name is one the solve writes).
    repairable: bool,
}

/// How long a solve waits for another writer's lock on its table directory: a killed or
/// requeued job's processes can take a moment to end.
pub(super) const LOCK_WAIT: Duration = Duration::from_secs(30);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;

    fn game(boxes: usize) -> Game {
        Game::first(Rules::OFFICIAL, boxes).unwrap()
    }

    /// Without ranks: a directory without tables starts afresh; tables of the same game
    /// are overwritten or continued; another game's are refused unless forced; a manifest
    /// to resume must be of this game and layers, and sound.
    #[test]
    fn the_start_resume_or_overwrite_decision() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("tables");
        let fresh = Manifest::new(game(4), 0, 8, 100);
        for resume in [false, true] {
            assert_eq!(decide(&dir, game(4), &fresh, resume, false).unwrap(), Decision::Fresh, "no tables");
        }
        std::fs::create_dir_all(&dir).unwrap();
        fresh.write(&dir).unwrap();
        assert_eq!(decide(&dir, game(4), &fresh, false, false).unwrap(), Decision::Fresh, "same tables");
        match decide(&dir, game(4), &fresh, true, false).unwrap() {
            Decision::Continue(manifest) => assert_eq!(manifest.to_bytes(), fresh.to_bytes()),
            other => panic!("{other:?}"),
        }
        // Tables of another game: refused, unless forced; not resumed.
        let other = Manifest::new(game(5), 0, 10, 100);
        assert!(matches!(decide(&dir, game(5), &other, false, false), Err(ClusterError::Overwrite { .. })));
        assert_eq!(decide(&dir, game(5), &other, false, true).unwrap(), Decision::Fresh);
        assert!(decide(&dir, game(5), &other, true, false).is_err(), "another game's manifest is not resumed");
        // The same game over other layers (an endgame's tables) is not resumed.
        let endgame = Manifest::new(game(4), 4, 8, 100);
        assert!(matches!(decide(&dir, game(4), &endgame, true, false), Err(ClusterError::Resume { .. })));
        // A damaged manifest: neither resumed nor silently overwritten.
        std::fs::write(dir.join(shard::MANIFEST_FILE), b"not a manifest").unwrap();
        assert!(matches!(decide(&dir, game(4), &fresh, true, false), Err(ClusterError::Shard(_))));
        assert!(matches!(decide(&dir, game(4), &fresh, false, false), Err(ClusterError::Overwrite { .. })));
        assert_eq!(decide(&dir, game(4), &fresh, false, true).unwrap(), Decision::Fresh);
    }

    /// A resume takes the game and scope of the manifest there, refuses flags that
    /// contradict them, leaves the flags' game where there is no manifest, and refuses a
    /// directory that does not exist.
    #[test]
    fn a_resume_reads_its_game_from_the_manifest() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("tables");
        let none = GameFlags::default();
        let missing = resumed_game(&dir, &none, None).unwrap_err().to_string();
        assert!(missing.contains("nothing to resume"), "{missing}");
        std::fs::create_dir_all(&dir).unwrap();
        assert!(resumed_game(&dir, &none, None).unwrap().is_none(), "no manifest: the flags' game");
        Manifest::new(game(4), 5, 8, 100).write(&dir).unwrap();
        assert_eq!(resumed_game(&dir, &none, None).unwrap(), Some((game(4), Some(3))));
        let four = GameFlags { first: Some(4), ..none.clone() };
        assert_eq!(resumed_game(&dir, &four, Some(3)).unwrap(), Some((game(4), Some(3))));
        let five = GameFlags { first: Some(5), ..none.clone() };
        let refused = resumed_game(&dir, &five, None).unwrap_err().to_string();
        assert!(refused.contains("(--first 4), but --first 5 names"), "{refused}");
        let refused = resumed_game(&dir, &none, Some(4)).unwrap_err().to_string();
        assert!(refused.contains("--max-empty 3") && refused.contains("--max-empty 4 was given"), "{refused}");
        std::fs::write(dir.join(shard::MANIFEST_FILE), b"not a manifest").unwrap();
        assert!(matches!(resumed_game(&dir, &none, None), Err(ClusterError::Shard(_))));
    }
}
