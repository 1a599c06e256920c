// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: snapshots of one CPU (drivers/pmuscope_snapshot.c) against the
 * register model: the hardware capture sequence in every capture state
 * the firmware and the kernel's EL can leave (allowed, prohibited,
 * disabled with a stale NC = 0, never completing, under an EL2, on a VHE
 * host), the freshness check, the fold of each snapshot register against
 * the live counter (across a 32-bit wrap too), the software freeze/thaw
 * order and what it leaves uncounted, a KVM vCPU loaded on a VHE host,
 * and the deadline.
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "pmuscope.h"
#include "pmuscope_etest.h"
#include "pmuscope_model.h"

#define UK		(PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1)
#define CC		PMUSCOPE_CYCLE_IDX
#define NEVER		PMUSCOPE_MODEL_SS_NEVER

/* The session of every case: CPU_CYCLES on 0, INST_RETIRED on 1, cycles on CC. */
static const u8 pmuscope_stest_idx[] = { 0, 1, CC };

/* pmuscope_pmu_snapshot() as the driver calls it: pmu->lock, IRQs off. */
static void pmuscope_stest_snap(struct pmuscope_pmu *pmu, const u8 *idx, u32 nr,
				u32 flags, u64 deadline, struct pmuscope_value *v,
				struct pmuscope_snap_cpu *sc)
{
	unsigned long irqf;

	raw_spin_lock_irqsave(&pmu->lock, irqf);
	pmuscope_pmu_snapshot(pmu, idx, nr, pmuscope_idx_mask(idx, nr), flags, deadline,
			      ktime_get_ns(), v, sc);
	raw_spin_unlock_irqrestore(&pmu->lock, irqf);
}

/* A v9.4-like CPU counting the three events, with @cycles and @insts done. */
static struct pmuscope_pmu *pmuscope_stest_setup(struct kunit *test,
						 const struct pmuscope_model_profile *prof,
						 bool with_cc, u64 cycles, u64 insts)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu = pmuscope_etest_pmu(test, prof);

	/* A case may set up several CPUs' worth in turn: start clean. */
	memset(pmu->hwc, 0, sizeof(pmu->hwc));
	pmu->allocated = 0;
	pmuscope_etest_assign(pmu, 0, 0x11, UK);
	pmuscope_etest_assign(pmu, 1, 0x08, UK);
	if (with_cc)
		pmuscope_etest_assign(pmu, CC, 0x11, UK);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	pmuscope_model_count(t->cpu, 0x11, cycles);
	pmuscope_model_count(t->cpu, 0x08, insts);
	return pmu;
}

/* ---------------------------------------------------------- capture states */

struct pmuscope_ss_case {
	const char *name;
	/* Firmware: MDCR_EL3.PMSSE, MDCR_EL2.PMSSE; who owns EL2; delay. */
	u8 el3, el2_pmsse;
	enum pmuscope_hw_el2 el2;
	u32 delay;
	bool under_el2;		/* snapshot=2 */
	bool stale_first;	/* capture once while allowed, then disable */
	bool restart;		/* ... and restart the counters from 0 */
	bool external;		/* a debugger's capture is ongoing at the request */
	u32 flags;		/* PMUSCOPE_SNAP_F_* */
	u32 method;		/* expected */
	u32 cpu_flags;		/* expected PMUSCOPE_SNAPCPU_* */
	enum pmuscope_ss_hw state;	/* expected pmu->ss_hw after */
	unsigned int captures;	/* expected model captures (ours and others) */
};

#define LOWER		PMUSCOPE_PMSSE_LOWER
#define ALLOWED		PMUSCOPE_PMSSE_ALLOWED
#define PROHIBITED	PMUSCOPE_PMSSE_PROHIBITED
#define DISABLED	PMUSCOPE_PMSSE_DISABLED
#define HW		PMUSCOPE_SNAP_HARDWARE
#define SW		PMUSCOPE_SNAP_SOFTWARE
#define FALLBACK	PMUSCOPE_SNAPCPU_FALLBACK

