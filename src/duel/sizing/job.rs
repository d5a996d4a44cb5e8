//! A batch job sized from a plan: memory per rank, whether the solve streams, the time
//! limits of the solve and of the verify after it, refused up front where the nodes cannot
//! hold or finish it. `yz duel plan --job-nodes N ...` reports it, and `scripts/submit`
//! asks Slurm for exactly that, with no sizing arithmetic of its own.

use std::fmt;

use serde::Serialize;

use super::estimate::PlanReport;

/// Room a rank asks for beyond the plan's peak of values: a quarter more, plus 1 GiB for
/// the rest of the process (tables of cards, buffers, the allocator's slack).
const MEM_MARGIN: f64 = 1.25;
/// Memory a rank asks for beyond the margin, in MiB.
const MEM_EXTRA_MIB: f64 = 1024.0;
/// Safety factor on the planned hours (slower nodes than the calibration's, exchange and
/// imbalance the plan prices low) and the minutes added to it.
const TIME_FACTOR: f64 = 2.0;
const TIME_EXTRA_MINUTES: f64 = 10.0;
/// The verify job reads every byte of the tables once at 250 MB/s a core, at most 2 GB/s
/// (a node's share of the file system), twice over for safety, plus 10 minutes.
const VERIFY_BYTES_PER_CORE_SECOND: f64 = 250e6;
const VERIFY_NODE_BYTES_PER_SECOND: f64 = 2e9;
const VERIFY_EXTRA_MINUTES: f64 = 10.0;
/// Memory the verify job asks for at most, in MiB.
const VERIFY_MEM_MIB: u64 = 4096;

/// The nodes a job runs on, as the scheduler (sinfo) and the user describe them.
#[derive(Clone, Debug, PartialEq)]
pub struct Nodes {
    /// Nodes of the job.
    pub count: u64,
    /// Ranks (tasks) on each node; with GPUs, one per GPU.
    pub tasks_per_node: u64,
    /// Cores of each rank (by default a node's cores shared by its ranks).
    pub cpus_per_task: Option<u64>,
    /// A node's cores, where the scheduler says.
    pub node_cpus: Option<u64>,
    /// A node's memory, in MiB, where the scheduler says.
    pub node_mem_mib: Option<u64>,
    /// Whether the memory per rank the plan was asked about was given by the user (it is
    /// then asked for as it is) rather than a node's share (the plan's peak is asked for).
    pub mem_given: bool,
    /// The longest a job may run, in Slurm's syntax ("2-00:00:00", "infinite"), where the
    /// partition has a limit.
    pub max_time: Option<String>,
    /// Whether the user gave the solve's time limit: a longer planned time is then not
    /// refused (a solve resubmitted after each time-out resumes).
    pub time_given: bool,
    /// Each node's disk for tables and scratch, in TB, where the user gave it.
    pub disk_per_node_tb: Option<f64>,
    /// Whether each rank runs its turns on a GPU (priced at the plan's GPU rate).
    pub gpus: bool,
}

/// What a job asks the scheduler for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobSize {
    /// Ranks in all.
    pub ranks: u64,
    /// Cores of each rank.
    pub cpus_per_task: u64,
    /// Whether layers stream through scratch files (`duel solve --mem-per-rank`).
    pub stream: bool,
    /// Memory each rank asks for, in MiB.
    pub mem_mib_per_rank: u64,
    /// The solve's time limit, in minutes, and in Slurm's syntax.
    pub time_minutes: u64,
    /// The same in Slurm's syntax (`D-HH:MM:00`).
    pub time_limit: String,
    /// The verify job's cores, minutes and memory (MiB).
    pub verify_cpus: u64,
    /// The verify job's time limit, in minutes.
    pub verify_minutes: u64,
    /// The same in Slurm's syntax.
    pub verify_time_limit: String,
    /// The verify job's memory, in MiB.
    pub verify_mem_mib: u64,
    /// What the user should know (a rank given all the memory it can have).
    pub warnings: Vec<String>,
}

