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
#include <linux/cpu_pm.h>
#include <linux/reboot.h>
#include <linux/cpuhotplug.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/kernfs.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/of_irq.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/uidgid.h>
#include <asm/irq_regs.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"

/* -------------------------------------------------------- module parameters */
static bool pmuscope_param_pmu = true;
module_param_named(pmu, pmuscope_param_pmu, bool, 0444);
MODULE_PARM_DESC(pmu, "Use the PMUv3 event counters (default: 1)");

static unsigned int pmuscope_param_snapshot;
module_param_named(snapshot, pmuscope_param_snapshot, uint, 0444);
MODULE_PARM_DESC(snapshot,
		 "Hardware snapshots (FEAT_PMUv3_SS): 0 never (software snapshots), 1 where the kernel runs at the highest EL below EL3 (VHE, or no EL2), 2 also at EL1 under an EL2 that grants them; 1 and 2 need firmware to set MDCR_EL3.EnPMSS and EnPM2, which no register shows (default: 0)");

static bool pmuscope_param_spe = true;
module_param_named(spe, pmuscope_param_spe, bool, 0444);
MODULE_PARM_DESC(spe, "Use the Statistical Profiling Extension (default: 1)");

static int pmuscope_param_amu = -1;
module_param_named(amu, pmuscope_param_amu, int, 0444);
MODULE_PARM_DESC(amu,
		 "Read the Activity Monitors: -1 on the CPUs whose AMU the kernel itself uses (CONFIG_ARM64_AMU_EXTN), 1 on every CPU that has one (firmware must not trap them: CPTR_EL3.TAM), 0 never (default: -1)");

static char *pmuscope_param_mode = "auto";
module_param_named(mode, pmuscope_param_mode, charp, 0444);
MODULE_PARM_DESC(mode,
		 "How 32-bit counter wraps are caught: auto (the overflow interrupt if there is one, else polling), irq, poll (default: auto)");

static int pmuscope_param_irq;
module_param_named(irq, pmuscope_param_irq, int, 0444);
MODULE_PARM_DESC(irq,
		 "Linux IRQ number of the PMU overflow PPI; 0 = from the device tree (default: 0)");

static unsigned int pmuscope_param_poll_ms;
module_param_named(poll_ms, pmuscope_param_poll_ms, uint, 0444);
MODULE_PARM_DESC(poll_ms,
		 "Poll period in ms, at most half the time the fastest event (events_per_cycle x max_mhz) takes to count 2^31; 0 = that longest safe period (default: 0; reads back the period in use)");

static unsigned int pmuscope_param_events_per_cycle = PMUSCOPE_EVENTS_PER_CYCLE_DEFAULT;
module_param_named(events_per_cycle, pmuscope_param_events_per_cycle, uint, 0444);
MODULE_PARM_DESC(events_per_cycle,
		 "Most events any counted event adds per CPU cycle, for the safe poll period (default: 8)");

static unsigned int pmuscope_param_max_mhz = PMUSCOPE_MAX_MHZ_DEFAULT;
module_param_named(max_mhz, pmuscope_param_max_mhz, uint, 0444);
MODULE_PARM_DESC(max_mhz,
		 "Highest CPU clock in MHz, for the safe poll period (default: 4000)");

static unsigned int pmuscope_param_storm_limit = 1000;
module_param_named(storm_limit, pmuscope_param_storm_limit, uint, 0444);
MODULE_PARM_DESC(storm_limit,
		 "Overflow interrupts per second and counter before the counter's interrupt is throttled (default: 1000)");

static unsigned int pmuscope_param_sample_limit = 20000;
module_param_named(sample_limit, pmuscope_param_sample_limit, uint, 0444);
MODULE_PARM_DESC(sample_limit,
		 "Samples per second and counter of a stream, in windows of about a scheduler tick: at most sample_limit/HZ (rounded up) in each; the next overflow, or the overflow interrupt's time over a quarter of it, throttles the counter's sampling for one window (default: 20000)");

