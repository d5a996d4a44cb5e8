// The host shim of turn.cu: CUDA's few keywords for a plain C++ compiler, and a block's
// threads run one after another between barriers (each phase of the kernel is one
// YZ_FOR_THREADS ... YZ_END_THREADS, whose threads touch disjoint lanes and keeps, so the
// order in which they run changes nothing). Compile with -ffp-contract=off: like
// __fadd_rn and __fmul_rn on the device, each operation is rounded alone.
#pragma once

#define __device__
#define __forceinline__ inline
#define YZ_CONSTANT static
#define YZ_FOR_THREADS(t) for (unsigned t = 0; t < YZ_THREADS; ++t) {
#define YZ_END_THREADS }

struct float2 {
    float x, y;
};
static inline float2 make_float2(float x, float y) { return float2{x, y}; }

static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
