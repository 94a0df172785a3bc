#pragma once

#include <string>
#include <vector>

#include "frame/animation.hpp"
#include "record/csv_writer.hpp"

namespace fovea {

/// evaluation.csv (config `evaluate: {schedulers: [...]}`): one row per frame, evaluated
/// scheduler and budget, flushed frame by frame (docs/evaluation.md lists the columns). Tidy:
/// every row has every column; a value that does not apply (the true columns without ground
/// truth, the visible ones without the visibility test) is an empty cell.
class EvaluationLog {
 public:
  explicit EvaluationLog(const std::string& path);
  /// The evaluation's rows of the frame the world just ran.
  void write(const FrameStats& stats, const CounterfactualEvaluation& evaluation);

  static std::vector<std::string> columns();

 private:
  CsvWriter csv_;
};

}  // namespace fovea
