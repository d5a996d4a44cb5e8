//! Why a choice: what it gives and gives up, aspect by aspect (the expected final score,
//! the upper bonus, the five of a kind, the extra bonus, each box), by the exact analysis of
//! the rest of the game under optimal solitaire play after it. A review breaks a mistake
//! down this way against the best choice; the advisor sets the best choices side by side.

use serde::Serialize;

use crate::game::{Card, Category, Game};
use crate::progress::{Cancelled, Progress};
use crate::simulate::PlanCache;
use crate::solo::{OptimalPolicy, SolvedValues, Start, WithinTurn, analyze_from};

/// The rest of the game after a choice, played optimally for the expected score, and the
/// card before it: what the whole card ends with, in expectation.
#[derive(Clone, Debug, Serialize)]
pub struct Aspects {
    /// Expected final score.
    pub expected_final: f64,
    /// P(upper bonus).
    pub upper_bonus: f64,
    /// P(the five-of-a-kind box scores), where that box is in play.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub five_of_a_kind: Option<f64>,
    /// Expected Extra Yahtzee Bonus points.
    pub extra_bonus: f64,
    /// Expected points of each box in play, in card order.
    pub boxes: Vec<BoxExpectation>,
}

/// A box's expected final points.
#[derive(Clone, Debug, Serialize)]
pub struct BoxExpectation {
    /// The box's name.
    #[serde(rename = "box")]
    pub name: &'static str,
    /// Its expected points.
    pub expected: f64,
}

/// Explains choices against a solved solitaire table (read from a file, or solved in
/// memory), planning each score state once over all the choices it explains.
pub struct Explainer<'p, 't, V: SolvedValues + Sync> {
    game: Game,
    plans: PlanCache<'p, OptimalPolicy<'t, V>>,
}

impl<'p, 't, V: SolvedValues + Sync> Explainer<'p, 't, V> {
    /// An explainer of `game`'s choices under `policy` ([`OptimalPolicy::solved`]).
    pub fn new(game: Game, policy: &'p OptimalPolicy<'t, V>) -> Explainer<'p, 't, V> {
        Explainer { game, plans: PlanCache::new(policy) }
    }

    /// What the whole card ends with, in expectation, after the choice `within` makes on
    /// `card` (the rest of the game played optimally); stops once `progress` is cancelled.
    pub fn aspects(&self, card: &Card, within: WithinTurn, progress: &dyn Progress) -> Result<Aspects, Cancelled> {
        let (game, rules) = (self.game, self.game.rules);
        let start = Start { state: card.state(), points: card.points(), within: Some(within) };
        let analysis = analyze_from(game, &self.plans, start, progress)?;
        let bonus_before = rules.upper_bonus() > 0 && card.upper_sum() >= rules.upper_threshold();
        let five = Category::Yahtzee;
        let five_of_a_kind = game.categories.contains(five).then(|| match card.boxes[five.index()] {
            Some(points) => f64::from(u8::from(points > 0)),
            None => analysis.box_distribution(five)[1..].iter().sum(),
        });
        Ok(Aspects {
            expected_final: analysis.distribution().mean(),
            upper_bonus: f64::from(u8::from(bonus_before)) + analysis.upper_bonus_probability(),
            five_of_a_kind,
            extra_bonus: f64::from(card.bonus) + analysis.yahtzee_bonus_mean(),
            boxes: game
                .card()
                .map(|c| BoxExpectation {
                    name: rules.box_name(c),
                    expected: card.boxes[c.index()].map_or_else(|| analysis.box_mean(c), f64::from),
                })
                .collect(),
        })
    }
}
