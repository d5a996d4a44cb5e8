//! The JSON API: requests checked by the library's parsers, answered by the library's
//! advisors, errors as `{"error": message}` with a 4xx status (5xx only for a table that
//! cannot be read or a panic caught).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::Request;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::Semaphore;

use super::ServeConfig;
use crate::duel::cards::Cards;
use crate::duel::source::{self, DuelAdviceJson, Position, TableLookup};
use crate::game::{Card, Game, Rules, parse_dice};
use crate::progress::Silent;
use crate::record::Record;
use crate::review::{self, EXACT_MAX_OPEN, ReviewOptions};
use crate::solo::{self, SoloTable};
use crate::targets::advise::{self as target_advise, TargetAdviceJson};
use crate::targets::{self, TargetTable};
use crate::turn::choice::RollsLeft;

/// A refused or failed request: its status and the message shown.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong, as the CLI says it.
    pub message: String,
}

impl ApiError {
    fn bad(error: impl std::fmt::Display) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, message: error.to_string() }
    }

    fn busy(what: &str) -> ApiError {
        ApiError { status: StatusCode::SERVICE_UNAVAILABLE, message: format!("{what}; try again shortly") }
    }

    /// A failure of the server, not of the request: the whole error (paths included) goes to
    /// the server's log, the client gets a message without paths or process ids.
    fn internal(error: impl std::fmt::Display) -> ApiError {
        tracing::error!(%error, "request failed");
        let message = "the server could not answer this request (its log says why); try again later".to_owned();
        ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, message }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        ApiError { status: rejection.status(), message: rejection.body_text() }
    }
}

type Answer<T> = Result<Json<T>, ApiError>;

/// A request's fields: every name it takes, its flattened parts' included (serde's
/// `deny_unknown_fields` does not work beside `flatten`).
trait Fields: serde::de::DeserializeOwned {
    /// The names of the fields the request takes.
    fn fields() -> Vec<&'static str>;
}

/// A JSON body of a request that refuses fields it does not take (400, naming the field):
/// `{"rule": "yatzy"}` must not get advice under the official rules.
pub(super) struct Strict<T>(T);

impl<S: Send + Sync, T: Fields> axum::extract::FromRequest<S> for Strict<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Strict<T>, ApiError> {
        let Json(body) = Json::<serde_json::Value>::from_request(request, state).await?;
        if let Some(object) = body.as_object() {
            let known = T::fields();
            if let Some(unknown) = object.keys().find(|key| !known.contains(&key.as_str())) {
                return Err(ApiError::bad(format!(
                    "unknown field {unknown:?}; this request takes {}",
                    known.iter().map(|name| format!("{name:?}")).collect::<Vec<_>>().join(", ")
                )));
            }
        }
        let request = serde_json::from_value(body).map_err(|e| ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            message: format!("Failed to deserialize the JSON body into the target type: {e}"),
        })?;
        Ok(Strict(request))
    }
}

/// A target table: being solved (the first request for it), or ready.
enum TargetSlot {
    Solving,
    Ready(Arc<TargetTable>),
}

/// The server's state: its configuration, the tables opened, the gate of heavy work.
pub(super) struct App {
    config: ServeConfig,
    solo: Mutex<HashMap<Game, Arc<SoloTable>>>,
    targets: Arc<Mutex<HashMap<Game, TargetSlot>>>,
    heavy: Semaphore,
}

impl App {
    pub(super) fn new(config: ServeConfig) -> App {
        App {
            config,
            solo: Mutex::new(HashMap::new()),
            targets: Arc::new(Mutex::new(HashMap::new())),
            heavy: Semaphore::new(1),
        }
    }

