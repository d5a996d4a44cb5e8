//! Game records: a game as a player writes it down (the rules, then each turn's rolls,
//! keeps and box), for one player or two.
//!
//! Two forms carry the same record:
//!
//! - [`text`]: a plain text a person can type from a score sheet, one line per turn;
//! - [`json`]: the same fields in JSON, for programs.
//!
//! Both go through [`Record::push`], which replays the game: a keep that is not in its
//! roll, a roll that lost kept dice, a box used twice or not allowed, a score the dice do
//! not make, a turn out of order or past a full card are refused where they occur (the
//! line of the text, the turn of the JSON).

pub mod json;
pub mod save;
pub mod text;

use std::fmt;

use crate::game::{Card, Category, Game, KeepId, RollId};
use crate::game::{Choice, RollsLeft};

/// The version of both record forms, written in each.
pub const RECORD_VERSION: u32 = 1;

/// Most bytes a record may have: far more than any game takes, little enough that no
/// request or file makes yz read without bound.
pub const MAX_RECORD_BYTES: usize = 256 * 1024;

/// Most players a record holds: solitaire or a two-player game.
pub const MAX_PLAYERS: usize = 2;

/// Where in a record something is: a line of the text form, a turn of the JSON form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// A line of the text form, from 1.
    Line(usize),
    /// A turn of the JSON form or of a record built in memory, from 1.
    Turn(usize),
    /// The record as a whole (its header or its list of players).
    Record,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(n) => write!(f, "line {n}"),
            Location::Turn(n) => write!(f, "turn {n}"),
            Location::Record => f.write_str("record"),
        }
    }
}

/// A record that cannot be read: where, and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {problem}")]
pub struct RecordError {
    /// Where the problem is.
    pub at: Location,
    /// What it is.
    pub problem: Problem,
}

/// What is wrong with a record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// Text that is not what the format has at that place.
    #[error("{0}")]
    Syntax(String),
    /// A record of another version.
    #[error("this is a version {0} record; this yz reads version {RECORD_VERSION}")]
    Version(String),
    /// Rules or boxes that do not name a game.
    #[error("{0}")]
    Game(String),
    /// Not one or two distinct player names.
    #[error("{0}")]
    Players(String),
    /// A turn names a player the record does not have.
    #[error("no player {} in this record (its players are {players})", crate::quote::quote(name))]
    UnknownPlayer {
        /// The name given.
        name: String,
        /// The record's players, comma-separated.
        players: String,
    },
    /// A turn played by the wrong player.
    #[error("it is {expected}'s turn, not {name}'s (players take turns, the first named first)")]
    OutOfTurn {
        /// The name given.
        name: String,
        /// Whose turn it is.
        expected: String,
    },
    /// A turn for a player whose card is full.
    #[error("{0}'s card is full: the game is over")]
    CardFull(String),
    /// Dice that are not five faces (a roll) or up to five (a keep).
    #[error("{0}")]
    Dice(String),
    /// More than two rerolls in a turn.
    #[error("a turn has 1 to 3 rolls (up to 2 keeps); this one has {0}")]
    TooManyRolls(usize),
    /// A keep with dice the roll does not show.
    #[error("keep {keep} is not in the roll {roll}")]
    KeepNotInRoll {
        /// The dice kept.
        keep: KeepId,
        /// The roll.
        roll: RollId,
    },
    /// A reroll that lost some of the dice kept.
    #[error("roll {roll} does not hold the dice kept before it ({keep})")]
    RollLosesKeep {
        /// The roll after the keep.
        roll: RollId,
        /// The dice kept.
        keep: KeepId,
    },
    /// A box name the rules do not have, or a box not in play.
    #[error("{0}")]
    UnknownBox(String),
    /// A box filled a second time.
    #[error("box {name} is already filled ({at})")]
    BoxFilled {
        /// The box.
        name: &'static str,
        /// Where it was filled.
        at: Location,
    },
    /// A box the rules do not let this roll go in now.
    #[error("the rules do not let {roll} go in {name} now; it may go in {allowed}")]
    BoxNotAllowed {
        /// The box.
        name: &'static str,
        /// The final roll.
        roll: RollId,
        /// The boxes it may go in, comma-separated.
        allowed: String,
    },
    /// Points that are not what the dice score in the box.
    #[error("{name}={written} is wrong: {roll} scores {scores} in {name}")]
    WrongPoints {
        /// The box.
        name: &'static str,
        /// The points written.
        written: u32,
        /// The roll.
        roll: RollId,
        /// What it scores there.
        scores: u32,
    },
}

impl Problem {
    /// This problem at `at`.
    pub fn at(self, at: Location) -> RecordError {
        RecordError { at, problem: self }
    }
}

