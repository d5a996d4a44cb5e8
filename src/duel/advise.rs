//! A position's winning chance, and every choice of a turn ranked by it.
//!
//! Values come from a [`PositionSource`]: written tables ([`Tables`]) or a layer solved
//! just now ([`Solved`], the sub-game below a position).

use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::{Path, PathBuf};

use super::cards::{Cards, decided, window};
use super::layout::{LayerShape, Tile};
use super::shard::{self, Column, Manifest, ShardEntry, ShardError};
use super::solve::LayerValues;
use super::space::Space;
use crate::game::{RollId, ScoreState, StateId, Transition};
use crate::game::{RollsLeft, Valued};
use crate::turn::choice;

/// Where the values of positions come from.
pub trait PositionSource {
    /// The mover's P(win) + ½ P(draw) of (`mover`, `opponent`, `d`) at the start of the
    /// mover's turn; a finished game is valued by the sign of `d`.
    fn value(&self, mover: StateId, opponent: StateId, d: i32) -> Result<f64, ShardError>;
}

/// Values of a finished game or a decided difference, without any table.
fn settled(cards: &Cards, mover: StateId, opponent: StateId, d: i32) -> Option<f64> {
    if cards.filled(mover) == cards.boxes() {
        return Some(match d.signum() {
            1 => 1.0,
            0 => 0.5,
            _ => 0.0,
        });
    }
    decided(cards.bounds(mover), cards.bounds(opponent), d).map(|won| if won { 1.0 } else { 0.0 })
}

/// Written tables (a directory with a manifest), read shard by shard as needed.
pub struct Tables<'a> {
    dir: PathBuf,
    manifest: Manifest,
    space: Space<'a>,
    /// Layer shapes, mover rows (by layer and mover position) and decompressed shards read
    /// so far.
    shapes: RefCell<HashMap<usize, LayerShape>>,
    rows: RefCell<HashMap<(usize, usize), Tile>>,
    shards: RefCell<HashMap<(usize, usize), Vec<f32>>>,
}

impl<'a> Tables<'a> {
    /// Opens the tables in `dir` for the game of `cards`.
    pub fn open(dir: &Path, cards: &'a Cards) -> Result<Tables<'a>, ShardError> {
        let manifest = Manifest::open_checked(dir, Some(cards.game()))?;
        Ok(Tables {
            dir: dir.to_owned(),
            manifest,
            space: Space::endgame(cards, 2 * cards.boxes()),
            shapes: RefCell::new(HashMap::new()),
            rows: RefCell::new(HashMap::new()),
            shards: RefCell::new(HashMap::new()),
        })
    }

    /// The table directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Whether the tables hold every position of `layer`.
    pub fn holds(&self, layer: usize) -> bool {
        self.manifest.layer(layer).is_some()
    }
}

impl PositionSource for Tables<'_> {
    fn value(&self, mover: StateId, opponent: StateId, d: i32) -> Result<f64, ShardError> {
        let cards = self.space.cards();
        if let Some(v) = settled(cards, mover, opponent, d) {
            return Ok(v);
        }
        let layer = cards.filled(mover) + cards.filled(opponent);
        let mut shapes = self.shapes.borrow_mut();
        // A layer's entry is checked against its shape once, before any of its numbers
        // indexes anything.
        let shape = match shapes.entry(layer) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let shape = LayerShape::new(&self.space, layer);
                self.manifest.checked_layer(&self.dir, &shape)?;
                e.insert(shape)
            }
        };
        let entry = self.manifest.layer(layer).ok_or_else(|| ShardError::MissingLayer {
            dir: self.dir.clone(),
            layer,
            first: self.manifest.first_layer,
            end: self.manifest.end_layer,
        })?;
        let (Some(m), Some(o)) =
            (self.space.movers(layer).position(mover), self.space.opponents(layer).position(opponent))
        else {
            return Err(ShardError::Mismatch { path: self.dir.clone(), what: "cards not in the tables".to_owned() });
        };
        let (lo, hi) = window(cards.bounds(mover), cards.bounds(opponent));
        if !(lo..=hi).contains(&d) {
            return Err(ShardError::Mismatch {
                path: self.dir.clone(),
                what: format!("difference {d} cannot occur for these cards (possible: {lo}..={hi})"),
            });
        }
        let mut rows = self.rows.borrow_mut();
        let row =
            rows.entry((layer, m)).or_insert_with(|| Tile::new(&self.space, shape, m..m + 1, 0..shape.opponents.len()));
        // The position's place in the layer, and the shard holding it (shards are in
        // position order, and checked against the layer's cut above).
        let at = shape.rows(m..m).start + (row.pair_range(m, o).start + (d - lo) as usize) as u64;
        let held = |s: &ShardEntry| s.span(shape).unwrap_or(0..0);
        let i = entry.shards.partition_point(|s| held(s).end <= at);
        let Some(shard) = entry.shards.get(i).filter(|s| held(s).contains(&at)) else {
            return Err(ShardError::Mismatch {
                path: self.dir.join(shard::MANIFEST_FILE),
                what: format!("no shard of layer {layer} holds position {at}"),
            });
        };
        let mut shards = self.shards.borrow_mut();
        let values = match shards.entry((layer, i)) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(shard::read_shard(&self.dir, cards.game(), shape, (i, shard), Column::Value)?),
        };
        Ok(values[(at - held(shard).start) as usize] as f64)
    }
}

