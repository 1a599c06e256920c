// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what streams are built on, against the register model: a
 * session's counters started and stopped together (one PMCNTENSET_EL0 /
 * PMCNTENCLR_EL0 write), sampling counters (preload, reload at the
 * overflow, exact counts across samples, a wrap folded by a READ before
 * the interrupt, throttling in windows of about a tick and the next
 * window's unthrottling), and the ring's loss accounting: a drop or
 * a THROTTLED record that did not fit reaches the reader even when no
 * record comes after it. Then a fuzzer's session replayed step by step,
 * with and without its counters rewritten behind the driver's back.
 */

#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/mman.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "pmuscope.h"
#include "pmuscope_etest.h"
#include "pmuscope_model.h"

#define UK	(PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1)
#define CC	PMUSCOPE_CYCLE_IDX

static void pmuscope_stest_mask(struct pmuscope_pmu *pmu, u32 mask, bool start)
{
	unsigned long irqf;

	raw_spin_lock_irqsave(&pmu->lock, irqf);
	if (start)
		pmuscope_pmu_start_mask(pmu, mask, ktime_get_ns());
	else
		pmuscope_pmu_stop_mask(pmu, mask, ktime_get_ns());
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
}

/* A CPU with CPU_CYCLES on counter 0 and on the cycle counter, not started. */
static struct pmuscope_pmu *pmuscope_stest_two(struct kunit *test,
					       const struct pmuscope_model_profile *prof)
{
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, prof);

	memset(pmu->hwc, 0, sizeof(pmu->hwc));
	pmu->allocated = 0;
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	pmuscope_etest_assign(pmu, 0, 0x11, UK);
	pmuscope_etest_assign(pmu, CC, 0x11, UK);
	return pmu;
}

static const char *const pmuscope_start_log[] = {
	"PMCNTENCLR_EL0=0x80000001", "PMINTENCLR_EL1=0x80000001", "isb",
	"PMEVTYPER0_EL0=0x11", "PMEVCNTR0_EL0=0x0", "PMCCFILTR_EL0=0x0", "PMCCNTR_EL0=0x0",
	"PMOVSCLR_EL0=0x80000001", "PMINTENSET_EL1=0x1", "isb",
	"PMCNTENSET_EL0=0x80000001", "PMCR_EL0=0x41", "isb",
	NULL
};

/* Stopped, read (one ISB before PMOVSSET for the 32-bit counter), then tidied. */
static const char *const pmuscope_stop_log[] = {
	"PMCNTENCLR_EL0=0x80000001", "isb", "isb",
	"PMINTENCLR_EL1=0x80000001", "isb", "PMOVSCLR_EL0=0x80000001", "isb",
	"PMCR_EL0=0x40", "isb",
	NULL
};

/*
 * Started and stopped together: what counts between the one enable write
 * and the one disable write counts on both, so two counters of CPU_CYCLES
 * agree exactly; counts injected while stopped are on neither.
 */
static void pmuscope_test_start_stop_mask(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_two(test, &pmuscope_model_cortex_a53);
	u32 mask = BIT(0) | BIT(CC);

	pmu->hwc[0].enabled = true;
	pmu->hwc[CC].enabled = true;
	t->m->nlog = 0;
	pmuscope_stest_mask(pmu, mask, true);
	pmuscope_etest_expect_log(test, pmuscope_start_log, false);
	pmuscope_model_count(t->cpu, 0x11, 12345);
	t->m->nlog = 0;
	pmuscope_stest_mask(pmu, mask, false);
	pmuscope_etest_expect_log(test, pmuscope_stop_log, false);
	pmuscope_model_count(t->cpu, 0x11, 999);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), 12345);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, CC, NULL), 12345);
	KUNIT_EXPECT_EQ(test, pmu->on_hw_mask, 0);
	/* Again: the counts carry on from the saved ones. */
	pmuscope_stest_mask(pmu, mask, true);
	pmuscope_model_count(t->cpu, 0x11, 5);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), 12350);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, CC, NULL), 12350);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

static unsigned long pmuscope_stest_overflow(struct pmuscope_pmu *pmu)
{
	unsigned long irqf, sampled;

	raw_spin_lock_irqsave(&pmu->lock, irqf);
	pmuscope_pmu_overflow(pmu, &sampled);
	pmuscope_pmu_overflow_end(pmu);
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
	return sampled;
}

static void pmuscope_stest_sampling(struct pmuscope_pmu *pmu, unsigned int idx, u64 period)
{
	unsigned long irqf;

	raw_spin_lock_irqsave(&pmu->lock, irqf);
	pmuscope_hwc_set_sampling(pmu, idx, period, ktime_get_ns());
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
}

/* sample_limit as the module parameter sets it: its windows too. */
static void pmuscope_stest_limit(u32 limit)
{
	pmuscope_engine_sample_limit(&pmuscope_engine, limit, HZ, pmuscope_model_syscnt_freq());
}

/* The unthrottle timer's work, a window after the throttle. */
static void pmuscope_stest_next_window(struct pmuscope_pmu *pmu)
{
	unsigned long irqf;

	pmuscope_model_syscnt_advance(pmuscope_engine.window_ticks);
	raw_spin_lock_irqsave(&pmu->lock, irqf);
	pmuscope_pmu_unthrottle(pmu, false);
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
}

struct pmuscope_sample_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	unsigned int idx;	/* the sampling counter */
};

static const struct pmuscope_sample_case pmuscope_sample_cases[] = {
	{ "cortex-a53: a 32-bit event counter", &pmuscope_model_cortex_a53, 0 },
	{ "cortex-a53: the 64-bit cycle counter", &pmuscope_model_cortex_a53, CC },
	{ "v9.4-like: a 64-bit event counter", &pmuscope_model_v94, 0 },
};

static void pmuscope_sample_desc(const struct pmuscope_sample_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_sample, pmuscope_sample_cases, pmuscope_sample_desc);

/*
 * Sampling every 100000 events: the counter starts @period before its
 * overflow; each overflow is a sample and a reload; the count stays
 * exact (equal to the other counter of the same event) across samples,
 * across a READ that meets a wrap before the interrupt does, and across
 * stopping the sampling.
 */
static void pmuscope_test_sampling(struct kunit *test)
{
	const struct pmuscope_sample_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_two(test, c->prof);
	unsigned int other = c->idx == CC ? 0 : CC;
	u64 total = 0;
	int i;

	pmu->hwc[0].enabled = true;
	pmu->hwc[CC].enabled = true;
	pmuscope_stest_mask(pmu, BIT(0) | BIT(CC), true);
	pmuscope_model_count(t->cpu, 0x11, 1000);
	total += 1000;
	pmuscope_stest_sampling(pmu, c->idx, 100000);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, NULL), total);
	for (i = 0; i < 5; i++) {
		/* Just past the overflow, then the interrupt. */
		pmuscope_model_count(t->cpu, 0x11, 100000 + 7);
		total += 100000 + 7;
		KUNIT_EXPECT_TRUE(test, pmuscope_model_irq_line(t->cpu));
		KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(c->idx));
		KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, NULL), total);
		KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, other, NULL), total);
		/*
		 * Reloaded 100000 - 7 before the next: the 7 past it were
		 * counted, and count towards the next period (perf's
		 * period_left).
		 */
		pmuscope_model_count(t->cpu, 0x11, 100000 - 8);
		total += 100000 - 8;
		KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
		pmuscope_model_count(t->cpu, 0x11, 1);
		total += 1;
		KUNIT_EXPECT_TRUE(test, pmuscope_model_irq_line(t->cpu));
		KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(c->idx));
		KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, NULL), total);
	}
	/* A READ meets the wrap before the interrupt: counted, not consumed. */
	pmuscope_model_count(t->cpu, 0x11, 100000 + 10);
	total += 100000 + 10;
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, NULL), total);
	KUNIT_EXPECT_TRUE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(c->idx));
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, NULL), total);
	/* Sampling off: a plain counter again, the count carries on. */
	pmuscope_stest_sampling(pmu, c->idx, 0);
	pmuscope_model_count(t->cpu, 0x11, 300000);
	total += 300000;
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, NULL), total);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, other, NULL), total);
	KUNIT_EXPECT_EQ(test, pmu->hwc[c->idx].flags, 0);
	KUNIT_EXPECT_EQ(test, pmu->samples, 11);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * The overflow interrupt's own events are neither in the sampling
 * counter's next period nor in the other counters: reloaded, it and every
 * counter running with it count again only at the interrupt's end
 * (pmuscope_pmu_overflow_end()), as perf's PMUv3 driver stops the PMU for
 * its handler, so a sample's counts stay in step.
 */
