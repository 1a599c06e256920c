// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: per-CPU discovery, decoded from raw registers and probed through
 * the register model, for each CPU profile and module-parameter setting.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "pmuscope.h"
#include "pmuscope_model.h"

/*
 * The ID registers of a Neoverse-N1-like CPU whose profiling buffer a
 * higher Exception level owns (PMBIDR_EL1.P = 1): the two profiles below
 * differ only in which one, and so in how the other SPE registers behave.
 */
#define PMUSCOPE_TEST_N1_SPE_OWNED_IDS			\
	.midr = 0x414fd0c1,				\
	.pfr0 = 0x1100000010112222,			\
	.dfr0 = 0x0000000110305408,			\
	.pmcr = 0x410c3000,				\
	.pmceid0 = 0x0000003f7fff0f3f,			\
	.pmceid1 = 0x0000000000000e7f,			\
	.pmsidr = 0x0002603f,				\
	.pmbidr = 0x00000030

/* Owned by EL2: the other SPE registers behave as the default model's. */
static const struct pmuscope_model_profile pmuscope_test_n1_el2_spe = {
	.name = "neoverse-n1, SPE owned by EL2",
	PMUSCOPE_TEST_N1_SPE_OWNED_IDS,
};

/*
 * Kept by EL3 firmware (MDCR_EL3.NSPB): every SPE register but PMBIDR_EL1
 * traps (a model violation).
 */
static const struct pmuscope_model_profile pmuscope_test_n1_el3_spe = {
	.name = "neoverse-n1, SPE kept by EL3",
	PMUSCOPE_TEST_N1_SPE_OWNED_IDS,
	.spe = &pmuscope_model_spe_el3,
};

#define ALL		PMUSCOPE_ALL_UNITS
#define NO(u)		(PMUSCOPE_ALL_UNITS & ~BIT(PMUSCOPE_UNIT_##u))
#define A		PMUSCOPE_STATE_ABSENT
#define P		PMUSCOPE_STATE_PRESENT
#define D		PMUSCOPE_STATE_DISABLED
#define U		PMUSCOPE_STATE_UNAVAILABLE

struct pmuscope_disc_case {
	const char *desc;
	const struct pmuscope_model_profile *prof;
	unsigned long allowed;
	/* expected */
	enum pmuscope_unit_state pmu, snapshot, spe, amu;
	u8 pmuver, num_counters, evcnt_width, ccnt_width, amu_counters;
	unsigned int nr_events;
	u32 has_event;		/* must be listed */
	u32 lacks_event;	/* must not be listed */
};

static const struct pmuscope_disc_case pmuscope_disc_cases[] = {
	{ "cortex-a53 (AM62L)", &pmuscope_model_cortex_a53, ALL,
	  P, A, A, A, 1, 6, 32, 64, 0, 28, 0x11, 0x0e },
	{ "cortex-a53, pmu=0", &pmuscope_model_cortex_a53, NO(PMU),
	  D, A, A, A, 1, 0, 0, 0, 0, 0, 0xffff, 0x11 },
	{ "cortex-a53, spe=0 amu=0 snapshot=0", &pmuscope_model_cortex_a53,
	  BIT(PMUSCOPE_UNIT_PMU),
	  P, A, A, A, 1, 6, 32, 64, 0, 28, 0x00, 0x1b },
	{ "neoverse-n1", &pmuscope_model_neoverse_n1, ALL,
	  P, A, P, P, 4, 6, 32, 64, 4, 41, 0x4000, 0x4006 },
	{ "neoverse-n1, spe=0", &pmuscope_model_neoverse_n1, NO(SPE),
	  P, A, D, P, 4, 6, 32, 64, 4, 41, 0x03, 0x06 },
	{ "neoverse-n1, amu=0", &pmuscope_model_neoverse_n1, NO(AMU),
	  P, A, P, D, 4, 6, 32, 64, 0, 41, 0x24, 0x2c },
	{ "neoverse-n1, SPE owned by EL2", &pmuscope_test_n1_el2_spe, ALL,
	  P, A, U, A, 4, 6, 32, 64, 0, 41, 0x11, 0x4010 },
	{ "neoverse-n1, SPE kept by EL3 (MDCR_EL3.NSPB)", &pmuscope_test_n1_el3_spe, ALL,
	  P, A, U, A, 4, 6, 32, 64, 0, 41, 0x11, 0x4010 },
	{ "v9.4-like", &pmuscope_model_v94, ALL,
	  P, P, P, P, 9, 20, 64, 64, 6, 79, 0x400f, 0x4010 },
	{ "v9.4-like, snapshot=0", &pmuscope_model_v94, NO(SNAPSHOT),
	  P, D, P, P, 9, 20, 64, 64, 6, 79, 0x3f, 0x4010 },
	{ "v9.4-like, pmu=0", &pmuscope_model_v94, NO(PMU),
	  D, D, P, P, 9, 0, 0, 0, 6, 0, 0xffff, 0x11 },
	{ "no PMU (PMUVer 0)", &pmuscope_model_no_pmu, ALL,
	  A, A, A, A, 0, 0, 0, 0, 0, 0, 0xffff, 0x00 },
	{ "IMPLEMENTATION DEFINED PMU (PMUVer 0xF)", &pmuscope_model_impdef_pmu, ALL,
	  A, A, A, A, 15, 0, 0, 0, 0, 0, 0xffff, 0x11 },
};

