//! Where a position's values come from: the final scores, written tables, or a solve of
//! the sub-game below the position when it is small enough to solve now.
//!
//! A command that values a position ([`value`]) or ranks a turn's choices ([`advise`])
//! needs every position of one layer: the position's own, or the one after the turn. The
//! last layer is valued by the final scores; otherwise tables that hold the layer are read
//! (a directory named, or any of the game's in the data directory, [`TableLookup`]); where
//! none do, the game below the two cards is solved, up to [`ON_THE_FLY_POSITIONS`].

use std::fmt;
use std::path::{Path, PathBuf};

use super::advise::{PositionSource, Solved, Tables};
use super::cards::Cards;
use super::shard::ShardError;
use super::sizing::count::{count_layers, count_layers_up_to};
use super::sizing::plan::{PLAIN_VALUE_BYTES, PlanSpec, plan};
use super::solve::LayerValues;
use super::space::{Space, SpaceError};
use super::units::{gib, group};
use crate::duel::cluster::ClusterError;
use crate::duel::sweep::solve_layers_on;
use crate::game::{Card, CardError, CategoryListError, Game, RollId, StateId};
use crate::game::{ChoiceJson, RollsLeft, Valued};
use crate::progress::Progress;
use serde::Serialize;

/// Most positions solved on the fly below a position: a few seconds and about a gigabyte;
/// a larger sub-game is refused with the command that solves tables for it.
pub const ON_THE_FLY_POSITIONS: u64 = 200_000_000;

/// Why a position could not be read or valued.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The solve below the position could not run on the GPU.
    #[error("the solve below the position could not run on the GPU: {0}")]
    Gpu(String),
    /// The mover's card does not parse.
    #[error("the mover's card: {0}")]
    Me(CardError),
    /// The opponent's card does not parse.
    #[error("the opponent's card: {0}")]
    Opp(CardError),
    /// A card that no game reaches (`whose`: the mover's or the opponent's).
    #[error("{whose} card cannot occur in this game")]
    Unreachable {
        /// "the mover's" or "the opponent's".
        whose: &'static str,
    },
    /// The cards break the turn order.
    #[error(transparent)]
    Space(#[from] SpaceError),
    /// A difference the two cards' points cannot make.
    #[error(
        "a difference of {diff} (the mover's points minus the opponent's) cannot occur with these cards: their points \
         allow {lo}..={hi}"
    )]
    Diff {
        /// The difference given.
        diff: i32,
        /// The least possible.
        lo: i32,
        /// The greatest possible.
        hi: i32,
    },
    /// Both cards are full: there is no turn to advise on.
    #[error("both cards are full: the game is over")]
    GameOver,
    /// The table directory named does not hold the layer needed.
    #[error("the tables in {} do not hold layer {layer}", dir.display())]
    NotHeld {
        /// The directory.
        dir: PathBuf,
        /// The layer needed.
        layer: usize,
    },
    /// Tables could not be read.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The game flags name no game.
    #[error(transparent)]
    Game(#[from] CategoryListError),
    /// No game flag was given, the full game cannot answer the position, and tables of
    /// several games can ([`crate::duel::covering::ask`]).
    #[error(
        "no game flag was given and the full game cannot answer this position, but tables of several games can: {}; \
         pass the flags of the game to ask",
        found.join("; ")
    )]
    SeveralGames {
        /// Each game's tables, in words with its flags.
        found: Vec<String>,
    },
    /// No game flag was given, the cards are a position of the full game, which cannot
    /// answer it, and tables of another game hold the same cards: they are named, not used,
    /// since their game is not the one asked ([`crate::duel::covering::ask`]).
    #[error(
        "{refusal}; {} hold the same cards as a position of another game, which was not asked: pass that game's flags \
         (or its tables with --tables) to ask it",
        found.join(" and ")
    )]
    OtherGame {
        /// Why the full game cannot answer.
        refusal: Box<SourceError>,
        /// The tables of each other game that hold the cards, in words with its flags.
        found: Vec<String>,
    },
    /// Whoever asked has gone ([`crate::progress::Progress::cancelled`]): the solve below
    /// the position stopped after a layer.
    #[error("cancelled: whoever asked for this has gone")]
    Cancelled,
    /// No tables hold the position and the game below it is too large to solve now.
    #[error(
        "no tables hold this position and the game below it has more than the {} positions solved on the fly \
         (counting stopped at {}; `yz duel count{}` counts them all); {}",
        group(*limit),
        group(*at_least),
        scope(game_flags, *open, *whole),
        tables_advice(&scope(game_flags, *open, *whole), *whole, *needed_bytes, *available_bytes)
    )]
    TooLarge {
        /// Positions of the game below counted before the limit was passed: a lower bound.
        at_least: u64,
        /// The most solved on the fly ([`TableLookup::on_the_fly`]).
        limit: u64,
        /// Boxes open on both cards together: the `--max-empty` that solves tables for it.
        open: usize,
        /// Whether that is every box: the position is the game's start, and its tables the
        /// whole game's.
        whole: bool,
        /// The game's flags, as the commands that solve it need them (empty for the
        /// official full game).
        game_flags: String,
        /// Peak memory of that solve in one process (4-byte values), for endgames of at
        /// most `PRICED_OPEN` (8) boxes open.
        needed_bytes: Option<u64>,
        /// This machine's available memory, where known.
        available_bytes: Option<u64>,
    },
}

