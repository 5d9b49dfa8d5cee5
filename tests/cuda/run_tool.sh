#!/bin/sh
# tests/cuda/run_tool.sh CESYNC run ARGS... - runs `cesync run` for ctest:
# exit 77 (skipped) without GPUs for 2 ranks (every schedule it runs has 2,
# in one process with --single-process);
# pass only if it exits 0 and says PASSED.
. "$(dirname "$0")/gpu_fit.sh"
case " $* " in *" --single-process "*) gpu_fit 2 one-process ;; *) gpu_fit 2 ;; esac
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
printf '%s\n' "$out" | grep -q '^PASSED' || { echo "FAIL: no PASSED line"; exit 1; }
exit 0
