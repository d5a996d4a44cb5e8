//! Lane vectors: the value of a state as a slice of independent lanes.
//!
//! Every solver's value is a vector of `L` numbers whose lanes never interact inside a
//! turn (the upper total, a target score, a score difference). The turn only ever needs
//! the lane-wise operations below; written as plain loops over equal-length slices, they
//! compile to SIMD instructions.
//!
//! **Planes.** A lane may hold more than one number: a two-player value carries P(draw)
//! beside the winning chance, and the draw follows the winning chance's choices. Such a
//! lane ([`LaneValue`] with `PLANES > 1`) is stored as planes: a vector of `n` lanes is
//! `PLANES` runs of `n` numbers, plane 0 (the number every maximum compares) first. Sums
//! and scalings then run over all planes as one plain slice, and a maximum compares plane
//! 0 and selects the same lane in the other planes: two vector operations more per
//! candidate, where interleaved pairs did not vectorise at all.

use std::ops::{Add, Mul};

use super::register::RegisterWork;

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
    /// `if take { a } else { b }`, as bit masks: it compiles to a vector blend, where a
    /// plain `if` on a comparison became a branch per lane.
    fn select(take: bool, a: Self, b: Self) -> Self;
    /// Runs `work` with this number's registers of the instruction set in use
    /// ([`super::register`]), compiled once per set and work type.
    fn with_registers<K: RegisterWork<Self>>(work: K) -> K::Output;
}

macro_rules! float_lane {
    ($($float:ty: $bits:ty, $registers:ident),*) => {$(
        impl Lane for $float {
            const ZERO: $float = 0.0;
            fn from_f64(x: f64) -> $float {
                x as $float
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn select(take: bool, a: $float, b: $float) -> $float {
                let mask = (take as $bits).wrapping_neg();
                <$float>::from_bits((a.to_bits() & mask) | (b.to_bits() & !mask))
            }
            #[inline(always)]
            fn with_registers<K: RegisterWork<$float>>(work: K) -> K::Output {
                super::register::$registers(work)
            }
        }
    )*};
}
float_lane!(f32: u32, with_f32_registers, f64: u64, with_f64_registers);

/// Most planes a [`LaneValue`] may have.
pub const MAX_PLANES: usize = 2;

/// What one lane of a turn holds: a plain number, or a number that decides every maximum
/// with others that follow its choices, stored as planes (see the module docs).
pub trait LaneValue: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// The number each plane holds.
    type Number: Lane;
    /// Planes per lane, 1 to [`MAX_PLANES`]: 1 for a plain number.
    const PLANES: usize;
    /// The lane's number in plane `plane`.
    fn plane(self, plane: usize) -> Self::Number;
    /// The lane whose plane `p` holds `number(p)`.
    fn from_planes(number: impl Fn(usize) -> Self::Number) -> Self;
}

impl<T: Lane> LaneValue for T {
    type Number = T;
    const PLANES: usize = 1;
    #[inline(always)]
    fn plane(self, _: usize) -> T {
        self
    }
    #[inline(always)]
    fn from_planes(number: impl Fn(usize) -> T) -> T {
        number(0)
    }
}

/// Writes `values` as planes to `planes` (`T::PLANES` times as long once written): plane
/// `p` of lane `i` goes to `planes[p * values.len() + i]`.
#[inline(always)]
pub fn split_planes<T: LaneValue>(values: impl ExactSizeIterator<Item = T>, planes: &mut Vec<T::Number>) {
    let n = values.len();
    planes.clear();
    planes.resize(n * T::PLANES, T::Number::ZERO);
    let (first, follower) = planes.split_at_mut(n);
    let mut follower = follower.iter_mut();
    for (number, value) in first.iter_mut().zip(values) {
        *number = value.plane(0);
        if let Some(next) = follower.next() {
            *next = value.plane(1);
        }
    }
}

