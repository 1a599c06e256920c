// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the direct engine as a perf PMU.
 *
 * On the direct backend (perf's PMUv3 driver off or absent) pmuscope
 * registers its engine with the perf core as a PMU of its own, "pmuscope",
 * in perf_hw_context. Task targets and multiplexed CPU sessions are then
 * in-kernel perf events on it (drivers/pmuscope_perf.c, as on the perf
 * backend): the perf core switches them with their task at context switch
 * and rotates them when there are more events than counters, calling back
 * add/del/start/stop/read here, on the CPU, with IRQs off. This is the
 * scheduler hook a module can have: pmu->sched_task cannot be armed from a
 * module (perf_sched_cb_inc() is not exported), preempt notifiers exist
 * only with KVM, and a sched_switch tracepoint probe needs TRACEPOINTS.
 *
 * A perf event takes a free counter of the CPU it is added on (a counter
 * no session holds), programmed and folded by the engine like any other:
 * 64-bit counts, the overflow interrupt or polling, cpu_pm. No free
 * counter: add() fails with -EAGAIN and perf multiplexes. Sessions and
 * perf events meet under pmu->lock: a session's placement that finds a
 * counter taken meanwhile fails with -EBUSY (pmuscope_session.c).
 *
 * Sampling: pmuscope's own sampling counters of task streams
 * (pmuscope_perf.c) sample on the engine's counters as a session's do
 * (its period, its sample_limit); the overflow interrupt calls their
 * overflow handler, which makes the record. Nobody else's: a PMU hands
 * perf's own sampling events to perf_event_overflow() (perf's ring
 * buffer, its throttling), which the perf core does not export to
 * modules (6.1, 6.12).
 */

#define pr_fmt(fmt) "pmuscope: " fmt

#include <linux/kmemleak.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "pmuscope.h"
#include "pmuscope_modifiers.h"
#include "pmuscope_regs.h"

/*
 * The owner of every counter a perf event holds: never configured, only
 * named; its ops are a session's default, as pmuscope_session_alloc() sets.
 */
struct pmuscope_session pmuscope_ppmu_owner = {
	.id = 0,
	.sysfs_cpu = -1,
	.comm = "perf events",
	.ops = &pmuscope_direct_ops,
};

/*
 * EL0 access (pmuscope_el0.c): a session's events carry its struct
 * pmuscope_el0 in pmu_private (set by pmuscope_perf.c before they are
 * enabled); its sentinel is an event of config1 PMUSCOPE_PPMU_SENTINEL,
 * pinned, that holds no counter and only follows the thread's switches.
 */
static struct pmuscope_el0 *pmuscope_ppmu_el0(const struct perf_event *event)
{
	return event->pmu_private;
}

static bool pmuscope_ppmu_sentinel(const struct perf_event *event)
{
	return event->attr.config1 == PMUSCOPE_PPMU_SENTINEL;
}

/* The thread's run: its context switches so far (counted before the switch's del). */
static unsigned long pmuscope_ppmu_run(void)
{
	return current->nvcsw + current->nivcsw;
}

/* Is @el0's thread leaving this CPU: switched out, or exiting? */
static bool pmuscope_ppmu_leaving(const struct pmuscope_pmu *pmu,
				  const struct pmuscope_el0 *el0)
{
	return current != el0->task || (current->flags & PF_EXITING) ||
	       pmuscope_ppmu_run() != pmu->el0_run;
}

/* Event @event's position in its EL0 session. */
static u32 pmuscope_ppmu_el0_slot(const struct pmuscope_el0 *el0,
				  const struct perf_event *event)
{
	u32 i;

	for (i = 0; i < el0->nr; i++)
		if (el0->pe[i] == event)
			return i;
	return 0;
}

/*
 * Each CPU's sampling perf events by counter: set by add() and cleared by
 * del() under pmu->lock, read by the overflow interrupt on the CPU.
 */
struct pmuscope_ppmu_cpu {
	struct perf_event *sampling[PMUSCOPE_NR_COUNTERS];
	unsigned long sampling_mask;	/* the counters of sampling[] set */
};

static DEFINE_PER_CPU(struct pmuscope_ppmu_cpu, pmuscope_ppmu_cpu);

static struct pmuscope_pmu *pmuscope_ppmu_local(void)
{
	struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[smp_processor_id()];

	return pcpu ? &pcpu->pmu : NULL;
}

