#pragma once

// The data dictionary of a CSV file a session writes (trials.json beside trials.csv):
// BIDS's sidecar for a tabular file, one object per column with its Description, and Units
// or Levels where it has them, so a lab's pipeline reads the columns without the docs.

#include <span>
#include <string>
#include <string_view>

namespace fovea {

/// One column's entry.
struct ColumnDictionaryEntry {
  std::string_view name;         ///< the column's header name, the JSON object's key
  std::string_view description;  ///< what the column holds: the sidecar's Description
  std::string_view units = {};   ///< "" for none
  /// A column of words or flags: each level and its meaning, "word=meaning|word=meaning";
  /// "" for a number or free text.
  std::string_view levels = {};
};

/// The sidecar's JSON text (two-space indents, a final newline), the columns in order.
std::string data_dictionary_json(std::span<const ColumnDictionaryEntry> columns);

}  // namespace fovea
