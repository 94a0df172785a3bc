#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "record/progress.hpp"

using namespace fovea;

namespace {

/// What a Progress wrote to a temporary file, for the checks below.
class Captured {
 public:
  Captured() : file_(std::tmpfile()) { REQUIRE(file_ != nullptr); }
  ~Captured() { std::fclose(file_); }
  Captured(const Captured&) = delete;
  Captured& operator=(const Captured&) = delete;
  std::FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    std::string all;
    std::rewind(file_);
    for (int c = std::fgetc(file_); c != EOF; c = std::fgetc(file_)) all += static_cast<char>(c);
    return all;
  }

 private:
  std::FILE* file_;
};

}  // namespace

TEST_CASE("Progress logged: the first line, then one at every twentieth of the total and the end, each step once", "[record][progress]") {
  Captured out;
  Progress progress(100, true, Progress::Output::logged, out.file());
  for (std::int64_t done = 1; done <= 100; ++done) {
    progress.update(done, "done " + std::to_string(done));
    progress.update(done, "done " + std::to_string(done) + " again");  // the same step: not again
  }
  progress.finish();  // nothing to clear in a log
  std::string expected = "done 1\n";  // the first, then one a twentieth
  for (int done = 5; done <= 100; done += 5) expected += "done " + std::to_string(done) + "\n";
  CHECK(out.text() == expected);

  // Fewer steps than twenty: every step.
  Captured few;
  Progress short_progress(3, true, Progress::Output::logged, few.file());
  for (std::int64_t done = 1; done <= 3; ++done) short_progress.update(done, std::to_string(done));
  CHECK(few.text() == "1\n2\n3\n");
}

TEST_CASE("Progress redrawn: in place, at most five times a second, the last step always, cleared by finish",
          "[record][progress]") {
  Captured out;
  Progress progress(10, true, Progress::Output::redrawn, out.file());
  progress.update(1, "one");
  progress.update(2, "two");  // within 200 ms of the last: not drawn
  progress.update(10, "ten");  // the last step: drawn
  progress.finish();
  CHECK(out.text() == "\r\033[Kone\r\033[Kten\r\033[K");

  // After finish() (a message of the caller's in between), the next update draws at once.
  Captured again;
  Progress redrawn(10, true, Progress::Output::redrawn, again.file());
  redrawn.update(1, "one");
  redrawn.finish();
  redrawn.update(2, "two");
  CHECK(again.text() == "\r\033[Kone\r\033[K\r\033[Ktwo");
}

TEST_CASE("Progress: fovea run's frame line, and nothing when disabled", "[record][progress]") {
  Captured out;
  Progress progress(200, true, Progress::Output::redrawn, out.file());
  progress.update(50);
  const std::string text = out.text();
  CHECK(text.rfind("\r\033[Kframe 50/200 (25%)  ", 0) == 0);
  CHECK(text.find(" frames/s  ") != std::string::npos);
  CHECK(text.find(" s left") != std::string::npos);

  Captured quiet;
  Progress off(200, false, Progress::Output::logged, quiet.file());
  off.update(200);
  off.update(200, "done");
  off.finish();
  CHECK(quiet.text().empty());
}

TEST_CASE("Progress: another unit names its steps (fovea experiment's trials)", "[record][progress]") {
  Captured out;
  Progress progress(520, true, Progress::Output::logged, out.file(), "trial");
  progress.update(26);
  const std::string text = out.text();
  CHECK(text.rfind("trial 26/520 (5%)  ", 0) == 0);
  CHECK(text.find(" trials/s  ") != std::string::npos);
}
