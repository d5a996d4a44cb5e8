//! The JSON record: the text form's fields, for programs.
//!
//! ```json
//! {"format": "yz-record", "version": 1, "rules": "official", "players": ["ann", "bob"],
//!  "turns": [{"player": "ann", "rolls": ["13356", "23345", "33456"],
//!             "keeps": ["33", "3345"], "box": "ss", "points": 30}]}
//! ```
//!
//! `boxes` (a comma-separated list) is optional as in the text form; `players` defaults to
//! one "player", and a turn's `player` may be left out with one player. Dice take the text
//! form's spellings. Errors name the turn (from 1), or the line and column of bad JSON.

use serde::{Deserialize, Serialize};

use super::text::MAGIC;
use super::{
    DEFAULT_PLAYER, Location, MAX_RECORD_BYTES, Problem, RECORD_VERSION, RawTurn, Record, RecordError, write_dice,
};
use crate::game::{Game, Rules};

/// A record as JSON holds it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordJson {
    /// Always `yz-record`.
    pub format: String,
    /// [`RECORD_VERSION`].
    pub version: u32,
    /// The rule set's name (default official).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// The boxes in play, comma-separated (default: the whole card).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boxes: Option<String>,
    /// The players in turn order (default: one, "player").
    #[serde(default)]
    pub players: Vec<String>,
    /// The turns played.
    #[serde(default)]
    pub turns: Vec<TurnJson>,
}

/// One turn as JSON holds it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnJson {
    /// Whose turn (may be left out with one player).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
    /// One to three rolls of five dice, e.g. `"13356"`.
    pub rolls: Vec<String>,
    /// The dice kept before each reroll, e.g. `"33"`, `"-"` for none.
    #[serde(default)]
    pub keeps: Vec<String>,
    /// The box scored.
    #[serde(rename = "box")]
    pub category: String,
    /// The points written in it.
    pub points: u32,
}

impl Record {
    /// Reads a JSON record, checking every turn; an error names the turn, or the line and
    /// column of malformed JSON.
    pub fn parse_json(text: &str) -> Result<Record, RecordError> {
        let json: RecordJson = serde_json::from_str(text)
            .map_err(|e| Problem::Syntax(format!("not a JSON record: {e}")).at(Location::Line(e.line())))?;
        let at = Location::Record;
        if json.format != MAGIC {
            return Err(Problem::Syntax(format!(
                "\"format\" is {}; a record's is \"{MAGIC}\"",
                crate::quote::quote(&json.format)
            ))
            .at(at));
        }
        if json.version != RECORD_VERSION {
            return Err(Problem::Version(json.version.to_string()).at(at));
        }
        let rules = match &json.rules {
            Some(name) => name.parse::<Rules>().map_err(|e| Problem::Game(e).at(at))?,
            None => Rules::OFFICIAL,
        };
        let game = match &json.boxes {
            Some(list) => Game::from_list(rules, list).map_err(|e| Problem::Game(e.to_string()).at(at))?,
            None => Game::full(rules),
        };
        let players = if json.players.is_empty() { vec![DEFAULT_PLAYER.to_string()] } else { json.players.clone() };
        let mut record = Record::new(game, players)?;
        for (i, turn) in json.turns.iter().enumerate() {
            record.push_raw(RawTurn {
                at: Location::Turn(i + 1),
                player: turn.player.as_deref(),
                rolls: turn.rolls.iter().map(String::as_str).collect(),
                keeps: turn.keeps.iter().map(String::as_str).collect(),
                box_name: &turn.category,
                points: turn.points,
            })?;
        }
        Ok(record)
    }

    /// The record in JSON form, as [`Record::parse_json`] reads it.
    pub fn to_json(&self) -> RecordJson {
        let game = self.game();
        let named = self.players().len() > 1;
        RecordJson {
            format: MAGIC.to_string(),
            version: RECORD_VERSION,
            rules: Some(game.rules.name().to_string()),
            boxes: (game != Game::full(game.rules)).then(|| game.box_names().join(",")),
            players: self.players().to_vec(),
            turns: self
                .turns()
                .iter()
                .map(|t| TurnJson {
                    player: named.then(|| self.players()[t.player].clone()),
                    rolls: t.rolls.iter().map(|r| write_dice(r.counts())).collect(),
                    keeps: t.keeps.iter().map(|k| write_dice(k.counts())).collect(),
                    category: game.rules.box_name(t.category).to_string(),
                    points: t.points,
                })
                .collect(),
        }
    }

    /// Reads a record in either form: JSON if it starts with `{`, text otherwise, after a
    /// byte-order mark if it has one; text lines may end in LF, CR LF or CR. A text longer
    /// than [`MAX_RECORD_BYTES`] is refused unread.
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        if text.len() > MAX_RECORD_BYTES {
            let problem = format!(
                "the record is {} bytes, more than the {MAX_RECORD_BYTES} a record may have (a whole two-player game takes about 2,000)",
                text.len()
            );
            return Err(Problem::Syntax(problem).at(Location::Record));
        }
        // A byte-order mark, as some editors save, is not part of the record.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.trim_start().starts_with('{') {
            Record::parse_json(text)
        } else {
            // Lines may end in LF, CR LF or a lone CR (as old Mac editors save).
            Record::parse_text(&text.replace("\r\n", "\n").replace('\r', "\n"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_text_carry_the_same_record() {
        let text = "yz-record 1\nrules yatzy\nplayers ann bob\nann: 13356 keep 33 13345 ones=1\nbob: 66666 yatzy=50\n";
        let record = Record::parse_text(text).unwrap();
        let json = serde_json::to_string(&record.to_json()).unwrap();
        assert_eq!(Record::parse(&json).unwrap().to_text(), text);
        assert_eq!(Record::parse(&record.to_text()).unwrap().to_text(), text);
    }

    #[test]
    fn json_errors_name_the_turn_or_the_line() {
        let cases = [
            ("{\"format\":\"yz-record\",\"version\":1,\n\"turns\":[}", "line 2: not a JSON record"),
            ("{\"format\":\"yz-record\",\"version\":2}", "record: this is a version 2 record"),
            ("{\"format\":\"other\",\"version\":1}", "record: \"format\" is \"other\""),
            ("{\"format\":\"yz-record\",\"version\":1,\"extra\":1}", "line 1: not a JSON record: unknown field"),
            (
                "{\"format\":\"yz-record\",\"version\":1,\"turns\":[{\"rolls\":[\"11111\"],\"box\":\"ones\",\"points\":5},\
                 {\"rolls\":[\"22222\"],\"box\":\"ones\",\"points\":0}]}",
                "turn 2: box ones is already filled (turn 1)",
            ),
            (
                "{\"format\":\"yz-record\",\"version\":1,\"turns\":[{\"rolls\":[\"11111\",\"11112\"],\"box\":\"ones\",\"points\":4}]}",
                "turn 1: a turn has one keep between each two rolls",
            ),
        ];
        for (text, expected) in cases {
            let err = Record::parse_json(text).unwrap_err().to_string();
            assert!(err.starts_with(expected), "{text}: {err}");
        }
    }
}
