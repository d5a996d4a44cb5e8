//! The patterns a turn can be played for, parsed from the command line and tested on a roll.

use std::fmt;
use std::str::FromStr;

use super::{PatternError, Setup};

/// What the final roll of the turn must show.
///
/// Every pattern but the straights depends only on how many faces show on how many dice, not
/// on which faces they are (it is *symmetric in the faces*), so it is solved on multiplicity
/// states; the straights are solved on every distinct roll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// `yahtzee`: all dice show the same face (the multiplicity pattern `0…01`).
    Yahtzee,
    /// `full-house`: three dice of one face and two of another, with five dice (`011`).
    FullHouse,
    /// `large-straight`: the N dice show N consecutive faces (1-2-3-4-5 or 2-3-4-5-6).
    LargeStraight,
    /// `small-straight`: N − 1 consecutive faces all show among the N dice (1-2-3-4,
    /// 2-3-4-5 or 3-4-5-6 with five dice); a large straight is also a small one.
    SmallStraight,
    /// `n-of-a-kind`: at least n dice show the same face (`3-of-a-kind`, `4-of-a-kind`).
    OfAKind(u32),
    /// An explicit multiplicity pattern in whuber's notation (`002_…`): entry i (from 1)
    /// counts the faces that show on exactly i dice, and the final roll must have exactly
    /// these counts. `011` is a full house (no single, one pair, one triple), `5` five
    /// different faces, `00001` a Yahtzee, `12` two pairs and a single. Trailing zeros
    /// change nothing.
    Multiplicities(Vec<u32>),
}

impl Pattern {
    /// The multiplicity pattern of a Yahtzee with `dice` dice: `0…01`, `dice` entries.
    fn yahtzee(dice: u32) -> Vec<u32> {
        let mut entries = vec![0; dice as usize];
        entries[dice as usize - 1] = 1;
        entries
    }

    /// Whether the pattern depends only on the multiplicities of a roll (every pattern but the
    /// straights), so that relabelling the faces never changes whether a roll shows it.
    pub fn symmetric_in_faces(&self) -> bool {
        !matches!(self, Pattern::LargeStraight | Pattern::SmallStraight)
    }

    /// Checks that the pattern can be rolled with these dice; a pattern no roll shows is an
    /// error rather than a chance of 0.
    pub fn check(&self, setup: Setup) -> Result<(), PatternError> {
        let Setup { faces, dice, .. } = setup;
        let name = self.to_string();
        match self {
            Pattern::Yahtzee => Ok(()),
            Pattern::FullHouse if dice != 5 => Err(PatternError::FullHouseDice { dice }),
            Pattern::FullHouse => Pattern::Multiplicities(vec![0, 1, 1]).check(setup),
            Pattern::LargeStraight | Pattern::SmallStraight => {
                if dice < 2 {
                    return Err(PatternError::StraightDice { pattern: name, dice });
                }
                let run = self.straight_length(dice);
                if run > faces { Err(PatternError::StraightFaces { pattern: name, run, faces }) } else { Ok(()) }
            }
            Pattern::OfAKind(n) if *n > dice => Err(PatternError::OfAKindDice { n: *n, dice }),
            Pattern::OfAKind(_) => Ok(()),
            Pattern::Multiplicities(entries) => {
                let length = entries.iter().rposition(|&m| m > 0).map_or(0, |last| last + 1);
                if length > dice as usize {
                    return Err(PatternError::PatternTooLong { pattern: name, length, dice });
                }
                let described: u64 = entries.iter().zip(1u64..).map(|(&m, i)| u64::from(m) * i).sum();
                if described != u64::from(dice) {
                    return Err(PatternError::PatternDice { pattern: name, described, dice });
                }
                let distinct: u64 = entries.iter().map(|&m| u64::from(m)).sum();
                if distinct > u64::from(faces) {
                    return Err(PatternError::PatternFaces { pattern: name, distinct, faces });
                }
                Ok(())
            }
        }
    }

    /// How many consecutive faces a straight of this kind needs with `dice` dice.
    fn straight_length(&self, dice: u32) -> u32 {
        match self {
            Pattern::SmallStraight => dice - 1,
            _ => dice,
        }
    }

