#include "fovea/sweep_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "config/schema.hpp"
#include "core/file_read.hpp"
#include "core/format.hpp"
#include "fovea/run_command.hpp"
#include "record/progress.hpp"
#include "study/launch_order.hpp"

namespace fovea {
namespace {

namespace fs = std::filesystem;

int default_jobs() {
  if (const char* cpus = std::getenv("SLURM_CPUS_PER_TASK")) {
    const auto n = parse_finite_number(cpus);
    if (n && *n >= 1 && *n <= 4096) return static_cast<int>(*n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

/// --shard, else Slurm's array task, else the whole study; nullopt, said on stderr, when
/// either is malformed.
std::optional<Shard> choose_shard(const SweepOptions& options) {
  if (options.shard) {
    const std::optional<Shard> given = parse_shard(*options.shard);
    if (!given)
      std::cerr << "fovea sweep: --shard " << *options.shard << ": expected i/n with 0 <= i < n, such as 0/4\n";
    return given;
  }
  try {
    if (const auto slurm = slurm_shard(std::getenv("SLURM_ARRAY_TASK_ID"), std::getenv("SLURM_ARRAY_TASK_COUNT"),
                                       std::getenv("SLURM_ARRAY_TASK_MIN")))
      return *slurm;
  } catch (const std::invalid_argument& e) {
    std::cerr << "fovea sweep: " << e.what() << "\n";
    return std::nullopt;
  }
  return Shard{};
}

std::string key_of(const config::Override& o) { return o.assignment.substr(0, o.assignment.find('=')); }

/// The first factor with a level that sets `key`, or nullptr.
const Factor* factor_setting(const StudySettings& study, const std::string& key) {
  for (const Factor& f : study.factors)
    for (const FactorLevel& level : f.levels)
      for (const config::Override& set : level.sets)
        if (key_of(set) == key) return &f;
  return nullptr;
}

bool sets_key(const std::vector<config::Override>& sets, const std::string& key) {
  return std::any_of(sets.begin(), sets.end(), [&](const config::Override& o) { return key_of(o) == key; });
}

/// A level as the --quick lines show it: its cell, or "{budget_mode: work, budget: 1000}".
std::string level_text(const Factor& f, const FactorLevel& level) {
  if (level.cells.size() == 1) return level.cells[0];
  std::string text = "{";
  for (std::size_t c = 0; c < level.cells.size(); ++c)
    text += (c == 0 ? "" : ", ") + f.columns[c] + ": " + level.cells[c];
  return text + "}";
}

/// The seeds (a level sets `seed`) or the repeats (`repeats: N`, whose levels set no key).
bool is_replication(const Factor& f) {
  if (f.name == "repeat" &&
      std::all_of(f.levels.begin(), f.levels.end(), [](const FactorLevel& l) { return l.sets.empty(); }))
    return true;
  return std::any_of(f.levels.begin(), f.levels.end(), [](const FactorLevel& l) {
    return std::any_of(l.sets.begin(), l.sets.end(), [](const config::Override& o) { return key_of(o) == "seed"; });
  });
}

/// A column whose every level's cell is a number: a count, a budget, a size.
bool has_numeric_column(const Factor& f) {
  for (std::size_t c = 0; c < f.columns.size(); ++c)
    if (std::all_of(f.levels.begin(), f.levels.end(),
                    [c](const FactorLevel& l) { return parse_finite_number(l.cells[c]).has_value(); }))
      return true;
  return false;
}

/// Whether some run of the (shrunk) crossing matches `exclusion`: for each factor it names,
/// some level left matches every column of that factor it lists (columns of different
/// factors combine freely in the crossing).
bool matches_some_run(const StudySettings& study, const Exclusion& exclusion) {
  std::vector<std::pair<std::size_t, std::size_t>> column_of;  // table column -> (factor, its column)
  for (std::size_t f = 0; f < study.factors.size(); ++f)
    for (std::size_t c = 0; c < study.factors[f].columns.size(); ++c) column_of.emplace_back(f, c);
  for (std::size_t f = 0; f < study.factors.size(); ++f) {
    const auto matches = [&](const FactorLevel& level) {
      for (const auto& [column, texts] : exclusion.columns) {
        const auto [factor, c] = column_of.at(column);
        if (factor == f && std::find(texts.begin(), texts.end(), level.cells[c]) == texts.end()) return false;
      }
      return true;
    };
    if (!std::any_of(study.factors[f].levels.begin(), study.factors[f].levels.end(), matches)) return false;
  }
  return true;
}

/// Whether a table cell is one of a figure's `where` values, as the plotting script matches
/// them (experiments/plots/study_figures.py, cell_matches): as numbers when both are, else as
/// texts.
bool cell_matches(const std::string& cell, const nlohmann::json& wanted) {
  if (wanted.is_array())
    return std::any_of(wanted.begin(), wanted.end(), [&](const nlohmann::json& w) { return cell_matches(cell, w); });
  const std::string text = wanted.is_string() ? wanted.get<std::string>() : wanted.dump();
  const std::optional<double> a = parse_finite_number(cell);
  const std::optional<double> b = parse_finite_number(text);
  return a && b ? *a == *b : cell == text;
}

/// Whether some run's cells pass the figure's `where` (a column that is not a factor's,
/// such as `frames`, is not known before the runs end, and passes).
bool figure_has_runs(const StudySettings& study, const std::vector<PlannedRun>& runs, const nlohmann::json& figure) {
  if (!figure.contains("where") || !figure["where"].is_object()) return true;
  const std::vector<std::string> columns = study.factor_columns();
  return std::any_of(runs.begin(), runs.end(), [&](const PlannedRun& run) {
    for (const auto& [column, wanted] : figure["where"].items()) {
      const auto at = std::find(columns.begin(), columns.end(), column);
      if (at != columns.end() && !cell_matches(run.cells[static_cast<std::size_t>(at - columns.begin())], wanted))
        return false;
    }
    return true;
  });
}

/// Where `key` comes from when --quick must leave it alone: "set by the factor F", "set by
/// --set", or "" when --quick may change it.
std::string fixed_by(const StudySettings& study, const std::vector<config::Override>& user_sets,
                     const std::string& key) {
  if (const Factor* f = factor_setting(study, key)) return "set by the factor " + f->name;
  if (sets_key(user_sets, key)) return "set by --set";
  return "";
}

/// quick_study's frames: `frames` to quick_frames, the warm-up and skip_frames alike.
void shrink_frames(QuickStudy& quick, const std::vector<config::Override>& user_sets) {
  StudySettings& study = quick.study;
  if (const std::string fixed = fixed_by(study, user_sets, "frames"); !fixed.empty()) {
    quick.shrunk.push_back("frames: " + fixed + ", kept");
    return;
  }
  const config::LoadedConfig loaded = config::load_config_file(study.base_config, study.sets);
  const std::int64_t frames = loaded.settings.frames;
  const std::int64_t kept = quick_frames(frames);
  if (kept == frames) {
    quick.shrunk.push_back("frames: " + std::to_string(frames) + ", short already, kept");
    return;
  }
  const auto set = [&](const std::string& key, std::int64_t value) {
    const std::string assignment = key + "=" + std::to_string(value);
    study.sets.push_back({assignment, "--quick (" + assignment + ")"});
  };
  set("frames", kept);
  std::string line = "frames: " + std::to_string(frames) + " -> " + std::to_string(kept);
  // Rounded down, so a warm-up shorter than the run stays shorter than the quick run.
  const auto scaled = [&](std::int64_t n) {
    return n <= 0 ? n
                  : std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<long double>(n) * kept / frames));
  };
  if (const std::int64_t warmup = loaded.settings.metrics.warmup_frames; warmup > 0) {
    const std::string fixed = fixed_by(study, user_sets, "metrics.warmup_frames");
    if (fixed.empty()) set("metrics.warmup_frames", scaled(warmup));
    line += "; metrics.warmup_frames: " + std::to_string(warmup) + " -> " +
            (fixed.empty() ? std::to_string(scaled(warmup)) : std::to_string(warmup) + " (" + fixed + ")");
  }
  if (study.skip_frames > 0) {
    line += "; metrics.skip_frames: " + std::to_string(study.skip_frames) + " -> " +
            std::to_string(scaled(study.skip_frames));
    study.skip_frames = scaled(study.skip_frames);
  }
  quick.shrunk.push_back(line);
}

}  // namespace

std::int64_t quick_frames(std::int64_t frames) {
  return std::min(frames, std::max(kQuickMinFrames, (frames + 9) / 10));
}

QuickStudy quick_study(const StudySettings& study, const std::vector<config::Override>& user_sets) {
  QuickStudy quick{study, {}};
  std::string whole;
  for (Factor& f : quick.study.factors) {
    const std::string before = std::to_string(f.levels.size());
    if (is_replication(f) && f.levels.size() > 1) {
      f.levels.resize(1);
      quick.shrunk.push_back(f.name + ": " + before + " levels -> 1, the first (" + level_text(f, f.levels[0]) + ")");
    } else if (!is_replication(f) && f.levels.size() > 2 && has_numeric_column(f)) {
      f.levels = {f.levels.front(), f.levels.back()};
      quick.shrunk.push_back(f.name + ": " + before + " levels -> 2, the first and last (" +
                             level_text(f, f.levels[0]) + ", " + level_text(f, f.levels[1]) + ")");
    } else {
      whole += (whole.empty() ? "" : ", ") + f.name + " (" + before + ")";
    }
  }
  if (!whole.empty()) quick.shrunk.push_back("every level kept: " + whole);
  std::vector<Exclusion>& exclusions = quick.study.exclusions;
  const std::size_t exclusions_before = exclusions.size();
  exclusions.erase(std::remove_if(exclusions.begin(), exclusions.end(),
                                  [&](const Exclusion& e) { return !matches_some_run(quick.study, e); }),
                   exclusions.end());
  if (exclusions.size() != exclusions_before)
    quick.shrunk.push_back("exclude: " + std::to_string(exclusions_before) + " entries -> " +
                           std::to_string(exclusions.size()) + " (those matching no run left)");
  // A figure of levels no run has left (`where: {entities: 500}`) would fail the plots.
  const std::vector<PlannedRun> runs = plan_runs(quick.study);
  nlohmann::json figures = nlohmann::json::array();
  std::string dropped;
  for (const nlohmann::json& figure : quick.study.figures) {
    if (figure_has_runs(quick.study, runs, figure))
      figures.push_back(figure);
    else
      dropped += (dropped.empty() ? "" : ", ") + figure.value("file", std::string("?"));
  }
  if (!dropped.empty())
    quick.shrunk.push_back("figures: " + std::to_string(quick.study.figures.size()) + " -> " +
                           std::to_string(figures.size()) + " (no run left has the `where` of " + dropped + ")");
  quick.study.figures = std::move(figures);
  shrink_frames(quick, user_sets);
  return quick;
}

std::string describe_run(const StudySettings& study, const PlannedRun& run) {
  const std::vector<std::string> columns = study.factor_columns();
  std::string text = "run " + std::to_string(run.index) + " (";
  for (std::size_t c = 0; c < columns.size(); ++c) text += (c == 0 ? "" : ", ") + columns[c] + "=" + run.cells[c];
  return text + ")";
}

std::string expected_run_config(const SweepPlan& plan, const RunJob& job) {
  return config::resolved_yaml(config::load_config_file(plan.study.base_config, job.run.overrides).settings);
}

std::optional<SweepPlan> plan_sweep(const SweepOptions& options) {
  SweepPlan plan;
  std::string base_text;
  try {
    plan.study = load_study_file(options.study_path, options.overrides);
    plan.runs = plan_runs(plan.study);
    if (options.quick) {
      // The whole study is planned first: a quick look also checks the study it previews.
      const std::size_t full_runs = plan.runs.size();
      QuickStudy quick = quick_study(plan.study, options.overrides);
      plan.study = std::move(quick.study);
      plan.runs = plan_runs(plan.study);
      if (!options.quiet) {
        std::cerr << "fovea sweep: --quick: " << full_runs << " runs -> " << plan.runs.size() << "\n";
        for (const std::string& line : quick.shrunk) std::cerr << "  " << line << "\n";
      }
    }
    // Under a config's limit, and named as one: the runs read the same file as their config.
    base_text = read_regular_file(plan.study.base_config, kMaxConfigFileBytes, "config");
  } catch (const std::exception& e) {
    std::cerr << "fovea sweep: " << e.what() << "\n";
    return std::nullopt;
  }
  const std::optional<Shard> shard = choose_shard(options);
  if (!shard) return std::nullopt;
  plan.shard = *shard;
  plan.jobs = options.jobs > 0 ? options.jobs : default_jobs();
  plan.fingerprint = plan_fingerprint(base_text, plan.runs);
  // A shard writes a folder of its own inside the study's, with --out too: the tasks of a
  // Slurm array share one command line, and so one --out.
  plan.out = options.out              ? fs::path(*options.out)
             : options.quick ? fs::path("results") / "studies" / (plan.study.name + "-quick")
                             : fs::path("results") / "studies" / plan.study.name;
  if (!plan.shard.whole())
    plan.out /= "shard-" + std::to_string(plan.shard.index) + "-of-" + std::to_string(plan.shard.count);
  return plan;
}

bool measures_time(const Settings& settings) {
  if (settings.budget.mode == BudgetMode::wall) return true;
  // Evaluated budgets run only when a scheduler is evaluated; none listed means the run's own.
  return settings.evaluate.enabled() &&
         std::any_of(settings.evaluate.budgets.begin(), settings.evaluate.budgets.end(),
                     [](const BudgetSettings& b) { return b.mode == BudgetMode::wall; });
}

bool check_run_configs(SweepPlan& plan, bool quiet) {
  // Each config is loaded and checked as `fovea run` would, about a millisecond a run: a
  // study that takes more than a second says how far it has got (a small one says nothing).
  const std::int64_t shard_total = std::max<std::int64_t>(
      0, (static_cast<std::int64_t>(plan.runs.size()) - plan.shard.index + plan.shard.count - 1) / plan.shard.count);
  Progress progress(shard_total, !quiet,
                    Progress::stderr_is_terminal() ? Progress::Output::redrawn : Progress::Output::logged);
  std::int64_t checked = 0;
  for (const PlannedRun& run : plan.runs) {
    if (!plan.shard.contains(run.index)) continue;
    if (progress.elapsed_s() >= 1.0)
      progress.update(checked, "fovea sweep: checking the runs' configs: " + std::to_string(checked) + " of " +
                                   std::to_string(shard_total));
    ++checked;
    try {
      const config::LoadedConfig loaded = config::load_config_file(plan.study.base_config, run.overrides);
      // What a run writes back is checked on the shard's first run only (a base config or a
      // set too long to write back is every run's), as writing it costs more than the rest of
      // the check; a run whose own keys make it too long is refused by its `fovea run`.
      std::string refusal = run_refusal(loaded);
      if (refusal.empty() && checked == 1) refusal = config::written_back_problem(loaded);
      if (!refusal.empty()) {
        progress.finish();
        std::cerr << "fovea sweep: " << describe_run(plan.study, run) << ": " << refusal << "\n";
        return false;
      }
      plan.shard_runs.push_back({run, measures_time(loaded.settings), loaded.settings.metrics.warmup_frames});
    } catch (const config::ConfigError& e) {
      progress.finish();
      std::cerr << "fovea sweep: " << describe_run(plan.study, run) << ": " << e.what() << "\n";
      return false;
    }
  }
  progress.finish();
  if (plan.shard_runs.empty()) {
    std::cerr << "fovea sweep: shard " << plan.shard.index << "/" << plan.shard.count << " holds no run: the study has "
              << plan.runs.size() << " runs\n";
    return false;
  }
  // The timed runs in the study's shuffled order, restricted to this shard.
  std::vector<std::int64_t> timed_runs;
  for (const RunJob& job : plan.shard_runs)
    if (job.timed) timed_runs.push_back(job.run.index);
  timed_runs = shuffled_launch_order(std::move(timed_runs), static_cast<std::int64_t>(plan.runs.size()),
                                     launch_order_seed(plan.fingerprint));
  // shard_runs holds the shard's runs in run order: each index's place by binary search.
  for (const std::int64_t index : timed_runs)
    plan.timed_order.push_back(static_cast<std::size_t>(
        std::lower_bound(plan.shard_runs.begin(), plan.shard_runs.end(), index,
                         [](const RunJob& job, std::int64_t i) { return job.run.index < i; }) -
        plan.shard_runs.begin()));
  return true;
}

}  // namespace fovea
