// The UCI engine (serve/uci_engine.h) driven in-process: lines in through Handle, protocol lines
// out through a stream that this test reads as the engine's threads write it. Scripted sessions:
// a game of up to 40 plies in each variant with every bestmove checked against the rules, a
// finished game, clock limits, malformed commands and illegal moves, unknown commands, rollout
// threads, a missing net file, `go searchmoves`. No timing assertions: reads only give up after a
// generous deadline so that a hung engine fails instead of blocking. tests/engine/search/
// uci_cli_test.cc keeps the end-to-end checks through the vzero binary.

#include "serve/uci_engine.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "serve/line_io.h"
#include "tests/cli_driver.h"
#include "tests/test_util.h"

namespace vz {
namespace {

using testing::ExpectLegalProtocolMove;
using testing::StartsWith;
using testing::Words;

// A stream buffer that collects whole lines, written from any thread, for a reader that waits.
class LineBuffer : public std::streambuf {
 public:
  // The next line, or nothing after `deadline` without one.
  std::optional<std::string> Next(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!ready_.wait_until(lock, deadline, [this] { return !lines_.empty(); })) return {};
    std::string line = std::move(lines_.front());
    lines_.pop_front();
    return line;
  }

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) Append(std::string(1, traits_type::to_char_type(c)));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* text, std::streamsize n) override {
    Append(std::string(text, size_t(n)));
    return n;
  }

 private:
  void Append(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (char c : text) {
      if (c == '\n') {
        lines_.push_back(std::move(partial_));
        partial_.clear();
        ready_.notify_all();
      } else {
        partial_ += c;
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::string partial_;
  std::deque<std::string> lines_;
};

// A UciEngine with its output collected line by line.
class Uci {
 public:
  static constexpr auto kDeadline = std::chrono::seconds(120);

  explicit Uci(const UciOptions& options = {}) : out_(&buffer_), engine_(options, out_) {}

  // Handles `line`; false after quit.
  bool Send(const std::string& line) { return engine_.Handle(line); }
  void Finish() { engine_.Finish(); }

  std::optional<std::string> ReadLine() {
    return buffer_.Next(std::chrono::steady_clock::now() + kDeadline);
  }

  // The lines up to and including the first one that starts with `prefix` (testing::
  // ReadLinesUntil: fails the test if the deadline passes first).
  std::vector<std::string> ReadUntil(const std::string& prefix) {
    return testing::ReadLinesUntil([this] { return ReadLine(); }, prefix);
  }

  // The move of the next `bestmove` line ("" if none comes).
  std::string BestMove() { return testing::BestMoveOf(ReadUntil("bestmove")); }

  // Whether an `info string` line containing `text` comes before the readyok of an isready.
  bool ReportsBeforeReady(const std::string& text) {
    Send("isready");
    bool reported = false;
    for (const std::string& line : ReadUntil("readyok")) {
      reported =
          reported || (StartsWith(line, "info string") && line.find(text) != std::string::npos);
    }
    return reported;
  }

 private:
  LineBuffer buffer_;
  std::ostream out_;
  UciEngine engine_;
};

UciOptions Variant(const std::string& variant) {
  UciOptions options;
  options.variant = variant;
  return options;
}

TEST(UciEngineTest, AnUnknownVariantFailsAtStart) {
  std::ostringstream out;
  EXPECT_EQ(testing::ErrorOf([&] { UciEngine engine(Variant("x"), out); }),
            "unknown variant 'x' (known: chaco-rex, chad, cuarenta, portuguese-draughts)");
  EXPECT_EQ(out.str(), "");  // nothing of the protocol was written
}

// Plays up to 40 plies of G: the engine's moves (16 simulations) and, every third ply, a
// pseudo-random move of ours; every bestmove must be legal and in protocol form.
template <Game G>
void PlayGame(Uci& uci, uint64_t seed) {
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

TEST(UciEngineTest, PlaysAGameInEachVariant) {
  Uci uci;
  uci.Send("uci");
  uci.ReadUntil("uciok");
  PlayGame<chaco_rex::ChacoRexGame>(uci, 1);
  PlayGame<chad::ChadGame>(uci, 2);
  PlayGame<cuarenta::CuarentaGame>(uci, 3);
  PlayGame<draughts::DraughtsGame>(uci, 4);
  EXPECT_FALSE(uci.Send("quit"));
}

TEST(UciEngineTest, FinishedGameAnswersBestmoveNone) {
  Uci uci(Variant("portuguese-draughts"));
  uci.Send("position fen W:W:B");  // White to move without pieces: the game is over
  uci.Send("go nodes 10");
  EXPECT_EQ(uci.BestMove(), "(none)");
}

// The `time` (ms since `go`) of the last `info depth` line among `lines`; -1 when there is none.
int64_t ReportedTime(const std::vector<std::string>& lines) {
  int64_t time = -1;
  for (const std::string& line : lines) {
    if (!StartsWith(line, "info depth")) continue;
    const std::vector<std::string> words = Words(line);
    for (size_t i = 0; i + 1 < words.size(); ++i) {
      if (words[i] == "time") time = std::stoll(words[i + 1]);
    }
  }
  return time;
}

// The move time follows the clock of the side to move by the rule of docs/uci.md ("Time
// management"; Move Overhead O = 50 ms), checked on the engine's own reported `time`. The soft
// target and hard limit of each case are worked out by hand below (White moves first). The search
// stops at the soft target unless its best move is unstable, never starts a round that would end
// after the hard limit, and a rollout round takes well under a millisecond. So the reported time
// lies between half the soft target (below it only if one round stalled for more than hard -
// soft / 2 ms) and the hard limit plus kSlackMs for scheduling; the bounds still separate every
// case from what a misread clock (the other side's, no increment, no movestogo) would give.
TEST(UciEngineTest, ClockLimitsGiveTheDocumentedMoveTime) {
  constexpr int64_t kSlackMs = 250;
  struct Case {
    const char* go;
    int64_t soft_ms, hard_ms;
  };
  const Case cases[] = {
      // R = 1000, I = 2000, moves = 30: safe 950, pool = 1000 + 2000 * 29 - 50 * 31 = 57450;
      // soft = min(57450 / 30, 475) = 475, hard = min(950, 57450, max(475, min(1425, 712))) =
      // 712. Black's clock (60000, no increment) would give soft 1948; no increment an empty
      // pool and soft = hard = 950 / 60 = 15.
      {"go wtime 1000 btime 60000 winc 2000 binc 0", 475, 712},
      // R = 600, moves = 2: safe 550, pool = 600 - 50 * 3 = 450; soft = min(225, 275) = 225,
      // hard = min(550, 450, max(225, min(675, 412))) = 412. Without movestogo the pool would be
      // empty (600 - 50 * 31 < 0): soft = hard = 550 / 60 = 9.
      {"go wtime 600 btime 600 movestogo 2", 225, 412},
      // movetime 150: soft = hard = 150 - 50 = 100.
      {"go movetime 150", 100, 100},
      // R = 10 < O: safe 0, empty pool, no time to search.
      {"go wtime 10 btime 10", 0, 0},
      // White's clock is empty; Black's (3000 + 1000) would give soft 1015.
      {"go btime 3000 wtime 0 binc 1000", 0, 0},
  };
  Uci uci(Variant("cuarenta"));
  GameState<cuarenta::CuarentaGame> game;
  uci.Send("position startpos");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.go);
    uci.Send(c.go);
    const std::vector<std::string> lines = uci.ReadUntil("bestmove");
    ASSERT_FALSE(lines.empty());
    ExpectLegalProtocolMove(game, testing::BestMoveOf(lines));
    const int64_t time = std::max<int64_t>(0, ReportedTime(lines));
    EXPECT_LE(time, c.hard_ms + kSlackMs);
    EXPECT_GE(time, c.soft_ms / 2);
  }
  // Gumbel under a clock (a series of growing searches): R = 1000, I = 20, moves = 30: pool =
  // 1000 + 580 - 1550 = 30; soft = 1, hard = min(950, 30, max(1, min(3, 712))) = 3.
  uci.Send("setoption name Gumbel value true");
  uci.Send("go wtime 1000 btime 1000 winc 20 binc 20");
  const std::vector<std::string> lines = uci.ReadUntil("bestmove");
  ASSERT_FALSE(lines.empty());
  ExpectLegalProtocolMove(game, testing::BestMoveOf(lines));
  EXPECT_LE(ReportedTime(lines), 3 + kSlackMs);
  uci.Send("go nodes 40");
  ExpectLegalProtocolMove(game, uci.BestMove());
}

TEST(UciEngineTest, BadPositionsAreReportedAndLeaveThePositionUnchanged) {
  using G = chad::ChadGame;
  Uci uci(Variant("chad"));
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
    EXPECT_TRUE(uci.ReportsBeforeReady("error")) << "no info string for a bad position";
    uci.Send("d");
    const std::vector<std::string> board = uci.ReadUntil("Fen: ");
    ASSERT_FALSE(board.empty());
    EXPECT_EQ(board.back(), expected_fen);
  }
  // The position is still usable: the engine plays from it.
  uci.Send("go nodes 20");
  ExpectLegalProtocolMove(game, uci.BestMove());
}

