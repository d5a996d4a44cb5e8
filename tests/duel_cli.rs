//! `yz duel`: solve, tables on disk, value and advice from tables or on the fly, errors.

use std::path::Path;

use super::cli::{fails_with, json, yz};

use yz::duel::sizing::count::count_layers;
use yz::duel::{Cards, Space};
use yz::game::{Game, Rules};

fn value(data: &Path, extra: &[&str]) -> f64 {
    let mut args = vec!["--json", "duel", "value", "--first", "4"];
    args.extend_from_slice(extra);
    json(&yz(data, &args))["value"].as_f64().unwrap()
}

#[test]
fn count_matches_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let out = json(&yz(dir.path(), &["--json", "duel", "count", "--first", "4"]));
    let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
    let positions: u64 = count_layers(&Space::whole_game(&cards)).iter().map(|l| l.positions).sum();
    assert_eq!(out["positions"].as_u64(), Some(positions));
}

#[test]
fn solve_then_value_and_advice_from_tables_and_on_the_fly() {
    let dir = tempfile::tempdir().unwrap();
    let solved = json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "4"]));
    let (v, win, draw, lose) = ["value", "p_win", "p_draw", "p_lose"].map(|k| solved[k].as_f64().unwrap()).into();
    assert!((win + draw + lose - 1.0).abs() < 1e-5 && (win + draw / 2.0 - v).abs() < 1e-6, "{solved}");
    assert!(v > 0.45 && v < 0.5, "the second player's information is worth something: {v}");
    // From the tables just written, then with no tables at all (solved below the position).
    let from_tables = value(dir.path(), &["--me", "", "--opp", ""]);
    assert!((from_tables - v).abs() < 1e-6, "{from_tables} vs {v}");
    let empty = tempfile::tempdir().unwrap();
    let on_the_fly = value(empty.path(), &["--me", "", "--opp", ""]);
    assert_eq!(on_the_fly, from_tables);
    // A later position: the second player to move, one box each way, both sources agree.
    let args = ["--me", "", "--opp", "fours=12"];
    assert_eq!(value(dir.path(), &args), value(empty.path(), &args));
    let advise = |data: &Path, rolls_left: &str| {
        json(&yz(
            data,
            &[
                "--json",
                "duel",
                "advise",
                "--first",
                "4",
                "--me",
                "",
                "--opp",
                "fours=12",
                "--dice",
                "4,4,4,1,2",
                "--rolls-left",
                rolls_left,
            ],
        ))
    };
    // The same advice from both sources, each named.
    let (mut keeps, mut solved) = (advise(dir.path(), "2"), advise(empty.path(), "2"));
    assert!(keeps["source"].as_str().unwrap().starts_with("tables in "), "{keeps}");
    assert_eq!(solved["source"], "a solve of the positions below");
    keeps["source"].take();
    solved["source"].take();
    assert_eq!(keeps, solved);
    let options = keeps["options"].as_array().unwrap();
    assert_eq!(options[0]["keep"], serde_json::json!([4, 4, 4]), "{keeps}");
    assert_eq!(options[0]["gap"].as_f64(), Some(0.0));
    let boxes = advise(dir.path(), "0");
    let options = boxes["options"].as_array().unwrap();
    assert_eq!(options.len(), 4);
    assert!(options.windows(2).all(|w| w[0]["value"].as_f64() >= w[1]["value"].as_f64()));
}

#[test]
fn endgame_tables_answer_late_positions() {
    let dir = tempfile::tempdir().unwrap();
    let solved = json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "4", "--max-empty", "3"]));
    assert_eq!(solved["first_layer"].as_u64(), Some(5));
    let args = ["--me", "ones=2,twos=4", "--opp", "ones=3,twos=6,threes=9"];
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(value(dir.path(), &args), value(empty.path(), &args));
}

