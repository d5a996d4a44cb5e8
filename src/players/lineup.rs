//! Players named on the command line (or anywhere else), built once: the solitaire
//! strategies from their tables, the searchers over the target table they share.

use std::path::Path;

use crate::game::Game;
use crate::players::{MatchPlayer, SolitairePlayer};
use crate::players::{PlayerName, Searcher};
use crate::progress::Progress;
use crate::solo::Policy;
use crate::store::TableError;
use crate::store::open_or_solve;
use crate::strategy::{Strategy, StrategyError};
use crate::targets::TargetTable;

/// Why a line-up could not be built.
#[derive(Debug, thiserror::Error)]
pub enum LineupError {
    /// Fewer players than the game needs.
    #[error("--players needs at least two strategies, comma-separated (e.g. optimal,greedy); got {}", crate::quote::quote(.0))]
    TooFew(String),
    /// A name is not a player, or its strategy could not be built.
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    /// The target table of a searcher could not be read or solved.
    #[error(transparent)]
    Targets(#[from] TableError),
}

/// The names of a match's players, `a,b,…` in turn order (blanks skipped), parsed: at
/// least two, since a match of one player has no winner.
pub fn match_players(text: &str) -> Result<(Vec<String>, Vec<PlayerName>), LineupError> {
    let names: Vec<String> = text.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned).collect();
    if names.len() < 2 {
        return Err(LineupError::TooFew(text.to_owned()));
    }
    let parsed = names.iter().map(|name| name.parse::<PlayerName>()).collect::<Result<Vec<_>, _>>()?;
    Ok((names, parsed))
}

/// Players and what they read: the strategies built, and the target table where a
/// searcher needs it (or [`Lineup::load`]'s `with_table` asks for it).
pub struct Lineup {
    names: Vec<PlayerName>,
    strategies: Vec<Option<Strategy>>,
    table: Option<TargetTable>,
}

impl Lineup {
    /// Builds the players `names` of `game` from the tables in `data` (solving any missing,
    /// the target table's solve reported to `progress`).
    pub fn load(
        names: &[PlayerName],
        game: Game,
        data: &Path,
        with_table: bool,
        progress: &dyn Progress,
    ) -> Result<Lineup, LineupError> {
        let searching = names.iter().any(|name| matches!(name, PlayerName::Search { .. }));
        let table =
            if searching || with_table { Some(open_or_solve::<TargetTable>(data, game, progress)?) } else { None };
        let strategies = names
            .iter()
            .map(|name| match name {
                PlayerName::Solitaire(name) => Ok(Some(Strategy::build(name, game, data)?)),
                PlayerName::Search { .. } => Ok(None),
            })
            .collect::<Result<Vec<_>, LineupError>>()?;
        Ok(Lineup { names: names.to_vec(), strategies, table })
    }

    /// The target table, if loaded.
    pub fn table(&self) -> Option<&TargetTable> {
        self.table.as_ref()
    }

    /// The players, in the order named.
    pub fn players(&self) -> Vec<Box<dyn MatchPlayer + '_>> {
        self.names
            .iter()
            .zip(&self.strategies)
            .map(|(name, strategy)| -> Box<dyn MatchPlayer + '_> {
                match (name, strategy, &self.table) {
                    (_, Some(strategy), _) => Box::new(SolitairePlayer::new(strategy as &dyn Policy)),
                    (&PlayerName::Search { evaluation, depth }, None, Some(table)) => {
                        Box::new(Searcher::new(table, evaluation, depth))
                    }
                    _ => unreachable!("every name is a strategy or a searcher, and searchers have a table"),
                }
            })
            .collect()
    }
}
