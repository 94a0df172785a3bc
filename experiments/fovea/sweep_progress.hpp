#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fovea {

/// A duration as a clock shows it: "2:05", or "1:02:05" from an hour on; rounded to seconds.
std::string clock_text(double seconds);

/// The sweep's progress line: "fovea sweep: 12 of 40 runs done, 1 failed, 4 running, 2:05,
/// about 6:40 left". The time left is estimated from the runs done by this process, not those
/// a resumed sweep found done.
std::string progress_line(std::int64_t done, std::int64_t total, std::int64_t done_before, std::int64_t failed,
                          std::size_t running, double elapsed_s);

}  // namespace fovea