/*
 * Up to Linux 6.1 (PERF_PMU_CAP_HETEROGENEOUS_CPUS went with 6.2's rework
 * of the contexts, commit bd2756811766), a task's perf_hw_context context
 * made for a PMU stays with the task until it exits or execs a setuid
 * binary or another that leaves it not dumpable (begin_new_exec():
 * perf_event_exit_task()), its ->pmu pointing at that PMU after
 * the last event is gone: the scheduler's switches call through it
 * (perf_pmu_disable(ctx->pmu): its per-CPU count, its callback), and
 * free_ctx(), an RCU callback queued after the task has let the context
 * go, reads it. A task event on this PMU, or one inherited from it,
 * makes such a context.
 *
 * So, on those kernels: the module pins itself (a reference of its own)
 * from the first task event's event_init() until a sweep finds no task
 * event alive and no thread with a context of this PMU. A sweep runs when
 * the last task event goes (its destroy(): a session's end, a program
 * that counted itself released at its exit, after perf_event_exit_task()
 * let its context go) and every second while the pin is held. And the
 * struct pmu registered is a copy never freed, not module memory: a
 * context let go but not yet freed (free_ctx() reads ->task_ctx_cache)
 * cannot outlive it, whatever the unload's timing. From 6.2 a PMU's part
 * of a task's context (struct perf_event_pmu_context) goes with its last
 * event, and the references its events hold suffice.
 */
#ifdef PERF_PMU_CAP_HETEROGENEOUS_CPUS
#define PMUSCOPE_PPMU_SWEEP_MS	1000

static struct pmu *pmuscope_ppmu_reg;
static unsigned long pmuscope_ppmu_pinned;	/* bit 0: the module's own reference */
static atomic_t pmuscope_ppmu_task_events;	/* from event_init() to destroy() */
static void pmuscope_ppmu_sweep_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(pmuscope_ppmu_sweep_work, pmuscope_ppmu_sweep_work_fn);

/* Does a thread have a task context of this PMU? */
static bool pmuscope_ppmu_ctx_left(void)
{
	struct task_struct *g, *t;
	bool found = false;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		/* Freed by RCU (free_ctx()): readable to the unlock. */
		struct perf_event_context *ctx = READ_ONCE(t->perf_event_ctxp[perf_hw_context]);

		if (ctx && ctx->pmu == pmuscope_ppmu_reg) {
			found = true;
			goto out;
		}
	}
out:
	rcu_read_unlock();
	return found;
}

/*
 * The bit is the reference: whoever clears it owns it, one sweep at a
 * time (the last destroy()'s and the work's may meet). The pin drops only
 * when, with the bit clear, no task event is alive (its context may not
 * be made yet) and no thread has a context. Against pmuscope_ppmu_pin(),
 * which counts its event before it looks at the bit, a full barrier on
 * each side (test_and_clear_bit() is one): either this sees the event,
 * or the pin sees the bit clear and takes a reference of its own. No
 * lock: callers may hold a context's mutex (an inherited event freed at
 * its task's exit).
 */
static void pmuscope_ppmu_sweep(void)
{
	if (!test_and_clear_bit(0, &pmuscope_ppmu_pinned))
		return;
	if (atomic_read(&pmuscope_ppmu_task_events) || pmuscope_ppmu_ctx_left()) {
		/* Still pinned, unless a pin meanwhile holds its own. */
		if (!test_and_set_bit(0, &pmuscope_ppmu_pinned)) {
			schedule_delayed_work(&pmuscope_ppmu_sweep_work,
					      msecs_to_jiffies(PMUSCOPE_PPMU_SWEEP_MS));
			return;
		}
	}
	module_put(THIS_MODULE);
}

static void pmuscope_ppmu_sweep_work_fn(struct work_struct *work)
{
	pmuscope_ppmu_sweep();
}

/*
 * The event's own module reference (perf's, for event->pmu->module) is
 * dropped after this returns: the module stays through the sweep.
 */
static void pmuscope_ppmu_destroy(struct perf_event *event)
{
	if (atomic_dec_and_test(&pmuscope_ppmu_task_events))
		pmuscope_ppmu_sweep();
}

