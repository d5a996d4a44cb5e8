//! The JSON API: requests checked by the library's parsers, answered by the library's
//! advisors, errors as `{"error": message}` with a 4xx status (5xx only for a table that
//! cannot be read or a panic caught).

use std::sync::Arc;

use axum::Json;
use axum::extract::Request;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

mod app;

use crate::coach::history::{self, HistoryEntry, HistoryError};
use crate::coach::requests::ApiError;
use crate::coach::requests::{
    self, CurveJson, CurveRequest, DuelRequest, Fields, GameRequest, ReasonsJson, ReasonsRequest, ReviewRequest,
    RulesJson, ScoreRequest, ScoredJson, TargetRequest, TurnRequest, ViewRequest,
};
use crate::coach::review::{self, DuelTurnJson};
use crate::duel::source::TableLookup;
use crate::game::CardView;
use crate::solo;
use crate::targets::advise::TargetAdviceJson;
use crate::targets::payoff::{self, BeatReport};
pub(super) use app::{App, background_priority};
use app::{BODY_BUDGET_KIB, Cancel, LARGE_BODY_BUDGET_KIB, SMALL_BODY_BYTES, blocking, lock};

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body())).into_response()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        ApiError::new(rejection.status(), rejection.body_text())
    }
}

type Answer<T> = Result<Json<T>, ApiError>;

/// A JSON body of a request that refuses fields it does not take (400, naming the field):
/// `{"rule": "yatzy"}` must not get advice under the official rules.
pub(super) struct Strict<T>(T);

impl<S: Send + Sync, T: Fields> axum::extract::FromRequest<S> for Strict<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Strict<T>, ApiError> {
        let Json(body) = Json::<serde_json::Value>::from_request(request, state).await?;
        requests::parse(body).map(Strict)
    }
}

pub(super) async fn solo_advise(
    State(app): State<Arc<App>>,
    Strict(request): Strict<TurnRequest>,
) -> Answer<solo::advise::AdviceJson> {
    let table = app.solo(request.game()?).await?;
    requests::solo_advise(&*table, &request).map(Json)
}

/// A decision of a solitaire game judged against the best choice, as reviews judge it.
pub(super) async fn solo_judge(
    State(app): State<Arc<App>>,
    Strict(request): Strict<requests::JudgeRequest>,
) -> Answer<requests::JudgedJson> {
    let table = app.solo(request.turn().game()?).await?;
    requests::solo_judge(&*table, &request).map(Json)
}

/// Why the best choices of a position rank as they do: each analysed to the end of the
/// game (a fraction of a second late in a game, seconds on an empty card), as heavy work:
/// admitted under the heavy gate, off the async threads, stopped if the client hangs up.
pub(super) async fn solo_why(
    State(app): State<Arc<App>>,
    Strict(request): Strict<ReasonsRequest>,
) -> Answer<ReasonsJson> {
    let gate = app.heavy_gate()?;
    let table = app.solo(request.game()?).await?;
    let (cancel, _cancel_on_drop) = Cancel::pair();
    blocking(move || {
        let _gate = gate;
        requests::solo_reasons(&*table, &request, &cancel).map(Json)
    })
    .await
}

/// Every rule set the app plays.
pub(super) async fn rules() -> Json<Vec<RulesJson>> {
    Json(requests::rules())
}

/// The best reply to the optimal solitaire player of a game: the chance of beating it
/// when each plays on its own card (`yz solo beat`). Heavy the first time for a game, then
/// kept.
pub(super) async fn solo_beat(State(app): State<Arc<App>>, Strict(request): Strict<GameRequest>) -> Answer<BeatReport> {
    let game = request.game()?;
    if let Some(known) = lock(&app.beats).get(&game) {
        return Ok(Json(known.clone()));
    }
    let gate = app.heavy_gate()?;
    let table = app.solo(game).await?;
    let app = Arc::clone(&app);
    let (cancel, _cancel_on_drop) = Cancel::pair();
    blocking(move || {
        let _gate = gate;
        let report = payoff::beat(game, &table, &cancel).map_err(ApiError::bad)?;
        lock(&app.beats).insert(game, report.clone());
        Ok(Json(report))
    })
    .await
}

