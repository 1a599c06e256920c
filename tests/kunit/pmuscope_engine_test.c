// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the PMUv3 counting engine against the register model: programming
 * order, privilege filters, 32-bit wrap folding (including a wrap racing a
 * read), polling, interrupt storms, hotplug and cpu_pm, and
 * the validation and placement of events.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "pmuscope.h"
#include "pmuscope_model.h"
#include "pmuscope_etest.h"

/* A dummy owner: the engine only checks that a counter has one. */
struct pmuscope_session pmuscope_etest_owner;

int pmuscope_etest_init(struct kunit *test)
{
	struct pmuscope_etest *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	/* The model's registers are per CPU: stay on one. */
	t->cpu = raw_smp_processor_id();
	set_cpus_allowed_ptr(current, cpumask_of(t->cpu));
	t->pmu = kunit_kzalloc(test, sizeof(*t->pmu), GFP_KERNEL);
	if (!t->pmu)
		return -ENOMEM;
	raw_spin_lock_init(&t->pmu->lock);
	t->m = pmuscope_model_get(t->cpu);
	/* Late polls are the business of pmuscope_test_late_poll() only. */
	pmuscope_engine = (struct pmuscope_engine){
		.mode = PMUSCOPE_FOLD_IRQ, .poll_ns = 20 * NSEC_PER_MSEC,
		.fold_safe_ns = U64_MAX, .storm_limit = 1000,
	};
	pmuscope_engine_sample_limit(&pmuscope_engine, 20000, HZ, pmuscope_model_syscnt_freq());
	test->priv = t;
	return 0;
}

void pmuscope_etest_exit(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	unsigned int n;

	/* Whatever the test did, pmu->hot says what the counters' states say. */
	for (n = 0; t && n < PMUSCOPE_NR_COUNTERS; n++)
		KUNIT_EXPECT_EQ_MSG(test, !!(t->pmu->hot & BIT(n)),
				    pmuscope_hwc_hot(&t->pmu->hwc[n]), "pmu->hot bit %u", n);
	pmuscope_engine = (struct pmuscope_engine){
		.mode = PMUSCOPE_FOLD_POLL, .poll_ns = 20 * NSEC_PER_MSEC,
		.fold_safe_ns = U64_MAX, .storm_limit = 1000,
	};
	pmuscope_engine_sample_limit(&pmuscope_engine, 20000, HZ, pmuscope_model_syscnt_freq());
}

/* Probe @prof through the model and set the engine's PMU up from it. */
struct pmuscope_pmu *pmuscope_etest_pmu(struct kunit *test,
					const struct pmuscope_model_profile *prof)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_cpu_caps *caps = kunit_kzalloc(test, sizeof(*caps), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, caps);
	pmuscope_model_reset_all(prof);
	pmuscope_probe_local(PMUSCOPE_ALL_UNITS, caps);
	pmuscope_pmu_setup(t->pmu, t->cpu, caps);
	t->m->nlog = 0;
	return t->pmu;
}

void pmuscope_etest_assign(struct pmuscope_pmu *pmu, unsigned int idx, u32 event,
			   u32 flags)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];

	memset(hwc, 0, sizeof(*hwc));
	hwc->owner = &pmuscope_etest_owner;
	hwc->event = event;
	hwc->evtyper = pmuscope_evtyper(event, flags);
	hwc->enabled = true;
	pmu->allocated |= BIT(idx);
}

/* Call an engine entry point as the driver does: pmu->lock, IRQs off. */
void pmuscope_etest_call(struct pmuscope_pmu *pmu,
			 void (*fn)(struct pmuscope_pmu *pmu))
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	fn(pmu);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

/* The poll timer's work, at @now (which a test may make late). */
static void etest_poll(struct pmuscope_pmu *pmu, u64 now)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	pmuscope_pmu_poll_locked(pmu, now);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

static bool etest_overflow(struct pmuscope_pmu *pmu)
{
	unsigned long sampled;
	unsigned long flags;
	bool handled;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	handled = pmuscope_pmu_overflow(pmu, &sampled);
	pmuscope_pmu_overflow_end(pmu);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
	return handled;
}

void pmuscope_etest_value(struct pmuscope_pmu *pmu, unsigned int idx,
			  struct pmuscope_value *v)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	if (pmu->hw_ready)	/* as the driver's read paths do */
		pmuscope_pmu_check(pmu, ktime_get_ns());
	pmuscope_hwc_read(pmu, idx, ktime_get_ns(), v);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

u64 pmuscope_etest_read(struct pmuscope_pmu *pmu, unsigned int idx, u32 *flags)
{
	struct pmuscope_value v = { };

	pmuscope_etest_value(pmu, idx, &v);
	if (flags)
		*flags = v.flags;
	return v.count;
}

#define ALL_EL		PMUSCOPE_EV_ALL_EL
#define UK		(PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1)

/* ------------------------------------------------------ programming order */

/*
 * Compare the model's log (writes and ISBs, and reads too when @reads)
 * with @expect, NULL-terminated: "REG=0xVAL" for a write, "REG?" for a
 * read, "isb" for an ISB.
 */
void pmuscope_etest_expect_log(struct kunit *test, const char *const *expect,
			       bool reads)
{
	struct pmuscope_etest *t = test->priv;
	unsigned int i, n = 0;
	char got[48];

	KUNIT_ASSERT_LE(test, t->m->nlog, PMUSCOPE_MODEL_LOG);
	for (i = 0; i < t->m->nlog; i++) {
		struct pmuscope_model_access *a = &t->m->log[i];
		char name[32];

		pmuscope_model_reg_name(a->reg, name, sizeof(name));
		if (a->reg == PMUSCOPE_MODEL_ISB)
			snprintf(got, sizeof(got), "isb");
		else if (a->write)
			snprintf(got, sizeof(got), "%s=0x%llx", name, a->val);
		else if (reads)
			snprintf(got, sizeof(got), "%s?", name);
		else
			continue;	/* reads may come anywhere */
		KUNIT_ASSERT_NOT_NULL_MSG(test, expect[n], "extra access %s", got);
		KUNIT_EXPECT_STREQ_MSG(test, got, expect[n], "access %u", n);
		n++;
	}
	KUNIT_EXPECT_NULL_MSG(test, expect[n], "missing access %s", expect[n]);
}

struct pmuscope_order_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	const char *expect[20];		/* writes and ISBs, in order */
};

static const struct pmuscope_order_case pmuscope_order_cases[] = {
	{ "cortex-a53: 32-bit counter gets its interrupt", &pmuscope_model_cortex_a53,
	  { "PMCR_EL0=0x0", "isb", "PMCNTENCLR_EL0=0xffffffff",
	    "PMINTENCLR_EL1=0xffffffff", "PMCR_EL0=0x6", "PMOVSCLR_EL0=0xffffffff",
	    "PMCR_EL0=0x40", "PMUSERENR_EL0=0x0", "isb", "PMEVTYPER0_EL0=0x8",
	    "PMCCFILTR_EL0=0x0", "PMINTENSET_EL1=0x1", "isb",
	    "PMCNTENSET_EL0=0x80000001", "PMCR_EL0=0x41", "isb" } },
	{ "v9.4-like: LP=1, 64-bit counters need no interrupt", &pmuscope_model_v94,
	  { "PMCR_EL0=0x0", "isb", "PMCNTENCLR_EL0=0xffffffff",
	    "PMINTENCLR_EL1=0xffffffff", "PMCR_EL0=0x6", "PMOVSCLR_EL0=0xffffffff",
	    "PMCR_EL0=0xc0", "PMUSERENR_EL0=0x0", "isb", "PMEVTYPER0_EL0=0x8",
	    "PMCCFILTR_EL0=0x0", "PMINTENSET_EL1=0x0", "isb",
	    "PMCNTENSET_EL0=0x80000001", "PMCR_EL0=0xc1", "isb" } },
};