static const struct pmuscope_ss_case pmuscope_ss_cases[] = {
	{ "allowed: firmware hands down, PMECR_EL1.SSE set by the driver",
	  LOWER, LOWER, PMUSCOPE_HW_EL2_NONE, 2, false, false, false, false, 0,
	  HW, 0, PMUSCOPE_SS_HW_READY, 1 },
	{ "allowed by EL3 itself", ALLOWED, LOWER, PMUSCOPE_HW_EL2_NONE, 0,
	  false, false, false, false, 0, HW, 0, PMUSCOPE_SS_HW_READY, 1 },
	{ "prohibited by EL3: NC = 1, software", PROHIBITED, LOWER,
	  PMUSCOPE_HW_EL2_NONE, 2, false, false, false, false, 0,
	  SW, FALLBACK, PMUSCOPE_SS_HW_PROHIBITED, 0 },
	{ "disabled after a capture: stale NC = 0 caught by freshness",
	  LOWER, LOWER, PMUSCOPE_HW_EL2_NONE, 2, false, true, false, false, 0,
	  SW, FALLBACK, PMUSCOPE_SS_HW_STALE, 1 },
	{ "disabled after a capture, counters restarted: the old copy in the window",
	  LOWER, LOWER, PMUSCOPE_HW_EL2_NONE, 2, false, true, true, false, 0,
	  SW, FALLBACK, PMUSCOPE_SS_HW_STALE, 1 },
	{ "never completes: bounded wait, software", LOWER, LOWER,
	  PMUSCOPE_HW_EL2_NONE, NEVER, false, false, false, false, 0,
	  SW, FALLBACK, PMUSCOPE_SS_HW_TIMEOUT, 0 },
	{ "under an EL2 (Linux's own, or a hypervisor): not tried",
	  LOWER, DISABLED, PMUSCOPE_HW_EL2_ABOVE, 2, false, false, false, false, 0,
	  SW, 0, PMUSCOPE_SS_HW_UNDER_EL2, 0 },
	{ "under an EL2 that grants it, with snapshot=2", LOWER, LOWER,
	  PMUSCOPE_HW_EL2_ABOVE, 2, true, false, false, false, 0,
	  HW, 0, PMUSCOPE_SS_HW_READY, 1 },
	{ "VHE host: MDCR_EL2.PMSSE left 0 by Linux, set by the driver",
	  LOWER, DISABLED, PMUSCOPE_HW_EL2_KERNEL, 2, false, false, false, false, 0,
	  HW, 0, PMUSCOPE_SS_HW_READY, 1 },
	{ "software asked for: no request", LOWER, LOWER, PMUSCOPE_HW_EL2_NONE,
	  2, false, false, false, false, PMUSCOPE_SNAP_F_SOFTWARE,
	  SW, 0, PMUSCOPE_SS_HW_UNTRIED, 0 },
	{ "a debugger's capture ongoing: waited for, then ours", LOWER, LOWER,
	  PMUSCOPE_HW_EL2_NONE, 2, false, false, false, true, 0,
	  HW, 0, PMUSCOPE_SS_HW_READY, 3 },
};

static void pmuscope_ss_desc(const struct pmuscope_ss_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_ss, pmuscope_ss_cases, pmuscope_ss_desc);

/*
 * Whatever the path, the values are the counts at the capture: events
 * injected between the capture and the live counter read (hardware), or
 * while the counters are stopped (software), are not in them. Hardware:
 * a later READ has them. Software: nothing counted them.
 */
static void pmuscope_test_ss_states(struct kunit *test)
{
	const struct pmuscope_ss_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_snap_cpu sc;
	struct pmuscope_value v[3];
	struct pmuscope_pmu *pmu;
	u64 cycles = 5000, insts = 3000;

	pmuscope_engine.ss_under_el2 = c->under_el2;
	pmu = pmuscope_stest_setup(test, &pmuscope_model_v94, true, cycles, insts);
	pmuscope_model_ss_set_firmware(t->cpu, c->el3, c->el2_pmsse, true, true);
	pmuscope_model_ss_set_el2(t->cpu, c->el2);
	pmuscope_model_ss_set_delay(t->cpu, c->delay);
	if (c->stale_first) {
		pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
		KUNIT_ASSERT_EQ(test, sc.method, HW);
		pmuscope_model_ss_set_firmware(t->cpu, DISABLED, LOWER, true, true);
		if (c->restart) {
			/* The cycle counter from 0 again, to where it was. */
			pmuscope_etest_call(pmu, pmuscope_pmu_cpu_down);
			pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
			pmuscope_model_count(t->cpu, 0x11, cycles);
			cycles *= 2;
		} else {
			pmuscope_model_count(t->cpu, 0x11, 700);
			cycles += 700;
		}
	}
	if (c->external) {
		/* Capture enabled (the driver's first one), then the debugger's. */
		pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
		KUNIT_ASSERT_EQ(test, sc.method, HW);
		/* Cycles pass between captures, as on any CPU (the model's only when told). */
		pmuscope_model_count(t->cpu, 0x11, 50);
		cycles += 50;
		pmuscope_model_ss_external_request(t->cpu);
	}
	/* Counted between the capture and the read: not in the snapshot. */
	pmuscope_model_inject(t->cpu, PMUSCOPE_REG_PMEVCNTR0_EL0, 0x11, 100);

	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, c->flags, 0, v, &sc);

	KUNIT_EXPECT_EQ(test, sc.method, c->method);
	KUNIT_EXPECT_EQ(test, sc.flags, c->cpu_flags);
	KUNIT_EXPECT_EQ(test, sc.cpu, t->cpu);
	KUNIT_EXPECT_EQ_MSG(test, pmu->ss_hw, c->state, "ss_hw %s",
			    pmuscope_ss_hw_name(pmu->ss_hw));
	KUNIT_EXPECT_EQ(test, v[0].count, cycles);
	KUNIT_EXPECT_EQ(test, v[1].count, insts);
	KUNIT_EXPECT_EQ(test, v[2].count, cycles);
	KUNIT_EXPECT_EQ(test, v[2].counter, CC);
	KUNIT_EXPECT_EQ(test, v[1].index, 1);
	KUNIT_EXPECT_EQ(test, t->m->ss.captures, c->captures);
	KUNIT_EXPECT_EQ(test, t->m->ss.stale_reads, 0);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
	if (c->method == HW)
		KUNIT_EXPECT_EQ(test, sc.frozen, 0);
	else
		KUNIT_EXPECT_GE(test, sc.frozen, 1);

	/* The events counted after a hardware capture are there now. */
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL),
			cycles + (c->method == HW ? 100 : 0));

	/* Offline: what the driver changed at EL2 or in PMECR is given back. */
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_down);
	if (c->el2 == PMUSCOPE_HW_EL2_KERNEL)
		KUNIT_EXPECT_EQ(test, t->m->ss.mdcr_el2_pmsse, c->el2_pmsse);
	else
		KUNIT_EXPECT_EQ(test, FIELD_GET(PMUSCOPE_PMECR_SSE, t->m->ss.pmecr), 0);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/* --------------------------------------------------------------- sequence */