    /// The solitaire table of `game`, opened (or solved, 0.4 s) on first use.
    async fn solo(self: &Arc<Self>, game: Game) -> Result<Arc<SoloTable>, ApiError> {
        if let Some(table) = self.solo.lock().unwrap_or_else(|e| e.into_inner()).get(&game) {
            return Ok(Arc::clone(table));
        }
        let app = Arc::clone(self);
        let table = blocking(move || solo::open_or_solve(&app.config.data, game).map_err(ApiError::internal)).await?;
        let table = Arc::new(table);
        self.solo.lock().unwrap_or_else(|e| e.into_inner()).insert(game, Arc::clone(&table));
        Ok(table)
    }

    /// The target table of `game`: opened if written before, else its solve (a minute for
    /// a whole card) starts in the background and the request is told to come back.
    fn targets(self: &Arc<Self>, game: Game) -> Result<Arc<TargetTable>, ApiError> {
        let mut slots = self.targets.lock().unwrap_or_else(|e| e.into_inner());
        match slots.get(&game) {
            Some(TargetSlot::Ready(table)) => return Ok(Arc::clone(table)),
            Some(TargetSlot::Solving) => {
                return Err(ApiError::busy("the target table is being solved (about a minute)"));
            }
            None => {}
        }
        if self.config.data.join(targets::table::file_name(game)).exists() {
            // Written before: opened and checked in a few tens of milliseconds.
            let table = Arc::new(targets::open_or_solve(&self.config.data, game, &Silent).map_err(ApiError::internal)?);
            slots.insert(game, TargetSlot::Ready(Arc::clone(&table)));
            return Ok(table);
        }
        slots.insert(game, TargetSlot::Solving);
        let (data, slots) = (self.config.data.clone(), Arc::clone(&self.targets));
        std::thread::spawn(move || {
            let solved = targets::open_or_solve(&data, game, &Silent);
            let mut slots = slots.lock().unwrap_or_else(|e| e.into_inner());
            match solved {
                Ok(table) => slots.insert(game, TargetSlot::Ready(Arc::new(table))),
                Err(error) => {
                    tracing::error!(%error, "target table");
                    slots.remove(&game)
                }
            };
        });
        Err(ApiError::busy("the target table is being solved (about a minute)"))
    }
}

/// Runs `work` off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work).await.map_err(ApiError::internal)?
}

/// The game a request names: a whole card under its rules (default official).
#[derive(Debug, Deserialize)]
pub(super) struct GameRequest {
    #[serde(default)]
    rules: Option<String>,
    #[serde(default)]
    categories: Option<String>,
    #[serde(default)]
    first: Option<usize>,
}

impl Fields for GameRequest {
    fn fields() -> Vec<&'static str> {
        ["rules", "categories", "first"].into()
    }
}

impl GameRequest {
    fn game(&self) -> Result<Game, ApiError> {
        let rules: Rules = self.rules.as_deref().unwrap_or("official").parse().map_err(ApiError::bad)?;
        let game = Game::select(rules, self.categories.as_deref(), self.first).map_err(ApiError::bad)?;
        if game != Game::full(rules) {
            return Err(ApiError::bad(
                "the web app plays whole cards; for a game of some boxes use the command line (--categories, --first)",
            ));
        }
        Ok(game)
    }
}

/// A position within a turn: the card, the dice, the rerolls left.
#[derive(Debug, Deserialize)]
pub(super) struct TurnRequest {
    #[serde(flatten)]
    game: GameRequest,
    card: String,
    dice: String,
    rolls_left: u8,
}

impl Fields for TurnRequest {
    fn fields() -> Vec<&'static str> {
        [GameRequest::fields(), vec!["card", "dice", "rolls_left"]].concat()
    }
}

impl TurnRequest {
    fn read(&self) -> Result<(Game, Card, crate::game::RollId, RollsLeft), ApiError> {
        let game = self.game.game()?;
        let card = Card::parse(&self.card, game).map_err(ApiError::bad)?;
        let roll = parse_dice(&self.dice).map_err(ApiError::bad)?;
        let rolls_left = RollsLeft::new(self.rolls_left).map_err(ApiError::bad)?;
        Ok((game, card, roll, rolls_left))
    }
}