static void pmuscope_order_desc(const struct pmuscope_order_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_order, pmuscope_order_cases, pmuscope_order_desc);

/*
 * Counting off, counters and overflow flags reset, LC (LP) set, event
 * types, PMINTENSET, ISB (the types take effect before any counter is
 * enabled), PMCNTENSET, PMCR_EL0.E = 1, ISB.
 */
static void pmuscope_test_program_order(struct kunit *test)
{
	const struct pmuscope_order_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, c->prof);

	pmuscope_etest_assign(pmu, 0, 0x08, UK);
	pmuscope_etest_assign(pmu, PMUSCOPE_CYCLE_IDX, 0x11, UK);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);

	pmuscope_etest_expect_log(test, c->expect, false);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
	KUNIT_EXPECT_TRUE(test, pmu->hw_ready);
}

/*
 * The barriers of Arm ARM D13 ("Synchronization of changes to the PMU
 * registers") where upstream's armv8pmu_* (drivers/perf/arm_pmuv3.c) put
 * them. Each case starts with counters 0 (CPU_CYCLES) and 1 (INST_RETIRED)
 * running on a cortex-a53 with their interrupts, and logs one operation,
 * reads included.
 */
static void etest_set_enabled(struct pmuscope_pmu *pmu, unsigned int idx, bool on)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	pmuscope_hwc_set_enabled(pmu, idx, on, ktime_get_ns());
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

static void etest_act_start_event(struct pmuscope_pmu *pmu, unsigned int cpu)
{
	pmuscope_etest_assign(pmu, 2, 0x08, UK);
	pmu->hwc[2].enabled = false;
	etest_set_enabled(pmu, 2, true);
}

static void etest_act_start_cycle(struct pmuscope_pmu *pmu, unsigned int cpu)
{
	pmuscope_etest_assign(pmu, PMUSCOPE_CYCLE_IDX, 0x11, UK);
	pmu->hwc[PMUSCOPE_CYCLE_IDX].enabled = false;
	etest_set_enabled(pmu, PMUSCOPE_CYCLE_IDX, true);
}

static void etest_act_stop(struct pmuscope_pmu *pmu, unsigned int cpu)
{
	etest_set_enabled(pmu, 1, false);
}

static void etest_act_read(struct pmuscope_pmu *pmu, unsigned int cpu)
{
	struct pmuscope_value v;

	pmuscope_etest_value(pmu, 0, &v);
}

/* The session READ's batch: counters 0 and 1, and an event without one. */
static void etest_read_batch(struct pmuscope_pmu *pmu, struct pmuscope_value *v)
{
	static const u8 idx[] = { 1, 0, PMUSCOPE_NO_COUNTER };
	unsigned long flags;
	u64 now = ktime_get_ns();

	raw_spin_lock_irqsave(&pmu->lock, flags);
	pmuscope_pmu_read(pmu, idx, ARRAY_SIZE(idx), now, v);	/* checks first */
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

static void etest_act_read_batch(struct pmuscope_pmu *pmu, unsigned int cpu)
{
	struct pmuscope_value v[3];

	etest_read_batch(pmu, v);
}

static void etest_act_overflow(struct pmuscope_pmu *pmu, unsigned int cpu)
{
	pmuscope_model_count(cpu, 0x11, 1ULL << 32);
	etest_overflow(pmu);
}

struct pmuscope_barrier_case {
	const char *name;
	void (*act)(struct pmuscope_pmu *pmu, unsigned int cpu);
	const char *expect[16];		/* writes, reads ("REG?") and ISBs */
};

static const struct pmuscope_barrier_case pmuscope_barrier_cases[] = {
	{ "start an event counter: type and value, ISB, then PMCNTENSET",
	  etest_act_start_event,
	  { "PMCNTENCLR_EL0=0x4", "PMINTENCLR_EL1=0x4", "isb",
	    "PMEVTYPER2_EL0=0x8", "PMEVCNTR2_EL0=0x0", "PMOVSCLR_EL0=0x4",
	    "PMINTENSET_EL1=0x4", "isb", "PMCNTENSET_EL0=0x4", "isb" } },
	{ "start the cycle counter: PMCCFILTR and PMCCNTR, ISB, then PMCNTENSET",
	  etest_act_start_cycle,
	  { "PMCNTENCLR_EL0=0x80000000", "PMINTENCLR_EL1=0x80000000", "isb",
	    "PMCCFILTR_EL0=0x0", "PMCCNTR_EL0=0x0", "PMOVSCLR_EL0=0x80000000",
	    "isb", "PMCNTENSET_EL0=0x80000000", "isb" } },
	{ "stop: ISB after PMINTENCLR and after PMOVSCLR", etest_act_stop,
	  { "PMCNTENCLR_EL0=0x2", "isb", "PMEVCNTR1_EL0?", "isb", "PMOVSSET_EL0?",
	    "PMINTENCLR_EL1=0x2", "isb", "PMOVSCLR_EL0=0x2", "isb" } },
	{ "fold: ISB between the counter read and the PMOVSSET read", etest_act_read,
	  { "PMCNTENSET_EL0?", "PMCR_EL0?", "PMEVCNTR0_EL0?", "isb", "PMOVSSET_EL0?" } },
	{ "READ of several counters: every counter, one ISB, one PMOVSSET",
	  etest_act_read_batch,
	  { "PMCNTENSET_EL0?", "PMCR_EL0?", "PMEVCNTR1_EL0?", "PMEVCNTR0_EL0?", "isb",
	    "PMOVSSET_EL0?" } },
	{ "overflow interrupt: ISB after PMOVSCLR before returning", etest_act_overflow,
	  { "PMOVSSET_EL0?", "PMEVCNTR0_EL0?", "isb", "PMOVSSET_EL0?",
	    "PMOVSCLR_EL0=0x1", "isb" } },
};

static void pmuscope_barrier_desc(const struct pmuscope_barrier_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_barrier, pmuscope_barrier_cases, pmuscope_barrier_desc);

static void pmuscope_test_barriers(struct kunit *test)
{
	const struct pmuscope_barrier_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);

	pmuscope_etest_assign(pmu, 0, 0x11, ALL_EL);
	pmuscope_etest_assign(pmu, 1, 0x08, ALL_EL);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	t->m->nlog = 0;
	c->act(pmu, t->cpu);
	pmuscope_etest_expect_log(test, c->expect, true);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
}

/* ------------------------------------------------------ privilege filters */
struct pmuscope_filter_case {
	u32 flags;
	u64 bits;		/* P/U/NSH of PMEVTYPER */
	u64 counted[3];		/* events counted at EL0, EL1, EL2 */
};

