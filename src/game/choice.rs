//! The vocabulary of a turn: rerolls left, the choices a player makes (a keep or a box),
//! a choice with its value, and a choice as JSON. The kernel ranks choices
//! ([`crate::turn::choice::rank`]); records, players and the coach speak of them.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::{Card, Category, Earned, KeepId, RollId, Rules};

/// Rerolls still allowed in a turn: 0, 1 or 2. Checked once, where it is made, so every
/// advisor takes it as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RollsLeft(u8);

/// Rerolls left outside 0..=2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rolls left must be 0, 1 or 2 (rerolls still allowed this turn); got {0}")]
pub struct RollsLeftError(pub String);

impl RollsLeft {
    /// After the last roll: only a box can be chosen.
    pub const NONE: RollsLeft = RollsLeft(0);
    /// One reroll left.
    pub const ONE: RollsLeft = RollsLeft(1);
    /// Two rerolls left: after the first roll.
    pub const TWO: RollsLeft = RollsLeft(2);

    /// `n` rerolls, if `n` is 0, 1 or 2.
    pub fn new(n: u8) -> Result<RollsLeft, RollsLeftError> {
        if n <= 2 { Ok(RollsLeft(n)) } else { Err(RollsLeftError(n.to_string())) }
    }

    /// The number of rerolls.
    pub fn get(self) -> u8 {
        self.0
    }

    /// One reroll fewer (none stays none).
    pub fn after_reroll(self) -> RollsLeft {
        RollsLeft(self.0.saturating_sub(1))
    }
}

impl FromStr for RollsLeft {
    type Err = RollsLeftError;

    fn from_str(s: &str) -> Result<RollsLeft, RollsLeftError> {
        s.trim().parse::<u8>().ok().and_then(|n| RollsLeft::new(n).ok()).ok_or_else(|| RollsLeftError(s.to_string()))
    }
}

impl fmt::Display for RollsLeft {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A choice the player can make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Keep these dice and reroll the rest (all five: stop rolling).
    Keep(KeepId),
    /// Score the dice in this box.
    Score(Category),
}

/// One choice with its value and, for a box, the points it earns now (bonuses included).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Valued {
    /// The choice.
    pub choice: Choice,
    /// Points earned now, for [`Choice::Score`].
    pub points: Option<u32>,
    /// Value of the choice under optimal play afterwards.
    pub value: f64,
}

impl Choice {
    /// The choice in words, the box named as the `rules`' card names it (`keep 3,3`,
    /// `score yatzy`).
    pub fn describe(self, rules: Rules) -> String {
        match self {
            Choice::Keep(k) => format!("keep {k}"),
            Choice::Score(c) => format!("score {}", rules.box_name(c)),
        }
    }
}

/// A choice as every advisor's JSON writes it: `action` (`keep` or `score`), the dice kept
/// or the box, and for a box what it earns now: `points`, which is `box_points` (written in
/// the box) and `bonus_points` (the Extra Yahtzee Bonus, and the upper bonus where the box
/// reaches the threshold) together. Each ranking adds its own value.
#[derive(Clone, Debug, Serialize)]
pub struct ChoiceJson {
    /// `keep` or `score`.
    pub action: &'static str,
    /// Dice kept (for a keep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep: Option<Vec<u8>>,
    /// Box scored (for a score).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<&'static str>,
    /// What the box earns now, bonuses apart and included (for a score).
    #[serde(flatten)]
    pub earned: Option<Earned>,
}

impl ChoiceJson {
    /// The JSON form of `choice` on `card` holding `roll`, the box named as the card's rules
    /// name it.
    ///
    /// # Panics
    /// If `choice` scores a box that cannot take `roll` on `card` (no advisor offers one).
    pub fn new(choice: Choice, card: &Card, roll: RollId) -> ChoiceJson {
        let game = card.game;
        match choice {
            Choice::Keep(keep) => ChoiceJson { action: "keep", keep: Some(faces(keep)), category: None, earned: None },
            Choice::Score(category) => ChoiceJson {
                action: "score",
                keep: None,
                category: Some(game.rules.box_name(category)),
                earned: Some(card.state().earned(game, category, roll).expect("an offered box can take the dice")),
            },
        }
    }
}

/// Sorted faces of a keep.
pub fn faces(keep: KeepId) -> Vec<u8> {
    keep.counts().iter().enumerate().flat_map(|(f, &c)| std::iter::repeat_n(f as u8 + 1, c as usize)).collect()
}
