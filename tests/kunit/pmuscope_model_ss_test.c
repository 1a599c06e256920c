// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the register model's PMU snapshot (FEAT_PMUv3_SS) and fixed
 * instruction counter (FEAT_PMUv3_ICNTR) rules, one case per rule, each
 * checked against the Arm ARM (DDI 0487 M.a.a) section or pseudocode it
 * follows. The model is driven through the driver's path (register reads
 * and writes, the ISB of the seam) and the unit's test controls.
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/cpumask.h>
#include <linux/sched.h>

#include "pmuscope_model.h"

/* The model CPU of the running case: the one the test thread is bound to. */
static unsigned int pmuscope_ss_test_cpu;

/* Profiles derived from the v9.4-like one (set up by the init function). */
static struct pmuscope_model_profile pmuscope_ss_test_ss_ebep;	/* + FEAT_EBEP */
static struct pmuscope_model_profile pmuscope_ss_test_ebep_only;	/* EBEP, no SS */
static struct pmuscope_model_profile pmuscope_ss_test_null_ss;	/* .ss = NULL */

static int pmuscope_ss_test_init(struct kunit *test)
{
	unsigned int cpu = raw_smp_processor_id();

	/* The registers are per CPU and an ISB reaches the caller's: stay on one. */
	set_cpus_allowed_ptr(current, cpumask_of(cpu));
	pmuscope_ss_test_cpu = cpu;

	pmuscope_ss_test_ss_ebep = pmuscope_model_v94;
	pmuscope_ss_test_ss_ebep.name = "v9.4-like+EBEP";
	pmuscope_ss_test_ss_ebep.dfr1 |= FIELD_PREP(PMUSCOPE_DFR1_EBEP, 1);
	pmuscope_ss_test_ebep_only = pmuscope_ss_test_ss_ebep;
	pmuscope_ss_test_ebep_only.name = "v9.4-like+EBEP-SS";
	pmuscope_ss_test_ebep_only.dfr0 &= ~PMUSCOPE_DFR0_PMSS;
	pmuscope_ss_test_null_ss = pmuscope_model_v94;
	pmuscope_ss_test_null_ss.name = "v9.4-like, no ss profile";
	pmuscope_ss_test_null_ss.ss = NULL;
	return 0;
}

static u64 pmuscope_ss_test_rd(enum pmuscope_reg reg)
{
	return pmuscope_model_read_cpu(pmuscope_ss_test_cpu, reg);
}

static void pmuscope_ss_test_wr(enum pmuscope_reg reg, u64 val)
{
	pmuscope_model_write_cpu(pmuscope_ss_test_cpu, reg, val);
}

static void pmuscope_ss_test_isb(void)
{
	pmuscope_model_barrier(PMUSCOPE_BARRIER_ISB);
}

static struct pmuscope_model_cpu *pmuscope_ss_test_m(void)
{
	return pmuscope_model_get(pmuscope_ss_test_cpu);
}

static void pmuscope_ss_test_reset(const struct pmuscope_model_profile *prof)
{
	pmuscope_model_reset(pmuscope_ss_test_cpu, prof);
}

/* PMECR_EL1.SSE = @sse (capture as EL1 asks, when firmware lets EL1 decide). */
static void pmuscope_ss_test_sse(unsigned int sse)
{
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMECR_EL1, FIELD_PREP(PMUSCOPE_PMECR_SSE, sse));
}

/* Poll PMSSCR_EL1 until SS reads 0 (at most @max reads): reads that saw SS = 1. */
static unsigned int pmuscope_ss_test_poll(u64 *pmsscr, unsigned int max)
{
	unsigned int busy = 0;
	u64 v;

	for (;;) {
		v = pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1);
		if (!FIELD_GET(PMUSCOPE_PMSSCR_SS, v) || busy == max)
			break;
		busy++;
	}
	*pmsscr = v;
	return busy;
}

/* The driver's sequence (Arm ARM Example D13-8): request, poll, ISB. */
static u64 pmuscope_ss_test_capture(void)
{
	u64 v;

	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	pmuscope_ss_test_poll(&v, 1000);
	pmuscope_ss_test_isb();
	return v;
}

/* Distinct values in every counter a capture copies, each + @base. */
static void pmuscope_ss_test_load(unsigned int n, u64 base)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		pmuscope_ss_test_wr(PMUSCOPE_REG_PMEVCNTR(i), base + 0x100 + i);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCCNTR_EL0, base + 0x200);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMICNTR_EL0, base + 0x300);
}

static const char *pmuscope_ss_test_state_name(enum pmuscope_model_ss_capture st)
{
	switch (st) {
	case PMUSCOPE_MODEL_SS_DISABLED:
		return "disabled";
	case PMUSCOPE_MODEL_SS_PROHIBITED:
		return "prohibited";
	default:
		return "allowed";
	}
}

/* ------------------------------------------- Table D13-10: capture states */

#define PMUSCOPE_SS_TEST_ANY	0xff	/* "xx" in the table: every value */

struct pmuscope_ss_table_case {
	u8 el3, el2, sse;	/* MDCR_EL3.PMSSE, MDCR_EL2.PMSSE, PMECR_EL1.SSE */
	enum pmuscope_model_ss_capture expect;
};

/* Arm ARM D13.9, Table D13-10 "PMU Capture events", row by row. */
static const struct pmuscope_ss_table_case pmuscope_ss_table_cases[] = {
	{ 0, PMUSCOPE_SS_TEST_ANY, PMUSCOPE_SS_TEST_ANY, PMUSCOPE_MODEL_SS_DISABLED },
	{ 1, 0, PMUSCOPE_SS_TEST_ANY, PMUSCOPE_MODEL_SS_DISABLED },
	{ 1, 1, 0, PMUSCOPE_MODEL_SS_DISABLED },
	{ 1, 1, 2, PMUSCOPE_MODEL_SS_PROHIBITED },
	{ 1, 1, 3, PMUSCOPE_MODEL_SS_ALLOWED },
	{ 1, 2, PMUSCOPE_SS_TEST_ANY, PMUSCOPE_MODEL_SS_PROHIBITED },
	{ 1, 3, PMUSCOPE_SS_TEST_ANY, PMUSCOPE_MODEL_SS_ALLOWED },
	{ 2, PMUSCOPE_SS_TEST_ANY, PMUSCOPE_SS_TEST_ANY, PMUSCOPE_MODEL_SS_PROHIBITED },
	{ 3, PMUSCOPE_SS_TEST_ANY, PMUSCOPE_SS_TEST_ANY, PMUSCOPE_MODEL_SS_ALLOWED },
};

static void pmuscope_ss_test_field(char *buf, size_t len, u8 v)
{
	if (v == PMUSCOPE_SS_TEST_ANY)
		snprintf(buf, len, "xx");
	else
		snprintf(buf, len, "0b%u%u", (v >> 1) & 1, v & 1);
}

static void pmuscope_ss_table_desc(const struct pmuscope_ss_table_case *c, char *d)
{
	char e3[8], e2[8], sse[8];

	pmuscope_ss_test_field(e3, sizeof(e3), c->el3);
	pmuscope_ss_test_field(e2, sizeof(e2), c->el2);
	pmuscope_ss_test_field(sse, sizeof(sse), c->sse);
	snprintf(d, KUNIT_PARAM_DESC_SIZE,
		 "D13-10 MDCR_EL3.PMSSE=%s MDCR_EL2.PMSSE=%s PMECR_EL1.SSE=%s: %s",
		 e3, e2, sse, pmuscope_ss_test_state_name(c->expect));
}

