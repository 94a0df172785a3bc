#include "fovea/folder_lock.hpp"

#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fovea {

namespace fs = std::filesystem;

FolderLock::FolderLock(const fs::path& lock_file) : fd_(open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
  if (fd_ < 0) {
    problem_ = lock_file.string() + ": cannot open the sweep's lock file: " + std::strerror(errno);
  } else if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    problem_ = errno == EWOULDBLOCK ? "" : lock_file.string() + ": cannot lock it: " + std::strerror(errno);
  } else {
    held_ = true;
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace fovea
