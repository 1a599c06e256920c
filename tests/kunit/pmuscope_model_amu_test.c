// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the register model's Activity Monitors (pmuscope_model_amu.c).
 * One case per rule of the model, each with the Arm ARM section it checks
 * (DDI 0487 M.a.a numbering). The model is reached the driver's way,
 * through pmuscope_model_read_cpu()/write_cpu(), and through the unit's
 * test controls for what firmware decides.
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/time64.h>

#include "pmuscope_model.h"

#define PMUSCOPE_AMU_TEST_CPU	0

static u64 pmuscope_amu_test_rd(enum pmuscope_reg reg)
{
	return pmuscope_model_read_cpu(PMUSCOPE_AMU_TEST_CPU, reg);
}

static void pmuscope_amu_test_wr(enum pmuscope_reg reg, u64 val)
{
	pmuscope_model_write_cpu(PMUSCOPE_AMU_TEST_CPU, reg, val);
}

static struct pmuscope_model_cpu *pmuscope_amu_test_model(void)
{
	return pmuscope_model_get(PMUSCOPE_AMU_TEST_CPU);
}

static void pmuscope_amu_test_reset(const struct pmuscope_model_profile *prof)
{
	pmuscope_model_reset(PMUSCOPE_AMU_TEST_CPU, prof);
}

static void pmuscope_amu_test_run(const struct pmuscope_model_work *w)
{
	pmuscope_model_run(PMUSCOPE_AMU_TEST_CPU, w);
}

static void pmuscope_amu_test_fw(bool tam_el3, bool tam_el2, u16 en0, u16 en1,
				 bool cg1rz)
{
	pmuscope_model_amu_set_firmware(PMUSCOPE_AMU_TEST_CPU, tam_el3, tam_el2,
					en0, en1, cg1rz);
}

static void pmuscope_amu_test_name(enum pmuscope_reg reg, char *buf, size_t len)
{
	pmuscope_model_reg_name(reg, buf, len);
}

/* ------------------------------------------------------- test-only profiles */

/*
 * AMUv1 with a second group of four auxiliary counters and no
 * AMCG1IDR_EL0 (AMUv1p1 only): every n < CG1NC exists. The event numbers
 * are invented (IMPLEMENTATION DEFINED, D16.3.2); cntfrq_hz 0 = default.
 */
static const struct pmuscope_model_amu_profile pmuscope_amu_test_aux_amu = {
	.aux_enabled = 0xf,
	.aux = {
		[0] = { 0x0021, PMUSCOPE_MODEL_AMU_SRC_BRANCHES },	/* BR_RETIRED */
		[1] = { 0x0006, PMUSCOPE_MODEL_AMU_SRC_LOADS },		/* LD_RETIRED */
		[2] = { 0x03f0, PMUSCOPE_MODEL_AMU_SRC_CONST },
		[3] = { 0x03f1, PMUSCOPE_MODEL_AMU_SRC_CYCLES },
	},
};

static const struct pmuscope_model_profile pmuscope_amu_test_aux = {
	.name = "amuv1-aux",
	.midr = 0x414fd0c1,
	.pfr0 = 0x1100100010112222,
	.dfr0 = 0x0000000010305408,
	.pmcr = 0x410c3000,
	.amcfgr = 0x11003f07,		/* NCG 1, HDBG, SIZE 63, 8 counters */
	.amcgcr = 0x00000404,		/* CG1NC 4, CG0NC 4 */
	.amu = &pmuscope_amu_test_aux_amu,
};

/* The Neoverse-N1-like ID values with no AMU profile: the defaults. */
static const struct pmuscope_model_profile pmuscope_amu_test_noprof = {
	.name = "amuv1-defaults",
	.midr = 0x414fd0c1,
	.pfr0 = 0x1100100010112222,
	.dfr0 = 0x0000000010305408,
	.pmcr = 0x410c3000,
	.amcfgr = 0x01003f03,
	.amcgcr = 0x00000004,
};

/*
 * Cortex-A510-like r1p1 (MIDR 0x411fd461), with erratum 2457168: the
 * constant counter counts too fast. The model does not otherwise model
 * the A510; 24 MHz is an invented, typical pre-Armv8.6 CNTFRQ. Also the
 * driver's AMU suite's (pmuscope_amu_test.c).
 */
static const struct pmuscope_model_amu_profile pmuscope_amu_test_a510_amu = {
	.cntfrq_hz = 24000000,
	.const_broken = true,
};

const struct pmuscope_model_profile pmuscope_amu_test_a510 = {
	.name = "cortex-a510-like",
	.midr = 0x411fd461,
	.pfr0 = 0x1100100010112222,
	.dfr0 = 0x0000000010305408,
	.pmcr = 0x410c3000,
	.amcfgr = 0x01003f03,
	.amcgcr = 0x00000004,
	.amu = &pmuscope_amu_test_a510_amu,
};

/*
 * A piece of work: 1 ms busy out of 1.234567 ms. Its system counter ticks
 * are 1,000,000 at 1 GHz, 100,000 at 100 MHz, 62,500 at 62.5 MHz, 24,000
 * at 24 MHz.
 */
static const struct pmuscope_model_work pmuscope_amu_test_work = {
	.ns = 1234567,
	.idle_ns = 234567,
	.cycles = 2500000,
	.insts = 1800000,
	.loads = 400000,
	.stores = 200000,
	.branches = 300000,
	.mispredicts = 3000,
	.mem_stall_cycles = 700000,
	.el = 1,
};

/* ------------------------------------------------------ ID registers */

struct pmuscope_amu_test_prof_case {
	const struct pmuscope_model_profile *prof;
};

static const struct pmuscope_amu_test_prof_case pmuscope_amu_test_prof_cases[] = {
	{ &pmuscope_model_neoverse_n1 },
	{ &pmuscope_model_v94 },
	{ &pmuscope_amu_test_aux },
	{ &pmuscope_amu_test_noprof },
};

static void pmuscope_amu_test_prof_desc(const struct pmuscope_amu_test_prof_case *c,
					char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->prof->name);
}

KUNIT_ARRAY_PARAM(pmuscope_amu_test_prof, pmuscope_amu_test_prof_cases,
		  pmuscope_amu_test_prof_desc);

