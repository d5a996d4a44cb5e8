//! Writers beside a user's files (once the `writers` rows of `scripts/hostile`): a solve
//! into a directory of a user's files keeps them; refusals (other tables, a damaged
//! manifest, an `--out` that is a file or a directory) lose nothing; a damaged shard is
//! repaired bit for bit; a solve killed mid-way resumes to the uninterrupted value; and
//! every writer whose output is a link to a user's file or to a FIFO replaces the link
//! with its own file or refuses, never writing through it.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::hostile::copy_dir;
use super::hostile_cli::{Run, USER_FILES, run, snapshot, unclean_message};

/// What a case must do.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Succeed (status 0).
    Succeed,
    /// Refuse cleanly (status 2, a short message).
    Refuse,
}
use Expect::{Refuse, Succeed};

/// Puts a user's files into `dir` (created if missing).
fn put_user_files(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    for (name, content) in USER_FILES {
        fs::write(dir.join(name), content).unwrap();
    }
}

/// Whether a solve may replace `path`: a table, or (on a resume) the temporary file of a
/// writer it interrupted, named exactly `.NAME.tmp.PID.N`.
fn is_table(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let temp = {
        let parts: Vec<&str> = name.rsplitn(3, '.').collect();
        parts.len() == 3 && digits(parts[0]) && digits(parts[1]) && parts[2].ends_with(".tmp")
    };
    let shard =
        name.starts_with("layer-") && name.ends_with(".yzs") && (name.contains("-shard-") || name.contains("-draw-"));
    temp || shard || name == "manifest.yzs" || name.ends_with(".yzt")
}

/// The cases run so far, with what failed.
struct Audit {
    cwd: PathBuf,
    cases: usize,
    failures: Vec<String>,
}

impl Audit {
    /// Runs `yz argv`, which must do `expect`, and must leave every file under `dirs` as
    /// it was but those `allowed` may change where it succeeded; `check` says what else is
    /// wrong with its run, if anything.
    fn case(
        &mut self,
        label: &str,
        argv: &[&str],
        expect: Expect,
        dirs: &[&Path],
        allowed: impl Fn(&Path) -> bool,
        check: impl Fn(&Run) -> Option<String>,
    ) -> Run {
        let argv: Vec<String> = argv.iter().map(|a| a.to_string()).collect();
        let before = snapshot(dirs);
        let r = run(&argv, &self.cwd);
        let after = snapshot(dirs);
        self.cases += 1;
        let succeeded = r.code == Some(0);
        let why = match (r.timed_out, r.signal, expect) {
            (true, ..) => Some("still running at its timeout".to_owned()),
            (_, Some(signal), _) => Some(format!("killed by signal {signal}")),
            (.., Succeed) if !succeeded => Some(format!("exit {:?}", r.code)),
            (.., Refuse) if r.code != Some(2) => Some(format!("exit {:?} where a refusal was due", r.code)),
            (.., Refuse) => unclean_message(&r.stderr),
            _ => None,
        }
        .or_else(|| check(&r));
        let lost: Vec<&PathBuf> = before
            .iter()
            .filter(|(path, meta)| after.get(*path) != Some(meta) && !(succeeded && allowed(path)))
            .map(|(path, _)| path)
            .collect();
        let last = r.stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("(no stderr)").to_owned();
        if let Some(why) = why {
            self.failures.push(format!("{label}: yz {argv:?}: {why}: {last}"));
        }
        if !lost.is_empty() {
            self.failures.push(format!("{label}: yz {argv:?}: changed or removed {lost:?}"));
        }
        r
    }
}

/// No further check.
fn nothing(_: &Run) -> Option<String> {
    None
}

/// Nothing may change.
fn none(_: &Path) -> bool {
    false
}

/// Every file of `dir` by name, with its bytes.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// Writes `bytes` at `offset` of `path` (from its end where negative).
fn damage(path: &Path, offset: i64, bytes: &[u8]) {
    let mut all = fs::read(path).unwrap();
    let at = if offset < 0 { all.len() - (-offset) as usize } else { offset as usize };
    all[at..at + bytes.len()].copy_from_slice(bytes);
    fs::write(path, all).unwrap();
}