/*
 * The hardware sequence, reads included: the capture control, no capture
 * ongoing, the cycle counter before, the request, the polls until SS = 0,
 * ISB (D13.9 Example D13-8) before the snapshot registers, ISB before the
 * cycle counter after; then the live counters for the fold, as the
 * software snapshot reads them (the cycle counter, then down from the
 * highest event counter; 64-bit: no PMOVSSET).
 */
static const char *const pmuscope_ss_hw_log[] = {
	"PMCNTENSET_EL0?", "PMCR_EL0?",
	"PMECR_EL1?", "PMECR_EL1=0x18", "isb",
	"PMSSCR_EL1?",
	"isb", "PMCCNTR_EL0?", "isb", "PMSSCR_EL1=0x1",
	"PMSSCR_EL1?", "PMSSCR_EL1?", "PMSSCR_EL1?",
	"isb", "PMEVCNTSVR0_EL1?", "PMEVCNTSVR1_EL1?", "PMCCNTSVR_EL1?",
	"isb", "PMCCNTR_EL0?",
	"PMCCNTR_EL0?", "PMEVCNTR1_EL0?", "PMEVCNTR0_EL0?",
	NULL
};

/*
 * The witness of freshness counts cycles at the kernel's EL across the
 * capture. Without the cycle counter in the session: it runs for the
 * capture only, at every EL.
 */
static const char *const pmuscope_ss_witness_log[] = {
	"PMECR_EL1=0x18", "isb",
	"PMCCFILTR_EL0=0x8000000", "isb", "PMCNTENSET_EL0=0x80000000",
	"isb", "isb", "PMSSCR_EL1=0x1",
	"isb", "isb",
	"PMCNTENCLR_EL0=0x80000000", "isb",
	NULL
};

/*
 * The cycle counter counts EL0 only (it would not advance across the
 * capture): a free event counter, from 0, counts CPU_CYCLES at every EL.
 */
static const char *const pmuscope_ss_witness_ev_log[] = {
	"PMECR_EL1=0x18", "isb",
	"PMEVTYPER2_EL0=0x8000011", "PMEVCNTR2_EL0=0x0", "isb", "PMCNTENSET_EL0=0x4",
	"isb", "isb", "PMSSCR_EL1=0x1",
	"isb", "isb",
	"PMCNTENCLR_EL0=0x4", "isb",
	NULL
};

/*
 * Software: one write stops them, ISB, their reads and nothing else, one
 * write starts them, ISB; then PMOVSSET_EL0, for the folds.
 */
static const char *const pmuscope_ss_sw_log[] = {
	"PMCNTENSET_EL0?", "PMCR_EL0?",
	"PMCNTENCLR_EL0=0x80000003", "isb",
	"PMCCNTR_EL0?", "PMEVCNTR1_EL0?", "PMEVCNTR0_EL0?",
	"PMCNTENSET_EL0=0x80000003", "isb", "PMOVSSET_EL0?",
	NULL
};