static void pmuscope_test_sampling_handler_uncounted(struct kunit *test)
{
	const struct pmuscope_sample_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_two(test, c->prof);
	unsigned int other = c->idx == CC ? 0 : CC;
	unsigned long irqf, sampled;

	pmu->hwc[0].enabled = true;
	pmu->hwc[CC].enabled = true;
	pmuscope_stest_mask(pmu, BIT(0) | BIT(CC), true);
	pmuscope_stest_sampling(pmu, c->idx, 100000);
	pmuscope_model_count(t->cpu, 0x11, 100000 + 7);
	raw_spin_lock_irqsave(&pmu->lock, irqf);
	pmuscope_pmu_overflow(pmu, &sampled);
	KUNIT_EXPECT_EQ(test, sampled, BIT(c->idx));
	KUNIT_EXPECT_EQ(test, pmu->sample_held, BIT(0) | BIT(CC));
	/* The handler's events: the records, the chains. */
	pmuscope_model_count(t->cpu, 0x11, 40000);
	pmuscope_pmu_overflow_end(pmu);
	KUNIT_EXPECT_EQ(test, pmu->sample_held, 0);
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, NULL), 100000 + 7);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, other, NULL), 100000 + 7);
	/*
	 * A period after the overflow in the counter's own events (the 7
	 * before the interrupt count), not 40000 events earlier.
	 */
	pmuscope_model_count(t->cpu, 0x11, 100000 - 7 - 1);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
	pmuscope_model_count(t->cpu, 0x11, 1);
	KUNIT_EXPECT_TRUE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(c->idx));
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, NULL), 200000);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, other, NULL), 200000);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * More samples than sample_limit allows: the overflow over the window's
 * share is no sample, the interrupt goes off, counting goes on.
 */
static void pmuscope_test_sampling_throttle(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_two(test, &pmuscope_model_v94);
	unsigned long sampled = 0;
	u64 total = 0;
	int i;

	pmuscope_stest_limit(3);
	pmu->hwc[0].enabled = true;
	pmu->hwc[CC].enabled = true;
	pmuscope_stest_mask(pmu, BIT(0) | BIT(CC), true);
	pmuscope_stest_sampling(pmu, 0, 1000);
	/* One sample per window of 1/3 s: the second overflow throttles. */
	for (i = 0; i < 2; i++) {
		pmuscope_model_count(t->cpu, 0x11, 1000);
		total += 1000;
		sampled = pmuscope_stest_overflow(pmu);
	}
	KUNIT_EXPECT_EQ(test, sampled, BIT(0));
	KUNIT_EXPECT_TRUE(test, pmu->hwc[0].irq_off);
	KUNIT_EXPECT_EQ(test, pmu->samples, 1);
	pmuscope_model_count(t->cpu, 0x11, 5000);
	total += 5000;
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), total);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, CC, NULL), total);
	KUNIT_EXPECT_TRUE(test, pmu->hwc[0].flags & PMUSCOPE_VAL_THROTTLED);
}

/*
 * A throttled sampling counter keeps counting past its overflow; another
 * counter's interrupt that finds its wrap makes no sample of it (its
 * interrupt is off: no SAMPLE record, no second THROTTLED record) and
 * takes no wrap of a 64-bit one for a write: counter 1 samples every
 * 2^20 events beside counter 0, throttled, and its overflow interrupt is
 * counter 1's sample alone. Every count stays exact.
 */
static const struct pmuscope_sample_case pmuscope_twrap_cases[] = {
	{ "cortex-a53: 32-bit event counters", &pmuscope_model_cortex_a53, 0 },
	{ "v9.4-like: 64-bit event counters", &pmuscope_model_v94, 0 },
};

KUNIT_ARRAY_PARAM(pmuscope_twrap, pmuscope_twrap_cases, pmuscope_sample_desc);

static void pmuscope_test_sampling_throttled_wrap(struct kunit *test)
{
	const struct pmuscope_sample_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu;
	u64 total = 0, samples;
	u32 flags;
	int i;

	pmu = pmuscope_stest_two(test, c->prof);
	pmuscope_etest_assign(pmu, 1, 0x11, UK);
	pmuscope_stest_limit(3);
	pmu->hwc[CC].enabled = true;
	pmuscope_stest_mask(pmu, BIT(0) | BIT(1) | BIT(CC), true);
	pmuscope_stest_sampling(pmu, 0, 1000);
	pmuscope_stest_sampling(pmu, 1, BIT(20));
	for (i = 0; i < 8 && !pmu->hwc[0].irq_off; i++) {
		pmuscope_model_count(t->cpu, 0x11, 1000);
		total += 1000;
		KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(0));
	}
	KUNIT_ASSERT_TRUE(test, pmu->hwc[0].irq_off);
	KUNIT_ASSERT_FALSE(test, pmu->hwc[1].irq_off);
	samples = pmu->samples;
	/* Counter 1 overflows; counter 0 has wrapped too, its interrupt off. */
	pmuscope_model_count(t->cpu, 0x11, BIT(20) + 7 - total);
	total = BIT(20) + 7;
	KUNIT_EXPECT_TRUE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(1));
	KUNIT_EXPECT_EQ(test, pmu->samples, samples + 1);
	KUNIT_EXPECT_TRUE(test, pmu->hwc[0].irq_off);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, &flags), total);
	KUNIT_EXPECT_EQ(test, flags, PMUSCOPE_VAL_THROTTLED);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 1, &flags), total);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, CC, NULL), total);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * The overflow interrupt's own time (pmu->irq_busy, accounted by the
 * handler) over a quarter of its window (a scheduler tick at the default
 * sample_limit) throttles a sampling counter at the next interrupt, which
 * is no sample, far below the window's share of sample_limit: a CPU too slow for
 * sample_limit samples a second is never left to the interrupt alone,
 * not even for a second's burst. Times are in the system counter's
 * ticks, of whatever clock this CPU's model gives (the driver's seam is
 * the model's here, this file's is not): set and used with IRQs off.
 */
struct pmuscope_busy_case {
	const char *name;
	u32 quarters;		/* pmu->irq_busy: quarters of a tick ... */
	u32 extra;		/* ... plus ticks */
	bool old_window;	/* the window began a window ago */
	bool throttled;
};

static const struct pmuscope_busy_case pmuscope_busy_cases[] = {
	{ "interrupt over a quarter of the window: throttled", 1, 1, false, true },
	{ "interrupt at a quarter of the window: sampling goes on", 1, 0, false, false },
	{ "a window later: a new window, sampling goes on", 4, 0, true, false },
};

static void pmuscope_busy_desc(const struct pmuscope_busy_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pmuscope_busy, pmuscope_busy_cases, pmuscope_busy_desc);

static void pmuscope_test_sampling_busy(struct kunit *test)
{
	const struct pmuscope_busy_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_two(test, &pmuscope_model_v94);
	unsigned long sampled, irqf;
	u64 window;

	KUNIT_ASSERT_EQ(test, pmuscope_engine.sample_limit, 20000U);
	/* 20000 is a whole number of samples per tick at HZ 100, 250 or 1000. */
	window = pmuscope_model_syscnt_freq() / HZ;
	if (20000 % HZ == 0)
		KUNIT_ASSERT_EQ(test, pmuscope_engine.window_ticks, window);
	pmu->hwc[0].enabled = true;
	pmu->hwc[CC].enabled = true;
	pmuscope_stest_mask(pmu, BIT(0) | BIT(CC), true);
	pmuscope_stest_sampling(pmu, 0, 1000);
	pmuscope_model_count(t->cpu, 0x11, 1000);
	raw_spin_lock_irqsave(&pmu->lock, irqf);
	window = pmuscope_engine.window_ticks;
	pmu->irq_window = pmuscope_model_syscnt() - (c->old_window ? window : 0);
	pmu->irq_busy = window / 4 * c->quarters + c->extra;
	pmuscope_pmu_overflow(pmu, &sampled);
	pmuscope_pmu_overflow_end(pmu);
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
	/* A sample, or the throttle's record. */
	KUNIT_EXPECT_EQ(test, sampled, BIT(0));
	KUNIT_EXPECT_EQ(test, pmu->hwc[0].irq_off, c->throttled);
	KUNIT_EXPECT_EQ(test, !!(pmu->hwc[0].flags & PMUSCOPE_VAL_THROTTLED), c->throttled);
	KUNIT_EXPECT_EQ(test, pmu->samples, c->throttled ? 0 : 1);
	KUNIT_EXPECT_EQ(test, pmu->hwc[0].storm_count, c->throttled ? 0U : 1U);
	KUNIT_EXPECT_EQ(test, pmu->throttled, c->throttled ? BIT(0) : 0);
}

/*
 * sample_limit in windows of about a tick: sample_limit / HZ rounded up
 * samples in each, the window the time they take at sample_limit (so
 * that the average stays at most sample_limit a second), rounded up.
 */
struct pmuscope_window_case {
	u32 limit, hz, freq;
	u32 burst;
	u64 ticks, ns;
};

static const struct pmuscope_window_case pmuscope_window_cases[] = {
	{ 20000, 250, 1000000000, 80, 4000000, 4000000 },
	{ 20000, 250, 62500000, 80, 250000, 4000000 },
	{ 20000, 1000, 25000000, 20, 25000, 1000000 },
	{ 20000, 100, 1000000000, 200, 10000000, 10000000 },
	/* 67 samples in 3.35 ms, not 3.33: 20000 a second, not 20100. */
	{ 20000, 300, 1000000000, 67, 3350000, 3350000 },
	{ 1000, 300, 1000000000, 4, 4000000, 4000000 },
	{ 3, 250, 1000000000, 1, 333333334, 333333334 },
	{ 1, 1000, 19200000, 1, 19200000, 1000000000 },
	{ 4294967295U, 250, 4294967295U, 17179870, 17179870, 4000001 },
};

