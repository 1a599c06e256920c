// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: locked memory. The memory a session keeps allocated and
 * unswappable for as long as it exists (a stream's ring, an SPE session's
 * ring and profiling buffers) is charged as perf charges a perf ring buffer
 * or AUX area: perf_mmap() in kernel/events/core.c, the same in Linux 6.1
 * and 6.12:
 *
 *	user_lock_limit = sysctl_perf_event_mlock >> (PAGE_SHIFT - 10);
 *	user_lock_limit *= num_online_cpus();
 *	user_locked = atomic_long_read(&user->perf_mlock);
 *	if (user_locked > user_lock_limit)
 *		user_locked = user_lock_limit;
 *	user_locked += user_extra;
 *	if (user_locked > user_lock_limit) {
 *		extra = user_locked - user_lock_limit;
 *		user_extra -= extra;
 *	}
 *	lock_limit = rlimit(RLIMIT_MEMLOCK);
 *	lock_limit >>= PAGE_SHIFT;
 *	locked = atomic64_read(&vma->vm_mm->pinned_vm) + extra;
 *	if ((locked > lock_limit) && perf_is_paranoid() &&
 *		!capable(CAP_IPC_LOCK)) {
 *		ret = -EPERM;
 *	...
 *	atomic_long_add(user_extra, &user->perf_mlock);
 *	atomic64_add(extra, &vma->vm_mm->pinned_vm);
 *
 * So: the caller's user (current_user(), one account for all its
 * processes, shared with its perf mmaps) takes the pages first, up to
 * kernel.perf_event_mlock_kb times the online CPUs, in user->perf_mlock
 * (not user->locked_vm: that is io_uring's, VFIO's, BPF's); what exceeds
 * it goes to the caller's mm (mm->pinned_vm, /proc/PID/status VmPin),
 * which with it may not pass RLIMIT_MEMLOCK (ulimit -l): else -EPERM.
 * Exempt from the limit, never from the charge: CAP_IPC_LOCK, and
 * everyone at kernel.perf_event_paranoid -1 (perf_is_paranoid() is
 * "> -1"). CAP_PERFMON and CAP_SYS_ADMIN exempt nothing here (perf_mmap()
 * asks neither; perfmon_capable() is not in it). The charge is given back
 * when the memory is freed (perf_mmap_close()), to the same user and mm
 * (references kept: get_current_user(), mmgrab()), whoever holds the file
 * by then.
 *
 * Neither sysctl is exported to modules: both are read from /proc/sys as
 * the init process sees them (pmuscope_policy_sysctl()), failing closed:
 * an unreadable perf_event_mlock_kb is 0 KiB (all to the mm's limit), an
 * unreadable perf_event_paranoid exempts no one.
 */

#define pr_fmt(fmt) "pmuscope: " fmt

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/string.h>
#include <linux/uidgid.h>

#include "pmuscope.h"
#include "pmuscope_kunit_export.h"

/*
 * perf_mmap()'s arithmetic, in pages: of @pages asked, how many go to
 * the user's account (*@to_user, while it holds at most @user_limit:
 * @user_locked there already, counted as at most @user_limit, as perf
 * does after the sysctl was lowered) and how many to the mm's pinned
 * pages (*@to_pinned); -EPERM when those with the @pinned ones already
 * there exceed @lock_limit, unless @exempt (PMUSCOPE_MLOCK_EX_*) says the
 * limit does not apply. perf checks the pinned pages even when none is
 * added: a caller already above its RLIMIT_MEMLOCK (pinned by something
 * else) gets nothing, not even within the user's allowance.
 */
int pmuscope_mlock_split(unsigned long pages, unsigned long user_locked,
			 unsigned long user_limit, unsigned long pinned,
			 unsigned long lock_limit, unsigned int exempt,
			 unsigned long *to_user, unsigned long *to_pinned)
{
	unsigned long locked = min(user_locked, user_limit) + pages;
	unsigned long extra = locked > user_limit ? locked - user_limit : 0;

	if (pinned + extra > lock_limit && !exempt)
		return -EPERM;
	*to_user = pages - extra;
	*to_pinned = extra;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_mlock_split);

/*
 * The two sysctls of the charge into @s. Reads files: before the
 * caller's locks, as pmuscope_policy_get().
 */
void pmuscope_mlock_sysctl(struct pmuscope_mlock_sysctl *s)
{
	if (pmuscope_policy_sysctl("perf_event_mlock_kb", &s->mlock_kb))
		s->mlock_kb = 0;
	if (pmuscope_policy_sysctl("perf_event_paranoid", &s->paranoid))
		s->paranoid = INT_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_mlock_sysctl);

/* One check-and-add at a time, of pmuscope's own charges. */
static DEFINE_MUTEX(pmuscope_mlock_lock);

/*
 * Charge @pages to the caller (@s: pmuscope_mlock_sysctl(), read before)
 * into @m, which must be empty; before the memory is allocated, so that
 * a refusal costs nothing. 0, or -EPERM (logged): nothing charged then.
 * Process context; sleeps (a mutex), so may be called under mutexes
 * (pmuscope_drv.lock), not spinlocks.
 */
int pmuscope_mlock_charge(struct pmuscope_mlock *m, unsigned long pages,
			  const struct pmuscope_mlock_sysctl *s, const char *what)
{
	struct user_struct *user = current_user();
	struct mm_struct *mm = current->mm;
	unsigned long user_limit, user_locked, pinned, lock_limit, to_user, to_pinned;
	unsigned int exempt = 0;
	int ret;

	/* perf's int shift, into an unsigned long: as perf_mmap() computes it. */
	user_limit = s->mlock_kb >> (PAGE_SHIFT - 10);
	user_limit *= num_online_cpus();
	/* A kernel thread has no mm: nowhere to pin, so no room there. */
	lock_limit = mm ? rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT : 0;

	mutex_lock(&pmuscope_mlock_lock);
	user_locked = atomic_long_read(&user->perf_mlock);
	pinned = mm ? atomic64_read(&mm->pinned_vm) : 0;
	ret = pmuscope_mlock_split(pages, user_locked, user_limit, pinned, lock_limit, 0,
				   &to_user, &to_pinned);
	if (ret) {
		/* Asked only over the limit, as perf asks: no needless audit. */
		if (s->paranoid <= -1)
			exempt |= PMUSCOPE_MLOCK_EX_PARANOID;
		else if (capable(CAP_IPC_LOCK))
			exempt |= PMUSCOPE_MLOCK_EX_IPC_LOCK;
		ret = pmuscope_mlock_split(pages, user_locked, user_limit, pinned, lock_limit,
					   exempt, &to_user, &to_pinned);
	}
	if (!ret) {
		atomic_long_add(to_user, &user->perf_mlock);
		if (mm) {
			atomic64_add(to_pinned, &mm->pinned_vm);
			mmgrab(mm);
		}
	}
	mutex_unlock(&pmuscope_mlock_lock);
	if (ret) {
		pr_info_ratelimited("uid %u refused %s of %lu KiB: exceeds the caller's locked-memory limit (kernel.perf_event_mlock_kb %d KiB x %u CPUs for the user, %lu KiB of it in use; then RLIMIT_MEMLOCK, ulimit -l, %lu KiB, %lu KiB pinned; CAP_IPC_LOCK or kernel.perf_event_paranoid -1 exempts)\n",
				    from_kuid_munged(current_user_ns(), current_uid()), what,
				    pages << (PAGE_SHIFT - 10), s->mlock_kb, num_online_cpus(),
				    min(user_locked, user_limit) << (PAGE_SHIFT - 10),
				    lock_limit << (PAGE_SHIFT - 10), pinned << (PAGE_SHIFT - 10));
		return ret;
	}
	m->user = get_current_user();
	m->mm = mm;
	m->pages = pages;
	m->pinned = to_pinned;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_mlock_charge);

/*
 * Give back what @m holds (once: @m is empty after, and an empty one is
 * nothing), to the user and mm charged, whoever calls.
 */
void pmuscope_mlock_uncharge(struct pmuscope_mlock *m)
{
	if (!m->user)
		return;
	atomic_long_sub(m->pages - m->pinned, &m->user->perf_mlock);
	if (m->mm) {
		atomic64_sub(m->pinned, &m->mm->pinned_vm);
		mmdrop(m->mm);
	}
	free_uid(m->user);
	memset(m, 0, sizeof(*m));
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_mlock_uncharge);
