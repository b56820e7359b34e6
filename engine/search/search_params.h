#pragma once

// Parameters of one Monte Carlo tree search (engine/search/mcts.h). Plain values, no globals: the
// caller (CLI, self-play config) owns them and hands a copy to each search.

#include <cstdint>
#include <limits>

namespace vz {

// The most simulations one search can run: the root's visit count, 1 for its own evaluation plus
// one per simulation, is 32-bit.
inline constexpr int64_t kMaxSimulations = std::numeric_limits<int32_t>::max() - 1;

// Leaves a lone search with a network evaluator hands out per round (SearchParams::
// leaves_per_round) when it plays by the clock: `vzero uci` without MinibatchSize and the timed
// net players of matches (arena/player.h), so that both batch the net the same way. A CPU's
// forward pass at batch 1 gives about 2-3x fewer positions a second than at 16 in fp32, 5-12x
// fewer in bf16 on AMX (docs/performance.md); the cost is virtual loss spreading the leaves.
inline constexpr int kNetLeavesPerRound = 16;

struct SearchParams {
  // PUCT in the AlphaZero form: U = c(N) * P * sqrt(N) / (1 + n), with the exploration rate
  // c(N) = c_puct_init + log((N + c_puct_base + 1) / c_puct_base) growing slowly with the parent's
  // visit count N.
  float c_puct_init = 1.25f;
  float c_puct_base = 19652.0f;

  // First-play urgency: an unvisited child gets the parent's Q minus
  // fpu_reduction * sqrt(sum of the priors of the visited children) (Lc0's reduction form).
  float fpu_reduction = 0.25f;
  float fpu_reduction_root = 0.25f;

  // Each leaf handed out and not yet backed up counts as `virtual_loss` lost visits on its path,
  // so that one search can hand out several different leaves per round.
  float virtual_loss = 1.0f;
  // Leaves one search hands out per round (1 = plain sequential MCTS). Gathering stops earlier
  // after `max_collisions` descents that ended on a leaf already in flight.
  int leaves_per_round = 1;
  int max_collisions = 4;

  // Tree size cap in nodes (see Mcts::kBytesPerNode for MiB). At the cap the tree stops growing:
  // leaves are still evaluated and backed up but not expanded, and the result says so. Mcts
  // raises it to Mcts::kMinNodes (the root and its children) and caps it at 2^31 - 1 (32-bit
  // node ids).
  int64_t max_nodes = int64_t{1} << 24;

  // MCTS-solver: proven wins, losses and draws propagate up; a proven root ends the search.
  bool solver = true;

  // Gumbel root search (Danihelka et al., ICLR 2022) instead of PUCT at the root, with the
  // deterministic improved-policy selection below the root. gumbel_max_considered is m, the number
  // of root moves sampled by Gumbel-top-k; sigma(q) = (c_visit + max visits) * c_scale * q.
  bool gumbel = false;
  int gumbel_max_considered = 16;
  float gumbel_c_visit = 50.0f;
  float gumbel_c_scale = 1.0f;

  // Root Dirichlet noise: prior' = (1 - epsilon) * prior + epsilon * Dir(alpha). Off when
  // epsilon == 0. alpha is per game (about 10 / typical number of legal moves).
  float dirichlet_alpha = 0.3f;
  float dirichlet_epsilon = 0.0f;

  // Seed of the search's own generator (Gumbel and Dirichlet noise, temperature sampling).
  uint64_t seed = 0;
};

}  // namespace vz
