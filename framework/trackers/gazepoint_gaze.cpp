#include "trackers/gazepoint_gaze.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "core/format.hpp"
#include "perception/view.hpp"

namespace fovea {
namespace {

/// Every wait of the receiver thread is sliced at this, so it sees a stop request soon.
constexpr int kPollSlice_ms = 10;

/// The commands that make Gazepoint stream the fixation point: the POG_FIX fields in each
/// REC, then the records themselves (Open Gaze API, ENABLE_SEND_* SET commands).
constexpr std::string_view kEnableCommands =
    "<SET ID=\"ENABLE_SEND_POG_FIX\" STATE=\"1\" />\r\n"
    "<SET ID=\"ENABLE_SEND_DATA\" STATE=\"1\" />\r\n";

bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/// Printable ASCII other than the quote that ends a value and the brackets of markup.
bool is_value_char(char c) { return c >= 0x20 && c <= 0x7e && c != '"' && c != '<' && c != '>'; }

bool is_space(char c) { return c == ' ' || c == '\t'; }

/// Whitespace allowed between elements: the API's CRLF, and blanks.
bool is_separator(char c) { return is_space(c) || c == '\r' || c == '\n'; }

/// The longest run of name characters at the start of `text`.
std::string_view take_name(std::string_view text) {
  std::size_t n = 0;
  while (n < text.size() && is_name_char(text[n])) ++n;
  return text.substr(0, n);
}

/// errno's text with a lower-case first letter, to sit inside a message's parentheses.
std::string errno_text(int error) {
  std::string text = std::strerror(error);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

/// "host:port", with an IPv6 address in brackets.
std::string endpoint_text(const std::string& host, int port) {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

/// A socket descriptor, closed when it goes out of scope.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(Socket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Socket& operator=(Socket&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

/// getaddrinfo's answer, freed when it goes out of scope.
struct AddressList {
  addrinfo* head = nullptr;
  AddressList() = default;
  AddressList(const AddressList&) = delete;
  AddressList& operator=(const AddressList&) = delete;
  ~AddressList() {
    if (head != nullptr) freeaddrinfo(head);
  }
};

/// Waits for `events` on `fd` up to `timeout_s`, in slices that watch `stop`. Returns the
/// revents, or 0 on timeout or stop, or -1 with errno set.
int wait_for(const std::stop_token& stop, int fd, short events, double timeout_s) {
  const double end_s = gaze_wall_clock_s() + timeout_s;
  while (!stop.stop_requested()) {
    const double left_ms = (end_s - gaze_wall_clock_s()) * 1000.0;
    if (left_ms <= 0) return 0;
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, std::min(kPollSlice_ms, static_cast<int>(std::ceil(left_ms))));
    if (ready < 0 && errno != EINTR) return -1;
    if (ready > 0) return p.revents;
  }
  return 0;
}

/// A non-blocking TCP connection to `address` within `timeout_s`; an invalid Socket with
/// `error` set when refused, unreachable, timed out or stopped.
Socket connect_with_timeout(const std::stop_token& stop, const addrinfo& address, double timeout_s,
                            std::string& error) {
  Socket socket(::socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                         address.ai_protocol));
  if (socket.fd() < 0) {
    error = errno_text(errno);
    return {};
  }
  if (::connect(socket.fd(), address.ai_addr, address.ai_addrlen) == 0) return socket;
  if (errno != EINPROGRESS) {
    error = errno_text(errno);
    return {};
  }
  const int revents = wait_for(stop, socket.fd(), POLLOUT, timeout_s);
  if (revents < 0) {
    error = errno_text(errno);
    return {};
  }
  if (revents == 0) {
    error = "no answer within " + format_number(timeout_s * 1000.0) + " ms";
    return {};
  }
  int status = 0;
  socklen_t length = sizeof status;
  if (::getsockopt(socket.fd(), SOL_SOCKET, SO_ERROR, &status, &length) != 0) status = errno;
  if (status != 0) {
    error = errno_text(status);
    return {};
  }
  return socket;
}

/// Sends all of `bytes` within `timeout_s`. MSG_NOSIGNAL: a peer that has gone away gives
/// EPIPE here instead of a SIGPIPE that would end the process.
bool send_all(const std::stop_token& stop, int fd, std::string_view bytes, double timeout_s, std::string& error) {
  while (!bytes.empty()) {
    const ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(sent));
      continue;
    }
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      error = errno_text(errno);
      return false;
    }
    const int revents = wait_for(stop, fd, POLLOUT, timeout_s);
    if (revents <= 0) {
      error = revents < 0 ? errno_text(errno) : "the tracker does not take the commands";
      return false;
    }
  }
  return true;
}

}  // namespace

