//! `yz duel`: two players, maximum winning chance.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use serde_json::json;

use super::progress::Bar;
use super::{GameArgs, print_json, print_report};
use yz::duel::cluster::Ranks;
use yz::duel::cluster::budget::Budget;
use yz::duel::covering::{self, Asked};
use yz::duel::sizing::count::CountReport;
use yz::duel::sizing::estimate::{GpuAsk, Measure, plan_solve};
use yz::duel::sizing::job::{Nodes, PlannedJob};
use yz::duel::sizing::plan::ASSUMED_PCIE_BYTES_PER_SECOND;
use yz::duel::sizing::setup::{Sizing, Solution, check_rank, check_ranks, mem_per_rank_bytes};
use yz::duel::source::{Position, TableLookup, table_dir};
use yz::duel::sweep::{LayerReport, SolveOptions, SolveReport, StartValue, resumed_game};
use yz::duel::units::gib;
use yz::duel::units::group;
use yz::duel::{Cards, Space};
use yz::game::RollsLeft;
use yz::game::{Game, RollId, parse_dice};
use yz::sys::{memory_limit, rank_memory};

/// Two-player commands.
#[derive(Subcommand)]
pub enum DuelCommand {
    /// Count the positions of every layer, exactly, by bound classes (no pair is enumerated).
    Count {
        #[command(flatten)]
        game: GameArgs,
        #[command(flatten)]
        scope: Scope,
    },
    /// Solve every position backward, layer by layer, and write the layers as shards.
    Solve {
        #[command(flatten)]
        game: GameArgs,
        #[command(flatten)]
        scope: Scope,
        /// Table directory [default: duel-RULES-MASK-SCOPE in the data directory].
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Continue an interrupted solve from the last layer its manifest lists (every
        /// listed shard is checked first); starts afresh where there is no manifest.
        #[arg(long)]
        resume: bool,
        #[command(flatten)]
        layers: LayerArgs,
        /// Replace tables of another game or scope found in the output directory (without
        /// it, the solve refuses them and says what is there).
        #[arg(long)]
        force: bool,
        /// Memory a rank may use, in GiB. Where the layers do not fit it, the solve
        /// streams them in blocks through --scratch; a solve whose tables and scratch do
        /// not fit the free disk is refused before it starts [default: MemAvailable, or the
        /// Slurm allocation, shared by the node's ranks].
        #[arg(long, value_name = "GIB")]
        mem_per_rank: Option<f64>,
        /// Solve on the GPU (one per rank): winning chances without draws, files identical
        /// to a CPU solve's, layers held in memory or streamed; needs a build with
        /// `--features gpu`.
        #[arg(long)]
        gpu: bool,
        /// Scratch directory of a streamed solve, seen by every rank; removed when the solve
        /// finishes, kept for --resume [default: $TMPDIR under Slurm with one node, else
        /// scratch/ in --out].
        #[arg(long, value_name = "DIR")]
        scratch: Option<PathBuf>,
    },
    /// The mover's winning chance (P(win) + ½ P(draw)) at the start of a turn.
    Value {
        #[command(flatten)]
        game: GameArgs,
        #[command(flatten)]
        position: PositionArgs,
    },
    /// Rank every keep (rolls left 1 or 2) or every open box (rolls left 0) by winning chance.
    Advise {
        #[command(flatten)]
        game: GameArgs,
        #[command(flatten)]
        position: PositionArgs,
        /// The five dice, e.g. 13356 or 1,3,3,5,6.
        #[arg(long)]
        dice: String,
        /// Rerolls still allowed this turn: 2 after the first roll, 0 to choose a box.
        #[arg(long, value_name = "R")]
        rolls_left: RollsLeft,
    },
    /// Exact move errors (Pawlewicz §4.2): the winning chance strategies give away at each
    /// decision of typical games (EMP(1) with noise), by open boxes at the turn.
    MoveErrors(super::move_errors::MoveErrorsArgs),
    /// Size a solve: per-layer positions, bytes per layer and rank, traffic, core-hours.
    Plan {
        #[command(flatten)]
        game: GameArgs,
        #[command(flatten)]
        scope: Scope,
        /// MPI ranks to spread the cards over.
        #[arg(long, default_value_t = 1024)]
        ranks: u64,
        /// Memory each rank may use, in GiB.
        #[arg(long, default_value_t = 64.0)]
        mem_per_rank: f64,
        #[command(flatten)]
        layers: LayerArgs,
        #[command(flatten)]
        calibration: Calibration,
        #[command(flatten)]
        job: Box<JobArgs>,
        /// Instead of measuring rates, build rank R's real partition and layout structures
        /// at every layer (no values computed) and report their measured bytes beside the
        /// plan's figures: the plan's memory claim, measured on one machine.
        #[arg(long, value_name = "R")]
        rehearse_rank: Option<u64>,
    },
}

/// How `duel plan` measures each layer's rate.
#[derive(Args)]
pub struct Calibration {
    /// Lane-updates of each layer's sample of real pairs (a run takes about this over the
    /// rate: about 0.1 s per layer on a current core).
    #[arg(long, value_name = "LANE_UPDATES", default_value_t = 1_000_000_000)]
    sample: u64,
    /// Times each layer's sample is measured; the spread between runs is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Cores that each solve a copy of the sample at once while it is timed, so that the
    /// rate is a busy core's, as in a solve on every core (default: all this process may use).
    #[arg(long, value_name = "CORES")]
    calibrate_cores: Option<usize>,
    /// Where streamed layers' scratch frames would go: the disk bandwidth is measured
    /// there (default: a temporary directory).
    #[arg(long, value_name = "DIR")]
    scratch: Option<PathBuf>,
    /// Disk bandwidth per node for scratch and tables, in GB/s (default: measured on the
    /// scratch directory); machines with a stated disk keep theirs.
    #[arg(long, value_name = "GB_PER_S")]
    disk_gbps: Option<f64>,
    /// Price the solve on nodes of GPUs too, at each layer's rate measured on this
    /// machine's GPU (built with `--features gpu`; `YZ_GPU=host` measures the kernel's
    /// source on the host, slowly, to check the measurement).
    #[arg(long, conflicts_with = "gpu_rate")]
    gpu: bool,
    /// Lane-updates each GPU's sample takes with `--gpu`.
    #[arg(long, value_name = "LANE_UPDATES", default_value_t = 300_000_000_000, requires = "gpu")]
    gpu_sample: u64,
    /// Price the solve on nodes of GPUs at this rate per GPU, measured elsewhere (lane-updates
    /// per second, every layer), instead of measuring one here.
    #[arg(long, value_name = "LANE_UPDATES_PER_S")]
    gpu_rate: Option<f64>,
    /// Bytes per second between host and GPU with `--gpu-rate`, in GB/s (default 25: half
    /// of PCIe 5.0 x16).
    #[arg(long, value_name = "GB_PER_S", requires = "gpu_rate")]
    pcie_gbps: Option<f64>,
}

/// The batch job `duel plan` sizes, where its nodes are given (`scripts/submit` asks the
/// scheduler for what it reports).
#[derive(Args)]
pub struct JobArgs {
    /// Size a batch job of this many nodes (`--ranks` must be nodes × tasks per node): its
    /// memory per rank, whether it streams, and the time limits of the solve and of the
    /// verify after it, or why those nodes cannot run it.
    #[arg(long, value_name = "NODES")]
    job_nodes: Option<u64>,
    /// Ranks on each node of the job (with GPUs, one per GPU).
    #[arg(long, value_name = "TASKS", default_value_t = 1, requires = "job_nodes")]
    job_tasks_per_node: u64,
    /// Cores of each rank of the job [a node's CPUs over its ranks].
    #[arg(long, value_name = "CPUS", requires = "job_nodes")]
    job_cpus_per_task: Option<u64>,
    /// Cores of a node, where known: the job's ranks and cores must fit one.
    #[arg(long, value_name = "CPUS", requires = "job_nodes")]
    job_node_cpus: Option<u64>,
    /// Memory of a node, in MiB, where known: a rank asks for at most its share.
    #[arg(long, value_name = "MIB", requires = "job_nodes")]
    job_node_mem_mib: Option<u64>,
    /// `--mem-per-rank` was chosen by the user (asked for as it is), not a node's share.
    #[arg(long, requires = "job_nodes")]
    job_mem_given: bool,
    /// The partition's time limit, in Slurm's syntax ("2-00:00:00", "infinite").
    #[arg(long, value_name = "TIME", requires = "job_nodes")]
    job_max_time: Option<String>,
    /// The solve's time limit was given (a longer planned time is not refused).
    #[arg(long, requires = "job_nodes")]
    job_time_given: bool,
    /// Each node's disk for tables and scratch, in TB.
    #[arg(long, value_name = "TB", requires = "job_nodes")]
    job_disk_per_node: Option<f64>,
    /// Each rank runs its turns on a GPU, priced at `--gpu-rate`.
    #[arg(long, requires_all = ["job_nodes", "gpu_rate"])]
    job_gpus: bool,
}

impl JobArgs {
    /// The job's nodes, where given.
    fn nodes(&self) -> Option<Nodes> {
        let count = self.job_nodes?;
        let nodes = Nodes {
            count,
            tasks_per_node: self.job_tasks_per_node,
            cpus_per_task: self.job_cpus_per_task,
            node_cpus: self.job_node_cpus,
            node_mem_mib: self.job_node_mem_mib,
            mem_given: self.job_mem_given,
            max_time: self.job_max_time.clone(),
            time_given: self.job_time_given,
            disk_per_node_tb: self.job_disk_per_node,
            gpus: self.job_gpus,
        };
        Some(nodes)
    }
}

/// Which layers a solve runs and writes.
#[derive(Args)]
pub struct LayerArgs {
    /// Solve from the last layer down to layer K only, then stop cleanly (`--resume`
    /// continues later): a job can solve the last layers of a large game.
    #[arg(long, value_name = "K")]
    stop_after_layer: Option<usize>,
    /// Which solved layers to write as shards: all, none, or K.. (layer K and those after
    /// it). Layers not written need no disk, but a resume can only continue from a
    /// written one.
    #[arg(long, value_name = "LAYERS", default_value = "all")]
    write: String,
    /// Carry the draw probability beside each winning chance (8 bytes a value instead of
    /// 4, and more work per position), so that a solve from the start reports P(win),
    /// P(draw) and P(lose); refused where it does not fit [default: where it fits, for a
    /// solve from the start].
    #[arg(long, conflicts_with = "no_draws")]
    draws: bool,
    /// Carry winning chances only.
    #[arg(long)]
    no_draws: bool,
}

impl LayerArgs {
    /// The options of a solve of `space`.
    fn options(&self, space: &Space, resume: bool, force: bool) -> Result<SolveOptions> {
        let draws = (self.draws || self.no_draws).then_some(self.draws);
        Ok(SolveOptions::checked(space, (resume, force), self.stop_after_layer, &self.write, draws)?)
    }
}

/// Which positions of the game.
#[derive(Args)]
pub struct Scope {
    /// Only positions with at most K boxes open on both cards together (endgames).
    #[arg(long, value_name = "K")]
    max_empty: Option<usize>,
}

impl Scope {
    fn space<'a>(&self, cards: &'a Cards) -> Result<Space<'a>> {
        Ok(Space::with_max_empty(cards, self.max_empty)?)
    }
}

