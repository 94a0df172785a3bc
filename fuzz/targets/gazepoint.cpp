// Fuzz target: the byte stream of a Gazepoint Open Gaze connection (trackers/gazepoint_gaze.hpp),
// what the tracker's TCP port sends: cut into elements by an OpenGazeFramer, each element
// parsed by parse_open_gaze_element, each REC read by read_fixation, as GazepointGaze does.
//
// The first input byte says how the rest arrives: its low 6 bits the size of each read
// (c < 48: c + 1 bytes; else (c - 47) x 512 bytes, up to 8 KiB), its top 2 bits p whether a
// run of 'x' is inserted into the stream, so that one element can outgrow kMaxRecordBytes
// although libFuzzer's inputs stay within 4 KiB: for p > 0 the second byte is where (an
// offset into the stream) and the run is 1000, 4000 or 4100 bytes long for p = 1, 2, 3.
//
// Beyond "no crash": after taking every element, buffered_bytes() is at most kMaxRecordBytes
// (at most that plus the read just appended before taking them), as the header promises;
// each element runs from '<' to its first "/>", holds no other '<' and is at most
// kMaxRecordBytes long; the elements do not depend on how the stream is cut into reads (a
// framer given the whole stream at once yields the same ones); a parsed element has a tag,
// names of letters, digits and underscores, each once, and values of printable ASCII
// without '"', '<' or '>', all views into the element's text; an accepted fixation is
// finite and within [-1, 2].

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "trackers/gazepoint_gaze.hpp"

namespace {

using fovea::OpenGazeFramer;
using fovea::fuzz::check;

bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_name(std::string_view text) { return !text.empty() && std::all_of(text.begin(), text.end(), is_name_char); }

bool is_value(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c <= 0x7e && c != '"' && c != '<' && c != '>'; });
}

/// `part` is a view into `whole`.
bool inside(std::string_view part, std::string_view whole) {
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

void check_element_text(std::string_view text) {
  check(text.size() >= 3 && text.front() == '<' && text.ends_with("/>"), "an element that does not run from '<' to \"/>\"");
  check(text.size() <= OpenGazeFramer::kMaxRecordBytes, "an element longer than kMaxRecordBytes");
  check(text.find('<', 1) == std::string_view::npos, "an element holding a second '<'");
  check(text.find("/>") == text.size() - 2, "an element that runs past its first \"/>\"");
}

void check_parsed(std::string_view text) {
  const std::optional<fovea::OpenGazeElement> element = fovea::parse_open_gaze_element(text);
  if (!element) return;  // malformed: dropped and counted
  check(is_name(element->tag) && inside(element->tag, text), "a tag that is not a name in the element");
  std::vector<std::string_view> names;
  for (const auto& [name, value] : element->attributes) {
    check(is_name(name) && inside(name, text), "an attribute name that is not a name in the element");
    check(is_value(value) && inside(value, text), "an attribute value that is not printable ASCII in the element");
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  check(std::adjacent_find(names.begin(), names.end()) == names.end(), "an element accepted with a repeated attribute");
  if (element->tag != "REC") return;
  const std::optional<fovea::OpenGazeFixation> fixation = fovea::read_fixation(*element);
  if (!fixation) return;  // malformed record: dropped and counted
  check(std::isfinite(fixation->x) && std::isfinite(fixation->y), "a fixation with a coordinate that is not finite");
  check(fixation->x >= -1 && fixation->x <= 2 && fixation->y >= -1 && fixation->y <= 2,
        "a fixation with a coordinate outside [-1, 2]");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned code = data[0] & 63u;
  const std::size_t read_bytes = code < 48 ? code + 1 : (code - 47) * 512;
  const unsigned padding = data[0] >> 6;
  std::string stream;
  if (padding == 0) {
    stream.assign(reinterpret_cast<const char*>(data + 1), size - 1);
  } else if (size >= 2) {
    stream.assign(reinterpret_cast<const char*>(data + 2), size - 2);
    const std::size_t at = std::min<std::size_t>(data[1], stream.size());
    stream.insert(at, padding == 1 ? 1000 : padding == 2 ? 4000 : 4100, 'x');
  }

  // As GazepointGaze reads the port: append one read, take every element, parse each.
  OpenGazeFramer framer;
  std::vector<std::string> elements;
  for (std::size_t at = 0; at < stream.size(); at += read_bytes) {
    const std::string_view read = std::string_view(stream).substr(at, read_bytes);
    framer.append(read);
    check(framer.buffered_bytes() <= OpenGazeFramer::kMaxRecordBytes + read.size(),
          "more than kMaxRecordBytes plus one read buffered after an append");
    while (const std::optional<std::string_view> element = framer.next_element()) {
      check_element_text(*element);
      elements.emplace_back(*element);
      check_parsed(*element);  // before the next call on the framer, while the view is valid
    }
    check(framer.buffered_bytes() <= OpenGazeFramer::kMaxRecordBytes,
          "more than kMaxRecordBytes buffered after taking every element");
  }
  framer.take_dropped();

  // The same stream in one read: the same elements.
  OpenGazeFramer whole;
  whole.append(stream);
  std::size_t n = 0;
  while (const std::optional<std::string_view> element = whole.next_element()) {
    check(n < elements.size() && *element == elements[n],
          "element " + std::to_string(n) + " differs when the stream arrives in one read");
    ++n;
  }
  check(n == elements.size(), "fewer elements when the stream arrives in one read");
  return 0;
}