KUNIT_ARRAY_PARAM(pmuscope_ss_table, pmuscope_ss_table_cases, pmuscope_ss_table_desc);

/*
 * One combination. A first capture (firmware allowing it) leaves NC = 0
 * and known SVRs; then the controls change and a second capture is
 * requested. D13.9 RMFJWS: disabled ignores the write of SS, NC keeps its
 * value (0). Prohibited: SS reads 1 until the event completes, then
 * {NC, SS} = {1, 0} and the SVRs are unchanged. Allowed: {0, 0} and the
 * SVRs hold the new counts.
 */
static void pmuscope_ss_test_one_combo(struct kunit *test, u8 el3, u8 el2, u8 sse,
				       enum pmuscope_model_ss_capture expect)
{
	unsigned int cpu = pmuscope_ss_test_cpu;
	struct pmuscope_model_cpu *m;
	u64 first, second, svr;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_model_ss_set_delay(cpu, 1);
	pmuscope_model_ss_set_firmware(cpu, PMUSCOPE_PMSSE_ALLOWED, 0, true, true);
	pmuscope_ss_test_load(m->n, 0);
	pmuscope_ss_test_capture();
	KUNIT_ASSERT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1), 0);

	pmuscope_model_ss_set_firmware(cpu, el3, el2, true, true);
	pmuscope_ss_test_sse(sse);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_model_ss_capture_state(cpu), expect,
			    "EL3 %u EL2 %u SSE %u", el3, el2, sse);
	pmuscope_ss_test_load(m->n, 0x10000);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	first = pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1);
	second = pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1);
	pmuscope_ss_test_isb();
	svr = pmuscope_ss_test_rd(PMUSCOPE_REG_PMCCNTSVR_EL1);

	switch (expect) {
	case PMUSCOPE_MODEL_SS_DISABLED:
		KUNIT_EXPECT_EQ_MSG(test, first, 0ULL, "EL3 %u EL2 %u SSE %u: write ignored",
				    el3, el2, sse);
		KUNIT_EXPECT_EQ_MSG(test, svr, 0x200ULL, "EL3 %u EL2 %u SSE %u", el3, el2, sse);
		break;
	case PMUSCOPE_MODEL_SS_PROHIBITED:
		KUNIT_EXPECT_EQ_MSG(test, first, PMUSCOPE_PMSSCR_SS,
				    "EL3 %u EL2 %u SSE %u: pending, NC kept", el3, el2, sse);
		KUNIT_EXPECT_EQ_MSG(test, second, PMUSCOPE_PMSSCR_NC,
				    "EL3 %u EL2 %u SSE %u: {NC,SS}={1,0}", el3, el2, sse);
		KUNIT_EXPECT_EQ_MSG(test, svr, 0x200ULL, "EL3 %u EL2 %u SSE %u: SVR unchanged",
				    el3, el2, sse);
		break;
	case PMUSCOPE_MODEL_SS_ALLOWED:
		KUNIT_EXPECT_EQ_MSG(test, first, PMUSCOPE_PMSSCR_SS,
				    "EL3 %u EL2 %u SSE %u: pending", el3, el2, sse);
		KUNIT_EXPECT_EQ_MSG(test, second, 0ULL, "EL3 %u EL2 %u SSE %u: {NC,SS}={0,0}",
				    el3, el2, sse);
		KUNIT_EXPECT_EQ_MSG(test, svr, 0x10200ULL, "EL3 %u EL2 %u SSE %u: captured",
				    el3, el2, sse);
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, m->violations, 0U, "EL3 %u EL2 %u SSE %u", el3, el2, sse);
}

static void pmuscope_ss_test_capture_table(struct kunit *test)
{
	static const u8 all2[] = { 0, 1, 2, 3 };
	static const u8 sses[] = { 0, 2, 3 };	/* 0b01 is reserved: see below */
	const struct pmuscope_ss_table_case *c = test->param_value;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(all2); i++) {
		if (c->el2 != PMUSCOPE_SS_TEST_ANY && c->el2 != all2[i])
			continue;
		for (j = 0; j < ARRAY_SIZE(sses); j++) {
			if (c->sse != PMUSCOPE_SS_TEST_ANY && c->sse != sses[j])
				continue;
			pmuscope_ss_test_one_combo(test, c->el3, all2[i], sses[j], c->expect);
		}
	}
}

/*
 * PMECR_EL1.SSE = 0b01 is reserved (D24.5.9); pseudocode
 * PMUCaptureEventEnabled() constrains it to Constraint_DISABLED or an
 * UNKNOWN allocated value: the model takes disabled, and writing it is a
 * driver bug (K1.2.19), a violation.
 */
static void pmuscope_ss_test_reserved_sse(struct kunit *test)
{
	unsigned int cpu = pmuscope_ss_test_cpu;
	struct pmuscope_model_cpu *m;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_LOWER);
	KUNIT_EXPECT_EQ(test, m->violations, 1U);
	KUNIT_EXPECT_EQ(test, m->first_violation.reg, PMUSCOPE_REG_PMECR_EL1);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_capture_state(cpu), PMUSCOPE_MODEL_SS_DISABLED);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1), PMUSCOPE_PMSSCR_NC);
	KUNIT_EXPECT_EQ(test, m->ss.requests, 0U);
}

/* ------------------------------------------------------------ PMSSCR_EL1 */

/*
 * D24.5.23 PMSSCR_EL1: NC resets to 1, SS to 0; the snapshot registers
 * reset to UNKNOWN values (D24.5.3, D24.5.11, D24.5.16): the model's
 * poison. NC is RO: writing it changes nothing.
 */
static void pmuscope_ss_test_reset_values(struct kunit *test)
{
	struct pmuscope_model_cpu *m;
	unsigned int i;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1), PMUSCOPE_PMSSCR_NC);
	for (i = 0; i < m->n; i++)
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMEVCNTSVR(i)),
				    PMUSCOPE_MODEL_SS_POISON, "PMEVCNTSVR%u_EL1", i);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMCCNTSVR_EL1),
			PMUSCOPE_MODEL_SS_POISON);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICNTSVR_EL1),
			PMUSCOPE_MODEL_SS_POISON);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMECR_EL1), 0ULL);

	/* NC is RO, with capture allowed as without. */
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, 0);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1), PMUSCOPE_PMSSCR_NC);
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, 0);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1), PMUSCOPE_PMSSCR_NC);
	pmuscope_ss_test_capture();
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_NC);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1), 0ULL);
	KUNIT_EXPECT_EQ(test, m->ss.requests, 1U);
	KUNIT_EXPECT_EQ(test, m->violations, 0U);
}

/*
 * D24.5.23 SS: "A write of 0 to this field is ignored" (it neither
 * requests nor cancels a capture); writing it while a Capture event is
 * ongoing makes it CONSTRAINED UNPREDICTABLE whether the event completes:
 * the model flags the write of 1 as a violation and lets the ongoing
 * event carry on with its own delay.
 */