static char *pmuscope_param_backend = "auto";
module_param_named(backend, pmuscope_param_backend, charp, 0444);
MODULE_PARM_DESC(backend,
		 "Who drives the PMU: auto (perf's PMU driver when it is there, else pmuscope), direct (pmuscope with MRS/MSR; refused while perf's driver drives the PMU), perf (count through perf's driver) (default: auto)");

/* Read without a lock by CONFIG (READ_ONCE()): a plain bool. */
bool pmuscope_param_task_ours;
module_param_named(task_ours, pmuscope_param_task_ours, bool, 0644);
MODULE_PARM_DESC(task_ours,
		 "Let a caller without CAP_PERFMON count another process of its own, as perf_event_open() does (its uids and gids, dumpable), without the LSM ptrace check perf also makes (not exported to modules): an administrator's grant (default: N)");

static int pmuscope_param_group = -1;
module_param_named(group, pmuscope_param_group, int, 0444);
MODULE_PARM_DESC(group,
		 "Group id whose members may count without CAP_PERFMON; -1 = none (default: -1)");

struct pmuscope_driver pmuscope_drv = {
	.lock = __MUTEX_INITIALIZER(pmuscope_drv.lock),
	.sessions = LIST_HEAD_INIT(pmuscope_drv.sessions),
};

static struct pmuscope_pmu * __percpu *pmuscope_irq_pmu;