/// Why a job cannot run the solve on those nodes.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum JobError {
    /// Nodes, ranks or cores that are none.
    #[error("{what} is 0; give at least 1")]
    Zero {
        /// The flag.
        what: &'static str,
    },
    /// The plan was made for another number of ranks.
    #[error("the plan is for {planned} ranks but the job has {nodes} node(s) × {tasks} ranks; give --ranks {}", nodes * tasks)]
    Ranks {
        /// Ranks of the plan.
        planned: u64,
        /// Nodes of the job.
        nodes: u64,
        /// Ranks per node.
        tasks: u64,
    },
    /// Nothing says how many cores a rank has.
    #[error("the cores of a rank are unknown: give --cpus-per-task (or the nodes' CPUs)")]
    NoCores,
    /// More cores than a node has.
    #[error("{tasks} ranks × {cpus} CPUs do not fit on a node of {node_cpus} CPUs")]
    Cores {
        /// Ranks per node.
        tasks: u64,
        /// Cores per rank.
        cpus: u64,
        /// Cores of a node.
        node_cpus: u64,
    },
    /// The values do not fit the ranks' memory, and streaming cannot help.
    #[error("{0}")]
    Memory(String),
    /// Longer than the partition allows.
    #[error(
        "the solve may take up to {limit} on {cores} cores but the partition allows {max}: use more nodes, or pass \
         --time and resubmit the same command after each time-out (it resumes)"
    )]
    Time {
        /// The job's limit, in Slurm's syntax.
        limit: String,
        /// Cores of the job.
        cores: u64,
        /// The partition's limit.
        max: String,
    },
    /// Not a time Slurm would print.
    #[error("partition time limit '{0}': expected Slurm's syntax (minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S)")]
    TimeSyntax(String),
    /// A disk size that is none.
    #[error("disk per node '{0}': expected a number of TB above 0")]
    Disk(f64),
    /// The tables and scratch do not fit the nodes' disks.
    #[error(
        "the tables and scratch need {need_gib:.2} GiB at once but {nodes} node(s) of {per_node_tb} TB have \
         {have_gib:.2} GiB; write fewer layers (--write K.. with a larger K), use more nodes (scratch is shared out), \
         or more disk"
    )]
    DiskFull {
        /// GiB needed at once.
        need_gib: f64,
        /// Nodes of the job.
        nodes: u64,
        /// TB each.
        per_node_tb: f64,
        /// GiB the nodes have.
        have_gib: f64,
    },
}

/// A plan with the job that runs it on given nodes (`yz duel plan --job-nodes N ...`):
/// the plan's JSON with `job`, or `job_refused` saying why no job on those nodes runs it.
#[derive(Clone, Debug, Serialize)]
pub struct PlannedJob {
    /// The plan.
    #[serde(flatten)]
    pub report: PlanReport,
    /// The job, where the nodes can run it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<JobSize>,
    /// Why they cannot, where they cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_refused: Option<String>,
}

impl PlannedJob {
    /// `report` with its job on `nodes` ([`size_job`]), or why there is none.
    pub fn new(report: PlanReport, nodes: &Nodes) -> PlannedJob {
        let (job, job_refused) = match size_job(&report, nodes) {
            Ok(job) => (Some(job), None),
            Err(refused) => (None, Some(refused.to_string())),
        };
        PlannedJob { report, job, job_refused }
    }
}

impl fmt::Display for PlannedJob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.report.fmt(f)?;
        if let Some(job) = &self.job {
            write!(
                f,
                "\n\njob                {} ranks, {}, {} MiB a rank, time {}; verify on {} cores, time {}",
                job.ranks,
                if job.stream { "streamed" } else { "in memory" },
                job.mem_mib_per_rank,
                job.time_limit,
                job.verify_cpus,
                job.verify_time_limit
            )?;
            for warning in &job.warnings {
                write!(f, "\n                   {warning}")?;
            }
        }
        if let Some(refused) = &self.job_refused {
            write!(f, "\n\njob                refused: {refused}")?;
        }
        Ok(())
    }
}

