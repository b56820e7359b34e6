// `vzero uci` end to end, through two pipes, with scripted sessions: the handshake and options, a
// game of up to 40 plies in each variant with every bestmove checked against the rules, `stop`
// during `go infinite`, `isready` during a search, clock limits, malformed commands and illegal
// moves, unknown commands. No timing assertions: reads only give up after a generous deadline
// so that a hung engine fails instead of blocking. Runs the vzero binary of the same build (next
// to this test; VZ_VZERO names another one) and skips when there is none.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "tests/test_util.h"

namespace vz {
namespace {

std::string VzeroPath() {
  if (const char* path = std::getenv("VZ_VZERO")) return path;
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "vzero").string();
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::vector<std::string> Words(const std::string& line) {
  std::istringstream stream(line);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

// A running `vzero uci`: its stdin and stdout are pipes of this test; stderr is shared.
class UciProcess {
 public:
  static constexpr auto kDeadline = std::chrono::seconds(120);

  explicit UciProcess(const std::vector<std::string>& arguments = {}) {
    signal(SIGPIPE, SIG_IGN);  // a dead engine must fail the test, not kill it
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      close(to_child[0]);
      close(to_child[1]);
      close(from_child[0]);
      close(from_child[1]);
      const std::string path = VzeroPath();
      std::vector<std::string> words = {path, "uci"};
      words.insert(words.end(), arguments.begin(), arguments.end());
      std::vector<char*> argv;
      for (std::string& word : words) argv.push_back(word.data());
      argv.push_back(nullptr);
      execv(path.c_str(), argv.data());
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    to_ = to_child[1];
    from_ = from_child[0];
  }

  ~UciProcess() {
    CloseInput();
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (from_ >= 0) close(from_);
  }

  void Send(const std::string& line) {
    const std::string text = line + "\n";
    size_t written = 0;
    while (to_ >= 0 && written < text.size()) {
      const ssize_t n = write(to_, text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += size_t(n);
    }
    EXPECT_EQ(written, text.size()) << "could not send '" << line << "'";
  }

  void CloseInput() {
    if (to_ >= 0) close(to_);
    to_ = -1;
  }

  // The next output line, or nothing at the end of the output or after kDeadline.
  std::optional<std::string> ReadLine() {
    const auto deadline = std::chrono::steady_clock::now() + kDeadline;
    for (;;) {
      const size_t end = buffer_.find('\n');
      if (end != std::string::npos) {
        std::string line = buffer_.substr(0, end);
        buffer_.erase(0, end + 1);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || from_ < 0) return std::nullopt;
      pollfd poll_fd{from_, POLLIN, 0};
      if (poll(&poll_fd, 1, int(left.count())) <= 0) continue;
      char chunk[4096];
      const ssize_t n = read(from_, chunk, sizeof(chunk));
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, size_t(n));
    }
  }

  // The lines up to and including the first one that starts with `prefix`. Fails the test
  // (listing what came) if the output ends or the deadline passes first.
  std::vector<std::string> ReadUntil(const std::string& prefix) {
    std::vector<std::string> lines;
    while (std::optional<std::string> line = ReadLine()) {
      lines.push_back(*line);
      if (StartsWith(*line, prefix)) return lines;
    }
    std::string seen;
    for (const std::string& line : lines) seen += "\n  " + line;
    ADD_FAILURE() << "no line starting with '" << prefix << "'; got:" << seen;
    return lines;
  }

  // The move of the next `bestmove` line ("" if none comes).
  std::string BestMove() {
    const std::vector<std::string> lines = ReadUntil("bestmove");
    if (lines.empty() || !StartsWith(lines.back(), "bestmove")) return "";
    const std::vector<std::string> words = Words(lines.back());
    return words.size() >= 2 ? words[1] : "";
  }

  // Closes stdin, reads the rest of the output, and returns the exit status (-1: killed).
  int Finish(std::vector<std::string>* rest = nullptr) {
    CloseInput();
    while (std::optional<std::string> line = ReadLine()) {
      if (rest != nullptr) rest->push_back(*line);
    }
    int status = 0;
    if (pid_ <= 0 || waitpid(pid_, &status, 0) != pid_) return -1;
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  std::string buffer_;
};

// `text` is a legal move of `game` in the game's protocol form; returns it (kNullMove if not).
template <Game G>
Move ExpectLegalProtocolMove(const GameState<G>& game, const std::string& text) {
  Move move = kNullMove;
  EXPECT_EQ(testing::ErrorOf([&] { move = G::ParseMove(game.position(), text); }), "")
      << G::kName << " " << G::FormatPosition(game.position());
  if (move == kNullMove) return move;
  EXPECT_TRUE(game.legal_moves().Contains(move)) << text;
  EXPECT_EQ(G::FormatMove(game.position(), move), text) << "not the protocol form";
  return move;
}

class UciCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(VzeroPath().c_str(), X_OK) != 0) {
      GTEST_SKIP() << "no vzero binary at " << VzeroPath() << " (build the vzero target)";
    }
  }
};

TEST_F(UciCliTest, HandshakeListsIdAndOptions) {
  UciProcess uci;
  uci.Send("uci");
  const std::vector<std::string> lines = uci.ReadUntil("uciok");
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(StartsWith(lines[0], "id name vzero ")) << lines[0];
  bool author = false, variant = false;
  std::vector<std::string> options;
  for (const std::string& line : lines) {
    author = author || StartsWith(line, "id author ");
    if (StartsWith(line, "option name UCI_Variant type combo")) {
      variant = true;
      for (const char* name : {"chaco-rex", "chad", "cuarenta", "portuguese-draughts"}) {
        EXPECT_NE(line.find(std::string(" var ") + name), std::string::npos) << line;
      }
    }
    if (StartsWith(line, "option name ")) options.push_back(line);
  }
  EXPECT_TRUE(author);
  EXPECT_TRUE(variant);
  for (const char* name :
       {"NetFile type string", "Threads type spin", "Nodes type spin", "MultiPV type spin",
        "UCI_ShowWDL type check", "Gumbel type check", "Move Overhead type spin"}) {
    bool found = false;
    for (const std::string& line : options)
      found = found || StartsWith(line, std::string("option name ") + name);
    EXPECT_TRUE(found) << name;
  }
  uci.Send("isready");
  const std::vector<std::string> ready = uci.ReadUntil("readyok");
  bool rollout_note = false;
  for (const std::string& line : ready) {
    rollout_note = rollout_note ||
                   (StartsWith(line, "info string") && line.find("rollout") != std::string::npos);
  }
  EXPECT_TRUE(rollout_note) << "no info string saying that rollouts are used without a net";
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

// Plays up to 40 plies of G through the protocol: the engine's moves (16 simulations) and, every
// third ply, a pseudo-random move of ours; every bestmove must be legal and in protocol form.
template <Game G>
void PlayGame(UciProcess& uci, uint64_t seed) {
  SCOPED_TRACE(std::string(G::kName));
  uci.Send(std::string("setoption name UCI_Variant value ") + std::string(G::kName));
  const std::vector<std::string> announced = uci.ReadUntil("info string variant ");
  ASSERT_FALSE(announced.empty());
  EXPECT_EQ(announced.back(), "info string variant " + std::string(G::kName) + " startpos " +
                                  G::FormatPosition(G::InitialPosition()));
  uci.Send("ucinewgame");
  uci.Send("isready");
  uci.ReadUntil("readyok");
  GameState<G> game;
  std::string moves;
  uint64_t state = seed;
  for (int ply = 0; ply < 40 && !game.outcome().IsTerminal(); ++ply) {
    uci.Send("position startpos" + (moves.empty() ? std::string() : " moves" + moves));
    uci.Send("go nodes 16");
    const std::string text = uci.BestMove();
    Move move = ExpectLegalProtocolMove(game, text);
    ASSERT_NE(move, kNullMove) << "ply " << ply << ": bestmove '" << text << "'";
    if (ply % 3 == 2) {
      state = SplitMix64(state);
      move = game.legal_moves()[int(state % uint64_t(game.legal_moves().size))];
    }
    moves += " " + G::FormatMove(game.position(), move);
    game.Play(move);
  }
  if (game.outcome().IsTerminal()) {
    uci.Send("position startpos moves" + moves);
    uci.Send("go nodes 16");
    EXPECT_EQ(uci.BestMove(), "(none)");
  }
}

TEST_F(UciCliTest, PlaysAGameInEachVariant) {
  UciProcess uci;
  uci.Send("uci");
  uci.ReadUntil("uciok");
  PlayGame<chaco_rex::ChacoRexGame>(uci, 1);
  PlayGame<chad::ChadGame>(uci, 2);
  PlayGame<cuarenta::CuarentaGame>(uci, 3);
  PlayGame<draughts::DraughtsGame>(uci, 4);
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

TEST_F(UciCliTest, FinishedGameAnswersBestmoveNone) {
  UciProcess uci({"--variant", "portuguese-draughts"});
  uci.Send("position fen W:W:B");  // White to move without pieces: the game is over
  uci.Send("go nodes 10");
  EXPECT_EQ(uci.BestMove(), "(none)");
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

TEST_F(UciCliTest, StopEndsAnInfiniteSearchAndIsReadyIsAnsweredMeanwhile) {
  UciProcess uci({"--variant", "chad"});
  uci.Send("setoption name UCI_ShowWDL value true");
  uci.Send("setoption name MultiPV value 2");
  uci.Send("position startpos");
  uci.Send("go infinite");
  uci.Send("isready");
  for (const std::string& line : uci.ReadUntil("readyok")) {
    EXPECT_FALSE(StartsWith(line, "bestmove")) << "bestmove before stop in go infinite";
  }
  // A periodic report comes while the search goes on (then every root move has visits, so that
  // both MultiPV lines exist), still without a bestmove.
  for (const std::string& line : uci.ReadUntil("info depth")) {
    EXPECT_FALSE(StartsWith(line, "bestmove")) << "bestmove before stop in go infinite";
  }
  uci.Send("stop");
  const std::vector<std::string> lines = uci.ReadUntil("bestmove");
  ASSERT_FALSE(lines.empty());
  GameState<chad::ChadGame> game;
  ExpectLegalProtocolMove(game, Words(lines.back()).at(1));
  // The final info lines: multipv 1 and 2, a score, a WDL in per mille summing to 1000, a pv.
  bool multipv1 = false, multipv2 = false;
  for (const std::string& line : lines) {
    if (!StartsWith(line, "info depth")) continue;
    const std::vector<std::string> words = Words(line);
    for (size_t i = 0; i + 1 < words.size(); ++i) {
      if (words[i] == "multipv") {
        multipv1 = multipv1 || words[i + 1] == "1";
        multipv2 = multipv2 || words[i + 1] == "2";
      }
      if (words[i] == "wdl") {
        ASSERT_LT(i + 3, words.size());
        EXPECT_EQ(std::stoi(words[i + 1]) + std::stoi(words[i + 2]) + std::stoi(words[i + 3]), 1000)
            << line;
      }
    }
    EXPECT_NE(line.find(" score "), std::string::npos) << line;
    EXPECT_NE(line.find(" wdl "), std::string::npos) << line;
    EXPECT_NE(line.find(" nodes "), std::string::npos) << line;
    EXPECT_NE(line.find(" pv "), std::string::npos) << line;
  }
  EXPECT_TRUE(multipv1);
  EXPECT_TRUE(multipv2);
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

// Issue 17, fault 1: at the Hash cap the search stops with an info string and its best move so
// far (it used to go on re-evaluating the same leaves, and its score drifted to cp 800); in `go
// infinite` the bestmove still waits for `stop`.
TEST_F(UciCliTest, FullTreeStopsTheSearch) {
  UciProcess uci({"--variant", "chaco-rex"});
  uci.Send("setoption name Hash value 1");
  uci.Send("position startpos");
  uci.Send("go nodes 200000");
  const std::vector<std::string> lines = uci.ReadUntil("bestmove");
  ASSERT_FALSE(lines.empty());
  bool told = false;
  for (const std::string& line : lines)
    told = told || line.find("the tree is full") != std::string::npos;
  EXPECT_TRUE(told) << "no info string about the full tree";
  GameState<chaco_rex::ChacoRexGame> game;
  ExpectLegalProtocolMove(game, Words(lines.back()).at(1));
  uci.Send("go infinite");
  uci.Send("isready");
  for (const std::string& line : uci.ReadUntil("readyok")) {
    EXPECT_FALSE(StartsWith(line, "bestmove")) << "bestmove before stop in go infinite";
  }
  uci.Send("stop");
  ExpectLegalProtocolMove(game, uci.BestMove());
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

TEST_F(UciCliTest, ClockLimitsGiveABestmove) {
  UciProcess uci({"--variant", "cuarenta"});
  GameState<cuarenta::CuarentaGame> game;
  uci.Send("position startpos");
  for (const char* go : {"go wtime 2000 btime 2000 winc 50 binc 50", "go movetime 100",
                         "go wtime 600 btime 600 movestogo 2", "go wtime 10 btime 10",
                         "go btime 3000 wtime 0 binc 1000"}) {
    SCOPED_TRACE(go);
    uci.Send(go);
    ExpectLegalProtocolMove(game, uci.BestMove());
  }
  uci.Send("setoption name Gumbel value true");
  uci.Send("go wtime 1000 btime 1000 winc 20 binc 20");
  ExpectLegalProtocolMove(game, uci.BestMove());
  uci.Send("go nodes 40");
  ExpectLegalProtocolMove(game, uci.BestMove());
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

TEST_F(UciCliTest, BadPositionsAreReportedAndLeaveThePositionUnchanged) {
  using G = chad::ChadGame;
  UciProcess uci({"--variant", "chad"});
  GameState<G> game;
  const std::string first = G::FormatMove(game.position(), game.legal_moves()[0]);
  game.Play(game.legal_moves()[0]);
  const std::string expected_fen = "Fen: " + G::FormatPosition(game.position());
  uci.Send("position startpos moves " + first);
  for (const std::string& bad : std::vector<std::string>{
           "position startpos moves " + first + " a1a1", "position startpos moves zz99",
           "position fen not a position", "position fen", "position", "position somewhere",
           "position startpos nonsense"}) {
    SCOPED_TRACE(bad);
    uci.Send(bad);
    uci.Send("isready");
    const std::vector<std::string> lines = uci.ReadUntil("readyok");
    bool reported = false;
    for (const std::string& line : lines) {
      reported =
          reported || (StartsWith(line, "info string") && line.find("error") != std::string::npos);
    }
    EXPECT_TRUE(reported) << "no info string for a bad position";
    uci.Send("d");
    const std::vector<std::string> board = uci.ReadUntil("Fen: ");
    ASSERT_FALSE(board.empty());
    EXPECT_EQ(board.back(), expected_fen);
  }
  // The position is still usable: the engine plays from it.
  uci.Send("go nodes 20");
  ExpectLegalProtocolMove(game, uci.BestMove());
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

TEST_F(UciCliTest, MalformedCommandsDoNotStopTheEngine) {
  UciProcess uci({"--variant", "portuguese-draughts"});
  for (const char* bad :
       {"setoption", "setoption name", "setoption name Nodes value -5",
        "setoption name Nodes value many", "setoption name NoSuchOption value 1",
        "setoption name UCI_Variant value chess", "setoption name UCI_ShowWDL value maybe",
        "setoption name MultiPV value 100000", "go nodes", "go wtime", "go nodes abc movetime x",
        "go depth", "go winc -30 binc -30 wtime -5 btime -5 movestogo -1"}) {
    SCOPED_TRACE(bad);
    uci.Send(bad);
    if (StartsWith(bad, "go")) {
      GameState<draughts::DraughtsGame> game;
      ExpectLegalProtocolMove(game, uci.BestMove());
    }
    uci.Send("isready");
    uci.ReadUntil("readyok");
  }
  // The variant did not change to "chess", and options keep their values after bad ones.
  uci.Send("d");
  const std::vector<std::string> board = uci.ReadUntil("Fen: ");
  ASSERT_FALSE(board.empty());
  EXPECT_EQ(board.back(), "Fen: " + draughts::DraughtsGame::FormatPosition(
                                        draughts::DraughtsGame::InitialPosition()));
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

TEST_F(UciCliTest, UnknownCommandsAreIgnored) {
  UciProcess uci({"--variant", "chaco-rex"});
  uci.Send("isready");
  uci.ReadUntil("readyok");
  // Nothing at all answers these; the next line out must be the readyok of the isready below.
  uci.Send("hello");
  uci.Send("xyzzy plugh");
  uci.Send("");
  uci.Send("   ");
  uci.Send("GO nodes 5");  // commands are case-sensitive: an unknown token
  uci.Send("isready");
  std::optional<std::string> line = uci.ReadLine();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line, "readyok");
  // An unknown leading token is skipped and the rest of the line parsed.
  uci.Send("joho isready");
  line = uci.ReadLine();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line, "readyok");
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

// The last info line before bestmove without its clock-dependent fields (nps, time), and the
// bestmove line.
std::string SearchSummary(UciProcess& uci) {
  std::string summary;
  const std::vector<std::string> lines = uci.ReadUntil("bestmove");
  for (const std::string& line : lines) {
    if (!StartsWith(line, "info depth") && !StartsWith(line, "bestmove")) continue;
    const std::vector<std::string> words = Words(line);
    std::string kept;
    for (size_t i = 0; i < words.size(); ++i) {
      if ((words[i] == "nps" || words[i] == "time") && i + 1 < words.size()) {
        ++i;
        continue;
      }
      kept += words[i] + " ";
    }
    if (StartsWith(line, "info depth")) summary = kept;  // the final info line
    if (StartsWith(line, "bestmove")) summary += "| " + kept;
  }
  return summary;
}

TEST_F(UciCliTest, ThreadsSplitRolloutsWithoutChangingTheSearch) {
  UciProcess uci({"--variant", "cuarenta"});
  uci.Send("setoption name MinibatchSize value 8");
  std::vector<std::string> summaries;
  for (int threads : {1, 2, 3}) {
    uci.Send("setoption name Threads value " + std::to_string(threads));
    uci.Send("ucinewgame");
    uci.Send("position startpos");
    uci.Send("go nodes 64");
    summaries.push_back(SearchSummary(uci));
  }
  ASSERT_EQ(summaries.size(), 3u);
  EXPECT_NE(summaries[0].find("nodes 64 "), std::string::npos) << summaries[0];
  EXPECT_NE(summaries[0].find("| bestmove "), std::string::npos) << summaries[0];
  EXPECT_EQ(summaries[1], summaries[0]);
  EXPECT_EQ(summaries[2], summaries[0]);
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

TEST_F(UciCliTest, EndOfInputFinishesTheSearchWithLimits) {
  UciProcess uci({"--variant", "chad", "--nodes", "30"});
  uci.Send("position startpos");
  uci.Send("go");
  std::vector<std::string> rest;
  EXPECT_EQ(uci.Finish(&rest), 0);
  ASSERT_FALSE(rest.empty());
  EXPECT_TRUE(StartsWith(rest.back(), "bestmove ")) << rest.back();
  GameState<chad::ChadGame> game;
  ExpectLegalProtocolMove(game, Words(rest.back()).at(1));
}

TEST_F(UciCliTest, AMissingNetFileFallsBackToRollouts) {
  UciProcess uci({"--variant", "chad"});
  uci.Send("setoption name NetFile value /nonexistent/vzero.vznet");
  uci.Send("isready");
  bool reported = false;
  for (const std::string& line : uci.ReadUntil("readyok")) {
    reported = reported || (StartsWith(line, "info string error") &&
                            line.find("/nonexistent/vzero.vznet") != std::string::npos &&
                            line.find("rollout") != std::string::npos);
  }
  EXPECT_TRUE(reported);
  uci.Send("position startpos");
  uci.Send("go nodes 10");
  GameState<chad::ChadGame> game;
  ExpectLegalProtocolMove(game, uci.BestMove());
  uci.Send("quit");
  EXPECT_EQ(uci.Finish(), 0);
}

}  // namespace
}  // namespace vz
