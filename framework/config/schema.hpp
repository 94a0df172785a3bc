#pragma once

// The machinery behind fovea's configs: a Section<S> lists the keys of a settings struct S,
// each bound to a member with its type, range and one line of documentation. One table
// drives parsing with file:line:column errors, the resolved config a run writes, and the
// key list that `fovea keys` prints and docs/config.md is checked against.
//
// The concrete tables are in settings_schema.cpp; this header is the generic part.

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/math.hpp"

namespace fovea::config {

/// A config problem a user can act on: "file:line:col: key: what was expected, found what".
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One documented key. `path` uses `[]` for list elements: `world.entities[].count`.
struct KeyInfo {
  std::string path;          ///< dotted key path from the top: "schedule.queues"
  std::string type;          ///< "integer >= 0", "one of ball, box, ...", "map", "list of maps"
  std::string default_text;  ///< the default as YAML text
  std::string doc;           ///< the key's one line of documentation, as its Section entry gives it
  /// A list key's cap: the most elements it takes (docs/formats.md, "Lists and their caps");
  /// 0 for a key that is no list of any length (a list of 3 numbers is a vector).
  std::size_t max_items = 0;
};

/// Where values came from, to name them in errors: the file, or a `--set` argument.
struct Sources {
  std::string file;  ///< as the user named it
  /// (key path, how to name it: "--set key=value") of each override, in order.
  std::vector<std::pair<std::string, std::string>> sets;
  /// "file:line:col", or the override that wrote the value at `path` with `mark`.
  std::string where(const std::string& path, const YAML::Mark& mark) const;
};

/// Parsing context: the sources for messages, and the location of every key parsed.
struct ParseState {
  const Sources& sources;                         ///< where the text and each override came from
  std::map<std::string, std::string>& locations;  ///< filled in: key path -> Sources::where of it
  /// Throws ConfigError "where: path: message", `where` from sources (file:line:col or the override).
  [[noreturn]] void fail(const std::string& path, const YAML::Mark& mark, const std::string& message) const;
};

/// Allowed interval of a number; bounds may be open or closed, or absent (infinite).
struct NumberRange {
  double min = -std::numeric_limits<double>::infinity();  ///< lower bound, in the key's own unit
  double max = std::numeric_limits<double>::infinity();   ///< upper bound, in the key's own unit
  bool min_exclusive = false;  ///< true: min itself is refused, (min, ...
  bool max_exclusive = false;  ///< true: max itself is refused, ..., max)
  /// Whether `v` lies within the bounds; NaN never does.
  bool contains(double v) const;
  /// " >= 0", " in (0, 1]", or "" when unbounded.
  std::string bounds_text() const;
  /// "integer >= 0", "number in (0, 1]", "number".
  std::string type_text(bool integer) const { return (integer ? "integer" : "number") + bounds_text(); }
};
/// The closed interval [min, max].
NumberRange between(double min, double max);

/// One YAML document from `text`: a syntax error, a second document (after ---) and a key
/// written twice in one map are refused with "file:line:col: ..." (config.cpp). For every
/// file fovea reads as YAML: configs, experiment specs, studies.
YAML::Node load_yaml_document(const std::string& text, const std::string& source_name);

// Helpers shared by the field kinds (schema.cpp).
/// How a node reads in a message: -5, "ten", a list, a map, nothing.
std::string found_text(const YAML::Node& node);
/// The mark of a node, or `fallback` (its key's) when the node has none (empty values).
YAML::Mark mark_of(const YAML::Node& node, const YAML::Mark& fallback);
/// Rejects an explicit YAML tag (`!!str 5`, `!custom x`): fovea's types come from the schema,
/// and a tag that says otherwise would be silently ignored.
void reject_explicit_tag(const YAML::Node& node, const std::string& path, const YAML::Mark& mark, ParseState& state);
/// The node's number within `range`, else fail()s. Finite; `integer` takes whole-number text only (no 1e3).
double parse_number(const YAML::Node& node, bool integer, const NumberRange& range, const std::string& path,
                    const YAML::Mark& mark, ParseState& state);
/// A list of exactly 3 numbers, each within `range`, else fail()s.
Vec3 parse_vec3(const YAML::Node& node, const NumberRange& range, const std::string& path, const YAML::Mark& mark,
                ParseState& state);
/// `true` or `false` exactly (not yes/no or 1/0), else fail()s.
bool parse_bool(const YAML::Node& node, const std::string& path, const YAML::Mark& mark, ParseState& state);
/// A name (is_valid_name), else fail()s.
std::string parse_name(const YAML::Node& node, const std::string& path, const YAML::Mark& mark, ParseState& state);
/// A name as names are in configs and folder names: letters, digits, '-', '_', '.', not empty.
bool is_valid_name(const std::string& text);
/// One line of text, 1 to 256 characters (UTF-8), no control characters, else fail()s.
std::string parse_text(const YAML::Node& node, const std::string& path, const YAML::Mark& mark, ParseState& state);
/// Index of node's text in `names`, or a "did you mean" error.
std::size_t parse_choice(const YAML::Node& node, const std::vector<std::string>& names, const std::string& path,
                         const YAML::Mark& mark, ParseState& state);
/// The closest of `candidates` to `word`, if close enough to be a likely typo; else "".
std::string closest(const std::string& word, const std::vector<std::string>& candidates);
/// Writes `v` as a flow list of 3 numbers ([x, y, z]), each in format_number's text.
void emit_vec3(YAML::Emitter& out, const Vec3& v);
/// `v` as format_number writes it, truncated to an integer first when `integer`.
std::string number_text(double v, bool integer);
/// "[x, y, z]", each in format_number's text: the default `fovea keys` shows.
std::string vec3_text(const Vec3& v);

/// The start of every list key: a null value empties `list` (false: nothing more to read);
/// anything but a sequence is an error, "expected a list of <what>".
template <class V>
bool begin_list(const YAML::Node& n, V& list, const std::string& path, const YAML::Mark& m, ParseState& st,
                const std::string& what) {
  if (n.IsNull()) {
    list.clear();
    return false;
  }
  if (!n.IsSequence()) st.fail(path, mark_of(n, m), "expected a list of " + what + ", found " + found_text(n));
  return true;
}

/// A list key's cap, checked before any element is read: more than `max_items` elements is
/// an error, "expected at most N <what>, found M" (docs/formats.md, "Lists and their caps").
void check_list_cap(const YAML::Node& n, std::size_t max_items, const std::string& what, const std::string& path,
                    const YAML::Mark& m, ParseState& st);

/// A kind table's names, in its order, as choice() and choices() parse and write them.
template <class E>
struct KindNames {
  /// The names of `table`'s rows (core/kind_table.hpp), in its order.
  template <class Table>
  explicit KindNames(const Table& table) {
    for (const auto& row : table) {
      kinds.push_back(row.kind);
      names.emplace_back(row.name);
      all += (all.empty() ? "" : ", ") + names.back();
    }
  }
  /// The name of `kind`; "?" for a value the table lacks.
  std::string name_of(E kind) const {
    for (std::size_t i = 0; i < kinds.size(); ++i)
      if (kinds[i] == kind) return names[i];
    return "?";
  }
  std::vector<E> kinds;            ///< the table's values, in its order
  std::vector<std::string> names;  ///< names[i] is kinds[i]'s
  std::string all;                 ///< "a, b, c": how a message and `fovea keys` list them
};

/// The keys of settings struct S, each bound to a member: parses, writes and lists them (see above).
template <class S>
class Section {
 public:
  /// Reads one key's YAML value into its member of S; fails through ParseState.
  using ParseFn = std::function<void(const YAML::Node&, S&, const std::string& path, const YAML::Mark&, ParseState&)>;
  /// Writes one key's value from S as YAML.
  using EmitFn = std::function<void(YAML::Emitter&, const S&)>;
  /// Appends the key (and any nested keys) with its default from `defaults` to the list.
  using DescribeFn = std::function<void(const std::string& path, const S& defaults, std::vector<KeyInfo>&)>;