/// A job for `report`'s solve on `nodes` (whose ranks must be the plan's), or why there
/// is none.
pub fn size_job(report: &PlanReport, nodes: &Nodes) -> Result<JobSize, JobError> {
    for (what, n) in [
        ("--job-nodes", Some(nodes.count)),
        ("--job-tasks-per-node", Some(nodes.tasks_per_node)),
        ("--job-cpus-per-task", nodes.cpus_per_task),
        ("--job-node-cpus", nodes.node_cpus),
    ] {
        if n == Some(0) {
            return Err(JobError::Zero { what });
        }
    }
    let tasks = nodes.tasks_per_node;
    let cpus_per_task = match (nodes.cpus_per_task, nodes.node_cpus) {
        (Some(cpus), Some(node_cpus)) if tasks * cpus > node_cpus => {
            return Err(JobError::Cores { tasks, cpus, node_cpus });
        }
        (Some(cpus), _) => cpus,
        (None, Some(node_cpus)) if node_cpus >= tasks => node_cpus / tasks,
        (None, Some(node_cpus)) => return Err(JobError::Cores { tasks, cpus: 1, node_cpus }),
        (None, None) => return Err(JobError::NoCores),
    };
    let ranks = nodes.count * nodes.tasks_per_node;
    let planned = report.plan.spec.ranks;
    if planned != ranks {
        return Err(JobError::Ranks { planned, nodes: nodes.count, tasks: nodes.tasks_per_node });
    }
    // Needs round up, and what is had down, to the hundredth of a GiB.
    let gib = |bytes: f64| (bytes / (1u64 << 30) as f64 * 100.0).ceil() / 100.0;
    let (peak, mem) = (report.plan.peak_bytes_per_rank, report.mem_per_rank_gib);
    // Layers too large for the ranks' memory stream through scratch files, as long as the
    // memory per rank is at least the streaming floor.
    let stream = !report.fits && !report.streamed_layers.is_empty() && !report.below_floor;
    if !report.fits && !stream {
        return Err(JobError::Memory(match report.min_ranks {
            None => format!(
                "each of the {ranks} ranks needs {:.2} GiB but may use {mem} GiB, and no number of ranks of that \
                 memory fits; give each rank more memory",
                gib(peak as f64)
            ),
            Some(least) => format!(
                "each of the {ranks} ranks needs {:.2} GiB for its layers but may use {mem} GiB; use at least {} \
                 nodes of {} ranks (--nodes), or more memory per rank",
                gib(peak as f64),
                least.div_ceil(nodes.tasks_per_node),
                nodes.tasks_per_node
            ),
        }));
    }
    // Memory: a streamed solve takes what each rank may have and holds its blocks within
    // it; else the values' peak with room for the rest of the process, where not given.
    let mut warnings = Vec::new();
    let mem_mib_per_rank = if stream || nodes.mem_given {
        (mem * 1024.0).floor() as u64
    } else {
        let wanted = (peak as f64 * MEM_MARGIN / (1u64 << 20) as f64 + MEM_EXTRA_MIB).ceil() as u64;
        match nodes.node_mem_mib {
            Some(node) if wanted * nodes.tasks_per_node > node => {
                let all = node / nodes.tasks_per_node;
                warnings.push(format!("the plan leaves little room: asking for all {all} MiB a rank can have"));
                all
            }
            _ => wanted,
        }
    };
    // Time: the planned hours on the job's cores, the disk's hours shared by the nodes
    // (each moves its share); on GPUs the kernel's core-hours are replaced by its
    // GPU-hours over the GPUs (the rest still runs on the cores), the parts added rather
    // than overlapped.
    let cores = ranks * cpus_per_task;
    let disk = report.disk_hours * 60.0 / nodes.count as f64;
    let compute = match (&report.gpu, nodes.gpus) {
        (Some(gpu), true) => {
            let gpu_hours = gpu.machines.first().map_or(0.0, |m| m.gpu_hours);
            gpu_hours * 60.0 / ranks as f64
                + (report.core_hours - report.core_hours_by_part.kernel) * 60.0 / cores as f64
        }
        _ => report.core_hours * 60.0 / cores as f64,
    };
    let time_minutes = ((compute + disk) * TIME_FACTOR + TIME_EXTRA_MINUTES).ceil() as u64;
    let max_minutes = nodes.max_time.as_deref().map(minutes_of).transpose()?.flatten();
    if let Some(max) = max_minutes.filter(|&max| time_minutes > max && !nodes.time_given) {
        let limit = slurm_time(time_minutes);
        return Err(JobError::Time { limit, cores, max: nodes.max_time.clone().unwrap_or_else(|| slurm_time(max)) });
    }
    if let Some(tb) = nodes.disk_per_node_tb {
        if !(tb > 0.0 && tb.is_finite()) {
            return Err(JobError::Disk(tb));
        }
        let have = tb * 1e12 * nodes.count as f64;
        let need = report.plan.peak_disk_bytes as f64;
        if need > have {
            let (need_gib, have_gib) = (gib(need), (have / (1u64 << 30) as f64 * 100.0).floor() / 100.0);
            return Err(JobError::DiskFull { need_gib, nodes: nodes.count, per_node_tb: tb, have_gib });
        }
    }
    // Verify reads every byte once, its shards checked in parallel on every core of one
    // node, within the partition's limit.
    let verify_cpus = tasks * cpus_per_task;
    let rate = (VERIFY_BYTES_PER_CORE_SECOND * verify_cpus as f64).min(VERIFY_NODE_BYTES_PER_SECOND);
    let verify = (VERIFY_EXTRA_MINUTES + 2.0 * report.plan.written_bytes as f64 / rate / 60.0).ceil() as u64;
    let verify_minutes = max_minutes.map_or(verify, |max| verify.min(max));
    Ok(JobSize {
        ranks,
        cpus_per_task,
        stream,
        mem_mib_per_rank,
        time_minutes,
        time_limit: slurm_time(time_minutes),
        verify_cpus,
        verify_minutes,
        verify_time_limit: slurm_time(verify_minutes),
        verify_mem_mib: mem_mib_per_rank.min(VERIFY_MEM_MIB),
        warnings,
    })
}

