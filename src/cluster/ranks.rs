//! The few collective operations the cluster solve needs, over MPI or within one process.

/// A group of ranks that run the same solve and talk in collective operations, each
/// called by every rank in the same order.
pub trait Ranks {
    /// This rank, from 0.
    fn rank(&self) -> usize;
    /// How many ranks.
    fn size(&self) -> usize;
    /// Sends `outgoing[r]` to rank `r` (this rank's own entry is left out, empty) and returns
    /// what each rank sent to this one.
    fn all_to_all(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, String>;
    /// Every rank's `bytes` on rank 0, by rank; empty on the others.
    fn gather(&self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>, String>;
    /// Rank 0's `bytes` on every rank (the others' `bytes` are ignored).
    fn broadcast(&self, bytes: Vec<u8>) -> Result<Vec<u8>, String>;
}

/// One process alone: the plain solve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Alone;

impl Ranks for Alone {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn all_to_all(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, String> {
        Ok(outgoing)
    }
    fn gather(&self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>, String> {
        Ok(vec![bytes])
    }
    fn broadcast(&self, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
        Ok(bytes)
    }
}

/// Ranks as threads of one process, talking over channels: runs the distributed solve's
/// partition and exchange at any rank count without MPI (for tests).
#[cfg(test)]
pub mod threads {
    use crossbeam_channel::{Receiver, Sender, unbounded};

    /// One rank of a group of threads.
    pub struct ThreadRank {
        rank: usize,
        to: Vec<Sender<Vec<u8>>>,
        from: Vec<Receiver<Vec<u8>>>,
    }

    /// A group of `size` ranks, one per thread to hand them to.
    pub fn group(size: usize) -> Vec<ThreadRank> {
        // channels[a][b]: from rank a to rank b.
        type Channel = (Sender<Vec<u8>>, Receiver<Vec<u8>>);
        let channels: Vec<Vec<Channel>> = (0..size).map(|_| (0..size).map(|_| unbounded()).collect()).collect();
        (0..size)
            .map(|rank| ThreadRank {
                rank,
                to: (0..size).map(|b| channels[rank][b].0.clone()).collect(),
                from: (0..size).map(|a| channels[a][rank].1.clone()).collect(),
            })
            .collect()
    }

    impl super::Ranks for ThreadRank {
        fn rank(&self) -> usize {
            self.rank
        }
        fn size(&self) -> usize {
            self.to.len()
        }
        fn all_to_all(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, String> {
            for (to, bytes) in self.to.iter().zip(outgoing) {
                to.send(bytes).map_err(|e| e.to_string())?;
            }
            self.from.iter().map(|from| from.recv().map_err(|e| e.to_string())).collect()
        }
        fn gather(&self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>, String> {
            self.to[0].send(bytes).map_err(|e| e.to_string())?;
            if self.rank != 0 {
                return Ok(Vec::new());
            }
            self.from.iter().map(|from| from.recv().map_err(|e| e.to_string())).collect()
        }
        fn broadcast(&self, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
            if self.rank == 0 {
                for to in &self.to {
                    to.send(bytes.clone()).map_err(|e| e.to_string())?;
                }
            }
            self.from[0].recv().map_err(|e| e.to_string())
        }
    }
}
