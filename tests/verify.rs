//! `yz verify` on every kind of table yz writes: sound, damaged (a flipped byte, a cut),
//! and lying with valid checksums (caught by reading every value as its reader does). One
//! line per file; a bad file fails with its fault and the exact command that produces it
//! again, which then verifies.

use std::path::Path;

use super::cli::{json, yz};
use super::forge::reseal;

/// Runs `yz verify PATH`: its exit code, the file lines of its text, and its stderr.
fn verify(data: &Path, path: &Path) -> (Option<i32>, Vec<String>, String) {
    let out = yz(data, &["verify", path.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let files = stdout.lines().filter(|l| l.starts_with("  ")).map(str::to_owned).collect();
    (out.status.code(), files, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Each kind: the command that writes it, its store kind, what `holds` says, and a lie in
/// its payload (valid checksums) that its reader refuses, with the words it refuses it in.
struct Case {
    write: &'static [&'static str],
    kind: &'static str,
    holds: &'static str,
    lie: fn(&serde_json::Value, &mut Vec<u8>),
    refused: &'static str,
}

fn last_f64(payload: &mut [u8], value: f64) {
    let at = payload.len() - 8;
    payload[at..].copy_from_slice(&value.to_le_bytes());
}

const CASES: [Case; 4] = [
    Case {
        write: &["solo", "solve", "--first", "3", "--out"],
        kind: "solo-table",
        holds: "solo-table",
        lie: |_, p| last_f64(p, -1.0),
        refused: "not an expected score of this game",
    },
    Case {
        write: &["targets", "solve", "--first", "3", "--out"],
        kind: "target-table",
        holds: "target-table",
        // Every byte of the blocks (after the index, whose sizes follow from the metadata):
        // the index still holds, so only a read of every curve finds it.
        lie: |metadata, p| {
            let count = |key: &str| metadata[key].as_u64().unwrap() as usize;
            let (states, blocks) = (count("states"), count("blocks"));
            let index = [4 * states, 8 * (states + 1), 4 * (blocks + 1), 8 * (blocks + 1)];
            let area = index.iter().map(|bytes| bytes.next_multiple_of(8)).sum::<usize>();
            p[area..].fill(0xff);
        },
        refused: "block",
    },
    Case {
        write: &[
            "strategy",
            "evolve",
            "--first",
            "3",
            "--generations",
            "1",
            "--population",
            "8",
            "--sample",
            "10",
            "--finalists",
            "1",
            "--polish",
            "0",
            "--out",
        ],
        kind: "evolved-anchors",
        holds: "evolved-strategy",
        lie: |_, p| last_f64(p, f64::NAN),
        refused: "is not a finite number",
    },
    Case {
        write: &["strategy", "train", "--first", "3", "--games", "1000", "--out"],
        kind: "learned-action-table",
        holds: "learned-strategy",
        lie: |_, p| last_f64(p, 0.5),
        refused: "is not a whole number",
    },
];

#[test]
fn every_kind_of_table_is_verified_sound_damaged_and_lying() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for case in &CASES {
        let path = d.join(format!("{}.yzs", case.kind));
        let p = path.to_str().unwrap();
        assert!(yz(d, &[case.write, &[p]].concat()).status.success(), "{:?}", case.write);
        let original = std::fs::read(&path).unwrap();
        let report = json(&yz(d, &["--json", "verify", p]));
        assert_eq!((report["ok"].as_bool(), report["holds"].as_str()), (Some(true), Some(case.holds)), "{report}");
        assert_eq!(report["game"]["categories"], serde_json::json!(["ones", "twos", "threes"]), "{report}");
        let (code, files, _) = verify(d, &path);
        assert_eq!((code, files.len()), (Some(0), 1), "{files:?}");
        assert!(files[0].starts_with(&format!("  ok    {}.yzs  ", case.kind)), "{files:?}");
        // `shard verify` checks it the same way.
        assert_eq!(yz(d, &["shard", "verify", p]).status.code(), Some(0), "{}", case.kind);

        // A flipped byte, then a cut: one BAD line, and one error line with the command
        // that produces it again (the game read from the damaged file's header).
        // The payload's last byte: before the one chunk hash and the hash of hashes.
        let mut flipped = original.clone();
        let last = flipped.len() - 17;
        flipped[last] ^= 0x10;
        let cut = original[..original.len() - 5].to_vec();
        for (damage, bytes, fault) in [("flipped", flipped, "corrupted"), ("cut", cut, "truncated")] {
            std::fs::write(&path, &bytes).unwrap();
            let (code, files, stderr) = verify(d, &path);
            assert_eq!((code, files.len()), (Some(2), 1), "{} {damage}: {files:?}", case.kind);
            assert!(files[0].starts_with("  BAD") && files[0].contains(fault), "{} {damage}: {files:?}", case.kind);
            assert!(!files[0].contains("delete it"), "{files:?}");
            assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
            let command = stderr.split('`').nth(1).unwrap_or_else(|| panic!("no command in {stderr}"));
            assert_eq!(command, format!("yz {} {} --first 3 --out {p}", case.write[0], case.write[1]), "{stderr}");
            // Run as advised, it writes a sound file again.
            let words: Vec<&str> = command.split_whitespace().skip(1).collect();
            assert!(yz(d, &words).status.success(), "{command}");
            assert_eq!(verify(d, &path).0, Some(0), "{command}");
        }

        // A lie with valid checksums: refused by the read, not by the checksums.
        reseal(&path, case.kind, case.kind, |metadata, payload| (case.lie)(metadata, payload));
        let (code, files, stderr) = verify(d, &path);
        assert_eq!(code, Some(2), "{}: {files:?}", case.kind);
        assert!(files[0].contains(case.refused), "{}: {files:?}", case.kind);
        assert!(stderr.contains(&format!("--first 3 --out {p}` produces it again")), "{stderr}");
    }
}

/// A sound table of another kind under a shard's name (a link, as a careless copy might
/// leave) is checked as the shard the tables' readers would read there, and refused; the
/// same table under its own name verifies.
#[test]
fn a_table_under_a_shards_name_is_checked_as_a_shard() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (tables, solo) = (d.join("t"), d.join("solo.yzt"));
    assert!(yz(d, &["duel", "solve", "--first", "3", "--out", tables.to_str().unwrap()]).status.success());
    assert!(yz(d, &["solo", "solve", "--first", "3", "--out", solo.to_str().unwrap()]).status.success());
    assert_eq!(verify(d, &solo).0, Some(0));
    let shard = tables.join("layer-02-shard-00000.yzs");
    std::fs::remove_file(&shard).unwrap();
    std::os::unix::fs::symlink(&solo, &shard).unwrap();
    for path in [&shard, &tables] {
        let (code, files, stderr) = verify(d, path);
        let line = files.iter().find(|l| l.contains("layer-02-shard-00000.yzs")).unwrap();
        assert!(code == Some(2) && line.contains("symbolic link"), "{files:?}");
        assert!(stderr.contains("yz duel solve --resume --out"), "{stderr}");
    }
}

/// The games `yz serve` keeps (`history.yzs`) verify as a history, and a flipped byte in
/// them is caught with the way out, not called a kind yz does not write.
#[test]
fn a_history_of_games_is_verified() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(yz::coach::history::FILE_NAME);
    let ann = yz::coach::review::PlayerTotals {
        name: "ann".into(),
        decisions: 39,
        total_loss: 3.9,
        mean_loss: 0.1,
        points: 250,
    };
    yz::coach::history::append(&path, yz::coach::history::HistoryEntry::new(1, yz::game::Rules::OFFICIAL, &[ann]))
        .unwrap();
    let report = json(&yz(dir.path(), &["--json", "verify", path.to_str().unwrap()]));
    assert_eq!((report["holds"].as_str(), report["ok"].as_bool()), (Some("game-history"), Some(true)), "{report}");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 20;
    bytes[at] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let (code, files, _) = verify(dir.path(), &path);
    assert_eq!(code, Some(2), "{files:?}");
    assert!(!files.concat().contains("does not write"), "{files:?}");
}