static void pmuscope_ss_test_ss_writes(struct kunit *test)
{
	unsigned int cpu = pmuscope_ss_test_cpu;
	struct pmuscope_model_cpu *m;
	u64 v;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_model_ss_set_delay(cpu, 3);
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);

	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, 0);
	KUNIT_EXPECT_EQ(test, m->ss.requests, 0U);

	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1),
			PMUSCOPE_PMSSCR_NC | PMUSCOPE_PMSSCR_SS);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, 0);	/* does not cancel */
	KUNIT_EXPECT_EQ(test, m->violations, 0U);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	KUNIT_EXPECT_EQ(test, m->violations, 1U);
	KUNIT_EXPECT_EQ(test, m->first_violation.reg, PMUSCOPE_REG_PMSSCR_EL1);
	KUNIT_EXPECT_TRUE(test, m->first_violation.write);
	/* 3 polls in all see SS = 1, as if neither write had happened. */
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_poll(&v, 100), 2U);
	KUNIT_EXPECT_EQ(test, v, 0ULL);
	KUNIT_EXPECT_EQ(test, m->ss.requests, 1U);
	KUNIT_EXPECT_EQ(test, m->ss.captures, 1U);
}

/* ------------------------------------------------------ capture timing */

struct pmuscope_ss_delay_case {
	u32 delay;
	unsigned int expect_busy;	/* polls that see SS = 1 (of at most 200) */
};

static const struct pmuscope_ss_delay_case pmuscope_ss_delay_cases[] = {
	{ 0, 0 }, { 1, 1 }, { 5, 5 }, { 150, 150 }, { PMUSCOPE_MODEL_SS_NEVER, 200 },
};

static void pmuscope_ss_delay_desc(const struct pmuscope_ss_delay_case *c, char *d)
{
	if (c->delay == PMUSCOPE_MODEL_SS_NEVER)
		snprintf(d, KUNIT_PARAM_DESC_SIZE, "delay never");
	else
		snprintf(d, KUNIT_PARAM_DESC_SIZE, "delay %u polls", c->delay);
}

KUNIT_ARRAY_PARAM(pmuscope_ss_delay, pmuscope_ss_delay_cases, pmuscope_ss_delay_desc);

/*
 * Capture completes asynchronously (D13.9: PMSSCR_EL1.{NC, SS} = {0, 0}
 * "after these writes are completed"; D24.5.23 SS reads 1 until then). The
 * model's delay: that many reads see SS = 1 (NC keeps its value, 1 here);
 * "never": no completion, ever.
 */
static void pmuscope_ss_test_delay(struct kunit *test)
{
	const struct pmuscope_ss_delay_case *c = test->param_value;
	unsigned int cpu = pmuscope_ss_test_cpu;
	struct pmuscope_model_cpu *m;
	unsigned int busy;
	u64 v;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_model_ss_set_delay(cpu, c->delay);
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	busy = pmuscope_ss_test_poll(&v, 200);
	KUNIT_EXPECT_EQ_MSG(test, busy, c->expect_busy, "delay %u", c->delay);
	if (c->delay == PMUSCOPE_MODEL_SS_NEVER) {
		KUNIT_EXPECT_EQ(test, v, PMUSCOPE_PMSSCR_NC | PMUSCOPE_PMSSCR_SS);
		KUNIT_EXPECT_EQ(test, m->ss.captures, 0U);
	} else {
		KUNIT_EXPECT_EQ_MSG(test, v, 0ULL, "delay %u", c->delay);
		KUNIT_EXPECT_EQ(test, m->ss.captures, 1U);
	}
	KUNIT_EXPECT_EQ(test, m->violations, 0U);
}

/*
 * D13.9 and pseudocode PMUCaptureEvent(): every counter is copied when the
 * Capture event completes, at one instant: counts before the completing
 * poll (including one right before it) are in the SVRs, counts after are
 * not, and PMEVCNTR, PMCCNTR and PMICNTR agree. The PMU_SNAPSHOT event
 * (0x8127) is generated after the copy, so its counter's SVR misses it.
 */
static void pmuscope_ss_test_instant(struct kunit *test)
{
	unsigned int cpu = pmuscope_ss_test_cpu;
	struct pmuscope_model_cpu *m;
	u64 v;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_model_ss_set_delay(cpu, 2);
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMEVTYPER(0), 0x08);	/* INST_RETIRED */
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMEVTYPER(1), 0x11);	/* CPU_CYCLES */
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMEVTYPER(2), PMUSCOPE_EVENT_PMU_SNAPSHOT);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCNTENSET_EL0, BIT(0) | BIT(1) | BIT(2) |
			    PMUSCOPE_CNT_CYCLE | PMUSCOPE_CNT_ICNTR);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E);

	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	pmuscope_model_count(cpu, 0x08, 5);
	pmuscope_model_count(cpu, 0x11, 50);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1),
			PMUSCOPE_PMSSCR_NC | PMUSCOPE_PMSSCR_SS);
	pmuscope_model_count(cpu, 0x08, 7);
	pmuscope_model_count(cpu, 0x11, 70);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1),
			PMUSCOPE_PMSSCR_NC | PMUSCOPE_PMSSCR_SS);
	/* Right before the poll that completes the capture: in it. */
	pmuscope_model_inject(cpu, PMUSCOPE_REG_PMSSCR_EL1, 0x08, 11);
	v = pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1);
	KUNIT_EXPECT_EQ(test, v, 0ULL);
	/* After completion: not in it. */
	pmuscope_model_count(cpu, 0x08, 13);
	pmuscope_model_count(cpu, 0x11, 130);
	pmuscope_ss_test_isb();

	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMEVCNTSVR(0)), 23ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICNTSVR_EL1), 23ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMEVCNTSVR(1)), 120ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMCCNTSVR_EL1), 120ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMEVCNTSVR(2)), 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMEVCNTR(2)), 1ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMEVCNTR(0)), 36ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICNTR_EL0), 36ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMCCNTR_EL0), 250ULL);
	KUNIT_EXPECT_EQ(test, m->violations, 0U);
}

/* ----------------------------------------------- each snapshot register */

struct pmuscope_ss_svr_case {
	const char *name;
	enum pmuscope_reg svr;		/* the snapshot register */
	enum pmuscope_reg cnt;		/* the counter it captures */
	bool implemented;		/* on the v9.4-like profile, N = 20 */
};

static const struct pmuscope_ss_svr_case pmuscope_ss_svr_cases[] = {
	{ "PMEVCNTSVR0_EL1", PMUSCOPE_REG_PMEVCNTSVR(0), PMUSCOPE_REG_PMEVCNTR(0), true },
	{ "PMEVCNTSVR7_EL1", PMUSCOPE_REG_PMEVCNTSVR(7), PMUSCOPE_REG_PMEVCNTR(7), true },
	{ "PMEVCNTSVR19_EL1 (N-1)", PMUSCOPE_REG_PMEVCNTSVR(19),
	  PMUSCOPE_REG_PMEVCNTR(19), true },
	{ "PMEVCNTSVR20_EL1 (N)", PMUSCOPE_REG_PMEVCNTSVR(20), PMUSCOPE_REG_PMEVCNTR(19),
	  false },
	{ "PMEVCNTSVR30_EL1", PMUSCOPE_REG_PMEVCNTSVR(30), PMUSCOPE_REG_PMEVCNTR(19), false },
	{ "PMCCNTSVR_EL1", PMUSCOPE_REG_PMCCNTSVR_EL1, PMUSCOPE_REG_PMCCNTR_EL0, true },
	{ "PMICNTSVR_EL1", PMUSCOPE_REG_PMICNTSVR_EL1, PMUSCOPE_REG_PMICNTR_EL0, true },
};

static void pmuscope_ss_svr_desc(const struct pmuscope_ss_svr_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s %s", c->name,
		 c->implemented ? "captures its counter" : "is UNDEFINED");
}

