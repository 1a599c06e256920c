// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: sessions. A session (an open /dev/pmuscope, or the sysfs
 * session of one CPU) owns counters on a set of CPUs, one per configured
 * event and CPU, and enables, disables, resets and reads them together.
 *
 * Locking: cpus_read_lock() (CPUs neither come nor go), then
 * pmuscope_drv.lock (sessions and counter ownership), then the session's
 * own lock (its state, for its READ), then on each CPU pmu->lock with IRQs
 * off (counter state and registers). READ takes cpus_read_lock() and the
 * session's lock only.
 */

#define pr_fmt(fmt) "pmuscope: " fmt

#include <linux/cpu.h>
#include <linux/ktime.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"
#include "pmuscope_modifiers.h"
#include "pmuscope_regs.h"

static u8 *pmuscope_sess_hw(struct pmuscope_session *sess, unsigned int cpu)
{
	return &sess->hw[cpu * PMUSCOPE_MAX_EVENTS];
}

/* The counters of @sess on @cpu: the first @nr of @plan (NULL: none). */
static void pmuscope_sess_set_hw(struct pmuscope_session *sess, unsigned int cpu,
				 const u8 *plan, u32 nr)
{
	u8 *hw = pmuscope_sess_hw(sess, cpu);

	if (plan) {
		memcpy(hw, plan, PMUSCOPE_MAX_EVENTS);
		sess->hw_mask[cpu] = pmuscope_idx_mask(hw, nr);
	} else {
		memset(hw, PMUSCOPE_NO_COUNTER, PMUSCOPE_MAX_EVENTS);
		sess->hw_mask[cpu] = 0;
	}
}

static struct pmuscope_pmu *pmuscope_pmu_of(unsigned int cpu)
{
	return &pmuscope_drv.cpus[cpu]->pmu;
}

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

void pmuscope_session_describe(const struct pmuscope_session *sess,
			       char *buf, size_t len)
{
	if (sess == &pmuscope_ppmu_owner)
		snprintf(buf, len, "perf events (task or multiplexed sessions)");
	else if (sess->sysfs_cpu >= 0)
		snprintf(buf, len, "sysfs");
	else
		snprintf(buf, len, "session %u (pid %d, %s)", sess->id, sess->pid,
			 sess->comm);
}

/* ------------------------------------------------------------ per-CPU ops */
enum pmuscope_op {
	PMUSCOPE_OP_ASSIGN,
	PMUSCOPE_OP_RELEASE,
	PMUSCOPE_OP_ENABLE,
	PMUSCOPE_OP_DISABLE,
	PMUSCOPE_OP_RESET,
	PMUSCOPE_OP_READ,
	PMUSCOPE_OP_SWINC,
	PMUSCOPE_OP_STREAM,
};