TEST(UciEngineTest, MalformedCommandsDoNotStopTheEngine) {
  Uci uci(Variant("portuguese-draughts"));
  for (const char* bad :
       {"setoption", "setoption name", "setoption name Nodes value -5",
        "setoption name Nodes value many", "setoption name NoSuchOption value 1",
        "setoption name UCI_Variant value chess", "setoption name UCI_ShowWDL value maybe",
        "setoption name MultiPV value 100000", "go nodes", "go wtime", "go nodes abc movetime x",
        "go depth", "go winc -30 binc -30 wtime -5 btime -5 movestogo -1"}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(uci.Send(bad));
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
}

TEST(UciEngineTest, AnOverlongLineIsReportedAndTheEngineGoesOn) {
  Uci uci(Variant("chad"));
  EXPECT_TRUE(uci.Send("position startpos moves " + std::string(kMaxLineBytes, 'a')));
  EXPECT_TRUE(uci.ReportsBeforeReady("error: an input line of over"));
  uci.Send("go nodes 8");
  GameState<chad::ChadGame> game;  // the position did not change
  ExpectLegalProtocolMove(game, uci.BestMove());
}

// An input whose first line is `length` 'z's, made as it is read (never held whole), then `rest`.
class LongFirstLine : public std::streambuf {
 public:
  LongFirstLine(size_t length, std::string rest) : left_(length), rest_(std::move(rest)) {
    chunk_.assign(size_t{1} << 16, 'z');
  }

 protected:
  int_type underflow() override {
    if (left_ > 0) {
      const size_t n = std::min(left_, chunk_.size());
      left_ -= n;
      setg(chunk_.data(), chunk_.data(), chunk_.data() + n);
    } else if (!rest_done_) {
      rest_done_ = true;
      setg(rest_.data(), rest_.data(), rest_.data() + rest_.size());
    } else {
      return traits_type::eof();
    }
    return traits_type::to_int_type(*gptr());
  }

 private:
  size_t left_;
  std::string rest_;
  std::string chunk_;
  bool rest_done_ = false;
};

// The peak resident memory of this process in KiB.
long PeakKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(UciEngineTest, RunReadsAnEndlessLineInBoundedMemoryAndGoesOn) {
  LineBuffer buffer;
  std::ostream out(&buffer);
  UciEngine engine(Variant("chad"), out);
  // 512 MiB of one line, made as it is read: held whole (std::getline), it would raise the peak
  // memory of this process by as much.
  LongFirstLine source(size_t{512} << 20, "\nisready\nquit\n");
  std::istream in(&source);
  engine.Handle("isready");  // the engine is built (its memory counted) before the peak is read
  const auto ready_by = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (std::optional<std::string> line; (line = buffer.Next(ready_by)) && *line != "readyok";) {
  }
  const long peak_before = PeakKib();
  engine.Run(in);
  EXPECT_LT(PeakKib() - peak_before, 128 * 1024) << "KiB more at the peak";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::vector<std::string> lines;
  for (std::optional<std::string> line; (line = buffer.Next(deadline));) {
    lines.push_back(*line);
    if (*line == "readyok") break;
  }
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "readyok");
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
    return StartsWith(line, "info string error: an input line of over");
  }));
}