KUNIT_ARRAY_PARAM(pmuscope_ss_svr, pmuscope_ss_svr_cases, pmuscope_ss_svr_desc);

/*
 * D24.5.3 PMCCNTSVR_EL1, D24.5.11 PMEVCNTSVR<n>_EL1, D24.5.16 PMICNTSVR_EL1:
 * each holds its counter's value at the last successful Capture event,
 * all 64 bits. PMEVCNTSVR<n>_EL1 with n >= the number of event counters is
 * UNDEFINED (its accessibility pseudocode): a violation.
 */
static void pmuscope_ss_test_each_svr(struct kunit *test)
{
	const struct pmuscope_ss_svr_case *c = test->param_value;
	struct pmuscope_model_cpu *m;
	u64 val = 0x0123456789abcdefULL;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);
	pmuscope_ss_test_wr(c->cnt, val);
	pmuscope_ss_test_capture();
	if (c->implemented) {
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(c->svr), val, "%s", c->name);
		KUNIT_EXPECT_EQ(test, m->violations, 0U);
	} else {
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(c->svr), 0ULL, "%s", c->name);
		KUNIT_EXPECT_EQ(test, m->violations, 1U);
		KUNIT_EXPECT_EQ(test, m->first_violation.reg, c->svr);
	}
}

/* ------------------------------------------- synchronization: the ISB */

struct pmuscope_ss_sync_case {
	const char *name;
	bool isb_before_poll;
	bool poll;
	bool isb_after_poll;
	bool fresh;		/* the read sees the capture */
};

static const struct pmuscope_ss_sync_case pmuscope_ss_sync_cases[] = {
	{ "poll, ISB, read", false, true, true, true },
	{ "poll, read: no ISB", false, true, false, false },
	{ "ISB, poll, read: ISB before the observation", true, true, false, false },
	{ "ISB, read: completion never observed", true, false, false, false },
	{ "ISB, poll, ISB, read", true, true, true, true },
};

static void pmuscope_ss_sync_desc(const struct pmuscope_ss_sync_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s: %s", c->name, c->fresh ? "new" : "stale");
}

KUNIT_ARRAY_PARAM(pmuscope_ss_sync, pmuscope_ss_sync_cases, pmuscope_ss_sync_desc);

/*
 * D13.9 (Example D13-8): between an instruction A that observes that a
 * Capture event is complete and an instruction C that reads a snapshot
 * register, software needs a context synchronization event B. Without it,
 * the model's reads return the previous values (poison for the first
 * capture, the first capture's values for the second) and count as stale.
 */
static void pmuscope_ss_test_sync(struct kunit *test)
{
	const struct pmuscope_ss_sync_case *c = test->param_value;
	struct pmuscope_model_cpu *m;
	u64 v, old;
	int round;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_model_ss_set_delay(pmuscope_ss_test_cpu, 0);
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);
	old = PMUSCOPE_MODEL_SS_POISON;
	for (round = 0; round < 2; round++) {
		pmuscope_ss_test_wr(PMUSCOPE_REG_PMCCNTR_EL0, 1000 + round);
		pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
		if (c->isb_before_poll)
			pmuscope_ss_test_isb();
		if (c->poll)
			pmuscope_ss_test_poll(&v, 10);
		if (c->isb_after_poll)
			pmuscope_ss_test_isb();
		v = pmuscope_ss_test_rd(PMUSCOPE_REG_PMCCNTSVR_EL1);
		KUNIT_EXPECT_EQ_MSG(test, v, c->fresh ? 1000ULL + round : old,
				    "%s, capture %d", c->name, round + 1);
		KUNIT_EXPECT_EQ_MSG(test, m->ss.stale_reads, c->fresh ? 0U : round + 1U,
				    "%s, capture %d", c->name, round + 1);
		/* The driver's full sequence settles it for the next round. */
		pmuscope_ss_test_poll(&v, 10);
		pmuscope_ss_test_isb();
		old = 1000 + round;
	}
	KUNIT_EXPECT_EQ(test, m->violations, 0U);
}

/* ---------------------------------------------------------- EL3 traps */

struct pmuscope_ss_trap_case {
	enum pmuscope_reg reg;
	bool write;
	bool enpmss, enpm2;
	bool trapped;
};

static const struct pmuscope_ss_trap_case pmuscope_ss_trap_cases[] = {
	{ PMUSCOPE_REG_PMSSCR_EL1, false, false, true, true },
	{ PMUSCOPE_REG_PMSSCR_EL1, true, false, true, true },
	{ PMUSCOPE_REG_PMCCNTSVR_EL1, false, false, true, true },
	{ PMUSCOPE_REG_PMEVCNTSVR(3), false, false, true, true },
	{ PMUSCOPE_REG_PMICNTSVR_EL1, false, false, true, true },
	{ PMUSCOPE_REG_PMECR_EL1, false, false, true, false },
	{ PMUSCOPE_REG_PMECR_EL1, true, false, true, false },
	{ PMUSCOPE_REG_PMECR_EL1, false, true, false, true },
	{ PMUSCOPE_REG_PMECR_EL1, true, true, false, true },
	{ PMUSCOPE_REG_PMICNTR_EL0, false, true, false, true },
	{ PMUSCOPE_REG_PMICNTR_EL0, true, true, false, true },
	{ PMUSCOPE_REG_PMICFILTR_EL0, false, true, false, true },
	{ PMUSCOPE_REG_PMICFILTR_EL0, true, true, false, true },
	{ PMUSCOPE_REG_PMICNTR_EL0, true, false, true, false },
	{ PMUSCOPE_REG_PMSSCR_EL1, true, true, false, false },
	{ PMUSCOPE_REG_PMSSCR_EL1, true, true, true, false },
};

static void pmuscope_ss_trap_desc(const struct pmuscope_ss_trap_case *c, char *d)
{
	char name[32];

	pmuscope_model_reg_name(c->reg, name, sizeof(name));
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s %s EnPMSS=%d EnPM2=%d: %s",
		 c->write ? "MSR" : "MRS", name, c->enpmss, c->enpm2,
		 c->trapped ? "trap to EL3" : "no trap");
}

KUNIT_ARRAY_PARAM(pmuscope_ss_trap, pmuscope_ss_trap_cases, pmuscope_ss_trap_desc);

/*
 * D24.3.18 MDCR_EL3.EnPMSS = 0 traps EL1 accesses to PMSSCR_EL1 and the
 * snapshot registers to EL3; MDCR_EL3.EnPM2 = 0 traps PMECR_EL1,
 * PMICNTR_EL0 and PMICFILTR_EL0 (PMECR_EL1's accessing pseudocode checks
 * EnPM2, not EnPMSS). An EL1 driver cannot survive a trap to EL3: a
 * violation; a trapped read returns 0 and a trapped write changes nothing.
 */
