//! What `yz duel plan` reports: a solve priced before it runs, as a type (its JSON by
//! `Serialize`, its text by `Display`). The memory, traffic and disk of every layer come
//! from the plan ([`super::plan`]) of the solve as `duel solve` would size it
//! ([`Sizing`]); the core-hours from each layer's rate measured on a sample of its pairs
//! and the byte costs measured on this machine; then the price on each reference machine.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::calibrate::{LayerRate, available_cores, processor_name};
use super::costs::disk_bandwidth;
use super::count::LayerCount;
use super::fit::{DoesNotFit, MAX_RANKS, check_fits, min_ranks};
use super::plan::{
    ByteCosts, EXCHANGE_COMPRESSION, GPU_MACHINES, GpuPrice, GpuRates, LayerHours, MACHINES, Machine, MachinePrice,
    Plan, usable,
};
use super::setup::{SetupError, Sizing};
use crate::duel::cluster::budget::Budget;
use crate::duel::cluster::error::BelowFloor;
use crate::duel::cluster::partition;
#[cfg(feature = "gpu")]
use crate::duel::gpu::Gpu;
use crate::duel::shard::ShardError;
use crate::duel::sweep::options::SolveOptions;
use crate::duel::sweep::stream;
use crate::duel::units::{gib, group};
use crate::duel::{LayerShape, Space};
use crate::game::{Game, Rules};
use crate::progress::Progress;

/// How a plan measures: the sample of each layer, the timing runs, and the disk.
#[derive(Clone, Debug)]
pub struct Measure {
    /// Lane-updates of each layer's sample of real pairs.
    pub sample: u64,
    /// Timing runs of each sample (their spread is the timing error).
    pub runs: usize,
    /// Cores that solve a copy of the sample at once in each timing run, so that the rate
    /// is a core's among busy ones, as in a solve on every core (`None`: all of them).
    pub cores: Option<usize>,
    /// Where streamed layers would write their scratch (and where the disk is timed).
    pub scratch: Option<PathBuf>,
    /// The disk bandwidth in GB/s, given instead of measured.
    pub disk_gbps: Option<f64>,
    /// Whether and how the solve is priced on GPUs too.
    pub gpu: Option<GpuAsk>,
}

/// How a plan prices the solve on GPUs ([`GPU_MACHINES`]).
#[derive(Clone, Copy, Debug)]
pub enum GpuAsk {
    /// Measured on this machine's GPU (or with `YZ_GPU=host`, the kernel's source on the
    /// host), on samples of this many lane-updates a layer.
    Measure {
        /// Lane-updates of each layer's sample.
        sample: u64,
    },
    /// At a rate measured elsewhere.
    Given {
        /// Lane-updates per second on one GPU, every layer.
        lane_updates_per_second: f64,
        /// Bytes per second between host and GPU.
        pcie_bytes_per_second: f64,
    },
}

/// The solve priced on GPUs.
#[derive(Clone, Debug, Serialize)]
pub struct GpuPlan {
    /// The kernel's rates on one GPU.
    pub rates: GpuRates,
    /// The price on each machine of GPUs.
    pub machines: Vec<GpuPrice>,
}

/// Why a solve could not be priced.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A bandwidth that is none.
    #[error("--disk-gbps: {0} is not a bandwidth; give GB per second, above 0")]
    DiskGbps(f64),
    /// Cores to time on that are none or more than a machine holds.
    #[error(
        "--calibrate-cores: {0} cores; give 1 to {MAX_CALIBRATION_CORES}, the cores a solve on this machine would keep busy"
    )]
    Cores(usize),
    /// A scratch path that is a file.
    #[error("--scratch {}: not a directory; give a directory (created if missing) for scratch files", .0.display())]
    ScratchNotDirectory(PathBuf),
    /// The disk could not be timed, or no scratch made for the byte costs.
    #[error("--scratch: measuring the disk in {}: {source}", .dir.display())]
    Disk {
        /// The directory.
        dir: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The solve's options or memory.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The byte costs could not be measured.
    #[error(transparent)]
    Costs(#[from] ShardError),
    /// A GPU rate or bandwidth that is none.
    #[error("--{flag}: {value} is not a rate; give a number above 0")]
    GpuRate {
        /// The flag.
        flag: &'static str,
        /// What was given.
        value: f64,
    },
    /// No GPU to measure.
    #[error(
        "--gpu: no GPU to measure here ({0}); give --gpu-rate LANE_UPDATES_PER_S to price GPUs at a rate \
         measured elsewhere (issue 41's prototype: 2.95e12 on one H100)"
    )]
    NoGpu(String),
    /// The GPU failed while measuring.
    #[error("--gpu: measuring the GPU: {0}")]
    Gpu(String),
}

