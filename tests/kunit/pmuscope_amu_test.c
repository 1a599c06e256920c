// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the driver's AMU unit (drivers/pmuscope_amu.c) against the
 * register model's Activity Monitors, on the CPU the test runs on: the
 * probe of each profile, what firmware decides (disabled counters,
 * AMCR_EL0.CG1RZ, a trapping CPTR_EL3.TAM with amu=0), counts lost across
 * a power-down or a reset, and never a write to AMU state (every AMU
 * register is RO in the model's table: a write would be a violation).
 */

#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/irqflags.h>
#include <linux/sched.h>

#include "pmuscope.h"
#include "pmuscope_model.h"

struct pmuscope_atest {
	unsigned int cpu;		/* the test stays on it */
	unsigned int violations;	/* the model's, before the test */
	struct pmuscope_cpu_caps caps;
	struct pmuscope_amu_info info;
	struct pmuscope_amu amu;
};

static int pmuscope_atest_init(struct kunit *test)
{
	struct pmuscope_atest *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	t->cpu = raw_smp_processor_id();
	set_cpus_allowed_ptr(current, cpumask_of(t->cpu));
	t->violations = pmuscope_model_total_violations();
	test->priv = t;
	return 0;
}

/* Whatever the case did: no access the hardware would refuse, no write. */
static void pmuscope_atest_exit(struct kunit *test)
{
	struct pmuscope_atest *t = test->priv;

	KUNIT_EXPECT_EQ_MSG(test, pmuscope_model_total_violations(), t->violations,
			    "an AMU access the architecture forbids (a write, a hole, a trap)");
	pmuscope_model_amu_set_kernel(t->cpu, true);
}

/* Reset the CPU's model to @prof, probe as the driver does at online. */
static void pmuscope_atest_probe(struct pmuscope_atest *t,
				 const struct pmuscope_model_profile *prof,
				 unsigned long allowed)
{
	pmuscope_model_reset(t->cpu, prof);
	memset(&t->amu, 0, sizeof(t->amu));
	pmuscope_probe_local(allowed, &t->caps);
	pmuscope_amu_probe(&t->amu, &t->info, &t->caps);
}

static void pmuscope_atest_read(struct pmuscope_atest *t, struct pmuscope_amu_cpu *rec)
{
	unsigned long flags;

	memset(rec, 0, sizeof(*rec));
	local_irq_save(flags);
	pmuscope_amu_read_local(&t->amu, &t->info, rec);
	local_irq_restore(flags);
}

static void pmuscope_atest_pm(struct pmuscope_atest *t, bool power_loss)
{
	unsigned long flags;

	local_irq_save(flags);
	pmuscope_amu_pm_enter(&t->amu, &t->info);
	local_irq_restore(flags);
	if (power_loss)
		pmuscope_model_amu_power_loss(t->cpu);
	local_irq_save(flags);
	pmuscope_amu_pm_exit(&t->amu, &t->info);
	local_irq_restore(flags);
}

/* ------------------------------------------------------------------ probe */
struct pmuscope_probe_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	bool allowed;			/* the AMU bit of the probe's units */
	bool usable;
	enum pmuscope_unit_state state;
	u8 version, nr0, nr1;
	u16 impl1;
	u16 type1[3];			/* group 1's first three types */
	bool const_broken;
};

static const struct pmuscope_probe_case pmuscope_probe_cases[] = {
	{ "cortex-a53: no AMU", &pmuscope_model_cortex_a53, true, false,
	  PMUSCOPE_STATE_ABSENT },
	{ "neoverse-n1: AMUv1, group 0 only", &pmuscope_model_neoverse_n1, true, true,
	  PMUSCOPE_STATE_PRESENT, 1, 4, 0, 0 },
	{ "v9.4-like: AMUv1p1, group 1 with a hole", &pmuscope_model_v94, true, true,
	  PMUSCOPE_STATE_PRESENT, 2, 4, 3, 0x5, { 0x0021, 0, 0x03f0 } },
	{ "neoverse-n1, amu=0: not read", &pmuscope_model_neoverse_n1, false, false,
	  PMUSCOPE_STATE_DISABLED, 1 },
	{ "cortex-a510-like: CNT_CYCLES broken", &pmuscope_amu_test_a510, true, true,
	  PMUSCOPE_STATE_PRESENT, 1, 4, 0, 0, { }, true },
};

static void pmuscope_probe_desc(const struct pmuscope_probe_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_probe, pmuscope_probe_cases, pmuscope_probe_desc);

