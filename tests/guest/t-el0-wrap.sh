# SPDX-License-Identifier: GPL-2.0
# -icount shift=0: EL0 reads (pmuscope_read_self()) of CPU_CYCLES:u and
# INST_RETIRED:u on 32-bit event counters across their 2^32 wrap, each
# round bracketing a READ ioctl, with the overflow interrupt and with
# polling. The driver starts a task's counter from 2^31 each time the
# thread is switched in (and moves it up by 2^31 at the first fold after
# a wrap: the page's last_raw stays at 2^31 or above, checked every
# round), so the hardware wraps only after 2^31 events without a switch
# (2.1 s of guest time here): vmstat's per-second work is put off
# meanwhile. On 64-bit event counters (PMUv3p5) it skips.
. /tests/lib.sh

interval=$(cat /proc/sys/vm/stat_interval)
echo 1000 >/proc/sys/vm/stat_interval
check "insmod (overflow interrupt)" insmod "$PMUSCOPE_KO"
run_test /bin/pmuscope-el0 wrap 120
check "rmmod" rmmod pmuscope
check "insmod mode=poll" insmod "$PMUSCOPE_KO" mode=poll
run_test /bin/pmuscope-el0 wrap 120
check "rmmod" rmmod pmuscope
echo "$interval" >/proc/sys/vm/stat_interval
