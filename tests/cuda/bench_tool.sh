#!/bin/sh
# tests/cuda/bench_tool.sh CESYNC OUTDIR - `cesync bench` end to end for
# ctest: every collective, eager and captured, broadcast, gather and
# scatter (two of them rooted at 1), and in place allgather, broadcast,
# gather and scatter (eager, two rooted at 1, and captured), small sizes,
# NCCL left out.
# Exit 77 (skipped) without GPUs for its 2 ranks; passes only if every run exits 0,
# reports no failed measurement, and its CSV holds a cesync row for every
# (size, variant) - 3 sizes - and a raw copy's row for every size, each
# saying the data check (every byte) is ok,
# the in-place runs' rows name <coll>-inplace (a rank's input lies in its
# recv: the check finds it intact - allgather's and gather's own blocks,
# broadcast's and scatter's root's recv - and every other byte produced:
# allgather's other blocks gathered, gather's other ranks' recv still clear
# but their own block), the rooted runs' checks hold on every rank
# (broadcast: the root's send; gather: the root's blocks, the other ranks'
# recv untouched; scatter: block r), the raw copies' checks (every byte
# copied where it lands, the rest of every recv clear, no send written),
# and the one-way raw copy takes about as long as the ring's; the builder
# variants with the wake chain (--wake 2: alltoall on every rank, scatter on
# the ranks but the root); on three ranks where they fit, alltoall,
# sendrecv (ring and one way), scatter (root 2), gather (root 1) and
# allgather in place, each with every byte checked; a header whose values
# given (CUDA_DEVICE_MAX_CONNECTIONS, CES_NCCL_LIB) say an ESC as \x1b;
# --with-compute, whose
# CSV gives every implementation's share kept as a percentage;
# then --calibrate, whose model file must hold every measured parameter as
# a number (the rates above 0) and predict with `cesync check --predict`;
# where the ranks share a GPU, --with-compute and --calibrate refuse, and
# so does more than 4 ranks on one GPU.
. "$(dirname "$0")/gpu_fit.sh"
gpu_fit 2 one-process
tool=$1
out=$2
mkdir -p "$out" || exit 1
# bench NAME RANKS ARGS: one `cesync bench` run into $out/NAME.csv, which
# must exit 0, report no failed measurement and hold a cesync row for every
# (size, variant) - 3 sizes - and a timed raw row for every size, each
# saying the data check is ok.
bench() {
  csv="$out/$1.csv"
  log="$out/$1.log"
  rm -f "$csv" "$log"
  variants=${3##*--variant }
  variants=${variants%% *}
  want=$((3 * $(echo "$variants" | tr ',' '\n' | wc -l)))
  # shellcheck disable=SC2086
  "$tool" bench $3 --ranks "$2" --min-bytes 64K --max-bytes 4M --factor 8 --iterations 3 \
    --warmup 1 --no-nccl --csv "$csv" >"$log" 2>&1
  rc=$?
  cat "$log"
  [ "$rc" -eq 0 ] || { echo "FAIL: cesync bench $3 --ranks $2: exit $rc"; exit 1; }
  if grep -q ' failed: ' "$log"; then
    echo "FAIL: cesync bench $3 --ranks $2: a measurement failed"
    exit 1
  fi
  rows=$(awk -F, 'NR > 1 && $4 == "cesync"' "$csv" | wc -l)
  raw=$(awk -F, 'NR > 1 && $4 == "raw" && $6 > 0' "$csv" | wc -l)
  bad=$(awk -F, 'NR > 1 && ($4 == "cesync" || $4 == "raw") && $11 != "ok"' "$csv")
  if [ "$rows" -ne "$want" ] || [ "$raw" -ne 3 ] || [ -n "$bad" ]; then
    echo "FAIL: cesync bench $3 --ranks $2: $rows cesync rows of $want, $raw raw rows of 3;" \
      "not ok: $bad"
    exit 1
  fi
}
n=0
for args in "alltoall --variant auto,overlap,plain" "alltoall --graph --variant auto" \
            "allgather --variant auto,plain" "allgather --graph --variant auto" \
            "sendrecv --one-way --variant auto,plain" "sendrecv --variant auto,plain" \
            "allgather --in-place --variant auto,plain" "broadcast --root 1 --variant auto,plain" \
            "gather --root 1 --variant auto,plain" "scatter --variant auto,plain" \
            "broadcast --in-place --variant auto,plain" \
            "gather --in-place --root 1 --variant auto,plain" \
            "scatter --in-place --root 1 --variant auto,plain" \
            "scatter --in-place --graph --variant auto" \
            "alltoall --wake 2 --variant overlap,plain" \
            "scatter --root 1 --wake 2 --variant overlap,plain"; do
  n=$((n + 1))
  bench "bench$n" 2 "$args"
done
# Three ranks where they fit (a GPU each, or ranks sharing the GPUs over
# CUDA's 8 hardware queues): a ring's sender r-1 is not its receiver r+1
# there, and every peer's block of alltoall and scatter is another, so a
# block from the wrong rank or offset fails a check that two ranks pass.
queues=${CUDA_DEVICE_MAX_CONNECTIONS:-8}
if [ "$gpus" -ge 3 ] || { [ "${CES_SHARE_GPUS:-0}" = 1 ] && [ "$queues" -ge 8 ] 2>/dev/null; }; then
  for args in "alltoall --variant auto,plain" "sendrecv --variant auto,plain" \
              "sendrecv --one-way --variant auto" "scatter --root 2 --variant auto,plain" \
              "gather --root 1 --variant auto" "allgather --in-place --variant auto"; do
    n=$((n + 1))
    bench "bench$n" 3 "$args"
  done
fi
for run in 7:allgather 11:broadcast 12:gather 13:scatter 14:scatter; do
  bad=$(awk -F, -v c="${run#*:}-inplace" 'NR > 1 && $1 != c' "$out/bench${run%%:*}.csv")
  [ -z "$bad" ] || { echo "FAIL: bench${run%%:*}.csv: rows not in place: $bad"; exit 1; }
done
# The raw copy one way (bench5: rank 0 copies, rank 1 idles) times the same
# 4 MiB copy per rank as the ring's (bench6): the mean of the ranks' spans
# must not count the idle rank, whose empty spans halved it.
oneway=$(awk -F, '$3 == 4194304 && $4 == "raw" { print $6 }' "$out/bench5.csv")
ring=$(awk -F, '$3 == 4194304 && $4 == "raw" { print $6 }' "$out/bench6.csv")
awk -v o="$oneway" -v r="$ring" 'BEGIN { exit !(o > 0 && r > 0 && o >= 0.75 * r) }' ||
  { echo "FAIL: the one-way raw copy of 4 MiB took $oneway us, the ring's $ring us"; exit 1; }
# The header's values given say their control bytes as \xNN, as cesync's
# messages do (an ESC written raw moves a terminal's cursor or changes its
# colours): CUDA_DEVICE_MAX_CONNECTIONS, and with a GPU per rank the NCCL
# line naming a CES_NCCL_LIB that does not load.  Both were written raw.
esc=$(printf '\033')
nccl=--no-nccl
[ "$gpus" -ge 2 ] && nccl=""
# shellcheck disable=SC2086
CUDA_DEVICE_MAX_CONNECTIONS="8$esc[0m" CES_NCCL_LIB="/nonexistent/$esc[0m.so" "$tool" bench \
  alltoall --ranks 2 --min-bytes 64K --max-bytes 64K --iterations 3 --warmup 1 $nccl \
  --variant auto >"$out/escaped.log" 2>&1
rc=$?
cat -v "$out/escaped.log"
[ "$rc" -eq 0 ] || { echo "FAIL: cesync bench with an ESC in its settings: exit $rc"; exit 1; }
! grep -q "$esc" "$out/escaped.log" &&
  grep -q '^# CUDA_DEVICE_MAX_CONNECTIONS=8\\x1b\[0m$' "$out/escaped.log" &&
  { [ "$gpus" -lt 2 ] || grep -q '^# NCCL not loaded: CES_NCCL_LIB=/nonexistent/\\x1b\[0m\.so: ' \
    "$out/escaped.log"; } ||
  { echo "FAIL: cesync bench: the header wrote a value's ESC raw"; exit 1; }
# Ranks sharing a GPU (one GPU, CES_SHARE_GPUS=1): --with-compute and
# --calibrate measure no machine, so they must refuse, naming why.
if [ "$gpus" -lt 2 ]; then
  for opt in --with-compute --calibrate; do
    # --model-out applies with --calibrate only
    if [ "$opt" = --calibrate ]; then set -- --model-out "$out/shared.model"; else set --; fi
    "$tool" bench alltoall $opt "$@" --ranks 2 --min-bytes 2M \
      --max-bytes 4M --iterations 3 --warmup 1 --no-nccl --variant auto >"$out/refused.log" 2>&1
    rc=$?
    cat "$out/refused.log"
    [ "$rc" -eq 2 ] && grep -q "^cesync: bench: $opt needs a GPU per rank" "$out/refused.log" ||
      { echo "FAIL: cesync bench $opt with ranks sharing a GPU: exit $rc, no refusal"; exit 1; }
  done
  [ ! -e "$out/shared.model" ] || { echo "FAIL: a model file written from shared GPUs"; exit 1; }
  # More than 4 ranks of one process on the GPU: the library refuses them.
  "$tool" bench alltoall --ranks 5 --min-bytes 1M --max-bytes 1M --iterations 3 --warmup 1 \
    --no-nccl --variant auto >"$out/crowd.log" 2>&1
  rc=$?
  cat "$out/crowd.log"
  [ "$rc" -eq 2 ] && grep -q "^cesync: bench: 5 ranks of one process on GPU 0: at most 4" \
    "$out/crowd.log" || { echo "FAIL: cesync bench --ranks 5 on one GPU: exit $rc"; exit 1; }
  echo PASSED
  exit 0
fi
# --with-compute: one more pair of columns, the compute size and the share
# kept beside the row's implementation (cesync and the raw copy: a number
# between 50 and 110 %)
csv="$out/compute.csv"
rm -f "$csv"
"$tool" bench alltoall --ranks 2 --min-bytes 1M --max-bytes 1M --iterations 3 --warmup 1 --no-nccl \
  --variant auto --with-compute --compute-bytes 4M --csv "$csv" >"$out/compute.log" 2>&1
rc=$?
cat "$out/compute.log"
[ "$rc" -eq 0 ] || { echo "FAIL: cesync bench --with-compute: exit $rc"; exit 1; }
head -1 "$csv" | grep -q ',pred_us,pred_slow_us,compute_bytes,compute_kept_pct$' ||
  { echo "FAIL: $csv: no compute columns"; exit 1; }
kept=$(awk -F, 'NR > 1 && $14 == 4194304 && $15 >= 50 && $15 <= 110' "$csv" | wc -l)
[ "$kept" -eq 2 ] || { echo "FAIL: $csv: $kept rows with a share kept of 2"; cat "$csv"; exit 1; }
model="$out/cal.model"
rm -f "$model"
"$tool" bench alltoall --calibrate --model-out "$model" --ranks 2 --min-bytes 2M --max-bytes 4M \
  --factor 2 --iterations 3 --warmup 1 --no-nccl --variant auto >"$out/cal.log" 2>&1
rc=$?
cat "$out/cal.log"
[ "$rc" -eq 0 ] || { echo "FAIL: cesync bench --calibrate: exit $rc"; exit 1; }
grep -q "^# cesync bench alltoall: .*; model h200 (calibrated in this run)$" "$out/cal.log" ||
  { echo "FAIL: --calibrate: the header does not name the calibrated model"; exit 1; }
for step in "peer copy" "local copy start" "copy switch" "graph copy start" "flag hop" "slow"; do
  grep -q "calibrate: .*$step" "$out/cal.log" || { echo "FAIL: --calibrate did not measure: $step"; exit 1; }
done
for key in peer_copy_gbps link_gbps local_copy_gbps per_copy_us per_local_copy_us per_graph_copy_us \
           memop_batch_us signal_hop_us signal_push_us signal_local_us slow_wake_us copy_switch_us \
           host_call_us batch_engines copy_engines; do
  grep -Eq "^$key = [0-9][0-9.e+-]* #" "$model" || { echo "FAIL: $model: no number for $key"; exit 1; }
done
awk '$1 ~ /_gbps$/ && !($3 > 0) { bad = 1 } END { exit bad }' "$model" ||
  { echo "FAIL: $model: a copy rate of 0"; exit 1; }
"$tool" check --predict alltoall --ranks 2 --bytes 1M --model "$model" ||
  { echo "FAIL: cesync check --predict with the calibrated model"; exit 1; }
echo PASSED
