//! The web app's solver in the browser: the library built for WebAssembly
//! (`wasm32-unknown-unknown`, `scripts/build-web`) answers the page's requests in a Web
//! Worker (`worker.js`), with no server.
//!
//! It answers what needs no table on disk: the rule sets, cards, scoring, solitaire advice,
//! its reasons and reviews from tables it solves itself (a second or two each, reported through the
//! imported `yz.progress(done, total)`, then kept), target advice and curves once the game
//! below the position is small enough to solve here ([`BROWSER_TARGET_VALUES`]: the curves
//! are kept for the rest of the game), and two-player advice where the game below the
//! position is small enough to solve exactly ([`BROWSER_DUEL_POSITIONS`]). Earlier target
//! advice (the whole table), larger two-player positions and two-player reviews are the
//! server's (`yz serve`): asked here, they are refused with a message that says so
//! ([`needs_server`]). The game history is the page's own (its storage), each game added
//! by the library here as the server adds it to its file ([`requests::PageHistoryRequest`]).
//!
//! The boundary is bytes, not bindings: the worker writes a request (`route`, a newline,
//! the JSON body) into the buffer [`yz_request`] returns, calls [`yz_answer`] (the answer's
//! length), and reads the answer (the HTTP status as 4 bytes, little-endian, then the JSON)
//! at [`yz_answer_ptr`]. A panic aborts the module; the worker then starts it again.
//!
//! **Tables kept between visits.** Every solitaire table solved here is also handed to the
//! worker ([`yz_solved_table`]) as the bytes of its file (the store format `yz solo solve`
//! writes: versioned header, checksums), which the worker keeps in the browser's
//! IndexedDB; at its next start it gives them back ([`yz_keep_table`]), each checked as a
//! file on disk is (a damaged one, or one of another version, is refused and solved
//! again), so that a warm visit answers without solving.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use http::StatusCode;

use super::record::Record;
use super::requests::{self, ApiError};
use super::review::{self, ReviewOptions};
use crate::duel::source::TableLookup;
use crate::game::{Game, ScoreState};
use crate::progress::Progress;
use crate::solo::SoloTable;
use crate::solo::table::KIND;
use crate::targets::{TargetCurves, TargetTable};
use std::path::Path;

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "yz")]
unsafe extern "C" {
    /// The worker's progress callback: `done` of `total` units of the table being solved.
    #[link_name = "progress"]
    fn progress(done: f64, total: f64);
}

/// Tells the worker how far a solve is.
fn report_progress(done: f64, total: f64) {
    // SAFETY: an imported function of two numbers; it touches no memory of ours.
    #[cfg(target_arch = "wasm32")]
    unsafe {
        progress(done, total)
    };
    // The module's router is unit-tested natively, where no worker listens.
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (done, total);
}

/// Progress of a solve, passed on to the worker (one message per percent at most).
#[derive(Default)]
struct ToWorker {
    total: AtomicU64,
    done: AtomicU64,
}

impl Progress for ToWorker {
    fn start(&self, _phase: &str, total: u64, _unit: &'static str) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
        report_progress(0.0, total as f64);
    }

    fn advance(&self, n: u64) {
        let total = self.total.load(Ordering::Relaxed).max(1);
        let before = self.done.fetch_add(n, Ordering::Relaxed);
        let after = before + n;
        if 100 * after / total != 100 * before / total {
            report_progress(after as f64, total as f64);
        }
    }

    fn finish(&self) {}
}

thread_local! {
    /// The request written by the worker: its route, a newline, its JSON body.
    static REQUEST: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The last answer: its status (4 bytes, little-endian), then its JSON.
    static ANSWER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The solitaire tables solved or kept so far, by game, each read from its file's bytes.
    static SOLO: RefCell<HashMap<Game, Rc<SoloTable>>> = RefCell::new(HashMap::new());
    /// The files of the tables solved since the worker last took them ([`yz_solved_table`]).
    static SOLVED: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
    /// The target curves solved below a position, by game (the latest position asked that
    /// earlier curves did not cover).
    static TARGETS: RefCell<HashMap<Game, Rc<TargetCurves<f32>>>> = RefCell::new(HashMap::new());
}

