#include "study/study_settings.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <yaml-cpp/yaml.h>

#include "config/schema.hpp"
#include "core/file_read.hpp"
#include "core/folder_name.hpp"
#include "core/format.hpp"

namespace fovea {
namespace {

namespace fs = std::filesystem;
using config::ConfigError;

/// "; did you mean 'x'?" when `word` is a likely typo of one of `candidates`, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string near = config::closest(word, candidates);
  return near.empty() ? "" : "; did you mean '" + near + "'?";
}

/// Messages point into the study file: "file:line:col: key: what".
class StudyParser {
 public:
  explicit StudyParser(std::string source) : source_(std::move(source)) {}

  std::string where(const YAML::Mark& mark) const {
    if (mark.is_null()) return source_;
    return source_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }
  /// `node` may be missing (yaml-cpp's undefined node for an absent key): `fallback` then.
  [[noreturn]] void fail(const YAML::Node& node, const YAML::Mark& fallback, const std::string& key,
                         const std::string& message) const {
    const YAML::Mark mark = node.IsDefined() ? config::mark_of(node, fallback) : fallback;
    throw ConfigError(where(mark) + ": " + (key.empty() ? "" : key + ": ") + message);
  }

  /// A mapping's keys must be among `allowed`; the first that is not gets a "did you mean".
  void check_keys(const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed) const {
    for (const auto& entry : map) {
      const std::string key = entry.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string hint = did_you_mean(key, allowed);
      if (hint.empty()) {
        hint = "; expected one of ";
        for (std::size_t i = 0; i < allowed.size(); ++i) hint += (i == 0 ? "" : ", ") + allowed[i];
      }
      fail(entry.first, entry.first.Mark(), path.empty() ? key : path + "." + key, "unknown key" + hint);
    }
  }

  /// A list's or a map's cap (study_settings.hpp), checked before its elements are read:
  /// "expected at most N <what>, found M", as the config schema says it.
  void check_count(const YAML::Node& node, const YAML::Mark& fallback, const std::string& key, std::size_t max,
                   const std::string& what) const {
    if ((node.IsSequence() || node.IsMap()) && node.size() > max)
      fail(node, fallback, key, "expected at most " + std::to_string(max) + " " + what + ", found " +
                                    std::to_string(node.size()));
  }

  std::string name(const YAML::Node& node, const YAML::Mark& fallback, const std::string& key) const {
    if (!node.IsDefined()) fail(node, fallback, key, "missing: expected a name (letters, digits, - _ .)");
    if (!node.IsScalar() || !config::is_valid_name(node.Scalar()))
      fail(node, fallback, key, "expected a name (letters, digits, - _ .), found " + config::found_text(node));
    return node.Scalar();
  }

  std::string source_;
};

/// A value as --set takes it: the YAML text of the node, a flow list for lists.
std::string yaml_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

/// A YAML value as JSON, for the figure specs the plotting script reads: numbers and
/// booleans by their YAML spelling, everything else as strings.
nlohmann::json to_json(const YAML::Node& node) {
  if (node.IsSequence()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& item : node) list.push_back(to_json(item));
    return list;
  }
  if (node.IsMap()) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& entry : node) object[entry.first.Scalar()] = to_json(entry.second);
    return object;
  }
  if (!node.IsScalar()) return nullptr;
  const std::string& text = node.Scalar();
  if (node.Tag() != "!") {  // not quoted: a number or a boolean may be meant
    if (text == "true") return true;
    if (text == "false") return false;
    if (const auto number = parse_finite_number(text)) return *number;
  }
  return text;
}

/// `sets` of a level or of the study: a mapping of config keys to values.
void parse_sets(const StudyParser& p, const YAML::Node& map, const YAML::Mark& fallback, const std::string& path,
                std::size_t max_keys, std::vector<config::Override>& out) {
  if (!map.IsDefined() || map.IsNull()) return;
  if (!map.IsMap()) p.fail(map, fallback, path, "expected a map of config keys to values, found " + config::found_text(map));
  p.check_count(map, fallback, path, max_keys, "config keys");
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    if (key.empty() || key.find('=') != std::string::npos)
      p.fail(entry.first, entry.first.Mark(), path, "expected a config key such as schedule.kind, found '" + key + "'");
    out.push_back({key + "=" + yaml_text(entry.second), p.where(entry.first.Mark())});
  }
}

