//! The two-player turn on an NVIDIA GPU (feature `gpu`): the CPU kernel's function for `f32`
//! lanes without draws, bit for bit, one thread block per 64-lane strip of a pair.
//!
//! | file | what it holds |
//! |---|---|
//! | `turn.cu` | the kernel: the scoring step (each roll's best box, reading the successor pairs of the next layer on the device), the two rerolls and the start value, in the CPU's order of operations |
//! | [`batch`] | the kernel's inputs, flat: edge tables, scoring plans, bounds, one job per strip |
//! | [`host`] | `turn.cu` built for the host with `shim.h`: the kernel's logic tested on the CPU |
//! | [`device`] | the kernel on the GPU through cudarc (the driver, loaded at run time) |
//! | [`rate`] | the GPU's rate on sampled pairs of each layer, for `yz duel plan --gpu` |
//!
//! **Why it is exact.** Lanes never interact, and each lane runs the CPU's operations in
//! the CPU's order: the same reads of the successor rows (the decided values outside a
//! window, the window's ends clamped), the same maxima with ties to the earlier candidate,
//! sums of six in the same order then the scale by 1/6 rounded to `f32`, each roll's
//! probability rounded to `f32`, and no fused multiply-add (`__fadd_rn`, `__fmul_rn`;
//! the host build uses `-ffp-contract=off`). Keeps of one size are independent in both
//! phases, so splitting them over threads changes no operation.
//!
//! **Layout** (as the prototype measured for issue 41): 16 warps per block, the 462 lane
//! vectors of a strip in shared memory (118 KB), the edge tables in constant memory, a
//! barrier between keep sizes.
//!
//! **Launches.** A tile goes through the GPU in launches of at most 4,096 movers and 2^28
//! positions ([`batch::batches`]), each with its own flat inputs; the next layer's rows
//! stay on the device for the whole tile. The host prepares a launch while none runs.
//! Solves in memory and streamed solves both run their tiles here, one GPU per rank;
//! where a tile's next rows exceed half the GPU's free memory, the sweep's kernel hands
//! them over a run of opponents at a time (`crate::duel::sweep`'s `Kernel`).
//!
//! **Building.** `build.rs` compiles `turn.cu` with NVRTC at build time (from the PyPI
//! package `nvidia-cuda-nvrtc-cu12`, or `YZ_NVRTC`): a cubin for sm_90 and PTX for
//! compute capability 8.0 on, both embedded, so running needs only the driver.

pub mod batch;
pub mod device;
pub mod host;

pub use batch::Phases;
pub use device::{DeviceRows, Gpu, GpuError};
pub use host::solve_tile_on_host;