#[test]
fn corrupt_shards_and_bad_positions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    json(&yz(dir.path(), &["--json", "duel", "solve", "--first", "3", "--out", tables.to_str().unwrap()]));
    let t = tables.to_str().unwrap();
    let start = ["duel", "value", "--first", "3", "--me", "", "--opp", "", "--tables", t];
    let shard = tables.join("layer-00-shard-00000.yzs");
    let mut bytes = std::fs::read(&shard).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&shard, &bytes).unwrap();
    fails_with(dir.path(), &start, "layer-00-shard-00000.yzs");
    std::fs::write(&shard, &bytes[..100]).unwrap();
    fails_with(dir.path(), &start, "layer-00-shard-00000.yzs");
    std::fs::write(tables.join("manifest.yzs"), b"not a manifest").unwrap();
    fails_with(dir.path(), &start, "manifest.yzs");
    let d = dir.path();
    fails_with(
        d,
        &["duel", "value", "--first", "3", "--me", "twos=4", "--opp", ""],
        "as the opponent (moving first this round) or one fewer (moving second)",
    );
    fails_with(
        d,
        &["duel", "value", "--first", "3", "--me", "", "--opp", "", "--diff", "7"],
        "a difference of 7 (the mover's points minus the opponent's) cannot occur",
    );
    fails_with(d, &["duel", "value", "--first", "3", "--me", "ones=7", "--opp", ""], "the mover's card: ones=7");
    // The full game from its start does not fit one machine's memory, so it would stream:
    // refused up front with the disk its tables and scratch need (tens of TiB).
    fails_with(d, &["duel", "solve"], "GiB more disk at once");
    // The full game from empty cards without tables: refused once the smallest layers below
    // pass the on-the-fly limit (the whole count takes seconds), naming the tables' solve.
    fails_with(d, &["duel", "value", "--me", "", "--opp", ""], "`yz duel plan` prices it");
    fails_with(d, &["duel", "solve", "--first", "3", "--stop-after-layer", "6"], "this solve covers layers 0..=5");
    fails_with(d, &["duel", "solve", "--first", "3", "--write", "3"], "expected all, none, or K..");
    fails_with(
        d,
        &["duel", "advise", "--first", "3", "--me", "", "--opp", "", "--dice", "1,2,3", "--rolls-left", "0"],
        "dice",
    );
}

/// A table directory of store format version 1, duel shard version 2
/// ([`yz::duel::shard::SHARD_KIND`]) and manifest version 3 ([`yz::duel::shard::MANIFEST_KIND`]),
/// made by `yz duel solve --first 2 --out tests/data/duel-official-0003-start`, still loads
/// and still holds the values a solve gives now; its manifest as version 2 wrote it
/// (`tests/data/duel-manifest-v2.yzs`, every shard in the JSON metadata) is refused with
/// the remedy.
#[test]
fn format_version_1_fixture_loads() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/duel-official-0003-start");
    let empty = tempfile::tempdir().unwrap();
    let f = fixture.to_str().unwrap();
    for (me, opp) in [("", ""), ("", "ones=2"), ("twos=4", "ones=1")] {
        let stored = json(&yz(
            empty.path(),
            &["--json", "duel", "value", "--first", "2", "--me", me, "--opp", opp, "--tables", f],
        ));
        let fresh = json(&yz(empty.path(), &["--json", "duel", "value", "--first", "2", "--me", me, "--opp", opp]));
        assert_eq!(stored["value"], fresh["value"], "{me:?} vs {opp:?}");
        assert!(stored["source"].as_str().unwrap().starts_with("tables"));
    }
    let old = empty.path().join("old");
    std::fs::create_dir(&old).unwrap();
    for entry in std::fs::read_dir(&fixture).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), old.join(entry.file_name())).unwrap();
    }
    std::fs::copy(fixture.join("../duel-manifest-v2.yzs"), old.join("manifest.yzs")).unwrap();
    let o = old.to_str().unwrap();
    let remedy = "made for table version 2, not 3; its shard list is in another format";
    fails_with(empty.path(), &["duel", "value", "--first", "2", "--me", "", "--opp", "", "--tables", o], remedy);
    let verify = yz(empty.path(), &["shard", "verify", o]);
    assert_eq!(verify.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&verify.stdout).contains(remedy), "{verify:?}");
    fails_with(empty.path(), &["duel", "solve", "--first", "2", "--out", o, "--resume"], remedy);
}

