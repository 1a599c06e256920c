// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: sessions counted by perf events.
 *
 * (On the direct backend, task targets and multiplexed sessions are perf
 * events too, on pmuscope's own PMU: pmuscope_ppmu.c.)
 *
 * On a stock kernel perf's PMUv3 driver (CONFIG_ARM_PMUV3, built in on
 * arm64) drives the PMU. pmuscope's "perf" backend then writes no PMU
 * register: every event of a session is an in-kernel perf counter
 * (perf_event_create_kernel_counter()) on perf's PMU, and perf places,
 * multiplexes, folds and switches it per task. Task targets (what
 * `pmuscope stat -- cmd` counts) are always counted this way.
 *
 * The perf core checks the *caller's* privilege when a CPU counter is
 * created (perf_event_paranoid; Debian sets 3): pmuscope checks its own
 * rules first (CAP_PERFMON or the group for CPUs; the caller's own thread
 * for a task, other threads with CAP_PERFMON) and then creates the counter
 * with the kernel's credentials.
 *
 * Per-CPU counters are detached by perf when their CPU goes offline and
 * never come back by themselves: the CPU hotplug callbacks release them
 * (carrying their totals) and create them again.
 *
 * Streams (PMUSCOPE_IOC_STREAM): a sampling counter per slot (CPU, or
 * PMU type of a task) whose overflow handler writes SAMPLE records, and
 * for a CPU session an hrtimer per CPU for time-based records: see
 * "streams" below.
 *
 * Locking: as sessions (cpus_read_lock() or the hotplug callbacks, then
 * pmuscope_drv.lock); the perf core takes its own locks inside.
 */

#define pr_fmt(fmt) "pmuscope: " fmt

#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/error-injection.h>
#include <linux/hrtimer.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"
#include "pmuscope_modifiers.h"

/* The kernel's credentials, for perf_event_create_kernel_counter(). */
static const struct cred *pmuscope_kcred;

/*
 * The perf PMU types of the CPUs' PMUs (several on big.LITTLE): a task
 * counter exists once per type, its values summed. Found at load from a
 * counter created on each CPU.
 */
#define PMUSCOPE_MAX_PMU_TYPES		8
static u32 pmuscope_pmu_types[PMUSCOPE_MAX_PMU_TYPES];
static unsigned int pmuscope_nr_pmu_types;
static bool pmuscope_perf_no_irq;	/* a PMU cannot interrupt: poll */
/* The type of CPU counters: perf's PMUs (raw), or pmuscope's own. */
static u32 pmuscope_cpu_pmu_type = PERF_TYPE_RAW;
static struct delayed_work pmuscope_perf_poll_work;

/* ----------------------------------------------------------------- events */

/* The perf attributes of event @ev. -EOPNOTSUPP if perf cannot say it. */
static int pmuscope_perf_attr(const struct pmuscope_sess_event *ev, u32 type,
			      bool task, u32 cfg_flags, struct perf_event_attr *attr)
{
	unsigned int kel = pmuscope_kernel_el();

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = ev->event;
	attr->disabled = 1;
	attr->exclude_user = !(ev->flags & PMUSCOPE_EV_EL0);
	attr->exclude_kernel = !(ev->flags & pmuscope_kernel_flag(kel));
	/* perf's exclude_hv is EL2 under a non-VHE kernel; nothing says EL1 on VHE. */
	if (kel == 2 && (ev->flags & PMUSCOPE_EV_EL1))
		return -EOPNOTSUPP;
	attr->exclude_hv = kel == 2 || !(ev->flags & PMUSCOPE_EV_EL2);
	if (task) {
		attr->inherit = !!(cfg_flags & PMUSCOPE_CFG_INHERIT);
		attr->enable_on_exec = !!(cfg_flags & PMUSCOPE_CFG_ENABLE_ON_EXEC);
	}
	return 0;
}

/*
 * noinline and ALLOW_ERROR_INJECTION: the reliability gate makes the perf
 * core refuse counters here (fail_function), at CONFIG and at CPU online.
 */
static noinline struct perf_event *pmuscope_perf_create(struct perf_event_attr *attr,
							int cpu, struct task_struct *task,
							perf_overflow_handler_t handler,
							void *context)
{
	const struct cred *old = override_creds(pmuscope_kcred);
	struct perf_event *pe;

	pe = perf_event_create_kernel_counter(attr, cpu, task, handler, context);
	revert_creds(old);
	if (!IS_ERR(pe) && (pe->pmu->capabilities & PERF_PMU_CAP_NO_INTERRUPT) &&
	    !READ_ONCE(pmuscope_perf_no_irq)) {
		WRITE_ONCE(pmuscope_perf_no_irq, true);
		mod_delayed_work(system_wq, &pmuscope_perf_poll_work,
				 nsecs_to_jiffies(pmuscope_engine.poll_ns));
	}
	return pe;
}

ALLOW_ERROR_INJECTION(pmuscope_perf_create, ERRNO);

static struct pmuscope_pevent *pmuscope_pev(struct pmuscope_session *sess,
					    unsigned int slot, unsigned int i)
{
	return &sess->pev[slot * sess->nr_events + i];
}

/* Fold @pev's counter into its carried totals and release it. */
static void pmuscope_pev_release(struct pmuscope_pevent *pev)
{
	u64 enabled, running, count;

	if (!pev->pe)
		return;
	count = perf_event_read_value(pev->pe, &enabled, &running);
	pev->count += count;
	pev->enabled += enabled;
	pev->running += running;
	perf_event_release_kernel(pev->pe);
	pev->pe = NULL;
}

/* The slots of @sess: CPU numbers, or one per PMU type for a task. */
static unsigned int pmuscope_psess_slots(const struct pmuscope_session *sess)
{
	return sess->target == PMUSCOPE_TARGET_TASK ? pmuscope_nr_pmu_types : nr_cpu_ids;
}

static bool pmuscope_slot_used(const struct pmuscope_session *sess, unsigned int slot)
{
	return sess->target == PMUSCOPE_TARGET_TASK || cpumask_test_cpu(slot, sess->cpus);
}

