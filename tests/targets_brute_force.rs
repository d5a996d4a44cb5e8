//! Cross-checks the target curves (max P(future points ≥ s), Pawlewicz §3.3) against a plain
//! brute force, and checks that they dominate what optimal solitaire play achieves.
//!
//! The solver runs one kernel turn per state with lanes over the threshold s, reading each
//! successor's stored curve shifted by the points scored. The brute force here shares
//! none of that (no `yz::turn`, no `yz::targets` code): like `turn_brute_force.rs` it plays
//! a turn literally, five dice in positions, every one of the 32 subsets of positions to
//! reroll, every ordered outcome of the rerolled dice, every ordered first roll, and every
//! box through [`ScoreState::score`], the plain rules of the game model. It recurses over
//! whole turns by itself down to the end of the game, for every threshold at once: a value
//! is a vector over s, and every maximum is taken threshold by threshold, so each entry is
//! exactly the expectimax for its own s.
//!
//! Work is shared by memoizing on the multiset of the dice, a key equal for any order of
//! the same faces: the value of five dice, and the sum over every ordered outcome of the
//! dice still to roll given the dice already fixed (it depends only on their multiset).
//! This changes neither what is enumerated nor what is summed.

use std::collections::HashMap;
use std::rc::Rc;

use yz::game::{ALL_CATEGORIES, Category, CategorySet, Game, RollId, Rules, ScoreState, StateId};
use yz::solo::{OptimalPolicy, analyze, solve};
use yz::targets::TargetCurves;

/// Dice per roll.
const DICE: usize = 5;
/// Rolls in a turn: the first roll and two rerolls.
const ROLLS: usize = 3;
/// Powers of 6, for the memo key.
const POW6: [usize; DICE + 1] = [1, 6, 36, 216, 1296, 7776];
/// Both compute the same probabilities, summed in different orders.
const TOLERANCE: f64 = 1e-12;

/// Memo key of one die: face `f` adds 1 to the base-6 digit `f − 1`.
fn die_key(face: u8) -> usize {
    POW6[face as usize - 1]
}

/// P(future points ≥ s) for s = 0, 1, …, `len − 1`; 1 for every s ≤ 0 and 0 beyond.
type Tail = Vec<f64>;

/// `dst[s] = max(dst[s], src[s] / divisor)`, threshold by threshold.
fn max_assign(dst: &mut Tail, src: &[f64], divisor: f64) {
    if dst.len() < src.len() {
        dst.resize(src.len(), 0.0);
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        let candidate = s / divisor;
        if candidate > *d {
            *d = candidate;
        }
    }
}

