// fovea's gaze stream (trackers/stream_gaze.hpp) against its own sender on loopback
// (trackers/stream_sender.hpp): the message format and what it refuses, the clock, samples
// on the screen and off it, a sender that stalls and one that restarts, and hostile senders
// (malformed msgpack, NaN, a flood, giant messages, times that go back or lie ahead), each
// dropped and counted, never a crash nor a stall.

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "gaze/gaze_source.hpp"
#include "support/free_port.hpp"
#include "trackers/stream_gaze.hpp"
#include "trackers/stream_message.hpp"
#include "trackers/stream_sender.hpp"

using namespace fovea;

namespace {

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

std::string decode(const std::string& bytes, StreamMessage& m) {
  const std::vector<std::uint8_t> b = bytes_of(bytes);
  return decode_stream_message(b, m);
}

// msgpack written by hand, so the tests do not trust the encoder they check.
std::string str(const std::string& s) { return std::string(1, static_cast<char>(0xa0 | s.size())) + s; }
std::string f64(double v) {
  std::string out(1, static_cast<char>(0xcb));
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  for (int i = 7; i >= 0; --i) out += static_cast<char>((bits >> (8 * i)) & 0xff);
  return out;
}
std::string map_header(int pairs) { return std::string(1, static_cast<char>(0x80 | pairs)); }
const std::string kTrue(1, static_cast<char>(0xc3));
const std::string kFalse(1, static_cast<char>(0xc2));

ScreenSettings small_screen() {
  ScreenSettings screen;
  screen.width_px = 800;
  screen.height_px = 600;
  return screen;
}

GazeSettings stream_settings(int port) {
  GazeSettings g;
  g.source = GazeSourceKind::stream;
  g.port = port;
  return g;
}

ReconnectTimings quick_timings() {
  ReconnectTimings t;
  t.backoff_first_s = 0.05;
  t.backoff_max_s = 0.2;
  t.stall_timeout_s = 0.3;
  return t;
}

/// Waits up to `timeout_s` for `done()`, checking every 5 ms.
bool eventually(const std::function<bool()>& done, double timeout_s = 5.0) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

StreamMessage sample_at(double time_s, double x, double y) {
  StreamMessage m;
  m.time_s = time_s;
  m.x = x;
  m.y = y;
  return m;
}

/// A listening source and a sender whose clock is synchronised, samples flowing: sends until
/// the source has one (the first samples may go before the PUSH has connected).
struct Loopback {
  int port = test::free_port_pair();
  StreamGaze source{stream_settings(port), small_screen(), quick_timings()};
  std::unique_ptr<StreamSender> sender = std::make_unique<StreamSender>("127.0.0.1", port);

  Loopback() {
    REQUIRE(eventually([&] { return source.listening(); }));
    sender->sync_clock(gaze_wall_clock_s, 3);
    REQUIRE(flowing(*sender));
  }
  /// Sends valid samples from `s`, time now, until the source holds one of them, then waits
  /// for the last one sent (at most 5 s each): none is left in flight to arrive after what a
  /// test sends next from another socket, where it would be "before the newest" and dropped.
  bool flowing(StreamSender& s) {
    const double first = gaze_wall_clock_s();
    double last_sent = first;
    return eventually([&] {
             last_sent = gaze_wall_clock_s();
             s.send(sample_at(last_sent, 1, 2));
             return source.sample(0).time_s >= first;
           }) &&
           eventually([&] { return source.sample(0).time_s >= last_sent; });
  }
  /// Sends `m` (time now) and waits until the source holds it; its sample.
  GazeSample round_trip(StreamMessage m) {
    m.time_s = gaze_wall_clock_s();
    sender->send(m);
    eventually([&] { return source.sample(0).time_s == m.time_s; });
    return source.sample(0);
  }
};

}  // namespace

