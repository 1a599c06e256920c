# SPDX-License-Identifier: GPL-2.0
# Under -icount shift=0 -smp 1 QEMU's INST_RETIRED is exact.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
check "INST_RETIRED implemented under icount" test -e $PMUSCOPE_SYS/cpu0/events/INST_RETIRED
run_test /bin/pmuscope-test exact 1000 1000000
check "rmmod" rmmod pmuscope
