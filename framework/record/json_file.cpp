#include "record/json_file.hpp"

#include <system_error>

#include "core/file_read.hpp"
#include "core/format.hpp"

namespace fovea {
namespace {

/// The most of nlohmann's message about text that is not JSON a problem quotes: its longest
/// message without a quoted token is about 150 bytes.
constexpr std::size_t kLongestParserMessage = 200;

}  // namespace

std::optional<std::size_t> json_too_deep_at(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character, a quote included, does not end the string
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

JsonFile parse_json_text(std::string_view text, const std::string& name) {
  using Json = nlohmann::ordered_json;
  if (const std::optional<std::size_t> at = json_too_deep_at(text))
    return {JsonFile::State::malformed, Json(),
            name + ": byte " + std::to_string(*at) + ": arrays and objects nested deeper than " +
                std::to_string(kMaxJsonDepth) + " levels; no JSON file fovea reads needs as many"};
  try {
    return {JsonFile::State::read, Json::parse(text), ""};
  } catch (const Json::exception& e) {
    // nlohmann's message ends with the token it last read, which may be most of the file (a
    // string of megabytes): the position it gives is enough. Other messages quote a token
    // whole too ("number overflow parsing '555...'", found by fuzz/targets/manifest.cpp): cut.
    std::string why = e.what();
    if (const std::size_t last_read = why.find("; last read: "); last_read != std::string::npos) why.resize(last_read);
    return {JsonFile::State::malformed, Json(), name + ": not JSON: " + excerpt(why, kLongestParserMessage)};
  }
}

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
  return parse_json_text(text, path.string());
}

}  // namespace fovea
