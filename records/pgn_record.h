#pragma once

// Game records in each game's own text format:
// - PGN for Chaco Rex, Chad and Cuarenta: the seven-tag roster, `Variant` naming the game
//   (its registry name), `SetUp "1"` and `FEN` when the start is not the game's initial position,
//   `Termination` (the rule that ended the game, or the adjudication and its measure), `PlyCount`,
//   then the moves in the game's display notation (G::FormatDisplayMove) with move numbers and the
//   result token `1-0`, `0-1`, `1/2-1/2` or `*`.
// - PDN for Portuguese draughts: the same tags with `GameType "32"` (Portuguese draughts in the
//   PDN standard's list) instead of `Variant`, moves in square-number notation (`11-15`, `15x22`)
//   and the draughts result tokens `2-0`, `0-2`, `1-1` or `*`.
//
// The reader accepts several games per file, `{...}` and `;` comments, `(...)` variations
// (skipped), NAGs `$n`, move numbers `12.` / `12...` (also glued to a move), and both families of
// result tokens; moves may be in display or protocol form (whatever G::ParseMove accepts).

#include <ctime>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game_state.h"

namespace vz {

// Tags of a record, in order of appearance.
using RecordTags = std::vector<std::pair<std::string, std::string>>;

// One game of a record file as text: its tags, its move tokens (numbers, comments and NAGs
// removed) and its result token ("*" if none).
struct RecordText {
  RecordTags tags;
  std::vector<std::string> moves;
  std::string result = "*";

