#!/bin/sh
# tests/cuda/example_api.sh EXAMPLE - runs the example program of
# docs/API.md as ctest does, its output in a pipe, and passes only when it
# exits 0 and every rank said "rank R: ok" (2 ranks at least, none FAILED):
# the ranks' lines were lost there (fully buffered stdout, _exit in the
# forked rank).  77 (no GPUs) is passed on: skipped.
out=$("$1")
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: the example exited $rc"; exit 1; }
oks=$(printf '%s\n' "$out" | grep -cE '^rank [0-9]+: ok$')
if [ "$oks" -lt 2 ] || printf '%s\n' "$out" | grep -q FAILED; then
  echo "FAIL: $oks 'rank R: ok' lines (2 ranks at least, each says ok)"
  exit 1
fi
echo "PASSED: $oks ranks ok"