static void pmuscope_test_ss_sequence(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_snap_cpu sc;
	struct pmuscope_value v[3];
	struct pmuscope_pmu *pmu;

	pmu = pmuscope_stest_setup(test, &pmuscope_model_v94, true, 10, 10);
	t->m->nlog = 0;
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, HW);
	pmuscope_etest_expect_log(test, pmuscope_ss_hw_log, true);

	pmu = pmuscope_stest_setup(test, &pmuscope_model_v94, false, 10, 10);
	t->m->nlog = 0;
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 2, 0, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, HW);
	KUNIT_EXPECT_EQ(test, v[0].count, 10);
	pmuscope_etest_expect_log(test, pmuscope_ss_witness_log, false);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);

	pmu = pmuscope_stest_setup(test, &pmuscope_model_v94, false, 10, 10);
	pmuscope_etest_assign(pmu, CC, 0x11, PMUSCOPE_EV_EL0);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	t->m->nlog = 0;
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, HW);
	pmuscope_etest_expect_log(test, pmuscope_ss_witness_ev_log, false);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);

	/* A 32-bit PMU (cortex-a53): software, PMOVSSET read once. */
	pmu = pmuscope_stest_setup(test, &pmuscope_model_cortex_a53, true, 10, 10);
	t->m->nlog = 0;
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, SW);
	KUNIT_EXPECT_EQ(test, pmu->ss_hw, PMUSCOPE_SS_HW_ABSENT);
	pmuscope_etest_expect_log(test, pmuscope_ss_sw_log, true);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * The software snapshot reads PMOVSSET_EL0 once the counters count again:
 * a wrap between the two (events injected at that read) is neither lost
 * nor counted twice. CPU_CYCLES on counter 0 (32 bits, cortex-a53) and on
 * the cycle counter: frozen together, the snapshot's two counts agree;
 * the next snapshot has the events counted after the thaw.
 */
struct pmuscope_sw_wrap_case {
	const char *name;
	u64 before;		/* counted before the snapshot */
	bool pending;		/* the last wrap of @before not folded yet */
	u64 after;		/* counted between the thaw and PMOVSSET_EL0's read */
};

static const struct pmuscope_sw_wrap_case pmuscope_sw_wrap_cases[] = {
	{ "no wrap", 0x7fffffff, false, 0x10 },
	{ "wrap before the snapshot, its flag pending", 0x100000010ULL, true, 0x10 },
	{ "wrap after the thaw, before PMOVSSET is read", 0xfffffff0, false, 0x20 },
	{ "wrap exactly after the thaw", 0xffffffff, false, 1 },
	{ "second wrap after the thaw", 0x1fffffff0ULL, false, 0x20 },
};

static void pmuscope_sw_wrap_desc(const struct pmuscope_sw_wrap_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_sw_wrap, pmuscope_sw_wrap_cases, pmuscope_sw_wrap_desc);

