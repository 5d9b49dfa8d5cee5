#!/usr/bin/env bash
# tests/tools/docs_examples.sh SOURCE_DIR TOOL - what the documents show is
# what cesync does (README's HANG trace and the --predict figures were kept
# up to date by hand):
#  - every code block of README.md, docs/FORMAT.md and docs/PERFORMANCE.md
#    that is a schedule (its first line `cesync 1`) is checked `verdict: OK`;
#  - every block that starts with `$ cesync ARGS` is that command's output:
#    each line it shows (but a line of `...` alone, which leaves lines out,
#    and an annotation `<- ...` at its end) is a line of the output, in
#    that order;
#  - every error docs/FORMAT.md shows (`bad.ces:L:C: message`) is one a
#    malformed fixture expects, line and column included (core_test_parse
#    holds the parser to those).
set -u
src=$1
tool=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
docs="README.md docs/FORMAT.md docs/PERFORMANCE.md"
bad=0

# the blocks, one file each: DOC-N.ces (schedules), DOC-N.cmd (commands)
for doc in $docs; do
  awk -v out="$tmp/$(basename "$doc" .md)" '
    /^```/ { if (f != "") close(f); inb = !inb; n++; f = ""; first = inb; next }
    first { first = 0
            if ($0 == "cesync 1") f = out "-" n ".ces"
            else if ($0 ~ /^\$ cesync /) f = out "-" n ".cmd" }
    inb && f != "" { print > f }' "$src/$doc"
done

# "README-5" -> "README.md's block 5"
where() { basename "$1" | sed -E 's/^(.*)-([0-9]+)\.(ces|cmd)$/\1.md'"'"'s block \2/'; }

schedules=0
for f in "$tmp"/*.ces; do
  [ -e "$f" ] || continue
  schedules=$((schedules + 1))
  out=$("$tool" check "$f" 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ] || ! printf '%s\n' "$out" | grep -qx 'verdict: OK'; then
    echo "FAIL: the schedule in $(where "$f") is not checked OK (exit $rc):"
    printf '%s\n' "$out" | head -5
    bad=1
  fi
done

commands=0
for f in "$tmp"/*.cmd; do
  [ -e "$f" ] || continue
  commands=$((commands + 1))
  line=$(head -n 1 "$f")
  set -f
  # shellcheck disable=SC2086
  set -- ${line#\$ cesync }
  set +f
  "$tool" "$@" >"$f.out" 2>&1
  # the shown lines, annotations and trailing blanks cut, `...` left out
  tail -n +2 "$f" | sed -e 's/ *<- .*$//' -e 's/ *$//' | grep -vxE ' *\.\.\.' >"$f.want"
  missing=$(awk 'NR == FNR { got[++n] = $0; next }
                 { while (at < n && got[++at] != $0) ; if (got[at] != $0) { print; exit } }' \
    "$f.out" "$f.want")
  if [ -n "$missing" ]; then
    echo "FAIL: '${line#\$ }' ($(where "$f")) does not print, in its place:"
    echo "  $missing"
    echo "it printed:"
    sed 's/^/  /' "$f.out"
    bad=1
  fi
done

errors=0
expected=$(grep -h '^# expect-error: ' "$src"/tests/fixtures/malformed/*.ces |
  sed 's/^# expect-error: [^:]*//')
while IFS= read -r e; do
  errors=$((errors + 1))
  if ! printf '%s\n' "$expected" | grep -qxF -- "${e#bad.ces}"; then
    echo "FAIL: docs/FORMAT.md shows '$e', which no malformed fixture expects"
    bad=1
  fi
done < <(grep -E '^bad\.ces:[0-9]+:[0-9]+: ' "$src/docs/FORMAT.md")

# (the documents hold 2 schedules, 2 commands and 4 errors: none found is
# a broken extraction, not a pass)
[ "$schedules" -ge 2 ] || { echo "FAIL: $schedules schedule blocks found"; bad=1; }
[ "$commands" -ge 2 ] || { echo "FAIL: $commands command blocks found"; bad=1; }
[ "$errors" -ge 4 ] || { echo "FAIL: $errors errors found in docs/FORMAT.md"; bad=1; }
[ "$bad" -eq 0 ] || exit 1
echo "PASSED: $schedules schedules, $commands commands, $errors errors as the documents show them"