Factor parse_factor(const StudyParser& p, const std::string& name, const YAML::Node& node, const YAML::Mark& mark) {
  const std::string path = "factors." + name;
  Factor factor;
  factor.name = name;
  if (node.IsMap()) {
    // The short form: one config key, a list of values.
    p.check_keys(node, path, {"key", "values"});
    const YAML::Node key = node["key"];
    const YAML::Node values = node["values"];
    if (!key || !key.IsScalar() || key.Scalar().empty())
      p.fail(key ? key : node, mark, path + ".key", "expected the config key this factor sets, such as schedule.kind");
    if (!values || !values.IsSequence() || values.size() == 0)
      p.fail(values ? values : node, mark, path + ".values", "expected a list of one or more values");
    p.check_count(values, mark, path + ".values", kMaxFactorLevels, "values");
    factor.columns = {name};
    for (const auto& value : values) {
      if (!value.IsScalar() && !value.IsSequence())
        p.fail(value, values.Mark(), path + ".values", "expected a value or a list, found " + config::found_text(value));
      factor.levels.push_back({{yaml_text(value)}, {{key.Scalar() + "=" + yaml_text(value), p.where(value.Mark())}}});
    }
    return factor;
  }
  if (!node.IsSequence() || node.size() == 0)
    p.fail(node, mark, path,
           "expected {key: ..., values: [...]} or a list of levels {value: ..., set: {...}}, found " + config::found_text(node));
  p.check_count(node, mark, path, kMaxFactorLevels, "levels");
  // The long form: levels, each with its table value(s) and the keys it sets.
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node level = node[i];
    const std::string level_path = path + "[" + std::to_string(i) + "]";
    if (!level.IsMap()) p.fail(level, node.Mark(), level_path, "expected {value: ..., set: {...}}, found " + config::found_text(level));
    p.check_keys(level, level_path, {"value", "set"});
    const YAML::Node value = level["value"];
    if (!value) p.fail(level, node.Mark(), level_path + ".value", "missing: the level's value in the table");
    std::vector<std::string> columns;
    FactorLevel out;
    if (value.IsMap()) {
      // Several columns, such as budget_mode and budget.
      p.check_count(value, level.Mark(), level_path + ".value", kMaxLevelColumns, "columns");
      for (const auto& cell : value) {
        columns.push_back(p.name(cell.first, value.Mark(), level_path + ".value"));
        if (!cell.second.IsScalar())
          p.fail(cell.second, cell.first.Mark(), level_path + ".value." + columns.back(),
                 "expected a value, found " + config::found_text(cell.second));
        out.cells.push_back(cell.second.Scalar());
      }
      if (columns.empty()) p.fail(value, level.Mark(), level_path + ".value", "expected at least one column");
    } else if (value.IsScalar() || value.IsSequence()) {
      columns = {name};
      out.cells.push_back(yaml_text(value));
    } else {
      p.fail(value, level.Mark(), level_path + ".value", "expected a value, found " + config::found_text(value));
    }
    if (i == 0) {
      factor.columns = columns;
    } else if (columns != factor.columns) {
      p.fail(value, level.Mark(), level_path + ".value",
             "every level of a factor names the same columns, in the same order, as its first level");
    }
    parse_sets(p, level["set"], level.Mark(), level_path + ".set", kMaxLevelSetKeys, out.sets);
    if (out.sets.empty()) p.fail(level, node.Mark(), level_path + ".set", "a level sets at least one config key");
    factor.levels.push_back(std::move(out));
  }
  return factor;
}

/// `repeats: N`: the factor `repeat`, levels 1 to N, each setting no key, so every
/// configuration runs N times (docs/studies.md, "Timed runs"). `columns`: the table's so far.
Factor parse_repeats(const StudyParser& p, const YAML::Node& node, const std::set<std::string>& columns) {
  const auto value = node.IsScalar() ? parse_finite_number(node.Scalar()) : std::nullopt;
  if (!value || *value < 1 || *value > kMaxRepeats || *value != std::floor(*value))
    p.fail(node, node.Mark(), "repeats",
           "expected a whole number from 1 to " + std::to_string(kMaxRepeats) + ", found " + config::found_text(node));
  if (columns.contains("repeat"))
    p.fail(node, node.Mark(), "repeats",
           "the column 'repeat' it adds is already a factor's column; drop that factor or `repeats`");
  Factor factor;
  factor.name = "repeat";
  factor.columns = {"repeat"};
  for (int r = 1; r <= static_cast<int>(*value); ++r) factor.levels.push_back({{std::to_string(r)}, {}});
  return factor;
}

