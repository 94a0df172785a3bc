#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fovea {

/// Shortest decimal text that reads back to exactly `value` (std::to_chars): used for every
/// number fovea writes (CSV, JSON-adjacent text, resolved configs) so files round-trip and
/// a deterministic run writes the same bytes.
std::string format_number(double value);
/// An integer's decimal digits, with a '-' when negative.
std::string format_number(std::int64_t value);
/// The same text appended to `out`, without allocating beyond out's own growth (for the
/// per-frame CSV rows).
void append_number(std::string& out, double value);
/// An integer's decimal digits appended to `out`, as format_number(std::int64_t) writes them.
void append_number(std::string& out, std::int64_t value);
/// `text` as a number when all of it is one, in format_number's syntax (std::from_chars:
/// locale-independent, no leading '+' or spaces; "inf" and "nan" are numbers); else nullopt.
/// For untrusted text: tracker replies, replayed CSV files.
std::optional<double> parse_number(std::string_view text);
/// The same, and finite.
std::optional<double> parse_finite_number(std::string_view text);
/// `value` to a few significant digits, for messages ("0.293").
std::string format_significant(double value, int digits = 3);

/// The most of any input a message quotes, bytes: a key, a value or a line quoted in an error
/// is at most this long before excerpt() cuts it, so a 1 MB key gives a one-line message.
inline constexpr std::size_t kMaxQuotedBytes = 80;

/// The one rule for quoting input in a message: `text` with control characters escaped
/// (\n, \t, \xNN), so the message stays one line; past kMaxQuotedBytes, its first bytes
/// (never half a UTF-8 character), "...", and its whole length: `abcd... (1000000 bytes)`.
/// Unquoted: the caller adds quotes where the message wants them. `max_bytes` (at least 21)
/// is for text that is a message of its own rather than a value (a parser's message).
std::string excerpt(std::string_view text, std::size_t max_bytes = kMaxQuotedBytes);

/// `rows` (the first a header) as lines of text, each cell padded to its column's widest and
/// columns two spaces apart: a table for a terminal. "" for no rows.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows);

/// Edit distance (insertions, deletions, substitutions), for "did you mean" suggestions.
std::size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace fovea
