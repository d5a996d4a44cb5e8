//! `yz shard verify` and `yz duel solve --resume` against damaged tables: every bad file is
//! named, nothing damaged is read as good, and a resume recomputes damaged shards from the
//! layer above, bit for bit.

use super::cli::{fails_with, json, yz};
use super::forge::{Forge, reseal};
use yz::duel::shard::MANIFEST_KIND;

#[test]
fn a_flipped_byte_and_a_truncated_shard_are_named_and_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    let t = tables.to_str().unwrap();
    let solved = json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "4", "--out", t]));
    let verified = json(&yz(dir.path(), &["--json", "shard", "verify", t]));
    assert_eq!(verified["ok"], true, "{verified}");
    let listed = verified["files"].as_array().unwrap().len();
    assert_eq!(listed, 1 + 8 + 1, "the manifest, one shard per layer, the last layer's draws");
    let original = files(&tables);

    // One flipped byte in the payload of layer 5's shard, layer 2's shard cut short.
    let flipped = tables.join("layer-05-shard-00000.yzs");
    let mut bytes = std::fs::read(&flipped).unwrap();
    let at = bytes.len() - 40;
    bytes[at] ^= 0x08;
    std::fs::write(&flipped, &bytes).unwrap();
    let truncated = tables.join("layer-02-shard-00000.yzs");
    let bytes = std::fs::read(&truncated).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() - 5]).unwrap();

    let out = yz(dir.path(), &["--json", "shard", "verify", t]);
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bad: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["problem"].is_null())
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(bad.len(), 2, "{report}");
    assert!(
        bad.iter().any(|p| p.ends_with("layer-05-shard-00000.yzs"))
            && bad.iter().any(|p| p.ends_with("layer-02-shard-00000.yzs"))
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("layer-05-shard-00000.yzs") && stderr.contains("layer-02-shard-00000.yzs"), "{stderr}");
    // Each file alone too.
    fails_with(dir.path(), &["shard", "verify", flipped.to_str().unwrap()], "layer-05-shard-00000.yzs");
    fails_with(dir.path(), &["shard", "verify", truncated.to_str().unwrap()], "truncated");

    // --resume checks every listed shard before it continues and recomputes both from
    // the layer above (layer 5's from layer 6; layer 2's from layer 3), bit for bit.
    let resumed = json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "4", "--out", t, "--resume"]));
    assert_eq!(resumed["repaired"], serde_json::json!(["layer-02-shard-00000.yzs", "layer-05-shard-00000.yzs"]));
    assert_eq!(resumed["value"], solved["value"]);
    assert!(files(&tables) == original, "the repaired files differ from those first written");
    assert_eq!(json(&yz(dir.path(), &["--json", "shard", "verify", t]))["ok"], true);

    // A missing shard of the top layer (which reads no layer) is recomputed too.
    std::fs::remove_file(tables.join("layer-07-shard-00000.yzs")).unwrap();
    let resumed = json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "4", "--out", t, "--resume"]));
    assert_eq!(resumed["repaired"], serde_json::json!(["layer-07-shard-00000.yzs"]));
    assert!(files(&tables) == original);
}

