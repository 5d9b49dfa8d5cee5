# tests/cuda/gpu_fit.sh - sourced by the GPU tests in shell.  gpu_fit N
# [one-process] exits 77 (skipped) unless N ranks can run here: one GPU
# each, or any GPU where CES_SHARE_GPUS=1 (the library refuses any value
# but 0 and 1) lets ranks share them - and, for ranks of one process
# sharing a GPU, not where CUDA_DEVICE_MAX_CONNECTIONS gives its streams
# fewer than CUDA's 8 hardware queues (the library refuses that: a wait of
# one rank would hold the other's writes behind it).  Counts the GPUs that
# CUDA_VISIBLE_DEVICES leaves visible.  Sets $gpus.
gpu_fit() {
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  # CUDA sees only the GPUs CUDA_VISIBLE_DEVICES names, up to its first
  # entry that is neither an index nor a UUID (nvidia-smi lists them all).
  if [ "${CUDA_VISIBLE_DEVICES+set}" = set ]; then
    vis=$(printf '%s\n' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' |
      awk '!/^([0-9]+|GPU-.+|MIG-.+)$/ { exit } { n++ } END { print n + 0 }')
    [ "$vis" -lt "$gpus" ] && gpus=$vis
  fi
  [ "$gpus" -ge 1 ] || { echo "skipped: no GPU"; exit 77; }
  [ "$gpus" -ge "$1" ] && return 0
  [ "${CES_SHARE_GPUS:-0}" = 1 ] ||
    { echo "skipped: $1 ranks, $gpus GPU(s) (CES_SHARE_GPUS=1 lets ranks share them)"; exit 77; }
  if [ "${2:-}" = one-process ] && [ "${CUDA_DEVICE_MAX_CONNECTIONS:-8}" -lt 8 ] 2>/dev/null &&
     [ "${CUDA_DEVICE_MAX_CONNECTIONS:-8}" -ge 1 ]; then
    echo "skipped: $1 ranks of one process share $gpus GPU(s) over CUDA_DEVICE_MAX_CONNECTIONS=$CUDA_DEVICE_MAX_CONNECTIONS hardware queue(s)"
    exit 77
  fi
}
