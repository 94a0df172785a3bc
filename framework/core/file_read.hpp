#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

// Reading a user's file whole, within bounds. Every reader of fovea's (configs, experiment
// specs, study files, .vox, .sph, gaze recordings, CSV tables) goes through here, so a path
// that names a folder, a device (/dev/zero, /dev/urandom), a pipe, or a file far larger than
// its kind ever is gets one clear line instead of a read without end or an out-of-memory.
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

/// Throws FileReadError unless `path` is a regular file (symbolic links followed) of at most
/// `max_bytes`; `what` names the kind of file in the message ("config", "gaze recording"),
/// or is empty for a file of no particular kind ("path: cannot read: why").
void check_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what);

/// check_regular_file, then the whole file as bytes. Throws FileReadError.
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what);

}  // namespace fovea
