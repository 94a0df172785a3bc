#pragma once

// A study (docs/studies.md): a base config, the factors to cross, the metrics to summarise
// from each run's frames.csv, and the figures to draw from the table of runs. `fovea sweep`
// reads it; this part turns the YAML into plain data and checks it, with file:line:col
// errors, before any run starts.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.hpp"

namespace fovea {

/// One level of a factor: the table cells it writes (one per column of its factor) and the
/// config keys it sets, as `fovea run --set` would.
struct FactorLevel {
  std::vector<std::string> cells;      ///< one text per column of its factor, in Factor::columns' order
  /// shown_as: the level's place in the study file. None only for the `repeat` factor's levels.
  std::vector<config::Override> sets;
};

/// A factor: its table columns (usually one, named after the factor) and its levels. A study's
/// `repeats: N` is a factor too, crossed last: `repeat`, levels 1 to N, setting no key.
struct Factor {
  std::string name;                   ///< its key under the study file's `factors`
  std::vector<std::string> columns;   ///< the table columns its levels fill: its name, or those its levels name
  std::vector<FactorLevel> levels;    ///< in the study file's order
};

/// Runs left out of the crossing: those whose cells match every listed column (a cell
/// matches when it is one of the column's texts).
struct Exclusion {
  std::vector<std::pair<std::size_t, std::vector<std::string>>> columns;  ///< (table column, allowed texts)
  std::string where;  ///< file:line:col of the entry, for messages
};

/// The statistics a metric can ask for, over the frames of a run (docs/studies.md).
/// Percentiles are nearest-rank, as summary.json's p95: `p5`, `p99`, `p99.9`.
struct MetricStat {
  /// Which statistic, over the run's frames that have a value (empty cells left out).
  enum class Kind {
    mean,       ///< arithmetic mean
    sd,         ///< sample standard deviation (n - 1); empty with fewer than two values
    min,        ///< smallest value
    max,        ///< largest value
    sum,        ///< total over the frames
    median,     ///< middle value (mean of the two middle ones for an even count)
    count,      ///< how many frames have a value
    percentile  ///< nearest-rank percentile at `percent`
  } kind = Kind::mean;  ///< the statistic this entry asks for
  double percent = 0;  ///< for percentile, in (0, 100]
  std::string name;    ///< as written: "mean", "p99"
};

/// One metric: a frames.csv column, optionally minus another column frame by frame, and
/// the statistics of it that become the table's columns `<name>_<stat>`.
struct MetricSpec {
  std::string name;          ///< its key under `metrics.columns`: the table's columns are <name>_<stat>
  std::string column;        ///< the frames.csv column read: `name` unless the spec's `column` says otherwise
  std::string minus_column;  ///< "" for none
  std::vector<MetricStat> stats;  ///< the statistics asked for, in the order written
  std::string where;  ///< file:line:col, for messages about a column frames.csv lacks
};

/// A kind of study figure and the keys its spec takes, as experiments/plots/study_figures.py
/// draws it. The script keeps its own list; `python3 study_figures.py --keys` prints it, and a
/// test (tests/plots/figure_keys.sh) checks that it is this one.
struct FigureKind {
  std::string name;                   ///< as a figure spec's `kind` writes it: "lines", "scatter", ...
  std::vector<std::string> keys;      ///< every key a spec of this kind may have, in the order messages list them
  std::vector<std::string> required;  ///< the keys it must have
};

/// The most repeats a study may ask for (`repeats`): each is a run of every configuration.
inline constexpr int kMaxRepeats = 1000;

// The caps on a study file's lists and maps (docs/formats.md, "Lists and their caps"), each
// refused at its key before its elements are read: far above any study (configs/studies/'s
// largest has 4 factors, 10 levels and 16 metrics), and together they bound the work of
// planning each run (the exclusions tried on it, the keys it sets).
/// `factors`, `repeats` not counted.
inline constexpr std::size_t kMaxFactors = 16;
/// A factor's levels (`values`, or its list of levels).
inline constexpr std::size_t kMaxFactorLevels = 1000;
/// The columns a factor's level names (`value: {budget_mode: work, budget: 400}`).
inline constexpr std::size_t kMaxLevelColumns = 8;
/// The study's `set`: config keys set in every run.
inline constexpr std::size_t kMaxStudySetKeys = 256;
/// A level's `set`.
inline constexpr std::size_t kMaxLevelSetKeys = 64;
/// `exclude`'s entries; each entry names at most the factors' columns, each with at most
/// kMaxFactorLevels values.
inline constexpr std::size_t kMaxExclusions = 64;
/// `metrics.columns`.
inline constexpr std::size_t kMaxMetrics = 128;
/// One metric's statistics.
inline constexpr std::size_t kMaxMetricStats = 32;
/// `figures`.
inline constexpr std::size_t kMaxFigures = 64;
/// A figure's `y` and `pair` columns and `where` entries (and each `where` entry's values:
/// at most kMaxFactorLevels).
inline constexpr std::size_t kMaxFigureColumns = 64;

/// lines, distribution, scatter and ratio.
const std::vector<FigureKind>& figure_kinds();

/// A study file, read and checked (docs/studies.md): what `fovea sweep` runs and summarises.
struct StudySettings {
  std::string source;        ///< the study file as named by the user
  std::string name;          ///< folder name of its results
  std::string base_config;   ///< absolute path of the config every run starts from
  std::vector<config::Override> sets;  ///< keys set in every run, before the factors'
  std::vector<Factor> factors;         ///< crossed in this order, then `repeat`; the last varies fastest
  std::vector<Exclusion> exclusions;   ///< combinations left out of the crossing
  std::int64_t skip_frames = 0;        ///< frames dropped from the start of each run before summarising
  std::vector<MetricSpec> metrics;     ///< what each run's frames.csv is summarised into, in table order
  nlohmann::json figures = nlohmann::json::array();  ///< checked figure specs, for the plotting script

  /// The factors' columns, in table order.
  std::vector<std::string> factor_columns() const;
  /// The metrics' columns `<name>_<stat>`, in table order.
  std::vector<std::string> metric_columns() const;
  /// Every column of the table: run, the factors' columns, frames, the metrics' columns.
  std::vector<std::string> table_columns() const;
};

/// Reads and checks a study file. `extra_sets` (the sweep's --set) are applied to every run
/// after the study's own. Throws config::ConfigError ("file:line:col: key: what").
StudySettings load_study_file(const std::string& path, const std::vector<config::Override>& extra_sets = {});
/// The same from text; `source_name` names it in messages and `folder` resolves `base`.
StudySettings load_study_text(const std::string& text, const std::string& source_name, const std::string& folder,
                              const std::vector<config::Override>& extra_sets = {});

}  // namespace fovea
