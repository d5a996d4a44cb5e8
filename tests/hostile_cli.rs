//! Bad command lines, refused cleanly: the `cli` rows of `scripts/hostile`, as a test.
//!
//! Every case runs the real binary (under a 10 s timeout and a 4 GiB address-space limit)
//! on small solved tables and fixture files (a text file, a directory, a FIFO, a dangling
//! link, `/dev/zero`), and must exit with status 2 and an `error: ...` message of at most
//! six lines, with no panic text and no control characters (a file's bytes quoted raw),
//! after taking less than 1 GiB of memory, and leave every file of the data directory,
//! the working directory and the fixtures as it was. The refusals that must also be fast
//! and small (up front, before any solving) stay in the script, which times them.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// Seconds a case may run.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The address-space limit of each case, in bytes: a runaway case fails, not the machine.
const ADDRESS_SPACE: u64 = 4 << 30;
/// A refusal that first took more memory than this (reading `/dev/zero` to the end, say)
/// is not clean.
const REFUSAL_RSS_BYTES: u64 = 1 << 30;

/// Files a user keeps beside the tables, which no refusal may touch.
pub(super) const USER_FILES: [(&str, &str); 4] = [
    (".thesis.tmp.backup", "three years of work\n"),
    ("notes.txt", "do not delete\n"),
    (".layer-00-shard-00000.yzs.tmp.backup", "mine\n"),
    ("manifest.yzs.orig", "a user's copy\n"),
];

/// What one run of the binary did.
pub(super) struct Run {
    pub(super) code: Option<i32>,
    pub(super) signal: Option<i32>,
    pub(super) timed_out: bool,
    pub(super) stdout: String,
    pub(super) stderr: String,
    pub(super) max_rss_bytes: u64,
}

/// Runs `yz argv` in `cwd` in a process group of its own, killed (the whole group) after
/// [`TIMEOUT`], under [`ADDRESS_SPACE`], with its peak resident memory.
pub(super) fn run(argv: &[String], cwd: &Path) -> Run {
    let (stdout_file, stderr_file) = (tempfile::NamedTempFile::new().unwrap(), tempfile::NamedTempFile::new().unwrap());
    let mut command = Command::new(env!("CARGO_BIN_EXE_yz"));
    command
        .args(argv)
        .current_dir(cwd)
        .env("RUST_BACKTRACE", "0")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(stdout_file.reopen().unwrap())
        .stderr(stderr_file.reopen().unwrap())
        .process_group(0);
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: ADDRESS_SPACE, rlim_max: ADDRESS_SPACE };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // Reaped by wait4 below, which also gives its peak memory.
    #[allow(clippy::zombie_processes)]
    let child = command.spawn().expect("yz runs");
    let pid = child.id() as libc::pid_t;
    let started = Instant::now();
    let (mut status, mut timed_out) = (0, false);
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child, writing into locals that outlive the call.
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if done == pid {
            break;
        }
        if started.elapsed() > TIMEOUT && !timed_out {
            timed_out = true;
            // SAFETY: signals the child's own process group.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let read = |file: &tempfile::NamedTempFile| String::from_utf8_lossy(&fs::read(file.path()).unwrap()).into_owned();
    let (stdout, stderr) = (read(&stdout_file), read(&stderr_file));
    let exited = libc::WIFEXITED(status);
    Run {
        code: exited.then(|| libc::WEXITSTATUS(status)),
        signal: (libc::WIFSIGNALED(status) && !timed_out).then(|| libc::WTERMSIG(status)),
        timed_out,
        stdout,
        stderr,
        max_rss_bytes: usage.ru_maxrss as u64 * 1024,
    }
}

/// A duel solve's progress line (or its note that it streams), printed before an error.
fn is_progress(line: &str) -> bool {
    line.starts_with("streaming: ")
        || (line.starts_with("layer ") && line.contains("): ") && line.contains(" positions in "))
}

