#include "selfplay/run_dir.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "records/game_record.h"
#include "selfplay/train_config.h"
#if VZ_HAVE_TORCH
#include "nets/net_file.h"
#include "nets/net_runner.h"
#endif

namespace vz {

namespace fs = std::filesystem;

RunLog::RunLog(const std::string& path, bool live) : live_(live) {
  name_ = fmt::format("vzero-run-{}", reinterpret_cast<uintptr_t>(this));
  try {
    file_ = spdlog::basic_logger_mt(name_, path);
  } catch (const spdlog::spdlog_ex& e) {
    throw Error(fmt::format("log file {}: {}", path, e.what()));
  }
  file_->set_pattern("[%Y-%m-%d %H:%M:%S] %v");
  file_->flush_on(spdlog::level::info);
}

RunLog::~RunLog() {
  if (live_ && !status_.empty()) std::fprintf(stderr, "\n");
  spdlog::drop(name_);
}

void RunLog::Info(const std::string& line) {
  const std::lock_guard<std::mutex> lock(mutex_);
  file_->info(line);
  if (live_) {
    std::fprintf(stderr, "\r\033[K%s\n%s", line.c_str(), status_.c_str());
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

void RunLog::Status(const std::string& line) {
  if (!live_) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  status_ = line;
  std::fprintf(stderr, "\r\033[K%s", status_.c_str());
  std::fflush(stderr);
}

MetricsFile::MetricsFile(const std::string& path) : path_(path) {
  bool needs_newline = false;
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (in && in.tellg() > 0) {
      in.seekg(-1, std::ios::end);
      needs_newline = in.get() != '\n';
    }
  }
  out_.open(path, std::ios::app);
  if (!out_) throw Error("metrics file " + path + ": cannot open it for appending");
  if (needs_newline) out_ << '\n';
}

void MetricsFile::Write(const nlohmann::json& object) {
  const std::lock_guard<std::mutex> lock(mutex_);
  out_ << object.dump() << '\n';
  out_.flush();
  if (!out_) throw Error("metrics file " + path_ + ": write failed");
}

proto::TrainConfig ConfigFromChoice(const RunConfigChoice& choice) {
  if (!choice.config_file.empty() && !choice.preset.empty()) {
    throw Error("give --preset or --config, not both");
  }
  proto::TrainConfig config;
  if (!choice.config_file.empty()) {
    config = ReadTrainConfigFile(choice.config_file);
    if (!choice.variant.empty() && config.variant() != choice.variant) {
      throw Error(fmt::format("--variant {} but {} is for {}", choice.variant, choice.config_file,
                              config.variant()));
    }
  } else {
    config = PresetTrainConfig(choice.variant.empty() ? "chaco-rex" : choice.variant,
                               choice.preset.empty() ? "demo" : choice.preset);
  }
  const std::string chosen_variant = config.variant();
  for (const std::string& assignment : choice.overrides) ApplyConfigOverride(config, assignment);
  // The preset (or file) was made for its game: a --set that changes the game would run one
  // game's preset on another's board.
  if (config.variant() != chosen_variant) {
    throw Error(fmt::format(
        "--set variant={}: the config is for {}; choose the game with --variant (or the "
        "config file's variant)",
        config.variant(), chosen_variant));
  }
  ValidateTrainConfig(config);
  return config;
}

proto::TrainConfig OverrideSavedConfig(const proto::TrainConfig& saved,
                                       const std::vector<std::string>& overrides,
                                       const std::string& dir) {
  proto::TrainConfig config = saved;
  for (const std::string& assignment : overrides) {
    const uint64_t before = TrainConfigHash(config);
    ApplyConfigOverride(config, assignment);
    if (TrainConfigHash(config) != before) {
      throw Error(fmt::format(
          "--set {}: the run in {} has its config already; only keys outside its hash (stop.*, "
          "devices, precision, cpu_threads) may be overridden",
          assignment, dir));
    }
  }
  ValidateTrainConfig(config);
  return config;
}

namespace {

// Whether `dir` holds what a run leaves (a net or checkpoint file, a record chunk, state.json):
// without its config.txtpb such a run cannot be told from another one, and must not be adopted
// by any. The empty sub-directories and lock files that roles create before the config exists do
// not count.
bool HoldsRunState(const std::string& dir) {
  std::error_code error;
  if (fs::exists(fs::path(dir) / "state.json", error)) return true;
  if (!ListRecordChunks((fs::path(dir) / "records").string()).empty()) return true;
  for (const char* sub : {"nets", "checkpoints"}) {
    const fs::path path = fs::path(dir) / sub;
    if (!fs::is_directory(path, error)) continue;
    for (fs::recursive_directory_iterator it(path, error), end; !error && it != end;
         it.increment(error)) {
      const std::string extension = it->path().extension().string();
      if (it->is_regular_file(error) && (extension == ".vznet" || extension == ".ckpt")) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

void AdoptRunConfig(const std::string& dir, const proto::TrainConfig& config) {
  CheckRunConfig(dir, config);
  CreateRunDirectories(dir, {});
  const std::string path = (fs::path(dir) / "config.txtpb").string();
  if (CreateFileAtomically(path, TrainConfigText(config))) return;
  CheckRunConfig(dir, config);
}

void CheckRunConfig(const std::string& dir, const proto::TrainConfig& config) {
  std::optional<proto::TrainConfig> saved = SavedConfig(dir);
  // Read again after the state was seen: a role adopting at the same moment may have created
  // the config and then the state in between.
  if (!saved && HoldsRunState(dir)) saved = SavedConfig(dir);
  if (!saved && HoldsRunState(dir)) {
    throw Error(fmt::format(
        "run directory {} holds a run (nets, records or checkpoints) but no config.txtpb: put its "
        "config back, or use a new --run-dir",
        dir));
  }
  if (!saved || TrainConfigHash(*saved) == TrainConfigHash(config)) return;
  throw Error(fmt::format(
      "run directory {} holds a run of another config ({}; only stop, devices, precision and "
      "cpu_threads may change): give the same settings, only --run-dir, or use a new --run-dir",
      dir, (fs::path(dir) / "config.txtpb").string()));
}

void CreateRunDirectories(const std::string& dir, const std::vector<std::string>& subdirs) {
  if (dir.empty()) throw Error("the run directory is empty");
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    throw Error(fmt::format("run directory {}: cannot create it: {}", dir, error.message()));
  }
  for (const std::string& sub : subdirs) {
    fs::create_directories(fs::path(dir) / sub, error);
    if (error) {
      throw Error(fmt::format("run directory {}: cannot create {}: {}", dir, sub, error.message()));
    }
  }
}

RunLock::RunLock(const std::string& dir, const std::string& name, const std::string& holder) {
  const std::string path = (fs::path(dir) / name).string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw Error(fmt::format("run directory {}: cannot open its lock file {} ({})", dir, path,
                            std::strerror(errno)));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    char text[256] = {};
    const ssize_t length = ::pread(fd_, text, sizeof(text) - 1, 0);
    std::string other = length > 0 ? std::string(text, size_t(length)) : std::string();
    while (!other.empty() && (other.back() == '\n' || other.back() == ' ')) other.pop_back();
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK) {
      throw Error(fmt::format(
          "run directory {} is in use by {}, which holds {}; wait for it to stop, or use "
          "another --run-dir",
          dir, other.empty() ? "another process" : other, path));
    }
    throw Error(
        fmt::format("run directory {}: cannot lock {} ({})", dir, path, std::strerror(error)));
  }
  const std::string text = fmt::format("{} (pid {})\n", holder, ::getpid());
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd_, text.data(), text.size(), 0);
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

int RemoveTemporaryFiles(const std::string& dir, const std::vector<std::string>& subdirs) {
  int removed = RemoveStaleTemporaryFiles(dir, /*only_dead_writers=*/false);
  for (const std::string& sub : subdirs) {
    removed += RemoveStaleTemporaryFiles((fs::path(dir) / sub).string(), false);
  }
  return removed;
}

int64_t PromotedStep(const std::string& nets_dir) {
#if VZ_HAVE_TORCH
  const int generation = HighestGeneration(nets_dir);
  if (generation == 0) return -1;
  try {
    const nets::NetFile best =
        nets::ReadNetFile((fs::path(nets_dir) / GenerationFile(generation)).string());
    return int64_t(best.provenance.training_steps);
  } catch (const Error&) {
    return -1;
  }
#else
  (void)nets_dir;
  return -1;
#endif
}

}  // namespace vz
