#pragma once

// The order `fovea sweep` launches a study's timed runs in (docs/studies.md, "Timed runs"):
// a seeded shuffle, not the plan's order, so a drift of the machine's load over the sitting
// is spread over every factor's levels instead of following the one that varies slowest.
// One shuffle of every run of the study, seeded by its fingerprint: any share of the runs (a
// shard's timed runs) launches in the order that one shuffle gives them, the same on every
// machine and in every invocation, so a resumed sweep goes on in the order it began.

#include <cstdint>
#include <string>
#include <vector>

namespace fovea {

/// The seed of a study's launch order: its plan fingerprint (plan_fingerprint, 16 hex
/// digits) read as the number it spells, so the order is fixed by what the runs are.
/// Throws std::invalid_argument for a text that is not 1 to 16 hex digits.
std::uint64_t launch_order_seed(const std::string& plan_fingerprint);

/// `runs` (run indices of a study of `run_count` runs, each in [0, run_count), none twice)
/// in the order one shuffle of all `run_count` runs puts them: Fisher-Yates on the
/// RngStream::launch_order stream of `seed` (core/rng.hpp). The restriction of a uniform
/// shuffle to any subset is a uniform shuffle of that subset. Throws std::invalid_argument
/// for a run outside [0, run_count).
std::vector<std::int64_t> shuffled_launch_order(std::vector<std::int64_t> runs, std::int64_t run_count,
                                                std::uint64_t seed);

}  // namespace fovea
