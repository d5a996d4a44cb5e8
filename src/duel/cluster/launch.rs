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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::environment as env;

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
}
