// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the fault model dead-pmu (tests/kunit/pmuscope_model.c), a PMU a
 * hypervisor exposes but never counts, by design against the Arm ARM. The
 * driver must find it as the Cortex-A53 it claims to be, and then see
 * nothing count: the counters stay at what was written, no overflow flag,
 * no interrupt. Each case runs the same steps on the healthy cortex-a53
 * profile too, where everything counts: what the dead profile shows is its
 * own doing, not a test that could not see a count.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "pmuscope.h"
#include "pmuscope_model.h"
#include "pmuscope_etest.h"

#define ALL_EL		PMUSCOPE_EV_ALL_EL

struct pmuscope_dead_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	bool counts;		/* a healthy PMU: the work is counted */
};

static const struct pmuscope_dead_case pmuscope_dead_cases[] = {
	{ "dead-pmu: nothing counts", &pmuscope_model_dead_pmu, false },
	{ "cortex-a53: the same steps count", &pmuscope_model_cortex_a53, true },
};

static void pmuscope_dead_desc(const struct pmuscope_dead_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_dead, pmuscope_dead_cases, pmuscope_dead_desc);

/*
 * The probe finds what the ID registers advertise, exactly a Cortex-A53's:
 * PMUv3, 6 event counters of 32 bits, the 64-bit cycle counter, the A53's
 * PMCEID0_EL0 (0x67FFBFFF: 28 common events), CPU_CYCLES among them. A dead
 * PMU cannot be told from a healthy one by its registers.
 */
static void pmuscope_test_dead_discovery(struct kunit *test)
{
	struct pmuscope_cpu_caps *caps;

	caps = kunit_kzalloc(test, sizeof(*caps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, caps);
	pmuscope_model_reset_all(&pmuscope_model_dead_pmu);
	get_cpu();
	pmuscope_probe_local(PMUSCOPE_ALL_UNITS, caps);
	put_cpu();

	KUNIT_EXPECT_EQ(test, caps->state[PMUSCOPE_UNIT_PMU], PMUSCOPE_STATE_PRESENT);
	KUNIT_EXPECT_EQ(test, caps->state[PMUSCOPE_UNIT_SNAPSHOT], PMUSCOPE_STATE_ABSENT);
	KUNIT_EXPECT_EQ(test, caps->state[PMUSCOPE_UNIT_SPE], PMUSCOPE_STATE_ABSENT);
	KUNIT_EXPECT_EQ(test, caps->state[PMUSCOPE_UNIT_AMU], PMUSCOPE_STATE_ABSENT);
	KUNIT_EXPECT_EQ(test, caps->pmuver, 1);
	KUNIT_EXPECT_EQ(test, caps->num_counters, 6);
	KUNIT_EXPECT_EQ(test, caps->evcnt_width, 32);
	KUNIT_EXPECT_EQ(test, caps->ccnt_width, 64);
	KUNIT_EXPECT_EQ(test, caps->regs.midr, 0x410fd034ULL);
	KUNIT_EXPECT_EQ(test, caps->regs.pmceid0, 0x67ffbfffULL);
	KUNIT_EXPECT_EQ(test, bitmap_weight(caps->events, PMUSCOPE_EVENT_SLOTS), 28);
	KUNIT_EXPECT_TRUE(test, pmuscope_caps_has_event(caps, 0x11));
	KUNIT_EXPECT_TRUE(test, pmuscope_caps_has_event(caps, 0x08));
	KUNIT_EXPECT_EQ(test, pmuscope_model_total_violations(), 0);
}

/*
 * The registers themselves: every counter enabled with its interrupt and
 * preloaded 16 below the wrap, then 2^32 + 32 cycles and instructions of
 * work, 32 software increments. A healthy PMU wraps every counter to 16
 * (overflow flags, the interrupt line up); the dead one reads back the
 * preloads.
 */
static void pmuscope_test_dead_registers(struct kunit *test)
{
	const struct pmuscope_dead_case *c = test->param_value;
	static const u16 events[6] = { 0x11, 0x08, 0x00, 0x11, 0x1b, 0x00 };
	const u64 n = (1ULL << 32) + 32;
	struct pmuscope_model_work w = { .ns = n, .cycles = n, .insts = n, .el = 1 };
	struct pmuscope_etest *t = test->priv;
	unsigned int cpu = t->cpu, i;

	pmuscope_model_reset(cpu, c->prof);
	for (i = 0; i < ARRAY_SIZE(events); i++) {
		pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMEVTYPER(i), events[i]);
		pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMEVCNTR(i), 0xfffffff0);
	}
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMCCNTR_EL0, 0xfffffffffffffff0ULL);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMINTENSET_EL1, 0x8000003f);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMCNTENSET_EL0, 0x8000003f);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMCR_EL0,
				 PMUSCOPE_PMCR_E | PMUSCOPE_PMCR_LC);
	/* Enabled, with the interrupt: written values read back as written. */
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_PMCNTENSET_EL0),
			0x8000003f);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_PMINTENSET_EL1),
			0x8000003f);
	KUNIT_EXPECT_TRUE(test, pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_PMCR_EL0) &
			  PMUSCOPE_PMCR_E);

	pmuscope_model_run(cpu, &w);
	for (i = 0; i < 32; i++)
		pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMSWINC_EL0, 0x3f);

	for (i = 0; i < ARRAY_SIZE(events); i++)
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_PMEVCNTR(i)),
				    c->counts ? 0x10 : 0xfffffff0, "%s: counter %u", c->name, i);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_PMCCNTR_EL0),
			c->counts ? 0x100000010ULL : 0xfffffffffffffff0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_PMOVSSET_EL0),
			c->counts ? 0x8000003fULL : 0);
	KUNIT_EXPECT_EQ(test, pmuscope_model_irq_line(cpu), c->counts);

	/* A written value still reads back: the registers are not stuck. */
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMEVCNTR(3), 1234);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_PMEVCNTR(3)), 1234);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