/// One turn: the rolls (the first and one after each keep; all five dice as they lie), the
/// dice kept between them, and the box scored with its points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The player, an index into [`Record::players`].
    pub player: usize,
    /// One to three rolls.
    pub rolls: Vec<RollId>,
    /// The dice kept before each reroll: one fewer than the rolls.
    pub keeps: Vec<KeepId>,
    /// The box scored.
    pub category: Category,
    /// The points written in the box (bonuses are the card's, not the box's).
    pub points: u32,
    /// Where the turn was read from.
    pub at: Location,
}

/// A decision of a turn: the roll in front of the player, the rerolls still allowed, and
/// what was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The dice showing.
    pub roll: RollId,
    /// Rerolls still allowed.
    pub rolls_left: RollsLeft,
    /// The keep or the box chosen.
    pub choice: Choice,
}

impl Turn {
    /// The turn's decisions, one per action: a keep before each reroll taken, then the box
    /// with the rerolls still left (a turn scored after its first roll is one decision,
    /// scoring with two rerolls left, as the player made it).
    pub fn decisions(&self) -> Vec<Decision> {
        let keeps = self.keeps.iter().zip(&self.rolls).zip([RollsLeft::TWO, RollsLeft::ONE]);
        let mut decisions: Vec<Decision> = keeps
            .map(|((&keep, &roll), rolls_left)| Decision { roll, rolls_left, choice: Choice::Keep(keep) })
            .collect();
        let rolls_left = [RollsLeft::TWO, RollsLeft::ONE, RollsLeft::NONE][self.keeps.len()];
        decisions.push(Decision { roll: self.final_roll(), rolls_left, choice: Choice::Score(self.category) });
        decisions
    }

    /// The final roll, the one scored.
    pub fn final_roll(&self) -> RollId {
        *self.rolls.last().expect("a turn has a roll")
    }
}

/// A checked game record: the game, its players in turn order, and the turns played so
/// far (a record may stop before the cards are full).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    game: Game,
    players: Vec<String>,
    turns: Vec<Turn>,
    cards: Vec<Card>,
}

impl Record {
    /// An empty record of `game` between `players` (one or two distinct names of letters,
    /// digits, `-` and `_`), the first named moving first.
    pub fn new(game: Game, players: Vec<String>) -> Result<Record, RecordError> {
        check_players(&players).map_err(|p| p.at(Location::Record))?;
        let cards = vec![Card::new(game); players.len()];
        Ok(Record { game, players, turns: Vec::new(), cards })
    }

    /// The game played.
    pub fn game(&self) -> Game {
        self.game
    }

    /// The players, in turn order.
    pub fn players(&self) -> &[String] {
        &self.players
    }

    /// The turns played.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// Every player's card now.
    pub fn cards(&self) -> &[Card] {
        &self.cards
    }

    /// Whose turn is next (the first player's after the last turn of a finished game).
    pub fn mover(&self) -> usize {
        self.turns.len() % self.players.len()
    }

    /// Whether every card is full.
    pub fn is_over(&self) -> bool {
        self.cards.iter().all(|c| c.state().is_terminal())
    }

    /// Checks `turn` against the game so far and adds it: the mover's, keeps within their
    /// rolls, rolls holding what was kept, an open box the rules allow, and the points the
    /// dice score there.
    pub fn push(&mut self, turn: Turn) -> Result<(), RecordError> {
        self.check(&turn).map_err(|p| p.at(turn.at))?;
        let card = &mut self.cards[turn.player];
        let state = card.state();
        let scoring = self
            .game
            .score(turn.category, turn.final_roll(), state.filled, state.yahtzee_50)
            .expect("checked: the box is allowed");
        card.write(turn.category, scoring);
        self.turns.push(turn);
        Ok(())
    }

