# SPDX-License-Identifier: GPL-2.0
# make bench, SPE: the records per second the pipeline delivers to user
# space, in the emulated neoverse-n1-like guest (pmuscope_emu.ko, bench
# kernel, -icount shift=0: one guest nanosecond is one instruction).
#
# CPU 1 runs a spinning workload and the reader (pmuscope-spe: poll(),
# read(), and a walk over every packet), both pinned there, as a profiler
# shares the CPU it profiles. The register model's clock turns CPU 1's
# busy time into operations at EL1 every tick (1 ms), which the modelled
# SPU samples one in INTERVAL + 1 into the driver's profiling buffer; a
# full buffer raises PMBIRQ, the driver hands the records over to the
# session's ring, and the reader drains it. For each interval, from sparse
# to the architecture's densest: the records delivered per second of
# guest time, and every way one could be missing: the ring's and DL's
# losses (the driver's), the records the SPU held at a buffer-full event
# (the hardware's own, D17.4), the operations it let pass unsampled while a
# full buffer waited for its PMBIRQ. The guest time includes the model's
# own work of writing the records, which silicon does not spend: the
# figures are a lower bound of what the pipeline can carry.
# Not the reader on CPU 0: under -icount QEMU runs the vCPUs in turn, and
# a vCPU that never idles leaves the other about 2% of the time (a 0.5 s
# loop on CPU 0 took 28 s beside a spinning CPU 1), which measures QEMU's
# scheduling, not pmuscope's.
. /tests/lib.sh

D=/sys/kernel/debug/pmuscope_emu
mount -t debugfs none /sys/kernel/debug 2>/dev/null
check "insmod (emulated $PMUSCOPE_EMU)" insmod "$PMUSCOPE_KO"
min=$(cat $PMUSCOPE_SYS/cpu1/spe_min_interval)
check "CPU 1 has SPE (minimum interval $min)" test "$min" -gt 0
secs=${pmuscope_spe_bench_secs:-2}
taskset 2 /bin/loop 1000000000000 &
spin=$!
model() { sed -n "s/^cpu1 .*[ ]$1=\([0-9]*\).*/\1/p" $D/spe; }
for iv in 65536 16384 4096 "$min"; do
	r0=$(model records) l0=$(model lost) s0=$(model stopped_ops)
	# HW_KIB 1024: a 1 ms tick's records at the densest interval fit.
	taskset 2 /bin/pmuscope-spe 1 "$iv" "$secs" 3 1024 4096 >/tmp/speb.out 2>&1
	rc=$?
	check_eq "interval $iv: the session ends cleanly" "$rc" 0
	get() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p;s/^$1=\([^ ]*\).*/\1/p" /tmp/speb.out | head -1; }
	rec=$(get records) ns=$(get elapsed_ns)
	r1=$(model records) l1=$(model lost) s1=$(model stopped_ops)
	check_eq "interval $iv: every record the model wrote arrived ($((r1 - r0)))" \
		"$rec" "$((r1 - r0))"
	check_eq "interval $iv: every chunk's data is whole records" "$(get bad)" 0
	check "interval $iv: a measured time ($ns ns)" test "${ns:-0}" -gt 0
	echo "pmuscope-bench-spe: interval=$iv records=$rec elapsed_ns=$ns cpu_ns=$(get cpu_ns)" \
		"bytes=$(get bytes) fills=$(get fills) lost_ring=$(get lost_ring)" \
		"lost_dl=$(get lost_dl) spu_lost=$((l1 - l0)) stopped_ops=$((s1 - s0))"
done
kill $spin
wait $spin 2>/dev/null
check "rmmod" rmmod pmuscope
