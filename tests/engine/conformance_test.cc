// One conformance suite, typed over every registered game (OpenSpiel's idea): random games end
// or stay valid, no generated move is illegal (every child passes the game's own position-string
// validity checks), incremental hashes agree with from-scratch hashes, text round-trips, action
// indices are in range and distinct.

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/alphabeta/evaluation.h"
#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/games.h"
#include "tests/engine/game_types.h"

namespace vz {
namespace {

template <class G>
class ConformanceTest : public ::testing::Test {};

TYPED_TEST_SUITE(ConformanceTest, testing::AllGameTypes, testing::GameNames);

constexpr int kRandomGames = 30;
constexpr int kMaxPlies = 600;

// Plays kRandomGames random games (fixed seed) and calls check(position, moves) on every position.
template <class G, class Check>
void ForRandomPositions(Check check, int seed = 1) {
  std::mt19937_64 rng(seed);
  for (int game_index = 0; game_index < kRandomGames; ++game_index) {
    GameState<G> game;
    for (int ply = 0; ply < kMaxPlies && !game.outcome().IsTerminal(); ++ply) {
      check(game.position(), game.legal_moves());
      if (::testing::Test::HasFailure()) return;  // one failing position is enough to report
      std::uniform_int_distribution<int> pick(0, game.legal_moves().size - 1);
      game.Play(game.legal_moves()[pick(rng)]);
    }
    check(game.position(), game.legal_moves());
  }
}

TYPED_TEST(ConformanceTest, RandomGamesEndOrStayOngoingConsistently) {
  using G = TypeParam;
  std::mt19937_64 rng(7);
  int ended = 0;
  for (int game_index = 0; game_index < kRandomGames; ++game_index) {
    GameState<G> game;
    int ply = 0;
    for (; ply < 5000 && !game.outcome().IsTerminal(); ++ply) {
      ASSERT_GT(game.legal_moves().size, 0) << G::FormatPosition(game.position());
      std::uniform_int_distribution<int> pick(0, game.legal_moves().size - 1);
      game.Play(game.legal_moves()[pick(rng)]);
    }
    if (game.outcome().IsTerminal()) ++ended;
    // A terminal position by the rules of the position alone has no legal moves or a draw reason.
    const Outcome local = G::LocalOutcome(game.position(), game.legal_moves().size);
    if (game.legal_moves().size == 0) {
      EXPECT_TRUE(local.IsTerminal());
    }
  }
  EXPECT_GT(ended, 0) << "no random game of " << G::kName << " ended within 5000 plies";
}

TYPED_TEST(ConformanceTest, GeneratedMovesLeadToValidPositions) {
  using G = TypeParam;
  ForRandomPositions<G>(
      [](const typename G::Position& position, const typename G::MoveList& moves) {
        for (Move move : moves) {
          typename G::Position child = position;
          G::ApplyMove(child, move);
          const std::string fen = G::FormatPosition(child);
          EXPECT_NO_THROW(G::ParsePosition(fen)) << "after " << G::FormatMove(position, move)
                                                 << " from " << G::FormatPosition(position);
        }
      });
}

// CountMoves counts by population count where GenerateMoves writes one move per target: the two
// must agree everywhere, in the positions of random games, their children, and the same positions
// with the other side to move (the alpha-beta evaluation's mobility counts those).
TYPED_TEST(ConformanceTest, CountMovesIsTheGeneratedListSize) {
  using G = TypeParam;
  const auto expect_count = [](const typename G::Position& position) {
    typename G::MoveList moves;
    G::GenerateMoves(position, moves);
    ASSERT_EQ(G::CountMoves(position), moves.size) << G::FormatPosition(position);
  };
  ForRandomPositions<G>(
      [&](const typename G::Position& position, const typename G::MoveList& moves) {
        expect_count(position);
        const Color other = Opponent(G::SideToMove(position));
        expect_count(EvalTraits<G>::WithSideToMove(position, other));
        for (Move move : moves) {
          typename G::Position child = position;
          G::ApplyMove(child, move);
          expect_count(child);
        }
      });
}

TYPED_TEST(ConformanceTest, IncrementalHashMatchesFromScratch) {
  using G = TypeParam;
  ForRandomPositions<G>(
      [](const typename G::Position& position, const typename G::MoveList& moves) {
        ASSERT_EQ(G::Hash(position), G::ComputeHash(position)) << G::FormatPosition(position);
        for (Move move : moves) {
          typename G::Position child = position;
          G::ApplyMove(child, move);
          ASSERT_EQ(G::Hash(child), G::ComputeHash(child))
              << G::FormatMove(position, move) << " from " << G::FormatPosition(position);
        }
      });
}

TYPED_TEST(ConformanceTest, PositionStringsRoundTrip) {
  using G = TypeParam;
  ForRandomPositions<G>([](const typename G::Position& position, const typename G::MoveList&) {
    const std::string fen = G::FormatPosition(position);
    const typename G::Position parsed = G::ParsePosition(fen);
    EXPECT_EQ(G::FormatPosition(parsed), fen);
    EXPECT_EQ(G::Hash(parsed), G::Hash(position)) << fen;
  });
}

TYPED_TEST(ConformanceTest, MoveStringsRoundTrip) {
  using G = TypeParam;
  ForRandomPositions<G>(
      [](const typename G::Position& position, const typename G::MoveList& moves) {
        for (Move move : moves) {
          const std::string protocol = G::FormatMove(position, move);
          EXPECT_EQ(G::ParseMove(position, protocol), move) << protocol;
          const std::string display = G::FormatDisplayMove(position, move);
          EXPECT_EQ(G::ParseMove(position, display), move) << display;
        }
      });
}

TYPED_TEST(ConformanceTest, ActionIndicesInRangeAndDistinctUpToSharedCaptures) {
  using G = TypeParam;
  ForRandomPositions<G>(
      [](const typename G::Position& position, const typename G::MoveList& moves) {
        std::set<int> seen;
        std::set<std::string> seen_protocol;
        for (Move move : moves) {
          const int index = G::ActionIndex(position, move);
          ASSERT_GE(index, 0);
          ASSERT_LT(index, G::kNumActions);
          seen.insert(index);
          seen_protocol.insert(G::FormatMove(position, move));
        }
        // Moves that share an index are exactly the ones the game's encoding cannot separate
        // (draughts captures with equal start and end); all other moves get distinct indices.
        EXPECT_EQ(int(seen_protocol.size()), moves.size);
        if (!G::kActionsMayCollide) {
          EXPECT_EQ(int(seen.size()), moves.size) << G::FormatPosition(position);
        }
      });
}

// Two move orders reaching the same position (a b c d versus c b a d) give the same hash and the
// same repetition key.
TYPED_TEST(ConformanceTest, TranspositionsGiveEqualHashes) {
  using G = TypeParam;
  std::mt19937_64 rng(11);
  auto random_move = [&rng](const GameState<G>& game) {
    std::uniform_int_distribution<int> pick(0, game.legal_moves().size - 1);
    return G::FormatMove(game.position(), game.legal_moves()[pick(rng)]);
  };
  auto play_all = [](GameState<G>& game, const std::vector<std::string>& moves) {
    try {
      for (const std::string& move : moves) game.Play(move);
    } catch (const Error&) {
      return false;  // this order is not legal
    }
    return true;
  };
  int transpositions = 0;
  for (int trial = 0; trial < 4000 && transpositions < 40; ++trial) {
    GameState<G> start;
    const int opening_plies = int(rng() % 30);
    for (int ply = 0; ply < opening_plies && !start.outcome().IsTerminal(); ++ply) {
      start.Play(start.legal_moves()[int(rng() % start.legal_moves().size)]);
    }
    GameState<G> first = start;
    std::vector<std::string> moves;
    for (int ply = 0; ply < 4 && !first.outcome().IsTerminal(); ++ply) {
      moves.push_back(random_move(first));
      first.Play(moves.back());
    }
    if (moves.size() < 4 || moves[0] == moves[2]) continue;
    GameState<G> second = GameState<G>(start.position());
    if (!play_all(second, {moves[2], moves[1], moves[0], moves[3]})) continue;
    if (G::FormatPosition(first.position()) != G::FormatPosition(second.position())) continue;
    EXPECT_EQ(G::Hash(first.position()), G::Hash(second.position()))
        << G::FormatPosition(first.position());
    EXPECT_EQ(G::RepetitionKey(first.position()), G::RepetitionKey(second.position()));
    ++transpositions;
  }
  EXPECT_GT(transpositions, 0) << "no transposition found for " << G::kName;
}

TYPED_TEST(ConformanceTest, BadTextThrowsVzError) {
  using G = TypeParam;
  for (const char* text : {"", "garbage", "///////", "w", "1 2 3 4"}) {
    EXPECT_THROW(G::ParsePosition(text), Error) << "'" << text << "'";
  }
  const typename G::Position start = G::InitialPosition();
  for (const char* text : {"", "zz", "a1a1a1", "x", "99-99"}) {
    EXPECT_THROW(G::ParseMove(start, text), Error) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace vz