/// Room for a request of `len` bytes: the worker writes it there, then calls [`yz_answer`].
#[unsafe(no_mangle)]
pub extern "C" fn yz_request(len: usize) -> *mut u8 {
    REQUEST.with_borrow_mut(|request| {
        request.clear();
        request.resize(len, 0);
        request.as_mut_ptr()
    })
}

/// Answers the request written: its length in bytes, the answer being at [`yz_answer_ptr`].
#[unsafe(no_mangle)]
pub extern "C" fn yz_answer() -> usize {
    let request = REQUEST.with_borrow_mut(std::mem::take);
    let (status, body) = match std::str::from_utf8(&request) {
        Ok(text) => {
            let (route, body) = text.split_once('\n').unwrap_or((text, ""));
            match answer(route, body) {
                Ok(json) => (StatusCode::OK, json),
                Err(error) => (error.status, error.body().to_string()),
            }
        }
        Err(_) => (StatusCode::BAD_REQUEST, ApiError::bad("the request is not UTF-8").body().to_string()),
    };
    write_answer(status, &body)
}

/// Writes an answer: `status` as 4 bytes (little-endian), then `body`; its length.
fn write_answer(status: StatusCode, body: &str) -> usize {
    ANSWER.with_borrow_mut(|answer| {
        answer.clear();
        answer.extend_from_slice(&u32::from(status.as_u16()).to_le_bytes());
        answer.extend_from_slice(body.as_bytes());
        answer.len()
    })
}

/// Where the last answer is: [`yz_answer`]'s length of bytes from here.
#[unsafe(no_mangle)]
pub extern "C" fn yz_answer_ptr() -> *const u8 {
    ANSWER.with_borrow(|answer| answer.as_ptr())
}

/// Takes the bytes written at [`yz_request`] as a solitaire table's file kept from an
/// earlier visit: checked as a file on disk is (every checksum, this version's format, a
/// game this yz knows), then used for its game. Answers as [`yz_answer`] does: 200 and the
/// game's rules and boxes, or why the bytes were refused (the worker then forgets them).
#[unsafe(no_mangle)]
pub extern "C" fn yz_keep_table() -> usize {
    let bytes = REQUEST.with_borrow_mut(std::mem::take);
    let kept = keep_table(&bytes).and_then(json);
    let (status, body) = match kept {
        Ok(json) => (StatusCode::OK, json),
        Err(error) => (error.status, error.body().to_string()),
    };
    write_answer(status, &body)
}

/// The file of a solitaire table solved since the last call, at [`yz_answer_ptr`]: its
/// length in bytes, 0 when none is left to take.
#[unsafe(no_mangle)]
pub extern "C" fn yz_solved_table() -> usize {
    match SOLVED.with_borrow_mut(Vec::pop) {
        Some(file) => ANSWER.with_borrow_mut(|answer| {
            *answer = file;
            answer.len()
        }),
        None => 0,
    }
}

/// The game of a table's file `bytes` kept by the worker, once the table is in [`SOLO`].
fn keep_table(bytes: &[u8]) -> Result<KeptJson, ApiError> {
    let label = Path::new("the table kept by the browser");
    let refused = |e: &dyn std::fmt::Display| ApiError::bad(format!("{e}"));
    let file =
        crate::store::StoreFile::from_bytes(bytes, label, KIND.name, KIND.metadata_limit).map_err(|e| refused(&e))?;
    let game = KIND.check(label, file.metadata(), None).map_err(|e| refused(&e))?;
    let table = SoloTable::from_bytes(bytes, label, game).map_err(|e| refused(&e))?;
    SOLO.with_borrow_mut(|tables| tables.insert(game, Rc::new(table)));
    Ok(KeptJson { rules: game.rules.name().to_owned(), boxes: game.box_names().len() })
}

/// What [`yz_keep_table`] answers for a table it took.
#[derive(serde::Serialize)]
struct KeptJson {
    /// The table's rules.
    rules: String,
    /// Boxes of its card.
    boxes: usize,
}

