#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <string_view>

// Reading a user's file, within bounds. Every reader of fovea's (configs, experiment specs,
// study files, .vox, .sph, gaze recordings, CSV tables, JSON files) goes through here, so a
// path that names a folder, a device (/dev/zero, /dev/urandom), a pipe, or a file far larger
// than its kind ever is gets one clear line instead of a read without end or an out-of-memory.
// The file is opened once, without blocking, and checked on the descriptor that was opened,
// never on the path before it: a FIFO swapped in for the file between a check and an open
// would otherwise block the open for ever (issue 42).
// docs/formats.md, "What each reader refuses", lists the limits.

namespace fovea {

/// A file that could not be read: what() is one line, "path: cannot read the <what>: why".
class FileReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The sizes, bytes, past which each kind of file is refused. Each is far beyond any real
/// file of its kind, and bounds the time and memory reading one takes:
///  - a config a person writes is a few kB, and yaml-cpp is slow: `fovea validate` of a
///    0.97 MB config takes 0.5 s (docs/formats.md);
///  - a frames.csv grows by about 35 MB an hour at 60 frames a second, so 256 MiB is over
///    seven hours; parsed, a table takes about five times its size in memory;
///  - a MagicaVoxel file holds at most kVoxMaxCells voxels of 4 bytes (512 MiB).
inline constexpr std::uint64_t kMaxConfigFileBytes = std::uint64_t{1} << 20;    ///< configs, specs, studies
inline constexpr std::uint64_t kMaxTableFileBytes = std::uint64_t{256} << 20;   ///< CSV tables, gaze recordings
inline constexpr std::uint64_t kMaxModelFileBytes = std::uint64_t{1} << 30;     ///< .vox and .sph

/// A file opened for reading by one bounded, non-blocking open: open(2) with O_NONBLOCK (so
/// a FIFO without a writer, or a device, never makes it wait), then the open descriptor
/// checked with fstat(2): a regular file (symbolic links followed) of at most `max_bytes`.
/// What is read is what was checked, whatever the path names meanwhile.
class RegularFile {
 public:
  /// Opens and checks `path`; `what` names the kind of file in messages ("config", "gaze
  /// recording"), or is empty for a file of no particular kind ("path: cannot read: why").
  /// Throws FileReadError: no such file, a folder, not a regular file, larger than max_bytes,
  /// or the system's reason (Permission denied).
  RegularFile(std::string path, std::uint64_t max_bytes, std::string_view what);
  /// Closes the descriptor.
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  /// The file's size when it was opened, bytes (at most max_bytes).
  std::uint64_t size() const { return size_; }
  /// Up to `capacity` further bytes into `buffer`: how many were read, 0 at the end of the
  /// file. Throws FileReadError when the read fails or the file has grown past max_bytes.
  std::size_t read(char* buffer, std::size_t capacity);
  /// The rest of the file, at most max_bytes in all. Throws FileReadError.
  std::string read_all();

 private:
  [[noreturn]] void refuse(const std::string& why) const;

  int descriptor_ = -1;
  std::string path_;
  std::string what_;
  std::uint64_t max_bytes_ = 0;
  std::uint64_t size_ = 0;
  std::uint64_t bytes_read_ = 0;
};

/// A RegularFile as a std::streambuf, for readers that parse as they read (.sph files, gaze
/// recordings). A failed read ends the stream early and is kept: error() names it.
class RegularFileBuffer : public std::streambuf {
 public:
  /// Opens and checks `path` as RegularFile does. Throws FileReadError.
  RegularFileBuffer(std::string path, std::uint64_t max_bytes, std::string_view what);
  /// The read that failed (FileReadError's one line: a read error, or a file grown past its
  /// limit), if one did.
  const std::optional<std::string>& error() const { return error_; }

 protected:
  /// Refills the buffer from the file; EOF at its end or on a failed read.
  int_type underflow() override;

 private:
  RegularFile file_;
  std::string buffer_;
  std::optional<std::string> error_;
};

/// An std::istream over a RegularFileBuffer: the file opened once, without blocking, checked
/// on its descriptor. After parsing, throw_if_failed() tells a stream that ended because a
/// read failed from one that reached the end of the file.
class RegularFileStream : private RegularFileBuffer, public std::istream {
 public:
  /// Opens and checks `path` as RegularFile does. Throws FileReadError.
  RegularFileStream(std::string path, std::uint64_t max_bytes, std::string_view what);
  /// Throws FileReadError when a read failed or the file grew past its limit while it was read.
  void throw_if_failed() const;
};

/// The whole file as bytes, through one RegularFile. Throws FileReadError.
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what);

}  // namespace fovea