static void pmuscope_ss_test_el3_trap(struct kunit *test)
{
	const struct pmuscope_ss_trap_case *c = test->param_value;
	unsigned int cpu = pmuscope_ss_test_cpu;
	struct pmuscope_model_cpu *m;
	u64 wval = c->reg == PMUSCOPE_REG_PMSSCR_EL1 ? PMUSCOPE_PMSSCR_SS :
		   c->reg == PMUSCOPE_REG_PMECR_EL1 ?
		   FIELD_PREP(PMUSCOPE_PMECR_SSE, PMUSCOPE_PMSSE_PROHIBITED) : 0x77;
	u64 v = 0;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMICNTR_EL0, 5);
	pmuscope_ss_test_capture();		/* the SVRs hold values, not 0 */
	pmuscope_model_ss_set_firmware(cpu, PMUSCOPE_PMSSE_LOWER, PMUSCOPE_PMSSE_LOWER,
				       c->enpmss, c->enpm2);
	if (c->write)
		pmuscope_ss_test_wr(c->reg, wval);
	else
		v = pmuscope_ss_test_rd(c->reg);
	KUNIT_EXPECT_EQ(test, m->violations, c->trapped ? 1U : 0U);
	if (!c->trapped)
		return;
	KUNIT_EXPECT_EQ(test, m->first_violation.reg, c->reg);
	KUNIT_EXPECT_EQ(test, m->first_violation.write, c->write);
	KUNIT_EXPECT_EQ(test, v, 0ULL);
	/* A trapped write did nothing. */
	pmuscope_model_ss_set_firmware(cpu, PMUSCOPE_PMSSE_LOWER, PMUSCOPE_PMSSE_LOWER,
				       true, true);
	KUNIT_EXPECT_EQ(test, m->ss.requests, 1U);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMECR_EL1),
			FIELD_PREP(PMUSCOPE_PMECR_SSE, PMUSCOPE_PMSSE_ALLOWED));
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICNTR_EL0), 5ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICFILTR_EL0),
			(u64)PMUSCOPE_PMICFILTR_INST_RETIRED);
}

/* -------------------------------------------------------------- PMECR_EL1 */

struct pmuscope_ss_pmecr_case {
	const char *name;	/* the profiles below are set up after the descs */
	const struct pmuscope_model_profile *prof;
	u64 write;
	u64 expect;
	unsigned int violations;
};

static const struct pmuscope_ss_pmecr_case pmuscope_ss_pmecr_cases[] = {
	{ "SS", &pmuscope_model_v94, 0x1f, 0x18, 0 },
	{ "SS", &pmuscope_model_v94, ~0ULL, 0x18, 0 },
	{ "SS", &pmuscope_model_v94, 0x10, 0x10, 0 },
	{ "SS+EBEP", &pmuscope_ss_test_ss_ebep, ~0ULL, 0x1f, 0 },
	{ "SS+EBEP", &pmuscope_ss_test_ss_ebep, 0x04, 0x04, 0 },
	{ "SS+EBEP", &pmuscope_ss_test_ss_ebep, 0x19, 0x19, 1 },	/* PMEE = 0b01 */
	{ "SS+EBEP", &pmuscope_ss_test_ss_ebep, 0x0a, 0x0a, 2 },	/* SSE 0b01, PMEE 0b10 */
	{ "EBEP", &pmuscope_ss_test_ebep_only, ~0ULL, 0x07, 0 },
	{ "EBEP", &pmuscope_ss_test_ebep_only, 0x08, 0x00, 0 },	/* SSE RES0 without SS */
};

static void pmuscope_ss_pmecr_desc(const struct pmuscope_ss_pmecr_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s: write %#llx reads %#llx, %u violations",
		 c->name, c->write, c->expect, c->violations);
}

KUNIT_ARRAY_PARAM(pmuscope_ss_pmecr, pmuscope_ss_pmecr_cases, pmuscope_ss_pmecr_desc);

/*
 * D24.5.9 PMECR_EL1: SSE [4:3] when FEAT_PMUv3_SS is implemented, KPME [2]
 * and PMEE [1:0] when FEAT_EBEP is, RES0 otherwise; PMEE 0b01 and 0b10 and
 * SSE 0b01 are reserved (written: a violation, K1.2.19).
 */
static void pmuscope_ss_test_pmecr(struct kunit *test)
{
	const struct pmuscope_ss_pmecr_case *c = test->param_value;
	struct pmuscope_model_cpu *m;

	pmuscope_ss_test_reset(c->prof);
	m = pmuscope_ss_test_m();
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMECR_EL1, c->write);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMECR_EL1), c->expect,
			    "%s wrote %#llx", c->name, c->write);
	KUNIT_EXPECT_EQ_MSG(test, m->violations, c->violations, "%s wrote %#llx",
			    c->name, c->write);
}

/* ------------------------------------------------- instruction counter */

struct pmuscope_ss_filter_case {
	const char *name;
	u64 filter;
	unsigned int el;
	bool counted;
};

#define PMUSCOPE_SS_TEST_F(x)	PMUSCOPE_EVTYPER_##x

static const struct pmuscope_ss_filter_case pmuscope_ss_filter_cases[] = {
	{ "none", 0, 0, true },
	{ "none", 0, 1, true },
	{ "none", 0, 2, false },
	{ "U", PMUSCOPE_SS_TEST_F(U), 0, false },
	{ "U", PMUSCOPE_SS_TEST_F(U), 1, true },
	{ "U|NSU", PMUSCOPE_SS_TEST_F(U) | PMUSCOPE_SS_TEST_F(NSU), 0, true },
	{ "NSU", PMUSCOPE_SS_TEST_F(NSU), 0, false },
	{ "P", PMUSCOPE_SS_TEST_F(P), 1, false },
	{ "P", PMUSCOPE_SS_TEST_F(P), 0, true },
	{ "P|NSK", PMUSCOPE_SS_TEST_F(P) | PMUSCOPE_SS_TEST_F(NSK), 1, true },
	{ "NSK", PMUSCOPE_SS_TEST_F(NSK), 1, false },
	{ "NSH", PMUSCOPE_SS_TEST_F(NSH), 2, true },
	{ "P|U|NSH", PMUSCOPE_SS_TEST_F(P) | PMUSCOPE_SS_TEST_F(U) |
	  PMUSCOPE_SS_TEST_F(NSH), 2, true },
	{ "P|U|NSH", PMUSCOPE_SS_TEST_F(P) | PMUSCOPE_SS_TEST_F(U) |
	  PMUSCOPE_SS_TEST_F(NSH), 1, false },
};

static void pmuscope_ss_filter_desc(const struct pmuscope_ss_filter_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "PMICFILTR_EL0=%s at Non-secure EL%u: %s",
		 c->name, c->el, c->counted ? "counted" : "filtered");
}

KUNIT_ARRAY_PARAM(pmuscope_ss_filter, pmuscope_ss_filter_cases, pmuscope_ss_filter_desc);

/*
 * D24.5.14 PMICFILTR_EL0 and pseudocode CountPMUEvents(), Non-secure
 * state: EL0 is filtered out when U != NSU, EL1 when P != NSK, EL2 when
 * NSH = 0. PMICNTR_EL0 counts the instructions retired (INST_RETIRED);
 * evtCount reads 0x0008.
 */
static void pmuscope_ss_test_icntr_filter(struct kunit *test)
{
	const struct pmuscope_ss_filter_case *c = test->param_value;
	struct pmuscope_model_cpu *m;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMICFILTR_EL0, c->filter);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICFILTR_EL0),
			    c->filter | PMUSCOPE_PMICFILTR_INST_RETIRED, "%s", c->name);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCNTENSET_EL0, PMUSCOPE_CNT_ICNTR);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E);
	pmuscope_model_count_el(pmuscope_ss_test_cpu, 0x08, c->el, 10);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICNTR_EL0),
			    c->counted ? 10ULL : 0ULL, "%s at EL%u", c->name, c->el);
	KUNIT_EXPECT_EQ(test, m->violations, 0U);
}

