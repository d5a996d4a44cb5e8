// The two-player turn of a pair's strip of lanes, for f32 values without draws: the CUDA
// twin of the CPU kernel (src/turn/kernel.rs, src/turn/lanes.rs) and of the duel's scoring
// step (src/duel/solve.rs, src/turn/plan.rs).
//
// Bit for bit: every lane runs the CPU's operations in the CPU's order. No contraction into
// fused multiply-adds (__fadd_rn, __fmul_rn, __fsub_rn round each operation alone), sums of
// six in the order a + b + c + d + e + f then the scale, maxima as `b > a ? b : a` (the CPU's
// `lane_max`: ties keep the earlier candidate), the start value summed over rolls in id order.
//
// One thread block solves one strip of STRIP lanes of one pair: the 462 lane vectors sit in
// shared memory, keeps of one size are split over the block's threads, two neighbouring
// lanes to a thread (a float2: half the index arithmetic, two independent chains of
// operations), and a barrier separates sizes (a keep reads only keeps of the size next to
// its own).
//
// The same source builds for the host (host.cpp with shim.h): there every phase between
// two barriers runs once per thread of the block, thread after thread, so the test suite
// checks this file's logic against the CPU kernel without a GPU.

#if defined(__CUDACC__)
#define YZ_FOR_THREADS(t) { const unsigned t = threadIdx.x;
#define YZ_END_THREADS } __syncthreads();
#define YZ_CONSTANT __constant__
#endif

typedef unsigned char yz_u8;
typedef unsigned short yz_u16;
typedef unsigned int yz_u32;
typedef int yz_i32;
typedef unsigned long long yz_u64;

// Lanes per block, pairs of lanes (one thread's), threads per block.
#define YZ_STRIP 64
#define YZ_PAIRS (YZ_STRIP / 2)
#define YZ_THREADS 512
// Keeps (rolls are the last 252), partial keeps, rolls; boxes a roll may fill at most.
#define YZ_KEEPS 462
#define YZ_PARTIAL 210
#define YZ_ROLLS 252
#define YZ_MAX_BOXES 15
// Successors of a turn at most (distinct cards a mover's turn can lead to).
#define YZ_MAX_SUCC 64
// Entries of the remove-one-die table at most.
#define YZ_REMOVE_CAP 1536
// Numbers per job (a strip of a pair): mover, opponent, window's lo, window's lanes, first lane.
#define YZ_JOB 5
// Bounds per card: past_min, past_max, future_min, future_max.
#define YZ_BOUNDS 4

// The turn's edge tables, the same for every block: constant memory on the device.
struct YzTables {
    // For each keep of fewer than five dice, its six one-die extensions.
    yz_u16 add_die[YZ_PARTIAL * 6];
    // remove_die[remove_start[k] .. remove_start[k + 1]]: keeps with one die of k removed.
    yz_u16 remove_start[YZ_KEEPS + 2];
    yz_u16 remove_die[YZ_REMOVE_CAP];
    // Each roll's probability, rounded to f32 as the CPU's `T::from_f64` does.
    float roll_probability[YZ_ROLLS];
    // 1/6 rounded to f32.
    float sixth;
    // First keep of each size 0..=5, and one past the last.
    yz_u32 size_start[8];
};

// One launch: a batch of strips of pairs and the next layer they read.
struct YzParams {
    // The next layer's values (its rows held) and where each of its pairs starts.
    const float* next_values;
    const yz_u64* next_offsets;
    // Per mover of the batch: for each roll, how many boxes it may fill and, per box, the
    // successor slot (low 16 bits) and the points (high 16 bits), in card order.
    const yz_u8* plan_counts;
    const yz_u32* plan_entries;
    // Per mover: its successors' count, and per successor slot its opponent position in
    // the next layer (relative to the rows' first opponent) and its bounds.
    const yz_u32* succ_count;
    const yz_u32* succ_col;
    const yz_i32* succ_bounds;
    // Per opponent of the batch: where its row starts among the next layer's pairs, and
    // its bounds.
    const yz_u64* opp_row;
    const yz_i32* opp_bounds;
    // Per job: YZ_JOB numbers, and where its pair's lane 0 goes in `out`.
    const yz_i32* jobs;
    const yz_u64* job_out;
    float* out;
    // Jobs in the batch: one block each.
    yz_u32 job_count;
    // 1 when the next layer is the end of the game (the sign of the difference decides).
    yz_u32 end_of_game;
    // Which phases run (YZ_SCORE | YZ_REROLLS | YZ_START for a turn; fewer to time them).
    yz_u32 phases;
};

