//! What a solve over ranks reports: each finished layer, and the solve's outcome (the
//! vocabulary every layer driver returns, below the dispatcher that calls them).

use serde::Serialize;

/// One finished layer: solved, exchanged, and (if `written`) its shards written and listed
/// in the manifest.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LayerReport {
    /// The layer.
    pub layer: usize,
    /// Positions in the layer.
    pub positions: u64,
    /// Whether its shards were written.
    pub written: bool,
    /// Bytes of the tiles (one offset per pair) each rank held at once, by rank: those of
    /// the pairs it computed and of the rows it keeps of this layer and the next.
    pub tile_bytes: Vec<u64>,
    /// Bytes of the per-card structures each rank held at once (the shapes of this layer
    /// and the one before, the exchange's per-row segments), by rank.
    pub card_bytes: Vec<u64>,
    /// Bytes of values each rank held at once (the pairs it computed, the rows it received,
    /// the rows of the layer after it kept), by rank.
    pub value_bytes: Vec<u64>,
    /// Seconds from the start of the layer's computation to the end of its exchange.
    pub seconds: f64,
    /// Seconds of computation, per rank.
    pub compute_seconds: Vec<f64>,
    /// Seconds of the exchange (compression, transfer, assembly), per rank.
    pub exchange_seconds: Vec<f64>,
    /// Bytes of values sent between ranks after the layer, before compression.
    pub exchanged_raw_bytes: u64,
    /// The same, as sent (zstd).
    pub exchanged_bytes: u64,
}

/// What a solve returns.
#[derive(Clone, Debug)]
pub struct Outcome<V> {
    /// The layer the solve continued from (its values read from the tables), if resumed.
    pub resumed_from: Option<usize>,
    /// The layers solved now, in solve order (rank 0 only).
    pub layers: Vec<LayerReport>,
    /// Bytes of every shard the manifest lists, those of earlier runs included (rank 0 only).
    pub table_bytes: u64,
    /// The value of the first position of the space's first layer (the start of the game
    /// when the space starts at layer 0), on the rank that holds it.
    pub first_value: Option<V>,
    /// Shards found damaged or missing by `--resume` and recomputed, bit-identical, from
    /// the layer above (rank 0 only).
    pub repaired: Vec<String>,
    /// Blocks of a streamed solve found finished by an earlier run and not solved again
    /// (rank 0 only).
    pub resumed_blocks: usize,
}