/*
 * The ID values the driver reads are valid. Arm ARM D24.6.1 AMCFGR_EL0:
 * SIZE "the value of this field is 0b111111" (64-bit counters), HDBG "This
 * feature must be supported, and so this bit is 0b1", N = counters in all
 * groups - 1, NCG = groups - 1. D24.6.3 AMCGCR_EL0: CG0NC "Reads as 0x04",
 * CG1NC 0..16. D24.6.2 AMCG1IDR_EL0 (AMUv1p1): which counters n < CG1NC
 * exist.
 */
static void pmuscope_amu_test_id_values(struct kunit *test)
{
	const struct pmuscope_model_profile *p =
		((const struct pmuscope_amu_test_prof_case *)test->param_value)->prof;
	unsigned int ver = FIELD_GET(PMUSCOPE_PFR0_AMU, p->pfr0);
	u64 cfgr, gcr, cg1 = 0;
	unsigned int nc1;

	pmuscope_amu_test_reset(p);
	cfgr = pmuscope_amu_test_rd(PMUSCOPE_REG_AMCFGR_EL0);
	gcr = pmuscope_amu_test_rd(PMUSCOPE_REG_AMCGCR_EL0);
	nc1 = FIELD_GET(PMUSCOPE_AMCGCR_CG1NC, gcr);
	if (nc1)
		cg1 = GENMASK(nc1 - 1, 0);
	if (ver >= PMUSCOPE_AMU_V1P1)
		cg1 &= FIELD_GET(PMUSCOPE_AMCG1IDR_CNTEN,
				 pmuscope_amu_test_rd(PMUSCOPE_REG_AMCG1IDR_EL0));

	KUNIT_EXPECT_EQ_MSG(test, FIELD_GET(PMUSCOPE_AMCFGR_SIZE, cfgr), 63,
			    "%s AMCFGR 0x%llx", p->name, cfgr);
	KUNIT_EXPECT_EQ_MSG(test, FIELD_GET(PMUSCOPE_AMCFGR_HDBG, cfgr), 1,
			    "%s AMCFGR 0x%llx", p->name, cfgr);
	KUNIT_EXPECT_EQ_MSG(test, FIELD_GET(PMUSCOPE_AMCGCR_CG0NC, gcr), 4,
			    "%s AMCGCR 0x%llx", p->name, gcr);
	KUNIT_EXPECT_LE_MSG(test, nc1, 16, "%s AMCGCR 0x%llx", p->name, gcr);
	KUNIT_EXPECT_EQ_MSG(test, FIELD_GET(PMUSCOPE_AMCFGR_NCG, cfgr), nc1 ? 1 : 0,
			    "%s AMCFGR 0x%llx AMCGCR 0x%llx", p->name, cfgr, gcr);
	KUNIT_EXPECT_EQ_MSG(test, FIELD_GET(PMUSCOPE_AMCFGR_N, cfgr) + 1,
			    4 + hweight64(cg1),
			    "%s AMCFGR 0x%llx, group 1 counters 0x%llx", p->name,
			    cfgr, cg1);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

/* --------------------------------------------------- group 0 event types */

struct pmuscope_amu_test_type_case {
	const struct pmuscope_model_profile *prof;
	enum pmuscope_reg reg;
	u16 event;
};

static const struct pmuscope_amu_test_type_case pmuscope_amu_test_cg0_cases[] = {
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_AMEVTYPER0(0), 0x0011 },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_AMEVTYPER0(1), 0x4004 },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_AMEVTYPER0(2), 0x0008 },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_AMEVTYPER0(3), 0x4005 },
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVTYPER0(0), 0x0011 },
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVTYPER0(1), 0x4004 },
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVTYPER0(2), 0x0008 },
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVTYPER0(3), 0x4005 },
};

static void pmuscope_amu_test_type_desc(const struct pmuscope_amu_test_type_case *c,
					char *d)
{
	char name[32];

	pmuscope_amu_test_name(c->reg, name, sizeof(name));
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s %s = 0x%04x", c->prof->name, name,
		 c->event);
}

KUNIT_ARRAY_PARAM(pmuscope_amu_test_cg0, pmuscope_amu_test_cg0_cases,
		  pmuscope_amu_test_type_desc);

/*
 * Arm ARM D24.6.13 AMEVTYPER0<n>_EL0.evtCount: "architecturally mandated
 * for each architected counter": 0x0011 (n == 0), 0x4004 (1), 0x0008 (2),
 * 0x4005 (3); D16.3.1. Read-only, bits [63:16] RES0.
 */