/// Why `stderr` is not a clean refusal, if it is not.
pub(super) fn unclean_message(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty() && !is_progress(l)).collect();
    if lines.first().is_none_or(|l| !l.starts_with("error:")) {
        return Some("no `error: ...` first".into());
    }
    if lines.len() > 6 {
        return Some(format!("{} lines of message", lines.len()));
    }
    if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
        return Some("panic text".into());
    }
    let control = |c: char| matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}');
    stderr.contains(control).then(|| "control characters".into())
}

/// Each file under `roots` (links not followed): its length and modification time.
pub(super) fn snapshot(roots: &[&Path]) -> BTreeMap<PathBuf, (u64, Option<SystemTime>)> {
    let mut files = BTreeMap::new();
    let mut stack: Vec<PathBuf> = roots.iter().map(|r| r.to_path_buf()).collect();
    while let Some(path) = stack.pop() {
        let Ok(meta) = fs::symlink_metadata(&path) else { continue };
        if meta.is_dir() {
            stack.extend(fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else {
            files.insert(path, (meta.len(), meta.modified().ok()));
        }
    }
    files
}

/// The small solved tables and the fixture files the cases read.
struct Fixtures {
    _root: tempfile::TempDir,
    data: PathBuf,
    cwd: PathBuf,
    fixtures: PathBuf,
    scratch: PathBuf,
    t4: PathBuf,
    t3: PathBuf,
    missing: PathBuf,
    dangling: PathBuf,
    text: PathBuf,
    empty_json: PathBuf,
    dir: PathBuf,
    empty_dir: PathBuf,
    fifo: PathBuf,
    solo_copy: PathBuf,
}

impl Fixtures {
    fn new() -> Fixtures {
        let root = tempfile::tempdir().unwrap();
        let at = |name: &str| root.path().join(name);
        let (data, cwd, fixtures, scratch, tables) =
            (at("data"), at("cwd"), at("fixtures"), at("scratch"), at("tables"));
        for dir in [&data, &cwd, &fixtures, &scratch, &tables] {
            fs::create_dir_all(dir).unwrap();
        }
        let solve = |argv: &[&str]| {
            let out = Command::new(env!("CARGO_BIN_EXE_yz")).args(argv).current_dir(&cwd).output().unwrap();
            assert!(out.status.success(), "setup: yz {argv:?}: {}", String::from_utf8_lossy(&out.stderr));
        };
        let d = data.to_str().unwrap();
        solve(&["--data", d, "solo", "solve", "--first", "6"]);
        solve(&["--data", d, "targets", "solve", "--first", "6"]);
        solve(&["--data", d, "duel", "solve", "--first", "4"]);
        let (t4, t3) = (tables.join("t4"), tables.join("t3"));
        solve(&["duel", "solve", "--first", "4", "--out", t4.to_str().unwrap()]);
        solve(&["duel", "solve", "--first", "3", "--out", t3.to_str().unwrap()]);
        for (name, content) in USER_FILES {
            fs::write(data.join(name), content).unwrap();
        }
        let f = |name: &str| fixtures.join(name);
        let (missing, dangling, text, empty_json) = (f("no-such-file"), f("dangling"), f("notes.txt"), f("empty.json"));
        std::os::unix::fs::symlink(&missing, &dangling).unwrap();
        fs::write(&text, "not a table\n").unwrap();
        fs::write(&empty_json, "{}\n").unwrap();
        let (dir, empty_dir, fifo, solo_copy) = (f("a-directory"), f("empty-dir"), f("fifo"), f("solo-copy.yzt"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("keep.txt"), "keep\n").unwrap();
        fs::create_dir_all(&empty_dir).unwrap();
        let fifo_name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo_name.as_ptr(), 0o644) }, 0);
        fs::copy(data.join("solo-official-003f.yzt"), &solo_copy).unwrap();
        Fixtures {
            _root: root,
            data,
            cwd,
            fixtures,
            scratch,
            t4,
            t3,
            missing,
            dangling,
            text,
            empty_json,
            dir,
            empty_dir,
            fifo,
            solo_copy,
        }
    }
}