/// Draws that their values rule out (all 1.0, with valid checksums) are named by `shard
/// verify` and stop a resume that carries draws, which says what to do; a truncated draw
/// shard stops it too, never dropped in silence. `--no-draws` then finishes with P(draw)
/// unknown.
#[test]
fn draws_are_checked_against_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    let t = tables.to_str().unwrap();
    let forge = Forge::solve(&tables, 4);
    let draw_file = "layer-00-draw-00000.yzs";
    forge.lie_draws(0, 1.0);
    let out = yz(dir.path(), &["--json", "shard", "verify", t]);
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bad: Vec<&serde_json::Value> =
        report["files"].as_array().unwrap().iter().filter(|f| !f["problem"].is_null()).collect();
    assert_eq!(bad.len(), 1, "{report}");
    assert!(bad[0]["path"].as_str().unwrap().ends_with(draw_file), "{report}");
    assert!(bad[0]["problem"].as_str().unwrap().contains("cannot go with the value"), "{report}");
    let resume = ["duel", "solve", "--first", "4", "--out", t, "--resume"];
    let refused = |why: &str| {
        let out = yz(dir.path(), &resume);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{why}: {stderr}");
        assert!(stderr.contains(draw_file) && stderr.contains("--resume --no-draws"), "{why}: {stderr}");
        // One damaged file is counted as one: the remedy is said after the list, not in it.
        assert!(stderr.contains("(1 bad file)"), "{why}: {stderr}");
    };
    refused("forged");

    // Truncated: refused the same way, and the manifest still lists it.
    forge.with_manifest(|_| {});
    let path = tables.join(draw_file);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
    refused("truncated");
    assert_eq!(yz::duel::shard::Manifest::open(&tables).unwrap().layers.last().unwrap().draws.len(), 1);

    // As advised: without draws, the solve finishes and P(draw) is unknown.
    let finished =
        json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "4", "--out", t, "--resume", "--no-draws"]));
    assert!(finished["p_draw"].is_null() && finished["value"].as_f64().is_some(), "{finished}");
    let verified = json(&yz(dir.path(), &["--json", "shard", "verify", t]));
    assert_eq!(verified["ok"], true);
    // The damaged draw shard is gone with the draws, not left as a stray file.
    assert_eq!(verified["unlisted"].as_array().map(Vec::len), Some(0), "{verified}");
    assert!(!tables.join(draw_file).exists());
}

/// Every file of a directory, by name.
/// A shard whose header carries a megabyte of well-formed, checksummed metadata is refused
/// before its JSON is parsed, by `shard verify` and by a read.
#[test]
fn a_shard_with_a_padded_header_is_refused_unparsed() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    let t = tables.to_str().unwrap();
    json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "3", "--out", t]));
    let shard = tables.join("layer-04-shard-00000.yzs");
    let pad = |m: &mut serde_json::Value, _: &mut Vec<u8>| m["padding"] = serde_json::json!("x".repeat(1 << 20));
    reseal(&shard, yz::duel::shard::SHARD_KIND.name, yz::duel::shard::SHARD_KIND.name, pad);
    let out = yz(dir.path(), &["shard", "verify", t]);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("layer-04-shard-00000.yzs") && text.contains("exceeds the 65536 bytes of its kind"),
        "{text}"
    );
    let ask = ["duel", "value", "--first", "3", "--me", "ones=1,twos=2", "--opp", "ones=2,twos=4", "--tables", t];
    fails_with(dir.path(), &ask, "exceeds the 65536 bytes of its kind");
}

fn files(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
fn a_missing_shard_and_a_foreign_manifest_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let (four, three) = (dir.path().join("four"), dir.path().join("three"));
    for (n, out) in [("4", &four), ("3", &three)] {
        json(&yz(dir.path(), &["--json", "duel", "solve", "--first", n, "--out", out.to_str().unwrap()]));
    }
    let f = four.to_str().unwrap();
    std::fs::remove_file(four.join("layer-07-shard-00000.yzs")).unwrap();
    fails_with(dir.path(), &["shard", "verify", f], "layer-07-shard-00000.yzs");
    // The manifest of the three-box game over the four-box game's shards.
    std::fs::copy(three.join("manifest.yzs"), four.join("manifest.yzs")).unwrap();
    let out = yz(dir.path(), &["--json", "shard", "verify", f]);
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let problems: Vec<String> =
        report["files"].as_array().unwrap().iter().filter_map(|f| f["problem"].as_str().map(String::from)).collect();
    assert!(
        !problems.is_empty()
            && problems
                .iter()
                .all(|p| p.contains("was made for categories ones,twos,threes,fours, not ones,twos,threes;")),
        "{problems:?}"
    );
    fails_with(dir.path(), &["duel", "solve", "--first", "4", "--out", f, "--resume"], "manifest.yzs");
}

