#pragma once

// One table of the research report (research/report.h), described once and written to each of
// the report's three forms: an HTML <table> for report.html, CSV lines for its .csv file, and an
// array of JSON objects for report.json. A column says in which forms it appears (HTML only: a
// cell combined for reading, e.g. "3 (1-1-1)"; CSV and JSON only: the raw values behind it), its
// HTML header and its CSV/JSON key, and the digits of its numbers in HTML and in CSV; JSON always
// gets the full double. Cells:
//   Text      HTML: XML-escaped; CSV: quoted when it holds a comma, quote or line break; JSON: a
//             string
//   Html      HTML only: written as given (already escaped markup such as an indent)
//   Integer   decimal everywhere; a JSON integer
//   Real      fixed digits per form ("" when not finite); JSON null when not finite
//   Interval  HTML "value [low, high]"; CSV and JSON three fields (the column's key, low_key and
//             high_key)
//   Bool      CSV 1 or 0; JSON true or false (not for HTML columns)
//   Json      JSON only: a nested value (an array or object)
//   Empty     "" in HTML and CSV (for an interval column, three empty fields); JSON null
// Writing a cell in a form it has no text for (an Html cell in a CSV column, ...) is a bug of the
// report: VZ_CHECK fails. Not thread-safe (a value type, built and written by one thread).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "research/statistics.h"

namespace vz::research {

// Where a column appears: a set of these bits.
enum TableForm : unsigned {
  kHtml = 1,
  kCsv = 2,
  kJson = 4,
  kData = kCsv | kJson,
  kEveryForm = kHtml | kCsv | kJson
};

struct TableColumn {
  unsigned forms = kEveryForm;  // TableForm bits
  std::string header;           // HTML header, plain text (escaped when written)
  std::string key;              // CSV header and JSON key (an interval's value)
  int html_digits = 3;          // digits after the point of Real and Interval cells
  int csv_digits = 4;
  std::string low_key = "", high_key = "";  // an Interval column's other two CSV/JSON keys
};

class TableCell {
 public:
  static TableCell Text(std::string text);
  static TableCell Html(std::string markup);
  static TableCell Integer(int64_t value);
  static TableCell Real(double value);
  static TableCell Of(const Interval& interval);
  static TableCell Bool(bool value);
  static TableCell Json(nlohmann::json value);
  static TableCell Empty();

  // The cell in each form, for `column`.
  std::string HtmlText(const TableColumn& column) const;
  void AppendCsv(const TableColumn& column, std::string& line) const;  // ",field" per field
  void AddJson(const TableColumn& column, nlohmann::json& object) const;

 private:
  enum class Kind { kText, kHtml, kInteger, kReal, kInterval, kBool, kJson, kEmpty };
  Kind kind_ = Kind::kEmpty;
  std::string text_;
  int64_t integer_ = 0;
  Interval interval_;  // a Real's value is interval_.value
  nlohmann::json json_;
};

class Table {
 public:
  explicit Table(std::vector<TableColumn> columns) : columns_(std::move(columns)) {}

  // Appends a row of one cell per column, in column order. VZ_CHECK: as many cells as columns.
  void AddRow(std::vector<TableCell> cells);

  // <table>, a header row and a row per table row, of the HTML columns, each line ending in "\n".
  std::string Html() const;
  // The CSV header line (the CSV columns' keys; an interval column's three) and "\n".
  std::string CsvHeader() const;
  // One CSV line per row, each ending in "\n" (no header: tables with the same columns can share
  // one file).
  std::string CsvRows() const;
  // CsvHeader() + CsvRows().
  std::string Csv() const { return CsvHeader() + CsvRows(); }
  // A JSON array with one object per row, of the JSON columns.
  nlohmann::json Json() const;

  bool empty() const { return rows_.empty(); }

 private:
  std::vector<TableColumn> columns_;
  std::vector<std::vector<TableCell>> rows_;  // [row][column]
};

// A CSV field: `text`, quoted (with doubled quotes) when it holds a comma, a quote or a line break.
std::string CsvField(const std::string& text);

// A number with `digits` digits after the point, "" when not finite.
std::string FixedDigits(double value, int digits);

}  // namespace vz::research