static void pmuscope_window_desc(const struct pmuscope_window_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "sample_limit %u, HZ %u, %u Hz", c->limit, c->hz,
		 c->freq);
}

KUNIT_ARRAY_PARAM(pmuscope_window, pmuscope_window_cases, pmuscope_window_desc);

static void pmuscope_test_sample_window(struct kunit *test)
{
	const struct pmuscope_window_case *c = test->param_value;
	struct pmuscope_engine e = { };

	pmuscope_engine_sample_limit(&e, c->limit, c->hz, c->freq);
	KUNIT_EXPECT_EQ(test, e.sample_limit, c->limit);
	KUNIT_EXPECT_EQ(test, e.sample_burst, c->burst);
	KUNIT_EXPECT_EQ(test, e.window_ticks, c->ticks);
	KUNIT_EXPECT_EQ(test, e.window_ns, c->ns);
}

/* @n samples of counter @idx, every 1000 events, none throttled. */
static void pmuscope_stest_samples(struct kunit *test, struct pmuscope_pmu *pmu,
				   unsigned int idx, u32 n, u64 *total)
{
	struct pmuscope_etest *t = test->priv;
	u32 i;

	for (i = 0; i < n; i++) {
		pmuscope_model_count(t->cpu, 0x11, 1000);
		*total += 1000;
		KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(idx));
		KUNIT_ASSERT_FALSE_MSG(test, pmu->hwc[idx].irq_off,
				       "throttled at sample %u of %u", i + 1, n);
	}
}

/*
 * One overflow more, over the window's share: no sample (the counter is
 * not reloaded, and counts on past its overflow), the counter throttled
 * (a THROTTLED record).
 */
static void pmuscope_stest_throttles(struct kunit *test, struct pmuscope_pmu *pmu,
				     unsigned int idx, u64 *total)
{
	struct pmuscope_etest *t = test->priv;
	u64 samples = pmu->samples;

	pmuscope_model_count(t->cpu, 0x11, 1000);
	*total += 1000;
	KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(idx));
	KUNIT_ASSERT_TRUE(test, pmu->hwc[idx].irq_off);
	KUNIT_EXPECT_EQ_MSG(test, pmu->samples, samples, "the throttling overflow was a sample");
	KUNIT_EXPECT_EQ(test, pmu->hwc[idx].storm_count, pmuscope_engine.sample_burst);
	KUNIT_EXPECT_EQ(test, pmu->throttled, BIT(idx));
	KUNIT_EXPECT_FALSE(test, t->m->inten & BIT(idx));
	KUNIT_EXPECT_TRUE(test, pmu->hwc[idx].flags & PMUSCOPE_VAL_THROTTLED);
}

/*
 * A storm of samples (an overflow every 1000 events, as fast as the
 * interrupt comes) at the default sample_limit: the window's share
 * (sample_limit / HZ) goes through, the next overflow is no sample but
 * throttles the counter, however little of the second's budget that was;
 * counting goes on. The next window gives the interrupt back, the
 * counter started again from its preload: the window's share again, then
 * throttled again. Every count stays exact; THROTTLED stays until a RESET.
 */
static void pmuscope_test_sampling_window(struct kunit *test)
{
	const struct pmuscope_sample_case *c = test->param_value;
	const u32 burst = DIV_ROUND_UP(20000, HZ);
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_two(test, c->prof);
	unsigned int other = c->idx == CC ? 0 : CC;
	unsigned long irqf;
	u64 total = 0;
	u32 flags;

	pmu->hwc[0].enabled = true;
	pmu->hwc[CC].enabled = true;
	pmuscope_stest_mask(pmu, BIT(0) | BIT(CC), true);
	pmuscope_stest_sampling(pmu, c->idx, 1000);
	pmuscope_stest_samples(test, pmu, c->idx, burst, &total);
	pmuscope_stest_throttles(test, pmu, c->idx, &total);

	/* Off for the rest of the window, counting on past its overflow. */
	pmuscope_model_count(t->cpu, 0x11, 5000);
	total += 5000;
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, &flags), total);
	KUNIT_EXPECT_EQ(test, flags, PMUSCOPE_VAL_THROTTLED);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, other, NULL), total);

	/* The next window: on again, its next sample 1000 events away. */
	pmuscope_stest_next_window(pmu);
	KUNIT_EXPECT_FALSE(test, pmu->hwc[c->idx].irq_off);
	KUNIT_EXPECT_EQ(test, pmu->throttled, 0);
	KUNIT_EXPECT_TRUE(test, t->m->inten & BIT(c->idx));
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
	/* Samples were missed: the flag stays until a RESET. */
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, &flags), total);
	KUNIT_EXPECT_EQ(test, flags, PMUSCOPE_VAL_THROTTLED);
	pmuscope_model_count(t->cpu, 0x11, 999);
	total += 999;
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
	pmuscope_model_count(t->cpu, 0x11, 1);
	total += 1;
	KUNIT_EXPECT_TRUE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(c->idx));
	KUNIT_EXPECT_FALSE(test, pmu->hwc[c->idx].irq_off);

	/* The new window's share, that one included, then throttled again. */
	pmuscope_stest_samples(test, pmu, c->idx, burst - 1, &total);
	pmuscope_stest_throttles(test, pmu, c->idx, &total);
	KUNIT_EXPECT_EQ(test, pmu->samples, 2 * burst);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, NULL), total);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, other, NULL), total);

	/* A RESET keeps THROTTLED while the interrupt is off, not after. */
	raw_spin_lock_irqsave(&pmu->lock, irqf);
	pmuscope_hwc_reset(pmu, c->idx, ktime_get_ns());
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, &flags), 0);
	KUNIT_EXPECT_EQ(test, flags, PMUSCOPE_VAL_THROTTLED);
	pmuscope_stest_next_window(pmu);
	raw_spin_lock_irqsave(&pmu->lock, irqf);
	pmuscope_hwc_reset(pmu, c->idx, ktime_get_ns());
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, &flags), 0);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * A CPU that goes offline with its sampling throttled (its unthrottle
 * timer cancelled) comes back with it on: the window ended with the CPU.
 */
static void pmuscope_test_sampling_window_hotplug(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_two(test, &pmuscope_model_cortex_a53);
	u64 total = 0;

	pmuscope_stest_limit(1);
	pmu->hwc[0].enabled = true;
	pmu->hwc[CC].enabled = true;
	pmuscope_stest_mask(pmu, BIT(0) | BIT(CC), true);
	pmuscope_stest_sampling(pmu, 0, 1000);
	pmuscope_stest_samples(test, pmu, 0, 1, &total);
	pmuscope_stest_throttles(test, pmu, 0, &total);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_down);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	KUNIT_EXPECT_FALSE(test, pmu->hwc[0].irq_off);
	KUNIT_EXPECT_EQ(test, pmu->throttled, 0);
	KUNIT_EXPECT_TRUE(test, t->m->inten & BIT(0));
	pmuscope_model_count(t->cpu, 0x11, 1000);
	total += 1000;
	KUNIT_EXPECT_TRUE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(0));
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), total);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, CC, NULL), total);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * Two sampling counters of one CPU: counter 0 samples CPU_CYCLES (the
 * cycle counter counts them too, not sampling), counter 1 INST_RETIRED,
 * each every 1000 events; two samples a window (sample_limit 2 x HZ:
 * windows of a tick).
 */
static struct pmuscope_pmu *pmuscope_stest_pair(struct kunit *test)
{
	struct pmuscope_pmu *pmu = pmuscope_stest_two(test, &pmuscope_model_cortex_a53);

	pmuscope_etest_assign(pmu, 1, 0x08, UK);
	pmuscope_stest_limit(2 * HZ);
	pmu->hwc[0].enabled = true;
	pmu->hwc[1].enabled = true;
	pmu->hwc[CC].enabled = true;
	pmuscope_stest_mask(pmu, BIT(0) | BIT(1) | BIT(CC), true);
	pmuscope_stest_sampling(pmu, 0, 1000);
	pmuscope_stest_sampling(pmu, 1, 1000);
	return pmu;
}

/* One overflow of counter @idx (0: CPU_CYCLES, 1: INST_RETIRED): a sample? */
static bool pmuscope_stest_pair_overflow(struct kunit *test, struct pmuscope_pmu *pmu,
					 unsigned int idx)
{
	struct pmuscope_etest *t = test->priv;
	u64 samples = pmu->samples;

	pmuscope_model_count(t->cpu, idx ? 0x08 : 0x11, 1000);
	KUNIT_EXPECT_EQ(test, pmuscope_stest_overflow(pmu), BIT(idx));
	return pmu->samples == samples + 1;
}

static void pmuscope_stest_unthrottle(struct pmuscope_pmu *pmu, u64 *left)
{
	unsigned long irqf;

	raw_spin_lock_irqsave(&pmu->lock, irqf);
	*left = pmuscope_pmu_unthrottle(pmu, false);
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
}