/// Golden bytes: a fresh `yz duel solve --first 3` writes every file of
/// `tests/data/duel-official-0007-zstd1` (shards at zstd level 1, issue 42) byte for byte,
/// so a change of byte order, compression or layout fails here.
#[test]
fn a_solve_writes_the_committed_bytes() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/duel-official-0007-zstd1");
    let empty = tempfile::tempdir().unwrap();
    let out = empty.path().join("fresh");
    json(&yz(empty.path(), &["--json", "duel", "solve", "--first", "3", "--out", out.to_str().unwrap()]));
    let names = |dir: &Path| {
        let mut names: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        names
    };
    assert_eq!(names(&out), names(&fixture));
    for name in names(&fixture) {
        let (golden, written) = (std::fs::read(fixture.join(&name)).unwrap(), std::fs::read(out.join(&name)).unwrap());
        assert!(golden == written, "{name:?} is no longer written as the committed bytes");
    }
}

/// Tables whose shards an older yz wrote at zstd level 3 (`tests/data/duel-official-0007-zstd3`,
/// `yz duel solve --first 3` at 55e73f4) give the values a solve gives now, and a damaged
/// shard of them is repaired by the advised command byte for byte: the repair rewrites it
/// with the codec that wrote it, since the manifest lists that file's checksum.
#[test]
fn tables_of_zstd_level_3_load_and_repair_byte_for_byte() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/duel-official-0007-zstd3");
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("old");
    std::fs::create_dir(&tables).unwrap();
    for entry in std::fs::read_dir(&fixture).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), tables.join(entry.file_name())).unwrap();
    }
    let t = tables.to_str().unwrap();
    for (me, opp) in [("", ""), ("", "ones=2"), ("twos=4", "threes=9")] {
        let ask = ["--json", "duel", "value", "--first", "3", "--me", me, "--opp", opp];
        let stored = json(&yz(dir.path(), &[&ask[..], &["--tables", t]].concat()));
        let fresh = json(&yz(dir.path(), &ask));
        assert_eq!(stored["value"], fresh["value"], "{me:?} vs {opp:?}");
        assert!(stored["source"].as_str().unwrap().starts_with("tables"));
    }
    // Layer 4's level-3 frame differs from level 1's, so only the old codec gives it back.
    let name = "layer-04-shard-00000.yzs";
    let golden = std::fs::read(fixture.join(name)).unwrap();
    let mut damaged = golden.clone();
    let at = damaged.len() - 40;
    damaged[at] ^= 0x01;
    std::fs::write(tables.join(name), &damaged).unwrap();
    let repaired = json(&yz(dir.path(), &["--json", "duel", "solve", "--resume", "--out", t]));
    assert_eq!(repaired["repaired"], serde_json::json!([name]), "{repaired}");
    assert!(std::fs::read(tables.join(name)).unwrap() == golden, "the repaired shard is the committed file");
    let verify = yz(dir.path(), &["shard", "verify", t]);
    assert!(verify.status.success(), "{verify:?}");
}

/// Stored values carry the solve's `f32` rounding, up to about 10⁻⁶ above 1: scoring
/// threes for 0 against an opponent whose 15 in threes leaves them a value of 1.000001
/// printed as a chance of -0.000001 (or -0.000000). Every chance shown is one, in text and
/// JSON.
#[test]
fn chances_are_never_negative() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json(&yz(d, &["--json", "duel", "solve", "--first", "3"]));
    let ask =
        ["duel", "advise", "--first", "3", "--me", "", "--opp", "threes=15", "--dice", "11111", "--rolls-left", "0"];
    let out = yz(d, &ask);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && !text.contains("-0.0"), "{text}");
    let threes = text.lines().find(|l| l.contains("score threes for 0")).unwrap();
    assert_eq!(threes.split_whitespace().nth(4), Some("0.000000"), "{text}");
    let advice = json(&yz(d, &[&["--json"], &ask[..]].concat()));
    let options = advice["options"].as_array().unwrap();
    assert!(options.iter().all(|o| (0.0..=1.0).contains(&o["value"].as_f64().unwrap())), "{advice}");
    let best = options[0]["value"].as_f64().unwrap();
    assert!(
        options.iter().all(|o| (o["gap"].as_f64().unwrap() - (best - o["value"].as_f64().unwrap())).abs() < 1e-12),
        "{advice}"
    );
    // The position after it, valued itself: 1.000001 as stored, a chance of 1.
    let args = ["--json", "duel", "value", "--first", "3", "--me", "threes=15", "--opp", "threes=0"];
    assert_eq!(json(&yz(d, &args))["value"].as_f64(), Some(1.0));
}

