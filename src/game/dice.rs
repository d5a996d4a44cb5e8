//! Dice: the 252 sorted rolls of five dice, the 462 keeps (multisets of 0 to 5 dice),
//! their probabilities and the transition tables the turn kernel walks.
//!
//! A multiset of dice is stored as face counts, `counts[f]` being how many dice show
//! face `f + 1`. Keeps are numbered by size, then lexicographically by their sorted
//! faces, so that the keeps of size 5 (the rolls) come last and [`RollId`] `r` is
//! [`KeepId`] `NUM_KEEPS - NUM_ROLLS + r`.

use std::fmt;
use std::sync::LazyLock;

/// Faces on a die.
pub const NUM_FACES: usize = 6;
/// Dice in a roll.
pub const NUM_DICE: usize = 5;
/// Distinct sorted outcomes of five dice: C(6 + 5 − 1, 5).
pub const NUM_ROLLS: usize = 252;
/// Distinct multisets of 0 to 5 dice: C(6 + 5, 5).
pub const NUM_KEEPS: usize = 462;
/// Keeps with fewer than five dice; they precede the rolls in [`KeepId`] order.
pub const NUM_PARTIAL_KEEPS: usize = NUM_KEEPS - NUM_ROLLS;

const _: () = assert!(NUM_ROLLS == 252 && NUM_KEEPS == 462 && NUM_PARTIAL_KEEPS == 210);

/// Face counts of a multiset of at most five dice: `counts[f]` dice show face `f + 1`.
pub type FaceCounts = [u8; NUM_FACES];

/// One of the 252 sorted outcomes of rolling five dice.
///
/// | range | encoding |
/// |---|---|
/// | `0..252` | lexicographic order of the sorted faces: `0` is 1,1,1,1,1 and `251` is 6,6,6,6,6 |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RollId(pub u8);

/// One of the 462 multisets of 0 to 5 dice a player can keep (a roll is a keep of five).
///
/// | range | encoding |
/// |---|---|
/// | `0` | the empty keep |
/// | `1..7`, `7..28`, `28..84`, `84..210` | keeps of 1, 2, 3, 4 dice, lexicographic within a size |
/// | `210..462` | keeps of five dice, i.e. `RollId(k − 210)` |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeepId(pub u16);

impl RollId {
    /// Every roll, in id order.
    pub fn all() -> impl Iterator<Item = RollId> {
        (0..NUM_ROLLS as u8).map(RollId)
    }

    /// The keep that holds all five dice of this roll.
    pub fn as_keep(self) -> KeepId {
        KeepId(NUM_PARTIAL_KEEPS as u16 + self.0 as u16)
    }

    /// Face counts of the roll.
    pub fn counts(self) -> FaceCounts {
        self.as_keep().counts()
    }

    /// Probability of this outcome when all five dice are rolled.
    pub fn probability(self) -> f64 {
        TABLES.roll_probability[self.0 as usize]
    }

    /// The roll with these face counts.
    ///
    /// # Panics
    /// If the counts do not add up to five dice.
    pub fn from_counts(counts: FaceCounts) -> RollId {
        let keep = KeepId::from_counts(counts);
        assert!(keep.size() == NUM_DICE, "a roll has five dice");
        RollId((keep.0 as usize - NUM_PARTIAL_KEEPS) as u8)
    }

    /// The roll showing these five faces (each 1..=6, in any order).
    ///
    /// # Panics
    /// If a face is outside 1..=6; parse user input with [`parse_dice`] instead.
    pub fn from_faces(faces: [u8; NUM_DICE]) -> RollId {
        let mut counts = [0u8; NUM_FACES];
        for face in faces {
            assert!((1..=6).contains(&face), "face {face} is not 1..=6");
            counts[face as usize - 1] += 1;
        }
        RollId::from_counts(counts)
    }

    /// True for five of a kind.
    pub fn is_yahtzee(self) -> bool {
        self.counts().contains(&5)
    }
}

impl KeepId {
    /// Every keep, in id order (by size, then lexicographic).
    pub fn all() -> impl Iterator<Item = KeepId> {
        (0..NUM_KEEPS as u16).map(KeepId)
    }

    /// Face counts of the kept dice.
    pub fn counts(self) -> FaceCounts {
        TABLES.keep_counts[self.0 as usize]
    }

