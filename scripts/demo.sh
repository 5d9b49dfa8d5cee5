#!/usr/bin/env bash
# The main job: check a 4-rank alltoall schedule (NCCL 2.28's copy-engine
# protocol, 2 iterations; not the built-in default, mono and one iteration)
# over every interleaving and write its picture to out/.  Extra arguments go
# to `cesync check`.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/setup.sh
. scripts/setup.sh   # sets dir, the build directory
mkdir -p out
cesync=$dir/tools/cesync
set -x
"$cesync" check alltoall --ranks 4 --sync nccl --iterations 2 --dot out/alltoall.svg "$@"
