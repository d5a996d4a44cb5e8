//! Two players: the exact solve of the zero-sum game over pairs of cards and the score
//! difference (Pawlewicz §4, App. D), layer by layer with lanes over the difference.
//!
//! - [`cards`]: a player's card and the bounds that decide which differences are positions;
//! - [`layout`]: where a layer's positions lie, per card and per rectangle of pairs;
//! - [`value`]: the lane types (winning chance, and with the draw probability);
//! - [`solve`]: the positions a solve covers and one layer's pairs solved (the kernel);
//!   the layer loop around it is [`sweep`], over the ranks of [`cluster`];
//! - [`shard`]: layer shards and the manifest, the table format;
//! - [`advise`]: a position's value and its choices ranked, from tables or a solve;
//! - [`source`]: where a position's values come from (final scores, tables on disk, or a
//!   solve of the game below it), and where tables are looked for; [`covering`]: the game
//!   of a position asked about without game flags, from the tables that hold it;
//! - [`sizing`]: a solve before it runs: exact position counts by layer, each layer's
//!   solve rate, memory, traffic, disk and core-hours, whether it fits its ranks' memory
//!   and what would, the Slurm job;
//! - [`units`]: bytes and counts as reports print them;
//! - `gpu` (feature `gpu`): the turn kernel on an NVIDIA GPU, bit for bit the CPU's.

pub mod advise;
pub mod cards;
pub mod cluster;
pub mod covering;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod layout;
pub mod shard;
pub mod sizing;
pub mod solve;
pub mod source;
pub mod space;
pub mod sweep;
pub mod units;
pub mod value;

pub use cards::{CardBounds, CardSet, Cards};
pub use layout::{LayerShape, Tile};
pub use solve::LayerValues;
pub use space::{Space, SpaceError};
pub use value::{DuelValue, WinDraw};
