//! The web app's requests, read and answered without a transport: the HTTP server
//! (`yz serve`, [`super::serve`]) and the app's WebAssembly build in the browser
//! ([`super::wasm`]) check the same requests and answer them with the same code.
//!
//! A request is a JSON object whose fields are checked strictly ([`parse`]: an unknown
//! field is refused, naming it): `{"rule": "yatzy"}` must not get advice under the
//! official rules. A refusal is an [`ApiError`]: an HTTP status and the CLI's message.

use std::ops::Deref;
use std::path::Path;

use http::StatusCode;
use serde::{Deserialize, Serialize};

use crate::coach::history::{self, HistoryEntry};
use crate::coach::record::{DEFAULT_PLAYER, Decision, Location, Record, Turn, parse_keep};
use crate::coach::review::{DuelTurn, DuelTurnJson, PlayerTotals, ReviewError, judge};
use crate::coach::why::{Aspects, Explainer};
use crate::duel::cards::Cards;
use crate::duel::source::{Position, TableLookup};
use crate::game::{
    Card, CardView, Category, Choice, ChoiceJson, Game, KeepId, RollId, RollsLeft, Rules, Valued, parse_dice,
};
use crate::progress::Progress;
use crate::solo::advise::RankedJson;
use crate::solo::{self, FutureValue, OptimalPolicy, SolvedValues, WithinTurn};
use crate::targets::TargetTable;
use crate::targets::advise::{self as target_advise, CurveSource, TargetAdviceJson, TargetAdviseError};

/// A refused or failed request: its status and the message shown.
#[derive(Clone, Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong, as the CLI says it.
    pub message: String,
    /// How far the work the request waits for is, 0 to 100, where it waits for a build (a
    /// target table): the page draws it and asks again.
    pub percent: Option<u64>,
}

impl ApiError {
    /// An error of `status` saying `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), percent: None }
    }

    /// A bad request (400): what the library's parsers or advisors said of it.
    pub fn bad(error: impl std::fmt::Display) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, error.to_string())
    }

    /// A table whose file changed each time the server read it again (409): dropped, read
    /// again next time.
    pub fn changed(path: &Path) -> ApiError {
        let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let message = format!("the table file {name} changed since the server read it; ask again to read it anew");
        ApiError::new(StatusCode::CONFLICT, message)
    }

    /// Busy (503): `what` runs; the page asks again.
    pub fn busy(what: &str) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("{what}; try again shortly"))
    }

    /// Busy while the target table a request needs is built, `percent` of it done.
    pub fn building(what: &str, percent: u64) -> ApiError {
        ApiError { percent: Some(percent), ..ApiError::busy(what) }
    }

    /// A failure of the server, not of the request: the whole error (paths included) goes to
    /// the server's log, the client gets a message without paths or process ids.
    pub fn internal(error: impl std::fmt::Display) -> ApiError {
        tracing::error!(%error, "request failed");
        let message = "the server could not answer this request (its log says why); try again later".to_owned();
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// The error as the API answers it: `{"error": message}`, with `"percent"` where it
    /// waits for a build.
    pub fn body(&self) -> serde_json::Value {
        match self.percent {
            Some(percent) => serde_json::json!({ "error": self.message, "percent": percent }),
            None => serde_json::json!({ "error": self.message }),
        }
    }
}

/// A request's fields: every name it takes, its flattened parts' included (serde's
/// `deny_unknown_fields` does not work beside `flatten`).
pub trait Fields: serde::de::DeserializeOwned {
    /// The names of the fields the request takes.
    fn fields() -> Vec<&'static str>;
}

