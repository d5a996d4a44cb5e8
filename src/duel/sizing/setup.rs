//! A solve set up before it runs: its options checked against the space, the layers it
//! runs counted, its memory sized (and refused where it cannot fit), the value type chosen.

use std::path::Path;

use super::calibrate::{LayerRate, calibrate};
use super::count::{LayerCount, count_layers_from};
use super::disk::{DiskError, check_disk};
use super::fit::{DoesNotFit, MAX_RANKS, check_fits, draws_are_cheap, value_bytes};
use super::plan::{ByteCosts, DRAW_VALUE_BYTES, PLAIN_VALUE_BYTES, Plan, PlanSpec, plan};
use crate::duel::cluster::budget::Budget;
use crate::duel::cluster::error::{BelowFloor, ClusterError};
use crate::duel::cluster::ranks::Ranks;
use crate::duel::shard::ShardError;
use crate::duel::sweep::options::SolveOptions;
use crate::duel::sweep::outcome::{LayerReport, Outcome};
use crate::duel::sweep::solve::{segments, solve_tables};
use crate::duel::sweep::stream::{Stream, floor};
use crate::duel::{Space, WinDraw};
use crate::progress::Progress;

/// Most times `duel plan` measures each layer's sample.
pub const MAX_CALIBRATION_RUNS: usize = 100;

/// Most memory per rank a plan takes, in GiB (a larger figure is a typo).
pub const MAX_MEM_PER_RANK_GIB: f64 = 1e6;

/// Why a solve or its plan was refused before it started.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SetupError {
    /// `--write` is not `all`, `none` or `K..`.
    #[error("--write {}: expected all, none, or K.. (layer K and those after it)", crate::quote::quote(.0))]
    Write(String),
    /// The last layer to solve is not one of the space.
    #[error("--stop-after-layer {stop_after}: this solve covers layers {first}..={last}")]
    StopAfter {
        /// The layer asked for.
        stop_after: usize,
        /// The space's first layer.
        first: usize,
        /// Its last.
        last: usize,
    },
    /// The layers written start past the last one solved.
    #[error("--write {write}: this solve's last layer is {last}, so it would write nothing (say --write none)")]
    WritesNothing {
        /// The `--write` given.
        write: String,
        /// The last layer.
        last: usize,
    },
    /// A number of ranks outside 1 to [`MAX_RANKS`].
    #[error("--ranks must be 1 to {MAX_RANKS}; got {0}")]
    Ranks(u64),
    /// A rank that is not one of the ranks.
    #[error("--rehearse-rank {rank}: ranks are numbered 0 to {} for --ranks {ranks}", ranks.saturating_sub(1))]
    Rank {
        /// The rank asked for.
        rank: u64,
        /// The number of ranks.
        ranks: u64,
    },
    /// Memory per rank that is not a positive number of GiB up to [`MAX_MEM_PER_RANK_GIB`].
    #[error("--mem-per-rank is in GiB, above 0 and at most 1,000,000; got {0}")]
    MemPerRank(f64),
    /// Calibration runs outside 1 to [`MAX_CALIBRATION_RUNS`].
    #[error("--runs must be 1 to {MAX_CALIBRATION_RUNS}; got {0}")]
    Runs(usize),
    /// `YZ_SHARD_POSITIONS` is not a shard size.
    #[error("{0}")]
    ShardPositions(String),
    /// The solve does not fit the memory of a rank.
    #[error(transparent)]
    DoesNotFit(#[from] DoesNotFit),
    /// `--gpu` in a build without the `gpu` feature.
    #[error("this yz was built without GPU support: build it with `cargo build --release --features gpu` to use --gpu")]
    GpuNotBuilt,
    /// `--gpu` with `--draws`: the GPU kernel carries winning chances only.
    #[error(
        "--gpu solves winning chances only (f32 values without the draw probability): leave out --draws, or solve on the CPU"
    )]
    GpuDraws,
}

