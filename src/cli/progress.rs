//! The command line's view of [`Progress`]: a bar on standard error when it is a terminal
//! and the output is text; with `--json` or on a pipe nothing, unless `RUST_LOG` is set,
//! in which case each phase is logged when it starts and ends.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use yz::progress::Progress;

/// Shows the progress of one command's long work.
pub struct Bar {
    bar: ProgressBar,
    /// Log phases instead of drawing them.
    log: bool,
    /// The running phase and when it started, for the log.
    phase: Mutex<Option<(String, Instant)>>,
}

impl Bar {
    /// The display for a command printing JSON (`as_json`) or text.
    pub fn new(as_json: bool) -> Bar {
        let draw = !as_json && std::io::stderr().is_terminal();
        let bar = if draw { ProgressBar::new(0) } else { ProgressBar::hidden() };
        Bar { bar, log: !draw && std::env::var_os("RUST_LOG").is_some(), phase: Mutex::new(None) }
    }

    /// Sets the units done so far, for work that reports a position rather than steps.
    pub fn set_position(&self, done: u64) {
        self.bar.set_position(done);
    }
}

impl Progress for Bar {
    fn start(&self, phase: &str, total: u64, unit: &'static str) {
        let template = format!("{{msg}} {{bar:30}} {{human_pos}}/{{human_len}} {unit}, eta {{eta}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            self.bar.set_style(style);
        }
        self.bar.reset();
        self.bar.set_length(total);
        self.bar.set_message(phase.to_string());
        if self.log {
            tracing::info!(phase, total, unit, "started");
        }
        *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = Some((phase.to_string(), Instant::now()));
    }

    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
        if let Some((phase, started)) = self.phase.lock().unwrap_or_else(|e| e.into_inner()).take()
            && self.log
        {
            tracing::info!(phase, seconds = started.elapsed().as_secs_f64(), "done");
        }
    }
}
