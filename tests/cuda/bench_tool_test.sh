#!/bin/sh
# tests/cuda/bench_tool_test.sh - bench_tool.sh's judgement on the CPU, with
# a stand-in nvidia-smi (0, 1 or 2 GPUs) and a stand-in `cesync` that
# answers every run bench_tool.sh makes as a healthy bench would (its CSV
# rows, refusals, calibration log and model file), but for one fault in the
# runs whose arguments match FAULT_ON: bench_tool.sh passes the healthy
# bench on 1 and 2 GPUs and fails every fault - a wrong data check, a row
# missing, a failed measurement, an exit of 1, an in-place run's rows not
# named so, a run without its raw row or with a raw copy's data check
# WRONG, a one-way raw copy at half
# the ring's time, a share kept out of range, a model file without a
# parameter, a refusal on one GPU missing or exiting 0, a value given
# written raw in the header (an ESC of CUDA_DEVICE_MAX_CONNECTIONS, or
# of CES_NCCL_LIB where NCCL runs, a GPU per rank); the three-rank
# runs' faults only where three ranks fit (a GPU each, or CES_SHARE_GPUS=1
# over 8 hardware queues), and none past its 77 without a GPU.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fake_smi.sh"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
bad=0
cat >"$bin/cesync" <<'EOF'
#!/bin/sh
# the stand-in `cesync`: bench COLL [options] or check --predict ...
[ "$1" = check ] && exit 0
all="$*"
fault=none
case "$all" in *"${FAULT_ON:-none}"*) fault=${FAULT:-none} ;; esac
coll=$2
shift 2
ranks=2 variants=auto csv="" inplace="" oneway=0 opt="" model=""
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks=$2; shift ;;
    --variant) variants=$2; shift ;;
    --csv) csv=$2; shift ;;
    --model-out) model=$2; shift ;;
    --in-place) inplace=-inplace ;;
    --one-way) oneway=1 ;;
    --with-compute | --calibrate) opt=$1 ;;
  esac
  shift
done
refused=2
[ "$fault" = refused0 ] && refused=0
if [ "$GPUS" -lt 2 ] && [ -n "$opt" ] && [ "$fault" != norefusal ]; then
  echo "cesync: bench: $opt needs a GPU per rank: 2 ranks share 1 GPU here"
  exit "$refused"
fi
if [ "$ranks" -gt 4 ] && [ "$GPUS" -lt 2 ] && [ "$fault" != norefusal ]; then
  echo "cesync: bench: $ranks ranks of one process on GPU 0: at most 4"
  exit "$refused"
fi
if [ "$opt" = --calibrate ]; then
  echo "# cesync bench $coll: $ranks ranks (one process); model h200 (calibrated in this run)"
  for step in "peer copy" "local copy start" "copy switch" "graph copy start" "flag hop" "slow"; do
    echo "calibrate: $step ... 1.0"
  done
  for key in peer_copy_gbps link_gbps local_copy_gbps per_copy_us per_local_copy_us \
             per_graph_copy_us memop_batch_us signal_hop_us signal_push_us signal_local_us slow_wake_us \
             copy_switch_us host_call_us batch_engines copy_engines; do
    [ "$fault" = nokey ] && [ "$key" = slow_wake_us ] && continue
    echo "$key = 2.5 # measured"
  done >"$model"
fi
[ "$fault" = failed ] && echo "# 64K cesync/plain failed: CUDA error"
# the header's values given (the run that sets CES_NCCL_LIB), their ESC as
# \x1b; written raw by the faults rawesc (CUDA_DEVICE_MAX_CONNECTIONS) and
# rawnccl (the NCCL line, which a run with a GPU per rank and NCCL has)
if [ -n "${CES_NCCL_LIB:-}" ]; then
  esc='\x1b' nesc='\x1b'
  [ "$fault" = rawesc ] && esc=$(printf '\033')
  [ "$fault" = rawnccl ] && nesc=$(printf '\033')
  case "$all" in
    *--no-nccl*) ;;
    *) printf '# NCCL not loaded: CES_NCCL_LIB=/nonexistent/%s[0m.so: cannot open\n' "$nesc" ;;
  esac
  printf '# CUDA_DEVICE_MAX_CONNECTIONS=8%s[0m\n' "$esc"
fi
[ -n "$csv" ] || exit 0
head="coll,ranks,bytes,impl,variant,time_us,min_us,max_us,algbw_gbps,busbw_gbps,check"
head="$head,pred_us,pred_slow_us"
if [ "$opt" = --with-compute ]; then
  kept=99.0
  [ "$fault" = kept ] && kept=40.0
  {
    printf '%s,compute_bytes,compute_kept_pct\n' "$head"
    printf '%s,2,1048576,cesync,auto,9,8,10,1,1,ok,9,19,4194304,%s\n' "$coll" "$kept"
    printf '%s,2,1048576,raw,-,5,4,6,1,1,ok,,,4194304,99.5\n' "$coll"
  } >"$csv"
  exit 0