/// Command lines that must be refused cleanly: (what is wrong, argv).
fn cases(w: &Fixtures) -> Vec<(&'static str, Vec<String>)> {
    let p = |path: &Path| path.to_str().unwrap().to_owned();
    let (t4, t3) = (p(&w.t4), p(&w.t3));
    let (missing, dangling, text, empty_json) = (p(&w.missing), p(&w.dangling), p(&w.text), p(&w.empty_json));
    let (dir, empty_dir, fifo, solo_copy) = (p(&w.dir), p(&w.empty_dir), p(&w.fifo), p(&w.solo_copy));
    let scratch = |name: &str| p(&w.scratch.join(name));
    let data = p(&w.data);
    let mut cases: Vec<(&'static str, Vec<String>)> = Vec::new();
    // A data directory that is a file or a FIFO.
    for data in [&text, &fifo] {
        cases
            .push(("data", ["--data", data, "solo", "value", "--first", "5", "--card", ""].map(String::from).to_vec()));
    }
    let mut add = |label: &'static str, argv: &[&str]| {
        let mut all = vec!["--data".to_owned(), data.clone()];
        all.extend(argv.iter().map(|a| a.to_string()));
        cases.push((label, all));
    };
    let with =
        |head: &[&str], tail: &[&str]| -> Vec<String> { head.iter().chain(tail).map(|s| s.to_string()).collect() };
    macro_rules! add_all {
        ($label:expr, $head:expr, $tail:expr) => {{
            let argv = with($head, $tail);
            let refs: Vec<&str> = argv.iter().map(String::as_str).collect();
            add($label, &refs);
        }};
    }

    // Malformed dice and rolls left.
    let adv = ["solo", "advise", "--first", "6", "--card", "", "--rolls-left", "1", "--dice"];
    for dice in [
        "1123",
        "1123457",
        "abcde",
        "0 1 2 3 4",
        "",
        "1,1,2,3",
        "1,1,2,3,4,5",
        "0,1,2,3,4",
        "1,2,3,4,7",
        "a,b,c,d,e",
        "1,2,3,4,-1",
        "1,2,3,4,256",
        "1,2,3,4,18446744073709551616",
        "1.0,2,3,4,5",
        "1;2;3;4;5",
        ",,,,",
        "1,2,3,4,\u{ff15}",
        "1,2,3,4,5,,6",
    ] {
        add_all!("dice", &adv, &[dice]);
    }
    let tadv = ["targets", "advise", "--first", "6", "--card", "", "--rolls-left", "1", "--target", "100", "--dice"];
    let dadv =
        ["duel", "advise", "--first", "4", "--me", "", "--opp", "", "--tables", &t4, "--rolls-left", "1", "--dice"];
    for dice in ["1123", "abcde", "0,1,2,3,4", "", "1,2,3,4,7"] {
        add_all!("dice", &tadv, &[dice]);
        add_all!("dice", &dadv, &[dice]);
    }
    for rolls in ["3", "-1", "256", "abc", "", "2.5", "18446744073709551616"] {
        add(
            "rolls-left",
            &["solo", "advise", "--first", "6", "--card", "", "--dice", "1,2,3,4,5", "--rolls-left", rolls],
        );
    }
    for rolls in ["3", "-1", "x", ""] {
        let argv = ["targets", "advise", "--first", "6", "--card", "", "--dice", "1,2,3,4,5", "--target", "50"];
        add_all!("rolls-left", &argv, &["--rolls-left", rolls]);
    }
    for rolls in ["3", "255", "-1"] {
        let argv = ["duel", "advise", "--first", "4", "--me", "", "--opp", "", "--tables", &t4, "--dice", "1,2,3,4,5"];
        add_all!("rolls-left", &argv, &["--rolls-left", rolls]);
    }

    // Impossible cards.
    for card in [
        "ones=7",
        "ones=-1",
        "ones=1.5",
        "ones=abc",
        "ones=",
        "=3",
        "ones",
        "sevens=1",
        "ones=1,ones=1",
        "fh=25",
        "sixes=4",
        "ones=99999999999999999999",
        "ones=1,bonus=100",
        "bonus=35",
        "bonus=-100",
        "twos=3",
        "threes=20",
        "fours=24",
        "bonus=0,bonus=0",
    ] {
        add("card", &["solo", "value", "--first", "6", "--card", card]);
    }
    let lower = ["solo", "value", "--categories", "3k,4k,fh,ss,ls,yahtzee,chance", "--card"];
    for card in [
        "fh=24",
        "ss=29",
        "ls=39",
        "yahtzee=49",
        "chance=4",
        "chance=31",
        "3k=31",
        "4k=3",
        "yahtzee=0,bonus=100",
        "yahtzee=50,bonus=100",
        "yahtzee=50,bonus=150",
        "yahtzee=50,fh=25,bonus=200",
    ] {
        add_all!("card", &lower, &[card]);
    }
    add(
        "card",
        &[
            "solo",
            "value",
            "--rules",
            "no-bonus",
            "--categories",
            "yahtzee,chance",
            "--card",
            "yahtzee=50,chance=20,bonus=100",
        ],
    );
    add("card", &["targets", "query", "--first", "6", "--card", "ones=6", "--target", "100"]);
    add(
        "card",
        &[
            "targets",
            "advise",
            "--first",
            "6",
            "--card",
            "twos=5",
            "--dice",
            "1,2,3,4,5",
            "--rolls-left",
            "1",
            "--target",
            "100",
        ],
    );
    add(
        "card",
        &[
            "solo",
            "advise",
            "--first",
            "6",
            "--card",
            "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6",
            "--dice",
            "1,2,3,4,5",
            "--rolls-left",
            "0",
        ],
    );

    // Impossible two-player positions.
    let full = "ones=1,twos=2,threes=3,fours=4";
    let val = ["duel", "value", "--first", "4", "--tables", &t4];
    for extra in [
        &["--me", "ones=1", "--opp", ""][..],
        &["--me", "", "--opp", "ones=1,twos=2"],
        &["--me", "", "--opp", "", "--diff", "1000"],
        &["--me", "", "--opp", "", "--diff", "-1000"],
        &["--me", "", "--opp", "", "--diff", "2147483648"],
        &["--me", "", "--opp", "", "--diff", "abc"],
        &["--me", "ones=1", "--opp", "ones=2", "--diff", "50"],
        // A difference the two finished cards' states cannot have (their points range
        // over -50..50: the states keep no exact totals, so --diff may name any of those).
        &["--me", full, "--opp", full, "--diff", "51"],
        &["--me", full, "--opp", full, "--diff", "-2147483648"],
        &["--me", "fives=5", "--opp", ""],
        &["--me", "ones=7", "--opp", ""],
        &["--me", "", "--opp", "twos=3"],
    ] {
        add_all!("position", &val, extra);
    }
    add(
        "position",
        &[
            "duel",
            "advise",
            "--first",
            "4",
            "--tables",
            &t4,
            "--me",
            full,
            "--opp",
            full,
            "--dice",
            "1,2,3,4,5",
            "--rolls-left",
            "0",
        ],
    );

    // Boxes and rules.
    for cats in ["ones,nines", "", ",", "ones,ones", "bonus", "ones;twos", "all", "chance,chance"] {
        add("categories", &["solo", "value", "--card", "", "--categories", cats]);
    }
    for first in ["0", "14", "-1", "99999999999999999999", "abc"] {
        add("first", &["solo", "value", "--card", "", "--first", first]);
    }
    add("first", &["solo", "value", "--card", "", "--first", "3", "--categories", "ones"]);
    for rules in [
        "bogus",
        "",
        "official,no-joker",
        "yatzy+",
        "yatzy+bogus",
        "yatzy+forced-order+forced-order",
        "official+forced-order",
        "Yatzy",
        "yatzy,forced-order",
    ] {
        add("rules", &["solo", "value", "--first", "6", "--card", "", "--rules", rules]);
    }
    add("rules", &["duel", "count", "--first", "3", "--rules", "yatzy+nope"]);
    // Scandinavian Yatzy's card: scores its boxes cannot hold, boxes it does not have.
    for card in [
        "fh=25",
        "2pairs=7",
        "2pairs=4",
        "pair=13",
        "yatzy=49",
        "ss=30",
        "ls=15",
        "4k=21",
        "3k=4",
        "bonus=100",
        "yatzy=50,bonus=100",
        "sevens=1",
        "pair=2,pair=2",
    ] {
        add("card", &["solo", "value", "--rules", "yatzy", "--card", card]);
    }
    for first in ["0", "16"] {
        add("categories", &["solo", "value", "--rules", "yatzy", "--card", "", "--first", first]);
    }

    // Numbers and oversized requests.
    for games in ["-1", "0", "18446744073709551616", "inf", "nan", "1e12", "1000000000000"] {
        add("games", &["simulate", "--strategy", "greedy", "--first", "3", "--games", games]);
    }
    for seed in ["-1", "18446744073709551616"] {
        add("seed", &["simulate", "--strategy", "greedy", "--first", "3", "--games", "10", "--seed", seed]);
    }
    for players in ["greedy", "", ",", "greedy,bogus", "emp99999,optimal"] {
        add("players", &["match", "--first", "3", "--games", "10", "--players", players]);
    }
    for games in ["0", "1000000000000"] {
        add("games", &["match", "--first", "3", "--players", "greedy,optimal", "--games", games]);
    }
    let (evolved_missing, learned_dir, learned_fifo) =
        (format!("evolved:{missing}"), format!("learned:{dir}"), format!("learned:{fifo}"));
    let (evolved_text, learned_copy) = (format!("evolved:{text}"), format!("learned:{solo_copy}"));
    for name in [
        "bogus",
        "",
        "means-iter:0",
        "means-iter:-1",
        "means-iter:4294967296",
        "means-iter:1000000000",
        "evolved:",
        &evolved_missing,
        &learned_dir,
        &learned_fifo,
        "evolved:/dev/zero",
        &evolved_text,
        "optimal:extra",
        &learned_copy,
    ] {
        add("strategy", &["strategy", "eval", name, "--first", "3"]);
    }
    add("strategy", &["simulate", "--strategy", "means-iter:1000000000", "--first", "3", "--games", "10"]);
    add("strategy", &["simulate", "--strategy", "nonesuch", "--first", "3", "--games", "10"]);
    let evolved = scratch("evolved.yzs");
    let ev = ["strategy", "evolve", "--first", "3", "--out", &evolved];
    for (flag, value) in [
        ("--population", "0"),
        ("--population", "1000000000000"),
        ("--generations", "1000000000000"),
        ("--sample", "0"),
        ("--sample", "1000000000000"),
        ("--polish", "1000000000000"),
        ("--seed", "-1"),
    ] {
        add_all!("evolve", &ev, &[flag, value]);
    }
    add("evolve", &["strategy", "evolve", "--first", "3", "--generations", "1", "--population", "20", "--out", &dir]);
    let learned = scratch("learned.yzs");
    add("train", &["strategy", "train", "--first", "3", "--games", "0", "--out", &learned]);
    add("train", &["strategy", "train", "--first", "3", "--games", "1000000000000", "--out", &learned]);
    add("train", &["strategy", "train", "--first", "3", "--games", "1000", "--out", &dir]);
    for extra in [
        &["--target", "bogus"][..],
        &["--target", ""],
        &["--target", "0-of-a-kind"],
        &["--target", "-3-of-a-kind"],
        &["--target", "99999999999999999999-of-a-kind"],
        &["--target", "11111111111111111111"],
        &["--target", "yahtzee", "--faces", "0"],
        &["--target", "yahtzee", "--faces", "1000"],
        &["--target", "yahtzee", "--faces", "-1"],
        &["--target", "yahtzee", "--dice", "0"],
        &["--target", "yahtzee", "--dice", "100"],
        &["--target", "yahtzee", "--rolls", "0"],
        &["--target", "yahtzee", "--rolls", "1000"],
        &["--target", "yahtzee", "--rolls", "18446744073709551616"],
    ] {
        add_all!("turn", &["turn"], extra);
    }
    for k in ["99", "-1", "27"] {
        add("max-empty", &["duel", "count", "--max-empty", k]);
    }
    let sol = ["duel", "solve", "--first", "3"];
    let (me0, me99, s99, w_out) = (scratch("me0"), scratch("me99"), scratch("s99"), scratch("w"));
    add_all!("max-empty", &sol, &["--max-empty", "0", "--out", &me0]);
    add_all!("max-empty", &sol, &["--max-empty", "99", "--out", &me99]);
    add_all!("layers", &sol, &["--stop-after-layer", "99", "--out", &s99]);
    for write in ["abc", "99..", "-1..", ""] {
        add_all!("layers", &sol, &["--write", write, "--out", &w_out]);
    }
    let text_sub = format!("{text}/sub");
    add_all!("out", &sol, &["--out", &text]);
    add_all!("out", &sol, &["--out", &text_sub]);
    add_all!("out", &sol, &["--out", &fifo]);
    let pl = ["duel", "plan", "--first", "3", "--runs", "1", "--sample", "1000"];
    for (flag, value) in [
        ("--mem-per-rank", "inf"),
        ("--mem-per-rank", "nan"),
        ("--mem-per-rank", "-1"),
        ("--mem-per-rank", "0"),
        ("--mem-per-rank", "1e300"),
        ("--mem-per-rank", "abc"),
        ("--ranks", "0"),
        ("--ranks", "18446744073709551615"),
        ("--ranks", "18446744073709551616"),
        ("--ranks", "-1"),
        ("--runs", "0"),
        ("--runs", "101"),
        ("--sample", "0"),
        ("--max-empty", "99"),
        ("--stop-after-layer", "99"),
        ("--disk-gbps", "0"),
        ("--disk-gbps", "-1"),
        ("--disk-gbps", "nan"),
        ("--disk-gbps", "inf"),
        ("--disk-gbps", "abc"),
        ("--scratch", &text),
        ("--scratch", &text_sub),
        ("--job-tasks-per-node", "2"),
        ("--job-nodes", "abc"),
    ] {
        add_all!("plan", &pl, &[flag, value]);
    }
    add_all!("plan", &pl, &["--job-nodes", "1", "--job-gpus"]);
    add("plan", &["duel", "plan", "--first", "3", "--ranks", "2", "--rehearse-rank", "5"]);
    add("plan", &["duel", "plan", "--first", "3", "--rehearse-rank", "18446744073709551615"]);
    add("plan", &["duel", "plan", "--mem-per-rank", "inf"]);
    let me = ["duel", "move-errors", "--first", "3", "--strategy", "greedy", "--games", "4"];
    for empty in ["99", "5..2", "abc", "1..99", ""] {
        add_all!("move-errors", &me, &["--empty", empty]);
    }
    let me2 = ["duel", "move-errors", "--first", "3", "--strategy", "greedy", "--empty", "2"];
    add_all!("move-errors", &me2, &["--games", "0"]);
    add_all!("move-errors", &me2, &["--games", "1000000000000"]);
    add_all!("move-errors", &me2, &["--games", "4", "--first-game", "18446744073709551615"]);
    for names in ["bogus", "", ","] {
        add(
            "move-errors",
            &["duel", "move-errors", "--first", "3", "--empty", "2", "--games", "4", "--strategy", names],
        );
    }
    for merge in [&missing[..], &fifo, "/dev/zero", &text, &empty_json, &dir] {
        add("move-errors", &["duel", "move-errors", "--merge", merge]);
    }
    // (A sound solitaire table is not among them: `shard verify`, as `yz verify`, checks it.)
    for path in [&empty_dir[..], &missing, &text, &fifo, "/dev/null", "/dev/zero", &dir, ""] {
        add("shard verify", &["shard", "verify", path]);
        add("verify", &["verify", path]);
    }
    for tables in [&missing[..], &text, &empty_dir, &t3, &fifo, "/dev/null", &dangling] {
        add("tables", &["duel", "value", "--first", "4", "--me", "", "--opp", "", "--tables", tables]);
    }
    for tables in [&empty_dir, &t3] {
        add(
            "tables",
            &[
                "duel",
                "advise",
                "--first",
                "4",
                "--me",
                "",
                "--opp",
                "",
                "--tables",
                tables,
                "--dice",
                "1,2,3,4,5",
                "--rolls-left",
                "1",
            ],
        );
    }
    for opponent in ["bogus", "", "greedy"] {
        add("beat", &["solo", "beat", "--first", "6", "--opponent", opponent]);
    }
    let text_svg = format!("{text}/x.svg");
    for plot in [&dir, &text_svg, &fifo] {
        add("plot", &["solo", "stats", "--first", "6", "--plot", plot]);
    }
    let text_yzt = format!("{text}/x.yzt");
    add("out", &["solo", "solve", "--first", "3", "--out", &dir]);
    add("out", &["solo", "solve", "--first", "3", "--out", &text_yzt]);
    add("out", &["targets", "solve", "--first", "3", "--out", &dir]);
    for target in ["abc", "1e3", "", "99999999999999999999", "100.5"] {
        add("target", &["targets", "query", "--first", "6", "--card", "", "--target", target]);
    }
    for argv in [
        &["frobnicate"][..],
        &["solo", "frobnicate"],
        &["--bogus"],
        &["duel", "value"],
        &["shard", "verify"],
        &["turn"],
        &["solo", "value", "--card"],
        &["simulate", "--strategy", "greedy", "--games"],
    ] {
        add("usage", argv);
    }
    for argv in [
        &["play", "--opponent", "nobody"][..],
        &["play", "--target", "abc"],
        &["play", "--seed", "-1"],
        &["play", "--rules", "nope"],
        &["play", "--feedback", "sometimes"],
        &["play", "--seed", "1", "--enter-dice"],
        &["review", "--top", "-1", "x.txt"],
    ] {
        add("play", argv);
    }
    for path in records(&w.scratch).iter().map(|p| p.to_str().unwrap().to_owned()).chain([dir.clone(), fifo.clone()]) {
        add("record", &["review", &path]);
    }
    add("record", &["review", "/dev/zero"]);
    cases
}