#define YZ_SCORE 1u
#define YZ_REROLLS 2u
#define YZ_START 4u

// A successor read by a pair: the opponent's pair with that card in the next layer.
struct YzSucc {
    yz_i32 won_above;
    yz_i32 lost_below;
    yz_i32 lo;
    yz_i32 hi;
    yz_u64 start;
    yz_i32 empty;
    yz_i32 pad;
};

#define YZ_SHARED_BYTES (YZ_KEEPS * YZ_STRIP * 4 + YZ_MAX_SUCC * 32)

YZ_CONSTANT YzTables c_tables;

// The CPU's `lane_max`: the later candidate only when strictly greater.
__device__ __forceinline__ float yz_max(float a, float b) {
    return b > a ? b : a;
}

// The mover's value after scoring to the successor `s` at x = d + points: the successor
// pair's value at e = -x, flipped, or the decided values outside its window
// (src/duel/solve.rs, fill_after_turn).
__device__ __forceinline__ float yz_after(const YzParams& p, const YzSucc& s, yz_i32 x) {
    if (p.end_of_game) {
        return x < 0 ? 0.0f : (x == 0 ? 0.5f : 1.0f);
    }
    const yz_i32 e = -x;
    if (e > s.won_above) return 0.0f;
    if (e < s.lost_below) return 1.0f;
    if (s.empty) return 0.5f;
    const yz_i32 at = e > s.hi ? s.hi : (e < s.lo ? s.lo : e);
    return __fsub_rn(1.0f, p.next_values[s.start + (yz_u64)(at - s.lo)]);
}

