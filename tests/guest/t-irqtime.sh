# SPDX-License-Identifier: GPL-2.0
# The direct engine's overflow interrupt throttles sampling when it takes
# over a quarter of its window, counting all of its time, the task
# streams' records and call chains included (progs/pmuscope-irqtime.c).
# sample_limit so high that a window's share of samples cannot throttle.
. /tests/lib.sh

if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" = "" ] ||
	ls /sys/bus/event_source/devices | grep -q armv8; then
	tap_ok "[pmuscope-irqtime] # SKIP perf's PMU driver is here: its own interrupt (perf_sample_event_took()) throttles"
else
	check "insmod sample_limit=4000000" insmod "$PMUSCOPE_KO" sample_limit=4000000
	run_test /bin/pmuscope-irqtime
	check "rmmod" rmmod pmuscope
fi
