// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: SPE sessions (PMUSCOPE_IOC_SPE_START, _STOP, _STATUS), the
 * PMBIRQ's binding and the unit's CPU hotplug. The unit's on-CPU logic,
 * its ring and read() are drivers/pmuscope_spe.c.
 */

#include <linux/bitfield.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/poll.h>
#include <linux/slab.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"

/* ------------------------------------------------------------ the PMBIRQ */

static int pmuscope_param_spe_irq;
module_param_named(spe_irq, pmuscope_param_spe_irq, int, 0444);
MODULE_PARM_DESC(spe_irq,
		 "Linux IRQ number of the SPE's PMBIRQ (a PPI) when the firmware does not describe it (default: from DT/ACPI)");

static struct {
	int irq;			/* the PMBIRQ, or 0 */
	bool from_pdev;			/* bound through the platform device */
	bool have_pdev;			/* the platform driver probed a device */
	bool registered;		/* the platform driver is registered */
	struct pmuscope_spe_pcpu * __percpu *pcpu;
} pmuscope_spe_irq;

#ifdef PMUSCOPE_EMU
/* pmuscope_emu.ko: the model's clock raises PMBIRQ on the CPU, hard IRQ. */
static irqreturn_t pmuscope_spe_emu_irq(int irq, void *dev)
{
	unsigned int cpu = smp_processor_id();

	return pmuscope_spe_irq_local(&pmuscope_drv.cpus[cpu]->spe, cpu);
}

static int pmuscope_spe_irq_bind(void)
{
	pmuscope_emu_set_pmbirq(pmuscope_spe_emu_irq, NULL);
	pmuscope_spe_irq.irq = -1;	/* the model's */
	return 0;
}

static void pmuscope_spe_irq_unbind(void)
{
	pmuscope_emu_set_pmbirq(NULL, NULL);
	synchronize_rcu();	/* a model tick that saw the handler has ended */
	pmuscope_spe_irq.irq = 0;
}
#else
/* request_percpu_irq() hands the handler this CPU's slot of the per-CPU cookie. */
static irqreturn_t pmuscope_spe_irq_handler(int irq, void *dev)
{
	struct pmuscope_spe_pcpu *sc = *(struct pmuscope_spe_pcpu **)dev;

	return sc ? pmuscope_spe_irq_local(sc, smp_processor_id()) : IRQ_NONE;
}

static int pmuscope_spe_request(int irq)
{
	int ret;

	if (!irq_is_percpu(irq)) {
		pr_err("SPE: irq %d is not a per-CPU interrupt (the PMBIRQ is a PPI)\n", irq);
		return -EINVAL;
	}
	pmuscope_spe_irq.pcpu = alloc_percpu(struct pmuscope_spe_pcpu *);
	if (!pmuscope_spe_irq.pcpu)
		return -ENOMEM;
	ret = request_percpu_irq(irq, pmuscope_spe_irq_handler, "pmuscope-spe",
				 pmuscope_spe_irq.pcpu);
	if (ret) {
		free_percpu(pmuscope_spe_irq.pcpu);
		pmuscope_spe_irq.pcpu = NULL;
		pr_err("SPE: cannot have the PMBIRQ (irq %d): %d\n", irq, ret);
		return ret;
	}
	pmuscope_spe_irq.irq = irq;
	return 0;
}

static int pmuscope_spe_pdev_probe(struct platform_device *pdev)
{
	int irq = platform_get_irq(pdev, 0);

	pmuscope_spe_irq.have_pdev = true;
	if (irq < 0)
		return irq;
	if (pmuscope_spe_irq.irq)
		return 0;	/* spe_irq given: that one */
	pmuscope_spe_irq.from_pdev = true;
	return pmuscope_spe_request(irq);
}

static const struct of_device_id pmuscope_spe_of_match[] = {
	{ .compatible = "arm,statistical-profiling-extension-v1" },
	{ }
};

static const struct platform_device_id pmuscope_spe_ids[] = {
	{ .name = "arm,spe-v1" },	/* ACPI: ARMV8_SPE_PDEV_NAME */
	{ }
};

static struct platform_driver pmuscope_spe_pdrv = {
	.id_table = pmuscope_spe_ids,
	.driver = {
		.name = "pmuscope-spe",
		.of_match_table = pmuscope_spe_of_match,
		.suppress_bind_attrs = true,
	},
	.probe = pmuscope_spe_pdev_probe,
};

static void pmuscope_spe_irq_unbind(void);

static int pmuscope_spe_irq_bind(void)
{
	int ret;

	if (pmuscope_param_spe_irq > 0) {
		ret = pmuscope_spe_request(pmuscope_param_spe_irq);
		if (ret)
			return ret;
	}
	ret = platform_driver_register(&pmuscope_spe_pdrv);
	if (ret) {
		pmuscope_spe_irq_unbind();
		return ret;
	}
	pmuscope_spe_irq.registered = true;
	return 0;
}

