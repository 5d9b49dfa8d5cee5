#!/bin/sh
# model/error_table.sh CESYNC MODEL [BENCHDIR] - the cost model's error against
# the measured CSVs of docs/bench (docs/PERFORMANCE.md, "How well it
# predicts"): `cesync bench --dry-run` of the same collectives, sizes and
# variants as the measured runs, joined with the measurements on (bytes,
# variant).  Prints one line per cesync row from 1 MiB: table, bytes,
# variant, measured us, predicted us in the fast and in the slow mode of
# blocked waits (ces_model_slow_mode), and the error % = (pred - meas) /
# meas against the nearer of the two, marked s when that is the slow one.
# A table missing from BENCHDIR is skipped.  A dry run that fails (a model
# file that does not load) stops it, its message on stderr, exit 2.  Writes
# nothing outside a temporary directory.
set -eu
C=$1 M=$2 D=${3:-docs/bench}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
q() {
    "$C" bench "$@" --dry-run --model "$M" --ranks 2 >/dev/null 2>"$T/err" ||
        { cat "$T/err" >&2; exit 2; }
}
q alltoall --variant auto,overlap,plain --min-bytes 1M --max-bytes 1G --factor 2 --csv "$T/alltoall_2xh200.csv"
q allgather --variant auto,overlap,plain --min-bytes 1M --max-bytes 1G --factor 2 --csv "$T/allgather_2xh200.csv"
q sendrecv --one-way --chunks 1 --slots 2 --variant plain,auto --min-bytes 1M --max-bytes 256M --factor 4 --csv "$T/sendrecv_oneway_2xh200.csv"
q sendrecv --variant plain,auto --min-bytes 1M --max-bytes 64M --factor 8 --csv "$T/sendrecv_ring_2xh200.csv"
q sendrecv --graph --one-way --variant auto --min-bytes 1M --max-bytes 64M --factor 8 --csv "$T/sendrecv_oneway_graph_2xh200.csv"
q alltoall --graph --variant auto --min-bytes 1M --max-bytes 256M --factor 4 --csv "$T/alltoall_graph_2xh200.csv"
q allgather --graph --variant auto --min-bytes 1M --max-bytes 256M --factor 4 --csv "$T/allgather_graph_2xh200.csv"
q allgather --in-place --variant auto,plain --min-bytes 1M --max-bytes 1G --factor 2 --csv "$T/allgather_inplace_2xh200.csv"
for f in alltoall allgather sendrecv_oneway sendrecv_ring sendrecv_oneway_graph alltoall_graph allgather_graph \
    allgather_inplace; do
    [ -f "$D/${f}_2xh200.csv" ] || continue
    awk -F, -v name="$f" 'FNR == 1 { next }
        NR == FNR { if ($4 == "cesync") { p[$3 "," $5] = $12; q[$3 "," $5] = $13 }; next }
        $4 == "cesync" && $3 >= 1048576 && ($3 "," $5) in p {
            k = $3 "," $5
            e = (p[k] - $6) / $6 * 100
            f = (q[k] - $6) / $6 * 100
            m = " "
            if (f * f < e * e) { e = f; m = "s" }
            printf "%-21s %11d %-8s %9.2f %9.2f %9.2f %+6.1f%s\n", name, $3, $5, $6, p[k], q[k], e, m }' \
        "$T/${f}_2xh200.csv" "$D/${f}_2xh200.csv"
done