TEST(UciEngineTest, UnknownCommandsAreIgnored) {
  Uci uci(Variant("chaco-rex"));
  uci.Send("isready");
  uci.ReadUntil("readyok");
  // Nothing at all answers these; the next line out must be the readyok of the isready below.
  for (const char* unknown : {"hello", "xyzzy plugh", "", "   ", "GO nodes 5"}) {
    EXPECT_TRUE(uci.Send(unknown));  // commands are case-sensitive: GO is an unknown token
  }
  uci.Send("isready");
  std::optional<std::string> line = uci.ReadLine();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line, "readyok");
  // An unknown leading token is skipped and the rest of the line parsed.
  uci.Send("joho isready");
  line = uci.ReadLine();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line, "readyok");
}

// The last info line before bestmove without its clock-dependent fields (nps, time), and the
// bestmove line.
std::string SearchSummary(Uci& uci) {
  std::string summary;
  for (const std::string& line : uci.ReadUntil("bestmove")) {
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

TEST(UciEngineTest, ThreadsSplitRolloutsWithoutChangingTheSearch) {
  Uci uci(Variant("cuarenta"));
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
}

TEST(UciEngineTest, AMissingNetFileFallsBackToRollouts) {
  Uci uci(Variant("chad"));
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
}

TEST(UciEngineTest, StopEndsAnInfiniteSearchAndTheDestructorStopsOne) {
  GameState<chad::ChadGame> game;
  {
    Uci uci(Variant("chad"));
    uci.Send("position startpos");
    testing::GoInfiniteAndExpectReadyok(uci);
    uci.Send("stop");
    ExpectLegalProtocolMove(game, uci.BestMove());
    uci.Send("go infinite");
    uci.Send("go ponder");  // a second go stops the open-ended first one, which answers
    ExpectLegalProtocolMove(game, uci.BestMove());
  }  // the engine stops the running ponder search on destruction
}

// The moves of the `pv` of every `info depth` line in `lines` (the first move of each).
std::set<std::string> FirstPvMoves(const std::vector<std::string>& lines) {
  std::set<std::string> moves;
  for (const std::string& line : lines) {
    if (!StartsWith(line, "info depth")) continue;
    const std::vector<std::string> words = Words(line);
    const auto pv = std::find(words.begin(), words.end(), "pv");
    if (pv != words.end() && pv + 1 != words.end()) moves.insert(*(pv + 1));
  }
  return moves;
}

TEST(UciEngineTest, SearchmovesRestrictsTheRoot) {
  using G = chad::ChadGame;
  Uci uci(Variant("chad"));
  GameState<G> game;
  uci.Send("setoption name MultiPV value 500");
  uci.Send("position startpos");
  uci.Send("go nodes 300");
  const std::string usual = uci.BestMove();
  ASSERT_NE(ExpectLegalProtocolMove(game, usual), kNullMove);
  // Two moves that are not the engine's usual choice.
  std::vector<std::string> allowed;
  for (Move move : game.legal_moves()) {
    const std::string text = G::FormatMove(game.position(), move);
    if (text != usual && allowed.size() < 2) allowed.push_back(text);
  }
  ASSERT_EQ(allowed.size(), 2u);
  for (int repeat = 0; repeat < 2; ++repeat) {  // the second time on the kept tree
    uci.Send("go nodes 300 searchmoves " + allowed[0] + " " + allowed[1]);
    const std::vector<std::string> lines = uci.ReadUntil("bestmove");
    ASSERT_FALSE(lines.empty());
    const std::string best = Words(lines.back()).at(1);
    EXPECT_TRUE(best == allowed[0] || best == allowed[1]) << best;
    for (const std::string& move : FirstPvMoves(lines)) {
      EXPECT_TRUE(move == allowed[0] || move == allowed[1]) << "a pv starts with " << move;
    }
  }
  // The next go from the same root searches every move again.
  uci.Send("go nodes 300");
  const std::set<std::string> all = FirstPvMoves(uci.ReadUntil("bestmove"));
  EXPECT_GT(all.size(), 2u);
  // Keywords end the list; the display form is accepted too.
  const std::string display = G::FormatDisplayMove(game.position(), game.legal_moves()[0]);
  uci.Send("go searchmoves " + display + " nodes 50");
  EXPECT_EQ(uci.BestMove(), G::FormatMove(game.position(), game.legal_moves()[0]));
}

TEST(UciEngineTest, IllegalSearchmovesAreReportedAndEveryMoveIsSearched) {
  using G = cuarenta::CuarentaGame;
  Uci uci(Variant("cuarenta"));
  GameState<G> game;
  const std::string legal = G::FormatMove(game.position(), game.legal_moves()[0]);
  uci.Send("position startpos");
  for (const std::string& go :
       std::vector<std::string>{"go nodes 40 searchmoves zz99",
                                "go nodes 40 searchmoves " + legal + " a1a1", "go searchmoves"}) {
    SCOPED_TRACE(go);
    uci.Send(go);
    const std::vector<std::string> lines = uci.ReadUntil("bestmove");
    ASSERT_FALSE(lines.empty());
    ExpectLegalProtocolMove(game, Words(lines.back()).at(1));
    const bool reported = std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
      return StartsWith(line, "info string error: go searchmoves");
    });
    EXPECT_EQ(reported, go != "go searchmoves") << "an empty list is no error";
  }
}

}  // namespace
}  // namespace vz