static void pmuscope_amu_test_cg0_types(struct kunit *test)
{
	const struct pmuscope_amu_test_type_case *c = test->param_value;
	u64 v;

	pmuscope_amu_test_reset(c->prof);
	v = pmuscope_amu_test_rd(c->reg);
	KUNIT_EXPECT_EQ_MSG(test, v, (u64)c->event, "%s AMEVTYPER0 0x%llx",
			    c->prof->name, v);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

/* ------------------------------------------------- rates from a workload */

struct pmuscope_amu_test_rate_case {
	const char *what;
	const struct pmuscope_model_profile *prof;
	enum pmuscope_reg reg;
	u64 expect;		/* after pmuscope_amu_test_work */
};

static const struct pmuscope_amu_test_rate_case pmuscope_amu_test_rate_cases[] = {
	{ "CPU_CYCLES = cycles", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_REG_AMEVCNTR0(0), 2500000 },
	{ "CNT_CYCLES = 1 ms at 100 MHz", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_REG_AMEVCNTR0(1), 100000 },
	{ "INST_RETIRED = insts", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_REG_AMEVCNTR0(2), 1800000 },
	{ "STALL_BACKEND_MEM = mem stalls", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_REG_AMEVCNTR0(3), 700000 },
	{ "CPU_CYCLES = cycles", &pmuscope_model_v94,
	  PMUSCOPE_REG_AMEVCNTR0(0), 2500000 },
	{ "CNT_CYCLES = 1 ms at 1 GHz", &pmuscope_model_v94,
	  PMUSCOPE_REG_AMEVCNTR0(1), 1000000 },
	{ "INST_RETIRED = insts", &pmuscope_model_v94,
	  PMUSCOPE_REG_AMEVCNTR0(2), 1800000 },
	{ "STALL_BACKEND_MEM = mem stalls", &pmuscope_model_v94,
	  PMUSCOPE_REG_AMEVCNTR0(3), 700000 },
	{ "aux 0 BR_RETIRED = branches", &pmuscope_model_v94,
	  PMUSCOPE_REG_AMEVCNTR1(0), 300000 },
	{ "aux 2 constant rate = ticks at 1 GHz", &pmuscope_model_v94,
	  PMUSCOPE_REG_AMEVCNTR1(2), 1000000 },
	{ "aux 0 BR_RETIRED = branches", &pmuscope_amu_test_aux,
	  PMUSCOPE_REG_AMEVCNTR1(0), 300000 },
	{ "aux 1 LD_RETIRED = loads", &pmuscope_amu_test_aux,
	  PMUSCOPE_REG_AMEVCNTR1(1), 400000 },
	{ "aux 2 constant rate = ticks at 62.5 MHz", &pmuscope_amu_test_aux,
	  PMUSCOPE_REG_AMEVCNTR1(2), 62500 },
	{ "aux 3 = cycles", &pmuscope_amu_test_aux,
	  PMUSCOPE_REG_AMEVCNTR1(3), 2500000 },
	{ "default CNT_CYCLES = 1 ms at 62.5 MHz", &pmuscope_amu_test_noprof,
	  PMUSCOPE_REG_AMEVCNTR0(1), 62500 },
	{ "default CPU_CYCLES = cycles", &pmuscope_amu_test_noprof,
	  PMUSCOPE_REG_AMEVCNTR0(0), 2500000 },
};

static void pmuscope_amu_test_rate_desc(const struct pmuscope_amu_test_rate_case *c,
					char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s: %s", c->prof->name, c->what);
}

KUNIT_ARRAY_PARAM(pmuscope_amu_test_rate, pmuscope_amu_test_rate_cases,
		  pmuscope_amu_test_rate_desc);

/*
 * Arm ARM D16.3.1: CPU_CYCLES "increments on every cycle when the PE is
 * not in WFI or WFE state"; CNT_CYCLES "increments at a constant frequency
 * ... equal to the rate of increment of the System counter"; INST_RETIRED
 * "defined identically to INST_RETIRED in the FEAT_PMUv3 architecture";
 * STALL_BACKEND_MEM counts memory stall cycles. D16.3.2: an auxiliary
 * counter counts its IMPLEMENTATION DEFINED event. Two runs count twice.
 */
static void pmuscope_amu_test_rates(struct kunit *test)
{
	const struct pmuscope_amu_test_rate_case *c = test->param_value;
	u64 v;

	pmuscope_amu_test_reset(c->prof);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(c->reg), 0);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	v = pmuscope_amu_test_rd(c->reg);
	KUNIT_EXPECT_EQ_MSG(test, v, c->expect, "%s: %s", c->prof->name, c->what);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	v = pmuscope_amu_test_rd(c->reg);
	KUNIT_EXPECT_EQ_MSG(test, v, 2 * c->expect, "%s: %s, twice",
			    c->prof->name, c->what);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

/* ------------------------------------------------------- idle not counted */

/* Every implemented counter of both groups, as the driver would list them. */
static unsigned int pmuscope_amu_test_counters(const struct pmuscope_model_profile *p,
					       enum pmuscope_reg *regs)
{
	unsigned int n, nr = 0;

	for (n = 0; n < PMUSCOPE_AMU_CG0_NR; n++)
		regs[nr++] = PMUSCOPE_REG_AMEVCNTR0(n);
	for (n = 0; n < PMUSCOPE_NR_AMEVCNTR1; n++)
		if (pmuscope_model_implements(p, PMUSCOPE_REG_AMEVCNTR1(n)))
			regs[nr++] = PMUSCOPE_REG_AMEVCNTR1(n);
	return nr;
}

/*
 * Arm ARM D16.3.1: CPU_CYCLES and CNT_CYCLES: "When the PE is in WFI or WFE
 * state, this counter does not increment"; INST_RETIRED and
 * STALL_BACKEND_MEM have nothing to count there. amu.rst: "When in WFI or
 * WFE these counters do not increment." Idle time adds nothing to any
 * counter, the constant one included; a work that is partly idle counts
 * as its busy part alone.
 */
static void pmuscope_amu_test_idle(struct kunit *test)
{
	const struct pmuscope_model_profile *p =
		((const struct pmuscope_amu_test_prof_case *)test->param_value)->prof;
	struct pmuscope_model_work idle = { .ns = 5000000, .idle_ns = 5000000 };
	struct pmuscope_model_work busy = pmuscope_amu_test_work;
	enum pmuscope_reg regs[PMUSCOPE_AMU_CG0_NR + PMUSCOPE_NR_AMEVCNTR1];
	u64 once[ARRAY_SIZE(regs)];
	unsigned int i, nr;
	char name[32];

	pmuscope_amu_test_reset(p);
	nr = pmuscope_amu_test_counters(p, regs);
	pmuscope_amu_test_fw(false, false, 0xffff, 0xffff, false);
	pmuscope_amu_test_run(&idle);
	for (i = 0; i < nr; i++) {
		pmuscope_amu_test_name(regs[i], name, sizeof(name));
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_amu_test_rd(regs[i]), 0,
				    "%s %s after 5 ms in WFI", p->name, name);
	}

	/* The same busy time, without idle then with 10 ms more of it. */
	busy.idle_ns = 0;
	busy.ns = pmuscope_amu_test_work.ns - pmuscope_amu_test_work.idle_ns;
	pmuscope_amu_test_run(&busy);
	for (i = 0; i < nr; i++)
		once[i] = pmuscope_amu_test_rd(regs[i]);
	busy.idle_ns = 10000000;
	busy.ns += busy.idle_ns;
	pmuscope_amu_test_run(&busy);
	for (i = 0; i < nr; i++) {
		pmuscope_amu_test_name(regs[i], name, sizeof(name));
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_amu_test_rd(regs[i]), 2 * once[i],
				    "%s %s: busy %llu ns, idle %llu ns", p->name, name,
				    busy.ns - busy.idle_ns, busy.idle_ns);
	}
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

/* ------------------------------------------- constant counter, exactly */

struct pmuscope_amu_test_rem_case {
	const struct pmuscope_model_profile *prof;
	u64 busy_ns;		/* per run */
	u64 idle_ns;		/* per run */
	unsigned int runs;
	u64 expect;		/* floor(runs x busy_ns x CNTFRQ / 10^9) */
};