/// Reads a request from its JSON body, refusing a field it does not take (400, naming it
/// and the fields it takes) and a body of the wrong shape (422).
pub fn parse<T: Fields>(body: serde_json::Value) -> Result<T, ApiError> {
    if let Some(object) = body.as_object() {
        let known = T::fields();
        if let Some(unknown) = object.keys().find(|key| !known.contains(&key.as_str())) {
            return Err(ApiError::bad(format!(
                "unknown field {}{}; this request takes {}",
                crate::quote::quote(unknown),
                crate::game::suggest::did_you_mean(unknown, known.iter().copied()),
                known.iter().map(|name| format!("{name:?}")).collect::<Vec<_>>().join(", ")
            )));
        }
    }
    serde_json::from_value(body).map_err(|e| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("Failed to deserialize the JSON body into the target type: {e}"),
        )
    })
}

/// The game a request names: a whole card under its rules (default official).
#[derive(Debug, Deserialize)]
pub struct GameRequest {
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
    /// The game, refused unless it is a whole card (the app plays no other).
    pub fn game(&self) -> Result<Game, ApiError> {
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
pub struct TurnRequest {
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
    /// The game alone (to find its tables before the rest is read).
    pub fn game(&self) -> Result<Game, ApiError> {
        self.game.game()
    }

    /// The position, each part checked by the library's parsers.
    pub fn read(&self) -> Result<(Game, Card, RollId, RollsLeft), ApiError> {
        let game = self.game.game()?;
        let card = Card::parse(&self.card, game).map_err(ApiError::bad)?;
        let roll = parse_dice(&self.dice).map_err(ApiError::bad)?;
        let rolls_left = RollsLeft::new(self.rolls_left).map_err(ApiError::bad)?;
        Ok((game, card, roll, rolls_left))
    }
}

/// One rule set for the page: its name and boxes in card order.
#[derive(Serialize)]
pub struct RulesJson {
    name: &'static str,
    boxes: Vec<&'static str>,
    upper_bonus: u32,
    upper_threshold: u32,
}

/// Every rule set the app plays (`GET /api/rules`).
pub fn rules() -> Vec<RulesJson> {
    Rules::all()
        .into_iter()
        .map(|rules| RulesJson {
            name: rules.name(),
            boxes: Game::full(rules).box_names(),
            upper_bonus: rules.upper_bonus(),
            upper_threshold: rules.upper_threshold(),
        })
        .collect()
}

/// Solitaire advice on a position from the table of its game (`/api/solo/advise`).
pub fn solo_advise(table: &impl FutureValue, request: &TurnRequest) -> Result<solo::advise::AdviceJson, ApiError> {
    let (game, card, roll, rolls_left) = request.read()?;
    let ranked = solo::advise(table, game, &card, roll, rolls_left).map_err(ApiError::bad)?;
    Ok(solo::advise::AdviceJson::new(&card, roll, rolls_left, &ranked))
}

/// A decision of a solitaire game to judge (`/api/solo/judge`): a position within a turn
/// and the choice made, the dice kept (`keep`: `33`, `3,3`, `-` for none) or the box
/// scored (`score`), one of the two.
#[derive(Debug, Deserialize)]
pub struct JudgeRequest {
    #[serde(flatten)]
    turn: TurnRequest,
    #[serde(default)]
    keep: Option<String>,
    #[serde(default)]
    score: Option<String>,
}

impl Fields for JudgeRequest {
    fn fields() -> Vec<&'static str> {
        [TurnRequest::fields(), vec!["keep", "score"]].concat()
    }
}

impl JudgeRequest {
    /// The position within a turn ([`TurnRequest::game`]).
    pub fn turn(&self) -> &TurnRequest {
        &self.turn
    }
}

/// What a decision was worth: the choice made and the best one, each as the advice lists
/// it, and the expected points the choice gave up (0 for a best choice).
#[derive(Debug, Serialize)]
pub struct JudgedJson {
    /// The choice made.
    pub chosen: RankedJson,
    /// The best choice of the position.
    pub best: RankedJson,
    /// Expected final points lost against the best choice.
    pub loss: f64,
}

/// A decision judged as `yz review` and `yz play` judge it (a box scored with rerolls
/// left is worth what it is worth with none, against the best option with those rerolls),
/// from the table of its game (`/api/solo/judge`). A choice
/// that the position does not offer is refused, naming it.
pub fn solo_judge(table: &impl FutureValue, request: &JudgeRequest) -> Result<JudgedJson, ApiError> {
    let (game, card, roll, rolls_left) = request.turn.read()?;
    let (choice, named) = match (&request.keep, &request.score) {
        (Some(keep), None) => (Choice::Keep(parse_keep(keep).map_err(ApiError::bad)?), format!("keep {keep}")),
        (None, Some(name)) => {
            (Choice::Score(game.rules.parse_box(name).map_err(ApiError::bad)?), format!("score {name}"))
        }
        _ => return Err(ApiError::bad("give the choice made: the dice kept (keep) or the box scored (score), one")),
    };
    let rank = |left| {
        solo::advise(table, game, &card, roll, left).map_err(ApiError::bad).map(|ranked| {
            ranked.iter().map(|r| Valued { choice: r.choice, points: r.points, value: r.expected_final }).collect()
        })
    };
    let decision = Decision { roll, rolls_left, choice };
    let (chosen, best, loss) = judge(&decision, rank)?.ok_or_else(|| {
        let left = rolls_left.get();
        let rerolls = if left == 1 { "reroll" } else { "rerolls" };
        ApiError::bad(format!("{named} is not a choice on this card with the dice {roll} and {left} {rerolls} left"))
    })?;
    let json = |v: Valued| RankedJson {
        choice: ChoiceJson::new(v.choice, &card, roll),
        expected_final: v.value,
        gap: best.value - v.value,
    };
    Ok(JudgedJson { chosen: json(chosen), best: json(best), loss })
}

/// A position and the final total aimed at (`/api/targets/advise`).
#[derive(Debug, Deserialize)]
pub struct TargetRequest {
    #[serde(flatten)]
    turn: TurnRequest,
    target: i64,
}

impl Fields for TargetRequest {
    fn fields() -> Vec<&'static str> {
        [TurnRequest::fields(), vec!["target"]].concat()
    }
}

