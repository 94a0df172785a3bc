#include "architecture/layering_check.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace fovea::architecture {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDoc = "docs/architecture.md";

/// The libraries the simulation core may link besides itself, as the links column words them
/// ("links GLM and the standard library only, with the platform's threads").
const std::set<std::string> kCoreLibraries = {"GLM", "threads"};

/// Every target links the project's compiler warnings (CMakeLists.txt): flags, not a library.
constexpr const char* kWarningsTarget = "fovea_warnings";

/// One `#include` line of a file.
struct IncludeLine {
  int line = 0;
  std::string header;  ///< as written between the quotes or brackets
  bool angled = false;
  bool readable = true;  ///< false for `#include NAME`, a macro
};

std::string written(const IncludeLine& include) {
  if (!include.readable) return include.header;
  return include.angled ? "<" + include.header + ">" : "\"" + include.header + "\"";
}

std::string label(const Part& part) { return part.name + "/ (layer " + std::to_string(part.layer) + ")"; }

/// The text of a file, or nullopt for one that holds a NUL byte (not text: nothing to include).
std::optional<std::string> text_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (text.find('\0') != std::string::npos) return std::nullopt;
  return text;
}

/// The `#include`s of a file's text. Quotes escaped as in a CMake or C string (`#include
/// \"core/build_info.hpp\"`, written by a generator) count as quotes: the file they end up in
/// includes that header.
std::vector<IncludeLine> includes_of(const std::string& text) {
  static const std::regex include(R"re(^\s*#\s*include\s*(?:<([^>]*)>|\\?"([^"\\]*)\\?"))re");
  static const std::regex macro(R"(^\s*#\s*include\s+([A-Za-z_]\w*)\s*$)");
  std::vector<IncludeLine> includes;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find("include") == std::string::npos) continue;
    std::smatch m;
    if (std::regex_search(line, m, include))
      includes.push_back({number, m[1].matched ? m[1].str() : m[2].str(), m[1].matched, true});
    else if (std::regex_search(line, m, macro))
      includes.push_back({number, "#include " + m[1].str(), false, false});
  }
  return includes;
}

/// The file `include` in `file` (both from `root`) names, from `root`, found as the compiler
/// finds it: symbolic links followed, ".." taken physically. A path starting with ".." is a file
/// outside the repository; nullopt when it names no file.
std::optional<fs::path> resolve(const fs::path& root, const fs::path& file, const IncludeLine& include,
                                const std::vector<fs::path>& include_dirs) {
  std::vector<fs::path> candidates;
  if (!include.angled) candidates.push_back(file.parent_path() / include.header);
  for (const fs::path& dir : include_dirs) candidates.push_back(dir / include.header);
  std::error_code error;
  const fs::path real_root = fs::canonical(root, error);
  for (const fs::path& candidate : candidates) {
    const fs::path real = fs::canonical(root / candidate, error);
    if (!error && fs::is_regular_file(real, error)) return real.lexically_relative(real_root);
  }
  return std::nullopt;
}

bool outside_repository(const fs::path& path) { return path.empty() || *path.begin() == ".."; }

/// The files under `root / folder`, from `root`, in a stable order.
std::vector<fs::path> files_under(const fs::path& root, const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(root / folder, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error))
    if (it->is_regular_file()) files.push_back(it->path().lexically_relative(root));
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

bool is_core_platform_header(const std::string& header) {
  static const std::set<std::string> platform = {"fcntl.h", "sys/stat.h", "unistd.h"};
  return platform.contains(header);
}