static void pmuscope_test_sw_wrap(struct kunit *test)
{
	const struct pmuscope_sw_wrap_case *c = test->param_value;
	static const u8 idx[] = { 0, CC };
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_pmu *pmu;
	struct pmuscope_snap_cpu sc;
	struct pmuscope_value v[2];
	unsigned long sampled, irqf;
	u64 left = c->before;

	pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	pmuscope_etest_assign(pmu, 0, 0x11, UK);
	pmuscope_etest_assign(pmu, CC, 0x11, UK);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	while (left > U32_MAX) {
		pmuscope_model_count(t->cpu, 0x11, 1ULL << 32);
		left -= 1ULL << 32;
		if (c->pending)
			continue;
		raw_spin_lock_irqsave(&pmu->lock, irqf);
		pmuscope_pmu_overflow(pmu, &sampled);
		pmuscope_pmu_overflow_end(pmu);
		raw_spin_unlock_irqrestore(&pmu->lock, irqf);
	}
	pmuscope_model_count(t->cpu, 0x11, left);
	pmuscope_model_inject(t->cpu, PMUSCOPE_REG_PMOVSSET_EL0, 0x11, c->after);
	pmuscope_stest_snap(pmu, idx, 2, PMUSCOPE_SNAP_F_SOFTWARE, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, SW);
	KUNIT_EXPECT_EQ_MSG(test, v[0].count, c->before, "%s", c->name);
	KUNIT_EXPECT_EQ(test, v[1].count, c->before);
	pmuscope_stest_snap(pmu, idx, 2, PMUSCOPE_SNAP_F_SOFTWARE, 0, v, &sc);
	KUNIT_EXPECT_EQ_MSG(test, v[0].count, c->before + c->after, "%s, next", c->name);
	KUNIT_EXPECT_EQ(test, v[1].count, c->before + c->after);
	KUNIT_EXPECT_EQ(test, v[0].flags, 0);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * The software snapshot's reads, by layout of the session's counters (a
 * cortex-a53, 6 event counters): the cycle counter first, then every
 * event counter from the session's highest down to 0, those of someone
 * else in between too (read, never stopped), none above it; each value
 * from its own counter, the long way (pmuscope_pmu_fold_one()) for one
 * whose interrupt is throttled, zeros for a value with no counter.
 */
struct pmuscope_sw_layout_case {
	const char *name;
	u8 idx[8];
	u32 nr;
	u32 other;		/* counters of someone else, counting */
	u32 throttled;		/* the session's counters with irq_off */
};

#define NOC	PMUSCOPE_NO_COUNTER

static const struct pmuscope_sw_layout_case pmuscope_sw_layout_cases[] = {
	{ "counter 0 alone", { 0 }, 1 },
	{ "the cycle counter alone: no event counter read", { CC }, 1 },
	{ "3 and the cycle counter, 1 someone else's", { 3, CC }, 2, BIT(1) },
	{ "every counter of the A53, out of order", { 5, CC, 0, 3, 1, 4, 2 }, 7 },
	{ "a throttled counter", { 0, 1, CC }, 3, 0, BIT(1) },
	{ "a value with no counter", { 0, NOC, 2 }, 3, BIT(5) },
};

static void pmuscope_sw_layout_desc(const struct pmuscope_sw_layout_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_sw_layout, pmuscope_sw_layout_cases, pmuscope_sw_layout_desc);

/* Counter @n's event, and what it counted by the first snapshot. */
static const u32 pmuscope_sw_layout_ev[] = { 0x01, 0x03, 0x04, 0x08, 0x10, 0x12 };

static u64 pmuscope_sw_layout_count(unsigned int n)
{
	return n == CC ? 1000 : 100 * (n + 1) + 7;
}

static void pmuscope_test_sw_layout(struct kunit *test)
{
	const struct pmuscope_sw_layout_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	/* The A53's 7 counters read, and 7 more accesses at most. */
	char names[16][32];
	const char *expect[ARRAY_SIZE(names) + 1];
	struct pmuscope_value v[8];
	struct pmuscope_snap_cpu sc;
	struct pmuscope_pmu *pmu;
	u32 mask = 0, e = 0, i;
	unsigned long n, all, other = c->other;
	int hi = -1;

	pmu = pmuscope_etest_pmu(test, &pmuscope_model_cortex_a53);
	for (i = 0; i < c->nr; i++) {
		n = c->idx[i];
		if (n == NOC)
			continue;
		mask |= BIT(n);
		if (n != CC)
			hi = max_t(int, hi, n);
	}
	all = mask | c->other;
	for_each_set_bit(n, &all, PMUSCOPE_NR_COUNTERS)
		pmuscope_etest_assign(pmu, n, n == CC ? 0x11 : pmuscope_sw_layout_ev[n], UK);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	for_each_set_bit(n, &all, PMUSCOPE_NR_COUNTERS) {
		if (c->throttled & BIT(n)) {
			pmu->hwc[n].irq_off = true;
			pmuscope_hwc_sync(pmu, n);
		}
		pmuscope_model_count(t->cpu, n == CC ? 0x11 : pmuscope_sw_layout_ev[n],
				     pmuscope_sw_layout_count(n));
	}

	expect[e++] = "PMCNTENSET_EL0?";
	expect[e++] = "PMCR_EL0?";
	snprintf(names[e], sizeof(names[e]), "PMCNTENCLR_EL0=0x%x", mask);
	expect[e] = names[e];
	e++;
	expect[e++] = "isb";
	if (mask & BIT(CC))
		expect[e++] = "PMCCNTR_EL0?";
	for (; hi >= 0; hi--, e++) {
		snprintf(names[e], sizeof(names[e]), "PMEVCNTR%d_EL0?", hi);
		expect[e] = names[e];
	}
	snprintf(names[e], sizeof(names[e]), "PMCNTENSET_EL0=0x%x", mask);
	expect[e] = names[e];
	e++;
	expect[e++] = "isb";
	if (mask & ~BIT(CC))
		expect[e++] = "PMOVSSET_EL0?";
	expect[e] = NULL;

	t->m->nlog = 0;
	pmuscope_stest_snap(pmu, c->idx, c->nr, PMUSCOPE_SNAP_F_SOFTWARE, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, SW);
	pmuscope_etest_expect_log(test, expect, true);
	for (i = 0; i < c->nr; i++) {
		n = c->idx[i];
		KUNIT_EXPECT_EQ_MSG(test, v[i].count,
				    n == NOC ? 0 : pmuscope_sw_layout_count(n), "value %u", i);
		if (n == NOC)
			continue;	/* a value of zeros */
		KUNIT_EXPECT_EQ(test, v[i].index, i);
		KUNIT_EXPECT_EQ(test, v[i].counter, n);
	}
	/* Someone else's counters never stopped; the session's count on. */
	for_each_set_bit(n, &all, PMUSCOPE_NR_COUNTERS)
		pmuscope_model_count(t->cpu, n == CC ? 0x11 : pmuscope_sw_layout_ev[n], 5);
	pmuscope_stest_snap(pmu, c->idx, c->nr, PMUSCOPE_SNAP_F_SOFTWARE, 0, v, &sc);
	for (i = 0; i < c->nr; i++) {
		n = c->idx[i];
		KUNIT_EXPECT_EQ_MSG(test, v[i].count,
				    n == NOC ? 0 : pmuscope_sw_layout_count(n) + 5,
				    "next, value %u", i);
	}
	for_each_set_bit(n, &other, PMUSCOPE_NR_COUNTERS)
		KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, n, NULL),
				pmuscope_sw_layout_count(n) + 5);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/* ------------------------------------------------------------------- folds */