/// Most boxes open for which a refusal prices the endgame's tables: counting larger
/// endgames whole takes more than a second.
const PRICED_OPEN: usize = 8;

/// The flags of the commands that count, price or solve the game below a position of the
/// game of `game_flags` with `open` boxes open (`whole`: every box), each after a space.
fn scope(game_flags: &str, open: usize, whole: bool) -> String {
    let game = if game_flags.is_empty() { String::new() } else { format!(" {game_flags}") };
    if whole { game } else { format!("{game} --max-empty {open}") }
}

/// What to run for tables of the game below a position (`scope`: its flags, from
/// [`scope`]; `whole`: every box open, the whole game): here, where the solve fits this
/// machine's memory, else on a cluster, with the figures where they were priced.
fn tables_advice(scope: &str, whole: bool, needed: Option<u64>, available: Option<u64>) -> String {
    if whole && needed.is_none() {
        return format!(
            "this is the start of the whole game, whose tables are the full two-player solve: `yz duel plan{scope}` \
             prices it (core-hours, memory and disk, measured here) and `scripts/submit{scope} --nodes N` runs it on \
             a Slurm cluster (docs/cluster.md)"
        );
    }
    match (needed, available) {
        (Some(needed), Some(available)) if needed <= available => format!(
            "solve tables first with `yz duel solve{scope}` (peak {:.1} GiB of the {:.1} GiB available here)",
            gib(needed),
            gib(available)
        ),
        (Some(needed), _) => {
            let here = available.map_or(String::new(), |a| format!(", more than the {:.1} GiB available here", gib(a)));
            format!(
                "tables for it need {:.1} GiB in one process{here}: size a cluster run with `yz duel plan{scope}` \
                 and start it with `scripts/submit{scope} --nodes N`",
                gib(needed)
            )
        }
        (None, _) => format!(
            "tables for it come from `yz duel solve{scope}`: `yz duel plan{scope}` prices it (memory, disk, \
             core-hours) here or on a cluster (`scripts/submit{scope} --nodes N`)"
        ),
    }
}

/// A position between turns, checked against the game.
#[derive(Clone, Debug)]
pub struct Position {
    /// The mover's card.
    pub me: Card,
    /// The opponent's card.
    pub opp: Card,
    /// The mover's card as a state id.
    pub mover: StateId,
    /// The opponent's card as a state id.
    pub opponent: StateId,
    /// Mover's total minus the opponent's.
    pub diff: i32,
    /// Boxes filled on both cards together.
    pub layer: usize,
}

