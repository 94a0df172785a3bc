#include "architecture/violation.hpp"

namespace fovea::architecture {

std::string rule_name(Rule rule) {
  switch (rule) {
    case Rule::table:
      return "the table of layers";
    case Rule::outside_parts:
      return "outside every part";
    case Rule::upward_include:
      return "upward include";
    case Rule::sideways_include:
      return "sideways include";
    case Rule::include_outside_parts:
      return "include outside every part";
    case Rule::core_external_include:
      return "the simulation core includes the standard library and GLM only";
    case Rule::unreadable_include:
      return "unreadable include";
    case Rule::link_not_in_row:
      return "link missing from the table";
    case Rule::row_link_unused:
      return "link in the table that the build does not make";
    case Rule::row_links_upward:
      return "upward link";
    case Rule::core_links_beyond:
      return "the simulation core links itself, GLM and threads only";
    case Rule::target_spans_parts:
      return "one target, two parts";
    case Rule::part_without_library:
      return "a part of framework/ without a library";
  }
  return "?";
}

std::string to_string(const Violation& violation) {
  std::string text = violation.file;
  if (violation.line > 0) text += ":" + std::to_string(violation.line);
  return text + ": " + rule_name(violation.rule) + ": " + violation.detail;
}

}  // namespace fovea::architecture