#[test]
fn resume_of_finished_tables_reports_the_stored_value() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let t = t.to_str().unwrap();
    let solved = json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "3", "--out", t]));
    let resumed = json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "3", "--out", t, "--resume"]));
    assert_eq!(resumed["resumed_from"].as_u64(), Some(0));
    assert_eq!(resumed["layers"].as_array().map(Vec::len), Some(0));
    assert_eq!(resumed["value"].as_f64().map(|v| v as f32), solved["value"].as_f64().map(|v| v as f32));
    for key in ["p_win", "p_draw", "p_lose", "table_bytes"] {
        assert!(!solved[key].is_null() && resumed[key] == solved[key], "{key}: {resumed} after {solved}");
    }
}

/// Manifests that are well formed but lie: an old version, a record past the layer, a symbolic link,
/// a FIFO, values out of range with valid checksums. Each is refused with a clean error,
/// nothing hangs, and nothing outside the directory is opened.
#[test]
fn hostile_manifests_and_lying_values_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    let t = tables.to_str().unwrap();
    let forge = Forge::solve(&tables, 3);
    // Layer 4 (2 + 2 boxes filled) holds the position asked below: mover and opponent with
    // ones and twos filled, threes open.
    let ask = ["duel", "value", "--first", "3", "--me", "ones=1,twos=2", "--opp", "ones=2,twos=4", "--tables", t];
    let verify_names = |needle: &str| {
        let out = yz(dir.path(), &["shard", "verify", t]);
        assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(text.contains(needle), "verify does not say {needle:?}: {text}");
    };

    // A manifest of the previous version (every shard listed in its JSON metadata, which
    // the full game outgrows): refused with the remedy.
    let manifest = tables.join("manifest.yzs");
    let old = |m: &mut serde_json::Value, _: &mut Vec<u8>| m["table_version"] = serde_json::json!(2);
    reseal(&manifest, MANIFEST_KIND.name, MANIFEST_KIND.name, old);
    verify_names("solve them again with yz duel solve --force");
    fails_with(dir.path(), &ask, "solve them again with yz duel solve --force");
    // A shard record running past the layer's movers.
    forge.with_entry(4, |e| e.mover_end = usize::MAX);
    verify_names("movers");
    fails_with(dir.path(), &ask, "movers");
    // A symbolic link with the right name, to a copy of the right shard elsewhere.
    let shard = tables.join("layer-04-shard-00000.yzs");
    let elsewhere = dir.path().join("elsewhere.yzs");
    std::fs::rename(&shard, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &shard).unwrap();
    forge.with_entry(4, |_| {});
    verify_names("symbolic link");
    fails_with(dir.path(), &ask, "symbolic link");
    // A FIFO with the right name: refused at once instead of blocking.
    std::fs::remove_file(&shard).unwrap();
    let status = std::process::Command::new("mkfifo").arg(&shard).status().unwrap();
    assert!(status.success());
    verify_names("not a regular file");
    fails_with(dir.path(), &ask, "not a regular file");
    std::fs::remove_file(&shard).unwrap();
    std::fs::rename(&elsewhere, &shard).unwrap();
    // Values that are not winning chances, in a shard whose checksums are all valid.
    for lie in [7.5f32, f32::NAN, -3.0] {
        forge.lie_values(4, lie);
        verify_names("is not a probability");
        fails_with(dir.path(), &ask, "is not a probability");
    }
    // Shard ranges that agree with themselves but not with the layer: checked against the
    // layer's shape before any index is used.
    for end in [1, 1_000_000_000_000_000_000] {
        forge.with_entry(4, |e| e.mover_end = end);
        verify_names("but it has movers");
        fails_with(dir.path(), &ask, "but it has movers");
    }
}

