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

#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"
#include "pmuscope_modifiers.h"
#include "pmuscope_regs.h"

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
	sess->ops = &pmuscope_direct_ops;
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
	/* The user page went with the counters (release): its charge now. */
	pmuscope_mlock_uncharge(&sess->el0_mlock);
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
	sess->ops->release(sess);
	sess->ops = &pmuscope_direct_ops;
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
 * Check @evs on every CPU of @cpus and place @new_ev (the same events) on
 * its counters, into @plan ([cpu * PMUSCOPE_MAX_EVENTS + i]), before
 * anything changes. *@multiplex: more events than a CPU has counters, to
 * be multiplexed by perf on pmuscope's own PMU. Caller holds
 * cpus_read_lock() and pmuscope_drv.lock.
 */
static int pmuscope_session_plan(struct pmuscope_session *sess,
				 const struct pmuscope_event *evs,
				 const struct pmuscope_sess_event *new_ev, u32 nr,
				 const struct cpumask *cpus, u8 *plan, bool *multiplex)
{
	unsigned int cpu;
	u32 i;
	int ret;

	for_each_cpu(cpu, cpus) {
		struct pmuscope_cpu *pcpu;
		u32 mine = 0, free;

		ret = pmuscope_cpu_check(cpu);
		if (ret)
			return ret;
		pcpu = pmuscope_drv.cpus[cpu];
		for (i = 0; i < nr; i++) {
			ret = pmuscope_event_check(&pcpu->caps, &evs[i]);
			if (ret)
				return ret;
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
			*multiplex = true;
			ret = 0;
		}
		if (ret == -EBUSY)
			pmuscope_report_busy(sess, cpu, pcpu->pmu.allocated & ~mine &
					     pmuscope_counters_of(&pcpu->caps));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A configuration for pmuscope_session_commit(): its events, the backend
 * that counts them, READ's buffer for it (which the session takes), and
 * the CPUs and their counters, or (@task not NULL) the task.
 */
struct pmuscope_sess_cfg {
	const struct pmuscope_backend_ops *ops;
	const struct pmuscope_sess_event *ev;
	u32 nr;
	struct pmuscope_value **vbuf;	/* *@vbuf NULL once the session has it */
	u32 vbuf_n;
	const struct cpumask *cpus;	/* TARGET_CPUS: the CPUs ... */
	const u8 *plan;			/* ... and their counters */
	struct task_struct *task;	/* TARGET_TASK: the task ... */
	u32 cfg_flags;			/* ... and its PMUSCOPE_CFG_* */
};

/*
 * Replace the configuration of @sess by @c, checked and planned: what it
 * had is released, the new one described, and its backend takes the
 * counters. On error the session is left with no configuration. Caller
 * holds cpus_read_lock() and pmuscope_drv.lock.
 */
static int pmuscope_session_commit(struct pmuscope_session *sess,
				   const struct pmuscope_sess_cfg *c)
{
	unsigned int cpu;
	u32 i;
	int ret;

	mutex_lock(&sess->lock);
	pmuscope_session_release(sess);
	memcpy(sess->ev, c->ev, sizeof(c->ev[0]) * c->nr);
	sess->nr_events = c->nr;
	/*
	 * Kernel PCs in its records only for a session that counts the
	 * kernel, which the caller was allowed to (pmuscope_policy_check():
	 * a CPU's or a task's configuration alike).
	 */
	sess->kernel_pcs = false;
	for (i = 0; i < c->nr; i++)
		sess->kernel_pcs |= !!(c->ev[i].flags & (PMUSCOPE_EV_EL1 | PMUSCOPE_EV_EL2));
	if (c->task) {
		sess->target = PMUSCOPE_TARGET_TASK;
		sess->cfg_flags = c->cfg_flags;
		sess->task = get_task_struct(c->task);
	} else {
		cpumask_copy(sess->cpus, c->cpus);
		for_each_cpu(cpu, c->cpus)
			pmuscope_sess_set_hw(sess, cpu, &c->plan[cpu * PMUSCOPE_MAX_EVENTS],
					     c->nr);
		sess->target = PMUSCOPE_TARGET_CPUS;
	}
	sess->ops = c->ops;
	ret = sess->ops->configure(sess);
	if (ret) {
		sess->ops = &pmuscope_direct_ops;
		/*
		 * The perf backend drops the task only once it has counters
		 * to release; failing before (its own allocation), the
		 * reference is still ours.
		 */
		if (sess->task) {
			put_task_struct(sess->task);
			sess->task = NULL;
		}
		for_each_cpu(cpu, sess->cpus)
			pmuscope_sess_set_hw(sess, cpu, NULL, 0);
		cpumask_clear(sess->cpus);
		sess->nr_events = 0;
		sess->target = PMUSCOPE_TARGET_CPUS;
		sess->cfg_flags = 0;
		mutex_unlock(&sess->lock);
		return ret;
	}
	pmuscope_session_set_vbuf(sess, c->vbuf, c->vbuf_n);
	sess->only_cpu = !c->task && sess->ops->hw_counters && cpumask_weight(c->cpus) == 1 ?
			 cpumask_first(c->cpus) : -1;
	sess->configured = true;
	/* Armed: perf starts the counters at the task's next exec. */
	if (c->cfg_flags & PMUSCOPE_CFG_ENABLE_ON_EXEC)
		sess->enabled = true;
	mutex_unlock(&sess->lock);
	return 0;
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
	struct pmuscope_sess_cfg c = {
		.ev = new_ev, .nr = nr, .vbuf = &vbuf, .cpus = cpus,
	};
	bool multiplex = false;
	u8 *plan;
	u32 i;
	int ret;

	lockdep_assert_held(&pmuscope_drv.lock);
	if (!nr || nr > PMUSCOPE_MAX_EVENTS || cpumask_empty(cpus))
		return -EINVAL;
	/*
	 * A user page (PMUSCOPE_CFG_USER_READ) stays until the file is
	 * released: pmuscope_mmap() maps it without a lock. No configuration
	 * replaces one, of a task (pmuscope_session_configure_task()) or of
	 * CPUs (here).
	 */
	if (sess->enabled || sess->spe || sess->el0)
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
	ret = pmuscope_session_plan(sess, evs, new_ev, nr, cpus, plan, &multiplex);
	if (ret)
		goto out;
	c.vbuf_n = nr * cpumask_weight(cpus);
	vbuf = pmuscope_vbuf_alloc(c.vbuf_n);
	ret = -ENOMEM;
	if (!vbuf)
		goto out;
	c.plan = plan;
	c.ops = pmuscope_backend_perf() || multiplex ? &pmuscope_perf_ops :
		&pmuscope_direct_ops;
	ret = pmuscope_session_commit(sess, &c);
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
 * Check the events of a task configuration, into @new_ev: each must exist
 * on at least one CPU type, and with PMUSCOPE_CFG_USER_READ fit on the
 * counters of every CPU. Caller holds pmuscope_drv.lock.
 */
static int pmuscope_task_check(const struct pmuscope_event *evs, u32 nr, u32 cfg_flags,
			       struct pmuscope_sess_event *new_ev)
{
	unsigned int cpu;
	int ret;
	u32 i;

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
			return ret;
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
				return ret;
		}
	return 0;
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
	struct pmuscope_sess_cfg c = {
		.ops = &pmuscope_perf_ops, .ev = new_ev, .nr = nr,
		.vbuf = &vbuf, .vbuf_n = nr, .task = task, .cfg_flags = cfg_flags,
	};
	struct pmuscope_mlock_sysctl mls = { .mlock_kb = 0, .paranoid = INT_MAX };
	struct rw_semaphore *exec_lock = NULL;
	struct pmuscope_mlock el0_mlock = { };
	struct pmuscope_session *sess;
	struct perf_event *hold;
	int ret = 0;

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
		/* For the user page's charge: read before any lock. */
		pmuscope_mlock_sysctl(&mls);
	}
	/*
	 * Another process's thread, without CAP_PERFMON: as perf_event_open()
	 * of a task event (perf_check_permission(): ptrace's
	 * PTRACE_MODE_READ_REALCREDS), only a task that is the caller's
	 * (pmuscope_policy_task_ours()), checked under its exec_update_lock
	 * and held until its counters are in its context: an exec changes
	 * its credentials, and drops its perf events if it is no longer
	 * dumpable (perf_event_exit_task()), under the lock's write side.
	 * Taken first, before cpus_read_lock() and pmuscope_drv.lock, as
	 * perf_event_open() takes it before its own locks; STREAM's order
	 * is the same.
	 */
	if (!same_thread_group(task, current) && !perfmon_capable()) {
		/*
		 * perf_event_open() also asks the LSMs (ptrace's
		 * security_ptrace_access_check(), not exported): without it
		 * this is the administrator's grant, task_ours=1.
		 */
		if (!READ_ONCE(pmuscope_param_task_ours))
			return -EPERM;
		exec_lock = &task->signal->exec_update_lock;
		ret = down_read_interruptible(exec_lock);
		if (ret)
			return ret;
	}
	/* perf's switch-hook key on before the hotplug lock (pmuscope_perf.c). */
	hold = pmuscope_perf_sched_hold();
	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	sess = pmuscope_session_publish_locked(slot, fresh);
	/* A user page may be mapped: the session keeps its configuration. */
	if (sess->enabled || sess->spe || sess->el0) {
		ret = -EBUSY;
		goto out;
	}
	ret = pmuscope_task_check(evs, nr, cfg_flags, new_ev);
	if (ret)
		goto out;
	if (exec_lock) {
		ret = -EACCES;
		if (!pmuscope_policy_task_ours(task)) {
			pr_info_ratelimited("uid %u refused counting task %d: not its own (another user's, or not dumpable), and no CAP_PERFMON\n",
					    from_kuid_munged(current_user_ns(), current_uid()),
					    task_pid_nr(task));
			goto out;
		}
	}
	/*
	 * The user page, kept as long as the file (mmap() maps it), charged
	 * as perf charges a perf buffer's user page (the "+ 1" of
	 * perf_mmap()): EPERM over the caller's locked-memory limit.
	 */
	if (cfg_flags & PMUSCOPE_CFG_USER_READ) {
		ret = pmuscope_mlock_charge(&el0_mlock, 1, &mls, "an EL0 user page");
		if (ret)
			goto out;
	}
	vbuf = pmuscope_vbuf_alloc(nr);
	ret = -ENOMEM;
	if (!vbuf)
		goto out;
	ret = pmuscope_session_commit(sess, &c);
	/* Kept by the session with its page (its first: none before). */
	if (!ret && sess->el0)
		swap(sess->el0_mlock, el0_mlock);
out:
	pmuscope_mlock_uncharge(&el0_mlock);
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	if (exec_lock)
		up_read(exec_lock);
	pmuscope_perf_sched_release(hold);
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
		if (enable)
			sess->ops->enable(sess);
		else
			sess->ops->disable(sess);
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
	sess->ops->reset(sess);
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
 * False when the reader is elsewhere. Caller holds sess->lock. Only a
 * session of the direct engine has an only_cpu: this is its READ, kept
 * here, static, so that the hot path makes no call to reach it.
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
		if (!sess->ops->hw_counters) {
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
	ret = sess->ops->snapshot(sess, &a, lead_us ?: PMUSCOPE_SNAP_LEAD_US_DEFAULT);
	if (ret)
		goto out;
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
 * (the overflow interrupt of that event's counter: the direct engine's,
 * or perf's sampling counter on the perf backend, per CPU or for the
 * task); both off: the stream stops (its ring, and what it holds, stays
 * until the session is freed). A backend that fails leaves nothing
 * streaming.
 */
int pmuscope_session_stream(struct pmuscope_session *sess, const struct pmuscope_stream *st)
{
	bool sampling = st->sample_index != PMUSCOPE_STREAM_NO_EVENT;
	bool starts = sampling || st->period_ms;
	bool chain = starts && (st->flags & PMUSCOPE_STREAM_F_CALLCHAIN);
	/* Asked once: the task's lock below is taken by what it answers. */
	bool priv = starts && perfmon_capable();
	struct rw_semaphore *exec_lock = NULL;
	struct task_struct *task = NULL;
	struct pmuscope_mlock_sysctl mls = { .mlock_kb = 0, .paranoid = INT_MAX };
	struct pmuscope_mlock mlock = { };
	struct pmuscope_ring *ring = NULL;
	struct perf_event *hold;
	struct pmuscope_policy pol;
	unsigned int cpu;
	int ret;

	/*
	 * The caller's policy, for what the session's records will show
	 * (which only the session, under the lock, tells): read before the
	 * locks, as it reads sysctl files.
	 */
	if (starts)
		pmuscope_policy_get(pmuscope_drv.perf_group, &pol);
	/*
	 * A task session's task, and its exec_update_lock before the other
	 * locks (CONFIG's order, and perf_event_open()'s): checked again
	 * under them, a CONFIG may have changed it meanwhile.
	 */
	if (starts && !priv) {
		mutex_lock(&pmuscope_drv.lock);
		if (sess->configured && sess->target == PMUSCOPE_TARGET_TASK)
			task = get_task_struct(sess->task);
		mutex_unlock(&pmuscope_drv.lock);
		if (task) {
			ret = down_read_interruptible(&task->signal->exec_update_lock);
			if (ret) {
				put_task_struct(task);
				return ret;
			}
			exec_lock = &task->signal->exec_update_lock;
		}
	}
	/*
	 * The first STREAM makes the ring, charged to the caller's locked
	 * memory: the sysctls of the charge, read before the locks (a ring
	 * once made stays until the session is freed).
	 */
	if (!smp_load_acquire(&sess->ring))
		pmuscope_mlock_sysctl(&mls);
	/* perf's switch-hook key on before the hotplug lock (pmuscope_perf.c). */
	hold = starts ? pmuscope_perf_sched_hold() : NULL;
	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	ret = -EINVAL;
	if (!sess->configured || (sampling && st->sample_index >= sess->nr_events))
		goto out;
	/*
	 * What the backend cannot stream, before anything is made (perf
	 * events: pmuscope_perf_stream_check()).
	 */
	ret = -EOPNOTSUPP;
	if (!sess->ops->stream)
		goto out;
	if (sess->ops->stream_check) {
		ret = sess->ops->stream_check(sess, st);
		if (ret)
			goto out;
		ret = -EOPNOTSUPP;
	}
	/*
	 * The direct engine's samples come from its overflow interrupt: none
	 * in poll mode (perf events: pmuscope_perf_stream_check()).
	 */
	if (sampling && sess->ops->hw_counters &&
	    (pmuscope_engine.mode != PMUSCOPE_FOLD_IRQ || !pmuscope_engine.irq))
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
	/*
	 * Whose rights a STREAM is judged by: its caller's, now, as
	 * perf_event_open() judges the caller of a new sampling event (perf
	 * cannot turn a counting descriptor into a sampling one:
	 * PERF_EVENT_IOC_PERIOD of a non-sampling event is EINVAL). A
	 * descriptor that root configured, passed to (or kept across a
	 * setresuid() by) a process without its rights, still counts and
	 * reads, but samples only what that process may sample: the
	 * session's kind, the kernel's PCs and chains when it counts EL1 or
	 * EL2, and the user stacks of whatever a CPU session's samples
	 * interrupt, any user's (PMUSCOPE_POL_CHAIN_CPU: group= does not
	 * grant it).
	 */
	if (starts) {
		unsigned int what = sess->target == PMUSCOPE_TARGET_TASK ?
				    PMUSCOPE_POL_TASK : PMUSCOPE_POL_CPU;

		if (sess->kernel_pcs)
			what |= PMUSCOPE_POL_KERNEL;
		if (chain && sess->target == PMUSCOPE_TARGET_CPUS)
			what |= PMUSCOPE_POL_CHAIN_CPU;
		ret = pmuscope_policy_apply(&pol, what);
		if (ret)
			goto out;
	}
	/*
	 * A task's sampling counter is made now, with the kernel's
	 * credentials, maybe long after CONFIG checked the caller: the task
	 * may have exec'd a setuid program since. As perf_event_open() of a
	 * task event, the task must still be the caller's (ptrace's
	 * PTRACE_MODE_READ_REALCREDS: pmuscope_policy_task_ours()), checked
	 * under its exec_update_lock (taken above) and held until the
	 * counter is in the task's context: an exec changes its
	 * credentials, and drops its perf events (perf_event_exit_task()),
	 * under the lock's write side. Stopping makes nothing: not asked.
	 */
	if (starts && sess->target == PMUSCOPE_TARGET_TASK && !priv) {
		/* Reconfigured since the lock was taken: another task's. */
		ret = -EBUSY;
		if (sess->task != task)
			goto out;
		/*
		 * Another process's task as CONFIG has it: only while the
		 * administrator's grant task_ours=1 stands, now too.
		 */
		ret = -EPERM;
		if (!same_thread_group(sess->task, current) &&
		    !READ_ONCE(pmuscope_param_task_ours))
			goto out;
		ret = -EACCES;
		if (!pmuscope_policy_task_ours(sess->task)) {
			pr_info_ratelimited("uid %u refused samples of task %d: no longer its own (an exec of a setuid program, or its credentials changed)\n",
					    from_kuid_munged(current_user_ns(), current_uid()),
					    task_pid_nr(sess->task));
			goto out;
		}
	}
	if (!sess->ring) {
		u32 kib = st->ring_kib ?: PMUSCOPE_STREAM_KIB_DEFAULT;

		/*
		 * Charged first, as perf_mmap() charges a perf ring
		 * (pmuscope_mlock_charge(): EPERM over the caller's
		 * locked-memory limit, logged): a refusal makes nothing.
		 */
		ret = pmuscope_mlock_charge(&mlock, DIV_ROUND_UP(kib * 1024, PAGE_SIZE), &mls,
					    "a stream ring");
		if (ret)
			goto out;
		ring = pmuscope_ring_alloc(kib);
		ret = -ENOMEM;
		if (!ring) {
			pmuscope_mlock_uncharge(&mlock);
			goto out;
		}
		/* Given back by pmuscope_ring_free(). */
		ring->mlock = mlock;
		/* Pairs with the smp_load_acquire() of read() and poll(). */
		smp_store_release(&sess->ring, ring);
	}
	WRITE_ONCE(sess->ring->wakeup, st->wakeup_kib * 1024);
	sess->stream_ms = st->period_ms;
	sess->stream_index = st->sample_index;
	sess->stream_period = sampling ? st->sample_period : 0;
	WRITE_ONCE(sess->max_stack, st->max_stack ?: PMUSCOPE_STACK_DEFAULT);
	WRITE_ONCE(sess->stream_flags, st->flags);
	ret = sess->ops->stream(sess);
	if (ret) {
		sess->stream_ms = 0;
		sess->stream_index = PMUSCOPE_STREAM_NO_EVENT;
		sess->stream_period = 0;
	}
out:
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	if (exec_lock)
		up_read(exec_lock);
	if (task)
		put_task_struct(task);
	pmuscope_perf_sched_release(hold);
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
	/* nr_events values per CPU, or for a task. */
	*nr = sess->target == PMUSCOPE_TARGET_TASK ? sess->nr_events :
	      sess->nr_events * cpumask_weight(sess->cpus);
	if (room < *nr) {
		ret = -ENOSPC;
		goto out;
	}
	if (WARN_ON_ONCE(*nr > sess->vbuf_n)) {
		ret = -EIO;
		goto out;
	}
	sess->ops->read(sess, sess->vbuf, *nr);
	*vals = sess->vbuf;
out:
	cpus_read_unlock();
	return ret;
}

int pmuscope_session_swinc(struct pmuscope_session *sess, u64 event_mask,
			   unsigned int cpu, u32 count)
{
	int ret;

	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	/* perf's PMU: PMSWINC_EL0 is perf's register; and a task has no CPU. */
	ret = -EOPNOTSUPP;
	if (!sess->ops->swinc)
		goto out;
	ret = -EINVAL;
	if (!sess->configured || (event_mask >> sess->nr_events) ||
	    cpu >= nr_cpu_ids || !cpumask_test_cpu(cpu, sess->cpus))
		goto out;
	ret = sess->ops->swinc(sess, event_mask, cpu, count);
out:
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	return ret;
}
