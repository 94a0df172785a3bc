#pragma once

#include <string>

namespace fovea {

/// What was built: recorded in every run's manifest so a result can be traced to its code.
struct BuildInfo {
  std::string version;     ///< fovea's version, from CMakeLists.txt
  std::string git_commit;  ///< commit hash of the source tree at build time, or "unknown"
  bool git_dirty = false;  ///< true when tracked files differed from the commit
};

/// Generated at build time by framework/core/build_info.cmake.
BuildInfo build_info();

}  // namespace fovea
