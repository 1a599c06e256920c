# SPDX-License-Identifier: GPL-2.0
# perf's PMU driver active (the perf backend): EL0 reads are refused by
# libpmuscope and by the driver (-EOPNOTSUPP), and pmuscope_read_self()
# of an ordinary task session answers with the READ ioctl.
. /tests/lib.sh

check "insmod (backend auto: perf)" insmod "$PMUSCOPE_KO"
run_test /bin/pmuscope-el0 refusals
check "rmmod" rmmod pmuscope