static void pmuscope_spe_irq_unbind(void)
{
	if (pmuscope_spe_irq.registered)
		platform_driver_unregister(&pmuscope_spe_pdrv);
	pmuscope_spe_irq.registered = false;
	pmuscope_spe_irq.have_pdev = false;
	pmuscope_spe_irq.from_pdev = false;
	if (pmuscope_spe_irq.irq > 0) {
		free_percpu_irq(pmuscope_spe_irq.irq, pmuscope_spe_irq.pcpu);
		free_percpu(pmuscope_spe_irq.pcpu);
		pmuscope_spe_irq.pcpu = NULL;
	}
	pmuscope_spe_irq.irq = 0;
}
#endif

/* Whether a CPU's SPE can be driven at all (a unit, and its PMBIRQ). */
bool pmuscope_spe_available(void)
{
	return pmuscope_spe_irq.irq != 0 && !pmuscope_hw_kernel_unmapped_at_el0();
}

/* /sys/kernel/pmuscope/spe_irq. */
const char *pmuscope_spe_irq_state(void)
{
	if (pmuscope_spe_irq.irq < 0)
		return "emulated";
	if (pmuscope_spe_irq.irq > 0)
		return pmuscope_spe_irq.from_pdev ? "firmware" : "parameter";
	return "none";
}

int pmuscope_spe_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		pmuscope_spe_pcpu_init(&pmuscope_drv.cpus[cpu]->spe, cpu);
	if (!(pmuscope_drv.allowed_units & BIT(PMUSCOPE_UNIT_SPE)))
		return 0;
	return pmuscope_spe_irq_bind();
}

/* Everything bind did, the platform driver too when no device came. */
void pmuscope_spe_exit(void)
{
	pmuscope_spe_irq_unbind();
}

