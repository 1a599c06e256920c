// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: one workload drives every unit of a modelled CPU, and the units
 * agree. The PMU is programmed the driver's way (PMEVTYPER<n>_EL0,
 * PMCNTENSET_EL0, PMCR_EL0.E through pmuscope_model_write_cpu()); the AMU
 * counts by itself, as firmware enabled it. Then, per the Arm ARM:
 * - D16.3.1: the AMU's INST_RETIRED is "defined identically to
 *   INST_RETIRED in the FEAT_PMUv3 architecture", and D16.3: "When a
 *   common event is available to both the Performance Monitors
 *   architecture and the Activity Monitors architecture within one
 *   implementation, both architectures use the same event number": PMU
 *   INST_RETIRED (0x08), CPU_CYCLES (0x11, and PMCCNTR_EL0) and
 *   STALL_BACKEND_MEM (0x4005) count what AMEVCNTR02, AMEVCNTR00 and
 *   AMEVCNTR03 count, and an auxiliary counter typed with a PMU event
 *   number what a PMU counter of that event counts;
 * - the AMU's CNT_CYCLES is the system counter's ticks of the busy time;
 * - in WFI/WFE nothing counts: the AMU by D16.3.1, the PMU's events
 *   because the workload's idle time retires and stalls nothing.
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/math64.h>
#include <linux/time64.h>

#include "pmuscope_model.h"

#define PMUSCOPE_WORK_TEST_CPU		0
#define PMUSCOPE_WORK_TEST_BR_RETIRED	0x0021

static u64 pmuscope_work_test_rd(enum pmuscope_reg reg)
{
	return pmuscope_model_read_cpu(PMUSCOPE_WORK_TEST_CPU, reg);
}

static void pmuscope_work_test_wr(enum pmuscope_reg reg, u64 val)
{
	pmuscope_model_write_cpu(PMUSCOPE_WORK_TEST_CPU, reg, val);
}

/* PMU event counters the test programs: index = n of PMEVCNTR<n>_EL0. */
enum {
	PMUSCOPE_WORK_TEST_PMU_INST,
	PMUSCOPE_WORK_TEST_PMU_CYCLES,
	PMUSCOPE_WORK_TEST_PMU_MEM_STALL,
	PMUSCOPE_WORK_TEST_PMU_BR,
	PMUSCOPE_WORK_TEST_PMU_NR,
};

static const u16 pmuscope_work_test_events[PMUSCOPE_WORK_TEST_PMU_NR] = {
	[PMUSCOPE_WORK_TEST_PMU_INST] = PMUSCOPE_AMU_EVT_INST_RETIRED,
	[PMUSCOPE_WORK_TEST_PMU_CYCLES] = PMUSCOPE_AMU_EVT_CPU_CYCLES,
	[PMUSCOPE_WORK_TEST_PMU_MEM_STALL] = PMUSCOPE_AMU_EVT_STALL_BACKEND_MEM,
	[PMUSCOPE_WORK_TEST_PMU_BR] = PMUSCOPE_WORK_TEST_BR_RETIRED,
};

/*
 * Every event at EL0, EL1 and EL2 (PMEVTYPER<n>_EL0.NSH = 1, P = U = 0:
 * Arm ARM D13.7 "Event filtering"), like the AMU, which the Exception
 * level does not affect (D16.2.1); the cycle counter too; then PMCR_EL0.E.
 */
static void pmuscope_work_test_program_pmu(void)
{
	unsigned int i;

	for (i = 0; i < PMUSCOPE_WORK_TEST_PMU_NR; i++)
		pmuscope_work_test_wr(PMUSCOPE_REG_PMEVTYPER(i),
				      FIELD_PREP(PMUSCOPE_EVTYPER_EVTCOUNT,
						 pmuscope_work_test_events[i]) |
				      PMUSCOPE_EVTYPER_NSH);
	pmuscope_work_test_wr(PMUSCOPE_REG_PMCCFILTR_EL0, PMUSCOPE_EVTYPER_NSH);
	pmuscope_work_test_wr(PMUSCOPE_REG_PMCNTENSET_EL0,
			      GENMASK(PMUSCOPE_WORK_TEST_PMU_NR - 1, 0) |
			      PMUSCOPE_CNT_CYCLE);
	pmuscope_work_test_wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E | PMUSCOPE_PMCR_LC);
}

/* Several pieces of work at each Exception level, busy, partly and all idle. */
static const struct pmuscope_model_work pmuscope_work_test_works[] = {
	{ .ns = 1000000, .cycles = 2000000, .insts = 1500000, .loads = 300000,
	  .stores = 100000, .branches = 200000, .mispredicts = 2000,
	  .mem_stall_cycles = 400000, .el = 0 },
	{ .ns = 3000000, .idle_ns = 2500000, .cycles = 1000000, .insts = 400000,
	  .loads = 90000, .stores = 40000, .branches = 70000, .mispredicts = 900,
	  .mem_stall_cycles = 300000, .el = 1 },
	{ .ns = 777777, .idle_ns = 111111, .cycles = 1333331, .insts = 999999,
	  .loads = 123456, .stores = 65432, .branches = 111111, .mispredicts = 1111,
	  .mem_stall_cycles = 77777, .el = 2 },
	{ .ns = 5000000, .idle_ns = 5000000, .el = 1 },
	{ .ns = 13, .cycles = 39, .insts = 20, .branches = 3, .el = 0 },
};

