#pragma once

// What the layering check finds wrong: one rule of docs/architecture.md's section "The layers"
// broken at one place, as plain data, so a test can ask which rule a broken tree breaks and
// where.

#include <string>

namespace fovea::architecture {

/// The rules of docs/architecture.md's layers, one value each.
enum class Rule {
  table,                  ///< the table itself cannot be read, or names a folder that does not exist
  outside_parts,          ///< a folder of framework/, or a file holding an #include, that no row names
  upward_include,         ///< an #include reaches a file of a part at a higher layer
  sideways_include,       ///< an #include reaches a file of another part at the same layer
  include_outside_parts,  ///< an #include reaches a file of the tree that no part holds (tests/, fuzz/)
  core_external_include,  ///< the simulation core includes a header that is neither standard nor glm/
  unreadable_include,     ///< `#include NAME`: a macro the check cannot follow
  link_not_in_row,        ///< a target links a part or library its row's links column does not name
  row_link_unused,        ///< a row's links column names something no target of the part links
  row_links_upward,       ///< a row's links column names a part at its own layer or above
  core_links_beyond,      ///< a row of the simulation core names more than the core, GLM and threads
  target_spans_parts,     ///< one target of the build compiles files of two parts
  part_without_library,   ///< a part of framework/ that no target of the build compiles
};

/// The rule in a few words, as messages print it: "upward include".
std::string rule_name(Rule rule);

/// One rule broken at one place.
struct Violation {
  std::string file;  ///< from the repository root: "framework/record/csv_writer.cpp"
  int line = 0;      ///< 1-based; 0 for a whole file or folder
  Rule rule = Rule::table;
  std::string detail;  ///< what was found: "<run/run.hpp> is framework/run/run.hpp, of run/ (layer 14), ..."
};

/// "framework/record/csv_writer.cpp:7: upward include: <run/run.hpp> is ...".
std::string to_string(const Violation& violation);

}  // namespace fovea::architecture
