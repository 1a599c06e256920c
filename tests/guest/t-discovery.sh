# SPDX-License-Identifier: GPL-2.0
# Discovery on QEMU's emulated PMUv3: what sysfs shows per CPU, unload and
# reload, CPU hotplug while loaded, loading with a CPU offline, and the
# module parameters that switch units off.
. /tests/lib.sh

# What each unit should be; an emulated boot (pmuscope_emu.ko) shows the
# model's profile: its ID registers, over QEMU's own PMU (PMCR_EL0.N, PMCEID).
want_ss=absent want_spe=absent want_amu=absent
# On a board (no QEMU profile on the command line) the CPU says what it is:
# a Cortex-A53 (part 0xd03, the AM62L) has the same PMU as QEMU's model.
board_profile() {
	case "$(awk '/^CPU part/ { print $4; exit }' /proc/cpuinfo)" in
	0xd03) echo cortex-a53 ;;
	*) echo unknown ;;
	esac
}
case "${PMUSCOPE_EMU:-${pmuscope_profile:-$(board_profile)}}" in
cortex-a53)	want_ver=1; want_name=PMUv3;   want_width=32; want_cpu=cortex-a53 ;;
max)		want_ver=6; want_name=PMUv3p5; want_width=64; want_cpu=qemu-max ;;
neoverse-n1)	want_ver=4; want_name=PMUv3p1; want_width=32; want_cpu=neoverse-n1
		want_spe=present want_amu=present ;;
v9.4-like)	want_ver=9; want_name=PMUv3p9; want_width=64; want_cpu=neoverse-v3
		# snapshot=0 by default: the hardware path is off (software
		# snapshots), "present" only with snapshot=1 (below).
		want_ss=disabled want_spe=present want_amu=present ;;
*)		tap_not_ok "unknown profile '${PMUSCOPE_EMU:-$pmuscope_profile}'"; exit 0 ;;
esac

expect_cpu() {
	d=$PMUSCOPE_SYS/cpu$1
	check_eq "cpu$1 probed" "$(cat "$d/probed")" 1
	check_eq "cpu$1 cpu_name" "$(cat "$d/cpu_name")" "$want_cpu"
	check_eq "cpu$1 pmu" "$(cat "$d/pmu")" present
	check_eq "cpu$1 pmu_version" "$(cat "$d/pmu_version")" "$want_ver"
	check_eq "cpu$1 pmu_version_name" "$(cat "$d/pmu_version_name")" "$want_name"
	check_eq "cpu$1 num_event_counters" "$(cat "$d/num_event_counters")" 6
	check_eq "cpu$1 event_counter_width" "$(cat "$d/event_counter_width")" "$want_width"
	check_eq "cpu$1 cycle_counter_width" "$(cat "$d/cycle_counter_width")" 64
	check_eq "cpu$1 snapshot" "$(cat "$d/snapshot")" "$want_ss"
	check_eq "cpu$1 spe" "$(cat "$d/spe")" "$want_spe"
	check_eq "cpu$1 amu" "$(cat "$d/amu")" "$want_amu"
	check_eq "cpu$1 events/CPU_CYCLES" "$(cat "$d/events/CPU_CYCLES")" 0x0011
	check_eq "cpu$1 events/SW_INCR" "$(cat "$d/events/SW_INCR")" 0x0000
	check "cpu$1 events/ lists exactly the events PMCEID0/1 report" \
		/bin/sysfs-events-check "$d"
}

# Part number from /proc/cpuinfo agrees with MIDR_EL1 as probed.
part_of_cpuinfo() {
	awk -v cpu="$1" '/^processor/ { p = $3 } /^CPU part/ && p == cpu { print $4 }' /proc/cpuinfo
}

