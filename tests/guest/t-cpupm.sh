# SPDX-License-Identifier: GPL-2.0
# Counts survive cpu_pm_enter()/cpu_pm_exit() on every CPU (pmuscope_cpupm.ko).
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
run_test /bin/pmuscope-test cpupm
check "rmmod" rmmod pmuscope