static const struct pmuscope_filter_case pmuscope_filter_cases[] = {
	{ PMUSCOPE_EV_EL0, PMUSCOPE_EVTYPER_P, { 1, 0, 0 } },
	{ PMUSCOPE_EV_EL1, PMUSCOPE_EVTYPER_U, { 0, 1, 0 } },
	{ PMUSCOPE_EV_EL2, PMUSCOPE_EVTYPER_P | PMUSCOPE_EVTYPER_U | PMUSCOPE_EVTYPER_NSH,
	  { 0, 0, 1 } },
	{ UK, 0, { 1, 1, 0 } },
	{ PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL2, PMUSCOPE_EVTYPER_P | PMUSCOPE_EVTYPER_NSH,
	  { 1, 0, 1 } },
	{ PMUSCOPE_EV_EL1 | PMUSCOPE_EV_EL2, PMUSCOPE_EVTYPER_U | PMUSCOPE_EVTYPER_NSH,
	  { 0, 1, 1 } },
	{ ALL_EL, PMUSCOPE_EVTYPER_NSH, { 1, 1, 1 } },
};

static void pmuscope_filter_desc(const struct pmuscope_filter_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s%s%s",
		 c->flags & PMUSCOPE_EV_EL0 ? "EL0 " : "",
		 c->flags & PMUSCOPE_EV_EL1 ? "EL1 " : "",
		 c->flags & PMUSCOPE_EV_EL2 ? "EL2" : "");
}

KUNIT_ARRAY_PARAM(pmuscope_filter, pmuscope_filter_cases, pmuscope_filter_desc);

static void pmuscope_test_filters(struct kunit *test)
{
	const struct pmuscope_filter_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	unsigned int el;
	u64 want = 0;

	KUNIT_EXPECT_EQ(test, pmuscope_filter_bits(c->flags), c->bits);
	KUNIT_EXPECT_EQ(test, pmuscope_evtyper(0x08, c->flags), 0x08 | c->bits);
	pmuscope_etest_assign(pmu, 2, 0x08, c->flags);
	pmuscope_etest_assign(pmu, PMUSCOPE_CYCLE_IDX, 0x11, c->flags);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	for (el = 0; el < 3; el++) {
		pmuscope_model_count_el(t->cpu, 0x08, el, 100 << el);
		pmuscope_model_count_el(t->cpu, 0x11, el, 100 << el);
		want += c->counted[el] * (100 << el);
	}
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 2, NULL), want);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_etest_read(pmu, PMUSCOPE_CYCLE_IDX, NULL), want,
			    "PMCCFILTR_EL0 filters like PMEVTYPER");
}

/* ------------------------------------------------------------ wrap folding */

/* Many wraps of a 32-bit counter, each folded by the overflow interrupt. */
static void pmuscope_test_irq_folds(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	u64 total = 0, chunk = (1ULL << 32) - 12345;
	bool handled;
	int i;

	pmuscope_etest_assign(pmu, 0, 0x11, ALL_EL);
	pmuscope_etest_assign(pmu, PMUSCOPE_CYCLE_IDX, 0x11, ALL_EL);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	for (i = 0; i < 40; i++) {
		pmuscope_model_count(t->cpu, 0x11, chunk);
		total += chunk;
		if (!pmuscope_model_irq_line(t->cpu))
			continue;
		handled = etest_overflow(pmu);
		KUNIT_EXPECT_TRUE(test, handled);
		KUNIT_EXPECT_FALSE_MSG(test, pmuscope_model_irq_line(t->cpu),
				       "interrupt still pending after the handler");
	}
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), total);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, PMUSCOPE_CYCLE_IDX, NULL), total);
	KUNIT_EXPECT_GE(test, pmu->overflows, 39);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

struct pmuscope_race_case {
	const char *name;
	u64 before;		/* events before the read */
	u64 during;		/* events between the counter read and PMOVS read */
	u64 first;		/* the first read returns */
};

static const struct pmuscope_race_case pmuscope_race_cases[] = {
	{ "no wrap", 0x7fffffff, 0, 0x7fffffff },
	{ "wrap before the read, flag pending", 0x100000010ULL, 0, 0x100000010ULL },
	{ "wrap between counter read and PMOVS read", 0xfffffff0, 0x20, 0xfffffff0 },
	{ "exactly at the wrap", 0xffffffff, 1, 0xffffffff },
	{ "second wrap between the reads", 0x1fffffff0ULL, 0x20, 0x1fffffff0ULL },
};

static void pmuscope_race_desc(const struct pmuscope_race_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_race, pmuscope_race_cases, pmuscope_race_desc);

/*
 * CPU_CYCLES on counter 0 counts @c->before (whole wraps folded, as the
 * interrupt would), and @c->during more between the next counter read and
 * the PMOVSSET read after it.
 */
static void etest_race_setup(struct pmuscope_etest *t, struct pmuscope_pmu *pmu,
			     const struct pmuscope_race_case *c)
{
	u64 before = c->before;

	while (before > U32_MAX) {
		pmuscope_model_count(t->cpu, 0x11, 1ULL << 32);
		before -= 1ULL << 32;
		etest_overflow(pmu);
	}
	pmuscope_model_count(t->cpu, 0x11, before);
	if (c->during)
		pmuscope_model_inject(t->cpu, PMUSCOPE_REG_PMOVSSET_EL0, 0x11, c->during);
}

/* A wrap racing a read is neither missed nor counted twice. */
static void pmuscope_test_wrap_race(struct kunit *test)
{
	const struct pmuscope_race_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);

	pmuscope_etest_assign(pmu, 0, 0x11, ALL_EL);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	etest_race_setup(t, pmu, c);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), c->first);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_etest_read(pmu, 0, NULL), c->before + c->during,
			    "second read after %s", c->name);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
}

/*
 * The same races through the session READ's batch (pmuscope_pmu_read()):
 * the wrap comes after both counter reads, before the one PMOVSSET read.
 * Counter 1 (INST_RETIRED, idle) and an event without a counter are read
 * alongside, unchanged by the fold of counter 0. etest_race_batch_first():
 * the race set up and the first READ, for this test and the next.
 */
static struct pmuscope_pmu *etest_race_batch_first(struct kunit *test,
						   struct pmuscope_value *v)
{
	const struct pmuscope_race_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);

	pmuscope_etest_assign(pmu, 0, 0x11, ALL_EL);
	pmuscope_etest_assign(pmu, 1, 0x08, PMUSCOPE_EV_EL2);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	etest_race_setup(t, pmu, c);
	etest_read_batch(pmu, v);
	KUNIT_EXPECT_EQ(test, v[1].count, c->first);
	return pmu;
}

static void pmuscope_test_wrap_race_batch(struct kunit *test)
{
	const struct pmuscope_race_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_value v[3], zero = { };
	struct pmuscope_pmu *pmu = etest_race_batch_first(test, v);

	KUNIT_EXPECT_EQ(test, v[1].counter, 0);
	KUNIT_EXPECT_EQ(test, v[1].index, 1);
	KUNIT_EXPECT_EQ(test, v[1].cpu, t->cpu);
	KUNIT_EXPECT_EQ(test, v[0].count, 0);
	KUNIT_EXPECT_EQ(test, v[0].counter, 1);
	KUNIT_EXPECT_EQ(test, v[0].index, 0);
	KUNIT_EXPECT_EQ(test, memcmp(&v[2], &zero, sizeof(zero)), 0);
	etest_read_batch(pmu, v);
	KUNIT_EXPECT_EQ_MSG(test, v[1].count, c->before + c->during,
			    "second read after %s", c->name);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), c->before + c->during);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
}

/*
 * The engine's one clock per counter, at the times each step gives (ns
 * after the start): time_enabled runs while the counter is enabled on a
 * ready PMU, stops while it is disabled and starts again from 0 at a
 * reset; time_running is the same. Read through the session READ's
 * batch: an enabled counter on its usual path (pmuscope_pmu_fold_usual()), a
 * disabled one through pmuscope_pmu_fold_one(). Counter 0 and the cycle
 * counter (32- and 64-bit), enabled and reset together, and an event
 * without a counter, whose sentinel stays all zeros.
 */
