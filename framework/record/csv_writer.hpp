#pragma once

#include <cstdint>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace fovea {

/// A CSV file written row by row (RFC 4180: comma-separated, a header row, fields quoted
/// only when they must be), each row flushed to the operating system as it is finished, so
/// a killed run leaves only complete rows. Numbers are written in their shortest exact
/// form, so pandas and R read back the very values fovea computed.
class CsvWriter {
 public:
  /// Creates (truncates) `path` and writes the header. Throws std::runtime_error.
  CsvWriter(const std::string& path, const std::vector<std::string>& columns);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  CsvWriter& cell(double value);
  CsvWriter& cell(std::int64_t value);
  CsvWriter& cell(std::string_view text);
  /// An empty cell: a value that does not apply (pandas and R read it as missing).
  CsvWriter& cell_missing();
  /// The value, or an empty cell for NaN (a value not computed).
  CsvWriter& cell_or_missing(double value) { return std::isnan(value) ? cell_missing() : cell(value); }

  enum class Flush {
    now,    ///< write the row (and any held before it) to the operating system at once
    later,  ///< hold it until flush() or a row ended with Flush::now
  };
  /// Ends the row: checks the cell count, and writes it with one write and a flush, or
  /// holds it. A file of many rows per frame (collisions.csv) holds a frame's rows and
  /// flushes once per frame: one system call a frame instead of one a row, and still only
  /// whole rows reach the file.
  void end_row(Flush flush = Flush::now);
  /// Writes the rows held, with one write and a flush.
  void flush();

  std::size_t column_count() const { return column_count_; }

 private:
  void separator();

  std::FILE* file_ = nullptr;
  std::string path_;
  std::string line_;  // rows not yet written; reused: no allocation per row in the steady state
  std::size_t column_count_ = 0;
  std::size_t cells_in_row_ = 0;
};

}  // namespace fovea
