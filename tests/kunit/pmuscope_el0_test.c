// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: EL0 direct reads (drivers/pmuscope_el0.c) against the register
 * model: PMUSERENR_EL0 and PMUACR_EL1 in every grant state, the counters
 * of others zeroed (or kept closed) before EL0 may read, the user page's
 * formula equal to the engine's count across a 32-bit wrap that is not
 * folded yet, and the rules of CONFIG's USER_READ.
 */

#include <kunit/test.h>
#include <linux/sched.h>
#include <linux/slab.h>
#ifdef PMUSCOPE_HAVE_LINUX_RSEQ_H
#include <linux/rseq.h>
#endif

#include "pmuscope.h"
#include "pmuscope_model.h"
#include "pmuscope_etest.h"
#include "pmuscope_regs.h"

#define ER	PMUSCOPE_USERENR_ER
#define CR	PMUSCOPE_USERENR_CR
#define SW	PMUSCOPE_USERENR_SW
#define UEN	PMUSCOPE_USERENR_UEN
#define CYC	BIT(PMUSCOPE_CYCLE_IDX)

/* ------------------------------------------------------------ pure rules */

struct el0_userenr_case {
	const char *name;
	bool per_counter;
	u32 mine;
	bool swinc;
	u64 want;
};

static const struct el0_userenr_case el0_userenr_cases[] = {
	{ "v3: event counters only", false, 0x3, false, ER },
	{ "v3: with the cycle counter", false, 0x1 | CYC, false, ER | CR },
	{ "v3: the cycle counter alone", false, CYC, false, ER | CR },
	{ "v3: with SWINC", false, 0x1, true, ER | SW },
	{ "v3p9: event counters only", true, 0x3, false, UEN | ER | CR },
	{ "v3p9: with the cycle counter", true, 0x1 | CYC, false, UEN | ER | CR },
	{ "v3p9: with SWINC", true, 0x4, true, UEN | ER | CR | SW },
};

