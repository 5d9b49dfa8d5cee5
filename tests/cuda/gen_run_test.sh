#!/bin/sh
# tests/cuda/gen_run_test.sh CESYNC - gen_run.sh's judgement on the CPU, with
# stand-ins for nvidia-smi and for `cesync gen` and `cesync run` (the real
# CESYNC checks).  The stand-in gen writes three schedules: A and B proved
# OK (B, A over one hardware queue, `connections 1`), C rejected (A
# without rank 0's wait for the data); each names the bytes its ranks
# consume in a `# consumes` line, counted by hand.  The
# stand-in run refuses a schedule given other queues than it was checked
# for (as the tool does) and otherwise prints, for the schedule FAULT names,
# what FAULT asks; for the rest a pass counting those bytes.  gen_run.sh
# must pass when every OK schedule passes (and not run C unless --all, which
# only counts it), and fail on every fault of an OK schedule's run.
here=$(cd "$(dirname "$0")" && pwd)
real=$1
. "$here/fake_smi.sh"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
bad=0

cat >"$bin/A.ces" <<'EOF'
# consumes 48
cesync 1
ranks 2
streams 2
buffer src 48
buffer dst 48
signal rdy u32 3
signal done u32 3
phase graph x2
r0 : write rdy[0]@1 = 1
r0 : wait done[0] >= 1
r0 : write done[0] = 0
r0 : consume dst[0:16] == src[0:16]@1
r1 s1 : produce src[0:16]
r1 s1 : wait rdy[0] >= 1
r1 s1 : write rdy[0] = 0
r1 s1 : batch
r1 s1 : copy src[0:16] -> dst[0:16]@0
r1 s1 : end
r1 s1 : write done[0]@0 = 1
phase eager x1
r0 s1 : produce src[16:24]
r0 s1 : copy src[16:24] -> dst[16:24]
r0 s1 : consume dst[16:24] == src[16:24]@0
r1 : produce src[24:32]
r1 : copy src[24:32] -> dst[24:32]
r1 : consume dst[24:32] == src[24:32]
r1 : consume src[24:32]
EOF
# B: A over one hardware queue; C: A without rank 0's wait for the data
sed 's/^streams 2$/&\nconnections 1/' "$bin/A.ces" >"$bin/B.ces"
sed '/^r0 : wait done/d; /^r0 : write done\[0\] = 0$/d' "$bin/A.ces" >"$bin/C.ces"
for s in A B C; do
  "$real" check "$bin/$s.ces" --quiet >"$bin/$s.verdict" 2>&1
done
grep -qx 'verdict: OK' "$bin/A.verdict" && grep -qx 'verdict: OK' "$bin/B.verdict" &&
  ! grep -q 'verdict: OK' "$bin/C.verdict" ||
  { echo "FAIL: the stand-in schedules' verdicts:"; cat "$bin"/?.verdict; exit 1; }

# the stand-in tool: gen writes A, B and C as seeds 1 to 3 (those GEN
# names, if set; and logs its arguments), check is the real one (its
# arguments logged), run as above (and logs its schedule)
cat >"$bin/fake" <<EOF
#!/bin/sh
bin=$bin
real=$real
EOF
cat >>"$bin/fake" <<'EOF'
cmd=$1
shift
case $cmd in
gen)
  echo "$*" >>"$bin/gen.args"
  while [ $# -gt 0 ]; do [ "$1" = -o ] && dir=$2; shift; done
  i=1
  for s in ${GEN:-A B C}; do cp "$bin/$s.ces" "$dir/gen-$i.ces"; i=$((i + 1)); done
  exit 0 ;;
check) echo "$*" >>"$bin/check.args"; exec "$real" check "$@" ;;
esac
f=$1
echo "$f" >>"$bin/run.log"
q=${CUDA_DEVICE_MAX_CONNECTIONS:-8}
if grep -q '^connections 1$' "$f"; then
  [ "$q" = 1 ] || { echo "refused: checked with connections 1, this process has $q"; exit 2; }
elif [ "$q" -lt 2 ]; then
  echo "refused: checked with connections 0, this process has $q"; exit 2
fi
n=$(sed -n 's/^# consumes //p' "$f")
tail="(host time, issue to stream sync)"
if cmp -s "$f" "$bin/${FAULT_AT:-none}.ces"; then
  case $FAULT in
  short) n=$((n - 1)) ;;
  long) n=$((n + 1)) ;;
  mismatch) echo "rank 1: dst[0:16]: 3 bytes differ, first at +2"
            echo "FAILED: 2 iterations, mean 9.0 us, best 8.0 us $tail, $n consumed bytes checked on all ranks, 3 differ"
            exit 1 ;;
  hang) echo "cesync: run: rank 0: the communicator failed: no progress for 2000 ms"; exit 1 ;;
  usage) echo "cesync: run: cannot open"; exit 2 ;;
  nopass) exit 0 ;;
  differ) echo "PASSED: 2 iterations, mean 9.0 us, best 8.0 us $tail, $n consumed bytes checked on all ranks, 1 differ"
          exit 0 ;;
  exit1) echo "PASSED: 2 iterations, mean 9.0 us, best 8.0 us $tail, $n consumed bytes checked on all ranks, 0 differ"
         exit 1 ;;
  esac
