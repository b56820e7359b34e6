// The UCI engine (serve/uci_engine.h): the protocol's command handling and options. The output
// writer is serve/uci_output.h, the per-game session (position, tree, evaluator, one search at a
// time) serve/uci_session.h.

#include "serve/uci_engine.h"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <exception>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "build_info.h"
#include "engine/core/error.h"
#include "engine/registry.h"
#include "engine/search/search_params.h"
#include "nets/shipped_nets.h"
#include "serve/line_io.h"
#include "serve/uci_output.h"
#include "serve/uci_session.h"
#if defined(VZ_HAVE_TORCH)
#include "nets/net_runner.h"
#endif

namespace vz {
namespace {

using EngineOptions = UciOptions;

constexpr int kMaxThreads = kUciMaxThreads;
constexpr int kMaxHashMib = kUciMaxHashMib;
constexpr int kMaxMinibatch = kUciMaxMinibatch;
constexpr int kMaxMultiPv = kUciMaxMultiPv;
constexpr int64_t kMaxMoveOverheadMs = kUciMaxMoveOverheadMs;

// ---- Protocol -------------------------------------------------------------------------------

std::string Join(const std::vector<std::string>& words, size_t begin, size_t end) {
  std::string text;
  for (size_t i = begin; i < end && i < words.size(); ++i) {
    text += (text.empty() ? "" : " ") + words[i];
  }
  return text;
}

// The integer `text` in [low, high]. Throws vz::Error naming `what` otherwise.
int64_t ParseInteger(const std::string& text, int64_t low, int64_t high, const std::string& what) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end || value < low || value > high) {
    throw Error(fmt::format("{} '{}' is not an integer in [{}, {}]", what, text, low, high));
  }
  return value;
}

bool ParseCheck(const std::string& text, const std::string& what) {
  const std::string lower = Lowered(text);
  if (lower == "true") return true;
  if (lower == "false") return false;
  throw Error(fmt::format("{} '{}' is not true or false", what, text));
}

}  // namespace

class UciEngine::Impl {
 public:
  Impl(const EngineOptions& options, std::ostream& out, bool threads_given)
      : options_(options), defaults_(options), out_(out) {
    FindVariant(options.variant);  // an unknown variant fails before the protocol starts
    if (threads_given) ApplyThreads();
  }

  ~Impl() { StopSearch(/*stop=*/true); }

  // At the end of the input: waits for a search with limits, stops an open-ended one.
  void Finish() { StopSearch(/*stop=*/open_ended_); }

  // Handles one input line; false after `quit`.
  bool Handle(std::string_view line) {
    if (line.size() > kMaxLineBytes) {
      out_.InfoString("error: " + OverlongLineError());
      return true;
    }
    std::vector<std::string> words = SplitWords(line);
    // Unknown leading tokens are skipped, the rest of the line is parsed (as the protocol asks).
    size_t first = 0;
    while (first < words.size() && !IsCommand(words[first])) ++first;
    if (first == words.size()) return true;
    words.erase(words.begin(), words.begin() + std::ptrdiff_t(first));
    const std::string& command = words[0];
    try {
      if (command == "quit") {
        StopSearch(/*stop=*/true);
        return false;
      }
      if (command == "isready") {
        if (!searching_) EnsureSession();
        out_.Line("readyok");
      } else if (command == "stop" || command == "ponderhit") {
        StopSearch(/*stop=*/true);
      } else if (command == "uci") {
        PrintId();
      } else if (command == "debug" || command == "register") {
        // Accepted and ignored: no debug output, no registration.
      } else {
        // A search with limits is waited for; one that would never end (infinite, ponder) is
        // stopped.
        StopSearch(/*stop=*/open_ended_);
        if (command == "setoption") {
          SetOption(words);
        } else if (command == "ucinewgame") {
          EnsureSession();
          session_->NewGame();
          fen_.clear();
          moves_.clear();
        } else if (command == "position") {
          PositionCommand(words);
        } else if (command == "go") {
          GoCommand(words);
        } else if (command == "d") {
          EnsureSession();
          out_.Line(session_->Describe());
        }
      }
    } catch (const std::exception& error) {
      out_.InfoString(std::string("error: ") + command + ": " + error.what());
    }
    return true;
  }

