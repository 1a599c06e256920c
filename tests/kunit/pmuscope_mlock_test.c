// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: locked memory (drivers/pmuscope_mlock.c, against pmuscope.ko
 * itself). pmuscope_mlock_split(), perf_mmap()'s arithmetic, case by case
 * of kernel/events/core.c (Linux 6.1 and 6.12: user->perf_mlock up to
 * kernel.perf_event_mlock_kb x online CPUs, the rest to the mm's pinned_vm
 * within RLIMIT_MEMLOCK, -EPERM beyond unless CAP_IPC_LOCK or paranoid
 * -1); then the guest test's sequence of 16 KiB rings, and a charge and
 * its uncharge on the user's real account, once.
 */

#include <kunit/test.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/limits.h>
#include <linux/resource.h>
#include <linux/sched.h>
#include <linux/sched/user.h>

#include "pmuscope.h"

#define EX_PAR	PMUSCOPE_MLOCK_EX_PARANOID
#define EX_IPC	PMUSCOPE_MLOCK_EX_IPC_LOCK

struct pmuscope_mlock_case {
	const char *name;
	unsigned long pages, user_locked, user_limit, pinned, lock_limit;
	unsigned int exempt;
	int expect;
	unsigned long to_user, to_pinned;
};

static const struct pmuscope_mlock_case pmuscope_mlock_cases[] = {
	/* Within the user's allowance: all of it to user->perf_mlock. */
	{ "within the allowance", 4, 0, 8, 0, 16, 0, 0, 4, 0 },
	{ "up to the allowance exactly", 8, 0, 8, 0, 16, 0, 0, 8, 0 },
	{ "others' pages on the account, still within", 4, 4, 8, 0, 16, 0, 0, 4, 0 },
	/* "charge perf_mlock until it hits user_lock_limit; the rest from pinned_vm" */
	{ "across the allowance: split", 4, 6, 8, 0, 16, 0, 0, 2, 2 },
	{ "the allowance used up: all pinned", 4, 8, 8, 0, 16, 0, 0, 0, 4 },
	/* "sysctl_perf_event_mlock may have changed": the account counts as the allowance */
	{ "account above a lowered allowance: clamped", 4, 20, 8, 0, 16, 0, 0, 0, 4 },
	{ "account above, pinned room short", 4, 20, 8, 13, 16, 0, -EPERM, 0, 0 },
	/* "locked > lock_limit": up to RLIMIT_MEMLOCK inclusive */
	{ "pinned up to the limit exactly", 4, 8, 8, 12, 16, 0, 0, 0, 4 },
	{ "pinned one page over the limit", 4, 8, 8, 13, 16, 0, -EPERM, 0, 0 },
	{ "split, its pinned part over", 4, 6, 8, 15, 16, 0, -EPERM, 0, 0 },
	{ "split, its pinned part fits", 4, 6, 8, 14, 16, 0, 0, 2, 2 },
	/* perf_is_paranoid() false (kernel.perf_event_paranoid -1), or CAP_IPC_LOCK */
	{ "over the limit, paranoid -1", 4, 8, 8, 13, 16, EX_PAR, 0, 0, 4 },
	{ "over the limit, CAP_IPC_LOCK", 4, 8, 8, 13, 16, EX_IPC, 0, 0, 4 },
	{ "16 MiB, no allowance, no rlimit, CAP_IPC_LOCK", 4096, 0, 0, 0, 0, EX_IPC, 0, 0, 4096 },
	/* A perf_event_mlock_kb of 0 (or unreadable: the same, failing closed) */
	{ "no allowance: all pinned", 4, 0, 0, 0, 16, 0, 0, 0, 4 },
	{ "no allowance, RLIMIT_MEMLOCK 0", 4, 0, 0, 0, 0, 0, -EPERM, 0, 0 },
	/* perf checks pinned_vm even when nothing goes there */
	{ "within the allowance, pinned already over the limit", 4, 0, 8, 20, 16, 0,
	  -EPERM, 0, 0 },
	{ "within the allowance, pinned over, CAP_IPC_LOCK", 4, 0, 8, 20, 16, EX_IPC, 0, 4, 0 },
	/* RLIMIT_MEMLOCK unlimited; a negative perf_event_mlock_kb: no allowance limit */
	{ "RLIM_INFINITY: 16 MiB pinned", 4096, 0, 0, 0, RLIM_INFINITY >> PAGE_SHIFT, 0, 0,
	  0, 4096 },
	{ "allowance ULONG_MAX (perf_event_mlock_kb < 0)", 4096, 100, ULONG_MAX, 0, 0, 0, 0,
	  4096, 0 },
	/* A 16 MiB ring at paranoid 2, defaults: 516 KiB x 2 CPUs, ulimit -l 8 MiB */
	{ "16 MiB ring, 2 CPUs, default limits", 4096, 0, 258, 0, 2048, 0, -EPERM, 0, 0 },
	{ "8 MiB ring, 2 CPUs, default limits", 2048, 0, 258, 0, 2048, 0, 0, 258, 1790 },
};

static void pmuscope_mlock_desc(const struct pmuscope_mlock_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_mlock, pmuscope_mlock_cases, pmuscope_mlock_desc);

