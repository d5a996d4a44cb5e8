//! The layered solve over ranks: compute a share of each layer, exchange, write, resume.

use std::path::Path;

use bytemuck::Pod;

use super::kernel::Kernel;
use super::memory::solve_into_tables;
use super::options::SolveOptions;
use super::outcome::{LayerReport, Outcome};
use super::repair::{REPAIR_BLOCK_BYTES, repair_layer};
use super::shards::read_rows;
use super::start::{Start, clear_dead_writers, start};
use super::stream::solve_streamed;
use crate::duel::cluster::error::ClusterError;
use crate::duel::cluster::exchange::rank_zero_decides;
use crate::duel::cluster::ranks::Ranks;
use crate::duel::shard::{self, Column, Manifest};
use crate::duel::{DuelValue, LayerShape, Space};

/// Solves the layers of `space` from the last one down to `options.stop_after` over
/// `ranks`, writing those from `options.write_from` on as shards and a manifest into
/// `dir`. `progress` sees each layer on rank 0 once it is finished (and written). Every
/// rank must call it with the same arguments.
pub fn solve_tables<V: DuelValue + Pod>(
    space: &Space,
    ranks: &impl Ranks,
    dir: &Path,
    options: SolveOptions,
    mut progress: impl FnMut(&LayerReport),
) -> Result<Outcome<V>, ClusterError> {
    let me = ranks.rank();
    let last = options.stop_after.max(space.first_layer());
    // Rank 0 holds the table directory's lock until the solve ends, and the streamed
    // solve's claim on its scratch, which it releases when the solve finishes.
    let Start { mut manifest, _lock, scratch, repairs: damaged } = start(space, ranks, dir, options.clone(), V::DRAWS)?;
    let mut outcome = Outcome {
        resumed_from: None,
        layers: Vec::new(),
        table_bytes: 0,
        first_value: None,
        repaired: Vec::new(),
        resumed_blocks: 0,
    };
    // Damaged shards are recomputed from the top down, each layer from the one above.
    for layer in damaged.iter().map(|&(layer, _)| layer).collect::<std::collections::BTreeSet<_>>().into_iter().rev() {
        let shards: Vec<usize> = damaged.iter().filter(|d| d.0 == layer).map(|d| d.1).collect();
        let block_bytes = options.stream.as_ref().map_or(REPAIR_BLOCK_BYTES, |stream| stream.budget.per_rank() / 4);
        repair_layer::<V>(space, ranks, dir, &manifest, layer, &shards, block_bytes)?;
        if me == 0 {
            outcome.repaired.extend(shards.iter().map(|&i| shard::shard_file(layer, i, Column::Value)));
        }
    }
    outcome.repaired.sort();
    let kernel = Kernel::open(options.gpu, V::DRAWS, ranks.rank())?;
    outcome.resumed_from = manifest.layers.last().map(|l| l.layer);
    let top = manifest.layers.last().map_or(space.end_layer(), |l| l.layer);
    let streams = |layer: usize| options.stream.as_ref().is_some_and(|s| !s.in_memory.contains(&layer));
    let unwritten = |layer: usize| layer < options.write_from;
    assert!(
        !(last..top).any(|l| unwritten(l) && streams(l)) || (last..top).all(|l| !unwritten(l) || streams(l)),
        "where a layer not written streams, every layer not written must (Stream::in_memory)"
    );
    for (run, (_, bottom, streamed)) in segments((top, last), streams).into_iter().enumerate() {
        // Rank 0 listed the layers of the run before; every rank reads the last one.
        if run > 0 {
            share_manifest(ranks, &mut manifest)?;
        }
        match &options.stream {
            Some(stream) if streamed => {
                let layers = (bottom, options.write_from);
                let streaming = (stream, &kernel);
                solve_streamed(space, ranks, dir, streaming, &mut manifest, layers, &mut outcome, &mut progress)?
            }
            _ => solve_into_tables(
                space,
                ranks,
                dir,
                options.write_from,
                &mut manifest,
                bottom,
                &mut outcome,
                &mut progress,
                &kernel,
            )?,
        }
    }
    // Where the first layer was listed before this run, its first value (row 0's first, as
    // the in-memory solve hands it back) is read from its shards.
    if me == 0 && outcome.first_value.is_none() && last == space.first_layer() && manifest.layer(last).is_some() {
        let shape = LayerShape::new(space, last);
        let entry = manifest.checked_layer(dir, &shape)?;
        outcome.first_value = read_rows::<V>(dir, space, &shape, entry, 0..1)?.first().copied();
    }
    if me == 0 {
        outcome.table_bytes = manifest.listed().iter().map(|l| l.entry.bytes).sum();
        // Every rank of this solve has written its last shard (rank 0 listed it).
        clear_dead_writers(dir);
    }
    if let Some(claim) = scratch {
        claim.release()?;
    }
    Ok(outcome)
}

/// Rank 0's manifest, the one it lists layers in, handed to every rank.
fn share_manifest(ranks: &impl Ranks, manifest: &mut Manifest) -> Result<(), ClusterError> {
    *manifest = rank_zero_decides(
        ranks,
        || Ok(manifest.clone()),
        Manifest::to_bytes,
        |bytes| Manifest::from_bytes(bytes).map_err(ClusterError::SharedManifest),
    )?;
    Ok(())
}

/// The layers below `top` (listed, or the game's end) down to `last` cut into runs solved
/// alike, from the top: each run's top (the layer it reads its first rows from), its
/// lowest layer and whether it streams (`streams`). Every run ends on a layer the next one
/// reads back from its shards.
pub(crate) fn segments((top, last): (usize, usize), streams: impl Fn(usize) -> bool) -> Vec<(usize, usize, bool)> {
    let mut runs: Vec<(usize, usize, bool)> = Vec::new();
    for layer in (last..top).rev() {
        match runs.last_mut() {
            Some(run) if run.2 == streams(layer) => run.1 = layer,
            _ => runs.push((layer + 1, layer, streams(layer))),
        }
    }
    runs
}

