#include "architecture/layer_table.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>

namespace fovea::architecture {

namespace {

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

/// The cells of a markdown table row "| a | b |": {"a", "b"}.
std::vector<std::string> cells_of(const std::string& row) {
  std::vector<std::string> cells;
  std::size_t start = row.find('|') + 1;
  for (std::size_t bar = row.find('|', start); bar != std::string::npos; bar = row.find('|', start)) {
    cells.push_back(trimmed(row.substr(start, bar - start)));
    start = bar + 1;
  }
  return cells;
}

/// "GLM, threads" -> {"GLM", "threads"}.
std::vector<std::string> words_of(const std::string& cell) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start <= cell.size()) {
    const std::size_t comma = std::min(cell.find(',', start), cell.size());
    const std::string word = trimmed(cell.substr(start, comma - start));
    if (!word.empty()) words.push_back(word);
    start = comma + 1;
  }
  return words;
}

/// The kinds of table the section holds, told apart by their header row.
enum class TableKind { none, framework_parts, repository_parts, libraries, unknown };

TableKind kind_of_header(const std::vector<std::string>& header) {
  if (header.size() == 4 && header[0] == "layer" && header[2] == "what it holds" && header[3] == "links") {
    if (header[1] == "part") return TableKind::framework_parts;
    if (header[1] == "folder") return TableKind::repository_parts;
  }
  if (header.size() == 2 && header[0] == "library" && header[1] == "CMake targets") return TableKind::libraries;
  return TableKind::unknown;
}

}  // namespace

const Part* LayerTable::find(const std::string& name) const {
  for (const Part& part : parts)
    if (part.name == name) return &part;
  return nullptr;
}

const Part* LayerTable::holding(const std::filesystem::path& file) const {
  const Part* best = nullptr;
  std::size_t best_depth = 0;
  for (const Part& part : parts) {
    const auto [part_end, file_it] = std::mismatch(part.folder.begin(), part.folder.end(), file.begin(), file.end());
    const std::size_t depth = static_cast<std::size_t>(std::distance(part.folder.begin(), part.folder.end()));
    if (part_end == part.folder.end() && file_it != file.end() && depth > best_depth) {
      best = &part;
      best_depth = depth;
    }
  }
  return best;
}

LayerTable read_layer_table(const std::filesystem::path& doc, const std::string& doc_name) {
  LayerTable table;
  auto problem = [&](int line, const std::string& detail) {
    table.problems.push_back({doc_name, line, Rule::table, detail});
  };
  std::ifstream in(doc);
  if (!in) {
    problem(0, "cannot be read");
    return table;
  }
  const std::regex part_cell(R"(^`([a-z0-9_]+(/[a-z0-9_]+)*)/`$)");
  const std::regex core_sentence(R"(simulation core, layers 1 to (\d+))");
  const std::regex targets_cell(R"(`([^`]+)`)");
  bool in_section = false;
  TableKind kind = TableKind::none;
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.rfind("## ", 0) == 0) in_section = line == "## The layers";
    if (!in_section) continue;
    std::smatch m;
    if (std::regex_search(line, m, core_sentence)) table.core_layers = std::stoi(m[1]);
    if (line.rfind("|", 0) != 0) {
      kind = TableKind::none;
      continue;
    }
    const std::vector<std::string> cells = cells_of(line);
    if (kind == TableKind::none) {
      kind = kind_of_header(cells);
      if (kind == TableKind::unknown) problem(line_number, "a table whose header the check does not know: " + line);
      continue;
    }
    if (kind == TableKind::unknown || line.rfind("|---", 0) == 0) continue;
    if (kind == TableKind::libraries) {
      std::vector<std::string>& targets = table.library_targets[cells[0]];
      for (auto it = std::sregex_iterator(cells[1].begin(), cells[1].end(), targets_cell); it != std::sregex_iterator();
           ++it)
        targets.push_back((*it)[1]);
      if (targets.empty()) problem(line_number, "library " + cells[0] + " names no CMake target in backticks");
      continue;
    }
    if (cells.size() != 4 || !std::regex_match(cells[1], m, part_cell) ||
        cells[0].find_first_not_of("0123456789") != std::string::npos || cells[0].empty()) {
      problem(line_number, "a row the check cannot read (| number | `folder/` | what | links |): " + line);
      continue;
    }
    Part part;
    part.layer = std::stoi(cells[0]);
    part.name = m[1];
    part.folder = kind == TableKind::framework_parts ? std::filesystem::path("framework") / part.name
                                                     : std::filesystem::path(part.name);
    part.links = words_of(cells[3]);
    part.doc_line = line_number;
    const int previous = table.parts.empty() ? 0 : table.parts.back().layer;
    if (part.layer != previous + 1 && !(part.layer == previous && previous > 0))
      problem(line_number, "layer " + cells[0] + " follows layer " + std::to_string(previous) +
                               ": layers count from 1, each row its predecessor's number or the next");
    if (table.find(part.name)) problem(line_number, part.name + "/ is a row twice");
    table.parts.push_back(part);
  }
  if (table.parts.empty()) problem(0, "no table of layers in the section \"## The layers\"");
  if (table.core_layers < 1 || (!table.parts.empty() && table.core_layers > table.parts.back().layer))
    problem(0, "no sentence \"simulation core, layers 1 to N\" with N a layer of the table");
  return table;
}

}  // namespace fovea::architecture
