#!/usr/bin/env bash
# tests/tools/env_doc.sh SOURCE_DIR TOOL - every CES_* environment variable
# that the sources read (getenv, ces_cuda_env_u64, ces_cuda_env_setting) is
# described: in a row of docs/API.md's environment table, or in the --help
# of a cesync command.  CES_BENCH_TRACE, read by the bench, was in neither.
set -u
src=$1
tool=$2
names=$(grep -rhE 'getenv\("CES_|env_u64\("CES_|env_setting\([a-z]+, "CES_' \
  "$src/core" "$src/backend" "$src/model" "$src/tools" | grep -oE '"CES_[A-Z0-9_]+"' | tr -d '"' |
  sort -u)
[ -n "$names" ] || { echo "FAIL: no CES_* variable found in $src"; exit 1; }
# the environment table: from "## Environment" to the next heading
table=$(sed -n '/^## Environment/,/^## [^E]/p' "$src/docs/API.md" | grep -E '^\| ')
help=""
for cmd in print validate dot check gen promela run bench; do
  help="$help$("$tool" "$cmd" --help 2>&1)"
done
bad=0
for n in $names; do
  if ! grep -q "\`$n\`" <<<"$table" && ! grep -q "$n" <<<"$help"; then
    echo "FAIL: $n is read but neither docs/API.md's environment table nor a --help names it"
    bad=1
  fi
done
[ "$bad" = 0 ] && echo "PASSED: $(echo "$names" | wc -l) variables, each described"
exit "$bad"