MetricStat parse_stat(const StudyParser& p, const YAML::Node& node, const YAML::Mark& mark, const std::string& path) {
  static const std::vector<std::pair<std::string, MetricStat::Kind>> kNames = {
      {"mean", MetricStat::Kind::mean}, {"sd", MetricStat::Kind::sd},         {"min", MetricStat::Kind::min},
      {"max", MetricStat::Kind::max},   {"sum", MetricStat::Kind::sum},       {"median", MetricStat::Kind::median},
      {"count", MetricStat::Kind::count}};
  const std::string text = node.IsScalar() ? node.Scalar() : "";
  for (const auto& [n, kind] : kNames)
    if (text == n) return {kind, 0, text};
  if (text.size() > 1 && text[0] == 'p') {
    const auto percent = parse_finite_number(std::string_view(text).substr(1));
    if (percent && *percent > 0 && *percent <= 100) return {MetricStat::Kind::percentile, *percent, text};
  }
  p.fail(node, mark, path,
         "expected a statistic: mean, sd, min, max, sum, median, count, or a percentile p<number> in (0, 100] "
         "such as p5 or p99.9; found " + config::found_text(node));
}

void parse_metrics(const StudyParser& p, const YAML::Node& node, const YAML::Mark& mark, StudySettings& study) {
  if (!node.IsDefined() || !node.IsMap()) p.fail(node, mark, "metrics", "expected a map with `columns` (and `skip_frames`)");
  p.check_keys(node, "metrics", {"skip_frames", "columns"});
  if (const YAML::Node skip = node["skip_frames"]) {
    const auto value = skip.IsScalar() ? parse_finite_number(skip.Scalar()) : std::nullopt;
    if (!value || *value < 0 || *value != std::floor(*value) || *value > 1e15)
      p.fail(skip, node.Mark(), "metrics.skip_frames", "expected an integer >= 0, found " + config::found_text(skip));
    study.skip_frames = static_cast<std::int64_t>(*value);
  }
  const YAML::Node columns = node["columns"];
  if (!columns || !columns.IsMap() || columns.size() == 0)
    p.fail(columns ? columns : node, node.Mark(), "metrics.columns",
           "expected a map: metric name -> statistics, e.g. p_true: [mean, sd]");
  p.check_count(columns, node.Mark(), "metrics.columns", kMaxMetrics, "metrics");
  for (const auto& entry : columns) {
    MetricSpec metric;
    metric.name = p.name(entry.first, entry.first.Mark(), "metrics.columns");
    metric.where = p.where(entry.first.Mark());
    const std::string path = "metrics.columns." + metric.name;
    YAML::Node stats = entry.second;
    metric.column = metric.name;
    if (entry.second.IsMap()) {
      // A derived metric: {column: frame_ms, minus: metrics_ms, stats: [...]}.
      p.check_keys(entry.second, path, {"column", "minus", "stats"});
      metric.column = p.name(entry.second["column"], entry.second.Mark(), path + ".column");
      if (const YAML::Node minus = entry.second["minus"]) metric.minus_column = p.name(minus, entry.second.Mark(), path + ".minus");
      stats = entry.second["stats"];
    }
    if (!stats || !stats.IsSequence() || stats.size() == 0)
      p.fail(stats ? stats : entry.second, entry.first.Mark(), path, "expected a list of statistics, e.g. [mean, p95]");
    p.check_count(stats, entry.first.Mark(), path, kMaxMetricStats, "statistics");
    for (const auto& s : stats) metric.stats.push_back(parse_stat(p, s, stats.Mark(), path));
    study.metrics.push_back(std::move(metric));
  }
}

