#!/usr/bin/env bash
# The test suite's libFuzzer passes (docs/fuzzing.md, fuzz/CMakeLists.txt), in the libFuzzer
# build folder the tests share:
#
#   timed_pass.sh --build SOURCE_DIR LIBFUZZER_BUILD_DIR
#       `./fovea fuzz --build`: every target in one build, the fixture the passes need;
#   timed_pass.sh NAME SECONDS SOURCE_DIR LIBFUZZER_BUILD_DIR
#       `./fovea fuzz NAME --seconds SECONDS --no-build`: one target's timed pass, as built.
#
# Where clang or its libFuzzer runtime is missing the build exits 77, which ctest reports as
# skipped, saying why; the passes then find no target built and are skipped too.
set -euo pipefail

if [ "${1:-}" = --build ]; then
  root="$2" build="$3"
  if ! command -v clang++ >/dev/null 2>&1; then
    echo "SKIPPED: clang++ is not installed; ./fovea fuzz installs it (Debian clang, libclang-rt-14-dev)"
    exit 77
  fi
  # The suite installs nothing: where dpkg knows the packages ./fovea fuzz would install, and
  # they are missing, the build is skipped rather than letting the driver run apt-get.
  if command -v dpkg-query >/dev/null 2>&1; then
    for package in clang libclang-rt-14-dev; do
      if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        echo "SKIPPED: Debian package $package is not installed; ./fovea fuzz installs it"
        exit 77
      fi
    done
  fi
  probe="$(mktemp -d)"
  trap 'rm -rf "$probe"' EXIT
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe/probe.cpp"
  if ! clang++ -fsanitize=fuzzer,address "$probe/probe.cpp" -o "$probe/probe" >"$probe/log" 2>&1; then
    echo "SKIPPED: clang++ cannot link libFuzzer here (libclang-rt-14-dev missing?); ./fovea fuzz installs it"
    sed 's/^/  /' "$probe/log" | head -5
    exit 77
  fi
  # The suite's own build options (a Debug FOVEA_BUILD_TYPE, FOVEA_CMAKE_ARGS) are GCC's:
  # they must not reconfigure the clang folder.
  env -u FOVEA_BUILD_TYPE -u FOVEA_CMAKE_ARGS FOVEA_FUZZ_BUILD_DIR="$build" "$root/fovea" fuzz --build
  exit 0
fi

name="$1" seconds="$2" root="$3" build="$4"
if [ ! -x "$build/bin/fovea_fuzz_$name" ]; then
  echo "SKIPPED: the libFuzzer build was skipped (see the test 'fuzz: libFuzzer build of every target')"
  exit 77
fi
FOVEA_FUZZ_BUILD_DIR="$build" exec "$root/fovea" fuzz "$name" --seconds "$seconds" --no-build