/* A task event (inherited ones too): the module stays while its context may. */
static void pmuscope_ppmu_pin(struct perf_event *event)
{
	event->destroy = pmuscope_ppmu_destroy;
	atomic_inc(&pmuscope_ppmu_task_events);
	smp_mb__after_atomic();	/* the event counted, then the bit read */
	if (test_bit(0, &pmuscope_ppmu_pinned) || test_and_set_bit(0, &pmuscope_ppmu_pinned))
		return;
	__module_get(THIS_MODULE);
	schedule_delayed_work(&pmuscope_ppmu_sweep_work, msecs_to_jiffies(PMUSCOPE_PPMU_SWEEP_MS));
}

/* The struct pmu to register: a copy of @tmpl that is never freed. */
static struct pmu *pmuscope_ppmu_alloc(struct pmu *tmpl)
{
	pmuscope_ppmu_reg = kmemdup(tmpl, sizeof(*tmpl), GFP_KERNEL);
	/* Referenced from contexts kmemleak cannot tell alive. */
	if (pmuscope_ppmu_reg)
		kmemleak_not_leak(pmuscope_ppmu_reg);
	return pmuscope_ppmu_reg;
}

/* Unregistered: no pin is taken any more, nor a sweep queued. */
static void pmuscope_ppmu_unpin_all(void)
{
	cancel_delayed_work_sync(&pmuscope_ppmu_sweep_work);
	/* Only a failed load gets here pinned: it cannot wait for tasks. */
	if (test_and_clear_bit(0, &pmuscope_ppmu_pinned)) {
		pr_warn("load failed with task contexts of its PMU left: a task counted meanwhile may oops\n");
		module_put(THIS_MODULE);
	}
	pmuscope_ppmu_reg = NULL;
}
#else
static struct pmu *pmuscope_ppmu_reg;

static void pmuscope_ppmu_pin(struct perf_event *event)
{
}

static struct pmu *pmuscope_ppmu_alloc(struct pmu *tmpl)
{
	pmuscope_ppmu_reg = tmpl;
	return tmpl;
}

static void pmuscope_ppmu_unpin_all(void)
{
	pmuscope_ppmu_reg = NULL;
}
#endif

/* pmuscope's event flags from perf's exclude bits. */
static u32 pmuscope_ppmu_flags(const struct perf_event_attr *attr)
{
	unsigned int kel = pmuscope_kernel_el();
	u32 flags = 0;

	if (!attr->exclude_user)
		flags |= PMUSCOPE_EV_EL0;
	if (!attr->exclude_kernel)
		flags |= pmuscope_kernel_flag(kel);
	if (!attr->exclude_hv && kel == 1)
		flags |= PMUSCOPE_EV_EL2;
	return flags;
}

static int pmuscope_ppmu_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	u32 flags;

	if (attr->type != event->pmu->type)
		return -ENOENT;
	/* No branch records, no idle filter. */
	if (has_branch_stack(event) || attr->exclude_idle)
		return -EOPNOTSUPP;
	/*
	 * Sampling: pmuscope's own sampling counters alone (perf sets the
	 * handler before it calls here, a child's from its parent's), with
	 * a period within STREAM's, no frequency.
	 */
	if (is_sampling_event(event) &&
	    (!pmuscope_perf_sampling_ours(event) || attr->freq ||
	     attr->sample_period < PMUSCOPE_STREAM_PERIOD_MIN ||
	     attr->sample_period > PMUSCOPE_STREAM_PERIOD_MAX))
		return -EOPNOTSUPP;
	if (attr->config > PMUSCOPE_EVTYPER_EVTCOUNT || attr->config == 0x1e)
		return -EINVAL;
	/* Only pmuscope's own sessions make sentinels: they count nothing. */
	if (attr->config1 == PMUSCOPE_PPMU_SENTINEL && !attr->pinned)
		return -EINVAL;
	flags = pmuscope_ppmu_flags(attr);
	if (!flags)
		return -EINVAL;
	/*
	 * exclude_hv=0 under a non-VHE kernel counts EL2, which pmuscope's
	 * policy treats as the kernel (PMUSCOPE_POL_KERNEL, as the ioctl
	 * path asks for PMUSCOPE_EV_EL2); perf's core asks it only of
	 * exclude_kernel=0. A caller's own perf_event_open() of this PMU,
	 * or pmuscope's CONFIG (whose caller passed the same check): an
	 * inherited event's parent was checked, and a fork must not fail.
	 */
	if ((flags & PMUSCOPE_EV_EL2) && attr->exclude_kernel && !event->parent &&
	    !pmuscope_policy_kernel_allowed())
		return -EACCES;
	event->hw.config_base = pmuscope_evtyper(attr->config, flags);
	event->hw.idx = -1;
	if (event->attach_state & PERF_ATTACH_TASK)
		pmuscope_ppmu_pin(event);
	return 0;
}

