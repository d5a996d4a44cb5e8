//! yz from Python: the native part of the `yz` package (`yz._native`), each function a call
//! of the library's facade, its answer what `yz --json` prints for the same question (as
//! Python objects), with NumPy arrays for distributions and curves. Errors raise
//! `yz.Error` with the library's message.
//!
//! Tables come from a data directory (`data=`, else the command line's default: `$YZ_DATA`,
//! `$XDG_DATA_HOME/yz`, `~/.local/share/yz`), solved and written there on first use as the
//! command line does. Long work releases the GIL.

use std::path::PathBuf;

use numpy::{IntoPyArray, PyArray1};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yz::{
    Card, DuelCards, DuelPosition, Game, RollsLeft, Rules, Silent, SoloTable, Strategy, StrategyName, TableLookup,
    TargetTable, advise_duel, advise_solo, advise_target, duel_value, open_or_solve, parse_dice,
};

create_exception!(_native, Error, PyException, "What yz refused or could not do, in the library's words.");

/// A library error as a Python exception, with its message.
fn error(e: impl std::fmt::Display) -> PyErr {
    Error::new_err(e.to_string())
}

/// The game of `rules` with the boxes `categories` or `first` select (all when neither).
fn game(rules: &str, first: Option<usize>, categories: Option<&str>) -> PyResult<Game> {
    let rules: Rules = rules.parse().map_err(error)?;
    Game::select(rules, categories, first).map_err(error)
}

/// The game and `card` on it.
fn game_and_card(rules: &str, first: Option<usize>, categories: Option<&str>, card: &str) -> PyResult<(Game, Card)> {
    let game = game(rules, first, categories)?;
    Ok((game, Card::parse(card, game).map_err(error)?))
}

/// The dice and rerolls left of a position within a turn.
fn dice_and_rerolls(dice: &str, rolls_left: u8) -> PyResult<(yz::RollId, RollsLeft)> {
    Ok((parse_dice(dice).map_err(error)?, RollsLeft::new(rolls_left).map_err(error)?))
}

/// The data directory asked for, else the command line's default.
fn data_dir(data: Option<PathBuf>) -> PathBuf {
    data.unwrap_or_else(yz::store::default_data_dir)
}

/// A value the library serialises as JSON, as Python objects (dicts, lists, floats).
fn to_python<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(error)
}

/// The solitaire table of `game` in `data`, solved and written there on first use.
fn solo_table(py: Python<'_>, game: Game, data: &std::path::Path) -> PyResult<SoloTable> {
    py.allow_threads(|| open_or_solve::<SoloTable>(data, game, &Silent)).map_err(error)
}

/// The expected final score from the start of a turn with `card` under optimal solitaire
/// play (`yz solo value`): 254.5896 for an empty official card.
#[pyfunction]
#[pyo3(signature = (card = "", *, rules = "official", first = None, categories = None, data = None))]
fn solo_value(
    py: Python<'_>,
    card: &str,
    rules: &str,
    first: Option<usize>,
    categories: Option<&str>,
    data: Option<PathBuf>,
) -> PyResult<f64> {
    let (game, card) = game_and_card(rules, first, categories, card)?;
    let table = if card.state().is_terminal() { None } else { Some(solo_table(py, game, &data_dir(data))?) };
    Ok(yz::solo::ValueReport::new(&card, table.as_ref()).expected_final)
}

/// Every choice of a position ranked by expected final score, as `yz --json solo advise`.
#[pyfunction]
#[pyo3(signature = (card, dice, rolls_left, *, rules = "official", first = None, categories = None, data = None))]
#[allow(clippy::too_many_arguments)]
fn solo_advise<'py>(
    py: Python<'py>,
    card: &str,
    dice: &str,
    rolls_left: u8,
    rules: &str,
    first: Option<usize>,
    categories: Option<&str>,
    data: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let (game, card) = game_and_card(rules, first, categories, card)?;
    let (roll, rolls_left) = dice_and_rerolls(dice, rolls_left)?;
    let table = solo_table(py, game, &data_dir(data))?;
    let ranked = advise_solo(&table, game, &card, roll, rolls_left).map_err(error)?;
    to_python(py, &yz::solo::advise::AdviceJson::new(&card, roll, rolls_left, &ranked))
}

