# SPDX-License-Identifier: GPL-2.0
# pmuscope_emu.ko: the driver against the register model, flagged
# "emulated" everywhere, never beside pmuscope.ko; workloads through debugfs.
. /tests/lib.sh

[ -n "$PMUSCOPE_EMU" ] || { tap_not_ok "t-emu.sh needs pmuscope_emu=<profile>"; exit 1; }
mount -t debugfs none /sys/kernel/debug 2>/dev/null
D=/sys/kernel/debug/pmuscope_emu

check_fails "insmod pmuscope_emu.ko rejects an unknown profile" \
	command insmod /lib/modules/pmuscope_emu.ko profile=cortex-z99
check "insmod pmuscope_emu.ko profile=$PMUSCOPE_EMU" insmod "$PMUSCOPE_KO"
check_eq "sysfs emulated" "$(cat $PMUSCOPE_SYS/emulated)" 1
check_eq "sysfs emulated_profile" "$(cat $PMUSCOPE_SYS/emulated_profile)" "$PMUSCOPE_EMU"
check "handshake reports PMUSCOPE_FEAT_EMULATED" /bin/pmuscope-test emulated 1
check "pmuscope version names the emulated profile" \
	sh -c "pmuscope version | grep -q 'EMULATED profile $PMUSCOPE_EMU'"
check "every command's output says EMULATED (list, on stderr)" \
	sh -c "pmuscope list 2>&1 >/dev/null | grep -q 'EMULATED CPU.*$PMUSCOPE_EMU.*not hardware'"
check "pmuscope list --json stays valid JSON on stdout" \
	sh -c "pmuscope list --json 2>/dev/null | head -c 14 | grep -q '{\"cpu_types\"'"
check_fails "pmuscope.ko refused while pmuscope_emu.ko is loaded" \
	command insmod /lib/modules/pmuscope.ko
check "the refusal names the other module" \
	sh -c "dmesg | tail -5 | grep -q 'pmuscope_emu.ko is loaded\|pmuscope.ko is loaded'"

check "debugfs profile" test "$(cat $D/profile)" = "$PMUSCOPE_EMU"
check "debugfs run takes a workload" \
	sh -c "echo 'cpu=0 ns=1000000 cycles=1000000 insts=500000 loads=1000 el=0' >$D/run"
check_fails "debugfs run: unknown key (EINVAL)" sh -c "echo 'cpu=0 bogus=1' >$D/run"
check_fails "debugfs run: no cpu (EINVAL)" sh -c "echo 'insts=1' >$D/run"
check_fails "debugfs run: offline or absent cpu (ENXIO)" sh -c "echo 'cpu=4096 insts=1' >$D/run"
check_fails "debugfs run: idle_ns > ns (EINVAL)" sh -c "echo 'cpu=0 ns=1 idle_ns=2' >$D/run"
check_fails "debugfs run: el > 2 (EINVAL)" sh -c "echo 'cpu=0 el=3' >$D/run"

# One workload drives every unit: the PMU (QEMU's own CPU_CYCLES, which
# counts at 1 GHz) and the emulated AMU's core cycles (busy time at 1 GHz
# from the model's clock) agree over a busy loop pinned to CPU 0; QEMU's
# cycle counter also runs in WFI (a QEMU-only fact: a Cortex-A53's does
# not), the AMU does not: keep the CPU busy.
# amu_core VAR: cpu0's AMU core cycles into VAR, with shell builtins only
# (no fork, no exec: a command substitution would count its own busy time).
amu_core() {
	read -r _l <$D/amu
	_l=${_l#*core_cycles=}
	eval "$1=\${_l%% *}"
}
if [ "$(cat $PMUSCOPE_SYS/cpu0/amu)" = present ]; then
	S=$PMUSCOPE_SYS/cpu0
	echo CPU_CYCLES >$S/select
	amu_core a0
	echo 1 >$S/enable
	taskset 1 /bin/loop 1000000000
	echo 0 >$S/enable
	amu_core a1
	pmu=$(cat $S/counter_value/cycle)
	echo >$S/select
	amu=$((a1 - a0))
	tap_diag "busy loop on cpu0: PMU CPU_CYCLES $pmu, emulated AMU core cycles $amu"
	check "emulated AMU core cycles agree with the PMU's cycles within 3% ($amu vs $pmu)" \
		test "$amu" -gt $((pmu * 97 / 100)) -a "$amu" -lt $((pmu * 103 / 100))
	check "debugfs amu lists every online CPU" \
		test "$(grep -c '^cpu' $D/amu)" = "$(online_cpus | wc -l)"
fi

# The modelled SPE fills a buffer; its PMBIRQ reaches a handler from the
# model's clock, in hard-IRQ context, which finds PMBSR_EL1 = buffer full.
if [ "$(cat $PMUSCOPE_SYS/cpu0/spe)" = present ]; then
	check "SPE self-test on cpu0" sh -c "echo cpu=0 >$D/spe_selftest"
	st=$(cat $D/spe_selftest)
	tap_diag "spe_selftest: $st"
	field() { echo "$st" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
	check "PMBIRQ delivered once (the handler cleared PMBSR_EL1)" test "$(field pmbirq)" = 1
	check_eq "PMBIRQ handler ran in hard-IRQ context (times it did not)" "$(field not_hardirq)" 0
	check_eq "PMBSR_EL1 seen by the handler: S, buffer full" "$(field pmbsr)" 0x20001
	check "records were written before the buffer filled ($(field bytes) bytes)" \
		test "$(field bytes)" -gt 0
fi

# The model's clock keeps running across CPU hotplug.
check "cpu1 offline" set_online 1 0
check "cpu1 online" set_online 1 1
check "rmmod pmuscope_emu" rmmod pmuscope
check "debugfs directory removed" test ! -e "$D"

check "pmuscope.ko loads after pmuscope_emu.ko is gone" command insmod /lib/modules/pmuscope.ko
check_eq "pmuscope.ko: sysfs emulated" "$(cat $PMUSCOPE_SYS/emulated)" 0
check_eq "pmuscope.ko: sysfs emulated_profile" "$(cat $PMUSCOPE_SYS/emulated_profile)" ""
check "pmuscope.ko: handshake without PMUSCOPE_FEAT_EMULATED" /bin/pmuscope-test emulated 0
check_fails "pmuscope_emu.ko refused while pmuscope.ko is loaded" \
	command insmod /lib/modules/pmuscope_emu.ko profile="$PMUSCOPE_EMU"
check "rmmod pmuscope" command rmmod pmuscope
