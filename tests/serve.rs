//! `yz serve` on loopback: its answers are the command line's, and bad requests of every
//! kind get a 4xx with a JSON error while the server goes on serving.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::OnceLock;

use crate::cli::{json, yz};
use yz::coach::serve::{SERVE_DUEL_POSITIONS, ServeConfig};
use yz::solo::SoloTable;
use yz::store::DataTable;

/// The server's configuration over the data directory `data`, its builds by this `yz`.
fn config(data: &Path) -> ServeConfig {
    ServeConfig {
        data: data.to_path_buf(),
        duel_positions: SERVE_DUEL_POSITIONS,
        host_names: Vec::new(),
        exe: env!("CARGO_BIN_EXE_yz").into(),
    }
}

/// A server on a free port of loopback over the data directory `data`.
fn start(data: &Path) -> SocketAddr {
    start_with(config(data))
}

/// A server on a free port of loopback with `config`.
fn start_with(config: ServeConfig) -> SocketAddr {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        yz::coach::serve::run("127.0.0.1:0".parse().unwrap(), config, |bound| sender.send(bound).unwrap()).unwrap();
    });
    receiver.recv().unwrap()
}

/// One server for the whole test binary, with its own data directory.
fn server() -> &'static (SocketAddr, tempfile::TempDir) {
    static SERVER: OnceLock<(SocketAddr, tempfile::TempDir)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let data = tempfile::tempdir().unwrap();
        (start(data.path()), data)
    })
}

/// Sends raw request bytes to the shared server and returns the status and body.
fn exchange(request: &[u8]) -> (u16, String) {
    exchange_at(server().0, request)
}

/// Sends raw request bytes to `address` and returns the status and body (the connection
/// closed after).
fn exchange_at(address: SocketAddr, request: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    // As long as the server gives any request (a best reply takes a minute on a loaded
    // machine), and a little more.
    stream.set_read_timeout(Some(yz::coach::serve::REQUEST_TIMEOUT + std::time::Duration::from_secs(10))).unwrap();
    // A server may answer (413) and close before reading a huge body: a failed write is fine.
    let _ = stream.write_all(request);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).to_string();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