  // The value of tag `name`, or "" when absent.
  std::string Tag(std::string_view name) const;
};

// Splits a PGN or PDN file's text into games. Throws vz::Error (naming the line) on an
// unterminated tag, comment or variation.
std::vector<RecordText> ParseRecordText(std::string_view text);

// Reads the whole file at `path`. Throws vz::Error naming the path when it cannot be read.
std::string ReadTextFile(const std::string& path);

// Result token for a game status, in PGN or (draughts) PDN form.
std::string ResultToken(Status status, bool draughts);
// Status of a result token of either family; kOngoing for "*". Throws vz::Error on anything else.
Status StatusFromResultToken(std::string_view token);

// What a finished game needs besides its moves: players, round, how it ended.
struct RecordInfo {
  std::string event = "vzero match";
  std::string white = "?";
  std::string black = "?";
  int round = 1;
  Outcome outcome;          // the final result (kOngoing: "*")
  std::string termination;  // e.g. "checkmate", "adjudication: material 300"
};

template <Game G>
constexpr bool IsDraughts() {
  return std::string_view(G::kName) == "portuguese-draughts";
}

// The move number a record gives the first move played from `position`: the position string's
// (G::MoveNumber, the PGN FEN's full-move field) for the games that have one, else 1.
template <Game G>
int RecordMoveNumber(const typename G::Position& position) {
  if constexpr (requires { G::MoveNumber(position); }) {
    return G::MoveNumber(position);
  } else {
    return 1;
  }
}

// Writes one game (start position and moves of `state`) as PGN, or PDN for draughts. Moves are
// numbered from the start position's move number (RecordMoveNumber: `150.`, or `150...` when
// Black moves first). The text
// ends with a blank line, so that records can be concatenated into one file.
template <Game G>
std::string WriteRecord(const GameState<G>& state, const RecordInfo& info) {
  constexpr bool kDraughts = IsDraughts<G>();
  const std::string result = ResultToken(info.outcome.status, kDraughts);
  char date[16] = "????.??.??";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (gmtime_r(&now, &utc) != nullptr) std::strftime(date, sizeof(date), "%Y.%m.%d", &utc);
  std::string out;
  // A tag is one line: quotes and backslashes are escaped, control characters (a newline that
  // would start a forged tag) become spaces.
  auto tag = [&out](std::string_view name, const std::string& value) {
    out += "[" + std::string(name) + " \"";
    for (char c : value) {
      if (c == '"' || c == '\\') out += '\\';
      const auto byte = static_cast<unsigned char>(c);
      out += byte < 0x20 || byte == 0x7f ? ' ' : c;
    }
    out += "\"]\n";
  };
  tag("Event", info.event);
  tag("Site", "?");
  tag("Date", date);
  tag("Round", std::to_string(info.round));
  tag("White", info.white);
  tag("Black", info.black);
  tag("Result", result);
  if constexpr (kDraughts) {
    tag("GameType", "32");
  } else {
    tag("Variant", std::string(G::kName));
  }
  const std::string start = G::FormatPosition(state.start_position());
  if (start != G::FormatPosition(G::InitialPosition())) {
    tag("SetUp", "1");
    tag("FEN", start);
  }
  if (!info.termination.empty()) tag("Termination", info.termination);
  tag("PlyCount", std::to_string(state.moves().size()));
  out += "\n";
  typename G::Position position = state.start_position();
  std::string line;
  auto emit = [&out, &line](const std::string& token) {
    if (!line.empty() && line.size() + 1 + token.size() > 79) {
      out += line + "\n";
      line.clear();
    }
    line += line.empty() ? token : " " + token;
  };
  int move_number = RecordMoveNumber<G>(position);
  bool first = true;
  for (Move move : state.moves()) {
    const bool white = G::SideToMove(position) == Color::kWhite;
    if (white) {
      emit(std::to_string(move_number) + ".");
    } else if (first) {
      emit(std::to_string(move_number) + "...");
    }
    emit(G::FormatDisplayMove(position, move));
    G::ApplyMove(position, move);
    if (!white) ++move_number;
    first = false;
  }
  emit(result);
  out += line + "\n\n";
  return out;
}

// The outcome of replaying one record.
struct ReplayReport {
  int game = 0;                // 1-based index of the game in the file
  int plies_played = 0;        // legal moves replayed
  bool ok = true;              // every move legal
  int illegal_ply = 0;         // 1-based ply of the first illegal move (when !ok)
  std::string illegal_move;    // its text
  std::string error;           // why it is illegal (the game's own message)
  std::string final_position;  // after the last legal move
  Outcome final_outcome;       // of the replayed game (rules and repetition)
  std::string result_tag;      // the record's result token
};

// Replays `record` for game G from its FEN tag (or the initial position) and reports the first
// illegal move, if any. Throws vz::Error when the FEN tag does not parse or the Variant/GameType
// tag names another game.
template <Game G>
ReplayReport ReplayRecord(const RecordText& record, int game_index,
                          GameState<G>* replayed = nullptr) {
  ReplayReport report;
  report.game = game_index;
  report.result_tag = record.result;
  if constexpr (IsDraughts<G>()) {
    const std::string type = record.Tag("GameType");
    if (!type.empty() && type.substr(0, type.find(',')) != "32") {
      throw Error("record game " + std::to_string(game_index) + ": GameType \"" + type +
                  "\" is not Portuguese draughts (32)");
    }
  } else {
    const std::string variant = record.Tag("Variant");
    if (!variant.empty() && variant != std::string(G::kName)) {
      throw Error("record game " + std::to_string(game_index) + ": Variant \"" + variant +
                  "\" is not " + std::string(G::kName));
    }
  }
  const std::string fen = record.Tag("FEN");
  GameState<G> state(fen.empty() ? G::InitialPosition() : G::ParsePosition(fen));
  for (const std::string& token : record.moves) {
    try {
      if (state.outcome().IsTerminal()) throw Error("the game is already over");
      state.Play(token);
    } catch (const Error& e) {
      report.ok = false;
      report.illegal_ply = report.plies_played + 1;
      report.illegal_move = token;
      report.error = e.what();
      break;
    }
    ++report.plies_played;
  }
  report.final_position = G::FormatPosition(state.position());
  report.final_outcome = state.outcome();
  if (replayed != nullptr) *replayed = state;
  return report;
}

// Replays every game of the record file at `path` for the registered game `variant`. Throws
// vz::Error on an unknown variant, an unreadable file or a bad FEN tag.
std::vector<ReplayReport> ReplayRecordFile(std::string_view variant, const std::string& path);

// The registry name of the game a record names: its Variant tag, or portuguese-draughts for
// GameType 32; "" when it names none.
std::string VariantOfRecord(const RecordText& record);

}  // namespace vz
