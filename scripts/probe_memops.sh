#!/bin/sh
# scripts/probe_memops.sh - builds and runs scripts/probe_memops.c on the
# first two GPUs of this machine (GPU 0 alone when only one-GPU probes such
# as queue-hold are named; the probes behind docs/PERFORMANCE.md's "Ideas,
# predictions and results"); prints one line per probe.
#   scripts/probe_memops.sh [NAME...]   only the named probes (see main())
#   CUDA=DIR   the CUDA toolkit (default /usr/local/cuda)
#   CONNECTIONS='unset 1'   run the probes once per value, under
#              CUDA_DEVICE_MAX_CONNECTIONS=value (`unset`: without it), which
#              CUDA reads as it initializes (default: once, as the caller's
#              environment has it)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUDA=${CUDA:-/usr/local/cuda}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cc -std=c11 -O2 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -I"$CUDA/include" \
  "$ROOT/scripts/probe_memops.c" -o "$OUT/probe_memops" \
  -L"$CUDA/lib64" -L"$CUDA/lib64/stubs" -lcudart -lcuda -lpthread -Wl,-rpath,"$CUDA/lib64"
nvidia-smi -L 2>/dev/null | head -2 | sed 's/(UUID.*//'
if [ -z "${CONNECTIONS:-}" ]; then
  timeout 300 "$OUT/probe_memops" "$@"
  exit
fi
for c in $CONNECTIONS; do
  echo "== CUDA_DEVICE_MAX_CONNECTIONS=$c"
  if [ "$c" = unset ]; then
    (unset CUDA_DEVICE_MAX_CONNECTIONS && exec timeout 300 "$OUT/probe_memops" "$@")
  else
    CUDA_DEVICE_MAX_CONNECTIONS=$c timeout 300 "$OUT/probe_memops" "$@"
  fi
done
