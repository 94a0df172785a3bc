// Fuzz target: a run's summary.json as it is read back (docs/results.md): by the bounded JSON
// reader (parse_json_text, record/json_file.hpp), which every JSON file fovea reads goes
// through, then walked as a reader of a run's statistics walks it: each column's mean, median,
// p95, min and max, and the totals. (fovea.read_run reads it in Python with the same limits,
// python/fovea/results.py; no command of fovea's reads it back.) Refusal is a malformed state
// with one line naming the file.
//
// Beyond "no crash": the JSON checks of fuzz/json_check.hpp: a refusal names the file in a
// bounded line, never quoting what it last read; an accepted value is at most 64 levels deep,
// and printed and read again prints the same.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "json_check.hpp"

namespace {

using Json = nlohmann::ordered_json;

/// A statistic's value as a reader takes it: a number, or missing.
double number_or_nan(const Json& object, const char* key) {
  if (!object.is_object()) return std::nan("");
  const auto found = object.find(key);
  return found != object.end() && found->is_number() ? found->get<double>() : std::nan("");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const fovea::JsonFile file = fovea::fuzz::read_json_checked(text, "run/summary.json");
  if (file.state != fovea::JsonFile::State::read || !file.json.is_object()) return 0;
  double sum = 0;
  for (const auto& [key, value] : file.json.items()) {
    if (!value.is_object()) continue;
    for (const char* statistic : {"mean", "median", "p95", "min", "max"}) sum += number_or_nan(value, statistic);
    for (const auto& [total, count] : value.items())
      if (count.is_number_integer()) sum += static_cast<double>(count.get<std::int64_t>());
  }
  (void)sum;
  return 0;
}
