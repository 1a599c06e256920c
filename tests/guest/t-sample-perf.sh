# SPDX-License-Identifier: GPL-2.0
# Streams on the perf backend (perf's PMUv3 driver drives the PMU):
# SAMPLE records from perf sampling counters of a CPU session (with its
# counts) and of a task and the children it creates after an exec (no
# counts, none of a CPU hog), ENABLE_ON_EXEC and DISABLE (nothing after
# DISABLE, whatever execs), time-based records, perf's throttling,
# and a CPU's stream across its hotplug. Under -icount (plan perf-exact,
# one CPU), where QEMU's overflow interrupts come on time: a CPU
# session's CPU_CYCLES samples, one per period within 10%.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
check_eq "sysfs backend" "$(cat $PMUSCOPE_SYS/backend)" perf
if [ -n "${pmuscope_icount:-}" ]; then
	run_test /bin/pmuscope-pstream rate
else
	run_test /bin/pmuscope-pstream cpu
	run_test /bin/pmuscope-pstream task
	run_test /bin/pmuscope-pstream onexec
	run_test /bin/pmuscope-pstream throttle
	run_test /bin/pmuscope-pstream hotplug
fi
check "rmmod" rmmod pmuscope