/// Game records that cannot have happened, garbage, and files that are no records, written
/// into `dir`; a path that does not exist last.
fn records(dir: &Path) -> Vec<PathBuf> {
    let head = "yz-record 1\nrules official\n";
    let nested = format!("{{\"format\":\"yz-record\",\"version\":1,\"turns\":{}{}}}", "[".repeat(200), "]".repeat(200));
    let mut texts: Vec<String> = [
        "", "\n\n", "yz-record\n", "yz-record 2\n", "yz-record 1.0\n", "YZ-RECORD 1\n", "not a record\n",
        "yz-record 1\nboxes ones\n11111 ones=5\n11111 ones=5\n", "yz-record 1\nrules yatzy+forced-order\n11111 twos=0\n",
        "{", "{}", "[]", "null",
        r#"{"format":"yz-record","version":1,"turns":[{"rolls":[],"box":"ones","points":0}]}"#,
        r#"{"format":"yz-record","version":1,"turns":[{"rolls":["11111","22222"],"box":"ones","points":0}]}"#,
        r#"{"format":"yz-record","version":1,"players":["a","b"],"turns":[{"rolls":["11111"],"box":"ones","points":5}]}"#,
        r#"{"format":"yz-record","version":1,"bogus":1}"#, r#"{"format":"yz-record","version":-1}"#,
        // Control codes where a message quotes the record: a version, a line after CRs.
        "yz-record \u{1b}[2J\u{1b}[31mowned\n", "yz-record 1\rrules official\r\u{1b}[2J 13356 ones=1\r",
    ]
    .map(String::from)
    .to_vec();
    texts.push(nested);
    for tail in [
        "rules yatzy\n",
        "players a b c\n",
        "players a a\n",
        "players a;b\n",
        "boxes ones,ones\n",
        "boxes nope\n",
        "13356\n",
        "13356 keep\n",
        "13356 keep 7 13356 ones=1\n",
        "13356 keep 4 13356 ones=1\n",
        "13356 keep 33 11245 ones=2\n",
        "13356 ones=2\n",
        "13356 ones=-1\n",
        "13356 ones=99999999999999999999\n",
        "13356 sevens=0\n",
        "11111 yahtzee=50\n11111 yahtzee=50\n",
        "13356 keep 3 13356 keep 3 13356 keep 3 13356 ones=1\n",
        "133567 ones=1\n",
        "1,3,3,5 ones=1\n",
        "ann: 13356 ones=1\n",
        "13356 ones=1 twos=0\n",
        "\u{0}\u{1}\u{2}\n",
        "13356 \u{ff4b}\u{ff45}\u{ff45}\u{ff50} 33 13356 ones=1\n",
        &format!("# {}\n", "x".repeat(400_000)),
    ] {
        texts.push(format!("{head}{tail}"));
    }
    let mut paths = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let path = dir.join(format!("record-{i}.txt"));
        fs::write(&path, text).unwrap();
        paths.push(path);
    }
    // 4 KiB of bytes that are no text (a fixed, simple generator: xorshift).
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let garbage: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 56) as u8
        })
        .collect();
    let path = dir.join("record-garbage.txt");
    fs::write(&path, garbage).unwrap();
    paths.push(path);
    paths.push(dir.join("no-such-record.txt"));
    paths
}