fi
raw=5
[ "$oneway" = 1 ] && [ "$fault" = halfraw ] && raw=2.5
name=$coll$inplace
[ "$fault" = notinplace ] && name=$coll
{
  echo "$head"
  for size in 65536 524288 4194304; do
    for v in $(echo "$variants" | tr ',' ' '); do
      check=ok
      [ "$fault" = wrong ] && [ "$size" = 524288 ] && check=WRONG
      [ "$fault" = norow ] && [ "$size" = 4194304 ] && continue
      echo "$name,$ranks,$size,cesync,$v,10,9,11,1,1,$check,10,20"
    done
    [ "$fault" = noraw ] && [ "$size" = 65536 ] && continue
    check=ok
    [ "$fault" = rawwrong ] && [ "$size" = 4194304 ] && check=WRONG
    echo "$name,$ranks,$size,raw,-,$raw,4,6,1,1,$check,,"
  done
} >"$csv"
[ "$fault" = exit ] && exit 1
exit 0
EOF
chmod +x "$bin/cesync"
# expect GPUS "ENV" FAULT FAULT_ON RESULT (0 pass, 1 fail, 77 skipped)
expect() {
  fake_smi "$bin" "$1"
  rm -rf "$bin/out"
  # shellcheck disable=SC2086
  env -u CES_SHARE_GPUS -u CUDA_DEVICE_MAX_CONNECTIONS -u CUDA_VISIBLE_DEVICES \
    PATH="$bin:$PATH" GPUS="$1" FAULT="$3" FAULT_ON="$4" $2 \
    sh "$here/bench_tool.sh" "$bin/cesync" "$bin/out" >"$bin/log" 2>&1
  rc=$?
  if [ "$rc" -ne "$5" ]; then
    echo "FAIL: $1 GPU(s), '$2', fault $3 on '$4': bench_tool.sh exited $rc, expected $5:"
    tail -5 "$bin/log"
    bad=1
  fi
}
expect 2 "" none none 0
expect 1 "CES_SHARE_GPUS=1" none none 0
expect 2 "CES_SHARE_GPUS=1" none none 0
expect 0 "CES_SHARE_GPUS=1" wrong alltoall 77
expect 2 "" wrong "alltoall --variant auto,overlap,plain" 1
expect 2 "" wrong "gather --in-place --root 1" 1
expect 2 "" norow "sendrecv --one-way" 1
expect 2 "" failed "allgather --graph" 1
expect 2 "" exit "scatter --root 1 --wake 2" 1
expect 2 "" notinplace "broadcast --in-place" 1
expect 2 "" noraw "gather --root 1" 1
expect 2 "" noraw "alltoall --graph" 1
expect 2 "" rawwrong "allgather --variant auto,plain" 1
expect 2 "" rawwrong "scatter --in-place --graph" 1
expect 2 "" halfraw "sendrecv --one-way" 1
expect 2 "" kept "--with-compute" 1
expect 2 "" nokey "--calibrate" 1
expect 1 "CES_SHARE_GPUS=1" norefusal "--calibrate" 1
expect 1 "CES_SHARE_GPUS=1" norefusal "--ranks 5" 1
expect 1 "CES_SHARE_GPUS=1" refused0 "--with-compute" 1
expect 1 "CES_SHARE_GPUS=1" refused0 "--ranks 5" 1
expect 1 "CES_SHARE_GPUS=1" rawesc "--max-bytes 64K" 1
expect 2 "" rawesc "--max-bytes 64K" 1
expect 2 "" rawnccl "--max-bytes 64K" 1
expect 1 "CES_SHARE_GPUS=1" rawnccl "--max-bytes 64K" 0
# three ranks: run where they fit, and then judged like the others
expect 2 "" wrong "--ranks 3" 0
expect 2 "CES_SHARE_GPUS=1" wrong "--ranks 3" 1
expect 1 "CES_SHARE_GPUS=1" norow "sendrecv --variant auto,plain --ranks 3" 1
expect 1 "CES_SHARE_GPUS=1" rawwrong "allgather --in-place --variant auto --ranks 3" 1
expect 2 "CES_SHARE_GPUS=1 CUDA_DEVICE_MAX_CONNECTIONS=4" wrong "--ranks 3" 0
[ "$bad" -eq 0 ] && echo PASSED
exit "$bad"