/*
 * An INHERIT task session. perf gives each child the thread creates an
 * inherited counter (on the parent's child_list), born in the state of the
 * parent counter at the fork. perf_event_disable() and perf_event_enable(),
 * all the in-kernel API has, reach the parent alone: PERF_EVENT_IOC_DISABLE
 * reaches the children through perf_event_for_each_child(), which calls
 * the unexported _perf_event_disable() under child_mutex; a module cannot,
 * as perf_event_disable() takes the child context's mutex, which nests
 * outside child_mutex (the child's exit holds it and then waits for
 * child_mutex), and nothing else keeps a child alive. So the counters of
 * such a session count from CONFIG (or from the exec, with ENABLE_ON_EXEC)
 * until it is released, children born at any time included, and ENABLE,
 * DISABLE and RESET act on what READ shows: DISABLE holds the totals,
 * ENABLE adds what was counted meanwhile to the offsets.
 */
static bool pmuscope_psess_inherit(const struct pmuscope_session *sess)
{
	return sess->target == PMUSCOPE_TARGET_TASK && (sess->cfg_flags & PMUSCOPE_CFG_INHERIT);
}

/*
 * ENABLE_ON_EXEC. perf arms a counter of attr.enable_on_exec for the
 * task's next exec, where perf_event_enable_on_exec() (kernel/events/
 * core.c, event_enable_on_exec(), 6.1 and 6.12) clears the flag and turns
 * the counter on if it is off, under the task context's lock. Nothing
 * else clears it: perf_event_disable() (PERF_EVENT_IOC_DISABLE's
 * _perf_event_disable() too) only sets the state OFF, so a counter
 * disabled before the exec still starts there, and one made with the flag
 * after the exec starts at the next exec, disabled or not. pmuscope's
 * arming ends at the first exec or at DISABLE (Documentation/ioctl.rst):
 * DISABLE clears the flag here, under the lock the exec takes, and then
 * turns the counter off: the exec came first (and the counter goes off
 * after it) or finds it disarmed.
 *
 * Is @pe still armed (the flag set, the counter off: the exec to come)?
 * With @disarm the flag is cleared too.
 */
static bool pmuscope_pe_exec_armed(struct perf_event *pe, bool disarm)
{
	struct perf_event_context *ctx;
	unsigned long flags;
	bool armed;

	/* perf_event_ctx_lock()'s loop: the context a counter is in may change. */
	rcu_read_lock();
	for (;;) {
		ctx = READ_ONCE(pe->ctx);
		raw_spin_lock_irqsave(&ctx->lock, flags);
		if (ctx == READ_ONCE(pe->ctx))
			break;
		raw_spin_unlock_irqrestore(&ctx->lock, flags);
	}
	armed = pe->attr.enable_on_exec && pe->state == PERF_EVENT_STATE_OFF;
	if (disarm)
		pe->attr.enable_on_exec = 0;
	raw_spin_unlock_irqrestore(&ctx->lock, flags);
	rcu_read_unlock();
	return armed;
}

/* Create the counters of @slot of @sess (enabled if the session is). */
static int pmuscope_psess_create_slot(struct pmuscope_session *sess, unsigned int slot)
{
	bool task = sess->target == PMUSCOPE_TARGET_TASK;
	struct perf_event_attr attr;
	u32 i;
	int ret;

	for (i = 0; i < sess->nr_events; i++) {
		struct pmuscope_pevent *pev = pmuscope_pev(sess, slot, i);
		struct perf_event *pe;

		ret = pmuscope_perf_attr(&sess->ev[i],
					 task ? pmuscope_pmu_types[slot] : pmuscope_cpu_pmu_type,
					 task, sess->cfg_flags, &attr);
		if (ret)
			return ret;
		pe = pmuscope_perf_create(&attr, task ? -1 : slot, task ? sess->task : NULL,
					  NULL, NULL);
		if (IS_ERR(pe)) {
			/* A task's PMU type that does not take this event: none there. */
			if (task && pmuscope_nr_pmu_types > 1 && PTR_ERR(pe) == -ENOENT)
				continue;
			return PTR_ERR(pe);
		}
		pev->pe = pe;
		/* INHERIT: on from the start (or armed for the exec). */
		if (sess->enabled || (pmuscope_psess_inherit(sess) &&
				      !(sess->cfg_flags & PMUSCOPE_CFG_ENABLE_ON_EXEC)))
			perf_event_enable(pe);
	}
	return 0;
}

static void pmuscope_psess_release_slot(struct pmuscope_session *sess, unsigned int slot)
{
	u32 i;

	for (i = 0; i < sess->nr_events; i++)
		pmuscope_pev_release(pmuscope_pev(sess, slot, i));
}

/* ------------------------------------------------------------ EL0 access */

/* On each CPU: close EL0 access if @info's thread holds it here. */
static void pmuscope_el0_revoke_here(void *info)
{
	struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[smp_processor_id()];

	if (!pcpu)
		return;
	raw_spin_lock(&pcpu->pmu.lock);
	if (pcpu->pmu.el0 == info)
		pmuscope_el0_revoke(&pcpu->pmu);
	raw_spin_unlock(&pcpu->pmu.lock);
}

/*
 * EL0 access for the task session @sess (PMUSCOPE_CFG_USER_READ), whose
 * counters exist, disabled: the page, the events' pmu_private, and the
 * sentinel, enabled now: from here on the thread's switches grant and
 * revoke (pmuscope_ppmu.c).
 */
static int pmuscope_el0_open(struct pmuscope_session *sess)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = pmuscope_pmu_types[0],
		.config1 = PMUSCOPE_PPMU_SENTINEL,
		.pinned = 1,
		.disabled = 1,
	};
	struct pmuscope_el0 *el0;
	struct perf_event *pe;
	u32 i;

	el0 = pmuscope_el0_alloc(sess->task, sess->nr_events,
				 sess->cfg_flags & PMUSCOPE_CFG_USER_SWINC);
	if (!el0)
		return -ENOMEM;
	pe = pmuscope_perf_create(&attr, -1, sess->task, NULL, NULL);
	if (IS_ERR(pe)) {
		pmuscope_el0_free(el0);
		return PTR_ERR(pe);
	}
	el0->sentinel = pe;
	for (i = 0; i < sess->nr_events; i++) {
		el0->pe[i] = pmuscope_pev(sess, 0, i)->pe;
		el0->pe[i]->pmu_private = el0;
	}
	pe->pmu_private = el0;
	perf_event_enable(pe);
	smp_store_release(&sess->el0, el0);	/* for pmuscope_mmap() */
	return 0;
}

/*
 * The thread's own DISABLE leaves EL0 access at once: it is in the
 * kernel, not reading. Another thread's waits for the switch-out (the
 * owner may be reading now).
 */
