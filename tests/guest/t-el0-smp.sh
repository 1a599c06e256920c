# SPDX-License-Identifier: GPL-2.0
# -smp 2: EL0 self-monitoring (pmuscope_read_self()) while the thread
# moves: other processes trap on this CPU and on the other one while the
# thread is granted; the thread moved between the CPUs every 200 rounds
# (and preempted by two CPU hogs), CPU 1 taken offline and online, and
# cpu_pm (pmuscope_cpupm.ko) on every CPU, all while it reads: no SIGILL,
# every EL0 read brackets the READ ioctl, SW_INCR exact, EL0 reads on
# both CPUs. Then the grant ends with the thread's events however perf
# takes them away: an exec of a setuid binary, a sentinel left in ERROR.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
run_test /bin/pmuscope-el0 sigill
run_test /bin/pmuscope-el0 bounce 20000
run_test /bin/pmuscope-el0 hotplug 5000
run_test /bin/pmuscope-el0 cpupm 5000
check "cpu_pm ran on every CPU, none refused (pmuscope_cpupm.ko)" \
	sh -c '[ -n "$(dmesg | grep "pmuscope_cpupm:")" ] && ! dmesg | grep "pmuscope_cpupm:" | grep -qv " 0 refused"'
check "rmmod" rmmod pmuscope

# uid 65534 in group 4242 is granted EL0 reads (group=); the setuid-root
# helper is this program, copied.
check "insmod group=4242" insmod "$PMUSCOPE_KO" group=4242
cp /bin/pmuscope-el0 /tmp/pmuscope-el0-suid && chmod 4755 /tmp/pmuscope-el0-suid
run_test /bin/pmuscope-el0 detach exec /tmp/pmuscope-el0-suid 4242
run_test /bin/pmuscope-el0 detach error /tmp/pmuscope-el0-suid 4242
rm -f /tmp/pmuscope-el0-suid
check "rmmod" rmmod pmuscope
