#!/usr/bin/env bash
# tests/cuda/testing_doc.sh BUILD_DIR TESTING_MD [cpu] - every GPU test (ctest
# label gpu) is one that docs/TESTING.md's table of the GPU suite describes:
# a name in the first column of a row, braces ({a,b}) and * as the shell
# reads them.  The 4- and 8-rank in-place tests ran for sessions without a
# row naming them.  And README.md's count of them is theirs.  With `cpu`: every other test is one that a list item of
# the page's part before the GPU suite begins with (`- \`a\`, \`b\` ...`):
# sim_test_gen, tools_test_common, tools_test_main and more ran without one.
set -uf  # -f: a * in a name is a pattern, not a file name
build=$1
doc=$2
if [ "${3:-}" = cpu ]; then
  what=CPU
  where="no list item before its GPU suite"
  tests=$(ctest --test-dir "$build" -N -LE gpu | sed -n 's/^ *Test *#[0-9]*: //p')
  # the backquoted names that begin a list item, before "## GPU suite"
  names=$(sed '/^## GPU suite/,$d' "$doc" |
    grep -oE '^- `[a-z0-9_{},*]+`((, | and )`[a-z0-9_{},*]+`)*' | grep -oE '`[a-z0-9_{},*]+`' |
    tr -d '`' | while read -r p; do eval "printf '%s\n' $p"; done)
else
  what=GPU
  where="no row of its GPU suite table"
  tests=$(ctest --test-dir "$build" -N -L gpu | sed -n 's/^ *Test *#[0-9]*: //p')
  # the backquoted names of the table rows' first cells, expanded
  names=$(grep -E '^\| `' "$doc" | cut -d'|' -f2 | grep -oE '`[a-z0-9_{},*]+`' | tr -d '`' |
    while read -r p; do eval "printf '%s\n' $p"; done)
fi
[ -n "$tests" ] || { echo "FAIL: ctest lists no $what test in $build"; exit 1; }
bad=0
for t in $tests; do
  found=0
  for n in $names; do
    # shellcheck disable=SC2053
    [[ $t == $n ]] && { found=1; break; }
  done
  [ "$found" = 1 ] || { echo "FAIL: $t is in $where of $doc"; bad=1; }
done
# README.md's table counts the GPU tests (it said 88 where ctest listed 94)
if [ "$what" = GPU ]; then
  readme=$(dirname "$doc")/../README.md
  said=$(grep -oE '[0-9]+ GPU tests \(label `gpu`' "$readme" | grep -oE '^[0-9]+')
  n=$(echo "$tests" | wc -l)
  [ "$said" = "$n" ] || { echo "FAIL: $readme says '${said:-no} GPU tests', ctest lists $n"; bad=1; }
fi
[ "$bad" = 0 ] && echo "PASSED: $(echo "$tests" | wc -l) $what tests, each in $doc"
exit "$bad"
