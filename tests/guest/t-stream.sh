# SPDX-License-Identifier: GPL-2.0
# Streams: PMUSCOPE_IOC_STREAM, read() and poll() of /dev/pmuscope on
# QEMU's PMU: samples from the overflow interrupt where the program runs,
# time-based records, the lost-record accounting, the fuzzer's interrupt
# storm (from ENABLE to READ a window's share of samples per window at
# most), throttling and its next window (the same bound over the run),
# the rules, a task's samples (and its children's, none of a CPU hog),
# ENABLE_ON_EXEC and DISABLE (nothing after DISABLE, whatever execs), and
# poll mode (no interrupt: no samples).
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
for sub in errors sample timer lost storm throttle; do
	run_test /bin/pmuscope-stream $sub
done
# A task's stream: perf sampling events on pmuscope's own PMU, which
# takes no one else's. Not on several vCPUs under -icount (plan wrap):
# there QEMU's cycle counter is the one virtual clock, so a vCPU parked
# at EL0 counts EL0 cycles while another vCPU runs, and a task sampled
# every 200,000 of them overflowed again before it retired one more
# instruction, each turn (QEMU's round robin gave its vCPU just enough
# for the interrupt), until the boot timed out. Documentation/testing.rst.
if [ -n "${pmuscope_icount:-}" ] && [ "$(grep -c ^processor /proc/cpuinfo)" -gt 1 ]; then
	tap_ok "[pmuscope-pstream task] # SKIP QEMU-only fact: under -icount a parked vCPU's cycles count another vCPU's time (the discovery and gate plans run it)"
else
	run_test /bin/pmuscope-pstream task
	run_test /bin/pmuscope-pstream onexec
fi
run_test /bin/pmuscope-pstream ppmu
check "rmmod" rmmod pmuscope
check "insmod mode=poll" insmod "$PMUSCOPE_KO" mode=poll
run_test /bin/pmuscope-stream pollmode
check "rmmod" rmmod pmuscope
