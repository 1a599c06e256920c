# SPDX-License-Identifier: GPL-2.0
# make bench: the cost of the interfaces, in guest instructions (icount).
. /tests/lib.sh

for mode in irq poll; do
	check "insmod mode=$mode" insmod "$PMUSCOPE_KO" mode=$mode
	/bin/pmuscope-bench | sed "s/^pmuscope-bench: /pmuscope-bench: $mode /"
	check "rmmod" rmmod pmuscope
done
