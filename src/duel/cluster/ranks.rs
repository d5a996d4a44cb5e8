//! The few collective operations the cluster solve needs, over MPI or within one process.

/// Why ranks could not pass bytes between them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RanksError {
    /// Another rank stopped before the operation ended (ranks that run as threads of one
    /// process, as the tests' do; an MPI job aborts instead).
    #[error("another rank stopped before the exchange ended")]
    Stopped,
    /// A message larger than MPI carries in one call.
    #[error("a message of {bytes} bytes is over MPI's 2 GiB limit")]
    TooLarge {
        /// Its size.
        bytes: usize,
    },
}

/// The default size of the pieces an all-to-all sends its parts in: 1 GiB, well under
/// MPI's `int` counts.
pub const PIECE_BYTES: usize = 1 << 30;

/// A group of ranks that run the same solve and talk in collective operations, each
/// called by every rank in the same order.
pub trait Ranks {
    /// This rank, from 0.
    fn rank(&self) -> usize;
    /// How many ranks.
    fn size(&self) -> usize;
    /// The largest piece of a part that [`Ranks::all_to_all`] sends in one round (at least 1).
    fn piece_bytes(&self) -> usize;
    /// One round of an all-to-all: sends `outgoing[r]` to rank `r` and receives what rank `r`
    /// sends this one into `incoming[r]`, whose length both ranks agreed on before.
    fn exchange(&self, outgoing: &[&[u8]], incoming: &mut [&mut [u8]]) -> Result<(), RanksError>;
    /// Sends `outgoing[r]` to rank `r` (this rank's own entry is left out, empty) and returns
    /// what each rank sent to this one.
    ///
    /// Parts of any size arrive whole: after one [`Ranks::exchange`] of their lengths, they
    /// go in rounds of [`Ranks::exchange`] that carry the next piece (at most
    /// [`Ranks::piece_bytes`]) of every part, as many rounds on every rank (as the largest
    /// part anywhere needs), however little it sends.
    fn all_to_all(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, RanksError> {
        // To each rank: the length of its part, and this rank's largest part.
        let largest = outgoing.iter().map(Vec::len).max().unwrap_or(0) as u64;
        let lengths: Vec<[u64; 2]> = outgoing.iter().map(|part| [part.len() as u64, largest]).collect();
        let mut received = vec![[0u64; 2]; self.size()];
        self.exchange(
            &lengths.iter().map(bytemuck::bytes_of).collect::<Vec<_>>(),
            &mut received.iter_mut().map(bytemuck::bytes_of_mut).collect::<Vec<_>>(),
        )?;
        let mut incoming: Vec<Vec<u8>> = received.iter().map(|&[len, _]| vec![0; len as usize]).collect();
        let largest = received.iter().map(|&[_, largest]| largest as usize).max().unwrap_or(0);
        let piece = self.piece_bytes();
        for round in 0..largest.div_ceil(piece) {
            // This round's piece of a part of `len` bytes.
            let cut = |len: usize| {
                let at = (round * piece).min(len);
                at..at + piece.min(len - at)
            };
            let send: Vec<&[u8]> = outgoing.iter().map(|part| &part[cut(part.len())]).collect();
            let mut receive: Vec<&mut [u8]> = incoming
                .iter_mut()
                .map(|part| {
                    let piece = cut(part.len());
                    &mut part[piece]
                })
                .collect();
            self.exchange(&send, &mut receive)?;
        }
        Ok(incoming)
    }
    /// One round of a gather: every rank's `bytes` (at most [`Ranks::gather_piece_bytes`]
    /// of them) on rank 0, by rank; nothing on the others.
    fn gather_round(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, RanksError>;
    /// One round of a broadcast: rank 0's `bytes` (at most [`Ranks::piece_bytes`]) into
    /// every rank's `bytes`, whose length every rank knows.
    fn broadcast_round(&self, bytes: &mut [u8]) -> Result<(), RanksError>;
    /// The largest piece a rank sends in one [`Ranks::gather_round`]: small enough that
    /// rank 0 receives at most 1 GiB in all ([`GATHER_ROUND_BYTES`]), so that no count or
    /// displacement of the round nears MPI's `int` limit, whatever the rank count.
    fn gather_piece_bytes(&self) -> usize {
        gather_piece_bytes(self.piece_bytes(), self.size())
    }
    /// Every rank's `bytes` on rank 0, by rank; empty on the others.
    ///
    /// Parts of any size arrive whole: after a round of their lengths, they go in
    /// [`Ranks::gather_round`]s of at most [`Ranks::gather_piece_bytes`] each, as many on
    /// every rank as the largest part needs (rank 0 broadcasts the count).
    fn gather(&self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>, RanksError> {
        let lengths = self.gather_round(&(bytes.len() as u64).to_le_bytes())?;
        let lengths: Vec<usize> = lengths.iter().map(|l| read_u64(l) as usize).collect();
        let piece = self.gather_piece_bytes();
        let rounds = lengths.iter().max().map_or(0, |&l| l.div_ceil(piece)) as u64;
        let mut rounds_bytes = rounds.to_le_bytes();
        self.broadcast_round(&mut rounds_bytes)?;
        let mut gathered: Vec<Vec<u8>> = lengths.iter().map(|&l| Vec::with_capacity(l)).collect();
        for round in 0..read_u64(&rounds_bytes) as usize {
            let at = (round * piece).min(bytes.len());
            let received = self.gather_round(&bytes[at..at + piece.min(bytes.len() - at)])?;
            for (whole, part) in gathered.iter_mut().zip(received) {
                whole.extend_from_slice(&part);
            }
        }
        Ok(gathered)
    }
    /// Rank 0's `bytes` on every rank (the others' `bytes` are ignored): its length, then
    /// [`Ranks::broadcast_round`]s of at most [`Ranks::piece_bytes`] each.
    fn broadcast(&self, bytes: Vec<u8>) -> Result<Vec<u8>, RanksError> {
        let mut length = (bytes.len() as u64).to_le_bytes();
        self.broadcast_round(&mut length)?;
        let mut bytes = if self.rank() == 0 { bytes } else { vec![0; read_u64(&length) as usize] };
        for piece in bytes.chunks_mut(self.piece_bytes()) {
            self.broadcast_round(piece)?;
        }
        Ok(bytes)
    }
}

/// The most bytes rank 0 receives in one [`Ranks::gather_round`]: 1 GiB, half of MPI's
/// `int` limit on a count or displacement.
pub const GATHER_ROUND_BYTES: usize = 1 << 30;

/// The largest piece each of `ranks` ranks sends in one gather round, for all-to-all
/// pieces of `piece_bytes`: at most [`GATHER_ROUND_BYTES`] reach rank 0 in all.
pub fn gather_piece_bytes(piece_bytes: usize, ranks: usize) -> usize {
    piece_bytes.min(GATHER_ROUND_BYTES / ranks).max(1)
}

/// The little-endian `u64` of 8 bytes (0 for any other length: a part that is not a
/// length, which only a rank that sent nothing leaves).
fn read_u64(bytes: &[u8]) -> u64 {
    bytes.try_into().map_or(0, u64::from_le_bytes)
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
    fn piece_bytes(&self) -> usize {
        PIECE_BYTES
    }
    fn exchange(&self, outgoing: &[&[u8]], incoming: &mut [&mut [u8]]) -> Result<(), RanksError> {
        incoming[0].copy_from_slice(outgoing[0]);
        Ok(())
    }
    fn gather_round(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, RanksError> {
        Ok(vec![bytes.to_vec()])
    }
    fn broadcast_round(&self, _bytes: &mut [u8]) -> Result<(), RanksError> {
        Ok(())
    }
    fn gather(&self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>, RanksError> {
        Ok(vec![bytes])
    }
    fn broadcast(&self, bytes: Vec<u8>) -> Result<Vec<u8>, RanksError> {
        Ok(bytes)
    }
}

/// Ranks as threads of one process, talking over channels: runs the distributed solve's
/// partition and exchange at any rank count without MPI (for tests).
#[cfg(test)]
pub mod threads {
    use std::cell::Cell;

    use crossbeam_channel::{Receiver, Sender, unbounded};

    use super::RanksError;

    /// One rank of a group of threads.
    pub struct ThreadRank {
        rank: usize,
        piece_bytes: usize,
        largest_sent: Cell<usize>,
        largest_gathered: Cell<usize>,
        to: Vec<Sender<Vec<u8>>>,
        from: Vec<Receiver<Vec<u8>>>,
    }

    impl ThreadRank {
        /// The largest message this rank has sent in one [`super::Ranks::exchange`],
        /// gather round or broadcast round.
        pub fn largest_sent(&self) -> usize {
            self.largest_sent.get()
        }

        /// The most bytes this rank (rank 0) has received in one
        /// [`super::Ranks::gather_round`].
        pub fn largest_gathered(&self) -> usize {
            self.largest_gathered.get()
        }
    }

    /// A group of `size` ranks, one per thread to hand them to, that send all-to-all parts
    /// in pieces of [`super::PIECE_BYTES`].
    pub fn group(size: usize) -> Vec<ThreadRank> {
        group_in_pieces(size, super::PIECE_BYTES)
    }

    /// A group of `size` ranks that send all-to-all parts in pieces of `piece_bytes` (at
    /// least 1).
    pub fn group_in_pieces(size: usize, piece_bytes: usize) -> Vec<ThreadRank> {
        // channels[a][b]: from rank a to rank b.
        type Channel = (Sender<Vec<u8>>, Receiver<Vec<u8>>);
        let channels: Vec<Vec<Channel>> = (0..size).map(|_| (0..size).map(|_| unbounded()).collect()).collect();
        (0..size)
            .map(|rank| ThreadRank {
                rank,
                piece_bytes,
                largest_sent: Cell::new(0),
                largest_gathered: Cell::new(0),
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
        fn piece_bytes(&self) -> usize {
            self.piece_bytes
        }
        fn exchange(&self, outgoing: &[&[u8]], incoming: &mut [&mut [u8]]) -> Result<(), RanksError> {
            for (to, part) in self.to.iter().zip(outgoing) {
                self.largest_sent.set(self.largest_sent.get().max(part.len()));
                to.send(part.to_vec()).map_err(|_| RanksError::Stopped)?;
            }
            for (from, part) in self.from.iter().zip(incoming) {
                part.copy_from_slice(&from.recv().map_err(|_| RanksError::Stopped)?);
            }
            Ok(())
        }
        fn gather_round(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, RanksError> {
            self.largest_sent.set(self.largest_sent.get().max(bytes.len()));
            self.to[0].send(bytes.to_vec()).map_err(|_| RanksError::Stopped)?;
            if self.rank != 0 {
                return Ok(Vec::new());
            }
            let parts: Vec<Vec<u8>> =
                self.from.iter().map(|from| from.recv().map_err(|_| RanksError::Stopped)).collect::<Result<_, _>>()?;
            let total = parts.iter().map(Vec::len).sum();
            self.largest_gathered.set(self.largest_gathered.get().max(total));
            Ok(parts)
        }
        fn broadcast_round(&self, bytes: &mut [u8]) -> Result<(), RanksError> {
            if self.rank == 0 {
                self.largest_sent.set(self.largest_sent.get().max(bytes.len()));
                for to in &self.to {
                    to.send(bytes.to_vec()).map_err(|_| RanksError::Stopped)?;
                }
            }
            bytes.copy_from_slice(&self.from[0].recv().map_err(|_| RanksError::Stopped)?);
            Ok(())
        }
    }

    /// A [`ThreadRank`] that damages one part in transit: in its `call`-th
    /// [`super::Ranks::all_to_all`] (from 0), rank `from` flips a bit of the middle byte
    /// of the part it sends rank `to`, if that part is not empty.
    pub struct FlipByte {
        rank: ThreadRank,
        from: usize,
        to: usize,
        call: usize,
        calls: Cell<usize>,
        fired: Cell<bool>,
    }

    impl FlipByte {
        /// `rank`, flipping a byte of the part `from` sends `to` in all-to-all call `call`.
        pub fn new(rank: ThreadRank, from: usize, to: usize, call: usize) -> FlipByte {
            FlipByte { rank, from, to, call, calls: Cell::new(0), fired: Cell::new(false) }
        }

        /// Whether this rank flipped a byte.
        pub fn fired(&self) -> bool {
            self.fired.get()
        }
    }

    impl super::Ranks for FlipByte {
        fn rank(&self) -> usize {
            self.rank.rank()
        }
        fn size(&self) -> usize {
            self.rank.size()
        }
        fn piece_bytes(&self) -> usize {
            self.rank.piece_bytes()
        }
        fn exchange(&self, outgoing: &[&[u8]], incoming: &mut [&mut [u8]]) -> Result<(), RanksError> {
            self.rank.exchange(outgoing, incoming)
        }
        fn all_to_all(&self, mut outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, RanksError> {
            let call = self.calls.replace(self.calls.get() + 1);
            if (self.rank(), call) == (self.from, self.call) && !outgoing[self.to].is_empty() {
                let part = &mut outgoing[self.to];
                let middle = part.len() / 2;
                part[middle] ^= 0x10;
                self.fired.set(true);
            }
            self.rank.all_to_all(outgoing)
        }
        fn gather_round(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, RanksError> {
            self.rank.gather_round(bytes)
        }
        fn broadcast_round(&self, bytes: &mut [u8]) -> Result<(), RanksError> {
            self.rank.broadcast_round(bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_of_any_size_arrive_whole_in_pieces() {
        // Rank 1 sends nothing; the others parts of 0 to 100 bytes, other ones to each rank.
        let length =
            |from: usize, to: usize| if from == 1 { 0 } else { [0, 1, 7, 8, 100, 15][(from + 2 * to + 4) % 6] };
        let part = |from: usize, to: usize| -> Vec<u8> {
            (0..length(from, to)).map(|i| (i + 100 * (4 * from + to)) as u8).collect()
        };
        for size in 1..=4 {
            for piece in [1, 7, 8, 1000] {
                std::thread::scope(|s| {
                    for rank in threads::group_in_pieces(size, piece) {
                        s.spawn(move || {
                            let me = rank.rank();
                            let received = rank.all_to_all((0..size).map(|to| part(me, to)).collect()).unwrap();
                            let sent: Vec<Vec<u8>> = (0..size).map(|from| part(from, me)).collect();
                            assert_eq!(received, sent, "rank {me} of {size}, pieces of {piece} bytes");
                            // (Beyond the 16 bytes of lengths.)
                            assert!(rank.largest_sent() <= piece.max(16), "rank {me} of {size}: {piece}");
                        });
                    }
                });
            }
        }
    }

    /// Gathers and broadcasts of any size arrive whole, in rounds that never carry more
    /// than a piece from each rank (so rank 0 never receives more than the rank count
    /// times a piece at once).
    #[test]
    fn gathers_and_broadcasts_of_any_size_arrive_whole_in_pieces() {
        let part = |from: usize| -> Vec<u8> {
            (0..[0, 1, 7, 8, 100][(3 * from + 1) % 5]).map(|i| (i * 7 + from) as u8).collect()
        };
        for size in 1..=4 {
            for piece in [1, 7, 8, 1000] {
                std::thread::scope(|s| {
                    for rank in threads::group_in_pieces(size, piece) {
                        s.spawn(move || {
                            let me = rank.rank();
                            let gathered = rank.gather(part(me)).unwrap();
                            if me == 0 {
                                assert_eq!(
                                    gathered,
                                    (0..size).map(part).collect::<Vec<_>>(),
                                    "{size} ranks, pieces of {piece}"
                                );
                                assert!(
                                    rank.largest_gathered() <= size * piece.max(8),
                                    "{size} ranks, pieces of {piece}"
                                );
                            } else {
                                assert!(gathered.is_empty());
                            }
                            let sent = if me == 0 { part(2) } else { vec![9; 3] };
                            assert_eq!(
                                rank.broadcast(sent).unwrap(),
                                part(2),
                                "rank {me} of {size}, pieces of {piece}"
                            );
                            assert!(rank.largest_sent() <= piece.max(8), "rank {me} of {size}: {piece}");
                        });
                    }
                });
            }
        }
    }
}
