#!/bin/sh
# scripts/bench_spin.sh - the checker against SPIN on the same schedules.
#
# For the alltoall (nccl sync, 2 iterations) and sendrecv (credit sync, the
# pipeline 0->1->..., 2 iterations) families at growing rank counts, runs
#   cesync check          (states stored, seconds, peak memory)
#   SPIN on the Promela model that `cesync promela` emits, with SPIN's default
#   partial-order reduction and COLLAPSE compression (states stored, seconds
#   of ./pan, memory), under a memory and a time bound,
# and prints one table.  Once SPIN fails to finish a family within the bounds
# it is not run for larger rank counts of that family.
#
# usage: scripts/bench_spin.sh [--ranks "2 3 4 5 6 8"] [--mem-mb 4096] [--seconds 120]
#                              [--no-races]   (SPIN model without the race clocks)
# environment: CESYNC (default build/tools/cesync), CC (default cc)
set -eu

ranks="2 3 4 5 6 8"
mem_mb=4096
seconds=120
pml_opts=""
while [ $# -gt 0 ]; do
    case "$1" in
    --ranks) ranks="$2"; shift 2 ;;
    --mem-mb) mem_mb="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --no-races) pml_opts="--no-races"; shift ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_spin.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
cesync=${CESYNC:-$root/build/tools/cesync}
cc=${CC:-cc}
if [ ! -x "$cesync" ]; then
    echo "bench_spin.sh: no cesync at $cesync (build it, or set CESYNC)" >&2
    exit 2
fi
for tool in spin "$cc" timeout; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "bench_spin.sh: '$tool' is not on PATH (Debian: apt-get install spin)" >&2
        exit 2
    fi
done
# line-buffered pan output keeps its progress lines when the time bound kills it
linebuf=""
if command -v stdbuf >/dev/null 2>&1; then
    linebuf="stdbuf -oL"
fi
timer=""
if [ -x /usr/bin/time ]; then
    timer=/usr/bin/time
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-spin-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# args_of FAMILY N: the builder arguments of one schedule.
args_of() {
    case "$1" in
    alltoall) echo "alltoall --ranks $2 --bytes $(($2 * 16)) --iterations 2 --sync nccl" ;;
    sendrecv) echo "sendrecv --ranks $2 --bytes 64 --iterations 2 --sync credit" ;;
    esac
}

# seconds_of FILE: the elapsed seconds that /usr/bin/time -f '%e %M' wrote.
field() { awk -v k="$2" 'END { print $k }' "$1"; }

printf '%-9s %5s | %12s %9s %9s | %12s %9s %9s  %s\n' family ranks "cesync st" "seconds" "MiB" \
    "SPIN states" "seconds" "MiB" "SPIN result"
printf '%s\n' "----------------------------------------------------------------------------------------------------"
for family in alltoall sendrecv; do
    spin_on=1
    for n in $ranks; do
        args=$(args_of "$family" "$n")
        # --- cesync check
        # shellcheck disable=SC2086
        if [ -n "$timer" ]; then
            $timer -f '%e %M' -o "$work/ctime" "$cesync" check $args >"$work/check.out" 2>&1 || true
        else
            "$cesync" check $args >"$work/check.out" 2>&1 || true
            echo "0 0" >"$work/ctime"
        fi
        verdict=$(sed -n 's/^verdict: //p' "$work/check.out" | head -n 1)
        c_states=$(sed -n 's/^statistics: \([0-9]*\) states.*/\1/p' "$work/check.out")
        # (the exhaustive search counts end states; before 0357773, executions)
        c_secs=$(sed -n -E 's/^statistics: .*(end states?|executions?), ([0-9.]+) s,.*/\2/p' \
            "$work/check.out")
        c_mib=$(awk '{ printf "%.1f", $2 / 1024 }' "$work/ctime")
        [ "$verdict" = OK ] || c_states="$c_states ($verdict)"
        # --- SPIN
        s_states="-"; s_secs="-"; s_mib="-"; s_res="not run (stopped at fewer ranks)"
        if [ "$spin_on" = 1 ]; then
            rm -f "$work"/pan* "$work"/model.pml*
            # shellcheck disable=SC2086
            "$cesync" promela $args $pml_opts -o "$work/model.pml" 2>/dev/null
            # the state vector's size, where the model's header asks for one
            vsz=$(sed -n 's/^ \*   -DVECTORSZ=\([0-9]*\)\.$/\1/p' "$work/model.pml" 2>/dev/null)
            (cd "$work" && spin -a model.pml >spin.log 2>&1 &&
                $cc -O2 -w -DSAFETY -DCOLLAPSE -DMEMLIM="$mem_mb" -DVECTORSZ="${vsz:-1024}" \
                    -o pan pan.c >cc.log 2>&1)
            rc=0
            if [ -n "$timer" ]; then
                (cd "$work" && timeout "$seconds" $timer -f '%e %M' -o ptime \
                    $linebuf ./pan -m200000 >pan.log 2>&1) || rc=$?
            else
                (cd "$work" && timeout "$seconds" $linebuf ./pan -m200000 >pan.log 2>&1) || rc=$?
            fi
            s_states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$work/pan.log" | head -n 1)
            [ -n "$s_states" ] || s_states="-"
            if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
                # pan prints a progress line per million states: a lower bound
                last=$(sed -n 's/.*States= *\([0-9.e+]*\).*/\1/p' "$work/pan.log" | tail -n 1)
                [ -z "$last" ] || s_states=">$last"
                s_res="stopped: over ${seconds} s"
                s_secs=">$seconds"
                spin_on=0
            elif grep -q -e 'out of memory' -e 'MEMLIM' "$work/pan.log"; then
                s_res="stopped: over $mem_mb MiB"
                s_secs=$(field "$work/ptime" 1)
                s_mib=">$mem_mb"
                spin_on=0
            else
                s_secs=$(field "$work/ptime" 1)
                s_mib=$(awk '{ printf "%.1f", $2 / 1024 }' "$work/ptime")
                errs=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$work/pan.log" | head -n 1)
                if [ "$errs" = 0 ]; then s_res="complete, no error"; else s_res="errors: $errs"; fi
            fi
        fi
        printf '%-9s %5s | %12s %9s %9s | %12s %9s %9s  %s\n' "$family" "$n" "$c_states" \
            "$c_secs" "$c_mib" "$s_states" "$s_secs" "$s_mib" "$s_res"
    done
done
echo
echo "cesync: $("$cesync" --version 2>/dev/null || echo cesync); $(spin -V 2>&1 | head -n 1);" \
    "SPIN bounds: ${mem_mb} MiB (-DMEMLIM), ${seconds} s; pan built with $cc -O2 -DSAFETY -DCOLLAPSE" \
    "(default partial-order reduction); Promela options: ${pml_opts:-none};" \
    "memory = peak RSS of the process"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
    "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