/// The answer to the API request `route` (as the server's, `/api/solo/advise`) with the
/// JSON `body` (empty for a GET).
fn answer(route: &str, body: &str) -> Result<String, ApiError> {
    let parsed = || -> Result<serde_json::Value, ApiError> {
        serde_json::from_str(body).map_err(|e| ApiError::bad(format!("the request body is not JSON: {e}")))
    };
    match route {
        "/api/rules" => json(requests::rules()),
        "/api/card/view" => json(requests::card_view(&requests::parse(parsed()?)?)?),
        "/api/card/score" => json(requests::card_score(&requests::parse(parsed()?)?)?),
        "/api/play/turn" => json(requests::play_turn(&requests::parse(parsed()?)?)?),
        "/api/solo/advise" => {
            let request: requests::TurnRequest = requests::parse(parsed()?)?;
            let table = solo_table(request.game()?)?;
            json(requests::solo_advise(&*table, &request)?)
        }
        "/api/solo/judge" => {
            let request: requests::JudgeRequest = requests::parse(parsed()?)?;
            let table = solo_table(request.turn().game()?)?;
            json(requests::solo_judge(&*table, &request)?)
        }
        "/api/solo/why" => {
            let request: requests::ReasonsRequest = requests::parse(parsed()?)?;
            let table = solo_table(request.game()?)?;
            json(requests::solo_reasons(&*table, &request, &crate::progress::Silent)?)
        }
        "/api/duel/advise" => {
            let request: requests::DuelRequest = requests::parse(parsed()?)?;
            let cards = crate::duel::cards::Cards::new(request.game()?);
            let (p, roll, rolls_left) = request.read(&cards)?;
            // No tables on disk here: exact where the game below is small enough to solve.
            let lookup =
                TableLookup { given: None, data: Path::new(""), on_the_fly: BROWSER_DUEL_POSITIONS, gpu: false };
            let too_large = || -> Result<&TargetTable, ApiError> { Err(needs_server(route)) };
            json(requests::duel_advise(&cards, &p, roll, rolls_left, lookup, too_large, &crate::progress::Silent)?)
        }
        "/api/review" => {
            let (record, top) = requests::parse::<requests::ReviewRequest>(parsed()?)?.read()?;
            json(review_in_browser(&record, top)?.to_json(&record))
        }
        "/api/history" => {
            let request: requests::PageHistoryRequest = requests::parse(parsed()?)?;
            let record = request.record()?;
            let players = review_in_browser(&record, 0)?.players;
            json(request.added(record.game().rules, &players))
        }
        "/api/targets/advise" => {
            let request: requests::TargetRequest = requests::parse(parsed()?)?;
            let (game, card, _, _) = request.turn().read()?;
            let curves = target_curves(game, card.state())?;
            json(requests::target_advice(&mut &*curves, &request)?)
        }
        "/api/targets/curve" => {
            let card = requests::parse::<requests::CurveRequest>(parsed()?)?.card()?;
            let curves = target_curves(card.game, card.state())?;
            json(requests::target_curve(&mut &*curves, &card)?)
        }
        "/api/solo/beat" => Err(needs_server(route)),
        _ => Err(ApiError::new(StatusCode::NOT_FOUND, "no such page or API route")),
    }
}

/// The refusal of a request only the server answers (501): what it needs and where to get
/// it.
pub fn needs_server(route: &str) -> ApiError {
    let what = match route {
        "/api/solo/beat" => "the best reply to the optimal player",
        "/api/duel/advise" => &format!(
            "two-player advice on a position this large (over {} million positions below it, which the browser \
             solves exactly; EMP(1) estimates it from a target table)",
            BROWSER_DUEL_POSITIONS / 1_000_000
        ),
        _ => "the review of a two-player game",
    };
    ApiError::new(
        StatusCode::NOT_IMPLEMENTED,
        format!(
            "{what} needs the yz server: in the browser this page gives solitaire advice, play, reviews, \
             target advice late in a game and two-player endgames; run `yz serve` and open the page from it \
             for the rest"
        ),
    )
}

/// Most positions the browser solves below a two-player position (a few seconds): beyond,
/// the advice is the server's (its tables, or EMP(1)'s estimate).
pub const BROWSER_DUEL_POSITIONS: u64 = 2_000_000;

