# SPDX-License-Identifier: GPL-2.0
# The Activity Monitors. On QEMU's own CPUs (no AMU: cortex-a53, max) the
# driver says so in sysfs and pmuscope amu exits 3. With pmuscope_emu.ko
# (pmuscope_emu=<profile> with an AMU) the model's AMU is read through
# sysfs, the ioctl and the CLI: a modelled workload of known frequency,
# busy share, IPC and memory stalls comes back within 0.5%, and an
# unprivileged reader is refused.
. /tests/lib.sh

S=$PMUSCOPE_SYS/cpu0
check "insmod" insmod "$PMUSCOPE_KO"
if [ "$(cat $S/amu)" != present ]; then
	check_eq "cpu0/amu: no AMU on this CPU" "$(cat $S/amu)" absent
	check_eq "no AMU counter files for cpu0" "$(ls $S/amu_value $S/amu_type $S/amu_enabled 2>/dev/null | grep -c g)" 0
	out=$(pmuscope amu -C 0 -I 10 2>&1); rc=$?
	check_eq "pmuscope amu without an AMU exits 3" "$rc" 3
	case "$out" in
	*"cpu0: no AMU"*) tap_ok "... and says cpu0 has no AMU" ;;
	*) tap_not_ok "... and says cpu0 has no AMU: '$out'" ;;
	esac
	# Unprivileged: refused before any record, but the reason is the
	# CPU's, and there is no AMU for amu=1 to turn on.
	out=$(runas 65534 pmuscope amu -C 0 -I 10 2>&1); rc=$?
	check_eq "pmuscope amu as nobody without an AMU exits 3" "$rc" 3
	case "$out" in
	*amu=1*) tap_not_ok "... and suggests no amu=1: '$out'" ;;
	*"cpu0: no Activity Monitors"*"the CPU asked for has no Activity Monitors"*)
		tap_ok "... says cpu0 has no Activity Monitors, suggests no amu=1" ;;
	*) tap_not_ok "... says cpu0 has no Activity Monitors: '$out'" ;;
	esac
	check "rmmod" rmmod pmuscope
	exit 0
fi

# ---------------------------------------------------------------- sysfs
check_eq "amu_type/g0_1: CNT_CYCLES" "$(cat $S/amu_type/g0_1)" 0x4004
check_eq "amu_enabled/g0_0: firmware enabled it" "$(cat $S/amu_enabled/g0_0)" 1
a=$(cat $S/amu_value/g0_0)
taskset 1 /bin/loop 3000000
b=$(cat $S/amu_value/g0_0)
check "amu_value/g0_0 counts core cycles across a busy loop ($a, then $b)" test "$b" -gt "$a"
check_eq "amu_value/ is root's only (mode 0400)" "$(stat -c %a $S/amu_value/g0_0)" 400
check_fails "nobody cannot read amu_value/g0_0" runas 65534 cat $S/amu_value/g0_0

# ------------------------------------------------------------------ CLI
out=$(runas 65534 pmuscope amu -C 0 -I 10 2>&1); rc=$?
check_eq "pmuscope amu as nobody: refused, exit 5 (EPERM)" "$rc" 5
tap_diag "$out"

