#include "record/csv_reader.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/file_read.hpp"

namespace fovea {

std::optional<std::size_t> CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

CsvTable parse_csv(std::string_view text, const std::string& name) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  CsvTable table;
  std::size_t line = 1;
  std::size_t i = 0;
  const auto fail = [&](std::size_t at_line, const std::string& what) -> void {
    throw std::runtime_error(name + ":" + std::to_string(at_line) + ": " + what);
  };
  // A line end at i: "\n" or "\r\n". Returns its length, 0 when there is none.
  const auto line_end = [&](std::size_t at) -> std::size_t {
    if (at < text.size() && text[at] == '\n') return 1;
    if (at + 1 < text.size() && text[at] == '\r' && text[at + 1] == '\n') return 2;
    return 0;
  };
  bool have_header = false;
  // A text that does not end with a line end was cut, or its writer stopped, within its last
  // record: that record never finished.
  const bool cut = !text.empty() && text.back() != '\n';
  while (i < text.size()) {
    CsvRow row;
    row.line = line;
    bool finished = false;
    // A blank line holds no record (pandas' skip_blank_lines).
    if (const std::size_t end = line_end(i); end > 0) {
      i += end;
      ++line;
      continue;
    }
    for (;;) {
      std::string cell;
      if (i < text.size() && text[i] == '"') {
        const std::size_t quote_line = line;
        ++i;
        for (;;) {
          // The text ends inside a quoted cell: cut within the record's last line when it
          // ends without a line end (the record never finished), else a quote is missing.
          if (i >= text.size() && cut) break;
          if (i >= text.size()) fail(quote_line, "a quoted cell is never closed (a \" is missing)");
          const char c = text[i++];
          if (c == '"') {
            if (i < text.size() && text[i] == '"') {
              cell += '"';
              ++i;
              continue;
            }
            break;
          }
          if (c == '\n') ++line;
          cell += c;
        }
        if (i < text.size() && text[i] != ',' && line_end(i) == 0)
          fail(line, "text after the closing quote of a cell (a quote inside a quoted cell is written \"\")");
      } else {
        while (i < text.size() && text[i] != ',' && line_end(i) == 0) {
          if (text[i] == '"') fail(line, "a \" inside an unquoted cell (quote the cell and write it \"\")");
          cell += text[i++];
        }
      }
      row.cells.push_back(std::move(cell));
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      if (const std::size_t end = line_end(i); end > 0) {
        i += end;
        ++line;
        finished = true;
      }
      break;
    }
    if (!finished) {
      // Only the last record can end without a line end: the text ends in it.
      if (!have_header) fail(row.line, "the header row has no line end; the file was never finished");
      table.unfinished_line = row.line;
      break;
    }
    if (!have_header) {
      table.header_line = row.line;
      table.header = std::move(row.cells);
      have_header = true;
      continue;
    }
    if (row.cells.size() != table.header.size())
      fail(row.line, "this row has " + std::to_string(row.cells.size()) + " cells, the header " +
                         std::to_string(table.header.size()));
    table.rows.push_back(std::move(row));
  }
  if (!have_header) throw std::runtime_error(name + ": empty file: no header row");
  return table;
}

std::string read_file_text(const std::string& path) { return read_regular_file(path, kMaxTableFileBytes, ""); }

CsvTable read_csv(const std::string& path) { return parse_csv(read_file_text(path), path); }

std::string CsvTable::unfinished_note(const std::string& name) const {
  if (unfinished_line == 0) return "";
  return name + ":" + std::to_string(unfinished_line) + ": its last row has no line end; it was never finished";
}

std::size_t drop_unfinished_last_line(std::string& text) {
  if (text.empty() || text.back() == '\n') return 0;
  const std::size_t last_newline = text.rfind('\n');
  const std::size_t line = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  text.resize(last_newline == std::string::npos ? 0 : last_newline + 1);
  return line;
}

}  // namespace fovea
