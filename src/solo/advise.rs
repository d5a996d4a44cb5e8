//! The advisor: every keep or box of a position ranked by expected final score.

use serde::Serialize;

use super::table::FutureValue;
use crate::game::{Card, Game, RollId, Transition};
pub use crate::game::{Choice, faces};
use crate::game::{ChoiceJson, RollsLeft};
use crate::turn::choice;

/// One ranked choice.
#[derive(Clone, Copy, Debug)]
pub struct Ranked {
    /// The choice.
    pub choice: Choice,
    /// Points the box earns now, bonuses included (for [`Choice::Score`]).
    pub points: Option<u32>,
    /// Expected final score after it: points on the card plus expected points to come.
    pub expected_final: f64,
    /// How much worse than the best choice (0 for the best).
    pub gap: f64,
}

/// Why a position cannot be advised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdviseError {
    /// Nothing left to play.
    #[error("every box of the card is filled: the game is over")]
    GameOver,
}

/// A ranking in JSON form.
#[derive(Clone, Debug, Serialize)]
pub struct RankedJson {
    /// The choice.
    #[serde(flatten)]
    pub choice: ChoiceJson,
    /// Expected final score.
    pub expected_final: f64,
    /// Gap to the best.
    pub gap: f64,
}

impl Ranked {
    /// The JSON form of this choice on `card` holding `roll`.
    pub fn to_json(&self, card: &Card, roll: RollId) -> RankedJson {
        RankedJson {
            choice: ChoiceJson::new(self.choice, card, roll),
            expected_final: self.expected_final,
            gap: self.gap,
        }
    }
}

/// The advice on one position as `yz --json solo advise` prints it and `yz serve` answers.
#[derive(Clone, Debug, Serialize)]
pub struct AdviceJson {
    /// The rule set.
    pub rules: &'static str,
    /// The card, as `Card::parse` reads it.
    pub card: String,
    /// The dice.
    pub dice: String,
    /// Rerolls left.
    pub rolls_left: u8,
    /// Every choice, best first.
    pub options: Vec<RankedJson>,
}

impl AdviceJson {
    /// The advice `ranked` on `card` holding `roll` with `rolls_left` rerolls.
    pub fn new(card: &Card, roll: RollId, rolls_left: RollsLeft, ranked: &[Ranked]) -> AdviceJson {
        let rules = card.game.rules;
        AdviceJson {
            rules: rules.name(),
            card: card.to_string(),
            dice: roll.to_string(),
            rolls_left: rolls_left.get(),
            options: ranked.iter().map(|r| r.to_json(card, roll)).collect(),
        }
    }
}

/// Ranks every choice of the position `card`, `roll`, `rolls_left` rerolls still allowed:
/// every distinct keep when rerolls are left, every open box when none is. Best first.
pub fn advise(
    values: &impl FutureValue,
    game: Game,
    card: &Card,
    roll: RollId,
    rolls_left: RollsLeft,
) -> Result<Vec<Ranked>, AdviseError> {
    let state = card.state();
    if state.is_terminal() {
        return Err(AdviseError::GameOver);
    }
    let on_card = card.points() as f64;
    let finish = |t: Transition| t.points as f64 + values.future_value(t.next);
    let mut ranked: Vec<Ranked> = choice::rank(game, state, roll, rolls_left, finish)
        .into_iter()
        .map(|v| Ranked { choice: v.choice, points: v.points, expected_final: on_card + v.value, gap: 0.0 })
        .collect();
    let best = ranked.first().map_or(0.0, |r| r.expected_final);
    for r in &mut ranked {
        r.gap = best - r.expected_final;
    }
    Ok(ranked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Category, KeepId, Rules, parse_dice};
    use crate::solo::solve;

    #[test]
    fn advice_agrees_with_the_solved_values() {
        let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(6).unwrap() };
        let solution = solve(game);
        let card = Card::parse("", game).unwrap();
        let roll = parse_dice("6,6,6,2,1").unwrap();
        let keeps = advise(&solution, game, &card, roll, RollsLeft::TWO).unwrap();
        assert_eq!(
            faces(match keeps[0].choice {
                Choice::Keep(k) => k,
                Choice::Score(_) => unreachable!(),
            }),
            vec![6, 6, 6]
        );
        assert_eq!(keeps.len(), KeepId::all().filter(|k| k.is_within(roll)).count());
        let boxes = advise(&solution, game, &card, roll, RollsLeft::NONE).unwrap();
        assert_eq!(boxes[0].choice, Choice::Score(Category::Sixes));
        assert_eq!(boxes[0].gap, 0.0);
        assert!(boxes.windows(2).all(|w| w[0].expected_final >= w[1].expected_final));
        assert!(RollsLeft::new(3).unwrap_err().to_string().contains("must be 0, 1 or 2"));
        assert_eq!("2".parse::<RollsLeft>(), Ok(RollsLeft::TWO));
        assert!("two".parse::<RollsLeft>().is_err());
    }
}
