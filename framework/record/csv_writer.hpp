#pragma once

#include <cstdint>
#include <cmath>
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
  /// What the constructor does with a file already at `path`.
  enum class Open {
    create,  ///< truncate it and write the header
    /// keep its rows and write after them (a resumed session): its header must be these
    /// columns; a last line cut off before its newline (a power cut between fsyncs) is
    /// dropped. A missing or empty file is created as with `create`.
    append,
  };
  /// Opens `path` and writes the header unless appending to rows already there. Throws
  /// std::runtime_error (a file that cannot be opened, or whose header differs). To append,
  /// the file is opened once, without blocking, and must be a regular file of at most
  /// kMaxTableFileBytes (core/file_read.hpp): a FIFO in its place is refused at once.
  CsvWriter(const std::string& path, const std::vector<std::string>& columns, Open open = Open::create);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  /// A number in its shortest exact form (format_number); NaN is written "nan" (cell_or_missing leaves it empty).
  CsvWriter& cell(double value);
  /// An integer, in decimal.
  CsvWriter& cell(std::int64_t value);
  /// Text, quoted only when a comma, quote or line break (or a leading byte-order mark) needs it.
  CsvWriter& cell(std::string_view text);
  /// An empty cell: a value that does not apply (pandas and R read it as missing).
  CsvWriter& cell_missing();
  /// The value, or an empty cell for NaN (a value not computed).
  CsvWriter& cell_or_missing(double value) { return std::isnan(value) ? cell_missing() : cell(value); }

  /// How end_row() hands a finished row to the file.
  enum class Flush {
    now,    ///< write the row (and any held before it) to the operating system at once
    later,  ///< hold it until flush() or a row ended with Flush::now
    /// write it and make it durable (fsync): on the disk before end_row returns, so a
    /// power cut keeps it (a psychophysics trial)
    durable,
  };
  /// Ends the row: checks the cell count, and writes it with one write, or
  /// holds it. A file of many rows per frame (collisions.csv) holds a frame's rows and
  /// flushes once per frame: one system call a frame instead of one a row, and still only
  /// whole rows reach the file.
  void end_row(Flush flush = Flush::now);
  /// Writes the rows held, with one write; `durable` adds an fsync. A write that fails (a
  /// full disk: ENOSPC; a file size limit: EFBIG) throws std::runtime_error "<path>: write
  /// failed: <the OS's reason>" and leaves the file ending on its last whole row: what part
  /// of the rows did reach the file is cut off again.
  void flush(bool durable = false);
  /// The header line this writer writes for `columns`, without its newline.
  static std::string header_line(const std::vector<std::string>& columns);

  /// Columns of the header: the cells end_row() expects in each row.
  std::size_t column_count() const { return column_count_; }

 private:
  void separator();
  void open_to_append(const std::vector<std::string>& columns, bool& appending);
  /// Writes `bytes` whole, or cuts the file back to its last whole row and returns errno.
  int write_whole(std::string_view bytes);

  int descriptor_ = -1;          // open with O_APPEND; -1 when none
  std::uint64_t whole_bytes_ = 0;  // the file's size at its last whole row
  std::string path_;
  std::string line_;  // rows not yet written; reused: no allocation per row in the steady state
  std::size_t column_count_ = 0;
  std::size_t cells_in_row_ = 0;
};

}  // namespace fovea