/* The engine's 64-bit count of counter @idx. pmu->lock held, on the CPU. */
static u64 pmuscope_ppmu_count(struct pmuscope_pmu *pmu, unsigned int idx)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];

	return hwc->on_hw ? pmuscope_hwc_fold(pmu, idx) : hwc->saved;
}

/* Fold what counter hw.idx counted since the last update into the event. */
static void pmuscope_ppmu_update(struct pmuscope_pmu *pmu, struct perf_event *event)
{
	u64 now = pmuscope_ppmu_count(pmu, event->hw.idx);
	u64 prev = local64_xchg(&event->hw.prev_count, now);

	local64_add(now - prev, &event->count);
}

static void pmuscope_ppmu_start(struct perf_event *event, int flags)
{
	struct pmuscope_el0 *el0 = pmuscope_ppmu_el0(event);
	struct pmuscope_pmu *pmu = pmuscope_ppmu_local();
	unsigned long irqflags;
	int idx = event->hw.idx;
	u64 now;

	if (pmuscope_ppmu_sentinel(event))
		return;

	if (WARN_ON_ONCE(!pmu || idx < 0))
		return;
	raw_spin_lock_irqsave(&pmu->lock, irqflags);
	now = ktime_get_ns();
	if (is_sampling_event(event)) {
		u64 period = event->attr.sample_period;
		u64 left = local64_read(&event->hw.period_left);

		/*
		 * Preloaded as it starts (pmuscope_hwc_hw_on()) with what is
		 * left of its period at the last stop (a context switch, a
		 * rotation), as perf's PMU drivers do: restarted from a whole
		 * period, a task switched out more often than a period takes
		 * would never be sampled. Then every period again (reloads).
		 */
		if (!left || left > period)
			left = period;
		pmuscope_hwc_set_sampling(pmu, idx, left, now);
		pmuscope_hwc_set_enabled(pmu, idx, true, now);
		pmu->hwc[idx].sample_period = period;
	} else {
		pmuscope_hwc_set_enabled(pmu, idx, true, now);
	}
	local64_set(&event->hw.prev_count, pmuscope_ppmu_count(pmu, idx));
	event->hw.state = 0;
	if (el0) {
		pmuscope_el0_start(pmu, el0, pmu->hwc[idx].slot, idx,
				   local64_read(&event->count) -
				   local64_read(&event->hw.prev_count),
				   event->total_time_enabled, event->total_time_running);
		/* The session was made, or enabled, while its thread runs here. */
		if (pmu->el0 != el0 && current == el0->task)
			pmuscope_el0_reserve(pmu, el0, pmuscope_ppmu_run(), false);
		pmuscope_el0_grant(pmu, el0);
	}
	raw_spin_unlock_irqrestore(&pmu->lock, irqflags);
}

/*
 * The events that sampling counter @idx, just stopped, had left to count
 * to its overflow: from its last value folded to 2^width. More than its
 * period (it overflowed, or counts on past that throttled) says none.
 */
static u64 pmuscope_ppmu_left(const struct pmuscope_pmu *pmu, unsigned int idx)
{
	const struct pmuscope_hwc *hwc = &pmu->hwc[idx];
	u64 left = -hwc->last_hw;

	if (pmuscope_hwc_width(pmu, idx) == 32)
		left &= U32_MAX;
	return hwc->irq_off || left > hwc->sample_period ? 0 : left;
}