    /// Whether a final roll shows the pattern. `counts[f]` is how many dice show face f + 1
    /// (faces past the end of the slice show on no die); the dice are the sum of the counts.
    pub fn shown_by(&self, counts: &[u8]) -> bool {
        let dice: u32 = counts.iter().map(|&c| u32::from(c)).sum();
        let most = counts.iter().copied().max().map_or(0, u32::from);
        match self {
            Pattern::Yahtzee => most == dice,
            Pattern::OfAKind(n) => most >= *n,
            Pattern::FullHouse => Self::same_multiplicities(counts, &[0, 1, 1]),
            Pattern::LargeStraight | Pattern::SmallStraight => {
                let run = self.straight_length(dice) as usize;
                let mut longest = 0;
                let mut current = 0;
                for &count in counts {
                    current = if count > 0 { current + 1 } else { 0 };
                    longest = longest.max(current);
                }
                longest >= run
            }
            Pattern::Multiplicities(entries) => Self::same_multiplicities(counts, entries),
        }
    }

    /// Whether the face counts have exactly these multiplicity entries (trailing zeros aside).
    fn same_multiplicities(counts: &[u8], entries: &[u32]) -> bool {
        let mut of_counts = Vec::new();
        for &count in counts.iter().filter(|&&c| c > 0) {
            let i = usize::from(count) - 1;
            if of_counts.len() <= i {
                of_counts.resize(i + 1, 0u32);
            }
            of_counts[i] += 1;
        }
        let length = entries.iter().rposition(|&m| m > 0).map_or(0, |last| last + 1);
        of_counts == entries[..length]
    }

    /// The pattern in words for these dice, e.g. "all 5 dice show one face".
    pub fn meaning(&self, setup: Setup) -> String {
        let dice = setup.dice;
        match self {
            Pattern::Yahtzee => format!(
                "all {dice} dice show one face (multiplicity pattern {})",
                Pattern::Multiplicities(Self::yahtzee(dice))
            ),
            Pattern::FullHouse => "three dice of one face and two of another (multiplicity pattern 011)".into(),
            Pattern::LargeStraight => format!("the {dice} dice show {dice} consecutive faces"),
            Pattern::SmallStraight => format!("{} consecutive faces show among the {dice} dice", dice - 1),
            Pattern::OfAKind(n) => format!("at least {n} of the {dice} dice show one face"),
            Pattern::Multiplicities(entries) => {
                let parts: Vec<String> = (1..)
                    .zip(entries)
                    .filter(|&(_, &m)| m > 0)
                    .map(|(i, &m)| format!("{m} face(s) on exactly {i} dice"))
                    .collect();
                format!("exactly {}", parts.join(", "))
            }
        }
    }
}

/// The pattern name a mistyped one stands for ([`crate::game::suggest`]): a named pattern,
/// or `N-of-a-kind` for a name that starts with the digits N.
pub(super) fn did_you_mean(typed: &str) -> String {
    let digits: String = typed.trim().chars().take_while(char::is_ascii_digit).collect();
    let of_a_kind = format!("{digits}-of-a-kind");
    let names = ["yahtzee", "full-house", "large-straight", "small-straight"];
    let kinds = (!digits.is_empty()).then_some(of_a_kind.as_str());
    crate::game::suggest::did_you_mean(typed, names.into_iter().chain(kinds))
}

