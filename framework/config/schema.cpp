#include "config/schema.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/format.hpp"

namespace fovea::config {

std::string Sources::where(const std::string& path, const YAML::Mark& mark) const {
  // An override names its own argument: its text was not in the file. It covers its key and
  // the keys inside the value it set, and the maps it created on the way to its key (those
  // alone have no position in the file); a key written in the file keeps its position.
  const auto covers = [](const std::string& outer, const std::string& inner) {
    return inner == outer ||
           (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
            (inner[outer.size()] == '.' || inner[outer.size()] == '['));
  };
  for (auto it = sets.rbegin(); it != sets.rend(); ++it)
    if (covers(it->first, path) || (mark.is_null() && covers(path, it->first))) return it->second;
  if (mark.is_null()) return file;
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

void ParseState::fail(const std::string& path, const YAML::Mark& mark, const std::string& message) const {
  // The path holds the input's own keys: quoted as excerpt() quotes input, so a megabyte-long
  // key makes a line of a few hundred bytes. Real paths are far shorter than its bound.
  throw ConfigError(sources.where(path, mark) + ": " + (path.empty() ? "" : excerpt(path) + ": ") + message);
}

bool NumberRange::contains(double v) const {
  if (min_exclusive ? !(v > min) : !(v >= min)) return false;
  if (max_exclusive ? !(v < max) : !(v <= max)) return false;
  return true;
}

std::string NumberRange::bounds_text() const {
  const bool has_min = std::isfinite(min), has_max = std::isfinite(max);
  if (has_min && has_max)
    return " in " + std::string(min_exclusive ? "(" : "[") + format_number(min) + ", " + format_number(max) +
           (max_exclusive ? ")" : "]");
  if (has_min) return (min_exclusive ? " > " : " >= ") + format_number(min);
  if (has_max) return (max_exclusive ? " < " : " <= ") + format_number(max);
  return "";
}

NumberRange between(double min, double max) { return {min, max, false, false}; }

namespace {

bool parse_integer_text(const std::string& text, long long& value) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+' && begin + 1 != end && *(begin + 1) != '-') ++begin;
  const auto result = std::from_chars(begin, end, value);
  return result.ec == std::errc() && result.ptr == end;
}

/// A YAML 1.2 decimal number: from_chars's syntax plus an optional leading '+'.
/// `out_of_range` tells a number too large for a double (1e309) from text that is no number.
bool parse_double_text(const std::string& text, double& value, bool* out_of_range = nullptr) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+' && begin + 1 != end && *(begin + 1) != '-') ++begin;
  const auto result = std::from_chars(begin, end, value);
  if (out_of_range) *out_of_range = result.ec == std::errc::result_out_of_range && result.ptr == end;
  return result.ec == std::errc() && result.ptr == end && std::isfinite(value);
}

}  // namespace

std::string found_text(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a map";
  const std::string& text = node.Scalar();
  double number;
  bool too_large = false;
  if (node.Tag() != "!" && (parse_double_text(text, number, &too_large) || too_large)) return excerpt(text);
  return "\"" + excerpt(text) + "\"";
}

void reject_explicit_tag(const YAML::Node& node, const std::string& path, const YAML::Mark& mark, ParseState& state) {
  // yaml-cpp gives "?" to untagged plain nodes and "!" to quoted scalars.
  if (!node.IsDefined()) return;
  const std::string& tag = node.Tag();
  if (tag.empty() || tag == "?" || tag == "!") return;
  state.fail(path, mark_of(node, mark), "explicit YAML tags are not supported, found " + excerpt(tag));
}

YAML::Mark mark_of(const YAML::Node& node, const YAML::Mark& fallback) {
  // An empty value (`count:`) is a null node marked where the next line starts; its key's
  // position is the one to show.
  if (!node.IsDefined() || node.IsNull()) return fallback;
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? fallback : mark;
}

double parse_number(const YAML::Node& node, bool integer, const NumberRange& range, const std::string& path,
                    const YAML::Mark& mark, ParseState& state) {
  const std::string expected = std::string("expected ") + (integer ? "an " : "a ") + range.type_text(integer);
  const auto fail = [&] { state.fail(path, mark_of(node, mark), expected + ", found " + found_text(node)); };
  // A quoted scalar ("100") is a string in YAML, and fovea reads it as one.
  if (!node.IsScalar() || node.Tag() == "!") fail();
  double value = 0;
  if (integer) {
    long long i;
    if (!parse_integer_text(node.Scalar(), i)) fail();
    // Compare as integers: 2^53 + 1 would round to 2^53 as a double and slip through.
    if ((std::isfinite(range.min) && i < static_cast<long long>(std::ceil(range.min))) ||
        (std::isfinite(range.max) && i > static_cast<long long>(std::floor(range.max))))
      fail();
    value = static_cast<double>(i);
  } else if (!parse_double_text(node.Scalar(), value)) {
    fail();
  }
  if (!range.contains(value)) fail();
  return value;
}

