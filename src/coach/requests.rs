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

use crate::coach::record::Record;
use crate::coach::review::{DuelTurn, DuelTurnJson, ReviewError};
use crate::coach::why::{Aspects, Explainer};
use crate::duel::cards::Cards;
use crate::duel::source::{Position, TableLookup};
use crate::game::{Card, CardView, Game, RollId, RollsLeft, Rules, parse_dice};
use crate::progress::Progress;
use crate::solo::{self, FutureValue, OptimalPolicy, SolvedValues, WithinTurn};
use crate::targets::TargetTable;

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

    /// A table whose file changed since the server read it: dropped, read again next time.
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
    Ok(ScoredJson {
        card: card.to_string(),
        box_points: scoring.box_points,
        points: t.points,
        total: card.points(),
        full,
    })
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
}
