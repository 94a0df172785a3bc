// load_config and Config (docs/python.md, "Configs"): the command line's loader and checks,
// so a key mistyped in Python gets fovea run's message, file:line:col and all.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pybind11/stl.h>
#include <yaml-cpp/yaml.h>

#include "bindings.hpp"
#include "core/format.hpp"

namespace py = pybind11;

namespace fovea::python {
namespace {

/// fovea.ConfigError, a ValueError: the message as the command line prints it, and its
/// parts as attributes.
py::object config_error_type;

/// A config message's parts: "where: key: detail", as config::error_at makes them.
struct KeyedMessage {
  std::string where;   ///< file:line:col, or the override that set the key
  std::string key;     ///< a key path without spaces: world.entities[0].count
  std::string detail;  ///< what was expected, found what
};

bool starts_key(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool inside_key(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '[' || c == ']';
}

/// `message` split at the first ": " that a key and another ": " follow; nullopt when there
/// is none, or the message is more than one line. A long key is quoted as excerpt() quotes
/// it, its length after it: "kkk... (1000000 bytes)". Plain scanning, linear in the message:
/// the std::regex this replaces recursed once per character in libstdc++'s executor, so a
/// message quoting some 20 KB of input overflowed the stack and killed Python. (Each key
/// scanned stops at the next ':', so the scans never overlap.)
std::optional<KeyedMessage> split_keyed(const std::string& message) {
  if (message.find_first_of("\n\r") != std::string::npos) return std::nullopt;
  for (std::size_t colon = message.find(": "); colon != std::string::npos; colon = message.find(": ", colon + 1)) {
    const std::size_t key_begin = colon + 2;
    if (key_begin >= message.size() || !starts_key(message[key_begin])) continue;
    std::size_t key_end = key_begin + 1;
    while (key_end < message.size() && inside_key(message[key_end])) ++key_end;
    if (message.compare(key_end, 2, " (") == 0) {
      std::size_t digits_end = key_end + 2;
      while (digits_end < message.size() && std::isdigit(static_cast<unsigned char>(message[digits_end])))
        ++digits_end;
      if (digits_end > key_end + 2 && message.compare(digits_end, 7, " bytes)") == 0) key_end = digits_end + 7;
    }
    if (message.compare(key_end, 2, ": ") == 0)
      return KeyedMessage{message.substr(0, colon), message.substr(key_begin, key_end - key_begin),
                          message.substr(key_end + 2)};
  }
  return std::nullopt;
}

/// The digits ending `text` at `end` (exclusive), read as a number; `end` moves to their
/// first. nullopt when there are none or they overflow.
std::optional<long long> digits_before(const std::string& text, std::size_t& end) {
  std::size_t first = end;
  while (first > 0 && std::isdigit(static_cast<unsigned char>(text[first - 1]))) --first;
  long long value = 0;
  const auto [stop, error] = std::from_chars(text.data() + first, text.data() + end, value);
  if (first == end || error != std::errc() || stop != text.data() + end) return std::nullopt;
  end = first;
  return value;
}

/// Raises fovea.ConfigError for `message` ("where: key: what"), with `where` (file:line:col
/// or the override that set the key), `file`, `line`, `column`, `key` and `detail` read from
/// it; None where the message has no such part (an override has no line).
void raise_config_error(const std::string& message) {
  // Bytes that are not UTF-8 (a file name's) are shown as U+FFFD: raising here cannot raise.
  const auto text = [](const std::string& s) {
    return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
  };
  py::object error = config_error_type(text(message));
  py::object where = py::none(), file = py::none(), line = py::none(), column = py::none(), key = py::none();
  py::object detail = text(message);
  if (const std::optional<KeyedMessage> parts = split_keyed(message)) {
    where = text(parts->where);
    key = text(parts->key);
    detail = text(parts->detail);
    // file:line:col: the last two ":digits" of where, and a file before them.
    const std::string& place = parts->where;
    std::size_t at = place.size();
    const std::optional<long long> col = digits_before(place, at);
    if (col && at > 0 && place[at - 1] == ':') {
      --at;
      const std::optional<long long> row = digits_before(place, at);
      if (row && at > 1 && place[at - 1] == ':') {
        file = text(place.substr(0, at - 1));
        line = py::int_(*row);
        column = py::int_(*col);
      }
    }
  }
  error.attr("where") = where;
  error.attr("file") = file;
  error.attr("line") = line;
  error.attr("column") = column;
  error.attr("key") = key;
  error.attr("detail") = detail;
  PyErr_SetObject(config_error_type.ptr(), error.ptr());
}

/// A Python value as a message names it: its type, and a scalar's repr as excerpt() quotes
/// input. Never a container's repr: a deep one raises RecursionError, a long one is long.
std::string describe(const py::handle& value) {
  std::string text = std::string("a value of type ") + Py_TYPE(value.ptr())->tp_name;
  const bool scalar = value.is_none() || PyBool_Check(value.ptr()) || PyLong_CheckExact(value.ptr()) ||
                      PyFloat_CheckExact(value.ptr()) || PyUnicode_CheckExact(value.ptr()) ||
                      PyBytes_CheckExact(value.ptr());
  if (!scalar) return text;
  PyObject* repr = PyObject_Repr(value.ptr());  // an int past 4300 digits has none
  if (repr == nullptr) {
    PyErr_Clear();
    return text;
  }
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(repr, &size);
  if (utf8 != nullptr) text += " (" + excerpt(std::string_view(utf8, static_cast<std::size_t>(size))) + ")";
  else PyErr_Clear();
  Py_DECREF(repr);
  return text;
}

/// str(value) as UTF-8, or "" when it has none (a __str__ that raises).
std::string text_of(const py::handle& value) {
  PyObject* text = PyObject_Str(value.ptr());
  Py_ssize_t size = 0;
  const char* utf8 = text != nullptr ? PyUnicode_AsUTF8AndSize(text, &size) : nullptr;
  std::string result = utf8 != nullptr ? std::string(utf8, static_cast<std::size_t>(size)) : std::string();
  if (utf8 == nullptr) PyErr_Clear();
  Py_XDECREF(text);
  return result;
}

/// The Python exception `e`, raised while a value was read, as the end of a ConfigError's
/// message ("UnicodeEncodeError: ..."): a value Python itself cannot give as text (an int
/// past 4300 digits, a str with a lone surrogate, an os.PathLike whose __fspath__ raises).
/// Called in the handler of `e`: an exception that is no Exception (Ctrl-C), or MemoryError,
/// is rethrown, to go on as itself.
std::string python_error(py::error_already_set& e) {
  if (!e.matches(PyExc_Exception) || e.matches(PyExc_MemoryError)) throw;
  return text_of(e.type().attr("__name__")) + ": " + excerpt(text_of(e.value()));
}

/// A str's text as UTF-8; raises (as a Python error) for one that has none (a lone surrogate).
std::string utf8_of(const py::handle& text) {
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (utf8 == nullptr) throw py::error_already_set();
  return std::string(utf8, static_cast<std::size_t>(size));
}

/// The most values (keys, values, lists and maps, as the YAML reader counts nodes) one
/// conversion of Python values to a config walks: a whole config dict, or all of one call's
/// overrides. Comparable to the 100,000 nodes YAML aliases may add to a config file
/// (config.cpp's kMaxAliasNodes), far more than any config holds (the 1 MiB a config file
/// may be holds some 62,000 keys), and few enough that converting and checking them takes
/// well under a second. It also bounds a value that shares one list many times over (a
/// list of ten copies of a list of ten copies of ...), which no depth or cycle check sees.
constexpr std::int64_t kMaxPythonNodes = 100'000;

/// Python values (dicts, lists, str, numbers, ...) to a config's YAML text, refusing before
/// it recurses what no config is and what would make the walk endless or unbounded: lists
/// and maps nested past config::kMaxNestingDepth (as the YAML reader refuses them), a dict
/// or list that contains itself, more than kMaxPythonNodes values. Each refusal is a
/// ConfigError "source: key path: why", found in well under a second whatever the value:
/// before, a self-containing dict recursed until the stack overflowed (after 13 to 29 s).
class PythonToYaml {
 public:
  /// `source` names the values in messages: "config dict", or the overrides' `who`.
  explicit PythonToYaml(std::string source) : source_(std::move(source)) {}

  /// `value` as YAML text (flow style for an override's value); `key` is its key path in the
  /// config ("" for a whole config dict), for messages.
  std::string text(const py::handle& value, bool flow, const std::string& key) {
    path_.assign(key.empty() ? 0 : 1, key);
    open_.clear();
    YAML::Emitter out;
    if (flow) out << YAML::Flow;
    try {
      emit(out, value);
    } catch (py::error_already_set& e) {
      fail(python_error(e));  // told at its key, as the rest
    }
    if (!out.good()) fail("cannot be written as YAML: " + out.GetLastError());
    return out.c_str();
  }

  /// Counts one value that is not converted (a key of the overrides, a "key=value" string)
  /// against kMaxPythonNodes.
  void count(const std::string& key) {
    path_.assign(1, key);
    count_one();
  }

 private:
  /// Throws ConfigError "source: path: what" at the value being converted.
  [[noreturn]] void fail(const std::string& what) const {
    const std::string path = joined(path_.size());
    throw config::ConfigError(source_ + ": " + (path.empty() ? "" : excerpt(path) + ": ") + what);
  }

  /// The first `steps` steps of the path, as a config's key path: world.entities[0].count.
  std::string joined(std::size_t steps) const {
    std::string path;
    for (std::size_t i = 0; i < steps; ++i)
      path += (path.empty() || path_[i].front() == '[' ? "" : ".") + path_[i];
    return path;
  }

  void count_one() {
    if (++nodes_ > kMaxPythonNodes)
      fail("more than " + std::to_string(kMaxPythonNodes) +
           " values (keys, values, lists and maps) in all; no config needs as many");
  }

  /// Before recursing into the dict or list `value`: refused when it is already open on the
  /// path (it contains itself) or would nest past kMaxNestingDepth.
  void open(const py::handle& value) {
    const auto same = std::find_if(open_.begin(), open_.end(), [&](const Open& o) { return o.object == value.ptr(); });
    if (same != open_.end()) {
      const std::string outer = joined(same->path_steps);
      fail("contains itself (it is " + (outer.empty() ? "the whole " + source_ : excerpt(outer)) +
           "); a config is a tree of values, with no dict or list inside itself");
    }
    if (static_cast<int>(open_.size()) >= config::kMaxNestingDepth)
      fail("nested deeper than " + std::to_string(config::kMaxNestingDepth) +
           " levels of lists and maps; no config needs as many");
    open_.push_back({value.ptr(), path_.size()});
  }

  void emit(YAML::Emitter& out, const py::handle& value) {
    count_one();
    if (py::isinstance<py::dict>(value)) {
      open(value);
      out << YAML::BeginMap;
      for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(value)) {
        if (!py::isinstance<py::str>(k)) fail("keys are strings; found a key that is " + describe(k));
        const std::string key = utf8_of(k);
        // As messages show it (excerpt): a path of megabyte keys stays a short line.
        path_.push_back(excerpt(key));
        count_one();
        out << YAML::Key << key << YAML::Value;
        emit(out, v);
        path_.pop_back();
      }
      out << YAML::EndMap;
      open_.pop_back();
    } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
      open(value);
      out << YAML::BeginSeq;
      std::size_t i = 0;
      for (const auto& v : value) {
        path_.push_back("[" + std::to_string(i++) + "]");
        emit(out, v);
        path_.pop_back();
      }
      out << YAML::EndSeq;
      open_.pop_back();
    } else {
      emit_scalar(out, value, true);
    }
  }