/// One rule set for the page: its name and boxes in card order.
#[derive(Serialize)]
pub(super) struct RulesJson {
    name: &'static str,
    boxes: Vec<&'static str>,
    upper_bonus: u32,
    upper_threshold: u32,
}

pub(super) async fn rules() -> Json<Vec<RulesJson>> {
    Json(
        Rules::all()
            .into_iter()
            .map(|rules| RulesJson {
                name: rules.name(),
                boxes: Game::full(rules).box_names(),
                upper_bonus: rules.upper_bonus(),
                upper_threshold: rules.upper_threshold(),
            })
            .collect(),
    )
}

pub(super) async fn solo_advise(
    State(app): State<Arc<App>>,
    Strict(request): Strict<TurnRequest>,
) -> Answer<solo::advise::AdviceJson> {
    let (game, card, roll, rolls_left) = request.read()?;
    let table = app.solo(game).await?;
    let ranked = solo::advise(&*table, game, &card, roll, rolls_left).map_err(ApiError::bad)?;
    Ok(Json(solo::advise::AdviceJson::new(&card, roll, rolls_left, &ranked)))
}

#[derive(Debug, Deserialize)]
pub(super) struct TargetRequest {
    #[serde(flatten)]
    turn: TurnRequest,
    target: i64,
}

impl Fields for TargetRequest {
    fn fields() -> Vec<&'static str> {
        [TurnRequest::fields(), vec!["target"]].concat()
    }
}

pub(super) async fn targets_advise(
    State(app): State<Arc<App>>,
    Strict(request): Strict<TargetRequest>,
) -> Answer<TargetAdviceJson> {
    let (game, card, roll, rolls_left) = request.turn.read()?;
    let table = app.targets(game)?;
    let ranked = target_advise::advise(&table, game, &card, roll, rolls_left, request.target).map_err(ApiError::bad)?;
    Ok(Json(TargetAdviceJson::new(&card, roll, rolls_left, request.target, &ranked)))
}

#[derive(Debug, Deserialize)]
pub(super) struct CurveRequest {
    #[serde(flatten)]
    game: GameRequest,
    card: String,
}

impl Fields for CurveRequest {
    fn fields() -> Vec<&'static str> {
        [GameRequest::fields(), vec!["card"]].concat()
    }
}

/// P(final total ≥ t) for every t a card can still reach.
#[derive(Serialize)]
pub(super) struct CurveJson {
    card: String,
    points: u32,
    /// `[t, P(final total ≥ t)]` from the points on the card up.
    at_least: Vec<(u32, f32)>,
}

pub(super) async fn targets_curve(
    State(app): State<Arc<App>>,
    Strict(request): Strict<CurveRequest>,
) -> Answer<CurveJson> {
    let game = request.game.game()?;
    let card = Card::parse(&request.card, game).map_err(ApiError::bad)?;
    let table = app.targets(game)?;
    let points = card.points();
    let at_least = if card.state().is_terminal() {
        vec![(points, 1.0)]
    } else {
        let curve = table.curve(card.state()).map_err(ApiError::internal)?;
        let reach = curve.first as usize + curve.values.len();
        (0..=reach as u32).map(|more| (points + more, curve.at(i64::from(more)))).collect()
    };
    Ok(Json(CurveJson { card: card.to_string(), points, at_least }))
}

#[derive(Debug, Deserialize)]
pub(super) struct ScoreRequest {
    #[serde(flatten)]
    game: GameRequest,
    card: String,
    dice: String,
    #[serde(rename = "box")]
    category: String,
}

impl Fields for ScoreRequest {
    fn fields() -> Vec<&'static str> {
        [GameRequest::fields(), vec!["card", "dice", "box"]].concat()
    }
}

