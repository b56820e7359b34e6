#pragma once

// The SampleCodec of game G (nets/trainer.h): what the trainer needs to expand a CompactBatch on
// its device. On a CUDA trainer the callbacks launch the rule kernels of cuda/batched_kernels.h
// (LaunchEncodeFloat, LaunchLegalMoves with policy indices) on the given stream; on the CPU they
// run their CPU twin (cuda/batched_rules.h), the same per-position cores. The symmetry maps are
// the encoding's own (InputEncoding<G>::SymmetricCell and SymmetricAction), as nets/augment.h
// applies them. Torch-free. Source: issue 19 ("compact samples ... encoded on the device with
// the existing kernels").

#include <memory>
#include <string>

#include "cuda/batched_rules.h"
#include "engine/core/error.h"
#include "engine/encodings.h"
#include "nets/trainer.h"

#if defined(VZ_HAVE_CUDA)
#include "cuda/batched_kernels.h"
#endif

namespace vz::nets {

// G's codec for a trainer on a CUDA device (`cuda` true: the rule kernels) or on the CPU (the
// CPU twin, SampleCodec::host). Throws vz::Error for a CUDA codec in a build without the CUDA
// kernels.
template <Game G>
std::shared_ptr<const SampleCodec> MakeSampleCodec(bool cuda) {
  using E = InputEncoding<G>;
  using Position = typename G::Position;
  auto codec = std::make_shared<SampleCodec>();
  codec->game = std::string(G::kName);
  codec->position_bytes = int(sizeof(Position));
  codec->max_moves = G::kMaxMoves;
  codec->symmetries = E::kNumSymmetries;
  for (int s = 0; s < E::kNumSymmetries; ++s) {
    for (int row = 0; row < E::kHeight; ++row) {
      for (int column = 0; column < E::kWidth; ++column) {
        int r = row, c = column;
        if (s != 0) E::SymmetricCell(s, row, column, r, c);
        codec->cell_maps.push_back(r * E::kWidth + c);
      }
    }
    for (int a = 0; a < E::kNumActions; ++a) {
      codec->action_maps.push_back(s == 0 ? a : E::SymmetricAction(s, a));
    }
  }
  if (cuda) {
#if defined(VZ_HAVE_CUDA)
    codec->host = false;
    codec->encode = [](const void* positions, int n, const int32_t* repetitions, float* planes,
                       void* stream) {
      cuda::LaunchEncodeFloat<G>(static_cast<const Position*>(positions), n, repetitions, planes,
                                 stream);
    };
    codec->legal_indices = [](const void* positions, int n, int32_t* counts,
                              int32_t* policy_indices, void* stream) {
      cuda::LaunchLegalMoves<G>(static_cast<const Position*>(positions), n, /*moves=*/nullptr,
                                counts, policy_indices, stream);
    };
#else
    throw Error("sample codec: this vzero was built without the CUDA kernels");
#endif
  } else {
    codec->encode = [](const void* positions, int n, const int32_t* repetitions, float* planes,
                       void*) {
      cuda::CpuEncodeFloat<G>(static_cast<const Position*>(positions), n, repetitions, planes);
    };
    codec->legal_indices = [](const void* positions, int n, int32_t* counts,
                              int32_t* policy_indices, void*) {
      cuda::CpuLegalMoves<G>(static_cast<const Position*>(positions), n, /*moves=*/nullptr, counts,
                             policy_indices);
    };
  }
  return codec;
}

// G's codec for a trainer on `device` (a torch device name, "cpu" or "cuda:N"): the rule
// kernels' on a CUDA device in a build with them, else the CPU twin (on a CUDA device of a build
// without the kernels the trainer then expands on the host). Never throws.
template <Game G>
std::shared_ptr<const SampleCodec> MakeTrainerSampleCodec(
    [[maybe_unused]] const std::string& device) {
#if defined(VZ_HAVE_CUDA)
  return MakeSampleCodec<G>(/*cuda=*/device.starts_with("cuda"));
#else
  return MakeSampleCodec<G>(/*cuda=*/false);
#endif
}

}  // namespace vz::nets
