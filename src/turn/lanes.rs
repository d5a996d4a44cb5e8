//! Lane vectors: the value of a state as a slice of independent lanes.
//!
//! Every solver's value is a vector of `L` numbers whose lanes never interact inside a
//! turn (the upper total, a target score, a score difference). The turn only ever needs
//! the lane-wise operations below; written as plain loops over equal-length slices, they
//! compile to SIMD instructions.

use std::ops::{Add, Mul};

/// A number held in a lane: `f64` for expected scores, `f32` for probabilities.
pub trait Lane:
    Copy + Send + Sync + Default + PartialOrd + Add<Output = Self> + Mul<Output = Self> + std::fmt::Debug + 'static
{
    /// The additive identity.
    const ZERO: Self;
    /// Converts a probability or a number of points.
    fn from_f64(x: f64) -> Self;
    /// Widens to `f64` (for reports).
    fn to_f64(self) -> f64;
}

impl Lane for f64 {
    const ZERO: f64 = 0.0;
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl Lane for f32 {
    const ZERO: f32 = 0.0;
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// The larger of two lanes. Written as a comparison (not `f64::max`) so that it compiles
/// to one vector max instruction; lanes never hold NaN.
#[inline(always)]
pub fn lane_max<T: Lane>(a: T, b: T) -> T {
    if b > a { b } else { a }
}

/// Lanes processed together in the lane loops below: a multiple of every SIMD width in
/// use (8 `f64` or 16 `f32` fill an AVX-512 register). Callers that pad their lane count
/// to a multiple of it skip the scalar tail.
pub const BLOCK: usize = 8;

/// `lanes` rounded up to a whole number of [`BLOCK`]s: the lanes a solver runs for them.
pub const fn padded_lanes(lanes: usize) -> usize {
    lanes.div_ceil(BLOCK) * BLOCK
}

/// Applies `op(dst[i], a[i])` over equal-length slices, `BLOCK` lanes at a time so the
/// compiler emits whole vector instructions, then a scalar tail.
#[inline(always)]
fn zip_blocks<T: Lane>(dst: &mut [T], a: &[T], op: impl Fn(T, T) -> T) {
    let a = &a[..dst.len()];
    let mut dst_blocks = dst.chunks_exact_mut(BLOCK);
    let mut a_blocks = a.chunks_exact(BLOCK);
    for (d, s) in (&mut dst_blocks).zip(&mut a_blocks) {
        for k in 0..BLOCK {
            d[k] = op(d[k], s[k]);
        }
    }
    for (d, &s) in dst_blocks.into_remainder().iter_mut().zip(a_blocks.remainder()) {
        *d = op(*d, s);
    }
}

/// One step of a lane loop: the lanes `start..start + W`, `W` a multiple of [`BLOCK`].
trait Step {
    fn step<const W: usize>(&mut self, start: usize);
}

/// Runs `op` over the lanes `0..n` in wide steps, then in steps of [`BLOCK`] lanes, and
/// returns where the scalar tail starts. A wide step finds each row's lanes once for
/// several vectors: with one vector per step, finding them cost more than the maxima (the
/// sampled full-game layers ran 1.4 times faster with 64-lane `f32` steps). The width is 64
/// lanes of `f32` (eight AVX2 registers of accumulators) and 16 of `f64` (32 spilled the
/// SSE2 registers: the baseline `f64` turn took 1.4 times as long).
#[inline(always)]
fn in_steps<T>(n: usize, op: &mut impl Step) -> usize {
    #[inline(always)]
    fn steps<const W: usize>(n: usize, start: &mut usize, op: &mut impl Step) {
        while *start + W <= n {
            op.step::<W>(*start);
            *start += W;
        }
    }
    let mut start = 0;
    match std::mem::size_of::<T>() {
        4 => steps::<{ 8 * BLOCK }>(n, &mut start, op),
        8 => steps::<{ 2 * BLOCK }>(n, &mut start, op),
        _ => {}
    }
    steps::<BLOCK>(n, &mut start, op);
    start
}

/// `dst[i] = max over terms (row, add) of row[i] + add`: the best of several candidates,
/// each step's lanes kept in registers while every candidate is read once.
///
/// # Panics
/// If `terms` is empty or a row is shorter than `dst`.
#[inline(always)]
pub fn max_of_plus<T: Lane>(dst: &mut [T], terms: &[(&[T], T)]) {
    struct MaxOfPlus<'a, 'b, T> {
        dst: &'a mut [T],
        terms: &'a [(&'b [T], T)],
    }
    impl<T: Lane> Step for MaxOfPlus<'_, '_, T> {
        #[inline(always)]
        fn step<const W: usize>(&mut self, start: usize) {
            let (row, add) = self.terms[0];
            let row = &row[start..start + W];
            let mut acc: [T; W] = std::array::from_fn(|k| row[k] + add);
            for &(row, add) in &self.terms[1..] {
                let row = &row[start..start + W];
                for k in 0..W {
                    acc[k] = lane_max(acc[k], row[k] + add);
                }
            }
            self.dst[start..start + W].copy_from_slice(&acc);
        }
    }
    let n = dst.len();
    let tail = in_steps::<T>(n, &mut MaxOfPlus { dst: &mut *dst, terms });
    for i in tail..n {
        dst[i] = terms.iter().fold(terms[0].0[i] + terms[0].1, |best, &(row, add)| lane_max(best, row[i] + add));
    }
}

