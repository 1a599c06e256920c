# SPDX-License-Identifier: GPL-2.0
# The Statistical Profiling Extension. On QEMU's own CPUs (no SPE:
# cortex-a53, max) every SPE request fails with EOPNOTSUPP and the kernel
# log says why. With pmuscope_emu.ko and a profile with SPE (neoverse-n1,
# v9.4-like), a modelled workload of known operations is profiled through
# the ioctls: exactly the expected number of records arrives, whole, with
# nothing lost, the hot code region first, and the accounting agrees.
. /tests/lib.sh

S=$PMUSCOPE_SYS/cpu0
check "insmod" insmod "$PMUSCOPE_KO"
if [ "$(cat $S/spe)" != present ]; then
	check_eq "cpu0/spe_min_interval: 0 without SPE" "$(cat $S/spe_min_interval)" 0
	out=$(pmuscope-spe 0 0 1 2>&1)
	check_eq "SPE_START without SPE: EOPNOTSUPP" "$out" "errno=EOPNOTSUPP"
	check "... and the kernel log says which CPU has none" \
		sh -c "dmesg | grep -q 'SPE: cpu0 has no usable Statistical Profiling Extension'"
	check "rmmod" rmmod pmuscope
	exit 0
fi

check_eq "spe_irq: the model's PMBIRQ" "$(cat $PMUSCOPE_SYS/spe_irq)" emulated
min=$(cat $S/spe_min_interval)
check "cpu0/spe_min_interval is a multiple of 256 ($min)" test $((min % 256)) = 0 -a "$min" -ge 256
check "cpu0/spe_max_record is 2^MaxSize ($(cat $S/spe_max_record))" test "$(cat $S/spe_max_record)" -ge 16
out=$(runas 65534 pmuscope-spe 0 0 1 2>&1)
check_eq "nobody may not profile a CPU: EPERM" "$out" "errno=EPERM"
# The buffers (4096 KiB of ring, 64 KiB on the CPU) are charged as perf
# charges its AUX pages: the user's kernel.perf_event_mlock_kb per CPU,
# then the starter's RLIMIT_MEMLOCK (CAP_IPC_LOCK exempts): a member of
# group= profiles within its limit and gets EPERM above it.
check "rmmod" rmmod pmuscope
check "insmod group=4242" insmod "$PMUSCOPE_KO" group=4242
out=$(runas 65534:4242 sh -c 'ulimit -l 1024; exec pmuscope-spe 0 0 0 1' 2>&1)
check_eq "a member with ulimit -l 1024: EPERM" "$out" "errno=EPERM"
check "... and the kernel log names the limits" \
	sh -c "dmesg | grep -q 'refused SPE buffers of .* KiB: exceeds the caller.s locked-memory limit (kernel.perf_event_mlock_kb'"
# The CLI's message: the buffers' KiB and the two limits (1152 KiB:
# above the user's 516 KiB x CPUs with nothing to pin).
out=$(runas 65534:4242 sh -c 'ulimit -l 0; exec pmuscope spe record -C 0 -d 1 --el0 -o /tmp/spe-mlock.data' 2>&1)
case "$out" in
*"SPE refused: the buffers (1152 KiB) exceed your locked-memory limit (kernel.perf_event_mlock_kb"*)
	tap_ok "pmuscope spe record, a member with ulimit -l 0: the message names the limits" ;;
*)	tap_not_ok "pmuscope spe record, a member with ulimit -l 0: got '$out'" ;;
esac
rm -f /tmp/spe-mlock.data
check "a member within its limit (8 MiB) profiles at EL0" runas 65534:4242 pmuscope-spe 0 0 0 1
# The SPE rows of pmuscope.rst's "Who may do what" for a member of group=,
# level by level: whole CPUs at EL0 always (the grant); at EL1 only where
# perf_allow_cpu() lets anyone (0 or lower), never the two grants
# combined (a member passed at level 1 once).
P=/proc/sys/kernel/perf_event_paranoid
before=$(cat $P)
for lv in -1 0 1 2 3; do
	echo "$lv" >$P
	runas 65534:4242 pmuscope-spe 0 0 0 1 >/dev/null 2>&1
	check_eq "paranoid $lv, a member, SPE of CPU 0 at EL0: allowed" "$?" 0
	out=$(runas 65534:4242 pmuscope-spe 0 0 0 3 2>&1)
	rc=$?
	if [ "$lv" -le 0 ]; then
		check_eq "paranoid $lv, a member, SPE of CPU 0 at EL0 and EL1: allowed" "$rc" 0
	else
		check_eq "paranoid $lv, a member, SPE of CPU 0 at EL0 and EL1: EACCES" "$out" \
			"errno=EACCES"
	fi
done
echo "$before" >$P
check "rmmod" rmmod pmuscope
check "insmod" insmod "$PMUSCOPE_KO"
out=$(pmuscope-spe 0 $((min - 256)) 1 2>&1)
check_eq "an interval below the CPU's minimum: EINVAL" "$out" "errno=EINVAL"

