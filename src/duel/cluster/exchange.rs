//! The all-to-all after a layer (see the module documentation of [`super`]): each rank
//! sends every other the slice of its computed pairs that rank keeps as rows, zstd-
//! compressed with a checksum, and assembles its rows from every rank's slices; and the
//! gathering of findings that makes the ranks stop together.

use std::ops::Range;

use bytemuck::Pod;
use rayon::prelude::*;
use serde::Serialize;
use xxhash_rust::xxh3::xxh3_64;

use super::error::{ClusterError, Damage};
use super::partition::RankShares;
use super::ranks::Ranks;
use crate::duel::{DuelValue, LayerShape, Space, Tile};

/// zstd level of the exchanged frontier (speed matters more than the last percent).
const EXCHANGE_ZSTD_LEVEL: i32 = 1;

/// The rows a rank received after a layer, and what the exchange cost.
pub(crate) struct Exchanged<V> {
    /// The rows received, in layer order.
    pub(crate) values: Vec<V>,
    /// Bytes of values sent to other ranks, before compression.
    pub(crate) raw_bytes: u64,
    /// The same, as sent.
    pub(crate) bytes: u64,
    /// Bytes of the per-row segment lengths used to assemble the rows.
    pub(crate) segment_bytes: u64,
}

/// Sends each rank the rows it receives of this rank's computed pairs (`computed`: every
/// mover against this rank's opponents), and assembles the rows this rank receives from
/// every rank's pairs.
pub(crate) fn exchange<V: DuelValue + Pod>(
    ranks: &impl Ranks,
    space: &Space,
    shape: &LayerShape,
    shares: &RankShares,
    computed: &Tile,
    block: Vec<V>,
) -> Result<Exchanged<V>, ClusterError> {
    let (me, size) = (ranks.rank(), ranks.size());
    if size == 1 {
        return Ok(Exchanged { values: block, raw_bytes: 0, bytes: 0, segment_bytes: 0 });
    }
    let slice = |rows: &Range<usize>| &block[computed.rows(rows.clone())];
    let outgoing: Vec<Vec<u8>> = (0..size)
        .into_par_iter()
        .map(|r| {
            let values = slice(&shares.received[r]);
            if r == me || values.is_empty() {
                return Ok(Vec::new());
            }
            pack_part(bytemuck::cast_slice(values))
                .map_err(|source| ClusterError::Compress { what: format!("the values for rank {r}"), source })
        })
        .collect::<Result<_, _>>()?;
    let raw_bytes: u64 =
        (0..size).filter(|&r| r != me).map(|r| std::mem::size_of_val(slice(&shares.received[r])) as u64).sum();
    let bytes: u64 = outgoing.iter().map(|b| b.len() as u64).sum();
    // segments[i · size + r]: positions of the i-th row received that rank r computed.
    let segments = shares.received_segments(space, shape, me);
    let span = shape.rows(shares.received[me].clone());
    let mut values = vec![V::NOTHING; (span.end - span.start) as usize];
    let mut own = Placement::new(&segments, size, me);
    own.place(&mut values, slice(&shares.received[me]));
    drop(block);
    let incoming = ranks.all_to_all(outgoing)?;
    // Every part is decompressed, checked and placed on a thread of its own: the parts'
    // segments are disjoint, so the threads write disjoint values.
    let into = Disjoint(values.as_mut_ptr(), values.len());
    let found: Vec<Option<(usize, Damage)>> = incoming
        .into_par_iter()
        .enumerate()
        .map(|(r, packed)| {
            if r == me {
                return None;
            }
            let mut placement = Placement::new(&segments, size, r);
            let expected = placement.total() as usize * std::mem::size_of::<V>();
            // SAFETY: `placement` writes only rank r's segments of `values`, which no other
            // thread writes, and `values` outlives the loop.
            let sink = |piece: &[V]| unsafe { placement.place_into(&into, piece) };
            unpack_part(&packed, expected, sink).err().map(|damage| (r, damage))
        })
        .collect();
    // The first damaged part received, by sender.
    let damaged = found.into_iter().flatten().next();
    stop_on_damage(ranks, shape.layer, damaged)?;
    let segment_bytes = std::mem::size_of_val(segments.as_slice()) as u64;
    Ok(Exchanged { values, raw_bytes, bytes, segment_bytes })
}

/// Bytes of the checksum that ends every non-empty part of the exchange.
const PART_CHECKSUM_BYTES: usize = 8;

