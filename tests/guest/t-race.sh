# SPDX-License-Identifier: GPL-2.0
# Every pair of operations on one /dev/pmuscope file from two threads
# (progs/pmuscope-race.c): what mmap(), read(), poll() and the ioctls
# reach must outlive each of them. Run in the gate (KASAN, kmemleak,
# lockdep: t-gate-end.sh fails the boot on any report) on both backends,
# and on the test kernel (lockdep, slub_debug). RACE_ROUNDS (kernel
# command line): rounds of each operation in each pair, 200.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
run_test /bin/pmuscope-race "${RACE_ROUNDS:-200}"
check "rmmod after the races" rmmod pmuscope