/// The value, P(win), P(draw), P(lose) and table size a `--json duel solve` reports.
fn solved(stdout: &str) -> Option<Vec<Value>> {
    let report: Value = serde_json::from_str(stdout).ok()?;
    Some(["value", "p_win", "p_draw", "p_lose", "table_bytes"].iter().map(|k| report[*k].clone()).collect())
}

#[test]
fn writers_never_lose_a_users_file() {
    let root = tempfile::tempdir().unwrap();
    let at = |name: &str| root.path().join(name);
    let (cwd, t4) = (at("cwd"), at("t4"));
    fs::create_dir_all(&cwd).unwrap();
    let mut audit = Audit { cwd: cwd.clone(), cases: 0, failures: Vec::new() };
    let s = |path: &Path| path.to_str().unwrap().to_owned();
    audit.case(
        "the four-box tables",
        &["duel", "solve", "--first", "4", "--out", &s(&t4)],
        Succeed,
        &[],
        none,
        nothing,
    );

    // A solve into a directory holding a user's files: they survive; the tables are whole.
    let d = at("users-dir");
    put_user_files(&d);
    audit.case(
        "user files beside a fresh duel solve",
        &["duel", "solve", "--first", "3", "--out", &s(&d)],
        Succeed,
        &[&d],
        none,
        nothing,
    );
    audit.case("verify after it", &["shard", "verify", &s(&d)], Succeed, &[&d], none, nothing);
    let solo = at("solo");
    put_user_files(&solo);
    let (solo_out, targets_out) = (s(&solo.join("solo.yzt")), s(&solo.join("targets.yzt")));
    audit.case(
        "user files beside a solo solve",
        &["solo", "solve", "--first", "3", "--out", &solo_out],
        Succeed,
        &[&solo],
        none,
        nothing,
    );
    audit.case(
        "user files beside a targets solve",
        &["targets", "solve", "--first", "3", "--out", &targets_out],
        Succeed,
        &[&solo],
        none,
        nothing,
    );
    // The same game solved again over whole tables with a user's files: tables only change.
    audit.case(
        "same game solved again",
        &["duel", "solve", "--first", "3", "--out", &s(&d)],
        Succeed,
        &[&d],
        is_table,
        nothing,
    );

    // Refusals that must lose nothing.
    let four = at("four");
    copy_dir(&t4, &four);
    put_user_files(&four);
    let f = s(&four);
    for argv in [
        &["duel", "solve", "--first", "3", "--out", &f][..],
        &["duel", "solve", "--first", "4", "--max-empty", "3", "--out", &f],
        &["duel", "solve", "--rules", "no-joker", "--first", "4", "--out", &f],
        &["duel", "solve", "--first", "3", "--out", &f, "--resume"],
        &["duel", "solve", "--first", "4", "--max-empty", "3", "--out", &f, "--resume"],
    ] {
        audit.case("other tables, no --force", argv, Refuse, &[&four], none, nothing);
    }
    let bad = at("bad-manifest");
    copy_dir(&t4, &bad);
    put_user_files(&bad);
    damage(&bad.join("manifest.yzs"), 100, b"\xff");
    audit.case(
        "damaged manifest, no --resume",
        &["duel", "solve", "--first", "4", "--out", &s(&bad)],
        Refuse,
        &[&bad],
        none,
        nothing,
    );
    audit.case(
        "damaged manifest, --resume",
        &["duel", "solve", "--first", "4", "--out", &s(&bad), "--resume"],
        Refuse,
        &[&bad],
        none,
        nothing,
    );
    // --resume recomputes a damaged shard from the layer above: the same bytes as before.
    let bad_shard = at("bad-shard");
    copy_dir(&t4, &bad_shard);
    damage(&bad_shard.join("layer-03-shard-00000.yzs"), -20, b"\x00\x01");
    put_user_files(&bad_shard);
    let sound = contents(&t4);
    let repaired = |_: &Run| {
        let now: Vec<(String, Vec<u8>)> =
            contents(&bad_shard).into_iter().filter(|(name, _)| sound.iter().any(|(n, _)| n == name)).collect();
        (now != sound).then(|| "files differ from the undamaged tables after the repair".to_owned())
    };
    let shard_repaired = |p: &Path| p.ends_with("layer-03-shard-00000.yzs");
    let argv = ["duel", "solve", "--first", "4", "--out", &s(&bad_shard), "--resume"];
    audit.case("damaged shard, --resume repairs it", &argv, Succeed, &[&bad_shard], shard_repaired, repaired);

    // --out naming a file for a directory, or a directory for a file.
    let plain = at("plain-file");
    fs::write(&plain, "a user's file\n").unwrap();
    let everything = root.path().to_owned();
    audit.case(
        "--out is a file",
        &["duel", "solve", "--first", "3", "--out", &s(&plain)],
        Refuse,
        &[&everything],
        none,
        nothing,
    );
    let full_dir = at("full-dir");
    put_user_files(&full_dir);
    let fd = s(&full_dir);
    for argv in [
        &["solo", "solve", "--first", "3", "--out", &fd][..],
        &["targets", "solve", "--first", "3", "--out", &fd],
        &["strategy", "train", "--first", "3", "--games", "100", "--out", &fd],
        &["strategy", "evolve", "--first", "3", "--generations", "1", "--population", "20", "--out", &fd],
    ] {
        audit.case("--out is a directory", argv, Refuse, &[&everything], none, nothing);
    }

    // Killed mid-solve (once the manifest lists a layer), then resumed: the value of an
    // uninterrupted solve, the user's files kept.
    let whole = audit.case(
        "uninterrupted",
        &["--json", "duel", "solve", "--first", "5", "--out", &s(&at("whole"))],
        Succeed,
        &[],
        none,
        nothing,
    );
    let want = solved(&whole.stdout);
    let killed = at("killed");
    put_user_files(&killed);
    let killed_before_it_ended = kill_once_a_layer_is_listed(&killed, &cwd);
    assert!(killed_before_it_ended, "the first-5 solve finished before it could be killed: the resume proves nothing");
    let same_value = |r: &Run| {
        let got = solved(&r.stdout);
        (got != want).then(|| format!("resumed {got:?} differs from the uninterrupted {want:?}"))
    };
    let argv = ["--json", "duel", "solve", "--first", "5", "--out", &s(&killed), "--resume"];
    audit.case("resume after SIGKILL", &argv, Succeed, &[&killed], is_table, same_value);
    audit.case("verify after the resume", &["shard", "verify", &s(&killed)], Succeed, &[&killed], none, nothing);
    let stopped = at("stopped");
    put_user_files(&stopped);
    let argv = ["duel", "solve", "--first", "5", "--out", &s(&stopped), "--stop-after-layer", "6"];
    audit.case("stop after layer 6", &argv, Succeed, &[&stopped], none, nothing);
    let argv = ["--json", "duel", "solve", "--first", "5", "--out", &s(&stopped), "--resume"];
    audit.case("resume from layer 6", &argv, Succeed, &[&stopped], is_table, same_value);

    links(&mut audit, &at("links-root"));
    assert!(audit.cases >= 35, "{} cases", audit.cases);
    assert!(
        audit.failures.is_empty(),
        "{} of {} cases failed:\n{}",
        audit.failures.len(),
        audit.cases,
        audit.failures.join("\n")
    );
}

