//! Whether a solve fits the memory of its ranks in memory, and if not, what would: in
//! totals a user can check against the machine.
//!
//! Each rank holds its share of two layers' values and layout plus per-card tables that do
//! not shrink with more ranks ([`super::plan`]). So the memory of a run in all is its peak
//! per rank times its ranks, and grows with the ranks; more ranks help only where each
//! brings memory of its own. Ranks on one machine share it: `mpirun -n 3` on a machine
//! gives each rank a third ([`crate::sys::rank_memory`]). The advice therefore says where
//! the ranks must run: on this machine, as ranks sharing it, or on that many machines like
//! it, one rank each; and with memory given per rank (`--mem-per-rank`), that many ranks of
//! that memory each.

use super::count::LayerCount;
use super::plan::{DRAW_VALUE_BYTES, PLAIN_VALUE_BYTES, Plan, PlanSpec, plan, usable};
use crate::duel::cluster::budget::Budget;
use crate::duel::units::size;
use crate::sys::RankMemory;

/// Largest rank count [`min_ranks`] looks at.
pub const MAX_RANKS: u64 = 1 << 20;

/// Most ranks sharing one machine that the advice looks at.
pub const MAX_RANKS_HERE: u64 = 1024;

/// The fewest ranks (up to `limit`) whose peak per rank fits in `bytes_per_rank`, if any:
/// the per-card part of each rank's memory does not shrink with more ranks.
pub fn min_ranks(counts: &[LayerCount], boxes: usize, spec: PlanSpec, bytes_per_rank: u64, limit: u64) -> Option<u64> {
    let fits = |ranks: u64| plan(counts, boxes, PlanSpec { ranks, ..spec }).peak_bytes_per_rank <= bytes_per_rank;
    if !fits(limit) {
        return None;
    }
    let (mut lo, mut hi) = (1, limit);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { hi = mid } else { lo = mid + 1 }
    }
    Some(lo)
}

/// The fewest ranks sharing a machine of `machine` bytes (each a share, as
/// [`crate::sys::rank_memory`] gives it) that hold the solve, if any up to
/// [`MAX_RANKS_HERE`]: each more rank shrinks the shares as much as the work.
pub fn min_ranks_here(counts: &[LayerCount], boxes: usize, spec: PlanSpec, machine: u64) -> Option<u64> {
    (1..=MAX_RANKS_HERE)
        .find(|&ranks| plan(counts, boxes, PlanSpec { ranks, ..spec }).peak_bytes_per_rank <= usable(machine / ranks))
}

/// A solve that does not fit its ranks' memory in memory, with the plan's figures and
/// totals: what it needs in all, what the ranks have, and what would hold it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "{}; {}, or it streams through scratch files (--mem-per-rank GIB), or choose a smaller game",
    self.needs(),
    self.would_fit().map_or_else(|| "no number of ranks of that memory fits it".to_owned(), |w| format!("it fits {w} (scripts/submit sizes a job)"))
)]
pub struct DoesNotFit {
    /// Ranks asked for.
    pub ranks: u64,
    /// The peak bytes per rank.
    pub needed: u64,
    /// The layer of the peak.
    pub layer: usize,
    /// Its values part.
    pub values: u64,
    /// Its layout part.
    pub layout: u64,
    /// The memory of each rank.
    pub budget: Budget,
    /// The fewest ranks that fit, each with the memory of a rank here (one per machine
    /// like this one, where the budget is this machine's), if any.
    pub min_ranks: Option<u64>,
    /// Where the budget is this machine's: the fewest ranks sharing it that fit, if any.
    pub min_ranks_here: Option<u64>,
}