impl SolveOptions {
    /// The first layer written, from `all`, `none` or `K..` (layer K and those after it).
    pub fn parse_write(text: &str) -> Result<usize, SetupError> {
        match text.trim() {
            "all" => Ok(0),
            "none" => Ok(usize::MAX),
            other => other
                .strip_suffix("..")
                .and_then(|k| k.trim().parse().ok())
                .ok_or_else(|| SetupError::Write(other.to_owned())),
        }
    }

    /// The options of a solve of `space` that stops after layer `stop_after` (default:
    /// the space's first) and writes the layers `write` names ([`Self::parse_write`]):
    /// refused where the stop is not a layer of the space or nothing would be written
    /// by a request to write something. Fresh tables are cut into shards of the size
    /// `YZ_SHARD_POSITIONS` sets ([`crate::duel::shard::shard_positions_from_env`]).
    /// `draws` is whether to carry the draw probability (none: where it fits).
    pub fn checked(
        space: &Space,
        (resume, force): (bool, bool),
        stop_after: Option<usize>,
        write: &str,
        draws: Option<bool>,
    ) -> Result<SolveOptions, SetupError> {
        let (first, end) = (space.first_layer(), space.end_layer());
        let stop_after = stop_after.unwrap_or(first);
        if !(first..end).contains(&stop_after) {
            return Err(SetupError::StopAfter { stop_after, first, last: end - 1 });
        }
        let write_from = SolveOptions::parse_write(write)?;
        if write_from != usize::MAX && write_from >= end {
            return Err(SetupError::WritesNothing { write: write.to_owned(), last: end - 1 });
        }
        let shard_positions = crate::duel::shard::shard_positions_from_env().map_err(SetupError::ShardPositions)?;
        Ok(SolveOptions { resume, stop_after, write_from, force, shard_positions, draws, stream: None, gpu: false })
    }

    /// The same options solved on the GPU where `gpu` says so: without the draw probability
    /// (the GPU kernel's values are `f32` winning chances), refused with `--draws` and in a
    /// build without the `gpu` feature.
    pub fn on_gpu(self, gpu: bool) -> Result<SolveOptions, SetupError> {
        if !gpu {
            return Ok(self);
        }
        if !cfg!(feature = "gpu") {
            return Err(SetupError::GpuNotBuilt);
        }
        if self.draws == Some(true) {
            return Err(SetupError::GpuDraws);
        }
        Ok(SolveOptions { draws: Some(false), gpu: true, ..self })
    }
}

/// Checks a number of ranks to plan for: 1 to [`MAX_RANKS`].
pub fn check_ranks(ranks: u64) -> Result<u64, SetupError> {
    if ranks == 0 || ranks > MAX_RANKS {
        return Err(SetupError::Ranks(ranks));
    }
    Ok(ranks)
}

/// Checks a rank to rehearse: one of `ranks` (itself checked).
pub fn check_rank(rank: u64, ranks: u64) -> Result<u64, SetupError> {
    check_ranks(ranks)?;
    if rank >= ranks {
        return Err(SetupError::Rank { rank, ranks });
    }
    Ok(rank)
}

/// Memory per rank given in GiB, in bytes: above 0 and at most [`MAX_MEM_PER_RANK_GIB`].
pub fn mem_per_rank_bytes(gib: f64) -> Result<u64, SetupError> {
    if !gib.is_finite() || gib <= 0.0 || gib > MAX_MEM_PER_RANK_GIB {
        return Err(SetupError::MemPerRank(gib));
    }
    Ok((gib * (1u64 << 30) as f64) as u64)
}

/// Checks the number of times each layer's rate is measured: 1 to [`MAX_CALIBRATION_RUNS`].
pub fn check_runs(runs: usize) -> Result<usize, SetupError> {
    if runs == 0 || runs > MAX_CALIBRATION_RUNS {
        return Err(SetupError::Runs(runs));
    }
    Ok(runs)
}

