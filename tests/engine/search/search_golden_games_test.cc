// Golden search outputs on the four real games: fixed positions searched with fixed seeds by
// PUCT with the uniform evaluator, Gumbel with random playouts, and PUCT with playouts and
// Dirichlet root noise. Any change of the search, the move generators or the move order shows up
// as a diff against tests/data/golden/search_real_games.txt; after an intended change,
// regenerate it with VZ_UPDATE_GOLDEN=1 and review the diff.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/games.h"
#include "engine/search/mcts.h"
#include "engine/search/rollout_evaluator.h"
#include "engine/search/uniform_evaluator.h"

namespace vz {
namespace {

constexpr uint64_t kSeed = 20240607;

// A root position: `fen` in the game's position-string form, empty for the start position.
struct GoldenPosition {
  std::string_view name;
  std::string_view fen;
};

// Each game's midgame positions come from the start by the protocol moves in the comments (the
// legal move of index (5 * ply + 3) mod the number of legal moves, in generation order, at each
// ply), so that they can be rebuilt with `vzero show --variant ... --moves "..."`.
template <Game G>
std::vector<GoldenPosition> PositionsOf();

template <>
std::vector<GoldenPosition> PositionsOf<draughts::DraughtsGame>() {
  return {
      {"start", ""},
      // 9-13 22-18 13x22 26x19 12-15 19x12 8x15 23-20 11-14 20x11 6x15 21-17 7-12
      {"ply 13", "B:W1,2,3,4,5,10,12,14,15:B17,24,25,27,28,29,30,31,32"},
      // ... 7-12 17-13 10x17 28-23 2-6 29-26 6-10 31-28
      {"ply 20", "W:W1,3,4,5,10,12,14,15,17:B23,24,25,26,27,28,30,32"},
  };
}

template <>
std::vector<GoldenPosition> PositionsOf<chaco_rex::ChacoRexGame>() {
  return {
      {"start", ""},
      // q1r4 o7p6 j3l4 c8b7 h3g4 o9o3 e2c4 b9f5 s1q1 f5s5 g2h3 j7l6 r2q3
      {"ply 13",
       "1nbqbk1nr/p1pppppppp/p1pp1p3/5p1p2/8r/1P1P1P2N1/2PP1PbP1/PP2PPPP1P/RNBQBKBR1 b - 0 7"},
      // ... r2q3 p8q7 j1d3 o3l2 d3g2 s5f5 h1j1 f5o5
      {"ply 20",
       "1nbqbk1nr/p1ppppp1pp/p1pp1p1p1/5p1p2/6r2/1P1P1P2N1/2PP1P1P1/PP1BPbPP1P/RNB1QKBR1 w - 4 11"},
  };
}

template <>
std::vector<GoldenPosition> PositionsOf<chad::ChadGame>() {
  return {
      {"start", ""},
      // c3b3 h8b8 e3g3 i8i3 g3g12 b8b5 c5c11 j8c8 e5e9 j9j1 e9e10 c8l8 e10e7
      {"ply 13", "6R5/2R9/7rrr2/7rk3/11r/4R7/12/1r1R8/2RKR7/1R1R4r3/12/9r2 b 13 7"},
      // ... e10e7 l8j8 c11d11 h10h11 d11c11 i10g10 g12c12 g10e10
      {"ply 20", "2R9/2R4r4/4r4r2/7rk3/9r2/4R7/12/1r1R8/2RKR7/1R1R4r3/12/9r2 w 20 11"},
  };
}

template <>
std::vector<GoldenPosition> PositionsOf<cuarenta::CuarentaGame>() {
  return {
      {"start", ""},
      // d3c4 f7g6 c2e4 a8e4 f1f5 f9f7 h3h5 h7i6 h1i4 b9c6 d1g4 f7h7 c4b5
      {"ply 13", "1f1b/1gkgv/pp1f/1c1pp/P1FP/2vFC/P1P1/V1KGV/B3 b - 9 7"},
      // ... c4b5 c8a6 b1c2 h7f9 i2h1 d7e6 h5h7c e8d7
      {"ply 20", "1ffb/3gv/pk1C/gcppp/P1F1/2vFC/P1P1/VBKG1/3V w - 1 11"},
  };
}

// One search and its golden record: a header line (configuration, root position, best move in
// protocol form, root visits) and one line per root move in generation order (move, visits,
// policy target to 4 decimals).
template <Game G>
void AppendSearch(std::string_view label, const typename G::Position& root,
                  const SearchParams& params, Evaluator<G>& evaluator, int64_t simulations,
                  std::ostringstream& out) {
  auto search = std::make_unique<Mcts<G>>(params);
  search->SetRoot(root);
  search->Search(evaluator, simulations);
  const SearchResult result = search->Result();
  out << label << " sims " << simulations << " | " << G::FormatPosition(root) << " | best "
      << (result.best_move == kNullMove ? std::string("none")
                                        : G::FormatMove(root, result.best_move))
      << " visits " << result.root_visits << "\n";
  char target[32];
  for (const RootMoveStats& stats : result.moves) {
    std::snprintf(target, sizeof(target), "%.4f", stats.policy_target);
    out << "  " << G::FormatMove(root, stats.move) << " " << stats.visits << " " << target << "\n";
  }
}

template <Game G>
void AppendGame(std::ostringstream& out) {
  out << "# " << std::string_view(G::kName) << "\n";
  for (const GoldenPosition& golden : PositionsOf<G>()) {
    const typename G::Position root =
        golden.fen.empty() ? G::InitialPosition() : G::ParsePosition(std::string(golden.fen));
    if (!golden.fen.empty()) {
      EXPECT_EQ(G::FormatPosition(root), golden.fen) << G::kName << " " << golden.name;
    }
    out << "## " << golden.name << "\n";
    SearchParams params;
    params.seed = kSeed;
    {
      UniformEvaluator<G> uniform;
      AppendSearch<G>("puct uniform", root, params, uniform, 400, out);
    }
    {
      SearchParams gumbel = params;
      gumbel.gumbel = true;
      RolloutEvaluator<G> rollout(kSeed, /*num_playouts=*/1, /*max_plies=*/100);
      AppendSearch<G>("gumbel rollout", root, gumbel, rollout, 64, out);
    }
    {
      SearchParams noisy = params;
      noisy.dirichlet_epsilon = 0.25f;
      noisy.dirichlet_alpha = 0.3f;
      RolloutEvaluator<G> rollout(kSeed, /*num_playouts=*/1, /*max_plies=*/100);
      AppendSearch<G>("puct rollout dirichlet", root, noisy, rollout, 100, out);
    }
  }
}

template <class... Gs>
std::string GoldenText(GameList<Gs...>) {
  std::ostringstream out;
  (AppendGame<Gs>(out), ...);
  return out.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The lines that differ, position by position (the records have a fixed shape, so a changed
// search shows as changed lines, not shifted ones), each under the search it belongs to; at most
// `max_shown` of them.
std::string LineDiff(const std::string& expected, const std::string& actual, int max_shown = 20) {
  const std::vector<std::string> want = Lines(expected);
  const std::vector<std::string> got = Lines(actual);
  std::ostringstream diff;
  int shown = 0, differing = 0;
  std::string section;
  for (size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
    const std::string* w = i < want.size() ? &want[i] : nullptr;
    const std::string* g = i < got.size() ? &got[i] : nullptr;
    if (g != nullptr && !g->starts_with("  ")) section = *g;
    if (w != nullptr && g != nullptr && *w == *g) continue;
    ++differing;
    if (shown++ >= max_shown) continue;
    diff << "line " << i + 1 << " (in: " << section << ")\n"
         << "  - expected: " << (w ? *w : "<end of file>") << "\n"
         << "  + actual:   " << (g ? *g : "<end of output>") << "\n";
  }
  std::ostringstream head;
  head << differing << " of " << std::max(want.size(), got.size()) << " lines differ (expected "
       << want.size() << " lines, got " << got.size() << ")";
  if (differing > max_shown) head << "; the first " << max_shown << ":";
  head << "\n";
  return head.str() + diff.str();
}

TEST(SearchGoldenGamesTest, FixedSeedsGiveGoldenOutput) {
  const std::string actual = GoldenText(AllGames{});
  const std::string path = std::string(VZ_TEST_DATA_DIR) + "/golden/search_real_games.txt";
  if (std::getenv("VZ_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << actual;
  }
  std::ifstream file(path);
  ASSERT_TRUE(file.good()) << "missing " << path << " (run with VZ_UPDATE_GOLDEN=1 to create)";
  std::stringstream expected;
  expected << file.rdbuf();
  if (expected.str() != actual) {
    ADD_FAILURE() << "search output differs from " << path << "\n"
                  << LineDiff(expected.str(), actual)
                  << "If the change is intended, regenerate with VZ_UPDATE_GOLDEN=1 and review "
                     "the diff of the file.";
  }
}

}  // namespace
}  // namespace vz
