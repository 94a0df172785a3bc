#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/setting_error.hpp"
#include "gaze/gaze.hpp"
#include "gaze/saccade_landing.hpp"
#include "gaze/scripted_gaze.hpp"
#include "perception/view.hpp"

using namespace fovea;

namespace {

const ScreenSettings kScreen;  // 1920 x 1080 px, 53.1 x 29.9 cm at 57 cm

GazeSettings scripted(double latency_ms, double rate_hz, double noise_deg = 0) {
  GazeSettings g;
  g.source = GazeSourceKind::scripted;
  g.latency_ms = latency_ms;
  g.rate_hz = rate_hz;
  g.noise_deg = noise_deg;
  return g;
}

double degrees_between(double x1, double y1, double x2, double y2) {
  return screen_visual_angle_deg(kScreen, x1, y1, x2, y2);
}

}  // namespace

TEST_CASE("Simulated tracker: the scheduler's gaze is the scripted viewer's own, exactly latency_ms late",
          "[gaze][tracker]") {
  constexpr std::uint64_t kSeed = 17;
  constexpr double kStep_s = 0.01;
  for (const double rate_hz : {0.0, 500.0, 60.0}) {
    for (const double latency_ms : {0.0, 30.0, 100.0}) {
      INFO("rate " << rate_hz << " Hz, latency " << latency_ms << " ms");
      Gaze gaze(scripted(latency_ms, rate_hz), kScreen, kSeed);
      ScriptedGaze eye(ScriptedGazeSettings{}, kScreen, kSeed);  // the viewer's own record
      std::vector<GazeSample> eye_at_frames;
      int moved = 0;
      for (int n = 0; n < 400; ++n) {
        const double t = n * kStep_s;
        const FrameGaze f = gaze.at(t);
        const GazeSample now = eye.sample(t);
        eye_at_frames.push_back(now);
        // The meter's point is the eye's, now.
        REQUIRE(f.x_px == now.x_px);
        REQUIRE(f.y_px == now.y_px);
        // The scheduler's: the eye at the newest instant at most latency ago.
        const double by_s = t - latency_ms / 1000;
        if (by_s < -1e-12) {
          CHECK(std::string(f.source) == "scripted");
          CHECK(f.tracked_x_px == 0.5 * kScreen.width_px);  // nothing delivered yet: the centre
          continue;
        }
        double instant_s = t;
        GazeSample then;
        if (rate_hz == 0) {
          // Once a frame: the frame latency_ms / step before.
          const int back = static_cast<int>(std::lround(latency_ms / 1000 / kStep_s));
          then = eye_at_frames[static_cast<std::size_t>(n - back)];
          instant_s = (n - back) * kStep_s;
        } else {
          const auto k = static_cast<std::int64_t>(std::floor(by_s * rate_hz + 1e-6));
          instant_s = static_cast<double>(k) / rate_hz;
          ScriptedGaze record(ScriptedGazeSettings{}, kScreen, kSeed);
          then = record.sample(instant_s);
        }
        REQUIRE(f.tracked_x_px == then.x_px);
        REQUIRE(f.tracked_y_px == then.y_px);
        CHECK(f.tracked_age_ms == Approx((t - instant_s) * 1000).margin(1e-6));
        if (latency_ms > 0 && (f.tracked_x_px != f.x_px || f.tracked_y_px != f.y_px)) ++moved;
      }
      // The viewer made saccades, so a late tracker was somewhere else some of the time.
      if (latency_ms > 0) CHECK(moved > 20);
    }
  }
}

TEST_CASE("Simulated tracker: noise of noise_deg per axis, drawn the same for the same seed", "[gaze][tracker]") {
  GazeSettings settings;  // a fixed point: every offset is the noise
  settings.rate_hz = 1000;
  settings.noise_deg = 0.5;
  Gaze a(settings, kScreen, 3), b(settings, kScreen, 3), c(settings, kScreen, 4);
  double sum = 0, sum_sq = 0;
  int n = 0, differs = 0;
  for (int i = 0; i < 4000; ++i) {
    const double t = i * 0.01;
    const FrameGaze fa = a.at(t), fb = b.at(t), fc = c.at(t);
    REQUIRE(fa.tracked_x_px == fb.tracked_x_px);
    differs += fa.tracked_x_px != fc.tracked_x_px;
    // The horizontal offset in degrees, signed.
    const double d = degrees_between(fa.x_px, fa.y_px, fa.tracked_x_px, fa.y_px) * (fa.tracked_x_px > fa.x_px ? 1 : -1);
    sum += d;
    sum_sq += d * d;
    ++n;
  }
  const double mean = sum / n, sd = std::sqrt(sum_sq / n - mean * mean);
  CHECK(std::abs(mean) < 0.05);
  CHECK(sd == Approx(0.5).epsilon(0.06));
  CHECK(differs > 3900);  // another seed, other noise
}