/// A solve sized before it runs: what it runs, and how its values are held.
#[derive(Clone, Debug)]
pub struct Sizing {
    /// The options it runs with.
    pub options: SolveOptions,
    /// The layers it solves, counted, in solve order.
    pub layers: Vec<LayerCount>,
    /// Its plan's figures: ranks, bytes per value, layers written.
    pub spec: PlanSpec,
    /// A streamed solve's reason: what it would need in memory, and what would hold it.
    pub does_not_fit: Option<DoesNotFit>,
}

impl Sizing {
    /// The solve of `space` with `options` on `ranks` ranks of `budget` each (if known).
    /// The draw probability is carried as `options.draws` says, or by default where it
    /// fits ([`value_bytes`]) and the solve is of the game from its start, even when this
    /// run stops early: the run that resumes it to the start reads the draws back.
    pub fn new(space: &Space, options: SolveOptions, ranks: u64, budget: Option<Budget>) -> Sizing {
        let layers = count_layers_from(space, options.stop_after);
        let spec = PlanSpec { ranks, value_bytes: PLAIN_VALUE_BYTES, write_from: options.write_from };
        let from_start = space.first_layer() == 0;
        let value_bytes = match options.draws {
            Some(true) => DRAW_VALUE_BYTES,
            Some(false) => PLAIN_VALUE_BYTES,
            None => value_bytes(&layers, space.cards().boxes(), spec, from_start, budget),
        };
        Sizing { options, layers, spec: PlanSpec { value_bytes, ..spec }, does_not_fit: None }
    }

    /// The solve in memory where it fits the `budget` of each rank, or else, where a
    /// `scratch` directory is given, streamed through it within the budget
    /// ([`crate::duel::sweep::stream`]); else refused with the memory the solve needs in memory
    /// ([`check_fits`]). The streamed solve's floor ([`Sizing::check_floor`]) and the disk
    /// it needs are checked when it starts ([`crate::duel::sweep::solve_tables`]). A streamed solve of the
    /// game from its start carries the draw probability where it is cheap
    /// ([`draws_are_cheap`]) unless `options.draws` says otherwise: it costs disk and work,
    /// not memory.
    pub fn in_budget(
        space: &Space,
        options: SolveOptions,
        ranks: u64,
        budget: Option<Budget>,
        scratch: Option<&Path>,
    ) -> Result<Sizing, SetupError> {
        let sizing = Sizing::new(space, options.clone(), ranks, budget);
        let boxes = space.cards().boxes();
        let refusal = match budget.map(|budget| check_fits(&sizing.layers, boxes, sizing.spec, budget)) {
            None | Some(Ok(_)) => return Ok(sizing),
            Some(Err(refusal)) => refusal,
        };
        let (Some(budget), Some(scratch)) = (budget, scratch) else {
            return Err(refusal.into());
        };
        let draws = options.draws.unwrap_or(space.first_layer() == 0 && draws_are_cheap(&sizing.layers));
        let value_bytes = if draws { DRAW_VALUE_BYTES } else { PLAIN_VALUE_BYTES };
        // Layers whose pair of layers fits the budget stay in memory; the others stream,
        // each run of them at least at its floor.
        let spec = PlanSpec { value_bytes, ..sizing.spec };
        let planned = plan(&sizing.layers, boxes, spec).streamed(budget.per_rank());
        let in_memory: Vec<usize> = planned.layers.iter().filter(|l| !l.streamed).map(|l| l.layer).collect();
        let stream = Stream { budget, scratch: scratch.to_owned(), in_memory };
        let options = SolveOptions { draws: Some(draws), stream: Some(stream), ..options };
        Ok(Sizing { options, layers: sizing.layers, spec, does_not_fit: Some(refusal) })
    }

