#pragma once

// Matches between two players: paired openings (each opening played twice, each player once with
// White), several games at once on threads, a live score line, pentanomial statistics, Elo with
// its 95% interval, an optional SPRT that stops the match when the log-likelihood ratio crosses a
// bound, and adjudication of over-long games (draw, or by material count).
//
// Concurrency: with an MCTS player (rollout, net) the match keeps `concurrency` games in flight and
// advances them in lockstep (arena/match_games.h): each round, every game whose side to move is
// an MCTS player adds its leaves to that player's batch, and each player's evaluator (one per
// player: a net is loaded once) is called once per round on the whole batch, all in one thread.
// Without MCTS players, or with a timed player (`movetime=MS`, which searches each move alone by
// its clock), `concurrency` threads each play whole pairs with players of their own. Either way
// game k gets seeds derived from the match seed and k alone, so a game's moves do not depend on the
// concurrency (for a net player up to floating-point differences between batch sizes); only the
// order of completion and which pairs are played before an SPRT stop do. Two players with the same
// MCTS spec (self-play) share one evaluator: the net is loaded once and each round's leaves of both
// colours go to it in one call.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arena/stats.h"
#include "engine/core/error.h"
#include "engine/core/types.h"

namespace vz {

enum class Adjudication { kDraw, kMaterial };

struct MatchConfig {
  std::string player1;  // spec strings (arena/player.h)
  std::string player2;
  int games = 2;  // rounded up to an even number (whole pairs)
  // "" = the initial position for every pair; "random:PLIES" = PLIES random legal plies from the
  // initial position, a fresh opening per pair; otherwise a file with one position string per
  // line ('#' comments, blank lines skipped), used in turn.
  std::string openings;
  std::optional<SprtParams> sprt;
  int concurrency = 1;
  std::string out_dir;  // "" = no files; else records (games.pgn / games.pdn) and games.csv
  // A game still running after max_plies plies is adjudicated: a draw, or (kMaterial) a win for
  // the side ahead by at least material_margin centipawns of material (evaluation.h values).
  int max_plies = 300;
  Adjudication adjudication = Adjudication::kMaterial;
  int material_margin = 200;
  uint64_t seed = 1;
  bool live = false;  // rewrite a score line on stderr after every game
  // When set and true, the match is abandoned between two moves (vz::MatchStopped is thrown);
  // the training loop's SIGINT/SIGTERM handler sets it so that a gating match stops within seconds.
  const std::atomic<bool>* stop = nullptr;
  // MCTS players only: the first `sample_plies` plies of each game (counted from the start of its
  // opening) are sampled from the root's visit counts at `temperature` (SearchPlayer::SetSampling),
  // so that games of a player against itself differ; 0: always the most visited move.
  int sample_plies = 0;
  float temperature = 1.0f;
  // The match plays pairs [first_pair, first_pair + (games + 1) / 2) of a longer match: their
  // openings, seeds and game numbers (MatchGame::index) are those pairs' there, so a match played
  // in parts (a study that resumes from its finished parts) plays the same games as in one piece.
  int first_pair = 0;
};

struct MatchGame;
// Called with each finished game, in the order RunMatch counts them (pairs in order of completion),
// one at a time (under the match's lock), e.g. for a progress display; what it throws ends the
// match.
using MatchGameCallback = std::function<void(const MatchGame&)>;

// Thrown by RunMatch when MatchConfig::stop became true.
class MatchStopped : public Error {
 public:
  MatchStopped() : Error("match stopped before its end") {}
};

// One finished game of a match.
struct MatchGame {
  int index = 0;  // 0-based game number; games 2k and 2k+1 form pair k
  bool player1_white = true;
  Outcome outcome;
  int plies = 0;
  bool adjudicated = false;
  std::string termination;  // rule name or "adjudication: ..." with the measure
  std::string record;       // PGN / PDN text
  std::string start;        // start position (G::FormatPosition): the pair's opening
  std::vector<Move> moves;  // [ply] every move from `start`, random opening plies included
  // [ply] White's view (W - L in [-1, 1]) of the value of the search that chose moves[ply]
  // (Player::LastValue: an MCTS root value, or alpha-beta's score by ScoreToValue); NaN for
  // opening plies and the random player's.
  std::vector<float> values;
};

struct MatchSummary {
  std::string variant;
  std::string player1, player2;
  int64_t wins = 0, draws = 0, losses = 0;  // player 1's view
  Pentanomial pentanomial;
  EloEstimate elo;
  int adjudicated = 0;  // games decided by adjudication (listed in `games`)
  // The SPRT's log-likelihood ratio and verdict, frozen at the pair that decided it (pairs in
  // flight then still count in W/D/L and Elo).
  std::optional<double> llr;
  SprtVerdict verdict = SprtVerdict::kContinue;
  std::vector<MatchGame> games;  // in order of completion (by pairs)
  // MCTS players: evaluator calls and positions evaluated, per player (0 otherwise); where the
  // players search alone (a match with a timed player) also the moves they searched (0 in
  // lockstep), for positions a move.
  int64_t evaluator_calls[2] = {};
  int64_t evaluated[2] = {};
  int64_t searched_moves[2] = {};

  double Score() const;  // per game, player 1
  // Counts the finished games of one pair (one opening, player 1 once with each colour; a lone
  // game counts as a pair of one) into W/D/L, `adjudicated`, the pentanomial and `elo`, and moves
  // them to the end of `games`. The one tally of a match's games: RunMatch's and that of games
  // read back (a study's saved parts). Returns player 1's half points of the pair (0..4).
  int AddPair(std::span<MatchGame> pair);
  // One line, player 1's view: "W 5 D 2 L 1, score 0.750, Elo +191 [+12, +370]" (a whitewash
  // prints the large finite Elo of arena/stats.h; "(interval n/a)" where it defines none).
  std::string ResultText() const;
  // Several lines: W/D/L, score, pentanomial, Elo with interval, adjudications, evaluator
  // batches, SPRT.
  std::string Report(const MatchConfig& config) const;
};

// Plays the match for the registered game `variant`, calling `on_game` (when set) with each
// finished game. Throws vz::Error on an unknown variant, a bad player spec, an unreadable openings
// file or a bad position in it, or an unwritable out_dir.
MatchSummary RunMatch(std::string_view variant, const MatchConfig& config,
                      const MatchGameCallback& on_game = nullptr);

// One line: "W-D-L score Elo +- (LLR)" for the live display.
std::string ScoreLine(const MatchSummary& summary, int total_games);

// Parses the --adjudication value "draw" or "material" (vz::Error otherwise).
Adjudication ParseAdjudication(std::string_view text);

}  // namespace vz
