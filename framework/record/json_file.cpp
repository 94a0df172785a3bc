#include "record/json_file.hpp"

#include <system_error>

#include "core/file_read.hpp"

namespace fovea {

JsonFile read_json_file(const std::filesystem::path& path, std::string_view what) {
  using Json = nlohmann::ordered_json;
  std::error_code error;
  // A symbolic link to nothing is there, and not readable: not taken for a missing file.
  if (std::filesystem::symlink_status(path, error).type() == std::filesystem::file_type::not_found)
    return {JsonFile::State::missing, Json(), path.string() + ": no such file"};
  std::string text;
  try {
    text = read_regular_file(path.string(), kMaxResultsJsonBytes, what);
  } catch (const FileReadError& e) {
    return {JsonFile::State::unreadable, Json(), e.what()};
  }
  try {
    return {JsonFile::State::read, Json::parse(text), ""};
  } catch (const Json::exception& e) {
    return {JsonFile::State::malformed, Json(), path.string() + ": not JSON: " + e.what()};
  }
}

}  // namespace fovea