  /// A value that is no dict or list. `numpy` lets a NumPy scalar stand for its Python value
  /// (once: what .item() gives must be a plain scalar).
  void emit_scalar(YAML::Emitter& out, const py::handle& value, bool numpy) {
    if (value.is_none()) {
      out << YAML::Null;
    } else if (py::isinstance<py::bool_>(value)) {
      out << (value.ptr() == Py_True);
    } else if (py::isinstance<py::int_>(value)) {
      // Python's ints are exact; so is their text (an int subclass's own, an IntEnum's, as int's).
      const py::object exact = py::reinterpret_steal<py::object>(PyNumber_Long(value.ptr()));
      if (!exact) throw py::error_already_set();
      out << YAML::Value << utf8_of(py::str(exact));
    } else if (py::isinstance<py::float_>(value)) {
      const double x = PyFloat_AsDouble(value.ptr());
      if (std::isnan(x)) {
        out << ".nan";
      } else if (std::isinf(x)) {
        out << (x > 0 ? ".inf" : "-.inf");
      } else {
        out << utf8_of(py::repr(py::float_(x)));  // the shortest text that reads back to x
      }
    } else if (py::isinstance<py::str>(value)) {
      out << YAML::DoubleQuoted << utf8_of(value);
    } else if (py::hasattr(value, "__fspath__")) {
      const py::object path = py::module_::import("os").attr("fspath")(value);
      if (!py::isinstance<py::str>(path)) fail("a path that is not text: os.fspath gives " + describe(path));
      out << YAML::DoubleQuoted << utf8_of(path);
    } else if (numpy && py::hasattr(value, "item") && py::hasattr(value, "dtype")) {
      emit_scalar(out, value.attr("item")(), false);  // a NumPy scalar: its Python value
    } else {
      fail(describe(value) + " has no YAML form; use dict, list, str, int, float, bool or None");
    }
  }