/*
 * A throttled counter's unthrottle starts no window for the others:
 * counter 0 is throttled half a window into window k; counter 1 takes
 * its two samples at the start of window k + 1 (which begins with them,
 * a window after k). Counter 0's unthrottle comes half a window into
 * k + 1: counter 1 has had its share of k + 1, and its next overflow
 * there throttles it (no fresh share: that gave it four samples in half
 * a window, twice sample_limit if repeated). Counter 0, throttled in k,
 * has all of k + 1's share.
 */
static void pmuscope_test_sampling_window_other(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_pair(test);
	const u64 w = pmuscope_engine.window_ticks;
	u64 left;

	KUNIT_ASSERT_EQ(test, pmuscope_engine.sample_burst, 2U);
	/* Window k: counter 0's share, then over it half a window later. */
	pmuscope_model_syscnt_advance(w);
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 0));
	pmuscope_model_syscnt_advance(w / 2);
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 0));
	KUNIT_EXPECT_FALSE(test, pmuscope_stest_pair_overflow(test, pmu, 0));
	KUNIT_ASSERT_TRUE(test, pmu->hwc[0].irq_off);
	/* Window k + 1, begun by counter 1's first overflow: its share. */
	pmuscope_model_syscnt_advance(w / 2);
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 1));
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 1));
	KUNIT_EXPECT_FALSE(test, pmu->hwc[1].irq_off);
	/* A window after counter 0's throttle: it samples again. */
	pmuscope_model_syscnt_advance(w / 2);
	pmuscope_stest_unthrottle(pmu, &left);
	KUNIT_EXPECT_EQ(test, left, 0);
	KUNIT_EXPECT_FALSE(test, pmu->hwc[0].irq_off);
	KUNIT_EXPECT_TRUE(test, t->m->inten & BIT(0));
	/* Still window k + 1: counter 1 is over its share. */
	KUNIT_EXPECT_FALSE_MSG(test, pmuscope_stest_pair_overflow(test, pmu, 1),
			       "a third sample of counter 1 in one window");
	KUNIT_EXPECT_TRUE(test, pmu->hwc[1].irq_off);
	KUNIT_EXPECT_EQ(test, pmu->throttled, BIT(1));
	/* Counter 0: k + 1's share, then over it. */
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 0));
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 0));
	KUNIT_EXPECT_FALSE(test, pmuscope_stest_pair_overflow(test, pmu, 0));
	KUNIT_EXPECT_EQ(test, pmu->samples, 6);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * Each throttled counter is off for a whole window from its own
 * throttle: counter 0 throttled at the start of a window, counter 1 half
 * a window later; the timer a window after the first gives counter 0
 * back, not counter 1 (half a window off), and says when it is due.
 */
static void pmuscope_test_sampling_window_each(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_pair(test);
	const u64 w = pmuscope_engine.window_ticks;
	u64 left;

	pmuscope_model_syscnt_advance(w);
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 0));
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 0));
	KUNIT_EXPECT_FALSE(test, pmuscope_stest_pair_overflow(test, pmu, 0));
	pmuscope_model_syscnt_advance(w / 2);
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 1));
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 1));
	KUNIT_EXPECT_FALSE(test, pmuscope_stest_pair_overflow(test, pmu, 1));
	KUNIT_ASSERT_EQ(test, pmu->throttled, BIT(0) | BIT(1));
	/* Counter 0's window off is over, not counter 1's. */
	pmuscope_model_syscnt_advance(w / 2);
	pmuscope_stest_unthrottle(pmu, &left);
	KUNIT_EXPECT_FALSE(test, pmu->hwc[0].irq_off);
	KUNIT_EXPECT_TRUE_MSG(test, pmu->hwc[1].irq_off, "counter 1 off for half a window only");
	KUNIT_EXPECT_EQ(test, pmu->throttled, BIT(1));
	KUNIT_EXPECT_EQ(test, t->m->inten & (BIT(0) | BIT(1)), BIT(0));
	/* Due about half a window later (ticks of 1 ns in the model). */
	KUNIT_EXPECT_GT(test, left, 0);
	KUNIT_EXPECT_LE(test, left, pmuscope_engine.window_ns / 2);
	KUNIT_EXPECT_GT(test, left, pmuscope_engine.window_ns / 2 - 1000);
	pmuscope_model_syscnt_advance(left);
	pmuscope_stest_unthrottle(pmu, &left);
	KUNIT_EXPECT_EQ(test, left, 0);
	KUNIT_EXPECT_FALSE(test, pmu->hwc[1].irq_off);
	KUNIT_EXPECT_EQ(test, pmu->throttled, 0);
	KUNIT_EXPECT_TRUE(test, t->m->inten & BIT(1));
	KUNIT_EXPECT_TRUE(test, pmuscope_stest_pair_overflow(test, pmu, 1));
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * A window holds sample_burst samples of a counter (sample_limit / HZ,
 * rounded up), not one more: a counter that takes its share and no more,
 * window after window, is never throttled, and the overflow after the
 * share of one window is no sample but the throttle. The share at once
 * as the window starts, then one more: sample_burst samples, not
 * sample_burst + 1 (20250 a second at HZ 250 against a sample_limit of
 * 20000, twice sample_limit at or below HZ, where the share is one).
 */
struct pmuscope_share_case {
	const char *name;
	u32 limit;
};

static const struct pmuscope_share_case pmuscope_share_cases[] = {
	{ "sample_limit 1: one a second", 1 },
	{ "sample_limit HZ: one a tick", HZ },
	{ "sample_limit HZ + 1: two a window", HZ + 1 },
	{ "the default, 20000", 20000 },
};

static void pmuscope_share_desc(const struct pmuscope_share_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_share, pmuscope_share_cases, pmuscope_share_desc);

static void pmuscope_test_sample_share(struct kunit *test)
{
	const struct pmuscope_share_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_two(test, &pmuscope_model_cortex_a53);
	u64 total = 0;
	u32 burst, w;

	pmuscope_stest_limit(c->limit);
	burst = pmuscope_engine.sample_burst;
	KUNIT_ASSERT_EQ(test, burst, DIV_ROUND_UP(c->limit, HZ));
	pmu->hwc[0].enabled = true;
	pmu->hwc[CC].enabled = true;
	pmuscope_stest_mask(pmu, BIT(0) | BIT(CC), true);
	pmuscope_stest_sampling(pmu, 0, 1000);
	/* The share of each window, and the window's time: never throttled. */
	for (w = 0; w < 3; w++) {
		pmuscope_stest_samples(test, pmu, 0, burst, &total);
		KUNIT_EXPECT_EQ(test, pmu->samples, (w + 1) * burst);
		pmuscope_model_syscnt_advance(pmuscope_engine.window_ticks);
	}
	/* A window's share, then one overflow more in the same window. */
	pmuscope_stest_samples(test, pmu, 0, burst, &total);
	pmuscope_stest_throttles(test, pmu, 0, &total);
	KUNIT_EXPECT_EQ(test, pmu->samples, 4 * burst);
	KUNIT_EXPECT_EQ(test, pmu->throttled, BIT(0));
	/* Not reloaded: it counts on past its overflow, exactly. */
	pmuscope_model_count(t->cpu, 0x11, 5000);
	total += 5000;
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), total);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, CC, NULL), total);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/* ------------------------------------------------------------------ ring */

static void pmuscope_stest_rec(struct pmuscope_ring *r, u32 nr, u32 tag)
{
	u64 buf[PMUSCOPE_REC_MAX_WORDS] = { };
	struct pmuscope_record *rec = (void *)buf;

	rec->type = PMUSCOPE_REC_SAMPLE;
	rec->size = sizeof(*rec) + 8 * nr;
	rec->nr = nr;
	rec->pid = tag;
	pmuscope_ring_write(r, rec, rec->size);
}

static const struct pmuscope_record *pmuscope_stest_at(struct pmuscope_ring *r, u64 pos)
{
	return (const void *)(r->buf + (pos & (r->size - 1)));
}

/*
 * A 4 KiB ring of 64-byte records: 64 fit; the 65th and 66th are dropped
 * and counted; once the reader made room, a LOST record saying 2 comes
 * before the next record; records wrap around the end intact.
 */
static void pmuscope_test_ring_lost(struct kunit *test)
{
	struct pmuscope_ring *r = pmuscope_ring_alloc(4);
	const struct pmuscope_record *rec;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < 66; i++)
		pmuscope_stest_rec(r, 2, i);
	KUNIT_EXPECT_EQ(test, r->head, 4096);
	KUNIT_EXPECT_EQ(test, r->records, 64);
	KUNIT_EXPECT_EQ(test, r->lost, 2);
	/* Still full: a smaller record is dropped too, as long as one was. */
	pmuscope_stest_rec(r, 0, 100);
	KUNIT_EXPECT_EQ(test, r->lost, 3);
	/* The reader takes two records (128 bytes): LOST (48) and one (64) fit. */
	r->tail += 128;
	pmuscope_stest_rec(r, 2, 200);
	KUNIT_EXPECT_EQ(test, r->lost, 0);
	KUNIT_EXPECT_EQ(test, r->lost_total, 3);
	rec = pmuscope_stest_at(r, 4096);
	KUNIT_EXPECT_EQ(test, rec->type, PMUSCOPE_REC_LOST);
	KUNIT_EXPECT_EQ(test, rec->value, 3);
	KUNIT_EXPECT_EQ(test, rec->size, sizeof(*rec));
	rec = pmuscope_stest_at(r, 4096 + 48);
	KUNIT_EXPECT_EQ(test, rec->type, PMUSCOPE_REC_SAMPLE);
	KUNIT_EXPECT_EQ(test, rec->pid, 200);
	KUNIT_EXPECT_EQ(test, r->head, 4096 + 48 + 64);
	/* The oldest records are intact. */
	rec = pmuscope_stest_at(r, 128);
	KUNIT_EXPECT_EQ(test, rec->pid, 2);
	/* No room for a LOST record and the next: both wait, the count grows. */
	pmuscope_stest_rec(r, 2, 300);
	KUNIT_EXPECT_EQ(test, r->lost, 1);
	pmuscope_ring_free(r);
}

