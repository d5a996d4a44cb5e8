//! Brown et al.'s reinforcement-learning agent (`003_…`, §IV-C): a Monte-Carlo action
//! table over an episodic model of the game, after Graham's dice-game framework.
//!
//! **The table.** A key is (the boxes played, the five dice, the action); its value is the
//! sum of the rewards that followed the action and the number of trials, whose quotient the
//! agent maximises. As in the paper the key has no reroll count: the first and the second
//! reroll of a turn share entries. The paper's action is a 5-bit reroll mask; since the dice
//! are sorted, masks that keep the same multiset are the same action, and here an action is
//! the multiset kept (a [`KeepId`] within the roll), which merges those duplicate entries.
//!
//! **The episodic model.** Each turn is its own episode: the reward of both reroll
//! decisions of a turn is the biased score of the box the turn ends in. The box is chosen
//! without learning: the open box with the highest biased score. The paper's biases:
//! −10 on Chance (save it for bad rolls), and 1.666 · s on the upper box of face s "to
//! account for the bonus" (1.666 ≈ 35/21: the 35-point bonus spread over the faces in
//! proportion, so the six add up to 35). We read them as constants added to the box's
//! points whatever the points; the upper bonus itself is not part of the reward (the
//! biases stand for it), an Extra Yahtzee Bonus is.
//!
//! **Training.** Games are played one after another from the table being learnt, so
//! training is sequential and a function of the seed alone. A decision tries every action
//! of its key once before any is repeated, and after that explores a random action with
//! probability [`EXPLORATION`] (the paper plays "all possible actions" without saying how
//! often; this is our choice) and otherwise takes the best mean so far.
//! Published: 54.27 on the 6-round game after 100 million training games.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::RngExt;
use serde::Serialize;
use serde_json::json;

use crate::game::{Category, Game, KeepId, NUM_ROLLS, RollId, Rules, ScoreState};
use crate::simulate::{game_rng, roll_missing};
use crate::solo::policy::SUB_KEEPS;
use crate::solo::{Policy, TurnPlan, analyze};
use crate::store::{self, Checksum, FileKind, TableError};

/// Action-table files (payload below). Version 2: the metadata's identity keys of
/// [`crate::store::Identity`].
pub const KIND: FileKind = FileKind {
    name: "learned-action-table",
    version: 2,
    remedy: "run `yz strategy train` for this game",
    metadata_limit: 16 << 10,
};
/// Probability that a training decision explores a random action.
pub const EXPLORATION: f64 = 0.1;
/// The bias on Chance.
pub const CHANCE_BIAS: f64 = -10.0;
/// The bias per pip of an upper box's face.
pub const UPPER_BIAS_PER_FACE: f64 = 1.666;

/// The biased score of putting `roll` in `category` from `state` (the paper's custom
/// scoring function), or `None` if that box cannot take it.
pub fn biased_score(game: Game, state: ScoreState, category: Category, roll: RollId) -> Option<f64> {
    let scoring = game.score(category, roll, state.filled, state.yahtzee_50)?;
    let bias = match category.upper_face() {
        Some(face) => UPPER_BIAS_PER_FACE * f64::from(face),
        None if category == Category::Chance => CHANCE_BIAS,
        None => 0.0,
    };
    Some(f64::from(scoring.box_points + scoring.yahtzee_bonus) + bias)
}

/// The open box with the highest biased score, ties to the first in card order.
fn best_box(game: Game, state: ScoreState) -> impl Fn(RollId) -> (Category, f64) {
    move |roll| {
        state
            .filled
            .complement()
            .iter()
            .filter_map(|c| Some((c, biased_score(game, state, c, roll)?)))
            .fold(None, |best: Option<(Category, f64)>, (c, v)| match best {
                Some((_, b)) if b >= v => best,
                _ => Some((c, v)),
            })
            .expect("a non-terminal state has an allowed box")
    }
}

/// The action table: reward sums and trial counts by (boxes played, roll, keep).
#[derive(Clone, Debug)]
pub struct ActionTable {
    game: Game,
    totals: Vec<f64>,
    trials: Vec<f64>,
}

impl ActionTable {
    /// An empty table for `game`: `2^n` played sets times the 4,368 (roll, keep within it)
    /// pairs, roll by roll and each roll's keeps in [`KeepId`] order.
    pub fn new(game: Game) -> ActionTable {
        let len = Self::len_for(game);
        ActionTable { game, totals: vec![0.0; len], trials: vec![0.0; len] }
    }

    fn len_for(game: Game) -> usize {
        (1usize << game.categories.len()) * SUB_KEEPS.len()
    }

