#pragma once

// `fovea fit --export`: the trials the fit counted, per condition (eccentricity) and
// stimulus level (gap), in the form psignifit 4 and Palamedes take (docs/cli.md, "fovea
// fit", Exports; docs/psychophysics.md, "Reading fovea's data in psignifit and Palamedes").

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/kind_table.hpp"
#include "psychophysics/psychometric_fit.hpp"

namespace fovea {

/// A tool whose data `fovea fit --export` writes.
enum class ExportFormat {
  psignifit,  ///< psignifit 4 (MATLAB and python-psignifit): an n x 3 matrix [level, n correct, n total]
  palamedes   ///< Palamedes (PAL_PFML_Fit): the vectors StimLevels, NumPos, OutOfNum
};

/// ExportFormat's names on the command line (`--export`), with one line of help each.
inline constexpr auto kExportFormats = kind_table<KindName<ExportFormat>>({
    {ExportFormat::psignifit, "psignifit",
     "<stem>_psignifit.csv: per participant and eccentricity, psignifit 4's n x 3 data: gap_deg, n_yes (n_correct "
     "for a forced choice), n_total"},
    {ExportFormat::palamedes, "palamedes",
     "<stem>_palamedes.csv: per participant and eccentricity, Palamedes' StimLevels, NumPos, OutOfNum"},
});

/// What the counted answers are: the task the trials came from, which names the count.
enum class ResponseKind {
  yes_no,        ///< "I saw a gap": the count is of yes answers (psignifit's 'yes/no' experiment type)
  forced_choice  ///< the gap's interval named: the count is of correct answers ('2AFC')
};

/// "yes" or "correct": what an export's count counts, as its column and <stem>_fit.json name it.
const char* counted_response_name(ResponseKind kind);

/// The counted trials at one eccentricity and gap: one row of an export.
struct LevelCount {
  double eccentricity_deg = 0;  ///< the condition, degrees from fixation
  double gap_deg = 0;           ///< the stimulus level, degrees; 0 for the catch trials
  int positive = 0;             ///< answered yes (yes/no) or correctly (forced choice)
  int total = 0;                ///< trials counted there
};

/// `trials` pooled per (eccentricity, gap), sorted by eccentricity then gap: the counts
/// <stem>_conditions.csv and the exports hold. Catch trials (gap 0) are the gap-0 rows.
std::vector<LevelCount> count_levels(std::span<const TrialOutcome> trials);

/// One fit's trials for an export: who (a participant, or "pooled") and the trials fitted.
struct ExportGroup {
  std::string name;                          ///< the fit's participant column
  std::span<const TrialOutcome> trials;      ///< the trials that fit counted, in any order
};

/// The file `format` is written to beside the model: "<stem>_psignifit.csv".
std::string export_file_name(const std::string& stem, ExportFormat format);

/// The header of `format`'s file: participant, eccentricity_deg, then the tool's three
/// columns (psignifit: gap_deg, n_yes or n_correct by `kind`, n_total; Palamedes: StimLevels,
/// NumPos, OutOfNum).
std::vector<std::string> export_columns(ExportFormat format, ResponseKind kind);

/// Writes `format`'s file at `path` (atomically, as the fit's other outputs): for each
/// group in order, one row per count_levels() row of its trials. Throws std::runtime_error
/// naming the path when it cannot be written.
void write_export(const std::filesystem::path& path, ExportFormat format, ResponseKind kind,
                  std::span<const ExportGroup> groups);

}  // namespace fovea
