//! Glenn's category-values heuristic with values found by a genetic algorithm (Glenn 2007,
//! §III-B.1, the "Category Means Heuristic (from GA)" of Table VII: 243.63).
//!
//! **The strategy.** A turn is played to maximise the points it earns (upper bonus and
//! Extra Yahtzee Bonus included when this move earns them) plus Glenn's Eq. 13 as printed,
//! the sum of thirteen numbers s(c) over the open boxes, with no bonus term: the reading
//! [`BoxValues`] implements (the `means` strategies add a bonus estimate to the same sum,
//! [`super::anchors::CategoryMeans`]).
//!
//! **The search.** Glenn used "a simple genetic algorithm" and found that a large
//! population evaluated on few games (256 individuals, 100 games each) did best. Ours:
//! - individuals are one number per box; the first generation draws s(c) uniformly between 0
//!   and the most the box can hold;
//! - fitness is the mean score of [`EvolveParams::sample`] simulated games. All
//!   individuals of a generation play the same dice (common random numbers), so their
//!   ranking is far less noisy than their absolute fitness; each generation has new dice;
//! - the [`ELITES`] fittest pass unchanged (and are measured again on the next dice); every
//!   other child has two parents, each the fittest of [`TOURNAMENT`] drawn at random,
//!   takes each number from either parent (uniform crossover), and each number moves with
//!   probability [`MUTATION_RATE`] by a normal step whose size shrinks geometrically from
//!   [`MUTATION_STEP`] points in the first generation to [`FINAL_MUTATION_STEP`] in the
//!   last, so that the search settles;
//! - the champion is chosen exactly: the fittest [`EvolveParams::finalists`] of the last
//!   generation, the fittest of each of the last `finalists` generations, and the centroid
//!   of the last generation's fitter half (which averages out the mutations' noise) are
//!   analysed ([`crate::solo::analyze`]) and the best average wins;
//! - then, unless [`EvolveParams::polish`] is 0, the champion is polished by an exact
//!   coordinate search (a memetic step the noisy fitness cannot take): each box's
//!   number is moved up and down by a step, every candidate analysed exactly, the best
//!   improvement kept until none is left; then the step halves, from [`POLISH_STEP`]
//!   points, `polish` times in all. Simulation finds the region, exact analysis its top.
//!
//! The run is a function of its parameters and seed alone, whatever the thread count.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::RngExt;
use rayon::prelude::*;
use serde::Serialize;

use super::anchors::BoxValues;
use crate::game::{Category, Game, RollId, Rules};
use crate::simulate::{PlanCache, game_rng, play_game};
use crate::solo::{OptimalPolicy, analyze};
use crate::store::{self, Checksum, FileKind, TableError};

/// Evolved-values files. Payload: one `f64` per box of the card, card order. Version 2:
/// the metadata's identity keys of [`crate::store::Identity`].
pub const KIND: FileKind = FileKind {
    name: "evolved-anchors",
    version: 2,
    remedy: "run `yz strategy evolve` for this game",
    metadata_limit: 16 << 10,
};
/// Individuals copied unchanged into the next generation.
pub const ELITES: usize = 2;
/// Individuals drawn for each parent; the fittest of them is the parent.
pub const TOURNAMENT: usize = 3;
/// Probability that a child's number is mutated.
pub const MUTATION_RATE: f64 = 0.15;
/// Standard deviation of a mutation in the first generation, in points.
pub const MUTATION_STEP: f64 = 3.0;
/// Standard deviation of a mutation in the last generation, in points.
pub const FINAL_MUTATION_STEP: f64 = 0.5;

/// First step of the exact polish, in points.
pub const POLISH_STEP: f64 = 1.0;
/// Most improvements the polish takes at one step size (each costs 26 exact analyses).
const POLISH_ROUNDS_PER_STEP: usize = 16;

/// How long and how wide the genetic algorithm searches.
#[derive(Clone, Copy, Debug)]
pub struct EvolveParams {
    /// Generations after the first.
    pub generations: usize,
    /// Individuals per generation (at least [`ELITES`] + 1).
    pub population: usize,
    /// Games each individual plays per generation.
    pub sample: u64,
    /// Seed of the dice and of the genetic operators.
    pub seed: u64,
    /// How many candidates of the last generation(s) are analysed exactly for the champion.
    pub finalists: usize,
    /// Step sizes of the exact polish of the champion (from [`POLISH_STEP`], halving); 0
    /// keeps the genetic algorithm's champion as it is.
    pub polish: usize,
}