static void pmuscope_el0_disable(struct pmuscope_el0 *el0)
{
	struct pmuscope_cpu *pcpu;
	unsigned long flags;

	WRITE_ONCE(el0->enabled, false);
	if (current != el0->task)
		return;
	local_irq_save(flags);
	pcpu = pmuscope_drv.cpus[smp_processor_id()];
	if (pcpu) {
		raw_spin_lock(&pcpu->pmu.lock);
		if (pcpu->pmu.el0 == el0)
			pmuscope_el0_revoke(&pcpu->pmu);
		raw_spin_unlock(&pcpu->pmu.lock);
	}
	local_irq_restore(flags);
}

/*
 * Before the counters go: no new grant, and none left on any CPU (a
 * thread running there may trap on its next MRS: closing the session
 * under a thread that reads is the program's error).
 */
static void pmuscope_el0_close(struct pmuscope_session *sess)
{
	struct pmuscope_el0 *el0 = sess->el0;
	unsigned long flags;

	raw_spin_lock_irqsave(&el0->lock, flags);
	el0->closing = true;
	raw_spin_unlock_irqrestore(&el0->lock, flags);
	on_each_cpu(pmuscope_el0_revoke_here, el0, 1);
}

/* No CPU may name @info as the session whose sentinel it has (it goes). */
static void pmuscope_el0_forget_here(void *info)
{
	struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[smp_processor_id()];

	if (!pcpu)
		return;
	raw_spin_lock(&pcpu->pmu.lock);
	if (pcpu->pmu.el0_here == info)
		pcpu->pmu.el0_here = NULL;
	raw_spin_unlock(&pcpu->pmu.lock);
}

/* After the counters: the sentinel and the page (which a mapping may keep). */
static void pmuscope_el0_release(struct pmuscope_session *sess)
{
	perf_event_release_kernel(sess->el0->sentinel);
	on_each_cpu(pmuscope_el0_forget_here, sess->el0, 1);
	pmuscope_el0_free(sess->el0);
	sess->el0 = NULL;
}

/* ----------------------------------------------- perf's switch-hook key */

/*
 * perf's switch hooks are behind a static key, perf_sched_events, on
 * while any task event exists: the first one enables it (account_event():
 * static_branch_enable() -> static_key_enable(), which takes
 * cpus_read_lock() on kernels built with JUMP_LABEL, as distributions'
 * are). CONFIG and STREAM make task events (counters, the EL0 sentinel,
 * sampling counters) under cpus_read_lock(): a second read of the
 * hotplug lock, which a CPU hotplug waiting between the two would
 * deadlock (a waiting writer stops new readers). So they hold a task
 * event of their own across, made before any lock of theirs: a disabled
 * software dummy of the calling thread, whose making turns the key on if
 * it is off; theirs then only count up. NULL if it could not be made
 * (then the key is on already, or nothing of theirs will be made either).
 */
struct perf_event *pmuscope_perf_sched_hold(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct perf_event *pe;

	might_sleep();
	lockdep_assert_not_held(&pmuscope_drv.lock);
	pe = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	return IS_ERR(pe) ? NULL : pe;
}

/* After the locks: the key goes off a second after the last task event. */
void pmuscope_perf_sched_release(struct perf_event *hold)
{
	if (hold)
		perf_event_release_kernel(hold);
}

/* ------------------------------------------------------------- streams */

/*
 * The stream of a session on one slot (pmuscope_session.psample[slot]):
 * its sampling counter, and on a CPU its timer. The sampling counter's
 * overflow_handler_context. An INHERIT task's children sample too:
 * perf's inherit_event() (kernel/events/core.c, 6.1 and 6.12) gives each
 * child counter the parent's overflow_handler and
 * overflow_handler_context, and perf_event_release_kernel() of the
 * parent frees the children's counters first: no handler runs on a
 * struct freed after it.
 *
 * A second counter, not the counting one of stream_index with a period:
 * perf throttles a sampling counter that interrupts too often
 * (kernel.perf_event_max_sample_rate, perf_cpu_time_max_percent) by
 * stopping it until the next tick, and what a stopped counter does not
 * count would be missing from READ. The counting counters never
 * interrupt and count on; the sampling one costs a hardware counter more
 * (perf multiplexes when the PMU has none left, as for any event).
 *
 * A sampling counter of CPU_CYCLES on perf's PMU, a CPU's or a task's, is
 * pinned. perf places pinned counters before flexible ones (a CPU's, then
 * the task's: ctx_sched_in()), and perf's PMUv3 driver gives CPU_CYCLES
 * the cycle counter when it is free (armv8pmu_get_event_idx(), 6.1 and
 * 6.12); flexible, the sampling counter came after the session's counting
 * counter of the same event (older) and always got an event counter.
 * (pmuscope's own PMU, a task's on the direct backend, gives a sampling
 * CPU_CYCLES event the cycle counter first: pmuscope_ppmu_add(). Its
 * sampler stays flexible, since a pinned event that finds no counter
 * there, the engine's CPU sessions holding them, would stay in error.)
 * QEMU 7.2 predicts an event counter's overflow one event early
 * (pmevcntr_op_finish(): -(count + 1)); under -icount its PMU timer
 * fires exactly then, finds no overflow and is not armed again, so the
 * overflow is seen at the next exception (on a busy
 * CPU, the tick's): one sample per tick, whatever the period, for
 * perf_event_open()'s counters as for pmuscope's. The cycle counter's is
 * right: a task's stream on perf's PMU kept a third of perf_event_open()'s
 * samples before its sampler was pinned too (t-fidelity.sh). Pinned, the
 * sampling counter keeps its counter while the counting ones multiplex;
 * one that finds no counter at all (other pinned users fill the PMU) is
 * in error, without samples, until the session is enabled again (an
 * INHERIT session's children's: until they exit; not reported).
 */
struct pmuscope_psample {
	struct pmuscope_session *sess;
	unsigned int slot;
	struct perf_event *pe;		/* the sampling counter; NULL: none */
	struct hrtimer timer;		/* time-based records (a CPU) ... */
	u64 timer_ns;			/* ... every so many ns ... */
	bool timer_on;			/* ... started */
};

/* perf's MAX_INTERRUPTS (kernel/events/core.c, 6.1 and 6.12): throttled. */
#define PMUSCOPE_PERF_THROTTLED		(~0ULL)

/*
 * The records being made on each CPU: [0] by the overflow handler, which
 * runs in NMI under pseudo-NMI and may interrupt [1], the timer's (hard
 * IRQ). Neither nests in itself.
 */