    /// Number of dice kept.
    pub fn size(self) -> usize {
        self.counts().iter().map(|&c| c as usize).sum()
    }

    /// The keep with these face counts.
    ///
    /// # Panics
    /// If the counts hold more than five dice.
    pub fn from_counts(counts: FaceCounts) -> KeepId {
        let id = TABLES.keep_by_code[counts_code(counts)];
        assert!(id != u16::MAX, "{counts:?} holds more than five dice");
        KeepId(id)
    }

    /// Whether this keep can be taken from `roll` (it is a sub-multiset).
    pub fn is_within(self, roll: RollId) -> bool {
        let (keep, roll) = (self.counts(), roll.counts());
        keep.iter().zip(roll).all(|(&k, r)| k <= r)
    }
}

/// Writes dice as their sorted faces, e.g. `1,3,3,5,6`, or `-` for none.
fn write_faces(f: &mut fmt::Formatter<'_>, counts: FaceCounts) -> fmt::Result {
    let mut first = true;
    for (face, &count) in counts.iter().enumerate() {
        for _ in 0..count {
            if !first {
                f.write_str(",")?;
            }
            write!(f, "{}", face + 1)?;
            first = false;
        }
    }
    if first {
        f.write_str("-")?;
    }
    Ok(())
}

impl fmt::Display for RollId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_faces(f, self.counts())
    }
}

impl fmt::Display for KeepId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_faces(f, self.counts())
    }
}

/// Why a dice argument was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiceError {
    /// Not five faces.
    #[error("expected five dice such as 13356 or 1,3,3,5,6; got {0} value(s)")]
    WrongCount(usize),
    /// A character that is not a face 1..=6 (nor a comma or space between faces).
    #[error("die {} is not a face 1 to 6", crate::quote::quote(.0))]
    BadFace(String),
}

/// Parses five faces written `13356` or `1,3,3,5,6` (commas or spaces between faces
/// allowed, not required) into a roll: the one dice syntax of the command line, game
/// records, the terminal game and the web app. Anything else is refused, so that
/// `-1,-2,-3,-4,-5` or `1e3356` is not read as other dice.
pub fn parse_dice(text: &str) -> Result<RollId, DiceError> {
    let mut faces = [0u8; NUM_DICE];
    let mut count = 0;
    for c in text.chars().filter(|c| !matches!(c, ',' | ' ' | '\t' | '\r' | '\n')) {
        let face = match c.to_digit(10) {
            Some(face @ 1..=6) => face as u8,
            _ => return Err(DiceError::BadFace(c.to_string())),
        };
        if let Some(slot) = faces.get_mut(count) {
            *slot = face;
        }
        count += 1;
    }
    if count != NUM_DICE {
        return Err(DiceError::WrongCount(count));
    }
    Ok(RollId::from_faces(faces))
}

/// Base-6 code of face counts, the index of [`DiceTables::keep_by_code`].
const fn counts_code(counts: FaceCounts) -> usize {
    let mut code = 0;
    let mut f = 0;
    while f < NUM_FACES {
        code = code * 6 + counts[f] as usize;
        f += 1;
    }
    code
}

/// The transition tables of one turn, built once.
pub struct DiceTables {
    /// Face counts of each keep, by [`KeepId`].
    pub keep_counts: Vec<FaceCounts>,
    /// [`KeepId`] of each base-6 count code, `u16::MAX` for more than five dice.
    keep_by_code: Vec<u16>,
    /// For a keep of fewer than five dice, the keep with one more die of each face.
    pub add_die: Vec<[u16; NUM_FACES]>,
    /// For a keep, the keeps with one die fewer: one per distinct face present, in face order.
    pub remove_die: Vec<Vec<u16>>,
    /// Probability of each roll of five fresh dice.
    pub roll_probability: Vec<f64>,
}

/// The dice tables, built on first use.
pub static TABLES: LazyLock<DiceTables> = LazyLock::new(DiceTables::build);

