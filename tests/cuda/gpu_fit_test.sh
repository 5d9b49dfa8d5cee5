#!/bin/sh
# tests/cuda/gpu_fit_test.sh - gpu_fit.sh's decisions on the CPU, with a
# stand-in nvidia-smi that reports 0, 1 or 2 GPUs: which GPU tests in shell
# run and which skip (exit 77), by the GPUs, CUDA_VISIBLE_DEVICES,
# CES_SHARE_GPUS and CUDA_DEVICE_MAX_CONNECTIONS (one GPU once made `cesync
# run` tests fail where they had to skip).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fake_smi.sh"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
bad=0
# expect GPUS "ENV" MODE RESULT (run or skip)
expect() {
  fake_smi "$bin" "$1"
  # shellcheck disable=SC2086
  out=$(env -u CES_SHARE_GPUS -u CUDA_DEVICE_MAX_CONNECTIONS -u CUDA_VISIBLE_DEVICES \
    PATH="$bin:$PATH" $2 sh -c ". '$here/gpu_fit.sh'; gpu_fit 2 $3; echo run")
  rc=$?
  got=skip
  [ "$rc" -eq 0 ] && [ "$out" = run ] && got=run
  [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && got="exit $rc"
  if [ "$got" != "$4" ]; then
    echo "FAIL: $1 GPU(s), '$2', ${3:-any process}: $got ($out), expected $4"
    bad=1
  fi
}
expect 0 "CES_SHARE_GPUS=1" "" skip
expect 1 "" "" skip
expect 1 "CES_SHARE_GPUS=0" "" skip
expect 1 "CES_SHARE_GPUS=x" "" skip
expect 1 "CES_SHARE_GPUS=2" "" skip
expect 1 "CES_SHARE_GPUS=yes" "" skip
expect 1 "CES_SHARE_GPUS=1" "" run
expect 1 "CES_SHARE_GPUS=1" one-process run
expect 1 "CES_SHARE_GPUS=1 CUDA_DEVICE_MAX_CONNECTIONS=1" "" run
expect 1 "CES_SHARE_GPUS=1 CUDA_DEVICE_MAX_CONNECTIONS=1" one-process skip
expect 1 "CES_SHARE_GPUS=1 CUDA_DEVICE_MAX_CONNECTIONS=7" one-process skip
expect 1 "CES_SHARE_GPUS=1 CUDA_DEVICE_MAX_CONNECTIONS=32" one-process run
expect 2 "" "" run
expect 2 "CUDA_DEVICE_MAX_CONNECTIONS=1" one-process run
expect 2 "CUDA_VISIBLE_DEVICES=0" "" skip
expect 2 "CUDA_VISIBLE_DEVICES=0 CES_SHARE_GPUS=1" one-process run
expect 2 "CUDA_VISIBLE_DEVICES=1,0" "" run
expect 2 "CUDA_VISIBLE_DEVICES=GPU-5d1c,1" "" run
expect 2 "CUDA_VISIBLE_DEVICES=0,-1,1" "" skip
expect 2 "CUDA_VISIBLE_DEVICES= CES_SHARE_GPUS=1" "" skip
expect 1 "CUDA_VISIBLE_DEVICES=0,1,2,3" "" skip
[ "$bad" -eq 0 ] && echo PASSED
exit "$bad"
