//! `yz turn` and `yz::pattern`: one turn played for one pattern (whuber, `002_…`): the
//! published numbers, brute force over ordered dice on small dice, the keep change for a
//! full house, bad input.

use std::collections::{BTreeSet, HashMap};

use super::cli::{fails_with, json, yz};

use yz::pattern::{self, Notation, Pattern, PatternError, Probability, Setup, Solution, solve};

fn solved(pattern: &str, faces: u32, dice: u32, rolls: u32) -> Solution {
    solve(&pattern.parse().unwrap(), Setup { faces, dice, rolls }).unwrap()
}

/// The value agrees with a published decimal to its printed precision; a printed integer
/// must be exact.
fn assert_printed(value: &Probability, printed: &str) {
    match printed.split_once('.') {
        None => assert_eq!(*value, Probability::from_integer(printed.parse().unwrap()), "{printed}"),
        Some((_, decimals)) => {
            let tolerance = 0.5 * 10f64.powi(-(decimals.len() as i32)) + 1e-15;
            let got = pattern::to_f64(value);
            assert!((got - printed.parse::<f64>().unwrap()).abs() <= tolerance, "{got} vs published {printed}");
        }
    }
}

/// The seven multiplicity states of five dice, in `002_…`'s order.
const FIVE_DICE_STATES: [&str; 7] = ["5", "31", "12", "201", "011", "1001", "00001"];

#[test]
fn yahtzee_chance_is_exactly_2783176_over_6_to_the_10() {
    // 002_…: "It is equal to 2,783,176 / 6^10 ≈ 0.04602864."
    let solution = solved("yahtzee", 6, 5, 3);
    assert_eq!(solution.probability, Probability::new(2_783_176, 6u128.pow(10)));
    assert_printed(&solution.probability, "0.04602864");
    assert_eq!(solution.notation, Notation::Multiplicities);
}

#[test]
fn yahtzee_state_values_first_roll_and_moves_match_002() {
    let solution = solved("yahtzee", 6, 5, 3);
    let labels: Vec<&str> = solution.states.iter().map(|row| row.label.as_str()).collect();
    assert_eq!(labels, FIVE_DICE_STATES);
    // 002_…, $payoffs (After 1, After 2, After 3) and $options row "0" (the first roll).
    let published = [
        ["0.0126314586", "0.02906379", "0.02906379", "0.09336420", "0.09336420", "0.3055556", "1"],
        ["0.0007716049", "0.00462963", "0.00462963", "0.02777778", "0.02777778", "0.1666667", "1"],
        ["0", "0", "0", "0", "0", "0", "1"],
    ];
    let first_roll =
        ["0.09259259", "0.4629630", "0.2314815", "0.15432099", "0.03858025", "0.019290123", "0.0007716049"];
    for (i, row) in solution.states.iter().enumerate() {
        for (roll, values) in published.iter().enumerate() {
            assert_printed(&row.values[roll], values[i]);
        }
        assert_printed(&row.first_roll, first_roll[i]);
    }
    let total: Probability = solution.states.iter().map(|row| row.first_roll).sum();
    assert_eq!(total, Probability::from_integer(1));
    // The chance of the turn is the first roll's distribution times the values after it.
    let chance: Probability = solution.states.iter().map(|row| row.first_roll * row.values[0]).sum();
    assert_eq!(chance, solution.probability);
    // 002_…, $moves, both rows, plus "another best move to 1 from state 5".
    let moves = [vec!["0", "1"], vec!["01"], vec!["01"], vec!["001"], vec!["001"], vec!["0001"], vec!["00001"]];
    for (row, best) in solution.states.iter().zip(&moves) {
        assert_eq!(row.best_keeps, [best.clone(), best.clone()], "state {}", row.label);
    }
}

#[test]
fn three_coins_for_one_pair_match_002() {
    // 002_…: yahtzee("11", 2, 3, 3), payoffs and moves; the figure: from "001" with one
    // roll left the best options are "0" and "1" (3/4 each).
    let solution = solved("11", 2, 3, 3);
    let pair = solution.state("11").unwrap();
    let triple = solution.state("001").unwrap();
    for (value, published) in pair.values.iter().zip(["1", "1", "1"]) {
        assert_printed(value, published);
    }
    for (value, published) in triple.values.iter().zip(["0.9375", "0.7500", "0"]) {
        assert_printed(value, published);
    }
    assert_eq!(triple.values[0], Probability::new(15, 16));
    assert!(pair.best_keeps.iter().all(|keeps| keeps.contains(&"2".to_string())));
    assert!(triple.best_keeps[0].contains(&"1".to_string()));
    assert_eq!(triple.best_keeps[1], ["0", "1"]);
}

