#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "trackers/gaze_inbox.hpp"
#include "gaze/gaze_source.hpp"

// Gazepoint (GP3, Gazepoint Control) through the Open Gaze API: one TCP connection on which
// the client sends <SET .../> commands and the server answers <ACK .../> or <NACK .../> and,
// once data is enabled, streams one <REC .../> per sample, each element on its own line
// ending in CRLF. Issue 6; docs/gaze.md says how to set the tracker up.

namespace fovea {

/// One element of the Open Gaze API, `<TAG NAME="value" ... />`, as views into the text it
/// was parsed from (valid while that text is).
struct OpenGazeElement {
  std::string_view tag;  ///< REC, ACK, NACK, CAL, ...
  /// In the order sent; names are unique. Values are raw: the API's numbers and identifiers
  /// need no XML entity decoding, and none is done.
  std::vector<std::pair<std::string_view, std::string_view>> attributes;

  /// The value of the attribute `name`, or nullopt when the element has none.
  std::optional<std::string_view> attribute(std::string_view name) const;
};

/// Parses exactly one element, `<` to `/>`: a tag, then attributes each preceded by spaces
/// or tabs, `NAME="value"` with names of ASCII letters, digits and underscores and values of
/// printable ASCII without `"`, `<` or `>`, then optional spaces and `/>`. nullopt for
/// anything else: text around the element, a missing quote, a duplicated attribute, a line
/// break or control byte, an element that is not empty (`<REC>`).
///
/// Not an XML parser, on purpose: the API sends one empty element per line, and an XML
/// library would accept far more than that (nesting, entities, comments, other encodings),
/// each a way for garbage from the port to look like data. Strictness is what rejects it.
std::optional<OpenGazeElement> parse_open_gaze_element(std::string_view text);

/// What a REC says about the fixation point of gaze (FPOG: Gazepoint's own fixation filter).
struct OpenGazeFixation {
  double x = 0;        ///< FPOGX: fraction of the screen's width from its left edge
  double y = 0;        ///< FPOGY: fraction of the screen's height from its top edge, y down
  bool valid = false;  ///< FPOGV: the tracker has a fixation now (false: blink, lost track)
};

/// The fixation of a REC, or nullopt when the record is malformed: FPOGX, FPOGY or FPOGV
/// missing; FPOGX or FPOGY not a finite decimal number (std::from_chars: no sign '+', no
/// spaces, no hex, no NaN or infinity); FPOGV neither "0" nor "1"; or a coordinate outside
/// [-1, 2]. A real point of gaze can lie a little off the screen, so [-1, 2] is kept as sent;
/// a point more than a whole screen off is not a measurement. The checks hold whatever
/// FPOGV says: a REC is well formed or it is not.
std::optional<OpenGazeFixation> read_fixation(const OpenGazeElement& record);

/// Cuts the byte stream of an Open Gaze connection into elements, with bounded memory
/// whatever the peer sends. An element is `<` up to the first `/>`; whitespace between
/// elements is skipped; everything else is dropped and counted once per piece:
///  - a run of other bytes between elements (binary garbage);
///  - a truncated element, `<` followed by another `<` before any `/>` (the stream resumes
///    at the second `<`; values cannot hold `<`, so no element is lost by this);
///  - an element longer than kMaxRecordBytes, complete or not: once more than that is
///    buffered without `/>`, it is discarded and the stream resumes at the next `<`.
class OpenGazeFramer {
 public:
  /// The longest element kept, `<` to `/>` inclusive. A REC with the fixation fields is about
  /// 100 bytes; 4 KiB leaves room for the API's other fields, enabled by another client.
  static constexpr std::size_t kMaxRecordBytes = 4096;

  /// An empty framer, its buffer reserved for kMaxRecordBytes plus one read (GazepointGaze::kReadBytes).
  OpenGazeFramer();

  /// Adds the bytes of one read. Take every element (next_element until nullopt) before the
  /// next append: buffered_bytes() then never exceeds kMaxRecordBytes plus one read.
  void append(std::string_view bytes);
  /// The next complete element, `<` to `/>`, valid until the next call on the framer;
  /// nullopt when the buffered bytes hold no complete element.
  std::optional<std::string_view> next_element();
  /// Pieces of input dropped since the last call.
  std::uint64_t take_dropped();
  /// Bytes held: an unfinished element, or elements not taken yet.
  std::size_t buffered_bytes() const { return buffer_.size() - start_; }

