// The terminal play session (serve/play_session.h).

#include "serve/play_session.h"

#include <fmt/core.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/games.h"
#include "engine/search/evaluator_registry.h"
#include "engine/search/mcts.h"
#include "engine/search/quiescence_evaluator.h"
#include "engine/search/rollout_evaluator.h"
#include "nets/shipped_nets.h"
#include "records/pgn_record.h"
#include "serve/line_io.h"

namespace vz {
namespace {

constexpr const char* kHelp =
    "commands:\n"
    "  <move>   play a move, in protocol form (e.g. the first word of `moves`) or display form\n"
    "  moves    list the legal moves\n"
    "  hint     search the position and print the move the engine would play\n"
    "  undo     take back your last move and the engine's reply\n"
    "  fen      print the position string\n"
    "  board    draw the board again\n"
    "  help     this text\n"
    "  quit     stop; the game is saved unfinished (result *)\n";

// "vzero-<variant>-<UTC date>-<time>.pgn" (".pdn" for draughts) in the current folder.
std::string DefaultRecordPath(std::string_view variant, bool draughts) {
  char stamp[32] = "game";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (gmtime_r(&now, &utc) != nullptr) std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
  return "vzero-" + std::string(variant) + "-" + stamp + (draughts ? ".pdn" : ".pgn");
}

template <Game G>
class GamePlaySession {
 public:
  GamePlaySession(const PlayOptions& options, std::istream& in, std::ostream& out,
                  std::unique_ptr<Evaluator<G>> evaluator, std::string engine_name, Color human,
                  const typename G::Position& start)
      : options_(options),
        in_(in),
        out_(out),
        evaluator_(std::move(evaluator)),
        engine_name_(std::move(engine_name)),
        human_(human),
        game_(start) {
    SearchParams params;
    params.seed = options.seed;
    search_ = std::make_unique<Mcts<G>>(params);
  }

  void Run() {
    CheckSavePath();
    fmt::print(out_, "vzero play: {}; you play {}, vzero plays {} ({}, {} simulations a move).\n",
               G::kName, ColorName(human_), ColorName(Opponent(human_)), engine_name_,
               options_.simulations);
    fmt::print(out_, "Type a move, or 'help' for the commands.\n");
    ShowBoard();
    try {
      bool quit = false;
      while (!game_.outcome().IsTerminal() && game_.legal_moves().size > 0 && !quit) {
        if (G::SideToMove(game_.position()) != human_) {
          EngineMove();
          continue;
        }
        fmt::print(out_, "{} to move> ", ColorName(human_));
        out_.flush();
        std::string line;
        if (!ReadLine(in_, line)) {
          fmt::print(out_, "\n(end of input)\n");
          break;
        }
        if (line.size() > kMaxLineBytes) {
          fmt::print(out_, "{}\n", OverlongLineError());
          continue;
        }
        const std::string input = Trimmed(line);
        const std::string command = Lowered(input);
        if (input.empty()) continue;
        if (command == "quit" || command == "exit") {
          quit = true;
        } else if (command == "help" || command == "?") {
          fmt::print(out_, "{}", kHelp);
        } else if (command == "fen") {
          fmt::print(out_, "fen: {}\n", G::FormatPosition(game_.position()));
        } else if (command == "board") {
          ShowBoard();
        } else if (command == "moves") {
          PrintMoves();
        } else if (command == "hint") {
          Hint();
        } else if (command == "undo") {
          Undo();
        } else {
          HumanMove(input);
        }
      }
    } catch (const std::exception&) {
      // An engine failure (a net that outputs NaN, memory): the game so far is saved first.
      try {
        Finish();
      } catch (const std::exception& e) {
        fmt::print(out_, "the game could not be saved: {}\n", e.what());
      }
      throw;
    }
    Finish();
  }

