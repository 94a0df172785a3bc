#include "schedule/scheduler.hpp"

#include <stdexcept>

namespace fovea {

const SchedulerKindInfo& scheduler_kind_info(SchedulerKind kind) {
  const SchedulerKindInfo* row = find_kind(kSchedulerKinds, kind);
  if (row == nullptr) throw std::invalid_argument("schedule: unknown scheduler");
  return *row;
}

bool Scheduler::uses_priority() const { return scheduler_kind_info(kind_).uses_priority; }
bool Scheduler::uses_true_priority() const { return scheduler_kind_info(kind_).uses_true_priority; }

const char* scheduler_name(SchedulerKind kind) { return kind_name(kSchedulerKinds, kind); }

std::string check_schedule_settings(const ScheduleSettings& settings) {
  if (settings.queues < 1) return "needs at least one queue";
  if (settings.band_edges.size() != static_cast<std::size_t>(settings.queues) - 1)
    return std::to_string(settings.queues) + " queues need " + std::to_string(settings.queues - 1) +
           " band edges, found " + std::to_string(settings.band_edges.size());
  for (std::size_t i = 0; i < settings.band_edges.size(); ++i) {
    const double e = settings.band_edges[i];
    if (!(e >= 0 && e <= 1)) return "band edges are priorities, in [0, 1]; found " + std::to_string(e);
    if (i > 0 && !(e < settings.band_edges[i - 1]))
      return "band edges must decrease strictly (queue 0 takes the highest priorities)";
  }
  return "";
}

std::unique_ptr<Scheduler> make_scheduler(const ScheduleSettings& settings, std::uint64_t seed) {
  return scheduler_kind_info(settings.kind).make(settings, seed);
}

}  // namespace fovea
