#pragma once

// docs/architecture.md's section "The layers" as data: the parts in their order, which of them
// are the simulation core, what each links, and the CMake targets the links column's library
// words stand for. Everything the layering check knows about which parts exist comes from here.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "architecture/violation.hpp"

namespace fovea::architecture {

/// One row of the tables of layers: a part of the code, where it sits and what it links.
struct Part {
  int layer = 0;                   ///< 1 for core/; parts with the same number sit side by side
  std::string name;                ///< how the links column names it: "core", "experiments/fovea"
  std::filesystem::path folder;    ///< from the repository root: "framework/core", "experiments/fovea"
  std::vector<std::string> links;  ///< the links column's words: parts' names and libraries' words
  int doc_line = 0;                ///< the row's line in docs/architecture.md
};

/// What the section says.
struct LayerTable {
  std::vector<Part> parts;  ///< in the table's order, bottom first
  int core_layers = 0;      ///< "The simulation core, layers 1 to N": the parts of layer N and below
  /// The library words of the links column and the CMake targets each stands for:
  /// "nlohmann-json" -> {"nlohmann_json::nlohmann_json"}.
  std::map<std::string, std::vector<std::string>> library_targets;
  std::vector<Violation> problems;  ///< what could not be read (Rule::table)

  /// The part named `name` ("core", "experiments/fovea"), or nullptr.
  const Part* find(const std::string& name) const;
  /// The part holding `file` (from the repository root): the row of the longest folder that
  /// holds it ("experiments/fovea/main.cpp" is experiments/fovea/'s, not experiments/'s), or nullptr.
  const Part* holding(const std::filesystem::path& file) const;
  bool is_core(const Part& part) const { return part.layer <= core_layers; }
};

/// The section "The layers" of the markdown file `doc`; `doc_name` is how violations name it
/// ("docs/architecture.md").
///
/// It holds tables of three kinds, told apart by their header row:
/// - `| layer | part | what it holds | links |`: parts that are folders of framework/, written
///   `core/`, named "core";
/// - `| layer | folder | what it holds | links |`: parts that are folders of the repository,
///   written `experiments/fovea/`, named "experiments/fovea";
/// - `| library | CMake targets |`: a library word of the links column and its targets in
///   backticks.
/// Layers are numbered from 1 in order; a row has its predecessor's number or the next one.
LayerTable read_layer_table(const std::filesystem::path& doc, const std::string& doc_name);

}  // namespace fovea::architecture
