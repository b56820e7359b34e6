// Fuzz target: net files (nets/net_file.h), the torch-free layer that reads the header and the
// protobuf payload before any tensor reaches LibTorch.
// Input: byte 0 bit 0 chooses the mode: 0, the rest is a whole file (header included); 1, the
// rest is a payload that gets a valid header (length and FNV-1a checksum), so that inputs reach
// the protobuf parse and the checks after it instead of stopping at the checksum.
// Checks: bad bytes are a vz::Error; a parsed net serializes to bytes that parse back to the same
// bytes; the compatibility check against every game and the architecture description run.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/core/error.h"
#include "engine/encodings.h"
#include "nets/net_file.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

std::string Framed(std::string_view payload) {
  std::string bytes("VZNET\0\0\1", 8);
  auto put = [&bytes](uint64_t value) {
    for (int i = 0; i < 8; ++i) bytes.push_back(char((value >> (8 * i)) & 0xff));
  };
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a 64, as nets/net_file.cc computes it
  for (unsigned char c : payload) hash = (hash ^ c) * 0x100000001b3ull;
  put(payload.size());
  put(hash);
  bytes.append(payload);
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string bytes = (data[0] & 1) ? Framed(rest) : std::string(rest);
  vz::nets::NetFile net;
  try {
    net = vz::nets::ParseNetFile(bytes, "fuzz input");
  } catch (const vz::Error&) {
    return 0;
  }
  const std::string again = vz::nets::SerializeNetFile(net);
  VZ_FUZZ_CHECK(vz::nets::SerializeNetFile(vz::nets::ParseNetFile(again, "round trip")) == again);
  net.ParameterCount();
  vz::nets::DescribeArchitecture(net.architecture);
  vz::fuzz::WithGameNumber(data[0] >> 1, [&]<vz::Game G>() {
    try {
      vz::nets::CheckNetForGame<G>(net, "fuzz input");
    } catch (const vz::Error&) {
    }
  });
  return 0;
}