/// Starts `duel solve --first 5 --out dir` and kills it (SIGKILL) once its manifest lists a
/// layer (a fresh manifest lists none, about 280 bytes; a layer adds about 100): whether it
/// was still running then.
fn kill_once_a_layer_is_listed(dir: &Path, cwd: &Path) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_yz"))
        .args(["duel", "solve", "--first", "5", "--out"])
        .arg(dir)
        .current_dir(cwd)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (manifest, started) = (dir.join("manifest.yzs"), Instant::now());
    while started.elapsed() < Duration::from_secs(60) && child.try_wait().unwrap().is_none() {
        if fs::metadata(&manifest).is_ok_and(|m| m.len() > 350) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    child.wait().unwrap();
    running
}

/// Every writer's output a symbolic link to a user's file, or to a FIFO: the write replaces
/// the link with its own file or is refused; the user's file and the FIFO are never
/// written (the snapshot covers the whole directory).
fn links(audit: &mut Audit, root: &Path) {
    let links = root.join("links");
    fs::create_dir_all(&links).unwrap();
    let victim = root.join("victim.txt");
    fs::write(&victim, "a user's file\n").unwrap();
    let fifo = root.join("user.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let replaced = |out: PathBuf| {
        move |r: &Run| {
            let own_file = fs::symlink_metadata(&out).is_ok_and(|m| m.file_type().is_file());
            (r.code == Some(0) && !own_file).then(|| format!("{} is still a link after the write", out.display()))
        }
    };
    let writers: [(&str, &[&str], Expect); 6] = [
        ("solo table", &["solo", "solve", "--first", "3", "--out"], Succeed),
        ("target table", &["targets", "solve", "--first", "3", "--out"], Succeed),
        ("trained strategy", &["strategy", "train", "--first", "3", "--games", "100", "--out"], Succeed),
        (
            "evolved strategy",
            &["strategy", "evolve", "--first", "3", "--generations", "1", "--population", "20", "--out"],
            Succeed,
        ),
        ("plot", &["solo", "stats", "--first", "3", "--plot"], Succeed),
        // A record never replaces another file, a link to one included.
        ("game record", &["play", "--first", "1", "--seed", "1", "--save"], Refuse),
    ];
    for (label, argv, expect) in writers {
        let out = links.join(label.replace(' ', "-"));
        symlink(&victim, &out).unwrap();
        let with = |path: &Path| -> Vec<String> {
            argv.iter().map(|a| a.to_string()).chain([path.to_str().unwrap().to_owned()]).collect()
        };
        let at_link = with(&out);
        let refs: Vec<&str> = at_link.iter().map(String::as_str).collect();
        let is_out = |p: &Path| p == out;
        let check = replaced(out.clone());
        let check = |r: &Run| if expect == Succeed { check(r) } else { None };
        audit.case(&format!("{label} at a link to a user's file"), &refs, expect, &[root], is_out, check);
        let to_fifo = PathBuf::from(format!("{}-fifo", out.display()));
        symlink(&fifo, &to_fifo).unwrap();
        let at_fifo = with(&to_fifo);
        let refs: Vec<&str> = at_fifo.iter().map(String::as_str).collect();
        audit.case(&format!("{label} at a link to a FIFO"), &refs, Refuse, &[root], none, nothing);
    }
    // A duel solve into a directory whose manifest, or one of whose shards, is a link.
    let (manifest_dir, shard_dir, fifo_dir) =
        (root.join("link-manifest"), root.join("link-shard"), root.join("link-fifo-shard"));
    for dir in [&manifest_dir, &shard_dir, &fifo_dir] {
        fs::create_dir_all(dir).unwrap();
    }
    symlink(&victim, manifest_dir.join("manifest.yzs")).unwrap();
    let s = |path: &Path| path.to_str().unwrap().to_owned();
    audit.case(
        "duel solve over a linked manifest",
        &["duel", "solve", "--first", "3", "--out", &s(&manifest_dir)],
        Refuse,
        &[root],
        none,
        nothing,
    );
    let shard = shard_dir.join("layer-05-shard-00000.yzs");
    symlink(&victim, &shard).unwrap();
    let inside = |p: &Path| p.starts_with(&shard_dir);
    audit.case(
        "duel solve over a linked shard",
        &["duel", "solve", "--first", "3", "--out", &s(&shard_dir)],
        Succeed,
        &[root],
        inside,
        replaced(shard.clone()),
    );
    symlink(&fifo, fifo_dir.join("layer-04-shard-00000.yzs")).unwrap();
    audit.case(
        "duel solve over a shard linked to a FIFO",
        &["duel", "solve", "--first", "3", "--out", &s(&fifo_dir)],
        Refuse,
        &[root],
        none,
        nothing,
    );
}
