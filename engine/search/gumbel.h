#pragma once

// The game-independent arithmetic of Gumbel search (Danihelka, Guez, Schrittwieser, Silver,
// "Policy improvement by planning with Gumbel", ICLR 2022; reference implementation: DeepMind's
// mctx). The search (engine/search/mcts.h) calls these on the children of one node.

#include <cstdint>
#include <span>
#include <vector>

namespace vz {

// Sequential halving as a sequence (mctx's get_sequence_of_considered_visits): entry s is the
// visit count that a root move must have to receive simulation s. With m = max_num_considered
// moves and n = num_simulations, the budget is split into ceil(log2 m) phases; each phase gives
// every remaining move max(1, n / (ceil(log2 m) * remaining)) visits, then the better half stays
// (at least 2, and phases of 2 repeat until the budget is spent).
// ConsideredVisits returns entry `simulation` in O(log m) time and no memory, so that any budget
// up to the 32-bit visit counts is fine: max_num_considered >= 1, 0 <= simulation <
// num_simulations <= INT32_MAX.
int32_t ConsideredVisits(int max_num_considered, int64_t num_simulations, int64_t simulation);

// The whole sequence, num_simulations entries (tests, small budgets): entry s is
// ConsideredVisits(max_num_considered, num_simulations, s).
std::vector<int> ConsideredVisitSequence(int max_num_considered, int num_simulations);

// sigma(completed Q) for the children of one node, the monotone transform of the paper:
// Q of unvisited children is completed by the mixed value v_mix (eq. 33 of the paper: the raw
// value mixed with the prior-weighted Q of the visited children); the completed values are
// rescaled to [0, 1] by their min and max; then sigma = (c_visit + max visits) * c_scale * q.
// This is mctx's qtransform_completed_by_mix_value (maxvisit_init = c_visit, value_scale =
// c_scale; mctx's defaults 50 and 0.1, which the self-play presets use). With the min-max
// rescale, c_scale 1 turns a Q gap of a tenth of the siblings' range into ~5 logits at 8 visits.
//   q        [child] Q from the parent's side to move, read only where visits > 0
//   visits   [child] completed visits
//   priors   [child] priors (sum 1)
//   raw_value        the parent's own evaluator value, its side to move's view
//   sigma    [child] output
void CompletedQSigma(std::span<const float> q, std::span<const int32_t> visits,
                     std::span<const float> priors, float raw_value, float c_visit, float c_scale,
                     std::span<float> sigma);

// softmax(log(prior) + sigma) into `policy` (the improved policy, the training target of Gumbel
// search). priors, sigma, policy: [child]. Zero priors count as a tiny logit, not minus infinity.
void ImprovedPolicy(std::span<const float> priors, std::span<const float> sigma,
                    std::span<float> policy);

// log(max(prior, tiny)): a finite logit for every move.
float PriorLogit(float prior);

}  // namespace vz
