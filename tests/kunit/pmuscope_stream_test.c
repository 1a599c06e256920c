// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what streams are built on, against the register model: a
 * session's counters started and stopped together (one PMCNTENSET_EL0 /
 * PMCNTENCLR_EL0 write), sampling counters (preload, reload at the
 * overflow, exact counts across samples, a wrap folded by a READ before
 * the interrupt, throttling), and the ring's loss accounting.
 */

#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/slab.h>
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
		/* Reloaded 100000 before the next: 7 past it were counted. */
		pmuscope_model_count(t->cpu, 0x11, 100000 - 8);
		total += 100000 - 8;
		KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
	}
	/* A READ meets the wrap before the interrupt: counted, not consumed. */
	pmuscope_model_count(t->cpu, 0x11, 10);
	total += 10;
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
	KUNIT_EXPECT_EQ(test, pmu->samples, 6);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/* More samples a second than sample_limit: the interrupt goes off, counting goes on. */
static void pmuscope_test_sampling_throttle(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_stest_two(test, &pmuscope_model_v94);
	unsigned long sampled = 0;
	u64 total = 0;
	int i;

	pmuscope_engine.sample_limit = 3;
	pmu->hwc[0].enabled = true;
	pmu->hwc[CC].enabled = true;
	pmuscope_stest_mask(pmu, BIT(0) | BIT(CC), true);
	pmuscope_stest_sampling(pmu, 0, 1000);
	for (i = 0; i < 4; i++) {
		pmuscope_model_count(t->cpu, 0x11, 1000);
		total += 1000;
		sampled = pmuscope_stest_overflow(pmu);
	}
	KUNIT_EXPECT_EQ(test, sampled, BIT(0));
	KUNIT_EXPECT_TRUE(test, pmu->hwc[0].irq_off);
	pmuscope_model_count(t->cpu, 0x11, 5000);
	total += 5000;
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), total);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, CC, NULL), total);
	KUNIT_EXPECT_TRUE(test, pmu->hwc[0].flags & PMUSCOPE_VAL_THROTTLED);
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

static struct kunit_case pmuscope_stream_cases[] = {
	KUNIT_CASE(pmuscope_test_start_stop_mask),
	KUNIT_CASE_PARAM(pmuscope_test_sampling, pmuscope_sample_gen_params),
	KUNIT_CASE(pmuscope_test_sampling_throttle),
	KUNIT_CASE(pmuscope_test_ring_lost),
	{}
};

static struct kunit_suite pmuscope_stream_suite = {
	.name = "pmuscope_stream",
	.init = pmuscope_etest_init,
	.exit = pmuscope_etest_exit,
	.test_cases = pmuscope_stream_cases,
};

kunit_test_suites(&pmuscope_stream_suite);