/*
 * A v9.4-like CPU whose event counters are 32 bits (PMUVer = PMUv3p1):
 * the architecture pairs FEAT_PMUv3_SS with later PMUs, but the fold's
 * 32-bit branch is what a core with snapshots and 32-bit counters takes.
 */
static struct pmuscope_model_profile pmuscope_stest_ss32;

struct pmuscope_fold_case {
	const char *name;
	u64 before;		/* counted before the capture */
	u64 after;		/* counted between the capture and the live read */
};

static const struct pmuscope_fold_case pmuscope_fold_cases[] = {
	{ "no wrap", 1000, 50 },
	{ "wrap after the capture, before the read", 0xffffff00, 0x200 },
	{ "capture just after a wrap", 0x100000010ULL, 0x20 },
	{ "wrap exactly at the read", 0xfffffff0, 0x10 },
};

static void pmuscope_fold_desc(const struct pmuscope_fold_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_fold, pmuscope_fold_cases, pmuscope_fold_desc);

static void pmuscope_test_ss_fold(struct kunit *test)
{
	const struct pmuscope_fold_case *c = test->param_value;
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_snap_cpu sc;
	struct pmuscope_value v[3];
	struct pmuscope_pmu *pmu;
	u64 before = c->before;

	pmuscope_stest_ss32 = pmuscope_model_v94;
	pmuscope_stest_ss32.name = "v9.4-like, 32-bit counters";
	pmuscope_stest_ss32.dfr0 = (pmuscope_model_v94.dfr0 & ~PMUSCOPE_DFR0_PMUVER) |
				   FIELD_PREP(PMUSCOPE_DFR0_PMUVER, 0x4);
	pmu = pmuscope_stest_setup(test, &pmuscope_stest_ss32, true, 0, 0);
	KUNIT_ASSERT_EQ(test, pmu->evcnt_width, 32);
	/* Whole wraps folded by the interrupt, as they would be. */
	while (before > U32_MAX) {
		unsigned long irqf, sampled;

		pmuscope_model_count(t->cpu, 0x11, 1ULL << 32);
		before -= 1ULL << 32;
		raw_spin_lock_irqsave(&pmu->lock, irqf);
		pmuscope_pmu_overflow(pmu, &sampled);
		pmuscope_pmu_overflow_end(pmu);
		raw_spin_unlock_irqrestore(&pmu->lock, irqf);
	}
	pmuscope_model_count(t->cpu, 0x11, before);
	pmuscope_model_inject(t->cpu, PMUSCOPE_REG_PMEVCNTR0_EL0, 0x11, c->after);

	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, HW);
	KUNIT_EXPECT_EQ(test, v[0].count, c->before);
	KUNIT_EXPECT_EQ(test, v[2].count, c->before);
	KUNIT_EXPECT_EQ(test, pmuscope_etest_read(pmu, 0, NULL), c->before + c->after);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/* --------------------------------------------------------- KVM on a VHE host */

/*
 * The guest's MDCR_EL2 as Linux 6.12's kvm_arm_setup_mdcr_el2() makes it
 * (HPMN 0 here): TPMCR [5], TPM [6], TDOSA [10], TDRA [11], TPMS [14],
 * TTRF [19]; PMSSE [31:30] = 0b00.
 */
#define PMUSCOPE_STEST_GUEST_MDCR	(BIT_ULL(5) | BIT_ULL(6) | BIT_ULL(10) | \
					 BIT_ULL(11) | BIT_ULL(14) | BIT_ULL(19))

