//! The game model: dice, keeps, boxes, rules, score states and cards, and a card as a page
//! draws it.

pub mod category;
pub mod choice;
pub mod dice;
pub mod flags;
pub mod index;
pub mod rules;
pub mod scoring;
pub mod state;
pub mod suggest;
pub mod view;

pub use category::{ALL_CATEGORIES, Category, CategoryListError, CategorySet, MAX_BOXES};
pub use choice::{Choice, ChoiceJson, RollsLeft, RollsLeftError, Valued, faces};
pub use dice::{KeepId, NUM_KEEPS, NUM_ROLLS, RollId, parse_dice};
pub use flags::GameFlags;
pub use index::{StateId, StateIndex};
pub use rules::{BoxRule, Joker, PointsTable, RollClasses, Rules, YAHTZEE_RULES};
pub use scoring::{Game, Scoring};
pub use state::{Card, CardError, Earned, ScoreState, Transition};
pub use view::{BoxView, CardView};