impl DoesNotFit {
    /// What the solve needs in all and what it has, e.g. "this solve needs 35.2 GiB in
    /// all in memory (…); this machine has 22.0 GiB available".
    pub fn needs(&self) -> String {
        let (ranks, needed) = (self.ranks, self.needed);
        let at = if ranks > 1 { format!(" at each of {ranks} ranks") } else { String::new() };
        let has = match self.budget {
            Budget::Machine(RankMemory { machine, ranks_here: 1, .. }) => {
                format!("this machine has {} available", size(machine))
            }
            Budget::Machine(RankMemory { machine, ranks_here, per_rank }) => format!(
                "this machine has {} available, {} for each of its {ranks_here} ranks",
                size(machine),
                size(per_rank)
            ),
            Budget::PerRank(bytes) => {
                format!("the ranks have {} in all ({} each)", size(bytes * ranks), size(bytes))
            }
        };
        format!(
            "this solve needs {} in all in memory (its peak, at layer {}: {} of values and {} of \
             layout{at}), and a tenth more for the rest of the process; {has}",
            size(needed * ranks),
            self.layer,
            size(self.values),
            size(self.layout),
        )
    }

    /// Where it would fit in memory, if anywhere: "on this machine as 2 ranks (…)", "on 3
    /// machines like this one, one rank each (…)", "on 5 ranks of 21.0 GiB each (…)", with
    /// the memory they have in all.
    pub fn would_fit(&self) -> Option<String> {
        let in_all = |ranks: u64, each: u64| format!("{} in all", size(each * ranks));
        Some(match (self.budget, self.min_ranks_here, self.min_ranks?) {
            (Budget::Machine(memory), Some(n), _) => format!(
                "on this machine as {} (`mpirun -n {n}`: {} each, {})",
                if n == 1 { "one rank".to_owned() } else { format!("{n} ranks") },
                size(memory.machine / n),
                in_all(n, memory.machine / n)
            ),
            (Budget::Machine(memory), None, n) => format!(
                "on {n} machines like this one, one rank each ({}; ranks sharing this machine each get a share of it, \
                 and none fit)",
                in_all(n, memory.machine)
            ),
            (Budget::PerRank(bytes), _, n) => format!(
                "on {n} ranks of {} each ({}; ranks on one machine share its memory)",
                size(bytes),
                in_all(n, bytes)
            ),
        })
    }
}

/// Plans the solve and refuses it if its peak per rank exceeds what it may use of its
/// budget ([`usable`]), with what would hold it ([`DoesNotFit::would_fit`]).
pub fn check_fits(counts: &[LayerCount], boxes: usize, spec: PlanSpec, budget: Budget) -> Result<Plan, DoesNotFit> {
    let planned = plan(counts, boxes, spec);
    let Some(peak) = planned.layers.iter().max_by_key(|l| l.bytes_per_rank) else { return Ok(planned) };
    if peak.bytes_per_rank <= usable(budget.per_rank()) {
        return Ok(planned);
    }
    // Ranks elsewhere have what a rank here would have alone.
    let each = match budget {
        Budget::PerRank(bytes) => bytes,
        Budget::Machine(memory) => memory.machine,
    };
    let min_ranks_here = match budget {
        Budget::PerRank(_) => None,
        Budget::Machine(memory) => min_ranks_here(counts, boxes, spec, memory.machine),
    };
    Err(DoesNotFit {
        ranks: planned.spec.ranks,
        needed: peak.bytes_per_rank,
        layer: peak.layer,
        values: peak.value_bytes_per_rank,
        layout: peak.layout_bytes_per_rank,
        budget,
        min_ranks: min_ranks(counts, boxes, spec, usable(each), MAX_RANKS),
        min_ranks_here,
    })
}

/// The most positions a solve may hold and still carry the draw probability by default:
/// 1e11, about 10 core-hours of a current core without draws (the full game's 12.76e12
/// positions plan at about 1,414), so that draws, which double the work, cost at most about
/// 10 core-hours unasked. `--max-empty 6` (25.9e9) carries them; the full game does not.
/// Only the value plane (P(win) + ½P(draw)) decides a choice: P(draw) only reports the
/// split, and `--draws` still asks for it at any size.
pub const DRAWS_BY_DEFAULT_POSITIONS: u64 = 100_000_000_000;

/// Whether a solve of the layers `counts` is small enough to carry the draw probability
/// unasked ([`DRAWS_BY_DEFAULT_POSITIONS`]).
pub fn draws_are_cheap(counts: &[LayerCount]) -> bool {
    counts.iter().map(|c| c.positions).sum::<u64>() <= DRAWS_BY_DEFAULT_POSITIONS
}

