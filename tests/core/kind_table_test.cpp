// The lookups every kind table is read through (core/kind_table.hpp), and the check each
// table asserts beside itself.

#include <catch2/catch.hpp>

#include <array>

#include "core/kind_table.hpp"

using namespace fovea;

namespace {

enum class Fruit { apple, pear, plum };

constexpr auto kFruits = std::to_array<KindName<Fruit>>({
    {Fruit::apple, "apple", "round"},
    {Fruit::pear, "pear", "pear-shaped"},
});

}  // namespace

TEST_CASE("Kind tables: a name for every row, the row for every name, and nothing for what is not there",
          "[core][kinds]") {
  STATIC_REQUIRE(is_kind_table(kFruits));
  CHECK(std::string(kind_name(kFruits, Fruit::pear)) == "pear");
  CHECK(find_kind(kFruits, Fruit::pear) == &kFruits[1]);
  CHECK(kind_named(kFruits, "apple") == Fruit::apple);
  // A value without a row, and a name no row has.
  CHECK(find_kind(kFruits, Fruit::plum) == nullptr);
  CHECK(std::string(kind_name(kFruits, Fruit::plum)) == "?");
  CHECK_FALSE(kind_named(kFruits, "plum").has_value());
  CHECK_FALSE(kind_named(kFruits, "appl").has_value());
}

TEST_CASE("Kind tables: a value or a name twice, or a row without a name or help, is not a table",
          "[core][kinds]") {
  using Rows = std::array<KindName<Fruit>, 2>;
  STATIC_REQUIRE_FALSE(is_kind_table(Rows{{{Fruit::apple, "apple", "a"}, {Fruit::apple, "pear", "b"}}}));
  STATIC_REQUIRE_FALSE(is_kind_table(Rows{{{Fruit::apple, "apple", "a"}, {Fruit::pear, "apple", "b"}}}));
  STATIC_REQUIRE_FALSE(is_kind_table(Rows{{{Fruit::apple, "", "a"}, {Fruit::pear, "pear", "b"}}}));
  STATIC_REQUIRE_FALSE(is_kind_table(Rows{{{Fruit::apple, "apple", ""}, {Fruit::pear, "pear", "b"}}}));
  STATIC_REQUIRE(is_kind_table(Rows{{{Fruit::plum, "plum", "a stone fruit"}, {Fruit::pear, "pear", "b"}}}));
}
