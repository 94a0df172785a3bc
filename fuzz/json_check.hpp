#pragma once

// What the JSON targets (manifest, summary, sweep_json) check of every text the bounded JSON
// reader (record/json_file.hpp) accepts or refuses, beside their own file's reading.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_check.hpp"
#include "record/json_file.hpp"

namespace fovea::fuzz {

/// The nesting depth of a parsed value, arrays and objects counted, measured without recursion.
inline int json_depth(const nlohmann::ordered_json& root) {
  int deepest = 0;
  std::vector<std::pair<const nlohmann::ordered_json*, int>> stack = {{&root, 1}};
  while (!stack.empty()) {
    const auto [value, depth] = stack.back();
    stack.pop_back();
    if (!value->is_structured()) continue;
    deepest = std::max(deepest, depth);
    for (const nlohmann::ordered_json& child : *value) stack.emplace_back(&child, depth + 1);
  }
  return deepest;
}

/// parse_json_text on `text` as a file named `name`, checked: refused text names the file in a
/// bounded line (never the text it last read: a string of megabytes); accepted text is nested
/// at most kMaxJsonDepth deep, and printed and read again prints the same.
inline JsonFile read_json_checked(std::string_view text, const std::string& name) {
  JsonFile file = parse_json_text(text, name);
  check(file.state == JsonFile::State::read || file.state == JsonFile::State::malformed,
        "parse_json_text gave a state other than read or malformed");
  if (file.state == JsonFile::State::malformed) {
    check(file.problem.rfind(name + ": ", 0) == 0, "a refusal that does not name the file: " + file.problem);
    check(file.problem.size() <= name.size() + 400, "a refusal of " + std::to_string(file.problem.size()) + " bytes");
    check(file.json.is_null(), "a refused file with a value");
    return file;
  }
  check(json_depth(file.json) <= kMaxJsonDepth, "a value nested deeper than kMaxJsonDepth was read");
  // Compared printed: a number past the largest double reads as infinity, which prints as null.
  const std::string printed = file.json.dump();
  const JsonFile again = parse_json_text(printed, name);
  check(again.state == JsonFile::State::read, "what was read, printed, is refused: " + again.problem);
  check(again.json.dump() == printed, "what was read, printed and read again, prints otherwise");
  return file;
}

}  // namespace fovea::fuzz
