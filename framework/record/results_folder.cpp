#include "record/results_folder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>

namespace fovea {
namespace {

std::tm to_utc(WallTime t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return utc;
}

}  // namespace

std::string utc_compact(WallTime t) {
  const std::tm utc = to_utc(t);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y%m%dT%H%M%SZ", &utc);
  return buffer;
}

std::string utc_iso8601(WallTime t) {
  const std::tm utc = to_utc(t);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &utc);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count() % 1000;
  char result[48];
  std::snprintf(result, sizeof result, "%s.%03dZ", buffer, static_cast<int>(ms));
  return result;
}

std::filesystem::path create_run_folder(const std::filesystem::path& parent, const std::string& name, WallTime t) {
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw std::runtime_error(parent.string() + ": cannot create results folder: " + ec.message());
  const std::string base = name + "-" + utc_compact(t);
  for (int n = 1; n < 1000; ++n) {
    const std::filesystem::path folder = parent / (n == 1 ? base : base + "-" + std::to_string(n));
    if (std::filesystem::create_directory(folder, ec)) return folder;
    if (ec) throw std::runtime_error(folder.string() + ": cannot create results folder: " + ec.message());
  }
  throw std::runtime_error(parent.string() + ": too many runs named " + base);
}

std::filesystem::path create_named_run_folder(const std::filesystem::path& out, const char* option) {
  std::error_code ec;
  if (std::filesystem::exists(out, ec)) {
    if (!std::filesystem::is_directory(out, ec))
      throw std::runtime_error(out.string() + ": " + option + " names a file, not a folder");
    if (!std::filesystem::is_empty(out, ec))
      throw std::runtime_error(out.string() + ": " + option +
                               " folder is not empty; choose a new folder so no results are overwritten");
    return out;
  }
  std::filesystem::create_directories(out, ec);
  if (ec) throw std::runtime_error(out.string() + ": cannot create results folder: " + ec.message());
  return out;
}

void create_folders(const std::filesystem::path& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw std::runtime_error(folder.string() + ": cannot create the folder: " + ec.message());
}

namespace {

/// Whether a new file can be made in `folder`, an existing folder: one is created under a
/// name of its own and removed. "" or the OS's reason.
std::string file_creation_problem(const std::filesystem::path& folder) {
  std::string name = (folder / ".fovea-write-probe-XXXXXX").string();
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(name.c_str());
  return "";
}

}  // namespace

std::string file_write_problem(const std::filesystem::path& path) {
  // fovea writes a file as <path>.tmp or <path>.partial beside it, renamed over it: what
  // matters is the folder, which must take a new file, and the name, which must not be a
  // folder. The file itself may be read-only, or a pipe: the rename replaces it.
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  struct stat status {};
  if (::stat(folder.c_str(), &status) != 0) return std::strerror(errno);
  if (!S_ISDIR(status.st_mode)) return std::strerror(ENOTDIR);
  if (::stat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode)) return std::strerror(EISDIR);
  return file_creation_problem(folder);
}

std::string folder_write_problem(const std::filesystem::path& folder) {
  struct stat status {};
  if (::stat(folder.c_str(), &status) == 0) {
    if (!S_ISDIR(status.st_mode)) return std::strerror(ENOTDIR);
    return file_creation_problem(folder);
  }
  if (errno != ENOENT) return std::strerror(errno);
  // Missing: the first missing folder on the way is made and removed again; the ones below
  // it can then be made too.
  std::filesystem::path first_missing = folder;
  for (std::filesystem::path above = folder.parent_path(); !above.empty() && above != first_missing;
       above = above.parent_path()) {
    if (::stat(above.c_str(), &status) == 0) break;
    if (errno != ENOENT) return std::strerror(errno);
    first_missing = above;
  }
  if (::mkdir(first_missing.c_str(), 0755) != 0) return std::strerror(errno);
  ::rmdir(first_missing.c_str());
  return "";
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  const auto cannot_write = [&](int error) { return std::runtime_error(path.string() + ": cannot write: " + std::strerror(error)); };
  std::FILE* f = std::fopen(temporary.c_str(), "wb");
  if (f == nullptr) throw cannot_write(errno);
  // A full disk fails the write or, with the text still buffered, the close; the errno of
  // the first failure is the reason.
  int error = 0;
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) error = errno;
  if (std::fclose(f) != 0 && error == 0) error = errno;
  std::error_code ec;
  if (error == 0) std::filesystem::rename(temporary, path, ec);
  if (error != 0 || ec) {
    // The temporary is this writer's own: nothing else would read it.
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw error != 0 ? cannot_write(error) : std::runtime_error(path.string() + ": cannot write: " + ec.message());
  }
}

void write_json_atomically(const std::filesystem::path& path, const nlohmann::ordered_json& json) {
  write_file_atomically(path, json.dump(2) + "\n");
}

void write_csv_atomically(const std::filesystem::path& path, const std::vector<std::string>& columns,
                          const std::function<void(CsvWriter&)>& write_rows) {
  const std::filesystem::path partial = path.string() + ".partial";
  try {
    // Closed before the rename: the writer's destructor closes the file.
    {
      CsvWriter csv(partial.string(), columns);
      write_rows(csv);
      csv.flush(true);
    }
    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec) throw std::runtime_error(path.string() + ": cannot write: " + ec.message());
  } catch (const std::runtime_error& e) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    // The writer names the file it writes, the partial one: the message names the table the
    // user asked for, which is what could not be written.
    const std::string what = e.what();
    if (what.rfind(partial.string() + ": ", 0) == 0) throw std::runtime_error(path.string() + what.substr(partial.string().size()));
    throw;
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw;
  }
}

}  // namespace fovea
