//! A coached game: the session deals or takes dice, checks every step, values the
//! player's decisions as the advisors do, lets an opponent play its own plan, and keeps a
//! record that reviews with the same losses.

use yz::coach::play::{Coach, PlayError, Session};
use yz::coach::review::{self, ReviewOptions};
use yz::game::{Category, Game, KeepId, Rules, parse_dice};
use yz::game::{Choice, RollsLeft};
use yz::players::SolitairePlayer;
use yz::progress::Silent;
use yz::solo::{self, OptimalPolicy};
use yz::store::open_or_solve;
use yz::targets::TargetTable;

/// Plays the session to the end: the coach's best for the player, the opponent's own plan.
fn play_out(session: &mut Session) {
    while !session.is_over() {
        if session.dice().is_none() {
            session.roll(None).unwrap();
        }
        let choice = if session.mover() == 0 {
            session.options().unwrap()[0].choice
        } else {
            session.opponent_choice().unwrap()
        };
        session.decide(choice).unwrap();
    }
}

#[test]
fn a_seeded_game_replays_and_reviews_with_the_losses_it_showed() {
    let data = tempfile::tempdir().unwrap();
    let game = Game::full(Rules::OFFICIAL);
    let table = open_or_solve::<solo::SoloTable>(data.path(), game, &Silent).unwrap();
    let policy = OptimalPolicy::solved(game, &table);
    let opponent = SolitairePlayer::new(&policy);
    let new = || Session::new(game, "ann", Coach::Expected(&table), Some(("optimal", &opponent)), Some(9)).unwrap();
    let (mut first, mut second) = (new(), new());
    play_out(&mut first);
    play_out(&mut second);
    assert_eq!(first.record().to_text(), second.record().to_text(), "a seed deals the same game");
    assert_eq!(first.record().turns().len(), 26);
    assert_eq!(first.feedback().len(), 39, "three valued decisions per turn of the player");
    assert!(first.feedback().iter().all(|f| f.loss == 0.0));

    // A game with mistakes: every third decision rerolls everything where it may.
    let mut session = Session::new(game, "ann", Coach::Expected(&table), None, Some(4)).unwrap();
    let mut n = 0;
    while !session.is_over() {
        if session.dice().is_none() {
            session.roll(None).unwrap();
        }
        let (_, rolls_left) = session.dice().unwrap();
        n += 1;
        let choice = if n % 3 == 1 && rolls_left != RollsLeft::NONE {
            Choice::Keep(KeepId(0))
        } else {
            session.options().unwrap()[0].choice
        };
        session.decide(choice).unwrap();
    }
    let options = ReviewOptions {
        data: data.path(),
        top: 3,
        tolerance: review::DEFAULT_TOLERANCE,
        on_the_fly: yz::duel::source::ON_THE_FLY_POSITIONS,
    };
    let reviewed = review::review(session.record(), options, &Silent).unwrap();
    let shown: Vec<f64> = session.feedback().iter().map(|f| f.loss).collect();
    let judged: Vec<f64> = reviewed.decisions.iter().map(|d| d.loss).collect();
    assert_eq!(shown, judged, "the review finds the losses the game showed");
    assert!(shown.iter().filter(|&&l| l > 0.0).count() >= 5);
}

#[test]
fn entered_dice_and_choices_are_checked() {
    let data = tempfile::tempdir().unwrap();
    let game = Game::first(Rules::OFFICIAL, 6).unwrap();
    let table = open_or_solve::<solo::SoloTable>(data.path(), game, &Silent).unwrap();
    let mut session = Session::new(game, "ann", Coach::Expected(&table), None, None).unwrap();
    assert!(matches!(session.roll(None), Err(PlayError::DiceNeeded)));
    assert!(matches!(session.decide(Choice::Score(Category::Ones)), Err(PlayError::NotRolled)));
    let roll = parse_dice("1,3,3,5,6").unwrap();
    session.roll(Some(roll)).unwrap();
    assert!(matches!(session.roll(Some(roll)), Err(PlayError::AlreadyRolled)));
    let sixes = KeepId::from_counts([0, 0, 0, 0, 0, 2]);
    assert!(matches!(session.decide(Choice::Keep(sixes)), Err(PlayError::NotInRoll { .. })));
    let threes = KeepId::from_counts([0, 0, 2, 0, 0, 0]);
    session.decide(Choice::Keep(threes)).unwrap();
    let lost = parse_dice("1,2,3,5,6").unwrap();
    assert!(matches!(session.roll(Some(lost)), Err(PlayError::LostKeep { .. })));
    session.roll(Some(parse_dice("3,3,3,3,6").unwrap())).unwrap();
    // Scoring with a reroll left is one decision: the box, against the best option there.
    let feedback = session.decide(Choice::Score(Category::Threes)).unwrap().unwrap();
    assert_eq!((feedback.rolls_left, feedback.chosen.choice), (RollsLeft::ONE, Choice::Score(Category::Threes)));
    assert!(matches!(feedback.best.choice, Choice::Keep(_)));
    assert!(feedback.loss >= 0.0);
    assert_eq!(session.record().to_text().lines().last(), Some("13356 keep 33 33336 threes=12"));
    session.roll(Some(parse_dice("3,3,3,3,3").unwrap())).unwrap();
    assert!(matches!(session.decide(Choice::Score(Category::Threes)), Err(PlayError::BoxNotAllowed("threes"))));
    assert!(matches!(session.opponent_choice(), Err(PlayError::NotTheirTurn(_))));
    let dealt = Session::new(game, "ann", Coach::Expected(&table), None, Some(1));
    assert!(matches!(dealt.unwrap().roll(Some(roll)), Err(PlayError::Dealt)));
}

#[test]
fn a_target_coach_values_by_the_chance_of_the_target() {
    let data = tempfile::tempdir().unwrap();
    let game = Game::first(Rules::OFFICIAL, 6).unwrap();
    let table = open_or_solve::<TargetTable>(data.path(), game, &Silent).unwrap();
    let coach = Coach::Target { table: &table, target: 63 };
    let mut session = Session::new(game, "ann", coach, None, Some(3)).unwrap();
    session.roll(None).unwrap();
    let (roll, rolls_left) = session.dice().unwrap();
    let ranked = session.options().unwrap();
    let advised =
        yz::targets::advise::advise(&table, game, &session.record().cards()[0], roll, rolls_left, 63).unwrap();
    assert_eq!(ranked.len(), advised.len());
    for (r, a) in ranked.iter().zip(&advised) {
        assert_eq!((r.choice, r.value), (a.choice, f64::from(a.probability)));
    }
    play_out(&mut session);
    assert!(session.feedback().iter().all(|f| (0.0..=1.0).contains(&f.best.value)));
}