/* ------------------------------------------------------------- interrupts */
static irqreturn_t pmuscope_irq_handler(int irq, void *dev)
{
	struct pmuscope_pmu *pmu = *(struct pmuscope_pmu **)dev;
	unsigned long sampled, psamples = 0, pthrottled = 0;
	bool handled;
	u64 entry;

	raw_spin_lock(&pmu->lock);
	/* Ends with an ISB: the level PPI is low again before the EOI. */
	handled = pmuscope_pmu_overflow(pmu, &sampled);
	if (sampled) {
		pmuscope_stream_samples(pmu, sampled);
		psamples = pmuscope_ppmu_sampled(sampled, &pthrottled);
	}
	if (pmuscope_pmu_needs_poll(pmu) && !hrtimer_active(&pmu->poll_timer))
		hrtimer_start(&pmu->poll_timer, ns_to_ktime(pmuscope_engine.poll_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	/*
	 * Sampling throttled: on again a window after the throttle (the
	 * timer, if running, rearms itself for a later throttle).
	 */
	if (unlikely(pmu->throttled) && !hrtimer_active(&pmu->unthrottle_timer))
		hrtimer_start(&pmu->unthrottle_timer, ns_to_ktime(pmuscope_engine.window_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	/*
	 * The interrupt's time from pmuscope_pmu_overflow()'s entry, for the
	 * next one's throttle: all of it, the task streams' samples below
	 * included (their records, call chains and ring writes), as
	 * arm_pmuv3 gives perf_sample_event_took() its whole handler.
	 */
	if (likely(!(psamples | pthrottled))) {
		pmuscope_pmu_overflow_end(pmu);
		pmu->irq_busy += pmuscope_hw_syscnt() - pmu->irq_entry;
		raw_spin_unlock(&pmu->lock);
		return handled ? IRQ_HANDLED : IRQ_NONE;
	}
	entry = pmu->irq_entry;
	raw_spin_unlock(&pmu->lock);
	/*
	 * Task streams' samples (perf events on pmuscope's PMU), out of the
	 * lock; this CPU's interrupt, so no other overflow begins a window
	 * meanwhile.
	 */
	pmuscope_ppmu_samples(psamples, pthrottled, get_irq_regs());
	raw_spin_lock(&pmu->lock);
	pmuscope_pmu_overflow_end(pmu);
	pmu->irq_busy += pmuscope_hw_syscnt() - entry;
	raw_spin_unlock(&pmu->lock);
	return handled ? IRQ_HANDLED : IRQ_NONE;
}

static enum hrtimer_restart pmuscope_poll_timer(struct hrtimer *timer)
{
	struct pmuscope_pmu *pmu = container_of(timer, struct pmuscope_pmu,
						poll_timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;

	raw_spin_lock(&pmu->lock);
	if (pmu->hw_ready && pmuscope_pmu_needs_poll(pmu)) {
		pmuscope_pmu_poll_locked(pmu, ktime_get_ns());
		hrtimer_forward_now(timer, ns_to_ktime(pmuscope_engine.poll_ns));
		ret = HRTIMER_RESTART;
	}
	raw_spin_unlock(&pmu->lock);
	return ret;
}

/*
 * The sampling counters throttled a window ago get their interrupt back
 * (pinned, hard IRQ); again when the next of the others is due.
 */
static enum hrtimer_restart pmuscope_unthrottle_timer(struct hrtimer *timer)
{
	struct pmuscope_pmu *pmu = container_of(timer, struct pmuscope_pmu,
						unthrottle_timer);
	u64 left;

	raw_spin_lock(&pmu->lock);
	left = pmuscope_pmu_unthrottle(pmu, false);
	/* Offline: the CPU coming online gives them all back. */
	if (!pmu->hw_ready)
		left = 0;
	raw_spin_unlock(&pmu->lock);
	if (!left)
		return HRTIMER_NORESTART;
	hrtimer_set_expires(timer, ktime_add_ns(ktime_get(), left));
	return HRTIMER_RESTART;
}

static const struct of_device_id pmuscope_pmu_of_match[] = {
	{ .compatible = "arm,armv8-pmuv3" },
	{ .compatible = "arm,cortex-a35-pmu" },
	{ .compatible = "arm,cortex-a53-pmu" },
	{ .compatible = "arm,cortex-a55-pmu" },
	{ .compatible = "arm,cortex-a57-pmu" },
	{ .compatible = "arm,cortex-a72-pmu" },
	{ .compatible = "arm,cortex-a73-pmu" },
	{ .compatible = "arm,cortex-a76-pmu" },
	{ .compatible = "arm,cortex-a78-pmu" },
	{ .compatible = "arm,neoverse-n1-pmu" },
	{ .compatible = "arm,neoverse-v1-pmu" },
	{ .compatible = "arm,neoverse-n2-pmu" },
	{ },
};

/* The PMU's per-CPU interrupt: the module parameter, else the device tree. */
static int pmuscope_find_irq(void)
{
	struct device_node *np;
	int irq;

	if (pmuscope_param_irq > 0)
		return pmuscope_param_irq;
	np = of_find_matching_node(NULL, pmuscope_pmu_of_match);
	if (!np)
		return 0;
	irq = irq_of_parse_and_map(np, 0);
	of_node_put(np);
	return irq > 0 ? irq : 0;
}

/*
 * Take the overflow interrupt (direct backend). Fails with -EBUSY, and
 * says why, when another driver holds the interrupt.
 */
static int pmuscope_irq_init(void)
{
	int irq = pmuscope_find_irq();
	int ret;

	if (!strcmp(pmuscope_param_mode, "poll"))
		pmuscope_engine.mode = PMUSCOPE_FOLD_POLL;
	else if (!strcmp(pmuscope_param_mode, "irq") ||
		 !strcmp(pmuscope_param_mode, "auto"))
		pmuscope_engine.mode = PMUSCOPE_FOLD_IRQ;
	else
		return -EINVAL;

	if (!irq || !irq_is_percpu_devid(irq)) {
		if (!strcmp(pmuscope_param_mode, "irq")) {
			pr_err("mode=irq, but no per-CPU PMU interrupt was found (give irq=)\n");
			return -ENODEV;
		}
		if (irq)
			pr_info("PMU interrupt %d is not a per-CPU interrupt: polling\n",
				irq);
		pmuscope_engine.mode = PMUSCOPE_FOLD_POLL;
		return 0;
	}

	pmuscope_irq_pmu = alloc_percpu(struct pmuscope_pmu *);
	if (!pmuscope_irq_pmu)
		return -ENOMEM;
	ret = request_percpu_irq(irq, pmuscope_irq_handler, PMUSCOPE_DRV_NAME,
				 pmuscope_irq_pmu);
	if (ret) {
		free_percpu(pmuscope_irq_pmu);
		pmuscope_irq_pmu = NULL;
		if (ret == -EBUSY)
			pr_err("the PMU interrupt (irq %d) belongs to another driver: load pmuscope with mode=poll\n",
			       irq);
		return ret;
	}
	pmuscope_engine.irq = irq;
	return 0;
}

static void pmuscope_irq_exit(void)
{
	if (!pmuscope_engine.irq)
		return;
	free_percpu_irq(pmuscope_engine.irq, pmuscope_irq_pmu);
	free_percpu(pmuscope_irq_pmu);
	pmuscope_engine.irq = 0;
}

/* ---------------------------------------------------------------- cpu_pm */
static int pmuscope_cpu_pm_notify(struct notifier_block *nb,
				  unsigned long action, void *data)
{
	struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[smp_processor_id()];
	struct pmuscope_pmu *pmu = &pcpu->pmu;

	/* The unit's own lock, not the PMU's: the PMBIRQ takes only that one. */
	switch (action) {
	case CPU_PM_ENTER:
		pmuscope_spe_pm(&pcpu->spe, pcpu->cpu, true);
		break;
	case CPU_PM_ENTER_FAILED:
	case CPU_PM_EXIT:
		pmuscope_spe_pm(&pcpu->spe, pcpu->cpu, false);
		break;
	}
	raw_spin_lock(&pmu->lock);
	switch (action) {
	case CPU_PM_ENTER:
		pmuscope_pmu_pm_enter(pmu);
		pmuscope_amu_pm_enter(&pcpu->amu, &pcpu->amu_info);
		break;
	case CPU_PM_ENTER_FAILED:
	case CPU_PM_EXIT:
		pmuscope_pmu_pm_exit(pmu);
		pmuscope_amu_pm_exit(&pcpu->amu, &pcpu->amu_info);
		break;
	}
	raw_spin_unlock(&pmu->lock);
	return NOTIFY_OK;
}

static struct notifier_block pmuscope_cpu_pm_nb = {
	.notifier_call = pmuscope_cpu_pm_notify,
};

/* ---------------------------------------------------------------- reboot */

/*
 * Reboot, halt or kexec (kernel_restart_prepare() and kernel_kexec() run
 * the reboot notifiers): on every CPU, SPE stopped and reset, so that no
 * SPU writes into memory the next kernel owns, and the direct engine's
 * PMU off (no overflow interrupt, no EL0 access), as perf_reboot() does
 * for perf's events. Nothing restarts them before the machine goes.
 */
static void pmuscope_reboot_cpu(void *info)
{
	struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[smp_processor_id()];

	if (!pcpu || !pcpu->probed)
		return;
	if (pmuscope_spe_available()) {
		raw_spin_lock(&pcpu->spe.lock);
		pmuscope_spe_reboot_local(&pcpu->spe, pcpu->cpu);
		raw_spin_unlock(&pcpu->spe.lock);
	}
	if (pmuscope_backend_perf() || !pcpu->pmu.usable)
		return;
	raw_spin_lock(&pcpu->pmu.lock);
	pmuscope_pmu_cpu_down(&pcpu->pmu);
	raw_spin_unlock(&pcpu->pmu.lock);
}

static int pmuscope_reboot_notify(struct notifier_block *nb, unsigned long action,
				  void *data)
{
	cpus_read_lock();
	/* SPE_START and ENABLE look under the lock: none starts after this. */
	mutex_lock(&pmuscope_drv.lock);
	pmuscope_drv.shutdown = true;
	on_each_cpu(pmuscope_reboot_cpu, NULL, 1);
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	return NOTIFY_DONE;
}

static struct notifier_block pmuscope_reboot_nb = {
	.notifier_call = pmuscope_reboot_notify,
};

/* ------------------------------------------------------------- CPU hotplug */

/* cpuhp startup: runs on @cpu, in that CPU's hotplug thread. */
static int pmuscope_cpu_online(unsigned int cpu)
{
	struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[cpu];
	unsigned long allowed = pmuscope_drv.allowed_units;
	struct pmuscope_amu_info *amu;
	struct pmuscope_cpu_caps *caps;
	unsigned long flags;
	bool amu_kernel;

	caps = kmalloc(sizeof(*caps), GFP_KERNEL);
	amu = kmalloc(sizeof(*amu), GFP_KERNEL);
	if (!caps || !amu) {
		kfree(caps);
		kfree(amu);
		return -ENOMEM;
	}
	/* amu=-1: this CPU's AMU only if the kernel itself uses it. */
	preempt_disable();
	amu_kernel = pmuscope_hw_amu_kernel();
	preempt_enable();
	if (pmuscope_param_amu < 0 && !amu_kernel)
		allowed &= ~BIT(PMUSCOPE_UNIT_AMU);

	pmuscope_probe_local(allowed, caps);
	pmuscope_amu_probe(&pcpu->amu, amu, caps);

	mutex_lock(&pmuscope_drv.lock);
	pcpu->caps = *caps;
	pmuscope_spe_probe(&pcpu->spe, caps);
	/* IRQs off: cpu_pm, on this CPU, reads it without the lock. */
	local_irq_save(flags);
	pcpu->amu_info = *amu;
	local_irq_restore(flags);
	pcpu->probed = true;
	mutex_unlock(&pmuscope_drv.lock);
	kfree(amu);

	pmuscope_sysfs_cpu_changed(pcpu);
	pmuscope_spe_cpu_online(cpu);
	pr_debug("cpu%u: %s, %s, %u counters\n", cpu,
		 pmuscope_cpu_name(caps->regs.midr),
		 pmuscope_pmuver_name(caps->pmuver), caps->num_counters);

	pmuscope_pmu_setup(&pcpu->pmu, cpu, caps);
	kfree(caps);
	if (pmuscope_backend_perf()) {
		/* perf's PMU: pmuscope's perf events count here again. */
		pmuscope_perf_cpu_online(cpu);
		return 0;
	}
	if (!pcpu->pmu.usable)
		return 0;

	if (pmuscope_hw_read(PMUSCOPE_REG_PMCR_EL0) & PMUSCOPE_PMCR_E)
		pr_warn("cpu%u: PMCR_EL0.E was set: another agent is using the PMU\n",
			cpu);
	raw_spin_lock_irq(&pcpu->pmu.lock);
	pmuscope_pmu_cpu_up(&pcpu->pmu);
	if (pmuscope_pmu_needs_poll(&pcpu->pmu))
		hrtimer_start(&pcpu->pmu.poll_timer,
			      ns_to_ktime(pmuscope_engine.poll_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	/* A stream's time-based records here again. */
	if (pcpu->pmu.stream_sess)
		hrtimer_start(&pcpu->pmu.stream_timer, ns_to_ktime(pcpu->pmu.stream_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	raw_spin_unlock_irq(&pcpu->pmu.lock);
	if (pmuscope_engine.irq) {
		*this_cpu_ptr(pmuscope_irq_pmu) = &pcpu->pmu;
		enable_percpu_irq(pmuscope_engine.irq, IRQ_TYPE_NONE);
	}
	/* Multiplexed sessions (perf events on pmuscope's PMU) count here again. */
	pmuscope_perf_cpu_online(cpu);
	return 0;
}

/* cpuhp teardown: runs on @cpu before it goes offline; counts are kept. */
static int pmuscope_cpu_offline(unsigned int cpu)
{
	struct pmuscope_pmu *pmu = &pmuscope_drv.cpus[cpu]->pmu;

	pmuscope_spe_cpu_offline(cpu);
	/*
	 * perf events first: the perf backend's, or on the direct backend
	 * those of multiplexed sessions (on pmuscope's own PMU), which perf
	 * detaches from a CPU going offline and never attaches again.
	 */
	pmuscope_perf_cpu_offline(cpu);
	if (pmuscope_backend_perf())
		return 0;
	if (!pmu->usable)
		return 0;
	if (pmuscope_engine.irq)
		disable_percpu_irq(pmuscope_engine.irq);
	raw_spin_lock_irq(&pmu->lock);
	pmuscope_pmu_cpu_down(pmu);
	raw_spin_unlock_irq(&pmu->lock);
	hrtimer_cancel(&pmu->poll_timer);
	/* Finds hw_ready false if it runs now: it does not restart. */
	hrtimer_cancel(&pmu->stream_timer);
	/* Nothing on the hardware: if it runs now, it only clears flags. */
	hrtimer_cancel(&pmu->unthrottle_timer);
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

/*
 * Choose the backend: perf's PMU driver drives the PMU on nearly every
 * stock kernel (CONFIG_ARM_PMUV3 is not optional on arm64), and then
 * pmuscope counts through it; else pmuscope drives the PMU itself.
 */
static int pmuscope_backend_init(void)
{
	int perf = pmuscope_perf_probe();

	if (perf < 0) {
		pr_err("cannot tell whether perf's PMU driver drives the PMU (perf_event_create_kernel_counter: %d)\n",
		       perf);
		return perf;
	}
	if (!strcmp(pmuscope_param_backend, "auto")) {
		pmuscope_engine.backend = perf ? PMUSCOPE_BACKEND_PERF :
				 PMUSCOPE_BACKEND_DIRECT;
	} else if (!strcmp(pmuscope_param_backend, "direct")) {
		if (perf) {
			pr_err("backend=direct: perf's PMUv3 driver (CONFIG_ARM_PMUV3) drives the PMU. Boot with initcall_blacklist=armv8_pmu_driver_init to keep it off, or load with backend=auto or backend=perf to count through it\n");
			return -EBUSY;
		}
		pmuscope_engine.backend = PMUSCOPE_BACKEND_DIRECT;
	} else if (!strcmp(pmuscope_param_backend, "perf")) {
		if (!perf) {
			pr_err("backend=perf: no perf PMU driver drives the PMU (CONFIG_ARM_PMUV3 off or kept off at boot); load with backend=auto or backend=direct\n");
			return -ENODEV;
		}
		pmuscope_engine.backend = PMUSCOPE_BACKEND_PERF;
	} else {
		pr_err("backend must be auto, direct or perf\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * The poll period: polls must come within 2^31 events of a 32-bit wrap at
 * the fastest rate any event reaches (pmuscope_fold_safe_ns()); a longer
 * poll_ms would make poll mode (and the backstop of interrupt mode) miss
 * wraps, and is refused.
 */
static int pmuscope_poll_init(void)
{
	u32 epc = pmuscope_param_events_per_cycle, mhz = pmuscope_param_max_mhz;
	u64 safe_ns = pmuscope_fold_safe_ns(32, epc, mhz);
	u32 period;

	if (pmuscope_poll_period(pmuscope_param_poll_ms, epc, mhz, &period)) {
		if (!period)
			pr_err("no poll period is short enough for events_per_cycle=%u at max_mhz=%u\n",
			       epc, mhz);
		else
			pr_err("poll_ms=%u is longer than the longest safe poll period, %u ms: at %u events per cycle and %u MHz (parameters events_per_cycle, max_mhz) a 32-bit counter counts 2^31 events, the most a poll may leave unfolded, in %llu ms. Give poll_ms=%u or less, or this system's own bounds\n",
			       pmuscope_param_poll_ms, period, epc, mhz,
			       div64_u64(safe_ns, NSEC_PER_MSEC), period);
		return -EINVAL;
	}
	pmuscope_param_poll_ms = period;	/* reads back the period in use */
	pmuscope_engine.poll_ns = (u64)period * NSEC_PER_MSEC;
	pmuscope_engine.fold_safe_ns = safe_ns;
	return 0;
}

static int pmuscope_engine_init(void)
{
	int ret;

	if (!pmuscope_param_storm_limit || !pmuscope_param_sample_limit) {
		pr_err("storm_limit and sample_limit must be at least 1\n");
		return -EINVAL;
	}
	if (pmuscope_param_snapshot > 2) {
		pr_err("snapshot must be 0, 1 or 2\n");
		return -EINVAL;
	}
	if (pmuscope_param_amu < -1 || pmuscope_param_amu > 1) {
		pr_err("amu must be -1, 0 or 1\n");
		return -EINVAL;
	}
	pmuscope_engine.ss_under_el2 = pmuscope_param_snapshot == 2;
	ret = pmuscope_poll_init();
	if (ret)
		return ret;
	pmuscope_engine.storm_limit = pmuscope_param_storm_limit;
	pmuscope_engine_sample_limit(&pmuscope_engine, pmuscope_param_sample_limit, HZ,
				     pmuscope_hw_syscnt_freq());
	pmuscope_drv.perf_group = pmuscope_param_group >= 0 ?
		make_kgid(current_user_ns(), pmuscope_param_group) : INVALID_GID;
	return 0;
}

static void pmuscope_pmus_init(struct pmuscope_driver *drv)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct pmuscope_pmu *pmu = &drv->cpus[cpu]->pmu;

		raw_spin_lock_init(&pmu->lock);
		pmu->cpu = cpu;
		hrtimer_init(&pmu->poll_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		pmu->poll_timer.function = pmuscope_poll_timer;
		hrtimer_init(&pmu->stream_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		pmu->stream_timer.function = pmuscope_stream_timer;
		hrtimer_init(&pmu->unthrottle_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		pmu->unthrottle_timer.function = pmuscope_unthrottle_timer;
	}
}

/*
 * Sessions left at unload or after a failed load: the sysfs ones (an open
 * file holds the module). Their files are gone already: nothing can add
 * one. The PMUs are stopped: releasing the counters touches no register.
 */
static void pmuscope_sessions_exit(struct pmuscope_driver *drv)
{
	struct pmuscope_session *sess;

	do {
		cpus_read_lock();
		mutex_lock(&drv->lock);
		sess = list_first_entry_or_null(&drv->sessions,
						struct pmuscope_session, node);
		if (sess) {
			if (sess->sysfs_cpu >= 0)
				drv->cpus[sess->sysfs_cpu]->sysfs_sess = NULL;
			pmuscope_session_unlink_locked(sess);
		}
		mutex_unlock(&drv->lock);
		cpus_read_unlock();
		pmuscope_session_free(sess);
	} while (sess);
}

/*
 * Load: the structures, the interrupt, the CPUs (each probed and its PMU
 * programmed, on the CPU), idle; only then are /sys/kernel/pmuscope and
 * /dev/pmuscope published, so that nobody sees a CPU not probed yet or
 * reaches a session before the engine runs. Unload (and a failed load) is
 * the same backwards: the files and the device go first (waiting for
 * readers and writers), then the PMUs are stopped, then the sessions left
 * (the sysfs ones) and the memory go.
 */
static int __init pmuscope_init_driver(void)
{
	struct pmuscope_driver *drv = &pmuscope_drv;
	int ret;

	ret = pmuscope_engine_init();
	if (ret)
		return ret;
	drv->allowed_units = pmuscope_allowed_units();
	drv->cpus = kcalloc(nr_cpu_ids, sizeof(*drv->cpus), GFP_KERNEL);
	if (!drv->cpus)
		return -ENOMEM;

	ret = pmuscope_sysfs_alloc(drv);
	if (ret)
		goto err_free_cpus;
	pmuscope_pmus_init(drv);

	ret = pmuscope_backend_init();
	if (ret)
		goto err_free_sysfs;
	if ((drv->allowed_units & BIT(PMUSCOPE_UNIT_PMU)) && !pmuscope_backend_perf()) {
		ret = pmuscope_irq_init();
		if (ret)
			goto err_free_sysfs;
	}

	ret = pmuscope_spe_init();
	if (ret)
		goto err_free_irq;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/pmuscope:online",
				pmuscope_cpu_online, pmuscope_cpu_offline);
	if (ret < 0)
		goto err_spe_exit;
	drv->hp_state = ret;

	ret = cpu_pm_register_notifier(&pmuscope_cpu_pm_nb);
	if (ret)
		goto err_remove_cpuhp;

	ret = register_reboot_notifier(&pmuscope_reboot_nb);
	if (ret)
		goto err_unregister_cpu_pm;

	ret = pmuscope_sysfs_publish(drv);
	if (ret)
		goto err_unregister_reboot;

	/* Direct backend: tasks and multiplexing through pmuscope's own PMU. */
	if (!pmuscope_backend_perf() && (drv->allowed_units & BIT(PMUSCOPE_UNIT_PMU)) &&
	    !pmuscope_ppmu_register())
		pmuscope_perf_use_ppmu(pmuscope_ppmu_type());

	ret = pmuscope_chardev_init();
	if (ret)
		goto err_unregister_ppmu;

	if (pmuscope_backend_perf())
		pr_info("version %s loaded, %u CPUs probed, backend perf: counting through perf's PMU driver\n",
			PMUSCOPE_DRV_VERSION, num_online_cpus());
	else
		pr_info("version %s loaded, %u CPUs probed, backend direct, wraps caught by %s\n",
			PMUSCOPE_DRV_VERSION, num_online_cpus(),
			pmuscope_engine.mode == PMUSCOPE_FOLD_IRQ ?
			"the overflow interrupt" : "polling");
	return 0;

err_unregister_ppmu:
	pmuscope_ppmu_unregister();
	pmuscope_sysfs_unpublish(drv);
err_unregister_reboot:
	unregister_reboot_notifier(&pmuscope_reboot_nb);
err_unregister_cpu_pm:
	cpu_pm_unregister_notifier(&pmuscope_cpu_pm_nb);
err_remove_cpuhp:
	cpuhp_remove_state(drv->hp_state);
err_spe_exit:
	pmuscope_spe_exit();
err_free_irq:
	pmuscope_irq_exit();
err_free_sysfs:
	pmuscope_sessions_exit(drv);
	pmuscope_sysfs_free(drv);
	pmuscope_perf_exit();
err_free_cpus:
	kfree(drv->cpus);
	return ret;
}

/* pmuscope_init_driver() backwards. */
static void pmuscope_exit_driver(void)
{
	struct pmuscope_driver *drv = &pmuscope_drv;

	pmuscope_chardev_exit();
	pmuscope_ppmu_unregister();
	pmuscope_sysfs_unpublish(drv);
	unregister_reboot_notifier(&pmuscope_reboot_nb);
	cpu_pm_unregister_notifier(&pmuscope_cpu_pm_nb);
	cpuhp_remove_state(drv->hp_state);
	pmuscope_sessions_exit(drv);
	pmuscope_spe_exit();
	pmuscope_irq_exit();
	pmuscope_sysfs_free(drv);
	pmuscope_perf_exit();
	kfree(drv->cpus);
}

/*
 * pmuscope.ko and pmuscope_emu.ko (the driver against the register model)
 * publish the same device and sysfs names: only one may be loaded.
 */
static bool __init pmuscope_other_loaded(void)
{
	struct kernfs_node *kn = kernfs_find_and_get(kernel_kobj->sd, PMUSCOPE_DRV_NAME);

	kernfs_put(kn);
	return kn;
}

static int __init pmuscope_init(void)
{
	int ret;

	if (pmuscope_other_loaded()) {
		pr_err("%s is loaded (/sys/kernel/%s exists): unload it first\n",
		       PMUSCOPE_OTHER_MODULE, PMUSCOPE_DRV_NAME);
		return -EBUSY;
	}
	ret = pmuscope_emu_init();
	if (ret)
		return ret;
	ret = pmuscope_init_driver();
	if (ret)
		pmuscope_emu_exit();
	return ret;
}

static void __exit pmuscope_exit(void)
{
	pmuscope_exit_driver();
	pmuscope_emu_exit();
	pr_info("unloaded\n");
}

module_init(pmuscope_init);
module_exit(pmuscope_exit);

MODULE_AUTHOR("The pmuscope authors");
MODULE_DESCRIPTION("Arm PMUv3, PMU snapshot, SPE and AMU driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(PMUSCOPE_DRV_VERSION);