/// `dst[i] = max(dst[i], max over sources of src[i])`, step by step like [`max_of_plus`].
#[inline(always)]
pub fn max_assign_many<T: Lane>(dst: &mut [T], sources: &[&[T]]) {
    struct MaxAssign<'a, 'b, T> {
        dst: &'a mut [T],
        sources: &'a [&'b [T]],
    }
    impl<T: Lane> Step for MaxAssign<'_, '_, T> {
        #[inline(always)]
        fn step<const W: usize>(&mut self, start: usize) {
            let block = &mut self.dst[start..start + W];
            let mut acc: [T; W] = std::array::from_fn(|k| block[k]);
            for src in self.sources {
                let src = &src[start..start + W];
                for k in 0..W {
                    acc[k] = lane_max(acc[k], src[k]);
                }
            }
            block.copy_from_slice(&acc);
        }
    }
    let n = dst.len();
    let tail = in_steps::<T>(n, &mut MaxAssign { dst: &mut *dst, sources });
    for i in tail..n {
        dst[i] = sources.iter().fold(dst[i], |best, src| lane_max(best, src[i]));
    }
}

/// `dst[i] += weight · src[i]`.
#[inline(always)]
pub fn add_scaled<T: Lane>(dst: &mut [T], src: &[T], weight: T) {
    zip_blocks(dst, src, |d, s| d + weight * s);
}

/// `dst[i] = (a[i] + b[i] + c[i] + d[i] + e[i] + f[i]) · scale`, summed in that order.
#[inline(always)]
pub fn sum6_scaled<T: Lane>(dst: &mut [T], parts: [&[T]; 6], scale: T) {
    let n = dst.len();
    let [a, b, c, d, e, f] = parts.map(|p| &p[..n]);
    let whole = n - n % BLOCK;
    for start in (0..whole).step_by(BLOCK) {
        let block = start..start + BLOCK;
        let (a, b, c, d, e, f) = (
            &a[block.clone()],
            &b[block.clone()],
            &c[block.clone()],
            &d[block.clone()],
            &e[block.clone()],
            &f[block.clone()],
        );
        let out = &mut dst[block];
        for k in 0..BLOCK {
            out[k] = (a[k] + b[k] + c[k] + d[k] + e[k] + f[k]) * scale;
        }
    }
    for i in whole..n {
        dst[i] = (a[i] + b[i] + c[i] + d[i] + e[i] + f[i]) * scale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_ops_on_odd_lengths() {
        let mut dst = vec![1.0f32, 5.0, -2.0];
        max_of_plus(&mut dst, &[(&[0.5, 0.5, 0.5], 1.0), (&[1.0, 5.0, -2.0], 0.0)]);
        assert_eq!(dst, vec![1.5, 5.0, 1.5]);
        max_assign_many(&mut dst, &[&[2.0, 0.0, 0.0], &[0.0, 0.0, 1.0]]);
        assert_eq!(dst, vec![2.0, 5.0, 1.5]);
        add_scaled(&mut dst, &[1.0, 1.0, 2.0], 0.5);
        assert_eq!(dst, vec![2.5, 5.5, 2.5]);
        let six = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
        let mut out = vec![0.0; 7];
        sum6_scaled(&mut out, [&six; 6], 0.5);
        assert_eq!(out, vec![3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 21.0]);
        let long: Vec<f64> = (0..19).map(f64::from).collect();
        let mut blocked = long.clone();
        let reversed: Vec<f64> = long.iter().rev().copied().collect();
        max_of_plus(&mut blocked, &[(&long, 0.0), (&reversed, 0.5)]);
        let scalar: Vec<f64> = (0..19).map(|i| f64::max(i as f64, (18 - i) as f64 + 0.5)).collect();
        assert_eq!(blocked, scalar);
    }

    #[test]
    fn wide_steps_match_lane_by_lane_maxima() {
        fn check<T: Lane>() {
            let rows: Vec<Vec<T>> =
                (0..4).map(|r| (0..150).map(|i| T::from_f64(((i * 37 + r * 11) % 23) as f64)).collect()).collect();
            let mut dst = rows[0].clone();
            max_assign_many(&mut dst, &[&rows[1], &rows[2]]);
            let mut plus = vec![T::ZERO; 150];
            max_of_plus(&mut plus, &[(&rows[1], T::from_f64(0.5)), (&rows[3], T::ZERO)]);
            for i in 0..150 {
                assert_eq!(dst[i], lane_max(lane_max(rows[0][i], rows[1][i]), rows[2][i]), "{i}");
                assert_eq!(plus[i], lane_max(rows[1][i] + T::from_f64(0.5), rows[3][i]), "{i}");
            }
        }
        check::<f32>();
        check::<f64>();
    }
}