TEST_CASE("a stream message decodes what the protocol says, and its encoder writes the same", "[gaze][stream]") {
  StreamMessage m;
  const std::string full = map_header(8) + str("v") + std::string(1, 1) + str("t") + f64(12.5) + str("x") + f64(100) +
                           str("y") + f64(200.25) + str("units") + str("px") + str("valid") + kTrue +
                           str("confidence") + f64(0.75) + str("tracker_t") + f64(9000.125);
  REQUIRE(decode(full, m) == "");
  CHECK(m.time_s == 12.5);
  CHECK(m.x == 100);
  CHECK(m.y == 200.25);
  CHECK(m.units == StreamUnits::px);
  CHECK(m.valid);
  CHECK(m.confidence == 0.75);
  CHECK(m.tracker_time_s == 9000.125);

  // The smallest: t, x and y; integers for numbers; a sender's own keys skipped.
  const std::string small = map_header(4) + str("t") + std::string(1, 3) + str("x") + std::string(1, 4) + str("y") +
                            std::string(1, 5) + str("eye") + str("left");
  REQUIRE(decode(small, m) == "");
  CHECK(m.time_s == 3);
  CHECK(m.confidence == 1.0);
  CHECK(std::isnan(m.tracker_time_s));

  // A blink: no point needed, NaN allowed there.
  REQUIRE(decode(map_header(3) + str("t") + f64(1) + str("valid") + kFalse + str("x") + f64(NAN), m) == "");
  CHECK(!m.valid);

  // The encoder round-trips, norm included.
  StreamMessage out = sample_at(5.5, 0.25, 0.5);
  out.units = StreamUnits::norm;
  out.confidence = 0.9;
  out.tracker_time_s = 77;
  StreamMessage back;
  REQUIRE(decode_stream_message(encode_stream_message(out), back) == "");
  CHECK(back.time_s == 5.5);
  CHECK(back.x == 0.25);
  CHECK(back.units == StreamUnits::norm);
  CHECK(back.confidence == 0.9);
  CHECK(back.tracker_time_s == 77);
}

TEST_CASE("a stream message that is malformed is refused with its reason", "[gaze][stream][hostile]") {
  const std::string t1 = str("t") + f64(1);
  const std::string xy = str("x") + f64(1) + str("y") + f64(2);
  const struct {
    std::string bytes;
    std::string reason;
  } cases[] = {
      {"", "not msgpack"},
      {"\xc1", "not msgpack"},
      {std::string(1, static_cast<char>(0x93)) + "\x01\x02\x03", "not a msgpack map"},
      {map_header(2) + xy, "no time t"},
      {map_header(3) + str("t") + f64(NAN) + xy, "t is not finite"},
      {map_header(3) + str("t") + f64(INFINITY) + xy, "t is not finite"},
      {map_header(3) + str("t") + str("now") + xy, "t is not a number"},
      {map_header(3) + t1 + str("x") + f64(INFINITY) + str("y") + f64(2), "x is not finite"},
      {map_header(2) + t1 + str("x") + f64(1), "a valid sample without y"},
      {map_header(4) + t1 + xy + str("confidence") + f64(1.5), "confidence is outside [0, 1]"},
      {map_header(4) + t1 + xy + str("units") + str("cm"), "units is neither"},
      {map_header(4) + t1 + xy + str("valid") + std::string(1, 1), "valid is not a boolean"},
      {map_header(4) + t1 + xy + str("v") + std::string(1, 2), "protocol version"},
      {map_header(4) + t1 + xy + str("t") + f64(2), "key t twice"},
      {map_header(4) + t1 + xy + std::string(1, 7) + f64(2), "a key that is not a string"},
      {map_header(4) + t1 + xy + str("tracker_t") + f64(NAN), "tracker_t is not finite"},
      {map_header(3) + t1 + xy + std::string(1, '\0'), "bytes after the map"},
      // A map declaring 4 billion pairs, and an array as deep as msgpack allows: refused by the
      // parser's bounds before anything is allocated.
      {"\xdf\xff\xff\xff\xff", "not msgpack"},
      {std::string(100, static_cast<char>(0x91)) + "\x01", "not msgpack"},
  };
  for (const auto& c : cases) {
    INFO(c.reason);
    StreamMessage m;
    const std::string reason = decode(c.bytes, m);
    CHECK(reason.find(c.reason) != std::string::npos);
  }
  // More than kStreamMaxKeys pairs.
  std::string many = std::string("\xde\x00\x40", 3);  // map16 of 64 pairs
  for (int i = 0; i < 64; ++i) many += str("k" + std::to_string(i)) + std::string(1, 0);
  StreamMessage m;
  CHECK(!decode(many, m).empty());
}

