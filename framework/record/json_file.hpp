#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fovea {

/// The largest JSON file read back from a results folder. Those read are fovea's own
/// (manifest.json, sweep.json): a few kB, a sweep.json that lists a million failed runs about
/// 12 MB. Anything larger is not one of them, and is refused rather than read into memory.
constexpr std::uint64_t kMaxResultsJsonBytes = std::uint64_t{16} << 20;

/// A JSON file read back, and what became of the reading.
struct JsonFile {
  /// How far reading got.
  enum class State {
    missing,     ///< no such file
    unreadable,  ///< there, but the OS does not give it (a folder, a pipe, no permission, too large)
    malformed,   ///< read, but not JSON
    read,        ///< `json` holds it
  };
  State state = State::missing;  ///< what became of the reading
  nlohmann::ordered_json json;   ///< the parsed file when state is read, else null
  std::string problem;  ///< unless read: one line naming the file and why
};

/// `path` read through read_regular_file (core/file_read.hpp), so a pipe or a device named
/// sweep.json is refused at once instead of read without end; `what` names the kind of file in
/// the message ("manifest", "sweep.json").
JsonFile read_json_file(const std::filesystem::path& path, std::string_view what);

}  // namespace fovea
