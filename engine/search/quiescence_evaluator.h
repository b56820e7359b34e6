#pragma once

// Tactical safety at the leaves of the tree search: a decorator that corrects each leaf value of
// an inner evaluator (a net, rollouts) by a shallow capture search, after Baier & Winands' hybrids
// of MCTS and minimax ("MCTS-Minimax Hybrids", IEEE TCIAIG 2015): a few Gumbel or PUCT
// simulations leave the opponent's capture two plies down unexpanded, and a leaf where a piece
// hangs is scored as if it did not.
//
// For a leaf position p with the side to move S and the legal moves the search gives it (at a
// root restricted by `searchmoves`, the allowed ones get the priors; the gain below is the whole
// position's, searched over every legal move):
//   gain  = QuiescenceScore(p) - Evaluate(p)   (engine/alphabeta/alphabeta.h, centipawns, S's view)
//           what S wins by its best line of captures and promotions over standing pat (0 when
//           standing pat is best; negative only where S must move: in check, or a draughts
//           capture is compulsory); clamped to +-kMaxGainCentipawns;
//   value = tanh(atanh(v) + gain / scale)       v = W - L of the inner evaluator, clamped to
//           +-kMaxInnerValue so that atanh is finite; scale = centipawns per unit of atanh(value)
//           (default 400: a pawn moves an even position to 0.24, a queen to 0.98);
//   draw  = min(D, 1 - |value|), and W, L from value and draw (Wdl::FromValueAndDraw).
// With a prior weight lambda > 0 (minimax-informed priors, Baier & Winands' MCTS-IP), the priors
// are mixed with a tactical policy too, so that a capture that wins material or a move that does
// not hang a piece is searched first even where the inner priors miss it:
//   score(m) = -QuiescenceScore(p after m)            the move's 1-ply + quiescence score for S
//   t(m)     = softmax over the legal moves (the allowed ones at a restricted root) of
//              (score(m) - max score) / kPriorTemperature
//   prior(m) = (1 - lambda) P(m) + lambda t(m)         P the inner priors (normalized)
// The gain and scores use the alpha-beta baseline's hand-written material values
// (engine/alphabeta/evaluation.h): a search with this decorator is not zero-knowledge.
//
// Cost: one bounded quiescence search per leaf on the host (at most kLeafQuiescenceNodes
// positions), beside the inner evaluation, and with informed priors one per legal move (at most
// kPriorQuiescenceNodes each) of each node the search descends from: the tactical priors are a
// deferred stage (Evaluator::CompletePriors) that Mcts asks for only when it first selects among
// a node's children, so the leaves evaluated once never pay for them (a direct caller of
// Evaluate, whose batch does not defer, gets them at once). Measured figures in docs/strength.md
// and docs/performance.md.
// Not thread-safe (one alpha-beta searcher inside); one instance per thread, or shared by the
// players of one thread like any evaluator.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/alphabeta/alphabeta.h"
#include "engine/core/error.h"
#include "engine/search/evaluator.h"

namespace vz {

// Defaults of the leaf correction (see the file comment).
inline constexpr float kDefaultQuiescenceScale = 400.0f;  // centipawns per unit of atanh(value)
inline constexpr int kMaxGainCentipawns = 3000;           // a found mate counts as this much
inline constexpr float kMaxInnerValue = 0.999f;           // |v| before atanh
inline constexpr float kPriorTemperature = 100.0f;        // centipawns (informed priors)
// The capture searches' bounds (AlphaBeta::QuiescenceScore): the leaf's own, and each move's of
// the informed priors. Beyond them a line is scored by the static evaluation: on crowded boards
// (young nets' games hang pieces everywhere) an unbounded search visits millions of positions.
inline constexpr int64_t kLeafQuiescenceNodes = 256;
inline constexpr int kLeafQuiescencePlies = 6;
inline constexpr int64_t kPriorQuiescenceNodes = 8;
inline constexpr int kPriorQuiescencePlies = 3;
inline constexpr float kDefaultQuiescencePriorWeight = 0.5f;  // lambda of informed priors

// The corrected value of a leaf (file comment): `inner` from the side to move's view, `gain` in
// centipawns for the side to move, `scale` > 0 centipawns per unit of atanh(value).
inline Wdl CorrectLeafValue(const Wdl& inner, int gain, float scale) {
  const float v = std::clamp(inner.Value(), -kMaxInnerValue, kMaxInnerValue);
  const int clamped = std::clamp(gain, -kMaxGainCentipawns, kMaxGainCentipawns);
  const float value = std::tanh(std::atanh(v) + float(clamped) / scale);
  const float draw = std::clamp(std::min(inner.draw, 1.0f - std::fabs(value)), 0.0f, 1.0f);
  return Wdl::FromValueAndDraw(value, draw);
}

template <Game G>
class QuiescenceEvaluator final : public Evaluator<G> {
 public:
  // `inner` (not null) gives priors and values; `prior_weight` lambda in [0, 1] (0: the inner
  // priors untouched); `scale` > 0 (centipawns per unit of atanh(value)). Throws vz::Error for a
  // null inner evaluator or a weight or scale out of range.
  explicit QuiescenceEvaluator(std::shared_ptr<Evaluator<G>> inner,
                               float prior_weight = kDefaultQuiescencePriorWeight,
                               float scale = kDefaultQuiescenceScale)
      : inner_(std::move(inner)), prior_weight_(prior_weight), scale_(scale) {
    if (!inner_) throw Error("leaf quiescence: no inner evaluator");
    if (!(prior_weight >= 0 && prior_weight <= 1)) {
      throw Error("leaf quiescence: prior weight " + std::to_string(prior_weight) +
                  " is out of range [0, 1]");
    }
    if (!(std::isfinite(scale) && scale > 0)) {
      throw Error("leaf quiescence: scale " + std::to_string(scale) +
                  " is not a positive number of centipawns");
    }
  }

