#include "trackers/stream_sender.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <zmq.hpp>

#include "core/format.hpp"
#include "gaze/gaze_source.hpp"
#include "trackers/stream_gaze.hpp"
#include "trackers/tcp_endpoint.hpp"

namespace fovea {

struct StreamSender::Sockets {
  zmq::context_t context;
  zmq::socket_t samples;  ///< PUSH, connected to fovea's PULL
  zmq::socket_t clock;    ///< REQ, connected to fovea's REP
};

StreamSender::StreamSender(const std::string& host, int port, double request_timeout_s)
    : request_timeout_s_(request_timeout_s), sockets_(std::make_unique<Sockets>()) {
  if (host.empty()) throw std::invalid_argument("StreamSender: host must name the machine fovea runs on");
  if (port < 0 || port > 65534)
    throw std::invalid_argument("StreamSender: port must be in 0..65534 (the clock is on the next), not " +
                                std::to_string(port));
  if (!(request_timeout_s > 0 && request_timeout_s <= 60))
    throw std::invalid_argument("StreamSender: request_timeout_s must be in (0, 60], not " +
                                format_number(request_timeout_s));
  const int samples_port = port == 0 ? StreamGaze::kDefaultPort : port;
  samples_endpoint_ = tcp_endpoint(host, samples_port);
  clock_endpoint_ = tcp_endpoint(host, samples_port + 1);
  const bool ipv6 = is_ipv6_host(host);
  zmq::socket_t& s = sockets_->samples;
  s = zmq::socket_t(sockets_->context, zmq::socket_type::push);
  s.set(zmq::sockopt::linger, 0);
  s.set(zmq::sockopt::sndhwm, kSendHighWaterMark);
  // Queue nothing for a fovea that is not there yet: its samples would arrive stale.
  s.set(zmq::sockopt::immediate, true);
  s.set(zmq::sockopt::ipv6, ipv6);
  s.connect(samples_endpoint_);
  open_clock();
}

StreamSender::~StreamSender() = default;

void StreamSender::open_clock() {
  zmq::socket_t& c = sockets_->clock;
  c = zmq::socket_t(sockets_->context, zmq::socket_type::req);
  c.set(zmq::sockopt::linger, 0);
  c.set(zmq::sockopt::maxmsgsize, std::int64_t{4096});
  c.set(zmq::sockopt::ipv6, clock_endpoint_.find('[') != std::string::npos);  // tcp_endpoint brackets IPv6
  c.connect(clock_endpoint_);
}

double StreamSender::fovea_time_s() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  zmq::socket_t& c = sockets_->clock;
  if (!c.send(zmq::str_buffer("t"), zmq::send_flags::dontwait)) {
    open_clock();
    return nan;
  }
  zmq::pollitem_t item{c.handle(), 0, ZMQ_POLLIN, 0};
  zmq::poll(&item, 1, std::chrono::milliseconds(static_cast<long>(std::ceil(request_timeout_s_ * 1000.0))));
  zmq::message_t reply;
  if (!(item.revents & ZMQ_POLLIN) || !c.recv(reply, zmq::recv_flags::dontwait)) {
    // A REQ whose request went unanswered refuses the next send: replace it.
    open_clock();
    return nan;
  }
  bool more = reply.more();
  zmq::message_t rest;
  while (more && c.recv(rest, zmq::recv_flags::dontwait)) more = rest.more();
  const std::optional<double> t = parse_finite_number(reply.to_string_view());
  return t ? *t : nan;
}

StreamClockSync StreamSender::sync_clock(const std::function<double()>& local_clock, int rounds) {
  if (rounds < 1 || rounds > 1000)
    throw std::invalid_argument("StreamSender.sync_clock: rounds must be in 1..1000, not " + std::to_string(rounds));
  StreamClockSync best;
  best.round_trip_s = std::numeric_limits<double>::infinity();
  for (int i = 0; i < rounds; ++i) {
    const double before = local_clock();
    const double fovea = fovea_time_s();
    const double after = local_clock();
    if (std::isnan(fovea)) continue;
    ++best.answered;
    // fovea read its clock somewhere in the round trip; its midpoint is the best guess, off by
    // at most half the trip. The shortest trip bounds it best.
    if (after - before < best.round_trip_s) {
      best.round_trip_s = after - before;
      best.offset_s = fovea - 0.5 * (before + after);
    }
  }
  if (best.answered == 0)
    throw std::runtime_error("StreamSender: no answer from fovea's clock at " + clock_endpoint_ + " within " +
                             format_number(request_timeout_s_) + " s: is fovea running with gaze.source: stream "
                             "on this port?");
  return best;
}

bool StreamSender::send(const StreamMessage& message) {
  const std::vector<std::uint8_t> bytes = encode_stream_message(message);
  const bool queued = sockets_->samples.send(zmq::buffer(bytes), zmq::send_flags::dontwait).has_value();
  ++(queued ? sent_ : unsent_);
  return queued;
}

bool StreamSender::send_bytes(const std::string& bytes) {
  return sockets_->samples.send(zmq::buffer(bytes), zmq::send_flags::dontwait).has_value();
}

}  // namespace fovea
