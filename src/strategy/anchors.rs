//! Strategies that play each turn for its points plus an estimate of the state it leads to
//! (Glenn 2007 §III-B): optimal play with the exact values, and with cheap estimates the
//! greedy strategy, the category means heuristics and the evolved category values.
//!
//! Glenn's `X̂` estimates the value of an anchor, a score state at the start of a turn. The
//! turn is then played as the optimal strategy plays it against `X̂`, which is
//! [`OptimalPolicy::new`] with `X̂` as the [`FutureValue`]. The points of a turn are what
//! the card gains: the box, the upper bonus when the turn crosses 63, and an Extra Yahtzee
//! Bonus; an estimate adds only what is still to come.
//!
//! Two readings of Glenn's category values live here, as two types:
//! - [`BoxValues`], Eq. 13 as printed: the sum of numbers `s(c)` over the open boxes,
//!   with no bonus term. The genetic algorithm ([`super::evolve`]) searches these numbers.
//! - [`CategoryMeans`], Eqs. 12 and 13 with Glenn's bonus adjustment: the same sum of box
//!   means plus the upper bonus times an estimate of the chance of earning it. The `means`,
//!   `means-iter` and `means-var` strategies play it.
//!
//! The first depends on the upper total only through the points of the move at hand, so it
//! is [`SolvedValues`] and analysed one state per upper-total class; the second looks at the
//! exact upper total and is not.

use super::PerBox;
use crate::game::{ALL_CATEGORIES, Game, Rules, ScoreState};
use crate::solo::{Analysis, FutureValue, OptimalPolicy, Policy, SolvedValues, TurnPlan, analyze};

/// Plays each turn for its points plus `values` of the state after it.
#[derive(Clone, Debug)]
pub struct Anchored<V> {
    game: Game,
    values: V,
    by_state_class: bool,
}

impl<V: FutureValue + Sync> Policy for Anchored<V> {
    fn plan(&self, state: ScoreState) -> TurnPlan {
        OptimalPolicy::new(self.game, &self.values).plan(state)
    }

    fn plays_by_state_class(&self) -> bool {
        self.by_state_class
    }
}

impl<V: FutureValue> Anchored<V> {
    /// Plays against `values`, each upper total analysed on its own.
    pub fn new(game: Game, values: V) -> Anchored<V> {
        Anchored { game, values, by_state_class: false }
    }
}

impl<V: SolvedValues> Anchored<V> {
    /// Plays against `values` that are equal for the upper totals
    /// [`crate::game::StateIndex`] merges; as [`OptimalPolicy::solved`], the analysis then
    /// visits one state per class ([`Policy::plays_by_state_class`]).
    pub fn solved(game: Game, values: V) -> Anchored<V> {
        Anchored { game, values, by_state_class: true }
    }
}

/// Optimal play from a solved table of `game` (in memory or on disk).
pub fn optimal<V: SolvedValues>(game: Game, table: V) -> Anchored<V> {
    Anchored::solved(game, table)
}

/// Anchor values all zero: the most points this turn.
#[derive(Clone, Copy, Debug)]
pub struct Zero;

impl FutureValue for Zero {
    fn future_value(&self, _: ScoreState) -> f64 {
        0.0
    }
}

/// The same (zero) for every upper total. A turn's points depend on the upper total only
/// through the bonus being crossed, which merged totals share: they need the same smallest
/// future upper sum for the bonus, so every sum crosses 63 from both or from neither.
impl SolvedValues for Zero {}

/// The greedy strategy: the most points this turn, upper bonus and Extra Yahtzee Bonus
/// included (Glenn's `X̂ = 0`).
pub fn greedy(game: Game) -> Anchored<Zero> {
    Anchored::solved(game, Zero)
}

/// Glenn's Eq. 13 as printed: a state is worth the sum of the numbers `s(c)` of its open
/// boxes in play (boxes not in play count as filled), by card index.
///
/// As Glenn does for Eq. 13 ("for simplicity we will now ignore the adjustments for
/// bonuses"), there is no bonus term: the upper total and the Yahtzee flag affect play only
/// through the points of the move at hand. Adding a constant to every `s(c)` changes no
/// decision (every move closes exactly one box), so twelve of the thirteen numbers matter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxValues(pub PerBox);

impl FutureValue for BoxValues {
    fn future_value(&self, state: ScoreState) -> f64 {
        state.filled.complement().iter().map(|c| self.0[c.index()]).sum()
    }
}

/// The sum does not look at the upper total at all, and the points of a move are equal for
/// merged totals (see [`Zero`]).
impl SolvedValues for BoxValues {}

impl BoxValues {
    /// `{ "ones": s, … }` for the boxes of the `rules`' card, in card order.
    pub fn to_json(&self, rules: Rules) -> serde_json::Value {
        rules.card().iter().map(|c| (c.name().to_string(), serde_json::json!(self.0[c.index()]))).collect()
    }

    /// The numbers of the boxes of the `rules`' card, in card order.
    pub fn on_card(&self, rules: Rules) -> Vec<f64> {
        rules.card().iter().map(|c| self.0[c.index()]).collect()
    }