static void pmuscope_disc_desc(const struct pmuscope_disc_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->desc);
}

KUNIT_ARRAY_PARAM(pmuscope_disc, pmuscope_disc_cases, pmuscope_disc_desc);

/* Raw values as the registers hold them, whether the probe reads them or not. */
static void pmuscope_regs_of(const struct pmuscope_model_profile *p,
			     struct pmuscope_id_regs *r)
{
	*r = (struct pmuscope_id_regs){
		.midr = p->midr, .dfr0 = p->dfr0, .dfr1 = p->dfr1,
		.pfr0 = p->pfr0, .pmcr = p->pmcr, .pmceid0 = p->pmceid0,
		.pmceid1 = p->pmceid1, .pmsidr = p->pmsidr,
		.pmbidr = p->pmbidr, .amcfgr = p->amcfgr, .amcgcr = p->amcgcr,
		.amcg1idr = p->amcg1idr,
	};
}

static void pmuscope_expect_caps(struct kunit *test,
				 const struct pmuscope_disc_case *c,
				 const struct pmuscope_cpu_caps *caps)
{
	KUNIT_EXPECT_EQ_MSG(test, caps->state[PMUSCOPE_UNIT_PMU], c->pmu,
			    "%s: pmu", c->desc);
	KUNIT_EXPECT_EQ_MSG(test, caps->state[PMUSCOPE_UNIT_SNAPSHOT],
			    c->snapshot, "%s: snapshot", c->desc);
	KUNIT_EXPECT_EQ_MSG(test, caps->state[PMUSCOPE_UNIT_SPE], c->spe,
			    "%s: spe", c->desc);
	KUNIT_EXPECT_EQ_MSG(test, caps->state[PMUSCOPE_UNIT_AMU], c->amu,
			    "%s: amu", c->desc);
	KUNIT_EXPECT_EQ_MSG(test, caps->pmuver, c->pmuver, "%s", c->desc);
	KUNIT_EXPECT_EQ_MSG(test, caps->num_counters, c->num_counters,
			    "%s: PMCR_EL0.N", c->desc);
	KUNIT_EXPECT_EQ_MSG(test, caps->evcnt_width, c->evcnt_width,
			    "%s: event counter width", c->desc);
	KUNIT_EXPECT_EQ_MSG(test, caps->ccnt_width, c->ccnt_width,
			    "%s: cycle counter width", c->desc);
	KUNIT_EXPECT_EQ_MSG(test, caps->amu_counters, c->amu_counters,
			    "%s: AMU counters", c->desc);
	KUNIT_EXPECT_EQ_MSG(test, bitmap_weight(caps->events, PMUSCOPE_EVENT_SLOTS),
			    c->nr_events, "%s: number of events", c->desc);
	if (c->has_event != 0xffff)
		KUNIT_EXPECT_TRUE_MSG(test, pmuscope_caps_has_event(caps, c->has_event),
				      "%s: event 0x%04x missing", c->desc,
				      c->has_event);
	KUNIT_EXPECT_FALSE_MSG(test, pmuscope_caps_has_event(caps, c->lacks_event),
			       "%s: event 0x%04x listed", c->desc, c->lacks_event);
}