/// A card after a box is scored: what the page's play writes.
#[derive(Serialize)]
pub(super) struct ScoredJson {
    /// The card after.
    card: String,
    /// The points written in the box.
    box_points: u32,
    /// The points the move earned, bonuses included.
    points: u32,
    /// The card's total after.
    total: u32,
    /// Whether the card is full.
    full: bool,
}

pub(super) async fn card_score(Strict(request): Strict<ScoreRequest>) -> Answer<ScoredJson> {
    let game = request.game.game()?;
    let mut card = Card::parse(&request.card, game).map_err(ApiError::bad)?;
    let roll = parse_dice(&request.dice).map_err(ApiError::bad)?;
    let category = game.rules.parse_box(&request.category).map_err(ApiError::bad)?;
    let state = card.state();
    let (Some(scoring), Some(t)) =
        (game.score(category, roll, state.filled, state.yahtzee_50), state.score(game, category, roll))
    else {
        return Err(ApiError::bad(format!(
            "{} cannot take {roll} now (filled, or not allowed by the rules)",
            request.category
        )));
    };
    card.write(category, scoring);
    let full = card.state().is_terminal();
    Ok(Json(ScoredJson {
        card: card.to_string(),
        box_points: scoring.box_points,
        points: t.points,
        total: card.points(),
        full,
    }))
}

#[derive(Debug, Deserialize)]
pub(super) struct DuelRequest {
    #[serde(flatten)]
    game: GameRequest,
    me: String,
    opp: String,
    #[serde(default)]
    diff: Option<i32>,
    dice: String,
    rolls_left: u8,
}

impl Fields for DuelRequest {
    fn fields() -> Vec<&'static str> {
        [GameRequest::fields(), vec!["me", "opp", "diff", "dice", "rolls_left"]].concat()
    }
}

pub(super) async fn duel_advise(
    State(app): State<Arc<App>>,
    Strict(request): Strict<DuelRequest>,
) -> Answer<DuelAdviceJson> {
    let game = request.game.game()?;
    let roll = parse_dice(&request.dice).map_err(ApiError::bad)?;
    let rolls_left = RollsLeft::new(request.rolls_left).map_err(ApiError::bad)?;
    let app = Arc::clone(&app);
    blocking(move || {
        let cards = Cards::new(game);
        let p = Position::parse(&cards, &request.me, &request.opp, request.diff).map_err(ApiError::bad)?;
        let lookup = TableLookup { given: None, data: &app.config.data, on_the_fly: app.config.duel_positions };
        let open = 2 * cards.boxes() - p.layer;
        if open > EXACT_MAX_OPEN && lookup.find(&cards, p.layer + 1).map_err(ApiError::bad)?.is_none() {
            return Err(ApiError::bad(format!(
                "no tables hold this position, and with {open} boxes open on both cards the game below it is far larger than \
                 the server solves for a request (at most {EXACT_MAX_OPEN} open and {} positions): ask `yz duel advise`, or \
                 solve tables with `yz duel solve`",
                app.config.duel_positions
            )));
        }
        let _gate = app.heavy.try_acquire().map_err(|_| ApiError::busy("another two-player solve or review is running"))?;
        let ranked = source::advise(&cards, &p, roll, rolls_left, lookup, &Silent).map_err(ApiError::bad)?;
        Ok(Json(DuelAdviceJson::new(&p, roll, rolls_left, &ranked)))
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct ReviewRequest {
    /// The record, text or JSON, as `yz review` reads a file.
    record: String,
    /// How many mistakes to break down (at most 10).
    #[serde(default = "default_top")]
    top: usize,
}

impl Fields for ReviewRequest {
    fn fields() -> Vec<&'static str> {
        vec!["record", "top"]
    }
}

fn default_top() -> usize {
    3
}

/// Most mistakes a review request may ask to break down.
const MAX_TOP: usize = 10;

pub(super) async fn review(
    State(app): State<Arc<App>>,
    Strict(request): Strict<ReviewRequest>,
) -> Answer<review::ReviewJson> {
    let record = Record::parse(&request.record).map_err(ApiError::bad)?;
    if request.top > MAX_TOP {
        return Err(ApiError::bad(format!(
            "top {} is more than the {MAX_TOP} mistakes a review breaks down",
            request.top
        )));
    }
    Game::full(record.game().rules)
        .eq(&record.game())
        .then_some(())
        .ok_or_else(|| ApiError::bad("the web app reviews whole cards; for a game of some boxes use yz review"))?;
    let _gate = app.heavy.try_acquire().map_err(|_| ApiError::busy("another two-player solve or review is running"))?;
    if record.players().len() > 1 {
        app.targets(record.game())?;
    }
    let app = Arc::clone(&app);
    blocking(move || {
        let options = ReviewOptions {
            data: &app.config.data,
            top: request.top,
            tolerance: review::DEFAULT_TOLERANCE,
            on_the_fly: app.config.duel_positions,
        };
        let reviewed = review::review(&record, options, &Silent).map_err(ApiError::bad)?;
        Ok(Json(reviewed.to_json(&record)))
    })
    .await
}

/// Refuses a request whose `Host` names the server by a name it was not given
/// ([`ServeConfig::host_names`]; 421), or names none (400): a page of another site whose
/// name was pointed at this machine (DNS rebinding) must not reach the API through a
/// browser here. IP addresses and `localhost` are always accepted: a rebinding page's
/// requests carry its own name.
pub(super) async fn check_host(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|v| v.to_str().ok()).map(host_name);
    match host {
        None => ApiError::bad("the request names no host (a Host header)").into_response(),
        Some(name) if known_host(&name, &app.config.host_names) => next.run(request).await,
        Some(name) => ApiError {
            status: StatusCode::MISDIRECTED_REQUEST,
            message: format!(
                "this server does not answer to the name {name:?}; use its address or localhost, \
                 or start it with --host {name} to accept that name"
            ),
        }
        .into_response(),
    }
}

/// The name of a `Host` header's value, without its port and brackets, in lower case.
fn host_name(value: &str) -> String {
    let name = match value.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => match value.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => value,
        },
    };
    name.to_ascii_lowercase()
}

