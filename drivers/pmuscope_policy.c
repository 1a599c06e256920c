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
#include <linux/sched/task.h>
#include <linux/string.h>

#include "pmuscope.h"
#include "pmuscope_kunit_export.h"

/*
 * The decision, a pure function of the policy and of what a session asks
 * for (PMUSCOPE_POL_*): 0, -EPERM (a CPU-wide session the caller may not
 * have) or -EACCES (what kernel.perf_event_paranoid or
 * kernel.perf_user_access forbids).
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
	if (p->priv)
		return 0;
	if ((what & PMUSCOPE_POL_CPU) && !p->member && p->paranoid > 0)
		return -EPERM;
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
static int pmuscope_policy_sysctl(const char *name, int *val)
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

/* pmuscope_policy_decide() for the caller; says why not in the log. */
int pmuscope_policy_check(unsigned int what)
{
	struct pmuscope_policy p;
	char paranoid[24];
	int ret;

	pmuscope_policy_get(pmuscope_drv.perf_group, &p);
	ret = pmuscope_policy_decide(&p, what);
	if (!ret)
		return 0;
	if (p.paranoid == INT_MAX)
		snprintf(paranoid, sizeof(paranoid), "unreadable (%d)", p.paranoid_err);
	else
		snprintf(paranoid, sizeof(paranoid), "%d", p.paranoid);
	pr_info_ratelimited("uid %u refused%s%s%s%s: kernel.perf_event_paranoid %s, kernel.perf_user_access %d (the module parameter group= grants EL0 counting and reads)\n",
			    from_kuid_munged(current_user_ns(), current_uid()),
			    what & PMUSCOPE_POL_TASK ? " own-task counting" : "",
			    what & PMUSCOPE_POL_CPU ? " CPU-wide counting" : "",
			    what & PMUSCOPE_POL_KERNEL ? " of the kernel" : "",
			    what & PMUSCOPE_POL_EL0 ? " with EL0 reads" : "",
			    paranoid, p.user_access);
	return ret;
}
