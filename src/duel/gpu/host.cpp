// turn.cu built for the host through shim.h: the kernel's logic, run block after block on
// the CPU, for the tests (src/duel/gpu/host.rs).
#include <stdlib.h>

#include "shim.h"
#include "turn.cu"

// Runs the blocks `0..blocks` of a launch of turn.cu's kernel with `tables` as its constant
// memory.
extern "C" void yz_turn_host(const YzTables* tables, const YzParams* params, yz_u32 blocks) {
    c_tables = *tables;
    // Plain C allocation: the host build needs no C++ library at run time.
    float* buf = (float*)malloc(sizeof(float) * YZ_KEEPS * YZ_STRIP);
    YzSucc* succ = (YzSucc*)malloc(sizeof(YzSucc) * YZ_MAX_SUCC);
    if (buf == nullptr || succ == nullptr) abort();
    for (yz_u32 b = 0; b < blocks; ++b) {
        yz_turn_block(*params, b, buf, succ);
    }
    free(succ);
    free(buf);
}
