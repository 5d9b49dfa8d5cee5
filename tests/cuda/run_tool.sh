#!/bin/sh
# tests/cuda/run_tool.sh CESYNC run ARGS... - runs `cesync run` for ctest:
# exit 77 (skipped) without GPUs for 2 ranks (every schedule it runs has 2,
# in one process with --single-process);
# pass only if it exits 0 and its PASSED line counts more than 0 consumed
# bytes checked (every schedule run here consumes: a run that checked
# nothing proved nothing).
. "$(dirname "$0")/gpu_fit.sh"
case " $* " in *" --single-process "*) gpu_fit 2 one-process ;; *) gpu_fit 2 ;; esac
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
line=$(printf '%s\n' "$out" | grep '^PASSED: ' | head -n 1)
[ -n "$line" ] || { echo "FAIL: no PASSED line"; exit 1; }
checked=$(printf '%s\n' "$line" |
  sed -n 's/^PASSED: .*, \([0-9][0-9]*\) consumed bytes checked on .*/\1/p')
[ -n "$checked" ] || { echo "FAIL: the PASSED line counts no consumed bytes checked"; exit 1; }
[ "$checked" -gt 0 ] || { echo "FAIL: $checked consumed bytes checked"; exit 1; }
exit 0
