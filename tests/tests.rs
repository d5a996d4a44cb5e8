//! Integration tests: one binary, a module per topic.

mod cli;
mod golden;
mod solo;