/// Minutes of a Slurm time ("minutes", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S"; seconds
/// round up), `None` for no limit ("infinite", "UNLIMITED").
pub fn minutes_of(time: &str) -> Result<Option<u64>, JobError> {
    let bad = || JobError::TimeSyntax(time.to_owned());
    let t = time.trim();
    if t.eq_ignore_ascii_case("infinite") || t.eq_ignore_ascii_case("unlimited") {
        return Ok(None);
    }
    let number = |s: &str| s.parse::<u64>().map_err(|_| bad());
    let (days, rest) = match t.split_once('-') {
        Some((d, rest)) => (number(d)?, rest),
        None => (0, t),
    };
    let fields: Vec<u64> = rest.split(':').map(number).collect::<Result<_, _>>()?;
    let (hours, minutes, seconds) = match (t.contains('-'), fields.as_slice()) {
        (false, [m]) => (0, *m, 0),
        (false, [m, s]) => (0, *m, *s),
        (false, [h, m, s]) | (true, [h, m, s]) => (*h, *m, *s),
        (true, [h]) => (*h, 0, 0),
        (true, [h, m]) => (*h, *m, 0),
        _ => return Err(bad()),
    };
    Ok(Some((days * 24 + hours) * 60 + minutes + u64::from(seconds > 0)))
}