    /// The game the table is for.
    pub fn game(&self) -> Game {
        self.game
    }

    /// The first entry of `roll`'s actions with the boxes of `state` played.
    fn base(&self, state: ScoreState, roll: RollId) -> usize {
        // The played boxes in play, as an n-bit number in card order.
        let played = self.game.categories.iter().enumerate().filter(|(_, c)| state.filled.contains(*c));
        let played: usize = played.map(|(i, _)| 1 << i).sum();
        played * SUB_KEEPS.len() + SUB_KEEPS.positions(roll).start
    }

    /// The action with the best mean reward (ties to the first in [`KeepId`] order); the
    /// whole roll when no action has been tried.
    pub fn best_keep(&self, state: ScoreState, roll: RollId) -> KeepId {
        let base = self.base(state, roll);
        let mut best: Option<(f64, KeepId)> = None;
        for (a, &keep) in SUB_KEEPS.of(roll).iter().enumerate() {
            if self.trials[base + a] > 0.0 {
                let mean = self.totals[base + a] / self.trials[base + a];
                if best.is_none_or(|(b, _)| mean > b) {
                    best = Some((mean, keep));
                }
            }
        }
        best.map_or(roll.as_keep(), |(_, k)| k)
    }

    /// A training decision: an untried action if any, else a random one with probability
    /// [`EXPLORATION`], else the best. Returns the entry chosen and its keep.
    fn explore(&self, state: ScoreState, roll: RollId, rng: &mut impl rand::Rng) -> (usize, KeepId) {
        let base = self.base(state, roll);
        let actions = SUB_KEEPS.positions(roll);
        let chosen = if let Some(untried) = (0..actions.len()).find(|&a| self.trials[base + a] == 0.0) {
            untried
        } else if rng.random::<f64>() < EXPLORATION {
            rng.random_range(0..actions.len())
        } else {
            let mean = |a: usize| self.totals[base + a] / self.trials[base + a];
            (0..actions.len()).fold(0, |best, a| if mean(a) > mean(best) { a } else { best })
        };
        (base + chosen, SUB_KEEPS.at(actions.start + chosen))
    }

    /// Plays `games` training games (game `i` on the dice of [`game_rng`]`(seed, first + i)`),
    /// adding each turn's biased score to the two reroll decisions that led to it;
    /// `progress` is called with the games done every 2^16 games.
    pub fn train(&mut self, games: u64, seed: u64, first: u64, mut progress: impl FnMut(u64)) {
        let game = self.game;
        for i in 0..games {
            let mut rng = game_rng(seed, first + i);
            let mut state = ScoreState::start(game);
            while !state.is_terminal() {
                let first_roll = roll_missing(KeepId(0), &mut rng);
                let (a, keep) = self.explore(state, first_roll, &mut rng);
                let second_roll = roll_missing(keep, &mut rng);
                let (b, keep) = self.explore(state, second_roll, &mut rng);
                let last = roll_missing(keep, &mut rng);
                let (category, reward) = best_box(game, state)(last);
                for entry in [a, b] {
                    self.totals[entry] += reward;
                    self.trials[entry] += 1.0;
                }
                state = state.score(game, category, last).expect("best_box picks an allowed box").next;
            }
            if (i + 1) % (1 << 16) == 0 {
                progress(i + 1);
            }
        }
    }

    /// Writes the table atomically. Payload: the reward sums, then the trial counts, `f64`
    /// each, by (played set as an n-bit number in card order, roll, keep within the roll in
    /// [`KeepId`] order).
    pub fn write(&self, path: &Path, about: serde_json::Value) -> Result<Checksum, TableError> {
        let mut metadata = KIND.metadata(self.game);
        metadata["entries"] = json!(self.totals.len());
        metadata["biases"] = json!({ "chance": CHANCE_BIAS, "upper_per_face": UPPER_BIAS_PER_FACE });
        metadata["run"] = about;
        let payload: Vec<f64> = self.totals.iter().chain(&self.trials).copied().collect();
        Ok(store::write_atomic(path, KIND.name, &metadata, store::as_bytes(&payload))?)
    }