#[test]
fn full_house_best_keeps_by_reroll() {
    // 002_… says the best full-house keeps change between the first and second reroll.
    // Exactly, with six faces and three rolls, the sets of best keeps are the same after
    // both rolls; the only choice that can differ is the exact tie "0" / "1" from five
    // different faces, which the paper's code breaks at random (`sample`).
    let three_rolls = solved("full-house", 6, 5, 3);
    for row in &three_rolls.states {
        assert_eq!(row.best_keeps[0], row.best_keeps[1], "state {}", row.label);
    }
    assert_eq!(three_rolls.state("5").unwrap().best_keeps[0], ["0", "1"]);
    // A real change: with four rolls, a pair and singles keeps pair + single at the first
    // reroll (0.4347 against 0.4292 for the pair) but only the pair later (0.0926 against 0.0833 at the last).
    let four_rolls = solved("full-house", 6, 5, 4);
    let pair = four_rolls.state("31").unwrap();
    assert_eq!(pair.best_keeps, [vec!["11"], vec!["01"], vec!["01"]]);
    // And with three faces, three rolls (also checked by brute force below): a Yahtzee
    // rerolls everything (or keeps one die) first, then keeps a pair.
    let three_faces = solved("full-house", 3, 5, 3);
    let yahtzee = three_faces.state("00001").unwrap();
    assert_eq!(yahtzee.best_keeps, [vec!["0", "1"], vec!["01"]]);
}

/// Brute force: plain recursion over every ordered outcome of the rerolled dice and every
/// set of dice positions to keep, remembering (sorted dice, rolls left) only for speed.
struct BruteForce {
    shows: fn(&[u32]) -> bool,
    faces: u32,
    dice: usize,
    memo: HashMap<(Vec<u32>, u32), Probability>,
}

impl BruteForce {
    /// Every ordered outcome of `n` dice.
    fn outcomes(&self, n: usize) -> Vec<Vec<u32>> {
        (0..n).fold(vec![Vec::new()], |partial, _| {
            partial.iter().flat_map(|o| (1..=self.faces).map(move |f| [o.as_slice(), &[f]].concat())).collect()
        })
    }

    /// The chance of the pattern with best play, `dice` showing and `left` rolls to come.
    fn value(&mut self, dice: &[u32], left: u32) -> Probability {
        if left == 0 {
            return Probability::from_integer(u128::from((self.shows)(dice)));
        }
        self.keeps(dice, left).into_iter().map(|(_, value)| value).max().unwrap()
    }

    /// Every keep (a set of positions, as the kept dice sorted) and its value.
    fn keeps(&mut self, dice: &[u32], left: u32) -> Vec<(Vec<u32>, Probability)> {
        (0..1u32 << dice.len())
            .map(|mask| {
                let kept: Vec<u32> = (0..dice.len()).filter(|i| mask >> i & 1 == 1).map(|i| dice[i]).collect();
                let outcomes = self.outcomes(self.dice - kept.len());
                let count = outcomes.len() as u128;
                let total: Probability =
                    outcomes.iter().map(|o| self.memo_value(&[kept.as_slice(), o].concat(), left - 1)).sum();
                let mut sorted = kept;
                sorted.sort_unstable();
                (sorted, total / count)
            })
            .collect()
    }

    fn memo_value(&mut self, dice: &[u32], left: u32) -> Probability {
        let mut sorted = dice.to_vec();
        sorted.sort_unstable();
        if let Some(&value) = self.memo.get(&(sorted.clone(), left)) {
            return value;
        }
        let value = self.value(&sorted, left);
        self.memo.insert((sorted, left), value);
        value
    }
}

/// The face counts of some dice, sorted down.
fn counts_down(dice: &[u32]) -> Vec<usize> {
    let mut counts: Vec<usize> = dice
        .iter()
        .fold(HashMap::<u32, usize>::new(), |mut c, &d| {
            *c.entry(d).or_default() += 1;
            c
        })
        .into_values()
        .collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    counts
}

/// The dice in `002_…`'s multiplicity notation (at most 9 of anything), `0` for none.
fn multiplicity_label(dice: &[u32]) -> String {
    let counts = counts_down(dice);
    let Some(&most) = counts.first() else { return "0".into() };
    (1..=most).map(|i| counts.iter().filter(|&&c| c == i).count().to_string()).collect()
}

