#include "record/data_dictionary.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace fovea {

std::string data_dictionary_json(std::span<const ColumnDictionaryEntry> columns) {
  nlohmann::ordered_json sidecar = nlohmann::ordered_json::object();
  for (const ColumnDictionaryEntry& column : columns) {
    nlohmann::ordered_json entry;
    entry["Description"] = std::string(column.description);
    if (!column.units.empty()) entry["Units"] = std::string(column.units);
    if (!column.levels.empty()) {
      nlohmann::ordered_json levels = nlohmann::ordered_json::object();
      std::string_view rest = column.levels;
      while (!rest.empty()) {
        const std::string_view level = rest.substr(0, rest.find('|'));
        rest.remove_prefix(std::min(rest.size(), level.size() + 1));
        const std::size_t equals = level.find('=');
        levels[std::string(level.substr(0, equals))] = std::string(level.substr(equals + 1));
      }
      entry["Levels"] = levels;
    }
    sidecar[std::string(column.name)] = entry;
  }
  return sidecar.dump(2) + "\n";
}

}  // namespace fovea
