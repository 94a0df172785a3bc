#include "record/csv_writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <unistd.h>

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
  if (open == Open::append) {
    std::string text;
    if (std::FILE* in = std::fopen(path.c_str(), "rb")) {
      char buffer[65536];
      for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, in)) > 0;) text.append(buffer, n);
      std::fclose(in);
    }
    if (!text.empty()) {
      const std::size_t header_end = text.find('\n');
      if (header_end == std::string::npos || text.substr(0, header_end) != header_line(columns))
        throw std::runtime_error(path + ": its header is not this file's columns (" + header_line(columns) + ")");
      // Whole rows only: a tail after the last newline never finished.
      const std::size_t keep = text.rfind('\n') + 1;
      if (keep < text.size() && ::truncate(path.c_str(), static_cast<off_t>(keep)) != 0)
        throw std::runtime_error(path + ": cannot drop an unfinished last row: " + std::strerror(errno));
      file_ = std::fopen(path.c_str(), "ab");
      if (file_ == nullptr) throw std::runtime_error(path + ": cannot append: " + std::strerror(errno));
      return;
    }
  }
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) throw std::runtime_error(path + ": cannot create: " + std::strerror(errno));
  for (const auto& c : columns) cell(std::string_view(c));
  end_row(open == Open::append ? Flush::durable : Flush::now);
}

CsvWriter::~CsvWriter() {
  if (file_ == nullptr) return;
  // Rows held and never flushed (an exception between rows): written if they can be.
  if (cells_in_row_ == 0 && !line_.empty()) std::fwrite(line_.data(), 1, line_.size(), file_);
  std::fclose(file_);
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

void CsvWriter::flush(bool durable) {
  if (cells_in_row_ != 0) throw std::logic_error(path_ + ": flush in the middle of a row");
  if (line_.empty()) return;
  // One fwrite of whole rows then a flush: the kernel gets complete rows only, so SIGKILL
  // at any instant leaves the file ending on a row boundary (unless a write is cut by a full
  // disk, which the error below reports).
  if (std::fwrite(line_.data(), 1, line_.size(), file_) != line_.size() || std::fflush(file_) != 0)
    throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
  line_.clear();
  if (durable && ::fsync(::fileno(file_)) != 0) throw std::runtime_error(path_ + ": fsync failed: " + std::strerror(errno));
}

}  // namespace fovea