/*
 * The NMI writer (the perf backend's overflow handler under pseudo-NMI)
 * interrupting this CPU's holder of the ring's lock: it must not spin
 * (the holder cannot go on until it returns) but drop the record and
 * count it, without the lock; the next writer, once the lock is free,
 * reports the drop in a LOST record before its own record. Without the
 * lock held the NMI writer writes as any other.
 */
static void pmuscope_test_ring_nmi_locked(struct kunit *test)
{
	u64 buf[PMUSCOPE_REC_MAX_WORDS] = { };
	struct pmuscope_record *rec = (void *)buf;
	struct pmuscope_ring *r = pmuscope_ring_alloc(4);
	const struct pmuscope_record *got;
	unsigned long flags;

	KUNIT_ASSERT_NOT_NULL(test, r);
	rec->type = PMUSCOPE_REC_SAMPLE;
	rec->size = sizeof(*rec) + 16;
	rec->nr = 2;
	rec->cpu = 1;
	rec->time = 777;
	rec->pid = 10;
	/* Free: the NMI writer takes the lock and writes. */
	pmuscope_ring_write_nmi(r, rec, rec->size);
	KUNIT_EXPECT_EQ(test, r->head, 64);
	KUNIT_EXPECT_EQ(test, r->records, 1);
	/* Held (as by the code the NMI interrupted): dropped and counted, no wait. */
	raw_spin_lock_irqsave(&r->lock, flags);
	rec->pid = 11;
	pmuscope_ring_write_nmi(r, rec, rec->size);
	rec->type = PMUSCOPE_REC_THROTTLED;
	rec->size = sizeof(*rec);
	rec->nr = 0;
	rec->time = 778;
	pmuscope_ring_write_nmi(r, rec, rec->size);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	KUNIT_EXPECT_EQ(test, r->head, 64);
	KUNIT_EXPECT_EQ(test, r->records, 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&r->nmi_lost), 2);
	KUNIT_EXPECT_EQ(test, r->lost, 0);
	/* The next writer: LOST (2, the last drop's CPU and time), then its record. */
	pmuscope_stest_rec(r, 2, 12);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&r->nmi_lost), 0);
	KUNIT_EXPECT_EQ(test, r->lost_total, 2);
	got = pmuscope_stest_at(r, 64);
	KUNIT_EXPECT_EQ(test, got->type, PMUSCOPE_REC_LOST);
	KUNIT_EXPECT_EQ(test, got->value, 2);
	KUNIT_EXPECT_EQ(test, got->cpu, 1);
	KUNIT_EXPECT_EQ(test, got->time, 778);
	got = pmuscope_stest_at(r, 64 + 48);
	KUNIT_EXPECT_EQ(test, got->type, PMUSCOPE_REC_SAMPLE);
	KUNIT_EXPECT_EQ(test, got->pid, 12);
	KUNIT_EXPECT_EQ(test, r->head, 64 + 48 + 64);
	pmuscope_ring_free(r);
}

#ifdef PMUSCOPE_HAVE_KUNIT_VM_MMAP	/* user memory for read(): Linux 6.11+ */
/* A record written to a ring, or expected from it (SAMPLE: @value is its pid). */
struct pmuscope_ring_rec {
	u16 type;		/* PMUSCOPE_REC_*; 0 ends a list */
	u32 cpu;
	u64 time;
	u64 value;
};

#define PMUSCOPE_RS(cpu, time)		{ PMUSCOPE_REC_SAMPLE, cpu, time, 0 }
#define PMUSCOPE_RT(cpu, time)		{ PMUSCOPE_REC_THROTTLED, cpu, time, 0 }
#define PMUSCOPE_RL(n, cpu, time)	{ PMUSCOPE_REC_LOST, cpu, time, n }

/* Write @w: a SAMPLE of two counts (64 bytes), or a THROTTLED record. */
static void pmuscope_stest_write(struct pmuscope_ring *r, const struct pmuscope_ring_rec *w)
{
	u64 buf[PMUSCOPE_REC_MAX_WORDS] = { };
	struct pmuscope_record *rec = (void *)buf;

	rec->type = w->type;
	rec->nr = w->type == PMUSCOPE_REC_SAMPLE ? 2 : 0;
	rec->size = sizeof(*rec) + 8 * rec->nr;
	rec->cpu = w->cpu;
	rec->time = w->time;
	rec->pid = w->value;
	pmuscope_ring_write(r, rec, rec->size);
}

struct pmuscope_ring_case {
	const char *name;
	/* Written once 64 samples filled the 4 KiB ring: none fits. */
	const struct pmuscope_ring_rec *late;
	u32 taken;		/* bytes then taken by hand (not by read()) */
	bool writer;		/* then a sample is written (CPU 1, time 500, pid 1000) */
	u32 read_len;		/* each read()'s buffer */
	bool block;		/* read() without O_NONBLOCK while poll() says readable */
	/* What read() returns after the ring's samples (and before the writer's). */
	const struct pmuscope_ring_rec *expect;
	u64 lost_total;		/* records dropped */
	u32 reads;		/* read()s that return records */
};

static const struct pmuscope_ring_case pmuscope_ring_cases[] = {
	{
		.name = "a sample dropped last: read() drains, the next returns LOST",
		.late = (const struct pmuscope_ring_rec[]){ PMUSCOPE_RS(1, 100), {} },
		.read_len = 4096,
		.expect = (const struct pmuscope_ring_rec[]){ PMUSCOPE_RL(1, 1, 100), {} },
		.lost_total = 1, .reads = 2,
	}, {
		.name = "samples then THROTTLED dropped last: LOST, then THROTTLED",
		.late = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RS(0, 100), PMUSCOPE_RS(1, 101), PMUSCOPE_RS(0, 102),
			PMUSCOPE_RT(0, 103), {} },
		.read_len = 4096,
		.expect = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RL(3, 0, 102), PMUSCOPE_RT(0, 103), {} },
		.lost_total = 3, .reads = 2,
	}, {
		.name = "THROTTLED alone did not fit: held, nothing lost",
		.late = (const struct pmuscope_ring_rec[]){ PMUSCOPE_RT(0, 100), {} },
		.read_len = 4096,
		.expect = (const struct pmuscope_ring_rec[]){ PMUSCOPE_RT(0, 100), {} },
		.lost_total = 0, .reads = 2,
	}, {
		.name = "THROTTLED held, then samples dropped: LOST comes first",
		.late = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RT(0, 100), PMUSCOPE_RS(0, 101), PMUSCOPE_RS(0, 102), {} },
		.read_len = 4096,
		.expect = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RL(2, 0, 102), PMUSCOPE_RT(0, 100), {} },
		.lost_total = 2, .reads = 2,
	}, {
		.name = "one record a read(): LOST, then THROTTLED once there is room",
		.late = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RS(0, 100), PMUSCOPE_RS(0, 101), PMUSCOPE_RT(0, 102), {} },
		.read_len = 64,
		.expect = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RL(2, 0, 101), PMUSCOPE_RT(0, 102), {} },
		.lost_total = 2, .reads = 66,
	}, {
		.name = "THROTTLED on two CPUs, twice on one: all held, CPU by CPU",
		.late = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RT(1, 100), PMUSCOPE_RS(0, 101), PMUSCOPE_RT(0, 102),
			PMUSCOPE_RT(1, 103), {} },
		.read_len = 4096,
		.expect = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RL(1, 0, 101), PMUSCOPE_RT(0, 102), PMUSCOPE_RT(1, 100),
			PMUSCOPE_RT(1, 100), {} },
		.lost_total = 1, .reads = 2,
	}, {
		.name = "ring empty, LOST pending: read() returns it, no EAGAIN",
		.late = (const struct pmuscope_ring_rec[]){ PMUSCOPE_RS(1, 100), {} },
		.taken = 4096, .read_len = 4096,
		.expect = (const struct pmuscope_ring_rec[]){ PMUSCOPE_RL(1, 1, 100), {} },
		.lost_total = 1, .reads = 1,
	}, {
		.name = "ring empty, LOST and THROTTLED pending: a blocking read() returns them",
		.late = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RS(0, 100), PMUSCOPE_RT(0, 101), {} },
		.taken = 4096, .read_len = 4096, .block = true,
		.expect = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RL(1, 0, 100), PMUSCOPE_RT(0, 101), {} },
		.lost_total = 1, .reads = 1,
	}, {
		.name = "a writer finds room first: LOST, THROTTLED, then its record",
		.late = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RS(0, 100), PMUSCOPE_RS(0, 101), PMUSCOPE_RS(0, 102),
			PMUSCOPE_RT(0, 103), {} },
		.taken = 256, .writer = true, .read_len = 4096,
		.expect = (const struct pmuscope_ring_rec[]){
			PMUSCOPE_RL(3, 0, 102), PMUSCOPE_RT(0, 103), {} },
		.lost_total = 3, .reads = 1,
	},
};