/* Pure decoding of the raw register values. */
static void pmuscope_test_decode(struct kunit *test)
{
	const struct pmuscope_disc_case *c = test->param_value;
	struct pmuscope_cpu_caps *caps;
	struct pmuscope_id_regs regs;

	caps = kunit_kzalloc(test, sizeof(*caps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, caps);
	pmuscope_regs_of(c->prof, &regs);
	pmuscope_caps_decode(&regs, c->allowed, caps);
	pmuscope_expect_caps(test, c, caps);
}

/* The probe against the model: same result, and only allowed registers read. */
static void pmuscope_test_probe(struct kunit *test)
{
	const struct pmuscope_disc_case *c = test->param_value;
	struct pmuscope_model_cpu *m;
	struct pmuscope_cpu_caps *caps;
	unsigned int cpu, r, writes = 0;

	caps = kunit_kzalloc(test, sizeof(*caps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, caps);
	pmuscope_model_reset_all(c->prof);

	cpu = get_cpu();
	pmuscope_probe_local(c->allowed, caps);
	put_cpu();

	pmuscope_expect_caps(test, c, caps);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_model_total_violations(), 0,
			    "%s: registers the profile lacks were touched", c->desc);

	m = pmuscope_model_get(cpu);
	/* The seam really routed the probe into the model. */
	KUNIT_ASSERT_EQ_MSG(test, m->reads[PMUSCOPE_REG_MIDR_EL1], 1,
			    "%s: MIDR_EL1 not read through the model", c->desc);
	for (r = 0; r < PMUSCOPE_REG_NR; r++)
		writes += m->writes[r];
	KUNIT_EXPECT_EQ_MSG(test, writes, 0, "%s: the probe wrote a register",
			    c->desc);
	if (c->pmu != P)
		KUNIT_EXPECT_EQ_MSG(test, m->reads[PMUSCOPE_REG_PMCR_EL0] +
				    m->reads[PMUSCOPE_REG_PMCEID0_EL0], 0,
				    "%s: PMU registers read", c->desc);
	if (c->spe == A || c->spe == D)
		KUNIT_EXPECT_EQ_MSG(test, m->reads[PMUSCOPE_REG_PMSIDR_EL1] +
				    m->reads[PMUSCOPE_REG_PMBIDR_EL1], 0,
				    "%s: SPE registers read", c->desc);
	if (c->spe == U)
		KUNIT_EXPECT_EQ_MSG(test, m->reads[PMUSCOPE_REG_PMSIDR_EL1], 0,
				    "%s: PMSIDR_EL1 read with PMBIDR_EL1.P = 1", c->desc);
	if (c->amu != P)
		KUNIT_EXPECT_EQ_MSG(test, m->reads[PMUSCOPE_REG_AMCFGR_EL0] +
				    m->reads[PMUSCOPE_REG_AMCGCR_EL0], 0,
				    "%s: AMU registers read", c->desc);
	/* Snapshot access needs MDCR_EL3.EnPMSS: discovery never tries. */
	KUNIT_EXPECT_EQ_MSG(test, m->reads[PMUSCOPE_REG_PMSSCR_EL1], 0,
			    "%s: PMSSCR_EL1 read", c->desc);
}

struct pmuscope_probe_call {
	unsigned long allowed;
	struct pmuscope_cpu_caps caps;
	unsigned int ran_on;
};

static void pmuscope_probe_ipi(void *info)
{
	struct pmuscope_probe_call *call = info;

	call->ran_on = smp_processor_id();
	pmuscope_probe_local(call->allowed, &call->caps);
}

/* big.LITTLE: each CPU reports its own units, probed on itself. */
static void pmuscope_test_heterogeneous(struct kunit *test)
{
	const struct pmuscope_model_profile *profs[2] = {
		&pmuscope_model_cortex_a53, &pmuscope_model_neoverse_n1,
	};
	struct pmuscope_probe_call *call;
	unsigned int cpus[2], n = 0, cpu, i;
	int ret;

	for_each_online_cpu(cpu) {
		if (n < 2)
			cpus[n++] = cpu;
	}
	if (n < 2)
		kunit_skip(test, "needs two online CPUs");

	call = kunit_kzalloc(test, sizeof(*call), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, call);
	pmuscope_model_reset_all(NULL);
	for (i = 0; i < 2; i++)
		pmuscope_model_reset(cpus[i], profs[i]);

	for (i = 0; i < 2; i++) {
		call->allowed = PMUSCOPE_ALL_UNITS;
		ret = smp_call_function_single(cpus[i], pmuscope_probe_ipi,
					       call, 1);
		KUNIT_ASSERT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, call->ran_on, cpus[i]);
		KUNIT_EXPECT_EQ_MSG(test, call->caps.regs.midr, profs[i]->midr,
				    "cpu%u", cpus[i]);
		KUNIT_EXPECT_EQ_MSG(test, call->caps.state[PMUSCOPE_UNIT_SPE],
				    i ? P : A, "cpu%u (%s)", cpus[i], profs[i]->name);
		KUNIT_EXPECT_EQ_MSG(test, call->caps.state[PMUSCOPE_UNIT_AMU],
				    i ? P : A, "cpu%u (%s)", cpus[i], profs[i]->name);
	}
	KUNIT_EXPECT_EQ(test, pmuscope_model_total_violations(), 0);
}

