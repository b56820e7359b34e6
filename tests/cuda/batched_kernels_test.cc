// The host side of the CUDA launchers (cuda/batched_kernels.h), which runs before any CUDA call and
// so needs no device: a negative batch is refused with a vz::Error naming the launcher and the
// batch, and an empty batch launches nothing (no CUDA call, so no error even without a device or
// driver). The kernels themselves are compared with the CPU twin in batched_kernels_gpu_test.cc
// (label gpu). Built with the CUDA kernels only (VZ_HAVE_CUDA); label unit.

#include <gtest/gtest.h>

#include <string>

#include "engine/core/error.h"
#include "engine/games.h"
#include "tests/test_util.h"

#if defined(VZ_HAVE_CUDA)
#include "cuda/batched_kernels.h"
#include "cuda/device_buffer.h"
#endif

namespace vz {
namespace {

#if defined(VZ_HAVE_CUDA)
using testing::ErrorOf;

TEST(BatchedKernelsTest, NegativeBatchIsRefusedByNameWithoutTouchingTheDevice) {
  using G = draughts::DraughtsGame;
  EXPECT_EQ(
      ErrorOf([] { cuda::LaunchLegalMoves<G>(nullptr, -1, nullptr, nullptr, nullptr, nullptr); }),
      "LaunchLegalMoves: batch -1 is negative");
  EXPECT_EQ(ErrorOf([] { cuda::LaunchEncodeFloat<G>(nullptr, -3, nullptr, nullptr, nullptr); }),
            "LaunchEncodeFloat: batch -3 is negative");
  EXPECT_EQ(ErrorOf([] { cuda::LaunchEncodeBf16<G>(nullptr, -1, nullptr, nullptr, nullptr); }),
            "LaunchEncodeBf16: batch -1 is negative");
  EXPECT_EQ(ErrorOf([] {
              cuda::LaunchGatherCompactPriors(nullptr, 4, nullptr, nullptr, -2, false, nullptr,
                                              nullptr, nullptr, nullptr);
            }),
            "LaunchGatherCompactPriors: batch -2 is negative");
}

TEST(BatchedKernelsTest, EmptyBatchLaunchesNothing) {
  // Null pointers everywhere: a launch would fail (or, without a device, any CUDA call would).
  using G = chaco_rex::ChacoRexGame;
  cuda::LaunchLegalMoves<G>(nullptr, 0, nullptr, nullptr, nullptr, nullptr);
  cuda::LaunchEncodeFloat<G>(nullptr, 0, nullptr, nullptr, nullptr);
  cuda::LaunchEncodeBf16<G>(nullptr, 0, nullptr, nullptr, nullptr);
  cuda::LaunchGatherCompactPriors(nullptr, 4, nullptr, nullptr, 0, false, nullptr, nullptr, nullptr,
                                  nullptr);
  if (cuda::DeviceCount() > 0) cuda::SynchronizeDevice();  // nothing was enqueued to fail later
}
#endif

}  // namespace
}  // namespace vz