/// The dice as yz writes a roll: sorted faces with commas, `none` for no dice.
fn roll_label(dice: &[u32]) -> String {
    let mut sorted = dice.to_vec();
    sorted.sort_unstable();
    if sorted.is_empty() { "none".into() } else { sorted.iter().map(u32::to_string).collect::<Vec<_>>().join(",") }
}

fn has_run(dice: &[u32], run: u32) -> bool {
    let faces: BTreeSet<u32> = dice.iter().copied().collect();
    faces.iter().any(|&low| (low..low + run).all(|f| faces.contains(&f)))
}

/// Checks the whole solution (the chance, every state's first-roll chance, value after
/// every roll and set of best keeps) against brute force.
fn check_against_brute_force(pattern: &str, shows: fn(&[u32]) -> bool, faces: u32, dice: usize, rolls: u32) {
    let solution = solved(pattern, faces, dice as u32, rolls);
    let label = match solution.notation {
        Notation::Multiplicities => multiplicity_label,
        Notation::Rolls => roll_label,
    };
    let mut brute = BruteForce { shows, faces, dice, memo: HashMap::new() };
    let first_rolls = brute.outcomes(dice);
    let mut first_roll: HashMap<String, u128> = HashMap::new();
    let mut chance = Probability::from_integer(0);
    for roll in &first_rolls {
        *first_roll.entry(label(roll)).or_default() += 1;
        chance += brute.memo_value(roll, rolls - 1);
    }
    let first_count = first_rolls.len() as u128;
    assert_eq!(solution.probability, chance / first_count, "{pattern} {faces} {dice} {rolls}");
    assert_eq!(solution.states.len(), first_roll.len(), "{pattern}: one row per state");
    for roll in &first_rolls {
        let row = solution.state(&label(roll)).unwrap_or_else(|| panic!("{pattern}: no row {}", label(roll)));
        assert_eq!(row.first_roll, Probability::new(first_roll[&label(roll)], first_count));
        for after in 1..=rolls {
            let left = rolls - after;
            assert_eq!(
                row.values[after as usize - 1],
                brute.memo_value(roll, left),
                "{pattern} {} after {after}",
                row.label
            );
            if left > 0 {
                let keeps = brute.keeps(roll, left);
                let best = keeps.iter().map(|(_, v)| *v).max().unwrap();
                let expected: BTreeSet<String> =
                    keeps.iter().filter(|(_, v)| *v == best).map(|(k, _)| label(k)).collect();
                let listed: BTreeSet<String> = row.best_keeps[after as usize - 1].iter().cloned().collect();
                assert_eq!(listed, expected, "{pattern} {} after {after}", row.label);
            }
        }
    }
}

#[test]
fn small_turns_match_brute_force_over_ordered_dice() {
    let all_alike: fn(&[u32]) -> bool = |d| d.iter().all(|&x| x == d[0]);
    check_against_brute_force("yahtzee", all_alike, 3, 3, 3);
    check_against_brute_force("yahtzee", all_alike, 1, 2, 2);
    check_against_brute_force("full-house", |d| counts_down(d) == [3, 2], 3, 5, 3);
    check_against_brute_force("large-straight", |d| has_run(d, d.len() as u32), 4, 3, 3);
    check_against_brute_force("small-straight", |d| has_run(d, d.len() as u32 - 1), 5, 4, 2);
    check_against_brute_force("2-of-a-kind", |d| counts_down(d)[0] >= 2, 3, 4, 3);
    check_against_brute_force("3-of-a-kind", |d| counts_down(d)[0] >= 3, 6, 4, 2);
    check_against_brute_force("21", |d| counts_down(d) == [2, 1, 1], 4, 4, 2);
    check_against_brute_force("11", |d| counts_down(d) == [2, 1], 2, 3, 3);
    check_against_brute_force("1", |d| d.len() == 1, 3, 1, 2);
}

