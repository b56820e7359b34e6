#pragma once

// The process's allocator settings (glibc): `vzero` applies them first thing in main, and the web
// server's load test applies them too, so that it measures the memory `vzero serve` gives back.

namespace vz {

// Sets glibc's allocator up for a process that allocates and frees tensors of 0.1-10 MB thousands
// of times a second (a CPU net's activations): freed memory stays in the heap for the next forward
// pass instead of going back to the kernel and faulting in again. With glibc's defaults (mmap from
// 128 KiB, a threshold that rises only as mapped chunks are freed, and the heap's top trimmed
// beyond 128 KiB, later beyond twice the threshold), libc and the kernel (malloc, free, page
// faults) took 23% of the CPU samples of `vzero nnbench` with the Chaco Rex net at batch 16, and
// the settings below cut its page faults 7-fold (docs/performance.md). Blocks over 16 MiB (replay
// buffers, big batches) are still mapped and unmapped on their own; the threads' own heaps (64 MiB
// each) are no longer trimmed, though malloc_trim (the web server's) still returns their free
// pages. Left to the user when GLIBC_TUNABLES sets any glibc.malloc tunable or one of glibc's
// MALLOC_*_ variables for these three settings is set. No effect outside glibc; never throws.
void KeepFreedMemoryInTheHeap();

}  // namespace vz
