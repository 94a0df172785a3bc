#pragma once

#include <cstdint>
#include <memory>

#include "schedule/scheduler.hpp"

namespace fovea {

/// A collision's key in a sequential-by-key order, highest first: its priority, its true
/// priority, its nearness to the fixation, a random draw.
using CollisionKey = double (*)(const Collision& c, const ScheduleContext& context, std::uint64_t seed);

/// A scheduler of `kind` that sorts the active collisions by `key` each frame, highest
/// first, ties in list order, and takes each to the end in turn (004 section 3.4.3's sorted
/// sequential; the baselines of the schedulers study differ from it only in the key). `seed`
/// is handed to the key.
std::unique_ptr<Scheduler> make_sequential_by_key(SchedulerKind kind, CollisionKey key, std::uint64_t seed);

}  // namespace fovea