impl DiceTables {
    fn build() -> DiceTables {
        let mut keep_counts = Vec::with_capacity(NUM_KEEPS);
        for size in 0..=NUM_DICE {
            push_multisets(size, 0, &mut [0; NUM_FACES], &mut keep_counts);
        }
        assert_eq!(keep_counts.len(), NUM_KEEPS);
        let mut keep_by_code = vec![u16::MAX; 6usize.pow(NUM_FACES as u32)];
        for (id, &counts) in keep_counts.iter().enumerate() {
            keep_by_code[counts_code(counts)] = id as u16;
        }
        let with_face = |counts: FaceCounts, face: usize, delta: i8| {
            let mut next = counts;
            next[face] = (next[face] as i8 + delta) as u8;
            keep_by_code[counts_code(next)]
        };
        let add_die = keep_counts
            .iter()
            .map(|&counts| {
                let size: u8 = counts.iter().sum();
                std::array::from_fn(
                    |face| {
                        if size as usize == NUM_DICE { u16::MAX } else { with_face(counts, face, 1) }
                    },
                )
            })
            .collect();
        let remove_die = keep_counts
            .iter()
            .map(|&counts| (0..NUM_FACES).filter(|&f| counts[f] > 0).map(|f| with_face(counts, f, -1)).collect())
            .collect();
        let roll_probability = keep_counts[NUM_PARTIAL_KEEPS..]
            .iter()
            .map(|counts| {
                let arrangements = counts.iter().fold(120.0, |acc, &c| acc / factorial(c));
                arrangements / 7776.0
            })
            .collect();
        DiceTables { keep_counts, keep_by_code, add_die, remove_die, roll_probability }
    }
}

fn factorial(n: u8) -> f64 {
    (1..=n as u32).product::<u32>() as f64
}

/// Appends, in lexicographic order of sorted faces, every multiset of `left` more dice
/// whose faces are at least `min_face`.
fn push_multisets(left: usize, min_face: usize, counts: &mut FaceCounts, out: &mut Vec<FaceCounts>) {
    if left == 0 {
        out.push(*counts);
        return;
    }
    for face in min_face..NUM_FACES {
        counts[face] += 1;
        push_multisets(left - 1, face, counts, out);
        counts[face] -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_are_ordered_by_size_and_rolls_come_last() {
        let sizes: Vec<usize> = KeepId::all().map(KeepId::size).collect();
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(sizes.iter().filter(|&&s| s == 5).count(), NUM_ROLLS);
        assert_eq!(RollId(0).to_string(), "1,1,1,1,1");
        assert_eq!(RollId(251).to_string(), "6,6,6,6,6");
    }

    #[test]
    fn roll_probabilities_sum_to_one_and_match_counts() {
        let total: f64 = RollId::all().map(RollId::probability).sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(RollId::from_faces([1, 2, 3, 4, 5]).probability(), 120.0 / 7776.0);
        assert_eq!(RollId::from_faces([6; 5]).probability(), 1.0 / 7776.0);
    }

    #[test]
    fn add_and_remove_die_are_inverse() {
        for keep in KeepId::all().filter(|k| k.size() < 5) {
            for face in 0..NUM_FACES {
                let bigger = TABLES.add_die[keep.0 as usize][face];
                assert!(TABLES.remove_die[bigger as usize].contains(&keep.0));
            }
        }
    }

    #[test]
    fn dice_parse_and_reject() {
        assert_eq!(parse_dice("6, 1,3,3,5").unwrap().to_string(), "1,3,3,5,6");
        assert_eq!(parse_dice("1,2,3,4"), Err(DiceError::WrongCount(4)));
        assert_eq!(parse_dice("1,2,3,4,7"), Err(DiceError::BadFace("7".into())));
        assert_eq!(parse_dice("1,2,x,4,5"), Err(DiceError::BadFace("x".into())));
        for good in ["13356", "1,3,3,5,6", " 1 3 3 5 6\n", "6,5,3,3,1", "1, 3 ,3,5 ,6"] {
            assert_eq!(parse_dice(good).unwrap(), RollId::from_faces([1, 3, 3, 5, 6]), "{good:?}");
        }
        for bad in [
            "-1,-2,-3,-4,-5",
            "1e3356",
            "1335",
            "133566",
            "1,3,3,5,7",
            "0,1,2,3,4",
            "1;3;3;5;6",
            "",
            "13356x",
            "+1,2,3,4,5",
        ] {
            assert!(parse_dice(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_dice(&"1".repeat(100_000)), Err(DiceError::WrongCount(100_000)));
    }
}
