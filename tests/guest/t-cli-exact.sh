# SPDX-License-Identifier: GPL-2.0
# pmuscope stat under -icount shift=0 -smp 1: instructions:u of a known
# loop is exact up to a fixed overhead, and interval deltas sum to the total.
. /tests/lib.sh

# The first "count" of a JSON line: the first counter's value.
first_count() { sed -n 's/.*"counters":\[{[^}]*"count":\([0-9]*\).*/\1/p'; }

# pmuscope counts every EL0 instruction of CPU 0: run it alone (no pipeline
# whose other end would start up while it counts), without address space
# randomization (libc's string functions take a number of instructions that
# depends on the alignment of what they scan), and parse afterwards. Another
# task's EL0 code can still run on CPU 0 while pmuscope counts (say the
# shell that forked it, preempted before it reached wait(); runs ~9,600
# instructions high have been seen) and is counted, correctly. That only
# ever adds: the least of five runs of each size, interleaved so that a
# disturbed stretch of the boot cannot take all runs of one size, is the
# undisturbed count.
run_loop() {
	norandom pmuscope stat --json -C 0 -e instructions:u -- /bin/loop "$1" >/tmp/c.json
	first_count </tmp/c.json
}

check "insmod" insmod "$PMUSCOPE_KO"
# Arguments of the same length: parsing them costs the same.
n1=1000000
n2=9000000
c1= c2=
for i in 1 2 3 4 5; do
	a=$(run_loop $n1)
	b=$(run_loop $n2)
	tap_diag "instructions:u, run $i: loop $n1 -> $a, loop $n2 -> $b"
	if [ -z "$c1" ] || [ "$a" -lt "$c1" ]; then c1=$a; fi
	if [ -z "$c2" ] || [ "$b" -lt "$c2" ]; then c2=$b; fi
done
tap_diag "instructions:u: loop $n1 -> $c1, loop $n2 -> $c2"
tap_diag "fixed overhead beyond 2 instructions per iteration: $((c1 - 2 * n1)) and $((c2 - 2 * n2))"
check_eq "stat instructions:u: difference of two loops = 2 x ($n2 - $n1)" \
	"$((c2 - c1))" "$((2 * (n2 - n1)))"
check "stat instructions:u: fixed overhead below 100000 instructions ($((c1 - 2 * n1)))" \
	test "$((c1 - 2 * n1))" -lt 100000
pmuscope stat --json -I 20 -C 0 -e instructions:u -- /bin/loop 100000000 >/tmp/iv.json
intervals=$(grep -c '"type":"interval"' /tmp/iv.json)
sum=0
for c in $(grep '"type":"interval"' /tmp/iv.json | first_count); do
	sum=$((sum + c))
done
total=$(grep '"type":"total"' /tmp/iv.json | first_count)
sed 's/^/pmuscope-json: /' /tmp/iv.json | head -3
check "interval mode printed several intervals ($intervals)" test "$intervals" -ge 3
check_eq "interval deltas sum to the total" "$sum" "$total"
check "rmmod" rmmod pmuscope
