//! The game a command's flags name, each flag optional, and the flags that name a game:
//! so that a command can take the game of the tables it is pointed at when it is given
//! none, refuse flags that contradict them, and advise the exact command for a game.

use std::fmt;

use super::category::CategoryListError;
use super::rules::Rules;
use super::scoring::Game;

/// The game flags of a command as given: `--rules`, `--categories LIST` or `--first N`,
/// each optional. Without any, a command that finds a game where it looks (a table
/// directory's manifest) takes that one; otherwise they name the official rules' whole
/// card.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameFlags {
    /// `--rules`.
    pub rules: Option<Rules>,
    /// `--categories`: a comma-separated list of boxes.
    pub categories: Option<String>,
    /// `--first`: the first N boxes in card order.
    pub first: Option<usize>,
}

impl GameFlags {
    /// Whether no game flag was given.
    pub fn is_empty(&self) -> bool {
        *self == GameFlags::default()
    }

    /// The game named: under the rules given (official by default), the boxes listed, else
    /// the first N, else the whole card ([`Game::select`]).
    pub fn game(&self) -> Result<Game, CategoryListError> {
        Game::select(self.rules.unwrap_or(Rules::OFFICIAL), self.categories.as_deref(), self.first)
    }

    /// Whether the flags given agree with `game`: its rules, where rules are given, and
    /// its boxes, where boxes are given (read under its rules when no rules are). No flag
    /// agrees with any game.
    pub fn agree_with(&self, game: Game) -> bool {
        let rules = self.rules.unwrap_or(game.rules);
        let boxes_given = self.categories.is_some() || self.first.is_some();
        rules == game.rules
            && (!boxes_given || Game::select(rules, self.categories.as_deref(), self.first).is_ok_and(|g| g == game))
    }
}

impl Game {
    /// The shortest flags that name this game: `--rules` unless official, then
    /// `--first N` where its boxes are the card's first N, else `--categories LIST`, and
    /// no box flag for the whole card.
    pub fn flags(self) -> GameFlags {
        let rules = (self.rules != Rules::OFFICIAL).then_some(self.rules);
        let n = self.categories.len();
        let (categories, first) = if self.categories == self.rules.boxes() {
            (None, None)
        } else if self.rules.first(n).is_ok_and(|first| first == self.categories) {
            (None, Some(n))
        } else {
            (Some(self.box_names().join(",")), None)
        };
        GameFlags { rules, categories, first }
    }
}

impl Game {
    /// The game in words: its rules and boxes, e.g. `official, first 6 boxes`,
    /// `yatzy, boxes pair,yatzy`, `official, every box`.
    pub fn describe(self) -> String {
        let flags = self.flags();
        let boxes = match (flags.first, flags.categories) {
            (Some(n), _) => format!("first {n} boxes"),
            (None, Some(list)) => format!("boxes {list}"),
            (None, None) => "every box".to_owned(),
        };
        format!("{}, {boxes}", self.rules)
    }
}

/// The flags as typed on a command line, e.g. `--rules yatzy --first 6` (empty for none).
impl fmt::Display for GameFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut flags = Vec::new();
        if let Some(rules) = self.rules {
            flags.push(format!("--rules {rules}"));
        }
        if let Some(list) = &self.categories {
            flags.push(format!("--categories {list}"));
        }
        if let Some(n) = self.first {
            flags.push(format!("--first {n}"));
        }
        f.write_str(&flags.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_name_a_game_and_a_game_its_flags() {
        let first6 = Game::first(Rules::OFFICIAL, 6).unwrap();
        assert_eq!(first6.flags().to_string(), "--first 6");
        assert_eq!(first6.describe(), "official, first 6 boxes");
        assert_eq!(first6.flags().game().unwrap(), first6);
        assert_eq!(Game::full(Rules::OFFICIAL).flags(), GameFlags::default());
        let lower = Game::from_list(Rules::yatzy(), "pair,yatzy").unwrap();
        assert_eq!(lower.flags().to_string(), "--rules yatzy --categories pair,yatzy");
        assert_eq!(lower.flags().game().unwrap(), lower);
        assert_eq!(Game::full(Rules::yatzy()).flags().to_string(), "--rules yatzy");
        assert_eq!(
            (lower.describe(), Game::full(Rules::yatzy()).describe()),
            ("yatzy, boxes pair,yatzy".into(), "yatzy, every box".into())
        );

        let none = GameFlags::default();
        assert!(none.is_empty() && none.agree_with(lower) && none.game().unwrap() == Game::full(Rules::OFFICIAL));
        let six = GameFlags { first: Some(6), ..GameFlags::default() };
        assert!(six.agree_with(first6) && !six.agree_with(Game::first(Rules::OFFICIAL, 3).unwrap()));
        assert!(six.agree_with(Game::first(Rules::NO_BONUS, 6).unwrap()), "the boxes read under its rules");
        let yatzy = GameFlags { rules: Some(Rules::yatzy()), ..GameFlags::default() };
        assert!(yatzy.agree_with(lower) && !yatzy.agree_with(first6));
        let listed = GameFlags { categories: Some("ones,twos,threes,fours,fives,sixes".into()), ..none };
        assert!(listed.agree_with(first6));
    }
}
