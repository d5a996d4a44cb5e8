//! Vector registers of lanes, one type per instruction set and number type, and the
//! dispatch that runs register code compiled for the widest set the CPU has.
//!
//! The tiled turn's keep graph (`keep_graph.rs`) is straight-line code of about 1,300
//! operations per phase. Written over plain arrays of lanes, LLVM first turns each lane
//! loop into scalars and then vectorizes them again: a minute of compile time per copy,
//! and any lane the vectorizer gives up on stays scalar. Written over these registers it
//! is vector code from the start: a second per copy, one instruction per operation.
//!
//! Each operation is the lane-wise one of the plain loops (IEEE add and multiply, no fused
//! multiply-add but the exact sum [`Register::add_on_multipliers`]; [`Register::max`] is the
//! lane loops' `lane_max`), so register code gives the plain code's values bit for bit.

/// A register of [`Register::LANES`] numbers of type `N` and the operations the keep graph
/// uses, each lane by lane.
pub trait Register<N>: Copy {
    /// Numbers in one register.
    const LANES: usize;
    /// The `LANES` numbers from `from` on.
    ///
    /// # Safety
    /// `from` points to `LANES` numbers that may be read.
    unsafe fn load(from: *const N) -> Self;
    /// Writes the register to the `LANES` numbers from `to` on.
    ///
    /// # Safety
    /// `to` points to `LANES` numbers that may be written.
    unsafe fn store(self, to: *mut N);
    /// `value` in every lane.
    fn splat(value: N) -> Self;
    /// `self + other`.
    fn add(self, other: Self) -> Self;
    /// `self + other` bit for bit, run on the multiply-add units on AVX-512 (elsewhere a
    /// plain add): `fma(other, one, self)` with `one` 1.0 in every lane rounds `other · 1 +
    /// self` once, which is the sum's one rounding, signed zeros included. On Zen 4, adds
    /// and maxima share two pipes and multiplies and multiply-adds have two others, so a
    /// phase of sums can keep both busy. `one` must come from outside the code
    /// (`std::hint::black_box`), or LLVM turns the multiply-add back into an add. (On AVX2
    /// the keep graph's average phase runs in two passes per tile and gained nothing.)
    fn add_on_multipliers(self, other: Self, one: Self) -> Self {
        let _ = one;
        self.add(other)
    }
    /// `self · other`.
    fn mul(self, other: Self) -> Self;
    /// `if other > self { other } else { self }`, as the lane loops' `lane_max`.
    fn max(self, other: Self) -> Self;
}

/// Code generic over the register type, run by `Lane::with_registers` with the registers
/// of the instruction set in use.
pub trait RegisterWork<N> {
    /// What the work returns.
    type Output;
    /// Does the work with registers `R`. Mark it `#[inline(always)]`: it must be compiled
    /// into the function that enables the instruction set (`Lane::with_registers`).
    fn run<R: Register<N>>(self) -> Self::Output;
}

/// Runs `work` with registers `Z`, `Y` or `X` (AVX-512, AVX2, baseline), as
/// [`super::simd::INSTRUCTION_SET`] says, each in a function of its own compiled for its
/// set: not inlined into the caller, so that a large kernel is compiled once per set and
/// work type, not again in every caller's SIMD copy.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn dispatch<N, Z: Register<N>, Y: Register<N>, X: Register<N>, K: RegisterWork<N>>(work: K) -> K::Output {
    use super::simd::{INSTRUCTION_SET, InstructionSet};
    match *INSTRUCTION_SET {
        // SAFETY: INSTRUCTION_SET names only a set the CPU was detected to support.
        InstructionSet::Avx512 => unsafe { run_avx512::<N, Z, K>(work) },
        // SAFETY: as above.
        InstructionSet::Avx2 => unsafe { run_avx2::<N, Y, K>(work) },
        InstructionSet::Baseline => run_baseline::<N, X, K>(work),
    }
}

/// Runs `work` with one number per register where no vector registers are known.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn dispatch<N: Number, K: RegisterWork<N>>(work: K) -> K::Output {
    run_baseline::<N, Scalar<N>, K>(work)
}

#[inline(never)]
fn run_baseline<N, R: Register<N>, K: RegisterWork<N>>(work: K) -> K::Output {
    work.run::<R>()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline(never)]
