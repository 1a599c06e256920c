// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the system's perf policy, applied to every caller as
 * perf_event_open() applies it.
 *
 * In-kernel counters are created with the kernel's credentials, so the perf
 * core checks nothing for them: every rule perf would apply to the caller is
 * pmuscope's to apply. The rules (kernel/events/core.c, perf_event_open()
 * and <linux/perf_event.h>; arch/arm64 and drivers/perf/arm_pmuv3.c for
 * kernel.perf_user_access), for a caller without CAP_PERFMON:
 *
 *   kernel.perf_event_paranoid > 2   no counting at all without CAP_SYS_ADMIN,
 *                                    CAP_PERFMON included (Debian's level 3)
 *                              > 1   nothing of the kernel: EL1/EL2 counts,
 *                                    kernel PCs, SPE at EL1 (perf_allow_kernel())
 *                              > 0   no CPU-wide sessions (perf_allow_cpu())
 *   kernel.perf_user_access != 1     no EL0 counter reads
 *
 * The administrator's grant is the module parameter group=: its members
 * may count their own tasks and whole CPUs at EL0 and read counters at
 * EL0 whatever the two sysctls say; the kernel's levels stay as the
 * sysctl has them for them too (Documentation/pmuscope.rst, "Who may do
 * what").
 *
 * The module cannot link either sysctl (neither variable is exported), so
 * it reads their files in /proc/sys as the init process sees them (a
 * caller's own mount namespace could put anything there) and fails closed:
 * an unreadable kernel.perf_event_paranoid counts as the highest level, an
 * unreadable or absent kernel.perf_user_access (perf's PMU driver is not
 * there, as on the direct backend) as 0. Only callers without CAP_PERFMON
 * pay for the reads.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/path.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/user_namespace.h>

#include "pmuscope.h"
#include "pmuscope_kunit_export.h"

/*
 * The decision, a pure function of the policy and of what a session asks
 * for (PMUSCOPE_POL_*): 0, -EPERM (a CPU-wide session the caller may not
 * have) or -EACCES (what kernel.perf_event_paranoid or
 * kernel.perf_user_access forbids).
 *
 * PMUSCOPE_POL_CHAIN_CPU, the user call chains of a CPU session's
 * samples, reads the stack of whatever task each sample interrupts, any
 * user's: perf samples other users' tasks only where CPU-wide events are
 * open to everyone (perf_event_paranoid 0 or lower) or with CAP_PERFMON.
 * group= grants counting at EL0, not reading other users' memory.
 */
int pmuscope_policy_decide(const struct pmuscope_policy *p, unsigned int what)
{
	/*
	 * Debian's level 3 (perf_paranoid_any()): perf_event_open() refuses
	 * everyone without CAP_SYS_ADMIN, CAP_PERFMON alone included.
	 */
	if ((what & (PMUSCOPE_POL_TASK | PMUSCOPE_POL_CPU)) && p->paranoid_any &&
	    !p->sys_admin && !p->member)
		return -EACCES;
	/*
	 * The Activity Monitors count whole CPUs, the kernel included, and
	 * cannot be filtered: CAP_PERFMON (no group= grant), and at level 3
	 * CAP_SYS_ADMIN, as any counting there.
	 */
	if ((what & PMUSCOPE_POL_AMU) && p->paranoid_any && !p->sys_admin)
		return -EACCES;
	if (p->priv)
		return 0;
	if (what & PMUSCOPE_POL_AMU)
		return -EPERM;
	if ((what & PMUSCOPE_POL_CPU) && !p->member && p->paranoid > 0)
		return -EPERM;
	if ((what & PMUSCOPE_POL_CHAIN_CPU) && p->paranoid > 0)
		return -EACCES;
	/*
	 * group= grants whole CPUs at EL0 only: their EL1/EL2 (and kernel
	 * PCs, SPE at EL1) as perf_allow_cpu() and perf_allow_kernel() let
	 * anyone, paranoid 0 or lower. Each grant alone, never the two
	 * combined.
	 */
	if ((what & PMUSCOPE_POL_CPU) && (what & PMUSCOPE_POL_KERNEL) && p->paranoid > 0)
		return -EACCES;
	if ((what & PMUSCOPE_POL_KERNEL) && !p->kernel)
		return -EACCES;
	if ((what & PMUSCOPE_POL_EL0) && !p->member && p->user_access != 1)
		return -EACCES;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_policy_decide);

/*
 * One integer sysctl, from /proc/sys/@name as the init process (pid 1 of
 * the initial pid namespace) sees it. -errno when it cannot be read.
 */
int pmuscope_policy_sysctl(const char *name, int *val)
{
	struct task_struct *init;
	char path[64], buf[24] = { };
	struct path root;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int ret;

	rcu_read_lock();
	init = pid_task(find_pid_ns(1, &init_pid_ns), PIDTYPE_PID);
	if (init)
		get_task_struct(init);
	rcu_read_unlock();
	if (!init)
		return -ESRCH;
	task_lock(init);
	if (!init->fs) {
		task_unlock(init);
		put_task_struct(init);
		return -ESRCH;
	}
	get_fs_root(init->fs, &root);
	task_unlock(init);
	put_task_struct(init);

	snprintf(path, sizeof(path), "proc/sys/kernel/%s", name);
	f = file_open_root(&root, path, O_RDONLY, 0);
	path_put(&root);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	fput(f);
	if (n <= 0)
		return n ? (int)n : -EIO;
	ret = kstrtoint(strim(buf), 10, val);
	return ret;
}

/* The caller's side of the policy, with the sysctls read if it matters. */
void pmuscope_policy_get(kgid_t group, struct pmuscope_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->sys_admin = capable(CAP_SYS_ADMIN);
	p->priv = p->sys_admin || perfmon_capable();
	p->member = gid_valid(group) && in_group_p(group);
	p->paranoid = INT_MAX;
	if (p->sys_admin) {
		p->kernel = true;
		return;
	}
	p->paranoid_err = pmuscope_policy_sysctl("perf_event_paranoid", &p->paranoid);
	if (p->paranoid_err)
		p->paranoid = INT_MAX;
	if (pmuscope_policy_sysctl("perf_user_access", &p->user_access))
		p->user_access = 0;
	/*
	 * Level 3 exists where the kernel has perf_paranoid_any() (Debian's
	 * patch; upstream stops at 2). Unreadable: the most restrictive.
	 */
#ifdef PMUSCOPE_HAVE_PARANOID_ANY
	p->paranoid_any = p->paranoid > 2;
#else
	p->paranoid_any = p->paranoid == INT_MAX;
#endif
	if (p->priv) {
		p->kernel = true;
		return;
	}
#ifdef PMUSCOPE_HAVE_PERF_ALLOW_KERNEL
	/* perf's own check: the live sysctl and the LSM's perf_event hook. */
	p->kernel = !perf_allow_kernel();
#else
	p->kernel = p->paranoid <= 1;
#endif
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_policy_get);

/*
 * pmuscope_policy_decide() for the caller, whose policy @p is (read
 * before, pmuscope_policy_get(): it may sleep); says why not in the log.
 */
int pmuscope_policy_apply(const struct pmuscope_policy *p, unsigned int what)
{
	char paranoid[24];
	int ret;

	ret = pmuscope_policy_decide(p, what);
	if (!ret)
		return 0;
	if (p->paranoid == INT_MAX)
		snprintf(paranoid, sizeof(paranoid), "unreadable (%d)", p->paranoid_err);
	else
		snprintf(paranoid, sizeof(paranoid), "%d", p->paranoid);
	pr_info_ratelimited("uid %u refused%s%s%s%s%s%s: kernel.perf_event_paranoid %s, kernel.perf_user_access %d (the module parameter group= grants EL0 counting and reads)\n",
			    from_kuid_munged(current_user_ns(), current_uid()),
			    what & PMUSCOPE_POL_TASK ? " own-task counting" : "",
			    what & PMUSCOPE_POL_CPU ? " CPU-wide counting" : "",
			    what & PMUSCOPE_POL_KERNEL ? " of the kernel" : "",
			    what & PMUSCOPE_POL_EL0 ? " with EL0 reads" : "",
			    what & PMUSCOPE_POL_CHAIN_CPU ? " call chains of whole CPUs" : "",
			    what & PMUSCOPE_POL_AMU ? " Activity Monitor reads" : "",
			    paranoid, p->user_access);
	return ret;
}

/*
 * May the caller see the kernel (EL1 or EL2 counts): perf's own
 * perf_allow_kernel() where the kernel exports it (the live sysctl and the
 * LSM hook), else pmuscope's policy, which reads the sysctl's file (not
 * for CAP_PERFMON). Process context.
 */
bool pmuscope_policy_kernel_allowed(void)
{
	if (perfmon_capable())
		return true;
#ifdef PMUSCOPE_HAVE_PERF_ALLOW_KERNEL
	return !perf_allow_kernel();
#else
	return !pmuscope_policy_check(PMUSCOPE_POL_KERNEL);
#endif
}

/* pmuscope_policy_decide() for the caller; says why not in the log. */
int pmuscope_policy_check(unsigned int what)
{
	struct pmuscope_policy p;

	pmuscope_policy_get(pmuscope_drv.perf_group, &p);
	return pmuscope_policy_apply(&p, what);
}

/*
 * Is @task still the caller's to sample: what ptrace_may_access(@task,
 * PTRACE_MODE_READ_REALCREDS) asks of a caller without CAP_PERFMON, as
 * perf_event_open() asks it of a task event (perf_check_permission()),
 * which is not exported. The caller's own thread group; else its real uid
 * and gid are each of the task's (real, effective and saved: a setuid
 * exec leaves the real uid the caller's but not the others) and the
 * task's mm is dumpable as a user's (SUID_DUMP_USER: not after an exec of
 * a setuid, setgid or unreadable program, nor after a credential change,
 * until the task says so). No mm (exited, a kernel thread): not ours.
 * The credentials before the mm, as __ptrace_may_access() reads them (a
 * task that becomes non-dumpable changes its credentials first). For a
 * verdict that holds, the caller holds @task's
 * signal->exec_update_lock: exec changes both under it.
 */
bool pmuscope_policy_task_ours(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ours;

	if (same_thread_group(task, current))
		return true;
	rcu_read_lock();
	tcred = __task_cred(task);
	ours = uid_eq(cred->uid, tcred->uid) && uid_eq(cred->uid, tcred->euid) &&
	       uid_eq(cred->uid, tcred->suid) && gid_eq(cred->gid, tcred->gid) &&
	       gid_eq(cred->gid, tcred->egid) && gid_eq(cred->gid, tcred->sgid);
	rcu_read_unlock();
	if (!ours)
		return false;
	/* Pairs with the write barrier of commit_creds(), as ptrace's. */
	smp_rmb();
	mm = get_task_mm(task);
	if (!mm)
		return false;
	ours = get_dumpable(mm) == SUID_DUMP_USER;
	mmput(mm);
	return ours;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_policy_task_ours);

/* ------------------------------------------------- synchronized snapshots */

/*
 * An all-CPU SNAPSHOT holds every CPU of its session with IRQs off until
 * a common deadline, up to lead_us after the request
 * (pmuscope_snapshot.c). perf bounds what the events of a user without
 * CAP_PERFMON may take of a CPU (kernel.perf_cpu_time_max_percent,
 * perf_event_max_sample_rate) and throttles past it rather than fail,
 * and refuses outright what a limit for the unprivileged forbids
 * (perf_event_mlock_kb: EPERM). So, for callers without CAP_PERFMON,
 * members of group= included:
 *
 *  - a request's lead is at most PMUSCOPE_SNAP_LEAD_US_UNPRIV (the
 *    default lead): more is -EPERM;
 *  - their leads together take at most PMUSCOPE_SNAP_UNPRIV_US_PER_S of
 *    each second of time, and as much ahead: on any CPU, at most
 *    (T + 1) x 10 ms of such waiting over any T seconds. Past that a
 *    request is captured without a deadline, each CPU as its interrupt
 *    comes (IRQs off only for its own capture), flagged
 *    PMUSCOPE_SNAPCPU_UNSYNCED, with the skew as it was.
 *
 * One budget for the whole driver: per session or per user it would be
 * multiplied by opening files or forking.
 */
struct pmuscope_snap_budget pmuscope_snap_budget = {
	.lock = __SPIN_LOCK_UNLOCKED(pmuscope_snap_budget.lock),
};

/*
 * The budget as a GCRA (a token bucket without division or rounding):
 * a wait of @wait_us costs USEC_PER_SEC / PMUSCOPE_SNAP_UNPRIV_US_PER_S
 * times as long of the budget's time, and is granted when that leaves
 * *@tat_ns at most a second after @now_ns. True (and *@tat_ns advanced)
 * if granted.
 */
bool pmuscope_snap_budget_take(u64 *tat_ns, u64 now_ns, u32 wait_us)
{
	u64 cost = (u64)wait_us * NSEC_PER_USEC *
		   (USEC_PER_SEC / PMUSCOPE_SNAP_UNPRIV_US_PER_S);
	u64 tat = max(*tat_ns, now_ns);

	if (tat + cost - now_ns > NSEC_PER_SEC)
		return false;
	*tat_ns = tat + cost;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_snap_budget_take);

/*
 * May the caller ask for a deadline @lead_us (0: the default) after its
 * SNAPSHOT? 0, or -EPERM: above PMUSCOPE_SNAP_LEAD_US_UNPRIV without
 * CAP_PERFMON (asked only then, and audited: it is a refusal).
 */
int pmuscope_policy_snap_lead(u32 lead_us)
{
	if (lead_us <= PMUSCOPE_SNAP_LEAD_US_UNPRIV || perfmon_capable())
		return 0;
	pr_info_ratelimited("uid %u refused a snapshot lead of %u us: at most %u us without CAP_PERFMON\n",
			    from_kuid_munged(current_user_ns(), current_uid()), lead_us,
			    PMUSCOPE_SNAP_LEAD_US_UNPRIV);
	return -EPERM;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_policy_snap_lead);

/*
 * May an all-CPU SNAPSHOT of the caller wait @lead_us for its deadline
 * now (@now_ns, ktime_get_ns())? Always with CAP_PERFMON; otherwise while
 * @b has it, which this charges. False: capture without a deadline. The
 * capability is asked without an audit record: every such SNAPSHOT asks,
 * and a no only means the budget.
 */
bool pmuscope_policy_snap_sync(struct pmuscope_snap_budget *b, u32 lead_us, u64 now_ns)
{
	bool ok;

	if (ns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||
	    ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN))
		return true;
	spin_lock(&b->lock);
	ok = pmuscope_snap_budget_take(&b->tat_ns, now_ns, lead_us);
	spin_unlock(&b->lock);
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_policy_snap_sync);