/*
 * A VHE host with a KVM vCPU loaded on the CPU: MDCR_EL2 holds the guest's
 * value (the vCPU thread runs in the host between the load and the put).
 * The driver leaves it alone and answers in software, flagged FALLBACK,
 * state kvm-vcpu; the guest's value is what KVM wrote, the host's what it
 * was (PMSSE = 0b11 from an earlier capture, given back by the put), and
 * the next request after the put captures in hardware. Going offline with
 * a vCPU loaded (the reboot notifier's IPI) leaves MDCR_EL2 alone too.
 */
static void pmuscope_test_ss_vcpu_loaded(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_snap_cpu sc;
	struct pmuscope_value v[3];
	struct pmuscope_pmu *pmu;
	unsigned int captures;
	u64 cycles = 5000;

	pmu = pmuscope_stest_setup(test, &pmuscope_model_v94, true, cycles, 3000);
	/* Linux at EL2 leaves MDCR_EL2.PMSSE = 0b00; EL3 hands it down. */
	pmuscope_model_ss_set_firmware(t->cpu, LOWER, DISABLED, true, true);
	pmuscope_model_ss_set_el2(t->cpu, PMUSCOPE_HW_EL2_KERNEL);

	/* Not loaded: the driver sets PMSSE = 0b11 and captures. */
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
	KUNIT_ASSERT_EQ(test, sc.method, HW);
	KUNIT_ASSERT_EQ(test, t->m->ss.mdcr_el2_pmsse, ALLOWED);
	captures = t->m->ss.captures;

	pmuscope_model_ss_vcpu_load(t->cpu, PMUSCOPE_STEST_GUEST_MDCR);
	/* While the software snapshot has the counters stopped: not counted. */
	pmuscope_model_inject(t->cpu, PMUSCOPE_REG_PMEVCNTR0_EL0, 0x11, 100);
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, SW);
	KUNIT_EXPECT_EQ(test, sc.flags, FALLBACK);
	KUNIT_EXPECT_EQ_MSG(test, pmu->ss_hw, PMUSCOPE_SS_HW_KVM, "ss_hw %s",
			    pmuscope_ss_hw_name(pmu->ss_hw));
	KUNIT_EXPECT_TRUE(test, pmuscope_ss_usable(pmu));
	KUNIT_EXPECT_EQ(test, t->m->ss.captures, captures);
	KUNIT_EXPECT_EQ(test, t->m->ss.ignored, 0);
	KUNIT_EXPECT_EQ(test, v[0].count, cycles);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
	/* Even with hardware asked for (the CPU may capture: checked before). */
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, PMUSCOPE_SNAP_F_HARDWARE, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, SW);
	KUNIT_EXPECT_EQ(test, sc.flags, FALLBACK);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_vcpu_put(t->cpu), PMUSCOPE_STEST_GUEST_MDCR);
	KUNIT_EXPECT_EQ(test, t->m->ss.mdcr_el2_pmsse, ALLOWED);

	/*
	 * Put: the host's value again, and the hardware capture. The session
	 * leaves EL2 out, so the witness is counter 2, run from 0 for each
	 * capture: cycles pass while it runs, as on any CPU (the model's
	 * only when told), so its copy is not the last one's.
	 */
	pmuscope_model_inject(t->cpu, PMUSCOPE_REG_PMEVCNTR(2), 0x11, 50);
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, HW);
	KUNIT_EXPECT_EQ(test, sc.flags, 0);
	KUNIT_EXPECT_EQ(test, pmu->ss_hw, PMUSCOPE_SS_HW_READY);
	KUNIT_EXPECT_EQ(test, t->m->ss.captures, captures + 1);

	/* Offline with a vCPU loaded: the guest's value stays the guest's. */
	pmuscope_model_ss_vcpu_load(t->cpu, PMUSCOPE_STEST_GUEST_MDCR);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_down);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_vcpu_put(t->cpu), PMUSCOPE_STEST_GUEST_MDCR);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
	/* Not loaded: PMSSE back to the 0b00 the driver found. */
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_up);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_down);
	KUNIT_EXPECT_EQ(test, t->m->ss.mdcr_el2_pmsse, DISABLED);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/*
 * A vCPU loaded before the driver ever set PMSSE: nothing is written, and
 * the old value the driver keeps is the host's, found after the put.
 */
