#!/bin/sh
# tests/cuda/run_tool_test.sh - run_tool.sh's judgement on the CPU, with a
# stand-in nvidia-smi (2 GPUs) and a stand-in `cesync run` that prints what
# it is given and exits with the given status: it passes a run that exits
# 0 and whose PASSED line counts consumed bytes checked, and fails every
# other (a run that checked 0 bytes, a PASSED line without the count, no
# PASSED line, an exit other than 0).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fake_smi.sh"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
bad=0
fake_smi "$bin" 2
# the stand-in: `fake RC TEXT run ...` prints TEXT and exits RC
printf '#!/bin/sh\nprintf "%%s\\n" "$2"\nexit "$1"\n' >"$bin/fake"
chmod +x "$bin/fake"
# expect RESULT (0 pass, 1 fail) RC TEXT
expect() {
  env -u CES_SHARE_GPUS -u CUDA_DEVICE_MAX_CONNECTIONS -u CUDA_VISIBLE_DEVICES \
    PATH="$bin:$PATH" sh "$here/run_tool.sh" "$bin/fake" "$2" "$3" run >"$bin/out" 2>&1
  rc=$?
  if [ "$rc" -ne "$1" ]; then
    echo "FAIL: exit $2 and '$3': run_tool.sh exited $rc, expected $1:"
    cat "$bin/out"
    bad=1
  fi
}
ok="iteration 1 (eager): 31.0 us, ok"
tail="(host time, issue to stream sync)"
expect 0 0 "$ok
PASSED: 20 iterations, mean 35.2 us, best 30.1 us $tail, 41943040 consumed bytes checked on rank 0, 0 differ"
expect 0 0 "PASSED: 1 iteration, mean 9.0 us, best 9.0 us $tail, 1 consumed bytes checked on all ranks, 0 differ"
expect 1 0 "$ok
PASSED: 20 iterations, mean 35.2 us, best 30.1 us $tail, 0 consumed bytes checked on rank 0, 0 differ"
expect 1 0 "PASSED: 20 iterations, mean 35.2 us, best 30.1 us $tail"
expect 1 0 "$ok"
expect 1 1 "FAILED: 20 iterations, mean 35.2 us, best 30.1 us $tail, 4096 consumed bytes checked on rank 0, 1 differ"
expect 1 3 "PASSED: 20 iterations, mean 35.2 us, best 30.1 us $tail, 4096 consumed bytes checked on rank 0, 0 differ"
[ "$bad" -eq 0 ] && echo PASSED
exit "$bad"