static void pmuscope_test_mlock_split(struct kunit *test)
{
	const struct pmuscope_mlock_case *c = test->param_value;
	unsigned long to_user = 12345, to_pinned = 12345;
	int ret;

	ret = pmuscope_mlock_split(c->pages, c->user_locked, c->user_limit, c->pinned,
				   c->lock_limit, c->exempt, &to_user, &to_pinned);
	KUNIT_EXPECT_EQ_MSG(test, ret, c->expect,
			    "%s: %lu pages, account %lu of %lu, pinned %lu of %lu, exempt %#x",
			    c->name, c->pages, c->user_locked, c->user_limit, c->pinned,
			    c->lock_limit, c->exempt);
	if (ret) {
		/* Nothing said on a refusal. */
		KUNIT_EXPECT_EQ(test, to_user, 12345UL);
		KUNIT_EXPECT_EQ(test, to_pinned, 12345UL);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, to_user, c->to_user, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, to_pinned, c->to_pinned, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, to_user + to_pinned, c->pages, "%s: all of it charged",
			    c->name);
}

/*
 * The guest test's (t-mlock.sh) sequence: perf_event_mlock_kb 16 on 2
 * CPUs (8 pages of 4 KiB), ulimit -l 64 KiB (16 pages), rings of 16 KiB
 * (4 pages): two on the user's account, four pinned, the seventh refused;
 * the charges given back, the same again.
 */
static void pmuscope_test_mlock_sequence(struct kunit *test)
{
	unsigned long account = 0, pinned = 0, to_user, to_pinned;
	unsigned int round, n;

	for (round = 0; round < 2; round++) {
		for (n = 0; n < 10; n++) {
			if (pmuscope_mlock_split(4, account, 8, pinned, 16, 0, &to_user,
						 &to_pinned))
				break;
			account += to_user;
			pinned += to_pinned;
		}
		KUNIT_EXPECT_EQ_MSG(test, n, 6U, "round %u: rings before the refusal", round);
		KUNIT_EXPECT_EQ(test, account, 8UL);
		KUNIT_EXPECT_EQ(test, pinned, 16UL);
		account = 0;
		pinned = 0;
	}
}

/*
 * pmuscope_mlock_charge() and _uncharge() on this thread's user (a kernel
 * thread: no mm, so no room to pin without CAP_IPC_LOCK): the account
 * grows by what went there and comes back once, whatever the uncharges.
 */
static void pmuscope_test_mlock_charge(struct kunit *test)
{
	struct pmuscope_mlock_sysctl big = { .mlock_kb = 1 << 20, .paranoid = 2 };
	struct pmuscope_mlock_sysctl none = { .mlock_kb = 0, .paranoid = 2 };
	struct pmuscope_mlock_sysctl par_off = { .mlock_kb = 0, .paranoid = -1 };
	struct user_struct *user = current_user();
	struct pmuscope_mlock m = { };
	const struct cred *old;
	struct cred *cred;
	long before;

	KUNIT_ASSERT_NULL_MSG(test, current->mm, "a kernel thread, without mm");
	before = atomic_long_read(&user->perf_mlock);
	KUNIT_ASSERT_EQ(test, pmuscope_mlock_charge(&m, 4, &big, "a test"), 0);
	KUNIT_EXPECT_PTR_EQ(test, m.user, user);
	KUNIT_EXPECT_NULL(test, m.mm);
	KUNIT_EXPECT_EQ(test, m.pages, 4UL);
	KUNIT_EXPECT_EQ(test, m.pinned, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->perf_mlock), before + 4);
	pmuscope_mlock_uncharge(&m);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->perf_mlock), before);
	KUNIT_EXPECT_NULL(test, m.user);
	pmuscope_mlock_uncharge(&m);
	KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&user->perf_mlock), before,
			    "a second uncharge gives back nothing");

	/* No allowance: beyond it only with CAP_IPC_LOCK (a kernel thread's). */
	KUNIT_ASSERT_TRUE(test, capable(CAP_IPC_LOCK));
	KUNIT_ASSERT_EQ(test, pmuscope_mlock_charge(&m, 4, &none, "a test"), 0);
	KUNIT_EXPECT_EQ(test, m.pinned, 4UL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->perf_mlock), before);
	pmuscope_mlock_uncharge(&m);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->perf_mlock), before);

	/* Without it: refused, nothing charged; paranoid -1 lets it through. */
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_IPC_LOCK);
	old = override_creds(cred);
	KUNIT_EXPECT_EQ(test, pmuscope_mlock_charge(&m, 4, &none, "a test"), -EPERM);
	KUNIT_EXPECT_NULL(test, m.user);
	KUNIT_EXPECT_EQ(test, pmuscope_mlock_charge(&m, 4, &par_off, "a test"), 0);
	KUNIT_EXPECT_EQ(test, m.pinned, 4UL);
	revert_creds(old);
	put_cred(cred);
	pmuscope_mlock_uncharge(&m);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->perf_mlock), before);
}

static struct kunit_case pmuscope_mlock_test_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_mlock_split, pmuscope_mlock_gen_params),
	KUNIT_CASE(pmuscope_test_mlock_sequence),
	KUNIT_CASE(pmuscope_test_mlock_charge),
	{}
};

static struct kunit_suite pmuscope_mlock_suite = {
	.name = "pmuscope_mlock",
	.test_cases = pmuscope_mlock_test_cases,
};

kunit_test_suites(&pmuscope_mlock_suite);
