// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the register model itself. The driver's tests are only as good as
 * the model's rules, so each rule the model claims is checked here against
 * the Arm ARM, and so is its power to fail a test.
 */

#include <kunit/test.h>

#include "pmuscope_model.h"

#define MODEL_CPU	0

static u64 rd(enum pmuscope_reg reg)
{
	return pmuscope_model_read_cpu(MODEL_CPU, reg);
}

static void wr(enum pmuscope_reg reg, u64 val)
{
	pmuscope_model_write_cpu(MODEL_CPU, reg, val);
}

static struct pmuscope_model_cpu *model(void)
{
	return pmuscope_model_get(MODEL_CPU);
}

/* ------------------------------------------------- which registers exist */
struct pmuscope_impl_case {
	const struct pmuscope_model_profile *prof;
	enum pmuscope_reg reg;
	bool implemented;
};

static const struct pmuscope_impl_case pmuscope_impl_cases[] = {
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_MIDR_EL1, true },
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_PMCR_EL0, true },
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_PMEVCNTR(5), true },
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_PMEVCNTR(6), false },
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_PMEVTYPER(6), false },
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_PMSSCR_EL1, false },
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_PMSIDR_EL1, false },
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_AMCFGR_EL0, false },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMSIDR_EL1, true },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMBIDR_EL1, true },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_AMCGCR_EL0, true },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMCCNTSVR_EL1, false },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMEVCNTR(19), true },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMEVCNTR(20), false },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMSSCR_EL1, true },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMEVCNTSVR(19), true },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMEVCNTSVR(20), false },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMSIDR_EL1, true },
	{ &pmuscope_model_no_pmu, PMUSCOPE_REG_ID_AA64DFR0_EL1, true },
	{ &pmuscope_model_no_pmu, PMUSCOPE_REG_PMCR_EL0, false },
	{ &pmuscope_model_impdef_pmu, PMUSCOPE_REG_PMCEID0_EL0, false },
	{ NULL, PMUSCOPE_REG_MIDR_EL1, false },
};

static void pmuscope_impl_desc(const struct pmuscope_impl_case *c, char *d)
{
	char name[32];

	pmuscope_model_reg_name(c->reg, name, sizeof(name));
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s %s", c->prof ? c->prof->name : "unmodelled",
		 name);
}

KUNIT_ARRAY_PARAM(pmuscope_impl, pmuscope_impl_cases, pmuscope_impl_desc);

static void pmuscope_test_model_implements(struct kunit *test)
{
	const struct pmuscope_impl_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, pmuscope_model_implements(c->prof, c->reg),
			c->implemented);

	/* An access to a register that is not there is a violation. */
	pmuscope_model_reset(MODEL_CPU, c->prof);
	rd(c->reg);
	KUNIT_EXPECT_EQ(test, model()->violations, c->implemented ? 0 : 1);
	if (!c->implemented)
		KUNIT_EXPECT_EQ(test, model()->first_violation.reg, c->reg);
}

/* Read-only and write-only registers. */
static void pmuscope_test_model_access_kind(struct kunit *test)
{
	pmuscope_model_reset(MODEL_CPU, &pmuscope_model_neoverse_n1);
	wr(PMUSCOPE_REG_PMCEID0_EL0, 0);
	KUNIT_EXPECT_EQ(test, model()->violations, 1);
	KUNIT_EXPECT_TRUE(test, model()->first_violation.write);
	wr(PMUSCOPE_REG_ID_AA64DFR0_EL1, 0);
	wr(PMUSCOPE_REG_PMSIDR_EL1, 0);
	KUNIT_EXPECT_EQ(test, model()->violations, 3);
	rd(PMUSCOPE_REG_PMSWINC_EL0);
	KUNIT_EXPECT_EQ(test, model()->violations, 4);
	/* Values of read-only registers did not change. */
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMCEID0_EL0),
			pmuscope_model_neoverse_n1.pmceid0);
}

/* ------------------------------------------------------------------ PMCR */
static void pmuscope_test_model_pmcr(struct kunit *test)
{
	pmuscope_model_reset(MODEL_CPU, &pmuscope_model_cortex_a53);

	/* N, IDCODE, IMP are read-only; P and C read as zero. */
	wr(PMUSCOPE_REG_PMCR_EL0, 0xffffffff);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMCR_EL0),
			0x41033000ULL | PMUSCOPE_PMCR_E | PMUSCOPE_PMCR_D |
			PMUSCOPE_PMCR_X | PMUSCOPE_PMCR_DP | PMUSCOPE_PMCR_LC);
	/* LP is RES0 below PMUv3p5. */
	KUNIT_EXPECT_FALSE(test, rd(PMUSCOPE_REG_PMCR_EL0) & PMUSCOPE_PMCR_LP);

	/* P resets the event counters but not the cycle counter; C the latter. */
	wr(PMUSCOPE_REG_PMEVCNTR(0), 5);
	wr(PMUSCOPE_REG_PMEVCNTR(5), 7);
	wr(PMUSCOPE_REG_PMCCNTR_EL0, 9);
	wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_P);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMEVCNTR(0)), 0);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMEVCNTR(5)), 0);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMCCNTR_EL0), 9);
	wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_C);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMCCNTR_EL0), 0);

	pmuscope_model_reset(MODEL_CPU, &pmuscope_model_v94);
	wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_LP);
	KUNIT_EXPECT_TRUE(test, rd(PMUSCOPE_REG_PMCR_EL0) & PMUSCOPE_PMCR_LP);
	KUNIT_EXPECT_EQ(test, model()->violations, 0);
}

