//! yz: exact Yahtzee and Scandinavian Yatzy.
//!
//! One turn dynamic program ([`turn`]), generic over what a state's value is, carries every
//! solver, with the code around it written once too: the scoring plan (which successor and
//! points each roll gives in each box) and the backward layer driver.
//!
//! - [`game`]: dice, the boxes and the rule sets as data (every solver reads a game only
//!   through it, so Yatzy is a value like Yahtzee's variants), score states and the turn's
//!   vocabulary; [`store`]: the checked file format every table uses.
//! - [`solo`]: the single-player game for maximum expected score, with lanes over the upper
//!   total; [`targets`]: the best chance of reaching every score; [`pattern`]: one turn
//!   played for a pattern.
//! - [`strategy`]: the papers' other solitaire strategies, evaluated exactly by the same
//!   forward analysis; [`simulate`] plays any of them; [`players`]: anything that plays a
//!   game of several players (solitaire strategies, Pawlewicz's searchers) and matches.
//! - [`duel`]: the two-player game solved layer by layer, in one process or over MPI ranks
//!   ([`duel::cluster`]); [`move_errors`]: exact move errors of any player against it.
//! - [`coach`]: game records, reviews, a coached game, and the local web app (feature
//!   `serve`).
//! - [`verify`]: any table yz writes checked (checksums, then a full read by its reader),
//!   with what to do about a bad one.
//! - [`progress`]: how long work reports how far it has got (the library never draws, so a
//!   program embedding yz shows what it likes); [`sys`]: the machine's memory and a Slurm
//!   allocation, for whatever sizes work.
//!
//! ```
//! use yz::game::{Card, Game, Rules, parse_dice};
//!
//! // The upper-section game: six boxes, bonus 35 at 63.
//! let game = Game::first(Rules::OFFICIAL, 6).unwrap();
//! let solution = yz::solo::solve(game);
//! assert!((solution.start_value() - 71.95).abs() < 0.01);
//!
//! // What to keep from 6,6,6,2,1 with two rerolls left?
//! let card = Card::parse("", game).unwrap();
//! let roll = parse_dice("6,6,6,2,1").unwrap();
//! let ranked = yz::solo::advise(&solution, game, &card, roll, yz::game::RollsLeft::TWO).unwrap();
//! assert_eq!(yz::solo::advise::faces(match ranked[0].choice {
//!     yz::solo::Choice::Keep(keep) => keep,
//!     yz::solo::Choice::Score(_) => unreachable!(),
//! }), vec![6, 6, 6]);
//!
//! // Scandinavian Yatzy's lower section is a game like any other.
//! let lower = Game::from_list(Rules::yatzy(), "pair,2pairs,3k,4k,ss,ls,fh,chance,yatzy").unwrap();
//! assert!((yz::solo::solve(lower).start_value() - 127.376).abs() < 0.001);
//! ```
#![warn(missing_docs)]

pub mod coach;
pub mod duel;
pub mod game;
pub mod move_errors;
pub mod pattern;
pub mod players;
pub mod progress;
pub mod quote;
pub mod simulate;
pub mod solo;
pub mod store;
pub mod strategy;
pub mod sys;
pub mod targets;
pub mod turn;
pub mod verify;