/* cpuhp online, on @cpu: the PPI on, and the owner's profiling back. */
void pmuscope_spe_cpu_online(unsigned int cpu)
{
	struct pmuscope_spe_pcpu *sc = &pmuscope_drv.cpus[cpu]->spe;
	unsigned long flags;

	/*
	 * Whatever the unit holds from before (firmware, kexec): reset, before
	 * its PMBIRQ is enabled, and only where pmuscope has the PMBIRQ (not
	 * where perf's arm_spe_pmu holds the unit).
	 */
	raw_spin_lock_irqsave(&sc->lock, flags);
	if (pmuscope_spe_irq.irq > 0)
		pmuscope_spe_reset_local(sc);
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	if (pmuscope_spe_irq.irq > 0 && sc->usable) {
		*this_cpu_ptr(pmuscope_spe_irq.pcpu) = sc;
		enable_percpu_irq(pmuscope_spe_irq.irq, IRQ_TYPE_NONE);
	}
	raw_spin_lock_irqsave(&sc->lock, flags);
	pmuscope_spe_online_local(sc);
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

/* cpuhp offline, on @cpu: drain, PPI off, and what was drained copied. */
void pmuscope_spe_cpu_offline(unsigned int cpu)
{
	struct pmuscope_spe_pcpu *sc = &pmuscope_drv.cpus[cpu]->spe;
	unsigned long flags;

	raw_spin_lock_irqsave(&sc->lock, flags);
	pmuscope_spe_offline_local(sc, cpu);
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	if (pmuscope_spe_irq.irq > 0 && sc->usable) {
		disable_percpu_irq(pmuscope_spe_irq.irq);
		*this_cpu_ptr(pmuscope_spe_irq.pcpu) = NULL;
	}
	pmuscope_spe_copy(sc);
}

/* ---------------------------------------------------------- the session */

static void pmuscope_spe_start_fn(void *info)
{
	struct pmuscope_spe_pcpu *sc = info;
	unsigned long flags;

	raw_spin_lock_irqsave(&sc->lock, flags);
	if (sc->owner && !sc->running && !sc->faulted) {
		sc->off_since = pmuscope_hw_syscnt();	/* not off before it started */
		pmuscope_spe_resume(sc);
	}
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

static void pmuscope_spe_stop_fn(void *info)
{
	struct pmuscope_spe_pcpu *sc = info;
	unsigned int cpu = smp_processor_id();
	unsigned long flags;

	raw_spin_lock_irqsave(&sc->lock, flags);
	pmuscope_spe_stop_cpu(sc, cpu);
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

/*
 * Who may profile: CPU-wide SPE as CPU-wide counting; what shows the kernel
 * (sampling at EL1, physical addresses PA, CONTEXTIDR_EL1 CX, the physical
 * timestamp PCT) as arm_spe_pmu has it: perf_allow_kernel() where the
 * kernel exports it (6.12), CAP_PERFMON before (6.1's arm_spe_pmu).
 */
int pmuscope_spe_perm(const struct pmuscope_spe_config *c)
{
	unsigned int what = PMUSCOPE_POL_CPU;

	if (c->flags & PMUSCOPE_SPE_EL1)
		what |= PMUSCOPE_POL_KERNEL;
	if (c->flags & (PMUSCOPE_SPE_PA | PMUSCOPE_SPE_CX | PMUSCOPE_SPE_PCT)) {
#ifdef PMUSCOPE_HAVE_PERF_ALLOW_KERNEL
		what |= PMUSCOPE_POL_KERNEL;
#else
		if (!perfmon_capable())
			return -EACCES;
#endif
	}
	return pmuscope_policy_check(what);
}

/*
 * Whether @sess (NULL: not made yet) may profile @cpus with @c, and each
 * CPU's registers into @regs. Driver lock and CPUs held. Logs why not.
 */
static int pmuscope_spe_check_locked(const struct pmuscope_session *sess,
				     const struct pmuscope_spe_config *c,
				     const struct cpumask *cpus, struct pmuscope_spe_regs *regs)
{
	unsigned int cpu;
	int ret;

	if (sess && (sess->configured || sess->spe))
		return -EBUSY;
	/* After the reboot notifier: no SPU writes into the next kernel's memory. */
	if (pmuscope_drv.shutdown)
		return -ESHUTDOWN;
	for_each_cpu(cpu, cpus) {
		struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[cpu];

		if (!pcpu->probed || !pcpu->spe.usable) {
			enum pmuscope_unit_state st = pcpu->caps.state[PMUSCOPE_UNIT_SPE];

			pr_info_ratelimited("SPE: cpu%u has no usable Statistical Profiling Extension (sysfs cpu%u/spe: %s)\n",
					    cpu, cpu, pcpu->probed ? pmuscope_state_name(st) :
					    "not probed");
			return -EOPNOTSUPP;
		}
		ret = pmuscope_spe_config_regs(&pcpu->spe, c, &regs[cpu]);
		if (ret)
			return ret;
		if (pcpu->spe.owner)
			return -EBUSY;
	}
	if (pmuscope_hw_kernel_unmapped_at_el0()) {
		pr_info_ratelimited("SPE: the profiling buffer is unreachable while EL0 runs (KPTI): boot with kpti=off\n");
		return -EOPNOTSUPP;
	}
	if (!pmuscope_spe_irq.irq) {
		pr_info_ratelimited("SPE: no PMBIRQ: perf's arm_spe_pmu driver holds the SPE device (unbind it: /sys/bus/platform/drivers/arm_spe_pmu/unbind), or give spe_irq=\n");
		return -EBUSY;
	}
	return 0;
}

/*
 * PMUSCOPE_IOC_SPE_START: the file's session (*@slot, or @fresh published
 * there) profiles @cpus. Every CPU must have a usable unit taking @c; none
 * may be another session's. Checked once before the (large) buffers are
 * allocated, so that a refusal costs nothing, and again after, under the
 * same locks as the start.
 */
int pmuscope_session_spe_start(void **slot, struct pmuscope_session **fresh,
			       const struct pmuscope_spe_config *c,
			       const struct cpumask *cpus)
{
	struct pmuscope_spe_sess *ss = NULL;
	struct pmuscope_spe_regs *regs;
	struct pmuscope_session *sess;
	unsigned int cpu;
	int ret;

	ret = pmuscope_spe_perm(c);
	if (ret)
		return ret;
	regs = kcalloc(nr_cpu_ids, sizeof(*regs), GFP_KERNEL);
	if (!regs)
		return -ENOMEM;
	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	ret = pmuscope_spe_check_locked(*slot, c, cpus, regs);
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	if (ret)
		goto out_regs;
	/* Charged before anything is allocated (locked memory: EPERM). */
	ss = pmuscope_spe_alloc(c, cpus);
	if (IS_ERR(ss)) {
		ret = PTR_ERR(ss);
		ss = NULL;
		goto out_regs;
	}

	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	sess = pmuscope_session_publish_locked(slot, fresh);
	ret = pmuscope_spe_check_locked(sess, c, cpus, regs);
	if (ret)
		goto out;
	ss->sess = sess;
	ss->running = true;
	for_each_cpu(cpu, cpus) {
		struct pmuscope_spe_pcpu *sc = &pmuscope_drv.cpus[cpu]->spe;
		unsigned long flags;

		raw_spin_lock_irqsave(&sc->lock, flags);
		ret = pmuscope_spe_attach(sc, ss, &regs[cpu]);
		raw_spin_unlock_irqrestore(&sc->lock, flags);
		if (WARN_ON_ONCE(ret))	/* checked at START: cannot happen */
			goto out_detach;
		if (cpu_online(cpu))
			smp_call_function_single(cpu, pmuscope_spe_start_fn, sc, 1);
	}
	/* Pairs with smp_load_acquire() in read() and poll(). */
	smp_store_release(&sess->spe, ss);
	ss = NULL;
	goto out;
out_detach:
	/* Nothing started: the CPUs attached so far back as they were. */
	sess->spe = ss;
	pmuscope_spe_release_locked(sess);
	sess->spe = NULL;
out:
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	pmuscope_spe_free(ss);
out_regs:
	kfree(regs);
	return ret;
}

/* Stop every CPU of @ss (driver lock, CPUs held). */
static void pmuscope_spe_stop_locked(struct pmuscope_spe_sess *ss)
{
	unsigned int cpu;

	if (!ss->running)
		return;
	for_each_cpu(cpu, ss->cpus) {
		struct pmuscope_spe_pcpu *sc = &pmuscope_drv.cpus[cpu]->spe;
		unsigned long flags;

		/*
		 * Stopped for good first: an online CPU on itself; an offline
		 * one cannot come back meanwhile (CPUs held). Then every
		 * handed-over buffer in the ring before read() may say EOF.
		 */
		if (cpu_online(cpu)) {
			smp_call_function_single(cpu, pmuscope_spe_stop_fn, sc, 1);
		} else {
			raw_spin_lock_irqsave(&sc->lock, flags);
			if (sc->off)
				sc->off_ticks += pmuscope_hw_syscnt() - sc->off_since;
			sc->off = false;
			sc->waiting = false;
			raw_spin_unlock_irqrestore(&sc->lock, flags);
		}
		pmuscope_spe_copy(sc);
	}
	WRITE_ONCE(ss->running, false);
	wake_up_interruptible_poll(&ss->wait, EPOLLIN | EPOLLRDNORM | EPOLLHUP);
}

int pmuscope_session_spe_stop(struct pmuscope_session *sess)
{
	int ret = 0;

	if (!sess)
		return -EINVAL;
	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	if (!sess->spe)
		ret = -EINVAL;
	else
		pmuscope_spe_stop_locked(sess->spe);
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	return ret;
}

/* The session goes: stop, and give its CPUs back (driver lock, CPUs held). */
void pmuscope_spe_release_locked(struct pmuscope_session *sess)
{
	struct pmuscope_spe_sess *ss = sess->spe;
	unsigned int cpu;

	if (!ss)
		return;
	pmuscope_spe_stop_locked(ss);
	for_each_cpu(cpu, ss->cpus) {
		struct pmuscope_spe_pcpu *sc = &pmuscope_drv.cpus[cpu]->spe;
		unsigned long flags;

		raw_spin_lock_irqsave(&sc->lock, flags);
		sc->owner = NULL;
		sc->buf[0] = NULL;
		sc->buf[1] = NULL;
		sc->busy = 0;
		raw_spin_unlock_irqrestore(&sc->lock, flags);
		/* No worker left using @ss, which the caller frees. */
		cancel_work_sync(&sc->work);
	}
}

static u32 pmuscope_spe_state(const struct pmuscope_spe_sess *ss,
			      const struct pmuscope_spe_pcpu *sc, unsigned int cpu)
{
	if (sc->faulted)
		return PMUSCOPE_SPE_FAULTED;
	if (!ss->running)
		return PMUSCOPE_SPE_STOPPED;
	if (!cpu_online(cpu))
		return PMUSCOPE_SPE_OFFLINE;
	return PMUSCOPE_SPE_RUNNING;
}

int pmuscope_session_spe_status(struct pmuscope_session *sess,
				struct pmuscope_spe_cpu *recs, u32 room, u32 *nr)
{
	struct pmuscope_spe_sess *ss;
	unsigned int cpu;
	u32 n = 0;
	int ret = 0;

	if (!sess)
		return -EINVAL;
	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	ss = sess->spe;
	if (!ss) {
		ret = -EINVAL;
		goto out;
	}
	if (cpumask_weight(ss->cpus) > room) {
		*nr = cpumask_weight(ss->cpus);
		ret = -ENOSPC;
		goto out;
	}
	for_each_cpu(cpu, ss->cpus) {
		struct pmuscope_spe_pcpu *sc = &pmuscope_drv.cpus[cpu]->spe;
		unsigned long flags;

		raw_spin_lock_irqsave(&sc->lock, flags);
		recs[n] = sc->st;
		recs[n].cpu = cpu;
		recs[n].state = pmuscope_spe_state(ss, sc, cpu);
		recs[n].stopped_ns = pmuscope_spe_ns(ss, sc->off_ticks +
						     (sc->off && ss->running ?
						      pmuscope_hw_syscnt() - sc->off_since : 0));
		raw_spin_unlock_irqrestore(&sc->lock, flags);
		n++;
	}
	*nr = n;
out:
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	return ret;
}

