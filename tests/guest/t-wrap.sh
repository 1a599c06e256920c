# SPDX-License-Identifier: GPL-2.0
# CPU_CYCLES counted at once on an event counter (32-bit on cortex-a53) and
# on the 64-bit cycle counter for 60 s of guest time: the totals agree
# exactly up to the fixed offset of starting and stopping two counters one
# after the other. In QEMU the test sleeps (cycles count in WFI there, and
# idle time warps under icount, so this is quick); on a board, where a
# Cortex-A53 counts no cycles in WFI, it keeps every CPU busy
# (pmuscope-test wrap says which).
. /tests/lib.sh

check "insmod (overflow interrupt)" insmod "$PMUSCOPE_KO"
run_test /bin/pmuscope-test wrap 60000 10
if [ "$(cat $PMUSCOPE_SYS/cpu0/event_counter_width)" = 32 ]; then
	w=$(cat $PMUSCOPE_SYS/cpu0/wraps)
	check "cpu0 folded at least 10 wraps ($w)" test "$w" -ge 10
	i=$(( $(cat $PMUSCOPE_SYS/cpu0/overflow_interrupts) + $(cat $PMUSCOPE_SYS/cpu1/overflow_interrupts) ))
	check "overflow interrupts were taken ($i)" test "$i" -gt 0
fi
check "rmmod" rmmod pmuscope
check "insmod mode=poll" insmod "$PMUSCOPE_KO" mode=poll
check "polling mode announced" sh -c "dmesg | grep -q 'wraps caught by polling'"
run_test /bin/pmuscope-test wrap 60000 10
check "rmmod" rmmod pmuscope
