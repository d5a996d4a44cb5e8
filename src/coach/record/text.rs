//! The plain-text record: what a person types from a score sheet.
//!
//! ```text
//! yz-record 1
//! rules official          # any rule set yz knows; default official
//! boxes ones,twos,fh      # optional: only these boxes in play
//! players ann bob         # optional: one or two names; default one "player"
//! ann: 13356 keep 33 23345 keep 3345 33456 ss=30
//! bob: 66612 keep 666 66645 keep 666 66661 sixes=18
//! ann: 44444 yahtzee=50   # scored after the first roll
//! ```
//!
//! A turn is one line: the player's name and a colon (needed with two players), the first
//! roll, then `keep DICE ROLL` for each reroll, then `BOX=POINTS`. Dice are digits
//! (`13356`) or comma-separated (`1,3,3,5,6`); a roll shows all five dice as they lie after
//! the reroll, kept ones included; `keep -` rerolls everything. Points are the box's own,
//! as on the card: the upper bonus and the Extra Yahtzee Bonus are added by yz. `#` starts
//! a comment; blank lines are skipped.

use super::{DEFAULT_PLAYER, Location, Problem, RECORD_VERSION, RawTurn, Record, RecordError, write_dice};
use crate::game::{Game, Rules};

/// The first line of every text record, before its version.
pub const MAGIC: &str = "yz-record";

/// A turn line in words, for error messages.
const TURN_SHAPE: &str = "a turn is ROLL [keep DICE ROLL]… BOX=POINTS, e.g. 13356 keep 33 23345 keep 3345 33456 ss=30";

impl Record {
    /// Reads a text record, checking every turn; an error names the line.
    pub fn parse_text(text: &str) -> Result<Record, RecordError> {
        let mut header = Header::default();
        let mut record: Option<Record> = None;
        let mut versioned = false;
        for (i, line) in text.lines().enumerate() {
            let at = Location::Line(i + 1);
            let line = line.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let (key, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let rest = rest.trim();
            if !versioned {
                if key != MAGIC {
                    let problem = format!(
                        "a record starts with the line \"{MAGIC} {RECORD_VERSION}\"; got {}",
                        crate::quote::quote(line)
                    );
                    return Err(Problem::Syntax(problem).at(at));
                }
                if rest != RECORD_VERSION.to_string() {
                    // Escaped: the record's bytes must not reach a terminal as control codes.
                    return Err(Problem::Version(rest.escape_debug().to_string()).at(at));
                }
                versioned = true;
                continue;
            }
            if matches!(key, "rules" | "boxes" | "players") {
                if record.is_some() {
                    let problem = format!("\"{key}\" comes after the first turn: the header lines come first");
                    return Err(Problem::Syntax(problem).at(at));
                }
                header.read(key, rest, at).map_err(|p| p.at(at))?;
                continue;
            }
            let record = match &mut record {
                Some(record) => record,
                None => record.insert(header.record()?),
            };
            record.push_raw(turn_line(line, at).map_err(|p| p.at(at))?)?;
        }
        if !versioned {
            let problem = format!("the record is empty: it starts with the line \"{MAGIC} {RECORD_VERSION}\"");
            return Err(Problem::Syntax(problem).at(Location::Record));
        }
        match record {
            Some(record) => Ok(record),
            None => header.record(),
        }
    }

    /// The record as text, in the form [`Record::parse_text`] reads.
    pub fn to_text(&self) -> String {
        let game = self.game();
        let mut out = format!("{MAGIC} {RECORD_VERSION}\nrules {}\n", game.rules.name());
        if game != Game::full(game.rules) {
            out += &format!("boxes {}\n", game.box_names().join(","));
        }
        out += &format!("players {}\n", self.players().join(" "));
        for turn in self.turns() {
            if self.players().len() > 1 {
                out += &format!("{}: ", self.players()[turn.player]);
            }
            out += &write_dice(turn.rolls[0].counts());
            for (keep, roll) in turn.keeps.iter().zip(&turn.rolls[1..]) {
                out += &format!(" keep {} {}", write_dice(keep.counts()), write_dice(roll.counts()));
            }
            out += &format!(" {}={}\n", game.rules.box_name(turn.category), turn.points);
        }
        out
    }
}

/// The header lines read so far, each with its line.
#[derive(Default)]
struct Header {
    rules: Option<Rules>,
    boxes: Option<(String, Location)>,
    players: Option<(Vec<String>, Location)>,
}

impl Header {
    fn read(&mut self, key: &str, value: &str, at: Location) -> Result<(), Problem> {
        let repeated = || Problem::Syntax(format!("\"{key}\" is given twice"));
        match key {
            "rules" => {
                let rules = value.parse::<Rules>().map_err(Problem::Game)?;
                self.rules.replace(rules).map_or(Ok(()), |_| Err(repeated()))
            }
            "boxes" => self.boxes.replace((value.to_string(), at)).map_or(Ok(()), |_| Err(repeated())),
            _ => {
                let names = value.split_whitespace().map(String::from).collect();
                self.players.replace((names, at)).map_or(Ok(()), |_| Err(repeated()))
            }
        }
    }