/// A failure of the server, not of the request (here a damaged table in its data
/// directory), is a 500 whose message names no path and no process id; a table that would
/// have to be written where the server cannot write is a 507 naming the data directory,
/// before any solve.
#[test]
fn server_failures_name_no_paths() {
    let dir = tempfile::tempdir().unwrap();
    let ask = |data: &Path| {
        let address = start(data);
        let body = r#"{"card":"","dice":"1,3,3,5,6","rolls_left":2}"#;
        let head = format!(
            "POST /api/solo/advise HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let (status, answer) = exchange_at(address, &[head.as_bytes(), body.as_bytes()].concat());
        let error: serde_json::Value = serde_json::from_str(&answer).unwrap();
        (status, error["error"].as_str().unwrap().to_owned())
    };
    let damaged = dir.path().join("damaged");
    std::fs::create_dir(&damaged).unwrap();
    let table = SoloTable::file_name(yz::game::Game::full(yz::game::Rules::OFFICIAL));
    std::fs::write(damaged.join(table), "not a table").unwrap();
    let (status, message) = ask(&damaged);
    assert_eq!(status, 500, "{message}");
    let pid = std::process::id().to_string();
    assert!(!message.contains("damaged") && !message.contains('/') && !message.contains(&pid), "{message}");

    let unwritable = dir.path().join("data-is-a-file");
    std::fs::write(&unwritable, "not a directory").unwrap();
    let (status, message) = ask(&unwritable);
    assert_eq!(status, 507, "{message}");
    assert!(message.contains("data-is-a-file") && message.contains("cannot write"), "{message}");
}

/// A request naming the server by another site's name (DNS rebinding) is refused (421),
/// and one naming no host at all (400); addresses and localhost are answered.
#[test]
fn only_the_servers_own_names_are_answered() {
    let request = |host: &str| format!("GET /api/rules HTTP/1.1\r\n{host}Connection: close\r\n\r\n");
    for (host, status) in [
        ("Host: evil.example:8080\r\n", 421),
        ("Host: localhost.evil.example\r\n", 421),
        ("", 400),
        ("Host: localhost:8080\r\n", 200),
        ("Host: 127.0.0.1\r\n", 200),
    ] {
        let (got, body) = exchange(request(host).as_bytes());
        assert_eq!(got, status, "{host:?}: {body}");
    }
}

fn post(path: &str, content_type: &str, body: &[u8]) -> (u16, String) {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    exchange(&[head.as_bytes(), body].concat())
}

/// Posts JSON to the shared server and reads the answer as JSON, asking again (as the page
/// does) while the server is busy with another test's heavy request: the tests of this
/// binary run in parallel, and the server admits one solve at a time.
fn post_json(path: &str, body: &str) -> (u16, serde_json::Value) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
    loop {
        let (status, answer) = post(path, "application/json", body.as_bytes());
        let answer: serde_json::Value =
            serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {answer}"));
        let busy = status == 503 && answer["error"].as_str().is_some_and(|e| e.ends_with("try again shortly"));
        if !busy || std::time::Instant::now() > deadline {
            return (status, answer);
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

#[test]
fn answers_are_the_command_lines() {
    let data = &server().1;
    for (card, dice, rolls) in
        [("", "1,3,3,5,6", "2"), ("ones=3,fh=25,yahtzee=50", "4,4,4,4,4", "0"), ("sixes=24", "2,3,4,5,5", "1")]
    {
        let body = format!(r#"{{"card":"{card}","dice":"{dice}","rolls_left":{rolls}}}"#);
        let (status, served) = post_json("/api/solo/advise", &body);
        assert_eq!(status, 200, "{served}");
        let cli = yz(data.path(), &["--json", "solo", "advise", "--card", card, "--dice", dice, "--rolls-left", rolls]);
        assert_eq!(served, json(&cli), "the server's advice is the command line's");
    }
    let me = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,3k=20,4k=0,fh=25,ss=30";
    let opp = "ones=2,twos=6,threes=9,fours=12,fives=20,sixes=18,3k=22,4k=0,fh=25,ss=30";
    let body = format!(r#"{{"me":"{me}","opp":"{opp}","dice":"6,6,5,5,1","rolls_left":2}}"#);
    let (status, mut served) = post_json("/api/duel/advise", &body);
    assert_eq!(status, 200, "{served}");
    // Exact, from a solve below, and each card's points: the command line's advice besides.
    assert_eq!(served["source"]["kind"], "exact", "{served}");
    assert_eq!(served["source_text"], "exact (a solve of the positions below)");
    assert_eq!((served["me_total"].as_u64(), served["opp_total"].as_u64()), (Some(173), Some(179)));
    for added in ["source", "source_text", "me_total", "opp_total"] {
        served.as_object_mut().unwrap().remove(added);
    }
    let cli = yz(
        data.path(),
        &["--json", "duel", "advise", "--me", me, "--opp", opp, "--dice", "6,6,5,5,1", "--rolls-left", "2"],
    );
    let mut cli = json(&cli);
    assert_eq!(cli["source"], "a solve of the positions below");
    cli.as_object_mut().unwrap().remove("source");
    assert_eq!(served, cli);
    let record = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/records/solo-game.txt")).unwrap();
    let (status, served) = post_json("/api/review", &serde_json::json!({ "record": record, "top": 5 }).to_string());
    assert_eq!(status, 200, "{served}");
    let path = data.path().join("solo-game.txt");
    std::fs::write(&path, &record).unwrap();
    assert_eq!(served, json(&yz(data.path(), &["--json", "review", path.to_str().unwrap()])));
}

/// The best reply to the optimal player, asked of the page's API while the command line
/// computes it beside it (each is one core's half minute): the same answer, Glenn 2007
/// §II-D's "about 0.503" (0.503623 with ties counting half: docs/published.md), and a
/// second request answered from what the first computed.
/// The reasons of the best choices: the advice's own choices in its order, each with an
/// analysis whose expected final score is the choice's; a bad `top` refused.
#[test]
fn the_reasons_are_the_advices_best_choices() {
    let position =
        r#""card":"ones=3,twos=6,threes=9,fours=8,fives=15,3k=20,4k=0,fh=25,ss=30","dice":"66635","rolls_left":1"#;
    let (status, advice) = post_json("/api/solo/advise", &format!("{{{position}}}"));
    assert_eq!(status, 200, "{advice}");
    let (status, reasons) = post_json("/api/solo/why", &format!("{{{position},\"top\":2}}"));
    assert_eq!(status, 200, "{reasons}");
    let reasons = reasons["options"].as_array().unwrap();
    assert_eq!(reasons.len(), 2);
    for (reason, option) in reasons.iter().zip(advice["options"].as_array().unwrap()) {
        assert_eq!(
            (&reason["action"], &reason["keep"], &reason["expected_final"]),
            (&option["action"], &option["keep"], &option["expected_final"])
        );
        let analysed = reason["aspects"]["expected_final"].as_f64().unwrap();
        assert!((analysed - option["expected_final"].as_f64().unwrap()).abs() < 1e-9, "{reason}");
    }
    let (status, error) = post_json("/api/solo/why", &format!("{{{position},\"top\":0}}"));
    assert_eq!((status, error["error"].as_str().unwrap()), (400, "top 0 is not 1 to 5 choices"));
}

#[test]
fn the_best_reply_is_the_command_lines_and_glenns() {
    let data = &server().1;
    let cli = std::thread::spawn({
        let data = data.path().to_owned();
        move || json(&yz(&data, &["--json", "solo", "beat", "--opponent", "optimal"]))
    });
    let (status, mut served) = post_json("/api/solo/beat", r#"{"rules":"official"}"#);
    assert_eq!(status, 200, "{served}");
    let mut cli = cli.join().unwrap();
    let win = served["win_probability"].as_f64().unwrap();
    assert!((win - 0.503623).abs() < 5e-6, "{win}");
    // Kept, not computed again: the same seconds, to the last bit.
    let (status, again) = post_json("/api/solo/beat", r#"{"rules":"official"}"#);
    assert_eq!((status, &again), (200, &served));
    for answer in [&mut served, &mut cli] {
        answer.as_object_mut().unwrap().remove("seconds");
    }
    assert_eq!(served, cli, "the server's best reply is the command line's");
}

#[test]
fn bad_requests_get_a_4xx_and_the_server_goes_on() {
    let good = r#"{"card":"","dice":"1,3,3,5,6","rolls_left":2}"#;
    let nested = format!(r#"{{"card":{}"x"{}}}"#, "[".repeat(5000), "]".repeat(5000));
    let huge = format!(r#"{{"card":"{}","dice":"1,3,3,5,6","rolls_left":2}}"#, "x".repeat(1 << 20));
    let json_cases: Vec<(&str, String)> = vec![
        ("/api/solo/advise", "{".into()),
        ("/api/solo/beat", r#"{"rule":"yatzy"}"#.into()),
        ("/api/solo/beat", r#"{"rules":"yahtzee"}"#.into()),
        ("/api/solo/beat", r#"{"rules":"official","first":6}"#.into()),
        ("/api/solo/advise", r#"{"card":"","dice":"1,3,3,5,6""#.into()),
        ("/api/solo/advise", "[]".into()),
        ("/api/solo/advise", "null".into()),
        ("/api/solo/advise", "".into()),
        ("/api/solo/advise", r#"{"card":3,"dice":"1,3,3,5,6","rolls_left":2}"#.into()),
        ("/api/solo/advise", r#"{"card":"ones=7","dice":"1,3,3,5,6","rolls_left":2}"#.into()),
        ("/api/solo/advise", r#"{"card":"sevens=1","dice":"1,3,3,5,6","rolls_left":2}"#.into()),
        ("/api/solo/advise", r#"{"card":"yahtzee=0,bonus=100","dice":"1,3,3,5,6","rolls_left":2}"#.into()),
        ("/api/solo/advise", r#"{"card":"","dice":"1,3,3,5,7","rolls_left":2}"#.into()),
        ("/api/solo/advise", r#"{"card":"","dice":"1,3,3,5","rolls_left":2}"#.into()),
        ("/api/solo/advise", r#"{"card":"","dice":"1,3,3,5,6","rolls_left":3}"#.into()),
        ("/api/solo/advise", r#"{"card":"","dice":"1,3,3,5,6","rolls_left":-1}"#.into()),
        ("/api/solo/advise", r#"{"card":"","dice":"1,3,3,5,6","rolls_left":99999999999}"#.into()),
        ("/api/solo/advise", r#"{"rules":"nope","card":"","dice":"1,3,3,5,6","rolls_left":2}"#.into()),
        ("/api/solo/advise", r#"{"rules":"official","first":6,"card":"","dice":"1,3,3,5,6","rolls_left":2}"#.into()),
        ("/api/solo/advise", nested.clone()),
        ("/api/solo/advise", huge),
        ("/api/targets/advise", r#"{"card":"","dice":"1,3,3,5,6","rolls_left":2,"target":"x"}"#.into()),
        ("/api/targets/curve", r#"{"card":"fh=24"}"#.into()),
        ("/api/card/score", r#"{"card":"","dice":"1,3,3,5,6","box":"nope"}"#.into()),
        ("/api/card/score", r#"{"card":"ones=1","dice":"1,3,3,5,6","box":"ones"}"#.into()),
        ("/api/duel/advise", r#"{"me":"ones=3","opp":"","dice":"1,3,3,5,66","rolls_left":2}"#.into()),
        ("/api/card/view", r#"{"card":"","dice":"1,3,3,5"}"#.into()),
        ("/api/card/view", r#"{"card":"fh=24"}"#.into()),
        ("/api/history", r#"{"record":"not a record"}"#.into()),
        ("/api/history", r#"{"record":"yz-record 1\nboxes ones\n11111 ones=5\n"}"#.into()),
        ("/api/duel/advise", r#"{"me":"ones=3","opp":"","dice":"1,3,3,5,6","rolls_left":2}"#.into()),
        ("/api/duel/advise", r#"{"me":"","opp":"","diff":7,"dice":"1,3,3,5,6","rolls_left":2}"#.into()),
        ("/api/review", r#"{"record":"yz-record 1\n13356 keep 4 11245 ones=2\n"}"#.into()),
        ("/api/review", r#"{"record":"not a record"}"#.into()),
        ("/api/review", r#"{"record":"yz-record 1\n","top":1000}"#.into()),
        ("/api/review", r#"{"record":"yz-record 1\nboxes ones\n11111 ones=5\n"}"#.into()),
        ("/api/review", format!(r#"{{"record":"{}"}}"#, "#".repeat(300_000))),
        ("/api/nope", good.into()),
    ];
    for (path, body) in &json_cases {
        let (status, answer) = post(path, "application/json", body.as_bytes());
        assert!((400..500).contains(&status), "{path} {:.80}: status {status}: {answer:.200}", body);
        let error: serde_json::Value =
            serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{path}: {e}: {answer:.200}"));
        assert!(error["error"].as_str().is_some_and(|m| !m.is_empty()), "{answer}");
        assert_eq!(post_json("/api/solo/advise", good).0, 200, "the server goes on after {path} {:.80}", body);
    }
    let (status, answer) = post_json("/api/solo/advise", r#"{"card":"ones=7","dice":"1,3,3,5,6","rolls_left":2}"#);
    assert_eq!(
        (status, answer["error"].as_str()),
        (400, Some("ones=7 is impossible: ones can hold a whole number from 0 to 5"))
    );
    // Unknown fields are refused by name, nested requests' fields included: a misspelt
    // field must not be answered as if it were absent.
    // A field one edit from a real one names it.
    for (path, body, field, meant) in [
        (
            "/api/solo/advise",
            r#"{"rule":"yatzy","card":"","dice":"1,3,3,5,6","rolls_left":2}"#,
            "rule",
            " (did you mean rules?)",
        ),
        ("/api/targets/advise", r#"{"card":"","dice":"1,3,3,5,6","rolls_left":2,"target":200,"x":1}"#, "x", ";"),
        (
            "/api/duel/advise",
            r#"{"me":"","opp":"","dice":"1,3,3,5,6","rolls_left":2,"dif":3}"#,
            "dif",
            " (did you mean diff?)",
        ),
        ("/api/review", r#"{"record":"yz-record 1\n","tops":1}"#, "tops", " (did you mean top?)"),
    ] {
        let (status, answer) = post_json(path, body);
        let message = answer["error"].as_str().unwrap_or_default();
        let expected = format!("unknown field {field:?}{meant}");
        assert!(status == 400 && message.contains(&expected), "{path}: {status} {answer}");
    }
    let raw_cases: [&[u8]; 6] = [
        b"POST /api/solo/advise HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
        b"POST /api/solo/advise HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
        b"POST /api/solo/advise HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\nConnection: close\r\n\r\n{}",
        b"GET /api/solo/advise HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        b"GARBAGE\r\n\r\n",
        b"GET /../../etc/passwd HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    ];
    for raw in raw_cases {
        let (status, _) = exchange(raw);
        assert!((400..500).contains(&status), "{}: {status}", String::from_utf8_lossy(&raw[..40.min(raw.len())]));
        assert_eq!(post_json("/api/solo/advise", good).0, 200);
    }
    let (status, page) = exchange(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
    assert!(page.contains("<script src=\"app.js\">") && !page.contains("http://") && !page.contains("https://"));
}

/// An error's reason is the same in the web API as on the command line (issue 40: the
/// two-player advice said only "--me"), and bad input is quoted short: escaped, cut, with
/// its length.
#[test]
fn errors_give_the_command_lines_reason_and_quote_bad_input_short() {
    let data = tempfile::tempdir().unwrap();
    let long = "x".repeat(100_000);
    for (me, quoted) in [("sevens=1", "\"sevens\""), (long.as_str(), "(100000 bytes)")] {
        let body = serde_json::json!({ "me": me, "opp": "", "dice": "1,3,3,5,6", "rolls_left": 2 });
        let (status, answer) = post_json("/api/duel/advise", &body.to_string());
        let api = answer["error"].as_str().unwrap_or_default().to_owned();
        let cli =
            yz(data.path(), &["duel", "advise", "--me", me, "--opp", "", "--dice", "1,3,3,5,6", "--rolls-left", "2"]);
        let cli = String::from_utf8_lossy(&cli.stderr).trim_end().to_owned();
        assert_eq!(status, 400, "{answer}");
        assert_eq!(cli, format!("error: {api}"));
        // The whole cause, in words: whose card, and what is wrong with it.
        assert!(api.starts_with("the mover's card: ") && api.contains(quoted) && api.len() < 300, "{api}");
    }
}

/// A table truncated in place under the server (what `cp` over it does) gives that request
/// an error, never a bus error: the server holds its tables in its own memory, notices the
/// file changed, reads it again and goes on serving. A table replaced by a whole one (another
/// `yz` solving the same table into the data directory) answers at once, read anew.
#[test]
fn a_table_changed_under_the_server_is_read_again_and_never_gives_a_signal() {
    let data = tempfile::tempdir().unwrap();
    let address = start(data.path());
    let request = |path: &str, body: &str| {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        exchange_at(address, &[head.as_bytes(), body.as_bytes()].concat())
    };
    let advise = || request("/api/solo/advise", r#"{"card":"","dice":"1,3,3,5,6","rolls_left":2}"#);
    let (status, first) = advise();
    assert_eq!(status, 200, "{first}");
    let table = data.path().join(SoloTable::file_name(yz::game::Game::full(yz::game::Rules::OFFICIAL)));
    let whole = std::fs::read(&table).unwrap();
    std::fs::OpenOptions::new().write(true).open(&table).unwrap().set_len(whole.len() as u64 / 2).unwrap();
    let (status, answer) = advise();
    assert_eq!(status, 500, "the truncated file read again: {answer}");
    let get = b"GET /api/rules HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    assert_eq!(exchange_at(address, get).0, 200, "the server goes on");
    // Replaced as a solve replaces it (a new file renamed over the old): read anew, at once.
    let fresh = data.path().join("fresh.yzt");
    std::fs::write(&fresh, &whole).unwrap();
    std::fs::rename(&fresh, &table).unwrap();
    assert_eq!(advise(), (200, first.clone()), "the replaced table answers as before");
    let solved = yz(data.path(), &["solo", "solve"]);
    assert!(solved.status.success(), "{}", String::from_utf8_lossy(&solved.stderr));
    assert_eq!(advise(), (200, first), "the table solved again beside the server answers as before");
    let yatzy = r#"{"rules":"yatzy","card":"","dice":"1,3,3,5,6","rolls_left":2}"#;
    assert_eq!(request("/api/solo/advise", yatzy).0, 200);
}

/// A client that sends its request head a byte at a time is cut off after
/// `HEADER_TIMEOUT`, and so is a kept-alive connection that sends nothing more; other
/// clients are answered meanwhile.
/// API requests take turns once their body has arrived: clients that send a head and
/// then hold back their body, more of them than there are turns, delay nobody, and are
/// answered 408 once the body timeout passes.
#[test]
fn clients_holding_back_their_bodies_take_no_turn() {
    let address = server().0;
    let started = std::time::Instant::now();
    let head = b"POST /api/card/score HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 80\r\n\r\n{";
    let mut holding: Vec<TcpStream> = (0..32)
        .map(|_| {
            let mut stream = TcpStream::connect(address).unwrap();
            stream.write_all(head).unwrap();
            stream
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (status, body) = post_json("/api/card/score", r#"{"card": "", "dice": "1,3,3,5,6", "box": "threes"}"#);
    assert_eq!(status, 200, "{body}");
    assert!(started.elapsed() < yz::coach::serve::BODY_TIMEOUT / 2, "{:?}", started.elapsed());
    for stream in &mut holding {
        stream.set_read_timeout(Some(yz::coach::serve::BODY_TIMEOUT + std::time::Duration::from_secs(10))).unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 408"), "{}", String::from_utf8_lossy(&answer));
    }
}

/// Clients holding large bodies open hold at most the server's budget of them, all
/// connections together: past it a large body is refused (503) before it is read, and a
/// player's small request is still answered.
#[test]
fn bodies_held_open_are_bounded_across_connections() {
    let data = tempfile::tempdir().unwrap();
    let address = start(data.path());
    let size = yz::coach::serve::MAX_BODY_BYTES;
    let head = format!(
        "POST /api/review HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {size}\r\n\r\n{{"
    );
    let mut holding: Vec<TcpStream> = (0..400)
        .map(|_| {
            let mut stream = TcpStream::connect(address).unwrap();
            stream.write_all(head.as_bytes()).unwrap();
            stream
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (mut held, mut refused) = (0, 0);
    for stream in &mut holding {
        stream.set_read_timeout(Some(std::time::Duration::from_millis(20))).unwrap();
        let mut answer = [0u8; 4096];
        match stream.read(&mut answer) {
            Ok(n) if n > 0 => {
                let text = String::from_utf8_lossy(&answer[..n]);
                assert!(
                    text.starts_with("HTTP/1.1 503") && text.contains("holds its most of request bodies"),
                    "{text}"
                );
                refused += 1;
            }
            _ => held += 1,
        }
    }
    assert!(refused > 0 && held * size <= 64 << 20, "{held} bodies held, {refused} refused");
    assert!(held * size >= 32 << 20, "only {held} bodies held");
    let (status, body) =
        post_json_at(address, "/api/card/score", r#"{"card": "", "dice": "1,3,3,5,6", "box": "threes"}"#);
    assert_eq!(status, 200, "{body}");
}

#[test]
fn slow_and_idle_connections_are_closed() {
    let address = server().0;
    let started = std::time::Instant::now();
    let mut slow = TcpStream::connect(address).unwrap();
    let mut idle = TcpStream::connect(address).unwrap();
    idle.write_all(b"GET /api/rules HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
    let limit = yz::coach::serve::HEADER_TIMEOUT + std::time::Duration::from_secs(5);
    let closed = |stream: &mut TcpStream| {
        stream.set_read_timeout(Some(limit)).unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).is_ok()
    };
    let feeder = std::thread::spawn(move || {
        for byte in b"GET /api/rules HTTP/1.1\r\nHost: localhost\r\n" {
            if slow.write_all(&[*byte]).is_err() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
        false
    });
    let get = b"GET /api/rules HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    assert_eq!(exchange_at(address, get).0, 200, "answered while a slow client sends");
    assert!(closed(&mut idle), "an idle kept-alive connection is closed");
    assert!(feeder.join().unwrap(), "the slow client was cut off before it sent its head");
    assert!(started.elapsed() < 2 * limit, "{:?}", started.elapsed());
}

/// Sends a GET for `path` to the shared server and returns the status, the head and the
/// body.
fn get(path: &str) -> (u16, String, String) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let mut stream = TcpStream::connect(server().0).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_owned())
}

/// Sends `body` to `path` of the server at `address`; returns the status and the JSON.
fn post_json_at(address: SocketAddr, path: &str, body: &str) -> (u16, serde_json::Value) {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let (status, answer) = exchange_at(address, &[head.as_bytes(), body.as_bytes()].concat());
    (status, serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {answer}")))
}

/// Two-player advice is given from the first turn: from empty cards, where no exact values
/// can be had, it is EMP(1)'s estimate from the target table, labelled so. Until that table
/// is built (on a fresh data directory), requests that need it are answered 503 with how
/// far the build is, as a number. A position that breaks the turn order is refused with the
/// rule.
#[test]
fn two_player_advice_is_given_from_the_first_turn() {
    let data = tempfile::tempdir().unwrap();
    let address = start(data.path());
    let target = r#"{"card":"","dice":"1,3,3,5,6","rolls_left":2,"target":200}"#;
    let (status, busy) = post_json_at(address, "/api/targets/advise", target);
    assert_eq!(status, 503, "{busy}");
    let percent = busy["percent"].as_u64().unwrap_or_else(|| panic!("no percent: {busy}"));
    assert!(percent <= 100 && busy["error"].as_str().is_some_and(|e| e.contains("being built")), "{busy}");

    let first_turn = r#"{"me":"","opp":"","dice":"1,3,3,5,6","rolls_left":2}"#;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1200);
    let advice = loop {
        let (status, answer) = post_json_at(address, "/api/duel/advise", first_turn);
        if status == 200 {
            break answer;
        }
        assert_eq!(status, 503, "{answer}");
        assert!(answer["percent"].as_u64().is_some_and(|p| p <= 100), "{answer}");
        assert!(std::time::Instant::now() < deadline, "the target table is still being built: {answer}");
        std::thread::sleep(std::time::Duration::from_secs(2));
    };
    assert_eq!(advice["source"], serde_json::json!({ "kind": "emp1", "detail": { "error_per_move": 1.1e-5 } }));
    let text = advice["source_text"].as_str().unwrap();
    assert_eq!(text, "EMP(1) estimate (its moves lose 1.1e-5 winning chance each on average)");
    assert_eq!((advice["me_total"].as_u64(), advice["opp_total"].as_u64()), (Some(0), Some(0)));
    let options = advice["options"].as_array().unwrap();
    assert!(options.len() > 10, "{advice}");
    let values: Vec<f64> = options.iter().map(|o| o["value"].as_f64().unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "best first: {values:?}");
    assert!(values.iter().all(|v| (0.3..0.7).contains(v)), "{values:?}");
    assert_eq!(options[0]["gap"].as_f64(), Some(0.0));
    assert_eq!(options[0]["keep"], serde_json::json!([3, 3]), "{advice}");

    let (status, answer) = post_json_at(
        address,
        "/api/duel/advise",
        r#"{"me":"ones=3,twos=6","opp":"","dice":"1,3,3,5,6","rolls_left":2}"#,
    );
    let message = answer["error"].as_str().unwrap_or_default();
    assert_eq!(status, 400, "{answer}");
    assert!(
        message.contains("as many filled boxes as the opponent (moving first this round) or one fewer"),
        "{message}"
    );
}

/// A box's points are shown apart from the bonuses that come with them: sixes scored with
/// five sixes after a Yahtzee of 50 writes 30 in the box and earns the Extra Yahtzee Bonus.
#[test]
fn box_points_are_shown_apart_from_bonuses() {
    let body = r#"{"card":"ones=3,fh=25,yahtzee=50","dice":"6,6,6,6,6","rolls_left":0}"#;
    let (status, advice) = post_json("/api/solo/advise", body);
    assert_eq!(status, 200, "{advice}");
    let options = advice["options"].as_array().unwrap();
    let sixes = options.iter().find(|o| o["category"] == "sixes").unwrap();
    assert_eq!(
        (sixes["points"].as_u64(), sixes["box_points"].as_u64(), sixes["bonus_points"].as_u64()),
        (Some(130), Some(30), Some(100))
    );
    for option in options {
        let parts = option["box_points"].as_u64().unwrap() + option["bonus_points"].as_u64().unwrap();
        assert_eq!(Some(parts), option["points"].as_u64(), "{option}");
    }
    // The upper bonus is earned by the box that reaches the threshold.
    let body = r#"{"card":"ones=3,twos=6,threes=9,fours=12,fives=15","dice":"6,6,6,1,2","rolls_left":0}"#;
    let (_, advice) = post_json("/api/solo/advise", body);
    let sixes = advice["options"].as_array().unwrap().iter().find(|o| o["category"] == "sixes").unwrap().clone();
    assert_eq!(
        (sixes["points"].as_u64(), sixes["box_points"].as_u64(), sixes["bonus_points"].as_u64()),
        (Some(53), Some(18), Some(35))
    );
}

/// A card as the page draws it: each box by its full name, what is written or what the
/// dice would earn there (a Joker's points and the extra bonus apart), and the totals.
#[test]
fn a_card_view_has_every_box_and_the_totals() {
    let card = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=24,fh=25,yahtzee=50";
    let (status, view) = post_json("/api/card/view", &format!(r#"{{"card":"{card}","dice":"6,6,6,6,6"}}"#));
    assert_eq!(status, 200, "{view}");
    let totals: Vec<u64> = [
        "upper_subtotal",
        "upper_threshold",
        "upper_bonus",
        "upper_bonus_value",
        "yahtzee_bonus",
        "lower_total",
        "total",
    ]
    .iter()
    .map(|key| view[key].as_u64().unwrap())
    .collect();
    assert_eq!(totals, [69, 63, 35, 35, 0, 75, 179]);
    assert_eq!(view["full"], false);
    let boxes = view["boxes"].as_array().unwrap();
    let names: Vec<&str> = boxes.iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["ones", "twos", "threes", "fours", "fives", "sixes", "3k", "4k", "fh", "ss", "ls", "yahtzee", "chance"]
    );
    let named = |name: &str| boxes.iter().find(|b| b["name"] == name).unwrap();
    assert_eq!(named("3k")["label"], "Three of a kind");
    assert_eq!((named("sixes")["upper"].as_bool(), named("sixes")["filled"].as_u64()), (Some(true), Some(24)));
    assert!(named("sixes")["would"].is_null() && named("ss")["filled"].is_null());
    assert_eq!(named("ls")["would"], serde_json::json!({ "box_points": 40, "bonus_points": 100, "points": 140 }));
    assert_eq!(named("chance")["would"], serde_json::json!({ "box_points": 30, "bonus_points": 100, "points": 130 }));
    let (status, view) = post_json("/api/card/view", r#"{"rules":"yatzy","card":"pair=12"}"#);
    assert_eq!(status, 200, "{view}");
    let boxes = view["boxes"].as_array().unwrap();
    assert_eq!((boxes[6]["label"].as_str(), boxes[14]["label"].as_str()), (Some("One pair"), Some("Yatzy")));
    assert!(boxes.iter().all(|b| b["would"].is_null()), "no dice, nothing would score");
    assert_eq!(
        (view["lower_total"].as_u64(), view["upper_bonus_value"].as_u64(), view["total"].as_u64()),
        (Some(12), Some(50), Some(12))
    );
}

/// Games reviewed are kept in the data directory, oldest first, and a damaged history is a
/// clear error, never overwritten.
#[test]
fn the_history_keeps_reviewed_games_in_order() {
    let data = tempfile::tempdir().unwrap();
    let address = start(data.path());
    let get_history = || {
        let head = "GET /api/history HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        let (status, body) = exchange_at(address, head.as_bytes());
        (status, serde_json::from_str::<serde_json::Value>(&body).unwrap())
    };
    assert_eq!(get_history(), (200, serde_json::json!([])));
    let whole = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/records/solo-game.txt")).unwrap();
    let (status, review) = post_json_at(address, "/api/review", &serde_json::json!({ "record": whole }).to_string());
    assert_eq!(status, 200, "{review}");
    let short = "yz-record 1\nrules official\nplayers bea\n13356 keep 33 33245 keep 3345 33456 ss=30\n";
    for record in [&whole, short] {
        let (status, kept) =
            post_json_at(address, "/api/history", &serde_json::json!({ "record": record }).to_string());
        assert_eq!(status, 200, "{kept}");
    }
    let (status, history) = get_history();
    assert_eq!(status, 200, "{history}");
    let games = history.as_array().unwrap();
    assert_eq!(games.len(), 2, "{history}");
    assert_eq!(
        games[0]["players"][0],
        serde_json::json!({
            "name": "you",
            "points": review["players"][0]["points"],
            "decisions": review["players"][0]["decisions"],
            "mean_loss": review["players"][0]["mean_loss"],
        })
    );
    assert_eq!(games[1]["players"][0]["name"], "bea");
    assert_eq!(games[1]["players"][0]["points"], 30);
    assert!(games.iter().all(|g| g["rules"] == "official"));
    assert!(games[0]["when"].as_u64().unwrap() <= games[1]["when"].as_u64().unwrap());

    let file = data.path().join(yz::coach::history::FILE_NAME);
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    let (status, answer) = get_history();
    let message = answer["error"].as_str().unwrap_or_default();
    assert_eq!(status, 500, "{answer}");
    assert!(
        message.contains("cannot be read") && message.contains("move it away") && !message.contains('/'),
        "{message}"
    );
    let (status, _) = post_json_at(address, "/api/history", &serde_json::json!({ "record": short }).to_string());
    assert_eq!(status, 500);
    assert_eq!(std::fs::read(&file).unwrap(), bytes, "a damaged history is left as it is");
}

/// What installs the page as an app is served from the root with its content type.
#[test]
fn the_app_installs() {
    for (path, content_type, holds) in [
        ("/manifest.webmanifest", "application/manifest+json", "icon.svg"),
        ("/sw.js", "text/javascript", "yz.wasm"),
        ("/icon.svg", "image/svg+xml", "<svg"),
    ] {
        let (status, head, body) = get(path);
        assert_eq!(status, 200, "{path}");
        assert!(head.contains(&format!("content-type: {content_type}")), "{path}: {head}");
        assert!(body.contains(holds), "{path}");
    }
    let (_, _, manifest) = get("/manifest.webmanifest");
    let manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    assert!(manifest["name"].as_str().is_some_and(|n| n.contains("yz")), "{manifest}");
}

/// A target table's build runs in a child process: a build that dies (killed, as the
/// kernel kills a process out of memory, or failing on a full disk) leaves the server up,
/// its progress shown until then; its error is the answer to the requests after it, again
/// and again without another build (the page shows it and stops asking), and it names no
/// path.
#[test]
fn a_build_that_dies_leaves_the_server_up_and_its_error_answers() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    for (ending, says) in [
        ("kill -9 $$", "ran out of memory"),
        ("echo 'Error: writing: No space left on device (os error 28)' >&2; exit 1", "disk filled up"),
    ] {
        let data = tempfile::Builder::new().tempdir_in(dir.path()).unwrap();
        let runs = data.path().join("runs");
        let exe = data.path().join("yz-that-dies");
        let script =
            format!("#!/bin/sh\necho run >> '{}'\necho 'progress 31 100' >&2\nsleep 1\n{ending}\n", runs.display());
        std::fs::write(&exe, script).unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let address = start_with(ServeConfig { exe, ..config(data.path()) });
        let target = r#"{"card":"","dice":"1,3,3,5,6","rolls_left":2,"target":200}"#;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let mut percents = Vec::new();
        let (status, error) = loop {
            let (status, answer) = post_json_at(address, "/api/targets/advise", target);
            match answer["percent"].as_u64() {
                Some(percent) if status == 503 => percents.push(percent),
                _ => break (status, answer),
            }
            assert!(std::time::Instant::now() < deadline, "still building: {answer}");
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        assert_eq!(status, 507, "{error}");
        let message = error["error"].as_str().unwrap();
        assert!(message.contains(says) && message.contains("tries again") && !message.contains('/'), "{message}");
        assert!(percents.contains(&31), "the child's progress is shown: {percents:?}");
        for _ in 0..3 {
            assert_eq!(post_json_at(address, "/api/targets/advise", target), (status, error.clone()));
        }
        assert_eq!(std::fs::read_to_string(&runs).unwrap(), "run\n", "one build, not one per request");
        let (status, advice) =
            post_json_at(address, "/api/solo/advise", r#"{"card":"","dice":"1,3,3,5,6","rolls_left":2}"#);
        assert_eq!(status, 200, "the server goes on: {advice}");
    }
}

/// A server under a memory limit its target table's build cannot fit refuses the build up
/// front (507, saying how much memory it takes), and goes on serving.
#[test]
fn a_build_that_cannot_fit_the_memory_limit_is_refused_up_front() {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let data = tempfile::tempdir().unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_yz"));
    command.arg("--data").arg(data.path()).args(["--json", "serve", "--port", "0"]);
    command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null());
    // SAFETY: setrlimit between fork and exec takes no lock and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: 1 << 30, rlim_max: 1 << 30 };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
        });
    }
    let mut server = command.spawn().unwrap();
    let mut line = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url: serde_json::Value = serde_json::from_str(&line).unwrap();
    let address: SocketAddr =
        url["url"].as_str().unwrap().trim_start_matches("http://").trim_end_matches('/').parse().unwrap();
    let target = r#"{"card":"","dice":"1,3,3,5,6","rolls_left":2,"target":200}"#;
    let (status, answer) = post_json_at(address, "/api/targets/advise", target);
    let message = answer["error"].as_str().unwrap_or_default().to_owned();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let alive = server.try_wait().unwrap().is_none();
    let (rules, _) = exchange_at(address, b"GET /api/rules HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    server.kill().unwrap();
    server.wait().unwrap();
    assert_eq!(status, 507, "{answer}");
    assert!(message.contains("MB of memory") && message.contains("available to this process"), "{message}");
    assert!(alive && rules == 200, "the server goes on");
}

/// A client that hangs up on its review gives the heavy work's place back within about a
/// second, its mistakes' breakdowns (whole-game analyses, seconds each) cancelled inside:
/// another user's two-player advice is answered, not refused as busy.
#[test]
fn a_review_whose_client_hangs_up_frees_the_heavy_place_at_once() {
    let data = tempfile::tempdir().unwrap();
    let address = start(data.path());
    let solo = post_json_at(address, "/api/solo/advise", r#"{"card":"","dice":"1,3,3,5,6","rolls_left":2}"#);
    assert_eq!(solo.0, 200, "the solitaire table read first");
    // Three mistakes from the first turn: about 15 s of breakdowns on two cores.
    let record = "yz-record 1\n12346 keep 1 11123 keep 1 12345 chance=15\n";
    let body = serde_json::json!({ "record": record, "top": 3 }).to_string();
    let head = format!(
        "POST /api/review HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut reviewing = TcpStream::connect(address).unwrap();
    reviewing.write_all(&[head.as_bytes(), body.as_bytes()].concat()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let me = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,3k=20,4k=0,fh=25,ss=30";
    let opp = "ones=2,twos=6,threes=9,fours=12,fives=20,sixes=18,3k=22,4k=0,fh=25,ss=30";
    let advice = format!(r#"{{"me":"{me}","opp":"{opp}","dice":"6,6,5,5,1","rolls_left":2}}"#);
    let (status, busy) = post_json_at(address, "/api/duel/advise", &advice);
    assert_eq!(status, 503, "the review holds the heavy place: {busy}");
    drop(reviewing);
    let hung_up = std::time::Instant::now();
    loop {
        let (status, answer) = post_json_at(address, "/api/duel/advise", &advice);
        if status == 200 {
            break;
        }
        assert_eq!(status, 503, "{answer}");
        assert!(hung_up.elapsed() < std::time::Duration::from_secs(3), "still busy: {answer}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