impl EvolveParams {
    /// Checks the parameters against what a run can do: at least [`ELITES`] + 1
    /// individuals, and each count within a bound that keeps the run to hours, not years.
    pub fn check(&self) -> Result<(), String> {
        let within = |name: &str, value: u64, range: std::ops::RangeInclusive<u64>| {
            if range.contains(&value) {
                Ok(())
            } else {
                Err(format!("--{name} must be {} to {}; got {value}", range.start(), range.end()))
            }
        };
        within("generations", self.generations as u64, 0..=10_000)?;
        within("population", self.population as u64, ELITES as u64 + 1..=100_000)?;
        within("sample", self.sample, 1..=10_000_000)?;
        within("polish", self.polish as u64, 0..=30)
    }
}

/// One generation's fitness, as simulated.
#[derive(Clone, Debug, Serialize)]
pub struct GenerationReport {
    /// 0 for the random first generation.
    pub generation: usize,
    /// Best simulated mean of the generation.
    pub best_fitness: f64,
    /// Mean simulated mean of the generation.
    pub mean_fitness: f64,
    /// The fittest individual.
    #[serde(skip)]
    pub best: BoxValues,
}

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct Evolution {
    /// The finalist with the best exact average.
    pub champion: BoxValues,
    /// Its exact average score.
    pub champion_mean: f64,
    /// Every finalist with its exact average, best first (before the polish).
    pub finalists: Vec<(BoxValues, f64)>,
    /// Exact analyses the polish ran.
    pub polish_analyses: usize,
    /// Each generation's simulated fitness.
    pub history: Vec<GenerationReport>,
}

/// The most a box can hold by its printed pattern: the range of the first generation.
fn box_maximum(game: Game, c: Category) -> f64 {
    RollId::all().map(|r| game.rules.points(c, r)).max().unwrap_or(0) as f64
}

/// Numbers for the boxes of `game`'s card, drawn by `number(box)` in card order (the
/// other boxes hold 0).
fn per_card_box(game: Game, mut number: impl FnMut(Category) -> f64) -> BoxValues {
    let mut values = [0.0; crate::game::MAX_BOXES];
    for &c in game.rules.card() {
        values[c.index()] = number(c);
    }
    BoxValues(values)
}