    fn check(&self, turn: &Turn) -> Result<(), Problem> {
        let (game, rules) = (self.game, self.game.rules);
        let name = &self.players[turn.player];
        if turn.player != self.mover() {
            let expected = self.players[self.mover()].clone();
            return Err(Problem::OutOfTurn { name: name.clone(), expected });
        }
        let card = &self.cards[turn.player];
        let state = card.state();
        if state.is_terminal() {
            return Err(Problem::CardFull(name.clone()));
        }
        if turn.rolls.is_empty() || turn.rolls.len() > 3 {
            return Err(Problem::TooManyRolls(turn.rolls.len()));
        }
        if turn.keeps.len() + 1 != turn.rolls.len() {
            return Err(Problem::Syntax(format!(
                "a turn has one keep between each two rolls; this one has {} rolls and {} keeps",
                turn.rolls.len(),
                turn.keeps.len()
            )));
        }
        for (i, &keep) in turn.keeps.iter().enumerate() {
            let (roll, next) = (turn.rolls[i], turn.rolls[i + 1]);
            if !keep.is_within(roll) {
                return Err(Problem::KeepNotInRoll { keep, roll });
            }
            if !keep.is_within(next) {
                return Err(Problem::RollLosesKeep { roll: next, keep });
            }
        }
        let category = turn.category;
        let box_name = rules.box_name(category);
        if !game.categories.contains(category) {
            let in_play = game.box_names().join(",");
            return Err(Problem::UnknownBox(format!(
                "box {box_name} is not in play in this game (its boxes are {in_play})"
            )));
        }
        if card.boxes[category.index()].is_some() {
            let at = self.turns.iter().rev().find(|t| t.player == turn.player && t.category == category);
            return Err(Problem::BoxFilled { name: box_name, at: at.map_or(Location::Record, |t| t.at) });
        }
        let roll = turn.final_roll();
        let Some(scoring) = game.score(category, roll, state.filled, state.yahtzee_50) else {
            let allowed: Vec<&str> = game
                .choices_in_card_order(state.filled)
                .into_iter()
                .filter(|&c| game.score(c, roll, state.filled, state.yahtzee_50).is_some())
                .map(|c| rules.box_name(c))
                .collect();
            return Err(Problem::BoxNotAllowed { name: box_name, roll, allowed: allowed.join(", ") });
        };
        if scoring.box_points != turn.points {
            return Err(Problem::WrongPoints {
                name: box_name,
                written: turn.points,
                roll,
                scores: scoring.box_points,
            });
        }
        Ok(())
    }

    /// Every turn with the cards as they stood before it (the mover's first).
    pub fn replay(&self) -> Vec<(&Turn, Vec<Card>)> {
        let mut cards = vec![Card::new(self.game); self.players.len()];
        let mut before = Vec::with_capacity(self.turns.len());
        for turn in &self.turns {
            let mover = turn.player;
            let mut order = vec![cards[mover].clone()];
            order.extend(cards.iter().enumerate().filter(|&(p, _)| p != mover).map(|(_, c)| c.clone()));
            before.push((turn, order));
            let state = cards[mover].state();
            let scoring = self
                .game
                .score(turn.category, turn.final_roll(), state.filled, state.yahtzee_50)
                .expect("a checked record scores in allowed boxes");
            cards[mover].write(turn.category, scoring);
        }
        before
    }

    /// The index of the player named `name`.
    fn player(&self, name: &str) -> Result<usize, Problem> {
        self.players
            .iter()
            .position(|p| p == name)
            .ok_or_else(|| Problem::UnknownPlayer { name: name.to_string(), players: self.players.join(", ") })
    }

    /// The player of a turn line or entry: the one named, or the only one.
    fn player_of(&self, name: Option<&str>) -> Result<usize, Problem> {
        match name {
            Some(name) => self.player(name),
            None if self.players.len() == 1 => Ok(0),
            None => Err(Problem::Syntax(format!(
                "a two-player record names the player of each turn, e.g. \"{}: 13356 keep 33 …\"",
                self.players[self.mover()]
            ))),
        }
    }
}

/// The name a record gives its one player when it names none.
pub const DEFAULT_PLAYER: &str = "player";

fn check_players(players: &[String]) -> Result<(), Problem> {
    if players.is_empty() || players.len() > MAX_PLAYERS {
        return Err(Problem::Players(format!("a record has 1 or 2 players; got {}", players.len())));
    }
    for name in players {
        let valid = !name.is_empty()
            && name.len() <= 32
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(Problem::Players(format!(
                "player name {} must be 1 to 32 letters, digits, - or _ (e.g. ann)",
                crate::quote::quote(name)
            )));
        }
    }
    if players.len() == 2 && players[0] == players[1] {
        return Err(Problem::Players(format!("the two players are both named {:?}", players[0])));
    }
    Ok(())
}

/// Parses dice as a record writes them: digits (`13356`), comma-separated faces
/// (`1,3,3,5,6`), or `-` for no dice; `five` asks for a roll's five.
fn parse_faces(token: &str, five: bool) -> Result<Vec<u8>, Problem> {
    let what = if five {
        "a roll is five dice 1 to 6, e.g. 13356"
    } else {
        "a keep is up to five dice 1 to 6, e.g. 33, or - for none"
    };
    if token == "-" && !five {
        return Ok(Vec::new());
    }
    let faces: Option<Vec<u8>> = if token.contains(',') {
        token.split(',').map(|f| f.trim().parse::<u8>().ok().filter(|f| (1..=6).contains(f))).collect()
    } else {
        token.chars().map(|c| c.to_digit(10).map(|d| d as u8).filter(|f| (1..=6).contains(f))).collect()
    };
    match faces {
        Some(faces) if (five && faces.len() == 5) || (!five && !faces.is_empty() && faces.len() <= 5) => Ok(faces),
        _ => Err(Problem::Dice(format!("{} is not dice: {what}", crate::quote::quote(token)))),
    }
}