static void el0_userenr_desc(const struct el0_userenr_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(el0_userenr, el0_userenr_cases, el0_userenr_desc);

/* PMUSERENR_EL0 never has EN (EL0 writes of every PMU register). */
static void pmuscope_test_el0_userenr(struct kunit *test)
{
	const struct el0_userenr_case *c = test->param_value;
	u64 v = pmuscope_el0_userenr(c->per_counter, c->mine, c->swinc);

	KUNIT_EXPECT_EQ(test, v, c->want);
	KUNIT_EXPECT_FALSE(test, v & PMUSCOPE_USERENR_EN);
}

struct el0_pmuacr_case {
	const char *name;
	u32 open;
	u64 want;
};

static const struct el0_pmuacr_case el0_pmuacr_cases[] = {
	{ "nothing", 0, 0 },
	{ "counter 0", 0x1, 0x1 },
	{ "counters 0, 5 and 30", BIT(0) | BIT(5) | BIT(30), BIT(0) | BIT(5) | BIT(30) },
	{ "the cycle counter is C", CYC, PMUSCOPE_PMUACR_C },
	{ "counter 2 and the cycle counter", BIT(2) | CYC, BIT(2) | PMUSCOPE_PMUACR_C },
};

static void el0_pmuacr_desc(const struct el0_pmuacr_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(el0_pmuacr, el0_pmuacr_cases, el0_pmuacr_desc);

/* PMUACR_EL1 opens exactly the session's counters; never F0 (ICNTR). */
static void pmuscope_test_el0_pmuacr(struct kunit *test)
{
	const struct el0_pmuacr_case *c = test->param_value;
	u64 v = pmuscope_el0_pmuacr(c->open);

	KUNIT_EXPECT_EQ(test, v, c->want);
	KUNIT_EXPECT_FALSE(test, v & PMUSCOPE_PMUACR_F0);
}

struct el0_fit_case {
	const char *name;
	u32 counters;
	u32 events[8];
	u32 nr;
	int want;
};

static const struct el0_fit_case el0_fit_cases[] = {
	{ "6 events on 6 counters", 6, { 8, 3, 4, 5, 6, 7 }, 6, 0 },
	{ "7 events, one CPU_CYCLES, on 6 counters", 6, { 8, 3, 4, 5, 6, 7, 0x11 }, 7, 0 },
	{ "7 events, no CPU_CYCLES, on 6 counters", 6, { 8, 3, 4, 5, 6, 7, 0x12 }, 7,
	  -ENOSPC },
	{ "two CPU_CYCLES take one cycle counter", 1, { 0x11, 0x11, 8 }, 3, -ENOSPC },
	{ "two CPU_CYCLES on 1 counter and the cycle counter", 1, { 0x11, 0x11 }, 2, 0 },
	{ "one event on no event counter", 0, { 8 }, 1, -ENOSPC },
	{ "CPU_CYCLES alone on no event counter", 0, { 0x11 }, 1, 0 },
};

static void el0_fit_desc(const struct el0_fit_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(el0_fit, el0_fit_cases, el0_fit_desc);

/* USER_READ needs every event on a counter at once (else ENOSPC). */
static void pmuscope_test_el0_fit(struct kunit *test)
{
	const struct el0_fit_case *c = test->param_value;
	struct pmuscope_event evs[8] = { };
	u32 i;

	for (i = 0; i < c->nr; i++) {
		evs[i].event = c->events[i];
		evs[i].flags = PMUSCOPE_EV_EL0;
	}
	KUNIT_EXPECT_EQ(test, pmuscope_check_el0_fit(c->counters, evs, c->nr), c->want);
}

/* ----------------------------------------------------- grants on the model */

struct el0_ctx {
	struct pmuscope_pmu *pmu;
	struct pmuscope_el0 *el0;
	unsigned int cpu;
};

/*
 * A PMU of @prof, up, and an EL0 session of @nr events whose counters
 * are @idx[] (assigned, counting, slots started in the page). The test
 * frees x->el0 (el0_done()).
 */
static void el0_setup_flags(struct kunit *test, struct el0_ctx *x,
			    const struct pmuscope_model_profile *prof,
			    const u8 *idx, u32 nr, bool swinc, u32 ev_flags)
{
	struct pmuscope_etest *t = test->priv;
	unsigned long flags;
	u32 i;

	/* A fresh PMU: a test may set up several. */
	memset(t->pmu, 0, sizeof(*t->pmu));
	raw_spin_lock_init(&t->pmu->lock);
	x->pmu = pmuscope_etest_pmu(test, prof);
	x->cpu = t->cpu;
	pmuscope_etest_call(x->pmu, pmuscope_pmu_cpu_up);
	x->el0 = pmuscope_el0_alloc(current, nr, swinc);
	KUNIT_ASSERT_NOT_NULL(test, x->el0);
	raw_spin_lock_irqsave(&x->pmu->lock, flags);
	for (i = 0; i < nr; i++) {
		pmuscope_etest_assign(x->pmu, idx[i], idx[i] == PMUSCOPE_CYCLE_IDX ? 0x11 : 0x08,
				      ev_flags);
		x->pmu->hwc[idx[i]].enabled = false;
		x->pmu->hwc[idx[i]].el0 = x->el0;
		x->pmu->hwc[idx[i]].slot = i;
		pmuscope_hwc_set_enabled(x->pmu, idx[i], true, 0);
		pmuscope_el0_start(x->pmu, x->el0, i, idx[i], 0, 0, 0);
	}
	raw_spin_unlock_irqrestore(&x->pmu->lock, flags);
}

static void el0_setup(struct kunit *test, struct el0_ctx *x,
		      const struct pmuscope_model_profile *prof,
		      const u8 *idx, u32 nr, bool swinc)
{
	el0_setup_flags(test, x, prof, idx, nr, swinc, PMUSCOPE_EV_EL0);
}

static void el0_done(struct el0_ctx *x)
{
	pmuscope_el0_free(x->el0);
}

static bool el0_reserve(struct el0_ctx *x)
{
	unsigned long flags;
	bool ok;

	raw_spin_lock_irqsave(&x->pmu->lock, flags);
	ok = pmuscope_el0_reserve(x->pmu, x->el0, 1, true);
	pmuscope_el0_grant(x->pmu, x->el0);
	raw_spin_unlock_irqrestore(&x->pmu->lock, flags);
	return ok;
}

static u64 el0_reg(struct el0_ctx *x, enum pmuscope_reg reg)
{
	return pmuscope_model_read_cpu(x->cpu, reg);
}

/*
 * Before PMUv3p9: a switch-in with no other owner's counter here gets
 * ER (and CR for the cycle counter), the counters it does not hold are
 * zeroed first (another session left counts in them), its own are not.
 */
static void pmuscope_test_el0_grant_v3(struct kunit *test)
{
	static const u8 idx[] = { 0, PMUSCOPE_CYCLE_IDX };
	struct pmuscope_etest *t = test->priv;
	struct el0_ctx x;
	unsigned int n;

	el0_setup(test, &x, &pmuscope_model_cortex_a53, idx, 2, false);
	for (n = 1; n < x.pmu->nr_counters; n++)
		pmuscope_model_write_cpu(x.cpu, PMUSCOPE_REG_PMEVCNTR(n), 1000 + n);
	pmuscope_model_count_el(x.cpu, 0x08, 0, 500);

	KUNIT_ASSERT_TRUE(test, el0_reserve(&x));
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUSERENR_EL0), ER | CR);
	for (n = 1; n < x.pmu->nr_counters; n++)
		KUNIT_EXPECT_EQ_MSG(test, el0_reg(&x, PMUSCOPE_REG_PMEVCNTR(n)), 0,
				    "counter %u still holds another session's count", n);
	/* Its own counter counts on (from 2^31, pmuscope_hwc_el0_lift()). */
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMEVCNTR(0)), BIT_ULL(31) + 500);
	KUNIT_EXPECT_EQ(test, x.pmu->el0_open, pmuscope_el0_all(x.pmu));
	KUNIT_EXPECT_EQ(test, x.el0->page->cpu, x.cpu);
	KUNIT_EXPECT_EQ(test, x.el0->page->pmuserenr, ER | CR);
	KUNIT_EXPECT_EQ(test, x.el0->page->grants, 1);
	KUNIT_EXPECT_EQ(test, x.el0->page->seq % 2, 0);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
	el0_done(&x);
}