/// Whether `name` is an IP address, `localhost`, or one of the `given` names.
fn known_host(name: &str, given: &[String]) -> bool {
    name.parse::<std::net::IpAddr>().is_ok()
        || name == "localhost"
        || given.iter().any(|g| g.eq_ignore_ascii_case(name))
}

/// Refuses a request whose declared body is over [`super::MAX_BODY_BYTES`] before reading
/// it (a body that runs over without declaring it is cut off by the body limit).
pub(super) async fn refuse_large_bodies(request: Request, next: Next) -> Response {
    let declared =
        request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    match declared {
        Some(bytes) if bytes > super::MAX_BODY_BYTES as u64 => ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: format!("the request body is {bytes} bytes, more than the {} accepted", super::MAX_BODY_BYTES),
        }
        .into_response(),
        _ => next.run(request).await,
    }
}

pub(super) async fn not_found() -> ApiError {
    ApiError { status: StatusCode::NOT_FOUND, message: "no such page or API route".into() }
}

/// The answer to a request whose handler panicked: a 500 with a JSON error, the server
/// going on.
pub(super) fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::internal("a request panicked (a bug in yz: please report it)").into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_addresses_localhost_or_given_names() {
        let given = vec!["yz.local".to_owned()];
        for (value, known) in [
            ("127.0.0.1:8080", true),
            ("[::1]:8080", true),
            ("192.168.1.20", true),
            ("LOCALHOST:80", true),
            ("yz.local:8080", true),
            ("Yz.Local", true),
            ("evil.example:8080", false),
            ("localhost.evil.example", false),
            ("127.0.0.1.evil.example", false),
            ("", false),
        ] {
            assert_eq!(known_host(&host_name(value), &given), known, "{value}");
        }
    }
}
