#include "core/file_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace fovea {
namespace {

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 30) && bytes % (std::uint64_t{1} << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (std::uint64_t{1} << 20) && bytes % (std::uint64_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

/// "a config", "an experiment".
std::string with_article(std::string_view what) {
  const bool vowel = !what.empty() && std::string_view("aeiou").find(what.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(what);
}

[[noreturn]] void refuse(const std::string& path, std::string_view what, const std::string& why) {
  throw FileReadError(path + ": cannot read" + (what.empty() ? "" : " the " + std::string(what)) + ": " + why);
}

/// "more than the 1 MiB a config may be".
std::string limit_text(std::uint64_t max_bytes, std::string_view what) {
  return "the " + size_text(max_bytes) + " " + (what.empty() ? "fovea reads" : with_article(what) + " may be");
}

/// Opens `path` for reading without blocking: O_NONBLOCK makes the open of a FIFO without a
/// writer return at once (a blocking one waits for a writer for ever), and of a device too.
/// Throws FileReadError, in the words the checks on the path used before.
int open_without_blocking(const std::string& path, std::string_view what) {
  int descriptor = -1;
  do {
    descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  } while (descriptor < 0 && errno == EINTR);
  if (descriptor >= 0) return descriptor;
  const int error = errno;
  if (error == ENOENT || error == ENOTDIR) refuse(path, what, "no such file");
  // A socket, or a device with no driver behind it.
  if (error == ENXIO) refuse(path, what, "not a regular file (a device, a pipe or a socket)");
  refuse(path, what, std::strerror(error));
}

}  // namespace

RegularFile::RegularFile(std::string path, std::uint64_t max_bytes, std::string_view what)
    : path_(std::move(path)), what_(what), max_bytes_(max_bytes) {
  descriptor_ = open_without_blocking(path_, what_);
  try {
    // The checks are on what was opened: a path swapped for a FIFO after the open changes
    // nothing here, and one swapped before it was opened as a FIFO, without waiting.
    struct stat status {};
    if (::fstat(descriptor_, &status) != 0) refuse(std::strerror(errno));
    if (S_ISDIR(status.st_mode)) refuse("it is a folder, not a file");
    if (!S_ISREG(status.st_mode)) refuse("not a regular file (a device, a pipe or a socket)");
    size_ = static_cast<std::uint64_t>(status.st_size);
    if (size_ > max_bytes_)
      refuse("it is " + std::to_string(size_) + " bytes, more than " + limit_text(max_bytes_, what_));
    // A regular file ignores O_NONBLOCK; cleared all the same, so reads are the plain kind.
    const int flags = ::fcntl(descriptor_, F_GETFL);
    if (flags < 0 || ::fcntl(descriptor_, F_SETFL, flags & ~O_NONBLOCK) != 0) refuse(std::strerror(errno));
  } catch (...) {
    ::close(descriptor_);
    throw;
  }
}

RegularFile::~RegularFile() { ::close(descriptor_); }

void RegularFile::refuse(const std::string& why) const { fovea::refuse(path_, what_, why); }

std::size_t RegularFile::read(char* buffer, std::size_t capacity) {
  // At most max_bytes + 1 in all, whatever the size said, so a file that grows meanwhile is
  // still bounded: the byte past the limit is the proof that it grew.
  const std::uint64_t allowed = max_bytes_ + 1 - bytes_read_;
  if (static_cast<std::uint64_t>(capacity) > allowed) capacity = static_cast<std::size_t>(allowed);
  ssize_t got = -1;
  do {
    got = ::read(descriptor_, buffer, capacity);
  } while (got < 0 && errno == EINTR);
  if (got < 0) refuse(std::strerror(errno));
  bytes_read_ += static_cast<std::uint64_t>(got);
  if (bytes_read_ > max_bytes_) refuse("it grew past " + limit_text(max_bytes_, what_));
  return static_cast<std::size_t>(got);
}

std::string RegularFile::read_all() {
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(size_));
  char chunk[65536];
  for (std::size_t got; (got = read(chunk, sizeof chunk)) > 0;) bytes.append(chunk, got);
  return bytes;
}

RegularFileBuffer::RegularFileBuffer(std::string path, std::uint64_t max_bytes, std::string_view what)
    : file_(std::move(path), max_bytes, what), buffer_(65536, '\0') {}

RegularFileBuffer::int_type RegularFileBuffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  if (error_) return traits_type::eof();
  std::size_t got = 0;
  try {
    got = file_.read(buffer_.data(), buffer_.size());
  } catch (const FileReadError& e) {
    // A streambuf that throws leaves the stream's state to the library: kept, and said by
    // RegularFileStream::throw_if_failed.
    error_ = e.what();
  }
  if (got == 0) return traits_type::eof();
  setg(buffer_.data(), buffer_.data(), buffer_.data() + got);
  return traits_type::to_int_type(*gptr());
}

RegularFileStream::RegularFileStream(std::string path, std::uint64_t max_bytes, std::string_view what)
    : RegularFileBuffer(std::move(path), max_bytes, what), std::istream(static_cast<RegularFileBuffer*>(this)) {}

void RegularFileStream::throw_if_failed() const {
  if (error()) throw FileReadError(*error());
}

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  RegularFile file(path, max_bytes, what);
  return file.read_all();
}

}  // namespace fovea