impl Position {
    /// The position of cards `me` and `opp` (filled boxes with their scores, e.g.
    /// `ones=3,fh=25`) in the game of `cards`, with difference `diff` (default: from the
    /// cards' points): the opponent has as many boxes filled as the mover or one more, and
    /// the difference is one the cards' points allow.
    pub fn parse(cards: &Cards, me: &str, opp: &str, diff: Option<i32>) -> Result<Position, SourceError> {
        let game = cards.game();
        let me = Card::parse(me, game).map_err(SourceError::Me)?;
        let opp = Card::parse(opp, game).map_err(SourceError::Opp)?;
        let id = |card: &Card, whose| cards.index().id(card.state()).ok_or(SourceError::Unreachable { whose });
        let (mover, opponent) = (id(&me, "the mover's")?, id(&opp, "the opponent's")?);
        let (m, o) = (cards.filled(mover), cards.filled(opponent));
        if o != m && o != m + 1 {
            return Err(SpaceError::TurnOrder { mover: m, opponent: o }.into());
        }
        let diff = diff.unwrap_or(me.points() as i32 - opp.points() as i32);
        let (bm, bo) = (cards.bounds(mover), cards.bounds(opponent));
        let (lo, hi) = (bm.past_min - bo.past_max, bm.past_max - bo.past_min);
        if !(lo..=hi).contains(&diff) {
            return Err(SourceError::Diff { diff, lo, hi });
        }
        Ok(Position { me, opp, mover, opponent, diff, layer: m + o })
    }
}

/// The start of the names of the game's table directories in a data directory.
pub fn table_prefix(game: Game) -> String {
    format!("{}-", game.file_stem("duel"))
}

/// The default table directory of a solve of `game` in `data`: the positions with at most
/// `max_empty` boxes open (`empty-K`), or every position (`start`).
pub fn table_dir(data: &Path, game: Game, max_empty: Option<usize>) -> PathBuf {
    let scope = max_empty.map_or_else(|| "start".to_owned(), |k| format!("empty-{k}"));
    data.join(format!("{}{scope}", table_prefix(game)))
}

/// Where to look for written tables.
#[derive(Clone, Copy, Debug)]
pub struct TableLookup<'p> {
    /// A table directory named: only it is read, and it must hold the layer needed.
    pub given: Option<&'p Path>,
    /// The data directory: the game's table directories in it ([`table_prefix`]) are
    /// tried in name order, and skipped where unreadable or without the layer.
    pub data: &'p Path,
    /// Most positions solved below a position that no tables hold: [`ON_THE_FLY_POSITIONS`]
    /// for a command, less for a server answering many requests.
    pub on_the_fly: u64,
    /// Whether that solve runs on the GPU (`--gpu`; the feature `gpu`, values without
    /// draws): the same values as on the CPU, bit for bit.
    pub gpu: bool,
}

impl TableLookup<'_> {
    /// Tables of the game of `cards` that hold `layer`, if any.
    pub fn find<'a>(&self, cards: &'a Cards, layer: usize) -> Result<Option<Tables<'a>>, SourceError> {
        if let Some(dir) = self.given {
            let tables = Tables::open(dir, cards)?;
            if !tables.holds(layer) {
                return Err(SourceError::NotHeld { dir: dir.to_owned(), layer });
            }
            return Ok(Some(tables));
        }
        let prefix = table_prefix(cards.game());
        let Ok(entries) = std::fs::read_dir(self.data) else { return Ok(None) };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .collect();
        dirs.sort();
        Ok(dirs.iter().find_map(|dir| Tables::open(dir, cards).ok().filter(|tables| tables.holds(layer))))
    }
}