struct pmuscope_clock_step {
	char op;		/* 'e' enable, 'd' disable, 'r' reset, 'v' read */
	u64 at;
	u64 expect;		/* 'v': time_enabled */
};

static const struct pmuscope_clock_step pmuscope_clock_steps[] = {
	{ 'e', 100 }, { 'v', 150, 50 }, { 'd', 200 }, { 'v', 300, 100 },
	{ 'v', 1000, 100 }, { 'e', 1100 }, { 'v', 1150, 150 },
	{ 'r', 1200 }, { 'v', 1220, 20 }, { 'd', 1230 }, { 'v', 2000, 30 },
	{ 'r', 2100 }, { 'v', 2200, 0 }, { 'e', 2300 }, { 'v', 2310, 10 },
};

static void pmuscope_test_clock(struct kunit *test)
{
	static const u8 idx[] = { 0, PMUSCOPE_CYCLE_IDX, PMUSCOPE_NO_COUNTER };
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	const struct pmuscope_hwc *none = &pmu->hwc[PMUSCOPE_NO_COUNTER];
	struct pmuscope_value v[ARRAY_SIZE(idx)];
	unsigned long flags;
	u64 start;
	u32 s, i;

	pmuscope_etest_assign(pmu, 0, 0x11, ALL_EL);
	pmuscope_etest_assign(pmu, PMUSCOPE_CYCLE_IDX, 0x11, ALL_EL);
	pmu->hwc[0].enabled = false;
	pmu->hwc[PMUSCOPE_CYCLE_IDX].enabled = false;
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	start = ktime_get_ns();
	for (s = 0; s < ARRAY_SIZE(pmuscope_clock_steps); s++) {
		const struct pmuscope_clock_step *st = &pmuscope_clock_steps[s];
		u64 now = start + st->at;

		raw_spin_lock_irqsave(&pmu->lock, flags);
		for (i = 0; i < 2; i++) {
			if (st->op == 'e' || st->op == 'd')
				pmuscope_hwc_set_enabled(pmu, idx[i], st->op == 'e', now);
			else if (st->op == 'r')
				pmuscope_hwc_reset(pmu, idx[i], now);
		}
		if (st->op == 'v')
			pmuscope_pmu_read(pmu, idx, ARRAY_SIZE(idx), now, v);
		raw_spin_unlock_irqrestore(&pmu->lock, flags);
		if (st->op != 'v')
			continue;
		for (i = 0; i < 2; i++) {
			KUNIT_EXPECT_EQ_MSG(test, v[i].time_enabled, st->expect,
					    "counter %u at %llu", idx[i], st->at);
			KUNIT_EXPECT_EQ_MSG(test, v[i].time_running, st->expect,
					    "counter %u at %llu", idx[i], st->at);
			KUNIT_EXPECT_EQ(test, v[i].flags, 0);
		}
		KUNIT_EXPECT_EQ(test, v[2].time_enabled, 0);
	}
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(none, 0, sizeof(*none)), NULL);
}

/*
 * What a racing wrap leaves for a PMU reset nobody announced: the batch
 * READ's first value (made at once, then folded again when PMOVSSET shows
 * the wrap) is the count a lost PMU resumes from, flagged.
 */
static void pmuscope_test_wrap_race_batch_lost(struct kunit *test)
{
	const struct pmuscope_race_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_value v[3];
	struct pmuscope_pmu *pmu = etest_race_batch_first(test, v);

	KUNIT_EXPECT_EQ(test, pmu->hwc[0].last, c->first);
	pmuscope_model_power_loss(t->cpu);
	etest_read_batch(pmu, v);
	KUNIT_EXPECT_EQ_MSG(test, v[1].count, c->first, "resumed after %s", c->name);
	KUNIT_EXPECT_TRUE(test, v[1].flags & PMUSCOPE_VAL_LOST);
}

/* Polling mode: no interrupt enabled, folds every poll, exact. */
static void pmuscope_test_polling(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu;
	u64 total = 0, chunk = (1ULL << 31) - 1;
	int i;

	pmuscope_engine.mode = PMUSCOPE_FOLD_POLL;
	pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	pmuscope_etest_assign(pmu, 3, 0x11, ALL_EL);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	KUNIT_EXPECT_TRUE(test, pmuscope_pmu_needs_poll(pmu));
	KUNIT_EXPECT_EQ(test, t->m->inten, 0);
	for (i = 0; i < 21; i++) {
		pmuscope_model_count(t->cpu, 0x11, chunk);
		total += chunk;
		etest_poll(pmu, ktime_get_ns());
	}
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 3, NULL), total);
	KUNIT_EXPECT_EQ(test, pmu->overflows, total >> 32);
}

/* ------------------------------------------------------- the poll period */
struct pmuscope_period_case {
	u32 events_per_cycle, max_mhz, poll_ms;
	u64 safe_ns;		/* 2^31 events at that rate */
	int expect;
	u32 period_ms;		/* the period used, or the longest allowed */
};

static const struct pmuscope_period_case pmuscope_period_cases[] = {
	/* The defaults: 8 events per cycle at 4 GHz, 67 ms, polls of 33 ms. */
	{ 8, 4000, 0, 67108864, 0, 33 },
	{ 8, 4000, 33, 67108864, 0, 33 },
	{ 8, 4000, 1, 67108864, 0, 1 },
	{ 8, 4000, 34, 67108864, -EINVAL, 33 },
	{ 8, 4000, 100, 67108864, -EINVAL, 33 },	/* the old default */
	/* CPU_CYCLES at 3 GHz: the old rule, 715 ms. */
	{ 1, 3000, 0, 715827882, 0, 357 },
	/* AM62L: Cortex-A53 at 1.25 GHz, dual issue. */
	{ 2, 1250, 400, 858993459, 0, 400 },
	{ 2, 1250, 430, 858993459, -EINVAL, 429 },
	/* Slow enough that 1 s polls are safe: never above 1000 ms. */
	{ 1, 1000, 0, 2147483648ULL, 0, 1000 },
	{ 1, 1000, 1000, 2147483648ULL, 0, 1000 },
	{ 1, 1000, 1001, 2147483648ULL, -EINVAL, 1000 },
	{ 64, 10000, 0, 3355443, 0, 1 },
	/* No period is short enough; a rate of 0 is meaningless. */
	{ 1000, 10000, 0, 214748, -EINVAL, 0 },
	{ 0, 4000, 10, 0, -EINVAL, 0 },
	{ 8, 0, 10, 0, -EINVAL, 0 },
};

static void pmuscope_period_desc(const struct pmuscope_period_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%u events/cycle at %u MHz, poll_ms=%u",
		 c->events_per_cycle, c->max_mhz, c->poll_ms);
}

KUNIT_ARRAY_PARAM(pmuscope_period, pmuscope_period_cases, pmuscope_period_desc);

static void pmuscope_test_poll_period(struct kunit *test)
{
	const struct pmuscope_period_case *c = test->param_value;
	u32 period = 12345;

	KUNIT_EXPECT_EQ(test, pmuscope_fold_safe_ns(32, c->events_per_cycle, c->max_mhz),
			c->safe_ns);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_fold_safe_ns(64, c->events_per_cycle, c->max_mhz),
			    U64_MAX, "64-bit counters never wrap in practice");
	KUNIT_EXPECT_EQ(test, pmuscope_poll_period(c->poll_ms, c->events_per_cycle,
						   c->max_mhz, &period), c->expect);
	KUNIT_EXPECT_EQ(test, period, c->period_ms);
}