/// The full official game's real index: every layer's real cut into shards, listed layer
/// after layer as the solve lists them, with the last layer's draw shards, written, read
/// back and checked against each layer's shape after every layer, by the rank rehearsal
/// the plan runs (rank 511 of 1,024). Rows longer than a shard (2^24 positions) are cut
/// into pieces, so the 528,800 shards of whole movers counted in issue 25 (77,034 at
/// layers 14 and 15) become 993,794 (183,582 at layer 14), none over 64 MiB of values.
/// The manifest of version 2 (one JSON block) passed the store's 16 MiB metadata cap at
/// layer 16.
#[test]
fn the_full_games_manifest_is_written_and_read_back() {
    use yz::duel::shard::{Manifest, SHARD_POSITIONS};
    let cards = yz::duel::Cards::new(yz::game::Game::full(yz::game::Rules::OFFICIAL));
    let space = yz::duel::Space::whole_game(&cards);
    let dir = tempfile::tempdir().unwrap();
    let rehearsal =
        yz::duel::sizing::rehearse::rehearse(&space, (1024, 511), 0, (8, true), SHARD_POSITIONS, dir.path()).unwrap();
    let shards: usize = rehearsal.layers.iter().map(|l| l.shards).sum();
    assert_eq!(shards, 993_794);
    let busiest = rehearsal.layers.iter().filter(|l| l.layer == 14 || l.layer == 15).map(|l| l.shards);
    assert_eq!(busiest.collect::<Vec<_>>(), vec![154_068, 183_582]);
    let last = rehearsal.layers.last().unwrap();
    assert_eq!(rehearsal.manifest_shards, shards + last.shards, "every shard and the last layer's draws");
    assert!(rehearsal.manifest_bytes > yz::store::MAX_METADATA_LEN as u64, "{} bytes", rehearsal.manifest_bytes);
    let manifest = Manifest::open_checked(dir.path(), Some(cards.game())).unwrap();
    assert!(manifest.complete);
    assert_eq!(manifest.listed().len(), rehearsal.manifest_shards);
    // shard verify's check of the manifest: every layer against its shape and its cut.
    let (read, check) = yz::duel::shard::check_manifest(dir.path());
    assert_eq!(check.problem, None);
    assert_eq!(read.unwrap(), manifest);
}

/// `YZ_SHARD_POSITIONS` cuts fresh tables into small shards (rows in pieces) whose values
/// `yz shard digest` shows equal to the default cut's, layer by layer; a resume keeps the
/// manifest's size whatever the variable says; a size that is not one is refused.
#[test]
fn small_shards_have_the_digests_of_the_default_cut() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |size: Option<&str>, args: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_yz"));
        command.arg("--data").arg(d).args(args);
        if let Some(size) = size {
            command.env(yz::duel::shard::SHARD_POSITIONS_VAR, size);
        }
        command.output().unwrap()
    };
    let (whole, small) = (d.join("whole"), d.join("small"));
    let (w, s) = (whole.to_str().unwrap(), small.to_str().unwrap());
    json(&run(None, &["--json", "duel", "solve", "--first", "4", "--out", w]));
    json(&run(Some("3"), &["--json", "duel", "solve", "--first", "4", "--stop-after-layer", "4", "--out", s]));
    json(&run(Some("1000"), &["--json", "duel", "solve", "--first", "4", "--out", s, "--resume"]));
    let digests = |dir: &str| json(&run(None, &["--json", "shard", "digest", dir]))["layers"].clone();
    assert_eq!(digests(w), digests(s));
    let count = |dir: &str| json(&run(None, &["--json", "shard", "verify", dir]))["files"].as_array().unwrap().len();
    assert!(count(s) > 10 * count(w), "{} shards of 3 positions against {}", count(s), count(w));
    for bad in ["0", "-1", "many"] {
        let out = run(Some(bad), &["duel", "solve", "--first", "3", "--out", d.join("bad").to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("YZ_SHARD_POSITIONS"), "{out:?}");
    }
}