impl TargetRequest {
    /// The position.
    pub fn turn(&self) -> &TurnRequest {
        &self.turn
    }
}

impl From<TargetAdviseError> for ApiError {
    /// A position the advice cannot rank is the request's fault (400); a table that cannot
    /// be read, or curves of another position, the server's (500).
    fn from(error: TargetAdviseError) -> ApiError {
        match error {
            TargetAdviseError::GameOver | TargetAdviseError::WrongGame(_) => ApiError::bad(error),
            TargetAdviseError::Table(_) | TargetAdviseError::NotSolved(_) => ApiError::internal(error),
        }
    }
}

/// Target advice on a position from curves of its game (`/api/targets/advise`).
pub fn target_advice(source: &mut impl CurveSource, request: &TargetRequest) -> Result<TargetAdviceJson, ApiError> {
    let (_, card, roll, rolls_left) = request.turn.read()?;
    let ranked = target_advise::advise_from(source, &card, roll, rolls_left, request.target)?;
    Ok(TargetAdviceJson::new(&card, roll, rolls_left, request.target, &ranked))
}

/// A card whose chances of every final total are asked (`/api/targets/curve`).
#[derive(Debug, Deserialize)]
pub struct CurveRequest {
    #[serde(flatten)]
    game: GameRequest,
    card: String,
}

impl Fields for CurveRequest {
    fn fields() -> Vec<&'static str> {
        [GameRequest::fields(), vec!["card"]].concat()
    }
}

impl CurveRequest {
    /// The card, checked by the library's parser.
    pub fn card(&self) -> Result<Card, ApiError> {
        Card::parse(&self.card, self.game.game()?).map_err(ApiError::bad)
    }
}

/// P(final total ≥ t) for every t a card can still reach.
#[derive(Serialize)]
pub struct CurveJson {
    card: String,
    points: u32,
    /// `[t, P(final total ≥ t)]` from the points on the card up.
    at_least: Vec<(u32, f32)>,
}

