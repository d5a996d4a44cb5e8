//! `yz shard verify` and `yz duel solve --resume` against damaged tables: every bad file is
//! named, nothing damaged is read as good, and a resume recomputes damaged shards from the
//! layer above, bit for bit.

use super::cli::{fails_with, json, yz};
use super::forge::Forge;

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

/// Every file of a directory, by name.
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

/// Manifests that are well formed but lie: a name leaving the directory, a symbolic link,
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

    // A name that leaves the directory, and an absolute one.
    for name in ["../t/layer-04-shard-00000.yzs", "/etc/passwd"] {
        forge.with_entry(4, |e| e.file = name.to_owned());
        verify_names("a plain name inside the table directory");
        fails_with(dir.path(), &ask, "a plain name inside the table directory");
    }
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
