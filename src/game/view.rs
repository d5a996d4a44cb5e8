//! A score card as a page draws it: every box in card order with its full name, what is
//! written in it or what the dice showing would earn there, and the totals a printed card
//! adds up (the upper subtotal and its bonus, the extra bonuses, the lower total).

use serde::Serialize;

use super::{Card, Earned, RollId};

/// One box of a [`CardView`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoxView {
    /// Its name on the command line and in cards' text (`3k`).
    pub name: &'static str,
    /// Its full name (`Three of a kind`).
    pub label: &'static str,
    /// Whether it is an upper box (counted toward the upper bonus).
    pub upper: bool,
    /// The points written in it; `None` while it is open.
    pub filled: Option<u32>,
    /// What the dice showing would earn in it now, where dice were given and the box is
    /// open and may take them.
    pub would: Option<Earned>,
}

/// A card's boxes and totals, as a printed card shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CardView {
    /// The boxes in play, in card order.
    pub boxes: Vec<BoxView>,
    /// The upper boxes' points added up.
    pub upper_subtotal: u32,
    /// The upper subtotal that earns the upper bonus.
    pub upper_threshold: u32,
    /// The upper bonus earned so far: [`CardView::upper_bonus_value`] once the subtotal
    /// reaches the threshold, else 0.
    pub upper_bonus: u32,
    /// What the upper bonus is worth under the rules.
    pub upper_bonus_value: u32,
    /// Extra Yahtzee Bonus points earned so far.
    pub yahtzee_bonus: u32,
    /// The lower boxes' points added up.
    pub lower_total: u32,
    /// The card's total: `upper_subtotal + upper_bonus + yahtzee_bonus + lower_total`.
    pub total: u32,
    /// Whether every box is filled.
    pub full: bool,
}

impl Card {
    /// The card as a page draws it, with what `roll` (if given) would earn in each box
    /// that may take it.
    pub fn view(&self, roll: Option<RollId>) -> CardView {
        let (game, state) = (self.game, self.state());
        let rules = game.rules;
        let boxes: Vec<BoxView> = game
            .card()
            .map(|c| BoxView {
                name: rules.box_name(c),
                label: rules.box_label(c),
                upper: c.upper_face().is_some(),
                filled: self.boxes[c.index()],
                would: roll.and_then(|roll| state.earned(game, c, roll)),
            })
            .collect();
        let lower_total = boxes.iter().filter(|b| !b.upper).filter_map(|b| b.filled).sum();
        CardView {
            boxes,
            upper_subtotal: self.upper_sum(),
            upper_threshold: rules.upper_threshold(),
            upper_bonus: self.upper_bonus(),
            upper_bonus_value: rules.upper_bonus(),
            yahtzee_bonus: self.bonus,
            lower_total,
            total: self.points(),
            full: state.is_terminal(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Category, Game, Rules};

    #[test]
    fn the_totals_add_up_as_a_printed_card_does() {
        let game = Game::full(Rules::OFFICIAL);
        let card = Card::parse("ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,3k=20,yahtzee=50", game).unwrap();
        let view = card.view(None);
        assert_eq!(view.boxes.len(), 13);
        assert_eq!((view.upper_subtotal, view.upper_bonus, view.upper_bonus_value), (63, 35, 35));
        assert_eq!((view.lower_total, view.yahtzee_bonus, view.total, view.full), (70, 0, 168, false));
        assert!(view.boxes.iter().all(|b| b.would.is_none()));
        let three = &view.boxes[Category::ThreeOfAKind.index()];
        assert_eq!((three.name, three.label, three.upper, three.filled), ("3k", "Three of a kind", false, Some(20)));
        let yatzy = Card::new(Game::full(Rules::yatzy())).view(None);
        let labels: Vec<&str> = yatzy.boxes.iter().map(|b| b.label).collect();
        assert_eq!(labels[6..8], ["One pair", "Two pairs"]);
        assert_eq!(labels.last(), Some(&"Yatzy"));
        assert_eq!((yatzy.upper_bonus, yatzy.upper_bonus_value, yatzy.total), (0, 50, 0));
    }

    #[test]
    fn dice_showing_are_offered_to_the_open_boxes_that_take_them() {
        let game = Game::full(Rules::OFFICIAL);
        let card = Card::parse("ones=3,sixes=24,fh=25,yahtzee=50", game).unwrap();
        let view = card.view(Some(RollId::from_faces([6; 5])));
        let would = |c: Category| view.boxes[c.index()].would;
        assert_eq!(would(Category::Ones), None, "filled");
        assert_eq!(would(Category::LargeStraight), Some(Earned { box_points: 40, bonus_points: 100, points: 140 }));
        assert_eq!(would(Category::Fives), Some(Earned { box_points: 0, bonus_points: 100, points: 100 }));
    }
}