/// The values of one layer's positions, from wherever they could be had.
pub enum Values<'a> {
    /// The last layer: finished games, valued by their final scores.
    Final(Space<'a>),
    /// Written tables.
    Tables(Box<Tables<'a>>),
    /// A layer of the game below a position, solved just now.
    Solved {
        /// The game below the position.
        space: Space<'a>,
        /// The layer's values.
        layer: LayerValues<f32>,
    },
}

/// Where the values of a layer will come from, decided before any is computed.
enum Planned<'a> {
    /// Values at hand: the final scores or tables.
    Ready(Values<'a>),
    /// A solve of the game below the position, of `positions` positions.
    Below(Space<'a>, u64),
}

impl<'a> Values<'a> {
    /// The values of `layer` (the layer of `p` or one after it) in the game of `cards`: see
    /// the [module docs](self). A solve of the positions below is reported to `progress`.
    pub fn find(
        cards: &'a Cards,
        p: &Position,
        layer: usize,
        lookup: TableLookup,
        progress: &dyn Progress,
    ) -> Result<Values<'a>, SourceError> {
        let (space, positions) = match Values::plan(cards, p, layer, lookup)? {
            Planned::Ready(values) => return Ok(values),
            Planned::Below(space, positions) => (space, positions),
        };
        tracing::info!(positions, "solving the positions below");
        progress.start("solving below", positions, "positions");
        let values = solve_layers_on::<f32>(&space, layer, lookup.gpu, &|| progress.cancelled(), |solved| {
            progress.advance(solved.shape.positions());
            Ok(())
        })
        .map_err(|e| match e {
            ClusterError::Cancelled => SourceError::Cancelled,
            ClusterError::Gpu(why) => SourceError::Gpu(why),
            other => unreachable!("a solve in memory, alone and writing nothing, stops only when cancelled: {other}"),
        })?;
        progress.finish();
        Ok(Values::Solved { space, layer: values })
    }

    /// Where the values of `layer` will come from: the final scores, tables, or a solve of
    /// the game below `p` no larger than `lookup.on_the_fly` (counted, not solved);
    /// [`SourceError::TooLarge`] where none of those can be had.
    fn plan(cards: &'a Cards, p: &Position, layer: usize, lookup: TableLookup) -> Result<Planned<'a>, SourceError> {
        if layer == 2 * cards.boxes() {
            return Ok(Planned::Ready(Values::Final(Space::whole_game(cards))));
        }
        if let Some(tables) = lookup.find(cards, layer)? {
            return Ok(Planned::Ready(Values::Tables(Box::new(tables))));
        }
        let space = Space::below(cards, p.mover, p.opponent)?;
        let limit = lookup.on_the_fly;
        let counts = count_layers_up_to(&space, layer, limit).map_err(|at_least| {
            let open = 2 * cards.boxes() - p.layer;
            // Counting a large endgame whole takes seconds: it is priced only when small.
            let needed_bytes = (open <= PRICED_OPEN).then(|| {
                let spec = PlanSpec { ranks: 1, value_bytes: PLAIN_VALUE_BYTES, write_from: 0 };
                plan(&count_layers(&Space::endgame(cards, open)), cards.boxes(), spec).peak_bytes_per_rank
            });
            let available_bytes = crate::sys::memory_limit();
            let whole = open == 2 * cards.boxes();
            let game_flags = cards.game().flags().to_string();
            SourceError::TooLarge { at_least, limit, open, whole, game_flags, needed_bytes, available_bytes }
        })?;
        let positions: u64 = counts.iter().map(|l| l.positions).sum();
        Ok(Planned::Below(space, positions))
    }

    /// Whether the values of `layer` can be had for `p` in the game of `cards` (see
    /// [`Values::find`]): tables hold it, or the game below is small enough to solve now.
    /// Decided without solving anything.
    pub fn available(cards: &Cards, p: &Position, layer: usize, lookup: TableLookup) -> Result<(), SourceError> {
        Values::plan(cards, p, layer, lookup).map(drop)
    }

    /// Where the values came from, in words.
    pub fn origin(&self) -> Origin<'_> {
        match self {
            Values::Final(_) => Origin::FinalScores,
            Values::Tables(tables) => Origin::Tables(tables.dir()),
            Values::Solved { .. } => Origin::SolvedBelow,
        }
    }
}

impl PositionSource for Values<'_> {
    fn value(&self, mover: StateId, opponent: StateId, d: i32) -> Result<f64, ShardError> {
        match self {
            Values::Final(space) => Solved::<f32> { space, layer: None }.value(mover, opponent, d),
            Values::Tables(tables) => tables.value(mover, opponent, d),
            Values::Solved { space, layer } => Solved { space, layer: Some(layer) }.value(mover, opponent, d),
        }
    }
}

