# SPDX-License-Identifier: GPL-2.0
# INST_RETIRED is exact: on a board always, in QEMU under -icount
# shift=0 -smp 1.
. /tests/lib.sh

# The tests must hold on a real AM62L (Cortex-A53) too. QEMU passes its CPU
# model on the kernel command line (pmuscope_profile=), a board does not:
# qemu_only FACT is true in QEMU only, and logs the fact the run relies on.
qemu_only() {
	[ -n "${pmuscope_profile:-}" ] || return 1
	tap_diag "QEMU-only fact: $*"
}

check "insmod" insmod "$PMUSCOPE_KO"
qemu_only "INST_RETIRED is implemented only under -icount (this plan boots with it)"
check "INST_RETIRED implemented" test -e $PMUSCOPE_SYS/cpu0/events/INST_RETIRED
run_test /bin/pmuscope-test exact 1000 1000000
check "rmmod" rmmod pmuscope