static const struct pmuscope_amu_test_rem_case pmuscope_amu_test_rem_cases[] = {
	{ &pmuscope_model_neoverse_n1, 7, 0, 1000, 700 },
	{ &pmuscope_model_neoverse_n1, 13, 5, 777, 1010 },
	{ &pmuscope_amu_test_noprof, 7, 0, 1001, 437 },
	{ &pmuscope_amu_test_noprof, 1, 3, 999, 62 },
	{ &pmuscope_amu_test_aux, 3, 0, 1000, 187 },
	{ &pmuscope_model_v94, 3, 1, 100, 300 },
	{ &pmuscope_model_neoverse_n1, 1500000001ULL, 0, 3, 450000000 },
	{ &pmuscope_model_v94, 1000000000000ULL, 0, 3, 3000000000000ULL },
};

static void pmuscope_amu_test_rem_desc(const struct pmuscope_amu_test_rem_case *c,
				       char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s: %u runs of %llu ns busy + %llu idle",
		 c->prof->name, c->runs, c->busy_ns, c->idle_ns);
}

KUNIT_ARRAY_PARAM(pmuscope_amu_test_rem, pmuscope_amu_test_rem_cases,
		  pmuscope_amu_test_rem_desc);

/*
 * Arm ARM D16.3.1 CNT_CYCLES: the rate of the System counter, whose
 * effective frequency is CNTFRQ_EL0 (D12.1.2): over any number of runs the
 * count is floor(busy ns x CNTFRQ / 10^9), the fraction of a tick carried
 * from run to run, the same as one run of the whole time.
 */
static void pmuscope_amu_test_remainder(struct kunit *test)
{
	const struct pmuscope_amu_test_rem_case *c = test->param_value;
	struct pmuscope_model_work w = {
		.ns = c->busy_ns + c->idle_ns,
		.idle_ns = c->idle_ns,
	};
	u64 many, one;
	unsigned int i;

	pmuscope_amu_test_reset(c->prof);
	for (i = 0; i < c->runs; i++)
		pmuscope_amu_test_run(&w);
	many = pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(1));

	pmuscope_amu_test_reset(c->prof);
	w.ns = c->runs * w.ns;
	w.idle_ns = c->runs * w.idle_ns;
	pmuscope_amu_test_run(&w);
	one = pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(1));

	KUNIT_EXPECT_EQ_MSG(test, many, c->expect, "%u runs of %llu ns at %u Hz",
			    c->runs, c->busy_ns,
			    pmuscope_model_amu_cntfrq(c->prof));
	KUNIT_EXPECT_EQ_MSG(test, one, c->expect, "one run of %llu ns at %u Hz",
			    c->runs * c->busy_ns, pmuscope_model_amu_cntfrq(c->prof));
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

/* ------------------------------------------------- group 1 event types */

static const struct pmuscope_amu_test_type_case pmuscope_amu_test_cg1_cases[] = {
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVTYPER1(0), 0x0021 },
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVTYPER1(2), 0x03f0 },
	{ &pmuscope_amu_test_aux, PMUSCOPE_REG_AMEVTYPER1(0), 0x0021 },
	{ &pmuscope_amu_test_aux, PMUSCOPE_REG_AMEVTYPER1(1), 0x0006 },
	{ &pmuscope_amu_test_aux, PMUSCOPE_REG_AMEVTYPER1(2), 0x03f0 },
	{ &pmuscope_amu_test_aux, PMUSCOPE_REG_AMEVTYPER1(3), 0x03f1 },
};

KUNIT_ARRAY_PARAM(pmuscope_amu_test_cg1, pmuscope_amu_test_cg1_cases,
		  pmuscope_amu_test_type_desc);

/*
 * Arm ARM D24.6.14 AMEVTYPER1<n>_EL0.evtCount: "It is IMPLEMENTATION
 * DEFINED what values are supported by each counter"; D16.3.2: auxiliary
 * counters count PMU events or IMPLEMENTATION DEFINED ones. The profile's
 * (invented) types read back; counting is in pmuscope_amu_test_rates.
 */
static void pmuscope_amu_test_cg1_types(struct kunit *test)
{
	const struct pmuscope_amu_test_type_case *c = test->param_value;
	u64 v;

	pmuscope_amu_test_reset(c->prof);
	v = pmuscope_amu_test_rd(c->reg);
	KUNIT_EXPECT_EQ_MSG(test, v, (u64)c->event, "%s AMEVTYPER1 0x%llx",
			    c->prof->name, v);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

/* ----------------------------------------- which group 1 counters exist */

struct pmuscope_amu_test_exist_case {
	const struct pmuscope_model_profile *prof;
	enum pmuscope_reg reg;
	bool exists;
};

static const struct pmuscope_amu_test_exist_case pmuscope_amu_test_exist_cases[] = {
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMCG1IDR_EL0, true },
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMCNTENSET1_EL0, true },
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVCNTR1(0), true },
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVCNTR1(1), false },	/* the hole */
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVTYPER1(1), false },	/* the hole */
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVCNTR1(2), true },
	{ &pmuscope_model_v94, PMUSCOPE_REG_AMEVCNTR1(3), false },	/* n >= CG1NC */
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_AMCG1IDR_EL0, false }, /* AMUv1 */
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_AMCNTENSET1_EL0, false },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_AMCNTENCLR1_EL0, false },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_AMEVCNTR1(0), false },
	{ &pmuscope_amu_test_aux, PMUSCOPE_REG_AMEVCNTR1(3), true },
	{ &pmuscope_amu_test_aux, PMUSCOPE_REG_AMCG1IDR_EL0, false },
};

static void pmuscope_amu_test_exist_desc(const struct pmuscope_amu_test_exist_case *c,
					 char *d)
{
	char name[32];

	pmuscope_amu_test_name(c->reg, name, sizeof(name));
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s %s %s", c->prof->name, name,
		 c->exists ? "exists" : "UNDEFINED");
}

KUNIT_ARRAY_PARAM(pmuscope_amu_test_exist, pmuscope_amu_test_exist_cases,
		  pmuscope_amu_test_exist_desc);

