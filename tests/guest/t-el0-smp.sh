# SPDX-License-Identifier: GPL-2.0
# -smp 2: EL0 self-monitoring (pmuscope_read_self()) while the thread
# moves: other processes trap on this CPU and on the other one while the
# thread is granted; the thread moved between the CPUs every 200 rounds
# (and preempted by two CPU hogs), CPU 1 taken offline and online, and
# cpu_pm (pmuscope_cpupm.ko) on every CPU, all while it reads: no SIGILL,
# every EL0 read brackets the READ ioctl, SW_INCR exact, EL0 reads on
# both CPUs.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
run_test /bin/pmuscope-el0 sigill
run_test /bin/pmuscope-el0 bounce 20000
run_test /bin/pmuscope-el0 hotplug 5000
run_test /bin/pmuscope-el0 cpupm 5000
check "cpu_pm ran on every CPU, none refused (pmuscope_cpupm.ko)" \
	sh -c '[ -n "$(dmesg | grep "pmuscope_cpupm:")" ] && ! dmesg | grep "pmuscope_cpupm:" | grep -qv " 0 refused"'
check "rmmod" rmmod pmuscope
