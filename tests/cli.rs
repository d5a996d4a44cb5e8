//! The `yz` binary: real commands, their JSON, and one clear line with exit status 2 for bad input.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `yz --data DATA ARGS` (shared by the CLI tests of every command family).
pub fn yz(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yz")).arg("--data").arg(data).args(args).output().expect("yz runs")
}

/// Runs a command that must fail with status 2 and one line on stderr containing `needle`.
pub fn fails_with(data: &Path, args: &[&str], needle: &str) {
    let out = yz(data, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
}

/// The JSON a successful command printed.
pub fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

const FIRST_SIX: [&str; 2] = ["--first", "6"];

#[test]
fn solve_advise_and_value_agree() {
    let dir = tempfile::tempdir().unwrap();
    let solved = json(&yz(dir.path(), &["--json", "solo", "solve", FIRST_SIX[0], FIRST_SIX[1]]));
    let expected = solved["expected_score"].as_f64().unwrap();
    assert_eq!(solved["rules"], "official");
    let value = json(&yz(dir.path(), &["--json", "solo", "value", "--card", "", "--first", "6"]));
    assert_eq!(value["expected_final"].as_f64().unwrap(), expected);
    let advice = json(&yz(
        dir.path(),
        &["--json", "solo", "advise", "--card", "", "--dice", "6,6,6,2,1", "--rolls-left", "2", "--first", "6"],
    ));
    let options = advice["options"].as_array().unwrap();
    assert_eq!(options[0]["keep"], serde_json::json!([6, 6, 6]));
    assert_eq!(options[0]["gap"].as_f64(), Some(0.0));
    let scored = json(&yz(
        dir.path(),
        &["--json", "solo", "advise", "--card", "sixes=18", "--dice", "5,5,5,2,1", "--rolls-left", "0", "--first", "6"],
    ));
    assert_eq!(scored["options"][0]["category"], "fives");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let advise = |card: &'static str, dice: &'static str, rolls: &'static str| {
        ["solo", "advise", "--first", "6", "--card", card, "--dice", dice, "--rolls-left", rolls]
    };
    fails_with(d, &advise("ones=7", "1,2,3,4,5", "1"), "ones=7 is impossible");
    fails_with(d, &advise("sixes=4", "1,2,3,4,5", "1"), "multiple of 6");
    fails_with(d, &advise("sevens=1", "1,2,3,4,5", "1"), "unknown box");
    fails_with(d, &advise("ones=1,ones=1", "1,2,3,4,5", "1"), "more than once");
    fails_with(d, &advise("", "1,2,3,4,7", "1"), "not a face");
    fails_with(d, &advise("", "1,2,3,4", "1"), "five dice");
    fails_with(d, &advise("", "1,2,3,4,5", "3"), "rolls left");
    fails_with(d, &advise("fh=25", "1,2,3,4,5", "1"), "not in play");
    let full = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6";
    fails_with(d, &advise(full, "1,2,3,4,5", "0"), "every box");
    fails_with(d, &["solo", "value", "--card", "", "--categories", "ones,nines"], "unknown box \"nines\"");
    fails_with(d, &["solo", "value", "--card", "", "--first", "14"], "--first takes 1 to 13");
}

