// The leaf correction of engine/search/quiescence_evaluator.h: its value map, the gain it reads
// from the quiescence search, and a search that finds a tactic its evaluator cannot see.

#include "engine/search/quiescence_evaluator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "engine/search/caching_evaluator.h"
#include "engine/search/mcts.h"
#include "engine/search/uniform_evaluator.h"
#include "tests/engine/search/search_test_util.h"
#include "tests/engine/search/test_evaluators.h"

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

// The decorator's value and priors are the file comment's formulas computed straight from the
// alpha-beta searcher, on positions of random games of every game (quiet leaves, captures, checks,
// compulsory captures): the shortcut for quiet positions changes nothing.
template <Game G>
void ExpectTheFormulasOnRandomGames() {
  const Wdl inner{0.25f, 0.35f, 0.4f};
  QuiescenceEvaluator<G> evaluator(std::make_shared<Fixed<G>>(inner), 0.5f);
  AlphaBeta<G> reference(1024);
  uint64_t seed = 7;
  int positions = 0, quiet = 0;  // quiet: positions the shortcut takes
  for (int game = 0; game < 12; ++game) {
    typename G::Position position = G::InitialPosition();
    for (int ply = 0; ply < 120; ++ply) {
      typename G::MoveList moves;
      G::GenerateMoves(position, moves);
      if (G::LocalOutcome(position, moves.size).IsTerminal()) break;
      EvalBatch<G> batch;
      batch.Add(position, moves.moves, moves.size, 1);
      evaluator.Evaluate(batch);
      const int gain =
          reference.QuiescenceScore(position, kLeafQuiescenceNodes, kLeafQuiescencePlies) -
          AlphaBeta<G>::Evaluate(position, moves.size);
      quiet += AlphaBeta<G>::IsQuiet(position, {moves.moves, size_t(moves.size)});
      const Wdl expected = CorrectLeafValue(inner, gain, kDefaultQuiescenceScale);
      ASSERT_EQ(batch.value(0).win, expected.win) << G::FormatPosition(position);
      ASSERT_EQ(batch.value(0).draw, expected.draw) << G::FormatPosition(position);
      // prior(m) = (1 - lambda) P(m) + lambda softmax((score(m) - best) / temperature)
      std::vector<double> scores;
      for (int k = 0; k < moves.size; ++k) {
        typename G::Position child = position;
        G::ApplyMove(child, moves[k]);
        typename G::MoveList replies;
        G::GenerateMoves(child, replies);
        const Outcome outcome = G::LocalOutcome(child, replies.size);
        int score = 0;
        if (outcome.IsTerminal()) {
          score = outcome.status == Status::kDraw                     ? 0
                  : outcome.status == WinFor(G::SideToMove(position)) ? kMaxGainCentipawns
                                                                      : -kMaxGainCentipawns;
        } else {
          score = -reference.QuiescenceScore(child, kPriorQuiescenceNodes, kPriorQuiescencePlies);
        }
        scores.push_back(std::clamp(score, -kMaxGainCentipawns, kMaxGainCentipawns));
      }
      const double best = *std::max_element(scores.begin(), scores.end());
      double total = 0;
      for (double& score : scores) total += (score = std::exp((score - best) / kPriorTemperature));
      const double inner_total = double(moves.size) * double(moves.size + 1) / 2;  // 1 + 2 + ...
      for (int k = 0; k < moves.size; ++k) {
        const double prior = 0.5 * double(k + 1) / inner_total + 0.5 * scores[size_t(k)] / total;
        ASSERT_NEAR(std::as_const(batch).priors(0)[size_t(k)], prior, 1e-5)
            << G::FormatPosition(position) << " " << k;
      }
      ++positions;
      seed = SplitMix64(seed);
      G::ApplyMove(position, moves[int(seed % uint64_t(moves.size))]);
    }
  }
  EXPECT_GT(positions, 200);
  EXPECT_GT(quiet, 0);
  EXPECT_LT(quiet, positions);
}

TEST(QuiescenceEvaluatorTest, ValuesAndPriorsAreTheFormulasOnRandomGames) {
  ExpectTheFormulasOnRandomGames<ChacoRex>();
  ExpectTheFormulasOnRandomGames<chad::ChadGame>();
  ExpectTheFormulasOnRandomGames<cuarenta::CuarentaGame>();
  ExpectTheFormulasOnRandomGames<Draughts>();
}

// A Chaco Rex middle game with captures on both sides (a game of alphabeta:movetime=1000 against
// alphabeta:4, after 30 plies).
const char kChacoRexMiddleGame[] =
    "rnq1bk1n1/pppppp1pbp/3pp1p1p/3p1p4/1P5Pr/1N1PR1P3/4PNP1P/PPP1PPP2P/3QBKB1R w - 2 16";