#[test]
fn every_bad_command_line_is_refused_cleanly() {
    let w = Fixtures::new();
    let protected: [&Path; 3] = [&w.data, &w.cwd, &w.fixtures];
    let cases = cases(&w);
    assert!(cases.len() > 250, "{} cases", cases.len());
    let mut failures = Vec::new();
    for (label, argv) in &cases {
        let before = snapshot(&protected);
        let r = run(argv, &w.cwd);
        let why = if r.timed_out {
            Some(format!("still running after {} s", TIMEOUT.as_secs()))
        } else if let Some(signal) = r.signal {
            Some(format!("killed by signal {signal}"))
        } else if r.code != Some(2) {
            Some(format!("exit {:?}", r.code))
        } else if r.max_rss_bytes > REFUSAL_RSS_BYTES {
            Some(format!("refused only after taking {} MB", r.max_rss_bytes >> 20))
        } else {
            unclean_message(&r.stderr)
        };
        let after = snapshot(&protected);
        let lost: Vec<&PathBuf> =
            before.iter().filter(|(path, meta)| after.get(*path) != Some(meta)).map(|(p, _)| p).collect();
        if let Some(why) = why {
            let last = r.stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("(no stderr)");
            failures.push(format!("[{label}] yz {argv:?}: {why}: {}", &last[..last.len().min(300)]));
        }
        if !lost.is_empty() {
            failures.push(format!("[{label}] yz {argv:?}: changed or removed {lost:?}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