/* -------------------------------------------------------- SET/CLR pairs */
struct pmuscope_pair_case {
	const char *name;
	enum pmuscope_reg set, clr;
};

static const struct pmuscope_pair_case pmuscope_pair_cases[] = {
	{ "PMCNTEN", PMUSCOPE_REG_PMCNTENSET_EL0, PMUSCOPE_REG_PMCNTENCLR_EL0 },
	{ "PMINTEN", PMUSCOPE_REG_PMINTENSET_EL1, PMUSCOPE_REG_PMINTENCLR_EL1 },
	{ "PMOVS", PMUSCOPE_REG_PMOVSSET_EL0, PMUSCOPE_REG_PMOVSCLR_EL0 },
};

static void pmuscope_pair_desc(const struct pmuscope_pair_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_pair, pmuscope_pair_cases, pmuscope_pair_desc);

static void pmuscope_test_model_set_clr(struct kunit *test)
{
	const struct pmuscope_pair_case *c = test->param_value;

	pmuscope_model_reset(MODEL_CPU, &pmuscope_model_cortex_a53);
	/* Only counters 0..N-1 and the cycle counter (bit 31) exist. */
	wr(c->set, U64_MAX);
	KUNIT_EXPECT_EQ(test, rd(c->set), 0x8000003fULL);
	KUNIT_EXPECT_EQ(test, rd(c->clr), 0x8000003fULL);
	/* Writing zeros changes nothing; writing ones clears those bits. */
	wr(c->set, 0);
	wr(c->clr, 0);
	KUNIT_EXPECT_EQ(test, rd(c->set), 0x8000003fULL);
	wr(c->clr, BIT(31) | BIT(2));
	KUNIT_EXPECT_EQ(test, rd(c->set), 0x3bULL);
	wr(c->set, BIT(31));
	KUNIT_EXPECT_EQ(test, rd(c->clr), 0x8000003bULL);
	KUNIT_EXPECT_EQ(test, model()->violations, 0);
}

/* --------------------------------------------- widths and the overflow line */
static void pmuscope_test_model_width(struct kunit *test)
{
	pmuscope_model_reset(MODEL_CPU, &pmuscope_model_cortex_a53);
	wr(PMUSCOPE_REG_PMEVCNTR(0), 0x123456789ULL);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMEVCNTR(0)), 0x23456789ULL);
	wr(PMUSCOPE_REG_PMCCNTR_EL0, 0x123456789ULL);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMCCNTR_EL0), 0x123456789ULL);

	pmuscope_model_reset(MODEL_CPU, &pmuscope_model_v94);
	wr(PMUSCOPE_REG_PMEVCNTR(19), 0x123456789ULL);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMEVCNTR(19)), 0x123456789ULL);
}

struct pmuscope_ovf_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	u64 pmcr;	/* besides E */
	u64 preload;
	u64 count;
	u64 expect_val;
	bool expect_ovf;
};

static const struct pmuscope_ovf_case pmuscope_ovf_cases[] = {
	{ "a53 below the wrap", &pmuscope_model_cortex_a53, 0,
	  0xfffffff0, 0xf, 0xffffffff, false },
	{ "a53 wraps at 2^32", &pmuscope_model_cortex_a53, 0,
	  0xfffffff0, 0x20, 0x10, true },
	{ "a53 LP ignored (RES0)", &pmuscope_model_cortex_a53, PMUSCOPE_PMCR_LP,
	  0xfffffff0, 0x20, 0x10, true },
	{ "v3p5 LP=0: flag at bit 31 carry, 64-bit value", &pmuscope_model_v94, 0,
	  0xfffffff0, 0x20, 0x100000010ULL, true },
	{ "v3p5 LP=1: no flag at 2^32", &pmuscope_model_v94, PMUSCOPE_PMCR_LP,
	  0xfffffff0, 0x20, 0x100000010ULL, false },
	{ "v3p5 LP=1: wraps at 2^64", &pmuscope_model_v94, PMUSCOPE_PMCR_LP,
	  0xfffffffffffffff0ULL, 0x20, 0x10, true },
};

static void pmuscope_ovf_desc(const struct pmuscope_ovf_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_ovf, pmuscope_ovf_cases, pmuscope_ovf_desc);

