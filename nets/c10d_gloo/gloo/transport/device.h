#pragma once

// Declarations only (see gloo/context.h in this folder): the transport types that
// ProcessGroupGloo.hpp holds through smart pointers (created inside libtorch_cpu.so).

namespace gloo::transport {

class Device;
class UnboundBuffer;

}  // namespace gloo::transport
