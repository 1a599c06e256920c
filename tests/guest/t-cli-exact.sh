# SPDX-License-Identifier: GPL-2.0
# pmuscope stat under -icount shift=0 -smp 1: instructions:u of a known
# loop is exact up to a fixed overhead, and interval deltas sum to the total.
. /tests/lib.sh

# The first "count" of a JSON line: the first counter's value.
first_count() { sed -n 's/.*"counters":\[{[^}]*"count":\([0-9]*\).*/\1/p'; }

# pmuscope stat -- CMD counts the command's own EL0 instructions (a task
# session: pmuscope's perf PMU follows the command and its children), not
# CPU 0's: another task's EL0 code on the CPU (say the shell that forked it,
# preempted before it reached wait()) is not in it. With -C 0 it was, and
# under -icount the same disturbance can land in every run alike (24
# instructions in all five runs of a boot once). Run without address space
# randomization (libc's string functions take a number of instructions that
# depends on the alignment of what they scan); the least of five
# interleaved runs of each size.
run_loop() {
	norandom pmuscope stat --json -e instructions:u -- /bin/loop "$1" >/tmp/c.json
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
