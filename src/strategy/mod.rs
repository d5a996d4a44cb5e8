//! The strategy zoo: the solitaire strategies of the papers, each by name, for exact
//! evaluation with [`crate::solo::analyze`] (Glenn 2007 §III, Table VII; Brown et al.) and
//! for play by [`crate::simulate`].
//!
//! # The interface
//! A strategy is a [`Policy`]: asked for a score state, it returns the [`TurnPlan`] of the
//! turn played from it, that is the keep for every roll with two and with one reroll left
//! and the box for every final roll. That is everything a strategy decides, from the score
//! state, the dice and the rolls left; the exact forward analysis consumes it as it is, and a
//! simulation reads the decision for the dice it rolled. A strategy that decides one
//! situation at a time builds its plan with [`TurnPlan::from_fn`]. Strategies are
//! deterministic, and every one of them plays any rule variant and any truncated game
//! (boxes not in play count as filled).
//!
//! | name | what it plays | module |
//! |---|---|---|
//! | `optimal` | the solved solitaire table | [`anchors`] |
//! | `greedy` | the most points this turn (anchor values all 0) | [`anchors`] |
//! | `means` | Eq. 12: points plus the optimal strategy's mean of every open box, and the upper bonus if those means reach it | [`anchors`] |
//! | `means-iter[:N]` | Eq. 13 after N rounds (default 1) of replacing the means by the strategy's own | [`anchors`] |
//! | `means-var` | `means` with the bonus's chance from a normal approximation with the variances | [`anchors`] |
//! | `upper-lower` | Eq. 14: the upper-only plus the lower-only game's value | [`upper_lower`] |
//! | `rules` | the keep and scoring rule lists of Tables V and VI | [`rule_lists`] |
//! | `novice` | the Yahtzee-bonus strategy of §III-A | [`novice`] |
//! | `evolved[:FILE]` | Eq. 13 with the box numbers found by the genetic algorithm of §III-B.1 | [`evolve`] |
//! | `expert` | Brown et al.'s expert system | [`expert`] |
//! | `learned[:FILE]` | Brown et al.'s Monte-Carlo action table | [`learned`] |
//!
//! What a strategy needs is read from the data directory: the optimal table (`optimal`, and
//! the optimal box statistics behind `means`, `means-iter` and `means-var`), solved and
//! written there on first use; the files `yz strategy evolve` and `yz strategy train` wrote
//! for the game (`evolved`, `learned`), unless a file is named after the colon.

pub mod anchors;
pub mod evolve;
pub mod expert;
pub mod learned;
pub mod novice;
pub mod rule_lists;
pub mod upper_lower;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::game::{ALL_CATEGORIES, Game, MAX_BOXES, ScoreState, suggest};
use crate::progress::Silent;
use crate::solo::{Analysis, OptimalPolicy, Policy, SoloTable, TurnPlan, analyze};
use crate::store::TableError;
use crate::store::open_or_solve;

/// The strategies by name, as the command line writes them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StrategyName {
    /// The optimal strategy: the solitaire table.
    Optimal,
    /// The greedy strategy: anchor values all zero (Glenn §III-B).
    Greedy,
    /// The category means heuristic, Glenn's Eq. 12 with the optimal strategy's box means.
    Means,
    /// Glenn's Eq. 13 after `rounds` rounds of replacing the box means by the previous
    /// strategy's own (round 0 is [`StrategyName::Means`]).
    MeansIter {
        /// Rounds of replacement, at least 1.
        rounds: u32,
    },
    /// The category means heuristic with variances: a normal approximation of the upper bonus.
    MeansVar,
    /// Glenn's Eq. 14: the upper-only and the lower-only games' values.
    UpperLower,
    /// The rule lists of Glenn's Tables V and VI.
    Rules,
    /// The novice's Yahtzee-bonus strategy (Glenn §III-A).
    Novice,
    /// Glenn's Eq. 13 with the values `yz strategy evolve` found (Glenn §III-B.1).
    Evolved {
        /// The values' file; the game's file in the data directory when `None`.
        file: Option<PathBuf>,
    },
    /// Brown et al.'s expert system.
    Expert,
    /// Brown et al.'s action table, trained by `yz strategy train`.
    Learned {
        /// The table's file; the game's file in the data directory when `None`.
        file: Option<PathBuf>,
    },
}

/// The names [`StrategyName::from_str`] accepts, for help texts and errors.
pub const STRATEGY_NAMES: &str = "optimal, greedy, means, means-iter[:ROUNDS], means-var, upper-lower, rules, \
                                  novice, evolved[:FILE], expert, learned[:FILE]";

/// The names of [`STRATEGY_NAMES`] without their arguments (`means-iter`, `evolved`).
fn strategy_names() -> impl Iterator<Item = &'static str> {
    STRATEGY_NAMES.split(", ").map(|name| name.split('[').next().unwrap_or(name))
}