# A modelled workload on CPU 1, between the two reads of a 2 s interval,
# with CPU 1's model clock stopped (its own busy time counts no more): 2 s
# of which 0.8 s idle, 2.4e9 core cycles, 3.6e9 instructions, 6e8 cycles
# stalled on memory. Expected: 2000 MHz (the cycles over the 1.2 s busy),
# busy 1.2 s of the interval pmuscope reports (60% of 2 s), IPC 1.5,
# memory stalls 25%: within 0.5%.
# Between the reads, by the model's count of them (amu_reads: one per
# record of CPU 1): the workload goes in once the CLI's first read is
# done, and counts only if the second had not come yet when it was in
# (a host that stalls this shell for 2 s: again, at most 3 times). A
# sleep before the workload once stood in for the first read, and on a
# loaded host the read came later: every figure was empty.
D=/sys/kernel/debug/pmuscope_emu
if [ "$(cat /sys/devices/system/cpu/online)" = 0-1 ]; then
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	amu_reads() { sed -n 's/^cpu1 //p' $D/amu_reads; }
	echo "1 0" >$D/clock
	try=0
	while [ $try -lt 3 ]; do
		try=$((try + 1))
		r0=$(amu_reads)
		taskset 1 pmuscope amu -C 1 -I 2000 >/tmp/amu.out 2>&1 &
		pid=$!
		while [ "$(amu_reads)" = "$r0" ] && kill -0 $pid 2>/dev/null; do
			sleep 0.01
		done
		r1=$(amu_reads)
		echo "cpu=1 ns=2000000000 idle_ns=800000000 cycles=2400000000 insts=3600000000 mem_stall_cycles=600000000" \
			>$D/run
		r2=$(amu_reads)
		wait $pid; rc=$?
		[ "$r1" = $((r0 + 1)) ] && [ "$r2" = "$r1" ] && break
		tap_diag "try $try: CPU 1's AMU read $r0 times before, $r1 then $r2 times around the workload: not between the CLI's two reads"
	done
	echo "1 1" >$D/clock
	check "the workload went in between the CLI's first and second reads of CPU 1 ($r0, $r1, $r2; try $try)" \
		test "$r1" = $((r0 + 1)) -a "$r2" = "$r1"
	while read -r l; do tap_diag "$l"; done </tmp/amu.out
	check_eq "pmuscope amu -C 1 -I 2000 exits 0" "$rc" 0
	row=$(awk '$1 == "1" { print $2, $3, $4, $5 }' /tmp/amu.out)
	set -- $row
	# within: GOT WANT -> ok if |GOT - WANT| <= WANT / 200 (0.5%)
	within() { awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w / 200) }'; }
	check "frequency 2000 MHz within 0.5% (${1:-none})" within "${1:-0}" 2000
	# 1.2 s busy over the interval pmuscope reports (the system-counter
	# span of CPU 1's two reads, which BUSY% divides by: 2 s and the reads'
	# time, more on a loaded host), in percent.
	ivl=$(awk '/^AMU interval 1:/ { print $4 }' /tmp/amu.out)
	busy=$(awk -v i="${ivl:-2}" 'BEGIN { printf "%.3f", 120 / i }')
	check "busy ${busy}% (1.2 s of ${ivl:-?} s) within 0.5% (${2:-none})" within "${2:-0}" "$busy"
	check "IPC 1.5 within 0.5% (${3:-none})" within "${3:-0}" 1.5
	check "memory stalls 25% within 0.5% (${4:-none})" within "${4:-0}" 25
fi
# With -icount shift=0, QEMU retires one instruction per ns of virtual
# time, and the model's clock gives the AMU one INST_RETIRED per busy ns
# (pmuscope_emu.ko icount_shift=0): over a busy loop on CPU 0, the PMU's
# INST_RETIRED (QEMU's own count, all ELs) and the AMU's agree. Not
# exactly: CPU 1's instructions advance the virtual clock too (3%, as
# t-emu.sh allows for cycles).
if [ -n "${pmuscope_icount:-}" ]; then
	echo INST_RETIRED >$S/select
	read -r i0 <$S/amu_value/g0_2
	echo 1 >$S/enable
	taskset 1 /bin/loop 200000000
	echo 0 >$S/enable
	read -r i1 <$S/amu_value/g0_2
	pmu=$(cat $S/counter_value/0)
	echo >$S/select
	amu=$((i1 - i0))
	tap_diag "busy loop on cpu0: PMU INST_RETIRED $pmu, emulated AMU INST_RETIRED $amu"
	check "PMU and AMU instructions agree within 3% ($pmu vs $amu)" \
		test "$amu" -gt $((pmu * 97 / 100)) -a "$amu" -lt $((pmu * 103 / 100))
fi
out=$(pmuscope amu -C 0 -I 10 --json 2>/dev/null); rc=$?
check_eq "pmuscope amu --json exits 0" "$rc" 0
case "$out" in
*'"event":"CPU_CYCLES"'*) tap_ok "... with CPU 0's group-0 counts" ;;
*) tap_not_ok "... with CPU 0's group-0 counts: '$out'" ;;
esac
check "rmmod" rmmod pmuscope

# amu=0 turns the AMU off: there, and only there, amu=1 is the answer.
check "insmod amu=0" insmod "$PMUSCOPE_KO" amu=0
check_eq "cpu0/amu with amu=0: disabled" "$(cat $S/amu)" disabled
for who in root nobody; do
	if [ $who = root ]; then
		out=$(pmuscope amu -C 0 -I 10 2>&1); rc=$?
	else
		out=$(runas 65534 pmuscope amu -C 0 -I 10 2>&1); rc=$?
	fi
	check_eq "pmuscope amu as $who, amu=0: exit 3" "$rc" 3
	case "$out" in
	*"cpu0: AMU not used (amu=0"*"amu=1 forces it"*)
		tap_ok "... says cpu0's AMU is not used, amu=1 forces it" ;;
	*) tap_not_ok "... says cpu0's AMU is not used, amu=1 forces it: '$out'" ;;
	esac
done
check "rmmod" rmmod pmuscope