/*
 * D24.5.14: PMICFILTR_EL0's evtCount is RO (0x0008); bits that need
 * features no profile has (SH: FEAT_SEL2, RLx: FEAT_RME, VS:
 * FEAT_PMUv3_SME, SYNC: FEAT_SEBEP) and the rest are RES0.
 */
static void pmuscope_ss_test_icfiltr_mask(struct kunit *test)
{
	pmuscope_ss_test_reset(&pmuscope_model_v94);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMICFILTR_EL0, ~0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICFILTR_EL0),
			0xfc000008ULL);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMICFILTR_EL0, 0x11);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICFILTR_EL0), 0x8ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_m()->violations, 0U);
}

struct pmuscope_ss_enable_case {
	bool e, f0;
	u16 event;
	bool counted;
};

static const struct pmuscope_ss_enable_case pmuscope_ss_enable_cases[] = {
	{ false, false, 0x08, false },
	{ false, true, 0x08, false },
	{ true, false, 0x08, false },
	{ true, true, 0x08, true },
	{ true, true, 0x11, false },
	{ true, true, 0x1b, false },
};

static void pmuscope_ss_enable_desc(const struct pmuscope_ss_enable_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "PMCR.E=%d PMCNTENSET.F0=%d event %#x: %s",
		 c->e, c->f0, c->event, c->counted ? "counted" : "not counted");
}

KUNIT_ARRAY_PARAM(pmuscope_ss_enable, pmuscope_ss_enable_cases, pmuscope_ss_enable_desc);

/*
 * D13.5.1.3: the global enable of PMICNTR_EL0 is PMCR_EL0.E, its own
 * PMCNTENSET_EL0.F0; it counts instructions retired only. D24.5.8
 * PMCR_EL0.P and .C do not reset it.
 */
static void pmuscope_ss_test_icntr_enable(struct kunit *test)
{
	const struct pmuscope_ss_enable_case *c = test->param_value;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMICNTR_EL0, 100);
	if (c->f0)
		pmuscope_ss_test_wr(PMUSCOPE_REG_PMCNTENSET_EL0, PMUSCOPE_CNT_ICNTR);
	if (c->e)
		pmuscope_ss_test_wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E);
	pmuscope_model_count(pmuscope_ss_test_cpu, c->event, 7);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICNTR_EL0),
			    c->counted ? 107ULL : 100ULL, "E=%d F0=%d event %#x",
			    c->e, c->f0, c->event);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_P | PMUSCOPE_PMCR_C);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICNTR_EL0),
			c->counted ? 107ULL : 100ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_m()->violations, 0U);
}

struct pmuscope_ss_f0_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	enum pmuscope_reg set, clr;
	bool f0;
};

static const struct pmuscope_ss_f0_case pmuscope_ss_f0_cases[] = {
	{ "PMCNTEN", &pmuscope_model_v94, PMUSCOPE_REG_PMCNTENSET_EL0,
	  PMUSCOPE_REG_PMCNTENCLR_EL0, true },
	{ "PMOVS", &pmuscope_model_v94, PMUSCOPE_REG_PMOVSSET_EL0,
	  PMUSCOPE_REG_PMOVSCLR_EL0, true },
	{ "PMINTEN", &pmuscope_model_v94, PMUSCOPE_REG_PMINTENSET_EL1,
	  PMUSCOPE_REG_PMINTENCLR_EL1, true },
	{ "PMCNTEN", &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMCNTENSET_EL0,
	  PMUSCOPE_REG_PMCNTENCLR_EL0, false },
	{ "PMOVS", &pmuscope_model_cortex_a53, PMUSCOPE_REG_PMOVSSET_EL0,
	  PMUSCOPE_REG_PMOVSCLR_EL0, false },
	{ "PMINTEN", &pmuscope_model_cortex_a53, PMUSCOPE_REG_PMINTENSET_EL1,
	  PMUSCOPE_REG_PMINTENCLR_EL1, false },
};

static void pmuscope_ss_f0_desc(const struct pmuscope_ss_f0_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s %s: F0 %s", c->prof->name, c->name,
		 c->f0 ? "implemented" : "RES0");
}

KUNIT_ARRAY_PARAM(pmuscope_ss_f0, pmuscope_ss_f0_cases, pmuscope_ss_f0_desc);

/*
 * D24.5.7 PMCNTENSET_EL0, D24.5.21 PMOVSSET_EL0, D24.5.18 PMINTENSET_EL1
 * (and their CLR twins): bit 32, F0, is PMICNTR_EL0's and exists only with
 * FEAT_PMUv3_ICNTR (RES0 otherwise). Pseudocode GetPMUReadMask() and
 * GetPMUWriteMask(): with MDCR_EL3.EnPM2 = 0 it is RAZ/WI at EL1, and the
 * bit underneath is kept.
 */
static void pmuscope_ss_test_f0_bits(struct kunit *test)
{
	const struct pmuscope_ss_f0_case *c = test->param_value;
	unsigned int cpu = pmuscope_ss_test_cpu;
	u64 f0 = c->f0 ? PMUSCOPE_CNT_ICNTR : 0;

	pmuscope_ss_test_reset(c->prof);
	pmuscope_ss_test_wr(c->set, PMUSCOPE_CNT_ICNTR | BIT(0));
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(c->set), f0 | BIT(0), "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(c->clr), f0 | BIT(0), "%s", c->name);
	pmuscope_ss_test_wr(c->clr, PMUSCOPE_CNT_ICNTR);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(c->set), BIT(0), "%s", c->name);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_m()->violations, 0U);
	if (!c->f0)
		return;

	/* EnPM2 = 0: RAZ/WI at EL1, the bit underneath unchanged. */
	pmuscope_ss_test_wr(c->set, PMUSCOPE_CNT_ICNTR);
	pmuscope_model_ss_set_firmware(cpu, PMUSCOPE_PMSSE_LOWER, PMUSCOPE_PMSSE_LOWER,
				       true, false);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(c->set), BIT(0), "%s EnPM2=0", c->name);
	pmuscope_ss_test_wr(c->clr, PMUSCOPE_CNT_ICNTR);
	pmuscope_model_ss_set_firmware(cpu, PMUSCOPE_PMSSE_LOWER, PMUSCOPE_PMSSE_LOWER,
				       true, true);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(c->set), PMUSCOPE_CNT_ICNTR | BIT(0),
			    "%s EnPM2 back to 1", c->name);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_m()->violations, 0U);
}

struct pmuscope_ss_ovf_case {
	const char *name;
	u64 pmcr;	/* besides E */
	u64 preload;
	u64 count;
	u64 expect_val;
	bool expect_ovf;
};

static const struct pmuscope_ss_ovf_case pmuscope_ss_ovf_cases[] = {
	{ "below 2^64", 0, 0xfffffffffffffff0ULL, 0xf, U64_MAX, false },
	{ "wraps at 2^64", 0, 0xfffffffffffffff0ULL, 0x20, 0x10, true },
	{ "no flag at 2^32 (LP=0)", 0, 0xfffffff0ULL, 0x20, 0x100000010ULL, false },
	{ "no flag at 2^32 (LP=1)", PMUSCOPE_PMCR_LP, 0xfffffff0ULL, 0x20,
	  0x100000010ULL, false },
	{ "wraps at 2^64 (LP=1)", PMUSCOPE_PMCR_LP, U64_MAX, 1, 0, true },
};

