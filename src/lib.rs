//! yz: exact Yahtzee and Scandinavian Yatzy.
//!
//! One turn dynamic program ([`turn`]), generic over what a state's value is, carries every
//! solver, with the code around it written once too: the scoring plan (which successor and
//! points each roll gives in each box) and the backward layer drivers, one for the tables
//! that fit in memory and one for the two-player game (`docs/layout.md` says why two).
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
//! - [`duel`]: the two-player game solved layer by layer ([`duel::sweep`]), in one process
//!   or over MPI ranks ([`duel::cluster`]), sized before it runs ([`duel::sizing`]);
//!   [`move_errors`]: exact move errors of any player against it.
//! - [`coach`]: game records, reviews, a coached game, and the local web app (feature
//!   `serve`).
//! - [`verify`](mod@verify): any table yz writes checked (checksums, then a full read by its reader),
//!   with what to do about a bad one.
//! - [`progress`]: how long work reports how far it has got (the library never draws, so a
//!   program embedding yz shows what it likes); [`sys`]: the machine's memory and a Slurm
//!   allocation, for whatever sizes work.
//!
//! **The facade.** A program embedding yz needs only the names at the crate's root:
//!
//! | for | names |
//! |---|---|
//! | the game | [`Game`], [`Rules`], [`Category`], [`Card`], [`ScoreState`], [`RollId`] and [`parse_dice`], [`RollsLeft`] |
//! | solitaire | [`solve_solo()`] → [`SoloSolution`], or [`SoloTable`] on disk ([`open_or_solve`]); [`advise_solo()`] → [`Ranked`] [`Choice`]s |
//! | any strategy, exactly | [`Strategy`] (the zoo by [`StrategyName`]), [`analyze_strategy`] → [`Analysis`] and its [`ScoreDistribution`] |
//! | targets | [`solve_targets`] → [`TargetCurves`] of [`Curve`]s, or [`TargetTable`] on disk; [`solve_targets_below`] for one position; [`advise_target`] |
//! | two players | [`DuelCards`] and [`DuelPosition`], [`duel_value`] and [`advise_duel`] from tables on disk or a solve below ([`TableLookup`]) |
//! | files | [`verify()`], [`TableError`]; [`Progress`] (or [`Silent`]) for anything long |
//!
//! The modules below hold the rest (the solvers' parts, the cluster solve, the coach).
//!
//! ```
//! use yz::{Card, Choice, Game, Rules, RollsLeft, advise_solo, parse_dice, solve_solo};
//!
//! // The upper-section game: six boxes, bonus 35 at 63.
//! let game = Game::first(Rules::OFFICIAL, 6).unwrap();
//! let solution = solve_solo(game);
//! assert!((solution.start_value() - 71.95).abs() < 0.01);
//!
//! // What to keep from 6,6,6,2,1 with two rerolls left?
//! let card = Card::parse("", game).unwrap();
//! let roll = parse_dice("6,6,6,2,1").unwrap();
//! let ranked = advise_solo(&solution, game, &card, roll, RollsLeft::TWO).unwrap();
//! assert!(matches!(ranked[0].choice, Choice::Keep(keep) if keep.to_string() == "6,6,6"));
//!
//! // Scandinavian Yatzy's lower section is a game like any other.
//! let lower = Game::from_list(Rules::yatzy(), "pair,2pairs,3k,4k,ss,ls,fh,chance,yatzy").unwrap();
//! assert!((solve_solo(lower).start_value() - 127.376).abs() < 0.001);
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

pub use duel::Cards as DuelCards;
pub use duel::source::{Position as DuelPosition, TableLookup, advise as advise_duel, value as duel_value};
pub use game::{Card, Category, Game, RollId, RollsLeft, Rules, ScoreState, parse_dice};
pub use progress::{Progress, Silent};
pub use solo::{Analysis, Choice, Ranked, ScoreDistribution, SoloSolution, SoloTable};
pub use solo::{advise as advise_solo, analyze as analyze_strategy, solve as solve_solo};
pub use store::{TableError, open_or_solve};
pub use strategy::{Strategy, StrategyName};
pub use targets::advise::advise as advise_target;
pub use targets::solve::{solve as solve_targets, solve_below as solve_targets_below};
pub use targets::{Curve, TargetCurves, TargetTable};
pub use verify::verify;