static void pmuscope_ppmu_stop(struct perf_event *event, int flags)
{
	struct pmuscope_pmu *pmu = pmuscope_ppmu_local();
	unsigned long irqflags;
	int idx = event->hw.idx;
	bool on_hw;
	u64 now;

	if (pmuscope_ppmu_sentinel(event))
		return;
	if (WARN_ON_ONCE(!pmu || idx < 0) || (event->hw.state & PERF_HES_STOPPED))
		return;
	raw_spin_lock_irqsave(&pmu->lock, irqflags);
	pmuscope_ppmu_update(pmu, event);
	now = ktime_get_ns();
	on_hw = pmu->hwc[idx].on_hw;
	pmuscope_hwc_set_enabled(pmu, idx, false, now);
	if (is_sampling_event(event)) {
		/*
		 * What is left of the period for the next start: the events
		 * from the value the stop folded (hwc->last_hw) to the
		 * overflow. None when it overflowed (a sample the interrupt
		 * will not take now) or counts on past it throttled: a whole
		 * period then (pmuscope_ppmu_start()).
		 */
		if (on_hw)
			local64_set(&event->hw.period_left,
				    pmuscope_ppmu_left(pmu, idx));
		/* Not throttled any more either: a window of its own at the next start. */
		pmuscope_hwc_set_sampling(pmu, idx, 0, now);
	}
	event->hw.state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (pmuscope_ppmu_el0(event))
		pmuscope_el0_stop(pmuscope_ppmu_el0(event), pmu->hwc[idx].slot);
	raw_spin_unlock_irqrestore(&pmu->lock, irqflags);
}

/*
 * Take a free counter of this CPU: a sampling CPU_CYCLES event, or one
 * read at EL0, the cycle counter when it is free (PMCCFILTR_EL0 has the
 * same filter bits); anything else the lowest free event counter, a
 * counting CPU_CYCLES event the cycle counter only when no event counter
 * is free. A task's stream samples with a second CPU_CYCLES event beside
 * the counting one (pmuscope_perf.c), added after it: the cycle counter is
 * left to the sampling one, whose overflow comes on time where a 32-bit
 * event counter's does not always (QEMU under -icount raises it only at
 * the next exception: Documentation/testing.rst). -EAGAIN when none is
 * free: perf multiplexes.
 */
static int pmuscope_ppmu_add(struct perf_event *event, int flags)
{
	struct pmuscope_el0 *el0 = pmuscope_ppmu_el0(event);
	struct pmuscope_pmu *pmu = pmuscope_ppmu_local();
	unsigned long irqflags, free;
	struct pmuscope_hwc *hwc;
	int idx = -EAGAIN;

	if (pmuscope_ppmu_sentinel(event)) {
		/*
		 * The thread is switched in (or re-added where it runs): never
		 * fails, not even on a CPU without a usable PMU (a pinned event
		 * that fails stays in error, and its del() would never come
		 * again to revoke elsewhere).
		 */
		event->hw.idx = -1;
		event->hw.state = 0;
		if (!pmu || !pmu->usable || !el0 || current != el0->task)
			return 0;
		raw_spin_lock_irqsave(&pmu->lock, irqflags);
		/* Added here, enabled or not: a later ENABLE's counters grant. */
		pmu->el0_here = el0;
		if (READ_ONCE(el0->enabled))
			pmuscope_el0_reserve(pmu, el0, pmuscope_ppmu_run(), pmu->el0 != el0);
		raw_spin_unlock_irqrestore(&pmu->lock, irqflags);
		return 0;
	}
	if (!pmu || !pmu->usable)
		return -ENOENT;
	raw_spin_lock_irqsave(&pmu->lock, irqflags);
	if (!pmu->hw_ready)
		goto out;
	free = pmuscope_el0_all(pmu) & ~pmu->allocated;
	/* Counters open to another thread at EL0 are its alone until it leaves. */
	if (pmu->el0 && pmu->el0 != el0)
		free &= ~pmu->el0_open;
	if (event->attr.config == 0x11 && (free & BIT(PMUSCOPE_CYCLE_IDX)) &&
	    (is_sampling_event(event) || el0 || !(free & ~BIT(PMUSCOPE_CYCLE_IDX))))
		idx = PMUSCOPE_CYCLE_IDX;
	else if (free & ~BIT(PMUSCOPE_CYCLE_IDX))
		idx = __ffs(free & ~BIT(PMUSCOPE_CYCLE_IDX));
	if (idx < 0)
		goto out;

	hwc = &pmu->hwc[idx];
	memset(hwc, 0, sizeof(*hwc));
	WRITE_ONCE(hwc->owner, &pmuscope_ppmu_owner);	/* read without our locks */
	hwc->event = event->attr.config;
	hwc->evtyper = event->hw.config_base;
	pmu->allocated |= BIT(idx);
	if (el0) {
		hwc->el0 = el0;
		hwc->slot = pmuscope_ppmu_el0_slot(el0, event);
	}
	if (is_sampling_event(event)) {
		this_cpu_ptr(&pmuscope_ppmu_cpu)->sampling[idx] = event;
		this_cpu_ptr(&pmuscope_ppmu_cpu)->sampling_mask |= BIT(idx);
	}
	event->hw.idx = idx;
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
out:
	raw_spin_unlock_irqrestore(&pmu->lock, irqflags);
	if (idx >= 0 && (flags & PERF_EF_START))
		pmuscope_ppmu_start(event, PERF_EF_RELOAD);
	return idx < 0 ? idx : 0;
}