/// The chances of every final total from `card` with play aimed at each, from curves of its
/// game (`/api/targets/curve`).
pub fn target_curve(source: &mut impl CurveSource, card: &Card) -> Result<CurveJson, ApiError> {
    let points = card.points();
    let at_least = if card.state().is_terminal() {
        vec![(points, 1.0)]
    } else {
        let curve = source.curve_of(card.state())?;
        let reach = curve.first as usize + curve.values.len();
        (0..=reach as u32).map(|more| (points + more, curve.at(i64::from(more)))).collect()
    };
    Ok(CurveJson { card: card.to_string(), points, at_least })
}

/// A box to score: the card, the dice and the box's name.
#[derive(Debug, Deserialize)]
pub struct ScoreRequest {
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
pub struct ScoredJson {
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

/// The card after scoring the dice in a box (`/api/card/score`).
pub fn card_score(request: &ScoreRequest) -> Result<ScoredJson, ApiError> {
    let game = request.game.game()?;
    let card = Card::parse(&request.card, game).map_err(ApiError::bad)?;
    let roll = parse_dice(&request.dice).map_err(ApiError::bad)?;
    let category = game.rules.parse_box(&request.category).map_err(ApiError::bad)?;
    scored(card, roll, category)
}

/// `card` after scoring `roll` in `category`, or why the box cannot take it.
fn scored(mut card: Card, roll: RollId, category: Category) -> Result<ScoredJson, ApiError> {
    let game = card.game;
    let state = card.state();
    let (Some(scoring), Some(t)) =
        (game.score(category, roll, state.filled, state.yahtzee_50), state.score(game, category, roll))
    else {
        return Err(ApiError::bad(format!(
            "{} cannot take {roll} now (filled, or not allowed by the rules)",
            game.rules.box_name(category)
        )));
    };
    card.write(category, scoring);
    let full = card.state().is_terminal();
    Ok(ScoredJson {
        card: card.to_string(),
        box_points: scoring.box_points,
        points: t.points,
        total: card.points(),
        full,
    })
}

/// A turn of the page's game to add to its record (`/api/play/turn`): the record so far
/// (empty for a new game of the request's rules, played by one [`DEFAULT_PLAYER`]), the
/// turn's rolls (one to three, all five dice as they lie) and the dice kept between them
/// (`-` for none), and the box scored.
#[derive(Debug, Deserialize)]
pub struct PlayTurnRequest {
    #[serde(flatten)]
    game: GameRequest,
    record: String,
    rolls: Vec<String>,
    keeps: Vec<String>,
    #[serde(rename = "box")]
    category: String,
}

impl Fields for PlayTurnRequest {
    fn fields() -> Vec<&'static str> {
        [GameRequest::fields(), vec!["record", "rolls", "keeps", "box"]].concat()
    }
}

/// The page's game after a turn: its record as the library writes it, and the mover's card
/// as [`card_score`] answers it.
#[derive(Serialize)]
pub struct PlayedJson {
    /// The record, with the turn.
    record: String,
    /// The mover's card after the turn.
    #[serde(flatten)]
    scored: ScoredJson,
}

/// The turn added to the game's record, checked as any record's turn is (keeps within
/// their rolls, an open box the rules allow), so that the page keeps no record format of
/// its own (`/api/play/turn`).
pub fn play_turn(request: &PlayTurnRequest) -> Result<PlayedJson, ApiError> {
    let game = request.game.game()?;
    let mut record = if request.record.trim().is_empty() {
        Record::new(game, vec![DEFAULT_PLAYER.to_owned()]).map_err(ApiError::bad)?
    } else {
        whole_record(&request.record)?
    };
    if record.game() != game {
        return Err(ApiError::bad(format!(
            "the record is a game of {} rules, the turn one of {}",
            record.game().rules.name(),
            game.rules.name()
        )));
    }
    let rolls: Vec<RollId> =
        request.rolls.iter().map(|r| parse_dice(r)).collect::<Result<_, _>>().map_err(ApiError::bad)?;
    let keeps: Vec<KeepId> =
        request.keeps.iter().map(|k| parse_keep(k)).collect::<Result<_, _>>().map_err(ApiError::bad)?;
    let category = game.rules.parse_box(&request.category).map_err(ApiError::bad)?;
    let player = record.mover();
    let roll = *rolls.last().ok_or_else(|| ApiError::bad("a turn has one to three rolls; this one has none"))?;
    let card = record.cards()[player].clone();
    let state = card.state();
    // The points the dice score there; where they score none (a filled box, or one the
    // rules do not allow), the record refuses the turn in its words.
    let points = game.score(category, roll, state.filled, state.yahtzee_50).map_or(0, |s| s.box_points);
    let at = Location::Turn(record.turns().len() + 1);
    record.push(Turn { player, rolls, keeps, category, points, at }).map_err(ApiError::bad)?;
    Ok(PlayedJson { record: record.to_text(), scored: scored(card, roll, category)? })
}

/// A card to draw, with the dice (if given) to show what each box would take.
#[derive(Debug, Deserialize)]
pub struct ViewRequest {
    #[serde(flatten)]
    game: GameRequest,
    card: String,
    #[serde(default)]
    dice: Option<String>,
}

impl Fields for ViewRequest {
    fn fields() -> Vec<&'static str> {
        [GameRequest::fields(), vec!["card", "dice"]].concat()
    }
}