/// The strategy name `typed` stands for (its name before any `:` argument, as
/// [`suggest::did_you_mean`] reads it), in words after the name.
fn did_you_mean(typed: &str, names: impl Iterator<Item = &'static str>) -> String {
    suggest::did_you_mean(typed.split(':').next().unwrap_or(typed), names)
}

/// Why a strategy could not be had.
#[derive(Debug, thiserror::Error)]
pub enum StrategyError {
    /// A name that is no strategy.
    #[error(
        "unknown strategy {}{meant}; expected one of {STRATEGY_NAMES}",
        crate::quote::quote(.0),
        meant = did_you_mean(.0, strategy_names())
    )]
    Unknown(String),
    /// A name that is no player: no search (`empD`, `dynsD`), `E`, nor a strategy.
    #[error(
        "unknown strategy {}{meant}; expected empD or dynsD with a depth D (e.g. emp1), E, or one of {STRATEGY_NAMES}",
        crate::quote::quote(.0),
        meant = did_you_mean(.0, strategy_names())
    )]
    UnknownPlayer(String),
    /// A strategy written for Yahtzee's card, asked to play another.
    #[error(
        "strategy {strategy} is defined for Yahtzee's thirteen boxes and does not carry over to the {rules} rules; \
         use optimal, greedy, means, means-iter, means-var, upper-lower or evolved"
    )]
    NotForRules {
        /// The strategy.
        strategy: String,
        /// The rules asked for.
        rules: String,
    },
    /// A strategy's parameter beyond what it can be run with.
    #[error("{0}")]
    OutOfRange(String),
    /// The optimal table could not be opened or solved, or a trained strategy's file is
    /// missing, corrupt or made for another game.
    #[error(transparent)]
    Table(#[from] TableError),
}

/// The most rounds `means-iter:N` runs: each is a full exact analysis, and the means have
/// settled long before.
pub const MAX_MEANS_ITER_ROUNDS: u32 = 100;

impl FromStr for StrategyName {
    type Err = StrategyError;

    /// A name of [`STRATEGY_NAMES`]; the name is case-insensitive, a file name is not.
    fn from_str(text: &str) -> Result<StrategyName, StrategyError> {
        let unknown = || StrategyError::Unknown(text.to_string());
        let text = text.trim();
        let (base, argument) = match text.split_once(':') {
            Some((base, argument)) => (base.to_ascii_lowercase(), Some(argument)),
            None => (text.to_ascii_lowercase(), None),
        };
        let file = argument.map(PathBuf::from);
        Ok(match (base.as_str(), argument) {
            ("optimal", None) => StrategyName::Optimal,
            ("greedy", None) => StrategyName::Greedy,
            ("means", None) => StrategyName::Means,
            ("means-iter", None) => StrategyName::MeansIter { rounds: 1 },
            ("means-iter", Some(rounds)) => match rounds.parse::<u32>() {
                Ok(rounds) if (1..=MAX_MEANS_ITER_ROUNDS).contains(&rounds) => StrategyName::MeansIter { rounds },
                Ok(_) => {
                    return Err(StrategyError::OutOfRange(format!(
                        "{text}: means-iter takes 1 to {MAX_MEANS_ITER_ROUNDS} rounds, each an exact analysis of the game"
                    )));
                }
                Err(_) => return Err(unknown()),
            },
            ("means-var", None) => StrategyName::MeansVar,
            ("upper-lower", None) => StrategyName::UpperLower,
            ("rules", None) => StrategyName::Rules,
            ("novice", None) => StrategyName::Novice,
            ("evolved", Some("")) | ("learned", Some("")) => return Err(unknown()),
            ("evolved", _) => StrategyName::Evolved { file },
            ("expert", None) => StrategyName::Expert,
            ("learned", _) => StrategyName::Learned { file },
            _ => return Err(unknown()),
        })
    }
}

impl fmt::Display for StrategyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrategyName::Optimal => f.write_str("optimal"),
            StrategyName::Greedy => f.write_str("greedy"),
            StrategyName::Means => f.write_str("means"),
            StrategyName::MeansIter { rounds: 1 } => f.write_str("means-iter"),
            StrategyName::MeansIter { rounds } => write!(f, "means-iter:{rounds}"),
            StrategyName::MeansVar => f.write_str("means-var"),
            StrategyName::UpperLower => f.write_str("upper-lower"),
            StrategyName::Rules => f.write_str("rules"),
            StrategyName::Novice => f.write_str("novice"),
            StrategyName::Evolved { file: None } => f.write_str("evolved"),
            StrategyName::Evolved { file: Some(file) } => write!(f, "evolved:{}", file.display()),
            StrategyName::Expert => f.write_str("expert"),
            StrategyName::Learned { file: None } => f.write_str("learned"),
            StrategyName::Learned { file: Some(file) } => write!(f, "learned:{}", file.display()),
        }
    }
}