  /// A dict or list open on the path, and the path's length where it is.
  struct Open {
    PyObject* object;
    std::size_t path_steps;
  };
  std::string source_;
  std::vector<std::string> path_;  ///< the steps of the key path to the value being converted
  std::vector<Open> open_;         ///< the dicts and lists on the path, outermost first
  std::int64_t nodes_ = 0;         ///< values counted so far, against kMaxPythonNodes
};

}  // namespace

std::string yaml_text(const py::handle& value, bool flow) { return PythonToYaml("value").text(value, flow, ""); }

std::vector<config::Override> overrides_from(const py::object& overrides, const std::string& who) {
  std::vector<config::Override> result;
  if (overrides.is_none()) return result;
  // One count of values for all of the call's overrides: many short ones are as long a walk.
  PythonToYaml convert(who);
  // A key or a "key=value" string Python cannot give as UTF-8 (a lone surrogate).
  const auto text = [&](const py::handle& s) {
    try {
      return utf8_of(s);
    } catch (py::error_already_set& e) {
      throw config::ConfigError(who + ": " + python_error(e));
    }
  };
  if (py::isinstance<py::dict>(overrides)) {
    for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(overrides)) {
      if (!py::isinstance<py::str>(k))
        throw config::ConfigError(who + ": keys are key paths, strings like \"schedule.kind\"; found " + describe(k));
      const std::string key = text(k);
      convert.count(excerpt(key));
      const std::string assignment = key + "=" + convert.text(v, true, excerpt(key));
      result.push_back({assignment, who + " " + excerpt(assignment)});
    }
    return result;
  }
  if (py::isinstance<py::str>(overrides))
    throw config::ConfigError(who + ": expected a dict {key: value} or a list of \"key=value\" strings, got one string");
  if (!py::hasattr(overrides, "__iter__"))
    throw config::ConfigError(who + ": expected a dict {key: value} or a list of \"key=value\" strings, got " +
                              describe(overrides));
  std::size_t i = 0;
  for (const auto& item : overrides) {
    if (!py::isinstance<py::str>(item))
      throw config::ConfigError(who + ": expected \"key=value\" strings, got " + describe(item));
    const std::string assignment = text(item);
    convert.count("[" + std::to_string(i++) + "]");
    result.push_back({assignment, who + " " + excerpt(assignment)});
  }
  return result;
}

