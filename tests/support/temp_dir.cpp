#include "support/temp_dir.hpp"

#include <stdlib.h>

#include <stdexcept>
#include <string>

namespace fovea::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "fovea-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> stray_temporaries(const std::filesystem::path& folder) {
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder, error)) {
    const std::string extension = entry.path().extension().string();
    if (extension == ".tmp" || extension == ".partial")
      found.push_back(std::filesystem::relative(entry.path(), folder).string());
  }
  return found;
}

}  // namespace fovea::test
