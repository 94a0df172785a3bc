#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frame/animation.hpp"
#include "record/csv_writer.hpp"

namespace fovea {

/// evaluation.csv (config `evaluate: {schedulers: [...]}`): one row per frame, tree set,
/// evaluated scheduler and budget, flushed frame by frame (docs/evaluation.md lists the columns). Tidy:
/// every row has every column; a value that does not apply (the true columns without ground
/// truth, the visible ones without the visibility test) is an empty cell.
class EvaluationLog {
 public:
  /// Creates (or truncates) evaluation.csv at `path` and writes its header; throws when it cannot.
  explicit EvaluationLog(const std::string& path);
  /// The evaluations' rows of the frame the world just ran: the run's own trees', then each
  /// evaluate.trees set's (Animation::evaluations()).
  void write(const FrameStats& stats, const std::vector<Animation::TreeEvaluationView>& evaluations);

  /// The header of evaluation.csv, in file order.
  static std::vector<std::string> columns();

 private:
  void write_row(const FrameStats& stats, const CounterfactualEvaluation& evaluation, const EvaluatedFrame& e,
                 std::string_view tree);

  CsvWriter csv_;
};

}  // namespace fovea