/// Bytes of a value while solving: the draw probability rides along (so a solve from the
/// start reports P(win), P(draw), P(lose), also after stopping early and resuming) when
/// the solve is of the game from its start (`to_start`), cheap ([`draws_are_cheap`]) and
/// still fits the `budget` of each rank (unknown: it fits); otherwise plain winning
/// chances, which halve the memory and the work.
pub fn value_bytes(counts: &[LayerCount], boxes: usize, spec: PlanSpec, to_start: bool, budget: Option<Budget>) -> u64 {
    let with_draws = PlanSpec { value_bytes: DRAW_VALUE_BYTES, ..spec };
    let fits = budget.is_none_or(|budget| check_fits(counts, boxes, with_draws, budget).is_ok());
    if to_start && fits && draws_are_cheap(counts) { DRAW_VALUE_BYTES } else { PLAIN_VALUE_BYTES }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::sizing::count::count_layers;
    use crate::duel::{Cards, Space};
    use crate::game::{Game, Rules};
    use crate::sys::{environment as env, rank_memory};

    /// The advice agrees with what the run it advises then requires: each rank's memory as
    /// `sys::rank_memory` gives it to `mpirun -n N` on this machine, or to one rank on each
    /// of N machines like it.
    #[test]
    fn the_advice_is_what_the_advised_run_then_requires() {
        let cards = Cards::new(Game::first(Rules::OFFICIAL, 6).unwrap());
        let counts = count_layers(&Space::whole_game(&cards));
        let spec = PlanSpec { ranks: 1, value_bytes: PLAIN_VALUE_BYTES, write_from: 0 };
        let alone = plan(&counts, 6, spec).peak_bytes_per_rank;
        // A machine of the memory one rank needs, less a little: one rank does not fit.
        let machine = alone;
        let here = |ranks: u64| {
            let local = ranks.to_string();
            Budget::Machine(rank_memory(env(&[("OMPI_COMM_WORLD_LOCAL_SIZE", &local)]), Some(machine)).unwrap())
        };
        let fits = |ranks: u64, budget: Budget| check_fits(&counts, 6, PlanSpec { ranks, ..spec }, budget).is_ok();
        let refusal = check_fits(&counts, 6, spec, here(1)).unwrap_err();
        let n = refusal.min_ranks.unwrap();
        assert!(n > 1, "{refusal}");
        // On this machine, ranks share its memory: the advice names a number that fits
        // here, or none.
        match refusal.min_ranks_here {
            Some(k) => assert!(fits(k, here(k)) && (1..k).all(|j| !fits(j, here(j))), "{refusal}"),
            None => assert!((1..=64).all(|k| !fits(k, here(k))), "{refusal}"),
        }
        // N machines like this one, one rank each: each rank has the whole machine.
        assert!(fits(n, here(1)) && !fits(n - 1, here(1)), "{refusal}");
        // `mpirun -n N` on this machine instead: refused, with the same advice (N machines),
        // never a larger count of ranks that share this one.
        if refusal.min_ranks_here.is_none() {
            let shared = check_fits(&counts, 6, PlanSpec { ranks: n, ..spec }, here(n)).unwrap_err();
            assert_eq!((shared.min_ranks, shared.min_ranks_here), (Some(n), None), "{shared}");
        }
        // The totals: what the solve needs in all, what this machine has.
        let text = refusal.to_string();
        assert!(text.starts_with(&format!("this solve needs {} in all in memory", size(alone))), "{text}");
        assert!(text.contains(&format!("this machine has {} available;", size(machine))), "{text}");
        assert!(text.contains(&format!("{n} machines like this one, one rank each")), "{text}");
        // Memory given per rank: that many ranks of it each, and what they have in all.
        let given = check_fits(&counts, 6, spec, Budget::PerRank(machine)).unwrap_err();
        assert_eq!(given.min_ranks, Some(n));
        let text = given.to_string();
        assert!(
            text.contains(&format!("on {n} ranks of {} each ({} in all", size(machine), size(n * machine))),
            "{text}"
        );
    }

    #[test]
    fn sizes_read_in_gib_or_mib() {
        assert_eq!((size(3 << 29), size(20 << 20)), ("1.5 GiB".to_owned(), "20.0 MiB".to_owned()));
    }
}