static void pmuscope_ppmu_del(struct perf_event *event, int flags)
{
	struct pmuscope_el0 *el0 = pmuscope_ppmu_el0(event);
	struct pmuscope_pmu *pmu = pmuscope_ppmu_local();
	unsigned long irqflags;
	int idx = event->hw.idx;

	if (pmuscope_ppmu_sentinel(event)) {
		if (!pmu || !el0)
			return;
		raw_spin_lock_irqsave(&pmu->lock, irqflags);
		if (pmu->el0_here == el0)
			pmu->el0_here = NULL;
		if (pmu->el0 == el0 && pmuscope_ppmu_leaving(pmu, el0))
			pmuscope_el0_revoke(pmu);
		raw_spin_unlock_irqrestore(&pmu->lock, irqflags);
		return;
	}
	if (WARN_ON_ONCE(!pmu || idx < 0))
		return;
	pmuscope_ppmu_stop(event, PERF_EF_UPDATE);
	raw_spin_lock_irqsave(&pmu->lock, irqflags);
	WRITE_ONCE(pmu->hwc[idx].owner, NULL);	/* read without our locks */
	pmu->hwc[idx].el0 = NULL;
	this_cpu_ptr(&pmuscope_ppmu_cpu)->sampling[idx] = NULL;
	this_cpu_ptr(&pmuscope_ppmu_cpu)->sampling_mask &= ~BIT(idx);
	pmu->allocated &= ~BIT(idx);
	/*
	 * Deleted while its thread runs here (a CPU event installed,
	 * multiplexing): the grant stays until the thread leaves.
	 */
	if (el0 && pmu->el0 == el0 && pmuscope_ppmu_leaving(pmu, el0))
		pmuscope_el0_revoke(pmu);
	raw_spin_unlock_irqrestore(&pmu->lock, irqflags);
	event->hw.idx = -1;
}

/*
 * The end of a batch of perf's adds and deletes on this CPU (perf calls
 * pmu_enable() once its per-CPU disable count is back to 0: after a
 * context switch in or out, a context rescheduled for a new event, a
 * rotation). A grant lasts only while its session's sentinel is added
 * here: perf can take the events away without the sentinel's del() at a
 * switch, so del() alone cannot be relied on to revoke. begin_new_exec()
 * of a setuid or non-dumpable binary detaches them with
 * perf_event_exit_task() while the thread keeps running (del() comes,
 * but for a thread that is not leaving), and merge_sched_in() leaves a
 * pinned group that could not go on in ERROR without an add(), so the
 * counters of the session may be granted without a sentinel whose del()
 * would revoke. Both end here.
 */
static void pmuscope_ppmu_enable(struct pmu *ppmu)
{
	struct pmuscope_pmu *pmu = pmuscope_ppmu_local();
	unsigned long irqflags;

	if (!pmu || !READ_ONCE(pmu->el0))
		return;
	raw_spin_lock_irqsave(&pmu->lock, irqflags);
	if (pmu->el0 && pmu->el0_here != pmu->el0)
		pmuscope_el0_revoke(pmu);
	raw_spin_unlock_irqrestore(&pmu->lock, irqflags);
}

/* Nothing to stop for a batch: the counters run through it. */
static void pmuscope_ppmu_disable(struct pmu *ppmu)
{
}

static void pmuscope_ppmu_read(struct perf_event *event)
{
	struct pmuscope_pmu *pmu = pmuscope_ppmu_local();
	unsigned long irqflags;

	if (!pmu || event->hw.idx < 0 || (event->hw.state & PERF_HES_STOPPED) ||
	    pmuscope_ppmu_sentinel(event))
		return;
	raw_spin_lock_irqsave(&pmu->lock, irqflags);
	pmuscope_ppmu_update(pmu, event);
	raw_spin_unlock_irqrestore(&pmu->lock, irqflags);
}