/// Where values came from; printed as "the final scores", "tables in DIR" or "a solve of
/// the positions below".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin<'v> {
    /// The final scores (both cards full).
    FinalScores,
    /// Tables in this directory.
    Tables(&'v Path),
    /// A solve of the game below the position.
    SolvedBelow,
}

impl fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::FinalScores => f.write_str("the final scores"),
            Origin::Tables(dir) => write!(f, "tables in {}", dir.display()),
            Origin::SolvedBelow => f.write_str("a solve of the positions below"),
        }
    }
}

/// A winning chance as reported: the solve's `f32` rounding leaves stored values up to
/// about 10⁻⁶ outside 0..1 (shard checks allow it), and one minus such a value is a
/// "chance" of -0.000001; a report gives the nearest chance instead, never a negative zero.
pub fn chance(value: f64) -> f64 {
    value.clamp(0.0, 1.0) + 0.0
}

/// The mover's winning chance (P(win) + ½ P(draw)) at the start of its turn in `p`
/// ([`chance`]), and the values it was read from.
pub fn value<'a>(
    cards: &'a Cards,
    p: &Position,
    lookup: TableLookup,
    progress: &dyn Progress,
) -> Result<(f64, Values<'a>), SourceError> {
    let values = Values::find(cards, p, p.layer, lookup, progress)?;
    Ok((chance(values.value(p.mover, p.opponent, p.diff)?), values))
}

/// The advice on one two-player position as `yz --json duel advise` prints it and
/// `yz serve` answers.
#[derive(Clone, Debug, Serialize)]
pub struct DuelAdviceJson {
    /// The game the advice is for, in words (`official, first 6 boxes`): an answer names
    /// its game, so that one taken from other tables cannot pass for this one.
    pub game: String,
    /// The flags that name that game (`--first 6`; empty for the official full game).
    pub game_flags: String,
    /// The mover's card.
    pub me: String,
    /// The opponent's card.
    pub opp: String,
    /// The mover's total minus the opponent's.
    pub diff: i32,
    /// The dice.
    pub dice: String,
    /// Rerolls left.
    pub rolls_left: u8,
    /// Every choice, best first, valued by the mover's winning chance.
    pub options: Vec<DuelOptionJson>,
}

/// One choice of [`DuelAdviceJson`].
#[derive(Clone, Debug, Serialize)]
pub struct DuelOptionJson {
    /// The choice.
    #[serde(flatten)]
    pub choice: ChoiceJson,
    /// The mover's winning chance after it, P(win) + ½ P(draw).
    pub value: f64,
    /// How much less than the best.
    pub gap: f64,
}

impl DuelAdviceJson {
    /// The advice `ranked` on `p` holding `roll` with `rolls_left` rerolls.
    pub fn new(p: &Position, roll: RollId, rolls_left: RollsLeft, ranked: &[Valued]) -> DuelAdviceJson {
        let best = ranked.first().map_or(0.0, |r| r.value);
        DuelAdviceJson {
            game: p.me.game.describe(),
            game_flags: p.me.game.flags().to_string(),
            me: p.me.to_string(),
            opp: p.opp.to_string(),
            diff: p.diff,
            dice: roll.to_string(),
            rolls_left: rolls_left.get(),
            options: ranked
                .iter()
                .map(|r| DuelOptionJson {
                    choice: ChoiceJson::new(r.choice, &p.me, roll),
                    value: r.value,
                    gap: best - r.value,
                })
                .collect(),
        }
    }
}