/*
 * Arm ARM D24.6.2 AMCG1IDR_EL0: "present only when FEAT_AMUv1p1 is
 * implemented. Otherwise ... UNDEFINED"; bits [n] say which AMEVCNTR1<n>
 * exist. D24.6.10 and D24.6.14 accessors: "elsif m >= NUM_AMU_CG1_MONITORS
 * then UNDEFINED; elsif !IsG1ActivityMonitorImplemented(m) then
 * UNDEFINED". D24.6.5, D24.6.7: AMCNTENCLR1/SET1_EL0 are UNDEFINED without
 * auxiliary counters (AMCFGR_EL0.NCG == 0). An UNDEFINED access is a
 * violation; the hole never counts, even when firmware sets its enable bit
 * (RAZ/WI).
 */
static void pmuscope_amu_test_cg1_exist(struct kunit *test)
{
	const struct pmuscope_amu_test_exist_case *c = test->param_value;
	struct pmuscope_model_cpu *m = pmuscope_amu_test_model();
	char name[32];

	pmuscope_amu_test_name(c->reg, name, sizeof(name));
	pmuscope_amu_test_reset(c->prof);
	pmuscope_amu_test_fw(false, false, 0xffff, 0xffff, false);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	pmuscope_amu_test_rd(c->reg);
	KUNIT_EXPECT_EQ_MSG(test, m->violations, c->exists ? 0 : 1, "%s %s",
			    c->prof->name, name);
	if (!c->exists)
		KUNIT_EXPECT_EQ_MSG(test, m->first_violation.reg, c->reg,
				    "%s %s", c->prof->name, name);

	if (c->prof == &pmuscope_model_v94) {
		KUNIT_EXPECT_EQ(test, c->prof->amcg1idr, 0x5);
		KUNIT_EXPECT_EQ(test, m->amu.cnt1[1], 0);
		KUNIT_EXPECT_EQ(test, m->amu.cnten1, 0x5);
	}
}

/* --------------------------------------------------------------- CG1RZ */

struct pmuscope_amu_test_cg1rz_case {
	const struct pmuscope_model_profile *prof;
	bool cg1rz;		/* firmware's AMCR_EL0.CG1RZ */
	bool reads_zero;	/* expected */
};

static const struct pmuscope_amu_test_cg1rz_case pmuscope_amu_test_cg1rz_cases[] = {
	{ &pmuscope_model_v94, false, false },
	{ &pmuscope_model_v94, true, true },
	{ &pmuscope_amu_test_aux, true, false },	/* AMUv1: CG1RZ is RES0 */
};

static void pmuscope_amu_test_cg1rz_desc(const struct pmuscope_amu_test_cg1rz_case *c,
					 char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s CG1RZ=%d", c->prof->name, c->cg1rz);
}

KUNIT_ARRAY_PARAM(pmuscope_amu_test_cg1rz, pmuscope_amu_test_cg1rz_cases,
		  pmuscope_amu_test_cg1rz_desc);

/*
 * Arm ARM D24.6.8 AMCR_EL0.CG1RZ (FEAT_AMUv1p1, else RES0): with 1, reads
 * of AMEVCNTR1<n>_EL0 below the highest implemented Exception level
 * "return a zero value" (D24.6.10 pseudocode: "elsif !IsHighestEL(PSTATE.EL)
 * && AMCR_EL0.CG1RZ == '1' then X[t, 64] = Zeros(64)"). The counters go on
 * counting; the architected group is not affected.
 */
static void pmuscope_amu_test_cg1rz(struct kunit *test)
{
	const struct pmuscope_amu_test_cg1rz_case *c = test->param_value;
	u64 amcr, aux, core;

	pmuscope_amu_test_reset(c->prof);
	pmuscope_amu_test_fw(false, false, 0xf, 0xffff, c->cg1rz);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	amcr = pmuscope_amu_test_rd(PMUSCOPE_REG_AMCR_EL0);
	aux = pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR1(0));
	core = pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(0));

	KUNIT_EXPECT_EQ_MSG(test, FIELD_GET(PMUSCOPE_AMCR_CG1RZ, amcr),
			    (u64)(c->cg1rz && c->reads_zero),
			    "%s AMCR_EL0 0x%llx", c->prof->name, amcr);
	KUNIT_EXPECT_EQ_MSG(test, aux, c->reads_zero ? 0 : 300000,
			    "%s CG1RZ=%d: AMEVCNTR10 %llu", c->prof->name, c->cg1rz, aux);
	KUNIT_EXPECT_EQ_MSG(test, core, 2500000, "%s AMEVCNTR00", c->prof->name);

	/* Counting went on underneath: clearing CG1RZ shows it. */
	pmuscope_amu_test_fw(false, false, 0xf, 0xffff, false);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR1(0)), 300000);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

/* ----------------------------------------- counters firmware left disabled */

struct pmuscope_amu_test_en_case {
	const struct pmuscope_model_profile *prof;
	u16 en0, en1;		/* AMCNTENSET0/1_EL0 firmware leaves */
};

static const struct pmuscope_amu_test_en_case pmuscope_amu_test_en_cases[] = {
	{ &pmuscope_model_neoverse_n1, 0x0, 0x0 },	/* broken firmware */
	{ &pmuscope_model_neoverse_n1, 0x5, 0x0 },
	{ &pmuscope_model_v94, 0xf, 0x0 },		/* TF-A's default */
	{ &pmuscope_model_v94, 0xa, 0x4 },
	{ &pmuscope_amu_test_aux, 0x3, 0xa },
};

static void pmuscope_amu_test_en_desc(const struct pmuscope_amu_test_en_case *c,
				      char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s AMCNTENSET0 0x%x AMCNTENSET1 0x%x",
		 c->prof->name, c->en0, c->en1);
}

KUNIT_ARRAY_PARAM(pmuscope_amu_test_en, pmuscope_amu_test_en_cases,
		  pmuscope_amu_test_en_desc);

/*
 * Arm ARM D24.6.6, D24.6.7 AMCNTENSET0/1_EL0.P<n>: 0 "means that
 * AMEVCNTR0<n>_EL0 is disabled"; D24.6.4, D24.6.5: the CLR registers read
 * the same bits. A disabled counter does not count and keeps its value
 * (D24.6.9, D24.6.10: only an AMU reset or the highest EL changes it):
 * never enabled since reset, it reads 0 (amu.rst: "If not enabled these
 * will read as 0"); disabled after counting, it reads its frozen count.
 */