/*
 * The overflow interrupt's sampling counters of @sampled that are perf
 * events' (the rest are sessions', pmuscope_stream_samples()): those that
 * took a sample, returned, and those the engine just throttled (its
 * sample_limit) in *@throttled. On the CPU, pmu->lock held.
 */
unsigned long pmuscope_ppmu_sampled(unsigned long sampled, unsigned long *throttled)
{
	struct pmuscope_pmu *pmu = pmuscope_ppmu_local();
	unsigned long idx, samples = 0;

	*throttled = 0;
	/* Most interrupts are sessions' alone: no perf event's counter. */
	sampled &= this_cpu_ptr(&pmuscope_ppmu_cpu)->sampling_mask;
	if (!sampled || !pmu)
		return 0;
	for_each_set_bit(idx, &sampled, PMUSCOPE_NR_COUNTERS) {
		if (pmu->hwc[idx].irq_off)
			*throttled |= BIT(idx);
		else
			samples |= BIT(idx);
	}
	return samples;
}

/*
 * Their records (pmuscope_ppmu_sampled()): each event's overflow handler
 * with the interrupt's @regs, or its THROTTLED record. Out of pmu->lock
 * (the handler may read counters: pmuscope_ppmu_read()), still in the
 * interrupt: no add() or del() on this CPU meanwhile.
 */
void pmuscope_ppmu_samples(unsigned long samples, unsigned long throttled,
			   struct pt_regs *regs)
{
	struct perf_event **evs = this_cpu_ptr(&pmuscope_ppmu_cpu)->sampling;
	unsigned long idx, all = samples | throttled;

	for_each_set_bit(idx, &all, PMUSCOPE_NR_COUNTERS) {
		struct perf_event *pe = evs[idx];
		struct perf_sample_data data;
		perf_overflow_handler_t handler;

		if (!pe)
			continue;
		if (throttled & BIT(idx)) {
			pmuscope_perf_throttled(pe);
			continue;
		}
		perf_sample_data_init(&data, 0, pe->attr.sample_period);
		handler = READ_ONCE(pe->overflow_handler);
		handler(pe, &data, regs);
	}
}

/*
 * Before 6.2 the perf core lets a second PMU (this one, loaded again) into
 * perf_hw_context only with PERF_PMU_CAP_HETEROGENEOUS_CPUS, which says
 * what is true here too: one engine serves every CPU, of whatever type.
 * Later kernels have no such flag.
 */
#ifdef PERF_PMU_CAP_HETEROGENEOUS_CPUS
#define PMUSCOPE_PPMU_CAPS	PERF_PMU_CAP_HETEROGENEOUS_CPUS
#else
#define PMUSCOPE_PPMU_CAPS	0
#endif

static struct pmu pmuscope_ppmu = {
	.module = THIS_MODULE,
	.task_ctx_nr = perf_hw_context,
	.capabilities = PMUSCOPE_PPMU_CAPS,
	.pmu_enable = pmuscope_ppmu_enable,
	.pmu_disable = pmuscope_ppmu_disable,
	.event_init = pmuscope_ppmu_event_init,
	.add = pmuscope_ppmu_add,
	.del = pmuscope_ppmu_del,
	.start = pmuscope_ppmu_start,
	.stop = pmuscope_ppmu_stop,
	.read = pmuscope_ppmu_read,
};

/* The perf type of pmuscope's PMU, -1 when not registered. */
int pmuscope_ppmu_type(void)
{
	return pmuscope_ppmu_reg ? pmuscope_ppmu_reg->type : -1;
}

int pmuscope_ppmu_register(void)
{
	struct pmu *ppmu = pmuscope_ppmu_alloc(&pmuscope_ppmu);
	int ret = ppmu ? perf_pmu_register(ppmu, PMUSCOPE_DRV_NAME, -1) : -ENOMEM;

	if (ret) {
		/* Never registered: nothing can point at the copy. */
		if (ppmu != &pmuscope_ppmu)
			kfree(ppmu);
		pmuscope_ppmu_reg = NULL;
		pr_warn("cannot register with perf (%d): no task counting, no multiplexing\n",
			ret);
	}
	return ret;
}

void pmuscope_ppmu_unregister(void)
{
	if (!pmuscope_ppmu_reg)
		return;
	perf_pmu_unregister(pmuscope_ppmu_reg);
	pmuscope_ppmu_unpin_all();
}