/// A mistyped name (a box, rules, a strategy, a player, a pattern, an opponent, a
/// subcommand, a flag, a value) is refused in one line that names the one accepted name it
/// stands for; a name close to none, or to two alike, names none.
#[test]
fn mistyped_names_get_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let value = |card: &'static str| ["solo", "value", "--first", "6", "--card", card];
    fails_with(d, &value("fivse=10"), "unknown box \"fivse\" (did you mean fives?)");
    fails_with(d, &["solo", "value", "--card", "", "--categories", "ones,yahtze"], "(did you mean yahtzee?)");
    fails_with(
        d,
        &["solo", "value", "--card", "", "--rules", "yatsy"],
        "unknown rules \"yatsy\" (did you mean yatzy?)",
    );
    fails_with(
        d,
        &["solo", "value", "--card", "", "--rules", "yatzy+forced-ordr"],
        "(did you mean yatzy+forced-order?)",
    );
    fails_with(d, &["strategy", "eval", "gredy"], "unknown strategy \"gredy\" (did you mean greedy?)");
    fails_with(d, &["match", "--players", "emp1,optimall", "--first", "3"], "(did you mean optimal?)");
    fails_with(d, &["turn", "--target", "ful-house"], "(did you mean full-house?)");
    fails_with(d, &["turn", "--target", "3-of-kind"], "(did you mean 3-of-a-kind?)");
    fails_with(d, &["solo", "beat", "--opponent", "optimla", "--first", "3"], "(did you mean optimal?)");
    // clap's own suggestions, kept on the one line.
    fails_with(d, &["solo", "slove"], "a similar subcommand exists: 'solve'");
    fails_with(d, &["solo", "solve", "--frist", "3"], "a similar argument exists: '--first'");
    fails_with(d, &["play", "--feedback", "eech"], "a similar value exists: 'each'");
    // Nothing close, or two alike: no suggestion.
    for (args, name) in [(value("sevens=1"), "sevens"), (value("xk=0"), "xk")] {
        let out = yz(d, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&format!("unknown box \"{name}\";")), "{stderr}");
    }
}

#[test]
fn corrupt_and_mismatched_tables_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let table = d.join("solo-official-003f.yzt");
    assert!(yz(d, &["solo", "solve", "--first", "6"]).status.success());
    let good = std::fs::read(&table).unwrap();

    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x10;
    std::fs::write(&table, &flipped).unwrap();
    fails_with(d, &["solo", "value", "--card", "", "--first", "6"], "solo-official-003f.yzt");

    std::fs::write(&table, &good[..good.len() - 3]).unwrap();
    fails_with(d, &["solo", "value", "--card", "", "--first", "6"], "truncated");

    // A valid table of another game under this game's name.
    assert!(yz(d, &["solo", "solve", "--first", "5", "--out", table.to_str().unwrap()]).status.success());
    fails_with(d, &["solo", "value", "--card", "", "--first", "6"], "was made for categories");
}

#[test]
fn format_version_1_table_still_loads() {
    // Made by: yz solo solve --categories ones,yahtzee --out tests/data/solo-official-0801-v1.yzt
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/solo-official-0801-v1.yzt");
    std::fs::copy(&fixture, dir.path().join("solo-official-0801.yzt")).unwrap();
    let value = json(&yz(dir.path(), &["--json", "solo", "value", "--card", "", "--categories", "ones,yahtzee"]));
    let fresh = yz::solo::solve(yz::game::Game {
        rules: yz::game::Rules::OFFICIAL,
        categories: yz::game::Rules::OFFICIAL.parse_list("ones,yahtzee").unwrap(),
    });
    assert_eq!(value["expected_final"].as_f64(), Some(fresh.start_value()));
    // Golden bytes: the same command writes the committed file byte for byte.
    let out = dir.path().join("fresh.yzt");
    yz(dir.path(), &["solo", "solve", "--categories", "ones,yahtzee", "--out", out.to_str().unwrap()]);
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&fixture).unwrap(), "the table is written otherwise");
}

#[test]
fn a_reader_that_stops_early_ends_yz_without_a_panic() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_yz"))
        .arg("--data")
        .arg(dir.path())
        .args(["duel", "count", "--first", "8"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("yz runs");
    let mut first_line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first_line).unwrap();
    assert!(first_line.starts_with("rules"), "{first_line}");
    // The reader is gone: the rest of the table goes to a closed pipe.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A full standard output (`> /dev/full`) ends with one line and status 2, not a panic.
#[cfg(target_os = "linux")]
#[test]
fn a_full_output_is_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    for json in [false, true] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full opens");
        let args = ["duel", "count", "--first", "4"];
        let out = Command::new(env!("CARGO_BIN_EXE_yz"))
            .arg("--data")
            .arg(dir.path())
            .args(json.then_some("--json"))
            .args(args)
            .stdout(full)
            .output()
            .expect("yz runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains("cannot write to standard output") && !stderr.contains("panicked"), "{stderr}");
    }
}

