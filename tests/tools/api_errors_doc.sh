#!/usr/bin/env bash
# tests/tools/api_errors_doc.sh SOURCE_DIR - docs/API.md's table "The other
# calls of cesync.h" names, in each row, every error code (CES_ERR_*) that
# core/include/cesync.h's comment names for a call of the row.  A comment
# holds for the CES_API declarations that follow it up to a blank line or
# other code (a #define between them does not end it), and a comment on a
# declaration's line for that one; text in backquotes (an example) does not
# count.  The table named the main code of a few rows only.  And every
# call the header declares is named in docs/API.md, and every call the page
# shows with its arguments (`ces_NAME(`) is one the header declares.
set -u
src=$1
header=$src/core/include/cesync.h
# "NAME CODE" for every code a declaration's comment names
pairs=$(awk '
  function codes(text, name,   t) {
    gsub(/`[^`]*`/, "", text)
    while (match(text, /CES_ERR_[A-Z_]+/)) {
      print name, substr(text, RSTART, RLENGTH)
      text = substr(text, RSTART + RLENGTH)
    }
  }
  incomment {
    comment = comment " " $0
    if ($0 ~ /\*\//) incomment = 0
    next
  }
  /^[ \t]*\/\*/ {
    comment = $0
    incomment = $0 !~ /\*\//
    next
  }
  /^CES_API/ {
    match($0, /ces_[a-z0-9_]+[ \t]*\(/)
    name = substr($0, RSTART, RLENGTH)
    sub(/[ \t]*\($/, "", name)
    codes(comment, name)
    if (match($0, /\/\*.*$/)) codes(substr($0, RSTART), name)
    indecl = $0 !~ /;/
    next
  }
  indecl { indecl = $0 !~ /;/; next }
  /^#define/ { next }
  { comment = "" }
' "$header" | sort -u)
[ -n "$pairs" ] || { echo "FAIL: no error code found in $header's comments"; exit 1; }
table=$(sed -n '/^## The other calls of `cesync.h`/,/^## /p' "$src/docs/API.md" | grep -E '^\| `ces_')
[ -n "$table" ] || { echo "FAIL: no table of the other calls in docs/API.md"; exit 1; }
bad=0
rows=0
while IFS= read -r row; do
  rows=$((rows + 1))
  calls=$(cut -d'|' -f2 <<<"$row" | grep -oE 'ces_[a-z0-9_]+' | sort -u)
  for c in $calls; do
    for code in $(awk -v n="$c" '$1 == n { print $2 }' <<<"$pairs"); do
      if ! grep -q "$code" <<<"$row"; then
        echo "FAIL: cesync.h names $code for $c; its row in docs/API.md does not"
        bad=1
      fi
    done
  done
done <<<"$table"
# the calls both ways: the header's CES_API declarations and docs/API.md
decls=$(grep -E '^CES_API' "$header" | grep -oE 'ces_[a-z0-9_]+[ \t]*\(' | sed 's/[ \t]*($//' |
  sort -u)
[ -n "$decls" ] || { echo "FAIL: no CES_API declaration found in $header"; exit 1; }
named=$(grep -oE 'ces_[a-z0-9_]+' "$src/docs/API.md" | sort -u)
for c in $decls; do
  grep -qxF "$c" <<<"$named" || { echo "FAIL: cesync.h declares $c; docs/API.md never names it"; bad=1; }
done
for c in $(grep -oE 'ces_[a-z0-9_]+\(' "$src/docs/API.md" | tr -d '(' | sort -u); do
  grep -qxF "$c" <<<"$decls" || { echo "FAIL: docs/API.md shows $c(...), which cesync.h does not declare"; bad=1; }
done
[ "$bad" = 0 ] && echo "PASSED: $rows rows, each naming every code the header names; $(wc -w <<<"$decls") calls, each named in docs/API.md"
exit "$bad"