 private:
  static bool IsCommand(const std::string& word) {
    static const char* const kCommands[] = {"uci",      "debug",      "isready",  "setoption",
                                            "register", "ucinewgame", "position", "go",
                                            "stop",     "ponderhit",  "quit",     "d"};
    return std::any_of(std::begin(kCommands), std::end(kCommands),
                       [&](const char* name) { return word == name; });
  }

  static bool IsGoKeyword(const std::string& word) {
    static const char* const kKeywords[] = {"wtime",     "btime",    "winc",     "binc",
                                            "movestogo", "movetime", "nodes",    "depth",
                                            "mate",      "ponder",   "infinite", "searchmoves"};
    return std::any_of(std::begin(kKeywords), std::end(kKeywords),
                       [&](const char* name) { return word == name; });
  }

  void PrintId() {
    out_.Line(std::string("id name vzero ") + VZ_VERSION);
    out_.Line("id author the vzero developers");
    std::string variants;
    for (const Variant* variant : AllVariants()) variants += " var " + std::string(variant->name());
    out_.Line(fmt::format("option name UCI_Variant type combo default {}{}", defaults_.variant,
                          variants));
    out_.Line(fmt::format("option name NetFile type string default {}",
                          defaults_.net_file.empty()    ? "<default>"
                          : nets::IsNoNet(defaults_.net_file) ? "<none>"
                                                         : defaults_.net_file));
    out_.Line(fmt::format("option name Device type string default {}", defaults_.device));
    out_.Line(fmt::format("option name Threads type spin default {} min 1 max {}",
                          defaults_.threads, kMaxThreads));
    out_.Line(fmt::format("option name Hash type spin default {} min 1 max {}", defaults_.hash_mib,
                          kMaxHashMib));
    out_.Line(fmt::format("option name Nodes type spin default {} min 1 max {}", defaults_.nodes,
                          kMaxSimulations));
    out_.Line(fmt::format("option name MinibatchSize type spin default {} min 0 max {}",
                          defaults_.minibatch, kMaxMinibatch));
    out_.Line(fmt::format("option name MultiPV type spin default {} min 1 max {}",
                          defaults_.multipv, kMaxMultiPv));
    out_.Line(fmt::format("option name UCI_ShowWDL type check default {}", defaults_.show_wdl));
    out_.Line(fmt::format("option name Gumbel type check default {}", defaults_.gumbel));
    out_.Line(fmt::format("option name Move Overhead type spin default {} min 0 max {}",
                          defaults_.move_overhead_ms, kMaxMoveOverheadMs));
    out_.Line(fmt::format("option name LeafQuiescence type check default {}",
                          defaults_.leaf_quiescence));
    out_.Line("uciok");
  }