static void pmuscope_amu_test_disabled(struct kunit *test)
{
	const struct pmuscope_amu_test_en_case *c = test->param_value;
	enum pmuscope_reg regs[PMUSCOPE_AMU_CG0_NR + PMUSCOPE_NR_AMEVCNTR1];
	u64 first[ARRAY_SIZE(regs)], v;
	unsigned int i, nr, n;
	bool on, in_cg0;
	char name[32];

	pmuscope_amu_test_reset(c->prof);
	nr = pmuscope_amu_test_counters(c->prof, regs);
	pmuscope_amu_test_fw(false, false, c->en0, c->en1, false);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMCNTENSET0_EL0), c->en0);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMCNTENCLR0_EL0), c->en0);
	if (pmuscope_model_implements(c->prof, PMUSCOPE_REG_AMCNTENSET1_EL0)) {
		KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMCNTENSET1_EL0),
				c->en1);
		KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMCNTENCLR1_EL0),
				c->en1);
	}

	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	for (i = 0; i < nr; i++) {
		in_cg0 = regs[i] < PMUSCOPE_REG_AMEVCNTR0(PMUSCOPE_NR_AMEVCNTR0);
		n = in_cg0 ? regs[i] - PMUSCOPE_REG_AMEVCNTR0(0) :
			     regs[i] - PMUSCOPE_REG_AMEVCNTR1(0);
		on = (in_cg0 ? c->en0 : c->en1) & BIT(n);
		first[i] = pmuscope_amu_test_rd(regs[i]);
		pmuscope_amu_test_name(regs[i], name, sizeof(name));
		if (on)
			KUNIT_EXPECT_NE_MSG(test, first[i], 0, "%s %s enabled",
					    c->prof->name, name);
		else
			KUNIT_EXPECT_EQ_MSG(test, first[i], 0, "%s %s never enabled",
					    c->prof->name, name);
	}

	/* Firmware now disables everything: the counts freeze. */
	pmuscope_amu_test_fw(false, false, 0, 0, false);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	for (i = 0; i < nr; i++) {
		v = pmuscope_amu_test_rd(regs[i]);
		pmuscope_amu_test_name(regs[i], name, sizeof(name));
		KUNIT_EXPECT_EQ_MSG(test, v, first[i], "%s %s disabled: frozen",
				    c->prof->name, name);
	}
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

/* --------------------------------------------------------- firmware traps */

struct pmuscope_amu_test_tam_case {
	const struct pmuscope_model_profile *prof;
	bool tam_el3, tam_el2;
	enum pmuscope_reg reg;
};

static const struct pmuscope_amu_test_tam_case pmuscope_amu_test_tam_cases[] = {
	{ &pmuscope_model_neoverse_n1, false, false, PMUSCOPE_REG_AMEVCNTR0(0) },
	{ &pmuscope_model_neoverse_n1, true, false, PMUSCOPE_REG_AMEVCNTR0(0) },
	{ &pmuscope_model_neoverse_n1, false, true, PMUSCOPE_REG_AMEVCNTR0(1) },
	{ &pmuscope_model_neoverse_n1, true, false, PMUSCOPE_REG_AMCFGR_EL0 },
	{ &pmuscope_model_neoverse_n1, false, true, PMUSCOPE_REG_AMUSERENR_EL0 },
	{ &pmuscope_model_neoverse_n1, true, true, PMUSCOPE_REG_AMCNTENSET0_EL0 },
	{ &pmuscope_model_v94, true, false, PMUSCOPE_REG_AMCG1IDR_EL0 },
	{ &pmuscope_model_v94, false, true, PMUSCOPE_REG_AMEVTYPER1(0) },
	{ &pmuscope_model_v94, true, false, PMUSCOPE_REG_AMCR_EL0 },
};

static void pmuscope_amu_test_tam_desc(const struct pmuscope_amu_test_tam_case *c,
				       char *d)
{
	char name[32];

	pmuscope_amu_test_name(c->reg, name, sizeof(name));
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s CPTR_EL3.TAM=%d CPTR_EL2.TAM=%d %s",
		 c->prof->name, c->tam_el3, c->tam_el2, name);
}

KUNIT_ARRAY_PARAM(pmuscope_amu_test_tam, pmuscope_amu_test_tam_cases,
		  pmuscope_amu_test_tam_desc);

/*
 * Arm ARM D24.2.39 CPTR_EL3.TAM: "Accesses from EL2, EL1, and EL0 to
 * Activity Monitor registers are trapped to EL3"; D24.2.38 CPTR_EL2.TAM:
 * "Accesses from EL1 and EL0 ... are trapped to EL2, when EL2 is enabled".
 * The accessor pseudocode of each register (AMCG1IDR_EL0 too) at EL1:
 * AArch64.SystemAccessTrap(EL2 or EL3, 0x18). The kernel cannot handle
 * such an exception: a violation, the read gives 0. Counting goes on.
 */
static void pmuscope_amu_test_tam(struct kunit *test)
{
	const struct pmuscope_amu_test_tam_case *c = test->param_value;
	struct pmuscope_model_cpu *m = pmuscope_amu_test_model();
	bool trapped = c->tam_el3 || c->tam_el2;
	u64 open, v;
	char name[32];

	pmuscope_amu_test_name(c->reg, name, sizeof(name));
	pmuscope_amu_test_reset(c->prof);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	open = pmuscope_amu_test_rd(c->reg);

	pmuscope_amu_test_fw(c->tam_el3, c->tam_el2, 0xf, 0xffff, false);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	v = pmuscope_amu_test_rd(c->reg);
	KUNIT_EXPECT_EQ_MSG(test, m->violations, trapped ? 1 : 0, "%s %s",
			    c->prof->name, name);
	KUNIT_EXPECT_EQ_MSG(test, m->amu.traps, trapped ? 1 : 0, "%s %s",
			    c->prof->name, name);
	if (trapped) {
		KUNIT_EXPECT_EQ_MSG(test, v, 0, "%s trapped %s", c->prof->name, name);
		KUNIT_EXPECT_EQ(test, m->first_violation.reg, c->reg);
		KUNIT_EXPECT_FALSE(test, m->first_violation.write);
	}

	/* Firmware opens the trap: the counters counted all along. */
	pmuscope_amu_test_fw(false, false, 0xf, 0xffff, false);
	if (c->reg == PMUSCOPE_REG_AMEVCNTR0(0) || c->reg == PMUSCOPE_REG_AMEVCNTR0(1))
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_amu_test_rd(c->reg), 2 * open,
				    "%s %s after the trap opened", c->prof->name, name);
	KUNIT_EXPECT_EQ(test, m->violations, trapped ? 1 : 0);
}

