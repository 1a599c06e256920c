# SPDX-License-Identifier: GPL-2.0
# Either backend, -icount shift=0 -smp 1: a task's INST_RETIRED:u is exact
# while a CPU hog competes for the CPU, children are counted with inherit,
# a perf_event_open user counting at the same time is exact too (perf
# backend: its driver is the peer's; direct: pmuscope's own perf PMU), and
# more events than counters are multiplexed and scaled.
. /tests/lib.sh

first_count() { sed -n 's/.*"counters":\[{[^}]*"count":\([0-9]*\).*/\1/p'; }
run() {	# run N CMD...: instructions:u of CMD counted as a task
	norandom pmuscope stat --json -e instructions:u -- "$@" >/tmp/t.json 2>/dev/null
	first_count </tmp/t.json
}

check "insmod" insmod "$PMUSCOPE_KO"
tap_diag "backend: $(cat $PMUSCOPE_SYS/backend)"
run_test /bin/pmuscope-test task 1000 1000000
run_test /bin/pmuscope-test mux 500000000

# A CPU hog on the only CPU: it preempts the counted command many times.
/bin/loop 1000000000000 &
hog=$!
n1=1000000
n2=9000000
for i in 1 2 3; do
	a=$(run /bin/loop $n1)
	b=$(run /bin/loop $n2)
	tap_diag "with a CPU hog, run $i: loop $n1 -> $a, loop $n2 -> $b"
	check_eq "task, CPU hog competing, run $i: difference of two loops = 2 x ($n2 - $n1)" \
		"$((b - a))" "$((2 * (n2 - n1)))"
done
switches=$(grep nonvoluntary_ctxt_switches /proc/$hog/status | tr -dc 0-9)
check "the hog was preempted many times ($switches)" test "${switches:-0}" -gt 10
# Children: the loop runs in a child of sh, created after counting began.
a=$(run sh -c "/bin/loop $n1")
b=$(run sh -c "/bin/loop $n2")
tap_diag "inherit: sh -c loop $n1 -> $a, sh -c loop $n2 -> $b"
check_eq "inherit: the child's instructions are counted (difference exact)" \
	"$((b - a))" "$((2 * (n2 - n1)))"
kill $hog
wait $hog 2>/dev/null
# A task's samples: as many as its cycles make periods, a CPU hog beside.
run_test /bin/pmuscope-pstream exact
check "rmmod" rmmod pmuscope
