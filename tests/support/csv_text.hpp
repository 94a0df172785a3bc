#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fovea::test {

/// The lines of a text, without their line ends.
std::vector<std::string> lines_of(const std::string& text);

/// The cells of one CSV line split at commas (fovea's CSV quotes nothing the tests read);
/// an empty last cell is kept, so every row has as many cells as the header.
std::vector<std::string> split(const std::string& line);

/// A frames.csv without its wall-clock columns (those whose name ends in _ms): what two
/// runs of one config and seed must share to the byte. Requires every row to have as many
/// cells as the header.
std::string without_wall_clock(const std::string& csv);

/// The CSV text without the columns named in `names` (the rest as they are, lines kept).
/// Requires every row to have as many cells as the header.
std::string without_columns(const std::string& csv, const std::vector<std::string>& names);

/// Checks the trials.csv of a session killed and resumed (`after`, its lines) against that of
/// the same session run whole (`whole`): row for row the same trials and answers, every cell
/// alike but the session number (column 1) and the times (started_utc, ended_utc); session 1
/// in the `before` lines the killed session wrote (its header included), 2 after them.
void check_resumed_trials(const std::vector<std::string>& whole, const std::vector<std::string>& after,
                          std::size_t before);

}  // namespace fovea::test