/// Face counts of faces 1..=6.
fn counts(faces: &[u8]) -> [u8; 6] {
    let mut counts = [0u8; 6];
    for &f in faces {
        counts[f as usize - 1] += 1;
    }
    counts
}

/// A roll as a record writes it.
fn parse_roll(token: &str) -> Result<RollId, Problem> {
    parse_faces(token, true).map(|faces| RollId::from_counts(counts(&faces)))
}

/// A keep as a record writes it (`33`, `3,3`, `-` for none): the one keep syntax of
/// records and the web app's requests.
pub(crate) fn parse_keep(token: &str) -> Result<KeepId, Problem> {
    parse_faces(token, false).map(|faces| KeepId::from_counts(counts(&faces)))
}

/// Dice in the record's compact form: `13356`, `-` for none.
fn write_dice(counts: [u8; 6]) -> String {
    let digits: String = counts
        .iter()
        .enumerate()
        .flat_map(|(f, &c)| std::iter::repeat_n(char::from(b'1' + f as u8), c as usize))
        .collect();
    if digits.is_empty() { "-".into() } else { digits }
}

/// One turn as both forms hold it before it is checked: names and dice as written.
struct RawTurn<'a> {
    at: Location,
    player: Option<&'a str>,
    rolls: Vec<&'a str>,
    keeps: Vec<&'a str>,
    box_name: &'a str,
    points: u32,
}

impl Record {
    /// Reads `raw` against the game so far and adds it.
    fn push_raw(&mut self, raw: RawTurn) -> Result<(), RecordError> {
        let at = raw.at;
        let read = || -> Result<Turn, Problem> {
            let player = self.player_of(raw.player)?;
            if raw.rolls.len() > 3 {
                return Err(Problem::TooManyRolls(raw.rolls.len()));
            }
            let rolls = raw.rolls.iter().map(|r| parse_roll(r)).collect::<Result<Vec<_>, _>>()?;
            let keeps = raw.keeps.iter().map(|k| parse_keep(k)).collect::<Result<Vec<_>, _>>()?;
            let category = self.game.rules.parse_box(raw.box_name).map_err(|e| Problem::UnknownBox(e.to_string()))?;
            Ok(Turn { player, rolls, keeps, category, points: raw.points, at })
        };
        let turn = read().map_err(|p| p.at(at))?;
        self.push(turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;

    #[test]
    fn dice_tokens_read_both_ways_and_refuse_the_rest() {
        assert_eq!(parse_roll("13356").unwrap(), parse_roll("1,3,3,5,6").unwrap());
        assert_eq!(parse_keep("-").unwrap(), KeepId::from_counts([0; 6]));
        assert_eq!(write_dice(parse_roll("65321").unwrap().counts()), "12356");
        for bad in ["1335", "133567", "13370", "", "-", "a3356"] {
            assert!(parse_roll(bad).is_err(), "{bad}");
        }
        for bad in ["", "123456", "7", "3,x"] {
            assert!(parse_keep(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_turn_has_three_decisions_and_stopping_keeps_everything() {
        let game = Game::full(Rules::OFFICIAL);
        let mut record = Record::new(game, vec![DEFAULT_PLAYER.into()]).unwrap();
        let yahtzee = parse_roll("44444").unwrap();
        let turn = Turn {
            player: 0,
            rolls: vec![yahtzee],
            keeps: vec![],
            category: Category::Yahtzee,
            points: 50,
            at: Location::Turn(1),
        };
        record.push(turn.clone()).unwrap();
        assert_eq!(
            turn.decisions(),
            [Decision { roll: yahtzee, rolls_left: RollsLeft::TWO, choice: Choice::Score(Category::Yahtzee) }]
        );
        let again = Turn { at: Location::Turn(2), ..turn };
        let err = record.push(again).unwrap_err();
        assert_eq!(err.to_string(), "turn 2: box yahtzee is already filled (turn 1)");
        assert!(Record::new(game, vec![]).is_err());
        assert!(Record::new(game, vec!["a".into(), "a".into()]).is_err());
        assert!(Record::new(game, vec!["a b".into()]).is_err());
    }
}