static void pmuscope_test_model_overflow(struct kunit *test)
{
	const struct pmuscope_ovf_case *c = test->param_value;

	pmuscope_model_reset(MODEL_CPU, c->prof);
	wr(PMUSCOPE_REG_PMEVTYPER(0), 0x11);
	wr(PMUSCOPE_REG_PMEVCNTR(0), c->preload);
	wr(PMUSCOPE_REG_PMINTENSET_EL1, BIT(0));
	wr(PMUSCOPE_REG_PMCNTENSET_EL0, BIT(0));
	/* Disabled: nothing counts. */
	pmuscope_model_count(MODEL_CPU, 0x11, c->count);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMEVCNTR(0)),
			c->preload & (c->prof == &pmuscope_model_v94 ? U64_MAX : U32_MAX));

	wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E | c->pmcr);
	pmuscope_model_count(MODEL_CPU, 0x08, c->count);	/* other event */
	pmuscope_model_count(MODEL_CPU, 0x11, c->count);
	KUNIT_EXPECT_EQ_MSG(test, rd(PMUSCOPE_REG_PMEVCNTR(0)), c->expect_val,
			    "%s", c->name);
	KUNIT_EXPECT_EQ(test, !!(rd(PMUSCOPE_REG_PMOVSSET_EL0) & BIT(0)),
			c->expect_ovf);
	/* IRQ line = PMCR.E && (PMINTEN & PMOVS). */
	KUNIT_EXPECT_EQ(test, pmuscope_model_irq_line(MODEL_CPU), c->expect_ovf);
	wr(PMUSCOPE_REG_PMCR_EL0, c->pmcr);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(MODEL_CPU));
	wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E | c->pmcr);
	wr(PMUSCOPE_REG_PMINTENCLR_EL1, BIT(0));
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(MODEL_CPU));
	KUNIT_EXPECT_EQ(test, model()->violations, 0);
}

/* The cycle counter overflows at bit 31 carry unless PMCR.LC = 1. */
static void pmuscope_test_model_cycle_lc(struct kunit *test)
{
	pmuscope_model_reset(MODEL_CPU, &pmuscope_model_cortex_a53);
	wr(PMUSCOPE_REG_PMCNTENSET_EL0, PMUSCOPE_CNT_CYCLE);
	wr(PMUSCOPE_REG_PMCCNTR_EL0, 0xffffffff);
	wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E | PMUSCOPE_PMCR_LC);
	pmuscope_model_count(MODEL_CPU, 0x11, 1);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMCCNTR_EL0), 0x100000000ULL);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMOVSSET_EL0), 0);
	wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E);
	wr(PMUSCOPE_REG_PMCCNTR_EL0, 0xffffffff);
	pmuscope_model_count(MODEL_CPU, 0x11, 1);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMOVSSET_EL0), PMUSCOPE_CNT_CYCLE);
}

/* PMSWINC counts on enabled counters programmed with SW_INCR only. */
static void pmuscope_test_model_swinc(struct kunit *test)
{
	pmuscope_model_reset(MODEL_CPU, &pmuscope_model_cortex_a53);
	wr(PMUSCOPE_REG_PMEVTYPER(0), 0x00);
	wr(PMUSCOPE_REG_PMEVTYPER(1), 0x11);
	wr(PMUSCOPE_REG_PMEVTYPER(2), 0x00);
	wr(PMUSCOPE_REG_PMCNTENSET_EL0, BIT(0) | BIT(1));
	wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E);
	wr(PMUSCOPE_REG_PMSWINC_EL0, 0x7);
	wr(PMUSCOPE_REG_PMSWINC_EL0, 0x1);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMEVCNTR(0)), 2);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMEVCNTR(1)), 0);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMEVCNTR(2)), 0);
	KUNIT_EXPECT_EQ(test, model()->violations, 0);
}

/* PMEVTYPER keeps evtCount[9:0] on PMUv3, [15:0] from PMUv3p1, and filters. */
static void pmuscope_test_model_evtyper(struct kunit *test)
{
	pmuscope_model_reset(MODEL_CPU, &pmuscope_model_cortex_a53);
	wr(PMUSCOPE_REG_PMEVTYPER(3), 0xffffffffffffffffULL);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMEVTYPER(3)), 0xff0003ffULL);
	pmuscope_model_reset(MODEL_CPU, &pmuscope_model_neoverse_n1);
	wr(PMUSCOPE_REG_PMEVTYPER(3), 0xffffffffffffffffULL);
	KUNIT_EXPECT_EQ(test, rd(PMUSCOPE_REG_PMEVTYPER(3)), 0xff00ffffULL);
}

static struct kunit_case pmuscope_model_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_model_implements, pmuscope_impl_gen_params),
	KUNIT_CASE(pmuscope_test_model_access_kind),
	KUNIT_CASE(pmuscope_test_model_pmcr),
	KUNIT_CASE_PARAM(pmuscope_test_model_set_clr, pmuscope_pair_gen_params),
	KUNIT_CASE(pmuscope_test_model_width),
	KUNIT_CASE_PARAM(pmuscope_test_model_overflow, pmuscope_ovf_gen_params),
	KUNIT_CASE(pmuscope_test_model_cycle_lc),
	KUNIT_CASE(pmuscope_test_model_swinc),
	KUNIT_CASE(pmuscope_test_model_evtyper),
	{}
};

static struct kunit_suite pmuscope_model_suite = {
	.name = "pmuscope_model",
	.test_cases = pmuscope_model_cases,
};

kunit_test_suites(&pmuscope_model_suite);
