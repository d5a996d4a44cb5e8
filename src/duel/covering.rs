//! The game of a position asked about without game flags.
//!
//! `yz duel value` or `advise` without `--rules`, `--categories` or `--first` reads the
//! cards as a position of the official full game, and only that game answers a position
//! of it: where it cannot (no tables hold it, and the game below it is too large to solve
//! now), tables of other games that hold the same cards are named in the refusal, never
//! used. Other games' tables answer only where the cards are no position of the full game
//! (they belong to another game), or where the user named the tables (`--tables`, of
//! another game): those looked at are the table directory given, or every one in the data
//! directory. Those of a game in which the two cards are a position, and which hold the
//! layer needed, *cover* it; where the covering tables are all of one game, that game is
//! asked ([`ask`]), and the caller says which; where they are of several, the choice is
//! the user's.

use std::fmt;
use std::path::PathBuf;

use super::cards::Cards;
use super::shard::{MANIFEST_FILE, Manifest, ShardError};
use super::source::{Position, SourceError, TableLookup, Values};
use crate::game::{Game, GameFlags};

/// A position, in the game it is asked in.
pub struct Asked {
    /// The game's cards.
    pub cards: Cards,
    /// The position.
    pub position: Position,
    /// The tables whose game was taken, where no game flag named it.
    pub found: Option<Found>,
}

/// Tables of a game that cover a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The game.
    pub game: Game,
    /// The table directory.
    pub dir: PathBuf,
}

/// "the tables of official, first 6 boxes (--first 6), in DIR".
impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the tables of {} ({}) in {}", self.game.describe(), self.game.flags(), self.dir.display())
    }
}

/// The position of cards `me` and `opp` (with `diff`, default from their points) in the
/// game `flags` name, whose values are needed at its layer, or the layer after it with
/// `after_turn` (advice). With no game flag, the official full game, which alone answers a
/// position of it (its refusal names other games' tables that hold the same cards); cards
/// that are no position of it, or tables given of another game, are asked in the game of
/// the covering tables where they are all of one game (see the [module docs](self)), and
/// tables of several games are refused, naming them. Where no tables cover it, the full
/// game's own error stands.
pub fn ask(
    flags: &GameFlags,
    (me, opp, diff): (&str, &str, Option<i32>),
    lookup: TableLookup,
    after_turn: bool,
) -> Result<Asked, SourceError> {
    let named = flags.game()?;
    let cards = Cards::new(named);
    let refusal = match Position::parse(&cards, me, opp, diff) {
        Ok(position) if !flags.is_empty() => return Ok(Asked { cards, position, found: None }),
        Ok(position) => {
            let layer = position.layer + usize::from(after_turn);
            match Values::available(&cards, &position, layer, lookup) {
                Ok(()) => return Ok(Asked { cards, position, found: None }),
                // Tables given of another game: the user asked for them.
                Err(refusal @ SourceError::Shard(ShardError::Identity(_))) => refusal,
                // A position of the full game, too large to solve now: other games' tables
                // holding the same cards are named, not used.
                Err(refusal @ SourceError::TooLarge { .. }) => {
                    let found = covering(named, (me, opp, diff), lookup, after_turn);
                    if found.is_empty() {
                        return Err(refusal);
                    }
                    let found = found.iter().map(ToString::to_string).collect();
                    return Err(SourceError::OtherGame { refusal: Box::new(refusal), found });
                }
                Err(other) => return Err(other),
            }
        }
        Err(error) if flags.is_empty() => error,
        Err(error) => return Err(error),
    };
    match &covering(named, (me, opp, diff), lookup, after_turn)[..] {
        [] => Err(refusal),
        [found] => {
            let cards = Cards::new(found.game);
            let position = Position::parse(&cards, me, opp, diff)?;
            Ok(Asked { cards, position, found: Some(found.clone()) })
        }
        several => Err(SourceError::SeveralGames { found: several.iter().map(ToString::to_string).collect() }),
    }
}

/// The tables of games other than `named` that cover the position (one directory per
/// game, the first in name order).
fn covering(
    named: Game,
    (me, opp, diff): (&str, &str, Option<i32>),
    lookup: TableLookup,
    after_turn: bool,
) -> Vec<Found> {
    let mut games: Vec<Found> = Vec::new();
    for dir in candidates(lookup) {
        let Some(game) = Manifest::open(&dir).ok().and_then(|m| m.game()).filter(|&g| g != named) else { continue };
        if games.iter().any(|found| found.game == game) {
            continue;
        }
        let cards = Cards::new(game);
        let Ok(position) = Position::parse(&cards, me, opp, diff) else { continue };
        let layer = position.layer + usize::from(after_turn);
        let at_hand = TableLookup { given: Some(&dir), on_the_fly: 0, ..lookup };
        if Values::available(&cards, &position, layer, at_hand).is_ok() {
            games.push(Found { game, dir });
        }
    }
    games
}

/// The table directories to look at, in name order: the one given, else those of the
/// data directory (every directory there with a manifest).
fn candidates(lookup: TableLookup) -> Vec<PathBuf> {
    if let Some(dir) = lookup.given {
        return vec![dir.to_owned()];
    }
    let Ok(entries) = std::fs::read_dir(lookup.data) else { return Vec::new() };
    let mut dirs: Vec<PathBuf> =
        entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|dir| dir.join(MANIFEST_FILE).is_file()).collect();
    dirs.sort();
    dirs
}
