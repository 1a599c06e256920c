# SPDX-License-Identifier: GPL-2.0
# make bench: the cost of the interfaces, in guest instructions (icount).
. /tests/lib.sh

for mode in irq poll; do
	check "insmod mode=$mode" insmod "$PMUSCOPE_KO" mode=$mode
	/bin/pmuscope-bench | sed "s/^pmuscope-bench: /pmuscope-bench: $mode /"
	# EL0 reads (pmuscope_read_self()), their raw MRS floor and the READ
	# ioctl of the same session: pmuscope-el0, built with libpmuscope by
	# make tools.
	if [ -x /bin/pmuscope-el0 ]; then
		/bin/pmuscope-el0 bench | sed "s/^pmuscope-bench: /pmuscope-bench: $mode /"
	else
		tap_not_ok "no /bin/pmuscope-el0 (make tools before make bench)"
	fi
	check "rmmod" rmmod pmuscope
done