config::LoadedConfig load_config_argument(const py::object& config, const py::object& overrides, const std::string& who) {
  const std::vector<config::Override> sets = overrides_from(overrides, who);
  if (config.is_none())
    return config::load_config_text(std::string(config::default_config_text()), config::kDefaultConfigName, sets);
  if (py::isinstance<config::LoadedConfig>(config)) {
    const auto& loaded = config.cast<const config::LoadedConfig&>();
    if (sets.empty()) return loaded;
    // The resolved YAML holds every key with absolute paths, so it loads back the same.
    // Keys keep where the user wrote them; only the overrides' own are new. The resolved
    // text's lines are nobody's file.
    std::map<std::string, std::string> locations = loaded.locations;
    for (const config::Override& set : sets) {
      const std::string key = set.assignment.substr(0, set.assignment.find('='));
      locations[key] = set.shown_as;
    }
    try {
      config::LoadedConfig again = config::load_config_text(config::resolved_yaml(loaded.settings), loaded.source, sets);
      again.locations = std::move(locations);
      return again;
    } catch (const config::ConfigError& e) {
      // An error the checks found at a key of the resolved text (a check across keys, set off
      // by an override) is told at the key's own place, as loading the file would tell it.
      const std::optional<KeyedMessage> parts = split_keyed(e.what());
      if (!parts || parts->where.rfind(loaded.source + ":", 0) != 0) throw;
      throw config::ConfigError(config::error_at(locations, loaded.source, parts->key, parts->detail));
    }
  }
  if (py::isinstance<py::dict>(config))
    return config::load_config_text(PythonToYaml("config dict").text(config, false, ""), "config dict", sets);
  if (py::isinstance<py::str>(config) || py::hasattr(config, "__fspath__")) {
    std::string path;
    try {
      const py::object text = py::module_::import("os").attr("fspath")(config);
      if (!py::isinstance<py::str>(text))
        throw config::ConfigError("load_config: expected a path as text; os.fspath gives " + describe(text));
      path = utf8_of(text);
    } catch (py::error_already_set& e) {
      throw config::ConfigError("load_config: " + python_error(e));
    }
    return config::load_config_file(path, sets);
  }
  throw config::ConfigError("load_config: expected a path, a dict of keys, a Config or None, got " + describe(config));
}

