//! The strategy zoo: the solitaire strategies of the papers, each by name, for exact
//! evaluation with [`crate::solo::analyze`] (Glenn 2007 §III, Table VII).
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
//! | `rules` | the keep and scoring rule lists of Tables V and VI | [`rules`] |
//! | `novice` | the Yahtzee-bonus strategy of §III-A | [`novice`] |

pub mod anchors;
pub mod novice;
pub mod rules;
pub mod upper_lower;

use std::fmt;
use std::str::FromStr;

use crate::game::{ALL_CATEGORIES, Game, NUM_CATEGORIES, ScoreState};
use crate::solo::{Analysis, Policy, TurnPlan, analyze, solve};

/// The strategies by name, as the command line writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
}

/// The names [`StrategyName::from_str`] accepts, for help texts and errors.
pub const STRATEGY_NAMES: &str = "optimal, greedy, means, means-iter[:ROUNDS], means-var, upper-lower, rules, novice";

/// A strategy name that is none of [`STRATEGY_NAMES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown strategy {0:?}; expected one of {STRATEGY_NAMES}")]
pub struct UnknownStrategy(pub String);

impl FromStr for StrategyName {
    type Err = UnknownStrategy;

    fn from_str(text: &str) -> Result<StrategyName, UnknownStrategy> {
        let unknown = || UnknownStrategy(text.to_string());
        Ok(match text.trim().to_ascii_lowercase().as_str() {
            "optimal" => StrategyName::Optimal,
            "greedy" => StrategyName::Greedy,
            "means" => StrategyName::Means,
            "means-iter" => StrategyName::MeansIter { rounds: 1 },
            "means-var" => StrategyName::MeansVar,
            "upper-lower" => StrategyName::UpperLower,
            "rules" => StrategyName::Rules,
            "novice" => StrategyName::Novice,
            other => {
                let rounds = other.strip_prefix("means-iter:").ok_or_else(unknown)?;
                match rounds.parse::<u32>() {
                    Ok(rounds) if rounds >= 1 => StrategyName::MeansIter { rounds },
                    _ => return Err(unknown()),
                }
            }
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
        }
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
    /// Builds `name` for `game`. What a strategy needs is computed here, in memory: the
    /// optimal table (`optimal`), the optimal strategy's box statistics, Glenn's Table III
    /// for the official game (`means`, `means-iter`, `means-var`), the analyses of the
    /// earlier rounds (`means-iter`), the two sub-games' tables (`upper-lower`). The
    /// strategies that need the optimal box statistics take a few seconds on the full game.
    pub fn build(name: StrategyName, game: Game) -> Strategy {
        let mut earlier_rounds = Vec::new();
        let policy: Box<dyn Policy + Send> = match name {
            StrategyName::Optimal => Box::new(anchors::optimal(game)),
            StrategyName::Greedy => Box::new(anchors::greedy(game)),
            StrategyName::Means => {
                let estimate = anchors::CategoryMeans::new(box_means(&optimal_statistics(game)));
                Box::new(anchors::means(game, estimate))
            }
            StrategyName::MeansIter { rounds } => {
                let start = box_means(&optimal_statistics(game));
                let (estimate, averages) = anchors::iterate_means(game, start, rounds);
                earlier_rounds = averages;
                Box::new(anchors::means(game, estimate))
            }
            StrategyName::MeansVar => Box::new(anchors::means_var(game, &optimal_statistics(game))),
            StrategyName::UpperLower => Box::new(upper_lower::upper_lower(game)),
            StrategyName::Rules => Box::new(rules::RuleLists::new(game)),
            StrategyName::Novice => Box::new(novice::Novice::new(game)),
        };
        Strategy { name, game, policy, earlier_rounds }
    }

    /// The strategy's name.
    pub fn name(&self) -> StrategyName {
        self.name
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

impl Policy for Strategy {
    fn plan(&self, state: ScoreState) -> TurnPlan {
        self.policy.plan(state)
    }

    fn plays_by_state_class(&self) -> bool {
        self.policy.plays_by_state_class()
    }
}

/// The optimal strategy's exact box statistics in `game` (Glenn's Table III for the official
/// full game): the input of the category means heuristics.
pub fn optimal_statistics(game: Game) -> Analysis {
    let solution = solve(game);
    analyze(game, &crate::solo::OptimalPolicy::solved(game, &solution))
}

/// One number per box, by card index.
pub type PerBox = [f64; NUM_CATEGORIES];

/// The mean of every box under the analysed strategy.
pub fn box_means(analysis: &Analysis) -> PerBox {
    ALL_CATEGORIES.map(|c| analysis.box_mean(c))
}
