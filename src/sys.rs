//! Facts about the machine and the batch job this process runs in, read by whoever sizes
//! work to them: the memory available (the least of the machine's, the control group's and
//! the address space's), the disk free, and what a Slurm allocation grants each rank; and
//! the library's other calls to the operating system (priorities, limits, flushing a file
//! system, whether a process runs, CPU time), each with its safety argument once, and
//! nothing where the platform has no such call. Memory maps are made in one place too:
//! [`crate::store`]'s reader.

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

/// The memory of one rank of this job ([`RankMemory`]): the memory this process may take
/// (`available`, [`memory_limit`]: MemAvailable, the control group's and the address
/// space's limits) or, under Slurm, the job's allocation
/// (`SLURM_MEM_PER_NODE` MiB, or `SLURM_MEM_PER_CPU` MiB × `SLURM_CPUS_PER_TASK` per rank) if
/// less, shared by the ranks on the node (`OMPI_COMM_WORLD_LOCAL_SIZE`, `MPI_LOCALNRANKS` or
/// `SLURM_NTASKS_PER_NODE`; one without them). `None` where neither is known.
pub fn rank_memory(read: impl Fn(&str) -> Option<String>, available: Option<u64>) -> Option<RankMemory> {
    let number = |name: &str| read(name).and_then(|v| v.trim().parse::<u64>().ok()).filter(|&n| n > 0);
    let mib = 1u64 << 20;
    let ranks_here = ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"]
        .iter()
        .find_map(|name| number(name))
        .unwrap_or(1);
    let slurm = number("SLURM_MEM_PER_NODE").map(|m| m * mib).or_else(|| {
        number("SLURM_MEM_PER_CPU").map(|m| m * mib * number("SLURM_CPUS_PER_TASK").unwrap_or(1) * ranks_here)
    });
    let machine = match (available, slurm) {
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

/// The memory this process may still take, in bytes: the least of MemAvailable, what its
/// control group's limit leaves ([`cgroup_room`]) and what its address-space limit leaves
/// (`ulimit -v`, [`address_space_room`]); `None` where none is known. A container or a
/// batch job that caps the process below the machine's free memory is thus sized to the
/// cap, and a solve streams or is refused up front instead of aborting when it hits it.
pub fn memory_limit() -> Option<u64> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    [mem_available(), cgroup_room(read), address_space_room()].into_iter().flatten().min()
}

/// What the memory limits of this process's control group and its ancestors leave above
/// their current use, the least of them (cgroup v2 `memory.max` − `memory.current`, or v1
/// `memory.limit_in_bytes` − `memory.usage_in_bytes`); `read` reads a file (the test's
/// stand-in for /proc and /sys). `None` where no limit is set.
pub fn cgroup_room(read: impl Fn(&str) -> Option<String>) -> Option<u64> {
    let groups = read("/proc/self/cgroup")?;
    let number = |text: Option<String>| text.and_then(|t| t.trim().parse::<u64>().ok());
    let mut least: Option<u64> = None;
    for line in groups.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next(), fields.next().unwrap_or(""), fields.next().unwrap_or(""));
        let (root, limit_file, use_file) = if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max", "memory.current")
        } else if controllers.split(',').any(|c| c == "memory") {
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes")
        } else {
            continue;
        };
        // The group and every ancestor up to the root: a limit anywhere caps the process.
        let mut group = std::path::PathBuf::from(path.trim());
        loop {
            let dir = format!("{root}{}", group.display()).trim_end_matches('/').to_owned();
            // v1 states "no limit" as a huge number; anything from 2^60 on is none.
            if let Some(limit) = number(read(&format!("{dir}/{limit_file}"))).filter(|&l| l < 1 << 60) {
                let used = number(read(&format!("{dir}/{use_file}"))).unwrap_or(0);
                let room = limit.saturating_sub(used);
                least = Some(least.map_or(room, |l| l.min(room)));
            }
            if !group.pop() {
                break;
            }
        }
    }
    least
}

/// Virtual memory each thread may still map beyond what the process has mapped when it is
/// sized: a thread's stack and its allocator's arena.
pub const THREAD_VIRTUAL_BYTES: u64 = 72 << 20;