/// A card as the page draws it: its boxes, their full names, what the dice (if given)
/// would earn in each, and its totals ([`Card::view`]; `/api/card/view`).
pub fn card_view(request: &ViewRequest) -> Result<CardView, ApiError> {
    let game = request.game.game()?;
    let card = Card::parse(&request.card, game).map_err(ApiError::bad)?;
    let roll = request.dice.as_deref().map(parse_dice).transpose().map_err(ApiError::bad)?;
    Ok(card.view(roll))
}

impl From<ReviewError> for ApiError {
    /// A table that cannot be read is the server's failure; anything else is the request's.
    fn from(error: ReviewError) -> ApiError {
        match error {
            ReviewError::Solo(_) | ReviewError::Targets(_) => ApiError::internal(error),
            _ => ApiError::bad(error),
        }
    }
}

/// A two-player position: both cards (the mover's first), the score difference where the
/// game has one, the dice and the rerolls left.
#[derive(Debug, Deserialize)]
pub struct DuelRequest {
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

impl DuelRequest {
    /// The game alone (to find its card tables before the rest is read).
    pub fn game(&self) -> Result<Game, ApiError> {
        self.game.game()
    }

    /// The position on `cards` (the game's card tables), the dice and the rerolls left.
    pub fn read(&self, cards: &Cards) -> Result<(Position, RollId, RollsLeft), ApiError> {
        let roll = parse_dice(&self.dice).map_err(ApiError::bad)?;
        let rolls_left = RollsLeft::new(self.rolls_left).map_err(ApiError::bad)?;
        let p = Position::parse(cards, &self.me, &self.opp, self.diff).map_err(ApiError::bad)?;
        Ok((p, roll, rolls_left))
    }
}

/// Advice on a two-player position (`/api/duel/advise`): exact where `lookup`'s tables hold
/// it or the game below it is small enough to solve now, else EMP(1) from the target
/// table `targets` gives (asked for only then).
pub fn duel_advise<T: Deref<Target = TargetTable>>(
    cards: &Cards,
    p: &Position,
    roll: RollId,
    rolls_left: RollsLeft,
    lookup: TableLookup,
    targets: impl FnOnce() -> Result<T, ApiError>,
    progress: &dyn Progress,
) -> Result<DuelTurnJson, ApiError> {
    let turn = DuelTurn::new(cards, p, lookup, targets, progress)?;
    let ranked = turn.rank(roll, rolls_left).map_err(ApiError::bad)?;
    Ok(DuelTurnJson::new(&turn, p, roll, rolls_left, &ranked))
}

/// A record to review, and how many of its mistakes to break down.
#[derive(Debug, Deserialize)]
pub struct ReviewRequest {
    /// The record, text or JSON, as `yz review` reads a file.
    record: String,
    /// How many mistakes to break down (at most [`MAX_TOP`]).
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
pub const MAX_TOP: usize = 10;

impl ReviewRequest {
    /// The record (a whole card) and the mistakes to break down.
    pub fn read(&self) -> Result<(Record, usize), ApiError> {
        let record = whole_record(&self.record)?;
        if self.top > MAX_TOP {
            return Err(ApiError::bad(format!(
                "top {} is more than the {MAX_TOP} mistakes a review breaks down",
                self.top
            )));
        }
        Ok((record, self.top))
    }
}

/// The record in `text` (text or JSON, as `yz review` reads a file), of a whole card.
pub fn whole_record(text: &str) -> Result<Record, ApiError> {
    let record = Record::parse(text).map_err(ApiError::bad)?;
    Game::full(record.game().rules)
        .eq(&record.game())
        .then_some(record)
        .ok_or_else(|| ApiError::bad("the web app reviews whole cards; for a game of some boxes use yz review"))
}

/// A game to add to the history a page keeps itself (in the browser, where there is no data
/// directory): the game's record, when it ended (seconds since the Unix epoch, the page's
/// clock) and the history kept so far, oldest first.
#[derive(Debug, Deserialize)]
pub struct PageHistoryRequest {
    record: String,
    when: u64,
    history: Vec<HistoryEntry>,
}

impl Fields for PageHistoryRequest {
    fn fields() -> Vec<&'static str> {
        vec!["record", "when", "history"]
    }
}

impl PageHistoryRequest {
    /// The game's record, of a whole card.
    pub fn record(&self) -> Result<Record, ApiError> {
        whole_record(&self.record)
    }