// --- Parsing --------------------------------------------------------------------------

std::optional<std::string_view> OpenGazeElement::attribute(std::string_view name) const {
  for (const auto& [key, value] : attributes)
    if (key == name) return value;
  return std::nullopt;
}

std::optional<OpenGazeElement> parse_open_gaze_element(std::string_view text) {
  if (text.size() < 4 || text.front() != '<' || !text.ends_with("/>")) return std::nullopt;
  std::string_view rest = text.substr(1, text.size() - 3);  // between '<' and "/>"
  OpenGazeElement element;
  element.tag = take_name(rest);
  if (element.tag.empty()) return std::nullopt;
  rest.remove_prefix(element.tag.size());
  for (;;) {
    std::size_t blanks = 0;
    while (blanks < rest.size() && is_space(rest[blanks])) ++blanks;
    rest.remove_prefix(blanks);
    if (rest.empty()) break;
    if (blanks == 0) return std::nullopt;  // attributes are separated from what precedes them
    const std::string_view name = take_name(rest);
    if (name.empty()) return std::nullopt;
    rest.remove_prefix(name.size());
    if (!rest.starts_with("=\"")) return std::nullopt;
    rest.remove_prefix(2);
    std::size_t length = 0;
    while (length < rest.size() && is_value_char(rest[length])) ++length;
    if (length == rest.size() || rest[length] != '"') return std::nullopt;
    element.attributes.emplace_back(name, rest.substr(0, length));
    rest.remove_prefix(length + 1);
  }
  // Duplicates by sorting the names: O(n log n) even for the ~800 one-letter attributes a
  // hostile 4 KiB element can hold.
  std::vector<std::string_view> names;
  names.reserve(element.attributes.size());
  for (const auto& attribute : element.attributes) names.push_back(attribute.first);
  std::sort(names.begin(), names.end());
  if (std::adjacent_find(names.begin(), names.end()) != names.end()) return std::nullopt;
  return element;
}

std::optional<OpenGazeFixation> read_fixation(const OpenGazeElement& record) {
  const auto x_text = record.attribute("FPOGX");
  const auto y_text = record.attribute("FPOGY");
  const auto valid_text = record.attribute("FPOGV");
  if (!x_text || !y_text || !valid_text) return std::nullopt;
  if (*valid_text != "0" && *valid_text != "1") return std::nullopt;
  const auto x = parse_finite_number(*x_text);
  const auto y = parse_finite_number(*y_text);
  if (!x || !y) return std::nullopt;
  const auto within_a_screen = [](double fraction) { return fraction >= -1.0 && fraction <= 2.0; };
  if (!within_a_screen(*x) || !within_a_screen(*y)) return std::nullopt;
  return OpenGazeFixation{*x, *y, *valid_text == "1"};
}

// --- Framing --------------------------------------------------------------------------

OpenGazeFramer::OpenGazeFramer() { buffer_.reserve(kMaxRecordBytes + GazepointGaze::kReadBytes); }

void OpenGazeFramer::append(std::string_view bytes) { buffer_.append(bytes); }

std::uint64_t OpenGazeFramer::take_dropped() { return std::exchange(dropped_, 0); }

void OpenGazeFramer::skip_to_element_start() {
  while (start_ < buffer_.size() && buffer_[start_] != '<') {
    if (!in_garbage_ && !is_separator(buffer_[start_])) {
      in_garbage_ = true;
      ++dropped_;
    }
    ++start_;
  }
  if (start_ < buffer_.size()) in_garbage_ = false;
}