// A decorator that does not forward the deferred stage: the driver then asks for whole priors,
// so `inner` computes them in Evaluate (the search as it was before deferred priors). Counts the
// positions evaluated.
template <Game G>
class Eager final : public Evaluator<G> {
 public:
  explicit Eager(Evaluator<G>& inner) : inner_(inner) {}
  void Evaluate(EvalBatch<G>& batch) override {
    EXPECT_FALSE(batch.defer_priors());
    inner_.Evaluate(batch);
    evaluated += batch.size();
  }
  int64_t evaluated = 0;

 private:
  Evaluator<G>& inner_;
};

// Counts the completions of the deferred stage of `inner` and the positions evaluated.
template <Game G>
class CountingCompletions final : public Evaluator<G> {
 public:
  explicit CountingCompletions(Evaluator<G>& inner) : inner_(inner) {}
  void Evaluate(EvalBatch<G>& batch) override {
    inner_.Evaluate(batch);
    evaluated += batch.size();
  }
  bool DefersPriors() const override { return inner_.DefersPriors(); }
  void CompletePriors(const typename G::Position& position, std::span<const Move> moves,
                      std::span<float> priors) override {
    ++completions;
    inner_.CompletePriors(position, moves, priors);
  }
  int64_t evaluated = 0;
  int64_t completions = 0;

 private:
  Evaluator<G>& inner_;
};

// The tactical priors as a deferred stage: a deferring batch gets the inner priors from
// Evaluate (and the same corrected value), and CompletePriors on them gives the very priors a
// batch that does not defer gets at once.
template <Game G>
void ExpectDeferredPriorsCompleteToTheEagerOnes(const typename G::Position& position) {
  QuiescenceEvaluator<G> evaluator(std::make_shared<Fixed<G>>(Wdl{0.2f, 0.5f, 0.3f}), 0.5f);
  EXPECT_TRUE(evaluator.DefersPriors());
  EXPECT_FALSE(QuiescenceEvaluator<G>(std::make_shared<Fixed<G>>(Wdl{}), 0.0f).DefersPriors());
  typename G::MoveList moves;
  G::GenerateMoves(position, moves);
  EvalBatch<G> eager, deferred;
  eager.Add(position, moves.moves, moves.size, 1);
  deferred.Add(position, moves.moves, moves.size, 1);
  deferred.set_defer_priors(true);
  evaluator.Evaluate(eager);
  evaluator.Evaluate(deferred);
  EXPECT_EQ(eager.value(0).Value(), deferred.value(0).Value());
  std::vector<float> priors(deferred.priors(0).begin(), deferred.priors(0).end());
  for (int k = 0; k < moves.size; ++k) {
    EXPECT_EQ(priors[size_t(k)], float(k + 1));  // the inner priors, untouched
  }
  evaluator.CompletePriors(position, deferred.moves(0), priors);
  for (int k = 0; k < moves.size; ++k) {
    EXPECT_EQ(priors[size_t(k)], std::as_const(eager).priors(0)[size_t(k)]) << k;
  }
}

TEST(QuiescenceEvaluatorTest, DeferredPriorsCompleteToTheEagerOnes) {
  ExpectDeferredPriorsCompleteToTheEagerOnes<Draughts>(Draughts::ParsePosition(kTwoForOne));
  ExpectDeferredPriorsCompleteToTheEagerOnes<ChacoRex>(
      ChacoRex::ParsePosition(kChacoRexMiddleGame));
}

