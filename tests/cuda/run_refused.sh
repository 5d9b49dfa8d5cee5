#!/bin/sh
# tests/cuda/run_refused.sh TEXT CESYNC run ARGS... - a `cesync run` that
# must be refused before anything runs, for ctest: exit 77 (skipped) without
# GPUs for 2 ranks; pass only if it exits 2, says TEXT and ran no iteration.
. "$(dirname "$0")/gpu_fit.sh"
gpu_fit 2
text=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 2 ] || { echo "FAIL: exit $rc, expected 2"; exit 1; }
printf '%s\n' "$out" | grep -qF "$text" || { echo "FAIL: no \"$text\""; exit 1; }
if printf '%s\n' "$out" | grep -q '^iteration '; then
  echo "FAIL: an iteration ran"
  exit 1
fi
exit 0