/*
 * A poll later than the safe period: a wrap may have been missed, the
 * value is flagged lost (and late_polls counts it) for a counter whose
 * wraps only the poll catches; never for one the interrupt folds, nor for
 * a 64-bit counter. A read past the deadline says so already.
 */
struct pmuscope_late_case {
	const char *name;
	enum pmuscope_fold_mode mode;
	bool throttled;
	unsigned int idx;
	bool flagged;
};

static const struct pmuscope_late_case pmuscope_late_cases[] = {
	{ "poll mode", PMUSCOPE_FOLD_POLL, false, 0, true },
	{ "interrupt mode: the interrupt folds", PMUSCOPE_FOLD_IRQ, false, 0, false },
	{ "interrupt mode, interrupt throttled", PMUSCOPE_FOLD_IRQ, true, 0, true },
	{ "poll mode, 64-bit cycle counter", PMUSCOPE_FOLD_POLL, false,
	  PMUSCOPE_CYCLE_IDX, false },
};

static void pmuscope_late_desc(const struct pmuscope_late_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_late, pmuscope_late_cases, pmuscope_late_desc);

static void pmuscope_test_late_poll(struct kunit *test)
{
	const struct pmuscope_late_case *c = test->param_value;
	const u64 safe = 67108864;	/* the default bound */
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_value v = { };
	struct pmuscope_pmu *pmu;
	unsigned long flags;
	u64 t0;

	pmuscope_engine.mode = c->mode;
	pmuscope_engine.fold_safe_ns = safe;
	pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	pmuscope_etest_assign(pmu, c->idx, 0x11, ALL_EL);
	pmu->hwc[c->idx].irq_off = c->throttled;
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	t0 = pmu->hwc[c->idx].poll_at;
	KUNIT_ASSERT_NE(test, t0, 0);

	/* Polls exactly at the deadline are in time. */
	pmuscope_model_count(t->cpu, 0x11, 1000);
	etest_poll(pmu, t0 + safe);
	pmuscope_model_count(t->cpu, 0x11, 1000);
	etest_poll(pmu, t0 + 2 * safe);
	KUNIT_EXPECT_EQ(test, pmu->hwc[c->idx].flags, 0);
	KUNIT_EXPECT_EQ(test, pmu->late_polls, 0);

	/* The next poll is overdue: a read says so before it comes. */
	pmuscope_model_count(t->cpu, 0x11, 1000);
	raw_spin_lock_irqsave(&pmu->lock, flags);
	pmuscope_hwc_read(pmu, c->idx, t0 + 3 * safe + 1, &v);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
	KUNIT_EXPECT_EQ(test, v.count, 3000);
	KUNIT_EXPECT_EQ_MSG(test, !!(v.flags & PMUSCOPE_VAL_LOST), c->flagged,
			    "read after the deadline, flags %#x", v.flags);
	/* Counted by the read that found it, not left to a poll to come. */
	KUNIT_EXPECT_EQ(test, pmu->late_polls, c->flagged ? 1 : 0);
	etest_poll(pmu, t0 + 4 * safe);
	KUNIT_EXPECT_EQ(test, pmu->late_polls, c->flagged ? 1 : 0);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, c->idx, &v.flags), 3000);
	KUNIT_EXPECT_EQ_MSG(test, !!(v.flags & PMUSCOPE_VAL_LOST), c->flagged,
			    "after the late poll, flags %#x", v.flags);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/* An absurd overflow rate: the counter's interrupt is throttled, flagged. */
static void pmuscope_test_storm(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu;
	u64 total = 0;
	u32 flags;
	int i;

	pmuscope_engine.storm_limit = 5;
	pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	pmuscope_etest_assign(pmu, 1, 0x11, ALL_EL);
	pmuscope_etest_assign(pmu, 2, 0x08, ALL_EL);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	for (i = 0; i < 10; i++) {
		pmuscope_model_count(t->cpu, 0x11, 1ULL << 32);
		total += 1ULL << 32;
		etest_overflow(pmu);
	}
	KUNIT_EXPECT_TRUE(test, pmu->hwc[1].irq_off);
	KUNIT_EXPECT_EQ_MSG(test, pmu->hot, BIT(2), "the storming counter still in pmu->hot");
	KUNIT_EXPECT_FALSE_MSG(test, t->m->inten & BIT(1),
			       "PMINTENSET bit of the storming counter still set");
	KUNIT_EXPECT_TRUE_MSG(test, t->m->inten & BIT(2),
			      "the quiet counter lost its interrupt");
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 1, &flags), total);
	KUNIT_EXPECT_TRUE(test, flags & PMUSCOPE_VAL_THROTTLED);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 2, &flags), 0);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_TRUE(test, pmuscope_pmu_needs_poll(pmu));
}

/*
 * pmu->hot through every change of a counter's state the engine makes:
 * after each step, the counters it holds (the folds' usual case) and, for
 * each counter, the bit against pmuscope_hwc_hot() of its state.
 */
struct pmuscope_hot_step {
	const char *name;
	void (*act)(struct pmuscope_etest *t);
	u32 expect;
};

#define ETEST_HOT_ALL	(BIT(0) | BIT(2) | BIT(PMUSCOPE_CYCLE_IDX))

static void etest_hot_locked(struct pmuscope_etest *t, unsigned int idx, int op)
{
	struct pmuscope_pmu *pmu = t->pmu;
	unsigned long flags;
	u64 now;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	now = ktime_get_ns();
	switch (op) {
	case 0:
		pmuscope_hwc_set_enabled(pmu, idx, false, now);
		break;
	case 1:
		pmuscope_hwc_set_enabled(pmu, idx, true, now);
		break;
	case 2:
		pmuscope_pmu_stop_mask(pmu, BIT(idx) | BIT(PMUSCOPE_CYCLE_IDX), now);
		break;
	case 3:
		pmuscope_pmu_start_mask(pmu, BIT(idx) | BIT(PMUSCOPE_CYCLE_IDX), now);
		break;
	case 4:
		pmuscope_hwc_set_sampling(pmu, idx, 1000, now);
		break;
	}
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
}

static void etest_hot_up(struct pmuscope_etest *t)
{
	pmuscope_etest_call(t->pmu, pmuscope_pmu_cpu_up);
}

static void etest_hot_down(struct pmuscope_etest *t)
{
	pmuscope_etest_call(t->pmu, pmuscope_pmu_cpu_down);
}

static void etest_hot_disable(struct pmuscope_etest *t)
{
	etest_hot_locked(t, 2, 0);
}

static void etest_hot_enable(struct pmuscope_etest *t)
{
	etest_hot_locked(t, 2, 1);
}

static void etest_hot_stop_mask(struct pmuscope_etest *t)
{
	etest_hot_locked(t, 0, 2);
}

static void etest_hot_start_mask(struct pmuscope_etest *t)
{
	etest_hot_locked(t, 0, 3);
}

static void etest_hot_pm_enter(struct pmuscope_etest *t)
{
	pmuscope_etest_call(t->pmu, pmuscope_pmu_pm_enter);
}

static void etest_hot_pm_exit(struct pmuscope_etest *t)
{
	pmuscope_model_power_loss(t->cpu);
	pmuscope_etest_call(t->pmu, pmuscope_pmu_pm_exit);
}