void OpenGazeFramer::compact() {
  buffer_.erase(0, start_);
  start_ = 0;
}

std::optional<std::string_view> OpenGazeFramer::next_element() {
  for (;;) {
    skip_to_element_start();
    if (start_ == buffer_.size()) {
      compact();
      return std::nullopt;
    }
    // On from where the last call stopped, to whichever comes first: the element's end or
    // another '<'.
    std::size_t i = start_ + std::max<std::size_t>(1, scanned_);
    while (i < buffer_.size() && buffer_[i] != '<' && !(buffer_[i] == '>' && buffer_[i - 1] == '/')) ++i;
    if (i == buffer_.size()) {
      scanned_ = i - start_;
      if (scanned_ > kMaxRecordBytes) {
        // Too long to be an element: discard it, and what follows up to the next '<'.
        ++dropped_;
        in_garbage_ = true;
        start_ = buffer_.size();
        scanned_ = 0;
      }
      compact();
      return std::nullopt;
    }
    scanned_ = 0;
    if (buffer_[i] == '<') {  // truncated: resume at the new element
      ++dropped_;
      start_ = i;
      continue;
    }
    const std::size_t first = start_;
    const std::size_t length = i + 1 - first;
    start_ = i + 1;
    if (length > kMaxRecordBytes) {
      ++dropped_;
      continue;
    }
    return std::string_view(buffer_).substr(first, length);
  }
}

// --- The source -----------------------------------------------------------------------

GazepointGaze::GazepointGaze(const GazeSettings& settings, const ScreenSettings& screen, GazepointTimings timings)
    : host_(settings.host), port_(settings.port == 0 ? kDefaultPort : settings.port), timings_(timings) {
  validate_screen(screen);
  if (host_.empty()) throw std::invalid_argument("gaze.host: empty; give the address of the Gazepoint server");
  if (!timings.valid() || !(timings.connect_timeout_s > 0))
    throw std::invalid_argument("GazepointTimings: every interval must be > 0 (backoff_max_s >= backoff_first_s)");
  if (settings.port < 0 || settings.port > 65535)
    throw std::invalid_argument("gaze.port must be in [0, 65535] (0: Gazepoint's 4242), not " +
                                std::to_string(settings.port));
  endpoint_ = endpoint_text(host_, port_);
  width_px_ = screen.width_px;
  height_px_ = screen.height_px;
  thread_ = std::jthread([this](std::stop_token stop) {
    run_receiver(stop, inbox_, connected_, "gazepoint", [this](const std::stop_token& s) { run(s); });
  });
}

void GazepointGaze::run(const std::stop_token& stop) {
  Backoff backoff = timings_.backoff();
  // Once a message has said the tracker is unreachable or lost, failed attempts stay quiet.
  bool said_unreachable = false;
  while (!stop.stop_requested()) {
    std::string error;
    Socket socket(connect_to_tracker(stop, error));
    if (stop.stop_requested()) return;
    if (socket.fd() < 0) {
      if (!said_unreachable)
        inbox_.post("gazepoint: cannot connect to " + endpoint_ + " (" + error + "); using the fallback and retrying");
      said_unreachable = true;
      sleep_unless_stopped(stop, backoff.next_delay_s());
      continue;
    }
    inbox_.post("gazepoint: connected to " + endpoint_);
    const std::string reason = serve(stop, socket.fd(), backoff);
    socket = Socket();
    if (stop.stop_requested()) return;
    // Drop and message before connected() turns false, so whoever sees it false sees both.
    inbox_.count_dropped();
    inbox_.post("gazepoint: lost " + endpoint_ + " (" + reason + "); using the fallback and reconnecting");
    connected_.store(false);
    said_unreachable = true;
    // Backoff resets only on a record: a peer that accepts and closes at once is retried
    // ever more slowly, not in a loop.
    sleep_unless_stopped(stop, backoff.next_delay_s());
  }
}

