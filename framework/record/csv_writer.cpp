#include "record/csv_writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file_read.hpp"
#include "core/format.hpp"

namespace fovea {

namespace {

/// Appends one cell, quoted when the reader (record/csv_reader.hpp) would otherwise read
/// something else: a comma, a quote or a line break inside it, or, for the first cell of a
/// row, a start that looks like a UTF-8 byte-order mark (which the reader drops at the start
/// of a file). Found by fuzz/targets/frames_csv.cpp's round trip.
void append_cell(std::string& line, std::string_view text, bool first_in_row) {
  const bool looks_like_bom = first_in_row && text.starts_with("\xEF\xBB\xBF");
  if (text.find_first_of(",\"\r\n") == std::string_view::npos && !looks_like_bom) {
    line += text;
    return;
  }
  line += '"';
  for (const char c : text) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

}  // namespace

std::string CsvWriter::header_line(const std::vector<std::string>& columns) {
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) line += ',';
    append_cell(line, columns[i], i == 0);
  }
  // One empty cell alone would be a blank line, which readers skip.
  if (line.empty() && !columns.empty()) line = "\"\"";
  return line;
}

CsvWriter::CsvWriter(const std::string& path, const std::vector<std::string>& columns, Open open)
    : path_(path), column_count_(columns.size()) {
  try {
    bool appending = false;
    if (open == Open::append) open_to_append(columns, appending);
    if (appending) return;
    if (descriptor_ < 0) {
      descriptor_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
      if (descriptor_ < 0) throw std::runtime_error(path + ": cannot create: " + std::strerror(errno));
    }
    for (const auto& c : columns) cell(std::string_view(c));
    end_row(open == Open::append ? Flush::durable : Flush::now);
  } catch (...) {
    // No destructor runs for an object never made: the descriptor is closed here.
    if (descriptor_ >= 0) ::close(descriptor_);
    throw;
  }
}

void CsvWriter::open_to_append(const std::vector<std::string>& columns, bool& appending) {
  // One open, without blocking, checked on its descriptor, then read and written through it:
  // a FIFO swapped in for the file is refused at once instead of waited on for ever.
  descriptor_ = ::open(path_.c_str(), O_RDWR | O_APPEND | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (descriptor_ < 0 && errno == ENOENT) return;  // created by the constructor
  const auto refuse = [&](const std::string& why) { return std::runtime_error(path_ + ": cannot append: " + why); };
  if (descriptor_ < 0) throw refuse(std::strerror(errno));
  struct stat status {};
  if (::fstat(descriptor_, &status) != 0) throw refuse(std::strerror(errno));
  if (!S_ISREG(status.st_mode)) throw refuse("not a regular file (a device, a pipe or a socket)");
  const std::string limit = "the " + std::to_string(kMaxTableFileBytes >> 20) + " MiB fovea reads";
  if (static_cast<std::uint64_t>(status.st_size) > kMaxTableFileBytes)
    throw refuse("it is " + std::to_string(status.st_size) + " bytes, more than " + limit);
  const int flags = ::fcntl(descriptor_, F_GETFL);
  if (flags < 0 || ::fcntl(descriptor_, F_SETFL, flags & ~O_NONBLOCK) != 0) throw refuse(std::strerror(errno));
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::pread(descriptor_, buffer, sizeof buffer, static_cast<off_t>(text.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw refuse(std::strerror(errno));
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxTableFileBytes) throw refuse("it grew past " + limit);
  }
  if (text.empty()) return;  // the header is written as to a new file
  const std::size_t header_end = text.find('\n');
  if (header_end == std::string::npos || text.substr(0, header_end) != header_line(columns))
    throw std::runtime_error(path_ + ": its header is not this file's columns (" + header_line(columns) + ")");
  // Whole rows only: a tail after the last newline never finished.
  const std::size_t keep = text.rfind('\n') + 1;
  if (keep < text.size() && ::ftruncate(descriptor_, static_cast<off_t>(keep)) != 0)
    throw std::runtime_error(path_ + ": cannot drop an unfinished last row: " + std::strerror(errno));
  whole_bytes_ = keep;
  appending = true;
}

CsvWriter::~CsvWriter() {
  if (descriptor_ < 0) return;
  // Rows held and never flushed (an exception between rows): written if they can be.
  if (cells_in_row_ == 0 && !line_.empty()) (void)write_whole(line_);
  ::close(descriptor_);
}

void CsvWriter::separator() {
  if (cells_in_row_++ > 0) line_ += ',';
}

CsvWriter& CsvWriter::cell(double value) {
  separator();
  append_number(line_, value);
  return *this;
}

CsvWriter& CsvWriter::cell(std::int64_t value) {
  separator();
  append_number(line_, value);
  return *this;
}

CsvWriter& CsvWriter::cell_missing() {
  separator();
  return *this;
}

CsvWriter& CsvWriter::cell(std::string_view text) {
  separator();
  append_cell(line_, text, cells_in_row_ == 1);
  return *this;
}

void CsvWriter::end_row(Flush flush_mode) {
  if (cells_in_row_ != column_count_)
    throw std::logic_error(path_ + ": row has " + std::to_string(cells_in_row_) + " cells, header has " +
                           std::to_string(column_count_));
  // A row of one empty cell would be a blank line, which readers skip: it is written "".
  if (column_count_ == 1 && (line_.empty() || line_.back() == '\n')) line_ += "\"\"";
  line_ += '\n';
  cells_in_row_ = 0;
  if (flush_mode != Flush::later) flush(flush_mode == Flush::durable);
}

int CsvWriter::write_whole(std::string_view bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(descriptor_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // A full disk (ENOSPC) or a file size limit (EFBIG) may take part of the rows first:
      // the file is cut back to its last whole row, so it never ends mid-row. (A device such
      // as /dev/full cannot be cut, and needs not be.)
      const int error = n < 0 ? errno : EIO;
      (void)::ftruncate(descriptor_, static_cast<off_t>(whole_bytes_));
      return error;
    }
    done += static_cast<std::size_t>(n);
  }
  whole_bytes_ += bytes.size();
  return 0;
}

void CsvWriter::flush(bool durable) {
  if (cells_in_row_ != 0) throw std::logic_error(path_ + ": flush in the middle of a row");
  if (line_.empty()) return;
  // One write of whole rows: the kernel gets complete rows only, so SIGKILL at any instant
  // leaves the file ending on a row boundary, and a write the disk cuts short is cut back.
  const int error = write_whole(line_);
  line_.clear();
  if (error != 0) throw std::runtime_error(path_ + ": write failed: " + std::strerror(error));
  if (durable && ::fsync(descriptor_) != 0) throw std::runtime_error(path_ + ": fsync failed: " + std::strerror(errno));
}

}  // namespace fovea