/// `--plot` on a FIFO is refused at once (writing into it would wait for a reader for
/// good), and the FIFO is left as it was.
#[cfg(unix)]
#[test]
fn a_plot_is_never_written_into_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("plot.svg");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let plot = fifo.to_str().unwrap();
    fails_with(dir.path(), &["solo", "stats", "--first", "3", "--plot", plot], "not a regular file");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

/// An endless answer line (a device piped in by mistake) is refused after a few KiB, not
/// read into memory.
#[test]
fn play_refuses_an_endless_answer_line() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("game.json");
    let out = Command::new(env!("CARGO_BIN_EXE_yz"))
        .arg("--data")
        .arg(dir.path())
        .args(["play", "--first", "2", "--enter-dice", "--save"])
        .arg(&save)
        .stdin(Stdio::from(std::fs::File::open("/dev/zero").unwrap()))
        .output()
        .expect("yz runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("longer than 4096 bytes"), "{stderr}");
}

/// `q` at the dice prompt of `play --enter-dice` leaves the game, its record saved, as `q`
/// at the decision prompt does.
#[test]
fn q_at_the_dice_prompt_leaves_the_game() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("game.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_yz"))
        .arg("--data")
        .arg(dir.path())
        .args(["play", "--first", "2", "--enter-dice", "--save"])
        .arg(&save)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("yz runs");
    child.stdin.take().unwrap().write_all(b"q\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("game left unfinished"), "{stdout}");
    assert!(save.exists(), "{stdout}");
}

/// Every command's `--dice` takes the record's compact form as well as commas.
#[test]
fn dice_are_written_one_way_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let advise = |dice: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_yz"))
            .args(["--data", data, "--json", "solo", "advise", "--first", "3", "--card", "", "--rolls-left", "2"])
            .args(["--dice", dice])
            .output()
            .expect("yz runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    assert_eq!(advise("13356"), advise("1,3,3,5,6"));
}

/// `serve --bind localhost` listens on 127.0.0.1, and `--json` makes its line JSON;
/// `play` prints no JSON and says so.
#[test]
fn serve_takes_localhost_and_json_and_play_refuses_json() {
    use std::io::BufRead;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_yz"))
        .arg("--data")
        .arg(dir.path())
        .args(["--json", "serve", "--bind", "localhost", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("yz runs");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let started: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert!(started["url"].as_str().unwrap().starts_with("http://127.0.0.1:"), "{line}");
    fails_with(dir.path(), &["--json", "play", "--first", "2"], "prints no JSON");
    fails_with(dir.path(), &["serve", "--bind", "example.org"], "is not an IP address");
}

/// Bad input of any length is quoted short in the one-line error: escaped, its first
/// characters and its length (issue 40: a 100 KB argument made a 100 KB error).
#[test]
fn long_bad_arguments_are_quoted_short() {
    let data = tempfile::tempdir().unwrap();
    let long = "x".repeat(100_000);
    let entry = format!("ones={long}");
    let list = format!("ones,{long}");
    let cases: Vec<Vec<&str>> = vec![
        vec!["duel", "value", "--me", &long, "--opp", ""],
        vec!["duel", "value", "--me", &entry, "--opp", ""],
        vec!["solo", "advise", "--card", &long, "--dice", "11111", "--rolls-left", "0"],
        vec!["solo", "advise", "--rules", &long, "--card", "", "--dice", "11111", "--rolls-left", "0"],
        vec!["solo", "advise", "--card", "", "--dice", "11111", "--rolls-left", &long],
        vec!["strategy", "eval", &long],
        vec!["match", "--players", &long],
        vec!["duel", "solve", "--first", "4", "--write", &long],
        vec!["duel", "count", "--categories", &list],
        vec!["turn", &long],
        vec!["play", "--seed", &long],
        vec!["review", &long],
    ];
    for args in cases {
        let out = yz(data.path(), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let shown: Vec<String> = args.iter().map(|a| a.chars().take(20).collect()).collect();
        assert_eq!(out.status.code(), Some(2), "{shown:?}: {stderr:.300}");
        assert!(stderr.len() < 1000 && stderr.contains("bytes)"), "{shown:?}: {} bytes: {stderr:.300}", stderr.len());
    }
}
