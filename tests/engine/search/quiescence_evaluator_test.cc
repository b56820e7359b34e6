// The leaf correction of engine/search/quiescence_evaluator.h: its value map, the gain it reads
// from the quiescence search, and a search that finds a tactic its evaluator cannot see.

#include "engine/search/quiescence_evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/games.h"
#include "engine/search/mcts.h"
#include "engine/search/uniform_evaluator.h"

namespace vz {
namespace {

using Draughts = draughts::DraughtsGame;
using ChacoRex = chaco_rex::ChacoRexGame;

// An inner evaluator with one value for every position and priors 1, 2, 3, ... (unnormalized).
template <Game G>
class Fixed final : public Evaluator<G> {
 public:
  explicit Fixed(Wdl value) : value_(value) {}
  void Evaluate(EvalBatch<G>& batch) override {
    for (int i = 0; i < batch.size(); ++i) {
      batch.value(i) = value_;
      std::span<float> priors = batch.priors(i);
      for (size_t k = 0; k < priors.size(); ++k) priors[k] = float(k + 1);
    }
  }

 private:
  Wdl value_;
};

// The decorator's output for `position`: its value and priors.
template <Game G>
std::pair<Wdl, std::vector<float>> Corrected(const typename G::Position& position, Wdl inner_value,
                                             float prior_weight) {
  QuiescenceEvaluator<G> evaluator(std::make_shared<Fixed<G>>(inner_value), prior_weight);
  EvalBatch<G> batch;
  typename G::MoveList moves;
  G::GenerateMoves(position, moves);
  batch.Add(position, moves.moves, moves.size, 1);
  evaluator.Evaluate(batch);
  EXPECT_GT(evaluator.nodes(), 0);
  const std::span<const float> priors = std::as_const(batch).priors(0);
  return {batch.value(0), std::vector<float>(priors.begin(), priors.end())};
}

template <Game G>
Wdl CorrectedValue(const typename G::Position& position, Wdl inner_value) {
  return Corrected<G>(position, inner_value, 0.0f).first;
}

void ExpectValid(const Wdl& wdl) {
  EXPECT_GE(wdl.win, 0.0f);
  EXPECT_GE(wdl.draw, 0.0f);
  EXPECT_GE(wdl.loss, 0.0f);
  EXPECT_NEAR(wdl.win + wdl.draw + wdl.loss, 1.0f, 1e-5f);
}

TEST(QuiescenceEvaluatorTest, CorrectionMapsGainsThroughAtanhSpace) {
  const Wdl even{0.3f, 0.4f, 0.3f};
  // No gain: the inner value as it was.
  EXPECT_NEAR(CorrectLeafValue(even, 0, 400).Value(), 0.0f, 1e-6f);
  EXPECT_NEAR(CorrectLeafValue(even, 0, 400).draw, 0.4f, 1e-6f);
  // A pawn from an even position: tanh(100 / 400).
  EXPECT_NEAR(CorrectLeafValue(even, 100, 400).Value(), std::tanh(0.25f), 1e-5f);
  EXPECT_NEAR(CorrectLeafValue(even, -900, 400).Value(), -std::tanh(2.25f), 1e-5f);
  // Monotone in the gain and in the inner value; never past +-1, whatever the gain.
  float last = -2.0f;
  for (int gain = -5000; gain <= 5000; gain += 250) {
    const Wdl wdl = CorrectLeafValue(Wdl{0.6f, 0.1f, 0.3f}, gain, 400);
    ExpectValid(wdl);
    EXPECT_LE(wdl.draw, 1.0f - std::fabs(wdl.Value()) + 1e-5f);
    EXPECT_GE(wdl.Value(), last);
    last = wdl.Value();
  }
  EXPECT_GT(CorrectLeafValue(Wdl{0.9f, 0.0f, 0.1f}, 100, 400).Value(),
            CorrectLeafValue(Wdl{0.5f, 0.0f, 0.5f}, 100, 400).Value());
  // A certain inner value stays finite.
  ExpectValid(CorrectLeafValue(Wdl{1.0f, 0.0f, 0.0f}, -300, 400));
  EXPECT_LT(CorrectLeafValue(Wdl{1.0f, 0.0f, 0.0f}, -3000, 400).Value(), 0.0f);
}

TEST(QuiescenceEvaluatorTest, RejectsBadArguments) {
  EXPECT_THROW(QuiescenceEvaluator<Draughts>(nullptr), Error);
  auto inner = std::make_shared<UniformEvaluator<Draughts>>();
  EXPECT_THROW(QuiescenceEvaluator<Draughts>(inner, 0.5f, 0.0f), Error);
  EXPECT_THROW(QuiescenceEvaluator<Draughts>(inner, 0.5f, std::nanf("")), Error);
  EXPECT_THROW(QuiescenceEvaluator<Draughts>(inner, 1.5f), Error);
  EXPECT_THROW(QuiescenceEvaluator<Draughts>(inner, std::nanf("")), Error);
}

TEST(QuiescenceEvaluatorTest, QuietPositionsKeepTheirValue) {
  const Wdl inner{0.5f, 0.2f, 0.3f};
  for (const Wdl& wdl : {CorrectedValue<Draughts>(Draughts::InitialPosition(), inner),
                         CorrectedValue<ChacoRex>(ChacoRex::InitialPosition(), inner)}) {
    EXPECT_FLOAT_EQ(wdl.win, inner.win);
    EXPECT_FLOAT_EQ(wdl.draw, inner.draw);
    EXPECT_FLOAT_EQ(wdl.loss, inner.loss);
  }
}

// White's shot 13-18 (tests/engine/alphabeta): whichever man takes it, White takes two back. The
// leaf with Black to move right after the sacrifice looks even to an evaluator that counts no
// tactics; the capture search sees Black a man down at the end of the forced line.
const char kTwoForOne[] = "W:W7,9,11,13:B21,22,29,32";

// Minimax-informed priors: the shot gets the largest prior though the inner priors rank it
// anywhere; the priors stay a distribution, and weight 0 leaves the inner ones as they were.
TEST(QuiescenceEvaluatorTest, InformedPriorsFavourTheShot) {
  const Draughts::Position position = Draughts::ParsePosition(kTwoForOne);
  typename Draughts::MoveList moves;
  Draughts::GenerateMoves(position, moves);
  int shot = -1;
  for (int k = 0; k < moves.size; ++k) {
    if (Draughts::FormatMove(position, moves[k]) == "13-18") shot = k;
  }
  ASSERT_GE(shot, 0);
  const auto [value, mixed] = Corrected<Draughts>(position, Wdl{}, 0.5f);
  double total = 0;
  for (int k = 0; k < moves.size; ++k) {
    total += mixed[size_t(k)];
    if (k != shot) {
      EXPECT_GT(mixed[size_t(shot)], mixed[size_t(k)]) << k;
    }
  }
  EXPECT_NEAR(total, 1.0, 1e-5);
  const auto [same, inner] = Corrected<Draughts>(position, Wdl{}, 0.0f);
  for (int k = 0; k < moves.size; ++k) EXPECT_EQ(inner[size_t(k)], float(k + 1));
}

TEST(QuiescenceEvaluatorTest, ForcedCaptureLineLowersTheLeaf) {
  GameState<Draughts> game(Draughts::ParsePosition(kTwoForOne));
  game.Play("13-18");
  const Wdl wdl = CorrectedValue<Draughts>(game.position(), Wdl{0.0f, 1.0f, 0.0f});
  ExpectValid(wdl);
  EXPECT_LT(wdl.Value(), -0.1f);  // about a man (100 centipawns) down for Black
}

// A search whose evaluator knows nothing (uniform priors, every leaf a draw) plays the shot once
// its leaves are corrected, and not without.
TEST(QuiescenceEvaluatorTest, SearchFindsTheShotOnlyWithTheCorrection) {
  const GameState<Draughts> game(Draughts::ParsePosition(kTwoForOne));
  auto uniform = std::make_shared<UniformEvaluator<Draughts>>();
  QuiescenceEvaluator<Draughts> corrected(uniform);
  SearchParams params;
  Mcts<Draughts> with(params);
  with.SetRoot(game);
  with.Search(corrected, 200);
  EXPECT_EQ(Draughts::FormatMove(game.position(), with.BestMove()), "13-18");
  Mcts<Draughts> without(params);
  without.SetRoot(game);
  without.Search(*uniform, 200);
  EXPECT_NEAR(without.Result().root_q, 0.0f, 1e-6f);  // every leaf a draw: no move stands out
}

}  // namespace
}  // namespace vz