/* Before PMUv3p9, another owner's counter here: denied, nothing opened. */
static void pmuscope_test_el0_deny_v3(struct kunit *test)
{
	static const u8 idx[] = { 0 };
	struct pmuscope_etest *t = test->priv;
	struct el0_ctx x;

	el0_setup(test, &x, &pmuscope_model_cortex_a53, idx, 1, false);
	pmuscope_etest_assign(x.pmu, 3, 0x11, PMUSCOPE_EV_ALL_EL);
	pmuscope_model_write_cpu(x.cpu, PMUSCOPE_REG_PMEVCNTR(3), 4242);

	KUNIT_EXPECT_FALSE(test, el0_reserve(&x));
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUSERENR_EL0), 0);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMEVCNTR(3)), 4242);
	KUNIT_EXPECT_NULL(test, x.pmu->el0);
	KUNIT_EXPECT_EQ(test, x.pmu->el0_open, 0);
	KUNIT_EXPECT_EQ(test, x.el0->page->cpu, PMUSCOPE_CPU_ANY);
	KUNIT_EXPECT_EQ(test, x.el0->page->denials, 1);
	KUNIT_EXPECT_EQ(test, x.el0->page->grants, 0);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
	el0_done(&x);
}

/*
 * PMUv3p9, granted: perf rotates one event out and puts another back on a
 * new counter while the thread runs. The page names the new counter, so
 * PMUACR_EL1 opens it at once (the old one stays open until the switch-out:
 * grants never shrink under the thread).
 */
