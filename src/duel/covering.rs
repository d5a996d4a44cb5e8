//! The game of a position asked about without game flags.
//!
//! `yz duel value` or `advise` without `--rules`, `--categories` or `--first` reads the
//! cards as a position of the official full game. Where that game cannot answer it (no
//! tables hold it, and the game below it is too large to solve now) or the cards are no
//! position of it (or the tables given are another game's), the tables already solved are
//! looked at: the table directory given, or every one in the data directory. Those of a game in which the two cards are a position,
//! and which hold the layer needed, *cover* it; where the covering tables are all of one
//! game, that game is asked ([`ask`]), and the caller says which; where they are of
//! several, the choice is the user's.

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
/// `after_turn` (advice). With no game flag, the official full game where it can answer,
/// else the game of the covering tables where they are all of one game (see the [module
/// docs](self)); tables of several games are refused, naming them. Where no tables cover
/// it, the full game's own error stands (no tables and too large, or cards it does not
/// have).
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
                // Too large to solve now, or tables given of another game.
                Err(refusal @ (SourceError::TooLarge { .. } | SourceError::Shard(ShardError::Identity(_)))) => refusal,
                Err(other) => return Err(other),
            }
        }
        Err(error) if flags.is_empty() => error,
        Err(error) => return Err(error),
    };
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
    match &games[..] {
        [] => Err(refusal),
        [found] => {
            let cards = Cards::new(found.game);
            let position = Position::parse(&cards, me, opp, diff)?;
            Ok(Asked { cards, position, found: Some(found.clone()) })
        }
        several => Err(SourceError::SeveralGames { found: several.iter().map(ToString::to_string).collect() }),
    }
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
