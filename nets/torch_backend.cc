// The loader of the LibTorch side (nets/torch_backend.h) and the forwarders without another home.

#include "nets/torch_backend.h"

#include <dlfcn.h>
#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <optional>
#include <system_error>

#include "engine/core/error.h"
#include "nets/fresh_net.h"

namespace vz::nets {
namespace {

using EntryPoint = TorchBackend* (*)();

std::mutex loader_mutex;
std::atomic<TorchBackend*> loaded_backend{nullptr};
std::optional<int> pending_cpu_threads;  // SetCpuThreads before the load (under loader_mutex)

// The running executable's directory: where libvzero_nets.so is installed beside the vzero binary.
std::filesystem::path ExecutableDirectory() {
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw Error(fmt::format("cannot find the running executable: {}", error.message()));
  return executable.parent_path();
}

// The backend already in the process (a test linked with the library), else the library beside
// the executable. Throws vz::Error naming the file and dlerror()'s reason.
TorchBackend* LoadBackend() {
  dlerror();
  if (auto entry = reinterpret_cast<EntryPoint>(dlsym(RTLD_DEFAULT, kTorchEntryPoint))) {
    return entry();
  }
  const std::string path = (ExecutableDirectory() / kTorchLibraryName).string();
  // RTLD_NOW: a missing symbol is this error, not a crash in the middle of a command; RTLD_GLOBAL:
  // LibTorch joins the process's global scope as when it was linked in (after libstdc++, whose
  // std::filesystem keeps precedence over LibTorch's copies; see CMakeLists.txt).
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    // dlerror() names the file itself.
    throw Error(fmt::format(
        "cannot load the LibTorch networks library (it belongs beside the vzero binary): {}",
        reason != nullptr ? reason : path + ": unknown dlopen error"));
  }
  auto entry = reinterpret_cast<EntryPoint>(dlsym(library, kTorchEntryPoint));
  if (entry == nullptr) {
    const char* reason = dlerror();
    throw Error(fmt::format("LibTorch networks library {} has no entry point {}: {}", path,
                            kTorchEntryPoint, reason != nullptr ? reason : "not found"));
  }
  return entry();
}

}  // namespace

TorchBackend& Torch() {
  if (TorchBackend* backend = loaded_backend.load(std::memory_order_acquire)) return *backend;
  std::lock_guard<std::mutex> lock(loader_mutex);
  if (TorchBackend* backend = loaded_backend.load(std::memory_order_relaxed)) return *backend;
  TorchBackend* backend = LoadBackend();
  if (pending_cpu_threads) backend->SetCpuThreads(*pending_cpu_threads);
  loaded_backend.store(backend, std::memory_order_release);
  return *backend;
}

bool TorchLoaded() { return loaded_backend.load(std::memory_order_acquire) != nullptr; }

void SetCpuThreads(int threads) {
  {
    std::lock_guard<std::mutex> lock(loader_mutex);
    if (loaded_backend.load(std::memory_order_relaxed) == nullptr) {
      pending_cpu_threads = std::max(1, threads);
      return;
    }
  }
  Torch().SetCpuThreads(threads);
}

NetFile FreshNet(const NetFile& header, uint64_t seed) { return Torch().FreshNet(header, seed); }

}  // namespace vz::nets
