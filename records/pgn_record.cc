#include "records/pgn_record.h"

#include <cctype>

#include "engine/core/atomic_file.h"
#include "engine/games.h"

namespace vz {

std::string RecordText::Tag(std::string_view name) const {
  for (const auto& [key, value] : tags) {
    if (key == name) return value;
  }
  return "";
}

std::string ReadTextFile(const std::string& path) {
  constexpr uint64_t kMaxTextFileBytes = uint64_t{1} << 30;
  return ReadWholeFile(path, "file", kMaxTextFileBytes);
}

std::string ResultToken(Status status, bool draughts) {
  switch (status) {
    case Status::kWhiteWins: return draughts ? "2-0" : "1-0";
    case Status::kBlackWins: return draughts ? "0-2" : "0-1";
    case Status::kDraw: return draughts ? "1-1" : "1/2-1/2";
    case Status::kOngoing: break;
  }
  return "*";
}

Status StatusFromResultToken(std::string_view token) {
  if (token == "1-0" || token == "2-0") return Status::kWhiteWins;
  if (token == "0-1" || token == "0-2") return Status::kBlackWins;
  if (token == "1/2-1/2" || token == "1-1") return Status::kDraw;
  if (token == "*") return Status::kOngoing;
  throw Error("'" + std::string(token) + "' is not a result token");
}

namespace {

bool IsResultToken(std::string_view token) {
  return token == "1-0" || token == "0-1" || token == "1/2-1/2" || token == "2-0" ||
         token == "0-2" || token == "1-1" || token == "0-0" || token == "*";
}

// Strips a leading move number (`12.`, `12...`) from `token`; returns what is left.
std::string_view StripMoveNumber(std::string_view token) {
  size_t i = 0;
  while (i < token.size() && std::isdigit(static_cast<unsigned char>(token[i]))) ++i;
  if (i == 0 || i == token.size() || token[i] != '.') return token;
  while (i < token.size() && token[i] == '.') ++i;
  return token.substr(i);
}

}  // namespace

std::vector<RecordText> ParseRecordText(std::string_view text) {
  std::vector<RecordText> games;
  RecordText current;
  bool has_content = false;
  int line = 1;
  auto finish = [&](std::string result) {
    current.result = std::move(result);
    games.push_back(std::move(current));
    current = RecordText{};
    has_content = false;
  };
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '[') {
      if (!current.moves.empty()) finish("*");  // a new game without a result token
      // The tag ends at the first ']' after its quoted value (which may hold ']' and escaped
      // quotes); a tag is one line.
      const size_t eol = std::min(text.find('\n', i), text.size());
      size_t value_end = std::string_view::npos;
      const size_t open = text.find('"', i);
      if (open < eol) {
        for (size_t k = open + 1; k < eol; ++k) {
          if (text[k] == '\\') {
            ++k;
          } else if (text[k] == '"') {
            value_end = k;
            break;
          }
        }
      }
      const size_t end = text.find(']', value_end == std::string_view::npos ? i : value_end);
      if (end == std::string_view::npos || end > eol) {
        throw Error("record line " + std::to_string(line) + ": unterminated tag");
      }
      const std::string_view body = text.substr(i + 1, end - i - 1);
      const size_t quote = open - i - 1;
      const size_t last_quote = value_end - i - 1;
      if (open >= eol || value_end == std::string_view::npos) {
        throw Error("record line " + std::to_string(line) + ": tag without a quoted value");
      }
      std::string name(body.substr(0, quote));
      while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back())))
        name.pop_back();
      std::string value;
      for (size_t k = quote + 1; k < last_quote; ++k) {
        if (body[k] == '\\' && k + 1 < last_quote) ++k;
        value += body[k];
      }
      current.tags.emplace_back(std::move(name), std::move(value));
      has_content = true;
      i = end + 1;
    } else if (c == '{') {
      const size_t end = text.find('}', i);
      if (end == std::string_view::npos) {
        throw Error("record line " + std::to_string(line) + ": unterminated comment");
      }
      for (size_t k = i; k < end; ++k) line += text[k] == '\n';
      i = end + 1;
    } else if (c == ';' || c == '%') {
      const size_t eol = text.find('\n', i);
      i = eol == std::string_view::npos ? text.size() : eol;
    } else if (c == '(') {
      int depth = 0;
      size_t k = i;
      for (; k < text.size(); ++k) {
        if (text[k] == '\n') ++line;
        if (text[k] == '(') ++depth;
        if (text[k] == ')' && --depth == 0) break;
      }
      if (k == text.size()) {
        throw Error("record line " + std::to_string(line) + ": unterminated variation");
      }
      i = k + 1;
    } else {
      size_t end = i;
      while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
             text[end] != '{' && text[end] != '(' && text[end] != ';') {
        ++end;
      }
      const std::string_view token = text.substr(i, end - i);
      i = end;
      if (IsResultToken(token)) {
        finish(std::string(token));
        continue;
      }
      if (token[0] == '$') continue;  // NAG
      const std::string_view move = StripMoveNumber(token);
      if (move.empty() || move.find_first_not_of("0123456789.") == std::string_view::npos) {
        continue;  // a bare move number
      }
      current.moves.emplace_back(move);
      has_content = true;
    }
  }
  if (has_content) finish("*");
  return games;
}

std::string VariantOfRecord(const RecordText& record) {
  const std::string variant = record.Tag("Variant");
  if (!variant.empty()) return variant;
  const std::string type = record.Tag("GameType");
  if (!type.empty() && type.substr(0, type.find(',')) == "32") return "portuguese-draughts";
  return "";
}

std::vector<ReplayReport> ReplayRecordFile(std::string_view variant, const std::string& path) {
  const std::vector<RecordText> records = ParseRecordText(ReadTextFile(path));
  std::vector<ReplayReport> reports;
  WithGame(variant, [&]<class G>() {
    for (size_t i = 0; i < records.size(); ++i) {
      reports.push_back(ReplayRecord<G>(records[i], int(i) + 1));
    }
  });
  return reports;
}

}  // namespace vz