    /// Whether the solve streams through scratch files.
    pub fn streams(&self) -> bool {
        self.options.stream.is_some()
    }

    /// Positions of the layers solved.
    pub fn positions(&self) -> u64 {
        self.layers.iter().map(|l| l.positions).sum()
    }

    /// The plan of the layers solved: bytes per layer and rank, traffic, and where the
    /// solve streams, its scratch and disk traffic ([`Plan::streamed`]).
    pub fn plan(&self, space: &Space) -> Plan {
        let planned = plan(&self.layers, space.cards().boxes(), self.spec);
        match &self.options.stream {
            Some(stream) => planned.streamed(stream.budget.per_rank()),
            None => planned,
        }
    }

    /// The least memory per rank its streamed layers need, with the layer that needs it
    /// ([`Sizing::stream_floor`]; nothing for a solve in memory), or the refusal of a
    /// streamed solve whose budget is below it.
    pub fn check_floor(&self, space: &Space) -> Result<(u64, usize), BelowFloor> {
        let (needed, layer) = self.stream_floor(space, &self.plan(space).streamed_layers());
        match &self.options.stream {
            Some(stream) if needed > stream.budget.per_rank() => {
                Err(BelowFloor::new(self.spec.ranks, stream.budget, needed, layer))
            }
            _ => Ok((needed, layer)),
        }
    }

    /// The least memory per rank that streams the layers `streamed` of the solve (the
    /// others in memory), with the layer that needs it ([`floor`]).
    pub fn stream_floor(&self, space: &Space, streamed: &[usize]) -> (u64, usize) {
        runs_floor(space, &self.options, self.spec.value_bytes, streamed)
    }

    /// Whether the draw probability rides along with the winning chance.
    pub fn with_draws(&self) -> bool {
        self.spec.value_bytes == DRAW_VALUE_BYTES
    }

    /// Measures the solve rate of every layer ([`calibrate`]) with the value type the solve
    /// will run: winning chances alone, or with the draw probability where it is carried,
    /// which costs more per lane-update. Each sample is timed `runs` times on `cores` cores
    /// at once.
    pub fn calibrate(
        &self,
        space: &Space,
        (lane_updates, runs, cores, seed): (u64, usize, usize, u64),
        progress: &dyn Progress,
    ) -> Vec<LayerRate> {
        if self.with_draws() {
            calibrate::<WinDraw<f32>>(space, &self.layers, lane_updates, (runs, cores), seed, progress)
        } else {
            calibrate::<f32>(space, &self.layers, lane_updates, (runs, cores), seed, progress)
        }
    }

    /// Measures the work around the kernel ([`super::costs::measure`]) on real values of
    /// the game, with the value type the solve will run, writing sample shards into
    /// `scratch` (an empty directory).
    pub fn byte_costs(&self, space: &Space, scratch: &Path) -> Result<ByteCosts, ShardError> {
        if self.with_draws() {
            super::costs::measure::<WinDraw<f32>>(space.cards(), scratch)
        } else {
            super::costs::measure::<f32>(space.cards(), scratch)
        }
    }

    /// The solve into `dir`, refused up front where, checked on `rank` 0 for all (an error
    /// there stops every rank: tables and scratch are on file systems the ranks share),
    /// its tables and scratch do not fit the disk ([`check_disk`]), or where its budget is
    /// below the streamed solve's floor ([`Sizing::check_floor`]). Only a checked solve
    /// runs ([`CheckedSizing::solve`]), so a caller that checks first (to say nothing of a
    /// solve that will not start) checks once.
    pub fn check_resources(&self, space: &Space, rank: usize, dir: &Path) -> Result<CheckedSizing<'_>, ResourceError> {
        // The disk first: it is quick, and the floor takes a layout of every streamed pass.
        if rank == 0 {
            let scratch = self.options.stream.as_ref().map(|s| s.scratch.as_path());
            check_disk(&self.plan(space), dir, scratch)?;
        }
        self.check_floor(space)?;
        Ok(CheckedSizing { sizing: self })
    }
}