Vec3 parse_vec3(const YAML::Node& node, const NumberRange& range, const std::string& path, const YAML::Mark& mark,
                ParseState& state) {
  if (!node.IsSequence() || node.size() != 3)
    state.fail(path, mark_of(node, mark),
               "expected a list of 3 numbers" + range.bounds_text() + ", found " +
                   (node.IsSequence() ? "a list of " + std::to_string(node.size()) : found_text(node)));
  Vec3 v;
  for (int i = 0; i < 3; ++i) {
    const YAML::Node element = node[static_cast<std::size_t>(i)];
    const std::string element_path = path + "[" + std::to_string(i) + "]";
    reject_explicit_tag(element, element_path, mark_of(node, mark), state);
    v[i] = parse_number(element, false, range, element_path, mark_of(element, mark_of(node, mark)), state);
  }
  return v;
}

bool parse_bool(const YAML::Node& node, const std::string& path, const YAML::Mark& mark, ParseState& state) {
  if (node.IsScalar() && (node.Scalar() == "true" || node.Scalar() == "false")) return node.Scalar() == "true";
  state.fail(path, mark_of(node, mark), "expected true or false, found " + found_text(node));
}

bool is_valid_name(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

std::string parse_name(const YAML::Node& node, const std::string& path, const YAML::Mark& mark, ParseState& state) {
  if (!node.IsScalar() || !is_valid_name(node.Scalar()))
    state.fail(path, mark_of(node, mark),
               "expected a name of letters, digits, '-', '_' or '.', found " + found_text(node));
  return node.Scalar();
}

std::string parse_text(const YAML::Node& node, const std::string& path, const YAML::Mark& mark, ParseState& state) {
  const auto valid = [](const std::string& text) {
    // Characters, not bytes: the text is UTF-8 (checked as the file is read), and each
    // character has one byte that is not a continuation byte (10xxxxxx).
    std::size_t characters = 0;
    for (const char c : text) {
      if (std::iscntrl(static_cast<unsigned char>(c))) return false;
      if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++characters;
    }
    return characters >= 1 && characters <= 256;
  };
  if (!node.IsScalar() || !valid(node.Scalar()))
    state.fail(path, mark_of(node, mark), "expected one line of text (1 to 256 characters), found " + found_text(node));
  return node.Scalar();
}

std::size_t parse_choice(const YAML::Node& node, const std::vector<std::string>& names, const std::string& path,
                         const YAML::Mark& mark, ParseState& state) {
  if (node.IsScalar())
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == node.Scalar()) return i;
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  std::string message = "expected one of " + all + ", found " + found_text(node);
  if (node.IsScalar()) {
    const std::string suggestion = closest(node.Scalar(), names);
    if (!suggestion.empty()) message += "; did you mean " + suggestion + "?";
  }
  state.fail(path, mark_of(node, mark), message);
}

void check_list_cap(const YAML::Node& n, std::size_t max_items, const std::string& what, const std::string& path,
                    const YAML::Mark& m, ParseState& st) {
  if (n.size() > max_items)
    st.fail(path, mark_of(n, m),
            "expected at most " + std::to_string(max_items) + " " + what + ", found " + std::to_string(n.size()));
}

std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  // A typo is a few edits away: at most 2, or a third of the word for long words.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: a 20,000-character value is no typo
    // of a name, and its edit distance to each would take a while.
    const std::size_t longer = std::max(word.size(), c.size()), shorter = std::min(word.size(), c.size());
    if (longer - shorter >= best_distance) continue;
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

void emit_vec3(YAML::Emitter& out, const Vec3& v) {
  out << YAML::Flow << YAML::BeginSeq;
  for (int i = 0; i < 3; ++i) out << format_number(v[i]);
  out << YAML::EndSeq;
}

std::string number_text(double v, bool integer) {
  return integer ? format_number(static_cast<std::int64_t>(v)) : format_number(v);
}

std::string vec3_text(const Vec3& v) {
  return "[" + format_number(v.x) + ", " + format_number(v.y) + ", " + format_number(v.z) + "]";
}

}  // namespace fovea::config
