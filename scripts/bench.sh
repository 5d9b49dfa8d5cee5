#!/usr/bin/env bash
# Builds cesync and runs the whole benchmark on the GPUs of this machine:
# calibration of the machine model, then alltoall, allgather and sendrecv
# against NCCL's copy-engine and kernel paths and the raw peer copy, with a
# compute kernel beside them; prints a short table of the targets last.
#
#   scripts/bench.sh [OUTDIR]      (default: $CES_LOG_DIR if set, else ./out/bench)
#
# Environment: CES_BENCH_RANKS (default 2), CES_BENCH_MAX (default 1G),
# CES_BENCH_ITERS (default 20), CES_BENCH_COLLS (default "alltoall allgather
# sendrecv"), CES_NCCL_LIB (else the Python wheel's NCCL), CES_BENCH_QUICK=1
# (factor 8 and fewer iterations: a smoke run).  NCCL_NVLS_ENABLE=0 always.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${CES_LOG_DIR:-out/bench}}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
ranks=${CES_BENCH_RANKS:-2}
max=${CES_BENCH_MAX:-1G}
iters=${CES_BENCH_ITERS:-20}
colls=${CES_BENCH_COLLS:-"alltoall allgather sendrecv"}
factor=2
warm=5
if [ "${CES_BENCH_QUICK:-0}" = 1 ]; then factor=8; iters=5; warm=2; fi
log="$out/bench.log"
tmp=$(mktemp -d)
: >"$log"

say() { echo "$@" | tee -a "$log"; }

say "# cesync bench.sh on $(hostname), $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$log"
nvidia-smi topo -m 2>&1 | head -n $((ranks + 1)) | tee -a "$log"

build=build-bench
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCES_BUILD_TESTS=OFF >>"$log" 2>&1 &&
       ninja -C "$build" cesync_tool >>"$log" 2>&1; }; then
    say "build failed; see $log"
    tail -n 30 "$log"
    exit 2
fi
tool="$build/tools/cesync"

model="$out/h200.model"
first=1
for coll in $colls; do
    extra=()
    if [ $first = 1 ]; then
        extra+=(--calibrate --model-out "$model")
        first=0
    elif [ -f "$model" ]; then
        extra+=(--model "$model")
    fi
    plot=svg # without Graphviz the bench keeps the .dot file instead
    [ "$coll" = sendrecv ] && extra+=(--one-way)
    say ""
    say "## $coll"
    timeout 110 "$tool" bench "$coll" --ranks "$ranks" --min-bytes 1K --max-bytes "$max" \
        --factor "$factor" --iterations "$iters" --warmup "$warm" --with-compute \
        --csv "$out/$coll.csv" --plot "$out/$coll.$plot" "${extra[@]}" 2>&1 | tee -a "$log" \
        >"$tmp/$coll.txt"
    rc=${PIPESTATUS[0]}
    tail -n 40 "$tmp/$coll.txt"
    say "# $coll: exit $rc"
done

# sendrecv as a ring too (both directions at once), 64M only, into the log.
case " $colls " in *" sendrecv "*)
    say ""
    say "## sendrecv ring, 64M"
    mopt=()
    [ -f "$model" ] && mopt=(--model "$model")
    timeout 60 "$tool" bench sendrecv --ranks "$ranks" --min-bytes 64M --max-bytes 64M \
        --iterations "$iters" --warmup "$warm" "${mopt[@]}" 2>&1 | tail -n 8 | tee -a "$log"
    ;;
esac

# The short table: the targets of issue 5 read from the CSVs.
say ""
say "## summary ($ranks x GPU, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1))"
python3 - "$out" $colls <<'EOF' 2>&1 | tee -a "$log"
import csv, sys, os
out, colls = sys.argv[1], sys.argv[2:]
def rows(c):
    p = os.path.join(out, c + ".csv")
    return list(csv.DictReader(open(p))) if os.path.exists(p) else []
def best(rs, impl, b):
    c = [r for r in rs if r["impl"] == impl and int(r["bytes"]) == b]
    return min(c, key=lambda r: float(r["time_us"])) if c else None
print("%-10s %-8s %-30s %-30s %-22s" % ("coll", "bytes", "cesync (best variant)", "NCCL CE", "NCCL kernel"))
for c in colls:
    rs = rows(c)
    sizes = sorted({int(r["bytes"]) for r in rs})
    for b in [s for s in sizes if s in (1 << 20, 64 << 20, 128 << 20, 1 << 30)]:
        x, ce, k = best(rs, "cesync", b), best(rs, "nccl-ce", b), best(rs, "nccl-kernel", b)
        f = lambda r: "%9.2f us %6.1f GB/s" % (float(r["time_us"]), float(r["busbw_gbps"])) if r else "-"
        name = x["variant"] if x else ""
        ratio = " x%.2f vs CE" % (float(ce["time_us"]) / float(x["time_us"])) if x and ce else ""
        print("%-10s %-8s %-30s %-30s %-22s%s" % (c, "%dM" % (b >> 20), f(x) + " " + name, f(ce), f(k), ratio))
EOF
for coll in $colls; do
    grep -h "^#   \|^# compute" "$tmp/$coll.txt" 2>/dev/null | sed "s/^/$coll /" | tee -a "$log"
done
