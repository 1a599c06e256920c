// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the direct engine's sessions (struct pmuscope_backend_ops
 * pmuscope_direct_ops). A session's events count on the counters its
 * CONFIG planned (pmuscope_session.hw[]), which pmuscope_pmu.c drives with
 * MRS/MSR; each operation runs on each CPU of the session, under that
 * CPU's pmu->lock with IRQs off.
 *
 * Locking: as drivers/pmuscope_session.c says; the callers hold
 * cpus_read_lock(), and on each CPU pmu->lock is taken here. (The READ and
 * SNAPSHOT of a one-CPU session by a caller on that CPU, the hot path, are
 * pmuscope_session.c's, inline there.)
 */

#define pr_fmt(fmt) "pmuscope: " fmt

#include <linux/cpu.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"
#include "pmuscope_modifiers.h"
#include "pmuscope_regs.h"

/*
 * Run @fn(@arg) for @cpu: on it if online, else here (its PMU is off).
 * The caller holds cpus_read_lock(), so the CPU stays as it is. For the
 * CPU we run on, @fn is called here with interrupts off, as
 * smp_call_function_single() would, without its cross-call bookkeeping
 * (the READ of a session on the reader's own CPU is the hot path).
 */
static void pmuscope_on_cpu(unsigned int cpu, smp_call_func_t fn, void *arg)
{
	unsigned long flags;

	if (cpu == get_cpu()) {
		local_irq_save(flags);
		fn(arg);
		local_irq_restore(flags);
		put_cpu();
		return;
	}
	put_cpu();
	if (cpu_online(cpu))
		WARN_ON(smp_call_function_single(cpu, fn, arg, 1));
	else
		fn(arg);
}

/* ------------------------------------------------------------ per-CPU ops */

/*
 * The arguments of an operation on one CPU of a session. Each
 * pmuscope_direct_*_on_cpu() runs on @cpu (or anywhere while it is
 * offline), IRQs off, and takes that CPU's pmu->lock.
 */
struct pmuscope_op_args {
	struct pmuscope_session *sess;
	unsigned int cpu;
	int ret;			/* ASSIGN: -EBUSY if a counter was taken */
	struct pmuscope_value *vals;	/* READ: nr_events values */
	u32 swinc_mask, swinc_count;	/* SWINC */
};

static void pmuscope_hwc_assign(struct pmuscope_hwc *hwc,
				struct pmuscope_session *sess, u32 slot)
{
	memset(hwc, 0, sizeof(*hwc));
	hwc->owner = sess;
	hwc->slot = slot;
	hwc->event = sess->ev[slot].event;
	hwc->evtyper = sess->ev[slot].evtyper;
}

/* ASSIGN: the counters planned here become the session's. */
static void pmuscope_direct_assign_on_cpu(void *info)
{
	struct pmuscope_op_args *a = info;
	struct pmuscope_session *sess = a->sess;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(a->cpu);
	u8 *hw = pmuscope_sess_hw(sess, a->cpu);
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	/*
	 * A perf event (task counter, pmuscope_ppmu.c) may have taken a
	 * planned counter since the plan, or a thread running here may read
	 * it at EL0 (pmuscope_el0.c): assign nothing on this CPU then.
	 */
	for (i = 0; i < sess->nr_events; i++)
		if (hw[i] != PMUSCOPE_NO_COUNTER &&
		    (pmu->hwc[hw[i]].owner || (pmu->el0_open & BIT(hw[i])))) {
			a->ret = -EBUSY;
			goto out;
		}
	for (i = 0; i < sess->nr_events; i++) {
		unsigned int idx = hw[i];

		if (idx == PMUSCOPE_NO_COUNTER)
			continue;
		pmuscope_hwc_assign(&pmu->hwc[idx], sess, i);
		pmu->allocated |= BIT(idx);
	}
out:
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

/* RELEASE: the session's counters here stop and are free again. */
static void pmuscope_direct_release_on_cpu(void *info)
{
	struct pmuscope_op_args *a = info;
	struct pmuscope_session *sess = a->sess;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(a->cpu);
	u8 *hw = pmuscope_sess_hw(sess, a->cpu);
	u64 now = ktime_get_ns();
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	for (i = 0; i < sess->nr_events; i++) {
		unsigned int idx = hw[i];

		/* None, or never assigned (a failed ASSIGN). */
		if (idx == PMUSCOPE_NO_COUNTER || pmu->hwc[idx].owner != sess)
			continue;
		pmuscope_hwc_set_enabled(pmu, idx, false, now);
		pmu->hwc[idx].sample_period = 0;
		WRITE_ONCE(pmu->hwc[idx].owner, NULL);
		pmu->allocated &= ~BIT(idx);
	}
	/* Time-based records: none of this session's here. */
	if (pmu->stream_sess == sess)
		pmuscope_stream_set_timer(pmu, NULL, 0);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

/* ENABLE: the session's counters here start, all with one write. */
static void pmuscope_direct_enable_on_cpu(void *info)
{
	struct pmuscope_op_args *a = info;
	struct pmuscope_session *sess = a->sess;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(a->cpu);
	u8 *hw = pmuscope_sess_hw(sess, a->cpu);
	u64 now = ktime_get_ns();
	unsigned long flags;
	u32 i, batch = 0;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	for (i = 0; i < sess->nr_events; i++) {
		unsigned int idx = hw[i];

		if (idx == PMUSCOPE_NO_COUNTER || pmu->hwc[idx].enabled)
			continue;
		pmu->hwc[idx].enabled = true;
		if (pmu->hw_ready)
			batch |= BIT(idx);
	}
	/* Started together: one PMCNTENSET_EL0 write. */
	pmuscope_pmu_start_mask(pmu, batch, now);
	if (pmu->hw_ready && pmuscope_pmu_needs_poll(pmu) &&
	    !hrtimer_active(&pmu->poll_timer))
		hrtimer_start(&pmu->poll_timer, ns_to_ktime(pmuscope_engine.poll_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

/* DISABLE: the session's counters here stop, all with one write. */
static void pmuscope_direct_disable_on_cpu(void *info)
{
	struct pmuscope_op_args *a = info;
	struct pmuscope_session *sess = a->sess;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(a->cpu);
	u8 *hw = pmuscope_sess_hw(sess, a->cpu);
	u64 now = ktime_get_ns();
	unsigned long flags;
	u32 i, batch = 0;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	for (i = 0; i < sess->nr_events; i++) {
		unsigned int idx = hw[i];

		if (idx == PMUSCOPE_NO_COUNTER || !pmu->hwc[idx].enabled)
			continue;
		pmu->hwc[idx].enabled = false;
		if (pmu->hwc[idx].on_hw)
			batch |= BIT(idx);
	}
	/* Stopped together: one PMCNTENCLR_EL0 write. */
	pmuscope_pmu_stop_mask(pmu, batch, now);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

/* RESET: the session's counts and times here from zero. */
static void pmuscope_direct_reset_on_cpu(void *info)
{
	struct pmuscope_op_args *a = info;
	struct pmuscope_session *sess = a->sess;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(a->cpu);
	u8 *hw = pmuscope_sess_hw(sess, a->cpu);
	u64 now = ktime_get_ns();
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	for (i = 0; i < sess->nr_events; i++)
		if (hw[i] != PMUSCOPE_NO_COUNTER)
			pmuscope_hwc_reset(pmu, hw[i], now);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

/* READ: the session's values here, into a->vals. */
static void pmuscope_direct_read_on_cpu(void *info)
{
	struct pmuscope_op_args *a = info;
	struct pmuscope_session *sess = a->sess;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(a->cpu);
	u8 *hw = pmuscope_sess_hw(sess, a->cpu);
	u64 now = ktime_get_ns();
	unsigned long flags;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	pmuscope_pmu_read(pmu, hw, sess->nr_events, now, a->vals);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

/* STREAM: sampling and time-based records here as the session asks. */
static void pmuscope_direct_stream_on_cpu(void *info)
{
	struct pmuscope_op_args *a = info;
	struct pmuscope_session *sess = a->sess;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(a->cpu);
	u8 *hw = pmuscope_sess_hw(sess, a->cpu);
	u64 now = ktime_get_ns();
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	for (i = 0; i < sess->nr_events; i++)
		if (hw[i] != PMUSCOPE_NO_COUNTER)
			pmuscope_hwc_set_sampling(pmu, hw[i], i == sess->stream_index ?
						  sess->stream_period : 0, now);
	/* Time-based records: this session's timer here, or none of it. */
	if (sess->stream_ms)
		pmuscope_stream_set_timer(pmu, sess, (u64)sess->stream_ms * NSEC_PER_MSEC);
	else if (pmu->stream_sess == sess)
		pmuscope_stream_set_timer(pmu, NULL, 0);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

/* SWINC: PMSWINC_EL0 written a->swinc_count times, if the PMU is ours. */
static void pmuscope_direct_swinc_on_cpu(void *info)
{
	struct pmuscope_op_args *a = info;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(a->cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	if (pmu->hw_ready)
		pmuscope_pmu_swinc(pmu, a->swinc_mask, a->swinc_count);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

/* @fn on every CPU of @sess; @vals (READ) nr_events values per CPU. */
static void pmuscope_session_op(struct pmuscope_session *sess, smp_call_func_t fn,
				struct pmuscope_value *vals)
{
	struct pmuscope_op_args a = { .sess = sess };
	unsigned int cpu;

	for_each_cpu(cpu, sess->cpus) {
		a.cpu = cpu;
		a.vals = vals;
		pmuscope_on_cpu(cpu, fn, &a);
		if (vals)
			vals += sess->nr_events;
	}
}

/* ASSIGN on every CPU; stops at the first CPU where a counter was taken. */
static int pmuscope_session_assign(struct pmuscope_session *sess)
{
	struct pmuscope_op_args a = { .sess = sess };
	unsigned int cpu;

	for_each_cpu(cpu, sess->cpus) {
		a.cpu = cpu;
		pmuscope_on_cpu(cpu, pmuscope_direct_assign_on_cpu, &a);
		if (a.ret)
			return a.ret;
	}
	return 0;
}

/* ---------------------------------------------------------------- snapshots */

/* The position of @cpu among the session's CPUs (ascending). */
static unsigned int pmuscope_snap_pos(const struct pmuscope_session *sess,
				      unsigned int cpu)
{
	return bitmap_weight(cpumask_bits(sess->cpus), cpu);
}

/* On each online CPU of the session, IRQs off (on_each_cpu_mask()). */
static void pmuscope_snap_on_cpu(void *info)
{
	struct pmuscope_snap_args *a = info;
	struct pmuscope_session *sess = a->sess;
	unsigned int cpu = smp_processor_id();
	unsigned int pos = pmuscope_snap_pos(sess, cpu);
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(cpu);

	raw_spin_lock(&pmu->lock);
	pmuscope_pmu_snapshot(pmu, pmuscope_sess_hw(sess, cpu), sess->nr_events,
			      sess->hw_mask[cpu], a->flags, a->deadline, a->now,
			      &sess->vbuf[pos * sess->nr_events], &a->cpus[pos]);
	raw_spin_unlock(&pmu->lock);
}

/* The CPUs of a direct session at one deadline; offline ones at rest. */
static int pmuscope_direct_snapshot(struct pmuscope_session *sess,
				    struct pmuscope_snap_args *a, u32 lead_us)
{
	cpumask_var_t online;
	bool unsync = false;
	unsigned int cpu;

	if (!zalloc_cpumask_var(&online, GFP_KERNEL))
		return -ENOMEM;
	cpumask_and(online, sess->cpus, cpu_online_mask);
	for_each_cpu(cpu, sess->cpus) {
		struct pmuscope_pmu *pmu = pmuscope_pmu_of(cpu);
		unsigned int pos = pmuscope_snap_pos(sess, cpu);
		unsigned long flags;

		if (cpumask_test_cpu(cpu, online))
			continue;
		raw_spin_lock_irqsave(&pmu->lock, flags);
		pmuscope_pmu_snapshot(pmu, pmuscope_sess_hw(sess, cpu), sess->nr_events,
				      sess->hw_mask[cpu], a->flags, 0, a->now,
				      &sess->vbuf[pos * sess->nr_events], &a->cpus[pos]);
		raw_spin_unlock_irqrestore(&pmu->lock, flags);
	}
	/*
	 * One CPU needs no deadline: it captures as soon as it is asked.
	 * Neither do CPUs whose wait the caller may not have now
	 * (pmuscope_policy_snap_sync()): each captures as its interrupt comes.
	 */
	if (cpumask_weight(online) > 1) {
		unsync = !pmuscope_policy_snap_sync(&pmuscope_snap_budget, lead_us, a->now);
		if (!unsync)
			a->deadline = pmuscope_hw_syscnt() +
				div_u64((u64)lead_us * pmuscope_hw_syscnt_freq(), USEC_PER_SEC);
	}
	on_each_cpu_mask(online, pmuscope_snap_on_cpu, a, true);
	if (unsync)
		for_each_cpu(cpu, online)
			a->cpus[pmuscope_snap_pos(sess, cpu)].flags |= PMUSCOPE_SNAPCPU_UNSYNCED;
	free_cpumask_var(online);
	return 0;
}

/* ------------------------------------------------------------- operations */

static int pmuscope_direct_configure(struct pmuscope_session *sess)
{
	int ret = pmuscope_session_assign(sess);

	if (ret) {
		pmuscope_session_op(sess, pmuscope_direct_release_on_cpu, NULL);
		pr_info_ratelimited("a task counter took a planned counter: CONFIG again\n");
	}
	return ret;
}

static void pmuscope_direct_release(struct pmuscope_session *sess)
{
	pmuscope_session_op(sess, pmuscope_direct_release_on_cpu, NULL);
}

static void pmuscope_direct_enable(struct pmuscope_session *sess)
{
	pmuscope_session_op(sess, pmuscope_direct_enable_on_cpu, NULL);
}

static void pmuscope_direct_disable(struct pmuscope_session *sess)
{
	pmuscope_session_op(sess, pmuscope_direct_disable_on_cpu, NULL);
}

static void pmuscope_direct_reset(struct pmuscope_session *sess)
{
	pmuscope_session_op(sess, pmuscope_direct_reset_on_cpu, NULL);
}

/* Writes every value (pmuscope_pmu_read()). */
static void pmuscope_direct_read(struct pmuscope_session *sess,
				 struct pmuscope_value *vals, u32 nr)
{
	pmuscope_session_op(sess, pmuscope_direct_read_on_cpu, vals);
}

static int pmuscope_direct_stream(struct pmuscope_session *sess)
{
	pmuscope_session_op(sess, pmuscope_direct_stream_on_cpu, NULL);
	return 0;
}

static int pmuscope_direct_swinc(struct pmuscope_session *sess, u64 event_mask,
				 unsigned int cpu, u32 count)
{
	struct pmuscope_op_args a = {
		.sess = sess, .cpu = cpu, .swinc_count = count,
	};
	unsigned long mask = event_mask;
	unsigned long i;

	for_each_set_bit(i, &mask, PMUSCOPE_MAX_EVENTS) {
		unsigned int idx = pmuscope_sess_hw(sess, cpu)[i];

		/*
		 * SW_INCR, counting at the kernel's EL (EL1, or EL2 on a VHE
		 * host), where the driver writes PMSWINC_EL0.
		 */
		if (sess->ev[i].event != 0 ||
		    !(sess->ev[i].flags & pmuscope_kernel_flag(pmuscope_kernel_el())) ||
		    idx == PMUSCOPE_CYCLE_IDX)
			return -EINVAL;
		a.swinc_mask |= BIT(idx);
	}
	if (!cpu_online(cpu))
		return -ENXIO;
	pmuscope_on_cpu(cpu, pmuscope_direct_swinc_on_cpu, &a);
	return 0;
}

const struct pmuscope_backend_ops pmuscope_direct_ops = {
	.name		= "direct",
	.hw_counters	= true,
	.configure	= pmuscope_direct_configure,
	.release	= pmuscope_direct_release,
	.enable		= pmuscope_direct_enable,
	.disable	= pmuscope_direct_disable,
	.reset		= pmuscope_direct_reset,
	.read		= pmuscope_direct_read,
	.snapshot	= pmuscope_direct_snapshot,
	.stream		= pmuscope_direct_stream,
	.swinc		= pmuscope_direct_swinc,
};