/* Counter 0 wraps more often than storm_limit allows: throttled. */
static void etest_hot_storm(struct pmuscope_etest *t)
{
	int i;

	pmuscope_engine.storm_limit = 5;
	for (i = 0; i < 10; i++) {
		pmuscope_model_count(t->cpu, 0x11, 1ULL << 32);
		etest_overflow(t->pmu);
	}
}

/* Sampling again: its interrupt back on. */
static void etest_hot_sample(struct pmuscope_etest *t)
{
	etest_hot_locked(t, 0, 4);
}

/* The PMU reset behind the driver's back, found by a read. */
static void etest_hot_lost(struct pmuscope_etest *t)
{
	pmuscope_model_power_loss(t->cpu);
	pmuscope_etest_read(t->pmu, 0, NULL);
}

/* Counter 2 switched off by someone else, put back by a read. */
static void etest_hot_foreign(struct pmuscope_etest *t)
{
	t->m->cnten &= ~BIT(2);
	pmuscope_etest_read(t->pmu, 2, NULL);
}

static const struct pmuscope_hot_step pmuscope_hot_steps[] = {
	{ "cpu up", etest_hot_up, ETEST_HOT_ALL },
	{ "counter 2 disabled", etest_hot_disable, BIT(0) | BIT(PMUSCOPE_CYCLE_IDX) },
	{ "counter 2 enabled", etest_hot_enable, ETEST_HOT_ALL },
	{ "counter 0 and cycles stopped together", etest_hot_stop_mask, BIT(2) },
	{ "... started together", etest_hot_start_mask, ETEST_HOT_ALL },
	{ "cpu_pm enter", etest_hot_pm_enter, 0 },
	{ "cpu_pm exit", etest_hot_pm_exit, ETEST_HOT_ALL },
	{ "counter 0 throttled", etest_hot_storm, BIT(2) | BIT(PMUSCOPE_CYCLE_IDX) },
	{ "counter 0 sampling", etest_hot_sample, ETEST_HOT_ALL },
	{ "PMU reset unannounced", etest_hot_lost, ETEST_HOT_ALL },
	{ "counter 2 switched off", etest_hot_foreign, ETEST_HOT_ALL },
	{ "cpu down", etest_hot_down, 0 },
	{ "cpu up again", etest_hot_up, ETEST_HOT_ALL },
};

static void pmuscope_test_hot(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	unsigned int i, n;

	pmuscope_etest_assign(pmu, 0, 0x11, ALL_EL);
	pmuscope_etest_assign(pmu, 2, 0x08, ALL_EL);
	pmuscope_etest_assign(pmu, PMUSCOPE_CYCLE_IDX, 0x11, ALL_EL);
	KUNIT_EXPECT_EQ(test, pmu->hot, 0);
	for (i = 0; i < ARRAY_SIZE(pmuscope_hot_steps); i++) {
		const struct pmuscope_hot_step *st = &pmuscope_hot_steps[i];

		st->act(t);
		KUNIT_EXPECT_EQ_MSG(test, pmu->hot, st->expect, "after %s", st->name);
		for (n = 0; n < PMUSCOPE_NR_COUNTERS; n++)
			KUNIT_EXPECT_EQ_MSG(test, !!(pmu->hot & BIT(n)),
					    pmuscope_hwc_hot(&pmu->hwc[n]),
					    "after %s: counter %u", st->name, n);
	}
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/* ----------------------------------------------------- hotplug and cpu_pm */
static void pmuscope_test_hotplug(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	const u8 idx[2] = { 0, 1 };
	struct pmuscope_value v = { }, vals[2];
	unsigned long irqf;
	u32 flags;

	pmuscope_etest_assign(pmu, 0, 0x11, ALL_EL);
	pmuscope_etest_assign(pmu, PMUSCOPE_CYCLE_IDX, 0x11, ALL_EL);
	/* Counter 1: a session that is not enabled. */
	pmuscope_etest_assign(pmu, 1, 0x11, ALL_EL);
	pmu->hwc[1].enabled = false;
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	pmuscope_model_count(t->cpu, 0x11, (1ULL << 32) + 7);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_down);
	KUNIT_EXPECT_FALSE(test, pmu->hw_ready);
	KUNIT_EXPECT_FALSE(test, t->m->pmcr & PMUSCOPE_PMCR_E);
	KUNIT_EXPECT_EQ(test, t->m->userenr, 0);

	/* Offline: the CPU and its PMU are gone; values frozen, flagged. */
	pmuscope_model_power_loss(t->cpu);
	pmuscope_model_count(t->cpu, 0x11, 1000);
	pmuscope_etest_value(pmu, 0, &v);
	KUNIT_EXPECT_EQ(test, v.count, (1ULL << 32) + 7);
	KUNIT_EXPECT_TRUE(test, v.flags & PMUSCOPE_VAL_OFFLINE);
	/* Whether the session is enabled or not (READ's path too). */
	pmuscope_etest_value(pmu, 1, &v);
	KUNIT_EXPECT_EQ(test, v.count, 0);
	KUNIT_EXPECT_TRUE_MSG(test, v.flags & PMUSCOPE_VAL_OFFLINE,
			      "disabled counter offline: flags %#x", v.flags);
	raw_spin_lock_irqsave(&pmu->lock, irqf);
	pmuscope_pmu_read(pmu, idx, 2, ktime_get_ns(), vals);
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
	KUNIT_EXPECT_TRUE_MSG(test, vals[0].flags & PMUSCOPE_VAL_OFFLINE,
			      "READ, enabled, offline: flags %#x", vals[0].flags);
	KUNIT_EXPECT_TRUE_MSG(test, vals[1].flags & PMUSCOPE_VAL_OFFLINE,
			      "READ, not enabled, offline: flags %#x", vals[1].flags);

	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	KUNIT_EXPECT_TRUE(test, t->m->pmcr & PMUSCOPE_PMCR_E);
	pmuscope_model_count(t->cpu, 0x11, 300);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, &flags), (1ULL << 32) + 307);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, PMUSCOPE_CYCLE_IDX, NULL),
			(1ULL << 32) + 307);
	pmuscope_etest_read(pmu, 1, &flags);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

static void pmuscope_test_cpu_pm(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	struct pmuscope_value a = { }, b = { };
	u32 flags;

	pmuscope_etest_assign(pmu, 4, 0x08, ALL_EL);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	pmuscope_model_count(t->cpu, 0x08, 0xfffffff0);
	pmuscope_etest_value(pmu, 4, &a);
	pmuscope_etest_call(pmu, pmuscope_pmu_pm_enter);
	pmuscope_model_power_loss(t->cpu);	/* the PMU was powered down */
	pmuscope_etest_call(pmu, pmuscope_pmu_pm_exit);
	KUNIT_EXPECT_EQ(test, t->m->evtyper[4], pmuscope_evtyper(0x08, ALL_EL));
	KUNIT_EXPECT_TRUE(test, t->m->cnten & BIT(4));
	KUNIT_EXPECT_TRUE(test, t->m->inten & BIT(4));
	pmuscope_model_count(t->cpu, 0x08, 0x20);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 4, &flags), 0x100000010ULL);
	KUNIT_EXPECT_EQ(test, flags, 0);
	pmuscope_etest_value(pmu, 4, &b);
	KUNIT_EXPECT_GT_MSG(test, b.time_running, a.time_running,
			    "time stopped across idle");
	KUNIT_EXPECT_EQ(test, b.time_enabled, b.time_running);
}