/// `dst[s] += src[s]`.
fn add_assign(dst: &mut Tail, src: &[f64]) {
    if dst.len() < src.len() {
        dst.resize(src.len(), 0.0);
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

/// Whole games by brute force: each state's tail, memoized by state.
struct BruteForce {
    game: Game,
    tails: HashMap<(u16, u8, bool), Tail>,
}

impl BruteForce {
    fn new(game: Game) -> BruteForce {
        BruteForce { game, tails: HashMap::new() }
    }

    /// The best P(future points ≥ s) from the start of a turn in `state`, for every s.
    fn tail(&mut self, state: ScoreState) -> Tail {
        if state.is_terminal() {
            return vec![1.0];
        }
        let key = (state.filled.0, state.upper_total, state.yahtzee_50);
        if let Some(known) = self.tails.get(&key) {
            return known.clone();
        }
        // The tails of every state after scoring, from the next turns.
        let mut next_tails = HashMap::new();
        for roll in RollId::all() {
            for c in ALL_CATEGORIES {
                if let Some(t) = state.score(self.game, c, roll) {
                    let next = (t.next.filled.0, t.next.upper_total, t.next.yahtzee_50);
                    next_tails.entry(next).or_insert_with(|| self.tail(t.next));
                }
            }
        }
        let mut turn = BruteTurn { game: self.game, state, next_tails: &next_tails, memo: vec![HashMap::new(); ROLLS] };
        let tail = turn.start_value();
        self.tails.insert(key, tail.clone());
        tail
    }
}

/// One turn of one state, enumerated die by die.
struct BruteTurn<'a> {
    game: Game,
    state: ScoreState,
    next_tails: &'a HashMap<(u16, u8, bool), Tail>,
    /// `memo[r][key]`, for the dice `key` with `r` rerolls left: their value if there are
    /// five, else the sum over every ordered outcome of the missing dice.
    memo: Vec<HashMap<usize, Rc<Tail>>>,
}

impl BruteTurn<'_> {
    /// The tail from the start of the turn: the average over all 6^5 ordered first rolls.
    fn start_value(&mut self) -> Tail {
        let all_positions: Vec<usize> = (0..DICE).collect();
        let sum = self.sum_outcomes(&mut [0; DICE], 0, &all_positions, ROLLS - 1);
        sum.iter().map(|p| p / POW6[DICE] as f64).collect()
    }

    /// Value of holding `dice` with `rerolls` rerolls left, before choosing what to keep.
    fn value(&mut self, dice: [u8; DICE], rerolls: usize) -> Tail {
        if rerolls == 0 { self.best_box(dice) } else { self.best_reroll(dice, rerolls) }
    }

    /// The best of the 32 choices of positions to reroll (rerolling none included) for each
    /// threshold, each the average over every ordered outcome of the rerolled dice.
    fn best_reroll(&mut self, dice: [u8; DICE], rerolls: usize) -> Tail {
        let mut best = Tail::new();
        // Subsets that keep the same faces have the same average: the first one stands for
        // them all (sharing work, as the memo does).
        let mut kept_before: Vec<usize> = Vec::new();
        for mask in 0..1u32 << DICE {
            let rerolled: Vec<usize> = (0..DICE).filter(|&p| mask & (1 << p) != 0).collect();
            let kept_key: usize = (0..DICE).filter(|p| !rerolled.contains(p)).map(|p| die_key(dice[p])).sum();
            if kept_before.contains(&kept_key) {
                continue;
            }
            kept_before.push(kept_key);
            let mut next = dice;
            let sum = self.sum_outcomes(&mut next, kept_key, &rerolled, rerolls - 1);
            let outcomes = POW6[rerolled.len()] as f64;
            max_assign(&mut best, &sum, outcomes);
        }
        best
    }

    /// Sum, over every ordered outcome of the dice at `positions`, of the value of the dice
    /// with `rerolls` rerolls left; `key` is the memo key of the other dice.
    fn sum_outcomes(&mut self, dice: &mut [u8; DICE], key: usize, positions: &[usize], rerolls: usize) -> Rc<Tail> {
        if let Some(known) = self.memo[rerolls].get(&key) {
            return Rc::clone(known);
        }
        let sum = match positions.split_first() {
            None => self.value(*dice, rerolls),
            Some((&position, rest)) => {
                let mut sum = Tail::new();
                for face in 1..=6 {
                    dice[position] = face;
                    add_assign(&mut sum, &self.sum_outcomes(dice, key + die_key(face), rest, rerolls));
                }
                sum
            }
        };
        let sum = Rc::new(sum);
        self.memo[rerolls].insert(key, Rc::clone(&sum));
        sum
    }

    /// The best box for the final dice, threshold by threshold: scoring p points leaves
    /// s − p to make in the next turns.
    fn best_box(&self, dice: [u8; DICE]) -> Tail {
        let roll = RollId::from_faces(dice);
        let mut best = Tail::new();
        for c in ALL_CATEGORIES {
            let Some(t) = self.state.score(self.game, c, roll) else { continue };
            let next = &self.next_tails[&(t.next.filled.0, t.next.upper_total, t.next.yahtzee_50)];
            let p = t.points as usize;
            let tail: Tail = (0..p + next.len()).map(|s| if s <= p { 1.0 } else { next[s - p] }).collect();
            max_assign(&mut best, &tail, 1.0);
        }
        assert!(!best.is_empty(), "no box can take {roll} in {:?}", self.state);
        best
    }
}

fn set(boxes: &[Category]) -> CategorySet {
    boxes.iter().fold(CategorySet::EMPTY, |s, &c| s.with(c))
}