    /// The empty record the header describes; an error names the header line at fault.
    fn record(&self) -> Result<Record, RecordError> {
        let rules = self.rules.unwrap_or(Rules::OFFICIAL);
        let game = match &self.boxes {
            Some((list, at)) => Game::from_list(rules, list).map_err(|e| Problem::Game(e.to_string()).at(*at))?,
            None => Game::full(rules),
        };
        match &self.players {
            Some((names, at)) => Record::new(game, names.clone()).map_err(|e| e.problem.at(*at)),
            None => Record::new(game, vec![DEFAULT_PLAYER.to_string()]),
        }
    }
}

/// Splits a turn line into its parts.
fn turn_line(line: &str, at: Location) -> Result<RawTurn<'_>, Problem> {
    let (player, body) = match line.split_once(':') {
        Some((name, body)) => (Some(name.trim()), body),
        None => (None, line),
    };
    let syntax = |what: String| Problem::Syntax(format!("{what}; {TURN_SHAPE}"));
    let mut tokens = body.split_whitespace().peekable();
    let mut rolls = vec![tokens.next().ok_or_else(|| syntax("the turn has no dice".into()))?];
    let mut keeps = Vec::new();
    while tokens.peek() == Some(&"keep") {
        tokens.next();
        let keep = tokens.next().ok_or_else(|| syntax("\"keep\" ends the line; the dice kept come next".into()))?;
        let roll = tokens.next().ok_or_else(|| syntax(format!("\"keep {keep}\" needs the roll after it")))?;
        keeps.push(keep);
        rolls.push(roll);
    }
    let last = tokens.next().ok_or_else(|| syntax("the box and its points (BOX=POINTS) are missing".into()))?;
    let (box_name, points) = last
        .split_once('=')
        .ok_or_else(|| syntax(format!("{} is not BOX=POINTS (nor \"keep\")", crate::quote::quote(last))))?;
    if let Some(extra) = tokens.next() {
        return Err(syntax(format!("{} follows the box; the box ends the turn", crate::quote::quote(extra))));
    }
    let points = points
        .parse()
        .map_err(|_| syntax(format!("the points in {} are not a whole number", crate::quote::quote(last))))?;
    Ok(RawTurn { at, player, rolls, keeps, box_name, points })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = "yz-record 1\nrules official\nboxes ones,twos,fh\nplayers ann bob\n\
        ann: 13356 keep 1 11245 keep 11 11135 ones=3\n\
        bob: 22256 keep 222 22233 fh=25 # stopped early\n";

    #[test]
    fn a_record_reads_and_writes_back_the_same() {
        let record = Record::parse_text(GAME).unwrap();
        assert_eq!(record.turns().len(), 2);
        assert_eq!(record.cards()[1].to_string(), "fh=25");
        assert_eq!(record.to_text(), GAME.replace(" # stopped early", ""));
    }

