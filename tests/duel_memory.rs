//! What a tile's solve holds in memory beside its values, against what the memory plan
//! counts for it (`OUTPUT_BYTES` in src/duel/sizing/plan.rs: 32 bytes per computed pair for
//! the list of outputs its threads share). The plan sizes a full-game rank's blocks from
//! that figure, so anything else kept per pair (16 bytes per pair at 6e9 pairs a layer)
//! would overrun a rank's memory: a first-6 solve under a 30 MiB cgroup was killed so
//! (scripts/hostile). Counted by this binary's own allocator, on one thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use yz::duel::sizing::calibrate::SyntheticNext;
use yz::duel::solve::solve_tile;
use yz::duel::{Cards, LayerShape, Space, Tile};
use yz::{Game, Rules};

/// The system allocator, counting the bytes held now and the most held since reset.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is the system allocator's; the counters only watch it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(held, Ordering::Relaxed);
        // SAFETY: the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes per computed pair the plan counts for a tile's solve beside its values.
const OUTPUT_BYTES: usize = yz::duel::sizing::plan::OUTPUT_BYTES as usize;
/// What the solve may hold beside, whatever the tile's size, its thread's pair scratch
/// already made by a solve before (30 KB measured here; a list of 16 bytes a pair would
/// add 4.8 MB).
const THREAD_BYTES: usize = 1 << 20;

#[test]
fn a_tile_s_solve_holds_its_values_and_the_planned_bytes_per_pair() {
    let cards = Cards::new(Game::first(Rules::OFFICIAL, 6).expect("six boxes"));
    let space = Space::whole_game(&cards);
    let layer = 7;
    let shape = LayerShape::new(&space, layer);
    let tile = Tile::new(&space, &shape, 0..shape.movers.len(), 0..shape.opponents.len());
    let next = SyntheticNext::<f32>::new(&space, layer + 1);
    let pairs = (0..shape.movers.len())
        .map(|m| (0..shape.opponents.len()).filter(|&o| !tile.pair_range(m, o).is_empty()).count())
        .sum::<usize>();
    let values = 4 * tile.positions() as usize;
    // Sixteen bytes more a pair must show above the allowance.
    assert!(16 * pairs > THREAD_BYTES, "{pairs} pairs are too few to tell");
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool of one thread");
    let held = one.install(|| {
        // The made-up next layer's pool (built once, at its first read) is not the solve's.
        solve_tile::<f32>(&space, &shape, Some(&next), &Tile::new(&space, &shape, 0..1, 0..shape.opponents.len()));
        let before = HELD.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let solved = solve_tile::<f32>(&space, &shape, Some(&next), &tile);
        assert_eq!(solved.len() * 4, values);
        PEAK.load(Ordering::Relaxed) - before
    });
    let allowed = values + OUTPUT_BYTES * pairs + THREAD_BYTES;
    assert!(
        held <= allowed,
        "the solve of {pairs} pairs held {held} bytes at most; the plan allows {allowed} ({values} of values, \
         {OUTPUT_BYTES} a pair, {THREAD_BYTES} for the thread)"
    );
}