 private:
  void ShowBoard() const {
    const typename G::Position& position = game_.position();
    fmt::print(out_, "\n{}", G::BoardPicture(position));
    if (!game_.moves().empty()) {
      fmt::print(out_, "last move: {}\n", last_move_);
    }
    const Outcome outcome = game_.outcome();
    if (outcome.IsTerminal()) {
      fmt::print(out_, "game over: {} ({})\n", StatusName(outcome.status),
                 ReasonName(outcome.reason));
    } else {
      const bool check = G::kHasCheck && G::InCheck(position);
      fmt::print(out_, "{} to move{}\n", ColorName(G::SideToMove(position)),
                 check ? ", in check" : "");
    }
  }

  void PrintMoves() const {
    const typename G::Position& position = game_.position();
    std::vector<std::string> protocol, display;
    for (Move move : game_.legal_moves()) {
      protocol.push_back(G::FormatMove(position, move));
      display.push_back(G::FormatDisplayMove(position, move));
    }
    fmt::print(out_, "legal moves ({}): {}\n", protocol.size(), fmt::join(protocol, " "));
    if (display != protocol) fmt::print(out_, "display form: {}\n", fmt::join(display, " "));
  }

  // "Rc3-c1 (c3c1)": the display form, and the protocol form when it differs.
  std::string Describe(const typename G::Position& position, Move move) const {
    const std::string display = G::FormatDisplayMove(position, move);
    const std::string protocol = G::FormatMove(position, move);
    return display == protocol ? display : display + " (" + protocol + ")";
  }

  // Searches the current position with the engine's budget; returns the result.
  SearchResult Search() {
    search_->SetRoot(game_);
    search_->Search(*evaluator_, options_.simulations);
    return search_->Result();
  }

  void EngineMove() {
    const SearchResult result = Search();
    const Move move = result.best_move == kNullMove ? game_.legal_moves()[0] : result.best_move;
    const typename G::Position before = game_.position();
    last_move_ = Describe(before, move);
    game_.Play(move);
    fmt::print(out_, "vzero plays: {}   [visits {}, q {:+.2f}]\n", last_move_, result.root_visits,
               result.root_q);
    ShowBoard();
  }

  void HumanMove(const std::string& text) {
    const typename G::Position before = game_.position();
    Move move;
    try {
      move = G::ParseMove(before, text);
    } catch (const Error& e) {
      fmt::print(out_,
                 "illegal move '{}': {} (type 'moves' for the legal moves, 'help' for commands)\n",
                 PrintableText(text), e.what());
      return;
    }
    last_move_ = Describe(before, move);
    game_.Play(move);
    fmt::print(out_, "you play: {}\n", last_move_);
    ShowBoard();
  }

  void Hint() {
    const SearchResult result = Search();
    if (result.best_move == kNullMove) {
      fmt::print(out_, "hint: no move to suggest\n");
      return;
    }
    fmt::print(out_, "hint: {}   [visits {}, q {:+.2f}]\n",
               Describe(game_.position(), result.best_move), result.root_visits, result.root_q);
  }

  // Takes back moves up to and including the human's last one (so the engine's reply too).
  void Undo() {
    const std::vector<Move> moves = game_.moves();
    std::vector<typename G::Position> before;  // [ply] position before move ply
    GameState<G> replay(game_.start_position());
    for (Move move : moves) {
      before.push_back(replay.position());
      replay.Play(move);
    }
    int last_human = -1;
    for (int ply = int(moves.size()) - 1; ply >= 0; --ply) {
      if (G::SideToMove(before[size_t(ply)]) == human_) {
        last_human = ply;
        break;
      }
    }
    if (last_human < 0) {
      fmt::print(out_, "undo: none of your moves to take back\n");
      return;
    }
    std::vector<std::string> taken;
    for (size_t ply = size_t(last_human); ply < moves.size(); ++ply) {
      taken.push_back(Describe(before[ply], moves[ply]));
    }
    GameState<G> state(game_.start_position());
    for (int ply = 0; ply < last_human; ++ply) state.Play(moves[size_t(ply)]);
    game_ = state;
    last_move_ = last_human > 0
                     ? Describe(before[size_t(last_human - 1)], moves[size_t(last_human - 1)])
                     : "";
    fmt::print(out_, "took back: {}\n", fmt::join(taken, ", "));
    ShowBoard();
  }

