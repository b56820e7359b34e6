#pragma once

// The network evaluator of the search (vz::Evaluator<G>, engine/search/evaluator.h): encodes each
// position of a batch with InputEncoding<G> (engine/<game>/encoding.h), runs the network once per
// batch on its device (NetRunner: no gradients; precision `auto`: nets/net_runner.h), and turns
// the policy logits of the legal moves into priors.
//
// Priors: a softmax over the distinct policy indices of the legal moves only (illegal moves are
// masked before the softmax, so they get exactly zero). Moves that share an index (draughts
// captures with the same start and end squares) share its probability equally, so the priors of
// a position sum to 1. Values: the WDL head's softmax, from the side to move's point of view.
// Results depend only on the position and its repetition count, so every entry stays cacheable.
// A net whose output holds NaN or Inf makes Evaluate throw vz::Error naming the net file (never a
// prior or value that is not a number reaches the search).
// Thread-safety: Evaluate may be called from several threads at once (serialised by a mutex).

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "engine/encodings.h"
#include "engine/search/evaluator.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"

namespace vz::nets {

template <Game G>
class TorchEvaluator final : public Evaluator<G> {
 public:
  using Encoding = InputEncoding<G>;

  // Loads `net` (checked against G's encodings; `source` names it in errors) on `device` in
  // `precision` with the runner's `options` (nets/net_runner.h) and warms it up with a batch of
  // `warmup_batch` (0: none). Throws vz::Error if the net does not fit G, or on the errors of
  // NetRunner.
  TorchEvaluator(const NetFile& net, std::string_view source, const std::string& device,
                 const std::string& precision = "auto", int warmup_batch = 16,
                 const RunnerOptions& options = {}) {
    CheckNetForGame<G>(net, source);
    runner_ = std::make_unique<NetRunner>(net, source, device, precision, options);
    if (warmup_batch > 0) runner_->WarmUp(warmup_batch);
  }

  void Evaluate(EvalBatch<G>& batch) override {
    if (batch.size() == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    const int n = batch.size();
    planes_.resize(size_t(n) * Encoding::kSize);
    offsets_.assign(1, 0);
    actions_.clear();
    move_slot_.clear();
    for (int i = 0; i < n; ++i) {
      const typename G::Position& position = batch.position(i);
      Encoding::Encode(position, batch.repetition_count(i),
                       planes_.data() + size_t(i) * Encoding::kSize);
      // Distinct policy indices of this entry; move_slot_ maps each move to its index's slot.
      const int first = int(actions_.size());
      for (Move move : batch.moves(i)) {
        const int action = Encoding::PolicyIndex(position, move);
        int slot = first;
        if constexpr (G::kActionsMayCollide) {
          while (slot < int(actions_.size()) && actions_[size_t(slot)] != action) ++slot;
        } else {
          slot = int(actions_.size());
        }
        if (slot == int(actions_.size())) actions_.push_back(action);
        move_slot_.push_back(slot);
      }
      offsets_.push_back(int32_t(actions_.size()));
    }
    logits_.resize(actions_.size());
    wdl_.resize(size_t(n) * 3);
    runner_->Run(planes_.data(), n, offsets_.data(), actions_.data(), logits_.data(), wdl_.data());

    size_t move_index = 0;
    for (int i = 0; i < n; ++i) {
      const int begin = offsets_[size_t(i)], end = offsets_[size_t(i) + 1];
      float max_logit = -INFINITY;
      for (int k = begin; k < end; ++k) max_logit = std::max(max_logit, logits_[size_t(k)]);
      double sum = 0.0;
      for (int k = begin; k < end; ++k) {
        logits_[size_t(k)] = std::exp(logits_[size_t(k)] - max_logit);
        sum += logits_[size_t(k)];
      }
      sharers_.assign(size_t(end - begin), 0);
      const size_t first_move = move_index;
      for (int m = 0; m < batch.num_moves(i); ++m)
        ++sharers_[size_t(move_slot_[first_move + m] - begin)];
      std::span<float> priors = batch.priors(i);
      for (size_t m = 0; m < priors.size(); ++m, ++move_index) {
        const int slot = move_slot_[move_index];
        priors[m] = float(logits_[size_t(slot)] / sum) / float(sharers_[size_t(slot - begin)]);
      }
      batch.value(i) = Wdl{wdl_[size_t(i) * 3], wdl_[size_t(i) * 3 + 1], wdl_[size_t(i) * 3 + 2]};
    }
  }

  const NetRunner& runner() const { return *runner_; }

 private:
  std::unique_ptr<NetRunner> runner_;
  std::mutex mutex_;
  std::vector<float> planes_;     // [batch][kSize]
  std::vector<int32_t> offsets_;  // [batch + 1] into actions_
  std::vector<int32_t> actions_;  // [distinct actions] per entry, in first-move order
  std::vector<int> move_slot_;    // [total moves] slot in actions_ of each legal move
  std::vector<float> logits_;     // [distinct actions] logits, then unnormalised probabilities
  std::vector<int> sharers_;      // [distinct actions of one entry] moves sharing the action
  std::vector<float> wdl_;        // [batch][3]
};

// The hook for `vzero search --evaluator net --net FILE --device D`: reads the net file at
// `path`, checks it is for G, and returns its evaluator. Throws vz::Error naming the file or the
// device on any fault (see ReadNetFile, CheckNetForGame, NetRunner).
template <Game G>
std::unique_ptr<Evaluator<G>> MakeTorchEvaluator(const std::string& path,
                                                 const std::string& device = "cpu",
                                                 const std::string& precision = "auto") {
  return std::make_unique<TorchEvaluator<G>>(ReadNetFile(path), path, device, precision);
}

}  // namespace vz::nets