pub(super) async fn targets_advise(
    State(app): State<Arc<App>>,
    Strict(request): Strict<TargetRequest>,
) -> Answer<TargetAdviceJson> {
    let table = app.targets(request.turn().game()?).await?;
    requests::target_advice(&mut table.reader(), &request).map(Json)
}

/// P(final total ≥ t) for every t a card can still reach.
pub(super) async fn targets_curve(
    State(app): State<Arc<App>>,
    Strict(request): Strict<CurveRequest>,
) -> Answer<CurveJson> {
    let card = request.card()?;
    let table = app.targets(card.game).await?;
    requests::target_curve(&mut table.reader(), &card).map(Json)
}

pub(super) async fn card_score(Strict(request): Strict<ScoreRequest>) -> Answer<ScoredJson> {
    requests::card_score(&request).map(Json)
}

/// A turn of the page's game added to its record.
pub(super) async fn play_turn(Strict(request): Strict<requests::PlayTurnRequest>) -> Answer<requests::PlayedJson> {
    requests::play_turn(&request).map(Json)
}

pub(super) async fn card_view(Strict(request): Strict<ViewRequest>) -> Answer<CardView> {
    requests::card_view(&request).map(Json)
}

/// Advice on a two-player position, whatever its size: exact where tables hold it or the
/// game below is small enough to solve now, else EMP(1) from the target table (a first
/// request for it starts its build and is told how far it is).
pub(super) async fn duel_advise(
    State(app): State<Arc<App>>,
    Strict(request): Strict<DuelRequest>,
) -> Answer<DuelTurnJson> {
    let game = request.game()?;
    // The card tables are built once per game, under the gate: a request is admitted (or
    // refused as busy) before it builds them. Once built, a bad request is refused as such
    // whatever else runs.
    let cached = lock(&app.cards).get(&game).cloned();
    let gate = if cached.is_none() { Some(app.heavy_gate()?) } else { None };
    let app = Arc::clone(&app);
    let (cancel, _cancel_on_drop) = Cancel::pair();
    let runtime = tokio::runtime::Handle::current();
    blocking(move || {
        let cards = cached.unwrap_or_else(|| app.cards(game));
        let (p, roll, rolls_left) = request.read(&cards)?;
        let _gate = match gate {
            Some(gate) => gate,
            None => app.heavy_gate()?,
        };
        let lookup =
            TableLookup { given: None, data: &app.config.data, on_the_fly: app.config.duel_positions, gpu: false };
        // Asked for only where no exact values can be had.
        let targets = || runtime.block_on(app.targets(game));
        requests::duel_advise(&cards, &p, roll, rolls_left, lookup, targets, &cancel).map(Json)
    })
    .await
}

pub(super) async fn review(
    State(app): State<Arc<App>>,
    Strict(request): Strict<ReviewRequest>,
) -> Answer<review::ReviewJson> {
    let (record, top) = request.read()?;
    let (record, reviewed) = app.review(record, top).await?;
    Ok(Json(reviewed.to_json(&record)))
}

#[derive(Debug, Deserialize)]
pub(super) struct HistoryRequest {
    /// The record of the game to add, text or JSON.
    record: String,
}

impl Fields for HistoryRequest {
    fn fields() -> Vec<&'static str> {
        vec!["record"]
    }
}

/// Adds a game to the history in the data directory and answers the history now kept:
/// the game's players' totals from its review (the one `/api/review` made of the same
/// record, where the server still has it; else it is reviewed now).
pub(super) async fn history_add(
    State(app): State<Arc<App>>,
    Strict(request): Strict<HistoryRequest>,
) -> Answer<Vec<HistoryEntry>> {
    let record = requests::whole_record(&request.record)?;
    let key = record.to_text();
    let known = lock(&app.reviewed).iter().find(|(text, _)| *text == key).map(|(_, players)| players.clone());
    let players = match known {
        Some(players) => players,
        None => app.review(record.clone(), 0).await?.1.players,
    };
    let when = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let entry = HistoryEntry::new(when, record.game().rules, &players);
    // One writer at a time, in this process or another ([`history::append`] locks it).
    blocking(move || history::append(&app.config.data.join(history::FILE_NAME), entry).map(Json).map_err(history_error))
        .await
}

