#!/bin/sh
# scripts/gpu.sh - the one script the GPU machine runs: configure and build
# the CUDA backend, its tests and the tool, run the CPU tests of backend/cuda
# and the GPU suite (ctest label `gpu`), and print a summary.
#   FILTER=REGEX   run only the GPU tests matching REGEX (default: all)
#   BUILD=DIR      build directory (default: build-gpu)
#   SECONDS_MAX=S  the GPU tests' time limit (default 480: the whole suite
#                  took 420 s on one H100, a command on the GPU machine may
#                  take 600 and the build about 60 more)
# Full logs go to $CES_LOG_DIR (when set) or to the build directory.
set -u
export NCCL_NVLS_ENABLE=0
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build-gpu}
LOGS=${CES_LOG_DIR:-$B}
DEPS=/tmp/ces-deps
FILTER=${FILTER:-.}
mkdir -p "$LOGS"

# cmocka from the downloaded Debian packages when the machine lacks it.
EXTRA=""
if [ ! -f /usr/include/cmocka.h ] && [ -d "$ROOT/.deps" ]; then
  for f in "$ROOT"/.deps/*.deb; do dpkg -x "$f" "$DEPS"; done
  LIBDIR=$(dirname "$(find "$DEPS" -name 'libcmocka.so*' | head -1)")
  EXTRA="-DCMAKE_PREFIX_PATH=$DEPS/usr -DCMAKE_INCLUDE_PATH=$DEPS/usr/include -DCMAKE_LIBRARY_PATH=$LIBDIR"
  [ -e "$LIBDIR/libcmocka.so" ] || ln -sf "$(ls "$LIBDIR"/libcmocka.so.* | head -1)" "$LIBDIR/libcmocka.so"
  export LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

echo "== configure"
# shellcheck disable=SC2086
cmake -S "$ROOT" -B "$B" -G Ninja -DCES_WERROR=ON $EXTRA >"$LOGS/configure.log" 2>&1 ||
  { tail -30 "$LOGS/configure.log"; exit 2; }
echo "== build"
ninja -C "$B" cesync_tool cuda_test_lower cuda_test_select cuda_test_bootstrap cuda_test_watchdog \
  cuda_test_comm cuda_test_bench_data cuda_test_gpu_coll cuda_test_gpu_fault cuda_test_gpu_driver_faults \
  cuda_test_gpu_devices \
  cuda_example_api >"$LOGS/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$LOGS/build.log" | head -30; exit 2; }
nvidia-smi -L 2>/dev/null | sed 's/(UUID.*//'

echo "== CPU tests of backend/cuda"
ctest --test-dir "$B" -R 'cuda_test_(lower|select|bootstrap|watchdog|comm|bench_data)' 2>&1 | grep -E "tests passed|Failed|\*\*\*"

echo "== GPU tests (ctest -L gpu -R '$FILTER')"
timeout "${SECONDS_MAX:-480}" ctest --test-dir "$B" -L gpu -R "$FILTER" -V -j1 >"$LOGS/gpu.log" 2>&1
rc=$?
grep -E "^[0-9]+: (ok |FAIL|skipped|PASSED|FAILED|iteration 1 |cesync run|cesync: watchdog: +r[0-9]|rank [0-9]+ failed)|Test +#|tests passed|tests failed" "$LOGS/gpu.log" |
  grep -v -e "verdict OK" -e "under every queue assignment$" | sed 's/^[0-9]*: //' | cut -c1-200
echo "dumped schedules proved OK by the checker: $(grep -c 'verdict OK' "$LOGS/gpu.log"), under every queue assignment: $(grep -c 'under every queue assignment$' "$LOGS/gpu.log")"
echo "== summary"
grep -E "tests passed|tests failed" "$LOGS/gpu.log"
grep -cE "\*\*\*Skipped| Skipped" "$LOGS/gpu.log" | sed 's/^/skipped: /'
grep -E "\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception" "$LOGS/gpu.log"
exit $rc