/// Without game flags, a position the full game cannot answer (no tables, too large to
/// solve now) is asked in the game of the tables in the data directory that hold it,
/// named on standard error; where tables of several games do, the command asks for the
/// flags, naming each.
/// Without game flags, cards of the full game are answered by the full game alone: tables
/// of another game that hold the same cards are named in its refusal, and used only where
/// named (`--tables`, or the game's flags; issue 40: the first-4 game's value was given for
/// the full game's empty cards). Cards that are no position of the full game (a Yatzy box)
/// are answered from the tables of the game they belong to, which the answer names.
#[test]
fn advice_finds_the_tables_that_cover_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json(&yz(d, &["--json", "duel", "solve", "--first", "4"]));
    let tables = d.join("duel-official-000f-start");
    let tables_arg = tables.to_str().unwrap();
    let position = ["--me", "", "--opp", "fours=12"];
    let advise = [&["duel", "advise"], &position[..], &["--dice", "4,4,4,1,2", "--rolls-left", "2"]].concat();
    let as_json = |args: &[&str]| json(&yz(d, &[&["--json"], args].concat()));
    let with_flags = as_json(&[&advise[..], &["--first", "4"]].concat());
    // The answer names its game, in words and as flags, and its tables.
    assert_eq!(
        (with_flags["game"].as_str(), with_flags["game_flags"].as_str()),
        (Some("official, first 4 boxes"), Some("--first 4"))
    );
    assert!(with_flags["source"].as_str().unwrap().contains("duel-official-000f-start"), "{with_flags}");
    let text = yz(d, &[&advise[..], &["--first", "4"]].concat());
    let first = String::from_utf8_lossy(&text.stdout).lines().next().unwrap_or_default().to_owned();
    assert_eq!(first, format!("game: official, first 4 boxes (--first 4); values from tables in {}", tables.display()));
    // Without flags: the full game's refusal, naming the first-4 tables and how to ask them.
    let refusal = format!(
        "the tables of official, first 4 boxes (--first 4) in {} hold the same cards as a position of another game, \
         which was not asked",
        tables.display()
    );
    fails_with(d, &advise, &refusal);
    fails_with(d, &[&["duel", "value"], &position[..]].concat(), &refusal);
    fails_with(d, &["duel", "value", "--me", "", "--opp", ""], &refusal);
    // Named with --tables: answered from them, and said so.
    let named = yz(d, &[&["--json"], &advise[..], &["--tables", tables_arg]].concat());
    assert_eq!(json(&named), with_flags);
    let note = format!("using the tables of official, first 4 boxes (--first 4) in {}; pass", tables.display());
    assert!(String::from_utf8_lossy(&named.stderr).contains(&note), "{}", String::from_utf8_lossy(&named.stderr));
    let value = |extra: &[&str]| {
        let mut value = as_json(&[&["duel", "value"], extra].concat());
        value["seconds"].take();
        value
    };
    assert_eq!(
        value(&[&position[..], &["--tables", tables_arg]].concat()),
        value(&[&position[..], &["--first", "4"]].concat())
    );
    // A box in neither game: the full game's refusal alone, which names the tables to solve.
    fails_with(d, &["duel", "value", "--me", "", "--opp", "chance=20"], "yz duel plan --max-empty 25");
    // Game flags given are the game asked, tables or not.
    fails_with(d, &["duel", "value", "--me", "", "--opp", "", "--first", "5", "--tables", tables_arg], "was made for");

    // Yatzy cards are no position of the full game: the Yatzy tables answer, named.
    let yatzy = ["--rules", "yatzy", "--categories", "ones,pair"];
    as_json(&[&["duel", "solve"], &yatzy[..]].concat());
    let pair = ["--me", "", "--opp", "pair=8"];
    let answered = yz(d, &[&["--json", "duel", "value"], &pair[..]].concat());
    assert!(String::from_utf8_lossy(&answered.stderr).contains("using the tables of yatzy"));
    let mut answered = json(&answered);
    answered["seconds"].take();
    assert_eq!(answered, value(&[&pair[..], &yatzy[..]].concat()));
    assert!(answered["game"].as_str().unwrap().starts_with("yatzy"), "{answered}");
    // Tables of a second game that also holds those cards: the choice is the user's.
    as_json(&["duel", "solve", "--rules", "yatzy", "--categories", "pair,twos"]);
    fails_with(d, &[&["duel", "value"], &pair[..]].concat(), "tables of several games can");
}