    /// The history with the game whose review found `players` added, as the server's file
    /// keeps it ([`history::with_entry`]).
    pub fn added(self, rules: Rules, players: &[PlayerTotals]) -> Vec<HistoryEntry> {
        history::with_entry(self.history, HistoryEntry::new(self.when, rules, players))
    }
}

/// Most choices one reasons request sets side by side.
pub const MAX_REASONS: usize = 5;

/// The best choices of a position, to set side by side with what each gives.
#[derive(Debug, Deserialize)]
pub struct ReasonsRequest {
    #[serde(flatten)]
    turn: TurnRequest,
    /// How many of the best choices (1 to [`MAX_REASONS`]; default 3).
    #[serde(default = "default_reasons")]
    top: usize,
}

fn default_reasons() -> usize {
    3
}

impl Fields for ReasonsRequest {
    fn fields() -> Vec<&'static str> {
        [TurnRequest::fields(), vec!["top"]].concat()
    }
}

impl ReasonsRequest {
    /// The game alone (to find its table before the rest is read).
    pub fn game(&self) -> Result<Game, ApiError> {
        self.turn.game()
    }
}

/// A choice with what the whole card ends with after it, in expectation.
#[derive(Serialize)]
pub struct ReasonJson {
    /// The choice, its expected final score and its gap to the best.
    #[serde(flatten)]
    option: solo::advise::RankedJson,
    /// The rest of the game after it, aspect by aspect.
    aspects: Aspects,
}

/// The best choices of a position, best first, each with its aspects.
#[derive(Serialize)]
pub struct ReasonsJson {
    options: Vec<ReasonJson>,
}

