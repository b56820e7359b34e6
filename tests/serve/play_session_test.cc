// The terminal play session (serve/play_session.h) in-process over string streams, with the
// random-rollout engine: the commands, illegal input, undo, the engine moving first, the saved
// record, and the errors of bad options.

#include "serve/play_session.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "serve/line_io.h"
#include "tests/test_util.h"

namespace vz {
namespace {

class PlaySessionTest : public testing::TempDirTest {
 protected:
  // Runs a session of `variant` fed `input`; returns its output (notes in notes_).
  std::string Play(const std::string& variant, const std::string& input,
                   const std::string& color = "white") {
    PlayOptions options;
    options.variant = variant;
    options.simulations = 8;
    options.color = color;
    options.seed = 3;
    options.save = File("game.record");
    std::istringstream in(input);
    std::ostringstream out;
    notes_.str("");
    PlaySession(options, in, out, notes_).Run();
    return out.str();
  }

  // The protocol-form legal moves the session lists at the start of `variant`'s game.
  std::vector<std::string> LegalMoves(const std::string& variant) {
    const std::string out = Play(variant, "moves\nquit\n");
    const size_t at = out.find("legal moves (");
    EXPECT_NE(at, std::string::npos) << out;
    const size_t colon = out.find(": ", at);
    return SplitWords(out.substr(colon + 2, out.find('\n', colon) - colon - 2));
  }

  std::string Record() const {
    std::ifstream in(File("game.record"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::ostringstream notes_;
};

TEST_F(PlaySessionTest, QuitSavesAnUnfinishedGame) {
  const std::string out = Play("chad", "help\nfen\nboard\nQUIT\n");
  EXPECT_NE(out.find("commands:"), std::string::npos) << out;
  EXPECT_NE(out.find("fen: "), std::string::npos) << out;
  EXPECT_NE(out.find("result: * (game not finished)"), std::string::npos) << out;
  EXPECT_NE(out.find("saved: " + File("game.record")), std::string::npos) << out;
  EXPECT_NE(Record().find("[Result \"*\"]"), std::string::npos) << Record();
  EXPECT_NE(notes_.str().find("random rollouts"), std::string::npos);
}

TEST_F(PlaySessionTest, IllegalInputIsAnsweredAndTheSessionGoesOn) {
  const std::string out = Play("chaco-rex", "zz99\nfen\n");
  EXPECT_NE(out.find("illegal move 'zz99'"), std::string::npos) << out;
  EXPECT_NE(out.find("fen: "), std::string::npos) << out;  // still reading after the error
  EXPECT_NE(out.find("(end of input)"), std::string::npos) << out;
}

TEST_F(PlaySessionTest, AnOverlongLineIsAnsweredAndTheSessionGoesOn) {
  const std::string out = Play("cuarenta", std::string(kMaxLineBytes + 1, 'q') + "\nfen\n");
  EXPECT_NE(out.find("an input line of over"), std::string::npos);
  EXPECT_EQ(out.find("illegal move"), std::string::npos);
  EXPECT_NE(out.find("fen: "), std::string::npos);  // still reading after the error
}

TEST_F(PlaySessionTest, AMoveGetsAReplyAndUndoTakesBothBack) {
  for (const char* variant : {"chad", "chaco-rex", "cuarenta", "portuguese-draughts"}) {
    const std::vector<std::string> moves = LegalMoves(variant);
    ASSERT_FALSE(moves.empty()) << variant;
    const std::string out = Play(variant, moves.front() + "\nundo\nquit\n");
    EXPECT_NE(out.find("you play: "), std::string::npos) << variant << "\n" << out;
    EXPECT_NE(out.find("vzero plays: "), std::string::npos) << variant << "\n" << out;
    EXPECT_NE(out.find("took back: "), std::string::npos) << variant << "\n" << out;
  }
}

TEST_F(PlaySessionTest, TheEngineMovesFirstForBlack) {
  const std::string out = Play("chad", "undo\nquit\n", "black");
  const size_t engine = out.find("vzero plays: ");
  ASSERT_NE(engine, std::string::npos) << out;
  EXPECT_LT(engine, out.find("black to move>")) << out;
  EXPECT_NE(out.find("undo: none of your moves to take back"), std::string::npos) << out;
}

TEST_F(PlaySessionTest, BadOptionsThrow) {
  EXPECT_NE(testing::ErrorOf([&] { Play("no-such-game", "quit\n"); }), "");
  PlayOptions options;
  options.variant = "chad";
  options.fen = "not a position";
  std::istringstream in("quit\n");
  std::ostringstream out, notes;
  EXPECT_NE(testing::ErrorOf([&] { PlaySession(options, in, out, notes).Run(); }), "");
}

}  // namespace
}  // namespace vz