static DEFINE_PER_CPU(u64 [2][PMUSCOPE_REC_MAX_WORDS], pmuscope_perf_rec);

/*
 * perf_event_read_local() of a CPU counter of this CPU, which is not
 * exported (kernel/events/core.c, 6.1 and 6.12): the count, brought up
 * to date if the counter is on the PMU now (else as perf left it when it
 * took it off: multiplexed). Hard IRQ, IRQs off, as perf's: perf puts a
 * counter on the PMU and takes it off (pmu->add(), pmu->del(), ->oncpu)
 * with IRQs off, so no such change is half done here. An NMI (the PMU
 * interrupt under pseudo-NMI) may come between pmu->del() and ->oncpu's
 * update, where pmu->read() would read counter -1: no counts then.
 */
static int pmuscope_perf_read_here(struct perf_event *pe, u64 *count)
{
	int cpu = smp_processor_id();

	if (!pe || pe->cpu != cpu || in_nmi())
		return -EINVAL;
	if (READ_ONCE(pe->oncpu) == cpu)
		pe->pmu->read(pe);
	*count = local64_read(&pe->count);
	return 0;
}

/*
 * A record of @ps's session on this CPU: SAMPLE with the session's counts
 * here (a CPU session; a task's carry none: READ gives them) and where
 * @regs found the CPU. A count that cannot be read here (the counter is
 * gone, or belongs to another CPU: neither should happen while the
 * stream runs) makes a record without counts (nr 0), as a task's: never
 * a count that is not the session's. Hard IRQ or NMI: nothing here
 * sleeps, locks (but the ring's, NMI-safe) or reads ktime.
 */
static void pmuscope_perf_emit(struct pmuscope_psample *ps, u64 *buf, struct pt_regs *regs,
			       u32 flags)
{
	struct pmuscope_session *sess = ps->sess;
	struct pmuscope_record *rec = (struct pmuscope_record *)buf;
	u64 *counts = (u64 *)(rec + 1);
	u32 i, nr = sess->target == PMUSCOPE_TARGET_CPUS ? sess->nr_events : 0;

	memset(rec, 0, sizeof(*rec));
	rec->type = PMUSCOPE_REC_SAMPLE;
	rec->cpu = smp_processor_id();
	rec->time = pmuscope_hw_syscnt();
	rec->flags = flags;
	for (i = 0; i < nr; i++) {
		struct pmuscope_pevent *pev = pmuscope_pev(sess, ps->slot, i);
		u64 c;

		if (pmuscope_perf_read_here(READ_ONCE(pev->pe), &c)) {
			nr = 0;
			break;
		}
		counts[i] = READ_ONCE(pev->count) + c - READ_ONCE(pev->offset);
	}
	rec->nr = nr;
	rec->size = sizeof(*rec) + nr * sizeof(u64);
	pmuscope_stream_put_sample(sess, rec, regs);
}

/*
 * The overflow handler of a sampling counter (or of one inherited from
 * it, in a child of the task): a SAMPLE record. perf calls it after
 * counting the interrupt (__perf_event_account_interrupt(), 6.1 and
 * 6.12): a counter that this overflow throttled has hw.interrupts ==
 * MAX_INTERRUPTS, and perf stops it until its next tick; the record
 * that follows this sample says so: THROTTLED (pmuscope's own
 * sample_limit is the direct engine's: perf's limits are perf's here).
 * No record while the session is disabled: an INHERIT task session's
 * counters stay on then (pmuscope_psess_inherit()), and no other's should
 * run (pmuscope_pe_exec_armed()), but a record of a disabled session is
 * never the session's, whatever turned its counter on.
 */
static void pmuscope_perf_overflow(struct perf_event *pe, struct perf_sample_data *data,
				   struct pt_regs *regs)
{
	struct pmuscope_psample *ps = pe->overflow_handler_context;
	struct pmuscope_session *sess = ps->sess;

	if (!READ_ONCE(sess->enabled))
		return;
	pmuscope_perf_emit(ps, (*this_cpu_ptr(&pmuscope_perf_rec))[0], regs, 0);
	if (pe->hw.interrupts == PMUSCOPE_PERF_THROTTLED)
		pmuscope_perf_throttled(pe);
}

/*
 * The THROTTLED record of sampling counter @pe (or of one inherited from
 * it) on this CPU: perf throttled it (above), or, on pmuscope's own PMU,
 * the engine did (its sample_limit: pmuscope_ppmu_samples()). Hard IRQ
 * or NMI.
 */
void pmuscope_perf_throttled(struct perf_event *pe)
{
	struct pmuscope_psample *ps = pe->overflow_handler_context;
	struct pmuscope_record thr = {
		.type = PMUSCOPE_REC_THROTTLED, .size = sizeof(thr),
	};

	if (!READ_ONCE(ps->sess->enabled))
		return;
	thr.cpu = smp_processor_id();
	thr.time = pmuscope_hw_syscnt();
	pmuscope_ring_write(ps->sess->ring, &thr, sizeof(thr));
}

/*
 * Is @pe one of pmuscope's sampling counters, or inherited from one (perf
 * gives a child its parent's handler before the PMU's event_init)? The
 * only sampling events pmuscope's own PMU takes (pmuscope_ppmu.c).
 */
bool pmuscope_perf_sampling_ours(const struct perf_event *pe)
{
	return READ_ONCE(pe->overflow_handler) == pmuscope_perf_overflow;
}

/* The CPU's stream timer: a time-based record of the session here. */
static enum hrtimer_restart pmuscope_perf_timer(struct hrtimer *timer)
{
	struct pmuscope_psample *ps = container_of(timer, struct pmuscope_psample, timer);

	pmuscope_perf_emit(ps, (*this_cpu_ptr(&pmuscope_perf_rec))[1], get_irq_regs(),
			   PMUSCOPE_REC_F_TIMER);
	hrtimer_forward_now(timer, ns_to_ktime(ps->timer_ns));
	return HRTIMER_RESTART;
}

