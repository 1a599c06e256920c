# SPDX-License-Identifier: GPL-2.0
# Streams on the perf backend (perf's PMUv3 driver drives the PMU):
# SAMPLE records from perf sampling counters of a CPU session (with its
# counts) and of a task and the children it creates after an exec (no
# counts, none of a CPU hog), time-based records, perf's throttling,
# and a CPU's stream across its hotplug.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
check_eq "sysfs backend" "$(cat $PMUSCOPE_SYS/backend)" perf
run_test /bin/pmuscope-pstream cpu
run_test /bin/pmuscope-pstream task
run_test /bin/pmuscope-pstream throttle
run_test /bin/pmuscope-pstream hotplug
check "rmmod" rmmod pmuscope