TEST_CASE("the stream's clock answers t with fovea's clock, and a sender's offset to its own is small", "[gaze][stream]") {
  Loopback loop;
  const double before = gaze_wall_clock_s();
  const double fovea = loop.sender->fovea_time_s();
  const double after = gaze_wall_clock_s();
  CHECK(fovea >= before);
  CHECK(fovea <= after);
  // One process, one clock: the offset is zero within half the shortest round trip.
  const StreamClockSync sync = loop.sender->sync_clock(gaze_wall_clock_s, 10);
  CHECK(sync.answered == 10);
  CHECK(std::abs(sync.offset_s) <= 0.5 * sync.round_trip_s + 1e-6);
  // A clock 100 s behind fovea's is found 100 s behind.
  const StreamClockSync shifted = loop.sender->sync_clock([] { return gaze_wall_clock_s() - 100.0; }, 5);
  CHECK(shifted.offset_s == Approx(100.0).margin(0.01));
}

TEST_CASE("stream samples arrive on fovea's clock with the tracker's stamp and their arrival", "[gaze][stream]") {
  Loopback loop;
  StreamMessage m = sample_at(0, 400, 300);
  m.tracker_time_s = 123456.75;
  m.confidence = 0.8;
  const GazeSample s = loop.round_trip(m);
  CHECK(s.valid);
  CHECK(s.x_px == 400);
  CHECK(s.y_px == 300);
  CHECK(s.confidence == 0.8);
  CHECK(s.tracker_time_s == 123456.75);
  CHECK(s.arrival_s >= s.time_s);
  CHECK(s.arrival_s - s.time_s < 1.0);

  // Normalised points become pixels (top-left origin, y down).
  StreamMessage norm = sample_at(0, 0.25, 0.75);
  norm.units = StreamUnits::norm;
  const GazeSample n = loop.round_trip(norm);
  CHECK(n.valid);
  CHECK(n.x_px == 200);
  CHECK(n.y_px == 450);

  // Off the screen, below min_confidence (0.6) or a blink: an invalid sample at its time.
  CHECK(!loop.round_trip(sample_at(0, 801, 300)).valid);
  CHECK(!loop.round_trip(sample_at(0, 400, -1)).valid);
  StreamMessage unsure = sample_at(0, 400, 300);
  unsure.confidence = 0.5;
  CHECK(!loop.round_trip(unsure).valid);
  StreamMessage blink = sample_at(0, NAN, NAN);
  blink.valid = false;
  const GazeSample b = loop.round_trip(blink);
  CHECK(!b.valid);
  CHECK(loop.source.dropped() == 0);

  // take_recent gives them all, in order.
  std::vector<GazeSample> recent;
  loop.source.take_recent(recent);
  REQUIRE(recent.size() >= 7);
  for (std::size_t i = 1; i < recent.size(); ++i) CHECK(recent[i].time_s >= recent[i - 1].time_s);
}