struct pmuscope_work_test_case {
	const struct pmuscope_model_profile *prof;
};

static const struct pmuscope_work_test_case pmuscope_work_test_cases[] = {
	{ &pmuscope_model_neoverse_n1 },
	{ &pmuscope_model_v94 },
};

static void pmuscope_work_test_desc(const struct pmuscope_work_test_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->prof->name);
}

KUNIT_ARRAY_PARAM(pmuscope_work_test, pmuscope_work_test_cases,
		  pmuscope_work_test_desc);

/* The PMU counter programmed with @event, or -1. */
static int pmuscope_work_test_pmu_idx(u16 event)
{
	unsigned int i;

	for (i = 0; i < PMUSCOPE_WORK_TEST_PMU_NR; i++)
		if (pmuscope_work_test_events[i] == event)
			return i;
	return -1;
}

static void pmuscope_work_test_consistency(struct kunit *test)
{
	const struct pmuscope_model_profile *p =
		((const struct pmuscope_work_test_case *)test->param_value)->prof;
	u64 cycles = 0, insts = 0, stalls = 0, busy = 0, pmu, amu, ticks, ev;
	unsigned int i, nchecked = 0;
	int idx;

	pmuscope_model_reset(PMUSCOPE_WORK_TEST_CPU, p);
	pmuscope_work_test_program_pmu();
	for (i = 0; i < ARRAY_SIZE(pmuscope_work_test_works); i++) {
		const struct pmuscope_model_work *w = &pmuscope_work_test_works[i];

		pmuscope_model_run(PMUSCOPE_WORK_TEST_CPU, w);
		cycles += w->cycles;
		insts += w->insts;
		stalls += w->mem_stall_cycles;
		busy += w->ns - w->idle_ns;
	}

	/* INST_RETIRED: PMU event counter = AMEVCNTR02 = the work's. */
	pmu = pmuscope_work_test_rd(PMUSCOPE_REG_PMEVCNTR(PMUSCOPE_WORK_TEST_PMU_INST));
	amu = pmuscope_work_test_rd(PMUSCOPE_REG_AMEVCNTR0(PMUSCOPE_AMU_CG0_INST));
	KUNIT_EXPECT_EQ_MSG(test, pmu, amu, "%s INST_RETIRED: PMU %llu AMU %llu",
			    p->name, pmu, amu);
	KUNIT_EXPECT_EQ_MSG(test, amu, insts, "%s INST_RETIRED", p->name);

	/* CPU_CYCLES: PMU event counter = PMCCNTR_EL0 = AMEVCNTR00. */
	pmu = pmuscope_work_test_rd(PMUSCOPE_REG_PMEVCNTR(PMUSCOPE_WORK_TEST_PMU_CYCLES));
	amu = pmuscope_work_test_rd(PMUSCOPE_REG_AMEVCNTR0(PMUSCOPE_AMU_CG0_CORE));
	KUNIT_EXPECT_EQ_MSG(test, pmu, amu, "%s CPU_CYCLES: PMU %llu AMU %llu",
			    p->name, pmu, amu);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_work_test_rd(PMUSCOPE_REG_PMCCNTR_EL0), amu,
			    "%s PMCCNTR_EL0 vs AMU core cycles", p->name);
	KUNIT_EXPECT_EQ_MSG(test, amu, cycles, "%s CPU_CYCLES", p->name);

	/* STALL_BACKEND_MEM: PMU event counter = AMEVCNTR03. */
	pmu = pmuscope_work_test_rd(PMUSCOPE_REG_PMEVCNTR(PMUSCOPE_WORK_TEST_PMU_MEM_STALL));
	amu = pmuscope_work_test_rd(PMUSCOPE_REG_AMEVCNTR0(PMUSCOPE_AMU_CG0_MEM_STALL));
	KUNIT_EXPECT_EQ_MSG(test, pmu, amu, "%s STALL_BACKEND_MEM: PMU %llu AMU %llu",
			    p->name, pmu, amu);
	KUNIT_EXPECT_EQ_MSG(test, amu, stalls, "%s STALL_BACKEND_MEM", p->name);

	/* CNT_CYCLES: the system counter's ticks of the busy time only. */
	ticks = div_u64(busy * pmuscope_model_amu_cntfrq(p), NSEC_PER_SEC);
	amu = pmuscope_work_test_rd(PMUSCOPE_REG_AMEVCNTR0(PMUSCOPE_AMU_CG0_CONST));
	KUNIT_EXPECT_EQ_MSG(test, amu, ticks, "%s CNT_CYCLES for %llu ns busy at %u Hz",
			    p->name, busy, pmuscope_model_amu_cntfrq(p));

	/* Auxiliary counters typed with a PMU event the test counts. */
	for (i = 0; i < PMUSCOPE_NR_AMEVCNTR1; i++) {
		if (!pmuscope_model_implements(p, PMUSCOPE_REG_AMEVCNTR1(i)))
			continue;
		ev = FIELD_GET(PMUSCOPE_AMEVTYPER_EVTCOUNT,
			       pmuscope_work_test_rd(PMUSCOPE_REG_AMEVTYPER1(i)));
		idx = pmuscope_work_test_pmu_idx(ev);
		if (idx < 0)
			continue;
		pmu = pmuscope_work_test_rd(PMUSCOPE_REG_PMEVCNTR(idx));
		amu = pmuscope_work_test_rd(PMUSCOPE_REG_AMEVCNTR1(i));
		KUNIT_EXPECT_EQ_MSG(test, pmu, amu,
				    "%s event 0x%llx: PMU %llu, AMEVCNTR1%u %llu",
				    p->name, ev, pmu, i, amu);
		nchecked++;
	}
	if (p == &pmuscope_model_v94)
		KUNIT_EXPECT_EQ_MSG(test, nchecked, 1,
				    "%s: BR_RETIRED auxiliary counter", p->name);

	/*
	 * SPE on the same workload path (pmuscope_model_run()):
	 * pmuscope_spe_test_count in pmuscope_model_spe_test.c counts the
	 * SPU's SAMPLE_POP/FEED/FILTRATE on PMU counters against the
	 * workload's operations and the records written against
	 * operations / interval within the jitter (D17.3.4).
	 */

	KUNIT_EXPECT_EQ(test, pmuscope_model_get(PMUSCOPE_WORK_TEST_CPU)->violations, 0);
}