static void pmuscope_test_amu_probe(struct kunit *test)
{
	static const u16 type0[] = { 0x0011, 0x4004, 0x0008, 0x4005 };
	const struct pmuscope_probe_case *c = test->param_value;
	struct pmuscope_atest *t = test->priv;
	unsigned long allowed = BIT(PMUSCOPE_UNIT_PMU) |
				(c->allowed ? BIT(PMUSCOPE_UNIT_AMU) : 0);
	unsigned int n;

	pmuscope_atest_probe(t, c->prof, allowed);
	KUNIT_EXPECT_EQ(test, t->caps.state[PMUSCOPE_UNIT_AMU], c->state);
	KUNIT_EXPECT_EQ(test, t->info.usable, c->usable);
	KUNIT_EXPECT_EQ(test, t->info.version, c->version);
	if (!c->usable)
		return;
	KUNIT_EXPECT_EQ(test, t->info.nr0, c->nr0);
	KUNIT_EXPECT_EQ(test, t->info.nr1, c->nr1);
	KUNIT_EXPECT_EQ(test, t->info.impl1, c->impl1);
	KUNIT_EXPECT_EQ(test, t->info.const_broken, c->const_broken);
	KUNIT_EXPECT_FALSE(test, t->info.aux_zero);
	for (n = 0; n < ARRAY_SIZE(type0); n++)
		KUNIT_EXPECT_EQ_MSG(test, t->info.type0[n], type0[n], "type0[%u]", n);
	for (n = 0; n < ARRAY_SIZE(c->type1); n++)
		KUNIT_EXPECT_EQ_MSG(test, t->info.type1[n], c->type1[n], "type1[%u]", n);
}

/*
 * amu=0 where firmware traps the AMU (CPTR_EL3.TAM): the driver must not
 * touch a single AMU register, which would be an exception the kernel
 * cannot handle. The model counts trapped accesses.
 */
static void pmuscope_test_amu_trapped_off(struct kunit *test)
{
	struct pmuscope_atest *t = test->priv;

	pmuscope_model_reset(t->cpu, &pmuscope_model_neoverse_n1);
	pmuscope_model_amu_set_firmware(t->cpu, true, false, 0xf, 0, false);
	pmuscope_probe_local(BIT(PMUSCOPE_UNIT_PMU), &t->caps);
	pmuscope_amu_probe(&t->amu, &t->info, &t->caps);
	KUNIT_EXPECT_FALSE(test, t->info.usable);
	KUNIT_EXPECT_EQ(test, pmuscope_model_get(t->cpu)->amu.traps, 0);
}

/*
 * amu=-1 follows pmuscope_hw_amu_kernel(), which in the model builds is
 * pmuscope_model_amu_kernel(): the kernel uses an AMU the profile has,
 * unless the test says it does not.
 */
static bool pmuscope_atest_kernel_uses(void)
{
	bool uses;

	preempt_disable();
	uses = pmuscope_model_amu_kernel();
	preempt_enable();
	return uses;
}

static void pmuscope_test_amu_kernel_seam(struct kunit *test)
{
	struct pmuscope_atest *t = test->priv;

	pmuscope_model_reset(t->cpu, &pmuscope_model_neoverse_n1);
	KUNIT_EXPECT_TRUE(test, pmuscope_atest_kernel_uses());
	pmuscope_model_amu_set_kernel(t->cpu, false);
	KUNIT_EXPECT_FALSE(test, pmuscope_atest_kernel_uses());
	pmuscope_model_reset(t->cpu, &pmuscope_model_cortex_a53);
	pmuscope_model_amu_set_kernel(t->cpu, true);
	KUNIT_EXPECT_FALSE(test, pmuscope_atest_kernel_uses());
}

/* ------------------------------------------------------------------ reads */

