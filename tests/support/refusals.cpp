#include "support/refusals.hpp"

#include <catch2/catch.hpp>

namespace fovea::test {

void check_refusals(const ErrorOf& error_of, const std::vector<Refusal>& refusals) {
  for (const Refusal& r : refusals) {
    INFO(r.text);
    CHECK(error_of(r.text, r.sets) == r.message);
  }
}

}  // namespace fovea::test