static void pmuscope_ring_desc(const struct pmuscope_ring_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_ring, pmuscope_ring_cases, pmuscope_ring_desc);

#define PMUSCOPE_STEST_BUF	8192

/* User memory for read() (kunit_vm_mmap(): Linux 6.11 and later). */
static char __user *pmuscope_stest_ubuf(struct kunit *test)
{
	unsigned long addr = kunit_vm_mmap(test, NULL, 0, PMUSCOPE_STEST_BUF,
					   PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, 0);

	KUNIT_ASSERT_NE_MSG(test, addr, 0, "no user memory");
	return (char __user *)addr;
}

static bool pmuscope_stest_readable(struct pmuscope_ring *r)
{
	return pmuscope_ring_poll(r, NULL, NULL) & EPOLLIN;
}

/* Check that @buf (@len bytes) holds @nr records, each as @e says. */
static void pmuscope_stest_expect_recs(struct kunit *test, const u8 *buf, u32 len,
				       const struct pmuscope_ring_rec *e, u32 nr)
{
	u32 off = 0, i;

	for (i = 0; i < nr && off + sizeof(struct pmuscope_record) <= len; i++, e++) {
		const struct pmuscope_record *rec = (const void *)(buf + off);

		KUNIT_EXPECT_EQ_MSG(test, rec->type, e->type, "record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, rec->cpu, e->cpu, "record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, rec->time, e->time, "record %u", i);
		if (e->type == PMUSCOPE_REC_SAMPLE) {
			KUNIT_EXPECT_EQ_MSG(test, rec->pid, e->value, "record %u", i);
			KUNIT_EXPECT_EQ_MSG(test, rec->size, sizeof(*rec) + 16, "record %u", i);
		} else {
			KUNIT_EXPECT_EQ_MSG(test, rec->value, e->value, "record %u", i);
			KUNIT_EXPECT_EQ_MSG(test, rec->size, sizeof(*rec), "record %u", i);
		}
		if (rec->size < sizeof(*rec))
			break;
		off += rec->size;
	}
	KUNIT_EXPECT_EQ_MSG(test, i, nr, "records read");
	KUNIT_EXPECT_EQ_MSG(test, off, len, "bytes read");
}

/*
 * The last records written to a full ring do not fit, and no writer comes
 * after them (the stream stopped, or a throttle burst filled the ring):
 * read() returns the ring's records, then what is pending, LOST first,
 * then THROTTLED (never dropped); poll() says readable until all is read;
 * an empty ring with something pending returns it rather than blocking or
 * EAGAIN; writing what is pending counts nothing again.
 */
static void pmuscope_test_ring_pending(struct kunit *test)
{
	const struct pmuscope_ring_case *c = test->param_value;
	char __user *ubuf = pmuscope_stest_ubuf(test);
	u8 *kbuf = kunit_kzalloc(test, PMUSCOPE_STEST_BUF, GFP_KERNEL);
	struct pmuscope_ring_rec *e = kunit_kcalloc(test, 128, sizeof(*e), GFP_KERNEL);
	const struct pmuscope_ring_rec *w;
	u32 nr = 0, held = 0, reads = 0, got = 0, i;
	struct pmuscope_ring *r;
	bool readable;
	ssize_t ret;

	KUNIT_ASSERT_NOT_NULL(test, kbuf);
	KUNIT_ASSERT_NOT_NULL(test, e);
	for (w = c->late; w->type; w++)
		if (w->type == PMUSCOPE_REC_THROTTLED && w->cpu >= nr_cpu_ids)
			kunit_skip(test, "needs CPU %u", w->cpu);
	r = pmuscope_ring_alloc(4);
	KUNIT_ASSERT_NOT_NULL(test, r);

	for (i = 0; i < 64; i++) {
		struct pmuscope_ring_rec s = PMUSCOPE_RS(0, i + 1);

		s.value = i;
		pmuscope_stest_write(r, &s);
		if (i * 64 >= c->taken)
			e[nr++] = s;
	}
	for (w = c->late; w->type; w++) {
		pmuscope_stest_write(r, w);
		held += w->type == PMUSCOPE_REC_THROTTLED;
	}
	KUNIT_EXPECT_EQ(test, r->head, 4096);
	KUNIT_EXPECT_EQ(test, r->lost_total, c->lost_total);
	for (w = c->expect; w->type; w++)
		e[nr++] = *w;
	r->tail += c->taken;
	if (c->writer) {
		struct pmuscope_ring_rec s = { PMUSCOPE_REC_SAMPLE, 1, 500, 1000 };

		pmuscope_stest_write(r, &s);
		e[nr++] = s;
	}

	for (i = 0; i < 200; i++) {
		readable = pmuscope_stest_readable(r);
		ret = pmuscope_ring_read(r, ubuf, c->read_len, !(c->block && readable));
		if (ret == -EAGAIN)
			break;
		KUNIT_EXPECT_TRUE_MSG(test, readable, "poll() before read() %u", i);
		KUNIT_ASSERT_GT_MSG(test, ret, 0, "read() %u", i);
		KUNIT_ASSERT_LE(test, got + ret, PMUSCOPE_STEST_BUF);
		KUNIT_ASSERT_EQ(test, copy_from_user(kbuf + got, ubuf, ret), 0);
		got += ret;
		reads++;
		/* What the reader writes was counted when dropped: not again. */
		KUNIT_EXPECT_EQ(test, r->lost_total, c->lost_total);
	}
	KUNIT_EXPECT_EQ(test, ret, -EAGAIN);
	KUNIT_EXPECT_FALSE(test, readable);
	KUNIT_EXPECT_EQ(test, reads, c->reads);
	pmuscope_stest_expect_recs(test, kbuf, got, e, nr);
	KUNIT_EXPECT_EQ(test, r->lost, 0);
	KUNIT_EXPECT_EQ(test, r->nr_held, 0);
	KUNIT_EXPECT_EQ(test, r->lost_total, c->lost_total);
	KUNIT_EXPECT_EQ(test, r->records, 64 + held + c->writer);
	pmuscope_ring_free(r);
}

#endif /* PMUSCOPE_HAVE_KUNIT_VM_MMAP */

/* ------------------------------------------------- where a sample was taken */
struct pmuscope_where_case {
	const char *name;
	bool kernel_pcs;	/* the session counts EL1/EL2 */
	u64 pstate;		/* of the interrupted context; ~0: no regs */
	bool kthread;		/* the task running is a kernel thread */
	bool pc, user, task;	/* expected: PC, F_USER, pid/tid recorded */
};

static const struct pmuscope_where_case pmuscope_where_cases[] = {
	{ "EL0-only session, sample at EL0", false, PSR_MODE_EL0t, false, true, true, true },
	{ "EL0-only session, sample in the kernel (syscall)", false, PSR_MODE_EL1h, false,
	  false, false, true },
	{ "EL0-only session, sample in a kernel thread", false, PSR_MODE_EL1h, true,
	  false, false, false },
	{ "EL0-only session, no interrupted context", false, ~0ULL, false, false, false, true },
	{ "kernel-counting session, sample in the kernel", true, PSR_MODE_EL1h, true,
	  true, false, true },
	{ "kernel-counting session, sample at EL0", true, PSR_MODE_EL0t, false, true, true, true },
};

static void pmuscope_where_desc(const struct pmuscope_where_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_where, pmuscope_where_cases, pmuscope_where_desc);

/*
 * Defect: time-based and skid records carried the kernel PC for sessions
 * that count EL0 only. perf's exclude_kernel events show nothing of the
 * kernel; neither does such a session's record.
 */
static void pmuscope_test_stream_where(struct kunit *test)
{
	const struct pmuscope_where_case *c = test->param_value;
	struct pmuscope_session *sess;
	struct pmuscope_record rec = { };
	struct task_struct *task;
	struct pt_regs regs = { };

	sess = kunit_kzalloc(test, sizeof(*sess), GFP_KERNEL);
	/* A copy of this thread (its pids resolve) with the flags chosen. */
	task = kunit_kmalloc(test, sizeof(*task), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sess);
	KUNIT_ASSERT_NOT_NULL(test, task);
	memcpy(task, current, sizeof(*task));
	task->flags = c->kthread ? PF_KTHREAD : 0;
	sess->kernel_pcs = c->kernel_pcs;
	regs.pc = c->pstate == PSR_MODE_EL0t ? 0x400000 : 0xffff800080001234ULL;
	regs.pstate = c->pstate;
	pmuscope_stream_where(sess, c->pstate == ~0ULL ? NULL : &regs, task, &rec);
	KUNIT_EXPECT_EQ_MSG(test, rec.pc, c->pc ? regs.pc : 0, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, !!(rec.flags & PMUSCOPE_REC_F_USER), c->user, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, rec.tid != 0, c->task, "%s", c->name);
	if (c->task)
		KUNIT_EXPECT_EQ(test, rec.tid, (u32)task_pid_nr(current));
}