unsafe fn run_avx512<N, R: Register<N>, K: RegisterWork<N>>(work: K) -> K::Output {
    work.run::<R>()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn run_avx2<N, R: Register<N>, K: RegisterWork<N>>(work: K) -> K::Output {
    work.run::<R>()
}

/// What a register of one number needs of it.
#[cfg(not(target_arch = "x86_64"))]
pub(super) trait Number:
    Copy + PartialOrd + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self>
{
}
#[cfg(not(target_arch = "x86_64"))]
impl<N: Copy + PartialOrd + std::ops::Add<Output = N> + std::ops::Mul<Output = N>> Number for N {}

/// One number as a register of one lane: the portable fallback.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy)]
struct Scalar<N>(N);

#[cfg(not(target_arch = "x86_64"))]
impl<N: Number> Register<N> for Scalar<N> {
    const LANES: usize = 1;
    #[inline(always)]
    unsafe fn load(from: *const N) -> Self {
        // SAFETY: the caller's.
        Scalar(unsafe { from.read() })
    }
    #[inline(always)]
    unsafe fn store(self, to: *mut N) {
        // SAFETY: the caller's.
        unsafe { to.write(self.0) }
    }
    #[inline(always)]
    fn splat(value: N) -> Self {
        Scalar(value)
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Scalar(self.0 + other.0)
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        Scalar(self.0 * other.0)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        Scalar(if other.0 > self.0 { other.0 } else { self.0 })
    }
}

/// An x86-64 register type: its number type, lanes, and the intrinsics of each operation.
/// Values of these types exist only inside [`dispatch`]'s function for their instruction
/// set (no other code names them), so their intrinsics always run on a CPU that has it.
#[cfg(target_arch = "x86_64")]
macro_rules! x86_register {
    ($name:ident($vector:ident): $number:ty, $lanes:expr, $load:ident, $store:ident, $splat:ident, $add:ident, $mul:ident, $max:ident $(, $fma:ident)?) => {
        #[derive(Clone, Copy)]
        pub(super) struct $name(std::arch::x86_64::$vector);

        impl Register<$number> for $name {
            const LANES: usize = $lanes;
            #[inline(always)]
            unsafe fn load(from: *const $number) -> Self {
                // SAFETY: the caller's; the CPU has the set (see the macro).
                $name(unsafe { std::arch::x86_64::$load(from) })
            }
            #[inline(always)]
            unsafe fn store(self, to: *mut $number) {
                // SAFETY: as in `load`.
                unsafe { std::arch::x86_64::$store(to, self.0) }
            }
            #[inline(always)]
            fn splat(value: $number) -> Self {
                // SAFETY: the CPU has the set (see the macro).
                $name(unsafe { std::arch::x86_64::$splat(value) })
            }
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                // SAFETY: as in `splat`.
                $name(unsafe { std::arch::x86_64::$add(self.0, other.0) })
            }
            #[inline(always)]
            fn mul(self, other: Self) -> Self {
                // SAFETY: as in `splat`.
                $name(unsafe { std::arch::x86_64::$mul(self.0, other.0) })
            }
            #[inline(always)]
            fn max(self, other: Self) -> Self {
                // `max(a, b)` is `a > b ? a : b` lane by lane (b on ties): lane_max(self, other).
                // SAFETY: as in `splat`.
                $name(unsafe { std::arch::x86_64::$max(other.0, self.0) })
            }
            $(
            #[inline(always)]
            fn add_on_multipliers(self, other: Self, one: Self) -> Self {
                // SAFETY: as in `splat` (AVX-512F has the fused multiply-add).
                $name(unsafe { std::arch::x86_64::$fma(other.0, one.0, self.0) })
            }
            )?
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Register;

    x86_register!(Zmm32(__m512): f32, 16, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_add_ps, _mm512_mul_ps, _mm512_max_ps, _mm512_fmadd_ps);
    x86_register!(Zmm64(__m512d): f64, 8, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_set1_pd, _mm512_add_pd, _mm512_mul_pd, _mm512_max_pd, _mm512_fmadd_pd);
    x86_register!(Ymm32(__m256): f32, 8, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps, _mm256_add_ps, _mm256_mul_ps, _mm256_max_ps);
    x86_register!(Ymm64(__m256d): f64, 4, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_set1_pd, _mm256_add_pd, _mm256_mul_pd, _mm256_max_pd);
    x86_register!(Xmm32(__m128): f32, 4, _mm_loadu_ps, _mm_storeu_ps, _mm_set1_ps, _mm_add_ps, _mm_mul_ps, _mm_max_ps);
    x86_register!(Xmm64(__m128d): f64, 2, _mm_loadu_pd, _mm_storeu_pd, _mm_set1_pd, _mm_add_pd, _mm_mul_pd, _mm_max_pd);
}

/// Runs `work` with `f32` registers of the instruction set in use (`Lane::with_registers`).
#[inline(always)]
pub(super) fn with_f32_registers<K: RegisterWork<f32>>(work: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    return dispatch::<f32, x86::Zmm32, x86::Ymm32, x86::Xmm32, K>(work);
    #[cfg(not(target_arch = "x86_64"))]
    dispatch::<f32, K>(work)
}

/// Runs `work` with `f64` registers of the instruction set in use (`Lane::with_registers`).
#[inline(always)]
pub(super) fn with_f64_registers<K: RegisterWork<f64>>(work: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    return dispatch::<f64, x86::Zmm64, x86::Ymm64, x86::Xmm64, K>(work);
    #[cfg(not(target_arch = "x86_64"))]
    dispatch::<f64, K>(work)
}
