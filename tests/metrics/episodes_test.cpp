#include <catch2/catch.hpp>

#include "metrics/episodes.hpp"

using namespace fovea;

TEST_CASE("Episodes: a hand-worked sequence, each episode counted once in the frame it ends", "[metrics][episodes]") {
  // slot, first_frame, unresolved, f_est, f_true
  EpisodeMeter meter;
  // Frame 0: two pairs open episodes.
  EpisodeMeter::Ended e = meter.frame({{1, 0, true, 0.6, 0.5}, {2, 0, true, 0.3, 0.2}, {4, 0, false, 0.9, 0.9}});
  CHECK(e.episodes == 0);
  CHECK(e.p_true == 0);
  // Frame 1: slot 1 goes on; slot 2 is resolved, so its one-frame episode ends: 1 - (1 - 0.2).
  e = meter.frame({{1, 0, true, 0.6, 0.5}, {2, 0, false, 0, 0}});
  CHECK(e.episodes == 1);
  CHECK(e.p_true == Approx(0.2));
  CHECK(e.p_est == Approx(0.3));
  // Frame 2: slot 1's pair stopped overlapping (absent): 1 - 0.5 * 0.5 = 0.75, where 004's
  // sum counted 1.0; slot 3 opens.
  e = meter.frame({{3, 2, true, 0.2, 0.1}});
  CHECK(e.episodes == 1);
  CHECK(e.p_true == Approx(0.75));
  CHECK(e.p_est == Approx(1 - 0.4 * 0.4));
  // Frame 3: slot 3 was freed and taken by a new pair (first frame 3): the old episode
  // ends (0.1) and the new one opens in the same slot.
  e = meter.frame({{3, 3, true, 0.5, 0.4}});
  CHECK(e.episodes == 1);
  CHECK(e.p_true == Approx(0.1));
  // Frame 4: nothing left unresolved: the new pair's episode ends.
  e = meter.frame({{3, 3, false, 0, 0}});
  CHECK(e.episodes == 1);
  CHECK(e.p_true == Approx(0.4));
  CHECK(e.p_est == Approx(0.5));
  // Frame 5: nothing open, nothing ends.
  e = meter.frame({});
  CHECK(e.episodes == 0);
  CHECK(e.p_true == 0);
}

TEST_CASE("Episodes: an episode that never ends is never counted, however long", "[metrics][episodes]") {
  EpisodeMeter meter;
  for (int frame = 0; frame < 100; ++frame) {
    const EpisodeMeter::Ended e = meter.frame({{0, 0, true, 0.5, 0.5}});
    CHECK(e.episodes == 0);
  }
  // When it ends, it counts at most 1: noticed or not, once.
  const EpisodeMeter::Ended e = meter.frame({});
  CHECK(e.episodes == 1);
  CHECK(e.p_true == Approx(1.0));
  CHECK(e.p_true <= 1.0);
}

TEST_CASE("Episodes: two ending in one frame give the product of their unnoticed chances, not the sum's complement",
          "[metrics][episodes]") {
  EpisodeMeter meter;
  (void)meter.frame({{1, 0, true, 0.5, 0.5}, {2, 0, true, 0.2, 0.4}});
  EpisodeMeter::Ended e = meter.frame({{1, 0, true, 0.5, 0.5}});  // slot 2 ends, unnoticed 1 - 0.4
  CHECK(e.unnoticed_true == Approx(0.6));
  CHECK(e.unnoticed_est == Approx(0.8));
  (void)meter.frame({{1, 0, true, 0.0, 0.0}, {5, 2, true, 0.1, 0.3}});
  e = meter.frame({});  // both end: (0.5 x 0.5 x 1) x 0.7
  CHECK(e.episodes == 2);
  CHECK(e.unnoticed_true == Approx(0.25 * 0.7));
  CHECK(e.unnoticed_est == Approx(0.25 * 0.9));
  CHECK(e.p_true == Approx(0.75 + 0.3));  // the sum counts each episode's p
  e = meter.frame({});
  CHECK(e.unnoticed_true == 1);  // nothing ended: nothing unseen to multiply
}

TEST_CASE("Episodes: each collision's running episode, its frames and its chance of being noticed so far",
          "[metrics][episodes]") {
  EpisodeMeter meter;
  meter.frame({{1, 0, true, 0.5, 0.4}, {2, 0, false, 0.9, 0.9}});
  CHECK(meter.running(1, 0).frames == 1);
  CHECK(meter.running(1, 0).p_true == Approx(0.4));
  CHECK(meter.running(2, 0).frames == 0);  // resolved: in no episode
  CHECK(meter.running(7, 0).frames == 0);  // a slot never seen
  meter.frame({{1, 0, true, 0.5, 0.5}});
  CHECK(meter.running(1, 0).frames == 2);
  CHECK(meter.running(1, 0).p_true == Approx(1 - 0.6 * 0.5));
  CHECK(meter.running(1, 0).p_est == Approx(0.75));
  CHECK(meter.running(1, 5).frames == 0);  // another pair in the slot is not this episode
  meter.frame({});
  CHECK(meter.running(1, 0).frames == 0);  // ended
}
