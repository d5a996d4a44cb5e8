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

/// Progress reported to nobody: for tests and embedding programs that show none.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _phase: &str, _total: u64, _unit: &'static str) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
}
