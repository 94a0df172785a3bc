#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/format.hpp"
#include "trackers/fake_gazepoint.hpp"
#include "gaze/gaze_source.hpp"
#include "trackers/gazepoint_gaze.hpp"

using namespace fovea;
using fovea::test::FakeGazepoint;

namespace {

using Clock = std::chrono::steady_clock;

/// How long a test waits for something that should happen within milliseconds.
constexpr double kWait_s = 3.0;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// Polls `condition` every 2 ms until it holds or `timeout_s` passes.
template <class Condition>
bool eventually(Condition condition, double timeout_s = kWait_s) {
  const Clock::time_point start = Clock::now();
  while (!condition()) {
    if (seconds_since(start) > timeout_s) return condition();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

/// Short delays, so the fault tests take a fraction of a second. The stall timeout stays
/// long enough that no test but the stall test sees one, even on a loaded machine.
GazepointTimings fast_timings() {
  GazepointTimings t;
  t.connect_timeout_s = 0.2;
  t.backoff_first_s = 0.02;
  t.backoff_max_s = 0.1;
  t.stall_timeout_s = 2.0;
  return t;
}

GazeSettings settings_for(std::uint16_t port, std::string host = "127.0.0.1") {
  GazeSettings s;
  s.source = GazeSourceKind::gazepoint;
  s.host = std::move(host);
  s.port = port;
  return s;
}

ScreenSettings full_hd() { return {.width_px = 1920, .height_px = 1080}; }

/// A REC as Gazepoint Control sends it with ENABLE_SEND_POG_FIX, CRLF included.
std::string rec(double x, double y, int valid = 1) {
  return "<REC FPOGX=\"" + format_number(x) + "\" FPOGY=\"" + format_number(y) +
         "\" FPOGS=\"12.25\" FPOGD=\"0.5\" FPOGID=\"41\" FPOGV=\"" + std::to_string(valid) + "\" />\r\n";
}

/// Accepts the source's connection and waits for its two commands and connected().
void accept_source(FakeGazepoint& fake, const GazepointGaze& source) {
  REQUIRE(fake.accept_client(kWait_s));
  REQUIRE(fake.wait_for_commands(2, kWait_s));
  REQUIRE(eventually([&] { return source.connected(); }));
}

/// True once the newest sample is the valid point (x_px, y_px), exactly.
bool receives(GazepointGaze& source, double x_px, double y_px) {
  return eventually([&] {
    const GazeSample g = source.sample(0);
    return g.valid && g.x_px == x_px && g.y_px == y_px;
  });
}

std::vector<std::string> take_messages(GazeSource& source) {
  std::vector<std::string> out;
  source.take_messages(out);
  return out;
}

/// Waits until the source has posted at least `count` messages since the last take, and
/// returns them all.
std::vector<std::string> wait_for_messages(GazeSource& source, std::size_t count) {
  std::vector<std::string> all;
  eventually([&] {
    source.take_messages(all);
    return all.size() >= count;
  });
  return all;
}

/// A string literal's bytes, NULs included.
template <std::size_t N>
std::string bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

std::string endpoint(const FakeGazepoint& fake) { return "127.0.0.1:" + std::to_string(fake.port()); }

/// A source connected to a fake tracker that has enabled its fixation data (accept_source):
/// the fixture of the tests of the source against the fake server (TEST_CASE_METHOD).
struct Connected {
  FakeGazepoint fake;
  GazepointGaze source{settings_for(fake.port()), full_hd(), fast_timings()};

  Connected() { accept_source(fake, source); }
  /// Sends a fixation on the screen's centre and waits until the source holds it.
  void flow() {
    REQUIRE(fake.send(rec(0.5, 0.5)));
    REQUIRE(receives(source, 960, 540));
  }
};

}  // namespace

// --- The parser on its own --------------------------------------------------------------

TEST_CASE("parse_open_gaze_element reads a Gazepoint record and its attributes in order", "[gaze][gazepoint]") {
  const std::string text = "<REC FPOGX=\"0.48439\" FPOGY=\"0.50313\" FPOGS=\"1891.86768\" FPOGD=\"0.06250\" "
                           "FPOGID=\"1507\" FPOGV=\"1\" />";
  const auto element = parse_open_gaze_element(text);
  REQUIRE(element);
  CHECK(element->tag == "REC");
  REQUIRE(element->attributes.size() == 6);
  CHECK(element->attributes[0].first == "FPOGX");
  CHECK(element->attributes[5].second == "1");
  CHECK(element->attribute("FPOGS") == "1891.86768");
  CHECK_FALSE(element->attribute("LPOGX"));

  const auto ack = parse_open_gaze_element("<ACK ID=\"ENABLE_SEND_DATA\" STATE=\"1\" />");
  REQUIRE(ack);
  CHECK(ack->tag == "ACK");
  CHECK(ack->attribute("ID") == "ENABLE_SEND_DATA");

  // The grammar's other corners: no attributes, no space before "/>", tabs, empty values,
  // digits and underscores in names, printable punctuation in values.
  CHECK(parse_open_gaze_element("<REC/>"));
  CHECK(parse_open_gaze_element("<REC A=\"1\"/>"));
  CHECK(parse_open_gaze_element("<REC\tA=\"1\"\t/>"));
  CHECK(parse_open_gaze_element("<REC A=\"\" />"));
  const auto names = parse_open_gaze_element("<CAL ID_2=\"CALIB_RESULT_PT\" PT=\"a b/c&d'e=f\" />");
  REQUIRE(names);
  CHECK(names->attribute("ID_2") == "CALIB_RESULT_PT");
  CHECK(names->attribute("PT") == "a b/c&d'e=f");
}

TEST_CASE("parse_open_gaze_element rejects everything but one empty element", "[gaze][gazepoint]") {
  const std::vector<std::string> bad = {
      "",
      "REC />",                                  // no '<'
      "<REC A=\"1\"",                            // no "/>"
      "<REC A=\"1\">",                           // not an empty element
      "<REC A=\"1\" / >",                        // broken "/>"
      "</>",                                     // no tag
      "< REC />",                                // space before the tag
      "<R-C />",                                 // '-' in the tag
      "<REC A=1 />",                             // unquoted value
      "<REC A='1' />",                           // single quotes
      "<REC A = \"1\" />",                       // spaces around '='
      "<REC A=\"1\"B=\"2\" />",                  // attributes not separated
      "<REC A=\"1\" A=\"2\" />",                 // duplicate attribute
      "<REC FPOGX=\"1\" FPOGY=\"2\" FPOGX=\"1\" />",  // duplicate, not adjacent
      "<REC A-B=\"1\" />",                       // '-' in a name
      "<REC =\"1\" />",                          // no name
      "<REC A=\"1 />",                           // unterminated value
      "<REC A=\"<1\" />",                        // '<' in a value
      "<REC A=\"1>\" />",                        // '>' in a value
      "<REC A=\"1\r\n\" />",                     // line break in a value
      bytes("<REC A=\"\0\" />"),       // control byte in a value
      "<REC A=\"\xc3\xa9\" />",                  // non-ASCII in a value
      "<REC A=\"1\" />\r\n",                     // text after the element
      " <REC A=\"1\" />",                        // text before it
      "<REC A=\"1\" /><REC A=\"1\" />",          // two elements
      "<REC\r\nA=\"1\" />",                      // line break between attributes
  };
  for (const std::string& text : bad) {
    INFO("element: " << text);
    CHECK_FALSE(parse_open_gaze_element(text));
  }
}

TEST_CASE("read_fixation takes finite FPOGX and FPOGY within a screen of the screen and FPOGV 0 or 1", "[gaze][gazepoint]") {
  const auto fixation_of = [](const std::string& attributes) {
    const std::string text = "<REC " + attributes + " />";
    const auto element = parse_open_gaze_element(text);
    REQUIRE(element);
    return read_fixation(*element);
  };
  const auto with = [](const std::string& x, const std::string& y, const std::string& v) {
    return "FPOGX=\"" + x + "\" FPOGY=\"" + y + "\" FPOGV=\"" + v + "\"";
  };

  const auto good = fixation_of(with("0.25", "0.75", "1"));
  REQUIRE(good);
  CHECK(good->x == 0.25);
  CHECK(good->y == 0.75);
  CHECK(good->valid);
  const auto no_fixation = fixation_of(with("0", "0", "0"));
  REQUIRE(no_fixation);
  CHECK_FALSE(no_fixation->valid);

  // A point slightly off the screen, up to one screen beyond each edge, is a measurement.
  for (const char* edge : {"-1", "2", "-0.05", "1.05", "-1.0", "2.0", "1e-3", ".5", "1.", "-0"}) {
    INFO("coordinate: " << edge);
    CHECK(fixation_of(with(edge, "0.5", "1")));
    CHECK(fixation_of(with("0.5", edge, "1")));
  }
  for (const char* off : {"-1.0001", "2.0001", "3", "-7", "1e300"}) {
    INFO("coordinate: " << off);
    CHECK_FALSE(fixation_of(with(off, "0.5", "1")));
    CHECK_FALSE(fixation_of(with("0.5", off, "1")));
    CHECK_FALSE(fixation_of(with(off, "0.5", "0")));  // malformed whatever FPOGV says
  }
  for (const char* not_a_number : {"", "abc", "0.5x", " 0.5", "0.5 ", "+0.5", "0x1", "nan", "NaN", "inf", "-inf",
                                   "infinity", "1e999", "0,5", "--1", "1e"}) {
    INFO("coordinate: " << not_a_number);
    CHECK_FALSE(fixation_of(with(not_a_number, "0.5", "1")));
    CHECK_FALSE(fixation_of(with("0.5", not_a_number, "1")));
  }
  for (const char* validity : {"", "2", "-1", "1.0", "01", "true", " 1", "1 "}) {
    INFO("FPOGV: " << validity);
    CHECK_FALSE(fixation_of(with("0.5", "0.5", validity)));
  }
  CHECK_FALSE(fixation_of("FPOGY=\"0.5\" FPOGV=\"1\""));
  CHECK_FALSE(fixation_of("FPOGX=\"0.5\" FPOGV=\"1\""));
  CHECK_FALSE(fixation_of("FPOGX=\"0.5\" FPOGY=\"0.5\""));
  CHECK_FALSE(fixation_of("fpogx=\"0.5\" fpogy=\"0.5\" fpogv=\"1\""));  // names are case-sensitive
}

// --- The framer on its own --------------------------------------------------------------

namespace {

/// Every element the framer yields for `bytes` appended in pieces of `piece` bytes.
std::vector<std::string> frame(OpenGazeFramer& framer, const std::string& bytes, std::size_t piece) {
  std::vector<std::string> elements;
  for (std::size_t i = 0; i < bytes.size(); i += piece) {
    framer.append(std::string_view(bytes).substr(i, piece));
    while (const auto element = framer.next_element()) elements.emplace_back(*element);
  }
  return elements;
}

}  // namespace

TEST_CASE("OpenGazeFramer yields whole elements however the stream is cut", "[gaze][gazepoint]") {
  const std::string stream = rec(0.1, 0.2) + "<ACK ID=\"ENABLE_SEND_DATA\" STATE=\"1\" />\r\n" + rec(0.3, 0.4, 0);
  for (std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{50}, stream.size()}) {
    INFO("piece: " << piece);
    OpenGazeFramer framer;
    const std::vector<std::string> elements = frame(framer, stream, piece);
    REQUIRE(elements.size() == 3);
    CHECK(elements[0] + "\r\n" == rec(0.1, 0.2));
    CHECK(elements[1] == "<ACK ID=\"ENABLE_SEND_DATA\" STATE=\"1\" />");
    CHECK(elements[2] + "\r\n" == rec(0.3, 0.4, 0));
    CHECK(framer.take_dropped() == 0);
    CHECK(framer.buffered_bytes() == 0);
  }
}

TEST_CASE("OpenGazeFramer drops garbage and truncated and overlong elements once each and resynchronises", "[gaze][gazepoint]") {
  struct Case {
    const char* what;
    std::string bytes;
  };
  const std::string overlong_open = "<REC FPOGX=\"0.5\" " + std::string(OpenGazeFramer::kMaxRecordBytes, 'A');
  const std::vector<Case> cases = {
      {"binary garbage", bytes("\x00\xff\x01\x80garbage\r\n\x7f junk")},
      {"a truncated record", "<REC FPOGX=\"0.5"},
      {"an element that is not empty", "<REC FPOGX=\"0.5\" FPOGY=\"0.5\" FPOGV=\"1\">\r\n"},
      {"more than kMaxRecordBytes without an end", overlong_open},
      {"a complete element over kMaxRecordBytes", overlong_open + "/>\r\n"},
      {"an end without a start", "FPOGV=\"1\" />\r\n"},
  };
  for (const Case& c : cases) {
    for (std::size_t piece : {std::size_t{1}, std::size_t{100}, std::size_t{4096}}) {
      INFO(c.what << ", appended in pieces of " << piece);
      OpenGazeFramer framer;
      const std::vector<std::string> elements = frame(framer, c.bytes + rec(0.25, 0.75), piece);
      CHECK(framer.take_dropped() == 1);
      REQUIRE(elements.size() == 1);
      CHECK(elements[0] + "\r\n" == rec(0.25, 0.75));
    }
  }
}

TEST_CASE("OpenGazeFramer holds at most kMaxRecordBytes plus one read of a 10 MB stream without an end", "[gaze][gazepoint]") {
  OpenGazeFramer framer;
  const std::string read(GazepointGaze::kReadBytes, '7');
  framer.append("<REC FPOGX=\"0.");
  std::size_t peak_bytes = 0;
  for (std::size_t sent = 0; sent < 10'000'000; sent += read.size()) {
    framer.append(read);
    peak_bytes = std::max(peak_bytes, framer.buffered_bytes());
    REQUIRE_FALSE(framer.next_element());
  }
  CHECK(peak_bytes <= OpenGazeFramer::kMaxRecordBytes + GazepointGaze::kReadBytes);
  CHECK(framer.take_dropped() == 1);
  framer.append(rec(0.5, 0.5));
  const auto element = framer.next_element();
  REQUIRE(element);
  CHECK(std::string(*element) + "\r\n" == rec(0.5, 0.5));
}

// --- The source against the fake server -------------------------------------------------

TEST_CASE_METHOD(Connected, "Gazepoint: the source enables the fixation data with the API's two SET commands",
                 "[gaze][gazepoint]") {
  CHECK(fake.received() ==
        "<SET ID=\"ENABLE_SEND_POG_FIX\" STATE=\"1\" />\r\n<SET ID=\"ENABLE_SEND_DATA\" STATE=\"1\" />\r\n");
  CHECK(source.clock() == GazeClock::wall);
  CHECK(wait_for_messages(source, 1) == std::vector<std::string>{"gazepoint: connected to " + endpoint(fake)});
}

TEST_CASE_METHOD(Connected, "Gazepoint: FPOGX and FPOGY are fractions of the screen from its top-left corner with y down",
                 "[gaze][gazepoint]") {
  const GazeSample before = source.sample(0);
  CHECK_FALSE(before.valid);
  CHECK(before.time_s == 0);

  const double sent_s = gaze_wall_clock_s();
  REQUIRE(fake.send(rec(0.25, 0.75)));
  REQUIRE(receives(source, 480, 810));  // no y flip: Gazepoint's y runs down, as fovea's
  const double seen_s = gaze_wall_clock_s();
  const GazeSample g = source.sample(123.0);  // the run's time does not matter to a live source
  CHECK(g.confidence == 1.0);
  CHECK(g.time_s >= sent_s);  // stamped on arrival, on the wall clock
  CHECK(g.time_s <= seen_s);

  REQUIRE(fake.send(rec(0, 1) + rec(1, 0)));
  REQUIRE(receives(source, 1920, 0));
  // Off the screen (but within a screen of it): a measurement, of no fixation on the screen.
  REQUIRE(fake.send(rec(-0.5, 1.5)));
  REQUIRE(eventually([&] {
    const GazeSample off = source.sample(0);
    return !off.valid && off.x_px == -960 && off.y_px == 1620;
  }));
  CHECK(source.dropped() == 0);
}

TEST_CASE_METHOD(Connected, "Gazepoint: FPOGV 0 gives an invalid newest sample and no drop", "[gaze][gazepoint]") {
  flow();
  REQUIRE(fake.send(rec(0.5, 0.5, 0)));
  REQUIRE(eventually([&] { return !source.sample(0).valid; }));
  CHECK(source.sample(0).time_s > 0);
  CHECK(source.dropped() == 0);
}

TEST_CASE_METHOD(Connected, "Gazepoint: a record split across sends and several records in one send are all parsed",
                 "[gaze][gazepoint]") {

  const std::string split = rec(0.1, 0.2);
  REQUIRE(fake.send(split.substr(0, 17)));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // let the first part be read alone
  CHECK_FALSE(source.sample(0).valid);
  REQUIRE(fake.send(split.substr(17)));
  REQUIRE(receives(source, 192, 216));

  std::vector<GazeSample> recent;
  source.take_recent(recent);
  recent.clear();
  REQUIRE(fake.send(rec(0.125, 0.25) + rec(0.25, 0.5) + rec(0.375, 0.75)));
  REQUIRE(receives(source, 720, 810));
  source.take_recent(recent);
  REQUIRE(recent.size() == 3);
  CHECK(recent[0].x_px == 240);
  CHECK(recent[1].x_px == 480);
  CHECK(recent[2].x_px == 720);
  CHECK(source.dropped() == 0);
}

TEST_CASE_METHOD(Connected, "Gazepoint: ACK is ignored and a NACK posts one message", "[gaze][gazepoint]") {
  wait_for_messages(source, 1);  // connected
  REQUIRE(fake.send("<ACK ID=\"ENABLE_SEND_POG_FIX\" STATE=\"1\" />\r\n<NACK ID=\"ENABLE_SEND_DATA\" />\r\n" +
                    rec(0.5, 0.5)));
  REQUIRE(receives(source, 960, 540));
  CHECK(take_messages(source) ==
        std::vector<std::string>{"gazepoint: the tracker refused the command ENABLE_SEND_DATA (NACK)"});
  CHECK(source.dropped() == 0);
}

TEST_CASE_METHOD(Connected, "Gazepoint: a tracker that closes the connection means fallback with one drop and one message",
                 "[gaze][gazepoint]") {
  flow();
  take_messages(source);

  fake.stop();
  REQUIRE(eventually([&] { return !source.connected(); }));
  CHECK(source.dropped() == 1);
  CHECK(take_messages(source) ==
        std::vector<std::string>{"gazepoint: lost " + endpoint(fake) +
                                 " (the tracker closed the connection); using the fallback and reconnecting"});
  // Retries (every 20 to 100 ms here) are quiet and are not drops; the newest sample stays
  // the tracker's last, aging, for the frame's max_age_ms to turn into the fallback.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(take_messages(source).empty());
  CHECK(source.dropped() == 1);
  CHECK_FALSE(source.connected());
  CHECK(source.sample(0).x_px == 960);
}

TEST_CASE_METHOD(Connected, "Gazepoint: the source reconnects when the tracker comes back on the same port",
                 "[gaze][gazepoint]") {
  flow();

  // The connection closes while the server keeps listening: straight back.
  fake.close_client();
  accept_source(fake, source);
  REQUIRE(fake.send(rec(0.25, 0.25)));
  REQUIRE(receives(source, 480, 270));

  // The server goes away, then listens again on the same port.
  const std::uint16_t port = fake.port();
  fake.stop();
  REQUIRE(eventually([&] { return !source.connected(); }));
  fake.restart();
  REQUIRE(fake.port() == port);
  accept_source(fake, source);
  CHECK(fake.commands() == std::vector<std::string>{"<SET ID=\"ENABLE_SEND_POG_FIX\" STATE=\"1\" />",
                                                    "<SET ID=\"ENABLE_SEND_DATA\" STATE=\"1\" />"});
  REQUIRE(fake.send(rec(0.75, 0.75)));
  REQUIRE(receives(source, 1440, 810));
  CHECK(source.dropped() == 2);  // the two lost connections

  const std::vector<std::string> messages = wait_for_messages(source, 5);
  const std::string connected = "gazepoint: connected to " + endpoint(fake);
  const std::string lost = "gazepoint: lost " + endpoint(fake) + " (the tracker closed the connection); using the fallback and reconnecting";
  CHECK(messages == std::vector<std::string>{connected, lost, connected, lost, connected});
}

TEST_CASE("Gazepoint: a tracker absent at start costs one message and the source connects when it appears", "[gaze][gazepoint]") {
  FakeGazepoint fake;
  fake.stop();  // a port known to be free: nothing answers on it now

  const Clock::time_point start = Clock::now();
  GazepointGaze source(settings_for(fake.port()), full_hd(), fast_timings());
  CHECK(seconds_since(start) < 0.15);  // the constructor does not wait for the network
  CHECK_FALSE(source.connected());

  CHECK(wait_for_messages(source, 1) ==
        std::vector<std::string>{"gazepoint: cannot connect to " + endpoint(fake) +
                                 " (connection refused); using the fallback and retrying"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // several quiet retries
  CHECK(take_messages(source).empty());
  CHECK(source.dropped() == 0);  // nothing was lost: there was nothing

  fake.restart();
  accept_source(fake, source);
  CHECK(wait_for_messages(source, 1) == std::vector<std::string>{"gazepoint: connected to " + endpoint(fake)});
  REQUIRE(fake.send(rec(0.5, 0.5)));
  REQUIRE(receives(source, 960, 540));
}

TEST_CASE("Gazepoint: a connection silent for the stall timeout is dropped and made again", "[gaze][gazepoint]") {
  FakeGazepoint fake;
  GazepointTimings timings = fast_timings();
  timings.stall_timeout_s = 0.3;
  GazepointGaze source(settings_for(fake.port()), full_hd(), timings);
  accept_source(fake, source);
  REQUIRE(fake.send(rec(0.5, 0.5)));
  REQUIRE(receives(source, 960, 540));
  take_messages(source);

  const Clock::time_point silent_since = Clock::now();
  const std::vector<std::string> messages = wait_for_messages(source, 1);
  REQUIRE(messages.size() >= 1);
  CHECK(messages[0] == "gazepoint: lost " + endpoint(fake) + " (no data for 0.3 s); using the fallback and reconnecting");
  CHECK(seconds_since(silent_since) >= 0.25);
  CHECK(source.dropped() == 1);
  accept_source(fake, source);  // the server still listens: a new connection, data enabled again
  REQUIRE(fake.send(rec(0.25, 0.25)));
  REQUIRE(receives(source, 480, 270));
}

TEST_CASE("Gazepoint: each malformed input is dropped and counted once and the source goes on", "[gaze][gazepoint]") {
  struct Case {
    const char* what;
    std::string bytes;
  };
  const auto record = [](const std::string& attributes) { return "<REC " + attributes + " />\r\n"; };
  const std::string overlong_open = "<REC FPOGX=\"0.5\" " + std::string(OpenGazeFramer::kMaxRecordBytes + 1000, 'A');
  const std::vector<Case> cases = {
      {"binary garbage", bytes("\x00\xff\x01\x80\x1b[2J\r\n\x7f\xfe")},
      {"a truncated record followed by a new one", "<REC FPOGX=\"0.5"},
      {"a record longer than kMaxRecordBytes without an end", overlong_open},
      {"a complete record longer than kMaxRecordBytes", overlong_open + "\" />\r\n"},
      {"a record without FPOGX", record("FPOGY=\"0.5\" FPOGV=\"1\"")},
      {"a record without FPOGY", record("FPOGX=\"0.5\" FPOGV=\"1\"")},
      {"a record without FPOGV", record("FPOGX=\"0.5\" FPOGY=\"0.5\"")},
      {"a coordinate that is not a number", record("FPOGX=\"left\" FPOGY=\"0.5\" FPOGV=\"1\"")},
      {"a NaN coordinate", record("FPOGX=\"nan\" FPOGY=\"0.5\" FPOGV=\"1\"")},
      {"an infinite coordinate", record("FPOGX=\"0.5\" FPOGY=\"inf\" FPOGV=\"1\"")},
      {"FPOGV 2", record("FPOGX=\"0.5\" FPOGY=\"0.5\" FPOGV=\"2\"")},
      {"a point more than a screen off it", record("FPOGX=\"2.5\" FPOGY=\"0.5\" FPOGV=\"1\"")},
      {"a point more than a screen above it", record("FPOGX=\"0.5\" FPOGY=\"-1.5\" FPOGV=\"1\"")},
      {"a duplicate attribute", record("FPOGX=\"0.5\" FPOGY=\"0.5\" FPOGX=\"0.6\" FPOGV=\"1\"")},
      {"an unquoted value", record("FPOGX=0.5 FPOGY=\"0.5\" FPOGV=\"1\"")},
      {"an element that is not empty", "<REC FPOGX=\"0.5\" FPOGY=\"0.5\" FPOGV=\"1\">\r\n"},
  };
  FakeGazepoint fake;
  GazepointGaze source(settings_for(fake.port()), full_hd(), fast_timings());
  accept_source(fake, source);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].what);
    const std::uint64_t dropped_before = source.dropped();
    const double x = 0.01 * static_cast<double>(i + 1);  // a point no other case sends
    REQUIRE(fake.send(cases[i].bytes));
    REQUIRE(fake.send(rec(x, 0.5)));
    REQUIRE(receives(source, x * 1920, 540));
    CHECK(source.dropped() == dropped_before + 1);
  }
  CHECK(source.connected());
}