/// `minutes` in Slurm's syntax: `D-HH:MM:00`.
pub fn slurm_time(minutes: u64) -> String {
    format!("{}-{:02}:{:02}:00", minutes / 1440, minutes % 1440 / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::sizing::estimate::{Measure, plan_solve};
    use crate::duel::sweep::SolveOptions;
    use crate::duel::{Cards, Space};
    use crate::game::{Game, Rules};
    use crate::progress::Silent;

    /// The plan of the first-4 game at `ranks` ranks of `mem_gib` GiB, on a small sample.
    fn report(ranks: u64, mem_gib: f64) -> PlanReport {
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap() });
        let space = Space::whole_game(&cards);
        let measure =
            Measure { sample: 1_000_000, runs: 1, cores: Some(1), scratch: None, disk_gbps: Some(1.0), gpu: None };
        plan_solve(&space, SolveOptions::whole(&space), (ranks, mem_gib), &measure, |_| {}, &Silent).unwrap()
    }

    fn nodes(count: u64, tasks_per_node: u64, cpus_per_task: u64) -> Nodes {
        Nodes {
            count,
            tasks_per_node,
            cpus_per_task: Some(cpus_per_task),
            node_cpus: None,
            node_mem_mib: None,
            mem_given: false,
            max_time: None,
            time_given: false,
            disk_per_node_tb: None,
            gpus: false,
        }
    }

    #[test]
    fn a_job_asks_for_the_plans_peak_and_time_on_its_cores() {
        let plan = report(2, 1.0);
        let job = size_job(&plan, &nodes(1, 2, 4)).unwrap();
        let peak_mib = plan.plan.peak_bytes_per_rank as f64 / (1u64 << 20) as f64;
        assert_eq!((job.ranks, job.cpus_per_task, job.stream), (2, 4, false));
        assert_eq!(job.mem_mib_per_rank, (peak_mib * 1.25 + 1024.0).ceil() as u64);
        assert!(job.time_minutes >= 10 && minutes_of(&job.time_limit) == Ok(Some(job.time_minutes)));
        assert_eq!((job.verify_cpus, job.verify_mem_mib), (8, job.mem_mib_per_rank.min(4096)));
        // More cores take no longer; a given memory is asked for as it is.
        let other = size_job(&plan, &nodes(3, 1, 64)).unwrap_err();
        assert!(other.to_string().ends_with("give --ranks 3"), "{other}");
        let given = size_job(&plan, &Nodes { mem_given: true, ..nodes(1, 2, 64) }).unwrap();
        assert!(given.time_minutes <= job.time_minutes);
        assert_eq!(given.mem_mib_per_rank, 1024);
        // A node too small for the peak: all of a rank's share, with a warning.
        let small = size_job(&plan, &Nodes { node_mem_mib: Some(1000), ..nodes(1, 2, 4) }).unwrap();
        assert_eq!(small.mem_mib_per_rank, 500);
        assert!(small.warnings[0].contains("all 500 MiB"), "{:?}", small.warnings);
    }

    #[test]
    fn a_job_the_nodes_cannot_run_is_refused_with_the_figures() {
        let plan = report(2, 1.0);
        let refused = |n: Nodes| size_job(&plan, &n).unwrap_err();
        assert_eq!(refused(Nodes { count: 0, ..nodes(1, 2, 4) }), JobError::Zero { what: "--job-nodes" });
        assert_eq!(
            refused(Nodes { node_cpus: Some(6), ..nodes(1, 2, 4) }),
            JobError::Cores { tasks: 2, cpus: 4, node_cpus: 6 }
        );
        assert_eq!(refused(Nodes { cpus_per_task: None, ..nodes(1, 2, 4) }), JobError::NoCores);
        let shared = size_job(&plan, &Nodes { cpus_per_task: None, node_cpus: Some(9), ..nodes(1, 2, 4) }).unwrap();
        assert_eq!(shared.cpus_per_task, 4);
        // Longer than the partition allows, unless the user gave the time (it resumes).
        let short = Nodes { max_time: Some("5".into()), ..nodes(1, 2, 4) };
        let JobError::Time { limit, max, .. } = refused(short.clone()) else { panic!("not refused for time") };
        assert_eq!(max, "5");
        assert!(minutes_of(&limit).unwrap().unwrap() > 5);
        let resubmitted = size_job(&plan, &Nodes { time_given: true, ..short }).unwrap();
        assert_eq!(resubmitted.verify_minutes, 5, "the verify job stays within the partition");
        assert_eq!(
            refused(Nodes { max_time: Some("soon".into()), ..nodes(1, 2, 4) }),
            JobError::TimeSyntax("soon".into())
        );
        let full = refused(Nodes { disk_per_node_tb: Some(1e-9), ..nodes(1, 2, 4) });
        assert!(
            full.to_string().starts_with("the tables and scratch need ") && full.to_string().contains("have 0.00 GiB"),
            "{full}"
        );
        assert_eq!(refused(Nodes { disk_per_node_tb: Some(0.0), ..nodes(1, 2, 4) }), JobError::Disk(0.0));
        // Memory below what the values need, and below the streaming floor.
        let tiny = report(2, 1e-7);
        let memory = size_job(&tiny, &nodes(1, 2, 4)).unwrap_err();
        assert!(matches!(&memory, JobError::Memory(m) if m.starts_with("each of the 2 ranks needs ")), "{memory}");
    }

    #[test]
    fn slurm_times_read_as_sinfo_prints_them() {
        for (text, minutes) in [
            ("90", Some(90)),
            ("5:30", Some(6)),
            ("1:00:00", Some(60)),
            ("2-00:00:00", Some(2880)),
            ("1-12", Some(2160)),
            ("1-12:30", Some(2190)),
            ("infinite", None),
            ("UNLIMITED", None),
        ] {
            assert_eq!(minutes_of(text), Ok(minutes), "{text}");
        }
        for bad in ["", "1:2:3:4", "a-1", "1-", "-5", "1-2:3:4:5", "soon"] {
            assert_eq!(minutes_of(bad), Err(JobError::TimeSyntax(bad.to_owned())), "{bad}");
        }
        assert_eq!(slurm_time(2190), "1-12:30:00");
        assert_eq!(minutes_of(&slurm_time(12345)), Ok(Some(12345)));
    }
}
