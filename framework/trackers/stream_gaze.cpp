#include "trackers/stream_gaze.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <zmq.hpp>

#include "core/format.hpp"
#include "gaze/gaze.hpp"
#include "perception/view.hpp"
#include "trackers/tcp_endpoint.hpp"

namespace fovea {
namespace {

/// Sample messages handled per wake-up before the loop looks at the clock socket, the
/// monitor, the stall timer and the stop request again, so a flood cannot starve them.
constexpr int kMessagesPerWakeUp = 256;
/// Clock requests answered per wake-up, for the same reason.
constexpr int kRequestsPerWakeUp = 16;
/// How long one poll waits: the receiver thread notices a stop within this.
constexpr std::chrono::milliseconds kPollSlice{10};
/// A sample stamped further ahead of fovea's clock than a frame accepts is a sender that
/// did not ask the clock socket, or a glitched stamp: kept, it would stay the newest and
/// every real sample after it would be refused as earlier.
constexpr double kFutureTolerance_s = Gaze::kFutureToleranceMs / 1000.0;

/// What the receiver needs, fixed at construction.
struct StreamConfig {
  std::string host;
  int samples_port = StreamGaze::kDefaultPort;
  double min_confidence = 0.6;
  double width_px = 0;
  double height_px = 0;
  ReconnectTimings timings;
};

/// The receiver thread's state: the ZeroMQ context and sockets live and die on that thread.
class StreamReceiver {
 public:
  StreamReceiver(const StreamConfig& config, GazeInbox& inbox, std::atomic<bool>& connected,
                 std::atomic<bool>& listening)
      : config_(config), inbox_(inbox), connected_(connected), listening_(listening) {}

  /// Binds, receives, and binds again with backoff after a failure, until `stop`.
  void run(const std::stop_token& stop);

 private:
  void bind();
  /// The clock's REP socket, bound anew (at the start, and after a reply could not be sent,
  /// which leaves a REP socket unable to read the next request).
  void bind_clock();
  void close_sockets();
  /// Receives until `stop` or a socket error.
  void receive(const std::stop_token& stop);
  void read_samples();
  void answer_clock_requests();
  void handle_monitor_events();
  /// One sample message's bytes: published, turned into an invalid sample, or dropped.
  void handle(std::span<const std::uint8_t> bytes, std::size_t frames);
  /// Counts a dropped message and says the first of a sender's reasons.
  void drop(const std::string& reason);
  std::string endpoint(int port) const;

  StreamConfig config_;
  GazeInbox& inbox_;
  std::atomic<bool>& connected_;
  std::atomic<bool>& listening_;
  bool failure_said_ = false;
  bool drop_said_ = false;    ///< a dropped message was said since samples last flowed
  bool silence_said_ = true;  ///< no sender yet counts as silent, said by "listening"
  double last_accepted_s_ = -INFINITY;  ///< the newest accepted sample's time, fovea's clock
  double last_heard_s_ = 0;             ///< when the last sample message arrived (wall)
  int monitors_opened_ = 0;

