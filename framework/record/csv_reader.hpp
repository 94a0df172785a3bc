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
///
/// Every record ends with its line end, the last one too: fovea writes whole lines. A last
/// record the text ends in before its line end never finished (a file cut short, copied in
/// part, or a writer stopped mid-row), and what is there may read as a good row of wrong
/// values (a 2228 cut to 22). It is left out of `rows`, and `unfinished_line` says so: each
/// reader reports it, or refuses the file with it (docs/formats.md).
struct CsvTable {
  std::size_t header_line = 1;  ///< the header's line: 1 unless blank lines precede it
  std::vector<std::string> header;  ///< the column names, unquoted, in file order
  std::vector<CsvRow> rows;         ///< the records after the header, in file order, blank lines left out
  /// The line an unfinished last record starts on, left out of `rows`; 0 when the text ends
  /// with a line end (or holds no record after the header).
  std::size_t unfinished_line = 0;

  /// The index of the header's column `name`, or nullopt.
  std::optional<std::size_t> column(std::string_view name) const;
  /// "<name>:<line>: its last row has no line end; it was never finished", naming the record
  /// left out, or "" when none was.
  std::string unfinished_note(const std::string& name) const;
};

/// A whole file as it is on the disk. Throws FileReadError (a std::runtime_error, one line
/// naming the path) for a file that is missing, unreadable, not a regular file, or larger
/// than kMaxTableFileBytes (core/file_read.hpp).
std::string read_file_text(const std::string& path);

/// Reads and splits `path` (read whole: fovea's CSV inputs are trial records, thousands of
/// rows). Throws std::runtime_error as "<path>: <what>" (cannot read, no header row) or
/// "<path>:<line>: <what>" (an unterminated quote in a file that ends with its line end,
/// text after a closing quote, a quote inside an unquoted cell, a record whose cell count
/// differs from the header's, a header without its line end). An unfinished last record is
/// left out and named by the table's unfinished_line, not thrown.
CsvTable read_csv(const std::string& path);

/// The same for CSV text in memory; `name` stands for the path in messages.
CsvTable parse_csv(std::string_view text, const std::string& name);

/// Drops a last line without its newline from a file written row by row with an fsync after
/// each (trials.csv): a power cut between the two leaves a row that never finished. The text
/// form of parse_csv's rule, for a reader that must know before parsing whether anything
/// whole is left (a header cut as the file was created). Returns the line dropped (from 1),
/// 0 when the text ended with its newline.
std::size_t drop_unfinished_last_line(std::string& text);

}  // namespace fovea
