#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fovea {

/// One record of a CSV file: its cells, and the line it starts on (from 1, the header being
/// line 1 unless blank lines precede it), for messages that point into the file.
struct CsvRow {
  std::size_t line = 0;            ///< the file's line the record starts on, from 1
  std::vector<std::string> cells;  ///< unquoted, as many as the header's
};

/// A whole CSV file as CsvWriter writes it and as pandas, R and spreadsheets write it
/// (RFC 4180): a header row, then records of as many cells; a cell may be quoted, and a
/// quoted cell may hold commas, doubled quotes and line breaks. CRLF line ends and a UTF-8
/// byte-order mark (Excel's) are accepted; blank lines are skipped, as pandas does.
struct CsvTable {
  std::size_t header_line = 1;  ///< the header's line: 1 unless blank lines precede it
  std::vector<std::string> header;  ///< the column names, unquoted, in file order
  std::vector<CsvRow> rows;         ///< the records after the header, in file order, blank lines left out

  /// The index of the header's column `name`, or nullopt.
  std::optional<std::size_t> column(std::string_view name) const;
};

/// A whole file as it is on the disk. Throws FileReadError (a std::runtime_error, one line
/// naming the path) for a file that is missing, unreadable, not a regular file, or larger
/// than kMaxTableFileBytes (core/file_read.hpp).
std::string read_file_text(const std::string& path);

/// Reads and splits `path` (read whole: fovea's CSV inputs are trial records, thousands of
/// rows). Throws std::runtime_error as "<path>: <what>" (cannot read, no header row) or
/// "<path>:<line>: <what>" (an unterminated quote, text after a closing quote, a quote
/// inside an unquoted cell, a record whose cell count differs from the header's).
CsvTable read_csv(const std::string& path);

/// The same for CSV text in memory; `name` stands for the path in messages.
CsvTable parse_csv(std::string_view text, const std::string& name);

/// Drops a last line without its newline from a file written row by row with an fsync after
/// each (trials.csv): a power cut between the two leaves a row that never finished.
void drop_unfinished_last_line(std::string& text);

}  // namespace fovea