  // setoption name NAME [value VALUE]; names are case-insensitive and may hold spaces.
  void SetOption(const std::vector<std::string>& words) {
    size_t name_at = 1;
    if (name_at >= words.size() || Lowered(words[name_at]) != "name") {
      throw Error("expected 'setoption name NAME [value VALUE]'");
    }
    size_t value_at = name_at + 1;
    while (value_at < words.size() && Lowered(words[value_at]) != "value") ++value_at;
    const std::string name = Join(words, name_at + 1, value_at);
    const std::string value = Join(words, value_at + 1, words.size());
    const std::string key = Lowered(name);
    const std::string what = "option " + name + " value";
    if (key == "uci_variant") {
      const std::string start = FindVariant(value).StartFen();  // throws, listing the games
      options_.variant = value;
      session_.reset();
      fen_.clear();
      moves_.clear();
      out_.InfoString(fmt::format("variant {} startpos {}", value, start));
    } else if (key == "netfile") {
      // <default> (or <empty>, or nothing): the shipped net of the variant; <none>: rollouts.
      const std::string file = value == "<default>" || value == "<empty>" ? "" : value;
      if (file != options_.net_file) session_.reset();
      options_.net_file = file;
    } else if (key == "device") {
      if (value.empty()) throw Error(what + " is empty");
      if (value != options_.device) session_.reset();
      options_.device = value;
    } else if (key == "threads") {
      options_.threads = int(ParseInteger(value, 1, kMaxThreads, what));
      ApplyThreads();
    } else if (key == "hash") {
      options_.hash_mib = int(ParseInteger(value, 1, kMaxHashMib, what));
    } else if (key == "nodes") {
      options_.nodes = ParseInteger(value, 1, kMaxSimulations, what);
    } else if (key == "minibatchsize") {
      options_.minibatch = int(ParseInteger(value, 0, kMaxMinibatch, what));
    } else if (key == "multipv") {
      options_.multipv = int(ParseInteger(value, 1, kMaxMultiPv, what));
    } else if (key == "uci_showwdl") {
      options_.show_wdl = ParseCheck(value, what);
    } else if (key == "gumbel") {
      options_.gumbel = ParseCheck(value, what);
    } else if (key == "leafquiescence") {
      const bool on = ParseCheck(value, what);
      if (on != options_.leaf_quiescence) session_.reset();
      options_.leaf_quiescence = on;
    } else if (key == "move overhead") {
      options_.move_overhead_ms = ParseInteger(value, 0, kMaxMoveOverheadMs, what);
    } else {
      throw Error("unknown option '" + name + "'");
    }
  }

  void ApplyThreads() {
#if defined(VZ_HAVE_TORCH)
    nets::SetCpuThreads(options_.threads);
#endif
  }

  // Builds the session of the current variant if there is none, with the last position.
  void EnsureSession() {
    if (session_ != nullptr) return;
    session_ = MakeUciSession(options_, out_);
    if (!fen_.empty() || !moves_.empty()) {
      try {
        session_->SetPosition(fen_, moves_);
      } catch (const Error&) {
        fen_.clear();
        moves_.clear();
      }
    }
  }

  // position startpos|fen FEN [moves M...]
  void PositionCommand(const std::vector<std::string>& words) {
    EnsureSession();
    std::string fen;
    size_t moves_at = 0;
    if (words.size() >= 2 && words[1] == "startpos") {
      moves_at = 2;
    } else if (words.size() >= 2 && words[1] == "fen") {
      moves_at = 2;
      while (moves_at < words.size() && words[moves_at] != "moves") ++moves_at;
      fen = Join(words, 2, moves_at);
      if (fen.empty()) throw Error("'fen' without a position string; position unchanged");
    } else {
      throw Error("expected 'position startpos|fen FEN [moves ...]'; position unchanged");
    }
    std::vector<std::string> moves;
    if (moves_at < words.size()) {
      if (words[moves_at] != "moves") {
        throw Error("unexpected '" + words[moves_at] + "' (expected 'moves'); position unchanged");
      }
      moves.assign(words.begin() + std::ptrdiff_t(moves_at) + 1, words.end());
    }
    try {
      session_->SetPosition(fen, moves);
    } catch (const Error& error) {
      throw Error(std::string(error.what()) + "; position unchanged");
    }
    fen_ = fen;
    moves_ = std::move(moves);
  }