// A search with the tactical priors deferred is the search with them computed at every leaf:
// the same visits, values and priors at the root (to the float), PUCT with Dirichlet noise and
// Gumbel, with batches of 16 leaves; on a root kept by tree reuse whose priors were still deferred
// (a position two plies down evaluated once), before any simulation and after; and it completes
// the priors of far fewer nodes than it evaluates. Every node the search descended from has its
// priors complete.
TEST(QuiescenceEvaluatorTest, DeferredPriorsSearchAsEagerOnesWithFewerCompletions) {
  for (const bool gumbel : {false, true}) {
    search_testing::HashEvaluator<ChacoRex> hash;
    auto inner = std::shared_ptr<Evaluator<ChacoRex>>(&hash, [](Evaluator<ChacoRex>*) {});
    QuiescenceEvaluator<ChacoRex> quiescence_eager(inner);
    QuiescenceEvaluator<ChacoRex> quiescence_deferred(inner);
    Eager<ChacoRex> eager(quiescence_eager);
    CountingCompletions<ChacoRex> deferred(quiescence_deferred);
    SearchParams params;
    params.gumbel = gumbel;
    params.leaves_per_round = 16;
    params.dirichlet_epsilon = gumbel ? 0.0f : 0.25f;
    Mcts<ChacoRex> eager_search(params), deferred_search(params);
    auto expect_same = [&](const char* when) {
      const SearchResult a = eager_search.Result(), b = deferred_search.Result();
      ASSERT_EQ(a.moves.size(), b.moves.size()) << when;
      for (size_t k = 0; k < a.moves.size(); ++k) {
        EXPECT_EQ(a.moves[k].move, b.moves[k].move) << when;
        EXPECT_EQ(a.moves[k].visits, b.moves[k].visits) << when << " gumbel " << gumbel << " " << k;
        EXPECT_EQ(a.moves[k].prior, b.moves[k].prior) << when << " gumbel " << gumbel << " " << k;
        EXPECT_EQ(a.moves[k].q, b.moves[k].q) << when;
        EXPECT_EQ(a.moves[k].policy_target, b.moves[k].policy_target) << when;
      }
      EXPECT_EQ(eager_search.BestMove(), deferred_search.BestMove()) << when;
      const SearchTree& tree = deferred_search.tree();
      EXPECT_EQ(tree.priors_pending[SearchTree::kRoot], 0) << when;
      for (int32_t node = 0; node < tree.size; ++node) {
        if (tree.Expanded(node) && tree.visits[node] >= 2) {
          EXPECT_EQ(tree.priors_pending[node], 0) << when << " node " << node;
        }
      }
    };
    auto search = [&](int64_t simulations) {
      eager_search.StartSearch(simulations, eager);
      deferred_search.StartSearch(simulations, deferred);
      SearchDriver<ChacoRex> driver;
      Mcts<ChacoRex>* one = &eager_search;
      driver.Run(eager, std::span<Mcts<ChacoRex>* const>(&one, 1));
      one = &deferred_search;
      driver.Run(deferred, std::span<Mcts<ChacoRex>* const>(&one, 1));
    };
    GameState<ChacoRex> game(ChacoRex::ParsePosition(kChacoRexMiddleGame));
    eager_search.SetRoot(game);
    deferred_search.SetRoot(game);
    search(300);
    expect_same("first search");

    // A position two plies down evaluated once: its priors are still deferred when it becomes the
    // root (the move and the reply played, as a match's player sees them).
    const SearchTree& tree = deferred_search.tree();
    int32_t once = SearchTree::kNone;
    for (int i = 0; i < tree.num_children[SearchTree::kRoot] && once == SearchTree::kNone; ++i) {
      const int32_t child = tree.first_child[SearchTree::kRoot] + i;
      for (int j = 0; j < tree.num_children[child] && once == SearchTree::kNone; ++j) {
        const int32_t grandchild = tree.first_child[child] + j;
        if (tree.Expanded(grandchild) && tree.priors_pending[grandchild]) once = grandchild;
      }
    }
    ASSERT_NE(once, SearchTree::kNone) << gumbel;
    EXPECT_EQ(tree.visits[once], 1);
    game.Play(tree.move[tree.parent[once]]);
    game.Play(tree.move[once]);
    eager_search.SetRoot(game);
    deferred_search.SetRoot(game);
    EXPECT_EQ(deferred_search.tree().priors_pending[SearchTree::kRoot], 1);
    search(0);
    expect_same("kept root, no simulation");
    search(300);
    expect_same("kept root");

    game.Play(eager_search.BestMove());  // a kept root with many visits
    eager_search.SetRoot(game);
    deferred_search.SetRoot(game);
    search(300);
    expect_same("third search");
    EXPECT_EQ(eager.evaluated, deferred.evaluated);
    EXPECT_GT(deferred.completions, 0);
    EXPECT_LT(deferred.completions, deferred.evaluated) << gumbel;
  }
}

// Completes priors as `inner` does, but throws on its `fail_at`-th completion.
template <Game G>
class FailingCompletion final : public Evaluator<G> {
 public:
  FailingCompletion(Evaluator<G>& inner, int fail_at) : inner_(inner), fail_at_(fail_at) {}
  void Evaluate(EvalBatch<G>& batch) override { inner_.Evaluate(batch); }
  bool DefersPriors() const override { return inner_.DefersPriors(); }
  void CompletePriors(const typename G::Position& position, std::span<const Move> moves,
                      std::span<float> priors) override {
    if (++completions_ == fail_at_) throw Error("completion failed");
    inner_.CompletePriors(position, moves, priors);
  }

