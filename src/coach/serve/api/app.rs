//! The server's state: the tables it holds (read or built once, checked against their files
//! before each use), the gates of heavy work, and how that work runs (off the async
//! threads, at a lower priority, its freed memory returned; a target table's build in a
//! child process).

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use tokio::sync::Semaphore;

use super::ApiError;
use crate::coach::record::Record;
use crate::coach::review::{self, PlayerTotals, ReviewOptions};
use crate::coach::serve::ServeConfig;
use crate::duel::cards::Cards;
use crate::game::Game;
use crate::progress::{Progress, Silent};
use crate::solo::SoloTable;
use crate::store::{DataTable, open_or_solve};
use crate::targets::TargetTable;
use crate::targets::payoff::BeatReport;
use crate::targets::room::BuildNeeds;

/// A table the server holds (in its own memory: [`crate::store::hold_files_in_memory`]),
/// with the file it was read from as it was then: a file changed since is noticed before
/// the table is used, and the request told.
struct Held<T> {
    table: Arc<T>,
    stamp: Option<FileStamp>,
}

/// What identifies a file's contents cheaply: its inode, length and modification time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileStamp {
    inode: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileStamp {
    fn of(path: &Path) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(FileStamp { inode: meta.ino(), len: meta.len(), modified: meta.modified().ok() })
    }
}

impl<T> Held<T> {
    fn read(path: &Path, table: T) -> Held<T> {
        Held { table: Arc::new(table), stamp: FileStamp::of(path) }
    }

    /// The table, unless the file at `path` changed since it was read.
    fn current(&self, path: &Path) -> Option<Arc<T>> {
        (FileStamp::of(path) == self.stamp).then(|| Arc::clone(&self.table))
    }
}

/// A target table: read once whoever asks, or built by a child process (a minute or two)
/// while requests are told how far it is.
#[derive(Default)]
struct TargetSlot {
    table: tokio::sync::OnceCell<Held<TargetTable>>,
    build: Mutex<Build>,
}

/// Where the build of a target table stands.
#[derive(Default)]
enum Build {
    /// None runs, and none failed lately.
    #[default]
    Idle,
    /// A child process builds it: its share done.
    Running(Arc<Share>),
    /// The last build failed at `at`: its error is the answer for [`FAILED_BUILD_KEPT`],
    /// no build started again meanwhile.
    Failed { at: Instant, error: ApiError },
}

/// How long a failed build's error answers the requests for its table before another
/// build is tried (a retry at once would fail the same way, a page asking again and again
/// starting a build each time).
const FAILED_BUILD_KEPT: Duration = Duration::from_secs(600);

/// The share of a build done, as its child reports it ([`crate::progress::Lines`]).
#[derive(Default)]
struct Share {
    total: AtomicU64,
    done: AtomicU64,
}

impl Share {
    fn set(&self, done: u64, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(done, Ordering::Relaxed);
    }

    fn percent(&self) -> u64 {
        let total = self.total.load(Ordering::Relaxed);
        (100 * self.done.load(Ordering::Relaxed)).checked_div(total).unwrap_or(0).min(99)
    }
}

/// Heavy work's progress, reported to nobody, cancelled once the request's handler is
/// dropped (axum drops it when the client hangs up): the work then stops at its next
/// check instead of holding the gate for nobody.
pub(super) struct Cancel(Arc<std::sync::atomic::AtomicBool>);

impl Cancel {
    /// The progress to hand to the work, and the guard that cancels it when dropped.
    pub(super) fn pair() -> (Cancel, CancelOnDrop) {
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        (Cancel(Arc::clone(&flag)), CancelOnDrop(flag))
    }
}

