#!/usr/bin/env bash
# tests/tools/docs_examples.sh SOURCE_DIR TOOL - what the documents show is
# what cesync does (README's HANG trace and the --predict figures were kept
# up to date by hand):
#  - every code block of README.md, docs/FORMAT.md, docs/PERFORMANCE.md and
#    docs/CLI.md that is a schedule (its first line `cesync 1`) is checked `verdict: OK`;
#  - every block that starts with `$ cesync ARGS` is that command's output:
#    each line it shows (but a line of `...` alone, which leaves lines out,
#    and an annotation `<- ...` at its end) is a line of the output, in
#    that order, run in the source directory (a block that shows no output
#    fails);
#  - every error docs/FORMAT.md shows (`bad.ces:L:C: message`) is one a
#    malformed fixture expects, line and column included (core_test_parse
#    holds the parser to those);
#  - what README.md, docs/FORMAT.md, docs/SEMANTICS.md and docs/CLI.md say in their
#    prose that a command prints (a verdict, a sweep's totals, which
#    protocols tolerate a late write) it prints: each claim below names
#    the words the document must still hold and a line the command's
#    output must hold;
#  - the counts of README.md's "what works" table (fixtures, generated
#    schedules, mutated inputs) are those of the tree.
set -u
src=$1
# (absolute: the commands run in the source directory)
case $2 in /*) tool=$2 ;; *) tool=$PWD/$2 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
docs="README.md docs/FORMAT.md docs/PERFORMANCE.md docs/CLI.md"
bad=0

# the blocks, one file each: DOC-N.ces (schedules), DOC-N.cmd (commands)
for doc in $docs; do
  awk -v out="$tmp/$(basename "$doc" .md)" '
    /^```/ { if (f != "") close(f); inb = !inb; n += inb; f = ""; first = inb; next }
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
  (cd "$src" && "$tool" "$@") >"$f.out" 2>&1
  # the shown lines, annotations and trailing blanks cut, `...` left out
  tail -n +2 "$f" | sed -e 's/ *<- .*$//' -e 's/ *$//' | grep -vxE ' *\.\.\.' >"$f.want"
  # each shown line matched by a later line of the output than the one
  # before it; the first that is not, and a status of 1 (an empty output,
  # a blank line or a line shown twice must not pass)
  if ! missing=$(awk 'FILENAME == ARGV[1] { got[++n] = $0; next }
                      { do at++; while (at <= n && got[at] != $0)
                        if (at > n) { print; exit 1 } }' "$f.out" "$f.want") ||
    [ ! -s "$f.want" ]; then
    echo "FAIL: '${line#\$ }' ($(where "$f")) does not print, in its place:"
    echo "  '${missing:-(its block shows no output)}'"
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

# Claims in the prose: DOC 'WORDS' 'LINE' ARGS...: DOC still says WORDS
# (line breaks read as spaces), and `cesync ARGS`, run in the source
# directory, prints LINE (an extended regular expression, the whole line).
claims=0
prose() { tr '\n' ' ' <"$src/$1" | tr -s ' '; }
claim() {
  local doc=$1 words=$2 want=$3 out
  shift 3
  claims=$((claims + 1))
  if ! prose "$doc" | grep -qF -- "$words"; then
    echo "FAIL: $doc no longer says '$words' (update its claim in $0)"
    bad=1
    return
  fi
  out=$(cd "$src" && "$tool" "$@" 2>&1)
  if ! printf '%s\n' "$out" | grep -qxE -- "$want"; then
    echo "FAIL: $doc says '$words', but 'cesync $*' prints no line '$want'; it printed:"
    printf '%s\n' "$out" | head -n 8 | sed 's/^/  /'
    bad=1
  fi
}

claim README.md '`cesync check alltoall --ranks 2 --sync credit --iterations 2 --fault delay:r0.s0#3` says `HANG,RACE`' \
  'verdict: HANG,RACE' check alltoall --ranks 2 --sync credit --iterations 2 --fault 'delay:r0.s0#3'
claim README.md '`--sync credit` (reset, then acknowledge) checks `verdict: OK`' \
  'verdict: OK' check barrier --ranks 2 --sync credit --graph --iterations 2
claim README.md '`cesync check tests/fixtures/bad/cross_stream_conn0.ces --queue-sweep` finds the one of four that deadlocks' \
  'queue sweep: 4 assignments: 3 OK, 1 DEADLOCK or HANG, 0 RACE or MISMATCH only, 0 incomplete' \
  check tests/fixtures/bad/cross_stream_conn0.ces --queue-sweep
claim docs/FORMAT.md '`good/cross_stream_any.ces`, each wait enqueued after its rank'"'"'s send, is OK under all four' \
  "hardware queues: every assignment of each rank's streams to queues \(connections any\): 4" \
  check tests/fixtures/good/cross_stream_any.ces

# docs/CLI.md's words on what the options refuse together, --version, and
# check --predict's rule of shared queues
claim docs/CLI.md 'A step that cannot run is an error that asks for them. Not with `--random`.' \
  'cesync: check: --random and --replay exclude each other' check --random 2 --replay 0
claim docs/CLI.md '`--quiet`: print only the verdict line. Not with `--json`.' \
  'cesync: check: --quiet \(the verdict line\) and --json \(the whole report\) exclude each other' \
  check --quiet --json
claim docs/CLI.md 'print the predictions only. Not with `--calibrate` or `--with-compute`' \
  'cesync: bench: --dry-run cannot --calibrate or --with-compute' \
  bench alltoall --dry-run --calibrate
claim docs/CLI.md "\`cesync --version\` prints one line, the command's version and the \`.ces\`" \
  'cesync [0-9]+\.[0-9]+ \(\.ces format 1\)' --version
# and the rule of shared queues that check --predict's --help gives (it
# kept the one the cost model left in e58f4718: an op waiting for the
# previous op of its queue to end)
claim docs/CLI.md "has left the queue's head, a copy as it started, a \`record\` or an \`await\` as soon as the op ahead of it left and any other op as it ended" \
  "as it starts, a record or an await as soon as the op ahead of it left, any other" \
  check --predict --help

# A late write: the fault sweep's line of delays, none of them shown
# (tolerated) or some (not).
# (tolerated: every delay OK, none incomplete, which counts in no class)
tolerated='delay +([1-9][0-9]*): 0 HANG or DEADLOCK, 0 RACE or MISMATCH, \1 OK'
not_tolerated='delay +[0-9]+: ([1-9][0-9]* HANG or DEADLOCK, [0-9]+|[0-9]+ HANG or DEADLOCK, [1-9][0-9]*) RACE or MISMATCH, [0-9]+ OK'
for sync in mono nccl; do
  claim README.md 'eager `mono` and `nccl` alltoall tolerate every delayed write' \
    "$tolerated" check alltoall --ranks 2 --sync $sync --iterations 2 --fault-sweep
done
# docs/SEMANTICS.md section 9: the builders' schedules, 2 and 3 ranks, 2 calls
for ranks in 2 3; do
  for coll in alltoall allgather sendrecv broadcast gather scatter barrier; do
    for sync in mono nccl; do
      if [ $coll = barrier ] && [ $sync = mono ]; then
        claim docs/SEMANTICS.md 'nor does the `mono` barrier' \
          "$not_tolerated" check barrier --ranks $ranks --sync mono --iterations 2 --fault-sweep
        continue
      fi
      claim docs/SEMANTICS.md 'eager `mono` and `nccl` alltoall, allgather, sendrecv, broadcast, gather and scatter and the eager `nccl` barrier tolerate every delayed write' \
        "$tolerated" check $coll --ranks $ranks --sync $sync --iterations 2 --fault-sweep
    done
    for phase in '' --graph; do
      for sync in credit pull nccl; do
        # pull is not built for sendrecv and the one-barrier barrier,
        # nccl's captured sendrecv not at all, and eager nccl is above
        case $sync$phase in nccl) continue ;; esac
        case $coll-$sync in sendrecv-pull | barrier-pull) continue ;; esac
        [ "$coll-$sync$phase" = sendrecv-nccl--graph ] && continue
        claim docs/SEMANTICS.md 'Every protocol that resets a flag to 0 (`credit`, `pull`, captured `nccl`) does not once a slot is reused' \
          "$not_tolerated" check $coll --ranks $ranks --sync $sync $phase --iterations 2 --fault-sweep
      done
    done
  done
done

# README.md's counts: "N PHRASE" (N with commas) is the count the tree has.
counts=0
count_is() {
  local said
  counts=$((counts + 1))
  said=$(prose README.md | grep -oE "[0-9][0-9,]* $1" | head -n 1 | sed 's/ .*//; s/,//g')
  if [ "$said" != "$2" ]; then
    echo "FAIL: README.md says '${said:-no number} $1', the tree has $2"
    bad=1
  fi
}
nfiles() { find "$src/tests/fixtures/$1" -maxdepth 1 -name '*.ces' | wc -l; }
count_is 'good fixtures' "$(nfiles good)"
count_is 'malformed fixtures' "$(nfiles malformed)"
count_is 'bad fixtures' "$(nfiles bad)"
count_is 'generated schedules' "$(sed -n 's/^#define SEEDS \([0-9]*\)u$/\1/p' "$src/tests/sim/test_differential.c")"
count_is 'inputs made by random edits' "$(sed -n 's/^#define MUTANTS \([0-9]*\)$/\1/p' "$src/tests/sim/test_mutate.c")"

