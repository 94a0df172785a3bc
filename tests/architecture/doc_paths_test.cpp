// docs/architecture.md, the map of the code, names files that exist: every path in backticks
// (`framework/frame/animation.cpp`, `run/frame_columns.cpp` inside framework/,
// `tests/run/run_test.cpp`, `python/bindings/`, `render/gl_window.{hpp,cpp}`) is a file or a
// folder of the repository, and every link to another page goes to a page and a heading that
// exist; and a name it places in a file (`integrate_motion` in "`world/motion.cpp`
// (`integrate_motion`)", `Stepper` in "`Stepper` (`run/stepper.cpp`)") is written in that file.
// A file moved or renamed, or a function moved to another file, without its line in the map
// fails here.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = FOVEA_SOURCE_DIR;

std::vector<std::string> lines_of(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// "render/gl_window.{hpp,cpp}" -> {"render/gl_window.hpp", "render/gl_window.cpp"}.
std::vector<std::string> expanded(const std::string& path) {
  const std::size_t open = path.find('{'), close = path.find('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return {path};
  std::vector<std::string> paths;
  const std::string choices = path.substr(open + 1, close - open - 1);
  std::size_t start = 0;
  while (start <= choices.size()) {
    const std::size_t comma = std::min(choices.find(',', start), choices.size());
    for (const std::string& rest : expanded(path.substr(close + 1)))
      paths.push_back(path.substr(0, open) + choices.substr(start, comma - start) + rest);
    start = comma + 1;
  }
  return paths;
}

/// A path the doc names, from the repository root or from framework/ ("run/run.hpp"); a
/// trailing '/' asks for a folder.
/// The file or folder it names, or an empty path.
fs::path named(const std::string& path) {
  const bool folder = path.back() == '/';
  for (const fs::path& base : {kRoot, kRoot / "framework"}) {
    const fs::path candidate = base / path;
    if (folder ? fs::is_directory(candidate) : fs::is_regular_file(candidate)) return candidate;
  }
  return {};
}

std::string text_of(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to '-'.
std::string anchor_of(const std::string& heading) {
  std::string anchor;
  for (const char c : heading) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')
      anchor += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (c == ' ')
      anchor += '-';
  }
  return anchor;
}

std::set<std::string> anchors_of(const fs::path& page) {
  std::set<std::string> anchors;
  const std::regex heading(R"(^#+\s+(.*?)\s*$)");
  bool in_code = false;
  for (const std::string& line : lines_of(page)) {
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    std::smatch m;
    if (!in_code && std::regex_match(line, m, heading)) anchors.insert(anchor_of(m[1]));
  }
  return anchors;
}

}  // namespace

TEST_CASE("Docs: every file docs/architecture.md names exists", "[architecture]") {
  const fs::path doc = kRoot / "docs/architecture.md";
  const std::vector<std::string> lines = lines_of(doc);
  REQUIRE(lines.size() > 100);
  // A path: letters, digits and _ . - / { } , with a '/' in it, ending in '/' (a folder) or
  // with an extension after its last '/' (a file). `fovea_<folder>` or `std::thread` are not.
  const std::regex code_span("`([^`]+)`");
  const std::regex path(R"(^[A-Za-z0-9_.{},-]*/[A-Za-z0-9_.{},/-]*$)");
  int paths = 0;
  std::vector<std::string> missing;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    for (auto it = std::sregex_iterator(lines[n].begin(), lines[n].end(), code_span); it != std::sregex_iterator();
         ++it) {
      const std::string span = (*it)[1];
      const std::string last = span.substr(span.find_last_of('/', span.size() - 2) + 1);
      if (!std::regex_match(span, path) || (span.back() != '/' && last.find('.') == std::string::npos)) continue;
      if (span.rfind("build/", 0) == 0) continue;  // what the build writes, not the repository
      for (const std::string& path_named : expanded(span)) {
        ++paths;
        if (named(path_named).empty())
          missing.push_back("docs/architecture.md:" + std::to_string(n + 1) + ": " + path_named);
      }
    }
  }
  std::string list;
  for (const std::string& m : missing) list += m + "\n";
  INFO("paths named that are no file or folder of the repository (nor of framework/):\n" << list);
  CHECK(missing.empty());
  CHECK(paths > 100);  // the doc's paths were found
}