static bool dead_overflow(struct pmuscope_pmu *pmu)
{
	unsigned long sampled, flags;
	bool handled;

	raw_spin_lock_irqsave(&pmu->lock, flags);
	handled = pmuscope_pmu_overflow(pmu, &sampled);
	pmuscope_pmu_overflow_end(pmu);
	raw_spin_unlock_irqrestore(&pmu->lock, flags);
	return handled;
}

/*
 * The driver's engine counting on it: CPU_CYCLES (counter 0, 32 bits, its
 * interrupt on), INST_RETIRED, SW_INCR and the cycle counter, started as
 * the driver starts them (at 0), then 3 * 2^31 + 5 cycles of work (one
 * 32-bit wrap), 1000 instructions, 7 software increments. A healthy PMU
 * raises the overflow interrupt and the driver reads every count exactly;
 * on the dead one the interrupt never comes (a spurious call finds nothing
 * to handle) and the driver reads 0 everywhere.
 */
static void pmuscope_test_dead_engine(struct kunit *test)
{
	const struct pmuscope_dead_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, c->prof);
	const u64 cycles = 3 * (1ULL << 31) + 5, insts = 1000, swinc = 7;
	struct pmuscope_model_work w = {
		.ns = cycles, .cycles = cycles, .insts = insts, .el = 1,
	};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, pmu->nr_counters, 6);
	pmuscope_etest_assign(pmu, 0, 0x11, ALL_EL);
	pmuscope_etest_assign(pmu, 1, 0x08, ALL_EL);
	pmuscope_etest_assign(pmu, 5, 0x00, ALL_EL);
	pmuscope_etest_assign(pmu, PMUSCOPE_CYCLE_IDX, 0x11, ALL_EL);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	KUNIT_EXPECT_TRUE(test, pmu->hw_ready);

	pmuscope_model_run(t->cpu, &w);
	for (i = 0; i < swinc; i++)
		pmuscope_model_write_cpu(t->cpu, PMUSCOPE_REG_PMSWINC_EL0, BIT(5));

	KUNIT_EXPECT_EQ(test, pmuscope_model_irq_line(t->cpu), c->counts);
	KUNIT_EXPECT_EQ(test, dead_overflow(pmu), c->counts);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmu->overflows, c->counts ? 1 : 0);

	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), c->counts ? cycles : 0);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 1, NULL), c->counts ? insts : 0);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 5, NULL), c->counts ? swinc : 0);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, PMUSCOPE_CYCLE_IDX, NULL),
			c->counts ? cycles : 0);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

static struct kunit_case pmuscope_dead_pmu_cases[] = {
	KUNIT_CASE(pmuscope_test_dead_discovery),
	KUNIT_CASE_PARAM(pmuscope_test_dead_registers, pmuscope_dead_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_dead_engine, pmuscope_dead_gen_params),
	{}
};

static struct kunit_suite pmuscope_dead_pmu_suite = {
	.name = "pmuscope_dead_pmu",
	.init = pmuscope_etest_init,
	.exit = pmuscope_etest_exit,
	.test_cases = pmuscope_dead_pmu_cases,
};

kunit_test_suites(&pmuscope_dead_pmu_suite);
