#pragma once

// The implementations inside libvzero_nets.so (nets/torch_*.cc, nets/model.cc), for
// nets/torch_module.cc, which serves them as the TorchBackend (nets/torch_backend.h). Their own
// namespace keeps them apart from the forwarders of the same name in the binary (which the
// library's calls would otherwise bind to). Contracts: those of the public headers' namesakes.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nets/torch_backend.h"

namespace vz::nets::torch_impl {

std::unique_ptr<NetRunner::Impl> NewNetRunner(const NetFile& net, std::string_view source,
                                              const std::string& device,
                                              const std::string& precision,
                                              const RunnerOptions& options);
std::unique_ptr<Trainer::Impl> NewTrainer(const NetFile& net, const TrainerOptions& options);
std::unique_ptr<ProcessGroup::Impl> NewProcessGroup(const DistributedEnv& env,
                                                    const std::string& device,
                                                    std::chrono::milliseconds timeout);
NetFile FreshNet(const NetFile& header, uint64_t seed);
NetFile ExportCheckpoint(const std::string& path, uint64_t games,
                         std::vector<std::string>* warnings);

}  // namespace vz::nets::torch_impl