/// Why a solve is refused before it starts ([`Sizing::check_resources`]).
#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    /// Its tables and scratch do not fit the disk free for them.
    #[error(transparent)]
    Disk(#[from] DiskError),
    /// Its memory per rank is below what the streamed solve's blocks need.
    #[error(transparent)]
    Budget(#[from] BelowFloor),
}

/// A [`Sizing`] whose memory floor and disk were checked for its table directory
/// ([`Sizing::check_resources`]).
#[derive(Clone, Copy, Debug)]
pub struct CheckedSizing<'a> {
    sizing: &'a Sizing,
}

impl CheckedSizing<'_> {
    /// Runs the solve of `space` over `ranks` into `dir`, the directory it was checked for
    /// ([`solve_tables`]), with the value type sized.
    pub fn solve(
        &self,
        space: &Space,
        ranks: &impl Ranks,
        dir: &Path,
        progress: impl FnMut(&LayerReport),
    ) -> Result<Solution, ClusterError> {
        let options = self.sizing.options.clone();
        Ok(if self.sizing.with_draws() {
            Solution::WithDraws(solve_tables(space, ranks, dir, options, progress)?)
        } else {
            Solution::Plain(solve_tables(space, ranks, dir, options, progress)?)
        })
    }
}

/// The least budget per rank that streams the layers `streamed` of a solve with `options`
/// and values of `value_bytes`, the others in memory: the largest [`floor`] of its runs of
/// streamed layers, cut from the game's end (at least what a resume from any listed layer
/// needs), with the layer that needs it.
fn runs_floor(space: &Space, options: &SolveOptions, value_bytes: u64, streamed: &[usize]) -> (u64, usize) {
    let runs = segments((space.end_layer(), options.stop_after), |layer| streamed.contains(&layer));
    (runs.iter().filter(|run| run.2))
        .map(|&(top, bottom, _)| floor(space, (top, bottom), options.shard_positions, value_bytes))
        .max()
        .unwrap_or((0, options.stop_after))
}