/* ------------------------------------------------ the driver never writes */

struct pmuscope_amu_test_write_case {
	enum pmuscope_reg reg;
	u64 val;
};

static const struct pmuscope_amu_test_write_case pmuscope_amu_test_write_cases[] = {
	{ PMUSCOPE_REG_AMCR_EL0, PMUSCOPE_AMCR_CG1RZ },
	{ PMUSCOPE_REG_AMCFGR_EL0, 0 },
	{ PMUSCOPE_REG_AMCGCR_EL0, 0 },
	{ PMUSCOPE_REG_AMUSERENR_EL0, PMUSCOPE_AMUSERENR_EN },
	{ PMUSCOPE_REG_AMCNTENCLR0_EL0, 0xf },
	{ PMUSCOPE_REG_AMCNTENSET0_EL0, 0x0 },
	{ PMUSCOPE_REG_AMCG1IDR_EL0, 0xffff },
	{ PMUSCOPE_REG_AMCNTENCLR1_EL0, 0xffff },
	{ PMUSCOPE_REG_AMCNTENSET1_EL0, 0x2 },
	{ PMUSCOPE_REG_AMEVCNTR0(0), 0 },
	{ PMUSCOPE_REG_AMEVCNTR0(3), 1 },
	{ PMUSCOPE_REG_AMEVTYPER0(1), 0x11 },
	{ PMUSCOPE_REG_AMEVCNTR1(0), 0 },
	{ PMUSCOPE_REG_AMEVTYPER1(2), 0x21 },
};

static void pmuscope_amu_test_write_desc(const struct pmuscope_amu_test_write_case *c,
					 char *d)
{
	char name[32];

	pmuscope_amu_test_name(c->reg, name, sizeof(name));
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "v9.4-like: write 0x%llx to %s", c->val, name);
}

KUNIT_ARRAY_PARAM(pmuscope_amu_test_write, pmuscope_amu_test_write_cases,
		  pmuscope_amu_test_write_desc);

/*
 * Arm ARM D16.2.2: "AMUSERENR.EN is configurable at EL1, EL2, and EL3. All
 * other controls, as well as the value of the counters, are configurable
 * only at the highest implemented Exception level" (MSR pseudocode:
 * "elsif IsHighestEL(PSTATE.EL) then ... else UNDEFINED"); AMCFGR_EL0,
 * AMCGCR_EL0, AMCG1IDR_EL0 and AMEVTYPER0<n>_EL0 have no MSR at all.
 * pmuscope never grants EL0 access, so AMUSERENR_EL0 is read-only for it
 * too. Every write is a violation and changes nothing.
 */
static void pmuscope_amu_test_writes(struct kunit *test)
{
	const struct pmuscope_amu_test_write_case *c = test->param_value;
	struct pmuscope_model_cpu *m = pmuscope_amu_test_model();
	u64 before, after;
	char name[32];

	pmuscope_amu_test_name(c->reg, name, sizeof(name));
	pmuscope_amu_test_reset(&pmuscope_model_v94);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	before = pmuscope_amu_test_rd(c->reg);
	pmuscope_amu_test_wr(c->reg, c->val);
	after = pmuscope_amu_test_rd(c->reg);

	KUNIT_EXPECT_EQ_MSG(test, m->violations, 1, "write of %s", name);
	KUNIT_EXPECT_EQ(test, m->first_violation.reg, c->reg);
	KUNIT_EXPECT_TRUE(test, m->first_violation.write);
	KUNIT_EXPECT_EQ_MSG(test, after, before, "%s after the write", name);
	KUNIT_EXPECT_EQ(test, m->writes[c->reg], 0);
}

/* ------------------------------------------------ profiles without an AMU */

struct pmuscope_amu_test_none_case {
	const struct pmuscope_model_profile *prof;
	enum pmuscope_reg reg;
};

static const struct pmuscope_amu_test_none_case pmuscope_amu_test_none_cases[] = {
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_AMCFGR_EL0 },
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_AMEVCNTR0(0) },
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_AMUSERENR_EL0 },
	{ &pmuscope_model_no_pmu, PMUSCOPE_REG_AMCNTENSET0_EL0 },
	{ &pmuscope_model_no_pmu, PMUSCOPE_REG_AMEVTYPER0(1) },
	{ &pmuscope_model_impdef_pmu, PMUSCOPE_REG_AMCGCR_EL0 },
	{ &pmuscope_model_impdef_pmu, PMUSCOPE_REG_AMCR_EL0 },
	{ NULL, PMUSCOPE_REG_AMEVCNTR0(2) },
};

static void pmuscope_amu_test_none_desc(const struct pmuscope_amu_test_none_case *c,
					char *d)
{
	char name[32];

	pmuscope_amu_test_name(c->reg, name, sizeof(name));
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s %s",
		 c->prof ? c->prof->name : "unmodelled", name);
}

KUNIT_ARRAY_PARAM(pmuscope_amu_test_none, pmuscope_amu_test_none_cases,
		  pmuscope_amu_test_none_desc);

/*
 * Arm ARM D24.6.1 (and every AMU register page): "This register is present
 * only when FEAT_AMUv1 is implemented. Otherwise, direct accesses ... are
 * UNDEFINED"; ID_AA64PFR0_EL1.AMU = 0. A read or write is a violation, and
 * a workload counts nothing in an AMU the CPU does not have.
 */
static void pmuscope_amu_test_no_amu(struct kunit *test)
{
	const struct pmuscope_amu_test_none_case *c = test->param_value;
	struct pmuscope_model_cpu *m = pmuscope_amu_test_model();
	unsigned int n;
	char name[32];

	pmuscope_amu_test_name(c->reg, name, sizeof(name));
	pmuscope_amu_test_reset(c->prof);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_implements(c->prof, c->reg));
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_amu_test_rd(c->reg), 0, "read of %s", name);
	pmuscope_amu_test_wr(c->reg, 0);
	KUNIT_EXPECT_EQ_MSG(test, m->violations, 2, "%s: read and write of %s",
			    c->prof ? c->prof->name : "unmodelled", name);
	KUNIT_EXPECT_EQ(test, m->first_violation.reg, c->reg);
	for (n = 0; n < PMUSCOPE_NR_AMEVCNTR0; n++)
		KUNIT_EXPECT_EQ(test, m->amu.cnt0[n], 0);
	KUNIT_EXPECT_EQ(test, m->amu.cnten0, 0);
}