  // The record's path: --save, or a fresh name in the working directory.
  std::string SavePath() const {
    return options_.save.empty() ? DefaultRecordPath(G::kName, IsDraughts<G>()) : options_.save;
  }

  // Refuses a --save path whose directory does not exist before the game, not after it.
  void CheckSavePath() const { CheckDirectoryOf(SavePath(), "play: game record"); }

  void Finish() {
    constexpr bool kDraughts = IsDraughts<G>();
    const Outcome outcome = game_.outcome();
    RecordInfo info;
    info.event = "vzero play";
    const std::string engine =
        "vzero (" + engine_name_ + ", " + std::to_string(options_.simulations) + " simulations)";
    info.white = human_ == Color::kWhite ? "human" : engine;
    info.black = human_ == Color::kBlack ? "human" : engine;
    info.outcome = outcome;
    info.termination = outcome.IsTerminal() ? ReasonName(outcome.reason) : "unterminated";
    const std::string result = ResultToken(outcome.status, kDraughts);
    if (outcome.IsTerminal()) {
      fmt::print(out_, "result: {} ({}, {})\n", result, StatusName(outcome.status),
                 ReasonName(outcome.reason));
    } else {
      fmt::print(out_, "result: {} (game not finished)\n", result);
    }
    const std::string path = SavePath();
    WriteFileAtomically(path, WriteRecord(game_, info));
    fmt::print(out_, "saved: {}\n", path);
    out_.flush();
  }

  const PlayOptions& options_;
  std::istream& in_;
  std::ostream& out_;
  std::unique_ptr<Evaluator<G>> evaluator_;
  std::string engine_name_;
  Color human_;
  GameState<G> game_;
  std::unique_ptr<Mcts<G>> search_;
  std::string last_move_;  // the last move described as Describe prints it
};

}  // namespace

PlaySession::PlaySession(PlayOptions options, std::istream& in, std::ostream& out,
                         std::ostream& notes)
    : options_(std::move(options)), in_(in), out_(out), notes_(notes) {}

void PlaySession::Run() {
  const PlayOptions& options = options_;
  const Color human = options.color == "black" ? Color::kBlack : Color::kWhite;
  WithGame(options.variant, [&]<Game G>() {
    typename G::Position start = G::InitialPosition();
    if (!options.fen.empty()) start = G::ParsePosition(options.fen);
    std::unique_ptr<Evaluator<G>> evaluator;
    std::string name;
    std::string net_file;
#if defined(VZ_HAVE_TORCH)
    const nets::NetChoice choice = nets::ResolveNet(options.net, G::kName);
    net_file = choice.file;
    if (choice.warning) notes_ << "vzero play: " << choice.message << "\n";
#else
    if (!nets::IsNoNet(options.net) && !nets::IsShippedNetRequest(options.net)) {
      net_file = options.net;
    }
#endif
    if (!net_file.empty()) {
      try {
        evaluator = WithLeafQuiescence<G>(LoadNetEvaluator<G>(net_file, options.device),
                                          options.leaf_quiescence);
        name = "net " + net_file;
        notes_ << "vzero play: the engine plays with net " << net_file
               << (options.leaf_quiescence ? " and leaf quiescence" : "") << "\n";
      } catch (const Error& error) {
        // A net named on the command line is the person's choice: its fault is an error. The
        // shipped net (none named) falls back to rollouts with a warning.
        if (!nets::IsShippedNetRequest(options.net)) throw;
        notes_ << "vzero play: warning: shipped net " << net_file << ": " << error.what()
               << "; using random rollouts\n";
      }
    }
    if (!evaluator) {
      evaluator = std::make_unique<RolloutEvaluator<G>>(options.seed);
      name = "random rollouts";
      notes_ << "vzero play: no net: the engine uses random rollouts (weak)\n";
    }
    GamePlaySession<G>(options, in_, out_, std::move(evaluator), name, human, start).Run();
  });
}

}  // namespace vz