/* A PMU reset nobody announced: counts kept from the last fold, flagged. */
static void pmuscope_test_lost(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	u32 flags;

	pmuscope_etest_assign(pmu, 0, 0x11, ALL_EL);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	pmuscope_model_count(t->cpu, 0x11, 500);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, &flags), 500);
	pmuscope_model_power_loss(t->cpu);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, &flags), 500);
	KUNIT_EXPECT_TRUE(test, flags & PMUSCOPE_VAL_LOST);
	KUNIT_EXPECT_EQ_MSG(test, t->m->userenr, 0, "EL0 access left as the reset found it");
	KUNIT_EXPECT_EQ(test, t->m->ovs, 0);
	pmuscope_model_count(t->cpu, 0x11, 25);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_etest_read(pmu, 0, NULL), 525,
			    "counter not put back after the reset");
}

/*
 * What another agent (or a power state nobody announced) can do to the PMU
 * behind the driver's back, each met as the driver says: an interrupt
 * without an overflow, a stale flag of a counter that is not ours, the
 * 64-bit cycle counter flagged as overflowed or written lower, a counter
 * switched off while PMCR_EL0.E stays on.
 */
static void pmuscope_test_foreign(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	u64 spurious, before;
	u32 flags;

	pmuscope_etest_assign(pmu, 0, 0x11, ALL_EL);
	pmuscope_etest_assign(pmu, PMUSCOPE_CYCLE_IDX, 0x11, ALL_EL);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	spurious = pmu->spurious;

	KUNIT_EXPECT_FALSE_MSG(test, etest_overflow(pmu), "no overflow flag: not ours");
	KUNIT_EXPECT_EQ(test, pmu->spurious, spurious + 1);

	t->m->ovs |= BIT(3);		/* counter 3: nobody's */
	etest_overflow(pmu);
	KUNIT_EXPECT_EQ_MSG(test, t->m->ovs & BIT(3), 0, "stale flag cleared");
	KUNIT_EXPECT_EQ(test, pmu->spurious, spurious + 2);

	t->m->ovs |= BIT(PMUSCOPE_CYCLE_IDX);	/* 64 bits cannot wrap: written */
	etest_overflow(pmu);
	KUNIT_EXPECT_EQ(test, t->m->ovs & BIT(PMUSCOPE_CYCLE_IDX), 0);
	pmuscope_etest_read(pmu, PMUSCOPE_CYCLE_IDX, &flags);
	KUNIT_EXPECT_TRUE(test, flags & PMUSCOPE_VAL_CLOBBERED);

	pmuscope_model_count(t->cpu, 0x11, 1000);
	before = pmuscope_etest_read(pmu, PMUSCOPE_CYCLE_IDX, NULL);
	t->m->ccnt = 10;		/* written lower */
	pmuscope_model_count(t->cpu, 0x11, 5);
	/* What it counted since the write cannot be known: flagged lost. */
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_etest_read(pmu, PMUSCOPE_CYCLE_IDX, &flags), before,
			    "the count resumes from the last value seen");
	KUNIT_EXPECT_TRUE(test, flags & PMUSCOPE_VAL_LOST);
	pmuscope_model_count(t->cpu, 0x11, 5);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, PMUSCOPE_CYCLE_IDX, NULL), before + 5);

	before = pmuscope_etest_read(pmu, 0, NULL);
	t->m->cnten &= ~BIT(0);		/* counter 0 off, PMCR_EL0.E still on */
	pmuscope_model_count(t->cpu, 0x11, 7);	/* not counted: it is off */
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, &flags), before);
	KUNIT_EXPECT_TRUE(test, flags & PMUSCOPE_VAL_LOST);
	KUNIT_EXPECT_TRUE_MSG(test, t->m->cnten & BIT(0), "counter 0 put back");
	pmuscope_model_count(t->cpu, 0x11, 3);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), before + 3);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * A counter someone else wrote lower while it counts: QEMU's TCG without
 * -icount does it to every running counter when its PMU timer runs in
 * the window of an exception return (see Documentation/testing.rst), a
 * debugger or firmware can do it on silicon. Whatever reads the counter
 * next, READ, a stream record's snapshot or the poll, the count resumes
 * from the last value seen, flagged LOST (what it counted since the
 * write cannot be known), and is exact again from there: on a 32-bit
 * counter as on a 64-bit one. Without the test a 32-bit count went
 * down by what the counter lost.
 */
enum pmuscope_lower_path { LOWER_READ, LOWER_RECORD, LOWER_POLL };

struct pmuscope_lower_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	unsigned int idx;
	enum pmuscope_lower_path path;
};

static const struct pmuscope_lower_case pmuscope_lower_cases[] = {
	{ "cortex-a53: 32-bit counter, READ", &pmuscope_model_cortex_a53, 0, LOWER_READ },
	{ "cortex-a53: 32-bit counter, record", &pmuscope_model_cortex_a53, 0, LOWER_RECORD },
	{ "cortex-a53: 32-bit counter, poll", &pmuscope_model_cortex_a53, 0, LOWER_POLL },
	{ "cortex-a53: cycle counter, READ", &pmuscope_model_cortex_a53,
	  PMUSCOPE_CYCLE_IDX, LOWER_READ },
	{ "cortex-a53: cycle counter, record", &pmuscope_model_cortex_a53,
	  PMUSCOPE_CYCLE_IDX, LOWER_RECORD },
	{ "v9.4-like: 64-bit counter, READ", &pmuscope_model_v94, 0, LOWER_READ },
	{ "v9.4-like: 64-bit counter, record", &pmuscope_model_v94, 0, LOWER_RECORD },
};

static void pmuscope_lower_desc(const struct pmuscope_lower_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pmuscope_lower, pmuscope_lower_cases, pmuscope_lower_desc);

static u64 etest_read_by(struct pmuscope_pmu *pmu, const struct pmuscope_lower_case *c,
			 u32 *flags)
{
	struct pmuscope_value v = { };
	struct pmuscope_snap_cpu sc;
	unsigned long irqf;
	u8 idx = c->idx;

	raw_spin_lock_irqsave(&pmu->lock, irqf);
	switch (c->path) {
	case LOWER_READ:
		pmuscope_pmu_read(pmu, &idx, 1, ktime_get_ns(), &v);
		break;
	case LOWER_RECORD:
		pmuscope_pmu_snapshot(pmu, &idx, 1, BIT(idx), 0, 0, ktime_get_ns(), &v, &sc);
		break;
	case LOWER_POLL:
		pmuscope_pmu_poll_locked(pmu, ktime_get_ns());
		pmuscope_hwc_read(pmu, idx, ktime_get_ns(), &v);
		break;
	}
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
	*flags = v.flags;
	return v.count;
}

static void pmuscope_test_written_lower(struct kunit *test)
{
	const struct pmuscope_lower_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, c->prof);
	u32 flags;

	pmuscope_etest_assign(pmu, c->idx, 0x11, ALL_EL);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	pmuscope_model_count(t->cpu, 0x11, 1000);
	KUNIT_EXPECT_EQ(test, etest_read_by(pmu, c, &flags), 1000);
	KUNIT_EXPECT_EQ(test, flags, 0);
	pmuscope_model_write_cpu(t->cpu, c->idx == PMUSCOPE_CYCLE_IDX ?
				 PMUSCOPE_REG_PMCCNTR_EL0 : PMUSCOPE_REG_PMEVCNTR(c->idx), 10);
	pmuscope_model_count(t->cpu, 0x11, 5);
	KUNIT_EXPECT_EQ_MSG(test, etest_read_by(pmu, c, &flags), 1000,
			    "the count resumes from the last value seen");
	KUNIT_EXPECT_EQ(test, flags, PMUSCOPE_VAL_LOST);
	KUNIT_EXPECT_EQ(test, pmu->resyncs, 1);
	pmuscope_model_count(t->cpu, 0x11, 5);
	KUNIT_EXPECT_EQ(test, etest_read_by(pmu, c, &flags), 1005);
	/* Below its last fold with no wrap pending only once. */
	KUNIT_EXPECT_EQ(test, pmu->resyncs, 1);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/* ------------------------------------------------- validation, placement */
