#!/bin/sh
# tests/cuda/gen_run.sh [--all] [--ranks R] CESYNC FIRST COUNT MUTATE DIR
# - the checker's OK against the GPU, on random schedules: writes COUNT of
# them into DIR, made anew (`cesync gen --seed FIRST --count COUNT
# --mutate MUTATE`: R ranks, or 2 or 3, 2 only where 3 cannot run here),
# checks each, and runs each one the checker proves OK with `cesync run`,
# one process per rank, over the hardware queues it was checked for
# (CUDA_DEVICE_MAX_CONNECTIONS = its `connections` where that is below its
# streams, else CUDA's default). Each of those runs must exit 0 with a
# PASSED line counting exactly the bytes the ranks consume with an expected
# value (those consume regions times their phases' repetitions: every byte
# of them checked). With
# --all the schedules the checker rejects run too, and are only counted (a
# defect shows on the GPU in some runs, not in every one), as do those
# whose search outgrows 30 s (INCOMPLETE: a few of 8 ranks). Prints a line
# per schedule and a table of verdicts against what the GPU did; exit 0
# when every OK schedule passed and at least one ran, 1 otherwise, 77
# (skipped) where 2 ranks (R, given) cannot run.
. "$(dirname "$0")/gpu_fit.sh"
all=0 ranks=
while :; do
  case ${1:-} in
  --all) all=1; shift ;;
  --ranks) ranks=$2; shift 2 ;;
  *) break ;;
  esac
done
[ $# -eq 5 ] || { echo "usage: gen_run.sh [--all] [--ranks R] CESYNC FIRST COUNT MUTATE DIR"; exit 2; }
tool=$1 first=$2 count=$3 mutate=$4 dir=$5
if [ -n "$ranks" ]; then
  gpu_fit "$ranks"
elif (gpu_fit 3 >/dev/null); then
  ranks=0
else
  gpu_fit 2
  ranks=2
fi
rm -rf "$dir" && mkdir -p "$dir" || exit 2
"$tool" gen --seed "$first" --count "$count" --mutate "$mutate" --ranks "$ranks" -o "$dir" ||
  { echo "FAIL: cesync gen"; exit 1; }

# the bytes the ranks' consume regions with an expected value hold over
# all their iterations
consumed() {
  awk '/^phase / { reps = substr($3, 2) }
       /^r[0-9]+( s[0-9]+)? : consume .* == / {
         if (!match($0, /\[[0-9]+:[0-9]+\]/)) { odd = 1; exit }
         split(substr($0, RSTART + 1, RLENGTH - 2), a, ":")
         n += (a[2] - a[1]) * reps
       }
       END { print odd ? "?" : n + 0 }' "$1"
}

# run FILE: runs it over its queues; sets $what (passed, wrong data, hang,
# failed) and $out
run() {
  streams=$(sed -n 's/^streams //p' "$1")
  conn=$(sed -n 's/^connections //p' "$1")
  if [ -n "$conn" ] && [ "$conn" != any ] && [ "$conn" -gt 0 ] && [ "$conn" -lt "${streams:-1}" ]; then
    out=$(CUDA_DEVICE_MAX_CONNECTIONS=$conn "$tool" run "$1" 2>&1)
  else
    out=$(env -u CUDA_DEVICE_MAX_CONNECTIONS "$tool" run "$1" 2>&1)
  fi
  rc=$?
  want=$(consumed "$1")
  got=$(printf '%s\n' "$out" |
    sed -n 's/^PASSED: .*, \([0-9][0-9]*\) consumed bytes checked on .*, 0 differ$/\1/p')
  if [ "$rc" -eq 0 ] && [ -n "$got" ] && [ "$got" = "$want" ]; then
    what=passed
  elif [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -q 'no progress for'; then
    what=hang
  elif [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -q 'MISMATCH\|bytes differ'; then
    what="wrong data"
  else
    what=failed
    out="$out
(exit $rc; the PASSED line counts '${got:-nothing}', the ranks consume $want bytes)"
  fi
}

bad=0 ran=0
: >"$dir/results"
for f in "$dir"/gen-*.ces; do
  seed=${f##*/gen-}
  seed=${seed%.ces}
  verdict=$("$tool" check "$f" --quiet --max-seconds 30 2>&1 | sed -n 's/^verdict: //p')
  [ -n "$verdict" ] || { echo "FAIL: seed $seed: cesync check printed no verdict"; bad=1; continue; }
  if [ "$verdict" != OK ] && [ "$all" -eq 0 ]; then
    echo "seed $seed: $verdict, not run"
    continue
  fi
  run "$f"
  echo "seed $seed: $verdict; on the GPU: $what"
  echo "$verdict	$what" >>"$dir/results"
  if [ "$verdict" = OK ]; then
    ran=$((ran + 1))
    if [ "$what" != passed ]; then
      echo "FAIL: seed $seed: the checker proved it OK, but on the GPU: $what"
      printf '%s\n' "$out"
      bad=1
    fi
  fi
done
[ "$ran" -gt 0 ] || { echo "FAIL: no schedule the checker proved OK ran"; bad=1; }

echo
printf '%-24s %8s %11s %6s %8s\n' verdict passed 'wrong data' hang failed
awk -F '\t' '{ n[$1 FS $2]++; v[$1] }
  END {
    for (x in v)
      printf "%-24s %8d %11d %6d %8d\n", x, n[x FS "passed"], n[x FS "wrong data"],
             n[x FS "hang"], n[x FS "failed"]
  }' "$dir/results" | sort
[ "$bad" -eq 0 ] && echo "PASSED: $ran schedules proved OK, each passed on the GPU"
exit "$bad"
