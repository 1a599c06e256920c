# SPDX-License-Identifier: GPL-2.0
# Snapshots: PMUSCOPE_IOC_SNAPSHOT on QEMU's PMU (the software path: no
# QEMU CPU has FEAT_PMUv3_SS), sysfs snapshot_hw/snapshot_take/
# snapshot_last, `pmuscope snapshot`. On pmuscope_emu.ko's v9.4-like
# profile (FEAT_PMUv3_SS in the register model), the hardware path end to
# end, its refusals (NC = 1, a stale NC = 0) and the software fallback.
. /tests/lib.sh

S=$PMUSCOPE_SYS/cpu0
hw=0
[ "$PMUSCOPE_EMU" = v9.4-like ] && hw=1

check_fails "insmod refuses snapshot=3" insmod "$PMUSCOPE_KO" snapshot=3
if [ $hw = 1 ]; then
	check "insmod with snapshot=1 (the model's firmware opens EnPMSS)" \
		insmod "$PMUSCOPE_KO" snapshot=1
else
	check "insmod" insmod "$PMUSCOPE_KO"
fi

if [ $hw = 0 ]; then
	check_eq "sysfs snapshot_hw on a CPU without FEAT_PMUv3_SS" "$(cat $S/snapshot_hw)" absent
	run_test /bin/pmuscope-snap features 0
	run_test /bin/pmuscope-snap expect 0 software none
	run_test /bin/pmuscope-snap expect 0 eopnotsupp - hw
else
	check_eq "sysfs snapshot_hw before any capture" "$(cat $S/snapshot_hw)" untried
	run_test /bin/pmuscope-snap features 1
	run_test /bin/pmuscope-snap expect 0 hardware none
	check_eq "sysfs snapshot_hw after a fresh capture" "$(cat $S/snapshot_hw)" ready
	run_test /bin/pmuscope-snap expect 1 hardware none hw
	run_test /bin/pmuscope-snap expect 0 software none sw
fi
run_test /bin/pmuscope-snap errors
run_test /bin/pmuscope-snap idle
run_test /bin/pmuscope-snap consistency 200
run_test /bin/pmuscope-snap gap 100
run_test /bin/pmuscope-snap allcpu 200 100
run_test /bin/pmuscope-snap allcpu 50 1000

# sysfs: take and show a snapshot of the CPU's selected counters.
check_fails "snapshot_take with nothing selected: EINVAL" sh -c "echo 1 >$S/snapshot_take"
check "select CPU_CYCLES,CPU_CYCLES on cpu0" sh -c "echo CPU_CYCLES,CPU_CYCLES >$S/select"
check "enable" sh -c "echo 1 >$S/enable"
check_fails "snapshot_take 0: EINVAL" sh -c "echo 0 >$S/snapshot_take"
check_fails "snapshot_take 2: EINVAL" sh -c "echo 2 >$S/snapshot_take"
check "snapshot_take 1" sh -c "echo 1 >$S/snapshot_take"
want=software
[ $hw = 1 ] && want=hardware
check_eq "snapshot_last: method" "$(sed -n 's/^method //p' $S/snapshot_last)" $want
check_eq "snapshot_last: flags" "$(sed -n 's/^flags //p' $S/snapshot_last)" none
check_eq "snapshot_last: one line per event" "$(grep -c '^CPU_CYCLES:uk [0-9][0-9]*$' $S/snapshot_last)" 2
t1=$(sed -n 's/^time //p' $S/snapshot_last)
sleep 0.1
echo 1 >$S/snapshot_take
t2=$(sed -n 's/^time //p' $S/snapshot_last)
check "snapshot_last is replaced by the next snapshot_take ($t1 < $t2)" test "$t1" -lt "$t2"
check_eq "snapshot_last is root's only, as counter_value/ (mode)" \
	"$(stat -c %a $S/snapshot_last)" 400
check_eq "snapshot_take is write-only (mode)" "$(stat -c %a $S/snapshot_take)" 200
echo >$S/select

# The CLI.
check "pmuscope snapshot -C 0,1 --json: one record per CPU" \
	sh -c "pmuscope snapshot -C 0,1 -e CPU_CYCLES --json >/tmp/snap.json &&
	       test \$(grep -o '\"method\": *\"$want\"' /tmp/snap.json | wc -l) = 2"
check "pmuscope snapshot (text) names the method" \
	sh -c "pmuscope snapshot -C 0 -e CPU_CYCLES | grep -q \"methods: $want\""

if [ $hw = 1 ]; then
	D=/sys/kernel/debug/pmuscope_emu
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	# Firmware prohibits capture on cpu1 (MDCR_EL3.PMSSE = 0b10): NC = 1.
	check "model firmware: cpu1 prohibits capture" sh -c "echo '1 2 1' >$D/ss_firmware"
	run_test /bin/pmuscope-snap expect 1 software fallback
	check_eq "cpu1 snapshot_hw after NC = 1" "$(cat $PMUSCOPE_SYS/cpu1/snapshot_hw)" prohibited
	run_test /bin/pmuscope-snap expect 1 eopnotsupp - hw
	# cpu1 comes back online: the hardware path is tried again.
	set_online 1 0
	set_online 1 1
	check_eq "cpu1 snapshot_hw after it came online" "$(cat $PMUSCOPE_SYS/cpu1/snapshot_hw)" untried
	echo '1 1 1' >$D/ss_firmware
	run_test /bin/pmuscope-snap expect 1 hardware none
	# Capture disabled behind a completed one (MDCR_EL3.PMSSE = 0b00): the
	# request is ignored, NC still reads the old 0: only freshness tells.
	check "model firmware: cpu1 disables capture" sh -c "echo '1 0 1' >$D/ss_firmware"
	run_test /bin/pmuscope-snap expect 1 software fallback
	check_eq "cpu1 snapshot_hw after a stale NC = 0" "$(cat $PMUSCOPE_SYS/cpu1/snapshot_hw)" stale
	echo '1 1 1' >$D/ss_firmware
fi
check "rmmod" rmmod pmuscope