  /// An integer or floating-point member.
  template <class T>
  Section& number(const char* name, T S::*member, NumberRange range, const char* doc) {
    constexpr bool integer = std::is_integral_v<T>;
    return add(name,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 s.*member = static_cast<T>(parse_number(n, integer, range, p, m, st));
               },
               [=](YAML::Emitter& out, const S& s) { out << number_text(static_cast<double>(s.*member), integer); },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 keys.push_back({p, range.type_text(integer), number_text(static_cast<double>(d.*member), integer), doc});
               });
  }

  /// An optional number: a number in `range`, or null (`~`, or nothing after the colon) for
  /// none, as the resolved config writes none back.
  Section& optional_number(const char* name, std::optional<double> S::*member, NumberRange range, const char* doc) {
    return add(name,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 if (n.IsNull())
                   s.*member = std::nullopt;
                 else
                   s.*member = parse_number(n, false, range, p, m, st);
               },
               [=](YAML::Emitter& out, const S& s) {
                 if (s.*member)
                   out << number_text(*(s.*member), false);
                 else
                   out << YAML::Null;
               },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 keys.push_back({p, range.type_text(false) + ", or ~ for none",
                                 d.*member ? number_text(*(d.*member), false) : "~", doc});
               });
  }

  /// A Vec3 member written as a list of 3 numbers, each in `range`.
  Section& vec3(const char* name, Vec3 S::*member, NumberRange range, const char* doc) {
    return add(name,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 s.*member = parse_vec3(n, range, p, m, st);
               },
               [=](YAML::Emitter& out, const S& s) { emit_vec3(out, s.*member); },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 keys.push_back({p, "list of 3 numbers" + range.bounds_text(), vec3_text(d.*member), doc});
               });
  }

  /// A list of numbers, each in `range`, at most `max_items` of them (a named cap).
  Section& numbers(const char* name, std::vector<double> S::*member, NumberRange range, std::size_t max_items,
                   const char* doc) {
    return add(name,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 if (!begin_list(n, s.*member, p, m, st, "numbers" + range.bounds_text())) return;
                 check_list_cap(n, max_items, "numbers", p, m, st);
                 std::vector<double> values;
                 for (std::size_t i = 0; i < n.size(); ++i) {
                   const std::string element_path = p + "[" + std::to_string(i) + "]";
                   reject_explicit_tag(n[i], element_path, mark_of(n, m), st);
                   values.push_back(parse_number(n[i], false, range, element_path, mark_of(n[i], mark_of(n, m)), st));
                 }
                 s.*member = std::move(values);
               },
               [=](YAML::Emitter& out, const S& s) {
                 out << YAML::Flow << YAML::BeginSeq;
                 for (const double v : s.*member) out << number_text(v, false);
                 out << YAML::EndSeq;
               },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 std::string text = "[";
                 for (const double v : d.*member) text += (text.size() > 1 ? ", " : "") + number_text(v, false);
                 keys.push_back({p, "list of at most " + std::to_string(max_items) + " numbers" + range.bounds_text(),
                                 text + "]", doc, max_items});
               });
  }

  /// A list of an enum's values, each written as one of its kind table's names, none twice
  /// (so at most as many as the table has rows).
  template <class E, class Table>
  Section& choices(const char* name, std::vector<E> S::*member, const Table& kinds, const char* doc) {
    const KindNames<E> names(kinds);
    return add(name,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 if (!begin_list(n, s.*member, p, m, st, "names (" + names.all + ")")) return;
                 check_list_cap(n, names.kinds.size(), "names", p, m, st);
                 std::vector<E> values;
                 for (std::size_t i = 0; i < n.size(); ++i) {
                   const std::string element_path = p + "[" + std::to_string(i) + "]";
                   const YAML::Mark element_mark = mark_of(n[i], mark_of(n, m));
                   reject_explicit_tag(n[i], element_path, mark_of(n, m), st);
                   const E value = names.kinds[parse_choice(n[i], names.names, element_path, element_mark, st)];
                   for (const E seen : values)
                     if (seen == value) st.fail(element_path, element_mark, names.name_of(value) + " is listed twice");
                   values.push_back(value);
                 }
                 s.*member = std::move(values);
               },
               [=](YAML::Emitter& out, const S& s) {
                 out << YAML::Flow << YAML::BeginSeq;
                 for (const E v : s.*member) out << names.name_of(v);
                 out << YAML::EndSeq;
               },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 std::string text = "[";
                 for (const E v : d.*member) text += (text.size() > 1 ? ", " : "") + names.name_of(v);
                 keys.push_back({p, "list of " + names.all + ", each at most once", text + "]", doc, names.kinds.size()});
               });
  }

  /// A bool member written as `true` or `false`.
  Section& boolean(const char* name, bool S::*member, const char* doc) {
    return add(name,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 s.*member = parse_bool(n, p, m, st);
               },
               [=](YAML::Emitter& out, const S& s) { out << (s.*member ? "true" : "false"); },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 keys.push_back({p, "true or false", d.*member ? "true" : "false", doc});
               });
  }

  /// A name: letters, digits, '-', '_', '.' (it ends up in folder names).
  Section& name(const char* key, std::string S::*member, const char* doc) {
    return add(key,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 s.*member = parse_name(n, p, m, st);
               },
               [=](YAML::Emitter& out, const S& s) { out << s.*member; },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 keys.push_back({p, "name (letters, digits, - _ .)", d.*member, doc});
               });
  }

  /// A line of text: any scalar up to 256 characters without control characters (a
  /// host name, a Pupil surface name, which may hold spaces).
  Section& text(const char* key, std::string S::*member, const char* doc) {
    return add(key,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 s.*member = parse_text(n, p, m, st);
               },
               [=](YAML::Emitter& out, const S& s) { out << YAML::DoubleQuoted << s.*member; },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 keys.push_back({p, "text", "\"" + d.*member + "\"", doc});
               });
  }

  /// A file path: any text ("" for none). Relative paths are taken from the config file's
  /// folder (config.cpp resolves them after parsing).
  Section& path(const char* key, std::string S::*member, const char* doc) {
    return add(key,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 if (!n.IsNull() && !n.IsScalar())
                   st.fail(p, mark_of(n, m), "expected a file path, found " + found_text(n));
                 s.*member = n.IsNull() ? std::string() : n.Scalar();
               },
               [=](YAML::Emitter& out, const S& s) { out << YAML::DoubleQuoted << s.*member; },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 keys.push_back({p, "path (relative to the config file)", "\"" + d.*member + "\"", doc});
               });
  }

  /// An enum member written as one of its kind table's names (core/kind_table.hpp).
  template <class E, class Table>
  Section& choice(const char* name, E S::*member, const Table& kinds, const char* doc) {
    const KindNames<E> names(kinds);
    return add(name,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 s.*member = names.kinds[parse_choice(n, names.names, p, m, st)];
               },
               [=](YAML::Emitter& out, const S& s) { out << names.name_of(s.*member); },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 keys.push_back({p, "one of " + names.all, names.name_of(d.*member), doc});
               });
  }

  /// A nested map of keys.
  template <class T>
  Section& section(const char* name, T S::*member, Section<T> sub, const char* doc) {
    return add(name,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 sub.parse(n, s.*member, p, m, st);
               },
               [=](YAML::Emitter& out, const S& s) { sub.emit(out, s.*member); },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 keys.push_back({p, "map", "", doc});
                 sub.describe(p, d.*member, keys);
               });
  }

  /// A member struct whose keys are written in this map, beside this section's own, rather
  /// than in a map of their own: one part's settings inside another's, kept flat in the file
  /// (an experiment spec's staircase section holds the staircases' rules next to their
  /// eccentricities).
  template <class T>
  Section& flattened(T S::*member, const Section<T>& sub) {
    for (const auto& f : sub.fields_) {
      ParseFn parse = [member, p = f.parse](const YAML::Node& n, S& s, const std::string& path, const YAML::Mark& m,
                                            ParseState& st) { p(n, s.*member, path, m, st); };
      EmitFn emit;
      if (f.emit) emit = [member, e = f.emit](YAML::Emitter& out, const S& s) { e(out, s.*member); };
      DescribeFn describe;
      if (f.describe)
        describe = [member, d = f.describe](const std::string& path, const S& defaults, std::vector<KeyInfo>& keys) {
          d(path, defaults.*member, keys);
        };
      fields_.push_back({f.name, std::move(parse), std::move(emit), std::move(describe)});
    }
    return *this;
  }

  /// A list of maps, each parsed by `element` starting from a default-constructed T, at most
  /// `max_items` of them (a named cap).
  template <class T>
  Section& list(const char* name, std::vector<T> S::*member, Section<T> element, const char* noun,
                std::size_t max_items, const char* doc) {
    return add(name,
               [=](const YAML::Node& n, S& s, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 if (!begin_list(n, s.*member, p, m, st, noun)) return;
                 check_list_cap(n, max_items, noun, p, m, st);
                 std::vector<T> items;
                 for (std::size_t i = 0; i < n.size(); ++i) {
                   const std::string item_path = p + "[" + std::to_string(i) + "]";
                   const YAML::Mark item_mark = mark_of(n[i], mark_of(n, m));
                   // An empty item (a stray `-`) is a mistake, not a request for defaults.
                   if (!n[i].IsDefined() || n[i].IsNull())
                     st.fail(item_path, item_mark, "expected a map of keys, found nothing");
                   st.locations[item_path] = st.sources.where(item_path, item_mark);
                   T item{};
                   element.parse(n[i], item, item_path, item_mark, st);
                   items.push_back(std::move(item));
                 }
                 s.*member = std::move(items);
               },
               [=](YAML::Emitter& out, const S& s) {
                 out << YAML::BeginSeq;
                 for (const T& item : s.*member) element.emit(out, item);
                 out << YAML::EndSeq;
               },
               [=](const std::string& p, const S& d, std::vector<KeyInfo>& keys) {
                 keys.push_back({p, "list of at most " + std::to_string(max_items) + " " + noun,
                                 (d.*member).empty() ? "[]" : "", doc, max_items});
                 element.describe(p + "[]", T{}, keys);
               });
  }

  /// A key that moved elsewhere: an error naming its new place, never parsed, written or
  /// listed.
  Section& moved(const char* name, const char* new_path) {
    const std::string to = new_path;
    return add(name,
               [=](const YAML::Node&, S&, const std::string& p, const YAML::Mark& m, ParseState& st) {
                 st.fail(p, m, "this key moved to " + to + "; write it there");
               },
               nullptr, nullptr);
  }

  /// Reads a map node into `out`, key by key; keys absent keep out's current values.
  void parse(const YAML::Node& node, S& out, const std::string& path, const YAML::Mark& mark, ParseState& state) const {
    reject_explicit_tag(node, path, mark, state);
    if (node.IsNull()) return;
    if (!node.IsMap())
      state.fail(path, mark_of(node, mark),
                 std::string("expected a map of keys") + (path.empty() ? " at the top level" : "") + ", found " +
                     found_text(node));
    for (const auto& entry : node) {
      const YAML::Mark key_mark = entry.first.Mark();
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "?";
      const std::string key_path = path.empty() ? key : path + "." + key;
      const Field* field = find(key);
      if (field == nullptr) {
        const std::string suggestion = closest(key, names());
        std::string message = "unknown key; ";
        if (!suggestion.empty())
          message += "did you mean " + (path.empty() ? suggestion : path + "." + suggestion) + "?";
        else
          message += "expected one of " + joined_names();
        state.fail(key_path, key_mark, message);
      }
      // Duplicate keys were rejected on the file as written (config.cpp), before overrides.
      state.locations[key_path] = state.sources.where(key_path, key_mark);
      reject_explicit_tag(entry.second, key_path, mark_of(entry.second, key_mark), state);
      field->parse(entry.second, out, key_path, mark_of(entry.second, key_mark), state);
    }
  }

  /// Writes `value` as a YAML map, every key in schema order (moved keys left out).
  void emit(YAML::Emitter& out, const S& value) const {
    out << YAML::BeginMap;
    for (const auto& f : fields_) {
      if (!f.emit) continue;  // a moved key
      out << YAML::Key << f.name << YAML::Value;
      f.emit(out, value);
    }
    out << YAML::EndMap;
  }

  /// Appends every key, path under `prefix`, with type, default from `defaults` and doc.
  void describe(const std::string& prefix, const S& defaults, std::vector<KeyInfo>& keys) const {
    for (const auto& f : fields_)
      if (f.describe) f.describe(prefix.empty() ? f.name : prefix + "." + f.name, defaults, keys);
  }

 private:
  template <class>
  friend class Section;  // flattened() takes another section's fields

  struct Field {
    std::string name;
    ParseFn parse;
    EmitFn emit;
    DescribeFn describe;
  };

  Section& add(const char* name, ParseFn parse, EmitFn emit, DescribeFn describe) {
    fields_.push_back({name, std::move(parse), std::move(emit), std::move(describe)});
    return *this;
  }
  const Field* find(const std::string& key) const {
    for (const auto& f : fields_)
      if (f.name == key) return &f;
    return nullptr;
  }
  /// The keys a config may use: moved ones are not suggested.
  std::vector<std::string> names() const {
    std::vector<std::string> result;
    for (const auto& f : fields_)
      if (f.emit) result.push_back(f.name);
    return result;
  }
  std::string joined_names() const {
    std::string all;
    for (const auto& name : names()) all += (all.empty() ? "" : ", ") + name;
    return all;
  }

  std::vector<Field> fields_;
};

/// The section `fill` lists the keys of: each part's keys are a function that adds them, in
/// the order a config file and `fovea keys` show them (settings_schema.cpp).
template <class T>
Section<T> keys_of(void (*fill)(Section<T>&)) {
  Section<T> section;
  fill(section);
  return section;
}

}  // namespace fovea::config
