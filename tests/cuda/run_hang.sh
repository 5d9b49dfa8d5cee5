#!/bin/sh
# tests/cuda/run_hang.sh TEXT CESYNC run ARGS... - a `cesync run` that must
# hang and be failed by the watchdog, for ctest: exit 77 (skipped) without
# GPUs for 2 ranks; pass only if it exits 1 and says TEXT (the reason it
# gives for the failed communicator: it once printed none).
. "$(dirname "$0")/gpu_fit.sh"
case " $* " in *" --single-process "*) gpu_fit 2 one-process ;; *) gpu_fit 2 ;; esac
text=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; exit 1; }
printf '%s\n' "$out" | grep -qF "$text" || { echo "FAIL: no \"$text\""; exit 1; }
exit 0