/// Each figure against the keys of its kind (figure_kinds()) and the table's columns.
void check_figures(const StudyParser& p, const YAML::Node& node, StudySettings& study) {
  if (!node.IsSequence()) p.fail(node, node.Mark(), "figures", "expected a list of figures");
  p.check_count(node, node.Mark(), "figures", kMaxFigures, "figures");
  const std::vector<std::string> columns = study.table_columns();
  const auto has_column = [&](const std::string& c) { return std::find(columns.begin(), columns.end(), c) != columns.end(); };
  const std::vector<FigureKind>& kinds = figure_kinds();
  std::string kind_names;  // "lines, distribution, scatter or ratio"
  for (std::size_t k = 0; k < kinds.size(); ++k)
    kind_names += (k == 0 ? "" : k + 1 == kinds.size() ? " or " : ", ") + kinds[k].name;
  std::set<std::string> files;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node figure = node[i];
    const std::string path = "figures[" + std::to_string(i) + "]";
    if (!figure.IsMap()) p.fail(figure, node.Mark(), path, "expected a map with file, kind, ...");
    const YAML::Node kind = figure["kind"];
    const std::string kind_text = kind && kind.IsScalar() ? kind.Scalar() : "";
    const auto of_kind = std::find_if(kinds.begin(), kinds.end(), [&](const FigureKind& k) { return k.name == kind_text; });
    if (of_kind == kinds.end())
      p.fail(kind ? kind : figure, figure.Mark(), path + ".kind",
             "expected " + kind_names + ", found " + (kind ? config::found_text(kind) : std::string("nothing")));
    const std::vector<std::string>& allowed = of_kind->keys;
    const std::vector<std::string>& needed = of_kind->required;
    p.check_keys(figure, path, allowed);
    const YAML::Node file = figure["file"];
    const std::string file_name = p.name(file, figure.Mark(), path + ".file");
    if (file_name.size() < 5 || file_name.substr(file_name.size() - 4) != ".png")
      p.fail(file, figure.Mark(), path + ".file", "expected a PNG file name ending in .png");
    if (!files.insert(file_name).second) p.fail(file, figure.Mark(), path + ".file", "a second figure with this name");
    for (const std::string& key : needed)
      if (!figure[key]) p.fail(figure, figure.Mark(), path + "." + key, "missing: a " + kind_text + " figure needs it");
    const auto check_column = [&](const YAML::Node& n, const std::string& key) {
      if (!n.IsScalar() || !has_column(n.Scalar()))
        p.fail(n, figure.Mark(), key, "expected a column of the table, found " + config::found_text(n) +
                                          (n.IsScalar() ? did_you_mean(n.Scalar(), columns) : ""));
    };
    for (const char* key : {"x", "panels", "rows", "series", "compare"})
      if (figure[key]) check_column(figure[key], path + "." + key);
    if (const YAML::Node y = figure["y"]) {
      p.check_count(y, figure.Mark(), path + ".y", kMaxFigureColumns, "columns");
      if (y.IsSequence()) {
        for (std::size_t k = 0; k < y.size(); ++k) check_column(y[k], path + ".y[" + std::to_string(k) + "]");
      } else {
        check_column(y, path + ".y");
      }
    }
    if (const YAML::Node pair = figure["pair"]) {
      if (!pair.IsSequence()) p.fail(pair, figure.Mark(), path + ".pair", "expected a list of columns, such as [seed]");
      p.check_count(pair, figure.Mark(), path + ".pair", kMaxFigureColumns, "columns");
      for (std::size_t k = 0; k < pair.size(); ++k) check_column(pair[k], path + ".pair[" + std::to_string(k) + "]");
    }
    if (const YAML::Node where = figure["where"]) {
      if (!where.IsMap()) p.fail(where, figure.Mark(), path + ".where", "expected a map: column -> value or list of values");
      p.check_count(where, figure.Mark(), path + ".where", kMaxFigureColumns, "columns");
      for (const auto& entry : where) {
        check_column(entry.first, path + ".where");
        p.check_count(entry.second, entry.first.Mark(), path + ".where." + entry.first.Scalar(), kMaxFactorLevels, "values");
      }
    }
    if (kind_text == "distribution") {
      const std::string prefix = figure["column"].IsScalar() ? figure["column"].Scalar() : "";
      std::vector<std::string> quantiles = {"p25", "median", "p75"};
      if (const YAML::Node whiskers = figure["whiskers"]) {
        if (!whiskers.IsSequence() || whiskers.size() != 2)
          p.fail(whiskers, figure.Mark(), path + ".whiskers", "expected two statistics, such as [p5, p95]");
        quantiles.push_back(whiskers[0].Scalar());
        quantiles.push_back(whiskers[1].Scalar());
      } else {
        quantiles.insert(quantiles.end(), {"p5", "p95"});
      }
      for (const std::string& q : quantiles)
        if (!has_column(prefix + "_" + q))
          p.fail(figure["column"], figure.Mark(), path + ".column",
                 "the box needs the table column " + prefix + "_" + q + "; add " + q + " to that metric's statistics");
    }
    study.figures.push_back(to_json(figure));
  }
}

