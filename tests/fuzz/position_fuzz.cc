// Fuzz target: each game's position string and move forms (engine/core/game.h's text I/O).
// Input: byte 0 chooses the game (AllGames, modulo 4); the first line of the rest is a position
// string (empty: the start position), every further whitespace-separated word a move in protocol
// or display form, played in turn through GameState (illegal ones are skipped).
// Checks, beyond "no crash, no leak, no undefined behaviour": bad text is a vz::Error; a parsed
// position formats to a string that parses back to the same string; its hash equals the hash
// computed from scratch; every legal move has an action index in [0, kNumActions), and its
// protocol and display forms parse back to the same move.

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "tests/fuzz/fuzz_util.h"

namespace vz::fuzz {
namespace {

template <Game G>
void CheckPosition(const typename G::Position& position) {
  VZ_FUZZ_CHECK(G::Hash(position) == G::ComputeHash(position));
  const std::string text = G::FormatPosition(position);
  VZ_FUZZ_CHECK(G::FormatPosition(G::ParsePosition(text)) == text);
  typename G::MoveList moves;
  G::GenerateMoves(position, moves);
  VZ_FUZZ_CHECK(moves.size >= 0 && moves.size <= G::kMaxMoves);
  G::LocalOutcome(position, moves.size);
  G::BoardPicture(position);
  for (Move move : moves) {
    const int action = G::ActionIndex(position, move);
    VZ_FUZZ_CHECK(action >= 0 && action < G::kNumActions);
    VZ_FUZZ_CHECK(G::ParseMove(position, G::FormatMove(position, move)) == move);
    VZ_FUZZ_CHECK(G::ParseMove(position, G::FormatDisplayMove(position, move)) == move);
  }
}

template <Game G>
void Run(std::string_view text) {
  const size_t line_end = std::min(text.find('\n'), text.size());
  const std::string_view fen = text.substr(0, line_end);
  GameState<G> game;
  try {
    game = GameState<G>(fen.empty() ? G::InitialPosition() : G::ParsePosition(fen));
  } catch (const Error&) {
    return;  // bad position strings are errors, as they must be
  }
  CheckPosition<G>(game.position());
  std::string_view rest = text.substr(line_end);
  int played = 0;
  while (!rest.empty() && played < 64) {
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) {
      rest.remove_prefix(1);
    }
    size_t end = 0;
    while (end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[end]))) ++end;
    if (end == 0) break;
    const std::string_view word = rest.substr(0, end);
    rest.remove_prefix(end);
    try {
      game.Play(word);
    } catch (const Error&) {
      continue;
    }
    ++played;
    CheckPosition<G>(game.position());
    game.outcome();
  }
}

}  // namespace
}  // namespace vz::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  vz::fuzz::WithGameNumber(data[0], [&]<vz::Game G>() { vz::fuzz::Run<G>(text); });
  return 0;
}