/// Every non-terminal state of the index: the solver's curve equals the brute force's at
/// every threshold, from below 0 to beyond the last nonzero of either. Returns the brute
/// force's tail at the start.
fn check_against_brute_force(game: Game) -> Tail {
    let curves = yz::targets::solve::<f64>(game);
    let index = curves.index();
    let mut brute = BruteForce::new(game);
    for id in 0..index.len() as u32 {
        let state = index.state(StateId(id));
        if state.is_terminal() {
            continue;
        }
        let tail = brute.tail(state);
        let curve = curves.curve(state);
        let stored = curve.first as usize + curve.values.len();
        for s in -3..tail.len().max(stored) as i64 + 3 {
            let expected = tail.get(s.max(0) as usize).copied().unwrap_or(0.0);
            let got = curve.at(s);
            assert!(
                (got - expected).abs() <= TOLERANCE,
                "{:?}, {state:?}, s = {s}: solver {got}, brute force {expected}",
                game.rules
            );
        }
    }
    brute.tail(ScoreState::start(game))
}

/// Fours, Fives and Sixes can make 63, so the upper bonus is live; with the Yahtzee box the
/// Extra Yahtzee Bonus and the Joker are in play (a Yahtzee scores 25 in the Full House
/// once its face's upper box is filled). Without the Joker the curves differ, so the check
/// sees it. The forced Joker gives the same curves as the official rules in this game (its
/// forced boxes are the best ones here), so it is not run.
#[test]
fn curves_agree_with_brute_force() {
    use Category::*;
    let categories = set(&[Fours, Fives, Sixes, FullHouse, Yahtzee]);
    for rules in [Rules::OFFICIAL, Rules::NO_BONUS] {
        let game = Game { rules, categories };
        // The upper boxes full of sixes, fives and fours (75) with the bonus, a Full House
        // and Yahtzee, and an Extra Yahtzee Bonus in each of the four turns after it.
        let extra_yahtzees = if rules.has_extra_bonus() { 4 * 100 } else { 0 };
        let most = 75 + 35 + 25 + 50 + extra_yahtzees;
        let start = check_against_brute_force(game);
        assert_eq!(start.len(), most + 1, "{rules:?}: the brute force reaches every score");
    }
}

/// Asserts what any family of target curves must satisfy: each falls from 1 (at every
/// s ≤ 0) and never rises; from the start it is at least the optimal solitaire strategy's
/// own P(score ≥ s), which is one strategy among those each threshold maximises over.
fn check_dominance(curves: &TargetCurves<f64>, game: Game) {
    for curve in curves.curves() {
        for s in -5..=0 {
            assert_eq!(curve.at(s), 1.0);
        }
        assert!(curve.values.iter().all(|v| (0.0..=1.0).contains(v)));
        assert!(curve.values.windows(2).all(|w| w[0] >= w[1]), "{curve:?}");
    }
    let solution = solve(game);
    let optimal = analyze(game, &OptimalPolicy::solved(game, &solution));
    let scores = optimal.distribution();
    let start = curves.start();
    for s in 0..=scores.probabilities().len() as u32 + 1 {
        let (best, solitaire) = (start.at(s as i64), scores.at_least(s));
        assert!(best >= solitaire - 1e-12, "{game:?}, s = {s}: target curve {best}, optimal solitaire {solitaire}");
    }
    assert!(start.mean() >= solution.start_value() - 1e-9);
}

#[test]
fn curves_fall_from_one_and_dominate_optimal_play() {
    use Category::*;
    for categories in [
        Rules::OFFICIAL.first(6).unwrap().with(Yahtzee),
        set(&[Ones, Fives, Sixes, FourOfAKind, FullHouse, Yahtzee, Chance]),
    ] {
        let game = Game { rules: Rules::OFFICIAL, categories };
        check_dominance(&yz::targets::solve::<f64>(game), game);
    }
}

/// The full game. The mean of the start curve, Σ over s ≥ 1 of max P(score ≥ s), is what
/// Pawlewicz reports as 264.449 (§4.1, EvalEMP3); we get 264.478143 in `f64`. The gap is
/// under investigation, so the test holds our value, not his.
#[test]
#[ignore = "full game, ~210 s; run scripts/long-tests"]
fn full_game_curves_fall_from_one_and_dominate_optimal_play() {
    let game = Game::full(Rules::OFFICIAL);
    let started = std::time::Instant::now();
    let curves = yz::targets::solve::<f64>(game);
    eprintln!("full-game target curves: {:.1} s", started.elapsed().as_secs_f64());
    check_dominance(&curves, game);
    let mean = curves.start().mean();
    eprintln!("mean of the start curve: {mean:.6} (Pawlewicz: 264.449)");
    assert!((mean - 264.4781).abs() < 1e-4, "{mean}");
}