  // go [wtime T] [btime T] [winc T] [binc T] [movestogo N] [movetime T] [nodes N] [infinite]
  // [ponder] [depth D] [mate N] [searchmoves M...]; depth and mate are ignored. The moves of
  // searchmoves run to the next keyword or the end of the line.
  void GoCommand(const std::vector<std::string>& words) {
    EnsureSession();
    GoLimits limits;
    for (size_t i = 1; i < words.size(); ++i) {
      const std::string& word = words[i];
      // The value after `word`, at least `low`; -1 (with an info string) when it is missing or
      // not a number: a `go` always searches and answers bestmove.
      auto number = [&](int64_t low) -> int64_t {
        if (i + 1 >= words.size()) {
          out_.InfoString("error: go: '" + word + "' without a value; ignored");
          return -1;
        }
        const std::string& text = words[++i];
        try {
          return std::max(low, ParseInteger(text, std::numeric_limits<int64_t>::min() / 4,
                                            std::numeric_limits<int64_t>::max() / 4, "go " + word));
        } catch (const Error& error) {
          out_.InfoString(std::string("error: ") + error.what() + "; ignored");
          return -1;
        }
      };
      if (word == "wtime") {
        const int64_t value = number(0);
        if (value >= 0) limits.time.white_ms = value;
      } else if (word == "btime") {
        const int64_t value = number(0);
        if (value >= 0) limits.time.black_ms = value;
      } else if (word == "winc") {
        limits.time.white_increment_ms = std::max<int64_t>(0, number(0));
      } else if (word == "binc") {
        limits.time.black_increment_ms = std::max<int64_t>(0, number(0));
      } else if (word == "movestogo") {
        limits.time.moves_to_go = int(std::clamp<int64_t>(number(0), 0, 1000000));
      } else if (word == "movetime") {
        const int64_t value = number(0);
        if (value >= 0) limits.time.move_time_ms = value;
      } else if (word == "nodes") {
        limits.nodes = std::min<int64_t>(std::max<int64_t>(0, number(0)), kMaxSimulations);
      } else if (word == "depth" || word == "mate") {
        number(0);
      } else if (word == "infinite") {
        limits.time.infinite = true;
      } else if (word == "ponder") {
        limits.ponder = true;
      } else if (word == "searchmoves") {
        while (i + 1 < words.size() && !IsGoKeyword(words[i + 1])) {
          limits.search_moves.push_back(words[++i]);
        }
      }
      // Unknown tokens: ignored.
    }
    stop_.store(false);
    searching_ = true;
    open_ended_ = limits.time.infinite || limits.ponder;
    UciSession* session = session_.get();
    const EngineOptions options = options_;
    search_thread_ = std::thread([this, session, limits, options] {
      try {
        session->Go(limits, options, stop_, out_);
      } catch (const std::exception& error) {
        // Go reports evaluator failures itself; this is the last resort (e.g. out of memory),
        // so that the GUI still gets its bestmove.
        out_.InfoString(std::string("error: go: ") + error.what());
        out_.Line("bestmove (none)");
      }
    });
  }

  // Ends the running search, if any: stops it when `stop`, else waits for it to finish; joins
  // the search thread (its bestmove has then been printed).
  void StopSearch(bool stop) {
    if (!searching_) return;
    if (stop) stop_.store(true);
    search_thread_.join();
    searching_ = false;
  }

  EngineOptions options_;
  const EngineOptions defaults_;  // the values `uci` lists as defaults (command line included)
  UciOutput out_;
  std::unique_ptr<UciSession> session_;
  std::string fen_;                 // the last position set: FEN (empty: start position)
  std::vector<std::string> moves_;  // and moves
  std::atomic<bool> stop_{false};
  bool searching_ = false;
  bool open_ended_ = false;  // the running search waits for `stop` (go infinite, go ponder)
  std::thread search_thread_;
};

UciEngine::UciEngine(const UciOptions& options, std::ostream& out, bool threads_given)
    : impl_(std::make_unique<Impl>(options, out, threads_given)) {}

UciEngine::~UciEngine() = default;

bool UciEngine::Handle(std::string_view line) { return impl_->Handle(line); }

void UciEngine::Finish() { impl_->Finish(); }

void UciEngine::Run(std::istream& in) {
  std::string line;
  while (ReadLine(in, line)) {
    if (!impl_->Handle(line)) return;
  }
  impl_->Finish();
}

}  // namespace vz
