// CUDA runtime calls behind cuda/device_buffer.h, each checked with VZ_CUDA_CHECK.

#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <string>

#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"

namespace vz::cuda {

int DeviceCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the error: no driver or no device is not a fault here
    return 0;
  }
  return count;
}

void EnsureStackSize(size_t bytes) {
  // The limit already set per device, so that a launch pays one cudaGetDevice, not a lock.
  static std::atomic<size_t> raised[64] = {};
  int device = 0;
  VZ_CUDA_CHECK(cudaGetDevice(&device));
  std::atomic<size_t>* known = device >= 0 && device < 64 ? &raised[device] : nullptr;
  if (known != nullptr && known->load(std::memory_order_acquire) >= bytes) return;
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  size_t current = 0;
  VZ_CUDA_CHECK(cudaDeviceGetLimit(&current, cudaLimitStackSize));
  if (current < bytes) VZ_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, bytes));
  if (known != nullptr) known->store(bytes > current ? bytes : current, std::memory_order_release);
}

void* DeviceAllocate(size_t bytes) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  VZ_CUDA_CHECK(cudaMalloc(&pointer, bytes));
  return pointer;
}

void DeviceFree(void* pointer) noexcept {
  // A failed free must not leave its error for the next VZ_CUDA_CHECK to misreport.
  if (pointer != nullptr && cudaFree(pointer) != cudaSuccess) cudaGetLastError();
}

void* PinnedAllocate(size_t bytes) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  VZ_CUDA_CHECK(cudaHostAlloc(&pointer, bytes, cudaHostAllocPortable));
  return pointer;
}

void PinnedFree(void* pointer) noexcept {
  if (pointer != nullptr && cudaFreeHost(pointer) != cudaSuccess) cudaGetLastError();
}

void CopyToDeviceAsync(void* device, const void* host, size_t bytes, Stream stream) {
  if (bytes == 0) return;
  VZ_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice,
                                static_cast<cudaStream_t>(stream)));
}

void CopyToHostAsync(void* host, const void* device, size_t bytes, Stream stream) {
  if (bytes == 0) return;
  VZ_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost,
                                static_cast<cudaStream_t>(stream)));
}

void CopyToDevice(void* device, const void* host, size_t bytes) {
  if (bytes == 0) return;
  VZ_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
}

void CopyToHost(void* host, const void* device, size_t bytes) {
  if (bytes == 0) return;
  VZ_CUDA_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
}

void MemsetAsync(void* device, int byte, size_t bytes, Stream stream) {
  if (bytes == 0) return;
  VZ_CUDA_CHECK(cudaMemsetAsync(device, byte, bytes, static_cast<cudaStream_t>(stream)));
}

void SynchronizeStream(Stream stream) {
  VZ_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

Event::Event() {
  cudaEvent_t event = nullptr;
  // Blocking sync: a waiting thread sleeps instead of spinning on a core the actors need.
  VZ_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventBlockingSync));
  event_ = event;
}

Event::~Event() {
  if (event_ != nullptr && cudaEventDestroy(static_cast<cudaEvent_t>(event_)) != cudaSuccess) {
    cudaGetLastError();
  }
}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (event_ != nullptr && cudaEventDestroy(static_cast<cudaEvent_t>(event_)) != cudaSuccess) {
      cudaGetLastError();
    }
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::Record(Stream stream) {
  VZ_CUDA_CHECK(
      cudaEventRecord(static_cast<cudaEvent_t>(event_), static_cast<cudaStream_t>(stream)));
}

void Event::Synchronize() { VZ_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event_))); }

void SynchronizeDevice() { VZ_CUDA_CHECK(cudaDeviceSynchronize()); }

int CurrentDevice() {
  int index = 0;
  VZ_CUDA_CHECK(cudaGetDevice(&index));
  return index;
}

void SetDevice(int index) {
  const int count = DeviceCount();
  if (index < 0 || index >= count) {
    throw Error("CUDA device " + std::to_string(index) + ": only " + std::to_string(count) +
                " device(s) present");
  }
  VZ_CUDA_CHECK(cudaSetDevice(index));
}

}  // namespace vz::cuda
