# tests/cuda/fake_smi.sh - sourced by the CPU tests of the GPU tests in
# shell.  fake_smi DIR N writes DIR/nvidia-smi, a stand-in that lists N
# H200s as `nvidia-smi -L` does (gpu_fit.sh counts its `GPU` lines).
fake_smi() {
  fake_i=0
  echo '#!/bin/sh' >"$1/nvidia-smi"
  while [ "$fake_i" -lt "$2" ]; do
    echo "echo 'GPU $fake_i: NVIDIA H200 (UUID: GPU-$fake_i)'" >>"$1/nvidia-smi"
    fake_i=$((fake_i + 1))
  done
  chmod +x "$1/nvidia-smi"
}