  zmq::context_t context_;
  zmq::socket_t samples_;  ///< PULL, bound: the senders' PUSH sockets connect
  zmq::socket_t clock_;    ///< REP, bound: `t` requests
  zmq::socket_t monitor_;  ///< PAIR receiving samples_'s DISCONNECTED events
  zmq::message_t frame_, discarded_;
};

std::string StreamReceiver::endpoint(int port) const {
  return tcp_endpoint(config_.host, port);
}

void StreamReceiver::run(const std::stop_token& stop) {
  Backoff backoff = config_.timings.backoff();
  while (!stop.stop_requested()) {
    try {
      bind();
      failure_said_ = false;
      listening_.store(true, std::memory_order_relaxed);
      inbox_.post("stream: listening for samples on " + endpoint(config_.samples_port) + ", clock on " +
                  endpoint(config_.samples_port + 1));
      backoff.reset();
      receive(stop);
    } catch (const zmq::error_t& e) {
      // A port in use (another fovea, a stale process), a host that is not this machine's:
      // said once, retried, the run going on with the fallback.
      if (!failure_said_)
        inbox_.post("stream: cannot listen on " + endpoint(config_.samples_port) + " and " +
                    endpoint(config_.samples_port + 1) + ": " + e.what() + "; using the fallback and retrying");
      failure_said_ = true;
    }
    listening_.store(false, std::memory_order_relaxed);
    connected_.store(false, std::memory_order_relaxed);
    close_sockets();
    if (!sleep_unless_stopped(stop, backoff.next_delay_s())) break;
  }
  close_sockets();
}

void StreamReceiver::bind() {
  const bool ipv6 = is_ipv6_host(config_.host);
  samples_ = zmq::socket_t(context_, zmq::socket_type::pull);
  samples_.set(zmq::sockopt::linger, 0);
  samples_.set(zmq::sockopt::maxmsgsize, StreamGaze::kMaxFrameBytes);
  samples_.set(zmq::sockopt::rcvhwm, StreamGaze::kReceiveHighWaterMark);
  samples_.set(zmq::sockopt::ipv6, ipv6);
  // A frame that exceeds ZMQ_MAXMSGSIZE ends its sender's connection with one DISCONNECTED
  // event and no message (measured for Pupil's SUB, trackers/pupil_gaze.cpp); a sender that
  // quits gives the same event. Both are a lost connection, one dropped input. The sender's
  // side reconnects by itself.
  const std::string monitor_endpoint = "inproc://fovea-stream-monitor-" + std::to_string(++monitors_opened_);
  if (zmq_socket_monitor(samples_.handle(), monitor_endpoint.c_str(), ZMQ_EVENT_DISCONNECTED) != 0)
    throw zmq::error_t();
  monitor_ = zmq::socket_t(context_, zmq::socket_type::pair);
  monitor_.set(zmq::sockopt::linger, 0);
  monitor_.connect(monitor_endpoint);
  samples_.bind(endpoint(config_.samples_port));
  bind_clock();
}

void StreamReceiver::bind_clock() {
  clock_.close();
  clock_ = zmq::socket_t(context_, zmq::socket_type::rep);
  clock_.set(zmq::sockopt::linger, 0);
  clock_.set(zmq::sockopt::maxmsgsize, std::int64_t{4096});
  clock_.set(zmq::sockopt::ipv6, is_ipv6_host(config_.host));
  clock_.bind(endpoint(config_.samples_port + 1));
}

void StreamReceiver::close_sockets() {
  if (samples_) zmq_socket_monitor(samples_.handle(), nullptr, 0);
  monitor_.close();
  samples_.close();
  clock_.close();
}

void StreamReceiver::receive(const std::stop_token& stop) {
  last_heard_s_ = gaze_wall_clock_s();
  while (!stop.stop_requested()) {
    zmq::pollitem_t items[] = {{samples_.handle(), 0, ZMQ_POLLIN, 0},
                               {clock_.handle(), 0, ZMQ_POLLIN, 0},
                               {monitor_.handle(), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, 3, kPollSlice);
    if (items[1].revents & ZMQ_POLLIN) answer_clock_requests();
    if (items[0].revents & ZMQ_POLLIN) read_samples();
    if (items[2].revents & ZMQ_POLLIN) handle_monitor_events();
    if (!silence_said_ && gaze_wall_clock_s() - last_heard_s_ >= config_.timings.stall_timeout_s) {
      connected_.store(false, std::memory_order_relaxed);
      inbox_.post("stream: no samples for " + format_significant(config_.timings.stall_timeout_s * 1000.0, 4) +
                  " ms; using the fallback until the sender is back");
      silence_said_ = true;
    }
  }
}

void StreamReceiver::answer_clock_requests() {
  for (int i = 0; i < kRequestsPerWakeUp; ++i) {
    if (!clock_.recv(frame_, zmq::recv_flags::dontwait)) return;
    // A request arrives whole; its further parts are read and let go one by one.
    bool extra_parts = false;
    for (bool more = frame_.more(); more && clock_.recv(discarded_, zmq::recv_flags::dontwait);) {
      more = discarded_.more();
      extra_parts = true;
    }
    const std::string_view request(static_cast<const char*>(frame_.data()), frame_.size());
    std::string reply;
    if (request == "t" && !extra_parts) {
      char text[64];
      std::snprintf(text, sizeof text, "%.9f", gaze_wall_clock_s());
      reply = text;
    } else {
      inbox_.count_dropped();
      reply = "error: fovea's clock socket answers t, not " +
              (request.size() > StreamGaze::kMaxRequestBytes ? std::string("a request this long")
                                                              : "\"" + excerpt(std::string(request)) + "\"");
    }
    // REP must answer before it can read the next request; a sender gone in between costs
    // nothing (ZeroMQ drops the reply). A reply that cannot be queued at all leaves the socket
    // waiting to send, refusing every request after: bound anew, the senders reconnect.
    if (!clock_.send(zmq::buffer(reply), zmq::send_flags::dontwait)) {
      inbox_.post("stream: a clock reply could not be sent; the clock socket is opened again");
      bind_clock();
      return;
    }
  }
}

void StreamReceiver::handle_monitor_events() {
  zmq::message_t event, address;
  while (monitor_.recv(event, zmq::recv_flags::dontwait)) {
    std::uint16_t id = 0;
    if (event.size() >= sizeof id) std::memcpy(&id, event.data(), sizeof id);
    for (bool more = event.more(); more && monitor_.recv(address, zmq::recv_flags::dontwait);) more = address.more();
    if (id == ZMQ_EVENT_DISCONNECTED) inbox_.count_dropped();
  }
}

void StreamReceiver::read_samples() {
  for (int i = 0; i < kMessagesPerWakeUp; ++i) {
    if (!samples_.recv(frame_, zmq::recv_flags::dontwait)) return;
    // ZeroMQ delivers a message whole: its further parts are all there, read without
    // waiting and let go one by one. Each part is bounded (kMaxFrameBytes), their number is
    // not: ZeroMQ has no such bound, and holds them all before the first is readable (so
    // gaze.host is 127.0.0.1 by default; docs/gaze.md, "The stream protocol").
    std::size_t frames = 1;
    for (bool more = frame_.more(); more && samples_.recv(discarded_, zmq::recv_flags::dontwait);) {
      more = discarded_.more();
      ++frames;
    }
    handle(std::span(static_cast<const std::uint8_t*>(frame_.data()), frame_.size()), frames);
  }
}

void StreamReceiver::drop(const std::string& reason) {
  inbox_.count_dropped();
  if (drop_said_) return;
  inbox_.post("stream: dropped a sample message: " + reason + " (docs/gaze.md, \"The stream protocol\"); "
              "further ones are counted in dropped, not said until samples flow again");
  drop_said_ = true;
}

void StreamReceiver::handle(std::span<const std::uint8_t> bytes, std::size_t frames) {
  const double arrival_s = gaze_wall_clock_s();
  if (frames != 1) return drop("a message of " + std::to_string(frames) + " parts, not 1");
  if (bytes.size() > static_cast<std::size_t>(kStreamMaxMessageBytes))
    return drop("a message of " + std::to_string(bytes.size()) + " bytes, more than " +
                std::to_string(kStreamMaxMessageBytes));
  StreamMessage m;
  if (const std::string reason = decode_stream_message(bytes, m); !reason.empty()) return drop(reason);
  // Times on fovea's clock: not from the future, not from long ago, never going back.
  if (m.time_s > arrival_s + kFutureTolerance_s)
    return drop("t is " + format_significant((m.time_s - arrival_s) * 1000.0, 4) +
                " ms ahead of fovea's clock: did the sender ask the clock socket for t?");
  if (arrival_s - m.time_s > StreamGaze::kMaxTransitAge_s)
    return drop("t is " + format_significant(arrival_s - m.time_s, 4) + " s old on arrival");
  if (m.time_s < last_accepted_s_) return drop("t went back, before the newest sample's");
  last_accepted_s_ = m.time_s;
  // Only an accepted sample says the sender is there: garbage does not keep a silent one alive.
  last_heard_s_ = arrival_s;
  if (silence_said_) {
    inbox_.post("stream: samples arriving on " + endpoint(config_.samples_port));
    silence_said_ = false;
    drop_said_ = false;
  }
  connected_.store(true, std::memory_order_relaxed);

  GazeSample sample;
  sample.time_s = m.time_s;
  sample.tracker_time_s = m.tracker_time_s;
  sample.arrival_s = arrival_s;
  sample.confidence = m.confidence;
  sample.x_px = m.units == StreamUnits::norm ? m.x * config_.width_px : m.x;
  sample.y_px = m.units == StreamUnits::norm ? m.y * config_.height_px : m.y;
  // The screen's edges count as on it; a point off it is the viewer looking away, and a
  // sample below min_confidence one the tracker is unsure of: both say "no fixation now",
  // so the frame falls back rather than holding an older point.
  const bool on_screen = sample.x_px >= 0 && sample.x_px <= config_.width_px && sample.y_px >= 0 &&
                         sample.y_px <= config_.height_px;
  sample.valid = m.valid && on_screen && m.confidence >= config_.min_confidence;
  inbox_.publish(sample);
}

StreamConfig make_config(const GazeSettings& settings, const ScreenSettings& screen, const ReconnectTimings& timings) {
  validate_screen(screen);
  if (settings.host.empty())
    throw std::invalid_argument("gaze.host must name the address fovea listens on for the stream (127.0.0.1: this machine only)");
  if (settings.port < 0 || settings.port > 65534)
    throw std::invalid_argument("gaze.port must be in 0..65534 for the stream, whose clock answers on the next port "
                                "(0: " + std::to_string(StreamGaze::kDefaultPort) + "), not " + std::to_string(settings.port));
  if (!(settings.min_confidence >= 0 && settings.min_confidence <= 1))
    throw std::invalid_argument("gaze.min_confidence must be in [0, 1], not " + format_number(settings.min_confidence));
  if (!timings.valid())
    throw std::invalid_argument("ReconnectTimings: every interval must be > 0 (backoff_max_s >= backoff_first_s)");
  StreamConfig config;
  config.host = settings.host;
  config.samples_port = settings.port == 0 ? StreamGaze::kDefaultPort : settings.port;
  config.min_confidence = settings.min_confidence;
  config.width_px = screen.width_px;
  config.height_px = screen.height_px;
  config.timings = timings;
  return config;
}

}  // namespace

StreamGaze::StreamGaze(const GazeSettings& settings, const ScreenSettings& screen, ReconnectTimings timings)
    : samples_port_(make_config(settings, screen, timings).samples_port),
      receiver_([this, config = make_config(settings, screen, timings)](std::stop_token stop) {
        run_receiver(stop, inbox_, connected_, "stream", [&](const std::stop_token& s) {
          StreamReceiver(config, inbox_, connected_, listening_).run(s);
        });
      }) {}

}  // namespace fovea