/// The exact statistics of a strategy of the zoo (`optimal`, `greedy`, `means`, …) as
/// `yz --json strategy stats` reports them, with `distribution`: P(final score = s) by s,
/// as a NumPy array.
#[pyfunction]
#[pyo3(signature = (name = "optimal", *, rules = "official", first = None, categories = None, data = None))]
fn strategy_stats<'py>(
    py: Python<'py>,
    name: &str,
    rules: &str,
    first: Option<usize>,
    categories: Option<&str>,
    data: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let game = game(rules, first, categories)?;
    let name: StrategyName = name.parse().map_err(error)?;
    let data = data_dir(data);
    let started = std::time::Instant::now();
    let analysis =
        py.allow_threads(|| Strategy::build(&name, game, &data).map(|strategy| strategy.analyze())).map_err(error)?;
    let mut report = yz::solo::StatsReport::new(game, &analysis, started.elapsed().as_secs_f64());
    report.strategy = Some(name.to_string());
    let stats = to_python(py, &report)?.downcast_into::<PyDict>()?;
    stats.set_item("distribution", analysis.distribution().probabilities().to_vec().into_pyarray(py))?;
    Ok(stats)
}

/// P(final total ≥ t) for t = 0, 1, … from the start of a turn with `card`, playing for
/// each t: a NumPy array, 1 up to the points on the card, 0 beyond the last entry. From
/// the target table in the data directory where it is there; else solved below the
/// position (seconds once a few boxes are filled; the whole table, over a gigabyte for
/// the official card, is written by `yz targets solve`).
#[pyfunction]
#[pyo3(signature = (card = "", *, rules = "official", first = None, categories = None, data = None))]
fn target_curve<'py>(
    py: Python<'py>,
    card: &str,
    rules: &str,
    first: Option<usize>,
    categories: Option<&str>,
    data: Option<PathBuf>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (game, card) = game_and_card(rules, first, categories, card)?;
    let points = card.points() as usize;
    let state = card.state();
    if state.is_terminal() {
        return Ok(vec![1.0; points + 1].into_pyarray(py));
    }
    let path = data_dir(data).join(<TargetTable as yz::store::DataTable>::file_name(game));
    let curve = py
        .allow_threads(|| {
            if path.exists() {
                TargetTable::open(&path, game).and_then(|table| table.curve(state)).map_err(|e| e.to_string())
            } else {
                Ok(yz::solve_targets_below::<f32>(game, state, &Silent).curve(state).clone())
            }
        })
        .map_err(Error::new_err)?;
    let reach = curve.first as usize + curve.values.len();
    let at_least: Vec<f64> = (0..=points + reach).map(|total| curve.at(total as i64 - points as i64).into()).collect();
    Ok(at_least.into_pyarray(py))
}

/// Every choice of a position ranked by the chance of a final total of at least `target`,
/// as `yz --json targets advise`, from the target table of the data directory (solved and
/// written there on first use: minutes and over a gigabyte for a whole official card).
#[pyfunction]
#[pyo3(signature = (card, dice, rolls_left, target, *, rules = "official", first = None, categories = None, data = None))]
#[allow(clippy::too_many_arguments)]
fn target_advise<'py>(
    py: Python<'py>,
    card: &str,
    dice: &str,
    rolls_left: u8,
    target: i64,
    rules: &str,
    first: Option<usize>,
    categories: Option<&str>,
    data: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let (game, card) = game_and_card(rules, first, categories, card)?;
    let (roll, rolls_left) = dice_and_rerolls(dice, rolls_left)?;
    let data = data_dir(data);
    let table = py.allow_threads(|| open_or_solve::<TargetTable>(&data, game, &Silent)).map_err(error)?;
    let ranked = advise_target(&table, game, &card, roll, rolls_left, target).map_err(error)?;
    to_python(py, &yz::targets::advise::TargetAdviceJson::new(&card, roll, rolls_left, target, &ranked))
}

