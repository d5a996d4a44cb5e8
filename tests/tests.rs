//! Integration tests: one binary, a module per topic.

mod analysis;
mod cli;
mod duel_brute_force;
mod duel_cli;
mod golden;
mod solo;
mod turn_brute_force;
