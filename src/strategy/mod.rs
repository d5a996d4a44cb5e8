//! Named solitaire strategies, each a [`Policy`] that [`crate::solo::analyze`] evaluates
//! exactly and [`crate::simulate`] plays.
//!
//! | name | what it is |
//! |---|---|
//! | `optimal` | the solved table (Glenn §II) |
//! | `greedy` | anchor values all zero: the most points this turn (Glenn §III-B) |
//! | `evolved`, `evolved:FILE` | Glenn's Eq. 13 with the 13 numbers found by the genetic algorithm of §III-B.1 ([`evolve`]) |
//! | `expert` | Brown et al.'s expert system ([`expert`]) |
//! | `learned`, `learned:FILE` | Brown et al.'s Monte-Carlo action table ([`learned`]) |
//!
//! `evolved` and `learned` read the file `yz strategy evolve` / `yz strategy train` wrote
//! for the game, in the data directory unless a file is named.

pub mod evolve;
pub mod expert;
pub mod learned;

use std::path::{Path, PathBuf};

use crate::game::{Game, ScoreState};
use crate::solo::table::FutureValue;
use crate::solo::{OptimalPolicy, Policy, SoloTable, SolvedValues, TableError, TurnPlan};
use crate::store::{StoreError, StoreFile};

/// The names [`by_name`] accepts, for help and error texts.
pub const NAMES: &str = "optimal, greedy, evolved[:FILE], expert, learned[:FILE]";

/// Why a strategy could not be had.
#[derive(Debug, thiserror::Error)]
pub enum StrategyError {
    /// A name that is no strategy.
    #[error("unknown strategy {0:?}; expected one of {NAMES}")]
    Unknown(String),
    /// The optimal table could not be opened or solved.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A trained strategy's file is missing, corrupt or made for another game.
    #[error(transparent)]
    File(#[from] StrategyFileError),
}

/// Why a file written by `yz strategy evolve` or `yz strategy train` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StrategyFileError {
    /// Unreadable, corrupt, truncated, or not a file of this kind.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A valid file made for another game or by another version of its format.
    #[error("{} was made for {what} {found}, not {expected}; {remedy}", .path.display())]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What differs (rules, categories, version).
        what: &'static str,
        /// What this game needs.
        expected: String,
        /// What the file holds.
        found: String,
        /// How to get a file that fits.
        remedy: &'static str,
    },
    /// The header is fine but the payload does not hold what the metadata promises.
    #[error("{} is corrupted: {detail}; produce it again", .path.display())]
    Corrupted {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
}

/// Opens a strategy file of `kind` and checks that it was made for `game` by format
/// `version` of that kind; `remedy` tells the user how to make one that fits.
pub(crate) fn open_for_game(
    path: &Path,
    kind: &str,
    version: u64,
    game: Game,
    remedy: &'static str,
) -> Result<StoreFile, StrategyFileError> {
    let file = StoreFile::open(path, kind)?;
    let expected = game_metadata(game, version);
    for what in ["version", "rules", "categories"] {
        if file.metadata().get(what) != expected.get(what) {
            let found = file.metadata().get(what).map_or("nothing".to_string(), |v| v.to_string());
            return Err(StrategyFileError::Mismatch {
                path: path.to_path_buf(),
                what,
                expected: expected[what].to_string(),
                found,
                remedy,
            });
        }
    }
    Ok(file)
}

/// The metadata every strategy file starts with: its format version and the game.
pub(crate) fn game_metadata(game: Game, version: u64) -> serde_json::Value {
    serde_json::json!({
        "version": version,
        "producer": concat!("yz ", env!("CARGO_PKG_VERSION")),
        "rules": game.rules.name(),
        "categories": game.categories.names(),
    })
}

/// Future values all zero: [`OptimalPolicy`] against them is Glenn's greedy strategy.
#[derive(Clone, Copy, Debug, Default)]
pub struct ZeroValues;

impl FutureValue for ZeroValues {
    fn future_value(&self, _state: ScoreState) -> f64 {
        0.0
    }
}

/// The same (zero) for every upper total.
impl SolvedValues for ZeroValues {}

/// A strategy chosen by name, owning what it plays from.
#[derive(Debug)]
pub enum Named {
    /// The solved table.
    Optimal(Game, SoloTable),
    /// Anchor values all zero.
    Greedy(Game),
    /// Eq. 13 with evolved anchors.
    Evolved(Game, evolve::AnchorValues),
    /// Brown et al.'s expert system.
    Expert(expert::ExpertPolicy),
    /// Brown et al.'s action table.
    Learned(learned::LearnedPolicy),
}

impl Policy for Named {
    fn plan(&self, state: ScoreState) -> TurnPlan {
        match self {
            Named::Optimal(game, table) => OptimalPolicy::solved(*game, table).plan(state),
            Named::Greedy(game) => OptimalPolicy::solved(*game, &ZeroValues).plan(state),
            Named::Evolved(game, anchors) => OptimalPolicy::solved(*game, anchors).plan(state),
            Named::Expert(expert) => expert.plan(state),
            Named::Learned(learned) => learned.plan(state),
        }
    }

    fn plays_by_state_class(&self) -> bool {
        match self {
            Named::Optimal(..) | Named::Greedy(..) | Named::Evolved(..) => true,
            Named::Expert(expert) => expert.plays_by_state_class(),
            Named::Learned(learned) => learned.plays_by_state_class(),
        }
    }
}

/// The strategy called `name` for `game`: `optimal` opens (or solves and writes) the table
/// in `data`; `evolved` and `learned` read the game's file there, or the file after a colon.
pub fn by_name(name: &str, game: Game, data: &Path) -> Result<Named, StrategyError> {
    let (base, file) = match name.split_once(':') {
        Some((base, file)) => (base.trim(), Some(PathBuf::from(file))),
        None => (name.trim(), None),
    };
    let file_or_default = |default: String| file.clone().unwrap_or_else(|| data.join(default));
    Ok(match base {
        "optimal" if file.is_none() => Named::Optimal(game, crate::solo::open_or_solve(data, game)?),
        "greedy" if file.is_none() => Named::Greedy(game),
        "expert" if file.is_none() => Named::Expert(expert::ExpertPolicy::new(game)),
        "evolved" => Named::Evolved(game, evolve::load(&file_or_default(evolve::file_name(game)), game)?),
        "learned" => Named::Learned(learned::LearnedPolicy::load(&file_or_default(learned::file_name(game)), game)?),
        _ => return Err(StrategyError::Unknown(name.to_string())),
    })
}
