// `vzero play` end to end through pipes: a scripted game against the engine in each variant (the
// "human" plays seeded random legal moves taken from the `moves` command, until the game ends or a
// ply limit, then quits), undo, hint, fen, illegal input, a game played to its end, the engine
// moving first, and the saved PGN/PDN re-read by `vzero show --pgn/--pdn`. Rollout engine with a
// handful of simulations.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/zobrist.h"
#include "engine/registry.h"
#include "tests/cli_driver.h"

namespace vz {
namespace {

using vz::testing::CliSession;

constexpr const char* kPrompt = "> ";

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("vzero_play_cli_" + std::to_string(getpid()) + "_" + name))
      .string();
}

// The rest of the line after the first occurrence of `marker` in `text`, or nullopt.
std::optional<std::string> After(const std::string& text, const std::string& marker) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const size_t begin = at + marker.size();
  return text.substr(begin, text.find('\n', begin) - begin);
}

using testing::Words;

int Count(const std::string& text, const std::string& marker) {
  int count = 0;
  for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    ++count;
  }
  return count;
}

// A `vzero play` session: sends a line, reads up to the next prompt (or the end).
class PlaySession {
 public:
  bool Start(const std::vector<std::string>& options) {
    std::vector<std::string> arguments = {"play"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    if (!session_.Start(arguments, stderr_path_)) return false;
    transcript_ += session_.ReadUntilEndsWith(kPrompt);
    return !session_.timed_out();
  }
  ~PlaySession() { std::filesystem::remove(stderr_path_); }

  // Sends `line` and returns the output up to the next prompt or the end of the output.
  std::string Say(const std::string& line) {
    session_.Send(line + "\n");
    std::string reply = session_.ReadUntilEndsWith(kPrompt);
    transcript_ += reply;
    return reply;
  }

  // The legal moves in protocol form, from the `moves` command.
  std::vector<std::string> LegalMoves() {
    const std::optional<std::string> list = After(Say("moves"), "): ");
    return list ? Words(*list) : std::vector<std::string>{};
  }

  // Sends quit (when still running), reads to the end and returns the exit status.
  int Finish() {
    if (!session_.ended()) session_.Send("quit\n");
    transcript_ += session_.ReadAll();
    return session_.Wait();
  }

  // What the command wrote to stderr so far.
  std::string stderr_text() const { return vz::testing::ReadFile(stderr_path_); }
  bool ended() const { return session_.ended(); }
  bool timed_out() const { return session_.timed_out(); }
  const std::string& transcript() const { return transcript_; }

 private:
  CliSession session_;
  std::string stderr_path_ = TempPath("stderr");
  std::string transcript_;
};

// Runs `vzero show --pgn/--pdn path`; returns its output (exit status in `status`).
std::string ShowRecord(const std::string& path, bool draughts, int& status) {
  CliSession session;
  EXPECT_TRUE(session.Start({"show", draughts ? "--pdn" : "--pgn", path}));
  session.CloseInput();
  const std::string out = session.ReadAll();
  status = session.Wait();
  return out;
}

class PlayCliTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (const std::string why = vz::testing::VzeroSkipReason(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(PlayCliTest, ScriptedGameIsSavedAndReplays) {
  const std::string variant = GetParam();
  const bool draughts = variant == "portuguese-draughts";
  const std::string record = TempPath(variant + (draughts ? ".pdn" : ".pgn"));
  PlaySession play;
  ASSERT_TRUE(
      play.Start({"--variant", variant, "--simulations", "4", "--seed", "3", "--save", record}));
  // The board is the game's own picture.
  EXPECT_NE(play.transcript().find(FindVariant(variant).Show("", {}).board), std::string::npos)
      << play.transcript();
  uint64_t random = 7;
  bool over = false;
  for (int move = 0; move < 12 && !over; ++move) {
    const std::vector<std::string> legal = play.LegalMoves();
    ASSERT_FALSE(legal.empty()) << play.transcript();
    random = SplitMix64(random);
    const std::string choice = legal[random % legal.size()];
    const std::string reply = play.Say(choice);
    ASSERT_FALSE(play.timed_out());
    EXPECT_NE(reply.find("you play: "), std::string::npos) << reply;
    EXPECT_EQ(reply.find("illegal"), std::string::npos) << reply;
    over = reply.find("result: ") != std::string::npos;
    if (!over) EXPECT_NE(reply.find("vzero plays: "), std::string::npos) << reply;
  }
  EXPECT_EQ(play.Finish(), 0) << play.transcript();
  const std::string& transcript = play.transcript();
  EXPECT_NE(transcript.find("saved: " + record), std::string::npos) << transcript;
  const int plies = Count(transcript, "you play: ") + Count(transcript, "vzero plays: ");
  if (!over) EXPECT_NE(transcript.find("result: * (game not finished)"), std::string::npos);
  int status = -1;
  const std::string shown = ShowRecord(record, draughts, status);
  EXPECT_EQ(status, 0) << shown;
  EXPECT_NE(shown.find("game 1: " + std::to_string(plies) + " plies replayed, all legal"),
            std::string::npos)
      << shown;
  std::filesystem::remove(record);
}

INSTANTIATE_TEST_SUITE_P(EveryGame, PlayCliTest,
                         ::testing::Values("chaco-rex", "chad", "cuarenta", "portuguese-draughts"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

class PlayCommandsTest : public PlayCliTest {};

TEST_F(PlayCommandsTest, UndoHintFenAndIllegalInput) {
  const std::string record = TempPath("commands.pgn");
  const std::string start = FindVariant("chad").StartFen();
  PlaySession play;
  ASSERT_TRUE(play.Start({"--variant", "chad", "--simulations", "4", "--save", record}));
  EXPECT_EQ(After(play.Say("fen"), "fen: "), start);
  EXPECT_NE(play.Say("help").find("undo"), std::string::npos);
  // Illegal or unknown input: one message, the position unchanged.
  for (const std::string& bad : {"zz9", "c3c9", "castle please"}) {
    const std::string reply = play.Say(bad);
    EXPECT_NE(reply.find("illegal move '" + bad + "'"), std::string::npos) << reply;
    EXPECT_EQ(Count(reply, "\n"), 1) << reply;
  }
  EXPECT_EQ(After(play.Say("fen"), "fen: "), start);
  const std::vector<std::string> legal = FindVariant("chad").Show("", {}).legal_moves;
  EXPECT_EQ(play.LegalMoves(), legal);
  // hint: "hint: <display> (<protocol>)", a legal move; the position stays.
  const std::optional<std::string> hint = After(play.Say("hint"), "hint: ");
  ASSERT_TRUE(hint.has_value());
  const size_t open = hint->find('('), close = hint->find(')');
  ASSERT_NE(close, std::string::npos);
  const std::string hinted = hint->substr(open + 1, close - open - 1);
  EXPECT_NE(std::find(legal.begin(), legal.end(), hinted), legal.end()) << *hint;
  EXPECT_EQ(After(play.Say("fen"), "fen: "), start);
  // A move in display form, the engine's reply, then undo takes both back.
  const std::string reply = play.Say("Rc3-c2");
  EXPECT_NE(reply.find("you play: Rc3-c2 (c3c2)"), std::string::npos) << reply;
  EXPECT_NE(reply.find("vzero plays: "), std::string::npos) << reply;
  EXPECT_NE(After(play.Say("fen"), "fen: "), start);
  const std::string undone = play.Say("undo");
  EXPECT_NE(undone.find("took back: Rc3-c2 (c3c2), "), std::string::npos) << undone;
  EXPECT_EQ(After(play.Say("fen"), "fen: "), start);
  EXPECT_NE(play.Say("undo").find("none of your moves"), std::string::npos);
  EXPECT_EQ(play.Finish(), 0);
  EXPECT_NE(play.transcript().find("result: *"), std::string::npos);
  const std::string saved = vz::testing::ReadFile(record);
  EXPECT_NE(saved.find("[Result \"*\"]"), std::string::npos) << saved;
  EXPECT_NE(saved.find("[PlyCount \"0\"]"), std::string::npos) << saved;
  std::filesystem::remove(record);
}

TEST_F(PlayCommandsTest, GameToTheEndIsSavedWithItsResult) {
  // White's only move captures Black's last man: White wins at once.
  const std::string record = TempPath("end.pdn");
  PlaySession play;
  ASSERT_TRUE(play.Start({"--variant", "portuguese-draughts", "--fen", "W:W14:B18", "--simulations",
                          "4", "--save", record}));
  const std::string reply = play.Say("14x21");
  EXPECT_NE(reply.find("result: 2-0"), std::string::npos) << reply;
  EXPECT_TRUE(play.ended() || reply.find("saved: ") != std::string::npos);
  EXPECT_EQ(play.Finish(), 0) << play.transcript();
  EXPECT_NE(play.transcript().find("saved: " + record), std::string::npos);
  int status = -1;
  const std::string shown = ShowRecord(record, /*draughts=*/true, status);
  EXPECT_EQ(status, 0) << shown;
  EXPECT_NE(shown.find("1 plies replayed, all legal; result 2-0 (rules: white-wins"),
            std::string::npos)
      << shown;
  std::filesystem::remove(record);
}

TEST_F(PlayCommandsTest, EngineMovesFirstWhenThePersonPlaysBlack) {
  const std::string record = TempPath("black.pgn");
  PlaySession play;
  ASSERT_TRUE(play.Start(
      {"--variant", "cuarenta", "--color", "black", "--simulations", "4", "--save", record}));
  EXPECT_NE(play.transcript().find("vzero plays: "), std::string::npos) << play.transcript();
  EXPECT_NE(play.transcript().find("black to move> "), std::string::npos);
  EXPECT_EQ(play.Finish(), 0);
  const std::string saved = vz::testing::ReadFile(record);
  EXPECT_NE(saved.find("[White \"vzero"), std::string::npos) << saved;
  EXPECT_NE(saved.find("[Black \"human\"]"), std::string::npos) << saved;
  std::filesystem::remove(record);
}

TEST_F(PlayCommandsTest, NetEngineAndRefusedNet) {
  if (const std::string why = vz::testing::VzeroSkipReason("the net command"); !why.empty()) {
    GTEST_SKIP() << why;
  }
  const std::string net = TempPath("cuarenta.vznet");
  const vz::testing::Execution init = vz::testing::InitTinyNet("cuarenta", net);
  ASSERT_EQ(init.status, 0) << init.output;
  const std::string record = TempPath("net.pgn");
  {
    PlaySession play;
    ASSERT_TRUE(play.Start({"--variant", "cuarenta", "--net", net, "--color", "black",
                            "--simulations", "8", "--save", record}));
    EXPECT_NE(play.transcript().find("(net " + net), std::string::npos) << play.transcript();
    EXPECT_NE(play.transcript().find("vzero plays: "), std::string::npos) << play.transcript();
    EXPECT_EQ(play.Finish(), 0);
  }
  {
    // A net made for another game is refused with a message, before the game starts.
    PlaySession play;
    play.Start({"--variant", "chad", "--net", net, "--save", record});
    EXPECT_EQ(play.Finish(), 1);
    EXPECT_NE(play.stderr_text().find(net), std::string::npos) << play.stderr_text();
    EXPECT_EQ(play.transcript().find("to move> "), std::string::npos) << play.transcript();
  }
  std::filesystem::remove(net);
  std::filesystem::remove(record);
}

}  // namespace
}  // namespace vz