/// The history in the data directory, oldest first.
pub(super) async fn history_list(State(app): State<Arc<App>>) -> Answer<Vec<HistoryEntry>> {
    blocking(move || history::read(&app.config.data.join(history::FILE_NAME)).map(Json).map_err(history_error)).await
}

/// A history that cannot be read or written: the server's failure, its details (paths
/// included) in the server's log, and what to do in the message.
fn history_error(error: HistoryError) -> ApiError {
    match error {
        HistoryError::Unreadable { .. } => {
            tracing::error!(%error, "history");
            let message = format!(
                "the game history ({} in the server's data directory) cannot be read: it is damaged or not a \
                 history (the server's log says what is wrong); move it away to start a new history",
                history::FILE_NAME
            );
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
        }
        HistoryError::Write(_) => ApiError::internal(error),
    }
}

/// Reads an API request's body (within [`BODY_TIMEOUT`](super::BODY_TIMEOUT)), then waits
/// for its turn ([`api_turns`] at once, first come first served) before it is worked on.
/// Under a load that keeps every core busy, API requests queue here, holding no thread
/// and no more memory than their body, while the page and its files (and the rule sets, a
/// constant), which take no turn, are answered at once; a client sending its body slowly
/// holds its connection, never a turn.
pub(super) async fn take_turn(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    // The body's room in the server's budget first (held until the answer), by its
    // declared length, or the largest accepted where it declares none but has one.
    let declared = (parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()))
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(if parts.headers.contains_key(header::TRANSFER_ENCODING) {
            super::MAX_BODY_BYTES as u64
        } else {
            0
        });
    let kib = declared.min(super::MAX_BODY_BYTES as u64).div_ceil(1024).max(1) as u32;
    let large = declared > SMALL_BODY_BYTES;
    let (all, large_ones) = &app.body_kib;
    let large_room = large.then(|| Arc::clone(large_ones).try_acquire_many_owned(kib));
    let room = Arc::clone(all).try_acquire_many_owned(kib);
    let (Ok(_room), None | Some(Ok(_))) = (&room, &large_room) else {
        let message = format!(
            "the server holds its most of request bodies ({} MiB, {} MiB of them large); try again in a moment",
            BODY_BUDGET_KIB >> 10,
            LARGE_BODY_BUDGET_KIB >> 10
        );
        return ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message).into_response();
    };
    let body = match tokio::time::timeout(super::BODY_TIMEOUT, axum::body::to_bytes(body, super::MAX_BODY_BYTES)).await
    {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return ApiError::bad("the request body was cut off or too large").into_response(),
        Err(_) => {
            let seconds = super::BODY_TIMEOUT.as_secs();
            let message = format!("the request body did not arrive within {seconds} s");
            return ApiError::new(StatusCode::REQUEST_TIMEOUT, message).into_response();
        }
    };
    match Arc::clone(&app.turns).acquire_owned().await {
        Ok(_turn) => next.run(Request::from_parts(parts, axum::body::Body::from(body))).await,
        Err(error) => ApiError::internal(error).into_response(),
    }
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
        Some(name) => ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "this server does not answer to the name {name}; use its address or localhost, \
                 or start it with --host {name} to accept that name",
                name = crate::quote::quote(&name)
            ),
        )
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
        Some(bytes) if bytes > super::MAX_BODY_BYTES as u64 => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is {bytes} bytes, more than the {} accepted", super::MAX_BODY_BYTES),
        )
        .into_response(),
        _ => next.run(request).await,
    }
}

pub(super) async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no such page or API route")
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