/// Asks the core to bring `values` into its L2 cache ahead of their use, a cache line at
/// a time; a hint that changes nothing else, and nothing where the target has no such
/// instruction. Lines already cached cost a few cycles each.
#[inline(always)]
pub fn prefetch_to_l2<T>(values: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
        const LINE: usize = 64;
        let start = values.as_ptr().cast::<i8>();
        // From the line holding the first value to the one holding the last.
        let skew = start as usize % LINE;
        let first_line = start.wrapping_sub(skew);
        for offset in (0..skew + std::mem::size_of_val(values)).step_by(LINE) {
            // SAFETY: every x86-64 CPU has SSE, and a prefetch reads nothing and never
            // faults (each address lies on a line of `values` besides).
            unsafe { _mm_prefetch::<_MM_HINT_T1>(first_line.wrapping_add(offset)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = values;
}

/// Reads lanes back from planes as [`split_planes`] writes them: the first `values.len()`
/// lanes of `T::PLANES` planes of `planes.len() / T::PLANES` numbers each.
pub fn join_planes<T: LaneValue>(planes: &[T::Number], values: &mut [T]) {
    let stride = planes.len() / T::PLANES;
    assert!(planes.len() == stride * T::PLANES && values.len() <= stride, "a plane per number of the lane");
    for (i, value) in values.iter_mut().enumerate() {
        *value = T::from_planes(|p| planes[p * stride + i]);
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

/// Runs `op` over the lanes `0..n` of a vector of `T` in wide steps, then in steps of
/// [`BLOCK`] lanes, and returns where the scalar tail starts. A wide step finds each row's
/// lanes once for several vectors: with one vector per step, finding them cost more than
/// the maxima (the sampled full-game layers ran 1.4 times faster with 64-lane `f32` steps).
/// The width is 64 lanes of one `f32` plane (eight AVX2 registers of accumulators) and 16
/// lanes of 8 bytes (32 `f64` lanes spilled the SSE2 registers: the baseline `f64` turn
/// took 1.4 times as long); two `f32` planes take 16 lanes too (see `benches/duel.rs`).
#[inline(always)]
fn in_steps<T: LaneValue>(n: usize, op: &mut impl Step) -> usize {
    #[inline(always)]
    fn steps<const W: usize>(n: usize, start: &mut usize, op: &mut impl Step) {
        while *start + W <= n {
            op.step::<W>(*start);
            *start += W;
        }
    }
    let mut start = 0;
    match T::PLANES * std::mem::size_of::<T::Number>() {
        4 => steps::<{ 8 * BLOCK }>(n, &mut start, op),
        8 => steps::<{ 2 * BLOCK }>(n, &mut start, op),
        _ => {}
    }
    steps::<BLOCK>(n, &mut start, op);
    start
}

/// `if b > a { b } else { a }` on plane 0, the same choice on the follower plane: the
/// maximum of two lanes of a two-plane vector (ties keep `a`).
#[inline(always)]
fn follow_max<N: Lane>(a: &mut N, a_follower: &mut N, b: N, b_follower: N) {
    let take = b > *a;
    *a = N::select(take, b, *a);
    *a_follower = N::select(take, b_follower, *a_follower);
}

/// One candidate of [`max_of_plus`]: lane `i` of plane `p` is `row[p * stride + i]`, and
/// `add` is added to plane 0 (points scored; followers are carried as they are).
#[derive(Clone, Copy, Debug)]
pub struct Candidate<'a, N> {
    /// The candidate's planes, from the first lane used.
    pub row: &'a [N],
    /// Numbers between planes.
    pub stride: usize,
    /// Added to plane 0.
    pub add: N,
}

impl<N: Lane> Candidate<'_, N> {
    /// No candidate: a placeholder for fixed-size arrays of them.
    pub const NONE: Candidate<'static, N> = Candidate { row: &[], stride: 0, add: N::ZERO };
}

/// `dst[i] = max over candidates (row, add) of row[i] + add` for a vector of `T` (planes:
/// the module docs), each step's lanes kept in registers while every candidate is read
/// once; ties keep the earlier candidate.
///
/// # Panics
/// If `terms` is empty or a row is too short for `dst`.
#[inline(always)]
pub fn max_of_plus<T: LaneValue>(dst: &mut [T::Number], terms: &[Candidate<T::Number>]) {
    struct MaxOfPlus<'a, 'b, T: LaneValue> {
        dst: &'a mut [T::Number],
        n: usize,
        terms: &'a [Candidate<'b, T::Number>],
    }
    impl<T: LaneValue> Step for MaxOfPlus<'_, '_, T> {
        #[inline(always)]
        fn step<const W: usize>(&mut self, start: usize) {
            let first = self.terms[0];
            let row = &first.row[start..start + W];
            let mut acc: [T::Number; W] = std::array::from_fn(|k| row[k] + first.add);
            if T::PLANES == 1 {
                for c in &self.terms[1..] {
                    let row = &c.row[start..start + W];
                    for k in 0..W {
                        acc[k] = lane_max(acc[k], row[k] + c.add);
                    }
                }
            } else {
                let at = start + first.stride;
                let first_follower = &first.row[at..at + W];
                let mut follow: [T::Number; W] = std::array::from_fn(|k| first_follower[k]);
                for c in &self.terms[1..] {
                    let at = start + c.stride;
                    let (row, row_follower) = (&c.row[start..start + W], &c.row[at..at + W]);
                    for k in 0..W {
                        follow_max(&mut acc[k], &mut follow[k], row[k] + c.add, row_follower[k]);
                    }
                }
                self.dst[self.n + start..self.n + start + W].copy_from_slice(&follow);
            }
            self.dst[start..start + W].copy_from_slice(&acc);
        }
    }
    let n = dst.len() / T::PLANES;
    let tail = in_steps::<T>(n, &mut MaxOfPlus::<T> { dst: &mut *dst, n, terms });
    for i in tail..n {
        let first = terms[0];
        let (mut best, mut best_follower) = (first.row[i] + first.add, first.row[first.stride * (T::PLANES - 1) + i]);
        for c in &terms[1..] {
            follow_max(&mut best, &mut best_follower, c.row[i] + c.add, c.row[c.stride * (T::PLANES - 1) + i]);
        }
        dst[i] = best;
        if T::PLANES == 2 {
            dst[n + i] = best_follower;
        }
    }
}

/// `dst[i] = max(dst[i], max over sources of src[i])` for vectors of `T`, step by step like
/// [`max_of_plus`]; ties keep the earlier.
#[inline(always)]
pub fn max_assign_many<T: LaneValue>(dst: &mut [T::Number], sources: &[&[T::Number]]) {
    struct MaxAssign<'a, 'b, T: LaneValue> {
        dst: &'a mut [T::Number],
        n: usize,
        sources: &'a [&'b [T::Number]],
    }
    impl<T: LaneValue> Step for MaxAssign<'_, '_, T> {
        #[inline(always)]
        fn step<const W: usize>(&mut self, start: usize) {
            let n = self.n;
            let block = &self.dst[start..start + W];
            let mut acc: [T::Number; W] = std::array::from_fn(|k| block[k]);
            if T::PLANES == 1 {
                for src in self.sources {
                    let src = &src[start..start + W];
                    for k in 0..W {
                        acc[k] = lane_max(acc[k], src[k]);
                    }
                }
            } else {
                let block = &self.dst[n + start..n + start + W];
                let mut follow: [T::Number; W] = std::array::from_fn(|k| block[k]);
                for src in self.sources {
                    let (src, src_follower) = (&src[start..start + W], &src[n + start..n + start + W]);
                    for k in 0..W {
                        follow_max(&mut acc[k], &mut follow[k], src[k], src_follower[k]);
                    }
                }
                self.dst[n + start..n + start + W].copy_from_slice(&follow);
            }
            self.dst[start..start + W].copy_from_slice(&acc);
        }
    }
    let n = dst.len() / T::PLANES;
    let tail = in_steps::<T>(n, &mut MaxAssign::<T> { dst: &mut *dst, n, sources });
    let follower = n * (T::PLANES - 1);
    for i in tail..n {
        let (mut best, mut best_follower) = (dst[i], dst[follower + i]);
        for src in sources {
            follow_max(&mut best, &mut best_follower, src[i], src[follower + i]);
        }
        if T::PLANES == 2 {
            dst[n + i] = best_follower;
        }
        dst[i] = best;
    }
}

/// `dst[i] += weight · src[i]`, over every plane alike.
#[inline(always)]
pub fn add_scaled<T: Lane>(dst: &mut [T], src: &[T], weight: T) {
    zip_blocks(dst, src, |d, s| d + weight * s);
}

/// `dst[i] = (a[i] + b[i] + c[i] + d[i] + e[i] + f[i]) · scale`, summed in that order, over
/// every plane alike.
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

    fn plain<N: Lane>(row: &[N], add: N) -> Candidate<'_, N> {
        Candidate { row, stride: row.len(), add }
    }

    #[test]
    fn lane_ops_on_odd_lengths() {
        let mut dst = vec![1.0f32, 5.0, -2.0];
        max_of_plus::<f32>(&mut dst, &[plain(&[0.5, 0.5, 0.5], 1.0), plain(&[1.0, 5.0, -2.0], 0.0)]);
        assert_eq!(dst, vec![1.5, 5.0, 1.5]);
        max_assign_many::<f32>(&mut dst, &[&[2.0, 0.0, 0.0], &[0.0, 0.0, 1.0]]);
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
        max_of_plus::<f64>(&mut blocked, &[plain(&long, 0.0), plain(&reversed, 0.5)]);
        let scalar: Vec<f64> = (0..19).map(|i| f64::max(i as f64, (18 - i) as f64 + 0.5)).collect();
        assert_eq!(blocked, scalar);
    }

    #[test]
    fn wide_steps_match_lane_by_lane_maxima() {
        fn check<T: Lane>() {
            let rows: Vec<Vec<T>> =
                (0..4).map(|r| (0..150).map(|i| T::from_f64(((i * 37 + r * 11) % 23) as f64)).collect()).collect();
            let mut dst = rows[0].clone();
            max_assign_many::<T>(&mut dst, &[&rows[1], &rows[2]]);
            let mut plus = vec![T::ZERO; 150];
            max_of_plus::<T>(&mut plus, &[plain(&rows[1], T::from_f64(0.5)), plain(&rows[3], T::ZERO)]);
            for i in 0..150 {
                assert_eq!(dst[i], lane_max(lane_max(rows[0][i], rows[1][i]), rows[2][i]), "{i}");
                assert_eq!(plus[i], lane_max(rows[1][i] + T::from_f64(0.5), rows[3][i]), "{i}");
            }
        }
        check::<f32>();
        check::<f64>();
    }

    /// A two-plane lane for the tests: a value and a tag that follows its choices.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Tagged {
        value: f32,
        tag: f32,
    }

    impl LaneValue for Tagged {
        type Number = f32;
        const PLANES: usize = 2;
        fn plane(self, plane: usize) -> f32 {
            [self.value, self.tag][plane]
        }
        fn from_planes(number: impl Fn(usize) -> f32) -> Tagged {
            Tagged { value: number(0), tag: number(1) }
        }
    }

    /// Two planes against the same maxima lane by lane: plane 0 equals the one-plane
    /// result bit for bit, and the follower is the tag of the candidate that won, the
    /// earlier one on ties, for lengths with wide steps, block steps and a scalar tail.
    #[test]
    fn a_follower_plane_takes_the_winners_number() {
        for n in [3, 8, 29, 150] {
            // Values with many ties (11 distinct), tags naming the candidate and the lane.
            let candidates: Vec<Vec<Tagged>> = (0..5)
                .map(|r| {
                    (0..n).map(|i| Tagged { value: ((i * 7 + r * 3) % 11) as f32, tag: (100 * r + i) as f32 }).collect()
                })
                .collect();
            let split = |values: &[Tagged]| {
                let mut planes = Vec::new();
                split_planes(values.iter().copied(), &mut planes);
                planes
            };
            let planar: Vec<Vec<f32>> = candidates.iter().map(|c| split(c)).collect();
            let reference = |adds: &[f32]| -> Vec<Tagged> {
                (0..n)
                    .map(|i| {
                        let mut best = Tagged { value: candidates[0][i].value + adds[0], ..candidates[0][i] };
                        for (c, &add) in candidates.iter().zip(adds).skip(1) {
                            if c[i].value + add > best.value {
                                best = Tagged { value: c[i].value + add, ..c[i] };
                            }
                        }
                        best
                    })
                    .collect()
            };
            let adds = [0.0, 1.0, 0.0, 2.0, 0.0];
            let terms: Vec<Candidate<f32>> =
                planar.iter().zip(adds).map(|(row, add)| Candidate { row, stride: n, add }).collect();
            let mut dst = vec![0.0; 2 * n];
            max_of_plus::<Tagged>(&mut dst, &terms);
            let mut joined = vec![Tagged { value: 0.0, tag: 0.0 }; n];
            join_planes(&dst, &mut joined);
            assert_eq!(joined, reference(&adds), "max_of_plus, {n} lanes");
            let mut one_plane = vec![0.0; n];
            let values: Vec<Vec<f32>> = candidates.iter().map(|c| c.iter().map(|t| t.value).collect()).collect();
            let plain_terms: Vec<Candidate<f32>> = values.iter().zip(adds).map(|(row, add)| plain(row, add)).collect();
            max_of_plus::<f32>(&mut one_plane, &plain_terms);
            assert!(one_plane.iter().zip(&joined).all(|(a, b)| a.to_bits() == b.value.to_bits()));

            let mut dst = planar[0].clone();
            let sources: Vec<&[f32]> = planar[1..].iter().map(Vec::as_slice).collect();
            max_assign_many::<Tagged>(&mut dst, &sources);
            join_planes(&dst, &mut joined);
            assert_eq!(joined, reference(&[0.0; 5]), "max_assign_many, {n} lanes");
        }
    }
}