static void pmuscope_ss_ovf_desc(const struct pmuscope_ss_ovf_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "PMICNTR_EL0 %s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_ss_ovf, pmuscope_ss_ovf_cases, pmuscope_ss_ovf_desc);

/*
 * D13.3 RFBGFH, pseudocode IncrementInstructionCounter(): an unsigned
 * overflow of PMICNTR_EL0[63:0] sets PMOVSSET_EL0.F0, whatever PMCR_EL0.LP
 * (D24.5.8: LP does not affect PMICNTR_EL0). D13.3.1: the overflow
 * interrupt is requested when PMCR.E, PMOVSSET_EL0.F0 and PMINTENSET_EL1.F0
 * are all 1; PMOVSCLR_EL0.F0 cancels it.
 */
static void pmuscope_ss_test_icntr_overflow(struct kunit *test)
{
	const struct pmuscope_ss_ovf_case *c = test->param_value;
	unsigned int cpu = pmuscope_ss_test_cpu;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMICNTR_EL0, c->preload);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMINTENSET_EL1, PMUSCOPE_CNT_ICNTR);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCNTENSET_EL0, PMUSCOPE_CNT_ICNTR);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E | c->pmcr);
	pmuscope_model_count(cpu, 0x08, c->count);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICNTR_EL0), c->expect_val,
			    "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMOVSSET_EL0),
			    c->expect_ovf ? PMUSCOPE_CNT_ICNTR : 0ULL, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_model_irq_line(cpu), c->expect_ovf, "%s", c->name);
	if (c->expect_ovf) {
		/* PMCR.E = 0 drops the request; PMOVSCLR.F0 cancels it. */
		pmuscope_ss_test_wr(PMUSCOPE_REG_PMCR_EL0, c->pmcr);
		KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(cpu));
		pmuscope_ss_test_wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E | c->pmcr);
		KUNIT_EXPECT_TRUE(test, pmuscope_model_irq_line(cpu));
		pmuscope_ss_test_wr(PMUSCOPE_REG_PMOVSCLR_EL0, PMUSCOPE_CNT_ICNTR);
		KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(cpu));
		/* PMINTENCLR.F0 masks a new overflow. */
		pmuscope_ss_test_wr(PMUSCOPE_REG_PMINTENCLR_EL1, PMUSCOPE_CNT_ICNTR);
		pmuscope_ss_test_wr(PMUSCOPE_REG_PMOVSSET_EL0, PMUSCOPE_CNT_ICNTR);
		KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(cpu));
	}
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_m()->violations, 0U);
}

/* ------------------------------------------------ profiles and features */

static const struct pmuscope_model_profile *pmuscope_ss_absent_cases[] = {
	&pmuscope_model_cortex_a53, &pmuscope_model_neoverse_n1,
	&pmuscope_model_no_pmu, &pmuscope_model_impdef_pmu,
};

static void pmuscope_ss_absent_desc(const struct pmuscope_model_profile **p, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s: no FEAT_PMUv3_SS, no FEAT_PMUv3_ICNTR",
		 (*p)->name);
}

KUNIT_ARRAY_PARAM(pmuscope_ss_absent, pmuscope_ss_absent_cases, pmuscope_ss_absent_desc);

/*
 * Each register's Configuration (D24.5.3, .9, .11, .14, .15, .16, .23):
 * "present only when FEAT_PMUv3_SS (FEAT_PMUv3_ICNTR; FEAT_EBEP or
 * FEAT_PMUv3_SS for PMECR_EL1) is implemented ... Otherwise, direct
 * accesses are UNDEFINED". On a profile without them every read and every
 * write is a violation, and nothing captures.
 */
static void pmuscope_ss_test_absent(struct kunit *test)
{
	static const enum pmuscope_reg regs[] = {
		PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_REG_PMECR_EL1, PMUSCOPE_REG_PMCCNTSVR_EL1,
		PMUSCOPE_REG_PMEVCNTSVR(0), PMUSCOPE_REG_PMICNTSVR_EL1,
		PMUSCOPE_REG_PMICNTR_EL0, PMUSCOPE_REG_PMICFILTR_EL0,
	};
	const struct pmuscope_model_profile *const *p = test->param_value;
	unsigned int cpu = pmuscope_ss_test_cpu;
	struct pmuscope_model_cpu *m;
	unsigned int i, expect = 0;
	char name[32];

	pmuscope_ss_test_reset(*p);
	m = pmuscope_ss_test_m();
	for (i = 0; i < ARRAY_SIZE(regs); i++) {
		pmuscope_model_reg_name(regs[i], name, sizeof(name));
		/* Reads of a write-only or read-only register aside, both are violations. */
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_ss_test_rd(regs[i]), 0ULL, "%s", name);
		KUNIT_EXPECT_EQ_MSG(test, m->violations, ++expect, "read of %s", name);
		pmuscope_ss_test_wr(regs[i], 1);
		KUNIT_EXPECT_EQ_MSG(test, m->violations, ++expect, "write of %s", name);
	}
	pmuscope_model_ss_external_request(cpu);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_capture_state(cpu), PMUSCOPE_MODEL_SS_DISABLED);
	KUNIT_EXPECT_EQ(test, m->ss.requests, 0U);
	/* INST_RETIRED ticks no instruction counter. */
	pmuscope_model_count(cpu, 0x08, 5);
	KUNIT_EXPECT_EQ(test, m->icntr, 0ULL);
}

/*
 * The profiles' unit parameters (pmuscope_model_ss.h): the v9.4-like
 * profile captures after two polls with firmware that hands the choice to
 * PMECR_EL1.SSE; no unit profile (NULL) means the same firmware and no
 * delay. PMECR_EL1.SSE resets to 0b00 in the model (UNKNOWN on a Cold
 * reset, D24.5.9): disabled until the driver enables it.
 */
static void pmuscope_ss_test_profiles(struct kunit *test)
{
	unsigned int cpu = pmuscope_ss_test_cpu;
	u64 v;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_capture_state(cpu), PMUSCOPE_MODEL_SS_DISABLED);
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_capture_state(cpu), PMUSCOPE_MODEL_SS_ALLOWED);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_poll(&v, 100), 2U);

	pmuscope_ss_test_reset(&pmuscope_ss_test_null_ss);
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_PROHIBITED);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_capture_state(cpu),
			PMUSCOPE_MODEL_SS_PROHIBITED);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_poll(&v, 100), 0U);
	KUNIT_EXPECT_EQ(test, v, PMUSCOPE_PMSSCR_NC);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_m()->violations, 0U);
}

/*
 * The core's power loss (Cold reset of the Core power domain): D24.5.23
 * PMSSCR_EL1.{NC, SS} = {1, 0}, an ongoing capture lost; the SVRs,
 * PMECR_EL1.SSE, PMICNTR_EL0 and PMICFILTR_EL0 UNKNOWN (poison, 0b00,
 * just below the wrap, P = U = 1); F0 enables 0 (D24.5.7: warm reset 0).
 * The firmware's controls are restored by the firmware: kept.
 */