impl<V> Outcome<V> {
    /// The same outcome with the first value mapped.
    pub fn map_first<W>(self, f: impl FnOnce(V) -> W) -> Outcome<W> {
        Outcome {
            resumed_from: self.resumed_from,
            layers: self.layers,
            table_bytes: self.table_bytes,
            first_value: self.first_value.map(f),
            repaired: self.repaired,
            resumed_blocks: self.resumed_blocks,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;
    use crate::duel::cluster::ranks::{Alone, threads};
    use crate::duel::sweep::scratch::lock_dir;
    use crate::duel::sweep::stream::Stream;
    use crate::duel::{Cards, WinDraw};
    use crate::game::{Game, Rules};

    fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect()
    }

    /// Solves on the ranks of `group`, one thread each: each rank's result, with the rank.
    fn solve_on_group<V: DuelValue + Pod, R: Ranks + Send>(
        space: &Space,
        group: Vec<R>,
        dir: &Path,
        options: SolveOptions,
    ) -> Vec<(Result<Outcome<V>, ClusterError>, R)> {
        std::thread::scope(|s| {
            let handles: Vec<_> = group
                .into_iter()
                .map(|rank| {
                    let options = options.clone();
                    s.spawn(move || (solve_tables::<V>(space, &rank, dir, options, |_| {}), rank))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    /// Solves on `size` thread ranks with `options`: rank 0's outcome, once every rank
    /// succeeded.
    fn solve_on_threads_with<V: DuelValue + Pod>(
        space: &Space,
        size: usize,
        dir: &Path,
        options: SolveOptions,
    ) -> Outcome<V> {
        let outcomes: Vec<Outcome<V>> = solve_on_group(space, threads::group(size), dir, options)
            .into_iter()
            .map(|(outcome, _)| outcome.unwrap())
            .collect();
        outcomes.into_iter().next().unwrap()
    }

    /// Solves on `size` thread ranks into a fresh directory.
    pub(crate) fn solve_on_threads<V: DuelValue + Pod>(space: &Space, size: usize, dir: &Path) -> Outcome<V> {
        solve_on_threads_with(space, size, dir, SolveOptions::whole(space))
    }

    #[test]
    fn any_number_of_ranks_writes_the_same_files() {
        for (categories, max_empty) in
            [(Rules::OFFICIAL.first(4).unwrap(), None), (Rules::OFFICIAL.first(5).unwrap(), Some(5))]
        {
            let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories });
            let space = match max_empty {
                Some(k) => Space::endgame(&cards, k),
                None => Space::whole_game(&cards),
            };
            let root = tempfile::tempdir().unwrap();
            let alone: PathBuf = root.path().join("alone");
            let expected =
                solve_tables::<WinDraw<f32>>(&space, &Alone, &alone, SolveOptions::whole(&space), |_| {}).unwrap();
            let expected_files = files(&alone);
            assert!(expected_files.len() > 3);
            for size in 2..=4 {
                let dir = root.path().join(format!("ranks-{size}"));
                let outcome = solve_on_threads::<WinDraw<f32>>(&space, size, &dir);
                assert_eq!(files(&dir), expected_files, "{size} ranks");
                assert_eq!(outcome.table_bytes, expected.table_bytes);
                if max_empty.is_none() {
                    let (a, b) = (outcome.first_value.unwrap(), expected.first_value.unwrap());
                    assert_eq!((a.value, a.draw), (b.value, b.draw));
                }
                assert!(outcome.layers.iter().any(|l| l.exchanged_raw_bytes > 0));
            }
        }
    }

    /// Every value of every layer of the tables in `dir`, read through the manifest, layer
    /// by layer (the files differ with the shard size; the values may not), as the bits of
    /// the value and of the draw probability (NaN where not kept).
    fn layer_values(space: &Space, dir: &Path) -> Vec<Vec<(u32, u32)>> {
        let manifest = Manifest::open(dir).unwrap();
        let layers = manifest.layers.iter().map(|entry| {
            let shape = LayerShape::new(space, entry.layer);
            let values = read_rows::<WinDraw<f32>>(dir, space, &shape, entry, 0..shape.movers.len()).unwrap();
            values.iter().map(|v| (v.value.to_bits(), v.draw.to_bits())).collect()
        });
        layers.collect()
    }

    /// Shards of a few positions, rows cut into pieces: the same values at any number of
    /// ranks as with the default size, tables that verify, and a damaged piece of a row
    /// repaired bit for bit on resume.
    #[test]
    fn small_shards_hold_the_same_values() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let whole = root.path().join("whole");
        solve_tables::<WinDraw<f32>>(&space, &Alone, &whole, SolveOptions::whole(&space), |_| {}).unwrap();
        let expected = layer_values(&space, &whole);
        let small = SolveOptions { shard_positions: 5, ..SolveOptions::whole(&space) };
        let mut cuts = Vec::new();
        for size in [1, 3] {
            let dir = root.path().join(format!("small-{size}"));
            solve_on_threads_with::<WinDraw<f32>>(&space, size, &dir, small.clone());
            assert_eq!(layer_values(&space, &dir), expected, "{size} ranks");
            let check = shard::verify_tables(&dir);
            assert_eq!(check.problems().count(), 0, "{:?}", check.problems().collect::<Vec<_>>());
            let manifest = Manifest::open(&dir).unwrap();
            let pieces = manifest.layers.iter().flat_map(|l| &l.shards).filter(|s| s.row_offset > 0).count();
            assert!(pieces > 10, "{pieces} later pieces of rows");
            assert!(manifest.listed().len() > 4 * Manifest::open(&whole).unwrap().listed().len());
            cuts.push(files(&dir));
        }
        assert_eq!(cuts[0], cuts[1], "the files do not depend on the ranks");
        // A later piece of a row, damaged, is recomputed from the layer above.
        let dir = root.path().join("small-3");
        let manifest = Manifest::open(&dir).unwrap();
        let listed = manifest.listed();
        let piece = listed.iter().find(|l| l.layer == 5 && l.entry.row_offset > 0).unwrap();
        let path = dir.join(piece.file());
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let resumed =
            solve_on_threads_with::<WinDraw<f32>>(&space, 2, &dir, SolveOptions { resume: true, ..small.clone() });
        assert_eq!(resumed.repaired, vec![piece.file()]);
        assert_eq!(files(&dir), cuts[1]);
    }

    /// Per-rank tiles shrink as 1/P: at 4 ranks no rank holds more than a quarter of the
    /// single rank's tile bytes, plus one row or column of offsets per rank boundary and
    /// what the balance by work (not by pairs) moves; the per-card structures stay per card.
    #[test]
    fn tiles_per_rank_shrink_with_the_ranks() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(5).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let one = solve_tables::<f32>(&space, &Alone, &root.path().join("one"), SolveOptions::whole(&space), |_| {});
        let one = one.unwrap();
        let four = solve_on_threads::<f32>(&space, 4, &root.path().join("four"));
        let mut checked = 0;
        for (a, b) in one.layers.iter().zip(&four.layers) {
            assert_eq!(a.layer, b.layer);
            // One row or column of each of the three tiles, in 8-byte offsets.
            let side = |layer: usize| {
                let shape = LayerShape::new(&space, layer);
                shape.movers.len().max(shape.opponents.len()) as u64
            };
            let line = 8 * (side(a.layer).max(side((a.layer + 1).min(space.end_layer() - 1))) + 1);
            let quarter = a.tile_bytes[0] / 4;
            let most = *b.tile_bytes.iter().max().unwrap();
            assert!(most <= quarter + quarter / 4 + 3 * line, "layer {}: {most} > {quarter} + slack", a.layer);
            assert!(b.card_bytes.iter().all(|&c| c <= a.card_bytes[0] + 4 * line), "layer {}", a.layer);
            checked += (a.tile_bytes[0] > 64 * line) as usize;
        }
        assert!(checked >= 3, "only {checked} layers are large enough to tell");
    }

    /// A solve stopped after a layer and resumed on other ranks writes what one solve
    /// writes; layers below `write_from` are solved but not written.
    #[test]
    fn stop_resume_and_partial_writes() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let (whole, cut, top) = (root.path().join("whole"), root.path().join("cut"), root.path().join("top"));
        let every = SolveOptions::whole(&space);
        solve_tables::<f32>(&space, &Alone, &whole, every.clone(), |_| {}).unwrap();
        let stopped =
            solve_tables::<f32>(&space, &Alone, &cut, SolveOptions { stop_after: 5, ..every.clone() }, |_| {});
        assert_eq!(stopped.unwrap().layers.iter().map(|l| l.layer).collect::<Vec<_>>(), vec![7, 6, 5]);
        assert!(!Manifest::open(&cut).unwrap().complete);
        let resumed = solve_on_threads_with::<f32>(&space, 2, &cut, SolveOptions { resume: true, ..every.clone() });
        assert_eq!(resumed.resumed_from, Some(5));
        assert_eq!(files(&cut), files(&whole));
        let whole_bytes = Manifest::open(&whole).unwrap().listed().iter().map(|l| l.entry.bytes).sum::<u64>();
        assert_eq!(resumed.table_bytes, whole_bytes, "a resumed solve reports every table's bytes");
        // Only layers 6 and 7 written; the solve still runs to the start and finds its value.
        let partial =
            solve_tables::<f32>(&space, &Alone, &top, SolveOptions { write_from: 6, ..every.clone() }, |_| {});
        let partial = partial.unwrap();
        assert_eq!(partial.layers.iter().filter(|l| l.written).count(), 2);
        assert!(partial.first_value.is_some());
        let manifest = Manifest::open(&top).unwrap();
        assert_eq!(manifest.layers.iter().map(|l| l.layer).collect::<Vec<_>>(), vec![7, 6]);
        let listed: Vec<String> = manifest.listed().iter().map(|l| l.file()).collect();
        assert_eq!(files(&top).len(), listed.len() + 1);
        for name in listed {
            assert_eq!(files(&top)[&name], files(&whole)[&name]);
        }
    }

    /// A fresh solve refuses a directory holding other tables (unless forced), and a
    /// second solve while one holds the directory's lock.
    #[test]
    fn other_tables_and_a_second_writer_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("t");
        let four = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let three = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(3).unwrap() });
        let (four, three) = (Space::whole_game(&four), Space::whole_game(&three));
        solve_tables::<f32>(&four, &Alone, &dir, SolveOptions::whole(&four), |_| {}).unwrap();
        let kept = files(&dir);
        let refused = solve_tables::<f32>(&three, &Alone, &dir, SolveOptions::whole(&three), |_| {}).unwrap_err();
        assert!(matches!(refused, ClusterError::Overwrite { .. }), "{refused}");
        assert!(refused.to_string().contains("--force"), "{refused}");
        assert_eq!(files(&dir), kept, "nothing was touched");
        // The same tables again are solved afresh; another game only with --force.
        solve_tables::<f32>(&four, &Alone, &dir, SolveOptions::whole(&four), |_| {}).unwrap();
        let forced = SolveOptions { force: true, ..SolveOptions::whole(&three) };
        solve_tables::<f32>(&three, &Alone, &dir, forced.clone(), |_| {}).unwrap();
        // A user's file that looks a little like a temporary one survives a solve.
        std::fs::write(dir.join(".thesis.tmp.backup"), b"mine").unwrap();
        let held = lock_dir(&dir, Duration::ZERO).unwrap();
        let busy = lock_dir(&dir, Duration::from_millis(300)).unwrap_err();
        assert!(matches!(busy, ClusterError::Busy { .. }) && busy.to_string().contains("another yz solve"), "{busy}");
        // A solve waits for a holder that lets go (a killed job's last process ending).
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(500));
            drop(held);
        });
        solve_tables::<f32>(&three, &Alone, &dir, forced.clone(), |_| {}).unwrap();
        release.join().unwrap();
        assert!(dir.join(".thesis.tmp.backup").exists());
    }

    #[test]
    fn resume_continues_to_the_same_files() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let (whole, cut) = (root.path().join("whole"), root.path().join("cut"));
        solve_tables::<f32>(&space, &Alone, &whole, SolveOptions::whole(&space), |_| {}).unwrap();
        // A solve of the layers from 3 on, as if stopped there, then resumed over 3 ranks.
        let late = Space::endgame(&cards, 2 * cards.boxes() - 3);
        solve_tables::<f32>(&late, &Alone, &cut, SolveOptions::whole(&late), |_| {}).unwrap();
        let mut manifest = Manifest::open(&cut).unwrap();
        manifest.first_layer = 0;
        manifest.complete = false;
        manifest.write(&cut).unwrap();
        // What a writer killed before its rename leaves behind; the resumed solve clears it.
        std::fs::write(cut.join(".manifest.yzs.tmp.4242.7"), b"half a manifest").unwrap();
        let resumed =
            solve_on_threads_with::<f32>(&space, 3, &cut, SolveOptions { resume: true, ..SolveOptions::whole(&space) });
        assert_eq!(resumed.resumed_from, Some(3));
        assert_eq!(resumed.layers.len(), 3);
        assert_eq!(files(&cut), files(&whole));
    }

    /// A byte flipped in one part of one layer's exchange stops every rank, rank 0 and the
    /// receiver naming the layer and both ranks; the tables keep the layers before it, and
    /// a resumed solve writes what one uninterrupted solve writes.
    #[test]
    fn a_damaged_part_stops_every_rank_and_resume_finishes() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let (whole, cut) = (root.path().join("whole"), root.path().join("cut"));
        let every = SolveOptions::whole(&space);
        solve_tables::<f32>(&space, &Alone, &whole, every.clone(), |_| {}).unwrap();
        // The fourth exchange is layer 4's (after 7, 6 and 5).
        let (from, to, call, layer) = (2, 1, 3, 4);
        let group = threads::group(3).into_iter().map(|rank| threads::FlipByte::new(rank, from, to, call)).collect();
        let results = solve_on_group::<f32, _>(&space, group, &cut, every.clone());
        assert!(results[from].1.fired(), "the part was empty");
        for (me, (result, _)) in results.iter().enumerate() {
            match result {
                Err(ClusterError::DamagedPart { layer: l, from: f, to: t, .. }) if me == 0 || me == to => {
                    assert_eq!((*l, *f, *t), (layer, from, to), "rank {me}")
                }
                Err(ClusterError::StoppedByRankZero) if me != 0 && me != to => {}
                other => panic!("rank {me}: {:?}", other.as_ref().map(|_| ())),
            }
        }
        let message = results[0].0.as_ref().unwrap_err().to_string();
        assert!(message.starts_with("layer 4: the part rank 2 sent to rank 1 arrived damaged"), "{message}");
        assert!(message.contains("--resume"), "{message}");
        let manifest = Manifest::open(&cut).unwrap();
        assert_eq!(manifest.layers.iter().map(|l| l.layer).collect::<Vec<_>>(), vec![7, 6, 5]);
        let resumed = solve_on_threads_with::<f32>(&space, 3, &cut, SolveOptions { resume: true, ..every.clone() });
        assert_eq!(resumed.resumed_from, Some(5));
        assert_eq!(files(&cut), files(&whole));
    }

    /// `--resume` over 3 ranks recomputes a damaged and a missing shard from the layers
    /// above them, bit for bit, and continues where the tables stopped.
    #[test]
    fn damaged_shards_are_repaired_from_the_layer_above() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let (whole, cut) = (root.path().join("whole"), root.path().join("cut"));
        solve_tables::<f32>(&space, &Alone, &whole, SolveOptions::whole(&space), |_| {}).unwrap();
        let every = SolveOptions::whole(&space);
        solve_tables::<f32>(&space, &Alone, &cut, SolveOptions { stop_after: 3, ..every.clone() }, |_| {}).unwrap();
        let flipped = cut.join("layer-06-shard-00000.yzs");
        let mut bytes = std::fs::read(&flipped).unwrap();
        let at = bytes.len() - 9;
        bytes[at] ^= 0x40;
        std::fs::write(&flipped, bytes).unwrap();
        std::fs::remove_file(cut.join("layer-04-shard-00000.yzs")).unwrap();
        let resumed = solve_on_threads_with::<f32>(&space, 3, &cut, SolveOptions { resume: true, ..every.clone() });
        assert_eq!(resumed.repaired, vec!["layer-04-shard-00000.yzs", "layer-06-shard-00000.yzs"]);
        assert_eq!(resumed.resumed_from, Some(3));
        assert_eq!(files(&cut), files(&whole));
    }

    /// A solve stopped after some layers and resumed on 2 ranks reports the same P(win),
    /// P(draw) and P(lose), bit for bit, and the same table size, as an uninterrupted one:
    /// the last finished layer's draws are kept, and only its.
    #[test]
    fn a_resumed_solve_keeps_the_draw_probability() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let (whole, cut) = (root.path().join("whole"), root.path().join("cut"));
        let every = SolveOptions::whole(&space);
        let uninterrupted = solve_tables::<WinDraw<f32>>(&space, &Alone, &whole, every.clone(), |_| {}).unwrap();
        solve_tables::<WinDraw<f32>>(&space, &Alone, &cut, SolveOptions { stop_after: 4, ..every.clone() }, |_| {})
            .unwrap();
        let draws: Vec<String> = files(&cut).into_keys().filter(|name| name.contains("-draw-")).collect();
        assert_eq!(draws, vec!["layer-04-draw-00000.yzs"], "only the last finished layer's draws are kept");
        let resumed =
            solve_on_threads_with::<WinDraw<f32>>(&space, 2, &cut, SolveOptions { resume: true, ..every.clone() });
        let (a, b) = (uninterrupted.first_value.unwrap(), resumed.first_value.unwrap());
        assert!(b.draw() > 0.0, "the draw probability is known");
        assert_eq!((a.value.to_bits(), a.draw.to_bits()), (b.value.to_bits(), b.draw.to_bits()));
        assert_eq!(resumed.table_bytes, uninterrupted.table_bytes);
        assert_eq!(files(&cut), files(&whole));
    }

    /// A streamed solve of `space` into `dir` within `budget` bytes per rank on `size`
    /// thread ranks, scratch in `scratch`.
    fn streamed(budget: u64, scratch: &Path, options: &SolveOptions) -> SolveOptions {
        let stream = Stream {
            budget: crate::duel::cluster::budget::Budget::PerRank(budget),
            scratch: scratch.to_owned(),
            in_memory: Vec::new(),
        };
        SolveOptions { stream: Some(stream), ..options.clone() }
    }

    #[test]
    fn streamed_solves_write_the_in_memory_files_at_any_budget_and_rank_count() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(5).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        for shard_positions in [shard::SHARD_POSITIONS, 40] {
            let every = SolveOptions { shard_positions, ..SolveOptions::whole(&space) };
            let alone = root.path().join(format!("alone-{shard_positions}"));
            let expected = solve_tables::<WinDraw<f32>>(&space, &Alone, &alone, every.clone(), |_| {}).unwrap();
            let value_bytes = std::mem::size_of::<WinDraw<f32>>() as u64;
            let (floor, _) =
                crate::duel::sweep::stream::floor(&space, (space.end_layer(), 0), shard_positions, value_bytes);
            for (size, budget) in [(1, floor), (3, floor), (2, 5 * floor)] {
                let dir = root.path().join(format!("streamed-{shard_positions}-{size}-{budget}"));
                let scratch = root.path().join(format!("scratch-{shard_positions}-{size}-{budget}"));
                let options = streamed(budget, &scratch, &every);
                let outcome = solve_on_threads_with::<WinDraw<f32>>(&space, size, &dir, options);
                assert_eq!(files(&dir), files(&alone), "{size} ranks, {budget} bytes, shards of {shard_positions}");
                assert_eq!(outcome.table_bytes, expected.table_bytes);
                let (a, b) = (outcome.first_value.unwrap(), expected.first_value.unwrap());
                assert_eq!((a.value.to_bits(), a.draw.to_bits()), (b.value.to_bits(), b.draw.to_bits()));
                assert!(!scratch.exists(), "the scratch directory is removed");
            }
            // Runs of layers in memory between streamed runs, at 2 ranks: the same files.
            let end = space.end_layer();
            for in_memory in [(0..=end).filter(|l| l % 3 == 1).collect(), (end - 3..=end).collect::<Vec<_>>()] {
                let tag = format!("{shard_positions}-{}", in_memory.len());
                let (dir, scratch) = (root.path().join(format!("mixed-{tag}")), root.path().join(format!("s-{tag}")));
                let mut options = streamed(floor, &scratch, &every);
                options.stream.as_mut().unwrap().in_memory = in_memory;
                let outcome = solve_on_threads_with::<WinDraw<f32>>(&space, 2, &dir, options);
                assert_eq!(files(&dir), files(&alone), "layers in memory and streamed ({tag})");
                let (a, b) = (outcome.first_value.unwrap(), expected.first_value.unwrap());
                assert_eq!((a.value.to_bits(), a.draw.to_bits()), (b.value.to_bits(), b.draw.to_bits()));
            }
            // Layers below 6 not written: they pass through frames only, and the files
            // are those of the in-memory solve that writes the same layers.
            let top = SolveOptions { write_from: 6, ..every.clone() };
            let top_alone = root.path().join(format!("top-alone-{shard_positions}"));
            let expected_top = solve_tables::<WinDraw<f32>>(&space, &Alone, &top_alone, top.clone(), |_| {}).unwrap();
            for size in [1, 3] {
                let tag = format!("{shard_positions}-{size}");
                let (dir, scratch) = (root.path().join(format!("top-{tag}")), root.path().join(format!("st-{tag}")));
                let outcome =
                    solve_on_threads_with::<WinDraw<f32>>(&space, size, &dir, streamed(floor, &scratch, &top));
                assert_eq!(files(&dir), files(&top_alone), "layers from 6 on written, {size} ranks");
                let (a, b) = (outcome.first_value.unwrap(), expected_top.first_value.unwrap());
                assert_eq!((a.value.to_bits(), a.draw.to_bits()), (b.value.to_bits(), b.draw.to_bits()));
                assert!(!scratch.exists(), "the scratch directory is removed");
            }
            // Below the floor: refused before anything is solved, naming the floor.
            let dir = root.path().join(format!("too-small-{shard_positions}"));
            let options = streamed(floor - 1, &root.path().join("unused"), &every);
            match solve_tables::<WinDraw<f32>>(&space, &Alone, &dir, options, |_| {}) {
                Err(ClusterError::Budget(below)) => assert_eq!(below.needed, floor),
                other => panic!("{other:?}"),
            }
        }
    }

    /// Runs of layers solved alike, from the top, each ending where the next reads.
    #[test]
    fn layers_are_cut_into_runs_solved_alike() {
        assert_eq!(segments((10, 3), |l| l >= 8), vec![(10, 8, true), (8, 3, false)]);
        assert_eq!(segments((10, 3), |l| l % 5 == 0), vec![(10, 6, false), (6, 5, true), (5, 3, false)]);
        assert_eq!(segments((4, 0), |_| true), vec![(4, 0, true)]);
        assert!(segments((3, 3), |_| true).is_empty(), "nothing left to solve");
    }

    #[test]
    fn a_streamed_solve_stopped_or_killed_resumes_to_the_same_files() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(5).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let every = SolveOptions { shard_positions: 200, ..SolveOptions::whole(&space) };
        let whole = root.path().join("whole");
        solve_tables::<f32>(&space, &Alone, &whole, every.clone(), |_| {}).unwrap();
        let (floor, _) = crate::duel::sweep::stream::floor(&space, (space.end_layer(), 0), 200, 4);
        let scratch = root.path().join("scratch");
        let options = streamed(floor, &scratch, &every);
        // Stopped cleanly after layer 6, then resumed from its shards at 2 ranks.
        let stopped = root.path().join("stopped");
        solve_tables::<f32>(&space, &Alone, &stopped, SolveOptions { stop_after: 6, ..options.clone() }, |_| {})
            .unwrap();
        // A damaged and a missing shard, repaired within the budget (the layer above
        // read back in blocks of a row or two) on the way.
        let flipped = stopped.join("layer-07-shard-00003.yzs");
        let mut bytes = std::fs::read(&flipped).unwrap();
        let at = bytes.len() - 9;
        bytes[at] ^= 0x40;
        std::fs::write(&flipped, bytes).unwrap();
        std::fs::remove_file(stopped.join("layer-08-shard-00001.yzs")).unwrap();
        let resumed = SolveOptions { resume: true, ..options.clone() };
        let outcome = solve_on_threads_with::<f32>(&space, 2, &stopped, resumed.clone());
        assert_eq!(outcome.resumed_from, Some(6));
        assert_eq!(outcome.repaired, vec!["layer-07-shard-00003.yzs", "layer-08-shard-00001.yzs"]);
        assert_eq!(files(&stopped), files(&whole));
        // Killed at the end of a pass (after listing a layer, scratch frames left), then
        // resumed from those frames at 3 ranks.
        let killed = root.path().join("killed");
        let killing = std::panic::catch_unwind(|| {
            solve_tables::<f32>(&space, &Alone, &killed, options.clone(), |report| {
                assert!(report.layer > 4, "killed after layer {}", report.layer);
            })
        });
        assert!(killing.is_err());
        let left = std::fs::read_dir(&scratch).unwrap().count();
        assert!(left > 0, "the killed solve left its scratch files");
        // Stopped in the middle of the next pass: the frame its last block reads of the
        // killed pass's last block is damaged, so the resume stops there with the blocks
        // before it finished; put back, a resume at 3 ranks continues from those blocks.
        let mut blocks: Vec<PathBuf> = std::fs::read_dir(&scratch)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("block-"))
            .collect();
        blocks.sort();
        // Besides the block files, the owner record the killed solve left (it is the same
        // tables' to resume).
        assert!(blocks.len() > 1 && blocks.len() + 1 == left, "{left} scratch files, {} block files", blocks.len());
        let block = blocks.last().unwrap().clone();
        let good = std::fs::read(&block).unwrap();
        // SAFETY: the test's own file, not changed while open.
        let parts = unsafe { crate::store::PartsFile::open(&block, "duel-stream-block", 4 << 10) }.unwrap();
        let frame = parts.part(parts.count() - 2).unwrap().to_vec();
        assert!(!frame.is_empty(), "the last frame holds values");
        let at = good.windows(frame.len()).position(|w| w == frame).unwrap() + frame.len() / 2;
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        std::fs::write(&block, bad).unwrap();
        let stopped = solve_tables::<f32>(&space, &Alone, &killed, resumed.clone(), |_| {});
        assert!(matches!(stopped, Err(ClusterError::DamagedScratch { .. })), "{stopped:?}");
        let message = stopped.unwrap_err().to_string();
        assert!(message.contains(&*block.file_name().unwrap().to_string_lossy()), "{message}");
        // Its remedy, as printed, works too: on a copy of the tables, the scratch removed
        // (here: a scratch directory that is not there).
        let remedy =
            format!("remove the scratch directory {} and run the same command with --resume", scratch.display());
        assert!(message.contains(&remedy), "{message}");
        let tables_copy = root.path().join("killed-copy");
        std::fs::create_dir_all(&tables_copy).unwrap();
        for entry in std::fs::read_dir(&killed).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), tables_copy.join(entry.file_name())).unwrap();
        }
        let in_copy = SolveOptions { resume: true, ..streamed(floor, &root.path().join("scratch-removed"), &every) };
        solve_tables::<f32>(&space, &Alone, &tables_copy, in_copy, |_| {}).unwrap();
        assert_eq!(files(&tables_copy), files(&whole));
        std::fs::write(&block, good).unwrap();
        let outcome = solve_on_threads_with::<f32>(&space, 3, &killed, resumed);
        assert!(outcome.resumed_blocks > 1, "{} blocks found finished", outcome.resumed_blocks);
        assert_eq!(files(&killed), files(&whole));
        assert!(!scratch.exists());
    }

    /// The full game's scratch layout and gathers at a small game's scale: blocks as small
    /// as the floor allows (hundreds of passes' blocks, each block's file holding a frame
    /// for every block of the next pass), shards of 40 positions (many per block record),
    /// gathers in pieces of 64 bytes. Killed at a pass's end and mid-pass (some finished
    /// blocks' files gone), resumed at 1 and 3 ranks: the files of the plain solve; the
    /// scratch directory never holds more files than the rehearsal says (two passes' block
    /// files and one temporary file per rank), never one per pair of blocks; no gather
    /// round carries more than a piece from each rank.
    #[test]
    fn a_streamed_solve_at_full_scale_block_counts_keeps_scratch_and_gathers_small() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(5).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let every = SolveOptions { shard_positions: 40, ..SolveOptions::whole(&space) };
        let whole = root.path().join("whole");
        solve_tables::<f32>(&space, &Alone, &whole, every.clone(), |_| {}).unwrap();
        let (floor, _) = crate::duel::sweep::stream::floor(&space, (space.end_layer(), 0), 40, 4);
        let piece = 64;
        for size in [1, 3] {
            let rehearsal = crate::duel::sweep::stream::rehearse_passes(
                &space,
                (size, 0),
                (0, &[]),
                (floor, 4, false),
                (40, piece),
            )
            .unwrap();
            let blocks: usize = rehearsal.iter().map(|p| p.blocks).sum();
            let pairs: usize = rehearsal.iter().map(|p| p.blocks * p.frames_per_block).sum();
            let most_files = rehearsal.iter().map(|p| p.scratch_files).max().unwrap();
            assert!(blocks > 100 && pairs > 10 * blocks, "{blocks} blocks, {pairs} pairs of blocks");
            let scratch = root.path().join(format!("scratch-{size}"));
            let options = streamed(floor, &scratch, &every);
            // A watcher counts the scratch directory's files while the solves run.
            let (seen, done) = (AtomicUsize::new(0), AtomicBool::new(false));
            std::thread::scope(|s| {
                s.spawn(|| {
                    while !done.load(Ordering::Relaxed) {
                        let count = std::fs::read_dir(&scratch).map_or(0, |d| d.count());
                        seen.fetch_max(count, Ordering::Relaxed);
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                });
                let dir = root.path().join(format!("killed-{size}"));
                let killing = std::panic::catch_unwind(|| {
                    solve_tables::<f32>(&space, &Alone, &dir, options.clone(), |report| {
                        assert!(report.layer > 5, "killed after layer {}", report.layer);
                    })
                });
                assert!(killing.is_err());
                // Killed mid-pass: the last third of the finished blocks' files gone.
                let mut finished: Vec<PathBuf> = std::fs::read_dir(&scratch)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("block-"))
                    .collect();
                finished.sort();
                assert!(finished.len() > 3, "{} block files", finished.len());
                for file in &finished[2 * finished.len() / 3..] {
                    std::fs::remove_file(file).unwrap();
                }
                let resumed = SolveOptions { resume: true, ..options.clone() };
                let results = solve_on_group::<f32, _>(&space, threads::group_in_pieces(size, piece), &dir, resumed);
                for (result, rank) in &results {
                    let outcome = result.as_ref().unwrap();
                    if rank.rank() == 0 {
                        assert!(outcome.resumed_blocks > 0, "{size} ranks");
                        assert!(
                            rank.largest_gathered() <= size * piece,
                            "{size} ranks: a gather round of {} bytes",
                            rank.largest_gathered()
                        );
                    }
                }
                done.store(true, Ordering::Relaxed);
                assert_eq!(files(&dir), files(&whole), "{size} ranks");
            });
            let seen = seen.into_inner();
            assert!(seen > 1 && seen <= most_files, "{size} ranks: {seen} scratch files seen, {most_files} rehearsed");
            assert!(!scratch.exists());
        }
    }

    /// A streamed solve with draws killed in the middle of a pass that writes its layer
    /// (some blocks finished, their value and draw shards written but the layer not listed
    /// yet), resumed, and killed again while that layer is the last listed, resumes to the
    /// uninterrupted solve's files: the first resume keeps the draw shards its finished
    /// blocks' records name (issue 40).
    #[test]
    fn a_streamed_solve_with_draws_killed_twice_around_one_layer_resumes() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(5).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let every = SolveOptions { shard_positions: 400, ..SolveOptions::whole(&space) };
        let whole = root.path().join("whole");
        solve_tables::<WinDraw<f32>>(&space, &Alone, &whole, every.clone(), |_| {}).unwrap();
        let value_bytes = std::mem::size_of::<WinDraw<f32>>() as u64;
        let (floor, _) = crate::duel::sweep::stream::floor(&space, (space.end_layer(), 0), 400, value_bytes);
        let (dir, scratch) = (root.path().join("killed"), root.path().join("scratch"));
        let options = streamed(floor, &scratch, &every);
        let resumed = SolveOptions { resume: true, ..options.clone() };
        let killed_after = |options: &SolveOptions, layer: usize| {
            let run = std::panic::catch_unwind(|| {
                solve_tables::<WinDraw<f32>>(&space, &Alone, &dir, options.clone(), |report| {
                    assert!(report.layer != layer, "killed once layer {layer} was solved");
                })
            });
            assert!(run.is_err(), "the solve ran past layer {layer}");
        };
        let copy = |from: &Path, to: &Path| {
            let _ = std::fs::remove_dir_all(to);
            std::fs::create_dir_all(to).unwrap();
            for (name, bytes) in files(from) {
                std::fs::write(to.join(name), bytes).unwrap();
            }
        };
        // Killed once layer 5 is solved into frames: layer 6 listed, layer 5 not.
        killed_after(&options, 5);
        let (kept_dir, kept_scratch) = (root.path().join("kept-dir"), root.path().join("kept-scratch"));
        copy(&dir, &kept_dir);
        copy(&scratch, &kept_scratch);
        // The pass writing layer 5, run to its end elsewhere: its block files and shards.
        killed_after(&resumed, 4);
        let blocks: Vec<(String, Vec<u8>)> =
            files(&scratch).into_iter().filter(|(name, _)| name.starts_with("block-05-")).collect();
        let shards: Vec<(String, Vec<u8>)> =
            files(&dir).into_iter().filter(|(name, _)| name.starts_with("layer-05-")).collect();
        assert!(blocks.len() >= 4 && shards.iter().any(|(name, _)| name.contains("draw")), "{} blocks", blocks.len());
        // Back to the first kill, as if killed in the middle of that pass: half its blocks
        // finished, and every shard of the layer written (the others' blocks were killed
        // between their shards and their records).
        copy(&kept_dir, &dir);
        copy(&kept_scratch, &scratch);
        for (name, bytes) in blocks[..blocks.len() / 2].iter() {
            std::fs::write(scratch.join(name), bytes).unwrap();
        }
        for (name, bytes) in &shards {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        // Resumed and killed again with layer 5 the last listed, then resumed to the end.
        killed_after(&resumed, 4);
        let outcome = solve_tables::<WinDraw<f32>>(&space, &Alone, &dir, resumed, |_| {}).unwrap();
        assert!(outcome.resumed_blocks > 0);
        assert_eq!(files(&dir), files(&whole));
        assert!(!scratch.exists());
    }

    /// A streamed solve claims its scratch directory ([`super::super::scratch`]): a
    /// directory of a user's files, or the table directory itself, is refused before
    /// anything in it is touched; a solve removes its scratch when it ends (a killed one's
    /// is kept for its own resume: `scratch::tests`).
    #[test]
    fn a_streamed_solve_claims_its_scratch_and_touches_nothing_else() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let every = SolveOptions { shard_positions: 40, ..SolveOptions::whole(&space) };
        let whole = root.path().join("whole");
        solve_tables::<f32>(&space, &Alone, &whole, every.clone(), |_| {}).unwrap();
        let (floor, _) = crate::duel::sweep::stream::floor(&space, (space.end_layer(), 0), 40, 4);
        // A directory of the user's files is refused as scratch, and nothing in it touched.
        let users = root.path().join("users");
        std::fs::create_dir_all(&users).unwrap();
        let theirs = ["history.yzs", "values-03-000000-000000.yzs", "done-04-000001.yzs", "block-4-1.yzs"];
        for name in theirs {
            std::fs::write(users.join(name), name).unwrap();
        }
        let out = root.path().join("out");
        let refused = solve_tables::<f32>(&space, &Alone, &out, streamed(floor, &users, &every), |_| {}).unwrap_err();
        assert!(
            refused.to_string().contains("not a yz solve's scratch (block-4-1.yzs, done-04-000001.yzs, history.yzs)"),
            "{refused}"
        );
        for name in theirs {
            assert_eq!(std::fs::read(users.join(name)).unwrap(), name.as_bytes(), "{name}");
        }
        // Its own scratch: stopped and resumed to the plain solve's files, then removed.
        let scratch = root.path().join("scratch");
        let stopped = SolveOptions { stop_after: 4, ..streamed(floor, &scratch, &every) };
        solve_tables::<f32>(&space, &Alone, &out, stopped, |_| {}).unwrap();
        assert!(!scratch.exists(), "a solve that ended where it was asked to leaves no scratch");
        let resumed = SolveOptions { resume: true, ..streamed(floor, &scratch, &every) };
        solve_tables::<f32>(&space, &Alone, &out, resumed.clone(), |_| {}).unwrap();
        assert_eq!(files(&out), files(&whole));
        assert!(!scratch.exists(), "a finished solve's scratch goes");
        // Killed once its last layer was listed, before the last pass's block files were
        // removed, one of them mid-write: the resume has nothing left to solve, and still
        // leaves no scratch.
        let claim = super::super::scratch::claim_scratch(&scratch, &out).unwrap();
        std::fs::write(scratch.join("block-01-000000.yzs"), b"frames of the last pass").unwrap();
        std::fs::write(scratch.join(".block-01-000001.yzs.tmp.4242.0"), b"a killed write").unwrap();
        drop(claim); // killed: the owner record stays with the block
        solve_tables::<f32>(&space, &Alone, &out, resumed, |_| {}).unwrap();
        assert_eq!(files(&out), files(&whole));
        assert!(!scratch.exists(), "a solve resumed with nothing left to solve removes its scratch");
        // The table directory as its own scratch: refused before anything is touched.
        let own = root.path().join("own");
        let stopped = SolveOptions { stop_after: 4, ..every.clone() };
        solve_tables::<f32>(&space, &Alone, &own, stopped, |_| {}).unwrap();
        let before = files(&own);
        let resumed = SolveOptions { resume: true, ..streamed(floor, &own, &every) };
        let refused = solve_tables::<f32>(&space, &Alone, &own, resumed, |_| {}).unwrap_err();
        assert!(refused.to_string().contains("is the table directory"), "{refused}");
        assert_eq!(files(&own), before);
    }

    /// A rank whose shard writer fails stops the solve on every rank instead of leaving
    /// the others waiting for it: it returns its own error, rank 0 one naming it with its
    /// message, and the layer is not listed.
    #[test]
    fn a_failed_writer_on_one_rank_stops_every_rank() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("tables");
        let options = SolveOptions { shard_positions: 64, ..SolveOptions::whole(&space) };
        // The last shard of the first layer solved that has several is rank 1's (the ranks
        // share the rows in order); a directory in its place cannot be replaced by a file.
        let shards = |layer| shard::shard_ranges(&LayerShape::new(&space, layer), 64).len();
        let layer = (space.first_layer()..space.end_layer()).rev().find(|&l| shards(l) > 2).unwrap();
        let last = shards(layer) - 1;
        let blocked = shard::shard_file(layer, last, Column::Value);
        std::fs::create_dir_all(dir.join(&blocked)).unwrap();
        let results = solve_on_group::<f32, _>(&space, threads::group(2), &dir, options);
        let errors: Vec<String> = results.into_iter().map(|(r, _)| r.unwrap_err().to_string()).collect();
        assert!(errors[0].starts_with("rank 1 stopped: ") && errors[0].contains(&blocked), "{}", errors[0]);
        assert!(!errors[1].starts_with("rank") && errors[1].contains(&blocked), "{}", errors[1]);
        let manifest = Manifest::open(&dir).unwrap();
        assert!(manifest.layer(layer).is_none(), "the layer was listed without its last shard");
    }

    /// A temporary file left in the table directory during a solve by a writer that died
    /// mid-write (the rank of a killed job still running beside its resume) is gone when
    /// the solve ends: the finished tables are those of a solve alone, file for file.
    #[test]
    fn a_finished_solve_leaves_no_dead_writers_file() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(3).unwrap() });
        let space = Space::whole_game(&cards);
        let root = tempfile::tempdir().unwrap();
        let (alone, beside) = (root.path().join("alone"), root.path().join("beside"));
        solve_tables::<f32>(&space, &Alone, &alone, SolveOptions::whole(&space), |_| {}).unwrap();
        let dead = beside.join(".layer-02-shard-00000.yzs.tmp.4000000.0");
        solve_tables::<f32>(&space, &Alone, &beside, SolveOptions::whole(&space), |_| {
            std::fs::write(&dead, b"half a shard").unwrap();
        })
        .unwrap();
        assert!(!dead.exists());
        assert_eq!(files(&beside), files(&alone));
    }
}
