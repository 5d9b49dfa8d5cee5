#!/bin/sh
# tests/cuda/run_tool.sh CESYNC run ARGS... - runs `cesync run` for ctest:
# exit 77 (skipped) without a GPU; pass only if it exits 0 and says PASSED.
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
printf '%s\n' "$out" | grep -q '^PASSED' || { echo "FAIL: no PASSED line"; exit 1; }
exit 0
