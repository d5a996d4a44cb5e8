//! Cross-checks the two-player solver against plain recursion over whole turns.
//!
//! The brute force knows nothing of windows, bounds, lanes, layers or the kernel's
//! recurrences: the value of (mover, opponent, d) is one turn of the mover enumerated
//! outright ([`MultisetTurn`]: every keep of every roll, every outcome of the rerolled
//! dice with its multinomial probability), each way of ending the turn worth
//! `1 − value(opponent, next card, −(d + points))`, and a finished game worth 1, ½ or 0 by
//! the sign of d. It is memoized by position only to finish in seconds.

use std::cell::RefCell;
use std::collections::HashMap;

use yz::duel::sweep::solve_layers;
use yz::duel::{Cards, LayerValues, Space, WinDraw};
use yz::game::{ALL_CATEGORIES, Category, CategorySet, Game, RollId, Rules, ScoreState, StateId, Transition};

/// Dice as counts of each face.
pub type Counts = [u8; 6];

/// Every multiset of `n` dice with its probability n! / (∏ count!) / 6^n.
fn outcomes(n: u8) -> Vec<(Counts, f64)> {
    let factorial = |k: u8| (1..=k as u64).product::<u64>() as f64;
    let mut all = Vec::new();
    let mut counts = [0u8; 6];
    fn fill(face: usize, left: u8, counts: &mut Counts, all: &mut Vec<Counts>) {
        if face == 5 {
            counts[5] = left;
            all.push(*counts);
            return;
        }
        for c in 0..=left {
            counts[face] = c;
            fill(face + 1, left - c, counts, all);
        }
    }
    let mut multisets = Vec::new();
    fill(0, n, &mut counts, &mut multisets);
    for m in multisets {
        let ways = factorial(n) / m.iter().map(|&c| factorial(c)).product::<f64>();
        all.push((m, ways / 6f64.powi(n as i32)));
    }
    all
}

/// Every sub-multiset of `roll` (the keeps), the empty one and `roll` itself included.
fn keeps(roll: Counts) -> Vec<Counts> {
    let mut all = vec![[0u8; 6]];
    for face in 0..6 {
        all = all
            .into_iter()
            .flat_map(|k| {
                (0..=roll[face]).map(move |c| {
                    let mut k = k;
                    k[face] = c;
                    k
                })
            })
            .collect();
    }
    all
}

fn add(a: Counts, b: Counts) -> Counts {
    std::array::from_fn(|f| a[f] + b[f])
}

/// One turn of `state`: three rolls, the value of ending it given by `finish`.
struct MultisetTurn<'a> {
    game: Game,
    state: ScoreState,
    finish: &'a dyn Fn(Transition) -> f64,
    /// Outcomes of rerolling 0..=5 dice.
    outcomes: Vec<Vec<(Counts, f64)>>,
}

