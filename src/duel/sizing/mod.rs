//! Sizing a two-player solve before it runs: the positions of each layer counted exactly
//! ([`count`]), each layer's solve rate measured on a sample of its pairs ([`calibrate`],
//! and on a GPU, `gpu_rate`), memory, traffic, disk and core-hours planned ([`plan`],
//! [`costs`], [`disk`]), whether it fits its ranks' memory and what would ([`fit`]), the
//! whole estimate of a solve ([`estimate`]), a rank's real structures built without values
//! to measure them ([`rehearse`]), a solve's options checked and sized ([`setup`]), and the
//! Slurm job that runs it ([`job`]).

pub mod calibrate;
pub mod costs;
pub mod count;
pub mod disk;
pub mod estimate;
pub mod fit;
#[cfg(feature = "gpu")]
pub mod gpu_rate;
pub mod job;
pub mod plan;
pub mod rehearse;
pub mod setup;