impl Progress for Cancel {
    fn start(&self, _phase: &str, _total: u64, _unit: &'static str) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
    fn cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Held by a request's handler: cancels its work when the handler is dropped.
pub(super) struct CancelOnDrop(Arc<std::sync::atomic::AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The server's state: its configuration, the tables read, the gates of heavy work.
pub(in crate::coach::serve) struct App {
    pub(super) config: ServeConfig,
    solo: Mutex<HashMap<Game, Arc<tokio::sync::OnceCell<Held<SoloTable>>>>>,
    targets: Mutex<HashMap<Game, Arc<TargetSlot>>>,
    /// Two-player card tables, built once per game (a few tenths of a second each).
    pub(super) cards: Mutex<HashMap<Game, Arc<Cards>>>,
    /// The best reply to the optimal player, per game: computed once (a minute or so for
    /// a whole card), then answered at once.
    pub(super) beats: Mutex<HashMap<Game, BeatReport>>,
    /// API requests being worked on ([`take_turn`]).
    pub(super) turns: Arc<Semaphore>,
    /// KiB of request bodies held at once, all connections together
    /// ([`BODY_BUDGET_KIB`]), and of those the large bodies' ([`LARGE_BODY_BUDGET_KIB`]).
    pub(super) body_kib: (Arc<Semaphore>, Arc<Semaphore>),
    /// One two-player solve or review at a time.
    heavy: Arc<Semaphore>,
    /// One target table build at a time (a minute or two and over a gigabyte each).
    builds: Arc<Semaphore>,
    /// The players' totals of the last [`REVIEWS_KEPT`] records reviewed, by the record's
    /// text: a game added to the history after its review is not reviewed again.
    pub(super) reviewed: Mutex<VecDeque<(String, Vec<PlayerTotals>)>>,
}

/// KiB of request bodies the server holds at once, all connections together: a request
/// whose body does not fit what is left is answered 503 before its body is read, so that
/// clients holding bodies open cannot grow the server's memory beyond this.
pub(super) const BODY_BUDGET_KIB: usize = 64 << 10;
/// KiB of that the large bodies (over [`SMALL_BODY_BYTES`], or of no declared length) may
/// hold together: the rest stays for the small requests of the players (advice, a card).
pub(super) const LARGE_BODY_BUDGET_KIB: usize = 48 << 10;
/// A body of at most this many declared bytes is small.
pub(super) const SMALL_BODY_BYTES: u64 = 16 << 10;

/// Reviews whose totals the server keeps for the history.
const REVIEWS_KEPT: usize = 8;

/// How many times a request reads a table whose file changed since the server read it
/// before it gives up (409): a file replaced once (another `yz` solving the same table into
/// the data directory, an operator copying a table in) is read again and answers; only a
/// file replaced again and again while it is read is refused.
const READS_OF_A_CHANGING_FILE: usize = 3;

/// Drops the table held for `game` in `held` where it is still `stale` (a request that read
/// it anew meanwhile keeps its own), so that the next request reads the file again.
fn forget<C>(held: &Mutex<HashMap<Game, Arc<C>>>, game: Game, stale: &Arc<C>) {
    let mut held = lock(held);
    if held.get(&game).is_some_and(|now| Arc::ptr_eq(now, stale)) {
        held.remove(&game);
    }
}

impl App {
    pub(in crate::coach::serve) fn new(config: ServeConfig) -> App {
        App {
            config,
            solo: Mutex::new(HashMap::new()),
            targets: Mutex::new(HashMap::new()),
            cards: Mutex::new(HashMap::new()),
            beats: Mutex::new(HashMap::new()),
            turns: Arc::new(Semaphore::new(api_turns())),
            body_kib: (Arc::new(Semaphore::new(BODY_BUDGET_KIB)), Arc::new(Semaphore::new(LARGE_BODY_BUDGET_KIB))),
            heavy: Arc::new(Semaphore::new(1)),
            builds: Arc::new(Semaphore::new(1)),
            reviewed: Mutex::new(VecDeque::new()),
        }
    }

    /// The solitaire table of `game`, read (or solved, 0.4 s) once, whoever asks: requests
    /// that come meanwhile wait for the same one. A file replaced since it was read (another
    /// `yz` solving the same table into the data directory) is read again.
    pub(super) async fn solo(self: &Arc<Self>, game: Game) -> Result<Arc<SoloTable>, ApiError> {
        let path = self.config.data.join(SoloTable::file_name(game));
        for _ in 0..READS_OF_A_CHANGING_FILE {
            let cell = Arc::clone(lock(&self.solo).entry(game).or_default());
            let held = cell
                .get_or_try_init(|| {
                    let (app, path) = (Arc::clone(self), path.clone());
                    blocking(move || {
                        app.check_writable_for(&path)?;
                        let table =
                            open_or_solve::<SoloTable>(&app.config.data, game, &Silent).map_err(ApiError::internal)?;
                        Ok(Held::read(&path, table))
                    })
                })
                .await?;
            if let Some(table) = held.current(&path) {
                return Ok(table);
            }
            forget(&self.solo, game, &cell);
        }
        Err(ApiError::changed(&path))
    }

    /// The target table of `game`: read once whoever asks (requests meanwhile wait for it),
    /// or, where none was written, built by a child process while requests are told how
    /// far it is. A file replaced since it was read is read again.
    pub(super) async fn targets(self: &Arc<Self>, game: Game) -> Result<Arc<TargetTable>, ApiError> {
        let path = self.config.data.join(TargetTable::file_name(game));
        for _ in 0..READS_OF_A_CHANGING_FILE {
            let slot = Arc::clone(lock(&self.targets).entry(game).or_default());
            if slot.table.get().is_none() && !path.exists() {
                return Err(self.build_targets(game, &path, &slot));
            }
            let held = slot
                .table
                .get_or_try_init(|| {
                    let path = path.clone();
                    blocking(move || {
                        let table = TargetTable::open(&path, game).map_err(ApiError::internal)?;
                        Ok(Held::read(&path, table))
                    })
                })
                .await?;
            if let Some(table) = held.current(&path) {
                return Ok(table);
            }
            forget(&self.targets, game, &slot);
        }
        Err(ApiError::changed(&path))
    }

    /// Starts building the target table at `path` unless a build runs, and says how far it
    /// is; or refuses it, where the build failed lately ([`FAILED_BUILD_KEPT`]) or the
    /// memory or disk it needs is not there (507, before any work).
    fn build_targets(self: &Arc<Self>, game: Game, path: &Path, slot: &Arc<TargetSlot>) -> ApiError {
        let mut build = lock(&slot.build);
        match &*build {
            Build::Running(share) => {
                let percent = share.percent();
                return ApiError::building(&format!("the target table is being built ({percent}% done)"), percent);
            }
            Build::Failed { at, error } if at.elapsed() < FAILED_BUILD_KEPT => return error.clone(),
            _ => {}
        }
        if let Err(error) = self.check_writable_for(path) {
            return error;
        }
        let free_disk = crate::sys::free_disk(&self.config.data).map_or(u64::MAX, |(free, _)| free);
        if let Err(short) = BuildNeeds::of(game).check(crate::sys::memory_limit(), free_disk) {
            tracing::warn!(%short, "target table not built");
            return ApiError::new(StatusCode::INSUFFICIENT_STORAGE, short.to_string());
        }
        let Ok(permit) = Arc::clone(&self.builds).try_acquire_owned() else {
            return ApiError::building("another rule set's target table is being built (a minute or two)", 0);
        };
        let share = Arc::new(Share::default());
        *build = Build::Running(Arc::clone(&share));
        let (config, path, slot) = (self.config.clone(), path.to_owned(), Arc::clone(slot));
        // The child is started and waited for by a thread of its own, which lives as long
        // as the child (the child dies with the thread that started it).
        std::thread::spawn(move || {
            let built = build_in_child(&config, game, &path, &share);
            *lock(&slot.build) = match built {
                Ok(()) => Build::Idle,
                Err(error) => Build::Failed { at: Instant::now(), error },
            };
            drop(permit);
        });
        ApiError::building("the target table is being built (a minute or two)", 0)
    }

    /// Refuses (507, naming the directory: a final answer, which the page does not ask
    /// again) a table that would have to be written to a data directory this server cannot
    /// write, before any work on it.
    fn check_writable_for(&self, path: &Path) -> Result<(), ApiError> {
        if path.exists() {
            return Ok(());
        }
        let dir = &self.config.data;
        let writable = std::fs::create_dir_all(dir).is_ok() && tempfile::tempfile_in(dir).is_ok();
        if writable {
            return Ok(());
        }
        Err(ApiError::new(
            StatusCode::INSUFFICIENT_STORAGE,
            format!(
                "the table this needs is not in the data directory {}, and the server cannot write there to solve it",
                dir.display()
            ),
        ))
    }

    /// Admits one heavy request (a two-player solve, a review, a best reply), or refuses it
    /// as busy;
    /// the permit is held until the work ends.
    pub(super) fn heavy_gate(&self) -> Result<HeavyPermit, ApiError> {
        (Arc::clone(&self.heavy).try_acquire_owned())
            .map(|permit| HeavyPermit { _permit: permit })
            .map_err(|_| ApiError::busy("another two-player solve or review is running"))
    }

    /// Reviews `record` (a whole card) under the heavy gate, `top` mistakes broken down,
    /// and keeps its players' totals for the history ([`App::reviewed`]).
    pub(super) async fn review(
        self: &Arc<Self>,
        record: Record,
        top: usize,
    ) -> Result<(Record, review::Review), ApiError> {
        let gate = self.heavy_gate()?;
        if record.players().len() > 1 {
            self.targets(record.game()).await?;
        }
        let app = Arc::clone(self);
        let (cancel, _cancel_on_drop) = Cancel::pair();
        blocking(move || {
            let _gate = gate;
            let options = ReviewOptions {
                data: &app.config.data,
                top,
                tolerance: review::DEFAULT_TOLERANCE,
                on_the_fly: app.config.duel_positions,
            };
            let reviewed = review::review(&record, options, &cancel)?;
            let mut kept = lock(&app.reviewed);
            if kept.len() == REVIEWS_KEPT {
                kept.pop_front();
            }
            kept.push_back((record.to_text(), reviewed.players.clone()));
            drop(kept);
            Ok((record, reviewed))
        })
        .await
    }

    /// The card tables of `game`, built on first use.
    pub(super) fn cards(&self, game: Game) -> Arc<Cards> {
        Arc::clone(lock(&self.cards).entry(game).or_insert_with(|| Arc::new(Cards::new(game))))
    }
}

/// Lines of a build's standard error (other than its progress) kept for the log.
const BUILD_LINES_KEPT: usize = 8;

/// Builds the target table of `game` at `path` in a child process, `yz targets solve`
/// ([`ServeConfig::exe`]), at a lower priority, its progress read into `share`: a build
/// that runs out of memory or disk takes the child down, never the server. The error, for
/// the requests that ask meanwhile, names no path (the log has the child's last words).
fn build_in_child(config: &ServeConfig, game: Game, path: &Path, share: &Share) -> Result<(), ApiError> {
    use std::io::BufRead;
    if let Ok(removed) = crate::store::remove_dead_temp_files(path)
        && !removed.is_empty()
    {
        tracing::info!(?removed, "removed what killed builds left");
    }
    let mut child = start_build(config, game).map_err(ApiError::internal)?;
    let mut last_words = VecDeque::new();
    if let Some(stderr) = child.stderr.take() {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            match crate::progress::read_line(&line) {
                Some((done, total)) => share.set(done, total),
                None => {
                    if last_words.len() == BUILD_LINES_KEPT {
                        last_words.pop_front();
                    }
                    last_words.push_back(line);
                }
            }
        }
    }
    let status = child.wait().map_err(ApiError::internal)?;
    if status.success() {
        tracing::info!(path = %path.display(), "target table built");
        return Ok(());
    }
    let said: Vec<String> = last_words.into();
    let said = said.join("\n");
    tracing::error!(%status, %said, "the target table's build failed");
    Err(build_failure(status, &said))
}

/// Starts `yz targets solve` for `game` into the data directory, writing its progress as
/// lines on its standard error; at nice 10, and (Linux) killed if the server dies.
fn start_build(config: &ServeConfig, game: Game) -> std::io::Result<Child> {
    let mut command = Command::new(&config.exe);
    command
        .arg("--data")
        .arg(&config.data)
        .args(["targets", "solve", "--rules", game.rules.name(), "--progress-lines"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    crate::sys::run_child_below(&mut command);
    command.spawn()
}

/// The answer for a build that ended with `status`, having said `said` on its standard
/// error: what stopped it, in words without paths, and when it is tried again.
fn build_failure(status: std::process::ExitStatus, said: &str) -> ApiError {
    use std::os::unix::process::ExitStatusExt;
    let out_of_memory = said.contains("memory allocation") || status.signal() == Some(libc::SIGKILL);
    let out_of_disk = said.contains("No space left") || said.contains("os error 28");
    let why = if out_of_disk {
        "the data directory's disk filled up".to_owned()
    } else if out_of_memory {
        "it ran out of memory".to_owned()
    } else {
        match status.signal() {
            Some(signal) => format!("it was stopped by signal {signal}"),
            None => format!("it failed (exit status {}; the server's log says why)", status.code().unwrap_or(-1)),
        }
    };
    let minutes = FAILED_BUILD_KEPT.as_secs() / 60;
    let message = format!(
        "the target table could not be built: {why}. The server goes on without it and tries again when asked \
         after {minutes} minutes (or when restarted)"
    );
    let status =
        if out_of_memory || out_of_disk { StatusCode::INSUFFICIENT_STORAGE } else { StatusCode::INTERNAL_SERVER_ERROR };
    ApiError::new(status, message)
}

/// Locks `mutex`, whatever a panicking holder left (the maps stay consistent).
pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `work` off the async threads, at [`background_priority`].
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(|| {
        background_priority();
        work()
    })
    .await
    .map_err(ApiError::internal)?
}

/// Lowers the calling thread's scheduling priority (nice 10; Linux, where a thread has its
/// own), once per thread. Every thread that does work for a request (the blocking pool,
/// the solver's threads, table builds) runs so, and the async threads that answer
/// requests at the default: on a machine busy with solves, the kernel gives those few
/// milliseconds to a light request first, instead of a share among a hundred busy threads.
pub(in crate::coach::serve) fn background_priority() {
    thread_local!(static LOWERED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    if LOWERED.replace(true) {
        return;
    }
    crate::sys::lower_this_threads_priority();
}

/// A heavy request's place ([`App::heavy_gate`]): given back, and the memory its work freed
/// returned to the system, when dropped.
pub(in crate::coach::serve) struct HeavyPermit {
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Drop for HeavyPermit {
    fn drop(&mut self) {
        crate::sys::release_freed_memory();
    }
}

/// API requests worked on at once: two per core, so that the cores stay busy while one
/// waits, and one more for a gated solve or review.
fn api_turns() -> usize {
    2 * std::thread::available_parallelism().map_or(2, usize::from) + 1
}
