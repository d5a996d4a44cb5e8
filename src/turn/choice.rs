//! The choices of one position within a turn ([`crate::game::Choice`]), valued by any
//! rule for ending the turn.
//!
//! Every advisor (solitaire, target score, two players) ranks the same things: the keeps
//! of a roll with rerolls left, or the open boxes after the last roll. Only the value of
//! ending the turn differs, so it comes in as a function of the [`Transition`].

use super::TurnBuffer;
use crate::game::{Choice, Game, KeepId, RollId, RollsLeft, ScoreState, Transition, Valued};

/// Values every choice of `state` holding `roll` with `rolls_left` rerolls: every box
/// that can take the roll when none is left, every distinct keep otherwise. `finish`
/// values ending the turn with a transition. Sorted best first.
///
/// # Panics
/// If the state is terminal.
pub fn rank(
    game: Game,
    state: ScoreState,
    roll: RollId,
    rolls_left: RollsLeft,
    finish: impl Fn(Transition) -> f64,
) -> Vec<Valued> {
    assert!(!state.is_terminal(), "no choice in the finished card {state:?}");
    let rolls_left = rolls_left.get();
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