/// A position between turns.
#[derive(Args)]
pub struct PositionArgs {
    /// The mover's card: filled boxes with their scores, e.g. ones=3,fh=25 ("" for none).
    #[arg(long, allow_hyphen_values = true)]
    me: String,
    /// The opponent's card, with as many filled boxes as the mover's or one more.
    #[arg(long, allow_hyphen_values = true)]
    opp: String,
    /// Mover's total minus the opponent's [default: from the two cards' points].
    #[arg(long, allow_hyphen_values = true)]
    diff: Option<i32>,
    /// Table directory to read [default: any solved tables of the game in the data directory].
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Solve the positions below on the GPU where no table holds them (a build with
    /// `--features gpu`): the same values, bit for bit.
    #[arg(long)]
    gpu: bool,
}

impl PositionArgs {
    fn lookup<'p>(&'p self, data: &'p Path) -> TableLookup<'p> {
        TableLookup {
            given: self.tables.as_deref(),
            data,
            on_the_fly: yz::duel::source::ON_THE_FLY_POSITIONS,
            gpu: self.gpu,
        }
    }

    /// The position in the game the flags name or, without any, the game of the tables
    /// that cover it (said on standard error); `after_turn` for advice.
    fn ask(&self, game: &GameArgs, data: &Path, after_turn: bool) -> Result<Asked> {
        let cards = (self.me.as_str(), self.opp.as_str(), self.diff);
        let asked = covering::ask(&game.flags(), cards, self.lookup(data), after_turn)?;
        if let Some(found) = &asked.found {
            eprintln!("using {found}; pass --rules/--first/--categories to choose the game");
        }
        Ok(asked)
    }
}

/// Runs one `yz duel` command.
pub fn run(command: DuelCommand, data: &Path, as_json: bool) -> Result<()> {
    match command {
        DuelCommand::Count { game, scope } => count(game.game()?, &scope, as_json),
        DuelCommand::MoveErrors(args) => super::move_errors::run(args, data, as_json),
        DuelCommand::Plan { game, scope, ranks, mem_per_rank, layers, calibration, job, rehearse_rank } => {
            match rehearse_rank {
                Some(rank) => rehearse(game.game()?, &scope, &layers, (ranks, mem_per_rank), rank, as_json),
                None => plan(game.game()?, &scope, &layers, (ranks, mem_per_rank), (&calibration, &job), as_json),
            }
        }
        DuelCommand::Solve { game: flags, scope, out, resume, layers, force, mem_per_rank, gpu, scratch } => {
            let memory = Memory { mem_per_rank, scratch, gpu };
            let named = flags.game()?;
            let dir = out.unwrap_or_else(|| table_dir(data, named, scope.max_empty));
            // A resume continues the tables there, whatever game flags were left out.
            let resumed = if resume { resumed_game(&dir, &flags.flags(), scope.max_empty)? } else { None };
            let (game, max_empty) = resumed.unwrap_or((named, scope.max_empty));
            solve_tables(game, &Scope { max_empty }, &layers, &dir, (resume, force), &memory, as_json)
        }
        DuelCommand::Value { game, position } => {
            let Asked { cards, position: p, .. } = position.ask(&game, data, false)?;
            let started = Instant::now();
            let (value, values) = yz::duel::source::value(&cards, &p, position.lookup(data), &Bar::new(as_json))?;
            let source = values.origin().to_string();
            let seconds = started.elapsed().as_secs_f64();
            if as_json {
                print_json(json!({
                    "game": p.me.game.describe(), "game_flags": p.me.game.flags().to_string(),
                    "me": p.me.to_string(), "opp": p.opp.to_string(), "diff": p.diff,
                    "value": value, "source": source, "seconds": seconds,
                }));
            } else {
                println!("{}", game_and_source(&p, &source));
                println!("mover {:?} vs {:?}, difference {}", p.me.to_string(), p.opp.to_string(), p.diff);
                println!("winning chance  {value:.6}  (P(win) + P(draw)/2, {seconds:.2} s)");
            }
            Ok(())
        }
        DuelCommand::Advise { game, position, dice, rolls_left } => {
            let roll = parse_dice(&dice)?;
            let Asked { cards, position: p, .. } = position.ask(&game, data, true)?;
            let (ranked, values) =
                yz::duel::source::advise(&cards, &p, roll, rolls_left, position.lookup(data), &Bar::new(as_json))?;
            print_advice(&p, roll, rolls_left, (&ranked, &values.origin().to_string()), as_json);
            Ok(())
        }
    }
}

/// "game: official, first 4 boxes (--first 4); values from tables in DIR": every answer
/// names its game and where its values came from.
fn game_and_source(p: &Position, source: &str) -> String {
    let game = p.me.game;
    let flags = game.flags().to_string();
    let flags = if flags.is_empty() { "the full game, no game flags".to_owned() } else { flags };
    format!("game: {} ({flags}); values from {source}", game.describe())
}

fn print_advice(
    p: &Position,
    roll: RollId,
    rolls_left: RollsLeft,
    (ranked, source): (&[yz::game::Valued], &str),
    as_json: bool,
) {
    let best = ranked.first().map_or(0.0, |r| r.value);
    if as_json {
        let mut advice = json!(yz::duel::source::DuelAdviceJson::new(p, roll, rolls_left, ranked));
        advice["source"] = json!(source);
        print_json(advice);
        return;
    }
    println!("{}", game_and_source(p, source));
    println!(
        "mover {:?} vs {:?}, difference {}, dice {roll}, rolls left {rolls_left}",
        p.me.to_string(),
        p.opp.to_string(),
        p.diff
    );
    println!("  {:<24} {:>10}  {:>9}", "choice", "win chance", "gap");
    for r in ranked {
        let what = match r.points {
            Some(points) => format!("{} for {points}", r.choice.describe(p.me.game.rules)),
            None => r.choice.describe(p.me.game.rules),
        };
        println!("  {what:<24} {:>10.6}  {:>9.6}", r.value, best - r.value);
    }
}

fn count(game: Game, scope: &Scope, as_json: bool) -> Result<()> {
    let cards = Cards::new(game);
    print_report(&CountReport::count(&scope.space(&cards)?, &Bar::new(as_json)), as_json);
    Ok(())
}

/// `duel solve`'s memory per rank and scratch directory, as given, and whether it runs on
/// the GPU.
struct Memory {
    mem_per_rank: Option<f64>,
    scratch: Option<PathBuf>,
    gpu: bool,
}

/// Runs the solve on the ranks this build has: the MPI world (feature `mpi`), else this
/// process alone. In an MPI job a rank that fails reports itself and aborts the job.
#[allow(clippy::too_many_arguments)]
fn solve_tables(
    game: Game,
    scope: &Scope,
    layers: &LayerArgs,
    dir: &Path,
    (resume, force): (bool, bool),
    memory: &Memory,
    as_json: bool,
) -> Result<()> {
    #[cfg(feature = "mpi")]
    {
        let world = yz::duel::cluster::mpi::World::init()?;
        let result = solve_on(&world, game, scope, layers, dir, (resume, force), memory, as_json);
        world.stop_on_error(result)
    }
    #[cfg(not(feature = "mpi"))]
    {
        yz::duel::cluster::launch::check(1, false, |name| std::env::var(name).ok())?;
        solve_on(&yz::duel::cluster::Alone, game, scope, layers, dir, (resume, force), memory, as_json)
    }
}

#[allow(clippy::too_many_arguments)]
fn solve_on(
    ranks: &impl Ranks,
    game: Game,
    scope: &Scope,
    layer_args: &LayerArgs,
    dir: &Path,
    (resume, force): (bool, bool),
    memory: &Memory,
    as_json: bool,
) -> Result<()> {
    let started = Instant::now();
    let cards = Cards::new(game);
    let space = scope.space(&cards)?;
    let options = layer_args.options(&space, resume, force)?.on_gpu(memory.gpu)?;
    let budget = match memory.mem_per_rank {
        Some(gib) => Some(Budget::PerRank(mem_per_rank_bytes(gib)?)),
        None => rank_memory(|name| std::env::var(name).ok(), memory_limit()).map(Budget::Machine),
    };
    let scratch = memory.scratch.clone().unwrap_or_else(|| {
        yz::duel::sweep::stream::default_scratch(dir, |name| std::env::var(name).ok(), ranks.size())
    });
    let sizing = Sizing::in_budget(&space, options.clone(), ranks.size() as u64, budget, Some(&scratch))?;
    let positions = sizing.positions();
    let context = || format!("table directory {}", dir.display());
    // Refused before anything is said of it.
    let checked = sizing.check_resources(&space, ranks.rank(), dir).with_context(context)?;
    if let Some(refusal) = sizing.does_not_fit.as_ref().filter(|_| ranks.rank() == 0 && !as_json) {
        let fits = refusal.would_fit().map_or_else(String::new, |w| format!("; in memory it would fit {w}"));
        eprintln!(
            "streaming: {}; solving in blocks of at most {:.3} GiB a rank through {}{fits}",
            refusal.needs(),
            gib(refusal.budget.per_rank()),
            scratch.display()
        );
    }
    // A line per layer on rank 0's standard error, whatever --json says (the JSON goes to
    // standard output): a batch job's log shows how far the solve is and when it may end.
    let total_layers = sizing.layers.len();
    let (mut done, mut positions_done, mut seconds_done) = (0, 0u64, 0.0);
    let progress = |report: &LayerReport| {
        done += 1;
        positions_done += report.positions;
        seconds_done += report.seconds;
        if ranks.rank() == 0 {
            eprintln!("{}", layer_line(report, done, total_layers, positions_done, positions, seconds_done));
        }
    };
    let outcome = match checked.solve(&space, ranks, dir, progress).with_context(context)? {
        Solution::WithDraws(outcome) => outcome.map_first(StartValue::with_draws),
        Solution::Plain(outcome) => outcome.map_first(|v| StartValue::plain(v as f64)),
    };
    if ranks.rank() != 0 {
        return Ok(());
    }
    let streamed = (sizing.streams(), budget.map(Budget::per_rank));
    let seconds = started.elapsed().as_secs_f64();
    let stop = (options.stop_after, positions);
    print_report(&SolveReport::new(&space, stop, outcome, dir.to_owned(), ranks.size(), streamed, seconds), as_json);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
/// A layer's progress line: its size and time, the rate, and the time left at the rate so
/// far (positions of later layers cost about the same, so the estimate is rough).
fn layer_line(
    report: &LayerReport,
    done: usize,
    layers: usize,
    positions_done: u64,
    positions: u64,
    seconds_done: f64,
) -> String {
    let rate = positions_done as f64 / seconds_done.max(1e-9);
    let left = positions.saturating_sub(positions_done) as f64 / rate;
    format!(
        "layer {:>2} ({done}/{layers}): {} position{} in {:.2} s, {:.3e} positions/s; {:.1}% done, about {} left{}",
        report.layer,
        group(report.positions),
        if report.positions == 1 { "" } else { "s" },
        report.seconds,
        rate,
        100.0 * positions_done as f64 / positions.max(1) as f64,
        yz::progress::duration_words(left),
        if report.written { "" } else { " (not written)" }
    )
}

fn plan(
    game: Game,
    scope: &Scope,
    layer_args: &LayerArgs,
    (ranks, mem_per_rank): (u64, f64),
    (calibration, job): (&Calibration, &JobArgs),
    as_json: bool,
) -> Result<()> {
    check_ranks(ranks)?;
    let cards = Cards::new(game);
    let space = scope.space(&cards)?;
    let options = layer_args.options(&space, false, false)?;
    let measure = Measure {
        sample: calibration.sample,
        runs: calibration.runs,
        cores: calibration.calibrate_cores,
        scratch: calibration.scratch.clone(),
        disk_gbps: calibration.disk_gbps,
        gpu: match (calibration.gpu, calibration.gpu_rate) {
            (true, _) => Some(GpuAsk::Measure { sample: calibration.gpu_sample }),
            (false, Some(rate)) => Some(GpuAsk::Given {
                lane_updates_per_second: rate,
                pcie_bytes_per_second: calibration.pcie_gbps.map_or(ASSUMED_PCIE_BYTES_PER_SECOND, |g| g * 1e9),
            }),
            (false, None) => None,
        },
    };
    let measuring = |layers| {
        if !as_json {
            eprintln!("measuring the solve rate of each of the {layers} layers on a sample of its pairs ...");
        }
    };
    let report = plan_solve(&space, options, (ranks, mem_per_rank), &measure, measuring, &Bar::new(as_json))?;
    match job.nodes() {
        Some(nodes) => print_report(&PlannedJob::new(report, &nodes), as_json),
        None => print_report(&report, as_json),
    }
    Ok(())
}

/// `duel plan --rehearse-rank` of a solve that streams: every pass as rank `rank` runs it.
fn rehearse_streamed(
    game: Game,
    space: &Space,
    sizing: &Sizing,
    (ranks, rank): (u64, u64),
    (budget, in_memory): (u64, &[usize]),
    started: Instant,
    as_json: bool,
) -> Result<()> {
    let spec = sizing.spec;
    let draws = spec.value_bytes == yz::duel::sizing::plan::DRAW_VALUE_BYTES;
    if !as_json {
        eprintln!("building rank {rank}'s passes at {ranks} ranks of {:.1} GiB, streamed ...", gib(budget));
    }
    let rehearsal = yz::duel::sizing::rehearse::rehearse_streamed(
        space,
        (ranks as usize, rank as usize),
        (sizing.options.stop_after, in_memory),
        (budget, spec.value_bytes, draws),
        sizing.options.shard_positions,
    )?;
    let seconds = started.elapsed().as_secs_f64();
    if as_json {
        print_json(json!({
            "rules": game.rules.name(),
            "categories": game.box_names(),
            "rank": rank,
            "ranks": ranks,
            "mem_per_rank_bytes": budget,
            "draws": draws,
            "streamed": true,
            "passes": rehearsal.passes,
            "largest_gather_round_bytes": rehearsal.largest_gather_round_bytes,
            "largest_gather_bytes": rehearsal.largest_gather_bytes,
            "most_scratch_files_in_one_directory": rehearsal.most_scratch_files_in_one_directory,
            "seconds": seconds,
        }));
        return Ok(());
    }
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    println!("rules       {}", game.rules);
    println!("categories  {}", game.box_names().join(","));
    println!("rank        {rank} of {ranks}, streamed: blocks, done records and gathers built for real");
    println!();
    println!(
        "  {:>5} {:>7} {:>7} {:>8} {:>9} {:>7} {:>9} {:>10} {:>10} {:>8}",
        "reads", "blocks", "mine", "balance", "block", "frames", "record", "gather", "round", "scratch"
    );
    println!(
        "  {:>5} {:>7} {:>7} {:>8} {:>9} {:>7} {:>9} {:>10} {:>10} {:>8}",
        "layer", "", "", "", "GiB", "a file", "KiB", "MiB", "MiB", "files"
    );
    for p in &rehearsal.passes {
        println!(
            "  {:>5} {:>7} {:>7} {:>8.3} {:>9.3} {:>7} {:>9.1} {:>10.2} {:>10.2} {:>8}",
            p.upper,
            p.blocks,
            p.rank_blocks,
            p.balance,
            gib(p.largest_block_bytes),
            p.frames_per_block,
            p.largest_done_record_bytes as f64 / 1024.0,
            mib(p.gather_bytes),
            mib(p.largest_gather_round_bytes),
            p.scratch_files
        );
    }
    println!();
    println!(
        "largest gather      {:.2} MiB at one pass's end, {:.2} MiB in one round (MPI's limit: 2048 MiB)",
        mib(rehearsal.largest_gather_bytes),
        mib(rehearsal.largest_gather_round_bytes)
    );
    println!("scratch files       {} at most in one directory", rehearsal.most_scratch_files_in_one_directory);
    println!("seconds             {seconds:.1}");
    Ok(())
}

/// `duel plan --rehearse-rank`: one rank's structures at every layer (or, where the budget
/// streams, every pass), measured.
fn rehearse(
    game: Game,
    scope: &Scope,
    layer_args: &LayerArgs,
    (ranks, mem_per_rank): (u64, f64),
    rank: u64,
    as_json: bool,
) -> Result<()> {
    check_rank(rank, ranks)?;
    let started = Instant::now();
    let cards = Cards::new(game);
    let space = scope.space(&cards)?;
    let options = layer_args.options(&space, false, false)?;
    let budget = Budget::PerRank(mem_per_rank_bytes(mem_per_rank)?);
    let scratch = std::env::temp_dir();
    let streamed = Sizing::in_budget(&space, options.clone(), ranks, Some(budget), Some(&scratch))?;
    if let Some(stream) = &streamed.options.stream {
        let budget = stream.budget.per_rank();
        return rehearse_streamed(
            game,
            &space,
            &streamed,
            (ranks, rank),
            (budget, &stream.in_memory),
            started,
            as_json,
        );
    }
    let sizing = Sizing::new(&space, options.clone(), ranks, None);
    let (counts, spec) = (&sizing.layers, sizing.spec);
    let plan = sizing.plan(&space);
    if !as_json {
        eprintln!("building rank {rank}'s structures of {} layers at {ranks} ranks ...", counts.len());
    }
    // The manifest goes into a directory of its own, removed when the rehearsal ends.
    let manifest_dir = tempfile::tempdir().context("creating a directory for the rehearsed manifest")?;
    let draws = spec.value_bytes == yz::duel::sizing::plan::DRAW_VALUE_BYTES;
    let rehearsal = yz::duel::sizing::rehearse::rehearse(
        &space,
        (ranks as usize, rank as usize),
        options.stop_after,
        (spec.value_bytes, draws),
        options.shard_positions,
        manifest_dir.path(),
    )?;
    let layers = &rehearsal.layers;
    let peak = |f: fn(&yz::duel::sizing::rehearse::RankLayer) -> u64| layers.iter().map(f).max().unwrap_or(0);
    let (peak_layout, peak_total) = (peak(|l| l.layout_bytes), peak(|l| l.layout_bytes + l.value_bytes));
    let seconds = started.elapsed().as_secs_f64();
    if as_json {
        print_json(json!({
            "rules": game.rules.name(),
            "categories": game.box_names(),
            "rank": rank,
            "ranks": ranks,
            "plan": plan,
            "rehearsal": layers,
            "manifest_shards": rehearsal.manifest_shards,
            "manifest_bytes": rehearsal.manifest_bytes,
            "largest_gather_round_bytes": rehearsal.largest_gather_round_bytes,
            "largest_gather_bytes": rehearsal.largest_gather_bytes,
            "most_scratch_files_in_one_directory": 0,
            "streamed": false,
            "peak_layout_bytes": peak_layout,
            "peak_bytes": peak_total,
            "seconds": seconds,
        }));
        return Ok(());
    }
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    println!("rules       {}", game.rules);
    println!("categories  {}", game.box_names().join(","));
    println!("rank        {rank} of {ranks}: structures built for real, values counted (not computed)");
    println!();
    println!(
        "  {:>5} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11} {:>11} {:>7}",
        "layer",
        "shapes",
        "shares",
        "computed",
        "kept",
        "held",
        "segments",
        "outputs",
        "layout",
        "plan layout",
        "values",
        "seconds"
    );
    println!(
        "  {:>5} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11} {:>11}",
        "", "MiB", "MiB", "tile MiB", "tile MiB", "tile MiB", "MiB", "MiB", "MiB", "MiB", "GiB"
    );
    for (l, p) in layers.iter().zip(&plan.layers) {
        println!(
            "  {:>5} {:>10.1} {:>9.2} {:>9.1} {:>9.1} {:>9.1} {:>9.2} {:>9.1} {:>11.1} {:>11.1} {:>11.3} {:>7.2}",
            l.layer,
            mib(l.shape_bytes),
            mib(l.shares_bytes),
            mib(l.computed_tile_bytes),
            mib(l.kept_tile_bytes),
            mib(l.held_tile_bytes),
            mib(l.segment_bytes),
            mib(l.output_bytes),
            mib(l.layout_bytes),
            mib(p.layout_bytes_per_rank),
            gib(l.value_bytes),
            l.seconds
        );
    }
    println!();
    println!(
        "peak layout  {:.1} MiB measured (plan: {:.1} MiB)",
        mib(peak_layout),
        mib(plan.layers.iter().map(|l| l.layout_bytes_per_rank).max().unwrap_or(0))
    );
    println!(
        "peak         {:.2} GiB of layout and values (plan: {:.2} GiB)",
        gib(peak_total),
        gib(plan.peak_bytes_per_rank)
    );
    println!(
        "manifest     {} shards in {:.1} MiB (written, read back and checked after each layer)",
        rehearsal.manifest_shards,
        mib(rehearsal.manifest_bytes)
    );
    println!(
        "gathers      {:.2} MiB at most at one layer's end, {:.2} MiB in one round; no scratch files",
        mib(rehearsal.largest_gather_bytes),
        mib(rehearsal.largest_gather_round_bytes)
    );
    println!("seconds      {seconds:.1}");
    Ok(())
}
