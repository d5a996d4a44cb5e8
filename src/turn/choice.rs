//! The choices of one position within a turn, valued by any rule for ending the turn.
//!
//! Every advisor (solitaire, target score, two players) ranks the same things: the keeps
//! of a roll with rerolls left, or the open boxes after the last roll. Only the value of
//! ending the turn differs, so it comes in as a function of the [`Transition`].

use std::fmt;

use serde::Serialize;

use super::TurnBuffer;
use crate::game::{Category, Game, KeepId, RollId, ScoreState, Transition};

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

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Keep(k) => write!(f, "keep {k}"),
            Choice::Score(c) => write!(f, "score {c}"),
        }
    }
}

/// A choice as every advisor's JSON writes it: `action` (`keep` or `score`), the dice kept
/// or the box, and for a box the points it earns now. Each ranking adds its own value.
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
    /// Points earned now, bonuses included (for a score).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
}

impl ChoiceJson {
    /// The JSON form of `choice`; `points` are kept for a box only.
    pub fn new(choice: Choice, points: Option<u32>) -> ChoiceJson {
        match choice {
            Choice::Keep(keep) => ChoiceJson { action: "keep", keep: Some(faces(keep)), category: None, points: None },
            Choice::Score(category) => {
                ChoiceJson { action: "score", keep: None, category: Some(category.name()), points }
            }
        }
    }
}

/// Sorted faces of a keep.
pub fn faces(keep: KeepId) -> Vec<u8> {
    keep.counts().iter().enumerate().flat_map(|(f, &c)| std::iter::repeat_n(f as u8 + 1, c as usize)).collect()
}

/// Values every choice of `state` holding `roll` with `rolls_left` rerolls (0, 1 or 2):
/// every box that can take the roll when `rolls_left` is 0, every distinct keep
/// otherwise. `finish` values ending the turn with a transition. Sorted best first.
///
/// # Panics
/// If `rolls_left > 2` or the state is terminal.
pub fn rank(
    game: Game,
    state: ScoreState,
    roll: RollId,
    rolls_left: u8,
    finish: impl Fn(Transition) -> f64,
) -> Vec<Valued> {
    assert!(rolls_left <= 2 && !state.is_terminal(), "no choice at rolls left {rolls_left} in {state:?}");
    let open = state.filled.complement();
    let mut ranked: Vec<Valued> = if rolls_left == 0 {
        open.iter()
            .filter_map(|c| {
                let t = state.score(game, c, roll)?;
                Some(Valued { choice: Choice::Score(c), points: Some(t.points), value: finish(t) })
            })
            .collect()
    } else {
        let mut turn = TurnBuffer::<f64>::new(1);
        let best_box = |r: RollId, out: &mut [f64]| {
            out[0] = open.iter().filter_map(|c| state.score(game, c, r)).map(&finish).fold(f64::NEG_INFINITY, f64::max);
        };
        turn.score_rolls(&best_box);
        turn.average_keeps();
        if rolls_left == 2 {
            turn.choose_keeps();
            turn.average_keeps();
        }
        KeepId::all()
            .filter(|k| k.is_within(roll))
            .map(|k| Valued { choice: Choice::Keep(k), points: None, value: turn.keep(k)[0] })
            .collect()
    };
    ranked.sort_by(|a, b| b.value.total_cmp(&a.value));
    ranked
}
