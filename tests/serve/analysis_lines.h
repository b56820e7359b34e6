#pragma once

// The output of an analysis session (serve/analysis.h in process, `vzero analysis` through its
// pipes), one JSON object a line, with the final answers and the error lines of one query. Shared
// by tests/serve/analysis_test.cc and tests/app/analysis_cli_test.cc.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace vz::testing {

struct AnalysisLines {
  std::vector<nlohmann::json> lines;

  // The final answers (not during the search) of query `id`, in output order. An answer line
  // without its id or isDuringSearch field throws (nlohmann::json::out_of_range).
  std::vector<nlohmann::json> Answers(const std::string& id) const {
    std::vector<nlohmann::json> answers;
    for (const nlohmann::json& line : lines) {
      if (line.contains("turnNumber") && line.at("id") == id &&
          !line.at("isDuringSearch").get<bool>()) {
        answers.push_back(line);
      }
    }
    return answers;
  }

  // The error lines of query `id` (null: the lines that name no query). An error line without
  // its id field throws.
  std::vector<nlohmann::json> Errors(const nlohmann::json& id) const {
    std::vector<nlohmann::json> errors;
    for (const nlohmann::json& line : lines) {
      if (line.contains("error") && line.at("id") == id) errors.push_back(line);
    }
    return errors;
  }
};

}  // namespace vz::testing
