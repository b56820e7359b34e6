// The whole perft table of every game, deep entries included (label slow).
#define VZ_PERFT_NODE_LIMIT ~0ull
#define VZ_PERFT_SUITE PerftDataSlowTest
#include "tests/engine/perft_data_test.cc"