impl<'a> MultisetTurn<'a> {
    fn new(game: Game, state: ScoreState, finish: &'a dyn Fn(Transition) -> f64) -> MultisetTurn<'a> {
        MultisetTurn { game, state, finish, outcomes: (0..=5).map(outcomes).collect() }
    }

    /// The value at the start of the turn.
    fn start_value(&self) -> f64 {
        let last: HashMap<Counts, f64> =
            self.outcomes[5].iter().map(|&(roll, _)| (roll, self.best_box(roll))).collect();
        let second = self.after_reroll(&last);
        let first = self.after_reroll(&second);
        self.outcomes[5].iter().map(|&(roll, p)| p * first[&roll]).sum()
    }

    /// Value of each roll with one more reroll allowed, given the value of each roll
    /// after it: the best keep, each keep the average over the rerolled dice.
    fn after_reroll(&self, then: &HashMap<Counts, f64>) -> HashMap<Counts, f64> {
        let mut keep_value: HashMap<Counts, f64> = HashMap::new();
        self.outcomes[5]
            .iter()
            .map(|&(roll, _)| {
                let best = keeps(roll)
                    .into_iter()
                    .map(|keep| {
                        *keep_value.entry(keep).or_insert_with(|| {
                            let rerolled = 5 - keep.iter().sum::<u8>();
                            self.outcomes[rerolled as usize].iter().map(|&(o, p)| p * then[&add(keep, o)]).sum()
                        })
                    })
                    .fold(f64::NEG_INFINITY, f64::max);
                (roll, best)
            })
            .collect()
    }

    /// The best box for the final dice, as `finish` values it.
    fn best_box(&self, roll: Counts) -> f64 {
        let roll = RollId::from_counts(roll);
        ALL_CATEGORIES
            .iter()
            .filter_map(|&c| self.state.score(self.game, c, roll))
            .map(|t| (self.finish)(t))
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

/// f64 lanes against f64 recursion: the same terms summed in different orders.
const TOLERANCE: f64 = 1e-12;

/// The recursion, memoized by position (also checks the exact values of the move errors).
pub struct Brute {
    game: Game,
    memo: RefCell<HashMap<(ScoreState, ScoreState, i32), f64>>,
}

impl Brute {
    /// The recursion for `game`, nothing memoized yet.
    pub fn new(game: Game) -> Brute {
        Brute { game, memo: RefCell::new(HashMap::new()) }
    }

    /// The mover's P(win) + ½ P(draw) under optimal play by both.
    pub fn value(&self, mover: ScoreState, opponent: ScoreState, d: i32) -> f64 {
        if mover.is_terminal() {
            assert!(opponent.is_terminal(), "the mover is never ahead in boxes");
            return match d.signum() {
                1 => 1.0,
                0 => 0.5,
                _ => 0.0,
            };
        }
        if let Some(&v) = self.memo.borrow().get(&(mover, opponent, d)) {
            return v;
        }
        let finish = |t: Transition| 1.0 - self.value(opponent, t.next, -(d + t.points as i32));
        let v = MultisetTurn::new(self.game, mover, &finish).start_value();
        self.memo.borrow_mut().insert((mover, opponent, d), v);
        v
    }
}

impl Brute {
    /// The mover's value of keeping `keep` (face counts) with `rolls_left` rerolls (1 or 2)
    /// and playing on optimally: the average over the rerolled dice.
    pub fn keep_value(&self, mover: ScoreState, opponent: ScoreState, d: i32, keep: Counts, rolls_left: u8) -> f64 {
        let finish = |t: Transition| self.box_value(opponent, d, t);
        let turn = MultisetTurn::new(self.game, mover, &finish);
        let last: HashMap<Counts, f64> =
            turn.outcomes[5].iter().map(|&(roll, _)| (roll, turn.best_box(roll))).collect();
        let then = if rolls_left == 2 { turn.after_reroll(&last) } else { last };
        let rerolled = 5 - keep.iter().sum::<u8>();
        turn.outcomes[rerolled as usize].iter().map(|&(o, p)| p * then[&add(keep, o)]).sum()
    }

    /// The mover's value of ending its turn with `t` against `opponent` at difference `d`.
    pub fn box_value(&self, opponent: ScoreState, d: i32, t: Transition) -> f64 {
        1.0 - self.value(opponent, t.next, -(d + t.points as i32))
    }
}

/// Every layer of the game solved with f64 lanes, first layer first.
pub fn solve_all(cards: &Cards) -> Vec<LayerValues<f64>> {
    let space = Space::whole_game(cards);
    let mut layers = Vec::new();
    solve_layers::<f64>(&space, 0, |layer| {
        layers.push(layer.clone());
        Ok(())
    })
    .unwrap();
    layers.reverse();
    layers
}

fn set(boxes: &[Category]) -> CategorySet {
    boxes.iter().fold(CategorySet::EMPTY, |s, &c| s.with(c))
}

/// Every position of every layer agrees with the brute force, and so do a few decided
/// differences just outside each window (they must be exactly 0 or 1).
fn check_game(categories: CategorySet) {
    check(Game { rules: Rules::OFFICIAL, categories });
}

/// [`check_game`] for any game.
fn check(game: Game) {
    let categories = game.categories;
    let cards = Cards::new(game);
    let space = Space::whole_game(&cards);
    let brute = Brute::new(game);
    let mut checked = 0;
    for layer in solve_all(&cards) {
        let shape = &layer.shape;
        for (m, &mover) in shape.movers.iter().enumerate() {
            for (o, &opponent) in shape.opponents.iter().enumerate() {
                let (a, b) = (cards.index().state(mover), cards.index().state(opponent));
                let range = layer.tile.pair_range(m, o);
                if range.is_empty() {
                    continue;
                }
                let (lo, hi) = yz::duel::cards::window(cards.bounds(mover), cards.bounds(opponent));
                for d in lo..=hi {
                    let solver = layer.values[range.start + (d - lo) as usize];
                    let exact = brute.value(a, b, d);
                    assert!(
                        (solver - exact).abs() <= TOLERANCE,
                        "{categories:?} layer {}: {a:?} vs {b:?}, d = {d}: solver {solver}, brute force {exact}",
                        shape.layer
                    );
                    checked += 1;
                }
                for d in [lo - 3, lo - 1, hi + 1, hi + 3] {
                    if let Some(won) = yz::duel::cards::decided(cards.bounds(mover), cards.bounds(opponent), d) {
                        let exact = brute.value(a, b, d);
                        assert!((exact - if won { 1.0 } else { 0.0 }).abs() <= TOLERANCE, "{a:?} vs {b:?}, d = {d}");
                        assert_eq!(layer.value(&space, mover, opponent, d), Some(if won { 1.0 } else { 0.0 }));
                    }
                }
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn chance_alone() {
    check_game(set(&[Category::Chance]));
}

#[test]
fn yahtzee_alone() {
    check_game(set(&[Category::Yahtzee]));
}

#[test]
fn aces_and_twos() {
    check_game(set(&[Category::Ones, Category::Twos]));
}

#[test]
fn three_of_a_kind_and_yahtzee() {
    check_game(set(&[Category::ThreeOfAKind, Category::Yahtzee]));
}

/// Scandinavian Yatzy's pair boxes and its yatzy: no extra bonus, no Joker.
#[test]
fn yatzy_pairs_and_yatzy() {
    check(Game { rules: Rules::yatzy(), categories: set(&[Category::OnePair, Category::TwoPairs, Category::Yahtzee]) });
}

/// Yatzy's house rules on the boxes they change, and forced order.
#[test]
fn yatzy_house_rules() {
    let house = Rules::yatzy_with(false, true, true);
    check(Game { rules: house, categories: set(&[Category::TwoPairs, Category::FullHouse]) });
    let forced = Rules::yatzy_with(true, false, false);
    check(Game { rules: forced, categories: set(&[Category::Sixes, Category::OnePair, Category::Chance]) });
}

#[test]
fn full_house_and_straights() {
    check_game(set(&[Category::FullHouse, Category::SmallStraight, Category::LargeStraight]));
}

/// Values and the draw probability do not depend on the number of threads, bit for bit.
#[test]
fn thread_count_does_not_change_a_bit() {
    let cards = Cards::new(Game {
        rules: Rules::OFFICIAL,
        categories: Rules::OFFICIAL.first(3).unwrap().with(Category::Yahtzee),
    });
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut bits = Vec::new();
            let space = Space::whole_game(&cards);
            solve_layers::<WinDraw<f32>>(&space, 0, |layer| {
                bits.extend(layer.values.iter().flat_map(|v| [v.value.to_bits(), v.draw.to_bits()]));
                Ok(())
            })
            .unwrap();
            bits
        })
    };
    assert_eq!(run(1), run(3));
}

/// The start of a game is one position: the pair of empty cards at d = 0.
#[test]
fn the_start_is_one_position() {
    let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: set(&[Category::Ones, Category::Twos]) });
    let start = cards.index().id(ScoreState::start(cards.game())).unwrap();
    let layers = solve_all(&cards);
    assert_eq!((layers[0].shape.movers.as_slice(), layers[0].values.len()), ([start].as_slice(), 1));
    assert_eq!(start, StateId(0));
}

/// The brute-force turn itself: Aces alone scored for points is worth 5 · 91/216.
#[test]
fn multiset_turn_of_aces_alone() {
    let game = Game { rules: Rules::OFFICIAL, categories: set(&[Category::Ones]) };
    let points = |t: Transition| t.points as f64;
    let value = MultisetTurn::new(game, ScoreState::start(game), &points).start_value();
    assert!((value - 5.0 * 91.0 / 216.0).abs() < 1e-12, "{value}");
}
