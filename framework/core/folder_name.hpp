#pragma once

// The one rule for a name that becomes a folder: a participant's (results/experiments/<name>/
// <participant>/), an experiment's and a study's (results/studies/<name>/). Whoever takes
// such a name checks it here, so "..", "a/b" or a 1 MB name never reaches a path.

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/format.hpp"

namespace fovea {

/// The longest name a folder takes from its user, bytes.
inline constexpr std::size_t kMaxFolderNameBytes = 64;

/// What is wrong with `name` as the name of a folder of its own, or "" when nothing is: it
/// must not be empty, "." or ".." (the folder it sits in, or the one above), nor longer
/// than kMaxFolderNameBytes, and holds only letters, digits, '-', '_' and '.' (so no path
/// separator). The answer quotes the name as excerpt() does; the caller names what the
/// folder is.
inline std::string folder_name_problem(std::string_view name) {
  if (name.empty()) return "expected a name, found an empty one";
  if (name == "." || name == "..")
    return std::string(name == "." ? "\".\" names the folder it would sit in" : "\"..\" names the folder above") +
           ", not a folder of its own";
  if (name.size() > kMaxFolderNameBytes)
    return "a name of " + std::to_string(name.size()) + " bytes, more than the " + std::to_string(kMaxFolderNameBytes) +
           " a folder's name may have";
  for (const char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return "expected a name of letters, digits, - _ . (no path separators), found \"" + excerpt(name) + "\"";
  return "";
}

}  // namespace fovea