check "insmod pmuscope.ko" insmod "$PMUSCOPE_KO"
check "/sys/kernel/pmuscope exists" test -d "$PMUSCOPE_SYS"
check "version is readable" test -n "$(cat $PMUSCOPE_SYS/version)"
for cpu in $(online_cpus); do
	expect_cpu "$cpu"
	midr=$(cat "$PMUSCOPE_SYS/cpu$cpu/midr")
	# Emulated: MIDR_EL1 is the model's, /proc/cpuinfo QEMU's.
	[ -n "$PMUSCOPE_EMU" ] && [ "$PMUSCOPE_EMU" != "$pmuscope_profile" ] && continue
	check_eq "cpu$cpu MIDR part number matches /proc/cpuinfo" \
		"$(printf '0x%03x' $(( (midr >> 4) & 0xfff )))" "$(part_of_cpuinfo "$cpu")"
done
check "rmmod pmuscope" rmmod pmuscope
check "sysfs removed on unload" test ! -e "$PMUSCOPE_SYS"

check "insmod again" insmod "$PMUSCOPE_KO"
expect_cpu 0
check "cpu1 offline while loaded" set_online 1 0
check_eq "cpu1 still described while offline: pmu" "$(cat $PMUSCOPE_SYS/cpu1/pmu)" present
check "cpu1 online again" set_online 1 1
expect_cpu 1
check "rmmod after hotplug" rmmod pmuscope

check "cpu1 offline before load" set_online 1 0
check "insmod with cpu1 offline" insmod "$PMUSCOPE_KO"
check_eq "cpu1 not probed while offline" "$(cat $PMUSCOPE_SYS/cpu1/probed)" 0
check_fails "cpu1 values unreadable until probed (ENODATA)" cat "$PMUSCOPE_SYS/cpu1/pmu"
check_eq "cpu1 select refused until probed (ENODATA)" \
	"$(sh -c "echo LD_DEP_STALL > $PMUSCOPE_SYS/cpu1/select" 2>&1 | grep -c 'No data available')" 1
check "cpu1 online" set_online 1 1
expect_cpu 1
check "rmmod" rmmod pmuscope

check "insmod pmu=0" insmod "$PMUSCOPE_KO" pmu=0
check_eq "pmu=0: cpu0 pmu" "$(cat $PMUSCOPE_SYS/cpu0/pmu)" disabled
check_eq "pmu=0: cpu0 num_event_counters" "$(cat $PMUSCOPE_SYS/cpu0/num_event_counters)" 0
check_eq "pmu=0: cpu0 events/ empty" "$(ls $PMUSCOPE_SYS/cpu0/events | wc -l)" 0
check "rmmod" rmmod pmuscope

if [ "$want_ss" != absent ]; then
	check "insmod snapshot=1" insmod "$PMUSCOPE_KO" snapshot=1
	check_eq "snapshot=1: cpu0 snapshot" "$(cat $PMUSCOPE_SYS/cpu0/snapshot)" present
	check_eq "snapshot=1: cpu0 snapshot_hw" "$(cat $PMUSCOPE_SYS/cpu0/snapshot_hw)" untried
	check "rmmod" rmmod pmuscope
fi
check "insmod snapshot=0 spe=0 amu=0" insmod "$PMUSCOPE_KO" snapshot=0 spe=0 amu=0
off() { [ "$1" = absent ] && echo absent || echo disabled; }
check_eq "spe=0: cpu0 spe" "$(cat $PMUSCOPE_SYS/cpu0/spe)" "$(off $want_spe)"
check_eq "amu=0: cpu0 amu" "$(cat $PMUSCOPE_SYS/cpu0/amu)" "$(off $want_amu)"
check_eq "snapshot=0: cpu0 snapshot" "$(cat $PMUSCOPE_SYS/cpu0/snapshot)" "$(off $want_ss)"
check_eq "pmu unaffected" "$(cat $PMUSCOPE_SYS/cpu0/pmu)" present
check "rmmod" rmmod pmuscope
check_fails "insmod rejects a bad parameter value" insmod "$PMUSCOPE_KO" spe=maybe
check "no pmuscope left loaded" sh -c "! grep -q '^pmuscope' /proc/modules"
