# SPDX-License-Identifier: GPL-2.0
# The reliability gate: 2^32 wraps folded by the overflow interrupt and by
# the poll timer, under KASAN (the a53-wrap/max-wrap boots count 14 wraps
# under -icount; here, without it, QEMU's 1 GHz cycle counter wraps every
# 4.3 s of virtual time, so two wraps each).
. /tests/lib.sh

for mode in irq poll; do
	check "insmod mode=$mode" insmod "$PMUSCOPE_KO" mode=$mode
	run_test /bin/pmuscope-test wrap 9000 2
	check "rmmod" rmmod pmuscope
done
