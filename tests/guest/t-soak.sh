# SPDX-License-Identifier: GPL-2.0
# The reliability gate's soaks: CPU 1 off and on SOAK_CYCLES times (200)
# while a session counts on it, with the counts continuous; rmmod refused
# while a process holds a session and insmod/rmmod loops once it is gone;
# sysfs writers racing ioctl sessions on the same counters.
. /tests/lib.sh

SOAK_CYCLES=${SOAK_CYCLES:-200}
check "insmod" insmod "$PMUSCOPE_KO"
run_test /bin/pmuscope-soak hotplug "$SOAK_CYCLES"

/bin/pmuscope-test hold 120 >/tmp/soak-hold.out 2>&1 &
holder=$!
i=0
while ! grep -q holding /tmp/soak-hold.out 2>/dev/null && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "a process holds a session" grep -q holding /tmp/soak-hold.out
check_fails "rmmod refused while a session is open" rmmod pmuscope
check "the module stayed" test -d /sys/module/$PMUSCOPE_MOD
kill $holder
wait $holder 2>/dev/null
check "rmmod once the session closed" rmmod pmuscope
ok=0
for i in $(seq 20); do
	insmod "$PMUSCOPE_KO" && rmmod pmuscope && ok=$((ok + 1))
done
check_eq "insmod/rmmod 20 times" "$ok" 20

# sysfs writers and ioctl sessions after the same counters of CPU 0: each
# side succeeds or is told EBUSY; neither wedges the other.
check "insmod" insmod "$PMUSCOPE_KO"
S=$PMUSCOPE_SYS/cpu0
(
	n=0
	for i in $(seq 150); do
		echo CPU_CYCLES,SW_INCR:k >$S/select 2>/dev/null &&
			echo 1 >$S/enable && echo 1 >$S/reset && echo 0 >$S/enable &&
			n=$((n + 1))
		echo >$S/select 2>/dev/null
	done
	echo "$n" >/tmp/soak-sysfs.out
) &
writer=$!
runs=0 okruns=0
while kill -0 $writer 2>/dev/null; do
	runs=$((runs + 1))
	pmuscope stat -C 0 -e cycles -- /bin/loop 20000 >/dev/null 2>&1 &&
		okruns=$((okruns + 1))
done
wait $writer
got=$(cat /tmp/soak-sysfs.out 2>/dev/null)
check "sysfs writers got the counters in ${got:-0} of 150 rounds" test "${got:-0}" -gt 0
check "ioctl sessions counted beside them in $okruns of $runs runs" test "$okruns" -gt 0
check_eq "sysfs selection empty at the end" "$(cat $S/select)" ""
check "a session counts afterwards" sh -c "pmuscope stat -C 0 -e cycles -- /bin/loop 1000 >/dev/null"
check "rmmod" rmmod pmuscope
