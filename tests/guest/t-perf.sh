# SPDX-License-Identifier: GPL-2.0
# perf's PMUv3 driver drives the PMU (a stock kernel): plain insmod counts
# through it (backend perf); backend=direct is refused and says why.
. /tests/lib.sh

check "perf's PMU driver is registered" sh -c "ls /sys/bus/event_source/devices | grep -q armv8"
check_fails "insmod backend=direct refused while perf's driver drives the PMU" \
	insmod "$PMUSCOPE_KO" backend=direct
check "the kernel log names the cause" sh -c "dmesg | grep -q \"perf's PMUv3 driver (CONFIG_ARM_PMUV3) drives the PMU\""
check "the kernel log names the fix" sh -c "dmesg | grep -q 'initcall_blacklist=armv8_pmu_driver_init'"
check_fails "insmod backend=bogus refused" insmod "$PMUSCOPE_KO" backend=bogus
check "plain insmod (no parameters)" insmod "$PMUSCOPE_KO"
check_eq "sysfs backend" "$(cat $PMUSCOPE_SYS/backend)" perf
check "the kernel log says so" sh -c "dmesg | grep -q 'backend perf: counting through perf'"
check "pmuscope version names the backend" sh -c "pmuscope version | grep -q 'backend: perf'"
run_test /bin/pmuscope-test photplug
run_test /bin/pmuscope-test preset
run_test /bin/pmuscope-test inherit
run_test /bin/pmuscope-snap idle
run_test /bin/pmuscope-test taskperm
run_test /bin/pmuscope-test usermap

# sysfs counting works the same on the perf backend.
S=$PMUSCOPE_SYS/cpu0
check "sysfs select CPU_CYCLES,CPU_CYCLES:u" sh -c "echo CPU_CYCLES,CPU_CYCLES:u >$S/select"
check_eq "sysfs select reads back" "$(cat $S/select)" "CPU_CYCLES:uk,CPU_CYCLES:u"
check "sysfs enable" sh -c "echo 1 >$S/enable"
sleep 0.1
check "sysfs disable" sh -c "echo 0 >$S/enable"
check_eq "sysfs counter_event/cycle" "$(cat $S/counter_event/cycle)" "CPU_CYCLES:uk"
check_eq "sysfs counter_event/0" "$(cat $S/counter_event/0)" "CPU_CYCLES:u"
check "sysfs counter_value/0 counted cycles:u ($(cat $S/counter_value/0))" \
	test "$(cat $S/counter_value/0)" -gt 0
check_eq "sysfs counter_owner/1 (not selected)" "$(cat $S/counter_owner/1)" free
check "sysfs counter_value/cycle counted cycles ($(cat $S/counter_value/cycle))" \
	test "$(cat $S/counter_value/cycle)" -gt 0
check_eq "sysfs counter_owner/cycle" "$(cat $S/counter_owner/cycle)" sysfs
# pmuscope read: sysfs shows the sysfs session's counters on this backend
# (the one above, still selected), never those of /dev/pmuscope sessions
# (a held one here): it says so, exit 3.
why="pmuscope: backend perf: /dev/pmuscope sessions count with perf events, whose counters sysfs does not show:"
rm -f /tmp/hold.out
/bin/pmuscope-test hold 60 >/tmp/hold.out &
holder=$!
while ! grep -q holding /tmp/hold.out 2>/dev/null; do
	kill -0 $holder 2>/dev/null || break
	sleep 0.1
done
check "a session holds counters (pmuscope-test hold)" grep -q holding /tmp/hold.out
out=$(pmuscope read 2>/tmp/read.err); rc=$?; err=$(unbanner "$(cat /tmp/read.err)")
check_eq "read, perf backend, sysfs session counting: exit 3" "$rc" 3
check_eq "read, perf backend: message" "$err" "$why listed are the sysfs session's (cpuN/select) alone"
check "read, perf backend: the sysfs session's cycle counter listed" \
	sh -c "echo \"\$0\" | grep -q '^0 *cycle *sysfs *CPU_CYCLES:uk *[0-9]'" "$out"
check "read, perf backend: the held session not listed" \
	sh -c "! echo \"\$0\" | grep -q 'pid $holder'" "$out"
check "sysfs select cleared" sh -c "echo >$S/select"
out=$(pmuscope read --json 2>/tmp/read.err); rc=$?; err=$(unbanner "$(cat /tmp/read.err)")
check_eq "read --json, perf backend, only a session counting: exit 3" "$rc" 3
check_eq "read --json, perf backend: empty list" "$out" '{"counters":[]}'
check_eq "read --json, perf backend: message" "$err" "$why nothing listed (the sysfs session, cpuN/select, counts nothing)"
kill $holder
wait $holder

# pmuscope stat -- cmd counts the command (a task), not CPUs.
out=$(pmuscope stat -e cycles -- /bin/loop 1000 2>&1)
echo "$out" | sed 's/^/pmuscope-tap: # /'
check "stat -- cmd: the command's own counts" \
	sh -c "echo \"\$0\" | grep -q \"Performance counter stats for '/bin/loop 1000'\"" "$out"
check "stat -a -- cmd: all CPUs" \
	sh -c "pmuscope stat -a -e cycles -- /bin/loop 1000 2>&1 | grep -q 'stats for CPUs 0-1'"
check "stat --json -- cmd says target task" \
	sh -c "pmuscope stat --json -e cycles -- /bin/loop 1000 | grep -q '\"target\":\"task\"'"
# More events than counters on CPUs: perf multiplexes them (CONFIG used to
# fail with ENOSPC on this backend).
many=cycles
for i in $(seq 2 $(( $(cat $PMUSCOPE_SYS/cpu0/num_event_counters) * 2 + 2 ))); do
	many="$many,cycles"
done
out=$(pmuscope stat -C 0 -e "$many" -- /bin/loop 200000 2>&1)
echo "$out" | sed 's/^/pmuscope-tap: # /'
check "CPUs: more events than counters are multiplexed: scaled, (xx.xx%)" \
	sh -c "echo \"\$0\" | grep -q '%)'" "$out"
check "rmmod" rmmod pmuscope
# shared=1 is gone: the module loader ignores an unknown parameter, says so.
check "insmod shared=1 (shared mode removed)" insmod "$PMUSCOPE_KO" shared=1
check "the kernel log says 'shared' is unknown" sh -c "dmesg | grep -qi \"unknown parameter 'shared' ignored\""
check_eq "shared=1 is ignored: backend" "$(cat $PMUSCOPE_SYS/backend)" perf
check "rmmod" rmmod pmuscope
check "no pmuscope left loaded" sh -c "! grep -q '^pmuscope' /proc/modules"
