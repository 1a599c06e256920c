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
 * Locking: as sessions (cpus_read_lock() or the hotplug callbacks, then
 * pmuscope_drv.lock); the perf core takes its own locks inside.
 */

#define pr_fmt(fmt) "pmuscope: " fmt

#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/error-injection.h>
#include <linux/perf_event.h>
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
							int cpu, struct task_struct *task)
{
	const struct cred *old = override_creds(pmuscope_kcred);
	struct perf_event *pe;

	pe = perf_event_create_kernel_counter(attr, cpu, task, NULL, NULL);
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
		pe = pmuscope_perf_create(&attr, task ? -1 : slot, task ? sess->task : NULL);
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
	pe = pmuscope_perf_create(&attr, -1, sess->task);
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

/* ------------------------------------------------------------- sessions */

/* Release every counter of @sess; caller holds the session locks. */
static void pmuscope_psess_release(struct pmuscope_session *sess)
{
	unsigned int slot;

	if (!sess->pev)
		return;
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

static void pmuscope_psess_enable(struct pmuscope_session *sess, bool enable)
{
	unsigned int slot, i;

	if (sess->el0 && enable)
		WRITE_ONCE(sess->el0->enabled, true);

	for (slot = 0; slot < pmuscope_psess_slots(sess); slot++) {
		for (i = 0; i < sess->nr_events; i++) {
			struct pmuscope_pevent *pev = pmuscope_pev(sess, slot, i);

			if (pmuscope_psess_inherit(sess))
				pmuscope_pev_hold(pev, enable);
			else if (!pev->pe)
				continue;
			else if (enable)
				perf_event_enable(pev->pe);
			else
				perf_event_disable(pev->pe);
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
 * perf's counters are perf's: no STREAM, no SWINC, no hardware snapshot.
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
		}
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
		    cpumask_test_cpu(cpu, sess->cpus))
			pmuscope_psess_release_slot(sess, cpu);
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
		pe = pmuscope_perf_create(&attr, cpu, NULL);
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
