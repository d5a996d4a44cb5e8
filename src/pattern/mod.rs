//! One turn, played for one pattern: the keeps that maximise the chance of ending a turn
//! with a Yahtzee, a full house, a straight or any multiplicity pattern, for any number of
//! faces, dice and rolls (whuber's decision analysis, `002_…`).
//!
//! This is a small stand-alone dynamic program, apart from the five-dice kernel in
//! [`crate::turn`]: the dice and faces vary, and the values are exact fractions.
//!
//! - **States.** A pattern symmetric in the faces (all but the straights) is solved on
//!   multiplicity states ([`Notation::Multiplicities`], `002_…`'s notation: entry i counts
//!   the faces showing on exactly i dice, so the seven states of five dice are `5`, `31`,
//!   `12`, `201`, `011`, `1001`, `00001`); a straight on every distinct roll
//!   ([`Notation::Rolls`]). Keeps are states of fewer dice, written the same way (`01`:
//!   keep one pair; `0` or `none`: reroll everything).
//! - **Solve**, from the last roll back (Pawlewicz App. B's recurrences, one die at a time as
//!   in `002_…`): after the last roll a state is worth 1 if it shows the pattern, else 0; a
//!   keep of fewer than N dice is worth the mean over the faces of the keep plus one more
//!   die; a state after an earlier roll is worth its best sub-keep, found as a running
//!   maximum over the states one die smaller. The chance of the turn is the value of
//!   keeping nothing before the first roll.
//! - **Exactness.** Every value is an integer count over `faces^(dice · rolls)`, the number
//!   of equally likely ways to roll every die of every roll, held in a `u128`; each mean is
//!   an exact division. Results are reduced fractions ([`Probability`]), so the Yahtzee
//!   chance is exactly 2,783,176 / 6^10.
//!
//! ```
//! use yz::pattern::{Pattern, Setup, solve};
//!
//! let solution = solve(&"yahtzee".parse::<Pattern>().unwrap(), Setup::default()).unwrap();
//! assert_eq!(solution.probability, yz::pattern::Probability::new(2_783_176, 6u128.pow(10)));
//! // One pair after the first roll: keep the pair ("01").
//! assert_eq!(solution.state("31").unwrap().best_keeps[0], ["01"]);
//! ```

mod kind;
mod solve;
mod space;

pub use kind::Pattern;
pub use solve::{Solution, StateRow, solve};
pub use space::Notation;

/// An exact probability: a reduced fraction of `u128`s.
pub type Probability = num_rational::Ratio<u128>;

/// The probability as the nearest `f64` (to within a few units in the last place).
pub fn to_f64(probability: &Probability) -> f64 {
    *probability.numer() as f64 / *probability.denom() as f64
}

/// Most dice a turn may roll (the state tables grow with the partitions of the dice).
pub const MAX_DICE: u32 = 100;

/// Most rolls a turn may have.
pub const MAX_ROLLS: u32 = 100;

/// Most work a pattern that is not symmetric in the faces may take: every roll and keep
/// (C(faces + dice, dice) of them) times the faces a die can show.
pub const MAX_ROLL_WORK: u128 = 5_000_000;

/// The dice of the turn: how many faces (equally likely, numbered from 1), how many dice,
/// how many rolls (the first roll included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    /// Faces of each die, at least 1.
    pub faces: u32,
    /// Dice rolled, 1 to [`MAX_DICE`].
    pub dice: u32,
    /// Rolls in the turn, 1 to [`MAX_ROLLS`]; Yahtzee has 3.
    pub rolls: u32,
}

impl Default for Setup {
    /// Yahtzee's turn: five six-sided dice, three rolls.
    fn default() -> Self {
        Setup { faces: 6, dice: 5, rolls: 3 }
    }
}

impl Setup {
    /// `faces^(dice · rolls)`, the common denominator of every value of the solve, after
    /// checking the sizes (`faces^(dice · rolls + 1)` must fit a `u128`, so that summing
    /// `faces` values before dividing cannot overflow).
    pub fn checked_denominator(self) -> Result<u128, PatternError> {
        let Setup { faces, dice, rolls } = self;
        for (what, value, most) in [("faces", faces, u32::MAX), ("dice", dice, MAX_DICE), ("rolls", rolls, MAX_ROLLS)] {
            if value == 0 || value > most {
                return Err(PatternError::OutOfRange { what, value, most });
            }
        }
        let exponent = dice * rolls;
        u128::from(faces)
            .checked_pow(exponent + 1)
            .map(|_| u128::from(faces).pow(exponent))
            .ok_or(PatternError::Overflow { faces, exponent })
    }
}