/// Most curve values the browser solves below a solitaire position for target advice
/// ([`crate::targets::solve::values_below`]; a few seconds): beyond, the advice is the
/// server's, from its target table.
pub const BROWSER_TARGET_VALUES: u64 = 15_000_000;

/// Open boxes of the official card from which its target advice is within
/// [`BROWSER_TARGET_VALUES`] (11.9 million values below three upper boxes filled), for the
/// refusals.
const BROWSER_TARGET_BOXES: usize = 8;

/// The target curves below `position` of `game`: those solved for an earlier position of
/// the same game where they cover it, else solved now (refused beyond
/// [`BROWSER_TARGET_VALUES`]) and kept in their place.
fn target_curves(game: Game, position: ScoreState) -> Result<Rc<TargetCurves<f32>>, ApiError> {
    let held = TARGETS.with_borrow(|held| held.get(&game).cloned());
    if let Some(curves) = held.filter(|curves| curves.covers(position)) {
        return Ok(curves);
    }
    let values = crate::targets::solve::values_below(game, position);
    if values > BROWSER_TARGET_VALUES {
        return Err(ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            format!(
                "target advice this early in a game needs the yz server: below this position lie {:.1} million \
                 curve values to solve, and the browser solves up to {} million (the official card's from {} open \
                 boxes on); run `yz serve` and open the page from it for its target table",
                values as f64 / 1e6,
                BROWSER_TARGET_VALUES / 1_000_000,
                BROWSER_TARGET_BOXES
            ),
        ));
    }
    // The curves held go before the new ones are solved: one set in memory at a time.
    TARGETS.with_borrow_mut(|held| held.remove(&game));
    let curves = Rc::new(crate::targets::solve::solve_below(game, position, &ToWorker::default()));
    TARGETS.with_borrow_mut(|held| held.insert(game, Rc::clone(&curves)));
    Ok(curves)
}

/// The solitaire table of `game`: kept from an earlier visit, else solved on first use (a
/// second or two) and its file handed to the worker to keep ([`yz_solved_table`]).
fn solo_table(game: Game) -> Result<Rc<SoloTable>, ApiError> {
    if let Some(table) = SOLO.with_borrow(|tables| tables.get(&game).cloned()) {
        return Ok(table);
    }
    let solved = crate::solo::solve_reporting(game, &ToWorker::default());
    let file = SoloTable::encode(&solved).map_err(ApiError::internal)?;
    let table =
        SoloTable::from_bytes(&file, Path::new("the table solved in the browser"), game).map_err(ApiError::internal)?;
    let table = Rc::new(table);
    SOLO.with_borrow_mut(|tables| tables.insert(game, Rc::clone(&table)));
    SOLVED.with_borrow_mut(|solved| solved.push(file));
    Ok(table)
}

/// The review of a solitaire game's `record` from the table the browser solves, its `top`
/// mistakes broken down; a two-player game's needs the server's tables.
fn review_in_browser(record: &Record, top: usize) -> Result<review::Review, ApiError> {
    if record.players().len() > 1 {
        return Err(needs_server("/api/review"));
    }
    let table = solo_table(record.game())?;
    let options = ReviewOptions { data: Path::new(""), top, tolerance: review::DEFAULT_TOLERANCE, on_the_fly: 0 };
    Ok(review::review_against(record, &*table, options, &crate::progress::Silent)?)
}