 private:
  Evaluator<G>& inner_;
  int fail_at_;
  int completions_ = 0;
};

// A completion that throws in the middle of a gather: the driver cancels the round, the descent
// in progress is undone (no virtual loss left anywhere), the node keeps its priors deferred, and
// the search goes on to its whole budget with the same result as a search that never failed.
TEST(QuiescenceEvaluatorTest, AFailedCompletionLeavesAUsableTree) {
  for (const bool gumbel : {false, true}) {
    search_testing::HashEvaluator<ChacoRex> hash;
    auto inner = std::shared_ptr<Evaluator<ChacoRex>>(&hash, [](Evaluator<ChacoRex>*) {});
    QuiescenceEvaluator<ChacoRex> quiescence(inner);
    FailingCompletion<ChacoRex> failing(quiescence, 5);
    SearchParams params;
    params.gumbel = gumbel;
    params.leaves_per_round = 8;
    const GameState<ChacoRex> game(ChacoRex::ParsePosition(kChacoRexMiddleGame));
    Mcts<ChacoRex> search(params), reference(params);
    search.SetRoot(game);
    reference.SetRoot(game);
    search.StartSearch(200, failing);
    Mcts<ChacoRex>* self = &search;
    SearchDriver<ChacoRex> driver;
    EXPECT_THROW(driver.Run(failing, std::span<Mcts<ChacoRex>* const>(&self, 1)), Error);
    search_testing::ExpectConsistentTree(search, /*exact=*/false);
    driver.Run(failing, std::span<Mcts<ChacoRex>* const>(&self, 1));
    search_testing::ExpectConsistentTree(search, /*exact=*/false);
    EXPECT_TRUE(search.Done());
    EXPECT_EQ(search.simulations(), 200);
    reference.Search(quiescence, 200);
    EXPECT_EQ(search.BestMove(), reference.BestMove()) << gumbel;
  }
}

// Records, for each position evaluated, whether its batch entry was a restricted root's;
// forwards the deferred stage.
template <Game G>
class RestrictionRecorder final : public Evaluator<G> {
 public:
  explicit RestrictionRecorder(Evaluator<G>& inner) : inner_(inner) {}
  void Evaluate(EvalBatch<G>& batch) override {
    for (int i = 0; i < batch.size(); ++i) restricted.push_back(batch.restricted(i));
    inner_.Evaluate(batch);
  }
  bool DefersPriors() const override { return inner_.DefersPriors(); }
  void CompletePriors(const typename G::Position& position, std::span<const Move> moves,
                      std::span<float> priors) override {
    inner_.CompletePriors(position, moves, priors);
  }
  std::vector<bool> restricted;

 private:
  Evaluator<G>& inner_;
};