    /// The values of `numbers`, one per box of the `rules`' card in card order (0 for the
    /// boxes not on it); `None` if the count differs.
    pub fn from_card(rules: Rules, numbers: &[f64]) -> Option<BoxValues> {
        let mut values = [0.0; crate::game::MAX_BOXES];
        if numbers.len() != rules.card().len() {
            return None;
        }
        for (c, &v) in rules.card().iter().zip(numbers) {
            values[c.index()] = v;
        }
        Some(BoxValues(values))
    }
}

/// Glenn's category means estimate (Eqs. 12 and 13): a state is worth the means `s(c)` of
/// its open boxes, plus the upper bonus times an estimate of the chance that the open upper
/// boxes still earn it.
///
/// Glenn adds that "adjustments can be made to estimate the probability of earning any
/// bonuses", more accurately with the variances too, and gives no formula. Our reading:
///
/// - from the means alone, the bonus counts as earned when the open upper boxes' means
///   add up to at least what it still needs (Eqs. 12 and 13);
/// - with the variances, their sum is taken as normal with the sum of their means and of
///   their variances, read at `needed − ½` since it is an integer (the continuity
///   correction), and 0 when five of every open face would not reach it;
/// - a bonus already earned, or one no open upper box is left for, adds nothing.
///
/// The adjustment matters: on the official game plain Eq. 12 (no bonus term) averages
/// 234.88, the means-only adjustment 225.58 against Glenn's 225.40, and the iterated
/// sequence follows Glenn's up and down only with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CategoryMeans {
    rules: Rules,
    means: BoxValues,
    variances: Option<PerBox>,
}

impl CategoryMeans {
    /// The estimate from the means alone: Eq. 13 with `s = means` (Eq. 12 with Table III's),
    /// the upper bonus as `rules` pay it.
    pub fn new(rules: Rules, means: PerBox) -> CategoryMeans {
        CategoryMeans { rules, means: BoxValues(means), variances: None }
    }

    /// The estimate from the means and variances of every box.
    pub fn with_variances(rules: Rules, means: PerBox, variances: PerBox) -> CategoryMeans {
        CategoryMeans { rules, means: BoxValues(means), variances: Some(variances) }
    }

    /// The estimated chance that the open upper boxes of `state` earn the upper bonus.
    pub fn upper_bonus_chance(&self, state: ScoreState) -> f64 {
        let open_upper: Vec<_> = state.filled.complement().iter().filter_map(|c| Some((c, c.upper_face()?))).collect();
        let needed = self.rules.upper_threshold().saturating_sub(state.upper_total as u32);
        let most = open_upper.iter().map(|&(_, face)| 5 * face as u32).sum::<u32>();
        if needed == 0 || most < needed {
            return 0.0;
        }
        let mean: f64 = open_upper.iter().map(|&(c, _)| self.means.0[c.index()]).sum();
        let Some(variances) = &self.variances else {
            return if mean >= needed as f64 { 1.0 } else { 0.0 };
        };
        let variance: f64 = open_upper.iter().map(|&(c, _)| variances[c.index()]).sum();
        let margin = needed as f64 - 0.5 - mean;
        if variance == 0.0 {
            return if margin < 0.0 { 1.0 } else { 0.0 };
        }
        0.5 * libm::erfc(margin / variance.sqrt() / std::f64::consts::SQRT_2)
    }
}

impl FutureValue for CategoryMeans {
    fn future_value(&self, state: ScoreState) -> f64 {
        self.means.future_value(state) + self.rules.upper_bonus() as f64 * self.upper_bonus_chance(state)
    }
}

/// The category means heuristic against `estimate`.
pub fn means(game: Game, estimate: CategoryMeans) -> Anchored<CategoryMeans> {
    // The bonus estimate depends on the exact upper total, not only on its class.
    Anchored::new(game, estimate)
}

/// Glenn's iteration of Eq. 13 from the box means `start`: round 0 plays them, each further
/// round the box means the round before scored. Returns the estimate of round `rounds` and
/// the exact expected scores of rounds `0..rounds` (Glenn: 225.40, 236.56, 232.27, 235.79).
pub fn iterate_means(game: Game, start: PerBox, rounds: u32) -> (CategoryMeans, Vec<f64>) {
    let mut estimate = CategoryMeans::new(game.rules, start);
    let mut averages = Vec::new();
    for round in 0..rounds {
        let analysis = analyze(game, &means(game, estimate));
        averages.push(analysis.expected_score());
        tracing::info!(round, expected = analysis.expected_score(), "means-iter round analysed");
        estimate = CategoryMeans::new(game.rules, super::box_means(&analysis));
    }
    (estimate, averages)
}

/// The category means heuristic with variances, from a strategy's statistics (the optimal
/// strategy's: Glenn's Table III).
pub fn means_var(game: Game, statistics: &Analysis) -> Anchored<CategoryMeans> {
    let variances = ALL_CATEGORIES.map(|c| statistics.box_variance(c));
    means(game, CategoryMeans::with_variances(game.rules, super::box_means(statistics), variances))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Category, Rules};

    #[test]
    fn box_values_sum_the_open_boxes_in_play() {
        let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(3).unwrap() };
        let values = BoxValues(std::array::from_fn(|c| c as f64 + 1.0));
        let start = ScoreState::start(game);
        assert_eq!(values.future_value(start), 1.0 + 2.0 + 3.0);
        let later = ScoreState { filled: start.filled.with(Category::Twos), ..start };
        assert_eq!(values.future_value(later), 1.0 + 3.0);
    }
}