impl FromStr for Pattern {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let unknown = || PatternError::UnknownPattern(text.to_string());
        match text {
            "yahtzee" => return Ok(Pattern::Yahtzee),
            "full-house" => return Ok(Pattern::FullHouse),
            "large-straight" => return Ok(Pattern::LargeStraight),
            "small-straight" => return Ok(Pattern::SmallStraight),
            _ => {}
        }
        let number = |digits: &str| Some(digits).filter(|d| d.bytes().all(|b| b.is_ascii_digit()))?.parse().ok();
        if let Some(n) = text.strip_suffix("-of-a-kind") {
            return match number(n) {
                Some(0) => Err(PatternError::OfAKindZero),
                Some(n) => Ok(Pattern::OfAKind(n)),
                None => Err(unknown()),
            };
        }
        let entries: Option<Vec<u32>> = if text.contains(',') {
            text.split(',').map(number).collect()
        } else if !text.is_empty() {
            text.chars().map(|c| c.to_digit(10)).collect()
        } else {
            None
        };
        entries.map(Pattern::Multiplicities).ok_or_else(unknown)
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Yahtzee => f.write_str("yahtzee"),
            Pattern::FullHouse => f.write_str("full-house"),
            Pattern::LargeStraight => f.write_str("large-straight"),
            Pattern::SmallStraight => f.write_str("small-straight"),
            Pattern::OfAKind(n) => write!(f, "{n}-of-a-kind"),
            Pattern::Multiplicities(entries) => f.write_str(&multiplicity_label(entries)),
        }
    }
}

/// Writes multiplicity entries in whuber's notation: digits run together (`011`), or
/// separated by commas when an entry exceeds 9 (`12,0,1`, and `12,0` for a lone entry, which
/// as `12` would read as two digits); trailing zeros are otherwise dropped and no entries at
/// all (no dice) is `0`.
pub(super) fn multiplicity_label(entries: &[u32]) -> String {
    let length = entries.iter().rposition(|&m| m > 0).map_or(0, |last| last + 1);
    let entries = &entries[..length];
    if entries.is_empty() {
        "0".into()
    } else if entries.iter().all(|&m| m <= 9) {
        entries.iter().map(u32::to_string).collect()
    } else if entries.len() == 1 {
        format!("{},0", entries[0])
    } else {
        entries.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_digits_parse_and_print_back() {
        for text in
            ["yahtzee", "full-house", "large-straight", "small-straight", "3-of-a-kind", "011", "12,0,1", "12,0"]
        {
            assert_eq!(text.parse::<Pattern>().unwrap().to_string(), text);
        }
        assert_eq!("011".parse::<Pattern>().unwrap(), Pattern::Multiplicities(vec![0, 1, 1]));
        assert_eq!("12,0".parse::<Pattern>().unwrap(), Pattern::Multiplicities(vec![12, 0]));
        for bad in ["", "01a", "1,,2", "+3-of-a-kind", "-of-a-kind", "chance"] {
            assert!(matches!(bad.parse::<Pattern>(), Err(PatternError::UnknownPattern(_))), "{bad}");
        }
    }

    /// Found by the parsers' property tests: a small straight with no dice took one die
    /// from none before it was refused.
    #[test]
    fn straights_with_no_dice_are_refused() {
        for pattern in [Pattern::SmallStraight, Pattern::LargeStraight] {
            let setup = Setup { faces: 6, dice: 0, rolls: 3 };
            assert!(matches!(pattern.check(setup), Err(PatternError::StraightDice { dice: 0, .. })));
        }
    }

    #[test]
    fn rolls_show_the_patterns_the_rules_say() {
        let counts = |dice: &[u8]| {
            let mut counts = vec![0u8; 6];
            dice.iter().for_each(|&d| counts[usize::from(d) - 1] += 1);
            counts
        };
        let shown = |pattern: &str, dice: &[u8]| pattern.parse::<Pattern>().unwrap().shown_by(&counts(dice));
        assert!(shown("yahtzee", &[4, 4, 4, 4, 4]) && !shown("yahtzee", &[4, 4, 4, 4, 1]));
        assert!(shown("full-house", &[2, 2, 5, 5, 5]) && !shown("full-house", &[5, 5, 5, 5, 5]));
        assert!(shown("011", &[2, 2, 5, 5, 5]) && shown("0110", &[2, 2, 5, 5, 5]));
        assert!(shown("4-of-a-kind", &[3, 3, 3, 3, 3]) && !shown("4-of-a-kind", &[3, 3, 3, 1, 1]));
        assert!(shown("large-straight", &[2, 3, 4, 5, 6]) && !shown("large-straight", &[1, 2, 3, 4, 6]));
        assert!(shown("small-straight", &[1, 2, 3, 4, 6]) && shown("small-straight", &[3, 4, 5, 6, 3]));
        assert!(!shown("small-straight", &[1, 2, 3, 5, 6]));
    }
}
