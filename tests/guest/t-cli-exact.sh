# SPDX-License-Identifier: GPL-2.0
# pmuscope stat under -icount shift=0 -smp 1: instructions:u of a known
# loop is exact up to a fixed overhead, and interval deltas sum to the total.
. /tests/lib.sh

# The first "count" of a JSON line: the first counter's value.
first_count() { sed -n 's/.*"counters":\[{[^}]*"count":\([0-9]*\).*/\1/p'; }

# pmuscope counts every EL0 instruction of CPU 0: run it alone (no pipeline
# whose other end would start up while it counts), without address space
# randomization (libc's string functions take a number of instructions that
# depends on the alignment of what they scan), and parse afterwards. QEMU
# sometimes attributes a further ~9,600 EL0 instructions to a whole run (in
# streaks, not per timer tick); the least of three runs is the undisturbed
# count.
count_loop() {
	best=
	for i in 1 2 3; do
		norandom pmuscope stat --json -C 0 -e instructions:u -- /bin/loop "$1" >/tmp/c.json
		c=$(first_count </tmp/c.json)
		tap_diag "instructions:u of loop $1, run $i: $c" >&2
		if [ -z "$best" ] || [ "$c" -lt "$best" ]; then best=$c; fi
	done
	echo "$best"
}

check "insmod" insmod "$PMUSCOPE_KO"
# Arguments of the same length: parsing them costs the same.
n1=1000000
n2=9000000
c1=$(count_loop $n1)
c2=$(count_loop $n2)
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