/// One rank's part of the exchange for another: the values' bytes `raw`, zstd-compressed,
/// then the xxh3-64 of `raw` (8 bytes, little-endian); nothing for no values.
///
/// `raw` is the values as they lie in memory, little-endian: the ranks run on hosts that
/// write store files, which are little-endian ([`crate::store`]), and a part never outlives
/// the run (the shards written from it store their values little-endian explicitly).
///
/// The receiver checks the checksum after decompressing ([`unpack_part`]), so a fault
/// anywhere between the two ranks' values (memory, network, either end of zstd) is caught
/// before a damaged value reaches the tables, whose own checksums are computed later and
/// would vouch for it. The cost is one xxh3 pass over the values on each side, next to
/// zstd's compression and decompression of the same bytes: xxh3 reads tens of GB/s per
/// core, zstd level 1 a few hundred MB/s to a few GB/s, so it adds a few percent to the
/// exchange's compute at most.
pub(crate) fn pack_part(raw: &[u8]) -> std::io::Result<Vec<u8>> {
    if raw.is_empty() {
        return Ok(Vec::new());
    }
    let mut packed = zstd::bulk::compress(raw, EXCHANGE_ZSTD_LEVEL)?;
    packed.extend_from_slice(&xxh3_64(raw).to_le_bytes());
    Ok(packed)
}

/// Values decompressed at a time by [`unpack_part`]: a bounded buffer per part in flight.
const UNPACK_PIECE_VALUES: usize = 1 << 16;

/// Decompresses a part made by [`pack_part`] of `expected` bytes of values `V`, handing
/// them to `sink` piece by piece (whole values, in order, never more than `expected`
/// bytes in all), and checks that exactly `expected` bytes came out with the sender's
/// checksum. What `sink` saw of a damaged part is to be thrown away.
pub(crate) fn unpack_part<V: Pod>(packed: &[u8], expected: usize, mut sink: impl FnMut(&[V])) -> Result<(), Damage> {
    use std::io::Read;
    if packed.is_empty() && expected == 0 {
        return Ok(());
    }
    let Some(at) = packed.len().checked_sub(PART_CHECKSUM_BYTES) else {
        return Err(Damage::Short { bytes: packed.len() });
    };
    let (stream, checksum) = packed.split_at(at);
    let mut decoder =
        zstd::stream::read::Decoder::with_buffer(stream).map_err(|e| Damage::Unreadable(e.to_string()))?;
    let mut piece = vec![V::zeroed(); UNPACK_PIECE_VALUES.min(expected / std::mem::size_of::<V>() + 1)];
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut found = 0usize;
    loop {
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut piece);
        let mut filled = 0;
        while filled < bytes.len() {
            match decoder.read(&mut bytes[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) => return Err(Damage::Unreadable(e.to_string())),
            }
        }
        if filled == 0 {
            break;
        }
        hasher.update(&bytes[..filled]);
        found += filled;
        if found <= expected && filled.is_multiple_of(std::mem::size_of::<V>()) {
            sink(&piece[..filled / std::mem::size_of::<V>()]);
        }
    }
    if found != expected {
        return Err(Damage::Size { found, expected });
    }
    let expected = u64::from_le_bytes(checksum.try_into().expect("8 bytes"));
    let found = hasher.digest();
    if found != expected {
        return Err(Damage::Checksum { found, expected });
    }
    Ok(())
}

/// Whether any rank found anything (on every rank), and every rank's findings by rank (on
/// rank 0; none elsewhere), where `mine` are this rank's ([`gather_then_decide`]).
pub(crate) fn gather_findings<T: Serialize + serde::de::DeserializeOwned>(
    ranks: &impl Ranks,
    mine: &[T],
    what: &'static str,
) -> Result<(bool, Vec<(usize, T)>), ClusterError> {
    let mine = serde_json::to_vec(mine).expect("findings serialise");
    let decide = |all: Vec<Vec<u8>>| -> Result<(bool, Vec<(usize, T)>), ClusterError> {
        let mut found = Vec::new();
        for (rank, bytes) in all.iter().enumerate() {
            let theirs: Vec<T> =
                serde_json::from_slice(bytes).map_err(|source| ClusterError::Record { what, source })?;
            found.extend(theirs.into_iter().map(|finding| (rank, finding)));
        }
        Ok((!found.is_empty(), found))
    };
    gather_then_decide(ranks, mine, decide, |(any, _)| vec![u8::from(*any)], |bytes| Ok((bytes == [1], Vec::new())))
}

/// Every rank's `mine` gathered on rank 0, which decides from them alone
/// ([`rank_zero_decides`]): the end of a layer or a pass (rank 0 lists what the ranks
/// wrote), and a resume's verdict on the damage the ranks found.
pub(crate) fn gather_then_decide<T>(
    ranks: &impl Ranks,
    mine: Vec<u8>,
    decide: impl FnOnce(Vec<Vec<u8>>) -> Result<T, ClusterError>,
    to_bytes: impl Fn(&T) -> Vec<u8>,
    from_bytes: impl Fn(&[u8]) -> Result<T, ClusterError>,
) -> Result<T, ClusterError> {
    let all = ranks.gather(mine)?;
    rank_zero_decides(ranks, || decide(all), to_bytes, from_bytes)
}

