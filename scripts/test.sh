#!/usr/bin/env bash
# The test command: set-up (packages, configure, build with -Werror), then
# every test.  GPU tests (label gpu) report "skipped" where no GPU exists.
# CES_SANITIZE=1 builds and tests under ASan + UBSan in build-asan/,
# CES_SANITIZE=thread under ThreadSanitizer in build-tsan/.
# Arguments go to ctest (e.g. -L gpu, -R parse).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/setup.sh
. scripts/setup.sh   # sets dir, the build directory
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" "$@"