/* A workload's counts reach the record exactly, group 1 by type. */
static void pmuscope_test_amu_read_counts(struct kunit *test)
{
	const struct pmuscope_model_work w = {
		.ns = 2000000, .idle_ns = 500000, .cycles = 3000000,
		.insts = 4500000, .branches = 70000, .mem_stall_cycles = 600000,
	};
	struct pmuscope_atest *t = test->priv;
	struct pmuscope_amu_cpu a, b;

	pmuscope_atest_probe(t, &pmuscope_model_v94, BIT(PMUSCOPE_UNIT_AMU));
	pmuscope_atest_read(t, &a);
	pmuscope_model_run(t->cpu, &w);
	pmuscope_atest_read(t, &b);
	KUNIT_EXPECT_EQ(test, b.state, PMUSCOPE_AMU_READ_OK);
	KUNIT_EXPECT_EQ(test, b.flags, 0);
	KUNIT_EXPECT_EQ(test, b.version, 2);
	KUNIT_EXPECT_EQ(test, b.nr_group0, 4);
	KUNIT_EXPECT_EQ(test, b.nr_group1, 3);
	KUNIT_EXPECT_EQ(test, b.implemented1, 0x5);
	KUNIT_EXPECT_EQ(test, b.enabled0, 0xf);
	KUNIT_EXPECT_EQ(test, b.enabled1, 0x5);
	KUNIT_EXPECT_EQ(test, b.group0[PMUSCOPE_AMU_CORE_CYCLES] -
			a.group0[PMUSCOPE_AMU_CORE_CYCLES], w.cycles);
	KUNIT_EXPECT_EQ(test, b.group0[PMUSCOPE_AMU_INST_RETIRED] -
			a.group0[PMUSCOPE_AMU_INST_RETIRED], w.insts);
	KUNIT_EXPECT_EQ(test, b.group0[PMUSCOPE_AMU_MEM_STALL] -
			a.group0[PMUSCOPE_AMU_MEM_STALL], w.mem_stall_cycles);
	/* 1.5 ms busy at the v9.4 profile's 1 GHz system counter. */
	KUNIT_EXPECT_EQ(test, b.group0[PMUSCOPE_AMU_CONST_CYCLES] -
			a.group0[PMUSCOPE_AMU_CONST_CYCLES], 1500000);
	KUNIT_EXPECT_EQ(test, b.group1[0] - a.group1[0], w.branches);
	KUNIT_EXPECT_EQ(test, b.group1[1], 0);		/* the hole: not read */
	KUNIT_EXPECT_EQ(test, b.group1[2] - a.group1[2], 1500000);
	KUNIT_EXPECT_EQ(test, b.type1[0], 0x0021);
	KUNIT_EXPECT_EQ(test, b.type0[PMUSCOPE_AMU_CONST_CYCLES], 0x4004);
}

/* Firmware left counters disabled: reported so, and they do not count. */
static void pmuscope_test_amu_disabled(struct kunit *test)
{
	const struct pmuscope_model_work w = {
		.ns = 1000000, .cycles = 1000000, .insts = 2000000,
	};
	struct pmuscope_atest *t = test->priv;
	struct pmuscope_amu_cpu a, b;

	pmuscope_atest_probe(t, &pmuscope_model_v94, BIT(PMUSCOPE_UNIT_AMU));
	pmuscope_model_amu_set_firmware(t->cpu, false, false, 0x5, 0x1, false);
	pmuscope_atest_read(t, &a);
	pmuscope_model_run(t->cpu, &w);
	pmuscope_atest_read(t, &b);
	KUNIT_EXPECT_EQ(test, b.enabled0, 0x5);
	KUNIT_EXPECT_EQ(test, b.enabled1, 0x1);
	KUNIT_EXPECT_EQ(test, b.group0[PMUSCOPE_AMU_CORE_CYCLES] -
			a.group0[PMUSCOPE_AMU_CORE_CYCLES], w.cycles);
	KUNIT_EXPECT_EQ(test, b.group0[PMUSCOPE_AMU_CONST_CYCLES],
			a.group0[PMUSCOPE_AMU_CONST_CYCLES]);
	KUNIT_EXPECT_EQ(test, b.group0[PMUSCOPE_AMU_INST_RETIRED] -
			a.group0[PMUSCOPE_AMU_INST_RETIRED], w.insts);
	KUNIT_EXPECT_EQ(test, b.group1[2], a.group1[2]);
	KUNIT_EXPECT_EQ(test, b.flags, 0);
}

/* AMCR_EL0.CG1RZ: group 1 reads zero here, flagged, not read. */
static void pmuscope_test_amu_cg1rz(struct kunit *test)
{
	struct pmuscope_atest *t = test->priv;
	struct pmuscope_amu_cpu r;
	unsigned int n;

	pmuscope_model_reset(t->cpu, &pmuscope_model_v94);
	pmuscope_model_amu_set_firmware(t->cpu, false, false, 0xf, 0x5, true);
	memset(&t->amu, 0, sizeof(t->amu));
	pmuscope_probe_local(BIT(PMUSCOPE_UNIT_AMU), &t->caps);
	pmuscope_amu_probe(&t->amu, &t->info, &t->caps);
	KUNIT_EXPECT_TRUE(test, t->info.aux_zero);
	pmuscope_atest_read(t, &r);
	KUNIT_EXPECT_EQ(test, r.flags, PMUSCOPE_AMU_F_AUX_ZERO);
	for (n = 0; n < PMUSCOPE_AMU_GROUP_MAX; n++)
		KUNIT_EXPECT_EQ_MSG(test, r.group1[n], 0, "group1[%u]", n);
}

