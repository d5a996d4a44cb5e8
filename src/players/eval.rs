//! The two evaluation functions of Pawlewicz §4.1 and §4.3: each player's target curve read
//! as the distribution of its final score, and what the players' distributions together
//! say about each player's prospects.

use crate::targets::Curve;

/// A player's final score, read from its target curve as if it were a distribution
/// (Pawlewicz §4.1): P(final = s) = P(≥ s) − P(≥ s + 1), with P(≥ s) the curve's maximum
/// probability of reaching `s` shifted by the points already on the card.
///
/// The mean of such a "distribution" exceeds what any strategy averages (every threshold is
/// reached by its own best strategy), but every player's is inflated alike, which is why it
/// ranks positions well.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalScore {
    /// The lowest final score with positive weight.
    lowest: i64,
    /// `mass[k]`: P(final = lowest + k).
    mass: Vec<f64>,
    /// `below[k]`: P(final < lowest + k), for k in 0..=mass.len().
    below: Vec<f64>,
}

impl FinalScore {
    /// The final score of a player with `points` on the card whose state's curve (at the
    /// start of its turn, or of a finished card) is `curve`.
    pub fn from_curve(curve: &Curve<f32>, points: u32) -> FinalScore {
        // The curve is 1 up to `first − 1` more points, so the final score is at least
        // `points + first − 1`, and 0 beyond `first + values.len() − 1` more.
        let first = i64::from(curve.first.max(1));
        let lowest = i64::from(points) + first - 1;
        let reach = |more: i64| f64::from(curve.at(more));
        let mass: Vec<f64> = (first - 1..first + curve.values.len() as i64).map(|x| reach(x) - reach(x + 1)).collect();
        FinalScore::from_mass(lowest, mass)
    }

    /// A final score with P(final = `lowest` + k) = `mass[k]` (the masses sum to 1).
    pub fn from_mass(lowest: i64, mass: Vec<f64>) -> FinalScore {
        let mut below = Vec::with_capacity(mass.len() + 1);
        let mut sum = 0.0;
        below.push(0.0);
        for &m in &mass {
            sum += m;
            below.push(sum);
        }
        FinalScore { lowest, mass, below }
    }

    /// P(final = s).
    pub fn exactly(&self, s: i64) -> f64 {
        usize::try_from(s - self.lowest).ok().and_then(|k| self.mass.get(k)).copied().unwrap_or(0.0)
    }

    /// P(final < s).
    pub fn below(&self, s: i64) -> f64 {
        match usize::try_from(s - self.lowest) {
            Err(_) => 0.0,
            Ok(k) => self.below[k.min(self.mass.len())],
        }
    }

    /// P(final ≥ s): the target curve shifted by the points on the card.
    pub fn at_least(&self, s: i64) -> f64 {
        let total = self.below.last().copied().unwrap_or(0.0);
        total - self.below(s)
    }

    /// The scores `lowest..=highest` outside which the mass is 0.
    fn support(&self) -> std::ops::RangeInclusive<i64> {
        self.lowest..=self.lowest + self.mass.len() as i64 - 1
    }
}

/// Which evaluation function a searching player maximises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Evaluation {
    /// EvalEMP (Pawlewicz §4.1): expected match points, [`expected_match_points`].
    ExpectedMatchPoints,
    /// EvalDynS (Pawlewicz §4.3, Eq. 1): [`dynamic_score`].
    DynamicScore,
}

impl Evaluation {
    /// Each player's value of the position whose final scores are `scores`.
    pub fn values(self, scores: &[FinalScore]) -> Vec<f64> {
        match self {
            Evaluation::ExpectedMatchPoints => expected_match_points(scores),
            Evaluation::DynamicScore => dynamic_score(scores),
        }
    }
}

/// EvalEMP: each player's expected match points, Σ over opponents of P(beat them) +
/// ½ P(tie with them), the scores independent. With `n` players and ties sharing their
/// ranks, a player's expected rank (1 the best) is `n − EMP`, so maximising one is
/// minimising the other (Pawlewicz's footnote 3); two players' values add up to 1.
pub fn expected_match_points(scores: &[FinalScore]) -> Vec<f64> {
    (0..scores.len())
        .map(|i| {
            let me = &scores[i];
            scores
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, other)| {
                    me.support().zip(&me.mass).map(|(s, &p)| p * (other.below(s) + 0.5 * other.exactly(s))).sum::<f64>()
                })
                .sum()
        })
        .collect()
}

/// EvalDynS (Pawlewicz Eq. 1): for each player, max over target scores `s` of P(reach s) ·
/// Σ over opponents of (1 − P(they reach s)): the expected number of opponents beaten by a
/// player who aims at `s` against opponents who each aim at `s` too.
pub fn dynamic_score(scores: &[FinalScore]) -> Vec<f64> {
    let lowest = scores.iter().map(|f| *f.support().start()).min().unwrap_or(0);
    let highest = scores.iter().map(|f| *f.support().end()).max().unwrap_or(0);
    (0..scores.len())
        .map(|i| {
            (lowest..=highest)
                .map(|s| {
                    let missed: f64 =
                        scores.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, o)| 1.0 - o.at_least(s)).sum();
                    scores[i].at_least(s) * missed
                })
                .fold(0.0, f64::max)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_reads_as_a_shifted_distribution() {
        // P(≥ 1) = 1, P(≥ 2) = 0.5, P(≥ 3) = 0.25, then 0: final = 10 + {1, 2, 3}.
        let curve = Curve { first: 2, values: vec![0.5f32, 0.25] };
        let f = FinalScore::from_curve(&curve, 10);
        assert_eq!((f.exactly(10), f.exactly(11), f.exactly(12), f.exactly(13)), (0.0, 0.5, 0.25, 0.25));
        assert_eq!((f.at_least(11), f.at_least(12), f.at_least(14)), (1.0, 0.5, 0.0));
        // A finished card: its points, surely.
        let done = FinalScore::from_curve(&Curve { first: 1, values: vec![] }, 7);
        assert_eq!((done.exactly(7), done.below(7), done.at_least(7)), (1.0, 0.0, 1.0));
    }
}
