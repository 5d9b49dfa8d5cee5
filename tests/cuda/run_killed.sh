#!/bin/sh
# tests/cuda/run_killed.sh CESYNC - `kill PID` of a `cesync run` with one
# process per rank ends its ranks too, for ctest: exit 77 (skipped) without
# GPUs for 2 ranks.  The run replays a graph a million times; once both
# ranks are up the command alone is sent SIGTERM (not its process group, as
# a terminal's Ctrl-C is).  Passes only if the command ended by that signal
# within 10 s and every rank is gone within 10 s after it (they ran on to
# their last replay); before the kill the ranks' bootstrap connections
# must carry the run's abstract name, @cesync-run-PID-..., in
# /proc/net/unix (rank 0's sockets accepted from its listener keep its
# address once it is closed; with a socket file there they carried the
# path /tmp/cesync-run-PID.sock, which stayed behind where a kill came
# before the ranks joined, a moment this test's kill, past the bootstrap,
# does not reach), and after it no file /tmp/cesync-run-PID.* or -* may
# be left.
# Whatever the outcome, the command's output is shown and no process it
# started is left running.
. "$(dirname "$0")/gpu_fit.sh"
gpu_fit 2
cesync=$1
log=${TMPDIR:-/tmp}/cesync-run-killed.$$
"$cesync" run alltoall --ranks 2 --bytes 64K --graph --iterations 1000000 >"$log" 2>&1 &
pid=$!

# the command's children (its ranks), from /proc in one pass: a stat line is
# "PID (COMM) STATE PPID ...", and another process's COMM may hold blanks
children() {
  cat /proc/[0-9]*/stat 2>/dev/null | sed 's/^\([0-9]*\) .*) /\1 /' |
    awk -v p="$1" '$3 == p { print $1 }'
}
# running: neither gone nor a zombie (an orphan's reaper may be slow; the
# command itself stays a zombie until it is waited for)
running() {
  st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $1 }')
  [ -n "$st" ] && [ "$st" != Z ]
}
# the command's output, then the test's verdict; the log removed
end() {
  cat "$log"
  rm -f "$log"
  echo "$2"
  exit "$1"
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
if [ "$alive" -lt 2 ]; then
  kill -KILL $ranks "$pid" 2>/dev/null
  wait "$pid"
  end 1 "FAIL: $alive of 2 ranks running before the kill (ranks: $ranks)"
fi
# the ranks met at the run's abstract name (a path's file is unlinked once
# they joined: only the sockets show where they met)
if ! awk -v p="@cesync-run-$pid-" 'index($NF, p) == 1 { f = 1 } END { exit !f }' \
  /proc/net/unix; then
  kill -KILL $ranks "$pid" 2>/dev/null
  wait "$pid"
  end 1 "FAIL: /proc/net/unix lists no socket at @cesync-run-$pid-... (the ranks did not meet at an abstract name)"
fi
kill -TERM "$pid"
i=0
while running "$pid" && [ $i -lt 100 ]; do
  sleep 0.1
  i=$((i + 1))
done
if running "$pid"; then
  kill -KILL $ranks "$pid" 2>/dev/null
  wait "$pid"
  end 1 "FAIL: the command still ran 10 s after SIGTERM"
fi
wait "$pid"
rc=$?
if [ "$rc" -ne 143 ]; then
  kill -KILL $ranks 2>/dev/null
  end 1 "FAIL: the command exited $rc, not by SIGTERM (143)"
fi
i=0
while [ $i -lt 100 ]; do
  left=""
  for r in $ranks; do running "$r" && left="$left $r"; done
  if [ -z "$left" ]; then
    for f in /tmp/cesync-run-"$pid".* /tmp/cesync-run-"$pid"-*; do
      [ -e "$f" ] && end 1 "FAIL: $f was left in /tmp"
    done
    end 0 "ok: both ranks ended $((i / 10)).$((i % 10)) s after the command"
  fi
  sleep 0.1
  i=$((i + 1))
done
kill -KILL $left 2>/dev/null
end 1 "FAIL: rank process(es)$left still running 10 s after the command was killed"
