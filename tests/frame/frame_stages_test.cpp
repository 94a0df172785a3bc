// The frame as a list of named stages (frame/frame_stages.hpp): which stages a plan holds
// for which settings, their order, the plan a world keeps through live changes, what
// --explain-frame prints, and docs/architecture.md's table of them. That the stages do what
// the frame did before they were named is the stored hashes' business (tests/run/run_test.cpp).

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frame/animation.hpp"
#include "frame/frame_stages.hpp"

using namespace fovea;

namespace {

/// Every combination of the plan's six inputs.
std::vector<FramePlanInputs> all_inputs() {
  std::vector<FramePlanInputs> all;
  for (int bits = 0; bits < 64; ++bits)
    all.push_back({(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0, (bits & 16) != 0,
                   (bits & 32) != 0});
  return all;
}

std::string describe(const FramePlanInputs& in) {
  std::ostringstream out;
  out << "evaluation " << in.evaluation << ", uses_priority " << in.uses_priority << ", uses_true_priority "
      << in.uses_true_priority << ", remembers " << in.remembers << ", occlusion " << in.occlusion
      << ", fast_priorities " << in.fast_priorities;
  return out.str();
}

/// Where `stage` stands in `plan`, or -1.
int at(const std::vector<Stage>& plan, Stage stage) {
  const auto it = std::find(plan.begin(), plan.end(), stage);
  return it == plan.end() ? -1 : static_cast<int>(it - plan.begin());
}

bool has(const std::vector<Stage>& plan, Stage stage) { return at(plan, stage) >= 0; }

}  // namespace

TEST_CASE("Frame stages: the table holds every stage once, in Stage order, each with a name and a job",
          "[frame][stages]") {
  const std::span<const StageInfo> table = stage_table();
  REQUIRE(table.size() == static_cast<std::size_t>(kStageCount));
  std::vector<std::string_view> names;
  for (int i = 0; i < kStageCount; ++i) {
    const StageInfo& info = table[static_cast<std::size_t>(i)];
    INFO(info.name);
    CHECK_FALSE(info.name.empty());
    CHECK_FALSE(info.what.empty());
    CHECK(info.run != nullptr);
    CHECK(info.writes != 0);  // a stage that changes nothing has no place in the frame
    names.push_back(info.name);
  }
  std::sort(names.begin(), names.end());
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
}

TEST_CASE("Frame stages: a plan holds the stages its inputs ask for, each once", "[frame][stages]") {
  for (const FramePlanInputs& in : all_inputs()) {
    INFO(describe(in));
    const std::vector<Stage> plan = plan_frame(in);
    for (int s = 0; s < kStageCount; ++s)
      CHECK(std::count(plan.begin(), plan.end(), static_cast<Stage>(s)) <= 1);
    for (const Stage always : {Stage::gaze, Stage::integrate, Stage::boxes, Stage::sweep_and_prune, Stage::sync,
                               Stage::restart_descents, Stage::start_budget, Stage::schedule, Stage::interrupt,
                               Stage::response, Stage::place_at_end, Stage::measure, Stage::tree_growth})
      CHECK(has(plan, always));
    CHECK(has(plan, Stage::evaluate) == in.evaluation);
    CHECK(has(plan, Stage::true_priorities) == in.uses_true_priority);
    // Priorities are set before the descent for a scheduler that reads them, and placements
    // after it for the records otherwise, or when the order read only fast priorities.
    CHECK(has(plan, Stage::prioritise) == in.uses_priority);
    CHECK(has(plan, Stage::prioritise_for_records) == (!in.uses_priority || in.fast_priorities));
    CHECK(has(plan, Stage::remember) == in.remembers);
    CHECK(has(plan, Stage::keep_memory) == in.remembers);
    CHECK(has(plan, Stage::occluders) == in.occlusion);
  }
}

TEST_CASE("Frame stages: in every plan, what a stage reads of this frame's data an earlier stage wrote",
          "[frame]") {
  // The table's reads and writes against plan_frame's order, so the order the header
  // promises is derived from the columns, not listed by hand. Carried from the last frame
  // (states, corrections, entities, models, collisions, memory) need no writer this frame.
  // A row reads the most any configuration reads: the schedule row priorities only where the
  // scheduler uses them and true priorities only for the oracle, the metrics occluders only
  // with occlusion.
  const FrameData this_frame = FrameDatum::gaze | FrameDatum::boxes | FrameDatum::pairs | FrameDatum::priorities |
                               FrameDatum::true_priorities | FrameDatum::budget | FrameDatum::occluders |
                               FrameDatum::evaluation | FrameDatum::contacts | FrameDatum::metrics;
  int checked = 0;
  for (const FramePlanInputs& in : all_inputs()) {
    FrameData written = 0;
    for (const Stage stage : plan_frame(in)) {
      const StageInfo& info = stage_info(stage);
      FrameData needed = info.reads & this_frame;
      // Occluders exist only with metrics.visibility: occlusion; the metrics read them there.
      if (!in.occlusion) needed &= ~static_cast<FrameData>(FrameDatum::occluders);
      if (stage == Stage::schedule) {
        if (!in.uses_priority) needed &= ~static_cast<FrameData>(FrameDatum::priorities);
        if (!in.uses_true_priority) needed &= ~static_cast<FrameData>(FrameDatum::true_priorities);
      }
      INFO(info.name << " in the plan of evaluation " << in.evaluation << ", priority " << in.uses_priority
                     << ", true priority " << in.uses_true_priority << ", remembers " << in.remembers
                     << ", occlusion " << in.occlusion << " reads " << frame_data_names(needed & ~written)
                     << " that no earlier stage writes");
      CHECK((needed & ~written) == 0);
      written |= info.writes;
      ++checked;
    }
  }
  CHECK(checked > 300);
}

TEST_CASE("Frame stages: a plan's order puts each stage after what it needs", "[frame][stages]") {
  for (const FramePlanInputs& in : all_inputs()) {
    INFO(describe(in));
    const std::vector<Stage> p = plan_frame(in);
    CHECK(p.front() == Stage::gaze);
    CHECK(p.back() == Stage::tree_growth);
    // The world moves, then its boxes, then the pairs, then the collisions of those pairs.
    CHECK(at(p, Stage::integrate) < at(p, Stage::boxes));
    CHECK(at(p, Stage::boxes) < at(p, Stage::sweep_and_prune));
    CHECK(at(p, Stage::sweep_and_prune) < at(p, Stage::sync));
    CHECK(at(p, Stage::sync) < at(p, Stage::restart_descents));
    CHECK(at(p, Stage::restart_descents) < at(p, Stage::schedule));
    CHECK(at(p, Stage::start_budget) < at(p, Stage::schedule));
    CHECK(at(p, Stage::schedule) < at(p, Stage::interrupt));
    CHECK(at(p, Stage::interrupt) < at(p, Stage::response));
    CHECK(at(p, Stage::response) < at(p, Stage::place_at_end));
    CHECK(at(p, Stage::place_at_end) < at(p, Stage::measure));
    if (in.evaluation) {
      // On this frame's collisions, before the driver's descents restart them, outside the
      // driver's budget.
      CHECK(at(p, Stage::sync) < at(p, Stage::evaluate));
      CHECK(at(p, Stage::evaluate) < at(p, Stage::restart_descents));
      CHECK(at(p, Stage::evaluate) < at(p, Stage::start_budget));
    }
    if (in.uses_true_priority) {
      // The oracle's truth is outside the budget, on restarted descents.
      CHECK(at(p, Stage::restart_descents) < at(p, Stage::true_priorities));
      CHECK(at(p, Stage::true_priorities) < at(p, Stage::start_budget));
    } else {
      // A scheduler pays for restarting the descents, and for syncing where no evaluation
      // synced before the budget started.
      CHECK(at(p, Stage::start_budget) < at(p, Stage::restart_descents));
      if (!in.evaluation) CHECK(at(p, Stage::start_budget) < at(p, Stage::sync));
    }
    if (in.uses_priority) {
      CHECK(at(p, Stage::start_budget) < at(p, Stage::prioritise));
      CHECK(at(p, Stage::restart_descents) < at(p, Stage::prioritise));
      CHECK(at(p, Stage::prioritise) < at(p, Stage::schedule));
    } else {
      CHECK(at(p, Stage::response) < at(p, Stage::prioritise_for_records));
      CHECK(at(p, Stage::prioritise_for_records) < at(p, Stage::place_at_end));
    }
    if (in.remembers) {
      // Remembered before the response finishes descents for its contacts; last frame's
      // memory kept until the records have read it.
      CHECK(at(p, Stage::interrupt) < at(p, Stage::remember));
      CHECK(at(p, Stage::remember) < at(p, Stage::response));
      CHECK(at(p, Stage::measure) < at(p, Stage::keep_memory));
    }
    if (in.occlusion) {
      CHECK(at(p, Stage::sync) < at(p, Stage::occluders));
      CHECK(at(p, Stage::occluders) < at(p, in.evaluation ? Stage::evaluate : Stage::measure));
    }
  }
}

TEST_CASE("Frame stages: a world plans from its settings and plans again when its scheduler changes",
          "[frame][stages]") {
  AnimationSettings s;
  EntityGroupSettings balls;
  balls.count = 20;
  s.world.entities = {balls};
  s.schedule.kind = SchedulerKind::round_robin;
  Animation world(s, 1);
  std::vector<Stage> plan(world.frame_plan().begin(), world.frame_plan().end());
  CHECK(plan == plan_frame(frame_plan_inputs(s)));
  CHECK_FALSE(has(plan, Stage::prioritise));  // round robin does not read priorities
  CHECK(has(plan, Stage::prioritise_for_records));

  ScheduleSettings sorted = s.schedule;
  sorted.kind = SchedulerKind::sorted_sequential;
  world.set_schedule(sorted);
  plan.assign(world.frame_plan().begin(), world.frame_plan().end());
  CHECK(has(plan, Stage::prioritise));
  CHECK_FALSE(has(plan, Stage::prioritise_for_records));

  // Refined priorities read last frame's descents: the memory stages come in.
  sorted.priorities = PriorityGap::refined;
  world.set_schedule(sorted);
  plan.assign(world.frame_plan().begin(), world.frame_plan().end());
  CHECK(has(plan, Stage::remember));
  CHECK(has(plan, Stage::keep_memory));
  world.step();  // and the frame runs on it
  CHECK(world.frames_done() == 1);
}

TEST_CASE("Frame stages: explain_frame prints every stage of a plan in order, with its time column",
          "[frame][stages]") {
  FramePlanInputs in;
  in.evaluation = true;
  in.uses_priority = true;
  in.occlusion = true;
  const std::vector<Stage> plan = plan_frame(in);
  const std::string text = explain_frame(plan);
  std::size_t from = 0;
  for (std::size_t n = 0; n < plan.size(); ++n) {
    const StageInfo& info = stage_info(plan[n]);
    const std::string head = std::to_string(n + 1) + ". " + std::string(info.name) + "  [";
    const std::size_t found = text.find(head, from);
    INFO(head);
    REQUIRE(found != std::string::npos);
    CHECK(text.find(std::string(info.what), found) != std::string::npos);
    from = found + head.size();
  }
  CHECK(text.find("evaluate  [evaluation_ms, on the threads]") != std::string::npos);
  CHECK(text.find("reads boxes; writes pairs, stats") != std::string::npos);
}

TEST_CASE("Frame stages: docs/architecture.md's table of stages is the stage table", "[frame][stages]") {
  // The rows of the table under "## One frame": | `name` | column | threads | reads | writes | what |
  std::ifstream in(std::filesystem::path(FOVEA_SOURCE_DIR) / "docs" / "architecture.md");
  REQUIRE(in);
  std::vector<std::vector<std::string>> rows;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## One frame";
    if (!in_section || line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream cut(line.substr(1));
    for (std::string cell; std::getline(cut, cell, '|');) {
      const auto first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    }
    rows.push_back(cells);
  }
  REQUIRE(rows.size() == static_cast<std::size_t>(kStageCount));
  for (int i = 0; i < kStageCount; ++i) {
    const StageInfo& info = stage_table()[static_cast<std::size_t>(i)];
    const std::vector<std::string>& row = rows[static_cast<std::size_t>(i)];
    INFO(info.name);
    REQUIRE(row.size() >= 6);
    CHECK(row[0] == "`" + std::string(info.name) + "`");
    const std::string text = explain_frame(std::vector<Stage>{info.stage});
    const std::string column = text.substr(text.find('[') + 1, text.find_first_of(",]") - text.find('[') - 1);
    CHECK(row[1] == column);
    CHECK(row[2] == (info.splits_over_pool ? "yes" : ""));
    CHECK(row[3] == frame_data_names(info.reads));
    CHECK(row[4] == frame_data_names(info.writes));
  }
}
