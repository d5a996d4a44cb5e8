//! Cross-checks the solitaire solver's turn against a deliberately plain brute force.
//!
//! The solver values a turn with the lane kernel of `yz::turn`: keeps as multisets, a
//! one-die-at-a-time recurrence over them, and per-slot successor vectors with the scoring
//! rules folded in. The brute force here shares none of that. It plays one turn literally:
//! five dice in positions, every one of the 32 subsets of positions to reroll, every ordered
//! outcome of the rerolled dice (6^k of them, each equally likely), every ordered first roll
//! (7,776), and at the end every box scored through [`ScoreState::score`], the plain rules
//! of the game model. Only the values of the *next* turn's states come from the solver, so
//! agreement proves that the kernel computes exactly the expectimax of one turn, for every
//! rule variant, with the upper bonus, the Extra Yahtzee Bonus and the Joker in play.
//!
//! The brute force memoizes by the multiset of the dice (a key equal for any order of the
//! same faces); this only shares work, and does not change what is enumerated or summed.

use std::cell::RefCell;
use std::collections::HashMap;

use yz::game::{
    ALL_CATEGORIES, Category, CategorySet, Game, RollId, Rules, ScoreState, StateId, StateIndex, YAHTZEE_RULES,
};
use yz::solo::{SoloSolution, solve};

/// Dice per roll.
const DICE: usize = 5;
/// Rolls in a turn: the first roll and two rerolls.
const ROLLS: usize = 3;
/// Relative tolerance between the two values: they add the same terms in different orders.
const TOLERANCE: f64 = 1e-9;

/// Powers of 6, for the memo key.
const POW6: [usize; DICE + 1] = [1, 6, 36, 216, 1296, 7776];

/// Memo key of one die: face `f` adds 1 to the base-6 digit `f − 1`.
fn die_key(face: u8) -> usize {
    POW6[face as usize - 1]
}

/// Memo key of five dice: the face counts as base-6 digits (a count is at most 5, so no
/// digit carries). Equal for any order of the same faces.
fn multiset_key(dice: [u8; DICE]) -> usize {
    dice.iter().map(|&face| die_key(face)).sum()
}

/// One turn of one state, enumerated die by die.
struct BruteTurn<'a> {
    game: Game,
    state: ScoreState,
    /// Expected future points at the start of the next turn, for a state after scoring.
    future: &'a dyn Fn(ScoreState) -> f64,
    /// `memo[r][key]`: value of holding the dice `key` with `r` rerolls left; NaN until known.
    memo: Vec<Vec<f64>>,
}