#[test]
fn bad_patterns_and_sizes_are_clear_errors() {
    let error = |pattern: &str, faces: u32, dice: u32, rolls: u32| {
        let pattern: Pattern = match pattern.parse() {
            Ok(pattern) => pattern,
            Err(error) => return error,
        };
        solve(&pattern, Setup { faces, dice, rolls }).unwrap_err()
    };
    assert!(matches!(error("chance", 6, 5, 3), PatternError::UnknownPattern(_)));
    assert!(matches!(error("01x", 6, 5, 3), PatternError::UnknownPattern(_)));
    assert!(matches!(error("000001", 6, 5, 3), PatternError::PatternTooLong { length: 6, dice: 5, .. }));
    assert!(matches!(error("0011", 6, 5, 3), PatternError::PatternDice { described: 7, dice: 5, .. }));
    assert!(matches!(error("5", 4, 5, 3), PatternError::PatternFaces { distinct: 5, faces: 4, .. }));
    assert!(matches!(error("0-of-a-kind", 6, 5, 3), PatternError::OfAKindZero));
    assert!(matches!(error("6-of-a-kind", 6, 5, 3), PatternError::OfAKindDice { n: 6, dice: 5 }));
    assert!(matches!(error("full-house", 6, 4, 3), PatternError::FullHouseDice { dice: 4 }));
    assert!(matches!(error("large-straight", 4, 5, 3), PatternError::StraightFaces { run: 5, faces: 4, .. }));
    assert!(matches!(error("small-straight", 6, 1, 3), PatternError::StraightDice { dice: 1, .. }));
    assert!(matches!(error("yahtzee", 0, 5, 3), PatternError::OutOfRange { what: "faces", .. }));
    assert!(matches!(error("yahtzee", 6, 0, 3), PatternError::OutOfRange { what: "dice", .. }));
    assert!(matches!(error("yahtzee", 6, 5, 0), PatternError::OutOfRange { what: "rolls", .. }));
    assert!(matches!(error("yahtzee", 6, 50, 3), PatternError::Overflow { exponent: 150, .. }));
    assert!(matches!(error("large-straight", 30, 10, 1), PatternError::TooManyRolls { .. }));
    // The largest sizes inside the limits run.
    assert!(solve(&Pattern::Yahtzee, Setup { faces: 6, dice: 48, rolls: 1 }).is_ok());
    assert!(matches!(error("yahtzee", 6, 49, 1), PatternError::Overflow { .. }));
}

#[test]
fn cli_prints_the_chance_the_table_and_the_exact_fraction() {
    let dir = tempfile::tempdir().unwrap();
    let out = json(&yz(dir.path(), &["--json", "turn", "--target", "yahtzee"]));
    let (numerator, denominator) = out["exact"].as_str().unwrap().split_once('/').unwrap();
    let (numerator, denominator): (u128, u128) = (numerator.parse().unwrap(), denominator.parse().unwrap());
    assert_eq!(numerator * 6u128.pow(10), 2_783_176 * denominator);
    assert!((out["probability"].as_f64().unwrap() - 0.04602864).abs() < 5e-9);
    assert_eq!(out["states_are"], "multiplicities");
    let states = out["states"].as_array().unwrap();
    assert_eq!(states.iter().map(|s| s["state"].as_str().unwrap()).collect::<Vec<_>>(), FIVE_DICE_STATES);
    assert!((states[0]["after"][0]["value"].as_f64().unwrap() - 0.0126314586).abs() < 5e-11);
    assert_eq!(states[1]["after"][0]["best_keeps"], serde_json::json!(["01"]));
    assert!(states[1]["after"][2].get("best_keeps").is_none(), "no keep after the last roll");

    let coins = json(&yz(dir.path(), &["--json", "turn", "--target", "11", "--faces", "2", "--dice", "3"]));
    assert_eq!(coins["states"][1]["state"], "001");
    assert_eq!(coins["states"][1]["after"][0]["exact"], "15/16");

    let straight = json(&yz(dir.path(), &["--json", "turn", "--target", "large-straight"]));
    assert_eq!(straight["states_are"], "rolls");
    assert_eq!(straight["states"].as_array().unwrap().len(), 252);

    let text = yz(dir.path(), &["turn", "--target", "yahtzee"]);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("0.0460286425"), "{text}");
    assert!(text.lines().any(|line| line.starts_with("31 ") && line.contains("0.0290637860")), "{text}");
}

#[test]
fn cli_bad_input_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fails_with(d, &["turn", "--target", "chance"], "unknown pattern \"chance\"");
    fails_with(d, &["turn", "--target", "000001"], "at most 5");
    fails_with(d, &["turn", "--target", "0011"], "describes 7 dice");
    fails_with(d, &["turn", "--target", "yahtzee", "--faces", "0"], "--faces must be 1");
    fails_with(d, &["turn", "--target", "yahtzee", "--dice", "60"], "faces^(dice × rolls + 1) < 2^128");
    fails_with(
        d,
        &["turn", "--target", "large-straight", "--faces", "30", "--dice", "10", "--rolls", "1"],
        "past the limit",
    );
}