    /// Reads a table `yz strategy train` wrote for `game`.
    pub fn load(path: &Path, game: Game) -> Result<ActionTable, TableError> {
        // SAFETY: yz replaces store files by rename and never writes one in place.
        let file = unsafe { KIND.open::<TableError>(path, game) }?;
        let values = file.payload_as::<f64>()?;
        let len = Self::len_for(game);
        let corrupted = |detail: String| TableError::Corrupt { path: path.to_path_buf(), what: detail };
        if values.len() != 2 * len {
            return Err(corrupted(format!("it holds {} numbers, the game needs {}", values.len(), 2 * len)));
        }
        let (totals, trials) = values.split_at(len);
        if let Some(bad) = trials.iter().find(|t| !(t.is_finite() && **t >= 0.0 && t.fract() == 0.0)) {
            return Err(corrupted(format!("trial count {bad} is not a whole number")));
        }
        if let Some(bad) = totals.iter().find(|t| !t.is_finite()) {
            return Err(corrupted(format!("reward sum {bad} is not a finite number")));
        }
        Ok(ActionTable { game, totals: totals.to_vec(), trials: trials.to_vec() })
    }
}

/// The default file name of `game`'s action table in a data directory.
pub fn file_name(game: Game) -> String {
    format!("{}.yzs", game.file_stem("learned"))
}

/// The trained agent: best mean action while rerolls are left, best biased box at the end.
#[derive(Clone, Debug)]
pub struct LearnedPolicy {
    table: ActionTable,
}

impl LearnedPolicy {
    /// The agent of a trained table.
    pub fn new(table: ActionTable) -> LearnedPolicy {
        LearnedPolicy { table }
    }

    /// The agent of the table in `path`, trained for `game`.
    pub fn load(path: &Path, game: Game) -> Result<LearnedPolicy, TableError> {
        Ok(LearnedPolicy::new(ActionTable::load(path, game)?))
    }
}

impl Policy for LearnedPolicy {
    fn plan(&self, state: ScoreState) -> TurnPlan {
        let keeps: [KeepId; NUM_ROLLS] = std::array::from_fn(|r| self.table.best_keep(state, RollId(r as u8)));
        let best_box = best_box(self.table.game, state);
        TurnPlan::from_fn(|roll, _| keeps[roll.0 as usize], |roll| best_box(roll).0)
    }

    /// Play never looks at the upper total.
    fn plays_by_state_class(&self) -> bool {
        true
    }
}

/// A trained action table written (`yz strategy train`).
#[derive(Clone, Debug, Serialize)]
pub struct TrainReport {
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// Training games.
    pub games: u64,
    /// Seed of the training dice and exploration.
    pub seed: u64,
    /// The trained agent's exact average score.
    pub exact_mean: f64,
    /// Seconds the training took.
    pub seconds: f64,
    /// Where the table was written.
    pub file: PathBuf,
    /// The file's checksum.
    #[serde(serialize_with = "crate::store::checksum_as_text")]
    pub checksum: Checksum,
}

/// Trains an action table for `game` over `games` games from `seed` (`done` told of the
/// games played so far), writes it to `path`, analyses the trained agent exactly, and
/// reports.
pub fn train_into(
    game: Game,
    games: u64,
    seed: u64,
    path: &Path,
    done: impl FnMut(u64),
) -> Result<TrainReport, TableError> {
    let started = Instant::now();
    let mut table = ActionTable::new(game);
    table.train(games, seed, 0, done);
    let seconds = started.elapsed().as_secs_f64();
    let checksum = table.write(path, json!({ "games": games, "seed": seed, "seconds": seconds }))?;
    let exact_mean = analyze(game, &LearnedPolicy::new(table)).expected_score();
    Ok(TrainReport {
        rules: game.rules,
        categories: game.box_names(),
        games,
        seed,
        exact_mean,
        seconds,
        file: path.to_owned(),
        checksum,
    })
}

impl fmt::Display for TrainReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "rules       {}", self.rules)?;
        writeln!(f, "categories  {}", self.categories.join(","))?;
        writeln!(f, "training    {} games (seed {}) in {:.1} s", self.games, self.seed, self.seconds)?;
        writeln!(f, "agent       exact average {:.4}", self.exact_mean)?;
        write!(f, "file        {} (checksum {})", self.file.display(), self.checksum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Rules, parse_dice};

    #[test]
    fn biases_steer_the_box() {
        let game = Game::full(Rules::NO_BONUS);
        let start = ScoreState::start(game);
        // (3,3,5,5,5): Chance 21 − 10 = 11 loses to Full House 25.
        let roll = parse_dice("3,3,5,5,5").unwrap();
        assert_eq!(best_box(game, start)(roll), (Category::FullHouse, 25.0));
        // Sixes with 6 + 10 beats Ones with 4 + 1.666.
        let upper = Game { rules: Rules::NO_BONUS, categories: Rules::OFFICIAL.first(6).unwrap() };
        let roll = parse_dice("1,1,1,1,6").unwrap();
        assert_eq!(best_box(upper, ScoreState::start(upper))(roll).0, Category::Sixes);
    }
}