fi
echo "PASSED: 2 iterations, mean 9.0 us, best 8.0 us $tail, $n consumed bytes checked on all ranks, 0 differ"
exit 0
EOF
chmod +x "$bin/fake"

# expect RESULT GPUS [VAR=VALUE | --all | --ranks R]...: runs gen_run.sh
# (with those options) with the stand-ins and GPUS stand-in GPUs under
# VAR=VALUE
expect() {
  want=$1 gpus=$2
  shift 2
  rm -f "$bin/gen.args" "$bin/check.args" "$bin/run.log"
  fake_smi "$bin" "$gpus"
  flags= vars=
  while [ $# -gt 0 ]; do
    case $1 in
    --all) flags="$flags $1" ;;
    --ranks) flags="$flags $1 $2"; shift ;;
    *) vars="$vars $1" ;;
    esac
    shift
  done
  # shellcheck disable=SC2086
  env -u CES_SHARE_GPUS -u CUDA_DEVICE_MAX_CONNECTIONS -u CUDA_VISIBLE_DEVICES -u FAULT -u FAULT_AT -u GEN \
    PATH="$bin:$PATH" $vars sh "$here/gen_run.sh" $flags "$bin/fake" 1 3 0 "$bin/out" >"$bin/log" 2>&1
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: $gpus GPU(s) $*: gen_run.sh exited $rc, expected $want:"
    cat "$bin/log"
    bad=1
  fi
}
# must LINE: the last run's output holds LINE (a whole line, as a pattern)
must() {
  grep -qx "$1" "$bin/log" || { echo "FAIL: no line '$1' in:"; cat "$bin/log"; bad=1; }
}
# runs N: the last run ran N schedules
runs() {
  n=$(cat "$bin/run.log" 2>/dev/null | wc -l)
  [ "$n" -eq "$1" ] || { echo "FAIL: $n schedules ran, expected $1"; cat "$bin/log"; bad=1; }
}

# every OK schedule passes: 2 of 3 run (C is rejected), over its queues
expect 0 2 CES_SHARE_GPUS=1
must 'seed 1: OK; on the GPU: passed'
must 'seed 2: OK; on the GPU: passed'
must 'seed 3: .*, not run'
must 'OK  *2  *0  *0  *0'
must 'PASSED: 2 schedules proved OK, each passed on the GPU'
runs 2
grep -q -- '--ranks 0 -o' "$bin/gen.args" || { echo "FAIL: gen not asked for 2 or 3 ranks"; bad=1; }
[ "$(grep -c -- '--max-seconds 30$' "$bin/check.args")" -eq 3 ] ||
  { echo "FAIL: not every check bounded to 30 s:"; cat "$bin/check.args"; bad=1; }
# two GPUs that ranks may not share: 2-rank schedules only; one: skipped
expect 0 2
grep -q -- '--ranks 2 -o' "$bin/gen.args" || { echo "FAIL: gen not asked for 2 ranks"; bad=1; }
expect 77 1
expect 77 0 CES_SHARE_GPUS=1
# --ranks R: R ranks, where they fit
expect 0 2 --ranks 2
grep -q -- '--ranks 2 -o' "$bin/gen.args" || { echo "FAIL: gen not asked for 2 ranks"; bad=1; }
expect 77 2 --ranks 4
expect 0 1 CES_SHARE_GPUS=1 --ranks 8
grep -q -- '--ranks 8 -o' "$bin/gen.args" || { echo "FAIL: gen not asked for 8 ranks"; bad=1; }
# the queues each schedule was checked for, whatever the caller's
expect 0 2 CES_SHARE_GPUS=1 CUDA_DEVICE_MAX_CONNECTIONS=1
expect 0 2 CES_SHARE_GPUS=1 CUDA_DEVICE_MAX_CONNECTIONS=4
# --all runs the rejected one too and only counts what it did
expect 0 2 CES_SHARE_GPUS=1 FAULT=hang FAULT_AT=C --all
must 'seed 3: [A-Z,]*; on the GPU: hang'
runs 3
expect 0 2 CES_SHARE_GPUS=1 FAULT=mismatch FAULT_AT=C --all
must 'seed 3: [A-Z,]*; on the GPU: wrong data'
expect 0 2 CES_SHARE_GPUS=1 --all
must 'seed 3: [A-Z,]*; on the GPU: passed'
# every fault of an OK schedule's run fails, on A and on B
for s in A B; do
  for fault in short long mismatch hang usage nopass differ exit1; do
    expect 1 2 CES_SHARE_GPUS=1 FAULT=$fault FAULT_AT=$s
  done
done
expect 1 2 CES_SHARE_GPUS=1 FAULT=mismatch FAULT_AT=A --all
must 'FAIL: seed 1: the checker proved it OK, but on the GPU: wrong data'
# a run in which no schedule was proved OK proved nothing
expect 1 2 CES_SHARE_GPUS=1 GEN=C --all
must 'FAIL: no schedule the checker proved OK ran'
[ "$bad" -eq 0 ] && echo PASSED
exit "$bad"
