// One table written to HTML, CSV and JSON (research/report_table.h).

#include "research/report_table.h"

#include <fmt/core.h>

#include <cmath>
#include <utility>

#include "engine/core/macros.h"
#include "research/board_svg.h"

namespace vz::research {

using nlohmann::json;

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string FixedDigits(double value, int digits) {
  if (!std::isfinite(value)) return "";
  return fmt::format("{:.{}f}", value + 0.0, digits);
}

namespace {

json JsonNumber(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

}  // namespace

TableCell TableCell::Text(std::string text) {
  TableCell cell;
  cell.kind_ = Kind::kText;
  cell.text_ = std::move(text);
  return cell;
}

TableCell TableCell::Html(std::string markup) {
  TableCell cell;
  cell.kind_ = Kind::kHtml;
  cell.text_ = std::move(markup);
  return cell;
}

TableCell TableCell::Integer(int64_t value) {
  TableCell cell;
  cell.kind_ = Kind::kInteger;
  cell.integer_ = value;
  return cell;
}

TableCell TableCell::Real(double value) {
  TableCell cell;
  cell.kind_ = Kind::kReal;
  cell.interval_.value = value;
  return cell;
}

TableCell TableCell::Of(const Interval& interval) {
  TableCell cell;
  cell.kind_ = Kind::kInterval;
  cell.interval_ = interval;
  return cell;
}

TableCell TableCell::Bool(bool value) {
  TableCell cell;
  cell.kind_ = Kind::kBool;
  cell.integer_ = value ? 1 : 0;
  return cell;
}

TableCell TableCell::Json(json value) {
  TableCell cell;
  cell.kind_ = Kind::kJson;
  cell.json_ = std::move(value);
  return cell;
}

TableCell TableCell::Empty() { return TableCell(); }

std::string TableCell::HtmlText(const TableColumn& column) const {
  const int digits = column.html_digits;
  switch (kind_) {
    case Kind::kText: return EscapeXml(text_);
    case Kind::kHtml: return text_;
    case Kind::kInteger: return std::to_string(integer_);
    case Kind::kReal: return FixedDigits(interval_.value, digits);
    case Kind::kInterval:
      return fmt::format("{} [{}, {}]", FixedDigits(interval_.value, digits),
                         FixedDigits(interval_.low, digits), FixedDigits(interval_.high, digits));
    case Kind::kEmpty: return "";
    case Kind::kBool:
    case Kind::kJson: break;
  }
  VZ_CHECK(false && "a Bool or Json cell in an HTML column");
  return "";
}

void TableCell::AppendCsv(const TableColumn& column, std::string& line) const {
  const bool interval_column = !column.low_key.empty();
  const int digits = column.csv_digits;
  auto add = [&line](const std::string& field) { line += "," + field; };
  switch (kind_) {
    case Kind::kText: add(CsvField(text_)); return;
    case Kind::kInteger:
    case Kind::kBool: add(std::to_string(integer_)); return;
    case Kind::kReal: add(FixedDigits(interval_.value, digits)); return;
    case Kind::kInterval:
      add(FixedDigits(interval_.value, digits));
      add(FixedDigits(interval_.low, digits));
      add(FixedDigits(interval_.high, digits));
      return;
    case Kind::kEmpty:
      for (int field = 0; field < (interval_column ? 3 : 1); ++field) add("");
      return;
    case Kind::kHtml:
    case Kind::kJson: break;
  }
  VZ_CHECK(false && "an Html or Json cell in a CSV column");
}

void TableCell::AddJson(const TableColumn& column, json& object) const {
  switch (kind_) {
    case Kind::kText: object[column.key] = text_; return;
    case Kind::kInteger: object[column.key] = integer_; return;
    case Kind::kBool: object[column.key] = integer_ != 0; return;
    case Kind::kReal: object[column.key] = JsonNumber(interval_.value); return;
    case Kind::kInterval:
      object[column.key] = JsonNumber(interval_.value);
      object[column.low_key] = JsonNumber(interval_.low);
      object[column.high_key] = JsonNumber(interval_.high);
      return;
    case Kind::kJson: object[column.key] = json_; return;
    case Kind::kEmpty:
      object[column.key] = nullptr;
      if (!column.low_key.empty()) object[column.low_key] = object[column.high_key] = nullptr;
      return;
    case Kind::kHtml: break;
  }
  VZ_CHECK(false && "an Html cell in a JSON column");
}

void Table::AddRow(std::vector<TableCell> cells) {
  VZ_CHECK(cells.size() == columns_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::Html() const {
  std::string html = "<table>\n<tr>";
  for (const TableColumn& column : columns_) {
    if (column.forms & kHtml) html += "<th>" + EscapeXml(column.header) + "</th>";
  }
  html += "</tr>\n";
  for (const std::vector<TableCell>& row : rows_) {
    html += "<tr>";
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].forms & kHtml) html += "<td>" + row[c].HtmlText(columns_[c]) + "</td>";
    }
    html += "</tr>\n";
  }
  return html + "</table>\n";
}

std::string Table::CsvHeader() const {
  std::string line;
  for (const TableColumn& column : columns_) {
    if (!(column.forms & kCsv)) continue;
    for (const std::string* key : {&column.key, &column.low_key, &column.high_key}) {
      if (key->empty()) continue;
      if (!line.empty()) line += ',';
      line += *key;
    }
  }
  return line + "\n";
}

std::string Table::CsvRows() const {
  std::string csv;
  for (const std::vector<TableCell>& row : rows_) {
    std::string line;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].forms & kCsv) row[c].AppendCsv(columns_[c], line);
    }
    csv += line.substr(line.empty() ? 0 : 1) + "\n";  // without the first field's comma
  }
  return csv;
}

json Table::Json() const {
  json array = json::array();
  for (const std::vector<TableCell>& row : rows_) {
    json object = json::object();
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].forms & kJson) row[c].AddJson(columns_[c], object);
    }
    array.push_back(std::move(object));
  }
  return array;
}

}  // namespace vz::research
