#pragma once

// What a fuzz target asserts beyond "no crash": a property that must hold for every input a
// reader accepts (it reads back what it writes, its bounds hold). A failed check prints why
// and aborts, which libFuzzer reports as a crash and saves the input for.

#include <cstdio>
#include <cstdlib>
#include <string>

namespace fovea::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void check(bool holds, const std::string& what) {
  if (!holds) fail(what);
}

}  // namespace fovea::fuzz
