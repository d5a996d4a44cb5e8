//! What `yz duel solve` reports, as a type: its JSON (`Serialize`) and its text
//! (`Display`), the same whether the solve ran in one process or over MPI ranks.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::outcome::{LayerReport, Outcome};
use crate::duel::units::group;
use crate::duel::{DuelValue, Space, WinDraw};
use crate::game::Rules;

/// The value of the first position solved, the start of the game for a whole solve.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct StartValue {
    /// The first player's P(win) + ½ P(draw).
    pub value: f64,
    /// P(win), where the draws were carried (else unknown: `null`).
    pub p_win: Option<f64>,
    /// P(draw), likewise.
    pub p_draw: Option<f64>,
    /// P(lose), likewise.
    pub p_lose: Option<f64>,
}

impl StartValue {
    /// A value carrying the draw probability (its parts unknown where NaN: resumed from
    /// layers stored without draws).
    pub fn with_draws(start: WinDraw<f32>) -> StartValue {
        let known = |x: f64| (!x.is_nan()).then_some(x);
        StartValue {
            value: start.value(),
            p_win: known(start.win()),
            p_draw: known(start.draw()),
            p_lose: known(start.loss()),
        }
    }

    /// A winning chance alone.
    pub fn plain(value: f64) -> StartValue {
        StartValue { value, p_win: None, p_draw: None, p_lose: None }
    }
}

/// A two-player solve finished (`yz duel solve`).
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// The space's first layer.
    pub first_layer: usize,
    /// The lowest layer solved now.
    pub stop_after_layer: usize,
    /// One past the last layer in which someone moves.
    #[serde(skip)]
    pub end_layer: usize,
    /// Boxes a player.
    #[serde(skip)]
    pub boxes: usize,
    /// Positions of the layers solved.
    pub positions: u64,
    /// Seconds the command took.
    pub seconds: f64,
    /// The table directory.
    pub tables: PathBuf,
    /// Bytes of every shard the manifest lists, earlier runs' included.
    pub table_bytes: u64,
    /// MPI ranks (1 in one process).
    pub ranks: usize,
    /// Threads of each rank.
    #[serde(skip)]
    pub threads: usize,
    /// The layer a resumed solve continued from.
    pub resumed_from: Option<usize>,
    /// Whether layers were streamed through scratch files.
    pub streamed: bool,
    /// Blocks of a streamed solve an earlier run had finished.
    pub resumed_blocks: usize,
    /// The budget a streamed solve was cut to; an in-memory solve's reading of the
    /// machine's free memory is left out, as it changes from run to run.
    pub mem_per_rank_bytes: Option<u64>,
    /// Shards found damaged and recomputed from the layer above.
    pub repaired: Vec<String>,
    /// The layers solved, in solve order.
    pub layers: Vec<LayerReport>,
    /// The first position's value, where the solve reached it.
    #[serde(flatten)]
    pub start: Option<StartValue>,
}

impl SolveReport {
    /// The report of `outcome`, a solve of the `positions` of `space` from layer
    /// `stop_after` on into `tables` over `ranks` ranks, which took `seconds`; `budget` is
    /// the memory a streamed solve was cut to.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        space: &Space,
        (stop_after, positions): (usize, u64),
        outcome: Outcome<StartValue>,
        tables: PathBuf,
        ranks: usize,
        (streamed, budget): (bool, Option<u64>),
        seconds: f64,
    ) -> SolveReport {
        let game = space.cards().game();
        SolveReport {
            rules: game.rules,
            categories: game.box_names(),
            first_layer: space.first_layer(),
            stop_after_layer: stop_after,
            end_layer: space.end_layer(),
            boxes: space.cards().boxes(),
            positions,
            seconds,
            tables,
            table_bytes: outcome.table_bytes,
            ranks,
            threads: rayon::current_num_threads(),
            resumed_from: outcome.resumed_from,
            streamed,
            resumed_blocks: outcome.resumed_blocks,
            mem_per_rank_bytes: if streamed { budget } else { None },
            repaired: outcome.repaired,
            layers: outcome.layers,
            start: outcome.first_value.filter(|_| stop_after == 0),
        }
    }
}

impl fmt::Display for SolveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "rules        {}", self.rules)?;
        writeln!(f, "categories   {}", self.categories.join(","))?;
        match self.start {
            Some(start) => {
                writeln!(f, "value        {:.6}  (first player's P(win) + P(draw)/2)", start.value)?;
                for (key, p) in [("p_win", start.p_win), ("p_draw", start.p_draw), ("p_lose", start.p_lose)] {
                    match p {
                        Some(p) => writeln!(f, "{key:<12} {p:.6}")?,
                        None => writeln!(
                            f,
                            "{key:<12} unknown (winning chances only: resumed from stored layers, or values with draws did not fit)"
                        )?,
                    }
                }
            }
            None => writeln!(
                f,
                "layers       {}..{} (at most {} boxes open)",
                self.stop_after_layer,
                self.end_layer - 1,
                2 * self.boxes - self.stop_after_layer
            )?,
        }
        if !self.repaired.is_empty() {
            writeln!(f, "repaired     {} (recomputed from the layer above)", self.repaired.join(", "))?;
        }
        writeln!(f, "ranks        {} ({} threads each)", self.ranks, self.threads)?;
        writeln!(f, "positions    {}", group(self.positions))?;
        writeln!(f, "seconds      {:.2}", self.seconds)?;
        write!(f, "tables       {} ({:.1} MiB)", self.tables.display(), self.table_bytes as f64 / (1u64 << 20) as f64)
    }
}