impl StrategyName {
    /// Whether the strategy is defined under `game`'s rules: the rule lists, the novice,
    /// the expert system and the learned agent are written for Yahtzee's boxes.
    pub fn check_rules(&self, game: Game) -> Result<(), StrategyError> {
        let yahtzee_only = matches!(
            self,
            StrategyName::Rules | StrategyName::Novice | StrategyName::Expert | StrategyName::Learned { .. }
        );
        if yahtzee_only && !game.rules.has_yahtzee_card() {
            return Err(StrategyError::NotForRules { strategy: self.to_string(), rules: game.rules.name().into() });
        }
        Ok(())
    }
}

/// A strategy built for one game, ready to be analysed or played.
pub struct Strategy {
    name: StrategyName,
    game: Game,
    policy: Box<dyn Policy + Send>,
    earlier_rounds: Vec<f64>,
}

impl Strategy {
    /// Builds `name` for `game`, reading what it needs from `data_dir` (see the module
    /// documentation): the optimal table is opened there, or solved and written on first
    /// use, so the strategies built on it are fast on repeat. The rest is computed here: the
    /// analyses of the earlier rounds (`means-iter`), the two sub-games' tables
    /// (`upper-lower`).
    pub fn build(name: &StrategyName, game: Game, data_dir: &Path) -> Result<Strategy, StrategyError> {
        name.check_rules(game)?;
        let in_data_dir =
            |file: &Option<PathBuf>, default: String| file.clone().unwrap_or_else(|| data_dir.join(default));
        let mut earlier_rounds = Vec::new();
        let policy: Box<dyn Policy + Send> = match name {
            StrategyName::Optimal => {
                Box::new(anchors::optimal(game, open_or_solve::<SoloTable>(data_dir, game, &Silent)?))
            }
            StrategyName::Greedy => Box::new(anchors::greedy(game)),
            StrategyName::Means => {
                let statistics = optimal_statistics(game, data_dir)?;
                Box::new(anchors::means(game, anchors::CategoryMeans::new(game.rules, box_means(&statistics))))
            }
            &StrategyName::MeansIter { rounds } => {
                let start = box_means(&optimal_statistics(game, data_dir)?);
                let (estimate, averages) = anchors::iterate_means(game, start, rounds);
                earlier_rounds = averages;
                Box::new(anchors::means(game, estimate))
            }
            StrategyName::MeansVar => Box::new(anchors::means_var(game, &optimal_statistics(game, data_dir)?)),
            StrategyName::UpperLower => Box::new(upper_lower::upper_lower(game)),
            StrategyName::Rules => Box::new(rule_lists::RuleLists::new(game)),
            StrategyName::Novice => Box::new(novice::Novice::new(game)),
            StrategyName::Evolved { file } => {
                let values = evolve::load(&in_data_dir(file, evolve::file_name(game)), game)?;
                Box::new(anchors::Anchored::solved(game, values))
            }
            StrategyName::Expert => Box::new(expert::ExpertPolicy::new(game)),
            StrategyName::Learned { file } => {
                Box::new(learned::LearnedPolicy::load(&in_data_dir(file, learned::file_name(game)), game)?)
            }
        };
        Ok(Strategy { name: name.clone(), game, policy, earlier_rounds })
    }

    /// The strategy's name.
    pub fn name(&self) -> &StrategyName {
        &self.name
    }

    /// The game it was built for.
    pub fn game(&self) -> Game {
        self.game
    }

    /// For `means-iter:N`, the exact expected scores of rounds 0 to N − 1 (round 0 is
    /// `means`), computed while building it; empty for the other strategies.
    pub fn earlier_rounds(&self) -> &[f64] {
        &self.earlier_rounds
    }

    /// The exact analysis of this strategy in its game.
    pub fn analyze(&self) -> Analysis {
        analyze(self.game, self)
    }
}

impl fmt::Debug for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Strategy").field("name", &self.name).field("game", &self.game).finish_non_exhaustive()
    }
}

impl Policy for Strategy {
    fn plan(&self, state: ScoreState) -> TurnPlan {
        self.policy.plan(state)
    }

    fn plays_by_state_class(&self) -> bool {
        self.policy.plays_by_state_class()
    }
}

/// The optimal strategy's exact box statistics in `game` (Glenn's Table III for the official
/// full game), from the table in `data_dir`: the input of the category means heuristics.
pub fn optimal_statistics(game: Game, data_dir: &Path) -> Result<Analysis, TableError> {
    let table: SoloTable = open_or_solve::<SoloTable>(data_dir, game, &Silent)?;
    Ok(analyze(game, &OptimalPolicy::solved(game, &table)))
}

/// One number per box, by [`crate::game::Category::index`].
pub type PerBox = [f64; MAX_BOXES];

/// The mean of every box under the analysed strategy.
pub fn box_means(analysis: &Analysis) -> PerBox {
    ALL_CATEGORIES.map(|c| analysis.box_mean(c))
}