/// Rank 0 decides, every rank follows: `decide` runs on rank 0 alone and its answer goes
/// to every rank (as `to_bytes` writes it and `from_bytes` reads it back); where it fails,
/// rank 0 returns its error and the others [`ClusterError::StoppedByRankZero`], together,
/// so that none runs on into a collective operation the others have left. The one way the
/// ranks agree on what only rank 0 finds out (where a solve starts, whether a streamed pass
/// is done, the manifest layers are listed in, and with [`gather_then_decide`] what the
/// ranks found or wrote).
pub(crate) fn rank_zero_decides<T>(
    ranks: &impl Ranks,
    decide: impl FnOnce() -> Result<T, ClusterError>,
    to_bytes: impl Fn(&T) -> Vec<u8>,
    from_bytes: impl Fn(&[u8]) -> Result<T, ClusterError>,
) -> Result<T, ClusterError> {
    if ranks.rank() == 0 {
        let decided = decide();
        let mut message = vec![u8::from(decided.is_ok())];
        if let Ok(answer) = &decided {
            message.extend(to_bytes(answer));
        }
        ranks.broadcast(message)?;
        return decided;
    }
    match ranks.broadcast(Vec::new())?.split_first() {
        Some((1, answer)) => from_bytes(answer),
        _ => Err(ClusterError::StoppedByRankZero),
    }
}

/// Stops every rank if any rank received a damaged part of layer `layer`'s exchange
/// (`damaged` on this rank: the sender and the damage): the receiver returns its
/// [`ClusterError::DamagedPart`], rank 0 the first any rank found, and the others
/// [`ClusterError::StoppedByRankZero`].
pub(crate) fn stop_on_damage(
    ranks: &impl Ranks,
    layer: usize,
    damaged: Option<(usize, Damage)>,
) -> Result<(), ClusterError> {
    let (stop, found) = gather_findings(ranks, damaged.as_slice(), "damaged parts")?;
    if !stop {
        return Ok(());
    }
    let part = |to: usize, (from, damage): (usize, Damage)| ClusterError::DamagedPart { layer, from, to, damage };
    let first = found.into_iter().next().map(|(to, finding)| part(to, finding));
    let mine = damaged.map(|finding| part(ranks.rank(), finding));
    Err(first.or(mine).unwrap_or(ClusterError::StoppedByRankZero))
}

/// Where the part rank `r` sent goes in the received rows: its segment of each row, row
/// after row. `segments` holds, row after row, the segment of each of the `size` ranks in
/// turn, which is also their order within a row. The part may arrive in pieces of any
/// length; the placement remembers how far it got.
struct Placement<'a> {
    /// One slice of `size` segment lengths per row received.
    rows: std::slice::ChunksExact<'a, u64>,
    r: usize,
    /// Where the current row's segment of rank `r` starts in the received rows, and how
    /// many of its values are still to come.
    start: usize,
    left: usize,
    /// Where the next row starts.
    next_row: usize,
}

impl<'a> Placement<'a> {
    fn new(segments: &'a [u64], size: usize, r: usize) -> Placement<'a> {
        Placement { rows: segments.chunks_exact(size), r, start: 0, left: 0, next_row: 0 }
    }

    /// Values rank `r`'s part holds in all.
    fn total(&self) -> u64 {
        self.rows.clone().map(|row| row[self.r]).sum()
    }

    /// Hands each run of `piece` to `write` with where it goes, advancing over the rows.
    fn place_with<V>(&mut self, mut piece: &[V], mut write: impl FnMut(usize, &[V])) {
        while !piece.is_empty() {
            while self.left == 0 {
                let row = self.rows.next().expect("a part holds no more values than its segments");
                self.start = self.next_row + row[..self.r].iter().sum::<u64>() as usize;
                self.left = row[self.r] as usize;
                self.next_row += row.iter().sum::<u64>() as usize;
            }
            let n = self.left.min(piece.len());
            write(self.start, &piece[..n]);
            (self.start, self.left, piece) = (self.start + n, self.left - n, &piece[n..]);
        }
    }

    /// Places `piece` into `values`.
    fn place<V: Copy>(&mut self, values: &mut [V], piece: &[V]) {
        self.place_with(piece, |at, run| values[at..at + run.len()].copy_from_slice(run));
    }

    /// Places `piece` into the values behind `into`.
    ///
    /// # Safety
    /// No other thread may read or write the positions this placement covers meanwhile,
    /// and the values behind `into` must outlive the call.
    unsafe fn place_into<V: Copy>(&mut self, into: &Disjoint<V>, piece: &[V]) {
        self.place_with(piece, |at, run| {
            assert!(at + run.len() <= into.1, "a segment beyond the received rows");
            // SAFETY: in bounds (checked above), and no other thread touches these
            // positions (the caller's promise).
            unsafe { std::ptr::copy_nonoverlapping(run.as_ptr(), into.0.add(at), run.len()) }
        });
    }
}

/// The received rows' values, written by several threads at once, each in positions of
/// its own ([`Placement::place_into`]): a pointer and a length.
struct Disjoint<V>(*mut V, usize);

// SAFETY: the threads sharing it write disjoint positions (see `Placement::place_into`).
unsafe impl<V: Send> Sync for Disjoint<V> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unpacks a part of `expected` bytes of `f32` into a vector, as the exchange places it.
    fn unpacked(packed: &[u8], expected: usize) -> Result<Vec<f32>, Damage> {
        let mut out = Vec::new();
        unpack_part::<f32>(packed, expected, |piece| out.extend_from_slice(piece))?;
        Ok(out)
    }