/* -------------------------------------------------------------- sequences */

/*
 * One CPU-0 session of the fuzzer that found counts going down: SW_INCR:k,
 * CPU_CYCLES:uk twice and CPU_CYCLES:ukh, placed as CONFIG places them
 * (the first CPU_CYCLES on the cycle counter), driven as
 * pmuscope_op_on_cpu() drives it: STREAM sets each counter's sampling
 * period, ENABLE and DISABLE start and stop them together, SWINC writes
 * PMSWINC_EL0, a stream record is a snapshot. The model counts nothing
 * the test does not ask for, so every value is exact: the events counted
 * while its counter was enabled, never more, never less, never LOST.
 * Until a counter is rewritten lower behind the driver's back, as QEMU's
 * TCG without -icount does to every running counter when its PMU timer
 * runs inside an exception return (Documentation/testing.rst): then its
 * events were lost, its value no longer exact; it still never goes down.
 */
#define PMUSCOPE_SEQ_EVENTS	4

struct pmuscope_seq {
	struct kunit *test;
	struct pmuscope_pmu *pmu;
	unsigned int cpu;
	u8 idx[PMUSCOPE_SEQ_EVENTS];	/* the counter of each event */
	u64 truth[PMUSCOPE_SEQ_EVENTS];	/* events counted while enabled */
	u64 seen[PMUSCOPE_SEQ_EVENTS];	/* the last value read */
	u32 rewritten;			/* events whose counter was rewritten */
	u64 rng;
	u32 step;
	u32 counts_since_poll;
	const char *what;		/* the step, for the messages */
};

static const u32 pmuscope_seq_flags[PMUSCOPE_SEQ_EVENTS] = {
	PMUSCOPE_EV_EL1, UK, UK, UK | PMUSCOPE_EV_EL2,
};

static u32 pmuscope_seq_mask(const struct pmuscope_seq *s)
{
	u32 m = 0, i;

	for (i = 0; i < PMUSCOPE_SEQ_EVENTS; i++)
		m |= BIT(s->idx[i]);
	return m;
}

static void pmuscope_seq_setup(struct kunit *test, struct pmuscope_seq *s,
			       const struct pmuscope_model_profile *prof, u64 seed)
{
	struct pmuscope_etest *t = test->priv;
	static const u8 idx[PMUSCOPE_SEQ_EVENTS] = { 0, CC, 1, 2 };
	u32 i;

	memset(s, 0, sizeof(*s));
	s->test = test;
	s->cpu = t->cpu;
	s->rng = seed;
	/* A PMU as new: nothing of the last sequence's. */
	memset(t->pmu, 0, sizeof(*t->pmu));
	raw_spin_lock_init(&t->pmu->lock);
	s->pmu = pmuscope_etest_pmu(test, prof);
	pmuscope_etest_call(s->pmu, pmuscope_pmu_cpu_up);
	for (i = 0; i < PMUSCOPE_SEQ_EVENTS; i++) {
		s->idx[i] = idx[i];
		pmuscope_etest_assign(s->pmu, idx[i], i ? 0x11 : 0x00, pmuscope_seq_flags[i]);
		s->pmu->hwc[idx[i]].enabled = false;
	}
	/* Throttles within a few steps, as a storm of samples does. */
	pmuscope_stest_limit(8);
	pmuscope_engine.storm_limit = 8;
}

/*
 * Every value exact and no flag but THROTTLED; once its counter was
 * rewritten, no lower than the last value read, and LOST may be set.
 */
static void pmuscope_seq_expect(struct pmuscope_seq *s, const struct pmuscope_value *v)
{
	u32 i;

	for (i = 0; i < PMUSCOPE_SEQ_EVENTS; i++) {
		bool rewritten = s->rewritten & BIT(i);

		KUNIT_EXPECT_GE_MSG(s->test, v[i].count, s->seen[i],
				    "step %u (%s): event %u on counter %u went down", s->step,
				    s->what, i, s->idx[i]);
		if (!rewritten)
			KUNIT_EXPECT_EQ_MSG(s->test, v[i].count, s->truth[i],
					    "step %u (%s): event %u on counter %u", s->step,
					    s->what, i, s->idx[i]);
		KUNIT_EXPECT_EQ_MSG(s->test, v[i].flags & ~PMUSCOPE_VAL_THROTTLED &
				    ~(rewritten ? PMUSCOPE_VAL_LOST : 0), 0,
				    "step %u (%s): event %u on counter %u", s->step, s->what,
				    i, s->idx[i]);
		s->seen[i] = v[i].count;
	}
}

/*
 * What QEMU's PMU timer does when it runs inside an exception return:
 * every running counter restarts from the few events since that return.
 */
static void pmuscope_seq_rewrite(struct pmuscope_seq *s, u64 since)
{
	u32 i;

	for (i = 0; i < PMUSCOPE_SEQ_EVENTS; i++) {
		unsigned int n = s->idx[i];

		if (!s->pmu->hwc[n].on_hw)
			continue;
		pmuscope_model_write_cpu(s->cpu, n == CC ? PMUSCOPE_REG_PMCCNTR_EL0 :
					 PMUSCOPE_REG_PMEVCNTR(n), i ? since : 0);
		s->rewritten |= BIT(i);
	}
}

/* A stream record's counts (pmu->lock held), the session's counters taken together. */
static void pmuscope_seq_snap(struct pmuscope_seq *s, struct pmuscope_value *v)
{
	struct pmuscope_snap_cpu sc;

	pmuscope_pmu_snapshot(s->pmu, s->idx, PMUSCOPE_SEQ_EVENTS, pmuscope_seq_mask(s),
			      0, 0, ktime_get_ns(), v, &sc);
}

/* A time-based record. */
static void pmuscope_seq_record(struct pmuscope_seq *s)
{
	struct pmuscope_value v[PMUSCOPE_SEQ_EVENTS];
	unsigned long irqf;

	raw_spin_lock_irqsave(&s->pmu->lock, irqf);
	pmuscope_seq_snap(s, v);
	raw_spin_unlock_irqrestore(&s->pmu->lock, irqf);
	pmuscope_seq_expect(s, v);
}

/* The overflow interrupt, if the line is up, and its sample's record. */
static void pmuscope_seq_irq(struct pmuscope_seq *s)
{
	struct pmuscope_value v[PMUSCOPE_SEQ_EVENTS];
	unsigned long sampled, irqf;

	if (!pmuscope_model_irq_line(s->cpu))
		return;
	raw_spin_lock_irqsave(&s->pmu->lock, irqf);
	pmuscope_pmu_overflow(s->pmu, &sampled);
	if (sampled)
		pmuscope_seq_snap(s, v);
	pmuscope_pmu_overflow_end(s->pmu);
	raw_spin_unlock_irqrestore(&s->pmu->lock, irqf);
	if (sampled)
		pmuscope_seq_expect(s, v);
}

static void pmuscope_seq_stream(struct pmuscope_seq *s, u32 sample_index, u64 period)
{
	unsigned long irqf;
	u32 i;

	raw_spin_lock_irqsave(&s->pmu->lock, irqf);
	for (i = 0; i < PMUSCOPE_SEQ_EVENTS; i++)
		pmuscope_hwc_set_sampling(s->pmu, s->idx[i], i == sample_index ? period : 0,
					  ktime_get_ns());
	raw_spin_unlock_irqrestore(&s->pmu->lock, irqf);
}

static void pmuscope_seq_enable(struct pmuscope_seq *s, bool on)
{
	unsigned long irqf;
	u32 i, batch = 0;

	raw_spin_lock_irqsave(&s->pmu->lock, irqf);
	for (i = 0; i < PMUSCOPE_SEQ_EVENTS; i++) {
		struct pmuscope_hwc *hwc = &s->pmu->hwc[s->idx[i]];

		if (hwc->enabled == on)
			continue;
		hwc->enabled = on;
		if (on || hwc->on_hw)
			batch |= BIT(s->idx[i]);
	}
	if (on)
		pmuscope_pmu_start_mask(s->pmu, batch, ktime_get_ns());
	else
		pmuscope_pmu_stop_mask(s->pmu, batch, ktime_get_ns());
	raw_spin_unlock_irqrestore(&s->pmu->lock, irqf);
}

static void pmuscope_seq_read(struct pmuscope_seq *s)
{
	struct pmuscope_value v[PMUSCOPE_SEQ_EVENTS];
	unsigned long irqf;

	raw_spin_lock_irqsave(&s->pmu->lock, irqf);
	pmuscope_pmu_read(s->pmu, s->idx, PMUSCOPE_SEQ_EVENTS, ktime_get_ns(), v);
	raw_spin_unlock_irqrestore(&s->pmu->lock, irqf);
	pmuscope_seq_expect(s, v);
}

static void pmuscope_seq_poll(struct pmuscope_seq *s)
{
	unsigned long irqf;

	raw_spin_lock_irqsave(&s->pmu->lock, irqf);
	pmuscope_pmu_poll_locked(s->pmu, ktime_get_ns());
	raw_spin_unlock_irqrestore(&s->pmu->lock, irqf);
	s->counts_since_poll = 0;
}

