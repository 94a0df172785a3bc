#!/usr/bin/env bash
# The test suite's timed pass of one fuzz target: `./fovea fuzz NAME --seconds N`, in the
# libFuzzer build folder the tests share. Where clang or its libFuzzer runtime is missing it
# exits 77, which ctest reports as skipped, saying why (docs/fuzzing.md).
#
#   timed_pass.sh NAME SECONDS SOURCE_DIR LIBFUZZER_BUILD_DIR
set -euo pipefail
name="$1" seconds="$2" root="$3" build="$4"

if ! command -v clang++ >/dev/null 2>&1; then
  echo "SKIPPED: clang++ is not installed; ./fovea fuzz $name installs it (Debian clang, libclang-rt-14-dev)"
  exit 77
fi
# The suite installs nothing: where dpkg knows the packages ./fovea fuzz would install, and
# they are missing, the pass is skipped rather than letting the driver run apt-get.
if command -v dpkg-query >/dev/null 2>&1; then
  for package in clang libclang-rt-14-dev; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      echo "SKIPPED: Debian package $package is not installed; ./fovea fuzz $name installs it"
      exit 77
    fi
  done
fi
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe/probe.cpp"
if ! clang++ -fsanitize=fuzzer,address "$probe/probe.cpp" -o "$probe/probe" >"$probe/log" 2>&1; then
  echo "SKIPPED: clang++ cannot link libFuzzer here (libclang-rt-14-dev missing?); ./fovea fuzz $name installs it"
  sed 's/^/  /' "$probe/log" | head -5
  exit 77
fi
FOVEA_FUZZ_BUILD_DIR="$build" exec "$root/fovea" fuzz "$name" --seconds "$seconds"
