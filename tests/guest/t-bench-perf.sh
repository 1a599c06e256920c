# SPDX-License-Identifier: GPL-2.0
# make bench, perf's PMU driver active: pmuscope's perf backend and the
# perf_event_open() peer on the same events, in guest instructions (icount).
. /tests/lib.sh

check "insmod (backend auto: perf)" insmod "$PMUSCOPE_KO"
check_eq "backend" "$(cat $PMUSCOPE_SYS/backend)" perf
/bin/pmuscope-bench perf | sed "s/^pmuscope-bench: /pmuscope-bench: perf /"
check "rmmod" rmmod pmuscope