 private:
  /// Moves start_ to the next `<`, counting a run of non-whitespace bytes as one drop.
  void skip_to_element_start();
  /// Discards the bytes before start_, so the buffer holds only what is still needed.
  void compact();

  std::string buffer_;
  std::size_t start_ = 0;    ///< first byte not consumed yet
  /// Bytes after start_ already searched for the element's end, so that an element arriving
  /// a byte at a time is scanned once, not once per read.
  std::size_t scanned_ = 0;
  bool in_garbage_ = false;  ///< inside a run of dropped bytes that was counted already
  std::uint64_t dropped_ = 0;
};

/// The delays of GazepointGaze: the reconnection's, and the connection attempt's. A
/// connection that brings no byte for stall_timeout_s is dropped and made again: the tracker
/// stalled (Gazepoint sends 60 to 150 records a second once data is enabled).
struct GazepointTimings : ReconnectTimings {
  /// One connection attempt's limit. A server on this machine answers in well under a
  /// millisecond; one on the network within a few.
  double connect_timeout_s = 0.5;
};

/// Gazepoint through the Open Gaze API over TCP (default 127.0.0.1:4242). A receiver thread
/// connects, enables the fixation data (ENABLE_SEND_POG_FIX, ENABLE_SEND_DATA) and turns each
/// REC into a sample: (FPOGX * width_px, FPOGY * height_px) on `screen`, top-left origin,
/// y down as Gazepoint's; FPOGV="0" gives an invalid sample (no fixation now: not a drop).
/// Samples are stamped with gaze_wall_clock_s() when their bytes arrive, so their age
/// excludes the tracker's own latency (camera exposure, image processing: its TIME field
/// is on another clock and is not used).
///
/// The constructor neither waits for the network nor fails when the tracker is absent: the
/// thread posts one message, retries with backoff and posts again when it connects. A
/// connection the tracker closes, breaks or leaves silent for stall_timeout_s counts as
/// one drop and one message, and the thread reconnects; meanwhile the frame falls back
/// (GazeSettings::fallback). Malformed input from the port is dropped and counted, never
/// trusted (OpenGazeFramer, parse_open_gaze_element, read_fixation). Every wait is sliced
/// at 10 ms, so destruction ends the thread within about 10 ms; the one exception is a
/// host given by name, whose lookup (getaddrinfo) cannot be interrupted.
class GazepointGaze final : public TrackerSource {
 public:
  /// The Open Gaze API's port when settings.port is 0.
  static constexpr int kDefaultPort = 4242;
  /// Bytes taken from the socket per read.
  static constexpr std::size_t kReadBytes = 4096;

  /// Contacts only settings.host (a numeric address or a name) on settings.port. Throws
  /// std::invalid_argument, naming the key, for an empty host or a port outside [0, 65535],
  /// and for a degenerate screen (validate_screen).
  GazepointGaze(const GazeSettings& settings, const ScreenSettings& screen, GazepointTimings timings = {});

  /// The most bytes the receiver has buffered at once: at most
  /// OpenGazeFramer::kMaxRecordBytes + kReadBytes whatever the peer sends.
  std::size_t peak_buffered_bytes() const { return peak_buffered_bytes_.load(); }

 private:
  /// The receiver thread: connect, serve, and on failure or loss back off and try again.
  void run(const std::stop_token& stop);
  /// Connects to the first of host_'s addresses that accepts; -1 with `error` set otherwise.
  int connect_to_tracker(const std::stop_token& stop, std::string& error) const;
  /// Enables the data and reads the connection until it is lost; returns why it was lost,
  /// or an empty string when stopped. A record received resets `backoff`.
  std::string serve(const std::stop_token& stop, int fd, Backoff& backoff);
  /// Frames and handles one read's bytes; true when it held a well-formed REC.
  bool take_bytes(OpenGazeFramer& framer, std::string_view bytes, double received_s);
  /// Handles one element: a REC becomes a sample, a NACK a message, a malformed one a drop;
  /// true for a well-formed REC.
  bool take_element(std::string_view text, double received_s);

  std::string host_;
  int port_ = kDefaultPort;
  std::string endpoint_;  ///< "host:port", for messages
  double width_px_ = 0;
  double height_px_ = 0;
  GazepointTimings timings_;
  std::atomic<std::size_t> peak_buffered_bytes_{0};
  /// Last member: destroyed first, so the thread stops and joins while everything it uses
  /// still exists.
  std::jthread thread_;
};

}  // namespace fovea
