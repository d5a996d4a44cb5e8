//! The solitaire solver against published numbers, closed forms and itself.

use yz::game::{Category, CategorySet, Game, Rules, StateIndex};
use yz::solo::solve;

use crate::golden;

/// Rounds to `decimals` places, to compare with a published figure at its printed precision.
fn rounded(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (x * scale).round() / scale
}

#[test]
fn official_expected_score_is_254_5896() {
    let value = solve(Game::full(Rules::OFFICIAL)).start_value();
    assert_eq!(rounded(value, 4), golden::OFFICIAL_EXPECTED, "{value}");
}

#[test]
fn no_bonus_expected_score_is_245_87() {
    let value = solve(Game::full(Rules::NO_BONUS)).start_value();
    assert_eq!(rounded(value, 2), golden::NO_BONUS_EXPECTED, "{value}");
}

#[test]
fn forced_joker_is_about_0_0019_below_official() {
    let official = solve(Game::full(Rules::OFFICIAL)).start_value();
    let forced = solve(Game::full(Rules::FORCED_JOKER)).start_value();
    assert_eq!(rounded(official - forced, 4), golden::FORCED_JOKER_GAP, "{official} - {forced}");
}

#[test]
fn aces_alone_is_exactly_five_times_91_over_216() {
    let game = Game { rules: Rules::OFFICIAL, categories: CategorySet::EMPTY.with(Category::Ones) };
    let value = solve(game).start_value();
    assert!((value - 5.0 * 91.0 / 216.0).abs() < 1e-13, "{value}");
}

#[test]
fn state_count_is_pawlewiczs() {
    assert_eq!(StateIndex::new(Game::full(Rules::OFFICIAL)).len(), golden::SCORE_STATES);
}

#[test]
fn solve_is_bit_identical_for_any_thread_count() {
    let game = Game::full(Rules::OFFICIAL);
    let with_threads = |n| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("thread pool");
        pool.install(|| solve(game))
    };
    let (one, three) = (with_threads(1), with_threads(3));
    let index = StateIndex::new(game);
    for id in 0..index.len() as u32 {
        let state = index.state(yz::game::StateId(id));
        assert_eq!(one.value(state).to_bits(), three.value(state).to_bits(), "{state:?}");
    }
}

#[test]
fn every_variant_and_a_truncated_game_is_consistent() {
    // Fewer boxes can only lower the expected score, and the rules rank as their bonuses do.
    let full = |rules| solve(Game::full(rules)).start_value();
    let (official, no_joker, no_bonus) = (full(Rules::OFFICIAL), full(Rules::NO_JOKER), full(Rules::NO_BONUS));
    assert!(official > no_joker && no_joker > no_bonus);
    let first_six = solve(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(6).unwrap() }).start_value();
    assert!(first_six > 0.0 && first_six < official);
}
