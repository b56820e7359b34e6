#include "engine/registry.h"

#include <algorithm>
#include <memory>

#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/core/perft.h"
#include "engine/games.h"
#include "engine/variant_search.h"

namespace vz {
namespace {

template <Game G>
class VariantImpl final : public Variant {
 public:
  std::string_view name() const override { return G::kName; }
  std::string StartFen() const override { return G::FormatPosition(G::InitialPosition()); }

  uint64_t Perft(std::string_view fen, int depth) const override {
    if (depth < 0) throw Error("perft depth " + std::to_string(depth) + " is negative");
    return vz::Perft<G>(Parse(fen), depth);
  }

  std::vector<std::pair<std::string, uint64_t>> PerftDivide(std::string_view fen,
                                                            int depth) const override {
    if (depth < 1) throw Error("perft --divide needs depth >= 1, got " + std::to_string(depth));
    return vz::PerftDivide<G>(Parse(fen), depth);
  }

  PositionReport Show(std::string_view fen, const std::vector<std::string>& moves) const override {
    GameState<G> game(Parse(fen));
    PositionReport report;
    report.played_display = PlayMoveStrings(game, moves);
    const typename G::Position& position = game.position();
    report.fen = G::FormatPosition(position);
    report.board = G::BoardPicture(position);
    report.side_to_move = G::SideToMove(position);
    report.has_check = G::kHasCheck;
    report.in_check = G::kHasCheck && G::InCheck(position);
    report.outcome = game.outcome();
    for (Move move : game.legal_moves()) {
      report.legal_moves.push_back(G::FormatMove(position, move));
      report.legal_moves_display.push_back(G::FormatDisplayMove(position, move));
    }
    return report;
  }

  SearchReport Search(const SearchRequest& request) const override {
    return RunVariantSearch<G>(request);
  }

  BenchReport Bench(int64_t simulations) const override { return RunVariantBench<G>(simulations); }

 private:
  static typename G::Position Parse(std::string_view fen) {
    return fen.empty() ? G::InitialPosition() : G::ParsePosition(fen);
  }
};

// The one Variant of game G, alive until the end of the program (a static, so that nothing is
// left allocated at exit: LeakSanitizer reported the `new`ed ones of earlier versions).
template <Game G>
const Variant* VariantOf() {
  static const VariantImpl<G> variant;
  return &variant;
}

// The Variants in AllGames order, so that GameIndex indexes them.
template <class... Gs>
const std::vector<const Variant*>& VariantsInGameOrder(GameList<Gs...>) {
  static const std::vector<const Variant*> variants = {VariantOf<Gs>()...};
  return variants;
}

}  // namespace

const std::vector<const Variant*>& AllVariants() {
  static const std::vector<const Variant*> variants = [] {
    std::vector<const Variant*> sorted = VariantsInGameOrder(AllGames{});
    std::sort(sorted.begin(), sorted.end(),
              [](const Variant* a, const Variant* b) { return a->name() < b->name(); });
    return sorted;
  }();
  return variants;
}

const Variant& FindVariant(std::string_view name) {
  return *VariantsInGameOrder(AllGames{})[GameIndex(name)];
}

}  // namespace vz
