//! The web app's solver in the browser: the library built for WebAssembly
//! (`wasm32-unknown-unknown`, `scripts/build-web`) answers the page's requests in a Web
//! Worker (`worker.js`), with no server.
//!
//! It answers what needs no table on disk: the rule sets, cards, scoring, solitaire advice,
//! its reasons and reviews from tables it solves itself (a second or two each, reported through the
//! imported `yz.progress(done, total)`, then kept), and two-player advice where the game
//! below the position is small enough to solve exactly here ([`BROWSER_DUEL_POSITIONS`]).
//! Target tables, larger two-player positions, two-player reviews and the game history
//! are the server's (`yz serve`): asked here, they are refused with a message that says so
//! ([`needs_server`]).
//!
//! The boundary is bytes, not bindings: the worker writes a request (`route`, a newline,
//! the JSON body) into the buffer [`yz_request`] returns, calls [`yz_answer`] (the answer's
//! length), and reads the answer (the HTTP status as 4 bytes, little-endian, then the JSON)
//! at [`yz_answer_ptr`]. A panic aborts the module; the worker then starts it again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use http::StatusCode;

use super::requests::{self, ApiError};
use super::review::{self, ReviewOptions};
use crate::duel::source::TableLookup;
use crate::game::Game;
use crate::progress::Progress;
use crate::solo::SoloSolution;
use crate::targets::TargetTable;
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
    /// The solitaire tables solved so far, by game.
    static SOLO: RefCell<HashMap<Game, Rc<SoloSolution>>> = RefCell::new(HashMap::new());
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
        "/api/solo/advise" => {
            let request: requests::TurnRequest = requests::parse(parsed()?)?;
            let table = solo_table(request.game()?);
            json(requests::solo_advise(&*table, &request)?)
        }
        "/api/solo/why" => {
            let request: requests::ReasonsRequest = requests::parse(parsed()?)?;
            let table = solo_table(request.game()?);
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
            if record.players().len() > 1 {
                return Err(needs_server("/api/review"));
            }
            let table = solo_table(record.game());
            let options =
                ReviewOptions { data: Path::new(""), top, tolerance: review::DEFAULT_TOLERANCE, on_the_fly: 0 };
            json(review::review_against(&record, &*table, options, &crate::progress::Silent)?.to_json(&record))
        }
        "/api/solo/beat" | "/api/targets/advise" | "/api/targets/curve" | "/api/history" => Err(needs_server(route)),
        _ => Err(ApiError::new(StatusCode::NOT_FOUND, "no such page or API route")),
    }
}

/// The refusal of a request only the server answers (501): what it needs and where to get
/// it.
pub fn needs_server(route: &str) -> ApiError {
    let what = match route {
        "/api/solo/beat" => "the best reply to the optimal player",
        "/api/targets/advise" | "/api/targets/curve" => "target advice (a target table of over a gigabyte)",
        "/api/duel/advise" => &format!(
            "two-player advice on a position this large (over {} million positions below it, which the browser \
             solves exactly; EMP(1) estimates it from a target table)",
            BROWSER_DUEL_POSITIONS / 1_000_000
        ),
        "/api/review" => "the review of a two-player game",
        _ => "the game history",
    };
    ApiError::new(
        StatusCode::NOT_IMPLEMENTED,
        format!(
            "{what} needs the yz server: in the browser this page gives solitaire advice, play, reviews and \
             two-player endgames; run `yz serve` and open the page from it for the rest"
        ),
    )
}

/// Most positions the browser solves below a two-player position (a few seconds): beyond,
/// the advice is the server's (its tables, or EMP(1)'s estimate).
pub const BROWSER_DUEL_POSITIONS: u64 = 2_000_000;

/// The solitaire table of `game`: solved on first use (a few seconds), then kept.
fn solo_table(game: Game) -> Rc<SoloSolution> {
    if let Some(table) = SOLO.with_borrow(|tables| tables.get(&game).cloned()) {
        return table;
    }
    let table = Rc::new(crate::solo::solve_reporting(game, &ToWorker::default()));
    SOLO.with_borrow_mut(|tables| tables.insert(game, Rc::clone(&table)));
    table
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
