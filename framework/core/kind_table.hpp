#pragma once

// Every enum a config names (schedulers, tree builders, gaze sources, budget modes, ...) has
// one constexpr table beside it, a row per value: the value, its name as configs, records
// and the panel spell it, and one line of help. Whatever lists the kinds reads that table:
// the config's parser and its choices (config/settings_schema.cpp), the name functions the
// records use, the control panel, the tests. A table whose kinds need more says so in columns
// of its own (schedule/scheduler_kinds.hpp: what each scheduler reads, and its factory).

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace fovea {

/// A row of a kind table. `name` and `help` are string literals (null-terminated, for C
/// interfaces such as ImGui's). Tables whose rows say more have rows of their own type with
/// these three members.
template <class E>
struct KindName {
  E kind;            ///< the enum value this row names and describes
  const char* name;  ///< as configs and records spell it: "round_robin"
  const char* help;  ///< one line: what this kind is or does
};

/// The enum a table's rows hold.
template <class Table>
using KindOf = decltype(Table::value_type::kind);

/// The row of `kind`, or null when the table lacks it.
template <class Table>
constexpr const typename Table::value_type* find_kind(const Table& table, KindOf<Table> kind) {
  for (const auto& row : table)
    if (row.kind == kind) return &row;
  return nullptr;
}

/// The row of `kind`, which the table must have: a value added to its enum without a row
/// throws std::logic_error here rather than being read through a null pointer.
template <class Table>
constexpr const typename Table::value_type& kind_row(const Table& table, KindOf<Table> kind) {
  const auto* row = find_kind(table, kind);
  if (row == nullptr) throw std::logic_error("a kind without its row in its kind table");
  return *row;
}

/// The name of `kind`; "?" for a value the table lacks.
template <class Table>
constexpr const char* kind_name(const Table& table, KindOf<Table> kind) {
  const auto* row = find_kind(table, kind);
  return row != nullptr ? row->name : "?";
}

/// The kind called `name`, if the table has one.
template <class Table>
constexpr std::optional<KindOf<Table>> kind_named(const Table& table, std::string_view name) {
  for (const auto& row : table)
    if (name == row.name) return row.kind;
  return std::nullopt;
}

/// Whether no two rows share a value or a name, and every row has both a name and help.
template <class Table>
constexpr bool is_kind_table(const Table& table) {
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (std::string_view(table[i].name).empty() || std::string_view(table[i].help).empty()) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (table[j].kind == table[i].kind || std::string_view(table[j].name) == table[i].name) return false;
  }
  return true;
}

/// A kind table made from its rows, checked as it is made: two rows with one value or one
/// name, or a row without a name or help, stop the build here.
template <class Row, std::size_t N>
consteval std::array<Row, N> kind_table(const Row (&rows)[N]) {
  std::array<Row, N> table{};
  for (std::size_t i = 0; i < N; ++i) table[i] = rows[i];
  if (!is_kind_table(table)) throw "a kind table names each value once, with a name and a line of help";
  return table;
}

}  // namespace fovea