/* On the CPU of the slot: the timer is pinned here. */
static void pmuscope_perf_timer_start(void *info)
{
	struct pmuscope_psample *ps = info;

	hrtimer_start(&ps->timer, ns_to_ktime(ps->timer_ns), HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * Stop the stream of @slot: the timer, then the sampling counter.
 * perf_event_release_kernel() takes the counter off its CPU (and every
 * counter inherited from it off theirs) with a cross call: a handler
 * running there has returned by then, and none runs after. Process
 * context.
 */
static void pmuscope_psample_stop_slot(struct pmuscope_session *sess, unsigned int slot)
{
	struct pmuscope_psample *ps;

	if (!sess->psample)
		return;
	ps = &sess->psample[slot];
	if (ps->timer_on) {
		hrtimer_cancel(&ps->timer);
		ps->timer_on = false;
	}
	if (ps->pe) {
		perf_event_release_kernel(ps->pe);
		ps->pe = NULL;
	}
}

/* Every slot's stream stopped, and their memory freed. */
static void pmuscope_psample_free(struct pmuscope_session *sess)
{
	unsigned int slot;

	if (!sess->psample)
		return;
	for (slot = 0; slot < pmuscope_psess_slots(sess); slot++)
		pmuscope_psample_stop_slot(sess, slot);
	kvfree(sess->psample);
	sess->psample = NULL;
}

/*
 * Are the counting counters of the sampled event still armed for the
 * exec (pmuscope_pe_exec_armed())? Every slot's are, or none: the first
 * that exists says.
 */
static bool pmuscope_psample_armed(struct pmuscope_session *sess)
{
	unsigned int slot;

	for (slot = 0; slot < pmuscope_psess_slots(sess); slot++) {
		struct pmuscope_pevent *pev = pmuscope_pev(sess, slot, sess->stream_index);

		if (pev->pe)
			return pmuscope_pe_exec_armed(pev->pe, false);
	}
	return false;
}

/*
 * The sampling counter of @slot, as the counting ones (pmuscope_perf_attr():
 * the event's levels, so a session that may not count the kernel samples
 * none of it; inherit of a task session) with the stream's period, and
 * enable_on_exec only while the counting ones are still armed for the
 * exec: made after the exec (or a DISABLE) with it, perf would turn the
 * counter on at the task's next exec, the session disabled or not.
 */
static int pmuscope_psample_create(struct pmuscope_session *sess, unsigned int slot)
{
	struct pmuscope_psample *ps = &sess->psample[slot];
	bool task = sess->target == PMUSCOPE_TARGET_TASK;
	struct perf_event_attr attr;
	struct perf_event *pe;
	bool armed;
	int ret;

	ret = pmuscope_perf_attr(&sess->ev[sess->stream_index],
				 task ? pmuscope_pmu_types[slot] : pmuscope_cpu_pmu_type,
				 task, sess->cfg_flags, &attr);
	if (ret)
		return ret;
	attr.sample_period = sess->stream_period;
	armed = attr.enable_on_exec && pmuscope_psample_armed(sess);
	attr.enable_on_exec = armed;
	/* On the cycle counter, before the counting counter (see "streams"). */
	if (attr.config == PMUSCOPE_EVENT_CPU_CYCLES && (!task || pmuscope_backend_perf()))
		attr.pinned = 1;
	/*
	 * The kernel's credentials: the caller's rules were checked at
	 * CONFIG, and the attributes are the counting counters'.
	 */
	pe = pmuscope_perf_create(&attr, task ? -1 : (int)slot, task ? sess->task : NULL,
				  pmuscope_perf_overflow, ps);
	if (IS_ERR(pe)) {
		/* A PMU type of the task that does not take this event: none there. */
		if (task && pmuscope_nr_pmu_types > 1 && PTR_ERR(pe) == -ENOENT)
			return 0;
		return PTR_ERR(pe);
	}
	ps->pe = pe;
	/*
	 * Armed: the exec turns it on with the counting counters (one task
	 * context, one lock). The exec may have come between the look above
	 * and the counter's making: looked at again now that it exists, the
	 * exec is past and the flag goes. Else on as the counting counters
	 * are: with the session (INHERIT: from the start, the handler drops
	 * samples while the session is disabled).
	 */
	if (armed && !pmuscope_psample_armed(sess)) {
		pmuscope_pe_exec_armed(pe, true);
		armed = false;
	}
	if (!armed && (sess->enabled || pmuscope_psess_inherit(sess)))
		perf_event_enable(pe);
	return 0;
}

/* Start the stream of @slot as the session's last STREAM asked. */
static int pmuscope_psample_start_slot(struct pmuscope_session *sess, unsigned int slot)
{
	struct pmuscope_psample *ps = &sess->psample[slot];
	int ret;

	ps->sess = sess;
	ps->slot = slot;
	if (sess->stream_index != PMUSCOPE_STREAM_NO_EVENT) {
		ret = pmuscope_psample_create(sess, slot);
		if (ret)
			return ret;
	}
	if (sess->stream_ms && sess->target == PMUSCOPE_TARGET_CPUS) {
		ps->timer_ns = (u64)sess->stream_ms * NSEC_PER_MSEC;
		hrtimer_init(&ps->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		ps->timer.function = pmuscope_perf_timer;
		ret = smp_call_function_single(slot, pmuscope_perf_timer_start, ps, 1);
		if (ret)
			return ret;
		ps->timer_on = true;
	}
	return 0;
}

/*
 * The direct engine's overflow interrupt, which pmuscope's own PMU
 * samples with (pmuscope_ppmu.c): not in mode=poll.
 */
static bool pmuscope_perf_ppmu_samples(void)
{
	return pmuscope_ppmu_type() >= 0 && pmuscope_engine.mode == PMUSCOPE_FOLD_IRQ &&
	       pmuscope_engine.irq;
}

/*
 * Do task sessions sample (PMUSCOPE_FEAT_STREAM_TASK)? On perf's PMU, if
 * it interrupts (known from the probe's counters); on the direct backend
 * through pmuscope's own PMU, with the engine's overflow interrupt.
 */
bool pmuscope_perf_stream_task(void)
{
	if (!pmuscope_backend_perf())
		return pmuscope_perf_ppmu_samples();
	return pmuscope_nr_pmu_types && !READ_ONCE(pmuscope_perf_no_irq);
}

/* Does @sess stream (its last STREAM asked for records)? */
static bool pmuscope_psample_on(const struct pmuscope_session *sess)
{
	return sess->psample && (sess->stream_ms ||
				 sess->stream_index != PMUSCOPE_STREAM_NO_EVENT);
}

/*
 * Slot @slot came (CPU online): its stream again. A counter perf refuses
 * now leaves the slot without samples (said in the log); its counts go on.
 */
static void pmuscope_psample_online(struct pmuscope_session *sess, unsigned int slot)
{
	int ret;

	if (!pmuscope_psample_on(sess))
		return;
	ret = pmuscope_psample_start_slot(sess, slot);
	if (ret) {
		pr_warn("cpu%u: session %u: no samples after CPU online (%d)\n",
			slot, sess->id, ret);
		pmuscope_psample_stop_slot(sess, slot);
	}
}

/*
 * What perf events cannot stream (-EOPNOTSUPP), before the ring is made:
 *  - on the direct backend (perf events on pmuscope's own PMU) a
 *    multiplexed CPU session: its CPUs' counters are the engine's and
 *    perf's at once, the direct engine samples CPUs with a session of
 *    fewer events; and a task's samples without the engine's overflow
 *    interrupt (mode=poll);
 *  - samples (sample_index) from a perf PMU without an overflow
 *    interrupt (PERF_PMU_CAP_NO_INTERRUPT);
 *  - time-based records (period_ms) of a task: a task has no CPU whose
 *    timer would be its own.
 */
static int pmuscope_perf_stream_check(const struct pmuscope_session *sess,
				      const struct pmuscope_stream *st)
{
	bool sampling = st->sample_index != PMUSCOPE_STREAM_NO_EVENT;

	if (!pmuscope_backend_perf() &&
	    (sess->target != PMUSCOPE_TARGET_TASK || (sampling && !pmuscope_perf_ppmu_samples())))
		return -EOPNOTSUPP;
	if (sampling && READ_ONCE(pmuscope_perf_no_irq))
		return -EOPNOTSUPP;
	if (st->period_ms && sess->target != PMUSCOPE_TARGET_CPUS)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * STREAM on perf events (pmuscope_perf_stream_check() passed): what the
 * session's last STREAM asked (stream_ms, stream_index, stream_period),
 * the old stream stopped first. On error nothing streams.
 */
static int pmuscope_perf_stream(struct pmuscope_session *sess)
{
	bool sampling = sess->stream_index != PMUSCOPE_STREAM_NO_EVENT;
	unsigned int slot, slots = pmuscope_psess_slots(sess);
	int ret = 0;

	pmuscope_psample_free(sess);
	if (!sampling && !sess->stream_ms)
		return 0;
	sess->psample = kvcalloc(slots, sizeof(*sess->psample), GFP_KERNEL_ACCOUNT);
	if (!sess->psample)
		return -ENOMEM;
	for (slot = 0; slot < slots && !ret; slot++) {
		if (!pmuscope_slot_used(sess, slot) ||
		    (sess->target == PMUSCOPE_TARGET_CPUS && !cpu_online(slot)))
			continue;
		ret = pmuscope_psample_start_slot(sess, slot);
	}
	if (ret)
		pmuscope_psample_free(sess);
	return ret;
}

/* ------------------------------------------------------------- sessions */

/* Release every counter of @sess; caller holds the session locks. */
static void pmuscope_psess_release(struct pmuscope_session *sess)
{
	unsigned int slot;

	if (!sess->pev)
		return;
	/* The stream first: its handlers read the counting counters. */
	pmuscope_psample_free(sess);
	if (sess->el0)
		pmuscope_el0_close(sess);
	for (slot = 0; slot < pmuscope_psess_slots(sess); slot++)
		pmuscope_psess_release_slot(sess, slot);
	if (sess->el0)
		pmuscope_el0_release(sess);
	kvfree(sess->pev);
	sess->pev = NULL;
	if (sess->task) {
		put_task_struct(sess->task);
		sess->task = NULL;
	}
}

/*
 * Create the counters of a configuration that sess->ev, nr_events, target,
 * task/cpus and cfg_flags already describe. On error nothing is left.
 */
static int pmuscope_psess_configure(struct pmuscope_session *sess)
{
	unsigned int slot, slots = pmuscope_psess_slots(sess);
	int ret = 0;

	if (!slots)
		return -ENODEV;
	sess->pev = kvcalloc(slots * sess->nr_events, sizeof(*sess->pev),
			     GFP_KERNEL_ACCOUNT);
	if (!sess->pev)
		return -ENOMEM;
	for (slot = 0; slot < slots && !ret; slot++) {
		if (!pmuscope_slot_used(sess, slot) ||
		    (sess->target == PMUSCOPE_TARGET_CPUS && !cpu_online(slot)))
			continue;
		ret = pmuscope_psess_create_slot(sess, slot);
	}
	if (!ret && (sess->cfg_flags & PMUSCOPE_CFG_USER_READ))
		ret = pmuscope_el0_open(sess);
	if (ret)
		pmuscope_psess_release(sess);
	return ret;
}

/* The running totals of event @i of @slot: carried plus the live counter. */
static void pmuscope_pev_total(struct pmuscope_pevent *pev, u64 *count,
			       u64 *enabled, u64 *running)
{
	u64 e = 0, r = 0, c = 0;

	if (pev->pe)
		c = perf_event_read_value(pev->pe, &e, &r);
	*count = pev->count + c;
	*enabled = pev->enabled + e;
	*running = pev->running + r;
}

/* The totals READ starts from: held while an INHERIT session is disabled. */
static void pmuscope_pev_now(const struct pmuscope_session *sess,
			     struct pmuscope_pevent *pev, u64 *count,
			     u64 *enabled, u64 *running)
{
	if (pmuscope_psess_inherit(sess) && !sess->enabled) {
		*count = pev->held_count;
		*enabled = pev->held_enabled;
		*running = pev->held_running;
		return;
	}
	pmuscope_pev_total(pev, count, enabled, running);
}

/* INHERIT (pmuscope_psess_inherit()): the counters stay on, READ holds. */
static void pmuscope_pev_hold(struct pmuscope_pevent *pev, bool enable)
{
	u64 c, e, r;

	pmuscope_pev_total(pev, &c, &e, &r);
	if (enable) {
		/* What was counted while disabled is not the session's. */
		pev->offset += c - pev->held_count;
		pev->off_enabled += e - pev->held_enabled;
		pev->off_running += r - pev->held_running;
		if (pev->pe)
			perf_event_enable(pev->pe);	/* ENABLE_ON_EXEC, before the exec */
	} else {
		pev->held_count = c;
		pev->held_enabled = e;
		pev->held_running = r;
	}
}

/*
 * ENABLE and DISABLE. DISABLE ends ENABLE_ON_EXEC's arming: the flag goes
 * before the counter is turned off (pmuscope_pe_exec_armed()), so no exec
 * starts it again; ENABLE after it counts at once. An INHERIT session's
 * counters keep theirs (they stay on: pmuscope_psess_inherit()).
 */
static void pmuscope_psess_enable(struct pmuscope_session *sess, bool enable)
{
	bool onexec = sess->target == PMUSCOPE_TARGET_TASK &&
		      (sess->cfg_flags & PMUSCOPE_CFG_ENABLE_ON_EXEC);
	unsigned int slot, i;

	if (sess->el0 && enable)
		WRITE_ONCE(sess->el0->enabled, true);

	for (slot = 0; slot < pmuscope_psess_slots(sess); slot++) {
		for (i = 0; i < sess->nr_events; i++) {
			struct pmuscope_pevent *pev = pmuscope_pev(sess, slot, i);

			if (pmuscope_psess_inherit(sess)) {
				pmuscope_pev_hold(pev, enable);
			} else if (!pev->pe) {
				continue;
			} else if (enable) {
				perf_event_enable(pev->pe);
			} else {
				if (onexec)
					pmuscope_pe_exec_armed(pev->pe, true);
				perf_event_disable(pev->pe);
			}
		}
		/* INHERIT: on, as the counting counters (ENABLE_ON_EXEC: before the exec). */
		if (sess->psample && sess->psample[slot].pe) {
			struct perf_event *pe = sess->psample[slot].pe;

			if (enable) {
				perf_event_enable(pe);
			} else if (!pmuscope_psess_inherit(sess)) {
				if (onexec)
					pmuscope_pe_exec_armed(pe, true);
				perf_event_disable(pe);
			}
		}
	}
	if (sess->el0 && !enable)
		pmuscope_el0_disable(sess->el0);
}

/* RESET: counts and times from zero (the flags follow from them). */
static void pmuscope_psess_reset(struct pmuscope_session *sess)
{
	u64 el0_offset[PMUSCOPE_MAX_EVENTS] = {};
	unsigned int slot, i;

	for (slot = 0; slot < pmuscope_psess_slots(sess); slot++)
		for (i = 0; i < sess->nr_events; i++) {
			struct pmuscope_pevent *pev = pmuscope_pev(sess, slot, i);

			if (!pmuscope_slot_used(sess, slot))
				continue;
			pmuscope_pev_now(sess, pev, &pev->offset, &pev->off_enabled,
					 &pev->off_running);
			el0_offset[i] = pev->offset;
		}
	/* An EL0 session has one slot, pmuscope's own PMU. */
	if (sess->el0)
		pmuscope_el0_reset(sess->el0, el0_offset);
}

/* Number of values a READ of @sess gives. */
static u32 pmuscope_psess_nr_values(const struct pmuscope_session *sess)
{
	if (sess->target == PMUSCOPE_TARGET_TASK)
		return sess->nr_events;
	return sess->nr_events * cpumask_weight(sess->cpus);
}

/*
 * READ: for CPUs, nr_events values per CPU in ascending CPU order; for a
 * task, one value per event (the PMU types of big.LITTLE summed).
 */
static void pmuscope_psess_sum(struct pmuscope_session *sess, struct pmuscope_value *vals)
{
	unsigned int slot, i;

	for (slot = 0; slot < pmuscope_psess_slots(sess); slot++) {
		if (!pmuscope_slot_used(sess, slot))
			continue;
		for (i = 0; i < sess->nr_events; i++) {
			struct pmuscope_pevent *pev = pmuscope_pev(sess, slot, i);
			struct pmuscope_value *v = &vals[i];
			u64 c, e, r;

			pmuscope_pev_now(sess, pev, &c, &e, &r);
			v->count += c - pev->offset;
			v->time_enabled += e - pev->off_enabled;
			v->time_running += r - pev->off_running;
			v->index = i;
			v->counter = PMUSCOPE_COUNTER_NONE;
			v->cpu = sess->target == PMUSCOPE_TARGET_TASK ? PMUSCOPE_CPU_ANY : slot;
			if (sess->target == PMUSCOPE_TARGET_CPUS && !pev->pe)
				v->flags |= pev->lost ? PMUSCOPE_VAL_LOST :
					    PMUSCOPE_VAL_OFFLINE;
			if (v->time_running < v->time_enabled)
				v->flags |= PMUSCOPE_VAL_MULTIPLEXED;
			if (pev->pe && pev->pe->state == PERF_EVENT_STATE_ERROR)
				v->flags |= PMUSCOPE_VAL_LOST;
		}
		if (sess->target == PMUSCOPE_TARGET_CPUS)
			vals += sess->nr_events;
	}
}

/* READ: the values of @sess into @vals, @nr of them. */
static void pmuscope_psess_read(struct pmuscope_session *sess, struct pmuscope_value *vals,
				u32 nr)
{
	memset(vals, 0, nr * sizeof(*vals));
	pmuscope_psess_sum(sess, vals);
}

/* One value: event @i of @sess on CPU @cpu (a CPU target). */
void pmuscope_psess_read_one(struct pmuscope_session *sess, unsigned int cpu,
			     unsigned int i, struct pmuscope_value *v)
{
	struct pmuscope_pevent *pev = pmuscope_pev(sess, cpu, i);
	u64 c, e, r;

	pmuscope_pev_now(sess, pev, &c, &e, &r);
	memset(v, 0, sizeof(*v));
	v->count = c - pev->offset;
	v->time_enabled = e - pev->off_enabled;
	v->time_running = r - pev->off_running;
	v->cpu = cpu;
	v->index = i;
	v->counter = PMUSCOPE_COUNTER_NONE;
}

static void pmuscope_perf_enable(struct pmuscope_session *sess)
{
	pmuscope_psess_enable(sess, true);
}

static void pmuscope_perf_disable(struct pmuscope_session *sess)
{
	pmuscope_psess_enable(sess, false);
}

/* SNAPSHOT: the counters read one after another. */
static int pmuscope_perf_snapshot(struct pmuscope_session *sess,
				  struct pmuscope_snap_args *a, u32 lead_us)
{
	unsigned int cpu, pos = 0;
	u64 t0, t1;

	memset(sess->vbuf, 0, pmuscope_psess_nr_values(sess) * sizeof(*sess->vbuf));
	t0 = pmuscope_hw_syscnt();
	pmuscope_psess_sum(sess, sess->vbuf);
	t1 = pmuscope_hw_syscnt();
	for_each_cpu(cpu, sess->cpus) {
		struct pmuscope_snap_cpu *sc = &a->cpus[pos++];

		memset(sc, 0, sizeof(*sc));
		sc->cpu = cpu;
		/* Nothing counts on an offline CPU, nor in a disabled session. */
		if (!cpu_online(cpu)) {
			sc->method = PMUSCOPE_SNAP_IDLE;
			sc->flags = PMUSCOPE_SNAPCPU_OFFLINE;
		} else if (!sess->enabled) {
			sc->method = PMUSCOPE_SNAP_IDLE;
			sc->time = t0;
		} else {
			sc->method = PMUSCOPE_SNAP_PERF;
			sc->time = t0;
			sc->spread = t1 - t0;
		}
	}
	return 0;
}

/*
 * Sessions of the perf backend, and on the direct backend those of a task
 * or with more events than counters (perf events on pmuscope's own PMU).
 * perf's counters are perf's: no SWINC, no hardware snapshot; STREAM
 * through perf's own sampling (pmuscope_perf_stream()).
 */
const struct pmuscope_backend_ops pmuscope_perf_ops = {
	.name		= "perf",
	.hw_counters	= false,
	.configure	= pmuscope_psess_configure,
	.release	= pmuscope_psess_release,
	.enable		= pmuscope_perf_enable,
	.disable	= pmuscope_perf_disable,
	.reset		= pmuscope_psess_reset,
	.read		= pmuscope_psess_read,
	.snapshot	= pmuscope_perf_snapshot,
	.stream_check	= pmuscope_perf_stream_check,
	.stream		= pmuscope_perf_stream,
};

/* ------------------------------------------------------------ CPU hotplug */

/* @cpu came online: the CPU sessions that include it count there again. */
void pmuscope_perf_cpu_online(unsigned int cpu)
{
	struct pmuscope_session *sess;
	int ret;

	mutex_lock(&pmuscope_drv.lock);
	list_for_each_entry(sess, &pmuscope_drv.sessions, node) {
		if (!sess->pev || sess->target != PMUSCOPE_TARGET_CPUS ||
		    !cpumask_test_cpu(cpu, sess->cpus))
			continue;
		ret = pmuscope_psess_create_slot(sess, cpu);
		if (ret) {
			u32 i;

			pr_warn("cpu%u: session %u: cannot count again after CPU online (%d)\n",
				cpu, sess->id, ret);
			pmuscope_psess_release_slot(sess, cpu);
			/* READ says LOST from now on, not OFFLINE. */
			for (i = 0; i < sess->nr_events; i++)
				pmuscope_pev(sess, cpu, i)->lost = true;
			continue;
		}
		pmuscope_psample_online(sess, cpu);
	}
	mutex_unlock(&pmuscope_drv.lock);
}

/* @cpu goes offline: its counters' totals are carried, the counters freed. */
void pmuscope_perf_cpu_offline(unsigned int cpu)
{
	struct pmuscope_session *sess;

	mutex_lock(&pmuscope_drv.lock);
	list_for_each_entry(sess, &pmuscope_drv.sessions, node)
		if (sess->pev && sess->target == PMUSCOPE_TARGET_CPUS &&
		    cpumask_test_cpu(cpu, sess->cpus)) {
			/* The stream first: a timer would move to another CPU. */
			pmuscope_psample_stop_slot(sess, cpu);
			pmuscope_psess_release_slot(sess, cpu);
		}
	mutex_unlock(&pmuscope_drv.lock);
}

/* ------------------------------------------------------------ no interrupt */

/*
 * A PMU without an interrupt (PERF_PMU_CAP_NO_INTERRUPT) folds a counter's
 * wraps only when it is read: read every counter at least once a poll
 * period, the period pmuscope's own polling uses.
 */
static void pmuscope_perf_poll(struct work_struct *work)
{
	struct pmuscope_session *sess;
	unsigned int slot, i;
	u64 c, e, r;

	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	list_for_each_entry(sess, &pmuscope_drv.sessions, node)
		for (slot = 0; sess->pev && slot < pmuscope_psess_slots(sess); slot++)
			for (i = 0; i < sess->nr_events; i++)
				pmuscope_pev_total(pmuscope_pev(sess, slot, i), &c, &e, &r);
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	schedule_delayed_work(&pmuscope_perf_poll_work,
			      nsecs_to_jiffies(pmuscope_engine.poll_ns));
}

/* ------------------------------------------------------------ load/unload */

/*
 * Does perf's PMU driver drive the CPUs' PMUs? A disabled CPU-cycles
 * counter is created on every online CPU (it programs nothing): any CPU
 * where it exists has perf's driver; only -ENOENT means "no PMU driver".
 * The PMU types seen are kept for task counters. Returns 1, 0 or -errno.
 */
int pmuscope_perf_probe(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.config = 0x11,		/* CPU_CYCLES */
		.disabled = 1,
	};
	struct perf_event *pe;
	unsigned int cpu, t;
	int ret = 0;

	if (!IS_ENABLED(CONFIG_HW_PERF_EVENTS))
		return 0;
	pmuscope_kcred = prepare_kernel_cred(&init_task);
	if (!pmuscope_kcred)
		return -ENOMEM;
	INIT_DELAYED_WORK(&pmuscope_perf_poll_work, pmuscope_perf_poll);
	pmuscope_nr_pmu_types = 0;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		pe = pmuscope_perf_create(&attr, cpu, NULL, NULL, NULL);
		if (IS_ERR(pe)) {
			if (PTR_ERR(pe) != -ENOENT) {
				ret = PTR_ERR(pe);
				break;
			}
			continue;
		}
		ret = 1;
		for (t = 0; t < pmuscope_nr_pmu_types; t++)
			if (pmuscope_pmu_types[t] == pe->pmu->type)
				break;
		if (t == pmuscope_nr_pmu_types && t < PMUSCOPE_MAX_PMU_TYPES)
			pmuscope_pmu_types[pmuscope_nr_pmu_types++] = pe->pmu->type;
		perf_event_release_kernel(pe);
	}
	cpus_read_unlock();
	return ret;
}

/*
 * Direct backend: task and multiplexed counters are perf events on
 * pmuscope's own PMU (pmuscope_ppmu.c), of perf type @type.
 */
void pmuscope_perf_use_ppmu(int type)
{
	pmuscope_pmu_types[0] = type;
	pmuscope_nr_pmu_types = 1;
	pmuscope_cpu_pmu_type = type;
}

void pmuscope_perf_exit(void)
{
	if (!pmuscope_kcred)
		return;
	cancel_delayed_work_sync(&pmuscope_perf_poll_work);
	put_cred(pmuscope_kcred);
	pmuscope_kcred = NULL;
}
