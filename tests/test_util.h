#pragma once

// Helpers shared by the test suites of every layer.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/core/types.h"
#include "engine/core/zobrist.h"

namespace vz::testing {

// A fixture with a fresh, empty directory per test (named after the suite, the test and the
// process, under the system's temporary directory), removed after the test.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (std::string("vzero-") + info->test_suite_name() + "-" + std::to_string(getpid()) + "-" +
            info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code error;
    std::filesystem::remove_all(dir_, error);
  }
  // The path of `name` inside the test's directory.
  std::string File(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

// The vz::Error message thrown by `call`, or "" when it throws nothing (so that
// EXPECT_EQ(ErrorOf(...), "") states that an input is accepted).
template <class F>
std::string ErrorOf(F&& call) {
  try {
    call();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// The vz::Error message of G::ParsePosition(text), or "" when it parses.
template <Game G>
std::string ParsePositionError(const std::string& text) {
  return ErrorOf([&] { G::ParsePosition(text); });
}

// The vz::Error message of G::ParseMove(move) in the position string `fen` (which must parse), or
// "" when the move parses.
template <Game G>
std::string ParseMoveError(const std::string& fen, const std::string& move) {
  const typename G::Position p = G::ParsePosition(fen);
  return ErrorOf([&] { G::ParseMove(p, move); });
}

// A TCP port that was free a moment ago on 127.0.0.1 (the kernel's choice), or `fallback` when
// none could be had.
inline int FreeLoopbackPort(int fallback) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (fd >= 0) close(fd);
    return fallback;
  }
  close(fd);
  return ntohs(address.sin_port);
}

// The input planes of `position` under encoding E (engine/input_encoding.h), every entry
// pre-filled with -1 so that an entry Encode forgets to write shows up.
// Shape: [E::kPlanes][E::kHeight][E::kWidth], row-major.
template <class E>
std::vector<float> EncodePlanes(const typename E::Position& position, int repetition_count = 1) {
  std::vector<float> planes(size_t(E::kPlanes) * E::kHeight * E::kWidth, -1.0f);
  E::Encode(position, repetition_count, planes.data());
  return planes;
}

// planes[plane][row][column] of a vector from EncodePlanes<E>.
template <class E>
float PlaneAt(const std::vector<float>& planes, int plane, int row, int column) {
  return planes[(size_t(plane) * E::kHeight + row) * E::kWidth + column];
}

// Sum of one plane of a vector from EncodePlanes<E>.
template <class E>
float PlaneSum(const std::vector<float>& planes, int plane) {
  float sum = 0;
  for (int i = 0; i < E::kHeight * E::kWidth; ++i)
    sum += planes[size_t(plane) * E::kHeight * E::kWidth + i];
  return sum;
}

// Checks that board symmetry `symmetry` of encoding E maps position p to q: every plane entry of
// p lands on E::SymmetricCell's image in q, and the policy indices of p's legal moves, mapped by
// E::SymmetricAction, are exactly those of q's legal moves. G is the game, E its InputEncoding.
template <class G, class E>
void ExpectSymmetryMapsPlanesAndMoves(const typename G::Position& p, const typename G::Position& q,
                                      int symmetry) {
  const std::vector<float> a = EncodePlanes<E>(p), b = EncodePlanes<E>(q);
  for (int plane = 0; plane < E::kPlanes; ++plane) {
    for (int row = 0; row < E::kHeight; ++row) {
      for (int column = 0; column < E::kWidth; ++column) {
        int r, c;
        E::SymmetricCell(symmetry, row, column, r, c);
        ASSERT_EQ(PlaneAt<E>(a, plane, row, column), PlaneAt<E>(b, plane, r, c))
            << "plane " << plane << " row " << row << " column " << column;
      }
    }
  }
  typename G::MoveList moves, image;
  G::GenerateMoves(p, moves);
  G::GenerateMoves(q, image);
  std::set<int> expected, actual;
  for (Move m : moves) expected.insert(E::SymmetricAction(symmetry, E::PolicyIndex(p, m)));
  for (Move m : image) actual.insert(E::PolicyIndex(q, m));
  ASSERT_EQ(expected, actual);
}

// Plays `games` pseudo-random games (SplitMix64 from `seed`) of at most `plies` plies from the
// start of game G and calls check(position, legal_moves) at every position that has a legal move.
// Returns the number of positions checked (stops at the first fatal failure).
template <class G, class Check>
int ForRandomPositions(int games, int plies, uint64_t seed, Check check) {
  uint64_t state = seed;
  int checked = 0;
  for (int game = 0; game < games; ++game) {
    typename G::Position p = G::InitialPosition();
    for (int ply = 0; ply < plies; ++ply) {
      typename G::MoveList moves;
      G::GenerateMoves(p, moves);
      if (moves.size == 0) break;
      check(p, moves);
      if (::testing::Test::HasFatalFailure()) return checked;
      ++checked;
      state = SplitMix64(state);
      G::ApplyMove(p, moves[int(state % uint64_t(moves.size))]);
    }
  }
  return checked;
}

// `text` is a legal move of `game` in the game's protocol form (what a UCI engine prints); returns
// it (kNullMove, with a test failure, if not).
template <Game G>
Move ExpectLegalProtocolMove(const GameState<G>& game, const std::string& text) {
  Move move = kNullMove;
  EXPECT_EQ(ErrorOf([&] { move = G::ParseMove(game.position(), text); }), "")
      << G::kName << " " << G::FormatPosition(game.position());
  if (move == kNullMove) return move;
  EXPECT_TRUE(game.legal_moves().Contains(move)) << text;
  EXPECT_EQ(G::FormatMove(game.position(), move), text) << "not the protocol form";
  return move;
}

// ForRandomPositions checking ExpectSymmetryMapsPlanesAndMoves(p, image(p), symmetry).
template <class G, class E, class Image>
int ExpectSymmetryOverRandomGames(Image image, int symmetry, int games, int plies, uint64_t seed) {
  return ForRandomPositions<G>(games, plies, seed, [&](const typename G::Position& p, const auto&) {
    ExpectSymmetryMapsPlanesAndMoves<G, E>(p, image(p), symmetry);
  });
}

}  // namespace vz::testing