/// Memory advice in totals a user can check against the machine: a streamed solve says
/// what it would need in memory in all and what this machine has (here the Slurm
/// allocation on it), a solve below its streaming floor the same, and `duel plan` the
/// memory of the ranks it would fit on, in all.
#[test]
fn memory_advice_is_in_totals() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_yz"));
        command.arg("--data").arg(d).args(args).envs(env.iter().copied());
        command.output().unwrap()
    };
    let out = d.join("six");
    let solve = ["duel", "solve", "--first", "6", "--stop-after-layer", "6", "--out", out.to_str().unwrap()];
    let streamed = run(&[("YZ_SHARD_POSITIONS", "4096"), ("SLURM_MEM_PER_NODE", "20")], &solve);
    let stderr = String::from_utf8_lossy(&streamed.stderr);
    assert!(streamed.status.success(), "{stderr}");
    let note = stderr.lines().find(|l| l.starts_with("streaming: ")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(note.starts_with("streaming: this solve needs ") && note.contains(" MiB in all in memory"), "{note}");
    assert!(note.contains("this machine has 20.0 MiB available"), "{note}");
    assert!(note.contains("machines like this one, one rank each"), "{note}");

    let below =
        run(&[("SLURM_MEM_PER_NODE", "10")], &[&solve[..6], &["--out", d.join("below").to_str().unwrap()]].concat());
    let stderr = String::from_utf8_lossy(&below.stderr);
    assert_eq!(below.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("in all at 1 rank(s), but this machine has 10.0 MiB available"), "{stderr}");

    let plan =
        ["duel", "plan", "--first", "8", "--ranks", "1", "--mem-per-rank", "0.01", "--sample", "1000", "--runs", "1"];
    let planned = run(&[], &[&plan[..], &["--disk-gbps", "1"]].concat());
    let stdout = String::from_utf8_lossy(&planned.stdout);
    let peak = stdout.lines().find(|l| l.starts_with("peak per rank")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(peak.contains("this solve needs ") && peak.contains("in all in memory"), "{peak}");
    assert!(peak.contains("the ranks have 10.2 MiB in all (10.2 MiB each)"), "{peak}");
    assert!(peak.contains("ranks of 10.2 MiB each ("), "{peak}");
}

/// `--gpu` where this yz has no GPU kernel (the default build) is refused with the reason
/// and what to do, by `duel value` (where it would solve below the position) and by `duel
/// plan` (which then suggests pricing at a rate measured elsewhere); a solve the tables
/// answer needs no GPU.
#[test]
#[cfg(not(feature = "gpu"))]
fn gpu_flags_without_the_gpu_build_say_what_to_build() {
    let dir = tempfile::tempdir().unwrap();
    let position = ["duel", "value", "--first", "3", "--me", "", "--opp", "", "--gpu"];
    fails_with(dir.path(), &position, "could not run on the GPU: this yz was built without the `gpu` feature");
    let plan = ["duel", "plan", "--first", "3", "--ranks", "2", "--gpu", "--sample", "100000", "--runs", "1"];
    fails_with(dir.path(), &plan, "give --gpu-rate LANE_UPDATES_PER_S");
    yz(dir.path(), &["duel", "solve", "--first", "4"]);
    let from_tables = value(dir.path(), &["--me", "", "--opp", "", "--gpu"]);
    assert_eq!(from_tables, value(dir.path(), &["--me", "", "--opp", ""]));
}

/// `duel plan --gpu-rate R` prices the solve on the machines of GPUs: each one's GPU-hours
/// are every layer's lane-updates over `R`, whatever the GPUs, and its wall time is at
/// least the GPU-hours over its GPUs; a rate that is none is refused.
#[test]
fn a_plan_at_a_given_gpu_rate_prices_gpu_hours_from_the_lane_updates() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--json", "duel", "plan", "--first", "6", "--ranks", "4", "--sample", "100000", "--runs", "1"];
    let plan = json(&yz(dir.path(), &[&args[..], &["--gpu-rate", "1e9", "--pcie-gbps", "10"]].concat()));
    let lane_updates: f64 =
        plan["plan"]["layers"].as_array().unwrap().iter().map(|l| l["lane_updates"].as_f64().unwrap()).sum();
    let gpu = &plan["gpu"];
    assert_eq!(gpu["rates"]["pcie_bytes_per_second"].as_f64(), Some(10e9));
    let machines = gpu["machines"].as_array().unwrap();
    assert_eq!(machines.len(), 2);
    for m in machines {
        let gpu_hours = m["gpu_hours"].as_f64().unwrap();
        assert!((gpu_hours * 3600.0 * 1e9 / lane_updates - 1.0).abs() < 1e-9, "{m}");
        let gpus = m["gpus"].as_f64().unwrap();
        assert!(m["wall_hours"].as_f64().unwrap() >= gpu_hours / gpus * 0.999, "{m}");
        let bound: u64 = m["bound_by"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap()).sum();
        assert_eq!(bound as usize, plan["plan"]["layers"].as_array().unwrap().len());
    }
    assert!(json(&yz(dir.path(), &args))["gpu"].is_null(), "no GPU asked, none priced");
    fails_with(dir.path(), &[&args[1..], &["--gpu-rate", "0"]].concat(), "--gpu-rate: 0 is not a rate");
}