/// Exclusion entries: {column: value or [values]}; each must match some run of the crossing.
void parse_exclusions(const StudyParser& p, const YAML::Node& node, StudySettings& study) {
  if (!node.IsSequence()) p.fail(node, node.Mark(), "exclude", "expected a list of {column: value or [values]}");
  p.check_count(node, node.Mark(), "exclude", kMaxExclusions, "entries");
  const std::vector<std::string> columns = study.factor_columns();
  // Each factor column's texts, over its levels.
  std::vector<std::set<std::string>> level_texts;
  for (const Factor& f : study.factors)
    for (std::size_t c = 0; c < f.columns.size(); ++c) {
      level_texts.emplace_back();
      for (const FactorLevel& l : f.levels) level_texts.back().insert(l.cells[c]);
    }
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node entry = node[i];
    const std::string path = "exclude[" + std::to_string(i) + "]";
    if (!entry.IsMap() || entry.size() == 0) p.fail(entry, node.Mark(), path, "expected {column: value or [values], ...}");
    Exclusion exclusion;
    exclusion.where = p.where(entry.Mark());
    for (const auto& column : entry) {
      const std::string name = column.first.Scalar();
      const auto at = std::find(columns.begin(), columns.end(), name);
      if (at == columns.end())
        p.fail(column.first, entry.Mark(), path, "'" + name + "' is not a factor's column" + did_you_mean(name, columns));
      std::vector<std::string> texts;
      p.check_count(column.second, column.first.Mark(), path + "." + name, kMaxFactorLevels, "values");
      if (column.second.IsSequence()) {
        for (const auto& v : column.second) texts.push_back(yaml_text(v));
      } else {
        texts.push_back(yaml_text(column.second));
      }
      // Every text must be one of the column's levels: a typo would silently exclude nothing.
      const auto column_index = static_cast<std::size_t>(at - columns.begin());
      for (const std::string& t : texts) {
        if (!level_texts[column_index].contains(t)) p.fail(column.second, column.first.Mark(), path + "." + name, "'" + t + "' is not one of its levels");
      }
      exclusion.columns.emplace_back(column_index, std::move(texts));
    }
    study.exclusions.push_back(std::move(exclusion));
  }
}

StudySettings parse_study(const StudyParser& p, const YAML::Node& root, const std::string& folder,
                          const std::vector<config::Override>& extra_sets) {
  const std::string& source_name = p.source_;
  if (!root.IsMap()) throw ConfigError(source_name + ": expected a study: a map with name, base, factors, metrics");
  p.check_keys(root, "", {"name", "base", "set", "factors", "repeats", "exclude", "metrics", "figures"});
  StudySettings study;
  study.source = source_name;
  const YAML::Mark top = YAML::Mark::null_mark();
  if (!root["name"]) throw ConfigError(source_name + ": name: missing: the study's name (its results folder)");
  study.name = p.name(root["name"], top, "name");
  // The name is a folder: results/studies/<name>/ ("." would be results/studies/ itself).
  if (const std::string problem = folder_name_problem(study.name); !problem.empty())
    p.fail(root["name"], top, "name", problem + ": it names the study's folder, results/studies/<name>/");
  const YAML::Node base = root["base"];
  if (!base || !base.IsScalar() || base.Scalar().empty())
    throw ConfigError(p.where(base ? base.Mark() : top) + ": base: expected the config every run starts from, "
                      "relative to the study file");
  fs::path base_path = base.Scalar();
  if (base_path.is_relative()) base_path = fs::path(folder) / base_path;
  std::error_code error;
  if (!fs::is_regular_file(base_path, error))
    p.fail(base, top, "base", base_path.string() + " is not a file");
  study.base_config = fs::absolute(base_path).lexically_normal().string();
  if (const YAML::Node sets = root["set"]) parse_sets(p, sets, top, "set", kMaxStudySetKeys, study.sets);
  study.sets.insert(study.sets.end(), extra_sets.begin(), extra_sets.end());

  const YAML::Node factors = root["factors"];
  if (!factors || !factors.IsMap() || factors.size() == 0)
    p.fail(factors, top, "factors", "expected a map of one or more factors, crossed in order");
  p.check_count(factors, top, "factors", kMaxFactors, "factors");
  std::set<std::string> seen = {"run", "frames"};
  for (const auto& entry : factors) {
    const std::string name = p.name(entry.first, entry.first.Mark(), "factors");
    study.factors.push_back(parse_factor(p, name, entry.second, entry.first.Mark()));
    for (const std::string& column : study.factors.back().columns)
      if (!seen.insert(column).second)
        p.fail(entry.first, entry.first.Mark(), "factors." + name,
               "column '" + column + "' is already a column of the table (run, frames, or an earlier factor's)");
  }
  if (const YAML::Node repeats = root["repeats"]) {
    study.factors.push_back(parse_repeats(p, repeats, seen));
    seen.insert("repeat");
  }
  // The sweep's --set applies to every run, so it cannot set what a factor varies: the
  // table would show the factor's levels for runs that all had the --set value.
  for (const config::Override& o : extra_sets) {
    const std::string key = o.assignment.substr(0, o.assignment.find('='));
    for (const Factor& f : study.factors)
      for (const FactorLevel& level : f.levels)
        for (const config::Override& set : level.sets)
          if (set.assignment.substr(0, set.assignment.find('=')) == key)
            throw ConfigError(o.shown_as + ": " + key + " is set by the factor " + f.name +
                              "; a value for every run cannot change what a factor varies (edit the study instead)");
  }
  // Each run's keys (the study's set, the sweep's --set, one level of each factor) are one
  // config's overrides: refused here, not at the first run that sets too many.
  std::size_t run_keys = study.sets.size();
  for (const Factor& f : study.factors) {
    std::size_t most = 0;
    for (const FactorLevel& level : f.levels) most = std::max(most, level.sets.size());
    run_keys += most;
  }
  if (run_keys > config::kMaxOverrides)
    throw ConfigError(source_name + ": a run would set " + std::to_string(run_keys) + " config keys (set, --set and "
                      "one level of each factor), more than the " + std::to_string(config::kMaxOverrides) +
                      " one config may take");
  if (const YAML::Node exclude = root["exclude"]) parse_exclusions(p, exclude, study);
  parse_metrics(p, root["metrics"], top, study);
  for (const std::string& column : study.metric_columns())
    if (!seen.insert(column).second)
      throw ConfigError(source_name + ": metrics: column '" + column + "' is already a column of the table");
  if (const YAML::Node figures = root["figures"]) check_figures(p, figures, study);
  return study;
}

}  // namespace

