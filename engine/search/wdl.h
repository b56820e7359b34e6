#pragma once

// A game result as win/draw/loss probabilities (what value heads and evaluators return).

namespace vz {

// Win, draw and loss probabilities from the point of view of the side to move; they sum to 1.
struct Wdl {
  float win = 0.0f;
  float draw = 1.0f;
  float loss = 0.0f;

  // Expected score in [-1, 1] for the side to move.
  float Value() const { return win - loss; }
  // The same outcome seen by the other side.
  Wdl Flipped() const { return {loss, draw, win}; }
  // From a value v = W - L and a draw probability d (W + D + L = 1).
  static Wdl FromValueAndDraw(float value, float draw) {
    return {0.5f * (1.0f - draw + value), draw, 0.5f * (1.0f - draw - value)};
  }
};

}  // namespace vz
