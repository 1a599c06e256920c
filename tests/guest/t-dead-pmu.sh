# SPDX-License-Identifier: GPL-2.0
# A PMU that does not count: pmuscope_emu.ko with the fault model dead-pmu
# (kernel argument pmuscope_emu=dead-pmu), a hypervisor that exposes a
# Cortex-A53's PMU and never counts. The driver finds it as the A53 it
# claims to be; the product must then show the fault (counts of 0 where
# the work surely ran), not invent counts. Last, the same stat on QEMU's
# own PMU (pmuscope.ko) counts: the checks here can see a count.
. /tests/lib.sh

[ "$PMUSCOPE_EMU" = dead-pmu ] || { tap_not_ok "t-dead-pmu.sh needs pmuscope_emu=dead-pmu"; exit 1; }
mount -t debugfs none /sys/kernel/debug 2>/dev/null
D=/sys/kernel/debug/pmuscope_emu
C=$PMUSCOPE_SYS/cpu0

check "insmod pmuscope_emu.ko profile=dead-pmu" insmod "$PMUSCOPE_KO"
check_eq "sysfs emulated_profile" "$(cat "$PMUSCOPE_SYS/emulated_profile")" dead-pmu

# Discovery: the ID registers a Cortex-A53's, nothing tells the fault.
for cpu in $(online_cpus); do
	S=$PMUSCOPE_SYS/cpu$cpu
	check_eq "cpu$cpu: pmu" "$(cat "$S/pmu")" present
	check_eq "cpu$cpu: pmu_version_name" "$(cat "$S/pmu_version_name")" PMUv3
	check_eq "cpu$cpu: num_event_counters (PMCR_EL0.N)" "$(cat "$S/num_event_counters")" 6
	check_eq "cpu$cpu: event_counter_width" "$(cat "$S/event_counter_width")" 32
	check_eq "cpu$cpu: midr" "$(cat "$S/midr")" 0x410fd034
	check_eq "cpu$cpu: pmceid0 (the A53's)" "$(cat "$S/pmceid0")" 0x0000000067ffbfff
done
check "pmuscope list names CPU_CYCLES (claimed by PMCEID0)" \
	sh -c "pmuscope list 2>/dev/null | grep -q 'CPU_CYCLES *0x0011 *cycles'"

# out_has ERE: a line of $out matches.
out_has() {
	printf '%s\n' "$out" | grep -Eq "$1"
}

# stat_csv_row EVENT: the total row of EVENT in $out, as
# "count time_enabled_ns time_running_ns" (CSV: type,time_s,cpu,event,
# modifiers,count,time_enabled_ns,time_running_ns,flags).
stat_csv_row() {
	printf '%s\n' "$out" | awk -F, -v ev="$1" \
		'$1 == "total" && $4 == ev { print $6, $7, $8; exit }'
}

# stat_counts WHAT [EVENTS]: pmuscope stat -e EVENTS (cycles,instructions)
# of a busy loop of 2*10^7 instructions pinned to cpu0, CSV; the counts of
# CPU_CYCLES and INST_RETIRED, each with whether its counter was enabled
# and ran (a count of 0 from a counter that ran is the hardware's, not
# "<not counted>").
stat_counts() {
	evs=${2:-cycles,instructions}
	out=$(pmuscope stat --csv -C 0 -e "$evs" -- taskset 1 /bin/loop 10000000 \
		2>/tmp/stat.err)
	rc=$?
	check_eq "$1: stat -C 0 -e $evs --csv -- loop exits 0" "$rc" 0
	[ "$rc" = 0 ] || sed 's/^/pmuscope-tap: # /' /tmp/stat.err
	printf '%s\n' "$out" | sed 's/^/pmuscope-tap: # /'
	read -r cyc cyc_ena cyc_run <<EOF
$(stat_csv_row CPU_CYCLES)
EOF
	read -r ins ins_ena ins_run <<EOF
$(stat_csv_row INST_RETIRED)
EOF
	cyc=${cyc:--} cyc_ena=${cyc_ena:-0} cyc_run=${cyc_run:-0}
	ins=${ins:--} ins_ena=${ins_ena:-0} ins_run=${ins_run:-0}
}

stat_counts "dead-pmu"
check "CPU_CYCLES counter enabled and running (${cyc_ena} / ${cyc_run} ns)" \
	test "$cyc_ena" -gt 0 -a "$cyc_run" -gt 0