TEST_CASE("a stream sender that stalls is said, and one that restarts is picked up", "[gaze][stream]") {
  Loopback loop;
  std::vector<std::string> messages;
  CHECK(loop.source.connected());
  // The sender quits: silence for the stall timeout is said once, connected goes false.
  loop.sender.reset();
  REQUIRE(eventually([&] { return !loop.source.connected(); }));
  loop.source.take_messages(messages);
  std::string all;
  for (const std::string& m : messages) all += m + "\n";
  CHECK(all.find("no samples for 300 ms") != std::string::npos);
  // A new sender on the same port: samples flow again.
  StreamSender again("127.0.0.1", loop.port);
  again.sync_clock(gaze_wall_clock_s, 3);
  CHECK(loop.flowing(again));
  CHECK(loop.source.connected());
  // Quitting is a lost connection: one dropped input.
  CHECK(loop.source.dropped() >= 1);
}

namespace {

/// A valid sample now, padded with a sender's own key to exactly `bytes` bytes.
std::string padded_to(std::int64_t bytes) {
  const std::string head = map_header(4) + str("t") + f64(gaze_wall_clock_s()) + str("x") + f64(1) + str("y") + f64(1) +
                           str("pad") + std::string(1, static_cast<char>(0xda));  // str16: 2 length bytes follow
  const auto length = static_cast<std::size_t>(bytes) - head.size() - 2;
  return head + static_cast<char>(length >> 8) + static_cast<char>(length & 0xff) + std::string(length, 'p');
}

}  // namespace

TEST_CASE("a stream message of exactly 4 KiB is taken", "[gaze][stream][hostile]") {
  Loopback loop;
  REQUIRE(padded_to(kStreamMaxMessageBytes).size() == static_cast<std::size_t>(kStreamMaxMessageBytes));
  const double before = loop.source.sample(0).time_s;
  CHECK(eventually([&] {
    loop.sender->send_bytes(padded_to(kStreamMaxMessageBytes));
    return loop.source.sample(0).time_s > before;
  }));
  CHECK(loop.source.dropped() == 0);
}