/// The advice of `shard verify` is the exact command that repairs the tables: run as it
/// is printed, without the game's flags (the resume reads the game from the manifest), it
/// recomputes the damaged shard bit for bit and the tables verify again. Game flags that
/// contradict the manifest are refused, naming both.
#[test]
fn the_advised_repair_is_the_command_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    let t = tables.to_str().unwrap();
    let solved = json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "3", "--out", t]));
    let original = files(&tables);
    let shard = tables.join("layer-02-shard-00000.yzs");
    let mut bytes = std::fs::read(&shard).unwrap();
    let at = bytes.len() - 40;
    bytes[at] ^= 0x01;
    std::fs::write(&shard, &bytes).unwrap();

    let out = yz(dir.path(), &["shard", "verify", t]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find(|l| l.contains("layer-02-shard-00000.yzs")).unwrap();
    assert!(line.contains("BAD") && line.contains("corrupted") && !line.contains("delete it"), "{line}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let advised = stderr.split('`').nth(1).unwrap_or_else(|| panic!("no command in {stderr}"));
    assert_eq!(advised, format!("yz duel solve --resume --out {t}"), "{stderr}");

    let contradicted = ["duel", "solve", "--resume", "--out", t, "--first", "4"];
    fails_with(
        dir.path(),
        &contradicted,
        "its manifest.yzs holds tables of the official rules with boxes ones,twos,threes (--first 3), but --first 4",
    );
    fails_with(dir.path(), &["duel", "solve", "--resume", "--out", t, "--max-empty", "2"], "leave out --max-empty");
    assert!(
        files(&tables) == {
            let mut damaged = original.clone();
            damaged.insert("layer-02-shard-00000.yzs".into(), bytes);
            damaged
        },
        "a refused resume writes nothing"
    );

    let words: Vec<&str> = advised.split_whitespace().collect();
    assert_eq!(words[0], "yz");
    let repaired = json(&yz(dir.path(), &[&["--json"], &words[1..]].concat()));
    assert_eq!(repaired["repaired"], serde_json::json!(["layer-02-shard-00000.yzs"]), "{repaired}");
    assert_eq!(repaired["categories"], solved["categories"]);
    assert_eq!(repaired["value"], solved["value"]);
    assert!(files(&tables) == original, "the repaired shard differs from the one first written");
    assert_eq!(json(&yz(dir.path(), &["--json", "shard", "verify", t]))["ok"], true);
}

/// Sound tables of a solve that stopped before its last layer: `shard verify` passes them
/// and gives the command that continues them, which writes the whole solve's files; whole
/// or damaged tables get no such line.
#[test]
fn a_stopped_solve_is_verified_with_the_command_that_continues_it() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, stopped) = (dir.path().join("whole"), dir.path().join("stopped"));
    let (w, s) = (whole.to_str().unwrap(), stopped.to_str().unwrap());
    json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "4", "--out", w]));
    json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "4", "--stop-after-layer", "5", "--out", s]));
    let verified = json(&yz(dir.path(), &["--json", "shard", "verify", s]));
    let command = format!("yz duel solve --resume --out {s}");
    assert_eq!((verified["ok"].as_bool(), verified["complete"].as_bool()), (Some(true), Some(false)), "{verified}");
    assert_eq!(verified["continue_with"].as_str(), Some(command.as_str()));
    let text = yz(dir.path(), &["shard", "verify", s]);
    assert!(String::from_utf8_lossy(&text.stdout).contains(&format!("continue   {command}\n")));
    assert!(json(&yz(dir.path(), &["--json", "shard", "verify", w]))["continue_with"].is_null());
    // The command as printed, run: the whole solve's files.
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    json(&yz(dir.path(), &[&["--json"], &args[..]].concat()));
    assert_eq!(files(&stopped), files(&whole));
    // Damaged stopped tables get the repair, not this line.
    let damaged = dir.path().join("damaged");
    let d = damaged.to_str().unwrap();
    json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "4", "--stop-after-layer", "5", "--out", d]));
    std::fs::write(damaged.join("layer-06-shard-00000.yzs"), b"damaged").unwrap();
    let out = yz(dir.path(), &["--json", "shard", "verify", d]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(report["continue_with"].is_null() && report["remedy"].is_string(), "{report}");
}
