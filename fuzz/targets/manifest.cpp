// Fuzz target: a run's manifest.json as `fovea sweep` reads it back when it resumes a study,
// and fovea.read_run before it reads a run (record/run_folder.hpp): the bounded JSON reader
// (parse_json_text, record/json_file.hpp), then check_run_manifest, then, for a manifest that
// says completed, check_run_frames against a fixed frames.csv of 3 frames. Refusals are a
// verdict and a problem, never an exception.
//
// Beyond "no crash": the JSON checks of fuzz/json_check.hpp (a refusal names the file in a
// bounded line; an accepted value is at most 64 deep and prints back the same); the problem
// is bounded too (a status of megabytes is quoted in part); a text is never "unreadable" (that
// is the OS's verdict); a whole manifest says completed, and whole frames are exactly the
// frames_completed it counts.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "fuzz_check.hpp"
#include "json_check.hpp"
#include "record/run_folder.hpp"

namespace {

using fovea::fuzz::check;
namespace fs = std::filesystem;

/// A run's folder of the temporary directory with a frames.csv of 3 whole frames, removed at exit.
struct RunFolder {
  fs::path path;
  RunFolder() {
    std::string folder = (fs::temp_directory_path() / "fovea_fuzz_manifest_XXXXXX").string();
    if (::mkdtemp(folder.data()) == nullptr) fovea::fuzz::fail("cannot make a temporary folder for frames.csv");
    path = folder;
    std::ofstream(path / "frames.csv") << "frame,sim_time_s,collisions\n0,0,1\n1,0.016,2\n2,0.033,2228\n";
  }
  ~RunFolder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;
};

const RunFolder& run_folder() {
  static const RunFolder folder;
  return folder;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& folder = run_folder().path;
  const fs::path path = folder / "manifest.json";
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fovea::JsonFile file = fovea::fuzz::read_json_checked(text, path.string());
  const fovea::RunFolderCheck manifest = fovea::check_run_manifest(std::move(file), path);
  check(manifest.verdict != fovea::RunFolderCheck::Verdict::unreadable, "bytes in memory judged unreadable");
  check(manifest.problem.size() <= path.string().size() + 500,
        "a problem of " + std::to_string(manifest.problem.size()) + " bytes");
  if (manifest.verdict != fovea::RunFolderCheck::Verdict::whole) {
    check(!manifest.problem.empty(), "a manifest not whole, and no problem said");
    return 0;
  }
  check(manifest.problem.empty(), "a whole manifest with a problem: " + manifest.problem);
  check(manifest.manifest.is_object() && manifest.manifest.value("status", nlohmann::ordered_json()) == "completed",
        "a manifest judged whole that does not say completed");
  const fovea::RunFolderCheck frames = fovea::check_run_frames(folder, manifest.manifest);
  check(frames.verdict != fovea::RunFolderCheck::Verdict::unreadable, "the fixed frames.csv judged unreadable");
  if (frames.verdict == fovea::RunFolderCheck::Verdict::whole) {
    check(frames.frames.rows.size() == 3, "whole frames that are not the 3 of frames.csv");
    check(manifest.manifest.at("frames_completed") == 3, "whole frames for a manifest that does not count 3");
  } else {
    check(!frames.problem.empty(), "frames not whole, and no problem said");
  }
  return 0;
}
