#pragma once

// The rules of docs/architecture.md's section "The layers", checked on a tree: plain data in
// (a repository root, the build's targets), the list of what breaks them out. Empty is a tree
// that keeps its layering.
//
// - A part includes only files of its own part and of parts at lower layers: every `#include`
//   of every file a part holds, whatever its ending (.inl, .ipp, .in, .cmake...), written with
//   quotes or angle brackets, is resolved to the file it names as the compiler would (quotes
//   first from the including file's folder, then the include directories) and judged by the
//   part of that file. An include that names no file of the repository is external.
// - The simulation core includes, of what is external, the standard library and glm/ only,
//   and of the platform's C library the three headers of opening and reading a file without
//   blocking (core/file_read.cpp: <fcntl.h>, <sys/stat.h>, <unistd.h>).
// - Every folder of framework/ is a part of the table, and every row names a folder that exists.
// - What each part's targets link is exactly its row's links column; a row links only parts
//   below it, and the core only the core, GLM and threads.

#include <filesystem>
#include <string>
#include <vector>

#include "architecture/build_targets.hpp"
#include "architecture/layer_table.hpp"
#include "architecture/violation.hpp"

namespace fovea::architecture {

/// Every rule, on the tree at `root` (its docs/architecture.md, framework/ and the other parts'
/// folders), with `targets` the build's (read_build_targets).
std::vector<Violation> check_layering(const std::filesystem::path& root, const std::vector<BuildTarget>& targets);

/// The table's own truth: every folder of framework/ is a row, every row's folder exists, every
/// word of a links column is a part below the row or a library of the table, and the core's rows
/// name only the core, GLM and threads.
std::vector<Violation> check_table(const std::filesystem::path& root, const LayerTable& table);

/// Every `#include` of every file the parts hold, resolved under `root` with `include_dirs`
/// (from the root, searched in order after the including file's folder for quoted includes).
std::vector<Violation> check_includes(const std::filesystem::path& root, const LayerTable& table,
                                      const std::vector<std::filesystem::path>& include_dirs);

/// What the targets link against the links columns. A target belongs to the part holding its
/// sources; targets whose sources no part holds (tests, fuzzers) are not judged.
std::vector<Violation> check_links(const LayerTable& table, const std::vector<BuildTarget>& targets);

/// Whether `header`, as written between the quotes or brackets, is a header of the C++
/// standard library: "vector", "cstdint".
bool is_standard_header(const std::string& header);

/// Whether `header` is one of the platform's (POSIX) headers the simulation core may include
/// besides the standard library's: those of one bounded, non-blocking open of a file, which
/// the standard library cannot make (open with O_NONBLOCK, fstat, read): "fcntl.h",
/// "sys/stat.h", "unistd.h". Sockets, threads, signals and the rest of POSIX stay out.
bool is_core_platform_header(const std::string& header);

}  // namespace fovea::architecture