/// Why a one-turn analysis cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// The pattern is neither a name nor a multiplicity pattern.
    #[error(
        "unknown pattern {}{meant}: expected yahtzee, full-house, large-straight, small-straight, \
         n-of-a-kind (e.g. 3-of-a-kind) or a multiplicity pattern such as 011 (entry i = faces \
         showing on exactly i dice; comma-separated when an entry exceeds 9)",
        crate::quote::quote(.0),
        meant = kind::did_you_mean(.0)
    )]
    UnknownPattern(String),
    /// `0-of-a-kind`.
    #[error("0-of-a-kind is not a pattern: n-of-a-kind needs n of at least 1")]
    OfAKindZero,
    /// n-of-a-kind with more than the dice.
    #[error("{n}-of-a-kind needs {n} dice but the turn rolls {dice}")]
    OfAKindDice {
        /// The n asked for.
        n: u32,
        /// The dice of the turn.
        dice: u32,
    },
    /// A full house needs five dice.
    #[error(
        "full-house means three and two of five dice, but the turn rolls {dice}; give a multiplicity pattern instead (e.g. 0011 for three and four of seven dice)"
    )]
    FullHouseDice {
        /// The dice of the turn.
        dice: u32,
    },
    /// A straight with a single die.
    #[error("{pattern} needs at least 2 dice; the turn rolls {dice}")]
    StraightDice {
        /// The straight's name.
        pattern: String,
        /// The dice of the turn.
        dice: u32,
    },
    /// A straight longer than the faces.
    #[error("{pattern} needs {run} consecutive faces but the dice have {faces}")]
    StraightFaces {
        /// The straight's name.
        pattern: String,
        /// Consecutive faces it needs.
        run: u32,
        /// Faces of the dice.
        faces: u32,
    },
    /// A multiplicity pattern with a face on more dice than there are.
    #[error("pattern {pattern} has {length} entries, but with {dice} dice a face shows on at most {dice}")]
    PatternTooLong {
        /// The pattern.
        pattern: String,
        /// Its entries up to the last non-zero one.
        length: usize,
        /// The dice of the turn.
        dice: u32,
    },
    /// A multiplicity pattern for another number of dice.
    #[error("pattern {pattern} describes {described} dice (the sum of i × entry i) but the turn rolls {dice}")]
    PatternDice {
        /// The pattern.
        pattern: String,
        /// The dice it describes.
        described: u64,
        /// The dice of the turn.
        dice: u32,
    },
    /// A multiplicity pattern with more different faces than a die has.
    #[error("pattern {pattern} needs {distinct} different faces but the dice have {faces}")]
    PatternFaces {
        /// The pattern.
        pattern: String,
        /// Different faces it shows.
        distinct: u64,
        /// Faces of the dice.
        faces: u32,
    },
    /// Faces, dice or rolls of zero or past their limit.
    #[error("--{what} must be 1 to {most}; got {value}")]
    OutOfRange {
        /// Which size.
        what: &'static str,
        /// The value given.
        value: u32,
        /// Its limit.
        most: u32,
    },
    /// Exact counts would not fit 128 bits.
    #[error(
        "{faces} faces with dice × rolls = {exponent} is too large for exact 128-bit counts: \
         the limit is faces^(dice × rolls + 1) < 2^128"
    )]
    Overflow {
        /// Faces of the dice.
        faces: u32,
        /// Dice times rolls.
        exponent: u32,
    },
    /// A straight with too many rolls to solve.
    #[error(
        "{pattern} is not symmetric in the faces, so every roll is a state: {faces} faces and {dice} dice \
         give C(faces + dice, dice) × faces = {work} steps, past the limit of {limit}"
    )]
    TooManyRolls {
        /// The pattern.
        pattern: String,
        /// Faces of the dice.
        faces: u32,
        /// The dice of the turn.
        dice: u32,
        /// The work, or `u128::MAX` past that.
        work: u128,
        /// [`MAX_ROLL_WORK`].
        limit: u128,
    },
}