void bind_config(py::module_& m) {
  config_error_type = py::reinterpret_borrow<py::object>(
      PyErr_NewExceptionWithDoc("fovea.ConfigError",
                                "A config or setting fovea cannot use. str() is the message the command line prints; "
                                "where, file, line, column, key and detail are its parts (None when absent).",
                                PyExc_ValueError, nullptr));
  m.attr("ConfigError") = config_error_type;
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const config::ConfigError& e) {
      raise_config_error(e.what());
    }
  });

  py::class_<config::LoadedConfig>(m, "Config",
                                   "A checked config: what fovea run would run. Made by load_config; "
                                   "str() is the resolved YAML (every key, defaults filled in).")
      .def_property_readonly("source", [](const config::LoadedConfig& c) { return c.source; },
                             "the file as named, 'config dict', or the built-in default's name")
      .def_property_readonly("name", [](const config::LoadedConfig& c) { return c.settings.name; })
      .def_property_readonly("seed", [](const config::LoadedConfig& c) { return c.settings.seed; })
      .def_property_readonly("frames", [](const config::LoadedConfig& c) { return c.settings.frames; })
      .def_property_readonly("time_step_s", [](const config::LoadedConfig& c) { return c.settings.world.time_step_s; })
      .def_property_readonly("screen_px",
                             [](const config::LoadedConfig& c) {
                               return py::make_tuple(c.settings.perception.view.screen.width_px,
                                                     c.settings.perception.view.screen.height_px);
                             },
                             "(width, height) of the screen the perception model places collisions on")
      .def_property_readonly("yaml", [](const config::LoadedConfig& c) { return config::resolved_yaml(c.settings); },
                             "every key, defaults filled in, as YAML that loads back to the same config")
      .def_property_readonly("locations", [](const config::LoadedConfig& c) { return c.locations; },
                             "key path -> where it was written (file:line:col, or the override)")
      .def("__str__", [](const config::LoadedConfig& c) { return config::resolved_yaml(c.settings); })
      .def("__repr__", [](const config::LoadedConfig& c) {
        return "<fovea.Config '" + c.settings.name + "' from " + c.source + ">";
      });

  m.def("load_config", [](const py::object& config, const py::object& overrides) { return load_config_argument(config, overrides); },
        py::arg("config") = py::none(), py::arg("overrides") = py::none(),
        R"(Loads and checks a config as `fovea run` does.

config: a path (str or os.PathLike) to a YAML config, a dict of keys as the YAML would hold
  them, a Config, or None for the built-in default scene (configs/default.yaml).
overrides: None, a dict {"world.entities[0].count": 500, "schedule.kind": "round_robin"}, or
  a list of "key=value" strings, applied in order with the checks of `fovea run --set`.

Raises fovea.ConfigError (a ValueError) with the command line's message: file:line:col, key,
and what was expected.)");
}

}  // namespace fovea::python
