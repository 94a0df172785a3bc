// load_config and Config (docs/python.md, "Configs"): the command line's loader and checks,
// so a key mistyped in Python gets fovea run's message, file:line:col and all.

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
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

void emit(YAML::Emitter& out, const py::handle& value) {
  if (value.is_none()) {
    out << YAML::Null;
  } else if (py::isinstance<py::bool_>(value)) {
    out << value.cast<bool>();
  } else if (py::isinstance<py::int_>(value)) {
    out << YAML::Value << py::str(value).cast<std::string>();  // Python's ints are exact; so is their text
  } else if (py::isinstance<py::float_>(value)) {
    const double x = value.cast<double>();
    if (std::isnan(x)) {
      out << ".nan";
    } else if (std::isinf(x)) {
      out << (x > 0 ? ".inf" : "-.inf");
    } else {
      out << py::repr(value).cast<std::string>();  // the shortest text that reads back to x
    }
  } else if (py::isinstance<py::str>(value)) {
    out << YAML::DoubleQuoted << value.cast<std::string>();
  } else if (py::isinstance<py::dict>(value)) {
    out << YAML::BeginMap;
    for (const auto& [k, v] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(k))
        throw config::ConfigError("config dict: keys are strings; got " + py::repr(k).cast<std::string>());
      out << YAML::Key << k.cast<std::string>() << YAML::Value;
      emit(out, v);
    }
    out << YAML::EndMap;
  } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    out << YAML::BeginSeq;
    for (const auto& v : value) emit(out, v);
    out << YAML::EndSeq;
  } else if (py::hasattr(value, "__fspath__")) {
    out << YAML::DoubleQuoted << py::str(value.attr("__fspath__")()).cast<std::string>();
  } else if (py::hasattr(value, "item") && py::hasattr(value, "dtype")) {
    emit(out, value.attr("item")());  // a NumPy scalar: its Python value
  } else {
    throw config::ConfigError("config: a value of type " + py::type::of(value).attr("__name__").cast<std::string>() +
                              " has no YAML form (" + py::repr(value).cast<std::string>() +
                              "); use dict, list, str, int, float, bool or None");
  }
}

}  // namespace

std::string yaml_text(const py::handle& value, bool flow) {
  YAML::Emitter out;
  if (flow) out << YAML::Flow;
  emit(out, value);
  return out.c_str();
}

std::vector<config::Override> overrides_from(const py::object& overrides, const std::string& who) {
  std::vector<config::Override> result;
  if (overrides.is_none()) return result;
  if (py::isinstance<py::dict>(overrides)) {
    for (const auto& [k, v] : overrides.cast<py::dict>()) {
      const std::string assignment = py::str(k).cast<std::string>() + "=" + yaml_text(v, true);
      result.push_back({assignment, who + " " + excerpt(assignment)});
    }
    return result;
  }
  if (py::isinstance<py::str>(overrides))
    throw config::ConfigError(who + ": expected a dict {key: value} or a list of \"key=value\" strings, got one string");
  for (const auto& item : overrides) {
    if (!py::isinstance<py::str>(item))
      throw config::ConfigError(who + ": expected \"key=value\" strings, got " + py::repr(item).cast<std::string>());
    const std::string assignment = item.cast<std::string>();
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
    return config::load_config_text(yaml_text(config, false), "config dict", sets);
  if (py::isinstance<py::str>(config) || py::hasattr(config, "__fspath__"))
    return config::load_config_file(py::str(py::module_::import("os").attr("fspath")(config)).cast<std::string>(), sets);
  throw config::ConfigError("load_config: expected a path, a dict of keys, a Config or None, got " +
                            py::repr(config).cast<std::string>());
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