// A root restricted by `go searchmoves` to quiet moves keeps the whole position's value: the
// capture search behind it still tries every legal move (the batch entry says it is restricted),
// directly, through the cache (which does not store the restricted entry), and in a search
// with the tactical priors deferred; only the priors are over the allowed moves.
TEST(QuiescenceEvaluatorTest, RestrictedRootKeepsTheWholePositionsValue) {
  // The first position of a random game from the middle game where the side to move wins
  // material by a capture (its corrected value differs from the inner one) and has two quiet
  // moves to be restricted to.
  const Wdl inner{0.3f, 0.4f, 0.3f};
  ChacoRex::Position position = ChacoRex::ParsePosition(kChacoRexMiddleGame);
  typename ChacoRex::MoveList moves;
  std::vector<Move> quiet;
  uint64_t rng = 7;
  bool found = false;
  for (int ply = 0; ply < 200 && !found; ++ply) {
    ChacoRex::GenerateMoves(position, moves);
    ASSERT_FALSE(ChacoRex::LocalOutcome(position, moves.size).IsTerminal());
    quiet.clear();
    for (int k = 0; k < moves.size; ++k) {
      if (AlphaBeta<ChacoRex>::IsQuiet(position, {&moves.moves[k], 1})) quiet.push_back(moves[k]);
    }
    found = quiet.size() >= 2 && CorrectedValue<ChacoRex>(position, inner).Value() != inner.Value();
    if (!found) {
      rng = SplitMix64(rng);
      ChacoRex::ApplyMove(position, moves[int(rng % uint64_t(moves.size))]);
    }
  }
  ASSERT_TRUE(found);
  quiet.resize(2);
  QuiescenceEvaluator<ChacoRex> evaluator(std::make_shared<Fixed<ChacoRex>>(inner), 0.5f);
  CachingEvaluator<ChacoRex> cache(evaluator, 64);
  for (Evaluator<ChacoRex>* e :
       {static_cast<Evaluator<ChacoRex>*>(&evaluator), static_cast<Evaluator<ChacoRex>*>(&cache)}) {
    EvalBatch<ChacoRex> batch;
    batch.Add(position, moves.moves, moves.size, 1);
    batch.Add(position, quiet.data(), int(quiet.size()), 1, /*restricted=*/true);
    EXPECT_FALSE(batch.restricted(0));
    EXPECT_TRUE(batch.restricted(1));
    e->Evaluate(batch);
    EXPECT_NE(batch.value(0).Value(), inner.Value());  // the capture search moved it
    EXPECT_EQ(batch.value(1).Value(), batch.value(0).Value());
    const std::span<const float> priors = std::as_const(batch).priors(1);
    ASSERT_EQ(priors.size(), 2u);
    EXPECT_NEAR(priors[0] + priors[1], 1.0f, 1e-5f);
  }
  EXPECT_EQ(cache.hits(), 0);
  // The restricted entry was not stored: the next look-up of the whole position is a hit, and a
  // restricted one is a miss again.
  EvalBatch<ChacoRex> again;
  again.Add(position, moves.moves, moves.size, 1);
  again.Add(position, quiet.data(), int(quiet.size()), 1, /*restricted=*/true);
  cache.Evaluate(again);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 3);

  // In a search: only the root's entry is marked, and the restricted root's value is the whole
  // position's.
  RestrictionRecorder<ChacoRex> recorder(evaluator);
  Mcts<ChacoRex> whole, restricted;
  GameState<ChacoRex> game(position);
  whole.SetRoot(game);
  restricted.SetRoot(game);
  restricted.RestrictRootMoves(quiet);
  whole.Search(evaluator, 1);
  restricted.Search(recorder, 1);
  ASSERT_GE(recorder.restricted.size(), 2u);
  EXPECT_TRUE(recorder.restricted[0]);
  for (size_t k = 1; k < recorder.restricted.size(); ++k) EXPECT_FALSE(recorder.restricted[k]);
  const SearchTree& a = whole.tree();
  const SearchTree& b = restricted.tree();
  EXPECT_EQ(a.raw_value[SearchTree::kRoot], b.raw_value[SearchTree::kRoot]);
  EXPECT_EQ(restricted.Result().moves.size(), 2u);
  EXPECT_EQ(b.priors_pending[SearchTree::kRoot], 0);  // completed over the allowed moves
  search_testing::ExpectConsistentTree(restricted, /*exact=*/false);
}

// A cache in front of deferred priors keeps the two kinds of entries apart: a position stored
// from a batch that deferred its priors is not served to one that did not (whose priors must be
// whole), and the deferred stage is passed through.
TEST(QuiescenceEvaluatorTest, CacheKeepsDeferredAndWholePriorsApart) {
  const Draughts::Position position = Draughts::ParsePosition(kTwoForOne);
  QuiescenceEvaluator<Draughts> quiescence(std::make_shared<Fixed<Draughts>>(Wdl{}), 0.5f);
  CachingEvaluator<Draughts> cache(quiescence, 64);
  EXPECT_TRUE(cache.DefersPriors());
  typename Draughts::MoveList moves;
  Draughts::GenerateMoves(position, moves);
  auto evaluate = [&](bool defer) {
    EvalBatch<Draughts> batch;
    batch.set_defer_priors(defer);
    batch.Add(position, moves.moves, moves.size, 1);
    cache.Evaluate(batch);
    const auto priors = std::as_const(batch).priors(0);
    return std::vector<float>(priors.begin(), priors.end());
  };
  // One slot for the position (direct-mapped): each kind replaces the other.
  const std::vector<float> deferred = evaluate(true);
  EXPECT_EQ(evaluate(true), deferred);
  EXPECT_EQ(cache.hits(), 1);
  const std::vector<float> whole = evaluate(false);
  EXPECT_EQ(cache.hits(), 1);
  for (int k = 0; k < moves.size; ++k) EXPECT_EQ(deferred[size_t(k)], float(k + 1));
  EXPECT_NE(whole, deferred);
  EXPECT_EQ(evaluate(false), whole);
  EXPECT_EQ(cache.hits(), 2);
  EXPECT_EQ(evaluate(true), deferred);
  EXPECT_EQ(cache.hits(), 2);
  std::vector<float> completed = deferred;
  cache.CompletePriors(position, std::span<const Move>(moves.moves, size_t(moves.size)), completed);
  EXPECT_EQ(completed, whole);
}

}  // namespace
}  // namespace vz