static void pmuscope_test_el0_rotate_v3p9(struct kunit *test)
{
	static const u8 idx[] = { 2, 3, PMUSCOPE_CYCLE_IDX };
	struct pmuscope_etest *t = test->priv;
	unsigned long flags;
	struct el0_ctx x;

	el0_setup(test, &x, &pmuscope_model_v94, idx, 3, false);
	KUNIT_ASSERT_TRUE(test, el0_reserve(&x));
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUACR_EL1),
			BIT(2) | BIT(3) | PMUSCOPE_PMUACR_C);

	raw_spin_lock_irqsave(&x.pmu->lock, flags);
	/* The cycle event rotated out; event 0 leaves counter 2 for counter 5. */
	pmuscope_el0_stop(x.el0, 2);
	pmuscope_el0_stop(x.el0, 0);
	x.pmu->hwc[2].el0 = NULL;
	x.pmu->allocated &= ~BIT(2);
	pmuscope_etest_assign(x.pmu, 5, 0x08, PMUSCOPE_EV_EL0);
	x.pmu->hwc[5].el0 = x.el0;
	x.pmu->hwc[5].slot = 0;
	pmuscope_el0_start(x.pmu, x.el0, 0, 5, 0, 0, 0);
	pmuscope_el0_grant(x.pmu, x.el0);
	raw_spin_unlock_irqrestore(&x.pmu->lock, flags);

	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[0].index, 6);
	KUNIT_EXPECT_EQ(test, x.el0->page->cpu, x.cpu);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUACR_EL1),
			BIT(2) | BIT(3) | BIT(5) | PMUSCOPE_PMUACR_C);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUSERENR_EL0), UEN | ER | CR);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
	el0_done(&x);
}

/*
 * Not every event counts yet (the thread was switched in, its counters
 * not all added): the CPU is held, nothing is opened.
 */
static void pmuscope_test_el0_partial(struct kunit *test)
{
	static const u8 idx[] = { 0, 1 };
	struct el0_ctx x;

	el0_setup(test, &x, &pmuscope_model_cortex_a53, idx, 2, false);
	pmuscope_el0_stop(x.el0, 1);
	KUNIT_EXPECT_TRUE(test, el0_reserve(&x));
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUSERENR_EL0), 0);
	KUNIT_EXPECT_PTR_EQ(test, x.pmu->el0, x.el0);
	KUNIT_EXPECT_EQ(test, x.el0->page->cpu, PMUSCOPE_CPU_ANY);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[1].index, 0);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[0].index, 1);
	el0_done(&x);
}

/*
 * From PMUv3p9: granted beside another owner's counter, which stays as
 * it was and closed; PMUACR_EL1 opens exactly the session's; UEN, ER,
 * CR (and SW when asked), never EN.
 */
static void pmuscope_test_el0_grant_v3p9(struct kunit *test)
{
	static const u8 idx[] = { 2, PMUSCOPE_CYCLE_IDX };
	struct pmuscope_etest *t = test->priv;
	struct el0_ctx x;

	el0_setup(test, &x, &pmuscope_model_v94, idx, 2, true);
	pmuscope_etest_assign(x.pmu, 0, 0x08, PMUSCOPE_EV_ALL_EL);
	pmuscope_model_write_cpu(x.cpu, PMUSCOPE_REG_PMEVCNTR(0), 777);

	KUNIT_ASSERT_TRUE(test, el0_reserve(&x));
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUSERENR_EL0), UEN | ER | CR | SW);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUACR_EL1),
			BIT(2) | PMUSCOPE_PMUACR_C);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMEVCNTR(0)), 777);
	KUNIT_EXPECT_EQ(test, x.pmu->el0_open, BIT(2) | CYC);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
	el0_done(&x);
}