/// The most cores a plan times on at once (each holds a copy of the sample's buffers).
pub const MAX_CALIBRATION_CORES: usize = 4096;

/// Where the rates were measured: the machine a plan prices its layers on.
#[derive(Clone, Debug, Serialize)]
pub struct CalibratedOn {
    /// The processor's name, where the platform tells.
    pub processor: Option<String>,
    /// Cores that solved the sample at once in each timed run.
    pub cores: usize,
    /// Cores this process could use.
    pub available_cores: usize,
}

/// Core-hours by part of the work.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Parts {
    /// The turn kernel.
    pub kernel: f64,
    /// Compressing and exchanging rows between ranks.
    pub exchange: f64,
    /// Writing shards.
    pub writing: f64,
    /// Checking what was written.
    pub checking: f64,
}

/// A solve priced before it runs (`yz duel plan`).
#[derive(Clone, Debug, Serialize)]
pub struct PlanReport {
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// Whether the values carry P(draw) (8 bytes) or not (4).
    pub draws: bool,
    /// Every layer's memory, traffic, scratch and disk.
    pub plan: Plan,
    /// Every layer's measured rate.
    pub rates: Vec<LayerRate>,
    /// The byte costs measured on this machine.
    pub byte_costs: ByteCosts,
    /// Every layer's core-hours by part.
    pub hours: Vec<LayerHours>,
    /// Core-hours of the whole solve.
    pub core_hours: f64,
    /// The same at the fastest timing run of each layer.
    pub core_hours_min: f64,
    /// The same at the slowest.
    pub core_hours_max: f64,
    /// Core-hours by part.
    pub core_hours_by_part: Parts,
    /// Where and on how many busy cores the rates were measured.
    pub calibrated_on: CalibratedOn,
    /// The zstd ratio the disk and the wire are planned at
    /// ([`crate::duel::sizing::plan::EXCHANGE_COMPRESSION`]), and where it was measured.
    pub planned_compression: (f64, &'static str),
    /// Bytes written to shard files before compression.
    pub shard_bytes: u64,
    /// Bytes read from and written to disk.
    pub disk_bytes: u64,
    /// Memory per rank asked about, in GiB.
    pub mem_per_rank_gib: f64,
    /// Whether the solve fits that memory without streaming.
    pub fits: bool,
    /// The fewest ranks at which it would fit in memory.
    pub min_ranks: Option<u64>,
    /// The layers streamed through scratch files.
    pub streamed_layers: Vec<usize>,
    /// The least budget per rank streaming needs.
    pub stream_floor_bytes: u64,
    /// The layer that needs it.
    pub stream_floor_layer: usize,
    /// Whether the budget is below that floor (streaming refused).
    pub below_floor: bool,
    /// The disk's bandwidth.
    pub disk_bytes_per_second: f64,
    /// Hours of reads and writes beside the compute.
    pub disk_hours: f64,
    /// The price on each reference machine.
    pub machines: Vec<MachinePrice>,
    /// The price on machines of GPUs, where asked (`--gpu`, `--gpu-rate`).
    pub gpu: Option<GpuPlan>,
    /// What the text adds: ranks, the timing runs, the worst sampling error, the floor
    /// refused, whether the disk was given, whether the solve streams, the published figure.
    #[serde(skip)]
    text: TextOnly,
}

/// What only the text of a [`PlanReport`] shows.
#[derive(Clone, Debug)]
struct TextOnly {
    ranks: u64,
    runs: usize,
    worst_error: f64,
    below: Option<BelowFloor>,
    /// Why the solve does not fit in memory, in totals, if it does not.
    in_memory: Option<DoesNotFit>,
    disk_given: bool,
    streams: bool,
    published: &'static str,
}

/// The balance of layer `layer` of a solve of `space` down to `last` over `ranks` ranks
/// (the layers `streamed` streaming, with `budget` bytes a rank, values of `value_bytes`
/// and shards of `shard_positions`): a layer solved in a pass (it or the layer above it
/// streams) as its blocks are dealt ([`stream::pass_balance`]), else as its columns are
/// split ([`partition::compute_balance`]).
fn layer_balance(
    space: &Space,
    (layer, last): (usize, usize),
    ranks: usize,
    streamed: &[usize],
    (budget, value_bytes, shard_positions): (u64, u64, u64),
) -> f64 {
    if streamed.contains(&layer) || streamed.contains(&(layer + 1)) {
        stream::pass_balance(space, (layer, last), ranks, (budget, value_bytes, shard_positions))
    } else {
        partition::compute_balance(space, &LayerShape::new(space, layer), ranks)
    }
}

/// The device `--gpu` measures: the GPU of rank 0, or with `YZ_GPU=host` (`None`) the
/// kernel's source on the host.
#[cfg(feature = "gpu")]
type GpuDevice = Option<Gpu>;
/// Without the `gpu` feature there is none.
#[cfg(not(feature = "gpu"))]
type GpuDevice = std::convert::Infallible;

/// Opens the device `--gpu` measures, before anything is measured.
#[cfg(feature = "gpu")]
fn open_gpu() -> Result<GpuDevice, PlanError> {
    if std::env::var("YZ_GPU").is_ok_and(|v| v == "host") {
        return Ok(None);
    }
    Gpu::open_for_rank(0).map(Some).map_err(|e| PlanError::NoGpu(e.to_string()))
}

/// Without the `gpu` feature there is no GPU to measure.
#[cfg(not(feature = "gpu"))]
fn open_gpu() -> Result<GpuDevice, PlanError> {
    Err(PlanError::NoGpu("this yz was built without the `gpu` feature: cargo build --release --features gpu".into()))
}

/// `device`'s rates on `counts`' layers of `space` with samples of `sample` lane-updates,
/// timed `runs` times.
#[cfg(feature = "gpu")]
fn measure_gpu(
    device: &GpuDevice,
    space: &Space,
    counts: &[LayerCount],
    (sample, runs): (u64, usize),
    progress: &dyn Progress,
) -> Result<GpuRates, PlanError> {
    use super::gpu_rate::{Device, measure};
    let device = device.as_ref().map_or(Device::Host, Device::Gpu);
    measure(space, counts, &device, (sample, runs), 1, progress).map_err(|e| PlanError::Gpu(e.to_string()))
}

/// Without the `gpu` feature no device opens, so nothing is measured.
#[cfg(not(feature = "gpu"))]
fn measure_gpu(
    device: &GpuDevice,
    _: &Space,
    _: &[LayerCount],
    _: (u64, usize),
    _: &dyn Progress,
) -> Result<GpuRates, PlanError> {
    match *device {}
}

/// Prices the solve of `space` with `options` over `ranks` ranks of `mem_per_rank_gib`
/// GiB each, measuring as `measure` says (`measuring` is told the number of layers before
/// the rates are measured; the measurement reports to `progress`).
pub fn plan_solve(
    space: &Space,
    options: SolveOptions,
    (ranks, mem_per_rank_gib): (u64, f64),
    measure: &Measure,
    measuring: impl FnOnce(usize),
    progress: &dyn Progress,
) -> Result<PlanReport, PlanError> {
    let mem_bytes = super::setup::mem_per_rank_bytes(mem_per_rank_gib)?;
    super::setup::check_runs(measure.runs)?;
    let cores = measure.cores.unwrap_or_else(available_cores);
    if cores == 0 || cores > MAX_CALIBRATION_CORES {
        return Err(PlanError::Cores(cores));
    }
    if let Some(gbps) = measure.disk_gbps
        && !(gbps.is_finite() && gbps > 0.0)
    {
        return Err(PlanError::DiskGbps(gbps));
    }
    if let Some(GpuAsk::Given { lane_updates_per_second: rate, pcie_bytes_per_second: pcie }) = measure.gpu {
        for (flag, value) in [("gpu-rate", rate), ("pcie-gbps", pcie)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(PlanError::GpuRate { flag, value });
            }
        }
    }
    let device = match measure.gpu {
        Some(GpuAsk::Measure { .. }) => Some(open_gpu()?),
        _ => None,
    };
    let disk = |dir: PathBuf| move |source| PlanError::Disk { dir, source };
    let temporary = tempfile::tempdir().map_err(disk(std::env::temp_dir()))?;
    let scratch = measure.scratch.clone().unwrap_or_else(|| temporary.path().to_owned());
    // The solve as `duel solve --mem-per-rank` sizes it: streaming where layers do not fit.
    let budget = Budget::PerRank(mem_bytes);
    let in_memory = Sizing::new(space, options.clone(), ranks, Some(budget));
    // A solve in memory streams nothing: its floor is nil.
    let nil_floor = (0, in_memory.options.stop_after);
    let (sizing, below, (floor, floor_layer)) =
        match Sizing::in_budget(space, options, ranks, Some(budget), Some(&scratch)) {
            Ok(sizing) => match sizing.check_floor(space) {
                Ok(floor) => (sizing, None, floor),
                Err(below) => (in_memory.clone(), Some(below), nil_floor),
            },
            Err(SetupError::DoesNotFit(_)) => (in_memory.clone(), None, nil_floor),
            Err(e) => return Err(e.into()),
        };
    let (counts, spec) = (&sizing.layers, sizing.spec);
    let plan = sizing.plan(space);
    if scratch.exists() && !scratch.is_dir() {
        return Err(PlanError::ScratchNotDirectory(scratch));
    }
    let bandwidth = match measure.disk_gbps {
        Some(gbps) => gbps * 1e9,
        None => disk_bandwidth(&scratch).map_err(disk(scratch.clone()))?,
    };
    measuring(counts.len());
    let rates = sizing.calibrate(space, (measure.sample, measure.runs, cores, 1), progress);
    let gpu_rates = match measure.gpu {
        None => None,
        Some(GpuAsk::Given { lane_updates_per_second, pcie_bytes_per_second }) => {
            let layers: Vec<usize> = counts.iter().map(|c| c.layer).collect();
            Some(GpuRates::given(&layers, lane_updates_per_second, pcie_bytes_per_second))
        }
        Some(GpuAsk::Measure { sample }) => {
            let device = device.as_ref().expect("opened above");
            Some(measure_gpu(device, space, counts, (sample, measure.runs), progress)?)
        }
    };
    let byte_costs = sizing.byte_costs(space, temporary.path())?;
    let kernel_hours = |layer| rates.iter().find(|r| r.layer == layer).map_or(0.0, |r| r.core_hours);
    let hours = plan.hours(kernel_hours, &byte_costs);
    let boxes = space.cards().boxes();
    // The same test the solve makes before it starts (in memory).
    let does_not_fit = check_fits(&in_memory.layers, boxes, in_memory.spec, budget).err();
    let sizes = (spec.value_bytes, spec.write_from);
    let stream_floor = |streamed: &[usize]| sizing.stream_floor(space, streamed).0;
    let balance = |m: &Machine| {
        let ranks = m.nodes * m.ranks_per_node;
        move |layer, streamed: &[usize], budget| {
            let last = sizing.options.stop_after.max(space.first_layer());
            let sizes = (budget, spec.value_bytes, sizing.options.shard_positions);
            layer_balance(space, (layer, last), ranks as usize, streamed, sizes)
        }
    };
    let machines = (MACHINES.iter())
        .map(|m| m.price(counts, boxes, sizes, (stream_floor, balance(m)), bandwidth, kernel_hours, &byte_costs).price)
        .collect();
    let gpu = gpu_rates.map(|rates| GpuPlan {
        machines: (GPU_MACHINES.iter())
            .map(|m| {
                let priced =
                    m.price(counts, boxes, sizes, (stream_floor, balance(m)), bandwidth, kernel_hours, &byte_costs);
                priced.on_gpus(&rates)
            })
            .collect(),
        rates,
    });
    let LayerHours { kernel, exchange, writing, checking, total: core_hours, .. } = LayerHours::sum(&hours);
    let others = exchange + writing + checking;
    let game = space.cards().game();
    Ok(PlanReport {
        rules: game.rules,
        categories: game.box_names(),
        draws: sizing.with_draws(),
        rates: rates.clone(),
        byte_costs,
        hours,
        core_hours,
        core_hours_min: rates.iter().map(|r| r.core_hours_min).sum::<f64>() + others,
        core_hours_max: rates.iter().map(|r| r.core_hours_max).sum::<f64>() + others,
        core_hours_by_part: Parts { kernel, exchange, writing, checking },
        calibrated_on: CalibratedOn { processor: processor_name(), cores, available_cores: available_cores() },
        planned_compression: (
            crate::duel::sizing::plan::EXCHANGE_COMPRESSION,
            crate::duel::sizing::plan::COMPRESSION_SOURCE,
        ),
        shard_bytes: plan.shard_bytes(),
        disk_bytes: plan.disk_bytes(),
        mem_per_rank_gib,
        fits: does_not_fit.is_none(),
        min_ranks: min_ranks(counts, boxes, in_memory.spec, usable(mem_bytes), MAX_RANKS),
        streamed_layers: plan.streamed_layers(),
        stream_floor_bytes: floor,
        stream_floor_layer: floor_layer,
        below_floor: below.is_some(),
        disk_bytes_per_second: bandwidth,
        disk_hours: plan.disk_hours(bandwidth),
        machines,
        gpu,
        text: TextOnly {
            ranks,
            runs: measure.runs,
            worst_error: rates.iter().map(|r| r.rate_error).fold(0.0, f64::max),
            below,
            in_memory: does_not_fit,
            disk_given: measure.disk_gbps.is_some(),
            streams: sizing.streams(),
            // Pawlewicz's figure is the official full game's, from its first layer.
            published: if game == Game::full(Rules::OFFICIAL) && space.first_layer() == 0 {
                "; Pawlewicz: 92 TB at 8 bytes"
            } else {
                ""
            },
        },
        plan,
    })
}

