#include "trackers/pupil_gaze.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>
#include <zmq.hpp>

#include "core/format.hpp"
#include "gaze/gaze.hpp"
#include "perception/view.hpp"
#include "trackers/tcp_endpoint.hpp"

namespace fovea {
namespace {

/// A topic longer than this is garbage: Pupil's are like "surfaces.screen", "gaze.3d.01.".
constexpr std::size_t kMaxTopicBytes = 256;
/// Parts of a multipart reply quoted in a message; the rest are counted.
constexpr std::size_t kQuotedReplyParts = 3;
/// SUB messages handled per wake-up before the loop looks at the clock, the monitor and the
/// stop request again, so a flooding tracker cannot starve them.
constexpr int kMessagesPerWakeUp = 256;
/// A sample stamped further in the future than a frame accepts (Gaze::kFutureToleranceMs),
/// on fovea's clock, means the offset is wrong.
constexpr double kClockJumpTolerance_s = Gaze::kFutureToleranceMs / 1000.0;
/// A sample this old on arrival means the same: Pupil's gaze reaches a subscriber within
/// tens of milliseconds, and the receive queue (kReceiveHighWaterMark messages) holds under
/// a second of them.
constexpr double kMaxTransitAge_s = 5.0;
/// How long one poll waits: the receiver thread notices a stop within this.
constexpr std::chrono::milliseconds kPollSlice{10};


/// Pupil Remote's SUB_PORT reply: exactly a decimal port in 1..65535.
std::optional<int> parse_port(std::string_view text) {
  int port = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (error != std::errc() || end != text.data() + text.size() || port < 1 || port > 65535) return std::nullopt;
  return port;
}

/// A reply of Pupil Remote as it arrived: its first parts, and how many it had.
struct RemoteReply {
  std::vector<std::string> parts;  ///< the first kQuotedReplyParts parts, whole (each within ZMQ_MAXMSGSIZE)
  std::size_t part_count = 0;      ///< all its parts
  /// One part of at most PupilGaze::kMaxReplyBytes: a reply to read (else to refuse).
  bool usable() const { return part_count == 1 && parts.front().size() <= PupilGaze::kMaxReplyBytes; }
  /// Its one part's text, when usable().
  std::string_view text() const { return usable() ? std::string_view(parts.front()) : std::string_view(); }
  /// How a message quotes it, each part an excerpt (core/format.hpp): `"5000"`; `an
  /// over-long reply (more than 4096 bytes), "555... (5000 bytes)"`; `a reply of 2 parts,
  /// "50021", "x"`.
  std::string quoted() const {
    const auto quote = [](const std::string& part) { return "\"" + excerpt(part) + "\""; };
    if (part_count == 1 && parts.front().size() > PupilGaze::kMaxReplyBytes)
      return "an over-long reply (more than " + std::to_string(PupilGaze::kMaxReplyBytes) + " bytes), " +
             quote(parts.front());
    if (part_count == 1) return quote(parts.front());
    std::string text = "a reply of " + std::to_string(part_count) + " parts";
    for (const std::string& part : parts) text += ", " + quote(part);
    return part_count > parts.size() ? text + ", ..." : text;
  }
};

std::string milliseconds_text(double seconds) { return format_significant(seconds * 1000.0, 4) + " ms"; }

enum class TopicKind {
  ours,       ///< the surface (or gaze) this source subscribed to
  other,      ///< well formed but another one, let through by the prefix subscription
  malformed,  ///< empty, too long, or binary: not a topic Pupil would send
};

/// What a source reads from the network, fixed at construction.
struct PupilConfig {
  std::string host;
  int remote_port = PupilGaze::kDefaultRemotePort;
  PupilTopic topic = PupilTopic::surface;
  std::string subscription;  ///< "surfaces.<surface>" or "gaze."
  double min_confidence = 0.6;
  double width_px = 0;
  double height_px = 0;
  PupilTimings timings;
};

/// The receiver thread's state: the ZeroMQ context and sockets live and die on that thread.
class PupilReceiver {
 public:
  PupilReceiver(const PupilConfig& config, GazeInbox& inbox, std::atomic<bool>& connected,
                std::atomic<double>& clock_offset_s)
      : config_(config), inbox_(inbox), connected_(connected), shared_offset_s_(clock_offset_s) {}

