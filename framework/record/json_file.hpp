#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fovea {

/// The largest JSON file read back from a results folder. Those read are fovea's own
/// (manifest.json, sweep.json): a few kB, a sweep.json that lists a million failed runs about
/// 12 MB. Anything larger is not one of them, and is refused rather than read into memory.
constexpr std::uint64_t kMaxResultsJsonBytes = std::uint64_t{16} << 20;

/// The deepest nesting of arrays and objects a JSON file fovea reads may have, the outermost
/// value counted as level 1. fovea's own files nest 4 levels at most (a merged sweep.json's
/// shards); a manifest's status nested 100,000 deep made `fovea sweep` die by a stack overflow
/// with nothing said (issue 42), since copying, comparing and printing a parsed value recurse
/// once per level (nlohmann's parser itself does not). 64 is the YAML readers' limit too (docs/formats.md), and python/fovea's JSON
/// readers refuse past the same 64, so both say the same of the same file.
constexpr int kMaxJsonDepth = 64;

/// A JSON file read back, and what became of the reading.
struct JsonFile {
  /// How far reading got.
  enum class State {
    missing,     ///< no such file
    unreadable,  ///< there, but the OS does not give it (a folder, a pipe, no permission, too large)
    malformed,   ///< read, but not JSON, or nested deeper than kMaxJsonDepth
    read,        ///< `json` holds it
  };
  State state = State::missing;  ///< what became of the reading
  nlohmann::ordered_json json;   ///< the parsed file when state is read, else null
  std::string problem;  ///< unless read: one line naming the file and why
};

/// `path` read through read_regular_file (core/file_read.hpp): opened once without blocking, so
/// a pipe or a device named sweep.json is refused at once instead of waited on or read without
/// end, and at most kMaxResultsJsonBytes; then parse_json_text. `what` names the kind of file
/// in the message ("manifest", "sweep.json"). Every JSON file fovea reads is read here.
JsonFile read_json_file(const std::filesystem::path& path, std::string_view what);

/// JSON text in memory, parsed as read_json_file parses a file's bytes: state read or
/// malformed, the problem naming `name` ("name: not JSON: ...", "name: byte N: arrays and
/// objects nested deeper than 64 levels ..."). The depth is measured before parsing, in one
/// pass without recursion.
JsonFile parse_json_text(std::string_view text, const std::string& name);

/// The byte offset of the first '[' or '{' that opens level max_depth + 1 in `text`, outside
/// strings; nullopt when none does. Text that is not JSON is measured all the same: only the
/// depth is judged here.
std::optional<std::size_t> json_too_deep_at(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace fovea
