//! Integration tests: one binary, a module per topic.

mod analysis;
mod cli;
mod duel_brute_force;
mod duel_cli;
mod forge;
mod golden;
mod hostile;
mod hostile_cli;
mod hostile_writers;
mod move_errors;
mod parsers;
mod pattern;
mod payoff;
mod play;
mod players;
mod readme;
mod review;
#[cfg(feature = "serve")]
mod serve;
mod shard_verify;
mod simulate;
mod solo;
mod strategy;
mod targets;
mod targets_brute_force;
mod turn_brute_force;
mod verify;
