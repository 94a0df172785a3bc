// The corpus replay: runs a fuzz target's LLVMFuzzerTestOneInput over files, the way
// libFuzzer runs its corpus, with any compiler and no libFuzzer. `./fovea test` runs every
// target over its committed corpus (fuzz/corpus/NAME) with it, so an input that once crashed
// a reader stays a regression test on every build. docs/fuzzing.md.
//
//   fovea_fuzz_replay_NAME FILE_OR_FOLDER...

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  // Sorted, so a failure names the same first file on every run.
  std::set<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path path(argv[i]);
    if (fs::is_directory(path)) {
      for (const auto& entry : fs::recursive_directory_iterator(path))
        if (entry.is_regular_file()) inputs.insert(entry.path());
    } else if (fs::is_regular_file(path)) {
      inputs.insert(path);
    } else {
      std::cerr << path.string() << ": no such file or folder\n";
      return 2;
    }
  }
  if (inputs.empty()) {
    std::cerr << "no inputs: give the corpus folder or files\n";
    return 2;
  }
  for (const fs::path& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Named before it runs: a crash leaves this as the last line.
    std::cout << path.string() << std::endl;
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << inputs.size() << " inputs, none crashed\n";
  return 0;
}