TEST_CASE_METHOD(Connected, "Gazepoint: a 10 MB stream without a record end keeps the buffer bounded",
                 "[gaze][gazepoint]") {
  REQUIRE(fake.send("<REC FPOGX=\"0."));
  const std::string piece(64 * 1024, '7');
  for (std::size_t sent = 0; sent < 10'000'000; sent += piece.size()) REQUIRE(fake.send(piece));
  REQUIRE(fake.send("\r\n" + rec(0.5, 0.25)));
  REQUIRE(receives(source, 960, 270));
  CHECK(source.dropped() == 1);
  CHECK(source.peak_buffered_bytes() <= OpenGazeFramer::kMaxRecordBytes + GazepointGaze::kReadBytes);
  CHECK(source.connected());
}

TEST_CASE("Gazepoint: destruction is prompt while connected and while retrying", "[gaze][gazepoint]") {
  FakeGazepoint fake;
  {
    auto source = std::make_unique<GazepointGaze>(settings_for(fake.port()), full_hd(), fast_timings());
    accept_source(fake, *source);
    const Clock::time_point start = Clock::now();
    source.reset();
    CHECK(seconds_since(start) < 0.5);  // generous for a loaded machine, far under the waits it cuts short
  }
  fake.stop();
  {
    // The default timings: after the first refusals the thread sleeps for up to 2 s.
    auto source = std::make_unique<GazepointGaze>(settings_for(fake.port()), full_hd());
    wait_for_messages(*source, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    const Clock::time_point start = Clock::now();
    source.reset();
    CHECK(seconds_since(start) < 0.5);  // generous for a loaded machine, far under the waits it cuts short
  }
}

TEST_CASE("Gazepoint: the host may be a name", "[gaze][gazepoint]") {
  FakeGazepoint fake;
  GazepointGaze source(settings_for(fake.port(), "localhost"), full_hd(), fast_timings());
  accept_source(fake, source);
  CHECK(wait_for_messages(source, 1) ==
        std::vector<std::string>{"gazepoint: connected to localhost:" + std::to_string(fake.port())});
  REQUIRE(fake.send(rec(0.5, 0.5)));
  REQUIRE(receives(source, 960, 540));
}

TEST_CASE("Gazepoint: settings that cannot work throw naming the key", "[gaze][gazepoint]") {
  const auto message_of = [](const GazeSettings& settings) {
    try {
      GazepointGaze source(settings, full_hd(), fast_timings());
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  CHECK(message_of(settings_for(0, "")).find("gaze.host") != std::string::npos);
  GazeSettings negative = settings_for(0);
  negative.port = -1;
  CHECK(message_of(negative).find("gaze.port") != std::string::npos);
  GazeSettings too_large = settings_for(0);
  too_large.port = 65536;
  CHECK(message_of(too_large).find("gaze.port") != std::string::npos);
}