/* Every counter of both units the test reads. */
static unsigned int pmuscope_work_test_all(const struct pmuscope_model_profile *p,
					   enum pmuscope_reg *regs)
{
	unsigned int i, nr = 0;

	for (i = 0; i < PMUSCOPE_WORK_TEST_PMU_NR; i++)
		regs[nr++] = PMUSCOPE_REG_PMEVCNTR(i);
	regs[nr++] = PMUSCOPE_REG_PMCCNTR_EL0;
	for (i = 0; i < PMUSCOPE_AMU_CG0_NR; i++)
		regs[nr++] = PMUSCOPE_REG_AMEVCNTR0(i);
	for (i = 0; i < PMUSCOPE_NR_AMEVCNTR1; i++)
		if (pmuscope_model_implements(p, PMUSCOPE_REG_AMEVCNTR1(i)))
			regs[nr++] = PMUSCOPE_REG_AMEVCNTR1(i);
	return nr;
}

/*
 * Nothing counts during idle_ns: AMU (D16.3.1 "When the PE is in WFI or
 * WFE state, this counter does not increment", CNT_CYCLES included) and
 * PMU alike, at every Exception level the idle work is taken at.
 */
static void pmuscope_work_test_idle(struct kunit *test)
{
	const struct pmuscope_model_profile *p =
		((const struct pmuscope_work_test_case *)test->param_value)->prof;
	enum pmuscope_reg regs[PMUSCOPE_WORK_TEST_PMU_NR + 1 + PMUSCOPE_AMU_CG0_NR +
			       PMUSCOPE_NR_AMEVCNTR1];
	u64 before[ARRAY_SIZE(regs)], v;
	struct pmuscope_model_work idle = { .ns = 2000000, .idle_ns = 2000000 };
	unsigned int i, nr;
	char name[32];

	pmuscope_model_reset(PMUSCOPE_WORK_TEST_CPU, p);
	pmuscope_work_test_program_pmu();
	nr = pmuscope_work_test_all(p, regs);
	pmuscope_model_run(PMUSCOPE_WORK_TEST_CPU, &pmuscope_work_test_works[0]);
	for (i = 0; i < nr; i++)
		before[i] = pmuscope_work_test_rd(regs[i]);

	for (idle.el = 0; idle.el <= 2; idle.el++)
		pmuscope_model_run(PMUSCOPE_WORK_TEST_CPU, &idle);
	for (i = 0; i < nr; i++) {
		v = pmuscope_work_test_rd(regs[i]);
		pmuscope_model_reg_name(regs[i], name, sizeof(name));
		KUNIT_EXPECT_EQ_MSG(test, v, before[i], "%s %s after 6 ms of WFI",
				    p->name, name);
		KUNIT_EXPECT_NE_MSG(test, v, 0, "%s %s counted the busy work",
				    p->name, name);
	}
	KUNIT_EXPECT_EQ(test, pmuscope_model_get(PMUSCOPE_WORK_TEST_CPU)->violations, 0);
}

static struct kunit_case pmuscope_work_test_kcases[] = {
	KUNIT_CASE_PARAM(pmuscope_work_test_consistency, pmuscope_work_test_gen_params),
	KUNIT_CASE_PARAM(pmuscope_work_test_idle, pmuscope_work_test_gen_params),
	{}
};

static struct kunit_suite pmuscope_work_test_suite = {
	.name = "pmuscope_model_work",
	.test_cases = pmuscope_work_test_kcases,
};

kunit_test_suites(&pmuscope_work_test_suite);
