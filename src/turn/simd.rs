//! Runs the lane loops with the widest vector instructions the CPU offers.
//!
//! The default build targets baseline x86-64 (two `f64` per instruction) so that one
//! binary runs on every node of a cluster. [`dispatch`] checks the CPU and runs a
//! [`SimdWork`] through a copy compiled for AVX-512 or AVX2. Its `run` and the kernel's
//! phases are `#[inline(always)]`, so they are compiled into each copy (a closure would
//! not be: it stays one function compiled for the baseline). Rust never contracts `a + b *
//! c` into a fused multiply-add, and the kernel's one use of it is an exact sum (a multiply
//! by one, `register::Register::add_on_multipliers`), so every path gives bit-identical results.

use std::sync::LazyLock;

/// Vector instruction sets the lane loops are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum InstructionSet {
    /// Baseline x86-64 (SSE2) or any other architecture.
    Baseline,
    /// 256-bit AVX2.
    Avx2,
    /// 512-bit AVX-512F.
    Avx512,
}

/// The set [`dispatch`] uses: the widest the CPU has; `YZ_SIMD=baseline|avx2|avx512`
/// overrides (a set the CPU lacks falls back to the widest it has). On the AMD EPYC (Zen 5)
/// machine of `docs/benchmarks.md`, AVX-512 runs the two-player turn's tiles 1.2-1.5 times
/// as fast as AVX2 and the solitaire solve as fast (0.19 s against 0.20 s); on Zen 4, which
/// splits 512-bit instructions in two, the solitaire solve took 270 ms with it against
/// 245 ms with AVX2.
pub static INSTRUCTION_SET: LazyLock<InstructionSet> = LazyLock::new(|| {
    let widest = widest_supported();
    requested().ok().flatten().unwrap_or(widest).min(widest)
});

/// The set `YZ_SIMD` asks for (none when unset or empty), or why its value names none; the
/// command line checks it first, so that a typo on a cluster node is an error, not a
/// silent fallback.
pub fn requested() -> Result<Option<InstructionSet>, String> {
    match std::env::var("YZ_SIMD") {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Ok(value) => match value.as_str() {
            "" => Ok(None),
            "baseline" => Ok(Some(InstructionSet::Baseline)),
            "avx2" => Ok(Some(InstructionSet::Avx2)),
            "avx512" => Ok(Some(InstructionSet::Avx512)),
            other => Err(format!(
                "YZ_SIMD={} names no instruction set; expected baseline, avx2 or avx512",
                crate::quote::quote(other)
            )),
        },
        Err(std::env::VarError::NotUnicode(value)) => {
            Err(format!("YZ_SIMD={value:?} names no instruction set; expected baseline, avx2 or avx512"))
        }
    }
}

fn widest_supported() -> InstructionSet {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return InstructionSet::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return InstructionSet::Avx2;
        }
    }
    InstructionSet::Baseline
}

/// A piece of lane work to compile once per instruction set. Mark `run` `#[inline(always)]`.
pub trait SimdWork {
    /// What the work returns.
    type Output;
    /// Does the work.
    fn run(self) -> Self::Output;
}

/// Runs `work` compiled for the widest vector unit available.
#[inline(always)]
pub fn dispatch<W: SimdWork>(work: W) -> W::Output {
    #[cfg(target_arch = "x86_64")]
    match *INSTRUCTION_SET {
        // SAFETY: INSTRUCTION_SET names only a set the CPU was detected to support.
        InstructionSet::Avx512 => return unsafe { with_avx512(work) },
        // SAFETY: as above.
        InstructionSet::Avx2 => return unsafe { with_avx2(work) },
        InstructionSet::Baseline => {}
    }
    work.run()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn with_avx512<W: SimdWork>(work: W) -> W::Output {
    work.run()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn with_avx2<W: SimdWork>(work: W) -> W::Output {
    work.run()
}
