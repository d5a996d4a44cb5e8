//! What a two-player position is worth, as a lane type of the turn kernel.
//!
//! The kernel only adds, scales and takes maxima of lanes ([`LaneValue`]); a two-player
//! value adds two things: the view of the other player ([`DuelValue::flip`]) and the values of
//! finished games. Two types implement it:
//!
//! | type | lane holds | used for |
//! |---|---|---|
//! | `f32` | mover's P(win) + ½ P(draw) | tables, endgames, advice |
//! | `f64` | the same | exact cross-checks against brute force and closed forms |
//! | [`WinDraw<F>`] | that value and P(draw) under the same play | P(win), P(draw), P(lose) of a game from its start |
//!
//! [`WinDraw`] is a lane of two planes, the value and P(draw): the kernel's maxima compare
//! the value alone, so its choices (and the value itself, bit for bit) are the same as
//! with its scalar `F`, and the draw probability follows them.

use crate::turn::lanes::{Lane, LaneValue};

/// A lane type for two-player values.
pub trait DuelValue: LaneValue {
    /// No chance at all (a buffer's initial value).
    const NOTHING: Self;
    /// A game the mover has won.
    const WIN: Self;
    /// A drawn game.
    const DRAW: Self;
    /// A game the mover has lost.
    const LOSS: Self;
    /// The same position seen by the other player: value `1 − v`, draws unchanged.
    fn flip(self) -> Self;
    /// P(win) + ½ P(draw) of the mover.
    fn value(self) -> f64;
    /// Whether the lane carries the draw probability: then it is written beside the values
    /// of the last finished layer, so that a resumed solve still knows it.
    const DRAWS: bool;
    /// The draw probability to store (NaN for lanes that carry none).
    fn stored_draw(self) -> f32;
    /// The lane stored numbers stand for: an `f32` P(win) + ½ P(draw), and P(draw) where
    /// it was kept; what was not kept is NaN, so a report shows it is unknown.
    fn from_stored(value: f32, draw: Option<f32>) -> Self;
}

macro_rules! scalar_duel_value {
    ($($float:ty),*) => {$(
        impl DuelValue for $float {
            const NOTHING: $float = 0.0;
            const WIN: $float = 1.0;
            const DRAW: $float = 0.5;
            const LOSS: $float = 0.0;
            #[inline(always)]
            fn flip(self) -> $float {
                1.0 - self
            }
            fn value(self) -> f64 {
                self as f64
            }
            const DRAWS: bool = false;
            fn stored_draw(self) -> f32 {
                f32::NAN
            }
            fn from_stored(value: f32, _: Option<f32>) -> $float {
                value as $float
            }
        }
    )*};
}
scalar_duel_value!(f32, f64);

/// The mover's value with the probability of a draw under the play that value implies.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct WinDraw<F> {
    /// P(win) + ½ P(draw).
    pub value: F,
    /// P(draw).
    pub draw: F,
}

impl<F: DuelValue + Lane> WinDraw<F> {
    /// P(win) = value − ½ P(draw).
    pub fn win(self) -> f64 {
        self.value.value() - 0.5 * self.draw.value()
    }

    /// P(draw).
    pub fn draw(self) -> f64 {
        self.draw.value()
    }

    /// P(lose) = 1 − value − ½ P(draw).
    pub fn loss(self) -> f64 {
        1.0 - self.value.value() - 0.5 * self.draw.value()
    }
}

/// The value in plane 0, where the kernel's maxima compare, and P(draw) following it.
impl<F: DuelValue + Lane> LaneValue for WinDraw<F> {
    type Number = F;
    const PLANES: usize = 2;
    #[inline(always)]
    fn plane(self, plane: usize) -> F {
        if plane == 0 { self.value } else { self.draw }
    }
    #[inline(always)]
    fn from_planes(number: impl Fn(usize) -> F) -> WinDraw<F> {
        WinDraw { value: number(0), draw: number(1) }
    }
}

impl<F: DuelValue + Lane> DuelValue for WinDraw<F> {
    const NOTHING: WinDraw<F> = WinDraw { value: F::NOTHING, draw: F::NOTHING };
    const WIN: WinDraw<F> = WinDraw { value: F::WIN, draw: F::NOTHING };
    const DRAW: WinDraw<F> = WinDraw { value: F::DRAW, draw: F::WIN };
    const LOSS: WinDraw<F> = WinDraw { value: F::LOSS, draw: F::NOTHING };
    #[inline(always)]
    fn flip(self) -> WinDraw<F> {
        WinDraw { value: self.value.flip(), draw: self.draw }
    }
    fn value(self) -> f64 {
        self.value.value()
    }
    const DRAWS: bool = true;
    fn stored_draw(self) -> f32 {
        self.draw.value() as f32
    }
    fn from_stored(value: f32, draw: Option<f32>) -> WinDraw<F> {
        let draw = draw.map_or(f64::NAN, f64::from);
        WinDraw { value: F::from_stored(value, None), draw: F::from_f64(draw) }
    }
}

// SAFETY: `repr(C)` with two fields of the same plain type: no padding, any bits valid.
unsafe impl<F: bytemuck::Zeroable> bytemuck::Zeroable for WinDraw<F> {}
// SAFETY: as above; `F: Pod` is `Copy + 'static` with every bit pattern valid.
unsafe impl<F: bytemuck::Pod> bytemuck::Pod for WinDraw<F> {}