  void Evaluate(EvalBatch<G>& batch) override {
    inner_->Evaluate(batch);
    for (int i = 0; i < batch.size(); ++i) {
      const auto& position = batch.position(i);
      // The leaf's legal moves: the batch's, or all of them behind a restricted root's (generated
      // into leaf_moves_, which the quiescence search then reorders).
      const bool restricted = batch.restricted(i);
      if (restricted) G::GenerateMoves(position, leaf_moves_);
      const std::span<const Move> moves =
          restricted ? std::span<const Move>(leaf_moves_.moves, size_t(leaf_moves_.size))
                     : batch.moves(i);
      const int num_legal = int(moves.size());
      int gain = 0;  // a quiet leaf's search is its static evaluation
      if (AlphaBeta<G>::IsQuiet(position, moves)) {
        ++nodes_;
      } else {
        if (!restricted) {
          leaf_moves_.size = num_legal;
          std::copy(moves.begin(), moves.end(), leaf_moves_.moves);
        }
        const int score = search_.QuiescenceScore(position, leaf_moves_, kLeafQuiescenceNodes,
                                                  kLeafQuiescencePlies);
        nodes_ += search_.nodes();
        gain = score - AlphaBeta<G>::Evaluate(position, num_legal);
      }
      batch.value(i) = CorrectLeafValue(batch.value(i), gain, scale_);
      if (prior_weight_ > 0 && !batch.defer_priors()) {
        MixTacticalPriors(position, batch.moves(i), batch.priors(i));
      }
    }
  }

  // The tactical priors are the deferred stage (Evaluator::CompletePriors): with a prior weight,
  // a batch that defers its priors gets the inner priors from Evaluate, and CompletePriors mixes
  // in the tactical policy, one quiescence search per legal move, only for the nodes the search
  // descends from. The inner evaluator's own deferred stage, if it has one, is forwarded and runs
  // first (the batch reaches it as it came).
  bool DefersPriors() const override { return prior_weight_ > 0 || inner_->DefersPriors(); }
  void CompletePriors(const typename G::Position& position, std::span<const Move> moves,
                      std::span<float> priors) override {
    if (inner_->DefersPriors()) inner_->CompletePriors(position, moves, priors);
    if (prior_weight_ > 0) MixTacticalPriors(position, moves, priors);
  }

  // The evaluator whose values are corrected (e.g. for a rollout player's per-game seeding).
  Evaluator<G>& inner() { return *inner_; }
  // Positions visited by the quiescence searches so far (their cost).
  int64_t nodes() const { return nodes_; }

 private:
  // prior(m) = (1 - lambda) P(m) + lambda t(m) (file comment).
  void MixTacticalPriors(const typename G::Position& position, std::span<const Move> moves,
                         std::span<float> priors) {
    scores_.resize(moves.size());
    float best = -1e30f;
    for (size_t k = 0; k < moves.size(); ++k) {
      typename G::Position child = position;
      G::ApplyMove(child, moves[k]);
      typename G::MoveList replies;
      G::GenerateMoves(child, replies);
      const Outcome outcome = G::LocalOutcome(child, replies.size);
      int score;
      if (outcome.IsTerminal()) {
        score = outcome.status == Status::kDraw                     ? 0
                : outcome.status == WinFor(G::SideToMove(position)) ? kMaxGainCentipawns
                                                                    : -kMaxGainCentipawns;
      } else if (AlphaBeta<G>::IsQuiet(child, {replies.moves, size_t(replies.size)})) {
        score = -AlphaBeta<G>::Evaluate(child, replies.size);
        ++nodes_;
      } else {
        score =
            -search_.QuiescenceScore(child, replies, kPriorQuiescenceNodes, kPriorQuiescencePlies);
        nodes_ += search_.nodes();
      }
      scores_[k] = float(std::clamp(score, -kMaxGainCentipawns, kMaxGainCentipawns));
      best = std::max(best, scores_[k]);
    }
    double inner_total = 0, tactical_total = 0;
    for (size_t k = 0; k < moves.size(); ++k) {
      inner_total += std::max(0.0f, priors[k]);
      scores_[k] = std::exp((scores_[k] - best) / kPriorTemperature);
      tactical_total += scores_[k];
    }
    for (size_t k = 0; k < moves.size(); ++k) {
      const double inner =
          inner_total > 0 ? std::max(0.0f, priors[k]) / inner_total : 1.0 / double(moves.size());
      priors[k] =
          float((1.0 - prior_weight_) * inner + prior_weight_ * scores_[k] / tactical_total);
    }
  }

  std::shared_ptr<Evaluator<G>> inner_;
  float prior_weight_;
  float scale_;
  std::vector<float> scores_;        // [legal move] of MixTacticalPriors
  typename G::MoveList leaf_moves_;  // a leaf's legal moves, reordered by its quiescence search
  AlphaBeta<G> search_{1024};        // quiescence only: the transposition table is never used
  int64_t nodes_ = 0;
};

// `evaluator` (not null) behind a QuiescenceEvaluator with the default weight and scale when `on`,
// else `evaluator` itself: the leaf quiescence switch of the commands that play (UCI's
// LeafQuiescence option, `vzero play`, the analysis engine).
template <Game G>
std::unique_ptr<Evaluator<G>> WithLeafQuiescence(std::unique_ptr<Evaluator<G>> evaluator, bool on) {
  if (!on) return evaluator;
  return std::make_unique<QuiescenceEvaluator<G>>(
      std::shared_ptr<Evaluator<G>>(std::move(evaluator)));
}

}  // namespace vz