/* The erratum's workaround: CNT_CYCLES flagged, the rest as usual. */
/* The constant counter's errata, from MIDR_EL1 alone (any kernel config). */
static void pmuscope_test_amu_const_erratum(struct kunit *test)
{
	static const struct {
		u64 midr;
		bool broken;
		const char *what;
	} cases[] = {
		{ 0x410fd460, true, "Cortex-A510 r0p0" },
		{ 0x411fd461, true, "Cortex-A510 r1p1" },
		{ 0x411fd462, false, "Cortex-A510 r1p2" },
		{ 0x412fd460, false, "Cortex-A510 r2p0" },
		{ 0x410fd872, true, "Cortex-A725 r0p2" },
		{ 0x410fd873, false, "Cortex-A725 r0p3" },
		{ 0x411fd870, false, "Cortex-A725 r1p0" },
		{ 0x410fd034, false, "Cortex-A53 r0p4 (AM62L)" },
		{ 0x414fd0c1, false, "Neoverse-N1 r4p1" },
		{ 0x510fd460, false, "part 0xd46 of another implementer" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_amu_const_erratum(cases[i].midr),
				    cases[i].broken, "%s (MIDR 0x%08llx)", cases[i].what,
				    cases[i].midr);
}

static void pmuscope_test_amu_const_broken(struct kunit *test)
{
	struct pmuscope_atest *t = test->priv;
	struct pmuscope_amu_cpu r;

	pmuscope_atest_probe(t, &pmuscope_amu_test_a510, BIT(PMUSCOPE_UNIT_AMU));
	pmuscope_atest_read(t, &r);
	KUNIT_EXPECT_EQ(test, r.flags, PMUSCOPE_AMU_F_CONST_BROKEN);
}

/* ------------------------------------------------------------------- loss */
struct pmuscope_loss_case {
	const char *name;
	bool power_loss;	/* across a cpu_pm enter/exit, nothing restored */
	bool set_lower;		/* a counter set lower between two reads */
	bool reprobe;		/* the CPU went offline and came back */
	bool lost;
};

static const struct pmuscope_loss_case pmuscope_loss_cases[] = {
	{ "cpu_pm enter/exit, counters kept", false, false, false, false },
	{ "cpu_pm enter/exit, firmware restored nothing", true, false, false, true },
	{ "a counter went backwards between reads", false, true, false, true },
	{ "offline and back, counters kept", false, false, true, false },
	{ "offline and back, counters reset", true, false, true, true },
};

static void pmuscope_loss_desc(const struct pmuscope_loss_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_loss, pmuscope_loss_cases, pmuscope_loss_desc);

static void pmuscope_test_amu_loss(struct kunit *test)
{
	const struct pmuscope_model_work w = {
		.ns = 1000000, .cycles = 1000000, .insts = 1000000,
	};
	const struct pmuscope_loss_case *c = test->param_value;
	struct pmuscope_atest *t = test->priv;
	struct pmuscope_amu_cpu r;

	pmuscope_atest_probe(t, &pmuscope_model_neoverse_n1, BIT(PMUSCOPE_UNIT_AMU));
	pmuscope_model_run(t->cpu, &w);
	pmuscope_atest_read(t, &r);
	KUNIT_EXPECT_EQ(test, r.flags & PMUSCOPE_AMU_F_LOST, 0);
	pmuscope_model_run(t->cpu, &w);
	if (c->reprobe) {
		if (c->power_loss)
			pmuscope_model_amu_power_loss(t->cpu);
		pmuscope_probe_local(BIT(PMUSCOPE_UNIT_AMU), &t->caps);
		pmuscope_amu_probe(&t->amu, &t->info, &t->caps);
	} else if (c->set_lower) {
		pmuscope_model_amu_set_counter(t->cpu, PMUSCOPE_REG_AMEVCNTR0(2), 5);
	} else {
		pmuscope_atest_pm(t, c->power_loss);
	}
	pmuscope_atest_read(t, &r);
	KUNIT_EXPECT_EQ(test, !!(r.flags & PMUSCOPE_AMU_F_LOST), c->lost);
	/* Reported once: the next read starts afresh. */
	pmuscope_atest_read(t, &r);
	KUNIT_EXPECT_EQ(test, r.flags & PMUSCOPE_AMU_F_LOST, 0);
}

static struct kunit_case pmuscope_amu_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_amu_probe, pmuscope_probe_gen_params),
	KUNIT_CASE(pmuscope_test_amu_trapped_off),
	KUNIT_CASE(pmuscope_test_amu_kernel_seam),
	KUNIT_CASE(pmuscope_test_amu_read_counts),
	KUNIT_CASE(pmuscope_test_amu_disabled),
	KUNIT_CASE(pmuscope_test_amu_cg1rz),
	KUNIT_CASE(pmuscope_test_amu_const_broken),
	KUNIT_CASE(pmuscope_test_amu_const_erratum),
	KUNIT_CASE_PARAM(pmuscope_test_amu_loss, pmuscope_loss_gen_params),
	{}
};

static struct kunit_suite pmuscope_amu_suite = {
	.name = "pmuscope_amu",
	.init = pmuscope_atest_init,
	.exit = pmuscope_atest_exit,
	.test_cases = pmuscope_amu_cases,
};

kunit_test_suites(&pmuscope_amu_suite);