if [ "$(cat /sys/devices/system/cpu/online)" = 0-1 ]; then
	D=/sys/kernel/debug/pmuscope_emu
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	spe_model() { sed -n "s/^cpu1 .*[ ]$1=\([0-9]*\).*/\1/p" $D/spe; }
	# Ordering by state, not by sleeps (a loaded host stalls this shell):
	# wait_line FILE TEXT PID: until FILE has TEXT or PID is gone;
	# wait_spe FIELD VALUE: until the model's CPU 1 shows FIELD=VALUE
	# (profiling: the SPU samples; irq: a full buffer's PMBIRQ pending),
	# at most 30 s, counted in $spe_stuck.
	wait_line() {
		while ! grep -q "$2" "$1" 2>/dev/null && kill -0 "$3" 2>/dev/null; do
			sleep 0.01
		done
		grep -q "$2" "$1"
	}
	spe_stuck=0
	wait_spe() {
		_n=0
		while [ "$(spe_model "$1")" != "$2" ]; do
			_n=$((_n + 1))
			[ $_n -lt 3000 ] || { spe_stuck=$((spe_stuck + 1)); return 1; }
			sleep 0.01
		done
	}
	# EL0 only (flags 1): the model's own clock runs its time at EL1.
	# 40 pieces of 409600 operations at EL0, interval 4096: 100 samples
	# each, 30 pieces in the region at 0x1000000, 10 at 0x3000000; a pause
	# after each lets the model's clock deliver a PMBIRQ between pieces.
	# While a full buffer waits for its PMBIRQ the SPU samples nothing
	# (profiling is stopped, the interval counter too): the records are
	# then exactly the model's, fewer than 4000 by what it did not sample.
	# Each piece goes in once the PMBIRQ of the last fill was handled
	# (irq=0): a fixed pause stood in for that, and a host that delayed
	# the interrupt past the next piece lost that piece's samples too.
	# Until SIGINT after the last piece (at most 60 s): a slow host must
	# not end the session while pieces are still coming.
	pmuscope-spe 1 4096 60 1 >/tmp/spe.out 2>&1 &
	pid=$!
	check "pmuscope-spe: SPE_START done (started)" wait_line /tmp/spe.out started $pid
	i=0
	while [ $i -lt 40 ]; do
		pc=0x1000000
		[ $((i % 4)) = 3 ] && pc=0x3000000
		echo "cpu=1 ns=409600 cycles=409600 insts=409600 loads=204800 stores=102400 branches=51200 pc=$pc data_addr=0x10000000 load_latency=20 el=0" >$D/run
		wait_spe irq 0
		i=$((i + 1))
	done
	kill -INT $pid
	wait $pid; rc=$?
	while read -r l; do tap_diag "$l"; done </tmp/spe.out
	check_eq "the SPE session of CPU 1 ends cleanly" "$rc" 0
	get() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p;s/^$1=\([^ ]*\).*/\1/p" /tmp/spe.out | head -1; }
	model=$(grep '^cpu1 ' $D/spe)
	tap_diag "model: $model"
	m_samples=$(echo "$model" | sed 's/.*samples=\([0-9]*\).*/\1/')
	m_records=$(echo "$model" | sed 's/.*records=\([0-9]*\).*/\1/')
	m_lost=$(echo "$model" | sed 's/.*lost=\([0-9]*\).*/\1/')
	check_eq "exactly the model's records arrive ($m_records)" "$(get records)" "$m_records"
	# At a buffer-full event the SPU drops the records it still held
	# (Arm ARM D17.4): the model counts them as lost, the driver cannot see them.
	check_eq "every sample the model took was written or lost by the SPU ($m_lost)" \
		"$((m_records + m_lost))" "$m_samples"
	check "the SPU lost at most one held record per fill ($m_lost, $(get fills) fills)" \
		test "$m_lost" -le $(($(get fills) * 4))
	# A fill stops profiling until its PMBIRQ, a tick later, after the
	# piece it came in: at most that piece's 100 samples go unsampled.
	fills=$(get fills)
	check "at most 4000 samples (40 x 409600 / 4096), at least 4000 - 100 per fill ($m_samples, $fills fills)" \
		test "$m_samples" -le 4000 -a "$m_samples" -ge $((4000 - 100 * fills))
	check_eq "every chunk's data is whole records" "$(get bad)" 0
	check_eq "nothing lost in chunks" "$(get lost)" 0
	check_eq "the hot code region first: 0x1000000 (3 of 4 pieces)" "$(get hot_region)" 0x1000000
	check "... with about 3/4 of the samples ($(get hot_n) of $(get records))" \
		test $(($(get hot_n) * 100 / $(get records))) -ge 70
	check "buffer fills handed over by the PMBIRQ ($(get fills))" test "$(get fills)" -ge 1
	b1=$(sed -n 's/^chunks=.* bytes=\([0-9]*\) .*/\1/p' /tmp/spe.out)
	b2=$(sed -n 's/^status .* bytes=\([0-9]*\) .*/\1/p' /tmp/spe.out)
	check_eq "the bytes read are the bytes SPE_STATUS accounts" "$b1" "$b2"
	check_eq "SPE_STATUS: no ring or DL loss" "$(get lost_ring)/$(get lost_dl)" 0/0
	check_eq "SPE_STATUS: state STOPPED after SPE_STOP" "$(get state)" 3

	# CPU 1 offline mid-profiling: drained as it goes (a FINAL chunk),
	# profiling again when it is back; what the SPU wrote arrives whole,
	# and the offline time is counted as stopped.
	r0=$(spe_model records)
	pmuscope-spe 1 4096 60 1 >/tmp/spe-hp.out 2>&1 &
	pid=$!
	check "pmuscope-spe: SPE_START done (started)" wait_line /tmp/spe-hp.out started $pid
	piece() {
		echo "cpu=1 ns=409600 cycles=409600 insts=409600 loads=204800 stores=102400 branches=51200 pc=0x1000000 data_addr=0x10000000 load_latency=20 el=0" >$D/run
		wait_spe irq 0
	}
	for i in 1 2 3 4 5; do piece; done
	echo 0 >/sys/devices/system/cpu/cpu1/online
	sleep 0.3	# a duration: the offline time counted as stopped
	echo 1 >/sys/devices/system/cpu/cpu1/online
	check "CPU 1 profiles again once back online" wait_spe profiling 1
	for i in 1 2 3 4 5; do piece; done
	kill -INT $pid
	wait $pid; rc=$?
	while read -r l; do tap_diag "$l"; done </tmp/spe-hp.out
	r1=$(spe_model records)
	hget() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p;s/^$1=\([^ ]*\).*/\1/p" /tmp/spe-hp.out | head -1; }
	check_eq "a session across CPU 1 offline and online ends cleanly" "$rc" 0
	check_eq "exactly the model's records arrive across the hotplug ($((r1 - r0)))" \
		"$(hget records)" "$((r1 - r0))"
	check "... from both sides of it (more than 5 pieces' worth: $(hget records))" \
		test "$(hget records)" -gt 600
	check_eq "... whole, nothing lost" "$(hget bad)/$(hget lost)/$(hget lost_ring)" 0/0/0
	check_eq "every PMBIRQ was handled within 30 s of its piece" "$spe_stuck" 0
	check "the offline time counts as stopped ($(hget stopped_ns) ns)" \
		test "$(hget stopped_ns)" -ge 300000000

	# The same through the CLI: pmuscope spe record (the driver's source),
	# report and dump. 200 pieces of 4097 operations: the sampling period
	# (the pseudocode's SPEStep reloads the interval counter when it is 0
	# and selects the operation that brings it to 0: interval + 1), so one
	# sample each, at the same offset of its piece, at one PC of the
	# piece's code: 160 pieces at 0x1000000, 40 at 0x3000000. The report
	# must put that PC of 0x1000000 first, with its 160 samples.
	pmuscope spe record -C 1 --el0 --interval 4096 -o /tmp/spe.data -d 60 >/tmp/spe-rec.out 2>&1 &
	pid=$!
	# "SPE source" is printed before the source is enabled: wait for the
	# SPU itself to profile, or the first pieces went by unsampled.
	check "pmuscope spe record: SPE source chosen" wait_line /tmp/spe-rec.out 'SPE source' $pid
	check "pmuscope spe record: CPU 1 profiles" wait_spe profiling 1
	i=0
	while [ $i -lt 200 ]; do
		pc=0x1000000
		[ $((i % 5)) = 4 ] && pc=0x3000000
		echo "cpu=1 ns=4097 cycles=4097 insts=4097 loads=2048 stores=1024 branches=512 pc=$pc data_addr=0x10000000 load_latency=20 el=0" >$D/run
		i=$((i + 1))
	done
	kill -INT $pid
	wait $pid; rc=$?
	while read -r l; do tap_diag "$l"; done </tmp/spe-rec.out
	check_eq "pmuscope spe record -C 1, ended by SIGINT, exits 0" "$rc" 0
	case "$(cat /tmp/spe-rec.out)" in
	*kernel*) tap_ok "... through the driver's SPE session (source kernel)" ;;
	*) tap_not_ok "... through the driver's SPE session (source kernel)" ;;
	esac
	pmuscope spe report -i /tmp/spe.data --top 5 >/tmp/spe-rep.out 2>&1; rc=$?
	while IFS= read -r l; do tap_diag "$l"; done </tmp/spe-rep.out
	check_eq "pmuscope spe report exits 0" "$rc" 0
	# The operation selected is the 4097th of each piece: PC base + 4 * 4096.
	row=$(awk '/^Hottest PCs/ { getline; getline; print; exit }' /tmp/spe-rep.out)
	set -- $row
	check_eq "the report's hottest PC is the hot code's sampled one, 0x1004000" \
		"$(printf '0x%x' "${4:-0}")" 0x1004000
	check_eq "... with its 160 samples (80%)" "${1:-}/${2:-}" 160/80.00%
	n=$(pmuscope spe dump -i /tmp/spe.data 2>/dev/null | grep -c 'PC 0x')
	check_eq "pmuscope spe dump decodes every PC packet" "$n" 200
fi
check "rmmod" rmmod pmuscope