    /// A part packs and unpacks to the same values, in pieces; no flipped byte of it yields
    /// other values, and a stream that decompresses well to other values fails the
    /// checksum.
    #[test]
    fn a_part_checksum_catches_damage() {
        let values: Vec<f32> = (0..3 * UNPACK_PIECE_VALUES / 2).map(|i| (i as f32 * 0.37).sin()).collect();
        let raw: &[u8] = bytemuck::cast_slice(&values);
        let packed = pack_part(raw).unwrap();
        assert_eq!(unpacked(&packed, raw.len()).unwrap(), values);
        assert!(pack_part(&[]).unwrap().is_empty());
        assert_eq!(unpacked(&[], 0).unwrap(), Vec::<f32>::new());
        let small: Vec<f32> = values[..2000].to_vec();
        let small_raw: &[u8] = bytemuck::cast_slice(&small);
        let small_packed = pack_part(small_raw).unwrap();
        let mut caught_by_checksum = 0;
        for at in 0..small_packed.len() {
            let mut damaged = small_packed.clone();
            damaged[at] ^= 0x10;
            match unpacked(&damaged, small_raw.len()) {
                Ok(out) => assert_eq!(out, small, "byte {at} flipped"),
                Err(damage) => caught_by_checksum += matches!(damage, Damage::Checksum { .. }) as usize,
            }
        }
        assert!(caught_by_checksum > small_packed.len() / 2, "{caught_by_checksum} of {} flips", small_packed.len());
        // Other values of the same size, with this part's checksum.
        let other: Vec<f32> = small.iter().map(|v| v + 1.0).collect();
        let mut forged = pack_part(bytemuck::cast_slice(&other)).unwrap();
        let at = forged.len() - PART_CHECKSUM_BYTES;
        forged[at..].copy_from_slice(&small_packed[small_packed.len() - PART_CHECKSUM_BYTES..]);
        assert!(matches!(unpacked(&forged, small_raw.len()), Err(Damage::Checksum { .. })));
        let n = small_raw.len();
        assert_eq!(unpacked(&small_packed, n - 4), Err(Damage::Size { found: n, expected: n - 4 }));
        assert_eq!(unpacked(&small_packed, n + 4), Err(Damage::Size { found: n, expected: n + 4 }));
        assert_eq!(unpacked(&small_packed[..5], n), Err(Damage::Short { bytes: 5 }));
        assert_eq!(unpacked(&[], n), Err(Damage::Short { bytes: 0 }));
    }

    /// A part placed in pieces of any length lands where the rank's segments say, and the
    /// parts of all ranks fill the received rows exactly once.
    #[test]
    fn parts_are_placed_in_their_segments_whatever_the_pieces() {
        let size = 3;
        // Four rows; row i's segment of rank r has (i + 2r) % 4 values.
        let segments: Vec<u64> = (0..4).flat_map(|i| (0..size).map(move |r| ((i + 2 * r) % 4) as u64)).collect();
        let total = segments.iter().sum::<u64>() as usize;
        // Position p of the rows holds p; each rank's part is its positions in order.
        let mut parts = vec![Vec::new(); size];
        let mut at = 0.0f32;
        for row in segments.chunks_exact(size) {
            for (r, &len) in row.iter().enumerate() {
                for _ in 0..len {
                    parts[r].push(at);
                    at += 1.0;
                }
            }
        }
        for piece in [1, 2, 5, 100] {
            let mut values = vec![-1.0f32; total];
            for (r, part) in parts.iter().enumerate() {
                let mut placement = Placement::new(&segments, size, r);
                assert_eq!(placement.total() as usize, part.len());
                for chunk in part.chunks(piece) {
                    placement.place(&mut values, chunk);
                }
            }
            assert_eq!(values, (0..total).map(|p| p as f32).collect::<Vec<_>>(), "pieces of {piece}");
        }
    }
}