static void pmuscope_ss_test_power_loss(struct kunit *test)
{
	unsigned int cpu = pmuscope_ss_test_cpu;
	struct pmuscope_model_cpu *m;
	u64 v;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCCNTR_EL0, 42);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMICNTR_EL0, 43);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCNTENSET_EL0, PMUSCOPE_CNT_ICNTR);
	pmuscope_ss_test_capture();
	pmuscope_model_ss_set_delay(cpu, PMUSCOPE_MODEL_SS_NEVER);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);

	pmuscope_model_power_loss(cpu);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1), PMUSCOPE_PMSSCR_NC);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMCCNTSVR_EL1),
			PMUSCOPE_MODEL_SS_POISON);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICNTSVR_EL1),
			PMUSCOPE_MODEL_SS_POISON);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMECR_EL1), 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICNTR_EL0),
			0xfffffffffffffff0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMICFILTR_EL0),
			PMUSCOPE_EVTYPER_P | PMUSCOPE_EVTYPER_U | PMUSCOPE_PMICFILTR_INST_RETIRED);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMCNTENSET_EL0) &
			PMUSCOPE_CNT_ICNTR, 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMOVSSET_EL0) &
			PMUSCOPE_CNT_ICNTR, 0ULL);
	/* SSE lost: a driver that does not restore it captures nothing. */
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1), PMUSCOPE_PMSSCR_NC);
	/* Restored, it captures again (the firmware's state was kept). */
	pmuscope_model_ss_set_delay(cpu, 0);
	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCCNTR_EL0, 44);
	v = pmuscope_ss_test_capture();
	KUNIT_EXPECT_EQ(test, v, 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMCCNTSVR_EL1), 44ULL);
	KUNIT_EXPECT_EQ(test, m->violations, 0U);
}

/*
 * D13.9 RSCLCQ: an IMPLEMENTATION DEFINED external snapshot request
 * "indirectly writes 1 to PMSSCR_EL1.SS": the driver sees SS = 1 without
 * having asked, may not write SS until it completes (D24.5.23: CONSTRAINED
 * UNPREDICTABLE), and then finds NC = 0 and the SVRs updated.
 */
static void pmuscope_ss_test_external(struct kunit *test)
{
	unsigned int cpu = pmuscope_ss_test_cpu;
	struct pmuscope_model_cpu *m;
	u64 v;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_model_ss_set_delay(cpu, 1);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMCCNTR_EL0, 77);
	pmuscope_model_ss_external_request(cpu);	/* capture disabled: nothing */
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1), PMUSCOPE_PMSSCR_NC);
	KUNIT_EXPECT_EQ(test, m->ss.ignored, 1U);

	pmuscope_ss_test_sse(PMUSCOPE_PMSSE_ALLOWED);
	pmuscope_model_ss_external_request(cpu);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMSSCR_EL1),
			PMUSCOPE_PMSSCR_NC | PMUSCOPE_PMSSCR_SS);
	pmuscope_ss_test_wr(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	KUNIT_EXPECT_EQ(test, m->violations, 1U);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_poll(&v, 10), 0U);
	KUNIT_EXPECT_EQ(test, v, 0ULL);
	pmuscope_ss_test_isb();
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_PMCCNTSVR_EL1), 77ULL);
	KUNIT_EXPECT_EQ(test, m->ss.captures, 1U);
}

/*
 * KVM on a VHE host (Linux 6.12 __activate_traps_common() and
 * __deactivate_traps_common()): the load saves the live MDCR_EL2 as the
 * host's and writes the guest's, which the CPU then uses (PMSSE 0b00:
 * capture disabled); the put writes the host's back. A write of MDCR_EL2
 * by anyone else in between changes the guest's value and is a violation.
 */
static void pmuscope_ss_test_vcpu(struct kunit *test)
{
	const u64 host = PMUSCOPE_MDCR_EL2_PMSSE | 0x6;		/* PMSSE 0b11, HPMN 6 */
	const u64 guest = BIT_ULL(6) | 0x6;			/* TPM, HPMN 6 */
	unsigned int cpu = pmuscope_ss_test_cpu;
	struct pmuscope_model_cpu *m;

	pmuscope_ss_test_reset(&pmuscope_model_v94);
	m = pmuscope_ss_test_m();
	pmuscope_model_ss_set_el2(cpu, PMUSCOPE_HW_EL2_KERNEL);
	pmuscope_ss_test_wr(PMUSCOPE_REG_MDCR_EL2, host);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_capture_state(cpu), PMUSCOPE_MODEL_SS_ALLOWED);
	KUNIT_EXPECT_FALSE(test, m->ss.vcpu_loaded);

	pmuscope_model_ss_vcpu_load(cpu, guest);
	KUNIT_EXPECT_TRUE(test, m->ss.vcpu_loaded);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_MDCR_EL2), guest);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_capture_state(cpu), PMUSCOPE_MODEL_SS_DISABLED);
	KUNIT_EXPECT_EQ(test, m->violations, 0U);
	pmuscope_ss_test_wr(PMUSCOPE_REG_MDCR_EL2, guest | PMUSCOPE_MDCR_EL2_PMSSE);
	KUNIT_EXPECT_EQ(test, m->violations, 1U);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_vcpu_put(cpu), guest | PMUSCOPE_MDCR_EL2_PMSSE);
	KUNIT_EXPECT_FALSE(test, m->ss.vcpu_loaded);
	KUNIT_EXPECT_EQ(test, pmuscope_ss_test_rd(PMUSCOPE_REG_MDCR_EL2), host);
	pmuscope_ss_test_wr(PMUSCOPE_REG_MDCR_EL2, guest);
	KUNIT_EXPECT_EQ(test, m->violations, 1U);
}

static struct kunit_case pmuscope_model_ss_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_ss_test_capture_table, pmuscope_ss_table_gen_params),
	KUNIT_CASE(pmuscope_ss_test_reserved_sse),
	KUNIT_CASE(pmuscope_ss_test_reset_values),
	KUNIT_CASE(pmuscope_ss_test_ss_writes),
	KUNIT_CASE_PARAM(pmuscope_ss_test_delay, pmuscope_ss_delay_gen_params),
	KUNIT_CASE(pmuscope_ss_test_instant),
	KUNIT_CASE_PARAM(pmuscope_ss_test_each_svr, pmuscope_ss_svr_gen_params),
	KUNIT_CASE_PARAM(pmuscope_ss_test_sync, pmuscope_ss_sync_gen_params),
	KUNIT_CASE_PARAM(pmuscope_ss_test_el3_trap, pmuscope_ss_trap_gen_params),
	KUNIT_CASE_PARAM(pmuscope_ss_test_pmecr, pmuscope_ss_pmecr_gen_params),
	KUNIT_CASE_PARAM(pmuscope_ss_test_icntr_filter, pmuscope_ss_filter_gen_params),
	KUNIT_CASE(pmuscope_ss_test_icfiltr_mask),
	KUNIT_CASE_PARAM(pmuscope_ss_test_icntr_enable, pmuscope_ss_enable_gen_params),
	KUNIT_CASE_PARAM(pmuscope_ss_test_f0_bits, pmuscope_ss_f0_gen_params),
	KUNIT_CASE_PARAM(pmuscope_ss_test_icntr_overflow, pmuscope_ss_ovf_gen_params),
	KUNIT_CASE_PARAM(pmuscope_ss_test_absent, pmuscope_ss_absent_gen_params),
	KUNIT_CASE(pmuscope_ss_test_profiles),
	KUNIT_CASE(pmuscope_ss_test_power_loss),
	KUNIT_CASE(pmuscope_ss_test_external),
	KUNIT_CASE(pmuscope_ss_test_vcpu),
	{}
};

static struct kunit_suite pmuscope_model_ss_suite = {
	.name = "pmuscope_model_ss",
	.init = pmuscope_ss_test_init,
	.test_cases = pmuscope_model_ss_cases,
};

kunit_test_suites(&pmuscope_model_ss_suite);
