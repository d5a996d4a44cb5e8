//! "Did you mean …?" for a mistyped name: the one accepted name a typed name most likely
//! stands for, for every error that refuses a name (a box, rules, a strategy, a player, a
//! pattern, a request's field).
//!
//! A name is suggested when it is the only accepted name the typed one begins (`fiv` for
//! `fives`), or else the only one closest to it within two edits (an insertion, a deletion,
//! a substitution or a swap of two neighbours: `fivse`, `yatsy`, `gredy`), case aside. A
//! typed name as close to two accepted names as to each other suggests neither.

/// Most edits between a typed name and the accepted name suggested for it.
pub const MAX_EDITS: usize = 2;

/// The accepted name `typed` most likely stands for, if one stands out (see the [module
/// docs](self)); `None` for a name accepted as it is.
pub fn closest<'a>(typed: &str, accepted: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let typed = typed.trim().to_lowercase();
    if typed.is_empty() {
        return None;
    }
    let accepted: Vec<&str> = accepted.into_iter().collect();
    if accepted.iter().any(|name| name.to_lowercase() == typed) {
        return None;
    }
    let mut prefixed = accepted.iter().filter(|name| name.to_lowercase().starts_with(&typed));
    if let (Some(&only), None) = (prefixed.next(), prefixed.next()) {
        return Some(only);
    }
    // Within two edits, and fewer edits than the typed name has characters (two edits
    // turn any two-letter name into any other).
    let limit = MAX_EDITS.min(typed.chars().count().saturating_sub(1));
    let distances: Vec<(usize, &str)> =
        accepted.iter().map(|&name| (edits(&typed, &name.to_lowercase()), name)).filter(|&(d, _)| d <= limit).collect();
    let best = distances.iter().map(|&(d, _)| d).min()?;
    let mut nearest = distances.iter().filter(|&&(d, _)| d == best);
    match (nearest.next(), nearest.next()) {
        (Some(&(_, only)), None) => Some(only),
        _ => None,
    }
}

/// `" (did you mean X?)"` after a refused name, or nothing where no name stands out
/// ([`closest`]): what an error message puts right after the name it quotes.
pub fn did_you_mean<'a>(typed: &str, accepted: impl IntoIterator<Item = &'a str>) -> String {
    closest(typed, accepted).map_or_else(String::new, |name| format!(" (did you mean {name}?)"))
}

/// Edits between `a` and `b`: insertions, deletions, substitutions and swaps of two
/// neighbouring characters (the optimal string alignment distance).
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows of the table: two back (for swaps), the last, and the one being filled.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut last, row);
    }
    last[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOXES: [&str; 13] =
        ["ones", "twos", "threes", "fours", "fives", "sixes", "3k", "4k", "fh", "ss", "ls", "yahtzee", "chance"];

    #[test]
    fn edits_count_insertions_deletions_substitutions_and_swaps() {
        assert_eq!(edits("", "abc"), 3);
        assert_eq!(edits("abc", "abc"), 0);
        assert_eq!(edits("fivse", "fives"), 1);
        assert_eq!(edits("fivess", "fives"), 1);
        assert_eq!(edits("yatsy", "yatzy"), 1);
        assert_eq!(edits("kitten", "sitting"), 3);
    }

    #[test]
    fn one_close_name_is_suggested_and_no_other() {
        assert_eq!(closest("fivse", BOXES), Some("fives"));
        assert_eq!(closest("Yahtze", BOXES), Some("yahtzee"));
        assert_eq!(closest("chan", BOXES), Some("chance"), "a unique prefix");
        assert_eq!(closest("thre", BOXES), Some("threes"));
        assert_eq!(closest("fours", BOXES), None, "accepted as it is");
        assert_eq!(closest("f", BOXES), None, "a prefix of fours, fives and fh");
        assert_eq!(closest("sevens", BOXES), None, "sixes and sevens differ by three");
        assert_eq!(closest("xk", BOXES), None, "as close to 3k as to 4k");
        assert_eq!(closest("zz", BOXES), None, "two edits make any two letters anything");
        assert_eq!(closest("", BOXES), None);
        assert_eq!(did_you_mean("gredy", ["optimal", "greedy"]), " (did you mean greedy?)");
        assert_eq!(did_you_mean("nothing-like-it", ["optimal", "greedy"]), "");
    }
}
