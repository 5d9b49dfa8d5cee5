#!/usr/bin/env bash
# tests/cuda/testing_doc.sh BUILD_DIR TESTING_MD - every GPU test (ctest
# label gpu) is one that docs/TESTING.md's table of the GPU suite describes:
# a name in the first column of a row, braces ({a,b}) and * as the shell
# reads them.  The 4- and 8-rank in-place tests ran for sessions without a
# row naming them.
set -uf  # -f: a * in a name is a pattern, not a file name
build=$1
doc=$2
tests=$(ctest --test-dir "$build" -N -L gpu | sed -n 's/^ *Test *#[0-9]*: //p')
[ -n "$tests" ] || { echo "FAIL: ctest lists no GPU test in $build"; exit 1; }
# the backquoted names of the table rows' first cells, expanded
names=$(grep -E '^\| `' "$doc" | cut -d'|' -f2 | grep -oE '`[a-z0-9_{},*]+`' | tr -d '`' |
  while read -r p; do eval "printf '%s\n' $p"; done)
bad=0
for t in $tests; do
  found=0
  for n in $names; do
    # shellcheck disable=SC2053
    [[ $t == $n ]] && { found=1; break; }
  done
  [ "$found" = 1 ] || { echo "FAIL: $t is in no row of $doc's GPU suite table"; bad=1; }
done
[ "$bad" = 0 ] && echo "PASSED: $(echo "$tests" | wc -l) GPU tests, each in $doc"
exit "$bad"