bool is_standard_header(const std::string& header) {
  // C++23's headers ([headers] of the standard), the C ones in their <cname> form.
  static const std::set<std::string> standard = {"algorithm",
                                                 "any",
                                                 "array",
                                                 "atomic",
                                                 "barrier",
                                                 "bit",
                                                 "bitset",
                                                 "cassert",
                                                 "cctype",
                                                 "cerrno",
                                                 "cfenv",
                                                 "cfloat",
                                                 "charconv",
                                                 "chrono",
                                                 "cinttypes",
                                                 "climits",
                                                 "clocale",
                                                 "cmath",
                                                 "codecvt",
                                                 "compare",
                                                 "complex",
                                                 "concepts",
                                                 "condition_variable",
                                                 "coroutine",
                                                 "csetjmp",
                                                 "csignal",
                                                 "cstdarg",
                                                 "cstddef",
                                                 "cstdint",
                                                 "cstdio",
                                                 "cstdlib",
                                                 "cstring",
                                                 "ctime",
                                                 "cuchar",
                                                 "cwchar",
                                                 "cwctype",
                                                 "deque",
                                                 "exception",
                                                 "execution",
                                                 "expected",
                                                 "filesystem",
                                                 "flat_map",
                                                 "flat_set",
                                                 "format",
                                                 "forward_list",
                                                 "fstream",
                                                 "functional",
                                                 "future",
                                                 "generator",
                                                 "initializer_list",
                                                 "iomanip",
                                                 "ios",
                                                 "iosfwd",
                                                 "iostream",
                                                 "istream",
                                                 "iterator",
                                                 "latch",
                                                 "limits",
                                                 "list",
                                                 "locale",
                                                 "map",
                                                 "mdspan",
                                                 "memory",
                                                 "memory_resource",
                                                 "mutex",
                                                 "new",
                                                 "numbers",
                                                 "numeric",
                                                 "optional",
                                                 "ostream",
                                                 "print",
                                                 "queue",
                                                 "random",
                                                 "ranges",
                                                 "ratio",
                                                 "regex",
                                                 "scoped_allocator",
                                                 "semaphore",
                                                 "set",
                                                 "shared_mutex",
                                                 "source_location",
                                                 "span",
                                                 "spanstream",
                                                 "sstream",
                                                 "stack",
                                                 "stacktrace",
                                                 "stdexcept",
                                                 "stdfloat",
                                                 "stop_token",
                                                 "streambuf",
                                                 "string",
                                                 "string_view",
                                                 "strstream",
                                                 "syncstream",
                                                 "system_error",
                                                 "thread",
                                                 "tuple",
                                                 "type_traits",
                                                 "typeindex",
                                                 "typeinfo",
                                                 "unordered_map",
                                                 "unordered_set",
                                                 "utility",
                                                 "valarray",
                                                 "variant",
                                                 "vector",
                                                 "version"};
  return standard.count(header) == 1;
}

std::vector<Violation> check_table(const fs::path& root, const LayerTable& table) {
  std::vector<Violation> violations;
  for (const Part& part : table.parts) {
    std::error_code error;
    if (!fs::is_directory(root / part.folder, error))
      violations.push_back({kDoc, part.doc_line, Rule::table,
                            part.name + "/ names no folder of the repository (" + part.folder.generic_string() + "/)"});
    for (const std::string& word : part.links) {
      const Part* linked = table.find(word);
      const bool library = table.library_targets.count(word) == 1;
      if (!linked && !library) {
        violations.push_back({kDoc, part.doc_line, Rule::table,
                              part.name + "/ links \"" + word + "\", neither a part nor a library of the table"});
        continue;
      }
      if (linked && linked->layer >= part.layer)
        violations.push_back({kDoc, part.doc_line, Rule::row_links_upward,
                              label(part) + " links " + label(*linked) + ": a part links only parts below it"});
      if (table.is_core(part) && library && kCoreLibraries.count(word) == 0)
        violations.push_back({kDoc, part.doc_line, Rule::core_links_beyond,
                              label(part) + " links " + word + "; the simulation core, layers 1 to " +
                                  std::to_string(table.core_layers) + ", links itself, GLM and threads only"});
    }
  }
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root / "framework", error)) {
    const fs::path path = entry.path().lexically_relative(root);
    const bool is_part =
        std::any_of(table.parts.begin(), table.parts.end(), [&](const Part& part) { return part.folder == path; });
    if (entry.is_directory() && !is_part)
      violations.push_back({path.generic_string() + "/", 0, Rule::outside_parts,
                            "a folder of framework/ that no row of docs/architecture.md's table names; a new part "
                            "takes its place there first"});
    if (entry.is_regular_file())
      if (const std::optional<std::string> text = text_of(entry.path()); text && !includes_of(*text).empty())
        violations.push_back({path.generic_string(), includes_of(*text).front().line, Rule::outside_parts,
                              "a file of framework/ outside every part's folder includes headers"});
  }
  return violations;
}

std::vector<Violation> check_includes(const fs::path& root, const LayerTable& table,
                                      const std::vector<fs::path>& include_dirs) {
  std::set<fs::path> files;
  for (const Part& part : table.parts)
    for (const fs::path& file : files_under(root, part.folder)) files.insert(file);
  std::vector<Violation> violations;
  for (const fs::path& file : files) {
    const Part* from = table.holding(file);
    const std::optional<std::string> text = text_of(root / file);
    if (!from || !text) continue;
    for (const IncludeLine& include : includes_of(*text)) {
      auto broken = [&](Rule rule, const std::string& detail) {
        violations.push_back({file.generic_string(), include.line, rule, written(include) + detail});
      };
      if (!include.readable) {
        broken(Rule::unreadable_include, ": a macro the check cannot follow; name the header");
        continue;
      }
      const std::optional<fs::path> target = resolve(root, file, include, include_dirs);
      if (target && !outside_repository(*target)) {
        const Part* to = table.holding(*target);
        const std::string is = " is " + target->generic_string();
        if (!to)
          broken(Rule::include_outside_parts, is + ", which no part of the table holds");
        else if (to != from && to->layer > from->layer)
          broken(Rule::upward_include, is + ", of " + label(*to) + ", above " + label(*from));
        else if (to != from && to->layer == from->layer)
          broken(Rule::sideways_include, is + ", of " + label(*to) + ", beside " + label(*from) +
                                             ": parts of one layer include nothing of each other");
        continue;
      }
      const std::string header = fs::path(include.header).lexically_normal().generic_string();
      if (table.is_core(*from) && !is_standard_header(header) && !is_core_platform_header(header) &&
          header.rfind("glm/", 0) != 0)
        broken(Rule::core_external_include,
               " names no file of the repository and is neither a standard header "
               "nor glm/; " +
                   label(*from) + " is in the simulation core, layers 1 to " + std::to_string(table.core_layers));
    }
  }
  return violations;
}

