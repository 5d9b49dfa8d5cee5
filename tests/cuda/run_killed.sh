#!/bin/sh
# tests/cuda/run_killed.sh CESYNC - `kill PID` of a `cesync run` with one
# process per rank ends its ranks too, for ctest: exit 77 (skipped) without
# GPUs for 2 ranks.  The run replays a graph a million times; once both
# ranks are up the command alone is sent SIGTERM (not its process group, as
# a terminal's Ctrl-C is).  Passes only if the command ended by that signal
# and every rank is gone within 10 s (they ran on to their last replay).
. "$(dirname "$0")/gpu_fit.sh"
gpu_fit 2
cesync=$1
log=${TMPDIR:-/tmp}/cesync-run-killed.$$
"$cesync" run alltoall --ranks 2 --bytes 64K --graph --iterations 1000000 >"$log" 2>&1 &
pid=$!

# the command's children (its ranks), from /proc: field 4 of stat is the
# parent (the name in field 2 has no blank here)
children() {
  for f in /proc/[0-9]*/stat; do
    awk -v p="$1" '$4 == p { print $1 }' "$f" 2>/dev/null
  done
}
# running: neither gone nor a zombie (an orphan's reaper may be slow)
running() {
  st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
  [ -n "$st" ] && [ "$st" != Z ]
}
ranks=""
i=0
while [ $i -lt 100 ]; do
  ranks=$(children "$pid")
  [ "$(printf '%s\n' "$ranks" | grep -c .)" -ge 2 ] && break
  sleep 0.1
  i=$((i + 1))
done
sleep 3 # (past the bootstrap, into the replays)
alive=0
for r in $ranks; do running "$r" && alive=$((alive + 1)); done
cat "$log"
if [ "$alive" -lt 2 ]; then
  echo "FAIL: $alive of 2 ranks running before the kill (ranks: $ranks)"
  kill -KILL $ranks "$pid" 2>/dev/null
  rm -f "$log"
  exit 1
fi
kill -TERM "$pid"
wait "$pid"
rc=$?
rm -f "$log"
[ "$rc" -eq 143 ] || { echo "FAIL: the command exited $rc, not by SIGTERM (143)"; kill -KILL $ranks 2>/dev/null; exit 1; }
i=0
while [ $i -lt 100 ]; do
  left=""
  for r in $ranks; do running "$r" && left="$left $r"; done
  [ -z "$left" ] && { echo "ok: both ranks ended $((i / 10)).$((i % 10)) s after the command"; exit 0; }
  sleep 0.1
  i=$((i + 1))
done
echo "FAIL: rank process(es)$left still running 10 s after the command was killed"
kill -KILL $left 2>/dev/null
exit 1