/// Mean score of `anchors` over `sample` games on the dice of `generation`.
fn fitness(game: Game, anchors: &BoxValues, params: &EvolveParams, generation: usize) -> f64 {
    let policy = OptimalPolicy::solved(game, anchors);
    let cache = PlanCache::new(&policy);
    let total: u64 = (0..params.sample)
        .map(|j| u64::from(play_game(game, &cache, &mut game_rng(params.seed, (generation as u64) << 32 | j))))
        .sum();
    total as f64 / params.sample as f64
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut impl rand::Rng) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    let v: f64 = rng.random();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Runs the genetic algorithm on `game`, calling `report` after each generation.
///
/// # Panics
/// If the population is smaller than [`ELITES`] + 1 or the sample is empty (the CLI checks).
pub fn evolve(game: Game, params: EvolveParams, mut report: impl FnMut(&GenerationReport)) -> Evolution {
    assert!(params.population > ELITES && params.sample > 0, "population > {ELITES} and sample > 0");
    // The genetic operators draw from their own stream family, apart from the dice.
    let mut rng = game_rng(params.seed ^ 0x9e37_79b9_7f4a_7c15, 0);
    let mut population: Vec<BoxValues> =
        (0..params.population).map(|_| per_card_box(game, |c| rng.random::<f64>() * box_maximum(game, c))).collect();
    let mut history = Vec::new();
    let mut ranked = Vec::new();
    for generation in 0..=params.generations {
        let scores: Vec<f64> = population.par_iter().map(|a| fitness(game, a, &params, generation)).collect();
        let mut order: Vec<usize> = (0..population.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let entry = GenerationReport {
            generation,
            best_fitness: scores[order[0]],
            mean_fitness: scores.iter().sum::<f64>() / scores.len() as f64,
            best: population[order[0]],
        };
        report(&entry);
        history.push(entry);
        ranked = order.iter().map(|&i| population[i]).collect();
        if generation == params.generations {
            break;
        }
        let tournament = |rng: &mut rand::rngs::ChaCha8Rng| {
            (0..TOURNAMENT).map(|_| rng.random_range(0..order.len())).min().map_or(0, |rank| order[rank])
        };
        let progress = generation as f64 / params.generations as f64;
        let step = MUTATION_STEP * (FINAL_MUTATION_STEP / MUTATION_STEP).powf(progress);
        let mut next: Vec<BoxValues> = ranked[..ELITES].to_vec();
        while next.len() < params.population {
            let (a, b) = (population[tournament(&mut rng)], population[tournament(&mut rng)]);
            next.push(per_card_box(game, |c| {
                let gene = if rng.random::<bool>() { a.0[c.index()] } else { b.0[c.index()] };
                if rng.random::<f64>() < MUTATION_RATE { gene + step * normal(&mut rng) } else { gene }
            }));
        }
        population = next;
    }
    let fitter_half = &ranked[..ranked.len().div_ceil(2)];
    let centroid =
        BoxValues(std::array::from_fn(|c| fitter_half.iter().map(|a| a.0[c]).sum::<f64>() / fitter_half.len() as f64));
    let mut candidates: Vec<BoxValues> = ranked.iter().take(params.finalists.max(1)).copied().collect();
    candidates.push(centroid);
    for entry in history.iter().rev().take(params.finalists) {
        if !candidates.contains(&entry.best) {
            candidates.push(entry.best);
        }
    }
    let mut finalists: Vec<(BoxValues, f64)> = candidates
        .into_iter()
        .map(|a| {
            let mean = exact_mean(game, &a);
            (a, mean)
        })
        .collect();
    finalists.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (champion, champion_mean, polish_analyses) = polish(game, finalists[0], params.polish);
    Evolution { champion, champion_mean, finalists, polish_analyses, history }
}

/// The exact average of playing by `anchors`.
fn exact_mean(game: Game, anchors: &BoxValues) -> f64 {
    analyze(game, &OptimalPolicy::solved(game, anchors)).expected_score()
}

/// Exact coordinate search from `start` (values, exact mean) over `steps` halving step
/// sizes; returns the best values, their mean and the analyses run.
fn polish(game: Game, start: (BoxValues, f64), steps: usize) -> (BoxValues, f64, usize) {
    let (mut best, mut best_mean) = start;
    let mut analyses = 0;
    for halving in 0..steps {
        let step = POLISH_STEP * 0.5f64.powi(halving as i32);
        for _ in 0..POLISH_ROUNDS_PER_STEP {
            let candidates: Vec<BoxValues> = game
                .card()
                .map(Category::index)
                .flat_map(|c| {
                    [step, -step].map(|delta| {
                        let mut moved = best;
                        moved.0[c] += delta;
                        moved
                    })
                })
                .collect();
            let means: Vec<f64> = candidates.par_iter().map(|a| exact_mean(game, a)).collect();
            analyses += candidates.len();
            // The first of equal means, so that the search does not depend on the threads.
            let Some((i, &mean)) = means.iter().enumerate().rev().max_by(|a, b| a.1.total_cmp(b.1)) else { break };
            if mean <= best_mean {
                break;
            }
            (best, best_mean) = (candidates[i], mean);
            tracing::info!(step, mean, "polish: improved");
        }
    }
    (best, best_mean, analyses)
}

/// The default file name of `game`'s evolved values in a data directory.
pub fn file_name(game: Game) -> String {
    format!("{}.yzs", game.file_stem("evolved"))
}

/// Writes `anchors`, evolved for `game`, atomically to `path`; `about` (parameters,
/// exact average) is kept in the metadata.
pub fn write(path: &Path, game: Game, anchors: &BoxValues, about: serde_json::Value) -> Result<Checksum, TableError> {
    let mut metadata = KIND.metadata(game);
    metadata["anchors"] = anchors.to_json(game.rules);
    metadata["run"] = about;
    Ok(store::write_atomic(path, KIND.name, &metadata, store::as_bytes(&anchors.on_card(game.rules)))?)
}

/// Reads the values `yz strategy evolve` wrote for `game`.
pub fn load(path: &Path, game: Game) -> Result<BoxValues, TableError> {
    // SAFETY: yz replaces store files by rename and never writes one in place.
    let file = unsafe { KIND.open::<TableError>(path, game) }?;
    let values = file.payload_as::<f64>()?;
    let corrupted = |detail: String| TableError::Corrupt { path: path.to_path_buf(), what: detail };
    let boxes = game.rules.card().len();
    let anchors = BoxValues::from_card(game.rules, values)
        .ok_or_else(|| corrupted(format!("it holds {} values, not one per box ({boxes})", values.len())))?;
    if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
        return Err(corrupted(format!("value {bad} is not a finite number")));
    }
    Ok(anchors)
}
/// An evolved strategy written (`yz strategy evolve`).
#[derive(Clone, Debug, Serialize)]
pub struct EvolveReport {
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// How the search ran.
    #[serde(skip)]
    pub params: EvolveParams,
    /// The champion's anchors, by box name.
    pub champion: serde_json::Value,
    /// The champion's anchors, in card order (for the text).
    #[serde(skip)]
    pub anchors: Vec<(&'static str, f64)>,
    /// The champion's exact average score.
    pub exact_mean: f64,
    /// Every finalist's anchors and exact average, best first (before the polish).
    pub finalists: Vec<Finalist>,
    /// The genetic algorithm's best exact average, before the polish.
    pub genetic_mean: f64,
    /// Exact analyses the polish ran.
    pub polish_analyses: usize,
    /// Each generation's simulated fitness.
    pub history: Vec<GenerationReport>,
    /// Seconds the search took.
    pub seconds: f64,
    /// Where the champion was written.
    pub file: PathBuf,
    /// The file's checksum.
    #[serde(serialize_with = "crate::store::checksum_as_text")]
    pub checksum: Checksum,
}

/// A finalist of the search, with its exact average.
#[derive(Clone, Debug, Serialize)]
pub struct Finalist {
    /// Its anchors, by box name.
    pub anchors: serde_json::Value,
    /// Its exact average score.
    pub exact_mean: f64,
}

/// Evolves anchors for `game` ([`evolve`], `generation` told of each generation), writes
/// the champion to `path` with the run's parameters, and reports.
pub fn evolve_into(
    game: Game,
    params: EvolveParams,
    path: &Path,
    generation: impl FnMut(&GenerationReport),
) -> Result<EvolveReport, TableError> {
    let started = Instant::now();
    let evolution = evolve(game, params, generation);
    let seconds = started.elapsed().as_secs_f64();
    let EvolveParams { generations, population, sample, seed, finalists, polish } = params;
    let about = serde_json::json!({
        "generations": generations, "population": population, "sample": sample, "seed": seed,
        "finalists": finalists, "polish": polish, "exact_mean": evolution.champion_mean, "seconds": seconds,
    });
    let checksum = write(path, game, &evolution.champion, about)?;
    Ok(EvolveReport {
        rules: game.rules,
        categories: game.box_names(),
        params,
        champion: evolution.champion.to_json(game.rules),
        anchors: game.categories.iter().map(|c| (c.name(), evolution.champion.0[c.index()])).collect(),
        exact_mean: evolution.champion_mean,
        finalists: (evolution.finalists.iter())
            .map(|(a, mean)| Finalist { anchors: a.to_json(game.rules), exact_mean: *mean })
            .collect(),
        genetic_mean: evolution.finalists[0].1,
        polish_analyses: evolution.polish_analyses,
        history: evolution.history,
        seconds,
        file: path.to_owned(),
        checksum,
    })
}

impl fmt::Display for EvolveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let EvolveParams { generations, population, sample, seed, .. } = self.params;
        writeln!(f, "rules       {}", self.rules)?;
        writeln!(f, "categories  {}", self.categories.join(","))?;
        writeln!(f, "search      {generations} generations of {population}, {sample} games each (seed {seed})")?;
        writeln!(
            f,
            "champion    exact average {:.4} ({:.4} from the genetic algorithm, then {} exact analyses of the polish)",
            self.exact_mean, self.genetic_mean, self.polish_analyses
        )?;
        for (name, anchor) in &self.anchors {
            writeln!(f, "  s({name:<7}) {anchor:>9.4}")?;
        }
        writeln!(f, "time        {:.1} s", self.seconds)?;
        write!(f, "file        {} (checksum {})", self.file.display(), self.checksum)
    }
}