/* The switch-out: PMUSERENR_EL0 (and PMUACR_EL1) cleared, the page says so. */
static void pmuscope_test_el0_revoke(struct kunit *test)
{
	static const u8 idx[] = { 1 };
	struct pmuscope_etest *t = test->priv;
	const struct pmuscope_model_profile *profs[] = {
		&pmuscope_model_cortex_a53, &pmuscope_model_v94,
	};
	unsigned int p;

	for (p = 0; p < ARRAY_SIZE(profs); p++) {
		struct el0_ctx x;
		u32 seq;

		el0_setup(test, &x, profs[p], idx, 1, false);
		KUNIT_ASSERT_TRUE(test, el0_reserve(&x));
		KUNIT_EXPECT_NE(test, el0_reg(&x, PMUSCOPE_REG_PMUSERENR_EL0), 0);
		seq = x.el0->page->seq;
		pmuscope_etest_call(x.pmu, pmuscope_el0_revoke);
		KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUSERENR_EL0), 0);
		if (pmuscope_el0_per_counter(x.pmu))
			KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUACR_EL1), 0);
		KUNIT_EXPECT_NULL(test, x.pmu->el0);
		KUNIT_EXPECT_EQ(test, x.pmu->el0_open, 0);
		KUNIT_EXPECT_EQ(test, x.pmu->el0_userenr, 0);
		KUNIT_EXPECT_EQ(test, x.el0->page->cpu, PMUSCOPE_CPU_ANY);
		KUNIT_EXPECT_EQ(test, x.el0->page->seq, seq + 2);
		/* Revoking what is not held changes nothing. */
		pmuscope_etest_call(x.pmu, pmuscope_el0_revoke);
		KUNIT_EXPECT_EQ(test, x.el0->page->seq, seq + 2);
		KUNIT_EXPECT_EQ(test, t->m->violations, 0);
		el0_done(&x);
	}
}

/* A closing session is granted nothing. */
static void pmuscope_test_el0_closing(struct kunit *test)
{
	static const u8 idx[] = { 0 };
	struct el0_ctx x;

	el0_setup(test, &x, &pmuscope_model_cortex_a53, idx, 1, false);
	x.el0->closing = true;
	KUNIT_EXPECT_FALSE(test, el0_reserve(&x));
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUSERENR_EL0), 0);
	el0_done(&x);
}

/* The PMU lost its state (cpu_pm) under a granted thread: the grant comes back. */
static void pmuscope_test_el0_restore(struct kunit *test)
{
	static const u8 idx[] = { 0 };
	struct el0_ctx x;

	el0_setup(test, &x, &pmuscope_model_v94, idx, 1, false);
	KUNIT_ASSERT_TRUE(test, el0_reserve(&x));
	pmuscope_etest_call(x.pmu, pmuscope_pmu_pm_enter);
	pmuscope_model_power_loss(x.cpu);
	pmuscope_etest_call(x.pmu, pmuscope_pmu_pm_exit);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUSERENR_EL0), UEN | ER | CR);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMUACR_EL1), BIT(0));
	el0_done(&x);
}

/* What user space computes from the page and the raw counter. */
static u64 el0_user_value(struct el0_ctx *x, u32 i)
{
	const struct pmuscope_user_counter *c = &x->el0->page->ctr[i];
	u64 mask = c->width == 64 ? U64_MAX : U32_MAX;
	u64 raw = el0_reg(x, c->index == PMUSCOPE_USER_CYCLE_INDEX ? PMUSCOPE_REG_PMCCNTR_EL0 :
			  PMUSCOPE_REG_PMEVCNTR(c->index - 1));

	return c->offset + ((raw - c->last_raw) & mask);
}

/*
 * The page's formula is the engine's count: after a fold, and across a
 * 32-bit wrap whose overflow interrupt has not come (the flag is set,
 * nothing folded); RESET moves it by the offset; a stopped counter's
 * index is 0 (READ ioctl then).
 */