static struct kunit_case pmuscope_discovery_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_decode, pmuscope_disc_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_probe, pmuscope_disc_gen_params),
	KUNIT_CASE(pmuscope_test_heterogeneous),
	{}
};

static struct kunit_suite pmuscope_discovery_suite = {
	.name = "pmuscope_discovery",
	.test_cases = pmuscope_discovery_cases,
};

/* ------------------------------------------------------------ event table */
static void pmuscope_test_event_table(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < pmuscope_nr_events; i++) {
		const struct pmuscope_event_desc *e = &pmuscope_events[i];

		KUNIT_EXPECT_GE_MSG(test, pmuscope_event_slot(e->number), 0,
				    "%s 0x%04x outside PMCEID", e->name, e->number);
		KUNIT_EXPECT_TRUE_MSG(test, e->desc && *e->desc, "%s", e->name);
		for (j = i + 1; j < pmuscope_nr_events; j++) {
			KUNIT_EXPECT_LT_MSG(test, e->number, pmuscope_events[j].number,
					    "%s/%s not sorted or duplicated", e->name,
					    pmuscope_events[j].name);
			KUNIT_EXPECT_STRNEQ(test, e->name, pmuscope_events[j].name);
		}
	}
}

struct pmuscope_lookup_case {
	const char *name;
	int number;	/* -1: unknown */
};

static const struct pmuscope_lookup_case pmuscope_lookup_cases[] = {
	{ "CPU_CYCLES", 0x11 }, { "cpu_cycles", 0x11 }, { "Inst_Retired", 0x08 },
	{ "SW_INCR", 0x00 }, { "STALL_SLOT", 0x3f }, { "CNT_CYCLES", 0x4004 },
	{ "ST_ALIGN_LAT", 0x4022 }, { "PMU_HOVFS", 0x400f },
	{ "MEM_ACCESS_CHECKED_WR", 0x4026 }, { "CPU_CYCLE", -1 }, { "", -1 },
	{ "CPU_CYCLES ", -1 },
};

static void pmuscope_lookup_desc(const struct pmuscope_lookup_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "'%s'", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_lookup, pmuscope_lookup_cases, pmuscope_lookup_desc);

static void pmuscope_test_event_lookup(struct kunit *test)
{
	const struct pmuscope_lookup_case *c = test->param_value;
	const struct pmuscope_event_desc *e = pmuscope_event_by_name(c->name);

	if (c->number < 0) {
		KUNIT_EXPECT_NULL_MSG(test, e, "'%s' resolved", c->name);
		return;
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, e, "'%s' not found", c->name);
	KUNIT_EXPECT_EQ(test, e->number, c->number);
	KUNIT_EXPECT_PTR_EQ(test, pmuscope_event_by_number(c->number), e);
}

struct pmuscope_slot_case {
	u32 number;
	int slot;
};

static const struct pmuscope_slot_case pmuscope_slot_cases[] = {
	{ 0x0000, 0 }, { 0x003f, 63 }, { 0x0040, -1 }, { 0x00c0, -1 },
	{ 0x3fff, -1 }, { 0x4000, 64 }, { 0x403f, 127 }, { 0x4040, -1 },
	{ 0x8000, -1 }, { 0xffffffff, -1 },
};

static void pmuscope_slot_desc(const struct pmuscope_slot_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "0x%x", c->number);
}

KUNIT_ARRAY_PARAM(pmuscope_slot, pmuscope_slot_cases, pmuscope_slot_desc);

static void pmuscope_test_event_slot(struct kunit *test)
{
	const struct pmuscope_slot_case *c = test->param_value;

	KUNIT_EXPECT_EQ_MSG(test, pmuscope_event_slot(c->number), c->slot,
			    "event 0x%x", c->number);
}

/* The core tables: a CPU's MIDR_EL1 picks its type, variant and revision aside. */
#define PMUSCOPE_TEST_A53	0x410fd034	/* r0p4, the AM62L's */
#define PMUSCOPE_TEST_N1	0x413fd0c1	/* Neoverse N1 r3p1 */

