#include <gtest/gtest.h>

#include <string>

#include "engine/alphabeta/alphabeta.h"
#include "engine/core/game_state.h"
#include "engine/games.h"
#include "tests/engine/game_test_util.h"

namespace vz {
namespace {

// True when `move` in `p` mates at once.
template <Game G>
bool Mates(const typename G::Position& p, Move move) {
  const Outcome outcome = testing::OutcomeAfter<G>(p, move);
  return outcome.status == WinFor(G::SideToMove(p)) && outcome.reason == Reason::kCheckmate;
}

template <Game G>
bool HasMateInOne(const typename G::Position& p) {
  typename G::MoveList moves;
  G::GenerateMoves(p, moves);
  for (Move move : moves) {
    if (Mates<G>(p, move)) return true;
  }
  return false;
}

// Brute force from the rules alone: after `move` every reply allows a mate in one.
template <Game G>
bool ForcesMateInTwo(const typename G::Position& p, Move move) {
  const typename G::Position child = testing::PositionAfter<G>(p, move);
  typename G::MoveList replies;
  G::GenerateMoves(child, replies);
  if (replies.size == 0) return false;  // that would be mate in one (or stalemate)
  for (Move reply : replies) {
    if (!HasMateInOne<G>(testing::PositionAfter<G>(child, reply))) return false;
  }
  return true;
}

// Positions found by a depth-3 alpha-beta scan of seeded random games and kept only where the
// brute force above confirms a forced mate in two and no mate in one exists (asserted below).
template <Game G>
void ExpectFindsMateInTwo(const std::string& fen) {
  SCOPED_TRACE(fen);
  const typename G::Position position = G::ParsePosition(fen);
  ASSERT_FALSE(HasMateInOne<G>(position));
  AlphaBeta<G> search;
  const AlphaBetaResult result = search.Search(GameState<G>(position), 4);
  EXPECT_EQ(result.score, kMateScore - 3);
  ASSERT_NE(result.best_move, kNullMove);
  EXPECT_TRUE(ForcesMateInTwo<G>(position, result.best_move))
      << G::FormatDisplayMove(position, result.best_move);
  // The principal variation comes from the transposition table and may be cut short by
  // replacement; it starts with the move played.
  ASSERT_FALSE(result.pv.empty());
  EXPECT_EQ(result.pv[0], result.best_move);
}

TEST(AlphaBetaTest, ChadMateInTwo) {
  ExpectFindsMateInTwo<chad::ChadGame>(
      "3R8/12/2r2r3r2/2R4rkr2/12/12/4R7/12/R2KR7/2RR3rr2R/12/6r5 w 14 8");
  ExpectFindsMateInTwo<chad::ChadGame>(
      "12/11r/2rR2r1kr2/2R4r4/R11/8r3/12/R8R2/2K2R6/5rR5/6r1R3/12 w 48 25");
}

TEST(AlphaBetaTest, ChacoRexMateInTwo) {
  ExpectFindsMateInTwo<chaco_rex::ChacoRexGame>(
      "4bk1n1/p2p1pp2p/2p1pp3/1Q1p4p1/3P2B1p/2pP6/4PP3/PPPPPPPPPP/RNB1BK1NR w - 0 19");
  ExpectFindsMateInTwo<chaco_rex::ChacoRexGame>(
      "rnbqbkbn1/p2ppp1R2/2ppppp2/1p7p/6Q2/P1pPP4P/1R2PP3/P1PPPPPP1P/1NB1BKBN1 w - 0 13");
}

TEST(AlphaBetaTest, CuarentaMateInTwo) {
  ExpectFindsMateInTwo<cuarenta::CuarentaGame>("V3/4k/1CV1/5/4/G2PC/1P2/B1KG1/2F1 w - 3 19");
  ExpectFindsMateInTwo<cuarenta::CuarentaGame>("4/1V2k/1CV1/1G3/4/3PC/1P2/B1KG1/2F1 w - 7 21");
}

// White sacrifices 13-18 (g4-f5); whichever man takes it (22x13 or 21x14), White takes two back
// (11x18x27 or 9x18x25). The man on 7 (c2) stops 21x14 from going on over 11.
TEST(AlphaBetaTest, DraughtsTwoForOneShot) {
  using G = draughts::DraughtsGame;
  const G::Position position = G::ParsePosition("W:W7,9,11,13:B21,22,29,32");
  AlphaBeta<G> search;
  GameState<G> game(position);
  const AlphaBetaResult result = search.Search(game, 4);
  EXPECT_EQ(G::FormatMove(position, result.best_move), "13-18");
  EXPECT_GT(result.score, 50);
  game.Play(result.best_move);
  for (const Move reply : game.legal_moves()) {
    GameState<G> line = game;
    line.Play(reply);
    const AlphaBetaResult answer = search.Search(line, 4);
    line.Play(answer.best_move);
    EXPECT_EQ(__builtin_popcount(line.position().white), 3);
    EXPECT_EQ(__builtin_popcount(line.position().black), 2);
  }
}

// The quiescence search alone: after White's shot 13-18 Black must take and White takes two back,
// so Black's score is about a man down; with a budget of one position it is the static
// evaluation, and with one ply Black's capture alone (a man up).
TEST(AlphaBetaTest, QuiescenceScoreAndItsBounds) {
  using G = draughts::DraughtsGame;
  GameState<G> game(G::ParsePosition("W:W7,9,11,13:B21,22,29,32"));
  game.Play("13-18");
  const G::Position& p = game.position();
  AlphaBeta<G> search;
  const int full = search.QuiescenceScore(p);
  EXPECT_LT(full, -50);
  EXPECT_GT(search.nodes(), 3);
  EXPECT_EQ(search.QuiescenceScore(p, 1, kMaxQuiescencePlies),
            AlphaBeta<G>::Evaluate(p, game.legal_moves().size));
  EXPECT_EQ(search.nodes(), 1);
  EXPECT_GT(search.QuiescenceScore(p, INT64_MAX, 1), 50);
  // The bounds do not outlive the call: a full search again, and Search is unchanged.
  EXPECT_EQ(search.QuiescenceScore(p), full);
}

TEST(AlphaBetaTest, TerminalRootHasNoMove) {
  using G = draughts::DraughtsGame;
  AlphaBeta<G> search;
  const AlphaBetaResult result = search.Search(GameState<G>(G::ParsePosition("W:W:B21,22")), 3);
  EXPECT_EQ(result.best_move, kNullMove);
}

TEST(AlphaBetaTest, EvaluationIsSymmetricAtTheStart) {
  EXPECT_EQ(EvalTraits<chad::ChadGame>::Material(chad::ChadGame::InitialPosition()), 0);
  EXPECT_EQ(EvalTraits<cuarenta::CuarentaGame>::Material(cuarenta::CuarentaGame::InitialPosition()),
            0);
  EXPECT_EQ(
      EvalTraits<chaco_rex::ChacoRexGame>::Material(chaco_rex::ChacoRexGame::InitialPosition()), 0);
  EXPECT_EQ(EvalTraits<draughts::DraughtsGame>::Material(draughts::DraughtsGame::InitialPosition()),
            0);
}

}  // namespace
}  // namespace vz
