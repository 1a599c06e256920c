# SPDX-License-Identifier: GPL-2.0
# -icount shift=0 -smp 1: EL0 self-monitoring (PMUSCOPE_CFG_USER_READ,
# libpmuscope's pmuscope_read_self()). Rounds of EL0 read, READ ioctl, EL0
# read: the ioctl lies between the two EL0 reads, at the same distance in
# every round; SW_INCR written at EL0 is exact; another process on the CPU
# traps on the counters and on PMSWINC_EL0 (checked, not assumed), and so
# does this thread once the session is closed. Each straight-line reader
# of pmuscope_read_self() (cycles first or not, every size). What is
# refused (more events than counters, a writable mapping). Then the
# example selfmon.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
run_test /bin/pmuscope-el0 exact 1000
run_test /bin/pmuscope-el0 layouts
run_test /bin/pmuscope-el0 refusals
/bin/selfmon >/tmp/selfmon.out 2>&1
sed 's/^/pmuscope-tap: # selfmon: /' /tmp/selfmon.out
check "example selfmon: instructions:u and cycles:u of its loop, read at EL0" \
	grep -q 'reads: before EL0, after EL0' /tmp/selfmon.out
check "rmmod" rmmod pmuscope
