#include "record/run_folder.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "core/format.hpp"
#include "record/json_file.hpp"

namespace fovea {
namespace {

using Json = nlohmann::ordered_json;

RunFolderCheck incomplete(std::string problem) { return {RunFolderCheck::Verdict::incomplete, std::move(problem), Json(), {}}; }
RunFolderCheck unreadable(std::string problem) { return {RunFolderCheck::Verdict::unreadable, std::move(problem), Json(), {}}; }

}  // namespace

RunFolderCheck check_run_manifest(const std::filesystem::path& folder) {
  const std::filesystem::path path = folder / "manifest.json";
  return check_run_manifest(read_json_file(path, "manifest"), path);
}

RunFolderCheck check_run_manifest(JsonFile manifest_file, const std::filesystem::path& path) {
  // A manifest.json the OS does not give (a folder, a pipe, no permission, too large) is not
  // known to be damaged, and its run may be whole. One that is missing, or reads but is not
  // JSON (cut short), belongs to a run that did not end well.
  if (manifest_file.state == JsonFile::State::unreadable)
    return unreadable("its manifest.json cannot be read (" + manifest_file.problem + ")");
  if (manifest_file.state == JsonFile::State::missing) return incomplete("it has no manifest.json");
  // The reader's problem names the file and the place: a sweep or fovea.read_run says it.
  if (manifest_file.state == JsonFile::State::malformed)
    return incomplete("its manifest.json is cut short or damaged (" + manifest_file.problem + ")");
  if (!manifest_file.json.is_object())
    return incomplete("its manifest.json is cut short or damaged (" + path.string() + ": not a JSON object)");
  RunFolderCheck check{RunFolderCheck::Verdict::whole, "", std::move(manifest_file.json), {}};
  const Json status = check.manifest.value("status", Json("unknown"));
  if (status != "completed") {
    check.verdict = RunFolderCheck::Verdict::incomplete;
    // Quoted as far as a status needs: a manifest may hold megabytes in its place.
    check.problem = "its manifest says " + excerpt(status.is_string() ? status.get<std::string>() : status.dump());
  }
  return check;
}

RunFolderCheck check_run_frames(const std::filesystem::path& folder, const Json& manifest) {
  const Json counted = manifest.is_object() ? manifest.value("frames_completed", Json()) : Json();
  if (!counted.is_number_integer()) return incomplete("its manifest.json counts no frames_completed");
  const auto frames_counted = counted.get<std::int64_t>();
  const std::filesystem::path frames_path = folder / "frames.csv";
  std::error_code error;
  if (!std::filesystem::is_regular_file(frames_path, error)) return incomplete("it has no frames.csv");
  // A file the OS cannot give (unreadable, too large to read) is not known to be damaged. A
  // file that reads but does not parse is damaged.
  std::string frames_text;
  try {
    frames_text = read_file_text(frames_path.string());
  } catch (const std::runtime_error& e) {
    return unreadable("a complete run, but its frames.csv cannot be read (" + std::string(e.what()) + ")");
  }
  RunFolderCheck whole{RunFolderCheck::Verdict::whole, "", Json(), {}};
  try {
    whole.frames = parse_csv(frames_text, frames_path.string());
  } catch (const std::runtime_error& e) {
    return incomplete("its frames.csv is cut short or damaged (" + std::string(e.what()) + ")");
  }
  // fovea writes frames.csv in whole lines. A last line without its newline never finished,
  // even when what is there parses: a number cut after a digit, or after its comma (an empty
  // last cell), reads as a row as good as the others. The reader leaves it out; a run whose
  // file lost one is not whole.
  if (whole.frames.unfinished_line != 0)
    return incomplete("its frames.csv is cut short or damaged (" + whole.frames.unfinished_note(frames_path.string()) + ")");
  const auto frames_held = static_cast<std::int64_t>(whole.frames.rows.size());
  if (frames_held < frames_counted)
    return incomplete("its frames.csv holds " + std::to_string(frames_held) + " of the " + std::to_string(frames_counted) +
                      " frames its manifest.json counts");
  if (frames_held > frames_counted)
    return incomplete("its frames.csv holds " + std::to_string(frames_held) + " frames, its manifest.json counts " +
                      std::to_string(frames_counted));
  return whole;
}

RunFolderCheck check_run_folder(const std::filesystem::path& folder) {
  RunFolderCheck manifest = check_run_manifest(folder);
  if (manifest.verdict != RunFolderCheck::Verdict::whole) return manifest;
  RunFolderCheck frames = check_run_frames(folder, manifest.manifest);
  frames.manifest = std::move(manifest.manifest);
  return frames;
}

}  // namespace fovea
