//! How long work reports how far it has got. The library only counts; whoever calls it
//! decides what to show (the command line draws a bar on a terminal, a notebook or a web
//! app may show nothing or its own widget).

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
    use super::duration_words;

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
