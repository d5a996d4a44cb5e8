//! Facts about the machine and the batch job this process runs in, read by whoever sizes
//! work to them: the memory available, and what a Slurm allocation grants each rank.

/// The memory of one rank of this job and the machine's memory it is a share of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RankMemory {
    /// Bytes one rank may use: its share of `machine`.
    pub per_rank: u64,
    /// Bytes the ranks on this machine share: its available memory, or the Slurm
    /// allocation on it if less.
    pub machine: u64,
    /// Ranks on this machine, sharing it.
    pub ranks_here: u64,
}

/// The memory of one rank of this job ([`RankMemory`]): the node's available memory
/// (`mem_available`, MemAvailable of /proc/meminfo) or, under Slurm, the job's allocation
/// (`SLURM_MEM_PER_NODE` MiB, or `SLURM_MEM_PER_CPU` MiB × `SLURM_CPUS_PER_TASK` per rank) if
/// less, shared by the ranks on the node (`OMPI_COMM_WORLD_LOCAL_SIZE`, `MPI_LOCALNRANKS` or
/// `SLURM_NTASKS_PER_NODE`; one without them). `None` where neither is known.
pub fn rank_memory(read: impl Fn(&str) -> Option<String>, mem_available: Option<u64>) -> Option<RankMemory> {
    let number = |name: &str| read(name).and_then(|v| v.trim().parse::<u64>().ok()).filter(|&n| n > 0);
    let mib = 1u64 << 20;
    let ranks_here = ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"]
        .iter()
        .find_map(|name| number(name))
        .unwrap_or(1);
    let slurm = number("SLURM_MEM_PER_NODE").map(|m| m * mib).or_else(|| {
        number("SLURM_MEM_PER_CPU").map(|m| m * mib * number("SLURM_CPUS_PER_TASK").unwrap_or(1) * ranks_here)
    });
    let machine = match (mem_available, slurm) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    Some(RankMemory { per_rank: machine / ranks_here, machine, ranks_here })
}

/// `path` as one word of a shell command, for advice a user can paste: as it is where it
/// needs no quotes, else in single quotes.
pub fn shell_word(path: &std::path::Path) -> String {
    let path = path.display().to_string();
    let plain = !path.is_empty() && path.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=,:@%".contains(c));
    if plain { path } else { format!("'{}'", path.replace('\'', r"'\''")) }
}

/// MemAvailable of /proc/meminfo in bytes, where there is one.
pub fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// An environment of `pairs` only, read as `std::env::var` would be: for tests of what a
/// job's variables decide.
#[cfg(test)]
pub(crate) fn environment<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::environment as env;
    use super::*;

    #[test]
    fn memory_is_shared_by_the_ranks_of_a_node() {
        let gib = 1u64 << 30;
        let memory_per_rank = |read, available| rank_memory(read, available).map(|m| m.per_rank);
        assert_eq!(memory_per_rank(env(&[]), Some(8 * gib)), Some(8 * gib));
        assert_eq!(memory_per_rank(env(&[("OMPI_COMM_WORLD_LOCAL_SIZE", "4")]), Some(8 * gib)), Some(2 * gib));
        let slurm = [("SLURM_MEM_PER_NODE", "4096"), ("SLURM_NTASKS_PER_NODE", "2")];
        assert_eq!(memory_per_rank(env(&slurm), Some(64 * gib)), Some(2 * gib));
        let per_cpu = [("SLURM_MEM_PER_CPU", "1024"), ("SLURM_CPUS_PER_TASK", "3")];
        assert_eq!(memory_per_rank(env(&per_cpu), None), Some(3 * gib));
        assert_eq!(memory_per_rank(env(&[]), None), None);
        let shared = rank_memory(env(&[("OMPI_COMM_WORLD_LOCAL_SIZE", "4")]), Some(8 * gib)).unwrap();
        assert_eq!(shared, RankMemory { per_rank: 2 * gib, machine: 8 * gib, ranks_here: 4 });
    }

    #[test]
    fn paths_are_quoted_only_where_a_shell_needs_it() {
        use std::path::Path;
        assert_eq!(shell_word(Path::new("/tmp/duel-first-6")), "/tmp/duel-first-6");
        assert_eq!(shell_word(Path::new("my tables")), "'my tables'");
        assert_eq!(shell_word(Path::new("it's")), r"'it'\''s'");
    }
}
