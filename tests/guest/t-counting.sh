# SPDX-License-Identifier: GPL-2.0
# The counting engine on QEMU's PMUv3 through /dev/pmuscope: every ioctl
# validation rule, SW_INCR, sessions, CPU hotplug, unload rules.
. /tests/lib.sh

check "insmod pmuscope.ko" insmod "$PMUSCOPE_KO"
check "/dev/pmuscope exists" test -c /dev/pmuscope
check "mode: overflow interrupt (perf's driver kept off)" \
	sh -c "dmesg | grep -q 'wraps caught by the overflow interrupt'"
for sub in errors alloc swinc sessions hotplug usermap preset inherit taskperm; do
	run_test /bin/pmuscope-test $sub
done

# rmmod is refused while a session is open.
# Held until killed once checked: a hold of 3 s once ended before the
# checks below on a loaded host.
rm -f /tmp/hold.out
/bin/pmuscope-test hold 60 >/tmp/hold.out &
holder=$!
while ! grep -q holding /tmp/hold.out 2>/dev/null && kill -0 $holder 2>/dev/null; do sleep 0.1; done
check "a session holds counters (pmuscope-test hold)" grep -q holding /tmp/hold.out
check_fails "rmmod refused while a session is open" rmmod pmuscope
owner=$(cat $PMUSCOPE_SYS/cpu0/counter_owner/0)
case "$owner" in
"session "*"(pid $holder, pmuscope-test)") tap_ok "sysfs names the session holding cpu0 counter 0: $owner" ;;
*) tap_not_ok "sysfs counter_owner/0: got '$owner', want session (pid $holder, pmuscope-test)" ;;
esac
check_eq "counter_owner is root's only (mode 0400)" \
	"$(stat -c %a $PMUSCOPE_SYS/cpu0/counter_owner/0)" 400
check_fails "uid 65534 cannot read who holds a counter" \
	runas 65534 cat $PMUSCOPE_SYS/cpu0/counter_owner/0
check_eq "sysfs shows the event on cpu0's cycle counter" \
	"$(cat $PMUSCOPE_SYS/cpu0/counter_event/cycle)" CPU_CYCLES:uk
check_fails "sysfs select while a session holds the counters: EBUSY" \
	sh -c "echo SW_INCR,SW_INCR,SW_INCR,SW_INCR,SW_INCR,SW_INCR > $PMUSCOPE_SYS/cpu0/select"
check "kernel log names the holder" \
	sh -c "dmesg | grep -q 'counter 0 held by session .*(pid $holder, pmuscope-test)'"
kill $holder
wait $holder
check_eq "counter freed when the session closed" "$(cat $PMUSCOPE_SYS/cpu0/counter_owner/0)" free
check "rmmod after close" rmmod pmuscope
run_test /bin/pmuscope-test el0
dmesg -c >/dev/null
check "insmod again" insmod "$PMUSCOPE_KO"
check_fails "unload left the PMU disabled (PMCR_EL0.E = 0)" \
	sh -c "dmesg | grep -q 'PMCR_EL0.E was set'"
check "rmmod" rmmod pmuscope
# sysfs and /dev/pmuscope are published last at load: a CPU watching
# sysfs appear never finds an online CPU not yet probed.
run_test /bin/pmuscope-test loadorder "$PMUSCOPE_KO" 20
check "insmod group=4242" insmod "$PMUSCOPE_KO" group=4242
run_test /bin/pmuscope-test group 4242
check "rmmod" rmmod pmuscope

# The poll period: at most half the time the fastest event (by default 8
# per cycle at 4 GHz) takes to count 2^31; a longer poll_ms is refused.
check "insmod" insmod "$PMUSCOPE_KO"
check_eq "default poll_ms: the longest safe period" \
	"$(cat /sys/module/$PMUSCOPE_MOD/parameters/poll_ms)" 33
check "rmmod" rmmod pmuscope
dmesg -c >/dev/null
check_fails "insmod poll_ms=100 refused: longer than the safe period" \
	insmod "$PMUSCOPE_KO" poll_ms=100
check "the kernel log says why, and what is safe" \
	sh -c "dmesg | grep -q 'poll_ms=100 is longer than the longest safe poll period, 33 ms'"
check "insmod poll_ms=400 events_per_cycle=2 max_mhz=1250 (the AM62L's bounds)" \
	insmod "$PMUSCOPE_KO" poll_ms=400 events_per_cycle=2 max_mhz=1250
check_eq "poll_ms" "$(cat /sys/module/$PMUSCOPE_MOD/parameters/poll_ms)" 400
check "rmmod" rmmod pmuscope
check_fails "insmod poll_ms=430 events_per_cycle=2 max_mhz=1250 refused" \
	insmod "$PMUSCOPE_KO" poll_ms=430 events_per_cycle=2 max_mhz=1250
