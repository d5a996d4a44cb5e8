// turn.cu built for the host through shim.h: the kernel's logic, run block after block on
// the CPU, for the tests (src/duel/gpu/host.rs).
#include <vector>

#include "shim.h"
#include "turn.cu"

// Runs the blocks `0..blocks` of a launch of turn.cu's kernel with `tables` as its constant
// memory.
extern "C" void yz_turn_host(const YzTables* tables, const YzParams* params, yz_u32 blocks) {
    c_tables = *tables;
    std::vector<float> buf(YZ_KEEPS * YZ_STRIP);
    std::vector<YzSucc> succ(YZ_MAX_SUCC);
    for (yz_u32 b = 0; b < blocks; ++b) {
        yz_turn_block(*params, b, buf.data(), succ.data());
    }
}