check "INST_RETIRED counter enabled and running (${ins_ena} / ${ins_run} ns)" \
	test "$ins_ena" -gt 0 -a "$ins_run" -gt 0
check_eq "stat shows the PMU's fault: CPU_CYCLES of a busy loop" "$cyc" 0
check_eq "stat shows the PMU's fault: INST_RETIRED of a busy loop" "$ins" 0

# The table as a user sees it.
out=$(pmuscope stat -e cycles,instructions -- /bin/true 2>&1)
check_eq "stat -e cycles,instructions -- /bin/true exits 0" "$?" 0
printf '%s\n' "$out" | sed 's/^/pmuscope-tap: # /'
check "the table reads 0 cycles" out_has '^ *0 +(cycles|CPU_CYCLES)( |$)'
check "the table reads 0 instructions" out_has '^ *0 +(instructions|INST_RETIRED)( |$)'

# sysfs: the cycle counter and a 32-bit event counter enabled on cpu0,
# then more than 2^32 cycles and instructions of work run by the model's
# cpu0 besides its clock's: a model PMU that counted would wrap the event
# counter (KUnit pmuscope_dead_pmu shows cortex-a53 doing so); the dead
# one reads 0, folds no wrap, raises no interrupt.
check "select CPU_CYCLES,INST_RETIRED on cpu0" sh -c "echo CPU_CYCLES,INST_RETIRED > $C/select"
check_eq "INST_RETIRED on event counter 0" "$(cat "$C/counter_event/0")" INST_RETIRED:uk
check "enable" sh -c "echo 1 > $C/enable"
taskset 1 /bin/loop 10000000
check "debugfs run: 5*10^9 cycles and instructions on cpu0" \
	sh -c "echo 'cpu=0 ns=5000000000 cycles=5000000000 insts=5000000000 el=1' >$D/run"
taskset 1 /bin/loop 1000000
check_eq "sysfs counter_value/cycle after the work" "$(cat "$C/counter_value/cycle")" 0
check_eq "sysfs counter_value/0 (INST_RETIRED) after the work" "$(cat "$C/counter_value/0")" 0
check "disable" sh -c "echo 0 > $C/enable"
check "empty selection" sh -c "echo > $C/select"
for cpu in $(online_cpus); do
	S=$PMUSCOPE_SYS/cpu$cpu
	check_eq "cpu$cpu: no 32-bit wrap folded" "$(cat "$S/wraps")" 0
	check_eq "cpu$cpu: no overflow interrupt" "$(cat "$S/overflow_interrupts")" 0
done

# The tests' own SW_INCR check (exact counts through PMUSCOPE_IOC_SWINC)
# fails on it: a software increment is lost too.
check_fails "pmuscope-test swinc (SW_INCR exact) fails on the dead PMU" /bin/pmuscope-test swinc

# ---------------------------------------------------------------------------
# dead_pmu_selftest: pmuscope test (the product's self-check) must report
# the fault: exit status 1, CPU_CYCLES named FAILED. Skipped (TAP SKIP)
# while the CLI has no test command.
dead_pmu_selftest() {
	if ! pmuscope test --list >/dev/null 2>&1; then
		tap_ok "pmuscope test names CPU_CYCLES FAILED # SKIP no 'pmuscope test' in this CLI"
		return
	fi
	out=$(pmuscope test -v CPU_CYCLES 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/pmuscope-tap: # /'
	check_eq "pmuscope test -v CPU_CYCLES exits 1 (a check FAILED)" "$rc" 1
	check "pmuscope test names CPU_CYCLES FAILED" out_has '^ *[0-9]+: .*CPU_CYCLES.*: FAILED'
}
dead_pmu_selftest
# ---------------------------------------------------------------------------

check "rmmod pmuscope_emu" rmmod pmuscope

# The same stat on QEMU's PMU, which counts: the checks above see a count.
# (QEMU's cortex-a53 does not implement INST_RETIRED: cycles alone.)
check "insmod pmuscope.ko (QEMU's PMU)" command insmod /lib/modules/pmuscope.ko
stat_counts "QEMU's PMU" cycles
check "stat counts CPU_CYCLES on a PMU that counts ($cyc)" test "$cyc" -gt 10000000
check "rmmod pmuscope" command rmmod pmuscope