    #[test]
    fn every_mistake_names_its_line() {
        let cases = [
            ("ann: 13356 keep 4 11245 ones=1", "line 5: keep 4 is not in the roll 1,3,3,5,6"),
            ("ann: 13356 keep 33 11245 ones=1", "line 5: roll 1,1,2,4,5 does not hold the dice kept before it (3,3)"),
            ("ann: 13356 ones=2", "line 5: ones=2 is wrong: 1,3,3,5,6 scores 1 in ones"),
            ("bob: 13356 ones=1", "line 5: it is ann's turn, not bob's"),
            ("cy: 13356 ones=1", "line 5: no player \"cy\""),
            ("13356 ones=1", "line 5: a two-player record names the player"),
            ("ann: 13356 sixes=6", "line 5: box sixes is not in play"),
            (
                "ann: 13356 keep 3 33333 keep 33 33333 keep 333 33333 ones=0",
                "line 5: a turn has 1 to 3 rolls (up to 2 keeps); this one has 4",
            ),
            ("ann: 1335 ones=1", "line 5: \"1335\" is not dice"),
            ("ann: 13356 keep", "line 5: \"keep\" ends the line"),
            ("ann: 13356 ones=x", "line 5: the points in \"ones=x\" are not a whole number"),
            ("ann: 13356 ones=1 twos=0", "line 5: \"twos=0\" follows the box"),
            ("ann: 13356 ones=1\nbob: 22222 twos=10\nann: 11111 ones=5", "line 7: box ones is already filled (line 5)"),
        ];
        let head = "yz-record 1\nrules official\nboxes ones,twos,fh\nplayers ann bob\n";
        for (turns, expected) in cases {
            let err = Record::parse_text(&format!("{head}{turns}\n")).unwrap_err().to_string();
            assert!(err.starts_with(expected), "{turns}: {err}");
        }
        let header_cases = [
            ("", "record: the record is empty"),
            ("rules official", "line 1: a record starts with the line \"yz-record 1\""),
            ("yz-record 2", "line 1: this is a version 2 record"),
            ("yz-record 1\nrules nope", "line 2: unknown rules"),
            ("yz-record 1\nboxes ones,nope", "line 2: unknown box \"nope\""),
            ("yz-record 1\nplayers a b c", "line 2: a record has 1 or 2 players; got 3"),
            ("yz-record 1\nrules official\nrules yatzy", "line 3: \"rules\" is given twice"),
            ("yz-record 1\n13356 ones=1\nrules yatzy", "line 3: \"rules\" comes after the first turn"),
            ("yz-record 1\n11111 yahtzee=50\n22222 yahtzee=50", "line 3: box yahtzee is already filled (line 2)"),
        ];
        for (text, expected) in header_cases {
            let err = Record::parse_text(text).unwrap_err().to_string();
            assert!(err.starts_with(expected), "{text}: {err}");
        }
    }

    /// A byte-order mark and CR or CR LF line endings read as plain LF text; a version
    /// field's control characters come back escaped, never raw.
    #[test]
    fn a_bom_and_any_line_ending_are_read_and_control_codes_escaped() {
        let plain = "yz-record 1\nrules official\nboxes ones,twos\n11111 ones=5\n22222 twos=10\n";
        let expected = Record::parse(plain).unwrap().to_text();
        for text in [format!("\u{feff}{plain}"), plain.replace('\n', "\r\n"), plain.replace('\n', "\r")] {
            assert_eq!(Record::parse(&text).unwrap().to_text(), expected, "{text:?}");
        }
        let json = serde_json::to_string(&Record::parse(plain).unwrap().to_json()).unwrap();
        assert_eq!(Record::parse(&format!("\u{feff}{json}")).unwrap().to_text(), expected);
        let err = Record::parse("yz-record \u{1b}[2J\rowned\n").unwrap_err().to_string();
        assert!(!err.chars().any(char::is_control), "{err:?}");
        assert!(err.contains("\\u{1b}[2J"), "{err}");
    }

    #[test]
    fn a_full_card_ends_the_turns_and_the_rules_decide_the_boxes() {
        let text = "yz-record 1\nboxes ones\n11111 ones=5\n11111 ones=5\n";
        let err = Record::parse_text(text).unwrap_err().to_string();
        assert_eq!(err, "line 4: player's card is full: the game is over");
        let forced = "yz-record 1\nrules yatzy+forced-order\n11111 twos=0\n";
        let err = Record::parse_text(forced).unwrap_err().to_string();
        assert_eq!(err, "line 3: the rules do not let 1,1,1,1,1 go in twos now; it may go in ones");
    }
}