/// Every choice of the mover's turn in `p` holding `roll` with `rolls_left` rerolls,
/// valued by the mover's winning chance ([`chance`]), best first, with the values they
/// were read from (whose [`Values::origin`] an answer names).
pub fn advise<'a>(
    cards: &'a Cards,
    p: &Position,
    roll: RollId,
    rolls_left: RollsLeft,
    lookup: TableLookup,
    progress: &dyn Progress,
) -> Result<(Vec<Valued>, Values<'a>), SourceError> {
    if p.layer == 2 * cards.boxes() {
        return Err(SourceError::GameOver);
    }
    let values = Values::find(cards, p, p.layer + 1, lookup, progress)?;
    let ranked = super::advise::advise(&values, cards, p.mover, p.opponent, p.diff, roll, rolls_left)?;
    Ok((reported(&ranked), values))
}

/// A ranking's values as reported: each one a [`chance`].
pub fn reported(ranked: &[Valued]) -> Vec<Valued> {
    ranked.iter().map(|r| Valued { value: chance(r.value), ..*r }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;

    #[test]
    fn positions_are_checked_and_valued_without_tables() {
        let game = Game::first(Rules::OFFICIAL, 2).unwrap();
        let cards = Cards::new(game);
        let none = TableLookup {
            given: None,
            data: Path::new("/nonexistent/yz-data"),
            on_the_fly: ON_THE_FLY_POSITIONS,
            gpu: false,
        };
        let p = Position::parse(&cards, "", "", None).unwrap();
        let (v, values) = value(&cards, &p, none, &crate::progress::Silent).unwrap();
        assert_eq!(values.origin(), Origin::SolvedBelow);
        // The whole game's first value, solved apart: the same number, bit for bit.
        let whole = crate::duel::sweep::solve_layers::<f32>(&Space::whole_game(&cards), 0, |_| Ok(())).unwrap();
        assert_eq!(v, f64::from(whole.values[0]));
        assert!(v > 0.0 && v < 1.0, "{v}");
        assert!(matches!(Position::parse(&cards, "", "", Some(7)), Err(SourceError::Diff { .. })));
        assert!(matches!(Position::parse(&cards, "ones=3", "", None), Err(SourceError::Space(_))));
        let full = Position::parse(&cards, "ones=3,twos=4", "ones=2,twos=6", None).unwrap();
        assert_eq!(value(&cards, &full, none, &crate::progress::Silent).unwrap().1.origin(), Origin::FinalScores);
        let roll = crate::game::parse_dice("1,2,3,4,5").unwrap();
        assert!(matches!(
            advise(&cards, &full, roll, RollsLeft::TWO, none, &crate::progress::Silent),
            Err(SourceError::GameOver)
        ));
        assert_eq!(Origin::Tables(Path::new("t")).to_string(), "tables in t");
        for (stored, reported) in
            [(-9.5e-7, "0.000000"), (-0.0, "0.000000"), (1.000001, "1.000000"), (0.25, "0.250000")]
        {
            assert_eq!(format!("{:.6}", chance(stored)), reported);
        }
    }

    /// A client gone: counts the layers reported done and the times it was asked.
    #[derive(Default)]
    struct Gone {
        layers_done: std::sync::atomic::AtomicU64,
        asked: std::sync::atomic::AtomicU64,
    }

    impl Progress for Gone {
        fn start(&self, _: &str, _: u64, _: &'static str) {}
        fn advance(&self, _: u64) {
            self.layers_done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        fn finish(&self) {}
        fn cancelled(&self) -> bool {
            self.asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            true
        }
    }

    #[test]
    fn a_solve_below_stops_inside_its_first_layer_once_cancelled() {
        let cards = Cards::new(Game::first(Rules::OFFICIAL, 3).unwrap());
        let none = TableLookup {
            given: None,
            data: Path::new("/nonexistent/yz-data"),
            on_the_fly: ON_THE_FLY_POSITIONS,
            gpu: false,
        };
        let p = Position::parse(&cards, "", "", None).unwrap();
        let gone = Gone::default();
        assert!(matches!(value(&cards, &p, none, &gone), Err(SourceError::Cancelled)));
        // Not one layer finished: the solve stopped within the last layer, the first solved.
        assert_eq!(gone.layers_done.into_inner(), 0);
        assert!(gone.asked.into_inner() > 0);
    }
}