/// An answer as JSON text, its fields in the order the server writes them.
fn json(value: impl serde::Serialize) -> Result<String, ApiError> {
    serde_json::to_string(&value).map_err(ApiError::internal)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends `body` to `route` through the module's own boundary, as the worker does: the
    /// status and the answer's text.
    fn ask_text(route: &str, body: &str) -> (u32, String) {
        let request = format!("{route}\n{body}");
        let room = yz_request(request.len());
        // SAFETY: `yz_request` made `request.len()` bytes of room there.
        unsafe { std::ptr::copy_nonoverlapping(request.as_ptr(), room, request.len()) };
        let len = yz_answer();
        // SAFETY: the answer is `len` bytes at `yz_answer_ptr`, until the next request.
        let answer = unsafe { std::slice::from_raw_parts(yz_answer_ptr(), len) }.to_vec();
        let status = u32::from_le_bytes(answer[..4].try_into().unwrap());
        (status, String::from_utf8(answer[4..].to_vec()).unwrap())
    }

    /// [`ask_text`], the answer read as JSON.
    fn ask(route: &str, body: &str) -> (u32, serde_json::Value) {
        let (status, text) = ask_text(route, body);
        (status, serde_json::from_str(&text).unwrap())
    }

    #[test]
    fn the_browser_answers_solitaire_advice_as_the_library_does() {
        // Compared as text: serde_json reads floats to within an ulp (a browser exactly).
        let (status, answer) =
            ask_text("/api/solo/advise", r#"{"card": "ones=3,fh=25", "dice": "22356", "rolls_left": 1}"#);
        assert_eq!(status, 200, "{answer}");
        let game = Game::full(crate::game::Rules::OFFICIAL);
        let card = crate::game::Card::parse("ones=3,fh=25", game).unwrap();
        let (roll, rolls_left) = (crate::game::parse_dice("22356").unwrap(), crate::game::RollsLeft::new(1).unwrap());
        let ranked = crate::solo::advise(&crate::solo::solve(game), game, &card, roll, rolls_left).unwrap();
        let direct =
            serde_json::to_string(&crate::solo::advise::AdviceJson::new(&card, roll, rolls_left, &ranked)).unwrap();
        assert_eq!(answer, direct);
    }

    /// The page's game judges each decision in the browser as the library does.
    #[test]
    fn the_browser_judges_a_decision_as_the_library_does() {
        let body = r#"{"card": "ones=3,fh=25", "dice": "22356", "rolls_left": 1, "keep": "56"}"#;
        let (status, answer) = ask_text("/api/solo/judge", body);
        assert_eq!(status, 200, "{answer}");
        let table = crate::solo::solve(Game::full(crate::game::Rules::OFFICIAL));
        let direct = requests::solo_judge(&table, &requests::parse(serde_json::from_str(body).unwrap()).unwrap());
        assert_eq!(answer, serde_json::to_string(&direct.unwrap()).unwrap());
    }

    /// The page's history in the browser: a game added by the library, with its review's
    /// totals and the page's clock, after the games kept, the oldest dropped beyond what the
    /// server's file keeps; a two-player game's needs the server's review.
    #[test]
    fn the_browser_adds_a_game_to_the_page_s_history_as_the_server_does() {
        let text = include_str!("../../docs/records/solo-game.txt");
        let record = Record::parse(text).unwrap();
        let data = tempfile::tempdir().unwrap();
        let options = ReviewOptions { data: data.path(), top: 0, tolerance: review::DEFAULT_TOLERANCE, on_the_fly: 0 };
        let players = review::review(&record, options, &crate::progress::Silent).unwrap().players;
        let entry = crate::coach::history::HistoryEntry::new(1_800_000_000, record.game().rules, &players);
        let old = crate::coach::history::HistoryEntry { when: 7, ..entry.clone() };
        let full = vec![old; crate::coach::history::MAX_ENTRIES];
        let body = serde_json::json!({ "record": text, "when": 1_800_000_000u64, "history": full }).to_string();
        let (status, answer) = ask("/api/history", &body);
        assert_eq!(status, 200, "{answer}");
        let kept: Vec<crate::coach::history::HistoryEntry> = serde_json::from_value(answer).unwrap();
        assert_eq!(kept.len(), crate::coach::history::MAX_ENTRIES);
        assert_eq!(kept.last(), Some(&entry));
        let duel = "yz-record 1\nrules official\nplayers ann bob\nann: 11111 yahtzee=50\n";
        let body = serde_json::json!({ "record": duel, "when": 1u64, "history": [] }).to_string();
        assert_eq!(ask("/api/history", &body).0, 501);
    }

    /// A solitaire game reviewed in the browser, from the table it solves, is the review
    /// of `yz review`, from the table on disk.
    #[test]
    fn the_browser_reviews_a_solitaire_game_as_yz_review_does() {
        let text = include_str!("../../docs/records/solo-game.txt");
        let body = serde_json::json!({ "record": text, "top": 2 }).to_string();
        let (status, answer) = ask_text("/api/review", &body);
        assert_eq!(status, 200, "{answer}");
        let data = tempfile::tempdir().unwrap();
        let record = crate::coach::record::Record::parse(text).unwrap();
        let options = ReviewOptions { data: data.path(), top: 2, tolerance: review::DEFAULT_TOLERANCE, on_the_fly: 0 };
        let reviewed = review::review(&record, options, &crate::progress::Silent).unwrap();
        assert_eq!(answer, serde_json::to_string(&reviewed.to_json(&record)).unwrap());
    }

    /// Target advice late in a game is solved in the browser below the position: the
    /// library's advice from those curves, and their curve; a later position of the same
    /// game reads the curves already solved; an early one is refused with the figures.
    #[test]
    fn the_browser_gives_target_advice_below_a_late_position() {
        use crate::targets::advise::{TargetAdviceJson, advise_from};
        let game = Game::full(crate::game::Rules::OFFICIAL);
        let text = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,3k=20,fh=25";
        let card = crate::game::Card::parse(text, game).unwrap();
        let (roll, rolls_left) = (crate::game::parse_dice("44456").unwrap(), crate::game::RollsLeft::new(1).unwrap());
        let curves = crate::targets::solve::solve_below::<f32>(game, card.state(), &crate::progress::Silent);
        let ranked = advise_from(&mut &curves, &card, roll, rolls_left, 250).unwrap();
        let direct = serde_json::to_string(&TargetAdviceJson::new(&card, roll, rolls_left, 250, &ranked)).unwrap();
        let body = serde_json::json!({ "card": text, "dice": "44456", "rolls_left": 1, "target": 250 }).to_string();
        let (status, answer) = ask_text("/api/targets/advise", &body);
        assert_eq!((status, answer), (200, direct));
        let (status, curve) = ask("/api/targets/curve", &serde_json::json!({ "card": text }).to_string());
        assert_eq!(status, 200, "{curve}");
        let at_least = curve["at_least"].as_array().unwrap();
        assert_eq!(at_least[0][0], card.points());
        let start = curves.curve(card.state());
        assert!(at_least.iter().all(
            |p| p[1].as_f64().unwrap() as f32 == start.at(i64::from(p[0].as_u64().unwrap() as u32 - card.points()))
        ));
        let later = format!("{text},chance=22");
        let (status, _) = ask("/api/targets/curve", &serde_json::json!({ "card": later }).to_string());
        assert_eq!(status, 200);
        assert!(TARGETS.with_borrow(|held| held[&game].below() == Some(card.state())), "the curves held serve it");
        let (status, answer) =
            ask("/api/targets/advise", r#"{"card": "", "dice": "13356", "rolls_left": 2, "target": 250}"#);
        assert_eq!(status, 501, "{answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains("million curve values") && error.contains("yz serve"), "{error}");
    }

    /// [`yz_keep_table`] given `bytes`: the answer's status and JSON.
    fn keep(bytes: &[u8]) -> (u32, serde_json::Value) {
        let room = yz_request(bytes.len());
        // SAFETY: `yz_request` made `bytes.len()` bytes of room there.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), room, bytes.len()) };
        let len = yz_keep_table();
        // SAFETY: the answer is `len` bytes at `yz_answer_ptr`, until the next request.
        let answer = unsafe { std::slice::from_raw_parts(yz_answer_ptr(), len) };
        (u32::from_le_bytes(answer[..4].try_into().unwrap()), serde_json::from_slice(&answer[4..]).unwrap())
    }

    /// A table solved for a request is handed to the worker once, as the very bytes of the
    /// file `yz solo solve` writes; given back on a later visit (a fresh module: another
    /// thread), it answers as the solved one did, with nothing solved or handed over again.
    /// Damaged bytes, a table of an older version and a file of another kind are refused,
    /// naming what is wrong.
    #[test]
    fn a_table_solved_in_the_browser_is_kept_and_given_back() {
        let body = r#"{"card": "ones=3,fh=25", "dice": "22356", "rolls_left": 1}"#;
        let (first, file) = std::thread::spawn(move || {
            let first = ask_text("/api/solo/advise", body);
            let len = yz_solved_table();
            // SAFETY: the file is `len` bytes at `yz_answer_ptr`, until the next request.
            let file = unsafe { std::slice::from_raw_parts(yz_answer_ptr(), len) }.to_vec();
            assert_eq!(yz_solved_table(), 0, "a table is handed over once");
            (first, file)
        })
        .join()
        .unwrap();
        assert_eq!(first.0, 200);
        let game = Game::full(crate::game::Rules::OFFICIAL);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("solo.yzt");
        SoloTable::write(&crate::solo::solve(game), &path).unwrap();
        assert!(std::fs::read(&path).unwrap() == file, "the kept bytes are the table's file");

        let again = std::thread::spawn(move || {
            let (status, kept) = keep(&file);
            assert_eq!((status, kept["rules"].as_str(), kept["boxes"].as_u64()), (200, Some("official"), Some(13)));
            let answer = ask_text("/api/solo/advise", body);
            assert_eq!(yz_solved_table(), 0, "nothing solved again");
            let mut damaged = file.clone();
            let middle = damaged.len() / 2;
            damaged[middle] ^= 1;
            let label = Path::new("kept");
            let sound = crate::store::StoreFile::from_bytes(&file, label, KIND.name, KIND.metadata_limit).unwrap();
            let mut metadata = sound.metadata().clone();
            metadata["table_version"] = serde_json::json!(KIND.version - 1);
            let older = crate::store::encode(KIND.name, &metadata, sound.payload()).unwrap();
            let refusals = [damaged, older, b"not a table".to_vec()].map(|bytes| keep(&bytes));
            (answer, refusals)
        })
        .join()
        .unwrap();
        assert_eq!(again.0, first);
        let [damaged, older, other] = again.1.map(|(status, answer)| (status, answer["error"].to_string()));
        assert!(damaged.0 == 400 && damaged.1.contains("corrupted"), "{damaged:?}");
        assert!(older.0 == 400 && older.1.contains("table version"), "{older:?}");
        assert!(other.0 == 400 && other.1.contains("not a yz store file"), "{other:?}");
    }

    #[test]
    fn the_browser_refuses_what_it_cannot_answer_with_a_reason() {
        let (status, answer) = ask("/api/solo/advise", r#"{"card": "", "dice": "1335", "rolls_left": 2}"#);
        assert_eq!(
            (status, answer["error"].as_str().unwrap()),
            (400, "expected five dice such as 13356 or 1,3,3,5,6; got 4 value(s)")
        );
        let (status, answer) = ask("/api/solo/advise", r#"{"card": "", "dice": "13356", "rolls": 2}"#);
        assert_eq!(status, 400);
        assert!(answer["error"].as_str().unwrap().starts_with("unknown field \"rolls\""), "{answer}");
        let (status, answer) = ask("/api/solo/advise", "{not json");
        assert_eq!(status, 400);
        assert!(answer["error"].as_str().unwrap().starts_with("the request body is not JSON"), "{answer}");
        let (status, answer) = ask("/api/duel/advise", r#"{"me": "", "opp": "", "dice": "13356", "rolls_left": 2}"#);
        assert_eq!(status, 501);
        assert!(
            answer["error"].as_str().unwrap().starts_with("two-player advice on a position this large"),
            "{answer}"
        );
        let duel = "yz-record 1\nplayers ann bob\nann: 13356 chance=18\n";
        let (status, answer) = ask("/api/review", &serde_json::json!({ "record": duel }).to_string());
        assert_eq!(status, 501, "{answer}");
        assert!(answer["error"].as_str().unwrap().contains("run `yz serve`"), "{answer}");
        assert_eq!(ask("/api/nothing", "").0, 404);
        let (status, answer) = ask("/api/rules", "");
        assert_eq!(status, 200);
        assert_eq!(answer.as_array().unwrap().len(), crate::game::Rules::all().len());
    }
}
