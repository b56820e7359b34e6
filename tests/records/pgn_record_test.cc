#include "records/pgn_record.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "tests/engine/game_types.h"

namespace vz {
namespace {

template <Game G>
GameState<G> RandomGame(GameState<G> game, uint64_t seed, int max_plies) {
  for (int ply = 0; ply < max_plies && !game.outcome().IsTerminal(); ++ply) {
    seed = SplitMix64(seed);
    const auto& moves = game.legal_moves();
    game.Play(moves[int((seed >> 32) * uint64_t(moves.size) >> 32)]);
  }
  return game;
}

template <class G>
class SelfplayRecordTest : public ::testing::Test {};

TYPED_TEST_SUITE(SelfplayRecordTest, testing::AllGameTypes, testing::GameNames);

// A record written and read back gives the same game: same start, same moves, same result.
TYPED_TEST(SelfplayRecordTest, RoundTrip) {
  using G = TypeParam;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    // Half of the games start from a later position, to exercise the FEN / SetUp tags.
    GameState<G> start;
    if (seed % 2 == 0) start = GameState<G>(RandomGame<G>(GameState<G>(), seed * 77, 7).position());
    const GameState<G> game = RandomGame<G>(start, seed, 200);
    RecordInfo info;
    info.white = "alpha \"quoted\"";
    info.black = "beta";
    info.outcome = game.outcome();
    info.termination = ReasonName(info.outcome.reason);
    const std::string text = WriteRecord(game, info);
    if (IsDraughts<G>()) {
      EXPECT_NE(text.find("[GameType \"32\"]"), std::string::npos);
    } else {
      EXPECT_NE(text.find("[Variant \"" + std::string(G::kName) + "\"]"), std::string::npos);
    }
    EXPECT_EQ(text.find("[FEN") != std::string::npos, seed % 2 == 0) << text;
    const auto records = ParseRecordText(text + text);  // two games in one file
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].Tag("White"), info.white);
    EXPECT_EQ(StatusFromResultToken(records[1].result), game.outcome().status);
    GameState<G> replayed;
    const ReplayReport report = ReplayRecord<G>(records[1], 2, &replayed);
    ASSERT_TRUE(report.ok) << report.error << "\n" << text;
    EXPECT_EQ(G::FormatPosition(replayed.start_position()),
              G::FormatPosition(game.start_position()));
    EXPECT_EQ(replayed.moves(), game.moves());
    EXPECT_EQ(replayed.outcome(), game.outcome());
  }
}

TYPED_TEST(SelfplayRecordTest, ReportsFirstIllegalMove) {
  using G = TypeParam;
  const GameState<G> game = RandomGame<G>(GameState<G>(), 5, 12);
  RecordInfo info;
  std::string text = WriteRecord(game, info);
  // Replace the 5th move token with a square pair that is never a legal move here.
  auto records = ParseRecordText(text);
  ASSERT_EQ(records.size(), 1u);
  ASSERT_GE(records[0].moves.size(), 5u);
  records[0].moves[4] = "zz99";
  const ReplayReport report = ReplayRecord<G>(records[0], 1);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.illegal_ply, 5);
  EXPECT_EQ(report.plies_played, 4);
  EXPECT_EQ(report.illegal_move, "zz99");
  EXPECT_FALSE(report.error.empty());
}

TEST(SelfplayRecordParseTest, CommentsVariationsNagsAndNumbers) {
  const auto records = ParseRecordText(
      "[Event \"x\"]\n[Variant \"chad\"]\n\n1.Rc5-c11 {a comment} (1. Rc4-c10 Rj9-j3) $1 "
      "Rg9xh9=Q ; rest of line\n2... Rx 1/2-1/2\n\n1. a 0-1");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].moves, (std::vector<std::string>{"Rc5-c11", "Rg9xh9=Q", "Rx"}));
  EXPECT_EQ(records[0].result, "1/2-1/2");
  EXPECT_EQ(VariantOfRecord(records[0]), "chad");
  EXPECT_EQ(records[1].result, "0-1");
  EXPECT_THROW(ParseRecordText("[Event \"x\"\n"), Error);
  EXPECT_THROW(ParseRecordText("1. e4 {open"), Error);
  EXPECT_THROW(StatusFromResultToken("3-0"), Error);
  EXPECT_EQ(StatusFromResultToken("2-0"), Status::kWhiteWins);
  EXPECT_EQ(StatusFromResultToken("1-1"), Status::kDraw);
}

TEST(SelfplayRecordParseTest, WrongVariantTagThrows) {
  const auto records = ParseRecordText("[Variant \"cuarenta\"]\n1. x *");
  EXPECT_THROW(ReplayRecord<chad::ChadGame>(records[0], 1), Error);
  const auto pdn = ParseRecordText("[GameType \"20\"]\n1. 11-15 *");
  EXPECT_THROW(ReplayRecord<draughts::DraughtsGame>(pdn[0], 1), Error);
}

// Fault 5 of issue 17: moves are numbered from the position string's move number, not from 1.
template <class G>
class RecordNumberingTest : public ::testing::Test {};
using NumberedGames =
    ::testing::Types<chaco_rex::ChacoRexGame, chad::ChadGame, cuarenta::CuarentaGame>;
TYPED_TEST_SUITE(RecordNumberingTest, NumberedGames);

TYPED_TEST(RecordNumberingTest, MovesAreNumberedFromThePositionsMoveNumber) {
  using G = TypeParam;
  std::string text = G::FormatPosition(G::InitialPosition());
  text = text.substr(0, text.rfind(' ') + 1) + "150";
  const typename G::Position white_first = G::ParsePosition(text);
  ASSERT_EQ(RecordMoveNumber<G>(white_first), 150) << text;
  auto moves_of = [](const std::string& record) { return record.substr(record.find("\n\n") + 2); };

  const GameState<G> from_white = RandomGame<G>(GameState<G>(white_first), 5, 3);
  ASSERT_EQ(from_white.moves().size(), 3u);
  const std::string white_moves = moves_of(WriteRecord(from_white, RecordInfo{}));
  EXPECT_EQ(white_moves.rfind("150. ", 0), 0u) << white_moves;
  EXPECT_NE(white_moves.find(" 151. "), std::string::npos) << white_moves;

  // Black to move first: "150..." (White's move keeps the move number).
  typename G::Position black_first = white_first;
  G::ApplyMove(black_first, from_white.moves()[0]);
  ASSERT_EQ(G::SideToMove(black_first), Color::kBlack);
  const GameState<G> from_black = RandomGame<G>(GameState<G>(black_first), 6, 2);
  const std::string black_moves = moves_of(WriteRecord(from_black, RecordInfo{}));
  EXPECT_EQ(black_moves.rfind("150... ", 0), 0u) << black_moves;
  EXPECT_NE(black_moves.find(" 151. "), std::string::npos) << black_moves;
}

TEST(RecordNumberingTest, DraughtsHasNoMoveNumberAndStartsAtOne) {
  EXPECT_EQ(RecordMoveNumber<draughts::DraughtsGame>(draughts::DraughtsGame::InitialPosition()), 1);
}

}  // namespace
}  // namespace vz