static void pmuscope_test_el0_page_value(struct kunit *test)
{
	static const u8 idx[] = { 0, PMUSCOPE_CYCLE_IDX };
	struct el0_ctx x;
	unsigned long flags;
	u64 base = 1000;	/* perf's count before this start */

	el0_setup(test, &x, &pmuscope_model_cortex_a53, idx, 2, false);
	raw_spin_lock_irqsave(&x.pmu->lock, flags);
	pmuscope_el0_start(x.pmu, x.el0, 0, 0, base, 0, 0);
	raw_spin_unlock_irqrestore(&x.pmu->lock, flags);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[0].width, 32);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[1].width, 64);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[0].index, 1);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[1].index, PMUSCOPE_USER_CYCLE_INDEX);

	pmuscope_model_count_el(x.cpu, 0x08, 0, 0xfffff000ULL);
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), base + 0xfffff000ULL);
	/* A fold (a READ) moves last_raw; the value stays. */
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(x.pmu, 0, NULL), 0xfffff000ULL);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[0].last_raw, 0xfffff000ULL);
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), base + 0xfffff000ULL);
	/* The counter wraps; no interrupt, no fold yet. */
	pmuscope_model_count_el(x.cpu, 0x08, 0, 0x3000);
	KUNIT_EXPECT_NE(test, el0_reg(&x, PMUSCOPE_REG_PMOVSSET_EL0) & BIT(0), 0);
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), base + 0x100002000ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(x.pmu, 0, NULL), 0x100002000ULL);
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), base + 0x100002000ULL);

	pmuscope_el0_reset(x.el0, (const u64[]){ base + 0x100000000ULL, 0 });
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), 0x2000);
	KUNIT_EXPECT_EQ(test, x.el0->page->seq % 2, 0);

	pmuscope_el0_stop(x.el0, 0);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[0].index, 0);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[0].flags, 0);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[1].flags, PMUSCOPE_USER_F_LIVE);
	el0_done(&x);
}

/* The overflow interrupt on the model. */
static void el0_overflow(struct el0_ctx *x)
{
	unsigned long sampled, flags;

	raw_spin_lock_irqsave(&x->pmu->lock, flags);
	pmuscope_pmu_overflow(x->pmu, &sampled);
	pmuscope_pmu_overflow_end(x->pmu);
	raw_spin_unlock_irqrestore(&x->pmu->lock, flags);
}

struct el0_lift_case {
	const char *name;
	u32 ev_flags;
	bool el1_counts;	/* the counter counts while the kernel runs */
};

static const struct el0_lift_case el0_lift_cases[] = {
	{ "EL0 only", PMUSCOPE_EV_EL0, false },
	{ "EL0 and EL1", PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1, true },
};

static void el0_lift_desc(const struct el0_lift_case *c, char *d)
{
	strscpy(d, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(el0_lift, el0_lift_cases, el0_lift_desc);

/*
 * A 32-bit counter read at EL0 keeps the page's last_raw at 2^31 or
 * above: it starts at 2^31, and a fold below 2^31 (the overflow
 * interrupt's, just after a wrap) moves it up by 2^31. So reads made
 * after a wrap, before its interrupt folds it, have 2^31 events of room:
 * here the second wrap's reads are 0x80 events on, where the first
 * interrupt folded at 0x40 (without the move, the page would give 2^32
 * less). The count stays the engine's; EL1 events move only a counter
 * that counts at EL1.
 */
static void pmuscope_test_el0_wrap_room(struct kunit *test)
{
	const struct el0_lift_case *c = test->param_value;
	static const u8 idx[] = { 0 };
	const u64 half = BIT_ULL(31);
	struct el0_ctx x;
	u64 want;

	el0_setup_flags(test, &x, &pmuscope_model_cortex_a53, idx, 1, false, c->ev_flags);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMEVCNTR(0)), half);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[0].last_raw, half);
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), 0);

	/* The first wrap, 0x40 events before its interrupt. */
	pmuscope_model_count_el(x.cpu, 0x08, 0, half + 0x40);
	want = half + 0x40;
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMEVCNTR(0)), 0x40);
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), want);
	el0_overflow(&x);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMEVCNTR(0)), half + 0x40);
	KUNIT_EXPECT_EQ(test, x.el0->page->ctr[0].last_raw, half + 0x40);
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), want);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(x.pmu, 0, NULL), want);

	/* The kernel runs: only a counter that counts at EL1 moves. */
	pmuscope_model_count_el(x.cpu, 0x08, 1, 0x100);
	if (c->el1_counts)
		want += 0x100;
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), want);

	/* The second wrap, read 0x80 events on, its interrupt not taken. */
	pmuscope_model_count_el(x.cpu, 0x08, 0, half - 0x40 - (want - half - 0x40) + 0x80);
	want = BIT_ULL(32) + 0x80;
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMEVCNTR(0)), 0x80);
	KUNIT_EXPECT_NE(test, el0_reg(&x, PMUSCOPE_REG_PMOVSSET_EL0) & BIT(0), 0);
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), want);
	el0_overflow(&x);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMEVCNTR(0)), half + 0x80);
	KUNIT_EXPECT_EQ(test, el0_user_value(&x, 0), want);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(x.pmu, 0, NULL), want);
	KUNIT_EXPECT_EQ(test, el0_reg(&x, PMUSCOPE_REG_PMCNTENSET_EL0) & BIT(0), BIT(0));
	el0_done(&x);
}

