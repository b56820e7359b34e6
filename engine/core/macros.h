#pragma once

// Portability and invariant macros shared by every layer.
//
// VZ_HD marks rule-core functions that must run both on the host and on a CUDA device:
// `__host__ __device__` under nvcc, nothing under a plain C++ compiler.
//
// VZ_CHECK(cond) is an always-on invariant check (a bug in vzero if it fails, never bad input:
// bad input throws vz::Error instead). VZ_DCHECK is the same in debug builds only, for hot paths.
// On the host a failed check prints file, line and condition to stderr and aborts; on a device it
// traps the kernel.

#include <cstdio>
#include <cstdlib>

// VZ_INLINE_LAMBDA, written after a lambda's parameter list, makes g++ and clang always inline the
// lambda where it is called (g++ left the move generators' per-cell lambdas as calls in the larger
// translation units: 192 against 220 M perft leaves a second in Chaco Rex). Empty under nvcc,
// whose device compiler inlines such small lambdas by itself.
//
// VZ_FLATTEN, written before a host function, inlines into it every call its body makes, as far
// as recursion allows (perft's last two plies: 258.7 against 252.5 M draughts leaves a second,
// 2-8% more in the other games; docs/performance.md). Empty under nvcc.
#if defined(__CUDACC__)
#define VZ_HD __host__ __device__
#define VZ_FORCE_INLINE __forceinline__
#define VZ_INLINE_LAMBDA
#define VZ_FLATTEN
#else
#define VZ_HD
#define VZ_FORCE_INLINE inline __attribute__((always_inline))
#define VZ_INLINE_LAMBDA __attribute__((always_inline))
#define VZ_FLATTEN __attribute__((flatten))
#endif

#if defined(__CUDA_ARCH__)
#define VZ_CHECK(cond)     \
  do {                     \
    if (!(cond)) __trap(); \
  } while (0)
#else
#define VZ_CHECK(cond)                                                                        \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "vzero: internal check failed at %s:%d: %s\n", __FILE__, __LINE__, \
                   #cond);                                                                    \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)
#endif

#if defined(NDEBUG)
#define VZ_DCHECK(cond) \
  do {                  \
  } while (0)
#else
#define VZ_DCHECK(cond) VZ_CHECK(cond)
#endif

// Lookup tables shared by host and device code. A namespace-scope constexpr array cannot be indexed
// at run time from device code, so under nvcc each table exists twice: a host copy and a
// `__device__` copy with the same constant initializer. `name()` returns the copy of the side that
// is compiling. `init` must be a constant expression (typically a call to a constexpr builder).
#if defined(__CUDA_ARCH__)
#define VZ_TABLE_REF(name) name##_device_
#else
#define VZ_TABLE_REF(name) name##_host_
#endif

#if defined(__CUDACC__)
// (Device variables need internal linkage without relocatable device code, hence `static`.)
#define VZ_DEFINE_TABLE(type, name, init)                 \
  inline constexpr type name##_host_ = init;              \
  static __device__ constexpr type name##_device_ = init; \
  static VZ_HD VZ_FORCE_INLINE const type& name() { return VZ_TABLE_REF(name); }
#else
#define VZ_DEFINE_TABLE(type, name, init)    \
  inline constexpr type name##_host_ = init; \
  VZ_FORCE_INLINE const type& name() { return name##_host_; }
#endif