impl fmt::Display for PlanReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (plan, text, mem) = (&self.plan, &self.text, self.mem_per_rank_gib);
        writeln!(f, "rules       {}", self.rules)?;
        writeln!(f, "categories  {}", self.categories.join(","))?;
        writeln!(f, "ranks       {}, {mem} GiB each", text.ranks)?;
        let values = if self.draws { "winning chance and P(draw), 8 bytes" } else { "winning chance, 4 bytes" };
        writeln!(f, "values      {values}")?;
        writeln!(f)?;
        writeln!(
            f,
            "  {:>5} {:>18} {:>9} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>5} {:>9} {:>8} {:>8} {:>8}",
            "layer",
            "positions",
            "GiB",
            "solved",
            "values/rk",
            "layout/rk",
            "GiB exch",
            "GiB scr",
            "GiB disk",
            "lane-upd/s",
            "±se",
            "kernel h",
            "exch h",
            "write h",
            "check h"
        )?;
        for ((l, r), h) in plan.layers.iter().zip(&self.rates).zip(&self.hours) {
            writeln!(
                f,
                "  {:>5} {:>18} {:>9.3} {:>6} {:>9.3} {:>9.3} {:>9.1} {:>9.1} {:>9.1} {:>10.2e} {:>4.1}% {:>9.2} {:>8.2} {:>8.2} {:>8.2}{}",
                l.layer,
                group(l.positions),
                gib(l.bytes),
                if l.streamed { "stream" } else { "memory" },
                gib(l.value_bytes_per_rank),
                gib(l.layout_bytes_per_rank),
                gib(l.exchanged_bytes),
                gib(l.scratch_bytes),
                gib(l.disk_read_bytes + l.disk_written_bytes),
                r.lane_updates_per_core_second,
                100.0 * r.rate_error,
                h.kernel,
                h.exchange,
                h.writing,
                h.checking,
                if l.written { "" } else { "  not written" }
            )?;
        }
        writeln!(f)?;
        writeln!(f, "positions          {}", group(plan.positions))?;
        writeln!(f, "all layers         {:.1} GiB (4-byte values{})", gib(plan.bytes), text.published)?;
        writeln!(
            f,
            "written            {:.1} GiB to shard files before compression{} (--write); disk at most about {:.1} GiB{}",
            gib(plan.shard_bytes()),
            if plan.columns() == 2 { ", draw shards included" } else { "" },
            gib(plan.peak_disk_bytes),
            if plan.scratch_bytes > 0 { " at once, tables and scratch" } else { "" }
        )?;
        writeln!(
            f,
            "peak per rank      {:.2} GiB of values and layout ({})",
            gib(plan.peak_bytes_per_rank),
            match &text.in_memory {
                None => "fits in memory".to_owned(),
                Some(refusal) => format!(
                    "{}: {}; {}",
                    if text.streams {
                        "layers that do not fit stream, each rank holding its budget in blocks and its per-card tables"
                    } else {
                        "does not fit, and streaming is below its floor"
                    },
                    refusal.needs(),
                    refusal.would_fit().map_or_else(
                        || "no number of ranks of that memory holds it in memory".to_owned(),
                        |w| format!("in memory it would fit {w}")
                    )
                ),
            }
        )?;
        let costs = &self.byte_costs;
        writeln!(
            f,
            "exchanged          {:.1} GiB in all before compression, about {:.1} GiB sent (zstd ratio {} planned; {:.2} measured on {})",
            gib(plan.exchanged_bytes),
            gib(plan.sent_bytes),
            EXCHANGE_COMPRESSION,
            costs.exchange_ratio,
            costs.sample
        )?;
        writeln!(
            f,
            "byte costs         exchange {:.0} MB/s, writing {:.0} MB/s, checking {:.0} MB/s per core (measured on that sample)",
            1e-6 / costs.exchange_seconds_per_byte,
            1e-6 / costs.write_seconds_per_byte,
            1e-6 / costs.check_seconds_per_byte
        )?;
        let h = |hours: f64| if hours < 10.0 { format!("{hours:.3}") } else { format!("{hours:.0}") };
        let Parts { kernel, exchange, writing, checking } = self.core_hours_by_part;
        writeln!(
            f,
            "estimated compute  {} core-hours: kernel {}, exchange {}, writing {}, checking {}",
            h(self.core_hours),
            h(kernel),
            h(exchange),
            h(writing),
            h(checking)
        )?;
        writeln!(
            f,
            "                   {} to {} over {} runs (timing); sampling error at most {:.1}% a layer; \
             (Pawlewicz: 120 GHz-years, about 375,000 core-hours at 2.8 GHz)",
            h(self.core_hours_min),
            h(self.core_hours_max),
            text.runs,
            100.0 * text.worst_error,
        )?;
        let on = &self.calibrated_on;
        writeln!(
            f,
            "                   rates measured per core with {} of this machine's {} cores busy at once ({}); \
             a node of other cores calibrates there (yz duel plan)",
            on.cores,
            on.available_cores,
            on.processor.as_deref().unwrap_or("processor unknown")
        )?;
        let streamed = &self.streamed_layers;
        match &text.below {
            Some(below) => writeln!(
                f,
                "streaming          refused at {mem} GiB per rank: below its floor of {:.2} GiB (layer {})",
                below.needed_gib, below.layer
            )?,
            None if streamed.is_empty() => writeln!(f, "streaming          none: every layer fits {mem} GiB per rank")?,
            None => writeln!(
                f,
                "streaming          {} of {} layers at {mem} GiB per rank (floor {:.2} GiB, layer {}); \
                 scratch at most {:.1} GiB; disk {:.1} GiB read, {:.1} GiB written",
                streamed.len(),
                plan.layers.len(),
                gib(self.stream_floor_bytes),
                self.stream_floor_layer,
                gib(plan.scratch_bytes),
                gib(plan.disk_read_bytes),
                gib(plan.disk_written_bytes)
            )?,
        }
        writeln!(
            f,
            "disk               {:.2} GB/s{}: {} hours of reads and writes beside the compute",
            self.disk_bytes_per_second / 1e9,
            if text.disk_given { " (given)" } else { " (measured, fsync'd writes)" },
            h(self.disk_hours)
        )?;
        writeln!(f)?;
        write!(
            f,
            "  {:<56} {:>6} {:>8} {:>8} {:>10} {:>10} {:>10} {:>9} {:>8} {:>8} {:>8}",
            "machine",
            "ranks",
            "GiB/rk",
            "streamed",
            "GiB peak",
            "TiB scr",
            "TiB table",
            "core-h",
            "balance",
            "disk h",
            "wall h"
        )?;
        for m in &self.machines {
            write!(
                f,
                "\n  {:<56} {:>6} {:>8.1} {:>8} {:>10.2} {:>10.2} {:>10.2} {:>9} {:>8.3} {:>8} {:>8}{}",
                m.machine.name,
                m.ranks,
                gib(m.mem_per_rank),
                m.streamed.len(),
                gib(m.peak_bytes_per_rank),
                gib(m.scratch_bytes) / 1024.0,
                gib(m.table_bytes) / 1024.0,
                h(m.core_hours),
                m.balance,
                h(m.disk_hours),
                h(m.wall_hours),
                fit_note(m)
            )?;
        }
        if let Some(gpu) = &self.gpu {
            writeln!(f)?;
            gpu.fmt(f)?;
        }
        Ok(())
    }
}