impl<'a> BruteTurn<'a> {
    fn new(game: Game, state: ScoreState, future: &'a dyn Fn(ScoreState) -> f64) -> BruteTurn<'a> {
        assert!(!state.is_terminal(), "a terminal state has no turn");
        let keys = DICE * die_key(6) + 1;
        BruteTurn { game, state, future, memo: vec![vec![f64::NAN; keys]; ROLLS] }
    }

    /// Expected future points from the start of the turn: the average over all 6^5
    /// ordered first rolls.
    fn start_value(&mut self) -> f64 {
        let all_positions: Vec<usize> = (0..DICE).collect();
        let sum = self.sum_outcomes(&mut [0; DICE], 0, &all_positions, ROLLS - 1);
        sum / POW6[DICE] as f64
    }

    /// Value of holding `dice` (memo key `key`) with `rerolls` rerolls left, before
    /// choosing what to keep.
    fn value(&mut self, dice: [u8; DICE], key: usize, rerolls: usize) -> f64 {
        let known = self.memo[rerolls][key];
        if !known.is_nan() {
            return known;
        }
        assert_eq!(key, multiset_key(dice), "memo key of {dice:?}");
        let value = if rerolls == 0 { self.best_box(dice) } else { self.best_reroll(dice, rerolls) };
        self.memo[rerolls][key] = value;
        value
    }

    /// The best of the 32 choices of positions to reroll (rerolling none included), each
    /// the average over every ordered outcome of the rerolled dice.
    fn best_reroll(&mut self, dice: [u8; DICE], rerolls: usize) -> f64 {
        let mut best = f64::NEG_INFINITY;
        for mask in 0..1u32 << DICE {
            let rerolled: Vec<usize> = (0..DICE).filter(|&p| mask & (1 << p) != 0).collect();
            let kept_key: usize = (0..DICE).filter(|p| !rerolled.contains(p)).map(|p| die_key(dice[p])).sum();
            let mut next = dice;
            let sum = self.sum_outcomes(&mut next, kept_key, &rerolled, rerolls - 1);
            best = best.max(sum / POW6[rerolled.len()] as f64);
        }
        best
    }

    /// Sum, over every ordered outcome of the dice at `positions`, of the value of the dice
    /// with `rerolls` rerolls left; `key` is the memo key of the other dice.
    fn sum_outcomes(&mut self, dice: &mut [u8; DICE], key: usize, positions: &[usize], rerolls: usize) -> f64 {
        let Some((&position, rest)) = positions.split_first() else {
            return self.value(*dice, key, rerolls);
        };
        let mut sum = 0.0;
        for face in 1..=6 {
            dice[position] = face;
            sum += self.sum_outcomes(dice, key + die_key(face), rest, rerolls);
        }
        sum
    }

    /// The best box for the final dice: its points (bonuses included) plus the future.
    fn best_box(&self, dice: [u8; DICE]) -> f64 {
        let roll = RollId::from_faces(dice);
        ALL_CATEGORIES
            .iter()
            .filter_map(|&c| self.state.score(self.game, c, roll))
            .map(|t| t.points as f64 + (self.future)(t.next))
            .reduce(f64::max)
            .unwrap_or_else(|| panic!("no box can take {roll} in {:?}", self.state))
    }
}

/// Brute-force value of `state`'s turn, the next turns valued by `solution`.
fn brute_force(solution: &SoloSolution, state: ScoreState) -> f64 {
    let future = |next: ScoreState| solution.value(next);
    BruteTurn::new(solution.game(), state, &future).start_value()
}

/// Asserts that the solver's value of `state` equals the brute force's.
fn check(solution: &SoloSolution, state: ScoreState) {
    let solver = solution.value(state);
    let brute = brute_force(solution, state);
    let error = (solver - brute).abs() / brute.abs().max(1.0);
    assert!(
        error <= TOLERANCE,
        "{:?}, state {state:?}: solver {solver}, brute force {brute} (relative error {error:e})",
        solution.game().rules
    );
}

/// SplitMix64: a small deterministic generator, so the states drawn are the same every run.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// A random non-terminal state of the index satisfying `wanted`.
fn pick(index: &StateIndex, rng: &mut SplitMix, wanted: impl Fn(ScoreState) -> bool) -> ScoreState {
    let states: Vec<ScoreState> =
        (0..index.len() as u32).map(|i| index.state(StateId(i))).filter(|&s| !s.is_terminal() && wanted(s)).collect();
    assert!(!states.is_empty(), "no state of {:?} has the wanted shape", index.game());
    states[rng.below(states.len())]
}

/// The set of these boxes.
fn set(boxes: &[Category]) -> CategorySet {
    boxes.iter().fold(CategorySet::EMPTY, |s, &c| s.with(c))
}

/// Seven boxes, under every rule variant: three upper boxes (enough to reach 63, so the
/// upper bonus is live), the Joker boxes and Yahtzee. The absent upper boxes count as
/// filled, so their faces' Yahtzees are Jokers as soon as the Yahtzee box is filled.
#[test]
fn truncated_games_agree_with_brute_force_under_every_rule() {
    use Category::*;
    let categories = set(&[Fours, Fives, Sixes, FullHouse, SmallStraight, LargeStraight, Yahtzee]);
    let joker_boxes = set(&[FullHouse, SmallStraight, LargeStraight]);
    let upper_in_play = set(&[Fours, Fives, Sixes]);
    let open = |s: ScoreState, boxes: CategorySet| s.filled.complement().0 & boxes.0 != 0;
    let filled_in_play_upper = |s: ScoreState| s.filled.0 & upper_in_play.0 != 0;
    let bonus_live = |s: ScoreState| {
        let most_to_come: u32 =
            upper_in_play.minus(s.filled).iter().filter_map(Category::upper_face).map(|f| 5 * f as u32).sum();
        s.upper_total < 63 && s.upper_total as u32 + most_to_come >= 63
    };
    let mut rng = SplitMix(0x5eed_0f7a_b1e5);
    for rules in YAHTZEE_RULES {
        let game = Game { rules, categories };
        let solution = solve(game);
        let index = StateIndex::new(game);
        // The Yahtzee box holds 50; rules without the Extra Yahtzee Bonus do not track it,
        // and their Yahtzee box is simply filled.
        let holds_50 = |s: ScoreState| s.yahtzee_50 || (!game.tracks_yahtzee_50() && s.filled.contains(Yahtzee));
        let states = [
            // Anything at all.
            pick(&index, &mut rng, |_| true),
            // Yahtzee box open: a Yahtzee can score 50.
            pick(&index, &mut rng, |s| open(s, set(&[Yahtzee]))),
            // Yahtzee box holds 50, an upper box in play filled, another open with the bonus
            // still to earn, a Joker box open: Extra Yahtzee Bonus, Joker and upper bonus.
            pick(&index, &mut rng, |s| {
                holds_50(s)
                    && filled_in_play_upper(s)
                    && open(s, upper_in_play)
                    && open(s, joker_boxes)
                    && bonus_live(s)
            }),
            // Yahtzee box holds 50, upper boxes and Joker boxes open (the forced Joker's
            // upper-box-first case).
            pick(&index, &mut rng, |s| holds_50(s) && open(s, upper_in_play) && open(s, joker_boxes)),
            // Yahtzee box scratched with 0: the Joker without the bonus.
            pick(&index, &mut rng, |s| {
                s.filled.contains(Yahtzee) && !s.yahtzee_50 && filled_in_play_upper(s) && open(s, joker_boxes)
            }),
        ];
        for state in states {
            check(&solution, state);
        }
    }
}

/// Late states of the full official game with the Joker active: the Yahtzee box filled and
/// upper boxes filled, the upper bonus still reachable. Solving the full game takes tens of
/// seconds in a debug build, too long for the debug test budget, so debug builds skip it.
#[test]
#[cfg_attr(debug_assertions, ignore = "solves the full game; run with --release")]
fn late_full_game_states_agree_with_brute_force() {
    use Category::*;
    let game = Game::full(Rules::OFFICIAL);
    let solution = solve(game);
    let index = StateIndex::new(game);
    let states = [
        // Yahtzee box holds 50; four twos earn the upper bonus.
        ScoreState {
            filled: CategorySet::ALL.minus(set(&[Twos, FullHouse, LargeStraight])),
            upper_total: 55,
            yahtzee_50: true,
        },
        // Yahtzee box scratched with 0; three fives earn the upper bonus.
        ScoreState {
            filled: CategorySet::ALL.minus(set(&[Fives, SmallStraight, Chance])),
            upper_total: 48,
            yahtzee_50: false,
        },
    ];
    for state in states {
        assert!(index.id(state).is_some(), "{state:?} cannot occur");
        check(&solution, state);
    }
}

/// Aces alone: each die ends a one with probability 1 − (5/6)^3 = 91/216, so the game is
/// worth 5 · 91/216. The brute force gets it without the solver (the only next state is
/// terminal, worth 0), and the solver agrees.
#[test]
fn aces_alone_by_brute_force() {
    let game = Game { rules: Rules::OFFICIAL, categories: set(&[Category::Ones]) };
    let exact = 5.0 * 91.0 / 216.0;
    let terminal_only = |next: ScoreState| {
        assert!(next.is_terminal(), "{next:?} follows a one-box game");
        0.0
    };
    let brute = BruteTurn::new(game, ScoreState::start(game), &terminal_only).start_value();
    assert!((brute - exact).abs() < 1e-12, "brute force {brute}, exact {exact}");
    let solver = solve(game).start_value();
    assert!((solver - exact).abs() < 1e-12, "solver {solver}, exact {exact}");
}

/// The whole game of `game` by brute force: each turn played literally by [`BruteTurn`],
/// the next turns valued by the same recursion (memoized by state), no solver anywhere.
fn brute_force_game(game: Game) -> f64 {
    fn value(game: Game, state: ScoreState, memo: &RefCell<HashMap<ScoreState, f64>>) -> f64 {
        if state.is_terminal() {
            return 0.0;
        }
        if let Some(&known) = memo.borrow().get(&state) {
            return known;
        }
        let future = |next: ScoreState| value(game, next, memo);
        let v = BruteTurn::new(game, state, &future).start_value();
        memo.borrow_mut().insert(state, v);
        v
    }
    value(game, ScoreState::start(game), &RefCell::new(HashMap::new()))
}

/// Small Yatzy games, solved outright by brute force and by the solver: the pair boxes and
/// the yatzy; the house rules on the boxes they change; forced order with an upper box.
#[test]
fn small_yatzy_games_agree_with_brute_force() {
    use Category::*;
    let games = [
        Game { rules: Rules::yatzy(), categories: set(&[OnePair, TwoPairs, Yahtzee]) },
        Game { rules: Rules::yatzy_with(false, true, true), categories: set(&[TwoPairs, FullHouse, Yahtzee]) },
        Game { rules: Rules::yatzy_with(true, false, false), categories: set(&[Sixes, OnePair, SmallStraight]) },
        Game { rules: Rules::yatzy(), categories: set(&[Fives, Sixes, ThreeOfAKind, LargeStraight]) },
    ];
    for game in games {
        let brute = brute_force_game(game);
        let solver = solve(game).start_value();
        assert!((solver - brute).abs() <= TOLERANCE * brute, "{game:?}: solver {solver}, brute force {brute}");
    }
}
