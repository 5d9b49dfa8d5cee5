#!/usr/bin/env bash
# tests/model/error_table.sh SOURCE_DIR TOOL - model/error_table.sh: with
# the committed model file its first row is the 1 MiB alltoall `auto` of
# docs/bench; with a model file it cannot load it says why on stderr and
# fails (it printed nothing and exited 2, the dry run's error thrown away).
set -u
src=$1
tool=$2
fail() { echo "FAIL: $*"; exit 1; }
out=$(cd "$src" && sh model/error_table.sh "$tool" model/calibrated/h200_2gpu.model 2>&1) ||
  fail "error_table.sh with the committed model exited $?: $out"
# (14.91 and -0.9 % until a batch of one copy stopped paying copy_batch_us,
# as the backend issues it: a plain cudaMemcpyAsync)
want='alltoall                  1048576 auto         15.04     13.91     23.78   -7.5 '
[ "$(printf '%s\n' "$out" | head -n 1)" = "$want" ] ||
  fail "first row is not '$want': $(printf '%s\n' "$out" | head -n 3)"
err=$(cd "$src" && sh model/error_table.sh "$tool" /nonexistent/x.model 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 2 ] || fail "a model that cannot be loaded: exit $rc, not 2"
[ "$err" = "cesync: /nonexistent/x.model: cannot open: No such file or directory" ] ||
  fail "a model that cannot be loaded: stderr '$err'"
echo PASSED