std::vector<Violation> check_links(const LayerTable& table, const std::vector<BuildTarget>& targets) {
  std::vector<Violation> violations;
  std::map<std::string, const Part*> part_of_target;
  std::map<const Part*, std::vector<const BuildTarget*>> targets_of_part;
  for (const BuildTarget& target : targets) {
    std::map<const Part*, int> sources_in;  // part -> how many of the target's sources it holds
    for (const fs::path& source : target.sources)
      if (const Part* part = outside_repository(source) ? nullptr : table.holding(source)) ++sources_in[part];
    if (sources_in.empty()) continue;
    if (sources_in.size() > 1) {
      std::string names;
      for (const auto& [part, count] : sources_in) names += " " + part->name + "/";
      violations.push_back({target.cmake_file.generic_string(), 0, Rule::target_spans_parts,
                            target.name + " compiles files of" + names + "; a target is one part's"});
    }
    // Judged as the part holding most of its sources, so one stray source is one violation.
    const Part* part = std::max_element(sources_in.begin(), sources_in.end(), [](const auto& a, const auto& b) {
                         return a.second < b.second;
                       })->first;
    part_of_target[target.name] = part;
    targets_of_part[part].push_back(&target);
  }
  std::map<std::string, std::string> library_of_target;
  for (const auto& [word, names] : table.library_targets)
    for (const std::string& name : names) library_of_target[name] = word;

  for (const Part& part : table.parts) {
    const auto found = targets_of_part.find(&part);
    if (found == targets_of_part.end()) {
      // The programs' targets are optional (the benchmarks, the Python module); the framework's are not.
      if (*part.folder.begin() == "framework")
        violations.push_back({kDoc, part.doc_line, Rule::part_without_library,
                              label(part) + ": no target of the build compiles its files"});
      continue;
    }
    std::map<std::string, std::string> linked;  // word -> the target that links it
    for (const BuildTarget* target : found->second) {
      for (const std::string& link : target->links) {
        const auto in_part = part_of_target.find(link);
        const auto library = library_of_target.find(link);
        if (link == kWarningsTarget || (in_part != part_of_target.end() && in_part->second == &part)) continue;
        if (in_part != part_of_target.end())
          linked.emplace(in_part->second->name, target->name);
        else if (library != library_of_target.end())
          linked.emplace(library->second, target->name);
        else
          violations.push_back({kDoc, part.doc_line, Rule::link_not_in_row,
                                target->name + " (" + target->cmake_file.generic_string() + ") links " + link +
                                    ", neither a part's target nor a CMake target of the table's libraries"});
      }
    }
    for (const auto& [word, target] : linked)
      if (std::find(part.links.begin(), part.links.end(), word) == part.links.end())
        violations.push_back({kDoc, part.doc_line, Rule::link_not_in_row,
                              target + " links " + word + ", which the links column of " + part.name + "/ lacks"});
    for (const std::string& word : part.links)
      if (linked.count(word) == 0)
        violations.push_back(
            {kDoc, part.doc_line, Rule::row_link_unused,
             "the links column of " + part.name + "/ names " + word + ", which no target of " + part.name + "/ links"});
  }
  return violations;
}

std::vector<Violation> check_layering(const fs::path& root, const std::vector<BuildTarget>& targets) {
  const LayerTable table = read_layer_table(root / kDoc, kDoc);
  std::vector<Violation> violations = table.problems;
  if (table.parts.empty()) return violations;
  // Where the parts' own targets look for headers: framework/, experiments/, python/ today.
  std::vector<BuildTarget> part_targets;
  for (const BuildTarget& target : targets)
    if (std::any_of(target.sources.begin(), target.sources.end(),
                    [&](const fs::path& source) { return !outside_repository(source) && table.holding(source); }))
      part_targets.push_back(target);
  for (const std::vector<Violation>& found :
       {check_table(root, table), check_includes(root, table, repository_include_dirs(part_targets)),
        check_links(table, targets)})
    violations.insert(violations.end(), found.begin(), found.end());
  return violations;
}

}  // namespace fovea::architecture