/* ---------------------------------------------------------- 64-bit wrap */

/*
 * Arm ARM D16.2.1: "Every activity monitor event counter is a 64-bit
 * wrapping counter ... The Activity Monitor architecture does not provide
 * support for overflow status indication or interrupts"; D24.6.1 AMCFGR_EL0
 * SIZE = 63. Firmware may preload a counter (highest EL, D24.6.9).
 */
static void pmuscope_amu_test_wrap(struct kunit *test)
{
	pmuscope_amu_test_reset(&pmuscope_model_v94);
	pmuscope_model_amu_set_counter(PMUSCOPE_AMU_TEST_CPU, PMUSCOPE_REG_AMEVCNTR0(0),
				       U64_MAX - 99);
	pmuscope_model_amu_set_counter(PMUSCOPE_AMU_TEST_CPU, PMUSCOPE_REG_AMEVCNTR1(0),
				       U64_MAX);
	pmuscope_model_amu_set_counter(PMUSCOPE_AMU_TEST_CPU, PMUSCOPE_REG_AMEVCNTR0(2),
				       0xffffffffULL);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(0)),
			2500000ULL - 100);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR1(0)),
			300000ULL - 1);
	/* No wrap at 2^32. */
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(2)),
			0xffffffffULL + 1800000);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

/* ------------------------------------------------- broken constant counter */

/*
 * Not an Arm ARM rule: Cortex-A510 erratum 2457168 (Linux
 * ARM64_ERRATUM_2457168): "AMEVCNTR01 increments incorrectly giving a
 * significantly higher output value"; Linux then never uses it. A profile
 * can say so (const_broken), for the driver's own workaround to be tested;
 * the model counts core cycles there. The other counters are correct.
 */
static void pmuscope_amu_test_const_broken(struct kunit *test)
{
	u64 ticks = 24000;	/* 1 ms at 24 MHz */
	u64 v;

	KUNIT_EXPECT_TRUE(test, pmuscope_amu_test_a510.amu->const_broken);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_v94.amu->const_broken);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_neoverse_n1.amu->const_broken);

	pmuscope_amu_test_reset(&pmuscope_amu_test_a510);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	v = pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(1));
	KUNIT_EXPECT_NE_MSG(test, v, ticks, "broken CNT_CYCLES %llu", v);
	KUNIT_EXPECT_GT_MSG(test, v, ticks, "broken CNT_CYCLES %llu", v);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(0)), 2500000);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(2)), 1800000);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

/* ---------------------------------------------------------- AMUSERENR_EL0 */

/*
 * Arm ARM D24.6.15 AMUSERENR_EL0.EN: 0 traps EL0 accesses to the AMU;
 * written at EL1/EL2 (Linux clears it: "Disable AMU access from EL0").
 * The driver reads what was set, and may not write it.
 */
static void pmuscope_amu_test_userenr(struct kunit *test)
{
	struct pmuscope_model_cpu *m = pmuscope_amu_test_model();

	pmuscope_amu_test_reset(&pmuscope_model_neoverse_n1);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMUSERENR_EL0), 0);
	pmuscope_model_amu_set_userenr(PMUSCOPE_AMU_TEST_CPU, true);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMUSERENR_EL0),
			PMUSCOPE_AMUSERENR_EN);
	KUNIT_EXPECT_EQ(test, m->violations, 0);
	pmuscope_amu_test_wr(PMUSCOPE_REG_AMUSERENR_EL0, 0);
	KUNIT_EXPECT_EQ(test, m->violations, 1);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMUSERENR_EL0),
			PMUSCOPE_AMUSERENR_EN);
}

/* ------------------------------------------------------------ power loss */

/*
 * Arm ARM D16.2.3: "When an AMU reset of the AMU power domain occurs, the
 * Activity Monitoring Unit is reset and the counters are reset to zero";
 * the enables reset to 0 (D24.6.4-D24.6.7). Firmware that neither saves
 * nor restores (amu.rst asks it to) leaves the driver counters that went
 * back to 0 and do not count until re-enabled.
 */
static void pmuscope_amu_test_power_loss(struct kunit *test)
{
	pmuscope_amu_test_reset(&pmuscope_model_v94);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(2)), 1800000);
	pmuscope_model_amu_power_loss(PMUSCOPE_AMU_TEST_CPU);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMCNTENSET0_EL0), 0);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMCNTENSET1_EL0), 0);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(2)), 0);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR1(0)), 0);
	pmuscope_amu_test_fw(false, false, 0xf, 0x5, false);
	pmuscope_amu_test_run(&pmuscope_amu_test_work);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR0(2)), 1800000);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_rd(PMUSCOPE_REG_AMEVCNTR1(0)), 300000);
	KUNIT_EXPECT_EQ(test, pmuscope_amu_test_model()->violations, 0);
}

static struct kunit_case pmuscope_amu_test_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_amu_test_id_values, pmuscope_amu_test_prof_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_cg0_types, pmuscope_amu_test_cg0_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_rates, pmuscope_amu_test_rate_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_idle, pmuscope_amu_test_prof_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_remainder, pmuscope_amu_test_rem_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_cg1_types, pmuscope_amu_test_cg1_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_cg1_exist, pmuscope_amu_test_exist_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_cg1rz, pmuscope_amu_test_cg1rz_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_disabled, pmuscope_amu_test_en_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_tam, pmuscope_amu_test_tam_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_writes, pmuscope_amu_test_write_gen_params),
	KUNIT_CASE_PARAM(pmuscope_amu_test_no_amu, pmuscope_amu_test_none_gen_params),
	KUNIT_CASE(pmuscope_amu_test_wrap),
	KUNIT_CASE(pmuscope_amu_test_const_broken),
	KUNIT_CASE(pmuscope_amu_test_userenr),
	KUNIT_CASE(pmuscope_amu_test_power_loss),
	{}
};

static struct kunit_suite pmuscope_amu_test_suite = {
	.name = "pmuscope_model_amu",
	.test_cases = pmuscope_amu_test_cases,
};

kunit_test_suites(&pmuscope_amu_test_suite);
