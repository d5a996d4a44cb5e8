//! The ranks of an MPI job (rsmpi), for builds with the `mpi` feature.
//!
//! Called from the main thread only (`MPI_THREAD_FUNNELED`: rayon and the shard writer
//! never call MPI). Messages are byte buffers, which MPI counts in `int`. A part of an
//! all-to-all may be of any size: it goes in pieces of at most 1 GiB ([`PIECE_BYTES`]), in
//! rounds of point-to-point messages that every rank takes part in ([`Ranks::all_to_all`]),
//! so no count, total or displacement reaches `int`'s limit. The environment variable
//! `YZ_EXCHANGE_PIECE_BYTES` sets another piece size, from 1 to 2³¹ − 1 bytes
//! (`scripts/mpi-check` uses a small one, so that a small game's exchanges take many
//! rounds). Gathers and broadcasts go in rounds too ([`Ranks::gather`], [`Ranks::broadcast`]):
//! rank 0 receives at most 1 GiB in one round of a gather, however many ranks send.
//!
//! Failure never hangs the job: an error on any rank is printed with the rank's number and
//! the job is aborted (`MPI_Abort`) with status 2, and a panic aborts it too.

use std::time::Duration;

use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use mpi::{Count, Rank, Threading};

use super::error::ClusterError;
use super::launch::{self, LaunchMismatch};
use super::ranks::{PIECE_BYTES, Ranks, RanksError};

/// Why the MPI ranks could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// MPI was already initialised, or could not be.
    #[error("MPI could not be initialised (or was initialised twice)")]
    Init,
    /// The launcher started another number of processes than the MPI world holds.
    #[error("rank {rank} of {size}: {mismatch}")]
    Launch {
        /// This rank.
        rank: usize,
        /// The world size.
        size: usize,
        /// What disagrees.
        mismatch: LaunchMismatch,
    },
    /// `YZ_EXCHANGE_PIECE_BYTES` is not a piece size MPI can send.
    #[error("YZ_EXCHANGE_PIECE_BYTES={}: expected a number of bytes from 1 to 2147483647", crate::quote::quote(.0))]
    PieceBytes(String),
}

/// The MPI world: every process of the job, initialised for the life of this value.
pub struct World {
    _universe: Universe,
    world: SimpleCommunicator,
    piece_bytes: usize,
}

impl World {
    /// Initialises MPI, checks that the launcher's task count matches the world
    /// ([`launch::check`]) and reads the piece size (`YZ_EXCHANGE_PIECE_BYTES`), and makes a
    /// panic on this rank abort the whole job.
    pub fn init() -> Result<World, WorldError> {
        let (universe, _) = mpi::initialize_with_threading(Threading::Funneled).ok_or(WorldError::Init)?;
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        launch::check(size, true, |name| std::env::var(name).ok()).map_err(|mismatch| WorldError::Launch {
            rank,
            size,
            mismatch,
        })?;
        let piece_bytes = match std::env::var("YZ_EXCHANGE_PIECE_BYTES") {
            Err(_) => PIECE_BYTES,
            Ok(value) => value.parse::<Count>().ok().filter(|&n| n > 0).ok_or(WorldError::PieceBytes(value))? as usize,
        };
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            report(info);
            eprintln!("yz: rank {rank} of {size} panicked; aborting the MPI job");
            SimpleCommunicator::world().abort(101);
        }));
        Ok(World { _universe: universe, world, piece_bytes })
    }

    /// Passes `result` through when it is good or the job has one rank; otherwise prints
    /// the error with this rank's number and aborts the whole job with status 2 (the other
    /// ranks may be waiting for this one in a collective operation).
    pub fn stop_on_error<T>(&self, result: anyhow::Result<T>) -> anyhow::Result<T> {
        let Err(error) = result else { return result };
        if self.size() == 1 {
            return Err(error);
        }
        let stopped_by_rank_zero =
            matches!(error.downcast_ref::<ClusterError>(), Some(ClusterError::StoppedByRankZero));
        if stopped_by_rank_zero {
            // Rank 0 aborts with the reason; give its message the time to come out first.
            std::thread::sleep(Duration::from_secs(2));
        }
        let chain: Vec<String> = error.chain().map(ToString::to_string).collect();
        eprintln!("error: rank {} of {}: {}", self.rank(), self.size(), chain.join(": "));
        self.world.abort(2)
    }
}

fn count(len: usize) -> Result<Count, RanksError> {
    Count::try_from(len).map_err(|_| RanksError::TooLarge { bytes: len })
}

/// Offsets of consecutive parts of the given sizes.
fn displacements(counts: &[Count]) -> Result<Vec<Count>, RanksError> {
    let mut at = 0usize;
    counts
        .iter()
        .map(|&c| {
            let d = count(at);
            at += c as usize;
            d
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(|d| count(at).map(|_| d))
}

/// A buffer of `len` bytes that is never empty: an empty `Vec`'s dangling pointer is
/// `0x1`, which OpenMPI takes for `MPI_IN_PLACE`.
fn buffer(mut bytes: Vec<u8>, len: usize) -> Vec<u8> {
    bytes.resize(len.max(1), 0);
    bytes
}

fn split(buffer: &[u8], counts: &[Count]) -> Vec<Vec<u8>> {
    let mut at = 0;
    counts
        .iter()
        .map(|&c| {
            let part = buffer[at..at + c as usize].to_vec();
            at += c as usize;
            part
        })
        .collect()
}

impl Ranks for World {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn piece_bytes(&self) -> usize {
        self.piece_bytes
    }

    fn exchange(&self, outgoing: &[&[u8]], incoming: &mut [&mut [u8]]) -> Result<(), RanksError> {
        // Point to point, so that no total counts in `int`; both ends know an empty
        // message, which is left out.
        mpi::request::scope(|scope| {
            let at = |r: usize| self.world.process_at_rank(r as Rank);
            let receives: Vec<_> = (incoming.iter_mut().enumerate())
                .filter(|(_, part)| !part.is_empty())
                .map(|(r, part)| at(r).immediate_receive_into(scope, &mut **part))
                .collect();
            let sends: Vec<_> = (outgoing.iter().enumerate())
                .filter(|(_, part)| !part.is_empty())
                .map(|(r, part)| at(r).immediate_send(scope, *part))
                .collect();
            for request in receives.into_iter().chain(sends) {
                request.wait_without_status();
            }
        });
        Ok(())
    }

    fn gather_round(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, RanksError> {
        let root = self.world.process_at_rank(0);
        let length = count(bytes.len())?;
        let bytes = buffer(bytes.to_vec(), length as usize);
        if self.rank() != 0 {
            root.gather_into(&length);
            root.gather_varcount_into(&bytes[..length as usize]);
            return Ok(Vec::new());
        }
        let mut counts = vec![0 as Count; self.size()];
        root.gather_into_root(&length, &mut counts[..]);
        let displs = displacements(&counts)?;
        let mut received = buffer(Vec::new(), counts.iter().map(|&c| c as usize).sum());
        {
            let mut receive = PartitionMut::new(&mut received[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(&bytes[..length as usize], &mut receive);
        }
        Ok(split(&received, &counts))
    }

    fn broadcast_round(&self, bytes: &mut [u8]) -> Result<(), RanksError> {
        count(bytes.len())?;
        if !bytes.is_empty() {
            self.world.process_at_rank(0).broadcast_into(bytes);
        }
        Ok(())
    }
}
