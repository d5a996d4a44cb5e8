//! yz: exact Yahtzee.
#![warn(missing_docs)]

pub mod game;
pub mod solo;
pub mod store;
pub mod turn;