/// A layer solved in memory, with the space it belongs to; no layer at all where only
/// finished games follow.
pub struct Solved<'s, 'a, V> {
    /// The space solved.
    pub space: &'s Space<'a>,
    /// The layer (its values).
    pub layer: Option<&'s LayerValues<V>>,
}

impl<V: super::DuelValue> PositionSource for Solved<'_, '_, V> {
    fn value(&self, mover: StateId, opponent: StateId, d: i32) -> Result<f64, ShardError> {
        if let Some(v) = settled(self.space.cards(), mover, opponent, d) {
            return Ok(v);
        }
        let value = self.layer.and_then(|layer| layer.value(self.space, mover, opponent, d));
        value.map(|v| v.value()).ok_or_else(|| ShardError::Mismatch {
            path: PathBuf::from("(solved in memory)"),
            what: format!("position ({mover:?}, {opponent:?}, {d}) is not in the solved layer"),
        })
    }
}

/// The mover's winning chance after each way its turn can end, read once from a source:
/// what every choice of the turn is worth follows from it by the turn kernel.
pub struct TurnEndings<'c> {
    cards: &'c Cards,
    d: i32,
    /// By (next card of the mover, difference seen by the opponent, who moves next).
    after: HashMap<(StateId, i32), f64>,
}

impl<'c> TurnEndings<'c> {
    /// The endings of the mover's turn in (`mover`, `opponent`, `d`); `source` must hold the
    /// positions after the turn.
    pub fn new(
        source: &impl PositionSource,
        cards: &'c Cards,
        mover: StateId,
        opponent: StateId,
        d: i32,
    ) -> Result<TurnEndings<'c>, ShardError> {
        let mut after: HashMap<(StateId, i32), f64> = HashMap::new();
        for (_, _, mv) in cards.moves(mover) {
            let e = -(d + mv.points as i32);
            if let std::collections::hash_map::Entry::Vacant(slot) = after.entry((mv.next, e)) {
                slot.insert(1.0 - source.value(opponent, mv.next, e)?);
            }
        }
        Ok(TurnEndings { cards, d, after })
    }

    /// The mover's winning chance after ending the turn with `t`.
    ///
    /// # Panics
    /// If `t` is not a way the mover's turn can end.
    pub fn value(&self, t: Transition) -> f64 {
        let next = self.cards.index().id(t.next).expect("a successor is a card");
        self.after[&(next, -(self.d + t.points as i32))]
    }
}

/// Every choice of the mover's turn in (`mover`, `opponent`, `d`) holding `roll` with
/// `rolls_left` rerolls, valued by the mover's winning chance, best first. `source` must
/// hold the positions after the turn.
pub fn advise(
    source: &impl PositionSource,
    cards: &Cards,
    mover: StateId,
    opponent: StateId,
    d: i32,
    roll: RollId,
    rolls_left: RollsLeft,
) -> Result<Vec<Valued>, ShardError> {
    let endings = TurnEndings::new(source, cards, mover, opponent, d)?;
    let state: ScoreState = cards.index().state(mover);
    Ok(choice::rank(cards.game(), state, roll, rolls_left, |t| endings.value(t)))
}