// One strip of one pair: score, average, choose, average, choose, start value.
__device__ void yz_turn_block(const YzParams& p, yz_u32 block, float* buf, YzSucc* succ) {
    float2* buf2 = (float2*)buf;
    const yz_i32* job = p.jobs + (yz_u64)block * YZ_JOB;
    const yz_u32 mover = (yz_u32)job[0];
    const yz_u32 opponent = (yz_u32)job[1];
    const yz_i32 lo = job[2];
    const yz_i32 n = job[3];
    const yz_i32 first = job[4];
    const yz_u32 count = p.succ_count[mover];

    // The successors' windows, each read by every lane below.
    YZ_FOR_THREADS(t)
    if (!p.end_of_game) {
        const yz_i32* bo = p.opp_bounds + (yz_u64)opponent * YZ_BOUNDS;
        for (yz_u32 k = t; k < count; k += YZ_THREADS) {
            const yz_i32* bc = p.succ_bounds + ((yz_u64)mover * YZ_MAX_SUCC + k) * YZ_BOUNDS;
            // window(opponent moving, card waiting); decided above and below.
            const yz_i32 lo_k = (bc[2] - bo[3]) > (bo[0] - bc[1]) ? (bc[2] - bo[3]) : (bo[0] - bc[1]);
            const yz_i32 hi_k = (bc[3] - bo[2]) < (bo[1] - bc[0]) ? (bc[3] - bo[2]) : (bo[1] - bc[0]);
            YzSucc s;
            s.won_above = bc[3] - bo[2];
            s.lost_below = bc[2] - bo[3];
            s.lo = lo_k;
            s.hi = hi_k;
            s.empty = lo_k > hi_k;
            s.start = s.empty ? 0 : p.next_offsets[p.opp_row[opponent] + p.succ_col[(yz_u64)mover * YZ_MAX_SUCC + k]];
            s.pad = 0;
            succ[k] = s;
        }
    }
    YZ_END_THREADS

    // Score: each roll's best box (src/turn/plan.rs, PlanScorer; lanes.rs, max_of_plus).
    YZ_FOR_THREADS(t)
    for (yz_u32 i = t; (p.phases & YZ_SCORE) && i < YZ_ROLLS * YZ_PAIRS; i += YZ_THREADS) {
        const yz_u32 roll = i / YZ_PAIRS;
        const yz_u32 pair = i % YZ_PAIRS;
        const yz_i32 x = lo + first + 2 * (yz_i32)pair;
        const yz_u64 at = (yz_u64)mover * YZ_ROLLS + roll;
        const yz_u32 boxes = p.plan_counts[at];
        const yz_u32* entries = p.plan_entries + at * YZ_MAX_BOXES;
        float2 acc = make_float2(0.0f, 0.0f);
        for (yz_u32 j = 0; j < boxes; ++j) {
            const yz_u32 entry = entries[j];
            const YzSucc& s = succ[entry & 0xffff];
            const yz_i32 xp = x + (yz_i32)(entry >> 16);
            const float v0 = __fadd_rn(yz_after(p, s, xp), 0.0f);
            const float v1 = __fadd_rn(yz_after(p, s, xp + 1), 0.0f);
            acc.x = j == 0 ? v0 : yz_max(acc.x, v0);
            acc.y = j == 0 ? v1 : yz_max(acc.y, v1);
        }
        buf2[(YZ_PARTIAL + roll) * YZ_PAIRS + pair] = acc;
    }
    YZ_END_THREADS

    for (int reroll = 0; (p.phases & YZ_REROLLS) && reroll < 2; ++reroll) {
        // Average (kernel.rs, average_keeps; lanes.rs, sum6_scaled), sizes 4 down to 0.
        for (int size = 4; size >= 0; --size) {
            YZ_FOR_THREADS(t)
            const yz_u32 begin = c_tables.size_start[size];
            const yz_u32 items = (c_tables.size_start[size + 1] - begin) * YZ_PAIRS;
            for (yz_u32 i = t; i < items; i += YZ_THREADS) {
                const yz_u32 keep = begin + i / YZ_PAIRS;
                const yz_u32 pair = i % YZ_PAIRS;
                const yz_u16* next = c_tables.add_die + keep * 6;
                float2 sum = buf2[next[0] * YZ_PAIRS + pair];
                for (int f = 1; f < 6; ++f) {
                    const float2 v = buf2[next[f] * YZ_PAIRS + pair];
                    sum.x = __fadd_rn(sum.x, v.x);
                    sum.y = __fadd_rn(sum.y, v.y);
                }
                sum.x = __fmul_rn(sum.x, c_tables.sixth);
                sum.y = __fmul_rn(sum.y, c_tables.sixth);
                buf2[keep * YZ_PAIRS + pair] = sum;
            }
            YZ_END_THREADS
        }
        // Choose (kernel.rs, choose_keeps; lanes.rs, max_assign_many), sizes 1 up to 5.
        for (int size = 1; size <= 5; ++size) {
            YZ_FOR_THREADS(t)
            const yz_u32 begin = c_tables.size_start[size];
            const yz_u32 items = (c_tables.size_start[size + 1] - begin) * YZ_PAIRS;
            for (yz_u32 i = t; i < items; i += YZ_THREADS) {
                const yz_u32 keep = begin + i / YZ_PAIRS;
                const yz_u32 pair = i % YZ_PAIRS;
                float2 acc = buf2[keep * YZ_PAIRS + pair];
                for (yz_u32 s = c_tables.remove_start[keep]; s < c_tables.remove_start[keep + 1]; ++s) {
                    const float2 v = buf2[c_tables.remove_die[s] * YZ_PAIRS + pair];
                    acc.x = yz_max(acc.x, v.x);
                    acc.y = yz_max(acc.y, v.y);
                }
                buf2[keep * YZ_PAIRS + pair] = acc;
            }
            YZ_END_THREADS
        }
    }

    // The start of the turn: Σ P(roll) · value(roll), rolls in id order (kernel.rs,
    // start_value; lanes.rs, add_scaled).
    YZ_FOR_THREADS(t)
    for (yz_u32 lane = t; (p.phases & YZ_START) && lane < YZ_STRIP; lane += YZ_THREADS) {
        if (first + (yz_i32)lane < n) {
            float sum = 0.0f;
            for (yz_u32 roll = 0; roll < YZ_ROLLS; ++roll) {
                sum = __fadd_rn(sum, __fmul_rn(c_tables.roll_probability[roll], buf[(YZ_PARTIAL + roll) * YZ_STRIP + lane]));
            }
            p.out[p.job_out[block] + (yz_u64)(first + (yz_i32)lane)] = sum;
        }
    }
    YZ_END_THREADS
}

#if defined(__CUDACC__)
extern "C" __global__ void __launch_bounds__(YZ_THREADS, 1) yz_turn(const YzParams p) {
    extern __shared__ float yz_shared[];
    float* buf = yz_shared;
    YzSucc* succ = (YzSucc*)(yz_shared + YZ_KEEPS * YZ_STRIP);
    yz_turn_block(p, blockIdx.x, buf, succ);
}
#endif