# docs/CLI.md's links: each [..](#anchor) a heading of its own (GitHub's
# anchor: lower case, no punctuation but - and _, a - for each blank), each
# [..](FILE) a file of the tree, and each document it names with a section,
# `docs/NAME.md, "Title"` or `README.md, "Title"`, a heading holding Title.
links=0
headings() { # the headings of $1 outside code blocks, without their #s
  awk '/^```/ { inb = !inb; next } !inb && /^#+ / { sub(/^#+ /, ""); print }' "$src/$1"
}
anchors=$(headings docs/CLI.md | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g')
for a in $(grep -oE '\]\(#[^)]*\)' "$src/docs/CLI.md" | sed 's/^](#//; s/)$//' | sort -u); do
  links=$((links + 1))
  printf '%s\n' "$anchors" | grep -qxF -- "$a" ||
    { echo "FAIL: docs/CLI.md links to #$a, which no heading of it is"; bad=1; }
done
for f in $(grep -oE '\]\([^#)][^)]*\)' "$src/docs/CLI.md" | sed 's/^](//; s/)$//' | sort -u); do
  links=$((links + 1))
  [ -e "$src/docs/$f" ] || { echo "FAIL: docs/CLI.md links to $f, not in docs/"; bad=1; }
done
while IFS= read -r ref; do
  doc=${ref%%,*} title=${ref#*\"} title=${title%\"}
  links=$((links + 1))
  headings "$doc" | grep -qF -- "$title" ||
    { echo "FAIL: docs/CLI.md names $doc, \"$title\", which is no heading of it"; bad=1; }
done < <(prose docs/CLI.md | grep -oE '(docs/[A-Z]+|README)\.md, "[^"]+"' | sort -u)

# (the documents hold 2 schedules, 2 commands and 4 errors: none found is
# a broken extraction, not a pass)
[ "$schedules" -ge 2 ] || { echo "FAIL: $schedules schedule blocks found"; bad=1; }
[ "$commands" -ge 2 ] || { echo "FAIL: $commands command blocks found"; bad=1; }
[ "$errors" -ge 4 ] || { echo "FAIL: $errors errors found in docs/FORMAT.md"; bad=1; }
[ "$links" -ge 20 ] || { echo "FAIL: $links links found in docs/CLI.md"; bad=1; }
[ "$bad" -eq 0 ] || exit 1
echo "PASSED: $schedules schedules, $commands commands, $errors errors, $claims claims in the prose, $counts counts and $links links of docs/CLI.md as the documents show them"