TEST_CASE("Simulated tracker: refused on a live source, whose latency is its own, and out of range", "[gaze][tracker]") {
  GazeSettings live;
  live.source = GazeSourceKind::pupil;
  live.latency_ms = 10;
  CHECK_THROWS_AS(SimulatedTracker(live, kScreen, 1), SettingError);
  live.latency_ms = 0;
  CHECK_NOTHROW(SimulatedTracker(live, kScreen, 1));  // no tracker simulated: any source
  GazeSettings bad = scripted(-1, 0);
  CHECK_THROWS_AS(SimulatedTracker(bad, kScreen, 1), SettingError);
  bad = scripted(0, 2000.5);
  CHECK_THROWS_AS(SimulatedTracker(bad, kScreen, 1), SettingError);
  bad = scripted(1000.5, 0);
  CHECK_THROWS_AS(SimulatedTracker(bad, kScreen, 1), SettingError);
  bad = scripted(0, 0, 10.5);
  CHECK_THROWS_AS(SimulatedTracker(bad, kScreen, 1), SettingError);
  bad = scripted(0, 0, std::nan(""));
  CHECK_THROWS_AS(SimulatedTracker(bad, kScreen, 1), SettingError);
  CHECK_NOTHROW(SimulatedTracker(scripted(1000, 2000, 10), kScreen, 1));  // every limit itself is allowed
}

TEST_CASE("Landing prediction: fixations give the newest sample, and a saccade its landing point from its first samples",
          "[gaze][landing]") {
  // A main-sequence, minimum-jerk saccade from (400, 300) to (1500, 800), starting between
  // two samples, as the scripted viewer makes them.
  const double x0 = 400, y0 = 300, x1 = 1500, y1 = 800;
  const double amplitude = degrees_between(x0, y0, x1, y1);
  const double duration_s = 1e-3 * (ScriptedGaze::kSaccadeBase_ms + ScriptedGaze::kSaccadeSlope_ms_per_deg * amplitude);
  const double start_s = 0.1003;
  const auto eye = [&](double t) {
    const double s = std::clamp((t - start_s) / duration_s, 0.0, 1.0);
    const double p = s * s * s * (10 + s * (-15 + 6 * s));
    return TrackedSample{t, x0 + (x1 - x0) * p, y0 + (y1 - y0) * p, true};
  };
  for (const double rate_hz : {1000.0, 200.0}) {
    INFO(rate_hz << " Hz");
    std::vector<TrackedSample> samples;
    int predicted = 0;
    for (int k = 0; k / rate_hz < start_s + duration_s + 0.05; ++k) {
      samples.push_back(eye(k / rate_hz));
      const LandingPrediction p = predict_landing(samples, kScreen);
      const double t = k / rate_hz;
      if (t < start_s) {
        CHECK_FALSE(p.in_flight);
        CHECK(p.x_px == samples.back().x_px);
        continue;
      }
      if (!p.in_flight) continue;
      ++predicted;
      // A third of the way through, the landing point is known to within half a degree.
      if (t > start_s + duration_s / 3) CHECK(degrees_between(p.x_px, p.y_px, x1, y1) < 0.5);
    }
    CHECK(predicted >= (rate_hz == 1000 ? 20 : 5));
    // Landed: a fixation again.
    CHECK_FALSE(predict_landing(samples, kScreen).in_flight);
  }
}

TEST_CASE("Landing prediction: samples far off the screen end the fit, with a point on the screen", "[gaze][landing]") {
  // Before: a saccade from 1e16 px off the screen (a pushed sample, World.set_gaze, issue 42)
  // made the amplitude scan step 0.25 px at a magnitude where a step no longer moves it, and
  // the frame never ended. Each case here is a saccade in flight: still, then fast.
  for (const double far_px : {-1e16, -1e300, 1e16, 1e300}) {
    INFO(far_px);
    const std::vector<TrackedSample> samples = {
        {0.00, far_px, 540, true}, {0.01, far_px, 540, true}, {0.02, 500, 540, true}};
    const LandingPrediction p = predict_landing(samples, kScreen);
    CHECK(p.in_flight);
    CHECK(p.x_px >= 0);
    CHECK(p.x_px <= kScreen.width_px);
    CHECK(p.y_px == 540);
  }
}

TEST_CASE("Landing prediction: against the scripted viewer, the predicted point is nearer its landing than the last sample",
          "[gaze][landing]") {
  ScriptedGaze viewer(ScriptedGazeSettings{}, kScreen, 5);
  ScriptedGaze future(ScriptedGazeSettings{}, kScreen, 5);
  std::vector<TrackedSample> samples;
  std::vector<double> predicted_error, last_error;
  for (int k = 0; k < 20000; ++k) {  // 20 s at 1000 Hz
    const double t = k / 1000.0;
    const GazeSample s = viewer.sample(t);
    samples.push_back({t, s.x_px, s.y_px, s.valid});
    if (samples.size() > 64) samples.erase(samples.begin());
    const LandingPrediction p = predict_landing(samples, kScreen);
    if (!p.in_flight) continue;
    // Where the eye is 150 ms later: landed (saccades last under 120 ms, fixations are longer).
    const GazeSample landed = future.sample(t + 0.15);
    predicted_error.push_back(degrees_between(p.x_px, p.y_px, landed.x_px, landed.y_px));
    last_error.push_back(degrees_between(s.x_px, s.y_px, landed.x_px, landed.y_px));
  }
  REQUIRE(predicted_error.size() > 200);
  std::sort(predicted_error.begin(), predicted_error.end());
  std::sort(last_error.begin(), last_error.end());
  const double predicted_median = predicted_error[predicted_error.size() / 2];
  const double last_median = last_error[last_error.size() / 2];
  INFO("median error: predicted " << predicted_median << " deg, last sample " << last_median << " deg");
  CHECK(predicted_median < 1.0);
  CHECK(predicted_median < 0.25 * last_median);
}