  /// Connects, receives until the connection is lost, and starts again with backoff, until
  /// `stop` is requested.
  void run(const std::stop_token& stop);

 private:
  enum class Reply {
    answered,    ///< a reply, in `reply`: usable(), or something odd (several parts, over-long) from a Remote that is there
    unanswered,  ///< nothing within the request timeout (the REQ socket was replaced)
    stopped,     ///< the stop was requested while waiting
  };

  /// One connection attempt: SUB_PORT, the clock offset, the SUB socket. False when it failed
  /// (the reason is posted, unless a failure was already said) or was stopped.
  bool connect(const std::stop_token& stop);
  /// Why receiving ended.
  enum class SessionEnd {
    stopped,  ///< the stop was requested
    lost,     ///< the SUB fell silent and Pupil Remote did not answer
    moved,    ///< the SUB fell silent and Pupil Remote names another SUB port: Capture restarted
  };

  /// Receives until the session ends: polls the SUB and its monitor, probes a silent SUB,
  /// and re-estimates the clock offset every sync period.
  SessionEnd receive(const std::stop_token& stop);
  /// The SUB has been silent for the stall timeout: nullopt when Pupil Remote answers with
  /// this session's SUB port (carry on), else how the session ends.
  std::optional<SessionEnd> probe_silent_subscriber(const std::stop_token& stop);
  /// Sends `command` and waits for the reply in short polls, so a stop ends the wait at once.
  Reply request(const std::stop_token& stop, std::string_view command, RemoteReply& reply);
  /// Averages clock_samples `t` round trips into an offset; nullopt when Remote stopped
  /// answering or gave no usable time.
  std::optional<double> measure_clock_offset(const std::stop_token& stop);

  void open_remote();
  void open_subscriber(int sub_port);
  void close_sockets();
  /// The monitor's events: a DISCONNECTED SUB connection is a lost input, reconnected here.
  void handle_monitor_events();
  /// A message is waiting on the SUB socket: read all its frames, keep the first two.
  /// Returns the number of frames, 0 when nothing was waiting.
  std::size_t read_message();
  void handle_message(std::size_t frames);
  TopicKind classify_topic() const;
  /// The accepted entries as valid samples, in order; one invalid sample when the tracker
  /// sent entries but none passed the filters.
  void publish(const std::vector<PupilEntry>& entries);
  GazeSample to_sample(const PupilEntry& entry) const;

  /// Posts a failure unless one was posted since the last connection: retries stay quiet.
  void say_failure(std::string message);
  std::string remote_endpoint() const;
  std::string endpoint(int port) const;

  PupilConfig config_;
  GazeInbox& inbox_;
  std::atomic<bool>& connected_;
  std::atomic<double>& shared_offset_s_;
  double clock_offset_s_ = 0;  ///< this thread's copy of the estimate, Pupil - wall
  /// A sample's time stamp disagreed with the wall clock by more than network delay can
  /// explain: Pupil's clock was moved (Pupil Remote's `T`); measure the offset again now.
  bool resync_now_ = false;
  bool failure_said_ = false;
  int monitors_opened_ = 0;    ///< names each monitor's inproc endpoint uniquely
  /// The SUB's DISCONNECTED was counted since its last message: a session then lost counts
  /// no second time (one lost connection, one dropped input).
  bool loss_counted_ = false;

