#pragma once

// Declarations only: the part of gloo (https://github.com/pytorch/gloo, BSD licence) that c10d's
// ProcessGroupGloo.hpp names. The torch wheel ships gloo compiled into libtorch_cpu.so but not its
// headers; nets/distributed.cc includes ProcessGroupGloo.hpp to construct c10d's Gloo backend,
// whose every gloo object is created and used inside libtorch_cpu.so. No gloo type is defined,
// constructed or called through these declarations: ProcessGroupGloo holds them only through
// smart pointers, so its layout does not depend on them. See nets/distributed.h.

#include <chrono>

namespace gloo {

class Context {
 public:
  // Named by an inline member of ProcessGroupGloo that vzero never calls.
  void setTimeout(std::chrono::milliseconds timeout);
};

}  // namespace gloo
