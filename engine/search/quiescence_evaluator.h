#pragma once

// Tactical safety at the leaves of the tree search: a decorator that corrects each leaf value of
// an inner evaluator (a net, rollouts) by a shallow capture search, after Baier & Winands' hybrids
// of MCTS and minimax ("MCTS-Minimax Hybrids", IEEE TCIAIG 2015): a few Gumbel or PUCT
// simulations leave the opponent's capture two plies down unexpanded, and a leaf where a piece
// hangs is scored as if it did not.
//
// For a leaf position p with the side to move S:
//   gain  = QuiescenceScore(p) - Evaluate(p)   (engine/alphabeta/alphabeta.h, centipawns, S's view)
//           what S wins by its best line of captures and promotions over standing pat (0 when
//           standing pat is best; negative only where S must move: in check, or a draughts
//           capture is compulsory); clamped to +-kMaxGainCentipawns;
//   value = tanh(atanh(v) + gain / scale)       v = W - L of the inner evaluator, clamped to
//           +-kMaxInnerValue so that atanh is finite; scale = centipawns per unit of atanh(value)
//           (default 400: a pawn moves an even position to 0.24, a queen to 0.98);
//   draw  = min(D, 1 - |value|), and W, L from value and draw (Wdl::FromValueAndDraw).
// The priors are the inner evaluator's, untouched. The gain uses the alpha-beta baseline's
// hand-written material values (engine/alphabeta/evaluation.h): a search with this decorator is
// not zero-knowledge.
//
// Cost: one quiescence search per leaf on the host (tens to thousands of positions visited),
// beside the inner evaluation; `vzero bench`-style figures in docs/strength.md.
// Not thread-safe (one alpha-beta searcher inside); one instance per thread, or shared by the
// players of one thread like any evaluator.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

#include "engine/alphabeta/alphabeta.h"
#include "engine/core/error.h"
#include "engine/search/evaluator.h"

namespace vz {

// Defaults of the leaf correction (see the file comment).
inline constexpr float kDefaultQuiescenceScale = 400.0f;  // centipawns per unit of atanh(value)
inline constexpr int kMaxGainCentipawns = 3000;           // a found mate counts as this much
inline constexpr float kMaxInnerValue = 0.999f;           // |v| before atanh

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
  // `inner` (not null) gives priors and values; `scale` > 0 (centipawns per unit of atanh(value)).
  // Throws vz::Error for a null inner evaluator or a scale that is not a positive finite number.
  explicit QuiescenceEvaluator(std::shared_ptr<Evaluator<G>> inner,
                               float scale = kDefaultQuiescenceScale)
      : inner_(std::move(inner)), scale_(scale) {
    if (!inner_) throw Error("leaf quiescence: no inner evaluator");
    if (!(std::isfinite(scale) && scale > 0)) {
      throw Error("leaf quiescence: scale " + std::to_string(scale) +
                  " is not a positive number of centipawns");
    }
  }

  void Evaluate(EvalBatch<G>& batch) override {
    inner_->Evaluate(batch);
    for (int i = 0; i < batch.size(); ++i) {
      const auto& position = batch.position(i);
      const int score = search_.QuiescenceScore(position);
      nodes_ += search_.nodes();
      const int gain = score - AlphaBeta<G>::Evaluate(position, batch.num_moves(i));
      batch.value(i) = CorrectLeafValue(batch.value(i), gain, scale_);
    }
  }

  // The evaluator whose values are corrected (e.g. for a rollout player's per-game seeding).
  Evaluator<G>& inner() { return *inner_; }
  // Positions visited by the quiescence searches so far (their cost).
  int64_t nodes() const { return nodes_; }

 private:
  std::shared_ptr<Evaluator<G>> inner_;
  float scale_;
  AlphaBeta<G> search_{1024};  // quiescence only: the transposition table is never used
  int64_t nodes_ = 0;
};

}  // namespace vz