  zmq::context_t context_;
  zmq::socket_t remote_;      ///< REQ to Pupil Remote
  zmq::socket_t subscriber_;  ///< SUB to Pupil's IPC backbone
  zmq::socket_t monitor_;     ///< PAIR receiving subscriber_'s DISCONNECTED events
  int sub_port_ = 0;
  std::string sub_endpoint_;
  zmq::message_t topic_, payload_, discarded_;
  std::vector<PupilEntry> entries_;
};

std::string PupilReceiver::endpoint(int port) const {
  // An IPv6 literal needs brackets in a ZeroMQ endpoint (and ZMQ_IPV6 on the socket).
  return tcp_endpoint(config_.host, port);
}

std::string PupilReceiver::remote_endpoint() const { return endpoint(config_.remote_port); }

void PupilReceiver::say_failure(std::string message) {
  if (failure_said_) return;
  inbox_.post(std::move(message));
  failure_said_ = true;
}

void PupilReceiver::run(const std::stop_token& stop) {
  Backoff backoff = config_.timings.backoff();
  while (!stop.stop_requested()) {
    try {
      if (connect(stop)) {
        backoff.reset();
        const SessionEnd end = receive(stop);
        // A lost or moved session is a lost connection: one dropped input (docs/gaze.md),
        // unless the SUB's DISCONNECTED already counted it (a tracker that quit); a tracker
        // that hangs keeps its TCP connections open, and only the probe tells.
        if (end == SessionEnd::lost || end == SessionEnd::moved) {
          if (!loss_counted_) inbox_.count_dropped();
          loss_counted_ = false;
        }
        if (end == SessionEnd::lost)
          say_failure("pupil: lost Pupil Remote at " + remote_endpoint() + ": no data for " +
                      milliseconds_text(config_.timings.stall_timeout_s) + " and no answer within " +
                      milliseconds_text(config_.timings.request_timeout_s) + "; using the fallback and retrying");
        if (end == SessionEnd::moved)
          inbox_.post("pupil: Pupil Remote at " + remote_endpoint() + " publishes on another SUB port than " +
                      std::to_string(sub_port_) + " (Pupil Capture restarted); reconnecting");
      }
    } catch (const zmq::error_t& e) {
      // A host ZeroMQ cannot parse, or running out of sockets: said once, retried like an
      // absent tracker.
      say_failure("pupil: " + remote_endpoint() + ": " + e.what() + "; using the fallback and retrying");
    }
    connected_.store(false, std::memory_order_relaxed);
    close_sockets();
    if (!sleep_unless_stopped(stop, backoff.next_delay_s())) break;
  }
  close_sockets();
}

bool PupilReceiver::connect(const std::stop_token& stop) {
  open_remote();
  RemoteReply reply;
  const Reply answer = request(stop, "SUB_PORT", reply);
  if (answer == Reply::stopped) return false;
  if (answer == Reply::unanswered) {
    say_failure("pupil: no answer from Pupil Remote at " + remote_endpoint() + " within " +
                milliseconds_text(config_.timings.request_timeout_s) + "; using the fallback and retrying");
    return false;
  }
  const std::optional<int> sub_port = reply.usable() ? parse_port(reply.text()) : std::nullopt;
  if (!sub_port) {
    inbox_.count_dropped();
    // The peer's text, quoted by the one rule (core/format.hpp's excerpt), part by part.
    say_failure("pupil: Pupil Remote at " + remote_endpoint() + " answered SUB_PORT with " + reply.quoted() +
                ", not a port number; using the fallback and retrying");
    return false;
  }
  const std::optional<double> offset_s = measure_clock_offset(stop);
  if (!offset_s) {
    if (!stop.stop_requested())
      say_failure("pupil: Pupil Remote at " + remote_endpoint() + " gave no usable time (t) within " +
                  milliseconds_text(config_.timings.request_timeout_s) + "; using the fallback and retrying");
    return false;
  }
  clock_offset_s_ = *offset_s;
  shared_offset_s_.store(clock_offset_s_, std::memory_order_relaxed);
  open_subscriber(*sub_port);

  char offset_text[64];
  std::snprintf(offset_text, sizeof offset_text, "%.6f", clock_offset_s_);
  inbox_.post("pupil: connected to Pupil Remote at " + remote_endpoint() + " (SUB port " + std::to_string(*sub_port) +
              ", clock offset " + offset_text + " s)");
  failure_said_ = false;
  connected_.store(true, std::memory_order_relaxed);
  return true;
}

std::optional<double> PupilReceiver::measure_clock_offset(const std::stop_token& stop) {
  // Pupil's t is taken somewhere inside the round trip; its midpoint is the best guess,
  // off by at most half the round trip (well under a millisecond on loopback or a LAN).
  double sum_s = 0;
  int count = 0;
  RemoteReply reply;
  for (int i = 0; i < config_.timings.clock_samples; ++i) {
    const double sent_s = gaze_wall_clock_s();
    const Reply answer = request(stop, "t", reply);
    const double received_s = gaze_wall_clock_s();
    if (answer == Reply::stopped || answer == Reply::unanswered) return std::nullopt;
    const std::optional<double> pupil_s = reply.usable() ? parse_finite_number(reply.text()) : std::nullopt;
    if (!pupil_s) {
      inbox_.count_dropped();
      continue;
    }
    sum_s += *pupil_s - 0.5 * (sent_s + received_s);
    ++count;
  }
  if (count == 0) return std::nullopt;
  return sum_s / count;
}

PupilReceiver::Reply PupilReceiver::request(const std::stop_token& stop, std::string_view command,
                                            RemoteReply& reply) {
  reply = RemoteReply{};
  // With ZMQ_IMMEDIATE off (the default) a REQ queues its request even before the TCP
  // connection exists, so this send does not wait for the tracker.
  if (!remote_.send(zmq::buffer(command), zmq::send_flags::dontwait)) {
    open_remote();
    return Reply::unanswered;
  }
  const double deadline_s = gaze_wall_clock_s() + config_.timings.request_timeout_s;
  while (!stop.stop_requested()) {
    if (gaze_wall_clock_s() >= deadline_s) {
      // A REQ socket whose request went unanswered refuses the next send: replace it.
      open_remote();
      return Reply::unanswered;
    }
    zmq::pollitem_t item{remote_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, kPollSlice);
    if (!(item.revents & ZMQ_POLLIN)) continue;
    zmq::message_t frame;
    // A reply arrives whole (ZeroMQ delivers multipart messages atomically): its first parts
    // are kept to be read or quoted, the rest counted and let go one by one.
    do {
      if (!remote_.recv(frame, zmq::recv_flags::dontwait)) break;
      if (reply.part_count++ < kQuotedReplyParts) reply.parts.push_back(frame.to_string());
    } while (frame.more());
    return reply.part_count > 0 ? Reply::answered : Reply::unanswered;
  }
  return Reply::stopped;
}

void PupilReceiver::open_remote() {
  remote_ = zmq::socket_t(context_, zmq::socket_type::req);
  const int timeout_ms = static_cast<int>(std::ceil(config_.timings.request_timeout_s * 1000.0));
  remote_.set(zmq::sockopt::linger, 0);
  remote_.set(zmq::sockopt::sndtimeo, timeout_ms);
  remote_.set(zmq::sockopt::rcvtimeo, timeout_ms);
  // Beyond kMaxReplyBytes a reply is over-long, and said so; up to kMaxMessageBytes it
  // arrives, to be quoted as such rather than lost as no answer.
  remote_.set(zmq::sockopt::maxmsgsize, PupilGaze::kMaxMessageBytes);
  remote_.set(zmq::sockopt::ipv6, is_ipv6_host(config_.host));
  remote_.connect(remote_endpoint());
}

void PupilReceiver::open_subscriber(int sub_port) {
  sub_port_ = sub_port;
  sub_endpoint_ = endpoint(sub_port);
  subscriber_ = zmq::socket_t(context_, zmq::socket_type::sub);
  subscriber_.set(zmq::sockopt::linger, 0);
  subscriber_.set(zmq::sockopt::maxmsgsize, PupilGaze::kMaxMessageBytes);
  subscriber_.set(zmq::sockopt::rcvhwm, PupilGaze::kReceiveHighWaterMark);
  // The frames of a message arrive together; the timeout only guards read_message against
  // a libzmq that broke that promise.
  subscriber_.set(zmq::sockopt::rcvtimeo, 100);
  subscriber_.set(zmq::sockopt::ipv6, is_ipv6_host(config_.host));
  subscriber_.set(zmq::sockopt::subscribe, config_.subscription);

  // Measured with libzmq 4.3.4 (a scratch program, PUB to SUB on loopback): a frame over
  // ZMQ_MAXMSGSIZE costs the SUB one ZMQ_EVENT_DISCONNECTED, no message, and then nothing
  // more: no CONNECT_RETRIED, no reconnection, the SUB stays deaf for good (the decoder's
  // EMSGSIZE is a protocol error, and session_base_t::engine_error ends the session on
  // those rather than reconnecting). A peer that closes gives DISCONNECTED followed by
  // CONNECT_RETRIED and reconnects by itself. So every DISCONNECTED counts as one dropped
  // input (a lost connection) and is answered with zmq_disconnect + zmq_connect of the
  // endpoint, which restores delivery in both cases (measured too). The monitor reports
  // only that event.
  const std::string monitor_endpoint = "inproc://fovea-pupil-sub-monitor-" + std::to_string(++monitors_opened_);
  if (zmq_socket_monitor(subscriber_.handle(), monitor_endpoint.c_str(), ZMQ_EVENT_DISCONNECTED) != 0)
    throw zmq::error_t();
  monitor_ = zmq::socket_t(context_, zmq::socket_type::pair);
  monitor_.set(zmq::sockopt::linger, 0);
  monitor_.connect(monitor_endpoint);
  subscriber_.connect(sub_endpoint_);
}

void PupilReceiver::close_sockets() {
  if (subscriber_) zmq_socket_monitor(subscriber_.handle(), nullptr, 0);
  monitor_.close();
  subscriber_.close();
  remote_.close();
}

PupilReceiver::SessionEnd PupilReceiver::receive(const std::stop_token& stop) {
  const PupilTimings& timings = config_.timings;
  loss_counted_ = false;
  double last_heard_s = gaze_wall_clock_s();
  double next_sync_s = last_heard_s + timings.clock_sync_period_s;
  while (!stop.stop_requested()) {
    zmq::pollitem_t items[] = {{subscriber_.handle(), 0, ZMQ_POLLIN, 0}, {monitor_.handle(), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, 2, kPollSlice);
    if (items[0].revents & ZMQ_POLLIN) {
      for (int i = 0; i < kMessagesPerWakeUp; ++i) {
        const std::size_t frames = read_message();
        if (frames == 0) break;
        handle_message(frames);
        loss_counted_ = false;  // heard again: a later loss is a new one
      }
      last_heard_s = gaze_wall_clock_s();
    }
    if (items[1].revents & ZMQ_POLLIN) handle_monitor_events();

    if (gaze_wall_clock_s() - last_heard_s >= timings.stall_timeout_s) {
      if (const std::optional<SessionEnd> end = probe_silent_subscriber(stop)) return *end;
      last_heard_s = gaze_wall_clock_s();
    }
    // At most one early re-sync per second, so a tracker whose time stamps never agree with
    // its `t` answers costs a few requests a second, not a busy loop.
    const bool early = resync_now_ && gaze_wall_clock_s() >= next_sync_s - timings.clock_sync_period_s + 1.0;
    if (early || gaze_wall_clock_s() >= next_sync_s) {
      resync_now_ = false;
      // A failed re-sync keeps the previous estimate; the stall probe decides about losses.
      if (const std::optional<double> offset_s = measure_clock_offset(stop)) {
        clock_offset_s_ = *offset_s;
        shared_offset_s_.store(clock_offset_s_, std::memory_order_relaxed);
      }
      next_sync_s = gaze_wall_clock_s() + timings.clock_sync_period_s;
    }
  }
  return SessionEnd::stopped;
}

std::optional<PupilReceiver::SessionEnd> PupilReceiver::probe_silent_subscriber(const std::stop_token& stop) {
  // Silence is normal while the surface is out of the world camera's view; silence and no
  // answer is a loss. The probe asks SUB_PORT rather than t: a Pupil Capture restarted
  // within the stall timeout answers either, but only SUB_PORT tells that the SUB, which
  // ZeroMQ keeps reconnecting to the old port, will never hear from it again.
  RemoteReply reply;
  const Reply answer = request(stop, "SUB_PORT", reply);
  if (answer == Reply::stopped) return SessionEnd::stopped;
  if (answer == Reply::unanswered) return SessionEnd::lost;
  loss_counted_ = false;  // Remote answers: a DISCONNECTED before this was a loss of its own
  const std::optional<int> port = reply.usable() ? parse_port(reply.text()) : std::nullopt;
  if (!port) {
    inbox_.count_dropped();  // a wrong answer, but an answer: Remote is there
    return std::nullopt;
  }
  if (*port != sub_port_) return SessionEnd::moved;
  return std::nullopt;
}

void PupilReceiver::handle_monitor_events() {
  zmq::message_t event, address;
  while (monitor_.recv(event, zmq::recv_flags::dontwait)) {
    // An event is two frames: the 16-bit event id and a 32-bit value, then the peer's
    // endpoint, which is not needed (the SUB has one).
    std::uint16_t id = 0;
    if (event.size() >= sizeof id) std::memcpy(&id, event.data(), sizeof id);
    for (bool more = event.more(); more && monitor_.recv(address, zmq::recv_flags::dontwait);) more = address.more();
    if (id != ZMQ_EVENT_DISCONNECTED) continue;
    inbox_.count_dropped();
    loss_counted_ = true;
    try {
      subscriber_.disconnect(sub_endpoint_);
    } catch (const zmq::error_t&) {
      // Already forgotten by libzmq: connecting again is all that is needed.
    }
    subscriber_.connect(sub_endpoint_);
  }
}

std::size_t PupilReceiver::read_message() {
  if (!subscriber_.recv(topic_, zmq::recv_flags::dontwait)) return 0;
  std::size_t frames = 1;
  const zmq::message_t* last = &topic_;
  if (last->more() && subscriber_.recv(payload_)) {
    last = &payload_;
    ++frames;
  }
  // Further frames (Pupil's frame publisher appends image data) are read and discarded one
  // by one, so a message of many frames never holds more than one of them here.
  while (last->more() && subscriber_.recv(discarded_)) {
    last = &discarded_;
    ++frames;
  }
  return frames;
}

TopicKind PupilReceiver::classify_topic() const {
  const std::string_view topic(static_cast<const char*>(topic_.data()), topic_.size());
  if (topic.empty() || topic.size() > kMaxTopicBytes) return TopicKind::malformed;
  for (const char c : topic)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return TopicKind::malformed;
  // The subscription is a prefix match: "surfaces.screen" lets "surfaces.screen_left" in.
  if (config_.topic == PupilTopic::surface) return topic == config_.subscription ? TopicKind::ours : TopicKind::other;
  return TopicKind::ours;
}

void PupilReceiver::handle_message(std::size_t frames) {
  if (frames < 2) {
    inbox_.count_dropped();
    return;
  }
  const TopicKind topic = classify_topic();
  if (topic == TopicKind::other) return;
  if (topic == TopicKind::malformed) {
    inbox_.count_dropped();
    return;
  }
  const std::span<const std::uint8_t> payload(static_cast<const std::uint8_t*>(payload_.data()), payload_.size());
  const bool well_formed = decode_pupil_payload(payload, config_.topic, entries_);
  if (!well_formed) {
    inbox_.count_dropped();
    return;
  }
  publish(entries_);
}

GazeSample PupilReceiver::to_sample(const PupilEntry& entry) const {
  // Pupil's normalised coordinates: origin bottom-left, y up; fovea's pixels: top-left, y down.
  GazeSample sample;
  sample.x_px = std::clamp(entry.x_norm, 0.0, 1.0) * config_.width_px;
  sample.y_px = (1.0 - std::clamp(entry.y_norm, 0.0, 1.0)) * config_.height_px;
  sample.valid = true;
  sample.time_s = entry.timestamp_s - clock_offset_s_;
  sample.tracker_time_s = entry.timestamp_s;
  sample.confidence = entry.confidence;
  return sample;
}

void PupilReceiver::publish(const std::vector<PupilEntry>& entries) {
  if (entries.empty()) return;
  bool any_accepted = false;
  double newest_s = entries.front().timestamp_s;
  for (const PupilEntry& entry : entries) {
    newest_s = std::max(newest_s, entry.timestamp_s);
    if (!entry.on_surf || entry.confidence < config_.min_confidence) continue;
    const GazeSample sample = to_sample(entry);
    const double age_s = gaze_wall_clock_s() - sample.time_s;
    if (age_s < -kClockJumpTolerance_s || age_s > kMaxTransitAge_s) resync_now_ = true;
    inbox_.publish(sample);
    any_accepted = true;
  }
  if (any_accepted) return;
  // The tracker is saying "no fixation on the screen now" (a blink, a look away): an
  // invalid sample at that time, so the frame falls back instead of holding an old point.
  GazeSample none;
  none.valid = false;
  none.time_s = newest_s - clock_offset_s_;
  none.confidence = 0;
  inbox_.publish(none);
}

PupilConfig make_config(const GazeSettings& settings, const ScreenSettings& screen, const PupilTimings& timings) {
  validate_screen(screen);
  if (settings.host.empty()) throw std::invalid_argument("gaze.host must name the machine running Pupil Capture");
  if (settings.port < 0 || settings.port > 65535)
    throw std::invalid_argument("gaze.port must be in 0..65535 (0: Pupil Remote's 50020), not " +
                                std::to_string(settings.port));
  if (settings.topic == PupilTopic::surface && settings.surface.empty())
    throw std::invalid_argument("gaze.surface must name the Surface Tracker's surface for the screen");
  if (!(settings.min_confidence >= 0 && settings.min_confidence <= 1))
    throw std::invalid_argument("gaze.min_confidence must be in [0, 1], not " + format_number(settings.min_confidence));
  // The request timeout becomes ZeroMQ's int milliseconds, hence its upper bound.
  const bool timings_valid = timings.valid() && timings.request_timeout_s > 0 && timings.request_timeout_s <= 1000 &&
                             timings.clock_sync_period_s > 0 && timings.clock_samples >= 1;
  if (!timings_valid)
    throw std::invalid_argument("PupilTimings: request_timeout_s must be in (0, 1000], the other intervals > 0 "
                                "(backoff_max_s >= backoff_first_s) and clock_samples >= 1");

  PupilConfig config;
  config.host = settings.host;
  config.remote_port = settings.port == 0 ? PupilGaze::kDefaultRemotePort : settings.port;
  config.topic = settings.topic;
  config.subscription = settings.topic == PupilTopic::surface ? "surfaces." + settings.surface : "gaze.";
  config.min_confidence = settings.min_confidence;
  config.width_px = screen.width_px;
  config.height_px = screen.height_px;
  config.timings = timings;
  return config;
}

}  // namespace

PupilGaze::PupilGaze(const GazeSettings& settings, const ScreenSettings& screen, PupilTimings timings)
    : receiver_([this, config = make_config(settings, screen, timings)](std::stop_token stop) {
        run_receiver(stop, inbox_, connected_, "pupil", [&](const std::stop_token& s) {
          PupilReceiver(config, inbox_, connected_, clock_offset_s_).run(s);
        });
      }) {}

}  // namespace fovea