/*
 * Each write of the page moves gen (never back), leaves seq even, and
 * aborts the rseq critical section of its thread when that thread is the
 * one running (rseq's PREEMPT event, as membarrier's IPI sets it); a
 * write for another thread's page leaves the running thread alone.
 */
static void pmuscope_test_el0_gen(struct kunit *test)
{
	struct pmuscope_el0 *el0 = pmuscope_el0_alloc(current, 2, false);
	unsigned long flags __maybe_unused, mask __maybe_unused;
	u64 gen;

	KUNIT_ASSERT_NOT_NULL(test, el0);
	gen = el0->page->gen;
#ifdef CONFIG_RSEQ
	local_irq_save(flags);
	current->rseq_event_mask = 0;
	local_irq_restore(flags);
#endif
	pmuscope_el0_reset(el0, (const u64[]){ 0, 5 });
	KUNIT_EXPECT_EQ(test, el0->page->gen, gen + 1);
	KUNIT_EXPECT_EQ(test, el0->page->seq % 2, 0);
	KUNIT_EXPECT_EQ(test, el0->page->ctr[1].offset, -5ULL);
	pmuscope_el0_stop(el0, 0);
	KUNIT_EXPECT_EQ(test, el0->page->gen, gen + 2);
#ifdef CONFIG_RSEQ
	local_irq_save(flags);
	mask = current->rseq_event_mask;
	current->rseq_event_mask = 0;
	local_irq_restore(flags);
	KUNIT_EXPECT_NE(test, mask & BIT(RSEQ_EVENT_PREEMPT_BIT), 0);
	/*
	 * Another thread's page. Preemption off from the clear to the look:
	 * every context switch sets the PREEMPT bit (rseq_preempt() in
	 * __schedule()), and on a busy host this thread was preempted in
	 * that window, which failed the check for nothing.
	 */
	el0->task = NULL;
	preempt_disable();
	current->rseq_event_mask = 0;
	pmuscope_el0_reset(el0, (const u64[]){ 0, 7 });
	mask = READ_ONCE(current->rseq_event_mask);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, el0->page->gen, gen + 3);
	KUNIT_EXPECT_EQ(test, mask, 0);
#endif
	pmuscope_el0_free(el0);
}

