#include "study/study_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "core/format.hpp"
#include "core/hash.hpp"

namespace fovea {

namespace {

/// An exclusion as plan_runs tries it: for each column it names, the factor whose levels
/// fill that column and which of those levels it matches. A run is then tried in one look-up
/// per column, however many texts the entry lists.
struct ExclusionTest {
  std::vector<std::pair<std::size_t, std::vector<char>>> columns;  ///< (factor, matches[level])
};

std::vector<ExclusionTest> exclusion_tests(const StudySettings& study) {
  // Table column (among the factors' columns) -> (factor, its column in that factor).
  std::vector<std::pair<std::size_t, std::size_t>> column_of;
  for (std::size_t f = 0; f < study.factors.size(); ++f)
    for (std::size_t c = 0; c < study.factors[f].columns.size(); ++c) column_of.emplace_back(f, c);
  std::vector<ExclusionTest> tests;
  for (const Exclusion& exclusion : study.exclusions) {
    ExclusionTest test;
    for (const auto& [column, texts] : exclusion.columns) {
      const auto [f, c] = column_of.at(column);
      const std::vector<FactorLevel>& levels = study.factors[f].levels;
      std::vector<char> matches(levels.size(), 0);
      for (std::size_t l = 0; l < levels.size(); ++l)
        matches[l] = std::find(texts.begin(), texts.end(), levels[l].cells[c]) != texts.end();
      test.columns.emplace_back(f, std::move(matches));
    }
    tests.push_back(std::move(test));
  }
  return tests;
}

}  // namespace

std::vector<PlannedRun> plan_runs(const StudySettings& study) {
  // The crossing's size before any of it is made: a few lines of factors can cross to more
  // runs than memory holds.
  std::uint64_t crossing = 1;
  for (const Factor& f : study.factors) {
    crossing *= std::max<std::size_t>(f.levels.size(), 1);
    if (crossing > kMaxStudyRuns)
      throw config::ConfigError(study.source + ": factors: the crossing has more than " + std::to_string(kMaxStudyRuns) +
                                " runs; split the study, or use fewer levels");
  }
  std::vector<PlannedRun> runs;
  const std::size_t factor_count = study.factors.size();
  std::vector<std::size_t> levels(factor_count, 0);
  const std::vector<ExclusionTest> tests = exclusion_tests(study);
  // An exclusion that matches no run is a mistake (two columns of one factor that never go
  // together, such as a wall budget of 1,000 tests): it would silently leave every run in.
  std::vector<std::int64_t> exclusion_hits(tests.size(), 0);
  for (bool more = factor_count > 0; more;) {
    bool excluded = false;
    for (std::size_t e = 0; e < tests.size(); ++e) {
      bool matches = true;
      for (const auto& [factor, level_matches] : tests[e].columns) {
        matches = level_matches[levels[factor]] != 0;
        if (!matches) break;
      }
      if (matches) ++exclusion_hits[e];
      excluded = excluded || matches;
    }
    if (!excluded) {
      PlannedRun run;
      run.index = static_cast<std::int64_t>(runs.size());
      run.overrides = study.sets;
      for (std::size_t f = 0; f < factor_count; ++f) {
        const FactorLevel& level = study.factors[f].levels[levels[f]];
        run.cells.insert(run.cells.end(), level.cells.begin(), level.cells.end());
        run.overrides.insert(run.overrides.end(), level.sets.begin(), level.sets.end());
      }
      runs.push_back(std::move(run));
    }
    // Next combination: the last factor varies fastest; after the last one, done.
    std::size_t f = factor_count;
    while (f > 0 && ++levels[f - 1] == study.factors[f - 1].levels.size()) levels[--f] = 0;
    more = f > 0;
  }
  for (std::size_t e = 0; e < study.exclusions.size(); ++e)
    if (exclusion_hits[e] == 0)
      throw config::ConfigError(study.exclusions[e].where + ": exclude: matches no run of the crossing");
  if (runs.empty()) throw config::ConfigError(study.source + ": exclude: every run is excluded");
  return runs;
}

std::optional<Shard> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const auto i = parse_finite_number(std::string_view(text).substr(0, slash));
  const auto n = parse_finite_number(std::string_view(text).substr(slash + 1));
  if (!i || !n || *i != static_cast<int>(*i) || *n != static_cast<int>(*n)) return std::nullopt;
  if (*n < 1 || *n > kMaxShards || *i < 0 || *i >= *n) return std::nullopt;
  return Shard{static_cast<int>(*i), static_cast<int>(*n)};
}

std::optional<Shard> slurm_shard(const char* task_id, const char* task_count, const char* task_min) {
  const bool has_id = task_id != nullptr && *task_id != '\0';
  const bool has_count = task_count != nullptr && *task_count != '\0';
  if (!has_id && !has_count) return std::nullopt;
  // A task id without the count (Slurm before 18.08): every task would run the whole study
  // into one folder.
  if (!has_count)
    throw std::invalid_argument(std::string("SLURM_ARRAY_TASK_ID=") + task_id +
                                " without SLURM_ARRAY_TASK_COUNT: give the shard as --shard $SLURM_ARRAY_TASK_ID/N");
  if (!has_id) return std::nullopt;  // a count alone is no task
  const auto id = parse_finite_number(task_id);
  const auto count = parse_finite_number(task_count);
  const auto min = task_min != nullptr && *task_min != '\0' ? parse_finite_number(task_min) : std::optional<double>(0.0);
  const std::string shown = std::string("SLURM_ARRAY_TASK_ID=") + task_id + ", SLURM_ARRAY_TASK_COUNT=" + task_count +
                            (task_min != nullptr ? std::string(", SLURM_ARRAY_TASK_MIN=") + task_min : "");
  if (!id || !count || !min || *count < 1 || *count > kMaxShards)
    throw std::invalid_argument(shown + ": not a job array's task; unset them or give --shard");
  const std::optional<Shard> shard = parse_shard(format_number(*id - *min) + "/" + format_number(*count));
  if (!shard)
    throw std::invalid_argument(shown + ": the task is not one of 0 to count - 1 from the array's first task; "
                                "use a contiguous array such as --array=0-" + format_number(*count - 1) + " (docs/studies.md)");
  return shard;
}

namespace {

/// ByteHash over texts, each ended by a separator: enough to tell plans apart, not a
/// security measure.
class Fingerprint {
 public:
  void add(const std::string& text) {
    hash_.add(text);
    hash_.add_separator();
  }
  std::string text() const {
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash_.value()));
    return out;
  }

 private:
  ByteHash hash_;
};

}  // namespace

std::string plan_fingerprint(const std::string& base_config_text, const std::vector<PlannedRun>& runs) {
  Fingerprint f;
  f.add(base_config_text);
  for (const PlannedRun& run : runs) {
    f.add(std::to_string(run.index));
    for (const std::string& cell : run.cells) f.add(cell);
    for (const config::Override& o : run.overrides) f.add(o.assignment);
  }
  return f.text();
}

std::string table_fingerprint(const StudySettings& study) {
  Fingerprint f;
  for (const std::string& column : study.table_columns()) f.add(column);
  f.add(std::to_string(study.skip_frames));
  for (const MetricSpec& m : study.metrics) {
    f.add(m.column);
    f.add(m.minus_column);
  }
  return f.text();
}

std::string run_folder_name(std::int64_t index, std::int64_t total) {
  const std::size_t width = std::max<std::size_t>(std::to_string(std::max<std::int64_t>(total - 1, 0)).size(), 4);
  std::string name = std::to_string(index);
  return std::string(width > name.size() ? width - name.size() : 0, '0') + name;
}

}  // namespace fovea
