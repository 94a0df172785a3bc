#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fovea::test {

/// A fresh folder under the system temporary directory, removed with everything in it when
/// the object goes out of scope.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// The files under `folder` (at any depth) that an atomic write leaves behind when it fails
/// half way, `*.tmp` and `*.partial`, by their paths relative to `folder`.
std::vector<std::string> stray_temporaries(const std::filesystem::path& folder);

}  // namespace fovea::test
