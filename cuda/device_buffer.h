#pragma once

// RAII owners of CUDA memory and the few runtime calls plain C++ code needs around them, behind a
// header without CUDA includes (implemented in cuda/device_buffer.cu, where every CUDA call goes
// through VZ_CUDA_CHECK). No managed (unified) memory: device buffers are cudaMalloc'd, host
// staging buffers are pinned (cudaHostAlloc) so that asynchronous copies really overlap.
// Source: CUDA C++ Programming Guide, "Page-Locked Host Memory" and "Streams".

#include <cstddef>
#include <cstdint>
#include <utility>

namespace vz::cuda {

// A cudaStream_t passed through plain C++ code (nullptr: the legacy default stream).
using Stream = void*;

// Number of CUDA devices the runtime sees; 0 when there is no device or no driver (never throws).
int DeviceCount();

// Raw calls (throw vz::Error with file, line and CUDA's message on failure).
void* DeviceAllocate(size_t bytes);       // cudaMalloc on the current device; 0 bytes -> nullptr
void DeviceFree(void* pointer) noexcept;  // cudaFree; errors are ignored (destructor use)
void* PinnedAllocate(size_t bytes);       // cudaHostAlloc (portable); 0 bytes -> nullptr
void PinnedFree(void* pointer) noexcept;  // cudaFreeHost; errors are ignored
void CopyToDeviceAsync(void* device, const void* host, size_t bytes, Stream stream);
void CopyToHostAsync(void* host, const void* device, size_t bytes, Stream stream);
void CopyToDevice(void* device, const void* host, size_t bytes);  // synchronous
void CopyToHost(void* host, const void* device, size_t bytes);    // synchronous
void MemsetAsync(void* device, int byte, size_t bytes, Stream stream);
void SynchronizeStream(Stream stream);
void SynchronizeDevice();
int CurrentDevice();
void SetDevice(int index);  // throws vz::Error naming the index if it is not a device

// Raises the per-thread stack limit of the current device (cudaLimitStackSize) to at least
// `bytes`; a no-op when it is already that large. Kernels that recurse (the draughts capture
// search: one frame per piece taken) have a stack the compiler cannot size, and the default limit
// (1 KiB) makes them fail with a hardware stack error that poisons the CUDA context. The driver
// reserves bytes x resident threads of device memory (8 KiB: about 2.2 GB on an H200). Thread-safe;
// throws vz::Error with CUDA's message when the limit cannot be set.
void EnsureStackSize(size_t bytes);

// The stack the rule kernels need: the largest static frame of the four games' kernels (6.4 KB,
// Chaco Rex, `nvcc -Xptxas -v`) and the draughts capture recursion (12 captures x 72 bytes on
// 2.1 KB) both fit.
inline constexpr size_t kRuleKernelStackBytes = 8192;

// A CUDA event without timing (cudaEventDisableTiming), for waiting on one point of one stream
// instead of the whole stream or device. Created on the current device; move-only. Throws
// vz::Error with CUDA's message on failure.
class Event {
 public:
  Event();
  ~Event();
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Marks the point of `stream` reached by the work enqueued so far.
  void Record(Stream stream);
  // Blocks the calling thread until the recorded point has run (at once when nothing was
  // recorded).
  void Synchronize();

 private:
  void* event_ = nullptr;  // cudaEvent_t
};

// Makes device `index` current for the lifetime of the guard and restores the previous one.
class ScopedDevice {
 public:
  explicit ScopedDevice(int index) : previous_(CurrentDevice()) {
    if (index != previous_) SetDevice(index);
  }
  ~ScopedDevice() {
    try {
      if (CurrentDevice() != previous_) SetDevice(previous_);
    } catch (...) {
    }
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_;
};

// `size()` elements of T in memory from Allocate/Free (device or pinned host). Contents are
// uninitialised. Resize discards the contents. Move-only.
template <class T, void* (*Allocate)(size_t), void (*Free)(void*) noexcept>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t size) { Resize(size); }
  ~Buffer() { Free(data_); }
  Buffer(Buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  Buffer& operator=(Buffer&& other) noexcept {
    if (this != &other) {
      Free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // Reallocates to exactly `size` elements (contents lost). Throws vz::Error on failure.
  void Resize(size_t size) {
    Free(data_);
    data_ = nullptr;
    size_ = 0;
    data_ = static_cast<T*>(Allocate(size * sizeof(T)));
    size_ = size;
  }
  // Grows to at least `size` elements (contents lost when it grows), by doubling.
  void Reserve(size_t size) {
    if (size <= size_) return;
    size_t grown = size_ == 0 ? 1 : size_;
    while (grown < size) grown *= 2;
    Resize(grown);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  size_t bytes() const { return size_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

// Device memory (cudaMalloc on the device current at allocation time).
template <class T>
using DeviceBuffer = Buffer<T, DeviceAllocate, DeviceFree>;

// Pinned (page-locked) host memory, for the staging of asynchronous copies.
template <class T>
using PinnedBuffer = Buffer<T, PinnedAllocate, PinnedFree>;

}  // namespace vz::cuda
