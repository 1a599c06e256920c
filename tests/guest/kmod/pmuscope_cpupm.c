// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope_cpupm: test-only module. On load, runs cpu_pm_enter() and
 * cpu_pm_exit() on every online CPU, as the idle code does around a state
 * that loses the PMU's context, so that the in-guest tests can check that
 * pmuscope's counts survive the save/restore path on the real (QEMU) PMU.
 * QEMU's virt machine has no such idle state of its own.
 */

#include <linux/cpu.h>
#include <linux/cpu_pm.h>
#include <linux/module.h>
#include <linux/smp.h>

static atomic_t pmuscope_cpupm_failures = ATOMIC_INIT(0);

/* In the IPI: IRQs are off, as cpu_pm_enter() requires. */
static void pmuscope_cpupm_cycle(void *unused)
{
	if (cpu_pm_enter()) {
		atomic_inc(&pmuscope_cpupm_failures);
		return;
	}
	cpu_pm_exit();
}

static int __init pmuscope_cpupm_init(void)
{
	unsigned int cpu, n = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		smp_call_function_single(cpu, pmuscope_cpupm_cycle, NULL, 1);
		n++;
	}
	cpus_read_unlock();
	pr_info("pmuscope_cpupm: cpu_pm enter/exit on %u CPUs, %d refused\n", n,
		atomic_read(&pmuscope_cpupm_failures));
	return 0;
}

static void __exit pmuscope_cpupm_exit(void)
{
}

module_init(pmuscope_cpupm_init);
module_exit(pmuscope_cpupm_exit);

MODULE_DESCRIPTION("pmuscope test: cpu_pm enter/exit on every CPU");
MODULE_LICENSE("GPL");