const std::vector<FigureKind>& figure_kinds() {
  const auto with_common_keys = [](const std::vector<std::string>& own) {
    std::vector<std::string> keys = {"file", "kind", "title", "where", "panels", "rows"};
    keys.insert(keys.end(), own.begin(), own.end());
    return keys;
  };
  static const std::vector<FigureKind> kinds = {
      {"lines", with_common_keys({"series", "x", "y", "log_x", "log_y", "x_label", "y_label"}), {"x", "y"}},
      {"distribution", with_common_keys({"series", "x", "column", "whiskers", "log_y", "x_label", "y_label"}),
       {"x", "column"}},
      {"scatter", with_common_keys({"series", "x", "y", "diagonal", "log", "x_label", "y_label"}), {"x", "y"}},
      // No `series`: a ratio figure's series are the values of `compare` other than the reference.
      {"ratio",
       with_common_keys({"x", "y", "compare", "reference", "pair", "lines", "log_x", "log_y", "x_label", "y_label"}),
       {"x", "y", "compare", "reference"}},
  };
  return kinds;
}

std::vector<std::string> StudySettings::factor_columns() const {
  std::vector<std::string> columns;
  for (const Factor& f : factors) columns.insert(columns.end(), f.columns.begin(), f.columns.end());
  return columns;
}

std::vector<std::string> StudySettings::metric_columns() const {
  std::vector<std::string> columns;
  for (const MetricSpec& m : metrics)
    for (const MetricStat& s : m.stats) columns.push_back(m.name + "_" + s.name);
  return columns;
}

std::vector<std::string> StudySettings::table_columns() const {
  std::vector<std::string> columns = {"run"};
  for (const std::string& c : factor_columns()) columns.push_back(c);
  columns.push_back("frames");
  for (const std::string& c : metric_columns()) columns.push_back(c);
  return columns;
}

StudySettings load_study_text(const std::string& text, const std::string& source_name, const std::string& folder,
                              const std::vector<config::Override>& extra_sets) {
  const StudyParser p(source_name);
  try {
    return parse_study(p, config::load_yaml_document(text, source_name), folder, extra_sets);
  } catch (const YAML::Exception& e) {
    // What the checks above did not foresee still points into the file.
    throw ConfigError(p.where(e.mark) + ": " + e.msg);
  }
}

StudySettings load_study_file(const std::string& path, const std::vector<config::Override>& extra_sets) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxConfigFileBytes, "study file");
  } catch (const FileReadError& e) {
    throw ConfigError(e.what());
  }
  return load_study_text(text, path, fs::absolute(path).parent_path().string(), extra_sets);
}


}  // namespace fovea