/// Why the best choices of a position rank as they do (`/api/solo/why`): the exact
/// analysis of the rest of the game after each of the `top` best (a fraction of a second
/// each late in a game, seconds on an empty card, where every state is reached), which
/// stops once `progress` is cancelled.
pub fn solo_reasons<V: SolvedValues + Sync>(
    values: &V,
    request: &ReasonsRequest,
    progress: &dyn Progress,
) -> Result<ReasonsJson, ApiError> {
    if !(1..=MAX_REASONS).contains(&request.top) {
        return Err(ApiError::bad(format!("top {} is not 1 to {MAX_REASONS} choices", request.top)));
    }
    let (game, card, roll, rolls_left) = request.turn.read()?;
    let ranked = solo::advise(values, game, &card, roll, rolls_left).map_err(ApiError::bad)?;
    let policy = OptimalPolicy::solved(game, values);
    let explain = Explainer::new(game, &policy);
    let options = ranked
        .iter()
        .take(request.top)
        .map(|r| {
            let within = WithinTurn { roll, rolls_left, choice: r.choice };
            let aspects = explain
                .aspects(&card, within, progress)
                .map_err(|cancelled| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, cancelled.to_string()))?;
            Ok(ReasonJson { option: r.to_json(&card, roll), aspects })
        })
        .collect::<Result<_, ApiError>>()?;
    Ok(ReasonsJson { options })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each choice's aspects come from an analysis of the rest of the game that agrees with
    /// the table: its expected final score is the choice's value, and the boxes and bonuses
    /// add up to it.
    #[test]
    fn the_reasons_of_the_best_choices_add_up_to_their_values() {
        let game = Game::full(Rules::OFFICIAL);
        let table = solo::solve(game);
        let card = "ones=3,twos=6,threes=9,fours=8,fives=15,3k=20,4k=0,fh=25,ss=30";
        let body = serde_json::json!({ "card": card, "dice": "66635", "rolls_left": 1, "top": 3 });
        let reasons = solo_reasons(&table, &parse(body).unwrap(), &crate::progress::Silent).unwrap();
        let json = serde_json::to_value(&reasons).unwrap();
        let options = json["options"].as_array().unwrap();
        assert_eq!(options.len(), 3);
        for option in options {
            let (value, aspects) = (option["expected_final"].as_f64().unwrap(), &option["aspects"]);
            assert!((aspects["expected_final"].as_f64().unwrap() - value).abs() < 1e-9, "{option}");
            let boxes: f64 = aspects["boxes"].as_array().unwrap().iter().map(|b| b["expected"].as_f64().unwrap()).sum();
            let bonus = 35.0 * aspects["upper_bonus"].as_f64().unwrap() + aspects["extra_bonus"].as_f64().unwrap();
            assert!((boxes + bonus - value).abs() < 1e-9, "{option}: boxes {boxes} + bonuses {bonus}");
        }
        let too_many = serde_json::json!({ "card": card, "dice": "66635", "rolls_left": 1, "top": 6 });
        let error = solo_reasons(&table, &parse(too_many).unwrap(), &crate::progress::Silent).err().unwrap();
        assert_eq!(error.message, "top 6 is not 1 to 5 choices");
    }

    /// A keep as a request writes it: its dice, `-` for none.
    fn written_keep(keep: KeepId) -> String {
        if keep.size() == 0 { "-".into() } else { keep.to_string() }
    }

    /// Every decision of a game, judged one request at a time as the page's game asks,
    /// loses what the review of the whole record says it lost, against the same best
    /// choice; a choice the position does not offer, or none, is refused with a reason.
    #[test]
    fn a_judged_decision_loses_what_the_review_says() {
        let record = Record::parse(include_str!("../../docs/records/solo-game.txt")).unwrap();
        let game = record.game();
        let table = solo::solve(game);
        let options =
            crate::coach::review::ReviewOptions { data: Path::new("unused"), top: 0, tolerance: 1e-9, on_the_fly: 0 };
        let review = crate::coach::review::review_against(&record, &table, options, &crate::progress::Silent).unwrap();
        let mut judged = Vec::new();
        for (turn, cards) in record.replay() {
            for d in turn.decisions() {
                let mut body = serde_json::json!({
                    "card": cards[0].to_string(),
                    "dice": d.roll.to_string(),
                    "rolls_left": d.rolls_left.get(),
                });
                match d.choice {
                    Choice::Keep(keep) => body["keep"] = written_keep(keep).into(),
                    Choice::Score(category) => body["score"] = game.rules.box_name(category).into(),
                }
                judged.push(solo_judge(&table, &parse(body).unwrap()).unwrap());
            }
        }
        assert_eq!(judged.len(), review.decisions.len());
        assert!(review.decisions.iter().any(|d| d.loss > 0.1), "the game has mistakes to count");
        for (j, d) in judged.iter().zip(&review.decisions) {
            assert_eq!(j.loss.to_bits(), d.loss.to_bits(), "turn {}", d.turn);
            assert_eq!(j.best.expected_final.to_bits(), d.best.value.to_bits(), "turn {}", d.turn);
            assert_eq!(j.chosen.expected_final.to_bits(), d.chosen.value.to_bits(), "turn {}", d.turn);
        }
        let refused = |body: serde_json::Value| solo_judge(&table, &parse(body).unwrap()).err().unwrap().message;
        let at = |extra: serde_json::Value| {
            let mut body = serde_json::json!({ "card": "", "dice": "12345", "rolls_left": 2 });
            body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            body
        };
        assert_eq!(
            refused(at(serde_json::json!({ "keep": "66" }))),
            "keep 66 is not a choice on this card with the dice 1,2,3,4,5 and 2 rerolls left"
        );
        let filled = serde_json::json!({ "card": "chance=20", "dice": "12345", "rolls_left": 0, "score": "chance" });
        assert!(refused(filled).starts_with("score chance is not a choice"));
        assert!(refused(at(serde_json::json!({}))).starts_with("give the choice made"));
        assert!(refused(at(serde_json::json!({ "keep": "1", "score": "ones" }))).starts_with("give the choice made"));
        assert!(refused(at(serde_json::json!({ "score": "sevens" }))).contains("sevens"));
    }

    /// A game played turn by turn through the page's requests has the record the library
    /// writes for it, card for card; a turn a record would refuse is refused in its words.
    #[test]
    fn the_page_s_game_is_recorded_by_the_library() {
        let record = Record::parse(include_str!("../../docs/records/solo-game.txt")).unwrap();
        let game = record.game();
        let mut text = String::new();
        for (turn, before) in record.replay() {
            let body = serde_json::json!({
                "record": text,
                "rolls": turn.rolls.iter().map(RollId::to_string).collect::<Vec<_>>(),
                "keeps": turn.keeps.iter().map(|&k| written_keep(k)).collect::<Vec<_>>(),
                "box": game.rules.box_name(turn.category),
            });
            let played = play_turn(&parse(body).unwrap()).unwrap();
            let mut after = before[0].clone();
            let state = after.state();
            after.write(
                turn.category,
                game.score(turn.category, turn.final_roll(), state.filled, state.yahtzee_50).unwrap(),
            );
            assert_eq!(played.scored.card, after.to_string());
            text = played.record;
        }
        let mut expected = Record::new(game, vec![DEFAULT_PLAYER.to_owned()]).unwrap();
        for turn in record.turns() {
            expected.push(turn.clone()).unwrap();
        }
        assert_eq!(text, expected.to_text());
        let refused = |body: serde_json::Value| play_turn(&parse(body).unwrap()).err().unwrap().message;
        let turn = |record: &str, rolls: &[&str], keeps: &[&str], category: &str| {
            let mut body = serde_json::json!({ "record": record, "rolls": rolls, "keeps": keeps });
            body["box"] = category.into();
            body
        };
        let lost = refused(turn("", &["12345", "12346"], &["66"], "chance"));
        assert!(lost.contains("keep 6,6 is not in the roll 1,2,3,4,5"), "{lost}");
        assert!(refused(turn(&text, &["12345"], &[], "chance")).contains("full"), "a full card takes no turn");
        assert!(refused(turn("", &[], &[], "chance")).contains("one to three rolls"));
        let yatzy =
            serde_json::json!({ "rules": "yatzy", "record": text, "rolls": ["12345"], "keeps": [], "box": "chance" });
        assert!(refused(yatzy).contains("the record is a game of official rules"));
    }
}