/* A window later: the unthrottle timer's work. */
static void pmuscope_seq_window(struct pmuscope_seq *s)
{
	pmuscope_stest_next_window(s->pmu);
}

/* @n CPU cycles at EL1: every CPU_CYCLES counter that is enabled counts them. */
static void pmuscope_seq_cycles(struct pmuscope_seq *s, u64 n)
{
	u32 i;

	/* A wrap is folded within 2^31 events: by its interrupt, or a poll. */
	pmuscope_seq_irq(s);
	if (s->counts_since_poll >= 2)
		pmuscope_seq_poll(s);
	pmuscope_model_count(s->cpu, 0x11, n);
	s->counts_since_poll++;
	for (i = 1; i < PMUSCOPE_SEQ_EVENTS; i++)
		if (s->pmu->hwc[s->idx[i]].enabled)
			s->truth[i] += n;
}

static void pmuscope_seq_swinc(struct pmuscope_seq *s, u32 n)
{
	unsigned long irqf;

	raw_spin_lock_irqsave(&s->pmu->lock, irqf);
	pmuscope_pmu_swinc(s->pmu, BIT(s->idx[0]), n);
	raw_spin_unlock_irqrestore(&s->pmu->lock, irqf);
	if (s->pmu->hwc[s->idx[0]].enabled)
		s->truth[0] += n;
}

static u64 pmuscope_seq_rnd(struct pmuscope_seq *s)
{
	u64 z = (s->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 pmuscope_seq_below(struct pmuscope_seq *s, u64 n)
{
	return pmuscope_seq_rnd(s) % n;
}

/*
 * The fuzzer's first finding, step by step: CONFIG, STREAM {period_ms 2,
 * sample_index 3, sample_period 1372}, STREAM {period_ms 15, sample_index
 * 2, sample_period 4088}, DISABLE, DISABLE, ENABLE, then the interrupt
 * storm (a sample every 4088 cycles until the throttle) and READ.
 */
struct pmuscope_seq_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	bool rewrite;		/* QEMU's timer in an exception return, as seen */
};

static const struct pmuscope_seq_case pmuscope_seq_cases[] = {
	{ "cortex-a53: 32-bit event counters", &pmuscope_model_cortex_a53 },
	{ "v9.4-like: 64-bit event counters", &pmuscope_model_v94 },
	{ "cortex-a53: counters rewritten as QEMU does", &pmuscope_model_cortex_a53, true },
	{ "v9.4-like: counters rewritten as QEMU does", &pmuscope_model_v94, true },
};

static void pmuscope_seq_desc(const struct pmuscope_seq_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_seq, pmuscope_seq_cases, pmuscope_seq_desc);

static void pmuscope_test_seq_short(struct kunit *test)
{
	const struct pmuscope_seq_case *c = test->param_value;
	struct pmuscope_seq *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	pmuscope_seq_setup(test, s, c->prof, 1);
	s->what = "STREAM 3/1372";
	pmuscope_seq_stream(s, 3, 1372);
	s->what = "STREAM 2/4088";
	pmuscope_seq_stream(s, 2, 4088);
	s->what = "DISABLE";
	pmuscope_seq_enable(s, false);
	pmuscope_seq_enable(s, false);
	s->what = "ENABLE";
	pmuscope_seq_enable(s, true);
	s->what = "storm";
	for (i = 0; i < 40; i++, s->step++) {
		/*
		 * Just after an exception return: below every CPU_CYCLES
		 * counter, the throttled one too (SW_INCR, at 0, cannot go
		 * lower).
		 */
		if (c->rewrite && i == 20)
			pmuscope_seq_rewrite(s, 50);
		pmuscope_seq_cycles(s, 4088 + 13);
		pmuscope_seq_irq(s);
	}
	s->what = "READ";
	pmuscope_seq_read(s);
	KUNIT_EXPECT_TRUE(test, s->pmu->hwc[s->idx[2]].irq_off);
	/* Each CPU_CYCLES counter found lower once; nothing else lost. */
	KUNIT_EXPECT_EQ(test, s->pmu->resyncs, c->rewrite ? 3 : 0);
	for (i = 0; i < PMUSCOPE_SEQ_EVENTS; i++)
		KUNIT_EXPECT_EQ_MSG(test, !!(s->pmu->hwc[s->idx[i]].flags & PMUSCOPE_VAL_LOST),
				    c->rewrite && i, "event %d", i);
}

/*
 * The fuzzer's sequences: random STREAM, ENABLE, DISABLE, SWINC, cycles
 * (some past a 32-bit wrap), interrupts (some late: a READ meets the wrap
 * first), polls, the next window of a throttled sampler (its interrupt
 * back on), records and READs; every value checked at every READ and
 * record.
 */
static void pmuscope_test_seq_random(struct kunit *test)
{
	const struct pmuscope_seq_case *c = test->param_value;
	struct pmuscope_seq *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u32 seed;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (seed = 1; seed <= 3; seed++) {
		pmuscope_seq_setup(test, s, c->prof, seed);
		for (s->step = 0; s->step < 1000; s->step++) {
			u64 r = pmuscope_seq_below(s, 100);

			if (r < 10) {
				u32 si = pmuscope_seq_below(s, PMUSCOPE_SEQ_EVENTS + 1);
				u64 period = pmuscope_seq_below(s, 4) ?
					1000 + pmuscope_seq_below(s, 4000) :
					1000 + pmuscope_seq_below(s, BIT_ULL(31) - 999);

				s->what = "STREAM";
				pmuscope_seq_stream(s, si == PMUSCOPE_SEQ_EVENTS ? U32_MAX : si,
						    period);
			} else if (r < 20) {
				s->what = "ENABLE";
				pmuscope_seq_enable(s, true);
			} else if (r < 27) {
				s->what = "DISABLE";
				pmuscope_seq_enable(s, false);
			} else if (r < 50) {
				s->what = "cycles";
				pmuscope_seq_cycles(s, pmuscope_seq_below(s, 4) ?
						    1 + pmuscope_seq_below(s, 20000) :
						    1 + pmuscope_seq_below(s, BIT_ULL(29)));
			} else if (r < 58) {
				s->what = "SWINC";
				pmuscope_seq_swinc(s, 1 + pmuscope_seq_below(s, 4096));
			} else if (r < 68) {
				s->what = "interrupt";
				pmuscope_seq_irq(s);
			} else if (r < 71) {
				s->what = "poll";
				pmuscope_seq_poll(s);
			} else if (r < 72) {
				s->what = "rewritten";
				if (c->rewrite)
					pmuscope_seq_rewrite(s, pmuscope_seq_below(s, 100000));
			} else if (r < 80) {
				s->what = "record";
				pmuscope_seq_record(s);
			} else if (r < 83) {
				s->what = "window";
				pmuscope_seq_window(s);
			} else {
				s->what = "READ";
				pmuscope_seq_read(s);
			}
			if (test->status == KUNIT_FAILURE)
				break;
		}
		if (!s->rewritten)
			KUNIT_EXPECT_EQ_MSG(test, s->pmu->resyncs, 0, "seed %u", seed);
		if (test->status == KUNIT_FAILURE) {
			kunit_info(test, "seed %u failed at step %u (%s)", seed, s->step, s->what);
			break;
		}
	}
	KUNIT_EXPECT_EQ(test, pmuscope_model_total_violations(), 0);
}

static struct kunit_case pmuscope_stream_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_stream_where, pmuscope_where_gen_params),
	KUNIT_CASE(pmuscope_test_start_stop_mask),
	KUNIT_CASE_PARAM(pmuscope_test_sampling, pmuscope_sample_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_sampling_handler_uncounted, pmuscope_sample_gen_params),
	KUNIT_CASE(pmuscope_test_sampling_throttle),
	KUNIT_CASE_PARAM(pmuscope_test_sampling_throttled_wrap, pmuscope_twrap_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_sampling_busy, pmuscope_busy_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_sample_window, pmuscope_window_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_sampling_window, pmuscope_sample_gen_params),
	KUNIT_CASE(pmuscope_test_sampling_window_hotplug),
	KUNIT_CASE_PARAM(pmuscope_test_sample_share, pmuscope_share_gen_params),
	KUNIT_CASE(pmuscope_test_sampling_window_other),
	KUNIT_CASE(pmuscope_test_sampling_window_each),
	KUNIT_CASE(pmuscope_test_ring_lost),
	KUNIT_CASE(pmuscope_test_ring_nmi_locked),
	KUNIT_CASE_PARAM(pmuscope_test_seq_short, pmuscope_seq_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_seq_random, pmuscope_seq_gen_params),
#ifdef PMUSCOPE_HAVE_KUNIT_VM_MMAP
	/*
	 * Not registered without user memory (Linux 6.1): a skipped
	 * parameter prints as plain "ok" there and would count as a pass.
	 */
	KUNIT_CASE_PARAM(pmuscope_test_ring_pending, pmuscope_ring_gen_params),
#endif
	{}
};

static struct kunit_suite pmuscope_stream_suite = {
	.name = "pmuscope_stream",
	.init = pmuscope_etest_init,
	.exit = pmuscope_etest_exit,
	.test_cases = pmuscope_stream_cases,
};

kunit_test_suites(&pmuscope_stream_suite);