/// What the address-space limit (`ulimit -v`, RLIMIT_AS) leaves above the process's
/// virtual size (VmSize), less room for the stacks and allocator arenas of the threads it
/// will start ([`THREAD_VIRTUAL_BYTES`] each); `None` where it has no such limit.
pub fn address_space_room() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = std::mem::MaybeUninit::<libc::rlimit>::uninit();
        // SAFETY: getrlimit fills the struct it is given and touches nothing else.
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, limit.as_mut_ptr()) } != 0 {
            return None;
        }
        // SAFETY: a zero return means the struct was filled.
        let soft = unsafe { limit.assume_init() }.rlim_cur;
        if soft == libc::RLIM_INFINITY {
            return None;
        }
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
        let mapped = line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024;
        let threads = std::thread::available_parallelism().map_or(1, usize::from) as u64 + 1;
        Some(soft.saturating_sub(mapped + threads * THREAD_VIRTUAL_BYTES))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Bytes free to this user on the file system of `path` (or of its nearest existing
/// ancestor, for a directory not made yet), and that file system's device number.
pub fn free_disk(path: &std::path::Path) -> std::io::Result<(u64, u64)> {
    let absolute = std::path::absolute(path)?;
    let existing = absolute.ancestors().find(|p| p.exists()).unwrap_or(std::path::Path::new("/"));
    statvfs_free(existing)
}

#[cfg(unix)]
fn statvfs_free(path: &std::path::Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    let device = std::fs::metadata(path)?.dev();
    let name = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `name` is a NUL-terminated path and statvfs fills the struct it is given.
    if unsafe { libc::statvfs(name.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a zero return means the struct was filled.
    let stat = unsafe { stat.assume_init() };
    // The fields are u64 here and narrower on 32-bit targets.
    #[allow(clippy::useless_conversion)]
    Ok((u64::from(stat.f_bavail) * u64::from(stat.f_frsize), device))
}

#[cfg(not(unix))]
fn statvfs_free(_path: &std::path::Path) -> std::io::Result<(u64, u64)> {
    Ok((u64::MAX, 0))
}

/// An environment of `pairs` only, read as `std::env::var` would be: for tests of what a
/// job's variables decide.
/// Raises this process's open-file limit to its hard limit (the usual soft limit, 1,024,
/// is what a server's slow clients exhaust) and returns the descriptors it may hold: the
/// limit now in force, or 1,024 where it cannot be read.
pub fn raise_open_file_limit() -> u64 {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit and setrlimit read and write the one struct passed.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return 1024;
            }
            let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 { limit.rlim_max } else { limit.rlim_cur }
        }
    }
    #[cfg(not(unix))]
    {
        1024
    }
}

/// Lowers the calling thread's scheduling priority (nice 10), so that light work at the
/// default priority goes first on a busy machine (Linux; elsewhere nothing).
pub fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority and gettid only read their arguments; a thread id names this thread.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

/// Makes `command`'s child run at a lower priority (nice 10) and die with this process
/// (Linux; elsewhere nothing): a child doing heavy work for a server.
pub fn run_child_below(command: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec the closure makes two system calls, which take no
        // lock and allocate nothing.
        unsafe {
            command.pre_exec(|| {
                libc::setpriority(libc::PRIO_PROCESS, 0, 10);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Hands memory that heavy work freed back to the system (glibc keeps freed pages in its
/// per-thread arenas otherwise, so a server that ran a solve would hold its peak for good).
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Flushes the whole file system holding `handle` to its device (Linux's `syncfs`): one
/// call for a batch of files written there.
#[cfg(target_os = "linux")]
pub fn sync_file_system(handle: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: syncfs only reads the descriptor, which `handle` keeps open.
    if unsafe { libc::syncfs(handle.as_raw_fd()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Whether process `pid` runs on this host (where it cannot be told: yes).
pub fn process_runs(pid: i32) -> bool {
    #[cfg(unix)]
    {
        // SAFETY: signal 0 only checks that the process exists; nothing is sent.
        pid <= 0
            || unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// CPU time this process has used so far (user and system, every thread), where the
/// platform tells it.
pub fn process_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
        // SAFETY: getrusage fills the struct it is given and touches nothing else.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
            return None;
        }
        // SAFETY: a zero return means the struct was filled.
        let usage = unsafe { usage.assume_init() };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

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

    /// A control group's limit, or an ancestor's, caps the memory: v2 and v1, the least
    /// room of them, none where no limit is set.
    #[test]
    fn a_control_groups_limit_caps_the_memory() {
        // The files as the test's "environment": a path's text by its name.
        let files = env;
        let v2 = [
            ("/proc/self/cgroup", "0::/job/step\n"),
            ("/sys/fs/cgroup/job/step/memory.max", "max\n"),
            ("/sys/fs/cgroup/job/memory.max", "1073741824\n"),
            ("/sys/fs/cgroup/job/memory.current", "268435456\n"),
        ];
        assert_eq!(cgroup_room(files(&v2)), Some(768 << 20), "the ancestor's limit less its use");
        let v1 = [
            ("/proc/self/cgroup", "5:cpu,cpuacct:/x\n4:memory:/slurm/uid_0/job_7\n"),
            ("/sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes", "2147483648"),
            ("/sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.usage_in_bytes", "1073741824"),
            ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712"),
        ];
        assert_eq!(cgroup_room(files(&v1)), Some(1 << 30));
        let unlimited = [("/proc/self/cgroup", "0::/\n"), ("/sys/fs/cgroup/memory.max", "max")];
        assert_eq!(cgroup_room(files(&unlimited)), None);
        assert_eq!(cgroup_room(files(&[])), None);
    }
}

/// Elapsed time for reports, and zero where the platform has no clock: WebAssembly in a
/// browser, where `Instant::now` panics (the web app's solver times nothing it shows).
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch(Option<std::time::Instant>);

impl Stopwatch {
    /// Starts timing now.
    pub fn start() -> Stopwatch {
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        return Stopwatch(None);
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        return Stopwatch(Some(std::time::Instant::now()));
    }

    /// The time since [`Stopwatch::start`] (zero without a clock).
    pub fn elapsed(&self) -> std::time::Duration {
        self.0.map_or(std::time::Duration::ZERO, |started| started.elapsed())
    }
}
