//! The one-turn solve: values of every state after each roll, the best keeps, the chance.

use super::space::{KeepGraph, Notation};
use super::{MAX_ROLL_WORK, Pattern, PatternError, Probability, Setup};

/// The analysis of one turn played for one pattern.
#[derive(Debug, Clone)]
pub struct Solution {
    /// The pattern played for.
    pub pattern: Pattern,
    /// Faces, dice and rolls.
    pub setup: Setup,
    /// What the states are: multiplicity states, or every roll for a straight.
    pub notation: Notation,
    /// The chance of ending the turn with the pattern, playing the best keeps.
    pub probability: Probability,
    /// Every state of the dice after a roll, in display order.
    pub states: Vec<StateRow>,
}

/// One state of the dice after a roll: how likely the first roll is to give it, what it is
/// worth after each roll, and what to keep.
#[derive(Debug, Clone)]
pub struct StateRow {
    /// The state in its notation (`31`, or `1,2,3,4,6`).
    pub label: String,
    /// The chance that the first roll gives this state.
    pub first_roll: Probability,
    /// `values[r - 1]`: the chance of ending with the pattern, playing best, when the state
    /// shows after roll r (r = 1 to rolls; after the last roll, 1 or 0).
    pub values: Vec<Probability>,
    /// `best_keeps[r - 1]`: every keep that reaches `values[r - 1]` after roll r (r = 1 to
    /// rolls − 1), in the notation of the states, fewest kept dice first.
    pub best_keeps: Vec<Vec<String>>,
}

impl Solution {
    /// The row of the state with this label.
    pub fn state(&self, label: &str) -> Option<&StateRow> {
        self.states.iter().find(|row| row.label == label)
    }
}

/// Solves one turn for the pattern: see the [module docs](super) for the method.
pub fn solve(pattern: &Pattern, setup: Setup) -> Result<Solution, PatternError> {
    let scale = setup.checked_denominator()?;
    pattern.check(setup)?;
    let Setup { faces, dice, rolls } = setup;
    let notation = if pattern.symmetric_in_faces() {
        Notation::Multiplicities
    } else {
        let work = KeepGraph::roll_keeps(faces, dice).and_then(|keeps| keeps.checked_mul(u128::from(faces)));
        match work {
            Some(work) if work <= MAX_ROLL_WORK => Notation::Rolls,
            _ => {
                let (pattern, work) = (pattern.to_string(), work.unwrap_or(u128::MAX));
                return Err(PatternError::TooManyRolls { pattern, faces, dice, work, limit: MAX_ROLL_WORK });
            }
        }
    };
    let graph = KeepGraph::new(notation, faces, dice);
    let n = graph.dice();
    let rolls = rolls as usize;

    // values[r - 1][i]: roll i's value after roll r, counted over `scale`.
    let mut values = vec![Vec::new(); rolls];
    values[rolls - 1] =
        (0..graph.level_len(n)).map(|i| if pattern.shown_by(&graph.face_counts(n, i)) { scale } else { 0 }).collect();
    let mut best_keeps = vec![Vec::new(); rolls - 1];
    for roll in (1..rolls).rev() {
        let keeps = keep_values(&graph, &values[roll], faces);
        let best = best_sub_keeps(&graph, &keeps);
        best_keeps[roll - 1] = (0..graph.level_len(n)).map(|i| optimal_keeps(&graph, &keeps, &best, i)).collect();
        values[roll - 1] = best.into_iter().next_back().expect("the rolls' level");
    }
    let probability = Probability::new(keep_values(&graph, &values[0], faces)[0][0], scale);

    let first_roll = first_roll(&graph);
    let first_scale = u128::from(faces).pow(dice);
    let states = (0..graph.level_len(n))
        .map(|i| StateRow {
            label: graph.label(n, i),
            first_roll: Probability::new(first_roll[i], first_scale),
            values: values.iter().map(|row| Probability::new(row[i], scale)).collect(),
            best_keeps: best_keeps.iter().map(|row| row[i].clone()).collect(),
        })
        .collect();
    Ok(Solution { pattern: pattern.clone(), setup, notation: graph.notation(), probability, states })
}

/// The value of every keep before a roll, by level, given the values of the rolls after it
/// (`rolls`, which becomes the top level): a keep of fewer dice is the mean of its one-die
/// extensions (Pawlewicz App. B, eq. 4), computed from the top level down.
fn keep_values(graph: &KeepGraph, rolls: &[u128], faces: u32) -> Vec<Vec<u128>> {
    let n = graph.dice();
    let mut levels = vec![Vec::new(); n + 1];
    levels[n] = rolls.to_vec();
    for k in (0..n).rev() {
        levels[k] = (0..graph.level_len(k))
            .map(|i| {
                let total: u128 = graph.up(k, i).iter().map(|&(w, j)| u128::from(w) * levels[k + 1][j as usize]).sum();
                // Exact: every value is a whole number of the equally likely ways to roll
                // all the dice of all the rolls.
                debug_assert_eq!(total % u128::from(faces), 0);
                total / u128::from(faces)
            })
            .collect();
    }
    levels
}

/// For every state, the best value of a keep inside it (itself included): a running
/// maximum over the states one die smaller, from no dice up (Pawlewicz App. B, eq. 6).
fn best_sub_keeps(graph: &KeepGraph, keeps: &[Vec<u128>]) -> Vec<Vec<u128>> {
    let mut best: Vec<Vec<u128>> = Vec::with_capacity(keeps.len());
    for (k, level) in keeps.iter().enumerate() {
        let row = (0..level.len())
            .map(|i| {
                let inside = graph.down(k, i).iter().map(|&j| best[k - 1][j as usize]);
                inside.fold(level[i], u128::max)
            })
            .collect();
        best.push(row);
    }
    best
}

/// Every keep inside roll i worth the roll's best value, fewest dice first. A keep inside
/// a state is reached by dropping dice one at a time, and every state on the way has the
/// same best value, so the search only enters states whose best value is the roll's.
fn optimal_keeps(graph: &KeepGraph, keeps: &[Vec<u128>], best: &[Vec<u128>], roll: usize) -> Vec<String> {
    let n = graph.dice();
    let target = best[n][roll];
    let mut frontier = vec![roll];
    let mut found = Vec::new();
    for k in (0..=n).rev() {
        found.extend(frontier.iter().filter(|&&i| keeps[k][i] == target).map(|&i| (k, i)));
        if k == 0 {
            break;
        }
        let mut below: Vec<usize> = frontier
            .iter()
            .flat_map(|&i| graph.down(k, i).iter().map(|&j| j as usize))
            .filter(|&j| best[k - 1][j] == target)
            .collect();
        below.sort_unstable();
        below.dedup();
        frontier = below;
    }
    found.sort_unstable();
    found.into_iter().map(|(k, i)| graph.label(k, i)).collect()
}

/// How many of the `faces^dice` equally likely first rolls give each state, rolling the dice
/// one at a time from no dice.
fn first_roll(graph: &KeepGraph) -> Vec<u128> {
    let mut ways = vec![1u128];
    for k in 0..graph.dice() {
        let mut next = vec![0u128; graph.level_len(k + 1)];
        for (i, &count) in ways.iter().enumerate() {
            for &(w, j) in graph.up(k, i) {
                next[j as usize] += count * u128::from(w);
            }
        }
        ways = next;
    }
    ways
}
