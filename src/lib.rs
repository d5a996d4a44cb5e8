//! yz: exact Yahtzee and Scandinavian Yatzy.
//!
//! One turn dynamic program ([`turn`]), generic over what a state's value is, carries every
//! solver, with the code around it written once too: the scoring plan (which successor and
//! points each roll gives in each box) and the backward layer driver. [`solo`] solves the single-player game for maximum expected score with lanes
//! over the upper total. [`strategy`] names the papers' other strategies, evaluated exactly
//! by the same forward analysis, and [`simulate`] plays any of them, alone or in a match.
//! [`duel`] solves the two-player game layer by layer; [`cluster`] spreads that solve over
//! MPI ranks (or runs it in one process). [`targets`] gives the best chance of reaching
//! every score, [`emp`] Pawlewicz's searchers and exact move errors, [`oneturn`] one turn
//! played for a pattern. For players, [`record`] reads and writes game records, [`review`]
//! judges every decision of one, [`play`] runs a coached game, and [`serve`] offers it all as
//! a local web app. [`game`] models dice, the boxes and the rule sets as data (every
//! solver reads a game only through it, so Yatzy is a value like Yahtzee's variants), and
//! score states; [`store`] is the checked file format every table uses, with one identity
//! check for every kind of file. Long work reports how far it has got through
//! [`progress`]; the library never draws, so a program embedding yz shows what it likes.
//! [`sys`] reads the machine's memory and a Slurm allocation, for whatever sizes work.
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
//! let ranked = yz::solo::advise(&solution, game, &card, roll, yz::turn::choice::RollsLeft::TWO).unwrap();
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

pub mod duel;
pub mod emp;
pub mod game;
pub mod oneturn;
pub mod play;
pub mod progress;
pub mod record;
pub mod review;
pub mod serve;
pub mod simulate;
pub mod solo;
pub mod store;
pub mod strategy;
pub mod sys;
pub mod targets;
pub mod turn;
