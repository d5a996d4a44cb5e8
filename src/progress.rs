//! How long work reports how far it has got. The library only counts; whoever calls it
//! decides what to show (the command line draws a bar on a terminal, a notebook or a web
//! app may show nothing or its own widget).

use std::sync::atomic::{AtomicU64, Ordering};

/// Receives the progress of long work: a phase with a known amount of work, then the
/// units done, from any thread.
pub trait Progress: Sync {
    /// Work of `total` units (`unit`: "games", "states", "layers"…) starts, described by
    /// `phase` ("target table", "playing").
    fn start(&self, phase: &str, total: u64, unit: &'static str);
    /// `n` more units are done.
    fn advance(&self, n: u64);
    /// The phase is over.
    fn finish(&self);
    /// Whether whoever waits for the work has gone (a web client that hung up): long work
    /// that checks it (the review, the solve below a two-player position) stops early with
    /// an error instead of running on for nobody.
    fn cancelled(&self) -> bool {
        false
    }
}

/// Work stopped because whoever waited for it has gone ([`Progress::cancelled`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cancelled: whoever asked for this has gone")]
pub struct Cancelled;

/// Progress reported to nobody: for tests and embedding programs that show none.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _phase: &str, _total: u64, _unit: &'static str) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
}

/// Progress written for a program that runs this one as a child and shows its progress
/// (`yz serve` building a target table): a line `progress DONE TOTAL` on standard error
/// when a phase starts and each time another percent of it is done ([`read_line`] reads
/// one back).
#[derive(Debug, Default)]
pub struct Lines {
    total: AtomicU64,
    done: AtomicU64,
    /// The percent last written.
    shown: AtomicU64,
}

impl Lines {
    fn write(done: u64, total: u64) {
        eprintln!("{LINE_PREFIX}{done} {total}");
    }
}

/// What starts a line of [`Lines`].
const LINE_PREFIX: &str = "progress ";

impl Progress for Lines {
    fn start(&self, _phase: &str, total: u64, _unit: &'static str) {
        self.done.store(0, Ordering::Relaxed);
        self.shown.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        Lines::write(0, total);
    }
    fn advance(&self, n: u64) {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        let total = self.total.load(Ordering::Relaxed);
        let percent = (100 * done).checked_div(total).unwrap_or(0);
        if self.shown.fetch_max(percent, Ordering::Relaxed) < percent {
            Lines::write(done, total);
        }
    }
    fn finish(&self) {}
}

/// The `(done, total)` of a line [`Lines`] wrote; `None` for any other line.
pub fn read_line(line: &str) -> Option<(u64, u64)> {
    let (done, total) = line.strip_prefix(LINE_PREFIX)?.split_once(' ')?;
    Some((done.parse().ok()?, total.trim_end().parse().ok()?))
}

/// `seconds` in words for a person reading a log: "40 s", "3 min 20 s", "2 h 05 min",
/// "3 d 4 h".
pub fn duration_words(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "an unknown time".into();
    }
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        3600..86_400 => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
        _ => format!("{} d {} h", s / 86_400, s % 86_400 / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::{duration_words, read_line};

    #[test]
    fn progress_lines_read_back() {
        assert_eq!(read_line("progress 12 400"), Some((12, 400)));
        assert_eq!(read_line("progress 12 400\n"), Some((12, 400)));
        for other in ["Error: no space left", "progress", "progress x 4", "progress 1"] {
            assert_eq!(read_line(other), None, "{other}");
        }
    }

    #[test]
    fn durations_read_as_words() {
        assert_eq!(duration_words(0.4), "0 s");
        assert_eq!(duration_words(59.4), "59 s");
        assert_eq!(duration_words(200.0), "3 min 20 s");
        assert_eq!(duration_words(7500.0), "2 h 05 min");
        assert_eq!(duration_words(3.0 * 86_400.0 + 4.0 * 3600.0), "3 d 4 h");
        assert_eq!(duration_words(f64::INFINITY), "an unknown time");
    }
}