static void pmuscope_test_ss_vcpu_first(struct kunit *test)
{
	struct pmuscope_etest *t = test->priv;
	struct pmuscope_snap_cpu sc;
	struct pmuscope_value v[3];
	struct pmuscope_pmu *pmu;

	pmu = pmuscope_stest_setup(test, &pmuscope_model_v94, true, 5000, 3000);
	pmuscope_model_ss_set_firmware(t->cpu, LOWER, DISABLED, true, true);
	pmuscope_model_ss_set_el2(t->cpu, PMUSCOPE_HW_EL2_KERNEL);
	/* A guest's PMSSE other than 0b00: still not the host's to use. */
	pmuscope_model_ss_vcpu_load(t->cpu, PMUSCOPE_STEST_GUEST_MDCR |
				    FIELD_PREP(PMUSCOPE_MDCR_EL2_PMSSE, PROHIBITED));
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, SW);
	KUNIT_EXPECT_FALSE(test, pmu->ss_el2_set);
	KUNIT_EXPECT_EQ(test, pmuscope_model_ss_vcpu_put(t->cpu),
			PMUSCOPE_STEST_GUEST_MDCR |
			FIELD_PREP(PMUSCOPE_MDCR_EL2_PMSSE, PROHIBITED));
	KUNIT_EXPECT_EQ(test, t->m->ss.mdcr_el2_pmsse, DISABLED);
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, HW);
	KUNIT_EXPECT_EQ(test, pmu->ss_el2_old, DISABLED);
	pmuscope_etest_call(pmu, pmuscope_pmu_cpu_down);
	KUNIT_EXPECT_EQ(test, t->m->ss.mdcr_el2_pmsse, DISABLED);
	KUNIT_EXPECT_EQ(test, t->m->violations, 0);
}

/* ---------------------------------------------------------------- deadline */

/*
 * The capture waits for the deadline (the model's system counter advances
 * one tick per read; the test reads it through the model too) and is
 * taken at or after it; a deadline already gone is flagged late. A CPU
 * where nothing of the session runs answers with the counts at rest
 * (IDLE), also after the deadline.
 */
static void pmuscope_test_ss_deadline(struct kunit *test)
{
	struct pmuscope_snap_cpu sc;
	struct pmuscope_value v[3];
	struct pmuscope_pmu *pmu;
	u64 deadline;

	pmu = pmuscope_stest_setup(test, &pmuscope_model_cortex_a53, true, 10, 10);
	deadline = pmuscope_model_syscnt() + 1000;
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, deadline, v, &sc);
	KUNIT_EXPECT_GE(test, sc.time, deadline);
	KUNIT_EXPECT_EQ(test, sc.flags, 0);
	KUNIT_EXPECT_EQ(test, v[0].count, 10);

	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, deadline, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.flags, PMUSCOPE_SNAPCPU_LATE);
	KUNIT_EXPECT_EQ(test, sc.method, SW);

	pmuscope_etest_call(pmu, pmuscope_pmu_hw_reset);
	pmu->hwc[0].on_hw = false;
	pmu->hwc[1].on_hw = false;
	pmu->hwc[CC].on_hw = false;
	pmuscope_hwc_sync(pmu, 0);
	pmuscope_hwc_sync(pmu, 1);
	pmuscope_hwc_sync(pmu, CC);
	pmu->hwc[0].saved = 77;
	deadline = pmuscope_model_syscnt() + 10;
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, deadline, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, PMUSCOPE_SNAP_IDLE);
	KUNIT_EXPECT_GE(test, sc.time, deadline);
	KUNIT_EXPECT_EQ(test, v[0].count, 77);

	pmu->hw_ready = false;
	pmuscope_stest_snap(pmu, pmuscope_stest_idx, 3, 0, 0, v, &sc);
	KUNIT_EXPECT_EQ(test, sc.method, PMUSCOPE_SNAP_IDLE);
	KUNIT_EXPECT_EQ(test, sc.flags, PMUSCOPE_SNAPCPU_OFFLINE);
	KUNIT_EXPECT_EQ(test, v[0].count, 77);
}

static struct kunit_case pmuscope_snapshot_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_ss_states, pmuscope_ss_gen_params),
	KUNIT_CASE(pmuscope_test_ss_sequence),
	KUNIT_CASE_PARAM(pmuscope_test_sw_wrap, pmuscope_sw_wrap_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_sw_layout, pmuscope_sw_layout_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_ss_fold, pmuscope_fold_gen_params),
	KUNIT_CASE(pmuscope_test_ss_vcpu_loaded),
	KUNIT_CASE(pmuscope_test_ss_vcpu_first),
	KUNIT_CASE(pmuscope_test_ss_deadline),
	{}
};

static struct kunit_suite pmuscope_snapshot_suite = {
	.name = "pmuscope_snapshot",
	.init = pmuscope_etest_init,
	.exit = pmuscope_etest_exit,
	.test_cases = pmuscope_snapshot_cases,
};

kunit_test_suites(&pmuscope_snapshot_suite);
