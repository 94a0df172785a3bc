#pragma once

// Tables of refused inputs: a reader's tests list each bad input with the one message it
// must give, and check them in one loop (tests/config, tests/psychophysics).

#include <functional>
#include <string>
#include <vector>

namespace fovea::test {

/// An input text, the --set values given with it, and the message reading them must give
/// ("" for an input that is read without complaint).
struct Refusal {
  std::string text;
  std::vector<std::string> sets;
  std::string message;
};

/// The message a reader gives for a text and its --set values, "" when it reads them.
using ErrorOf = std::function<std::string(const std::string& text, const std::vector<std::string>& sets)>;

/// Checks, one CHECK each, that `error_of` gives exactly every refusal's message.
void check_refusals(const ErrorOf& error_of, const std::vector<Refusal>& refusals);

}  // namespace fovea::test
