// Refuses to start on an x86-64 CPU below the level this binary was compiled for (VZ_CPU_ARCH in
// CMakeLists.txt, default x86-64-v2: POPCNT, SSE4.2), with a one-line error, instead of dying of
// SIGILL at the first instruction the CPU lacks. This file alone is compiled for plain x86-64
// (CMakeLists.txt), and the check sits in the executable's .preinit_array, which the dynamic
// loader runs before any shared library's or the binary's own static initializers; so it writes
// with write(2) and leaves with _exit(2), which need no initialized C library. Defined only where
// CMake sets VZ_CPU_LEVEL (an x86-64-vN level) and the compiler is g++ (whose
// __builtin_cpu_supports knows the levels); `native` and other -march values are not checked.

#if defined(VZ_CPU_LEVEL) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <unistd.h>

namespace {

void RequireCpuLevel(int, char**, char**) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports(VZ_CPU_LEVEL)) {
    static const char kMessage[] =
        "vzero: this CPU lacks instructions of " VZ_CPU_LEVEL
        ", the x86-64 level this binary was built for; rebuild with -DVZ_CPU_ARCH= (plain "
        "x86-64) or -DVZ_CPU_ARCH=native\n";
    [[maybe_unused]] const ssize_t written = write(2, kMessage, sizeof(kMessage) - 1);
    _exit(1);
  }
}

__attribute__((section(".preinit_array"), used)) void (*const kRequireCpuLevel)(int, char**,
                                                                                char**) =
    &RequireCpuLevel;

}  // namespace

#endif