struct pmuscope_op_args {
	struct pmuscope_session *sess;
	unsigned int cpu;
	enum pmuscope_op op;
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

/* Runs on args->cpu (or anywhere while it is offline). */
static void pmuscope_op_on_cpu(void *info)
{
	struct pmuscope_op_args *a = info;
	struct pmuscope_session *sess = a->sess;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(a->cpu);
	u8 *hw = pmuscope_sess_hw(sess, a->cpu);
	u64 now = ktime_get_ns();
	unsigned long flags;
	u32 i, batch = 0;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	if (a->op == PMUSCOPE_OP_READ) {
		pmuscope_pmu_read(pmu, hw, sess->nr_events, now, a->vals);
		raw_spin_unlock_irqrestore(&pmu->lock, flags);
		return;
	}
	/*
	 * A perf event (task counter, pmuscope_ppmu.c) may have taken a
	 * planned counter since the plan, or a thread running here may read
	 * it at EL0 (pmuscope_el0.c): assign nothing on this CPU then.
	 */
	if (a->op == PMUSCOPE_OP_ASSIGN) {
		for (i = 0; i < sess->nr_events; i++)
			if (hw[i] != PMUSCOPE_NO_COUNTER &&
			    (pmu->hwc[hw[i]].owner || (pmu->el0_open & BIT(hw[i])))) {
				a->ret = -EBUSY;
				raw_spin_unlock_irqrestore(&pmu->lock, flags);
				return;
			}
	}
	for (i = 0; i < sess->nr_events; i++) {
		unsigned int idx = hw[i];

		if (idx == PMUSCOPE_NO_COUNTER)
			continue;
		switch (a->op) {
		case PMUSCOPE_OP_ASSIGN:
			pmuscope_hwc_assign(&pmu->hwc[idx], sess, i);
			pmu->allocated |= BIT(idx);
			break;
		case PMUSCOPE_OP_RELEASE:
			if (pmu->hwc[idx].owner != sess)
				break;	/* never assigned (a failed ASSIGN) */
			pmuscope_hwc_set_enabled(pmu, idx, false, now);
			pmu->hwc[idx].sample_period = 0;
			WRITE_ONCE(pmu->hwc[idx].owner, NULL);
			pmu->allocated &= ~BIT(idx);
			break;
		case PMUSCOPE_OP_ENABLE:
			/* Started together below: one PMCNTENSET_EL0 write. */
			if (pmu->hwc[idx].enabled)
				break;
			pmu->hwc[idx].enabled = true;
			if (pmu->hw_ready)
				batch |= BIT(idx);
			break;
		case PMUSCOPE_OP_DISABLE:
			/* Stopped together below: one PMCNTENCLR_EL0 write. */
			if (!pmu->hwc[idx].enabled)
				break;
			pmu->hwc[idx].enabled = false;
			if (pmu->hwc[idx].on_hw)
				batch |= BIT(idx);
			break;
		case PMUSCOPE_OP_RESET:
			pmuscope_hwc_reset(pmu, idx, now);
			break;
		case PMUSCOPE_OP_STREAM:
			pmuscope_hwc_set_sampling(pmu, idx, i == sess->stream_index ?
						  sess->stream_period : 0, now);
			break;
		case PMUSCOPE_OP_READ:	/* pmuscope_pmu_read() above */
		case PMUSCOPE_OP_SWINC:
			break;
		}
	}
	if (a->op == PMUSCOPE_OP_ENABLE)
		pmuscope_pmu_start_mask(pmu, batch, now);
	else if (a->op == PMUSCOPE_OP_DISABLE)
		pmuscope_pmu_stop_mask(pmu, batch, now);
	/* Time-based records: this session's timer here, or none of it. */
	if (a->op == PMUSCOPE_OP_STREAM && sess->stream_ms)
		pmuscope_stream_set_timer(pmu, sess, (u64)sess->stream_ms * NSEC_PER_MSEC);
	else if ((a->op == PMUSCOPE_OP_STREAM || a->op == PMUSCOPE_OP_RELEASE) &&
		 pmu->stream_sess == sess)
		pmuscope_stream_set_timer(pmu, NULL, 0);
	if (a->op == PMUSCOPE_OP_SWINC && pmu->hw_ready)
		pmuscope_pmu_swinc(pmu, a->swinc_mask, a->swinc_count);
	if (a->op == PMUSCOPE_OP_ENABLE && pmu->hw_ready &&
	    pmuscope_pmu_needs_poll(pmu) && !hrtimer_active(&pmu->poll_timer))
		hrtimer_start(&pmu->poll_timer, ns_to_ktime(pmuscope_engine.poll_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

static void pmuscope_session_op(struct pmuscope_session *sess,
				enum pmuscope_op op, struct pmuscope_value *vals)
{
	struct pmuscope_op_args a = { .sess = sess, .op = op };
	unsigned int cpu;

	for_each_cpu(cpu, sess->cpus) {
		a.cpu = cpu;
		a.vals = vals;
		pmuscope_on_cpu(cpu, pmuscope_op_on_cpu, &a);
		if (vals)
			vals += sess->nr_events;
	}
}

/* ASSIGN on every CPU; stops at the first CPU where a counter was taken. */
static int pmuscope_session_assign(struct pmuscope_session *sess)
{
	struct pmuscope_op_args a = { .sess = sess, .op = PMUSCOPE_OP_ASSIGN };
	unsigned int cpu;

	for_each_cpu(cpu, sess->cpus) {
		a.cpu = cpu;
		pmuscope_on_cpu(cpu, pmuscope_op_on_cpu, &a);
		if (a.ret)
			return a.ret;
	}
	return 0;
}

/* --------------------------------------------------------- create/destroy */

/*
 * A session not yet on the driver's list; no lock needed. Its memory is
 * charged to the caller's memory cgroup (GFP_KERNEL_ACCOUNT): it is
 * allocated when a caller allowed to count configures, never at open.
 */
struct pmuscope_session *pmuscope_session_alloc(int sysfs_cpu)
{
	struct pmuscope_session *sess;

	sess = kzalloc(sizeof(*sess), GFP_KERNEL_ACCOUNT);
	if (!sess)
		return NULL;
	sess->hw = kmalloc_array(nr_cpu_ids, PMUSCOPE_MAX_EVENTS, GFP_KERNEL_ACCOUNT);
	sess->hw_mask = kcalloc(nr_cpu_ids, sizeof(*sess->hw_mask), GFP_KERNEL_ACCOUNT);
	if (!sess->hw || !sess->hw_mask ||
	    !zalloc_cpumask_var(&sess->cpus, GFP_KERNEL_ACCOUNT)) {
		kfree(sess->hw_mask);
		kfree(sess->hw);
		kfree(sess);
		return NULL;
	}
	memset(sess->hw, PMUSCOPE_NO_COUNTER, nr_cpu_ids * PMUSCOPE_MAX_EVENTS);
	mutex_init(&sess->lock);
	sess->only_cpu = -1;
	sess->stream_index = PMUSCOPE_STREAM_NO_EVENT;
	sess->sysfs_cpu = sysfs_cpu;
	sess->pid = sysfs_cpu >= 0 ? 0 : task_tgid_nr(current);
	get_task_comm(sess->comm, current);
	INIT_LIST_HEAD(&sess->node);
	return sess;
}

/* Free a session that holds no counter and is on no list. */
void pmuscope_session_free(struct pmuscope_session *sess)
{
	if (!sess)
		return;
	free_cpumask_var(sess->cpus);
	pmuscope_ring_free(sess->ring);
	pmuscope_spe_free(sess->spe);
	kvfree(sess->vbuf);
	kfree(sess->hw_mask);
	kfree(sess->hw);
	mutex_destroy(&sess->lock);
	kfree(sess);
}

/*
 * READ's buffer for @n values, allocated at CONFIG (before anything
 * changes) so that READ allocates nothing. Installed by
 * pmuscope_session_set_vbuf() under the session's lock.
 */
static struct pmuscope_value *pmuscope_vbuf_alloc(u32 n)
{
	return kvcalloc(n, sizeof(struct pmuscope_value), GFP_KERNEL_ACCOUNT);
}

/* Caller holds sess->lock; frees the old buffer, *@vbuf NULL after. */
static void pmuscope_session_set_vbuf(struct pmuscope_session *sess,
				      struct pmuscope_value **vbuf, u32 n)
{
	swap(sess->vbuf, *vbuf);
	sess->vbuf_n = n;
	kvfree(*vbuf);
	*vbuf = NULL;
}

/* Put @sess on the driver's list. Caller holds pmuscope_drv.lock. */
void pmuscope_session_link_locked(struct pmuscope_session *sess)
{
	lockdep_assert_held(&pmuscope_drv.lock);
	sess->id = ++pmuscope_drv.next_session_id;
	list_add_tail(&sess->node, &pmuscope_drv.sessions);
}

/* Give back every counter of @sess. Caller holds cpus and the driver lock. */
static void pmuscope_session_release(struct pmuscope_session *sess)
{
	unsigned int cpu;

	if (!sess->configured)
		return;
	if (sess->pev)
		pmuscope_psess_release(sess);
	else
		pmuscope_session_op(sess, PMUSCOPE_OP_RELEASE, NULL);
	for_each_cpu(cpu, sess->cpus)
		pmuscope_sess_set_hw(sess, cpu, NULL, 0);
	cpumask_clear(sess->cpus);
	sess->configured = false;
	sess->enabled = false;
	sess->nr_events = 0;
	sess->stream_ms = 0;
	sess->stream_index = PMUSCOPE_STREAM_NO_EVENT;
	sess->stream_period = 0;
	sess->target = PMUSCOPE_TARGET_CPUS;
	sess->cfg_flags = 0;
}

/*
 * Stop and release everything of @sess and take it off the list; the
 * caller frees it after dropping the locks (cpus and the driver lock).
 */
void pmuscope_session_unlink_locked(struct pmuscope_session *sess)
{
	lockdep_assert_held(&pmuscope_drv.lock);
	pmuscope_spe_release_locked(sess);
	mutex_lock(&sess->lock);
	pmuscope_session_release(sess);
	mutex_unlock(&sess->lock);
	list_del_init(&sess->node);
}

void pmuscope_session_destroy(struct pmuscope_session *sess)
{
	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	pmuscope_session_unlink_locked(sess);
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	pmuscope_session_free(sess);
}

/* ---------------------------------------------------------------- config */

/* Log who holds the counters of @cpu that @sess could not get. */
static void pmuscope_report_busy(struct pmuscope_session *sess, unsigned int cpu,
				 u32 taken)
{
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(cpu);
	char who[64], holder[64];
	unsigned long mask = taken;
	unsigned long idx;

	pmuscope_session_describe(sess, who, sizeof(who));
	pr_info_ratelimited("cpu%u: not enough free counters for %s\n", cpu, who);
	for_each_set_bit(idx, &mask, PMUSCOPE_NR_COUNTERS) {
		/*
		 * Read once: a task counter (pmuscope_ppmu.c) takes and gives
		 * back its counter as perf switches tasks, on its CPU, without
		 * our locks. A session's pointer stays valid under
		 * pmuscope_drv.lock (held), the task counters' is static.
		 */
		const struct pmuscope_session *owner = READ_ONCE(pmu->hwc[idx].owner);

		if (!owner)
			continue;	/* given back since */
		pmuscope_session_describe(owner, holder, sizeof(holder));
		pr_info_ratelimited("cpu%u: counter %lu%s held by %s\n", cpu, idx,
				    idx == PMUSCOPE_CYCLE_IDX ? " (cycle counter)" : "",
				    holder);
	}
}

/* Check a CPU of a configuration: -ENODEV absent, -ENXIO offline. */
static int pmuscope_cpu_check(unsigned int cpu)
{
	struct pmuscope_cpu *pcpu = cpu < nr_cpu_ids ? pmuscope_drv.cpus[cpu] : NULL;
	bool possible = pcpu && cpu_possible(cpu);

	return pmuscope_check_cpu(possible, possible && cpu_online(cpu),
				  possible && pcpu->probed ? &pcpu->caps : NULL);
}

/*
 * Configure @sess. Caller holds cpus_read_lock() and pmuscope_drv.lock.
 * Everything is checked, and placed on every CPU, before anything changes.
 */
int pmuscope_session_configure_locked(struct pmuscope_session *sess,
				      const struct pmuscope_event *evs, u32 nr,
				      const struct cpumask *cpus)
{
	struct pmuscope_sess_event new_ev[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_value *vbuf = NULL;
	bool multiplex = false;
	u8 *plan;
	unsigned int cpu;
	u32 i;
	int ret;

	lockdep_assert_held(&pmuscope_drv.lock);
	if (!nr || nr > PMUSCOPE_MAX_EVENTS || cpumask_empty(cpus))
		return -EINVAL;
	if (sess->enabled || sess->spe)
		return -EBUSY;
	plan = kmalloc_array(nr_cpu_ids, PMUSCOPE_MAX_EVENTS, GFP_KERNEL);
	if (!plan)
		return -ENOMEM;
	memset(plan, PMUSCOPE_NO_COUNTER, nr_cpu_ids * PMUSCOPE_MAX_EVENTS);
	for (i = 0; i < nr; i++) {
		new_ev[i].event = evs[i].event;
		new_ev[i].flags = evs[i].flags;
		new_ev[i].evtyper = pmuscope_evtyper(evs[i].event, evs[i].flags);
	}

	/* Validate everything, and plan every CPU, before touching anything. */
	for_each_cpu(cpu, cpus) {
		struct pmuscope_cpu *pcpu;
		u32 mine = 0, free;

		ret = pmuscope_cpu_check(cpu);
		if (ret)
			goto out;
		pcpu = pmuscope_drv.cpus[cpu];
		for (i = 0; i < nr; i++) {
			ret = pmuscope_event_check(&pcpu->caps, &evs[i]);
			if (ret)
				goto out;
		}
		if (sess->configured && cpumask_test_cpu(cpu, sess->cpus))
			for (i = 0; i < sess->nr_events; i++) {
				u8 idx = pmuscope_sess_hw(sess, cpu)[i];

				/* An event perf multiplexes has no counter. */
				if (idx != PMUSCOPE_NO_COUNTER)
					mine |= BIT(idx);
			}
		free = ~pcpu->pmu.allocated | mine;
		/*
		 * perf backend: perf places the events. The plan is the
		 * counters each would have on a free PMU (sysfs shows the
		 * sysfs session's events there); more events than counters
		 * are multiplexed by perf, for ioctl sessions.
		 */
		if (pmuscope_backend_perf())
			free = ~0U;
		ret = pmuscope_place_events(&pcpu->caps, free, new_ev, nr,
					    &plan[cpu * PMUSCOPE_MAX_EVENTS]);
		if ((ret == -EBUSY || ret == -ENOSPC) && pmuscope_backend_perf() &&
		    sess->sysfs_cpu < 0) {
			memset(&plan[cpu * PMUSCOPE_MAX_EVENTS], PMUSCOPE_NO_COUNTER,
			       PMUSCOPE_MAX_EVENTS);
			ret = 0;
		}
		/*
		 * Direct backend: more events than the CPU has counters are
		 * multiplexed by perf on pmuscope's own PMU (ioctl sessions).
		 */
		if (ret == -ENOSPC && !pmuscope_backend_perf() && sess->sysfs_cpu < 0 &&
		    pmuscope_ppmu_type() >= 0) {
			memset(&plan[cpu * PMUSCOPE_MAX_EVENTS], PMUSCOPE_NO_COUNTER,
			       PMUSCOPE_MAX_EVENTS);
			multiplex = true;
			ret = 0;
		}
		if (ret == -EBUSY)
			pmuscope_report_busy(sess, cpu, pcpu->pmu.allocated & ~mine &
					     pmuscope_counters_of(&pcpu->caps));
		if (ret)
			goto out;
	}

	vbuf = pmuscope_vbuf_alloc(nr * cpumask_weight(cpus));
	ret = -ENOMEM;
	if (!vbuf)
		goto out;

	mutex_lock(&sess->lock);
	pmuscope_session_release(sess);
	memcpy(sess->ev, new_ev, sizeof(new_ev[0]) * nr);
	sess->nr_events = nr;
	/*
	 * Kernel PCs in its records only for a session that counts the
	 * kernel, which the caller was allowed to (pmuscope_policy_check()).
	 */
	sess->kernel_pcs = false;
	for (i = 0; i < nr; i++)
		sess->kernel_pcs |= !!(new_ev[i].flags & (PMUSCOPE_EV_EL1 | PMUSCOPE_EV_EL2));
	cpumask_copy(sess->cpus, cpus);
	for_each_cpu(cpu, cpus)
		pmuscope_sess_set_hw(sess, cpu, &plan[cpu * PMUSCOPE_MAX_EVENTS], nr);
	sess->target = PMUSCOPE_TARGET_CPUS;
	if (pmuscope_backend_perf() || multiplex) {
		ret = pmuscope_psess_configure(sess);
	} else {
		ret = pmuscope_session_assign(sess);
		if (ret) {
			pmuscope_session_op(sess, PMUSCOPE_OP_RELEASE, NULL);
			pr_info_ratelimited("a task counter took a planned counter: CONFIG again\n");
		}
	}
	if (ret) {
		for_each_cpu(cpu, cpus)
			pmuscope_sess_set_hw(sess, cpu, NULL, 0);
		cpumask_clear(sess->cpus);
		sess->nr_events = 0;
		mutex_unlock(&sess->lock);
		goto out;
	}
	pmuscope_session_set_vbuf(sess, &vbuf, nr * cpumask_weight(cpus));
	sess->only_cpu = !sess->pev && cpumask_weight(cpus) == 1 ?
			 cpumask_first(cpus) : -1;
	sess->configured = true;
	mutex_unlock(&sess->lock);
	ret = 0;
out:
	kvfree(vbuf);
	kfree(plan);
	return ret;
}

/*
 * The session of an open file: *@slot, or *@fresh put on the list and
 * published there (*@fresh NULL after). *@slot never goes back to NULL.
 * Caller holds pmuscope_drv.lock.
 */
struct pmuscope_session *pmuscope_session_publish_locked(void **slot,
							 struct pmuscope_session **fresh)
{
	struct pmuscope_session *sess = *slot;

	if (!sess) {
		sess = *fresh;
		*fresh = NULL;
		pmuscope_session_link_locked(sess);
		/* Pairs with smp_load_acquire() in pmuscope_ioctl(). */
		smp_store_release(slot, sess);
	}
	return sess;
}

/*
 * Configure the session of an open /dev/pmuscope, *@slot (the file's
 * private data), creating it on first use from *@fresh, which the caller
 * allocated (when *@slot was NULL) and frees if it is still there after.
 * *@slot is published with release semantics: the other ioctls read it
 * with smp_load_acquire() and find a session on the list, or none.
 */
int pmuscope_session_configure(void **slot,
			       struct pmuscope_session **fresh,
			       const struct pmuscope_event *evs, u32 nr,
			       const struct cpumask *cpus)
{
	struct pmuscope_session *sess;
	int ret;

	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	sess = pmuscope_session_publish_locked(slot, fresh);
	ret = pmuscope_session_configure_locked(sess, evs, nr, cpus);
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	return ret;
}

/*
 * Configure the file's session (*@slot, or @fresh published there) to count
 * @task (a reference the session takes) wherever it runs, with perf
 * events. The caller checked who may count @task. An event must exist on
 * at least one CPU type.
 */
int pmuscope_session_configure_task(void **slot, struct pmuscope_session **fresh,
				    const struct pmuscope_event *evs, u32 nr,
				    struct task_struct *task, u32 cfg_flags)
{
	struct pmuscope_sess_event new_ev[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_value *vbuf = NULL;
	struct pmuscope_session *sess;
	unsigned int cpu;
	int ret = 0;
	u32 i;

	if (!pmuscope_backend_perf() && pmuscope_ppmu_type() < 0)
		return -EOPNOTSUPP;
	if (!nr || nr > PMUSCOPE_MAX_EVENTS)
		return -EINVAL;
	/* EL0 access: the caller's own thread, on the direct engine. */
	if (cfg_flags & PMUSCOPE_CFG_USER_READ) {
		if (pmuscope_backend_perf() || !pmuscope_el0_supported())
			return -EOPNOTSUPP;
		if (task != current)
			return -EINVAL;
	}
	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	sess = pmuscope_session_publish_locked(slot, fresh);
	/* A user page may be mapped: the session keeps its configuration. */
	if (sess->enabled || sess->spe || sess->el0) {
		ret = -EBUSY;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		int best = -ENODEV;

		for_each_possible_cpu(cpu) {
			struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[cpu];

			if (!pcpu || !pcpu->probed)
				continue;
			ret = pmuscope_event_check(&pcpu->caps, &evs[i]);
			if (!ret || ret == -EINVAL) {
				best = ret;
				break;
			}
			if (best == -ENODEV)
				best = ret;
		}
		ret = best;
		if (ret)
			goto out;
		new_ev[i].event = evs[i].event;
		new_ev[i].flags = evs[i].flags;
		new_ev[i].evtyper = pmuscope_evtyper(evs[i].event, evs[i].flags);
	}
	if (cfg_flags & PMUSCOPE_CFG_USER_READ)
		for_each_possible_cpu(cpu) {
			struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[cpu];

			if (!pcpu || !pcpu->probed || !pcpu->caps.num_counters)
				continue;
			ret = pmuscope_check_el0_fit(pcpu->caps.num_counters, evs, nr);
			if (ret)
				goto out;
		}
	vbuf = pmuscope_vbuf_alloc(nr);
	ret = -ENOMEM;
	if (!vbuf)
		goto out;
	mutex_lock(&sess->lock);
	pmuscope_session_release(sess);
	memcpy(sess->ev, new_ev, sizeof(new_ev[0]) * nr);
	sess->nr_events = nr;
	sess->target = PMUSCOPE_TARGET_TASK;
	sess->cfg_flags = cfg_flags;
	sess->task = get_task_struct(task);
	ret = pmuscope_psess_configure(sess);
	if (ret) {
		/*
		 * pmuscope_psess_configure() drops the task only once it has
		 * counters to release; failing before (its own allocation),
		 * the reference is still ours.
		 */
		if (sess->task) {
			put_task_struct(sess->task);
			sess->task = NULL;
		}
		sess->nr_events = 0;
		sess->target = PMUSCOPE_TARGET_CPUS;
		sess->cfg_flags = 0;
		mutex_unlock(&sess->lock);
		goto out;
	}
	pmuscope_session_set_vbuf(sess, &vbuf, nr);
	sess->only_cpu = -1;
	sess->configured = true;
	/* Armed: perf starts the counters at the task's next exec. */
	if (cfg_flags & PMUSCOPE_CFG_ENABLE_ON_EXEC)
		sess->enabled = true;
	mutex_unlock(&sess->lock);
out:
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	kvfree(vbuf);
	return ret;
}

/* ------------------------------------------------------ enable/reset/read */
/* Caller holds cpus_read_lock() and pmuscope_drv.lock. */
int pmuscope_session_enable_locked(struct pmuscope_session *sess, bool enable)
{
	lockdep_assert_held(&pmuscope_drv.lock);
	if (!sess->configured)
		return -EINVAL;
	/* After the reboot notifier stopped every PMU: nothing counts again. */
	if (enable && pmuscope_drv.shutdown)
		return -ESHUTDOWN;
	if (sess->enabled != enable) {
		mutex_lock(&sess->lock);
		if (sess->pev)
			pmuscope_psess_enable(sess, enable);
		else
			pmuscope_session_op(sess, enable ? PMUSCOPE_OP_ENABLE :
					    PMUSCOPE_OP_DISABLE, NULL);
		sess->enabled = enable;
		mutex_unlock(&sess->lock);
	}
	return 0;
}

int pmuscope_session_enable(struct pmuscope_session *sess, bool enable)
{
	int ret;

	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	ret = pmuscope_session_enable_locked(sess, enable);
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	return ret;
}

/* Caller holds cpus_read_lock() and pmuscope_drv.lock. */
int pmuscope_session_reset_locked(struct pmuscope_session *sess)
{
	lockdep_assert_held(&pmuscope_drv.lock);
	if (!sess->configured)
		return -EINVAL;
	mutex_lock(&sess->lock);
	if (sess->pev)
		pmuscope_psess_reset(sess);
	else
		pmuscope_session_op(sess, PMUSCOPE_OP_RESET, NULL);
	mutex_unlock(&sess->lock);
	return 0;
}

int pmuscope_session_reset(struct pmuscope_session *sess)
{
	int ret;

	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	ret = pmuscope_session_reset_locked(sess);
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	return ret;
}

/*
 * The READ of a direct session that counts on one CPU, by a reader on that
 * CPU (the usual case: a daemon per CPU, or a program reading the CPU it
 * runs on): done here, interrupts off, without the CPU hotplug lock or a
 * cross call. None is needed: a CPU we run on is not torn down under us
 * while interrupts are off, and pmu->hw_ready (under pmu->lock) says
 * whether the PMU's registers are the driver's, as on every other path.
 * False when the reader is elsewhere. Caller holds sess->lock.
 */
static bool pmuscope_session_read_here(struct pmuscope_session *sess)
{
	unsigned int cpu = sess->only_cpu;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(cpu);
	unsigned long flags;
	u64 now;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	if (cpu != smp_processor_id()) {
		raw_spin_unlock_irqrestore(&pmu->lock, flags);
		return false;
	}
	now = ktime_get_ns();
	pmuscope_pmu_read(pmu, pmuscope_sess_hw(sess, cpu), sess->nr_events,
			  now, sess->vbuf);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
	return true;
}

/* ---------------------------------------------------------------- snapshots */

struct pmuscope_snap_args {
	struct pmuscope_session *sess;
	u32 flags;
	u64 deadline;			/* system counter; 0: capture at once */
	u64 now;			/* ktime_get_ns() of the request */
	struct pmuscope_snap_cpu *cpus;	/* one per CPU of the session, in order */
};

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
static int pmuscope_snap_direct(struct pmuscope_session *sess,
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

/* A session counted by perf events: read one after another. */
static void pmuscope_snap_perf(struct pmuscope_session *sess, struct pmuscope_snap_cpu *cpus)
{
	unsigned int cpu, pos = 0;
	u64 t0, t1;

	memset(sess->vbuf, 0, pmuscope_psess_nr_values(sess) * sizeof(*sess->vbuf));
	t0 = pmuscope_hw_syscnt();
	pmuscope_psess_read(sess, sess->vbuf);
	t1 = pmuscope_hw_syscnt();
	for_each_cpu(cpu, sess->cpus) {
		struct pmuscope_snap_cpu *sc = &cpus[pos++];

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
}

/*
 * SNAPSHOT: every counter of @sess on every CPU of it at one instant (see
 * pmuscope_snapshot.c), into the session's value buffer and a CPU array
 * allocated here (res->cpus, freed by the caller). The caller holds
 * cpus_read_lock() (and may hold pmuscope_drv.lock). Returns with the
 * session's lock held, whatever the result, until
 * pmuscope_session_read_end(); res->nr_vals and res->nr_cpus are set with
 * -ENOSPC too.
 */
int pmuscope_session_snapshot_cpuslocked(struct pmuscope_session *sess, u32 flags,
					 u32 lead_us, u32 room_vals, u32 room_cpus,
					 struct pmuscope_snap_result *res)
{
	struct pmuscope_snap_args a = { .sess = sess, .flags = flags };
	u64 first = U64_MAX, last = 0;
	unsigned int cpu, i;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	mutex_lock(&sess->lock);
	if (!sess->configured) {
		ret = -EINVAL;
		goto out;
	}
	/* A task's counters move with it: there is no instant to take. */
	if (sess->target != PMUSCOPE_TARGET_CPUS) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	res->nr_cpus = cpumask_weight(sess->cpus);
	res->nr_vals = sess->nr_events * res->nr_cpus;
	if (room_vals < res->nr_vals || room_cpus < res->nr_cpus) {
		ret = -ENOSPC;
		goto out;
	}
	if (WARN_ON_ONCE(res->nr_vals > sess->vbuf_n)) {
		ret = -EIO;
		goto out;
	}
	if (flags & PMUSCOPE_SNAP_F_HARDWARE) {
		/* Hardware or nothing: every CPU must have a usable path. */
		if (sess->pev) {
			ret = -EOPNOTSUPP;
			goto out;
		}
		for_each_cpu(cpu, sess->cpus)
			if (!pmuscope_ss_usable(pmuscope_pmu_of(cpu))) {
				ret = -EOPNOTSUPP;
				goto out;
			}
	}
	res->alloc = kcalloc(res->nr_cpus, sizeof(*res->alloc), GFP_KERNEL_ACCOUNT);
	if (!res->alloc) {
		ret = -ENOMEM;
		goto out;
	}
	res->cpus = res->alloc;
	a.cpus = res->cpus;
	a.now = ktime_get_ns();
	if (sess->pev) {
		pmuscope_snap_perf(sess, res->cpus);
	} else {
		ret = pmuscope_snap_direct(sess, &a, lead_us ?: PMUSCOPE_SNAP_LEAD_US_DEFAULT);
		if (ret)
			goto out;
	}
	for (i = 0; i < res->nr_cpus; i++) {
		if (res->cpus[i].flags & PMUSCOPE_SNAPCPU_OFFLINE)
			continue;
		first = min(first, res->cpus[i].time);
		last = max(last, res->cpus[i].time);
	}
	for (i = 0; i < res->nr_cpus; i++)
		if (!(res->cpus[i].flags & PMUSCOPE_SNAPCPU_OFFLINE))
			res->cpus[i].skew = res->cpus[i].time - first;
	res->skew = first <= last ? last - first : 0;
	res->vals = sess->vbuf;
out:
	return ret;
}

/*
 * The SNAPSHOT of a direct session that counts on one CPU, asked on that
 * CPU: done here, interrupts off, without the CPU hotplug lock, a cross
 * call or an allocation (see pmuscope_session_read_here()). False when
 * the caller is elsewhere, or asks for a hardware capture the CPU cannot
 * make (the slow path says so). Caller holds sess->lock.
 */
static bool pmuscope_session_snap_here(struct pmuscope_session *sess, u32 flags,
				       struct pmuscope_snap_result *res)
{
	unsigned int cpu = sess->only_cpu;
	struct pmuscope_pmu *pmu = pmuscope_pmu_of(cpu);
	unsigned long irqf;

	raw_spin_lock_irqsave(&pmu->lock, irqf);
	if (cpu != smp_processor_id() ||
	    ((flags & PMUSCOPE_SNAP_F_HARDWARE) && !pmuscope_ss_usable(pmu))) {
		raw_spin_unlock_irqrestore(&pmu->lock, irqf);
		return false;
	}
	pmuscope_pmu_snapshot(pmu, pmuscope_sess_hw(sess, cpu), sess->nr_events,
			      sess->hw_mask[cpu], flags, 0, ktime_get_ns(), sess->vbuf, &res->one);
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
	res->vals = sess->vbuf;
	res->nr_vals = sess->nr_events;
	res->cpus = &res->one;
	res->nr_cpus = 1;
	res->skew = 0;
	res->alloc = NULL;
	return true;
}

/* The same, CPUs held still here (the ioctl); one CPU asked on it first. */
int pmuscope_session_snapshot(struct pmuscope_session *sess, u32 flags,
			      u32 lead_us, u32 room_vals, u32 room_cpus,
			      struct pmuscope_snap_result *res)
{
	int ret;

	/* pmuscope_session_snap_here() sets every field, or the slow path does. */
	mutex_lock(&sess->lock);
	if (sess->configured && sess->only_cpu >= 0 && sess->nr_events <= room_vals &&
	    room_cpus && sess->nr_events <= sess->vbuf_n &&
	    pmuscope_session_snap_here(sess, flags, res))
		return 0;
	mutex_unlock(&sess->lock);

	cpus_read_lock();
	ret = pmuscope_session_snapshot_cpuslocked(sess, flags, lead_us, room_vals,
						   room_cpus, res);
	cpus_read_unlock();
	return ret;
}

/*
 * STREAM: records of @sess every @st->period_ms on each of its CPUs,
 * and/or every @st->sample_period events of its event @st->sample_index
 * (the overflow interrupt of that event's counter); both off: the stream
 * stops (its ring, and what it holds, stays until the session is freed).
 */
int pmuscope_session_stream(struct pmuscope_session *sess, const struct pmuscope_stream *st)
{
	bool sampling = st->sample_index != PMUSCOPE_STREAM_NO_EVENT;
	struct pmuscope_ring *ring = NULL;
	unsigned int cpu;
	int ret;

	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	ret = -EINVAL;
	if (!sess->configured || (sampling && st->sample_index >= sess->nr_events))
		goto out;
	/* A task has no CPU to interrupt; perf's counters are perf's. */
	ret = -EOPNOTSUPP;
	if (sess->target != PMUSCOPE_TARGET_CPUS || sess->pev)
		goto out;
	/* Samples come from the overflow interrupt: none in poll mode. */
	if (sampling && (pmuscope_engine.mode != PMUSCOPE_FOLD_IRQ || !pmuscope_engine.irq))
		goto out;
	/* One session's time-based records per CPU. */
	ret = -EBUSY;
	if (st->period_ms)
		for_each_cpu(cpu, sess->cpus) {
			struct pmuscope_session *other = pmuscope_pmu_of(cpu)->stream_sess;

			if (other && other != sess)
				goto out;
		}
	/* The ring's size is the first STREAM's. */
	if (sess->ring && st->ring_kib && st->ring_kib * 1024 != sess->ring->size)
		goto out;
	/* The watermark fits in half the ring. */
	ret = -EINVAL;
	if (st->wakeup_kib * 1024 > (sess->ring ? sess->ring->size :
				     (st->ring_kib ?: PMUSCOPE_STREAM_KIB_DEFAULT) * 1024) / 2)
		goto out;
	if (!sess->ring) {
		ring = pmuscope_ring_alloc(st->ring_kib ?: PMUSCOPE_STREAM_KIB_DEFAULT);
		ret = -ENOMEM;
		if (!ring)
			goto out;
		/* Pairs with the smp_load_acquire() of read() and poll(). */
		smp_store_release(&sess->ring, ring);
	}
	WRITE_ONCE(sess->ring->wakeup, st->wakeup_kib * 1024);
	sess->stream_ms = st->period_ms;
	sess->stream_index = st->sample_index;
	sess->stream_period = sampling ? st->sample_period : 0;
	pmuscope_session_op(sess, PMUSCOPE_OP_STREAM, NULL);
	ret = 0;
out:
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	return ret;
}

/*
 * READ: every value of @sess into its buffer (sized at CONFIG), returned in
 * *@vals; *@nr is the number of values, also with -ENOSPC when @room is
 * below it. Neither the driver's lock nor any allocation: CPUs are held
 * still (or the reader is on the session's only CPU), and the session's
 * own lock keeps it as it is. Returns with the session's lock held,
 * whatever the result, until pmuscope_session_read_end() (the caller
 * copies the values out between).
 */
int pmuscope_session_read_begin(struct pmuscope_session *sess, u32 room,
				const struct pmuscope_value **vals, u32 *nr)
{
	int ret = 0;

	*vals = NULL;
	*nr = 0;
	/* The hot path first: the session's lock alone. */
	mutex_lock(&sess->lock);
	if (sess->configured && sess->only_cpu >= 0 && sess->nr_events <= room &&
	    sess->nr_events <= sess->vbuf_n && pmuscope_session_read_here(sess)) {
		*nr = sess->nr_events;
		*vals = sess->vbuf;
		return 0;
	}
	mutex_unlock(&sess->lock);

	/* CPUs held still, then the session's lock (the driver's order). */
	cpus_read_lock();
	mutex_lock(&sess->lock);
	if (!sess->configured) {
		ret = -EINVAL;
		goto out;
	}
	*nr = sess->pev ? pmuscope_psess_nr_values(sess) :
	      sess->nr_events * cpumask_weight(sess->cpus);
	if (room < *nr) {
		ret = -ENOSPC;
		goto out;
	}
	if (WARN_ON_ONCE(*nr > sess->vbuf_n)) {
		ret = -EIO;
		goto out;
	}
	if (sess->pev) {
		memset(sess->vbuf, 0, *nr * sizeof(*sess->vbuf));
		pmuscope_psess_read(sess, sess->vbuf);
	} else {
		/* Writes every value (pmuscope_pmu_read()). */
		pmuscope_session_op(sess, PMUSCOPE_OP_READ, sess->vbuf);
	}
	*vals = sess->vbuf;
out:
	cpus_read_unlock();
	return ret;
}

int pmuscope_session_swinc(struct pmuscope_session *sess, u64 event_mask,
			   unsigned int cpu, u32 count)
{
	struct pmuscope_op_args a = {
		.sess = sess, .cpu = cpu, .op = PMUSCOPE_OP_SWINC,
		.swinc_count = count,
	};
	unsigned long mask = event_mask;
	unsigned long i;
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	/* perf's PMU: PMSWINC_EL0 is perf's register; and a task has no CPU. */
	ret = -EOPNOTSUPP;
	if (sess->pev)
		goto out;
	ret = -EINVAL;
	if (!sess->configured || (event_mask >> sess->nr_events) ||
	    cpu >= nr_cpu_ids || !cpumask_test_cpu(cpu, sess->cpus))
		goto out;
	for_each_set_bit(i, &mask, PMUSCOPE_MAX_EVENTS) {
		unsigned int idx = pmuscope_sess_hw(sess, cpu)[i];

		/*
		 * SW_INCR, counting at the kernel's EL (EL1, or EL2 on a VHE
		 * host), where the driver writes PMSWINC_EL0.
		 */
		if (sess->ev[i].event != 0 ||
		    !(sess->ev[i].flags & pmuscope_kernel_flag(pmuscope_kernel_el())) ||
		    idx == PMUSCOPE_CYCLE_IDX)
			goto out;
		a.swinc_mask |= BIT(idx);
	}
	ret = -ENXIO;
	if (!cpu_online(cpu))
		goto out;
	pmuscope_on_cpu(cpu, pmuscope_op_on_cpu, &a);
	ret = 0;
out:
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	return ret;
}
