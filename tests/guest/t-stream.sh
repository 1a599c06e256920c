# SPDX-License-Identifier: GPL-2.0
# Streams: PMUSCOPE_IOC_STREAM, read() and poll() of /dev/pmuscope on
# QEMU's PMU: samples from the overflow interrupt where the program runs,
# time-based records, the lost-record accounting, the fuzzer's interrupt
# storm (from ENABLE to READ a window's share of samples per window at
# most), throttling and its next window (the same bound over the run),
# the rules, a task's samples (and its children's, none of a CPU hog), and
# poll mode (no interrupt: no samples).
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
for sub in errors sample timer lost storm throttle; do
	run_test /bin/pmuscope-stream $sub
done
# A task's stream: perf sampling events on pmuscope's own PMU, which
# takes no one else's.
run_test /bin/pmuscope-pstream task
run_test /bin/pmuscope-pstream ppmu
check "rmmod" rmmod pmuscope
check "insmod mode=poll" insmod "$PMUSCOPE_KO" mode=poll
run_test /bin/pmuscope-stream pollmode
check "rmmod" rmmod pmuscope
