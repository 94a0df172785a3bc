#pragma once

#include <string>
#include <vector>

#include "record/csv_writer.hpp"
#include "frame/animation.hpp"

namespace fovea {

/// collisions.csv (config `record: {collisions: true}`): one row per collision per frame, in
/// list order (docs/results.md lists the columns). Rows are flushed frame by frame.
class CollisionLog {
 public:
  /// With `ground_truth`, the exact test's columns are written too.
  CollisionLog(const std::string& path, bool ground_truth);
  /// The collisions of the world's last step, which was frame `frame`.
  void write(std::int64_t frame, const Animation& world);

  /// The header of collisions.csv, the exact test's columns included with `ground_truth`.
  static std::vector<std::string> columns(bool ground_truth);

 private:
  bool ground_truth_;
  CsvWriter csv_;
};

}  // namespace fovea