/* The page as mapped: versioned, sized, nothing granted before a switch-in. */
static void pmuscope_test_el0_page_init(struct kunit *test)
{
	struct pmuscope_el0 *el0 = pmuscope_el0_alloc(current, 7, false);

	KUNIT_ASSERT_NOT_NULL(test, el0);
	KUNIT_EXPECT_EQ(test, el0->page->version, PMUSCOPE_USER_PAGE_VERSION);
	KUNIT_EXPECT_EQ(test, el0->page->size, sizeof(struct pmuscope_user_page));
	KUNIT_EXPECT_LE(test, sizeof(struct pmuscope_user_page), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, el0->page->nr, 7);
	KUNIT_EXPECT_EQ(test, el0->page->cpu, PMUSCOPE_CPU_ANY);
	KUNIT_EXPECT_EQ(test, el0->page->seq, 0);
	KUNIT_EXPECT_EQ(test, el0->page->gen, 0);
	KUNIT_EXPECT_EQ(test, el0->page->ctr[0].index, 0);
	pmuscope_el0_free(el0);
}

/*
 * PMUACR_EL1 only where no EL2 can trap it: under an EL2 above the kernel
 * (nVHE, a hypervisor) only when this kernel's EL2 set-up opens it in
 * HDFGxTR2_EL2 (6.12); with the kernel at EL2 (VHE) or no EL2, always.
 */
static void pmuscope_test_el0_pmuacr_el2(struct kunit *test)
{
	static const struct {
		enum pmuscope_hw_el2 el2;
		bool per_counter;
	} cases[] = {
		{ PMUSCOPE_HW_EL2_NONE, true },
		{ PMUSCOPE_HW_EL2_KERNEL, true },
#ifdef PMUSCOPE_HAVE_FGT2_PMUACR
		{ PMUSCOPE_HW_EL2_ABOVE, true },
#else
		{ PMUSCOPE_HW_EL2_ABOVE, false },
#endif
	};
	struct pmuscope_pmu *pmu = kunit_kzalloc(test, sizeof(*pmu), GFP_KERNEL);
	unsigned int i, cpu;

	KUNIT_ASSERT_NOT_NULL(test, pmu);
	cpu = get_cpu();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		pmu->pmuver = PMUSCOPE_PMUVER_V3P9;
		pmuscope_model_ss_set_el2(cpu, cases[i].el2);
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_el0_per_counter(pmu), cases[i].per_counter,
				    "EL2 %d", cases[i].el2);
		pmu->pmuver = PMUSCOPE_PMUVER_V3P5;
		KUNIT_EXPECT_FALSE(test, pmuscope_el0_per_counter(pmu));
	}
	pmuscope_model_ss_set_el2(cpu, PMUSCOPE_HW_EL2_NONE);
	put_cpu();
}

static struct kunit_case pmuscope_el0_test_cases[] = {
	KUNIT_CASE(pmuscope_test_el0_pmuacr_el2),
	KUNIT_CASE_PARAM(pmuscope_test_el0_userenr, el0_userenr_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_el0_pmuacr, el0_pmuacr_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_el0_fit, el0_fit_gen_params),
	KUNIT_CASE(pmuscope_test_el0_page_init),
	KUNIT_CASE(pmuscope_test_el0_grant_v3),
	KUNIT_CASE(pmuscope_test_el0_deny_v3),
	KUNIT_CASE(pmuscope_test_el0_partial),
	KUNIT_CASE(pmuscope_test_el0_rotate_v3p9),
	KUNIT_CASE(pmuscope_test_el0_grant_v3p9),
	KUNIT_CASE(pmuscope_test_el0_revoke),
	KUNIT_CASE(pmuscope_test_el0_closing),
	KUNIT_CASE(pmuscope_test_el0_restore),
	KUNIT_CASE(pmuscope_test_el0_page_value),
	KUNIT_CASE_PARAM(pmuscope_test_el0_wrap_room, el0_lift_gen_params),
	KUNIT_CASE(pmuscope_test_el0_gen),
	{}
};

static struct kunit_suite pmuscope_el0_suite = {
	.name = "pmuscope_el0",
	.init = pmuscope_etest_init,
	.exit = pmuscope_etest_exit,
	.test_cases = pmuscope_el0_test_cases,
};

kunit_test_suites(&pmuscope_el0_suite);