struct pmuscope_check_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	struct pmuscope_event ev;
	int expect;
};

static const struct pmuscope_check_case pmuscope_check_cases[] = {
	{ "CPU_CYCLES", &pmuscope_model_cortex_a53, { 0x11, UK }, 0 },
	{ "unknown flag", &pmuscope_model_cortex_a53, { 0x11, UK | BIT(9) }, -EINVAL },
	{ "no exception level", &pmuscope_model_cortex_a53, { 0x11, 0 }, -EINVAL },
	{ "reserved set", &pmuscope_model_cortex_a53, { 0x11, UK, 1 }, -EINVAL },
	{ "CHAIN", &pmuscope_model_cortex_a53, { 0x1e, UK }, -EINVAL },
	{ "CHAIN raw", &pmuscope_model_cortex_a53, { 0x1e, UK | PMUSCOPE_EV_RAW }, -EINVAL },
	{ "above 16 bits", &pmuscope_model_v94, { 0x10000, UK }, -EINVAL },
	{ "BR_RETURN_RETIRED not on A53", &pmuscope_model_cortex_a53, { 0x0e, UK }, -EOPNOTSUPP },
	{ "INST_SPEC not on A53", &pmuscope_model_cortex_a53, { 0x1b, UK }, -EOPNOTSUPP },
	{ "IMPDEF 0xc0 without raw", &pmuscope_model_cortex_a53, { 0xc0, UK }, -EOPNOTSUPP },
	{ "IMPDEF 0xc0 raw", &pmuscope_model_cortex_a53, { 0xc0, UK | PMUSCOPE_EV_RAW }, 0 },
	{ "raw 0x400 on PMUv3 (10-bit)", &pmuscope_model_cortex_a53,
	  { 0x400, UK | PMUSCOPE_EV_RAW }, -EOPNOTSUPP },
	{ "raw 0x400 on PMUv3p1", &pmuscope_model_neoverse_n1, { 0x400, UK | PMUSCOPE_EV_RAW }, 0 },
	{ "SAMPLE_POP on N1", &pmuscope_model_neoverse_n1, { 0x4000, UK }, 0 },
	{ "0x4006 not on N1", &pmuscope_model_neoverse_n1, { 0x4006, UK }, -EOPNOTSUPP },
	{ "EL2 only", &pmuscope_model_v94, { 0x11, PMUSCOPE_EV_EL2 }, 0 },
	{ "no PMU", &pmuscope_model_no_pmu, { 0x11, UK }, -ENODEV },
};

static void pmuscope_check_desc(const struct pmuscope_check_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_check, pmuscope_check_cases, pmuscope_check_desc);

static void pmuscope_test_event_check(struct kunit *test)
{
	const struct pmuscope_check_case *c = test->param_value;
	struct pmuscope_cpu_caps *caps = kunit_kzalloc(test, sizeof(*caps), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, caps);
	pmuscope_model_reset_all(c->prof);
	pmuscope_probe_local(PMUSCOPE_ALL_UNITS, caps);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_event_check(caps, &c->ev), c->expect,
			    "%s: event 0x%x flags 0x%x", c->name, c->ev.event, c->ev.flags);
}

struct pmuscope_place_case {
	const char *name;
	u32 free;
	u32 nr;
	u16 events[8];
	int expect;
	u8 idx[8];
};

#define CC	PMUSCOPE_CYCLE_IDX
#define FREE	(BIT(CC) | 0x3f)

static const struct pmuscope_place_case pmuscope_place_cases[] = {
	{ "cycles on the cycle counter", FREE, 2, { 0x11, 0x08 }, 0, { CC, 0 } },
	{ "two CPU_CYCLES: one on an event counter", FREE, 2, { 0x11, 0x11 }, 0, { CC, 0 } },
	{ "cycle counter taken", 0x3f, 2, { 0x11, 0x08 }, 0, { 0, 1 } },
	{ "lowest free counters", BIT(CC) | 0x2a, 3, { 0x08, 0x00, 0x03 }, 0, { 1, 3, 5 } },
	{ "all 7 counters", FREE, 7, { 0, 0, 0, 0, 0, 0x11, 0 }, 0, { 0, 1, 2, 3, 4, CC, 5 } },
	{ "7 non-cycle events on 6 counters", FREE, 7, { 0 }, -ENOSPC },
	{ "fits the CPU, not the free counters", BIT(CC) | 0x3, 3, { 0, 0, 0 }, -EBUSY },
	{ "nothing free", 0, 1, { 0x11 }, -EBUSY },
};

static void pmuscope_place_desc(const struct pmuscope_place_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_place, pmuscope_place_cases, pmuscope_place_desc);

static void pmuscope_test_place(struct kunit *test)
{
	const struct pmuscope_place_case *c = test->param_value;
	struct pmuscope_cpu_caps *caps = kunit_kzalloc(test, sizeof(*caps), GFP_KERNEL);
	struct pmuscope_sess_event evs[8] = { };
	u8 idx[8];
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, caps);
	pmuscope_model_reset_all(&pmuscope_model_cortex_a53);
	pmuscope_probe_local(PMUSCOPE_ALL_UNITS, caps);
	for (i = 0; i < c->nr; i++)
		evs[i].event = c->events[i];
	KUNIT_ASSERT_EQ(test, pmuscope_place_events(caps, c->free, evs, c->nr, idx),
			c->expect);
	for (i = 0; !c->expect && i < c->nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, idx[i], c->idx[i], "%s: event %u", c->name, i);
}

static struct kunit_case pmuscope_engine_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_program_order, pmuscope_order_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_barriers, pmuscope_barrier_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_filters, pmuscope_filter_gen_params),
	KUNIT_CASE(pmuscope_test_irq_folds),
	KUNIT_CASE_PARAM(pmuscope_test_wrap_race, pmuscope_race_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_wrap_race_batch, pmuscope_race_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_wrap_race_batch_lost, pmuscope_race_gen_params),
	KUNIT_CASE(pmuscope_test_clock),
	KUNIT_CASE(pmuscope_test_polling),
	KUNIT_CASE_PARAM(pmuscope_test_poll_period, pmuscope_period_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_late_poll, pmuscope_late_gen_params),
	KUNIT_CASE(pmuscope_test_storm),
	KUNIT_CASE(pmuscope_test_hot),
	KUNIT_CASE(pmuscope_test_hotplug),
	KUNIT_CASE(pmuscope_test_cpu_pm),
	KUNIT_CASE(pmuscope_test_lost),
	KUNIT_CASE(pmuscope_test_foreign),
	KUNIT_CASE_PARAM(pmuscope_test_written_lower, pmuscope_lower_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_event_check, pmuscope_check_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_place, pmuscope_place_gen_params),
	{}
};

static struct kunit_suite pmuscope_engine_suite = {
	.name = "pmuscope_engine",
	.init = pmuscope_etest_init,
	.exit = pmuscope_etest_exit,
	.test_cases = pmuscope_engine_cases,
};

kunit_test_suites(&pmuscope_engine_suite);