/// Where two-player values are read: the tables of the data directory, else a solve of
/// the positions below (up to the command line's limit).
fn lookup(data: &std::path::Path) -> TableLookup<'_> {
    TableLookup { given: None, data, on_the_fly: yz::duel::source::ON_THE_FLY_POSITIONS, gpu: false }
}

/// The mover's winning chance, P(win) + ½ P(draw), at the start of its turn (`yz duel
/// value`): `me` moves, `opp` has as many boxes filled or one more, `diff` is the mover's
/// points minus the opponent's (default: from the cards).
#[pyfunction]
#[pyo3(signature = (me = "", opp = "", diff = None, *, rules = "official", first = None, categories = None, data = None))]
#[allow(clippy::too_many_arguments)]
fn duel_value_of(
    py: Python<'_>,
    me: &str,
    opp: &str,
    diff: Option<i32>,
    rules: &str,
    first: Option<usize>,
    categories: Option<&str>,
    data: Option<PathBuf>,
) -> PyResult<f64> {
    let cards = DuelCards::new(game(rules, first, categories)?);
    let position = DuelPosition::parse(&cards, me, opp, diff).map_err(error)?;
    let data = data_dir(data);
    py.allow_threads(|| duel_value(&cards, &position, lookup(&data), &Silent).map(|(value, _)| value)).map_err(error)
}

/// Every choice of the mover's turn ranked by its winning chance, as `yz --json duel
/// advise`.
#[pyfunction]
#[pyo3(signature = (me, opp, dice, rolls_left, diff = None, *, rules = "official", first = None, categories = None, data = None))]
#[allow(clippy::too_many_arguments)]
fn duel_advise_of<'py>(
    py: Python<'py>,
    me: &str,
    opp: &str,
    dice: &str,
    rolls_left: u8,
    diff: Option<i32>,
    rules: &str,
    first: Option<usize>,
    categories: Option<&str>,
    data: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let cards = DuelCards::new(game(rules, first, categories)?);
    let position = DuelPosition::parse(&cards, me, opp, diff).map_err(error)?;
    let (roll, rolls_left) = dice_and_rerolls(dice, rolls_left)?;
    let data = data_dir(data);
    let (ranked, source) = py
        .allow_threads(|| {
            advise_duel(&cards, &position, roll, rolls_left, lookup(&data), &Silent)
                .map(|(ranked, values)| (ranked, values.origin().to_string()))
        })
        .map_err(error)?;
    let advice = yz::duel::source::DuelAdviceJson::new(&position, roll, rolls_left, &ranked);
    let advice = to_python(py, &advice)?.downcast_into::<PyDict>()?;
    // Where the values came from, as `yz --json duel advise` says it.
    advice.set_item("source", source)?;
    Ok(advice.into_any())
}

/// The native module: the functions above, which `yz/__init__.py` sorts into `yz.solo`,
/// `yz.strategy`, `yz.targets` and `yz.duel`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_function(wrap_pyfunction!(solo_value, m)?)?;
    m.add_function(wrap_pyfunction!(solo_advise, m)?)?;
    m.add_function(wrap_pyfunction!(strategy_stats, m)?)?;
    m.add_function(wrap_pyfunction!(target_curve, m)?)?;
    m.add_function(wrap_pyfunction!(target_advise, m)?)?;
    m.add_function(wrap_pyfunction!(duel_value_of, m)?)?;
    m.add_function(wrap_pyfunction!(duel_advise_of, m)?)?;
    Ok(())
}