int GazepointGaze::connect_to_tracker(const std::stop_token& stop, std::string& error) const {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  AddressList addresses;
  const std::string service = std::to_string(port_);
  const int status = ::getaddrinfo(host_.c_str(), service.c_str(), &hints, &addresses.head);
  if (status != 0) {
    error = std::string("cannot resolve the host: ") + gai_strerror(status);
    return -1;
  }
  for (const addrinfo* a = addresses.head; a != nullptr && !stop.stop_requested(); a = a->ai_next) {
    Socket socket = connect_with_timeout(stop, *a, timings_.connect_timeout_s, error);
    if (socket.fd() >= 0) return socket.release();
  }
  return -1;
}

std::string GazepointGaze::serve(const std::stop_token& stop, int fd, Backoff& backoff) {
  std::string error;
  if (!send_all(stop, fd, kEnableCommands, timings_.connect_timeout_s, error))
    return "cannot send the commands: " + error;
  connected_.store(true);
  OpenGazeFramer framer;
  std::array<char, kReadBytes> chunk{};
  double last_bytes_s = gaze_wall_clock_s();
  while (!stop.stop_requested()) {
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, kPollSlice_ms);
    if (ready < 0 && errno != EINTR) return errno_text(errno);
    if (ready <= 0) {
      if (gaze_wall_clock_s() - last_bytes_s > timings_.stall_timeout_s)
        return "no data for " + format_number(timings_.stall_timeout_s) + " s";
      continue;
    }
    const ssize_t received = ::recv(fd, chunk.data(), chunk.size(), 0);
    if (received == 0) return "the tracker closed the connection";
    if (received < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return errno_text(errno);
    }
    last_bytes_s = gaze_wall_clock_s();
    if (take_bytes(framer, std::string_view(chunk.data(), static_cast<std::size_t>(received)), last_bytes_s))
      backoff.reset();
  }
  return {};
}

bool GazepointGaze::take_bytes(OpenGazeFramer& framer, std::string_view bytes, double received_s) {
  framer.append(bytes);
  const std::size_t buffered = framer.buffered_bytes();
  if (buffered > peak_buffered_bytes_.load(std::memory_order_relaxed)) peak_buffered_bytes_.store(buffered);
  bool had_record = false;
  for (;;) {
    const std::optional<std::string_view> text = framer.next_element();
    // Drops before the sample that follows them: whoever sees the sample sees the count.
    if (const std::uint64_t dropped = framer.take_dropped(); dropped > 0) inbox_.count_dropped(dropped);
    if (!text) return had_record;
    had_record = take_element(*text, received_s) || had_record;
  }
}

bool GazepointGaze::take_element(std::string_view text, double received_s) {
  const std::optional<OpenGazeElement> element = parse_open_gaze_element(text);
  if (!element) {
    inbox_.count_dropped();
    return false;
  }
  if (element->tag == "NACK") {
    // The text comes from the peer: quoted as an excerpt (core/format.hpp).
    const std::string id = excerpt(element->attribute("ID").value_or("?"));
    inbox_.post("gazepoint: the tracker refused the command " + id + " (NACK)");
    return false;
  }
  // ACK answers a SET; CAL and the API's other elements carry no fixation.
  if (element->tag != "REC") return false;
  const std::optional<OpenGazeFixation> fixation = read_fixation(*element);
  if (!fixation) {
    inbox_.count_dropped();
    return false;
  }
  GazeSample sample;
  sample.x_px = fixation->x * width_px_;
  sample.y_px = fixation->y * height_px_;
  // A fixation off the screen is where the viewer looks, but not at anything fovea shows:
  // like Pupil's gaze off the surface, no fixation on the screen (hold, then the fallback).
  const auto on_screen = [](double fraction) { return fraction >= 0.0 && fraction <= 1.0; };
  sample.valid = fixation->valid && on_screen(fixation->x) && on_screen(fixation->y);
  sample.time_s = received_s;
  sample.confidence = sample.valid ? 1.0 : 0.0;  // the API gives no confidence of its own
  inbox_.publish(sample);
  return true;
}

}  // namespace fovea
