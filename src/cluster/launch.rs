//! Catching launcher mismatches: a job meant for P ranks that would silently run as P
//! separate one-rank solves (or as fewer ranks than Slurm allocated).

use std::fmt;

/// The launcher started another number of processes than this solve sees.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct LaunchMismatch {
    /// The environment variable that disagrees.
    pub variable: &'static str,
    /// Its value.
    pub expected: usize,
    /// The ranks this process sees (1 without MPI).
    pub world: usize,
    /// Whether this yz was built with MPI.
    pub mpi: bool,
}

impl fmt::Display for LaunchMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let LaunchMismatch { variable, expected, world, mpi } = self;
        if *mpi {
            write!(
                f,
                "{variable}={expected} but the MPI world has {world} rank(s): the launcher and the MPI library \
                 disagree (launch with `srun --mpi=pmix` or `mpirun -n {expected}` against the MPI yz was built with)"
            )
        } else {
            write!(
                f,
                "{variable}={expected} but this yz was built without MPI and runs as 1 process: {expected} copies \
                 would solve alone; build the MPI yz with scripts/build-mpi"
            )
        }
    }
}

/// Checks the launcher's environment (`read` gives a variable's value) against the world
/// size: `SLURM_NTASKS` must equal it in an MPI build, and a world of one process must not
/// be one of several that OpenMPI (`OMPI_COMM_WORLD_SIZE`), a PMI launcher (`PMI_SIZE`) or
/// a Slurm step (`SLURM_STEP_NUM_TASKS`, without MPI) started.
pub fn check(world: usize, mpi: bool, read: impl Fn(&str) -> Option<String>) -> Result<(), LaunchMismatch> {
    let number = |name: &str| read(name).and_then(|v| v.trim().parse::<usize>().ok());
    let mut variables = Vec::new();
    if mpi {
        variables.push("SLURM_NTASKS");
    }
    if world == 1 {
        variables.extend(["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]);
        if !mpi {
            variables.push("SLURM_STEP_NUM_TASKS");
        }
    }
    for variable in variables {
        if let Some(expected) = number(variable)
            && expected != world
        {
            return Err(LaunchMismatch { variable, expected, world, mpi });
        }
    }
    Ok(())
}

/// Memory one rank of this job may use, in bytes: the node's available memory
/// (`mem_available`, MemAvailable of /proc/meminfo) or, under Slurm, the job's allocation
/// (`SLURM_MEM_PER_NODE` MiB, or `SLURM_MEM_PER_CPU` MiB × `SLURM_CPUS_PER_TASK`) if less,
/// shared by the ranks on the node (`OMPI_COMM_WORLD_LOCAL_SIZE`, `MPI_LOCALNRANKS` or
/// `SLURM_NTASKS_PER_NODE`; one without them). `None` where neither is known.
pub fn memory_per_rank(read: impl Fn(&str) -> Option<String>, mem_available: Option<u64>) -> Option<u64> {
    let number = |name: &str| read(name).and_then(|v| v.trim().parse::<u64>().ok()).filter(|&n| n > 0);
    let mib = 1u64 << 20;
    let local = ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"]
        .iter()
        .find_map(|name| number(name))
        .unwrap_or(1);
    let node = mem_available.map(|bytes| bytes / local);
    let slurm = number("SLURM_MEM_PER_NODE")
        .map(|m| m * mib / local)
        .or_else(|| number("SLURM_MEM_PER_CPU").map(|m| m * mib * number("SLURM_CPUS_PER_TASK").unwrap_or(1)));
    match (node, slurm) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// MemAvailable of /proc/meminfo in bytes, where there is one.
pub fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn mismatches_are_caught() {
        assert!(check(4, true, env(&[("SLURM_NTASKS", "4")])).is_ok());
        assert!(check(1, false, env(&[])).is_ok());
        assert!(check(1, false, env(&[("SLURM_NTASKS", "4")])).is_ok(), "a batch script without srun");
        let e = check(1, true, env(&[("SLURM_NTASKS", "4")])).unwrap_err();
        assert!(e.to_string().contains("SLURM_NTASKS=4") && e.to_string().contains("1 rank"), "{e}");
        let e = check(1, false, env(&[("OMPI_COMM_WORLD_SIZE", "3")])).unwrap_err();
        assert!(e.to_string().contains("built without MPI"), "{e}");
        assert!(check(1, false, env(&[("SLURM_STEP_NUM_TASKS", "2")])).is_err());
        assert!(check(2, true, env(&[("OMPI_COMM_WORLD_SIZE", "2"), ("SLURM_NTASKS", "3")])).is_err());
    }

    #[test]
    fn memory_is_shared_by_the_ranks_of_a_node() {
        let gib = 1u64 << 30;
        assert_eq!(memory_per_rank(env(&[]), Some(8 * gib)), Some(8 * gib));
        assert_eq!(memory_per_rank(env(&[("OMPI_COMM_WORLD_LOCAL_SIZE", "4")]), Some(8 * gib)), Some(2 * gib));
        let slurm = [("SLURM_MEM_PER_NODE", "4096"), ("SLURM_NTASKS_PER_NODE", "2")];
        assert_eq!(memory_per_rank(env(&slurm), Some(64 * gib)), Some(2 * gib));
        let per_cpu = [("SLURM_MEM_PER_CPU", "1024"), ("SLURM_CPUS_PER_TASK", "3")];
        assert_eq!(memory_per_rank(env(&per_cpu), None), Some(3 * gib));
        assert_eq!(memory_per_rank(env(&[]), None), None);
    }
}