/// `--resume` into a directory that does not exist (a mistyped path) is refused at once,
/// naming it, instead of starting a new solve there; a directory without a manifest (a
/// solve stopped before its first layer) still starts afresh.
#[test]
fn a_resume_into_no_directory_says_there_is_nothing_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("duel-tabels");
    let typo = typo.to_str().unwrap();
    fails_with(dir.path(), &["duel", "solve", "--first", "3", "--out", typo, "--resume"], "nothing to resume");
    assert!(!Path::new(typo).exists(), "nothing was made there");
    let stopped = dir.path().join("stopped");
    std::fs::create_dir(&stopped).unwrap();
    let args = ["--json", "duel", "solve", "--first", "3", "--out", stopped.to_str().unwrap(), "--resume"];
    assert!(json(&yz(dir.path(), &args))["value"].as_f64().is_some());
}

/// A position no tables hold and too large to solve on the fly is refused with the
/// commands that would give its tables, with the game's flags: the start of a game points
/// to the whole solve's plan and cluster job, not to a `--max-empty` of every box, and the
/// count it gives is where counting stopped, with the command that counts it all.
#[test]
fn a_refusal_names_the_commands_for_its_own_game() {
    let dir = tempfile::tempdir().unwrap();
    let start = ["duel", "value", "--first", "10", "--me", "", "--opp", ""];
    fails_with(dir.path(), &start, "`yz duel plan --first 10` prices it");
    fails_with(dir.path(), &start, "`yz duel count --first 10` counts them all");
    let out = yz(dir.path(), &start);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("--max-empty 20"), "{out:?}");
    let later = ["duel", "value", "--me", "ones=3", "--opp", "twos=6"];
    fails_with(dir.path(), &later, "`yz duel solve --max-empty 24`");
}
