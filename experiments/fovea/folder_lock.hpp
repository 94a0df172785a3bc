#pragma once

#include <filesystem>
#include <string>

namespace fovea {

/// One sweep at a time in a folder: an flock on its .lock file, held until the sweep returns
/// or its process ends, however it ends. Let go on return too, so a caller that goes on (the
/// Python module's fovea.sweep, after a stop) can resume the same folder, as can any process.
class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& lock_file);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  bool held() const { return held_; }
  /// Why the lock is not held when it is not another sweep's: "" when it is.
  const std::string& problem() const { return problem_; }

 private:
  int fd_;
  bool held_ = false;
  std::string problem_;
};

}  // namespace fovea
