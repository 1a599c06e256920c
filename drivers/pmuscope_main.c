// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: Arm PMUv3, PMU snapshot, SPE and AMU driver.
 *
 * Module entry points, module parameters and CPU hotplug. Every possible
 * CPU gets a struct pmuscope_cpu; each CPU is probed on itself by the cpuhp
 * startup callback, when the module loads and whenever the CPU comes online.
 */

#define pr_fmt(fmt) "pmuscope: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "pmuscope.h"

/* -------------------------------------------------------- module parameters */
static bool pmuscope_param_pmu = true;
module_param_named(pmu, pmuscope_param_pmu, bool, 0444);
MODULE_PARM_DESC(pmu, "Use the PMUv3 event counters (default: 1)");

static bool pmuscope_param_snapshot = true;
module_param_named(snapshot, pmuscope_param_snapshot, bool, 0444);
MODULE_PARM_DESC(snapshot,
		 "Use PMU snapshots (FEAT_PMUv3_SS); set 0 if firmware does not set MDCR_EL3.EnPMSS (default: 1)");

static bool pmuscope_param_spe = true;
module_param_named(spe, pmuscope_param_spe, bool, 0444);
MODULE_PARM_DESC(spe, "Use the Statistical Profiling Extension (default: 1)");

static bool pmuscope_param_amu = true;
module_param_named(amu, pmuscope_param_amu, bool, 0444);
MODULE_PARM_DESC(amu,
		 "Use the Activity Monitors; set 0 if firmware traps them (CPTR_EL3.TAM) (default: 1)");

struct pmuscope_driver pmuscope_drv = {
	.lock = __MUTEX_INITIALIZER(pmuscope_drv.lock),
};

/* ------------------------------------------------------------- CPU hotplug */

/* cpuhp startup: runs on @cpu, in that CPU's hotplug thread. */
static int pmuscope_cpu_online(unsigned int cpu)
{
	struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[cpu];
	struct pmuscope_cpu_caps *caps;

	caps = kmalloc(sizeof(*caps), GFP_KERNEL);
	if (!caps)
		return -ENOMEM;

	pmuscope_probe_local(pmuscope_drv.allowed_units, caps);

	mutex_lock(&pmuscope_drv.lock);
	pcpu->caps = *caps;
	pcpu->probed = true;
	mutex_unlock(&pmuscope_drv.lock);

	pmuscope_sysfs_cpu_changed(pcpu);
	pr_debug("cpu%u: %s, %s, %u counters\n", cpu,
		 pmuscope_cpu_name(caps->regs.midr),
		 pmuscope_pmuver_name(caps->pmuver), caps->num_counters);
	kfree(caps);
	return 0;
}

/* ------------------------------------------------------------ module init */
static unsigned long pmuscope_allowed_units(void)
{
	unsigned long allowed = 0;

	if (pmuscope_param_pmu)
		allowed |= BIT(PMUSCOPE_UNIT_PMU);
	if (pmuscope_param_snapshot)
		allowed |= BIT(PMUSCOPE_UNIT_SNAPSHOT);
	if (pmuscope_param_spe)
		allowed |= BIT(PMUSCOPE_UNIT_SPE);
	if (pmuscope_param_amu)
		allowed |= BIT(PMUSCOPE_UNIT_AMU);
	return allowed;
}

static int __init pmuscope_init(void)
{
	struct pmuscope_driver *drv = &pmuscope_drv;
	int ret;

	drv->allowed_units = pmuscope_allowed_units();
	drv->cpus = kcalloc(nr_cpu_ids, sizeof(*drv->cpus), GFP_KERNEL);
	if (!drv->cpus)
		return -ENOMEM;

	ret = pmuscope_sysfs_init(drv);
	if (ret)
		goto out_free_cpus;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/pmuscope:online",
				pmuscope_cpu_online, NULL);
	if (ret < 0)
		goto out_sysfs;
	drv->hp_state = ret;

	pr_info("version %s loaded, %u CPUs probed\n", PMUSCOPE_DRV_VERSION,
		num_online_cpus());
	return 0;

out_sysfs:
	pmuscope_sysfs_exit(drv);
out_free_cpus:
	kfree(drv->cpus);
	return ret;
}

static void __exit pmuscope_exit(void)
{
	struct pmuscope_driver *drv = &pmuscope_drv;

	cpuhp_remove_state(drv->hp_state);
	pmuscope_sysfs_exit(drv);
	kfree(drv->cpus);
	pr_info("unloaded\n");
}

module_init(pmuscope_init);
module_exit(pmuscope_exit);

MODULE_AUTHOR("The pmuscope authors");
MODULE_DESCRIPTION("Arm PMUv3, PMU snapshot, SPE and AMU driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(PMUSCOPE_DRV_VERSION);
