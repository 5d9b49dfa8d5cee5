#!/bin/sh
# tests/core/many_names.sh TOOL - a schedule of 400,000 declarations (100,000
# each of constants, buffers, signals and events, every one named again by
# an op line) parses, expands and validates, and a name declared twice after
# them all is refused with the message of a short file.  Finding a name
# went through every name declared before it: this file took minutes, and
# the test's TIMEOUT catches a return to that.
tool=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bad=0
# gen N: the schedule with N of each kind
gen() {
  awk -v n="$1" 'BEGIN {
    print "cesync 1"; print "ranks 2"; print "streams 2"
    for (k = 0; k < n; k++) printf "let c%d = %d\n", k, k % 8
    for (k = 0; k < n; k++) printf "buffer b%d 16\n", k
    for (k = 0; k < n; k++) printf "signal f%d u32 1\n", k
    print "phase eager x1"
    for (k = 0; k < n; k++) printf "r0 : produce b%d[$c%d:$c%d+8]\n", k, k, k
    for (k = 0; k < n; k++) printf "r1 : write f%d[0] = 1\n", k
    for (k = 0; k < n; k++) printf "r0 : record e%d\nr0 s1 : await e%d\n", k, k
  }'
}
# expect FILE RC OUTPUT: `TOOL validate FILE` in $dir exits RC, prints OUTPUT
expect() {
  out=$(cd "$dir" && "$tool" validate "$1" 2>&1)
  rc=$?
  if [ "$rc" -ne "$2" ] || [ "$out" != "$3" ]; then
    echo "FAIL: validate $1: exit $rc, '$out'; expected exit $2, '$3'"
    bad=1
  fi
}
gen 100000 >"$dir/many.ces"
expect many.ces 0 "valid: 2 ranks, 2 streams per rank, 100000 buffers, 100000 signal arrays, 1 iteration, 400000 ops"
# the same names declared again, where the tables hold them all
head -n 100003 "$dir/many.ces" >"$dir/let_twice.ces"
echo "let c99999 = 1" >>"$dir/let_twice.ces"
expect let_twice.ces 2 "cesync: let_twice.ces:100004:5: constant 'c99999' is defined twice"
head -n 300003 "$dir/many.ces" >"$dir/buffer_twice.ces"
echo "signal b0 u32 1" >>"$dir/buffer_twice.ces"
expect buffer_twice.ces 2 "cesync: buffer_twice.ces:300004:8: 'b0' is already declared as a buffer"
head -n 300003 "$dir/many.ces" >"$dir/signal_twice.ces"
echo "buffer f99999 8" >>"$dir/signal_twice.ces"
expect signal_twice.ces 2 "cesync: signal_twice.ces:300004:8: 'f99999' is already declared as a signal"
[ "$bad" -eq 0 ] && echo PASSED
exit "$bad"
