#include "records/run_files.h"

#include <fmt/core.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <filesystem>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
namespace pb = google::protobuf;

// Keeps the first error of a text-format parse as "SOURCE:LINE:COL: message".
class FirstErrorCollector : public pb::io::ErrorCollector {
 public:
  explicit FirstErrorCollector(std::string_view source) : source_(source) {}

  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (error_.empty())
      error_ = fmt::format("{}:{}:{}: {}", source_, line + 1, column + 1, message);
  }
  void AddWarning(int, pb::io::ColumnNumber, const std::string&) override {}

  const std::string& error() const { return error_; }

 private:
  std::string source_;
  std::string error_;
};

}  // namespace

int HighestGeneration(const std::string& nets_dir) {
  int highest = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(nets_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() == 15 && name.rfind("best-", 0) == 0 && name.ends_with(".vznet")) {
      const std::string digits = name.substr(5, 4);
      if (digits.find_first_not_of("0123456789") == std::string::npos) {
        highest = std::max(highest, std::stoi(digits));
      }
    }
  }
  return highest;
}

std::string GenerationFile(int generation) { return fmt::format("best-{:04d}.vznet", generation); }

std::string StepFile(std::string_view prefix, int64_t step, std::string_view extension) {
  return fmt::format("{}{:08d}.{}", prefix, step, extension);
}

int64_t StepOfFile(std::string_view name, std::string_view prefix, std::string_view extension) {
  if (name.size() != prefix.size() + 8 + 1 + extension.size() || !name.starts_with(prefix) ||
      name[prefix.size() + 8] != '.' || !name.ends_with(extension)) {
    return -1;
  }
  const std::string_view digits = name.substr(prefix.size(), 8);
  if (digits.find_first_not_of("0123456789") != std::string_view::npos) return -1;
  return std::stoll(std::string(digits));
}

proto::TrainConfig ParseTrainConfigText(std::string_view text, std::string_view source) {
  proto::TrainConfig config;
  FirstErrorCollector errors(source);
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  pb::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  if (!parser.Parse(&input, &config)) {
    throw Error(errors.error().empty() ? fmt::format("{}: not a train config", source)
                                       : errors.error());
  }
  return config;
}

proto::TrainConfig ReadTrainConfigFile(const std::string& path) {
  constexpr uint64_t kMaxConfigBytes = uint64_t{16} << 20;
  return ParseTrainConfigText(ReadWholeFile(path, "config file", kMaxConfigBytes), path);
}

std::optional<proto::TrainConfig> SavedConfig(const std::string& dir) {
  const fs::path path = fs::path(dir) / "config.txtpb";
  if (!fs::exists(path)) return std::nullopt;
  return ReadTrainConfigFile(path.string());
}

}  // namespace vz