/// A finished solve, in the value type it was sized for.
#[derive(Clone, Debug)]
pub enum Solution {
    /// Winning chances with the draw probability.
    WithDraws(Outcome<WinDraw<f32>>),
    /// Winning chances only.
    Plain(Outcome<f32>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::Cards;
    use crate::duel::sizing::plan::usable;
    use crate::game::{Game, Rules};

    #[test]
    fn gpu_solves_are_refused_with_draws_and_without_the_feature() {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(2).unwrap() });
        let space = Space::whole_game(&cards);
        let options = SolveOptions::whole(&space);
        assert_eq!(options.clone().on_gpu(false).unwrap(), options);
        let with_draws = SolveOptions { draws: Some(true), ..options.clone() }.on_gpu(true);
        if cfg!(feature = "gpu") {
            assert_eq!(with_draws, Err(SetupError::GpuDraws));
            let gpu = options.on_gpu(true).unwrap();
            assert!(gpu.gpu && gpu.draws == Some(false), "{gpu:?}");
        } else {
            assert_eq!(with_draws, Err(SetupError::GpuNotBuilt));
            let message = options.on_gpu(true).unwrap_err().to_string();
            assert!(message.contains("--features gpu"), "{message}");
        }
    }

    #[test]
    fn options_and_figures_are_checked() {
        let cards = Cards::new(Game::first(Rules::OFFICIAL, 3).unwrap());
        let space = Space::whole_game(&cards);
        let options = SolveOptions::checked(&space, (false, false), Some(2), "4..", None).unwrap();
        assert_eq!((options.stop_after, options.write_from), (2, 4));
        assert!(matches!(
            SolveOptions::checked(&space, (false, false), Some(6), "all", None),
            Err(SetupError::StopAfter { .. })
        ));
        assert!(matches!(
            SolveOptions::checked(&space, (false, false), None, "6..", None),
            Err(SetupError::WritesNothing { .. })
        ));
        assert_eq!(SolveOptions::parse_write("3"), Err(SetupError::Write("3".to_owned())));
        assert_eq!(check_ranks(0), Err(SetupError::Ranks(0)));
        assert_eq!(check_rank(4, 4), Err(SetupError::Rank { rank: 4, ranks: 4 }));
        assert_eq!(mem_per_rank_bytes(1.0), Ok(1 << 30));
        assert!(mem_per_rank_bytes(f64::NAN).is_err());
        assert_eq!(check_runs(101), Err(SetupError::Runs(101)));
        let sizing = Sizing::new(&space, SolveOptions::whole(&space), 1, None);
        assert!(sizing.with_draws(), "a small game from the start carries draws");
        let scratch = Some(Path::new("scratch"));
        let fits =
            Sizing::in_budget(&space, SolveOptions::whole(&space), 1, Some(Budget::PerRank(1 << 30)), scratch).unwrap();
        assert!(!fits.streams(), "a game that fits is solved in memory");
        let in_memory = Sizing::in_budget(&space, SolveOptions::whole(&space), 1, Some(Budget::PerRank(10)), None);
        assert!(matches!(in_memory, Err(SetupError::DoesNotFit(_))), "streams only where asked");
        let tiny =
            Sizing::in_budget(&space, SolveOptions::whole(&space), 1, Some(Budget::PerRank(10)), scratch).unwrap();
        assert!(matches!(tiny.check_floor(&space), Err(ref below) if below.needed > 10));
        // Small shards let blocks be smaller than the layers held in memory.
        let cards = Cards::new(Game::first(Rules::OFFICIAL, 5).unwrap());
        let space = Space::whole_game(&cards);
        let small = SolveOptions { shard_positions: 5, ..SolveOptions::whole(&space) };
        let (floor, _) = floor(&space, (space.end_layer(), 0), 5, 8);
        let streamed = Sizing::in_budget(&space, small, 1, Some(Budget::PerRank(floor)), scratch).unwrap();
        assert!(streamed.streams() && streamed.with_draws() && streamed.check_floor(&space).is_ok());
        // Layers whose pair fits stay in memory, the others stream.
        let stream = streamed.options.stream.as_ref().unwrap();
        let planned = plan(&streamed.layers, cards.boxes(), streamed.spec);
        for l in &planned.layers {
            assert_eq!(stream.in_memory.contains(&l.layer), l.bytes_per_rank <= usable(floor), "layer {}", l.layer);
        }
        assert!(!stream.in_memory.is_empty() && stream.in_memory.len() < planned.layers.len(), "{stream:?}");
        // With layers below 6 not written, those stream all together (their rows pass only
        // through frames).
        let top = SolveOptions { write_from: 6, shard_positions: 5, ..SolveOptions::whole(&space) };
        let streamed = Sizing::in_budget(&space, top, 1, Some(Budget::PerRank(floor)), scratch).unwrap();
        let stream = streamed.options.stream.as_ref().unwrap();
        assert!((0..6).all(|layer| !stream.in_memory.contains(&layer)), "{stream:?}");
        assert!(!stream.in_memory.is_empty(), "{stream:?}");
        let plain = SolveOptions { draws: Some(false), ..SolveOptions::whole(&space) };
        assert!(!Sizing::new(&space, plain, 1, None).with_draws(), "--no-draws");
        let endgame = Space::endgame(&cards, 3);
        let forced = SolveOptions { draws: Some(true), ..SolveOptions::whole(&endgame) };
        assert!(Sizing::new(&endgame, forced, 1, None).with_draws(), "--draws in an endgame");
        assert_eq!(sizing.layers.len(), 6);
        assert!(sizing.positions() > 0);
    }
}
