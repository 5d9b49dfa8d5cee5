#!/bin/sh
# tests/cuda/bench_tool.sh CESYNC OUTDIR - `cesync bench` end to end for
# ctest: every collective, eager and captured, small sizes, NCCL left out.
# Exit 77 (skipped) without two GPUs; passes only if every run exits 0,
# reports no failed measurement, and its CSV holds a cesync row for every
# (size, variant) - 3 sizes - each saying the data check (every byte) is ok.
[ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -ge 2 ] || { echo "skipped: fewer than 2 GPUs"; exit 77; }
tool=$1
out=$2
mkdir -p "$out" || exit 1
n=0
for args in "alltoall --variant auto,overlap,plain" "alltoall --graph --variant auto" \
            "allgather --variant auto,plain" "allgather --graph --variant auto" \
            "sendrecv --one-way --variant auto,plain" "sendrecv --variant auto,plain"; do
  n=$((n + 1))
  csv="$out/bench$n.csv"
  log="$out/bench$n.log"
  rm -f "$csv" "$log"
  variants=${args##*--variant }
  variants=${variants%% *}
  want=$((3 * $(echo "$variants" | tr ',' '\n' | wc -l)))
  # shellcheck disable=SC2086
  "$tool" bench $args --ranks 2 --min-bytes 64K --max-bytes 4M --factor 8 --iterations 3 \
    --warmup 1 --no-nccl --csv "$csv" >"$log" 2>&1
  rc=$?
  cat "$log"
  [ "$rc" -eq 0 ] || { echo "FAIL: cesync bench $args: exit $rc"; exit 1; }
  if grep -q ' failed: ' "$log"; then
    echo "FAIL: cesync bench $args: a measurement failed"
    exit 1
  fi
  rows=$(awk -F, 'NR > 1 && $4 == "cesync"' "$csv" | wc -l)
  bad=$(awk -F, 'NR > 1 && $4 == "cesync" && $11 != "ok"' "$csv")
  if [ "$rows" -ne "$want" ] || [ -n "$bad" ]; then
    echo "FAIL: cesync bench $args: $rows cesync rows of $want; not ok: $bad"
    exit 1
  fi
done
echo PASSED