TEST_CASE("Docs: every link of docs/architecture.md goes to a page and heading that exist", "[architecture]") {
  const fs::path doc = kRoot / "docs/architecture.md";
  const std::vector<std::string> lines = lines_of(doc);
  const std::regex link(R"(\]\(([^)\s#]*)(?:#([^)\s]*))?\))");
  int links = 0;
  std::vector<std::string> broken;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    for (auto it = std::sregex_iterator(lines[n].begin(), lines[n].end(), link); it != std::sregex_iterator(); ++it) {
      const std::string target = (*it)[1], anchor = (*it)[2];
      if (target.find("://") != std::string::npos) continue;
      ++links;
      const fs::path page = target.empty() ? doc : doc.parent_path() / target;
      const std::string where = "docs/architecture.md:" + std::to_string(n + 1) + ": " + (*it)[0].str();
      if (!fs::is_regular_file(page))
        broken.push_back(where + " (no such page)");
      else if (!anchor.empty() && anchors_of(page).count(anchor) == 0)
        broken.push_back(where + " (no such heading)");
    }
  }
  std::string list;
  for (const std::string& b : broken) list += b + "\n";
  INFO(list);
  CHECK(broken.empty());
  CHECK(links >= 5);
}

TEST_CASE("Docs: every name docs/architecture.md places in a file is in that file", "[architecture]") {
  const fs::path doc = kRoot / "docs/architecture.md";
  const std::string text = text_of(doc);
  // "`file` (`name`, `name` and `name`)" and "`name` (`file`": a C++ file and the names beside it.
  const std::regex names_after(R"(`([\w./-]+\.[ch]pp)`\s+\(((?:`[^`]+`(?:,\s+|\s+and\s+)?)+))");
  const std::regex name_before(R"(`([^`]+)`\s+\(`([\w./-]+\.[ch]pp)`)");
  const std::regex code_span("`([^`]+)`");
  const std::regex identifier(R"(^(?:\w+::)*(\w+)(?:\(\))?$)");  // Animation::step() -> step
  std::vector<std::pair<std::string, std::string>> placed;       // (file, name)
  std::vector<std::size_t> offsets;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), names_after); it != std::sregex_iterator(); ++it) {
    const std::string names = (*it)[2];
    for (auto n = std::sregex_iterator(names.begin(), names.end(), code_span); n != std::sregex_iterator(); ++n) {
      placed.emplace_back((*it)[1], (*n)[1]);
      offsets.push_back(static_cast<std::size_t>(it->position()));
    }
  }
  for (auto it = std::sregex_iterator(text.begin(), text.end(), name_before); it != std::sregex_iterator(); ++it) {
    placed.emplace_back((*it)[2], (*it)[1]);
    offsets.push_back(static_cast<std::size_t>(it->position()));
  }
  int checked = 0;
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < placed.size(); ++i) {
    const auto& [file, name] = placed[i];
    std::smatch m;
    const fs::path path = named(file);
    if (path.empty() || !std::regex_match(name, m, identifier)) continue;  // a missing file: the test above
    ++checked;
    const std::regex word("\\b" + m[1].str() + "\\b");
    if (!std::regex_search(text_of(path), word)) {
      const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offsets[i]), '\n') + 1;
      missing.push_back("docs/architecture.md:" + std::to_string(line) + ": " + name + " is not in " + file);
    }
  }
  std::string list;
  for (const std::string& m : missing) list += m + "\n";
  INFO(list);
  CHECK(missing.empty());
  CHECK(checked > 20);  // the doc's names were found
}
