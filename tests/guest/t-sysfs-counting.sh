# SPDX-License-Identifier: GPL-2.0
# Counting from a busybox shell script, through sysfs only.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
for cpu in $(online_cpus); do
	check "cpu$cpu: every event of events/ reads back from select by its full name" \
		/bin/sysfs-events-check --select "$PMUSCOPE_SYS/cpu$cpu"
done
C=$PMUSCOPE_SYS/cpu0
check "select CPU_CYCLES and SW_INCR on cpu0" sh -c "echo CPU_CYCLES,sw_incr:k > $C/select"
check_eq "select reads back" "$(cat $C/select)" "CPU_CYCLES:uk,SW_INCR:k"
check_eq "cycle counter owned by sysfs" "$(cat $C/counter_owner/cycle)" sysfs
check_eq "counter 0 counts SW_INCR" "$(cat $C/counter_event/0)" SW_INCR:k
check_eq "not enabled yet" "$(cat $C/enable)" 0
check "enable" sh -c "echo 1 > $C/enable"
a=$(cat $C/counter_value/cycle)
sleep 0.2
b=$(cat $C/counter_value/cycle)
check "cycles advance while enabled ($a -> $b)" test "$b" -gt "$a"
# The ABI's booleans: exactly 0 or 1. "0x1" once read as 0 and stopped counting.
for bad in 1x 0x1 yes on 2 01; do
	check_fails "enable '$bad' refused" sh -c "printf '%s' '$bad' > $C/enable"
	check_eq "enable '$bad' changed nothing" "$(cat $C/enable)" 1
	check_fails "reset '$bad' refused" sh -c "printf '%s' '$bad' > $C/reset"
done
check "disable" sh -c "echo 0 > $C/enable"
a=$(cat $C/counter_value/cycle)
sleep 0.1
check_eq "cycles frozen while disabled" "$(cat $C/counter_value/cycle)" "$a"
check "reset" sh -c "echo 1 > $C/reset"
check_eq "reset zeroes the count" "$(cat $C/counter_value/cycle)" 0
check_fails "unknown event name rejected" sh -c "echo NO_SUCH_EVENT > $C/select"
unimpl=$(unimplemented_event)
check_fails "unimplemented event (${unimpl% *}) rejected" sh -c "echo ${unimpl% *} > $C/select"
check_fails "bad modifier rejected" sh -c "echo CPU_CYCLES:x > $C/select"
check_fails "empty modifier rejected" sh -c "echo CPU_CYCLES: > $C/select"
many=SW_INCR
for i in $(seq 32); do many="$many,SW_INCR"; done
err=$(sh -c "echo $many > $C/select" 2>&1)
check "33 events rejected (E2BIG: $err)" sh -c "echo '$err' | grep -q 'Argument list too long'"
check_eq "failed selects kept the selection" "$(cat $C/select)" "CPU_CYCLES:uk,SW_INCR:k"
check_fails "counter_value of a free counter: ENODATA" cat $C/counter_value/3
check "empty selection gives the counters back" sh -c "echo > $C/select"
check_eq "cycle counter free again" "$(cat $C/counter_owner/cycle)" free
check_fails "enable without a selection" sh -c "echo 1 > $C/enable"
check_eq "counter_value files only for implemented counters" \
	"$(ls $C/counter_value | wc -l)" "$(( $(cat $C/num_event_counters) + 1 ))"
# The IMPLEMENTATION DEFINED names of the CPU's own core type, from perf's
# pmu-events tables by its MIDR: LD_DEP_STALL (0xe7) on a Cortex-A53. QEMU
# counts such events as 0: the count is shown, not checked.
if [ "$(( $(cat $C/midr) & 0xff0ffff0 ))" = "$(( 0x410fd030 ))" ]; then
	check "select ld_dep_stall:u (the Cortex-A53's own name) and CPU_CYCLES" \
		sh -c "echo ld_dep_stall:u,CPU_CYCLES > $C/select"
	check_eq "LD_DEP_STALL reads back as its raw number" "$(cat $C/select)" \
		"r0xe7:u,CPU_CYCLES:uk"
	check_eq "counter 0 counts r0xe7" "$(cat $C/counter_event/0)" "r0xe7:u"
	check "enable with LD_DEP_STALL" sh -c "echo 1 > $C/enable"
	/bin/loop 100000
	check "disable" sh -c "echo 0 > $C/enable"
	tap_diag "LD_DEP_STALL:u counted $(cat $C/counter_value/0), cycles $(cat $C/counter_value/cycle) (QEMU counts IMPLEMENTATION DEFINED events as 0)"
	check "empty selection after LD_DEP_STALL" sh -c "echo > $C/select"
	check_fails "another core's name (L1D_CACHE_REFILL_OUTER, none on the A53) rejected" \
		sh -c "echo L1D_CACHE_REFILL_OUTER > $C/select"
fi
check "rmmod" rmmod pmuscope