/// What a machine's row adds where the solve does not fit it.
fn fit_note(m: &MachinePrice) -> &'static str {
    match (m.fits_memory, m.fits_disk) {
        (false, _) => "  below the streaming floor",
        (true, Some(false)) => "  does not fit its disk",
        _ => "",
    }
}

impl fmt::Display for GpuPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rates = &self.rates;
        let (low, high) = (rates.layers.iter().map(|r| r.lane_updates_per_second))
            .fold((f64::INFINITY, 0.0f64), |(low, high), r| (low.min(r), high.max(r)));
        writeln!(f, "GPU rates          {}", rates.source)?;
        if rates.layers.iter().any(|r| r.sampled_lane_updates > 0) {
            writeln!(f, "                   {low:.3e} to {high:.3e} lane-updates/s per GPU over the layers")?;
        }
        writeln!(
            f,
            "                   host to GPU {:.1} GB/s ({}); each layer takes the longest of its turns on the GPUs, \
             its copies and the work around the kernel on the nodes' cores, the disk beside",
            rates.pcie_bytes_per_second / 1e9,
            if rates.pcie_measured { "measured" } else { "assumed: half of PCIe 5.0 x16" }
        )?;
        writeln!(f)?;
        write!(
            f,
            "  {:<60} {:>5} {:>8} {:>8} {:>9} {:>8} {:>8} {:>14} {:>8} {:>8}",
            "machine", "GPUs", "streamed", "GPU-h", "kernel h", "copies h", "host h", "bound g/c/h", "disk h", "wall h"
        )?;
        let h = |hours: f64| if hours < 10.0 { format!("{hours:.3}") } else { format!("{hours:.1}") };
        for m in &self.machines {
            let [g, c, host] = m.bound_by;
            write!(
                f,
                "\n  {:<60} {:>5} {:>8} {:>8} {:>9} {:>8} {:>8} {:>14} {:>8} {:>8}{}",
                m.ranks.machine.name,
                m.gpus,
                m.ranks.streamed.len(),
                h(m.gpu_hours),
                h(m.kernel_hours),
                h(m.pcie_hours),
                h(m.host_hours),
                format!("{g}/{c}/{host}"),
                h(m.disk_hours),
                h(m.wall_hours),
                fit_note(&m.ranks)
            )?;
        }
        Ok(())
    }
}
