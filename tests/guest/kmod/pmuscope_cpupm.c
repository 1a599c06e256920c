// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope_cpupm: test-only module. On load, runs cpu_pm_enter() and
 * cpu_pm_exit() on every online CPU, as the idle code does around a state
 * that loses the PMU's context, so that the in-guest tests can check that
 * pmuscope's counts survive the save/restore path on the real (QEMU) PMU.
 * QEMU's virt machine has no such idle state of its own, and QEMU's PMU
 * keeps its state across it: between the two calls this module does to
 * the PMU what a power-down does (counters reset and stopped, overflow
 * and enable bits, event types and PMCR cleared), so that only a full
 * restore by pmuscope passes the test.
 */

#include <linux/cpu.h>
#include <linux/cpu_pm.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <asm/sysreg.h>

static atomic_t pmuscope_cpupm_failures = ATOMIC_INIT(0);

/*
 * On the CPU, in task context with IRQs off, as the idle code calls it:
 * not from an IPI. The GIC's cpu_pm_exit() notifier clears the CPU
 * interface's active priorities, which would orphan the IPI being
 * handled and leave the CPU taking interrupts late for the rest of the
 * boot (seen: rmmod taking 9 s, RCU close to a stall warning).
 */
static void pmuscope_cpupm_lose_pmu(void)
{
	/* PMCR_EL0.N, bits [15:11]: the number of event counters. */
	unsigned int n = (read_sysreg(pmcr_el0) >> 11) & 0x1f, i;

	write_sysreg(0, pmcr_el0);
	isb();
	write_sysreg(~0UL, pmcntenclr_el0);
	write_sysreg(~0UL, pmintenclr_el1);
	write_sysreg(~0UL, pmovsclr_el0);
	for (i = 0; i < n; i++) {
		write_sysreg(i, pmselr_el0);
		isb();
		write_sysreg(0, pmxevtyper_el0);
		write_sysreg(0, pmxevcntr_el0);
	}
	write_sysreg(0, pmccfiltr_el0);
	write_sysreg(0, pmccntr_el0);
	write_sysreg(0, pmuserenr_el0);
	isb();
}

static int pmuscope_cpupm_cycle(void *unused)
{
	int ret;

	local_irq_disable();
	ret = cpu_pm_enter();
	if (!ret) {
		pmuscope_cpupm_lose_pmu();
		cpu_pm_exit();
	}
	local_irq_enable();
	if (ret)
		atomic_inc(&pmuscope_cpupm_failures);
	return 0;
}

static int __init pmuscope_cpupm_init(void)
{
	unsigned int cpu, n = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		smp_call_on_cpu(cpu, pmuscope_cpupm_cycle, NULL, false);
		n++;
	}
	cpus_read_unlock();
	pr_info("pmuscope_cpupm: cpu_pm enter, PMU state lost, exit on %u CPUs, %d refused\n", n,
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