TEST_CASE("hostile stream messages are each dropped, counted once and said with their reason", "[gaze][stream][hostile]") {
  const std::string xy = str("x") + f64(1) + str("y") + f64(1);
  const auto now_t = [] { return str("t") + f64(gaze_wall_clock_s()); };
  const struct {
    const char* what;
    std::function<std::string()> bytes;
    const char* reason;
  } cases[] = {
      {"not msgpack", [] { return std::string("\xc1\xc1\xc1"); }, "not msgpack within the bounds"},
      {"a NaN time", [&] { return map_header(3) + str("t") + f64(NAN) + xy; }, "t is not finite"},
      {"a NaN x in a valid sample", [&] { return map_header(3) + now_t() + str("x") + f64(NAN) + str("y") + f64(1); },
       "x is not finite"},
      {"empty", [] { return std::string(); }, "not msgpack within the bounds"},
      {"over 4 KiB", [] { return std::string(10000, 'x'); }, "a message of 10000 bytes, more than 4096"},
      {"one byte past 4 KiB, well formed", [&] { return padded_to(kStreamMaxMessageBytes + 1); },
       "a message of 4097 bytes, more than 4096"},
      {"before the newest", [&] { return map_header(3) + str("t") + f64(gaze_wall_clock_s() - 1.0) + xy; },
       "t went back, before the newest sample's"},
      {"a glitched stamp far ahead", [&] { return map_header(3) + str("t") + f64(gaze_wall_clock_s() + 1e9) + xy; },
       "ms ahead of fovea's clock"},
      {"10 s ahead", [&] { return map_header(3) + str("t") + f64(gaze_wall_clock_s() + 10.0) + xy; },
       "ms ahead of fovea's clock"},
      {"6 s old on arrival, from a new source that has accepted nothing newer",
       [&] { return map_header(3) + str("t") + f64(gaze_wall_clock_s() - 6.0) + xy; }, "s old on arrival"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    // A source of its own for each, so its first drop is the one said.
    const int port = test::free_port_pair();
    StreamGaze source(stream_settings(port), small_screen(), quick_timings());
    REQUIRE(eventually([&] { return source.listening(); }));
    StreamSender sender("127.0.0.1", port);
    std::vector<std::string> messages;
    const bool old_case = std::string(c.reason) == "s old on arrival";
    if (!old_case) {
      // Samples flowing first (a sample at now, accepted), except for the old one: a source
      // that accepted a sample 6 s later would call it "went back".
      sender.sync_clock(gaze_wall_clock_s, 3);
      REQUIRE(eventually([&] {
        sender.send(sample_at(gaze_wall_clock_s(), 1, 2));
        return source.sample(0).valid;
      }));
    }
    const std::uint64_t before = source.dropped();
    // The PUSH may not be connected yet for the old case: send until it is counted.
    REQUIRE(eventually([&] {
      if (source.dropped() == before) sender.send_bytes(c.bytes());
      return source.dropped() > before;
    }));
    CHECK(source.dropped() == before + 1);
    source.take_messages(messages);
    std::string said;
    for (const std::string& m : messages)
      if (m.find("dropped a sample message") != std::string::npos) said += m + "\n";
    CHECK(said.find(c.reason) != std::string::npos);
    CHECK(std::count(said.begin(), said.end(), '\n') == 1);
    // A second bad message is counted and not said again.
    sender.send_bytes("\xc1");
    REQUIRE(eventually([&] { return source.dropped() == before + 2; }));
    source.take_messages(messages);
    std::size_t said_count = 0;
    for (const std::string& m : messages) said_count += m.find("dropped a sample message") != std::string::npos ? 1 : 0;
    CHECK(said_count == 1);
    // None of them became the newest: a sample now is still taken.
    if (!old_case) {
      const double t = gaze_wall_clock_s();
      CHECK(eventually([&] {
        sender.send(sample_at(gaze_wall_clock_s(), 3, 4));
        return source.sample(0).time_s >= t;
      }));
    }
  }
}

TEST_CASE("hostile stream senders (giant frames, several parts, a flood, garbage on the clock) and the source goes on",
          "[gaze][stream][hostile]") {
  Loopback loop;
  StreamSender& s = *loop.sender;
  const auto dropped_exactly = [&](const std::function<void()>& send, std::uint64_t count) {
    const std::uint64_t before = loop.source.dropped();
    send();
    return eventually([&] { return loop.source.dropped() >= before + count; }) &&
           loop.source.dropped() == before + count;
  };
  SECTION("a frame over 64 KiB costs its sender the connection (one drop), which comes back by itself") {
    CHECK(dropped_exactly([&] { s.send_bytes(std::string(1 << 20, 'x')); }, 1));
    CHECK(loop.flowing(s));
  }
  SECTION("a message of several parts is dropped whole") {
    zmq::context_t context;
    zmq::socket_t push(context, zmq::socket_type::push);
    push.set(zmq::sockopt::linger, 0);
    push.connect("tcp://127.0.0.1:" + std::to_string(loop.port));
    const std::vector<std::uint8_t> good = encode_stream_message(sample_at(gaze_wall_clock_s(), 1, 1));
    CHECK(dropped_exactly([&] {
      push.send(zmq::buffer(good), zmq::send_flags::sndmore);
      push.send(zmq::buffer(good), zmq::send_flags::sndmore);
      push.send(zmq::buffer(good), zmq::send_flags::none);
    }, 1));
    CHECK(loop.flowing(s));
  }
  SECTION("a flood from a sender without a queue limit: the clock answers during it, nothing is dropped, the newest wins") {
    zmq::context_t context;
    zmq::socket_t push(context, zmq::socket_type::push);
    push.set(zmq::sockopt::linger, 0);
    push.set(zmq::sockopt::sndhwm, 0);  // no limit on the sender's side: fovea's receive queue is the bound
    push.connect("tcp://127.0.0.1:" + std::to_string(loop.port));
    const std::uint64_t dropped_before = loop.source.dropped();
    std::atomic<double> last{0};
    std::atomic<bool> flooding{true};
    std::thread flood([&] {
      for (int i = 0; i < 200000; ++i) {
        const double t = gaze_wall_clock_s();
        const std::vector<std::uint8_t> bytes = encode_stream_message(sample_at(t, 1 + i % 700, 2));
        push.send(zmq::buffer(bytes), zmq::send_flags::none);
        last = t;
      }
      flooding = false;
    });
    // While the flood lasts, the clock answers each request within its 0.5 s timeout.
    int answered_during = 0, asked_during = 0;
    while (flooding) {
      const double t = s.fovea_time_s();
      if (!flooding) break;
      ++asked_during;
      answered_during += std::isnan(t) ? 0 : 1;
    }
    flood.join();
    CHECK(answered_during == asked_during);
    // The last sample flooded becomes the newest; a flood of good samples costs no drops.
    CHECK(eventually([&] { return loop.source.sample(0).time_s == last.load(); }, 10.0));
    CHECK(loop.source.dropped() == dropped_before);
  }
  SECTION("garbage on the clock socket is answered with an error and counted") {
    zmq::context_t context;
    zmq::socket_t req(context, zmq::socket_type::req);
    req.set(zmq::sockopt::linger, 0);
    req.set(zmq::sockopt::rcvtimeo, 5000);
    req.connect("tcp://127.0.0.1:" + std::to_string(loop.port + 1));
    const std::uint64_t before = loop.source.dropped();
    req.send(zmq::buffer(std::string(100, 'T')), zmq::send_flags::none);
    zmq::message_t reply;
    REQUIRE(req.recv(reply));
    CHECK(reply.to_string().find("error: fovea's clock socket answers t, not a request this long") == 0);
    CHECK(loop.source.dropped() == before + 1);
    // The clock still answers the sender.
    CHECK(!std::isnan(s.fovea_time_s()));
  }
  // Whatever came before, samples still flow.
  CHECK(loop.flowing(s));
}

TEST_CASE("a second stream source on a port in use says so and takes the port once it is free", "[gaze][stream]") {
  const int port = test::free_port_pair();
  auto first = std::make_unique<StreamGaze>(stream_settings(port), small_screen(), quick_timings());
  REQUIRE(eventually([&] { return first->listening(); }));
  StreamGaze second(stream_settings(port), small_screen(), quick_timings());
  std::vector<std::string> messages;
  REQUIRE(eventually([&] {
    second.take_messages(messages);
    return !messages.empty();
  }));
  CHECK(messages.front().find("cannot listen") != std::string::npos);
  CHECK(!second.listening());
  first.reset();
  CHECK(eventually([&] { return second.listening(); }));
}

TEST_CASE("stream settings that cannot work are refused, naming the key", "[gaze][stream]") {
  GazeSettings g = stream_settings(65535);
  CHECK_THROWS_WITH(StreamGaze(g, small_screen()), Catch::Contains("gaze.port"));
  g = stream_settings(0);
  g.host = "";
  CHECK_THROWS_WITH(StreamGaze(g, small_screen()), Catch::Contains("gaze.host"));
  g = stream_settings(0);
  g.min_confidence = 2;
  CHECK_THROWS_WITH(StreamGaze(g, small_screen()), Catch::Contains("gaze.min_confidence"));
  CHECK_THROWS_WITH(StreamSender("127.0.0.1", -1), Catch::Contains("port"));
  // A sender with no fovea listening: its clock has no answer, its samples are not queued.
  StreamSender lonely("127.0.0.1", test::free_port_pair(), 0.05);
  CHECK(std::isnan(lonely.fovea_time_s()));
  CHECK_THROWS_WITH(lonely.sync_clock(gaze_wall_clock_s, 2), Catch::Contains("no answer from fovea's clock"));
  CHECK(!lonely.send(sample_at(1, 1, 1)));
  CHECK(lonely.unsent() == 1);
}
