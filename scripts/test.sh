#!/usr/bin/env bash
# The test command: set-up (packages, configure, build with -Werror), then
# every test.  GPU tests (label gpu) report "skipped" where no GPU exists.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
