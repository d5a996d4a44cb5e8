//! A program embedding yz through the names at the crate's root only (the facade): a
//! solitaire table and its advice, the exact statistics of another strategy, the chances of
//! every total below a position, and a two-player value.
//!
//! Run: `cargo run --release --example embed` (a few seconds; the tables it needs are
//! solved in memory or in a temporary data directory).

use yz::{
    Card, DuelCards, DuelPosition, Game, RollsLeft, Rules, Silent, SoloTable, Strategy, StrategyName, TableLookup,
    advise_solo, duel_value, open_or_solve, parse_dice, solve_targets_below,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = std::env::temp_dir().join(format!("yz-embed-{}", std::process::id()));
    std::fs::create_dir_all(&data)?;

    // Solitaire: the official table (solved into the data directory once), then advice.
    let game = Game::full(Rules::OFFICIAL);
    let table: SoloTable = open_or_solve(&data, game, &Silent)?;
    let card = Card::parse("ones=3,fh=25", game)?;
    let ranked = advise_solo(&table, game, &card, parse_dice("22356")?, RollsLeft::new(1)?)?;
    println!(
        "best of 22356 with one reroll on {card}: {} ({:.4})",
        ranked[0].choice.describe(game.rules),
        ranked[0].expected_final
    );

    // Any strategy of the zoo, analysed exactly.
    let greedy = Strategy::build(&StrategyName::Greedy, game, &data)?;
    println!("greedy play scores {:.4} on average", greedy.analyze().expected_score());

    // Targets: the chances of every total from a late position, solved below it.
    let late = Card::parse("ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18", game)?;
    let curves = solve_targets_below::<f32>(game, late.state(), &Silent);
    let curve = curves.curve(late.state());
    println!("from {late}: P(final total >= 250) = {:.4}", curve.at(250 - i64::from(late.points())));

    // Two players, the first four boxes: the first player's winning chance.
    let cards = DuelCards::new(Game::first(Rules::OFFICIAL, 4)?);
    let start = DuelPosition::parse(&cards, "", "", None)?;
    let lookup = TableLookup { given: None, data: &data, on_the_fly: 10_000_000, gpu: false };
    let (value, _) = duel_value(&cards, &start, lookup, &Silent)?;
    println!("two players, first 4 boxes: the first player wins with chance {value:.6}");

    std::fs::remove_dir_all(&data)?;
    Ok(())
}