static void pmuscope_test_core_of(struct kunit *test)
{
	int a53 = pmuscope_core_of(PMUSCOPE_TEST_A53);

	KUNIT_ASSERT_GE(test, a53, 0);
	KUNIT_EXPECT_EQ(test, pmuscope_core_of(0x410fd030), a53);
	KUNIT_EXPECT_EQ(test, pmuscope_core_of(0x411fd03f), a53);
	KUNIT_EXPECT_EQ(test, pmuscope_core_of(0x420f1000), a53);	/* Cavium's A53 */
	KUNIT_EXPECT_GE(test, pmuscope_core_of(PMUSCOPE_TEST_N1), 0);
	KUNIT_EXPECT_NE(test, pmuscope_core_of(PMUSCOPE_TEST_N1), a53);
	KUNIT_EXPECT_EQ(test, pmuscope_core_of(0x410fd0f0), -ENOENT);	/* no such part */
	KUNIT_EXPECT_EQ(test, pmuscope_core_of(0x510fd030), -ENOENT);	/* other implementer */
	KUNIT_EXPECT_EQ(test, pmuscope_core_of(0), -ENOENT);
}

static void pmuscope_test_core_event_lookup(struct kunit *test)
{
	const struct pmuscope_core_event *e;

	e = pmuscope_core_event_by_name(PMUSCOPE_TEST_A53, "LD_DEP_STALL");
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->number, 0xe7);
	e = pmuscope_core_event_by_name(PMUSCOPE_TEST_A53, "prefetch_linefill");
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->number, 0xc2);
	/* the N1 has no LD_DEP_STALL; its own names are not the A53's */
	KUNIT_EXPECT_NULL(test, pmuscope_core_event_by_name(PMUSCOPE_TEST_N1, "LD_DEP_STALL"));
	KUNIT_EXPECT_NULL(test, pmuscope_core_event_by_name(PMUSCOPE_TEST_A53,
							    "L1D_CACHE_REFILL_OUTER"));
	e = pmuscope_core_event_by_name(PMUSCOPE_TEST_N1, "L1D_CACHE_REFILL_OUTER");
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->number, 0x45);
	/* an unknown MIDR has no names; common events are not in the tables */
	KUNIT_EXPECT_NULL(test, pmuscope_core_event_by_name(0x410fd0f0, "LD_DEP_STALL"));
	KUNIT_EXPECT_NULL(test, pmuscope_core_event_by_name(PMUSCOPE_TEST_A53, "CPU_CYCLES"));
	KUNIT_EXPECT_NULL(test, pmuscope_core_event_by_name(PMUSCOPE_TEST_A53, "LD_DEP_STAL"));
}

/* A selection written to an A53's select takes its names, an N1's not. */
static void pmuscope_test_core_event_select(struct kunit *test)
{
	struct pmuscope_event *evs = kunit_kcalloc(test, PMUSCOPE_MAX_EVENTS,
						   sizeof(*evs), GFP_KERNEL);
	char *str = kunit_kzalloc(test, 64, GFP_KERNEL);
	u32 nr = 0;

	KUNIT_ASSERT_NOT_NULL(test, evs);
	KUNIT_ASSERT_NOT_NULL(test, str);
	strscpy(str, "ld_dep_stall:u,CPU_CYCLES", 64);
	KUNIT_ASSERT_EQ(test, pmuscope_parse_selection(str, 1, PMUSCOPE_TEST_A53, evs, &nr), 0);
	KUNIT_ASSERT_EQ(test, nr, 2);
	KUNIT_EXPECT_EQ(test, evs[0].event, 0xe7);
	KUNIT_EXPECT_EQ(test, evs[0].flags, PMUSCOPE_EV_RAW | PMUSCOPE_EV_EL0);
	KUNIT_EXPECT_EQ(test, evs[1].event, 0x11);
	KUNIT_EXPECT_FALSE(test, evs[1].flags & PMUSCOPE_EV_RAW);
	strscpy(str, "CPU_CYCLES LD_DEP_STALL", 64);
	KUNIT_EXPECT_EQ(test, pmuscope_parse_selection(str, 1, PMUSCOPE_TEST_N1, evs, &nr),
			-ENOENT);
	strscpy(str, "LD_DEP_STALL", 64);
	KUNIT_EXPECT_EQ(test, pmuscope_parse_selection(str, 1, 0, evs, &nr), -ENOENT);
}

static struct kunit_case pmuscope_events_cases[] = {
	KUNIT_CASE(pmuscope_test_event_table),
	KUNIT_CASE(pmuscope_test_core_of),
	KUNIT_CASE(pmuscope_test_core_event_lookup),
	KUNIT_CASE(pmuscope_test_core_event_select),
	KUNIT_CASE_PARAM(pmuscope_test_event_lookup, pmuscope_lookup_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_event_slot, pmuscope_slot_gen_params),
	{}
};

static struct kunit_suite pmuscope_events_suite = {
	.name = "pmuscope_events",
	.test_cases = pmuscope_events_cases,
};

kunit_test_suites(&pmuscope_discovery_suite, &pmuscope_events_suite);
