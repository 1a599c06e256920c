// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope register model.
 *
 * Implements, per CPU and for one CPU profile, the rules the Arm ARM gives
 * for the registers the driver touches: which registers exist (ID fields,
 * PMCR_EL0.N), read-only and write-only registers, SET/CLR pairs, the
 * PMCR_EL0.P/C resets, counter widths and overflow (PMCR_EL0.LC/LP), the
 * software increment and the overflow interrupt line. An access the
 * profile does not allow is a violation: on hardware it would be UNDEFINED
 * (or silently ignored), so every test checks that none happened.
 */

#include <linux/bitfield.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "pmuscope_model.h"

/* ---------------------------------------------------------------- profiles */

/* TI AM62L: Cortex-A53 r0p4, PMUv3 (Armv8.0), 6 counters of 32 bits. */
const struct pmuscope_model_profile pmuscope_model_cortex_a53 = {
	.name = "cortex-a53",
	.midr = 0x410fd034,
	.pfr0 = 0x0000000000002222,
	.dfr0 = 0x0000000010305106,
	.pmcr = 0x41033000,
	.pmceid0 = 0x67ffbfff,
	.pmceid1 = 0,
};

/*
 * Neoverse-N1-like: PMUv3p1, SPEv1, AMUv1 (one group of 4 counters).
 * PMSIDR_EL1: micro-op sampling (ArchInst 0) and a recommended minimum
 * interval of 1024 (Interval 0b0100) as the Neoverse N1 TRM (100616, "SPE
 * functional description") says; FE/FT/FL (always 1), LDS, MaxSize 64 bytes,
 * 12-bit counters invented but valid. PMBIDR_EL1: F = 1, byte alignment, EA
 * not described (permitted before Armv8.8): invented but valid.
 */
const struct pmuscope_model_profile pmuscope_model_neoverse_n1 = {
	.name = "neoverse-n1",
	.midr = 0x414fd0c1,
	.pfr0 = 0x1100100010112222,
	.dfr0 = 0x0000000110305408,
	.pmcr = 0x410c3000,
	.pmceid0 = 0x0000003f7fff0f3f,
	.pmceid1 = 0x0000000000000e7f,
	.pmsidr = 0x00026417,
	.pmbidr = 0x00000020,
	/*
	 * AMU (pfr0.AMU = 1, AMUv1): one group of the 4 architected counters.
	 * AMCFGR_EL0: HDBG 1 and SIZE 63 as the Arm ARM requires (D24.6.1),
	 * NCG 0, N 3. AMCGCR_EL0: CG0NC 4 (D24.6.3), CG1NC 0. Architectural
	 * values, not checked against the N1 TRM, which may list auxiliary
	 * counters this profile leaves out.
	 */
	.amcfgr = 0x01003f03,
	.amcgcr = 0x00000004,
	.amu = &pmuscope_model_amu_neoverse_n1,
	.spe = &pmuscope_model_spe_n1,
};

/*
 * Armv9.4-like: PMUv3p9, 64-bit counters, snapshot, fixed instruction
 * counter, AMUv1p1 with two groups, SPEv1p4 (PMSVer 5). 20 event counters.
 * PMSIDR_EL1 (invented but valid for Armv9.4): FE/FT/FL, ArchInst, ERnd,
 * FnE (required from Armv8.7), no LDS (so FDS may be 0 in Armv8.9),
 * Interval 512, MaxSize 64 bytes, 16-bit counters. PMBIDR_EL1: Align 64
 * bytes (= MaxSize: fixed-size records), F = 1 and EA = SError (values
 * 0 are not permitted from Armv8.8).
 */
const struct pmuscope_model_profile pmuscope_model_v94 = {
	.name = "v9.4-like",
	.midr = 0x410fd840,
	.pfr0 = 0x1100200010112222,
	.dfr0 = 0x0000000510f15909,
	.dfr1 = 0x0000001000000000,
	.pmcr = 0x4100a000,
	.pmceid0 = 0x0000ffff7fffffff,
	.pmceid1 = 0x00000000ffffffff,
	.pmsidr = 0x0003626f,
	.pmbidr = 0x00000226,
	/*
	 * AMU (pfr0.AMU = 2, AMUv1p1), invented but valid: group 0, and a
	 * group 1 of 3 counters of which counter 1 is a hole. AMCFGR_EL0: NCG
	 * 1, HDBG 1, SIZE 63, N 5 (6 counters implemented). AMCGCR_EL0: CG1NC
	 * 3, CG0NC 4. AMCG1IDR_EL0: counters 0 and 2, no virtual offsets.
	 */
	.amcfgr = 0x11003f05,
	.amcgcr = 0x00000304,
	.amcg1idr = 0x00000005,
	.amu = &pmuscope_model_amu_v94,
	.ss = &pmuscope_model_ss_v94,
	.spe = &pmuscope_model_spe_v94,
};

/* No PMU at all (PMUVer = 0). */
const struct pmuscope_model_profile pmuscope_model_no_pmu = {
	.name = "no-pmu",
	.midr = 0x410fd034,
	.pfr0 = 0x0000000000002222,
	.dfr0 = 0x0000000010305006,
};

/* An IMPLEMENTATION DEFINED PMU (PMUVer = 0xF): not PMUv3, not touched. */
const struct pmuscope_model_profile pmuscope_model_impdef_pmu = {
	.name = "impdef-pmu",
	.midr = 0x410fd034,
	.pfr0 = 0x0000000000002222,
	.dfr0 = 0x0000000010305f06,
	.pmcr = 0x41033000,
};

/*
 * A fault model, not a CPU: a hypervisor that exposes a PMU to its guest
 * but never counts (the guest's PMU state is kept in memory and never
 * loaded into a counting PMU). The ID registers are a Cortex-A53's, as
 * such a hypervisor passes the host's through: PMUv3 (ID_AA64DFR0_EL1.PMUVer
 * 1), PMCR_EL0.N = 6, the A53's PMCEID0_EL0. Every register reads back what
 * was written, the SET/CLR pairs and PMCR_EL0.P/C behave, but the counters
 * never advance: no event counts, the cycle counter stays still, a write to
 * PMSWINC_EL0 is ignored, so no overflow flag is ever set by counting and
 * the overflow interrupt never comes. This deliberately breaks the Arm ARM
 * (D13.4: an enabled counter counts its event; D24.5 PMSWINC_EL0: a write
 * of 1 increments an enabled SW_INCR counter; D13.3: a counter that wraps
 * sets its PMOVSSET_EL0 bit) so that a self-check can be seen to fail.
 */
const struct pmuscope_model_profile pmuscope_model_dead_pmu = {
	.name = "dead-pmu",
	.midr = 0x410fd034,
	.pfr0 = 0x0000000000002222,
	.dfr0 = 0x0000000010305106,
	.pmcr = 0x41033000,
	.pmceid0 = 0x67ffbfff,
	.pmceid1 = 0,
	.pmu_dead = true,
};

/* ------------------------------------------------------------ per-CPU state */

/*
 * Static, and set up on the first reset rather than at module init: before
 * 6.3, KUnit runs a module's suites before the module's init function.
 */
#define PMUSCOPE_MODEL_CPUS	(NR_CPUS < 64 ? NR_CPUS : 64)

static struct pmuscope_model_cpu pmuscope_model_cpus[PMUSCOPE_MODEL_CPUS];
static DEFINE_MUTEX(pmuscope_model_setup_lock);
static bool pmuscope_model_ready;

struct pmuscope_model_cpu *pmuscope_model_get(unsigned int cpu)
{
	/* CPUs beyond the model's share the last entry (and its checks). */
	return &pmuscope_model_cpus[min_t(unsigned int, cpu, PMUSCOPE_MODEL_CPUS - 1)];
}

static void pmuscope_model_setup(void)
{
	unsigned int i;

	mutex_lock(&pmuscope_model_setup_lock);
	if (!pmuscope_model_ready) {
		for (i = 0; i < PMUSCOPE_MODEL_CPUS; i++)
			raw_spin_lock_init(&pmuscope_model_cpus[i].lock);
		pmuscope_model_ready = true;
	}
	mutex_unlock(&pmuscope_model_setup_lock);
}

/* Process context only: every test resets the model before using it. */
void pmuscope_model_reset(unsigned int cpu,
			  const struct pmuscope_model_profile *prof)
{
	struct pmuscope_model_cpu *m;
	unsigned long flags;
	bool passthrough;
	unsigned int n;

	pmuscope_model_setup();
	m = pmuscope_model_get(cpu);

	raw_spin_lock_irqsave(&m->lock, flags);
	passthrough = m->passthrough;
	n = m->n;
	memset((char *)m + offsetofend(struct pmuscope_model_cpu, lock), 0,
	       sizeof(*m) - offsetofend(struct pmuscope_model_cpu, lock));
	m->prof = prof;
	m->passthrough = passthrough;
	m->n = passthrough ? n : prof ? FIELD_GET(PMUSCOPE_PMCR_N, prof->pmcr) : 0;
	if (prof) {
		pmuscope_model_ss_reset(m);
		pmuscope_model_spe_reset(m);
		pmuscope_model_amu_reset(m);
	}
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * pmuscope_emu.ko, on @cpu itself: the PMUv3 registers become the CPU's
 * own, and PMCR_EL0.N the CPU's.
 */
void pmuscope_model_set_passthrough(unsigned int cpu, bool on)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	pmuscope_model_setup();
	raw_spin_lock_irqsave(&m->lock, flags);
	m->passthrough = on;
	if (on)
		m->n = FIELD_GET(PMUSCOPE_PMCR_N, pmuscope_hw_mrs(PMUSCOPE_REG_PMCR_EL0));
	else
		m->n = m->prof ? FIELD_GET(PMUSCOPE_PMCR_N, m->prof->pmcr) : 0;
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

void pmuscope_model_reset_all(const struct pmuscope_model_profile *prof)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		pmuscope_model_reset(cpu, prof);
}

unsigned int pmuscope_model_total_violations(void)
{
	unsigned int cpu, n = 0;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(pmuscope_model_get(cpu)->violations);
	return n;
}

/* ------------------------------------------------------------ register set */
static unsigned int pmuscope_model_pmuver(const struct pmuscope_model_profile *p)
{
	return FIELD_GET(PMUSCOPE_DFR0_PMUVER, p->dfr0);
}

static bool pmuscope_model_has_pmu(const struct pmuscope_model_profile *p)
{
	unsigned int v = pmuscope_model_pmuver(p);

	return v != PMUSCOPE_PMUVER_NI && v != PMUSCOPE_PMUVER_IMP_DEF;
}

static unsigned int pmuscope_model_n(const struct pmuscope_model_profile *p)
{
	return FIELD_GET(PMUSCOPE_PMCR_N, p->pmcr);
}

static bool pmuscope_model_in(enum pmuscope_reg reg, enum pmuscope_reg base,
			      unsigned int *idx)
{
	if (reg < base || reg >= base + PMUSCOPE_MAX_EVENT_COUNTERS)
		return false;
	*idx = reg - base;
	return true;
}

const struct pmuscope_reg_desc *pmuscope_model_desc(enum pmuscope_reg reg)
{
	return reg < PMUSCOPE_REG_NR ? &pmuscope_reg_descs[reg] : NULL;
}

/*
 * Whether @reg exists on a CPU of profile @p with PMCR_EL0.N = @n: the gate
 * the register table gives it, evaluated on the profile's ID registers.
 * Arm ARM: each register's "Configuration" section ("present only when
 * FEAT_x is implemented ... otherwise UNDEFINED"); counters n >= PMCR_EL0.N
 * are UNDEFINED (D24.5 PMEVCNTR<n>_EL0 accessibility pseudocode).
 */
static bool pmuscope_model_gate_open(const struct pmuscope_model_profile *p,
				     unsigned int n, const struct pmuscope_reg_desc *d)
{
	bool pmu = pmuscope_model_has_pmu(p);
	bool ss = pmu && FIELD_GET(PMUSCOPE_DFR0_PMSS, p->dfr0);
	bool icntr = pmu && FIELD_GET(PMUSCOPE_DFR1_PMICNTR, p->dfr1);
	unsigned int amu = FIELD_GET(PMUSCOPE_PFR0_AMU, p->pfr0);
	bool cg1 = amu && FIELD_GET(PMUSCOPE_AMCFGR_NCG, p->amcfgr) >= 1;

	switch (d->gate) {
	case PMUSCOPE_GATE_ALWAYS:
		return true;
	case PMUSCOPE_GATE_PMU:
		return pmu;
	case PMUSCOPE_GATE_PMU_N:
		return pmu && d->index < n;
	case PMUSCOPE_GATE_PMUV3P9:
		return pmu && pmuscope_model_pmuver(p) >= PMUSCOPE_PMUVER_V3P9;
	case PMUSCOPE_GATE_ICNTR:
		return icntr;
	case PMUSCOPE_GATE_SS:
		return ss;
	case PMUSCOPE_GATE_SS_N:
		return ss && d->index < n;
	case PMUSCOPE_GATE_SS_ICNTR:
		return ss && icntr;
	case PMUSCOPE_GATE_PMECR:
		return ss || (pmu && FIELD_GET(PMUSCOPE_DFR1_EBEP, p->dfr1));
	case PMUSCOPE_GATE_SPE:
		return FIELD_GET(PMUSCOPE_DFR0_PMSVER, p->dfr0);
	case PMUSCOPE_GATE_SPE_FNE:
		return FIELD_GET(PMUSCOPE_DFR0_PMSVER, p->dfr0) &&
		       (p->pmsidr & PMUSCOPE_PMSIDR_FNE);
	case PMUSCOPE_GATE_AMU:
		return amu;
	case PMUSCOPE_GATE_AMU_V1P1:
		return amu >= PMUSCOPE_AMU_V1P1;
	case PMUSCOPE_GATE_AMU_CG0_N:
		return amu && d->index < FIELD_GET(PMUSCOPE_AMCGCR_CG0NC, p->amcgcr);
	case PMUSCOPE_GATE_AMU_CG1:
		return cg1;
	case PMUSCOPE_GATE_AMU_CG1_N:
		/* AMUv1p1: a counter missing from AMCG1IDR_EL0 is UNDEFINED. */
		return cg1 && d->index < FIELD_GET(PMUSCOPE_AMCGCR_CG1NC, p->amcgcr) &&
		       (amu < PMUSCOPE_AMU_V1P1 ||
			(FIELD_GET(PMUSCOPE_AMCG1IDR_CNTEN, p->amcg1idr) & BIT(d->index)));
	case PMUSCOPE_GATE_EL2:
		/* The profile's part; the CPU's EL is pmuscope_model_cpu_implements(). */
		return FIELD_GET(PMUSCOPE_PFR0_EL2, p->pfr0);
	default:
		return false;
	}
}

bool pmuscope_model_implements(const struct pmuscope_model_profile *p,
			       enum pmuscope_reg reg)
{
	if (!p || reg >= PMUSCOPE_REG_NR)
		return false;
	return pmuscope_model_gate_open(p, pmuscope_model_n(p), &pmuscope_reg_descs[reg]);
}

/* The same, with PMCR_EL0.N as this CPU has it (the real one in passthrough). */
static bool pmuscope_model_cpu_implements(struct pmuscope_model_cpu *m,
					  enum pmuscope_reg reg)
{
	const struct pmuscope_reg_desc *d;

	if (!m->prof || reg >= PMUSCOPE_REG_NR)
		return false;
	d = &pmuscope_reg_descs[reg];
	/* An EL2 register is UNDEFINED at EL1 (a kernel that is not VHE). */
	if (d->gate == PMUSCOPE_GATE_EL2 && m->ss.el2 != PMUSCOPE_HW_EL2_KERNEL)
		return false;
	return pmuscope_model_gate_open(m->prof, m->n, d);
}

void pmuscope_model_reg_name(enum pmuscope_reg reg, char *buf, size_t len)
{
	if (reg < PMUSCOPE_REG_NR)
		snprintf(buf, len, "%s", pmuscope_reg_descs[reg].name);
	else if (reg == PMUSCOPE_MODEL_ISB)
		snprintf(buf, len, "isb");
	else if (reg == PMUSCOPE_MODEL_PSB)
		snprintf(buf, len, "psb csync");
	else if (reg == PMUSCOPE_MODEL_DSB)
		snprintf(buf, len, "dsb nsh");
	else
		snprintf(buf, len, "register#%d", reg);
}

/* ------------------------------------------------------------------- rules */
static u64 pmuscope_model_cnt_mask(const struct pmuscope_model_profile *p)
{
	return GENMASK_ULL(pmuscope_model_n(p), 0) >> 1 | PMUSCOPE_CNT_CYCLE;
}

/*
 * The same for this CPU's SET/CLR registers, with bit 32 (F0, PMICNTR_EL0)
 * where FEAT_PMUv3_ICNTR has it and MDCR_EL3.EnPM2 lets EL1 see it
 * (pseudocode GetPMUReadMask(), GetPMUWriteMask()).
 */
static u64 pmuscope_model_cpu_cnt_mask(struct pmuscope_model_cpu *m)
{
	return pmuscope_model_cnt_mask(m->prof) | pmuscope_model_ss_f0_mask(m);
}

static bool pmuscope_model_v3p5(const struct pmuscope_model_profile *p)
{
	return pmuscope_model_pmuver(p) >= PMUSCOPE_PMUVER_V3P5;
}

static u64 pmuscope_model_pmcr_writable(const struct pmuscope_model_profile *p)
{
	u64 w = PMUSCOPE_PMCR_E | PMUSCOPE_PMCR_D | PMUSCOPE_PMCR_X |
		PMUSCOPE_PMCR_DP | PMUSCOPE_PMCR_LC;

	/* LP is RES0 below PMUv3p5. */
	if (pmuscope_model_v3p5(p))
		w |= PMUSCOPE_PMCR_LP;
	return w;
}

static u64 pmuscope_model_evtyper_mask(const struct pmuscope_model_profile *p)
{
	u64 evt = pmuscope_model_pmuver(p) >= PMUSCOPE_PMUVER_V3P1 ?
		  PMUSCOPE_EVTYPER_EVTCOUNT : PMUSCOPE_EVTYPER_EVTCOUNT_V3;

	return evt | GENMASK_ULL(31, 24);
}

/* Event counters are 32-bit below PMUv3p5, 64-bit from it. */
static u64 pmuscope_model_evcnt_mask(const struct pmuscope_model_profile *p)
{
	return pmuscope_model_v3p5(p) ? U64_MAX : U32_MAX;
}

/* Add @n to a counter; returns true when it overflowed. */
static bool pmuscope_model_add(u64 *cnt, u64 n, u64 width_mask, bool long_ovf)
{
	u64 old = *cnt;
	u64 new = (old + n) & width_mask;

	*cnt = new;
	if (long_ovf || width_mask == U32_MAX)
		return new < old || n > width_mask;
	/* 64-bit counter, overflow flagged on bits [31:0] (LC/LP = 0). */
	return (u32)new < (u32)old || n > U32_MAX;
}

static void pmuscope_model_tick_counter(struct pmuscope_model_cpu *m,
					unsigned int i, u64 n)
{
	const struct pmuscope_model_profile *p = m->prof;

	if (pmuscope_model_add(&m->evcnt[i], n, pmuscope_model_evcnt_mask(p),
			       m->pmcr & PMUSCOPE_PMCR_LP))
		m->ovs |= BIT_ULL(i);
}

static bool pmuscope_model_counting(struct pmuscope_model_cpu *m, unsigned int i)
{
	return (m->pmcr & PMUSCOPE_PMCR_E) && (m->cnten & BIT_ULL(i));
}

static void pmuscope_model_log(struct pmuscope_model_cpu *m,
			       enum pmuscope_reg reg, bool write, u64 val)
{
	if (m->nlog < PMUSCOPE_MODEL_LOG)
		m->log[m->nlog] = (struct pmuscope_model_access){ reg, write, val };
	m->nlog++;
}

static void pmuscope_model_violation(struct pmuscope_model_cpu *m,
				     enum pmuscope_reg reg, bool write, u64 val)
{
	char name[32];

	if (!m->violations++)
		m->first_violation = (struct pmuscope_model_access){ reg, write, val };
	pmuscope_model_reg_name(reg, name, sizeof(name));
	pr_warn_ratelimited("pmuscope-model: %s %s on %s: not allowed by the profile\n",
			    write ? "write of" : "read of", name,
			    m->prof ? m->prof->name : "an unmodelled CPU");
}

/* For the units' hooks: an access their rules forbid (e.g. an EL3 trap). */
void pmuscope_model_violation_locked(struct pmuscope_model_cpu *m,
				     enum pmuscope_reg reg, bool write, u64 val)
{
	pmuscope_model_violation(m, reg, write, val);
}

/* Is an event at @el counted under the filter bits of @typer? */
static bool pmuscope_model_el_counted(u64 typer, unsigned int el)
{
	switch (el) {
	case 0:
		return !(typer & PMUSCOPE_EVTYPER_U);
	case 1:
		return !(typer & PMUSCOPE_EVTYPER_P);
	default:
		return typer & PMUSCOPE_EVTYPER_NSH;
	}
}

/*
 * Let @n events of type @event happen on @m at exception level @el: every
 * enabled counter programmed with @event and not filtered at @el counts
 * (Arm ARM D13.4 "Enabling event counters", D13.5 filtering). In
 * passthrough the CPU's own PMU counts by itself: nothing to do here. A
 * dead PMU (fault model, pmuscope_model_dead_pmu) counts nothing.
 */
void pmuscope_model_count_locked(struct pmuscope_model_cpu *m, u16 event,
				 unsigned int el, u64 n)
{
	const struct pmuscope_model_profile *p = m->prof;
	unsigned int i;

	if (!p || !pmuscope_model_has_pmu(p) || m->passthrough || p->pmu_dead)
		return;
	for (i = 0; i < m->n; i++)
		if (pmuscope_model_counting(m, i) &&
		    FIELD_GET(PMUSCOPE_EVTYPER_EVTCOUNT, m->evtyper[i]) == event &&
		    pmuscope_model_el_counted(m->evtyper[i], el))
			pmuscope_model_tick_counter(m, i, n);
	if (event == 0x11 && pmuscope_model_counting(m, PMUSCOPE_CYCLE_IDX) &&
	    pmuscope_model_el_counted(m->ccfiltr, el) &&
	    pmuscope_model_add(&m->ccnt, n, U64_MAX, m->pmcr & PMUSCOPE_PMCR_LC))
		m->ovs |= PMUSCOPE_CNT_CYCLE;
	/* FEAT_PMUv3_ICNTR: PMICNTR_EL0 counts INST_RETIRED (D24.5.15). */
	if (event == 0x08)
		pmuscope_model_ss_count_inst_locked(m, el, n);
}

/* ---------------------------------------------------------------- accessors */
static u64 pmuscope_model_pmu_read(struct pmuscope_model_cpu *m,
				   enum pmuscope_reg reg)
{
	const struct pmuscope_model_profile *p = m->prof;
	unsigned int n;

	if (pmuscope_model_in(reg, PMUSCOPE_REG_PMEVCNTR0_EL0, &n))
		return m->evcnt[n];
	if (pmuscope_model_in(reg, PMUSCOPE_REG_PMEVTYPER0_EL0, &n))
		return m->evtyper[n];

	switch (reg) {
	case PMUSCOPE_REG_PMCR_EL0:
		return (p->pmcr & (PMUSCOPE_PMCR_N | PMUSCOPE_PMCR_IDCODE |
				   PMUSCOPE_PMCR_IMP)) | m->pmcr;
	case PMUSCOPE_REG_PMCNTENSET_EL0:
	case PMUSCOPE_REG_PMCNTENCLR_EL0:
		return m->cnten & pmuscope_model_cpu_cnt_mask(m);
	case PMUSCOPE_REG_PMOVSSET_EL0:
	case PMUSCOPE_REG_PMOVSCLR_EL0:
		return m->ovs & pmuscope_model_cpu_cnt_mask(m);
	case PMUSCOPE_REG_PMINTENSET_EL1:
	case PMUSCOPE_REG_PMINTENCLR_EL1:
		return m->inten & pmuscope_model_cpu_cnt_mask(m);
	case PMUSCOPE_REG_PMSELR_EL0:
		return m->selr;
	case PMUSCOPE_REG_PMCEID0_EL0:
		return p->pmceid0;
	case PMUSCOPE_REG_PMCEID1_EL0:
		return p->pmceid1;
	case PMUSCOPE_REG_PMCCNTR_EL0:
		return m->ccnt;
	case PMUSCOPE_REG_PMCCFILTR_EL0:
		return m->ccfiltr;
	case PMUSCOPE_REG_PMUSERENR_EL0:
		return m->userenr;
	case PMUSCOPE_REG_PMUACR_EL1:
		return m->pmuacr;
	default:
		return 0;
	}
}

static void pmuscope_model_pmu_write(struct pmuscope_model_cpu *m,
				     enum pmuscope_reg reg, u64 val)
{
	const struct pmuscope_model_profile *p = m->prof;
	u64 cmask = pmuscope_model_cpu_cnt_mask(m);
	unsigned int n, i;

	if (pmuscope_model_in(reg, PMUSCOPE_REG_PMEVCNTR0_EL0, &n)) {
		m->evcnt[n] = val & pmuscope_model_evcnt_mask(p);
		return;
	}
	if (pmuscope_model_in(reg, PMUSCOPE_REG_PMEVTYPER0_EL0, &n)) {
		m->evtyper[n] = val & pmuscope_model_evtyper_mask(p);
		return;
	}

	switch (reg) {
	case PMUSCOPE_REG_PMCR_EL0:
		m->pmcr = val & pmuscope_model_pmcr_writable(p);
		/*
		 * P resets the event counters only, C the cycle counter;
		 * neither touches PMICNTR_EL0 (D24.5.8 PMCR_EL0.P).
		 */
		if (val & PMUSCOPE_PMCR_P)
			memset(m->evcnt, 0, sizeof(m->evcnt));
		if (val & PMUSCOPE_PMCR_C)
			m->ccnt = 0;
		break;
	case PMUSCOPE_REG_PMCNTENSET_EL0:
		m->cnten |= val & cmask;
		break;
	case PMUSCOPE_REG_PMCNTENCLR_EL0:
		m->cnten &= ~(val & cmask);
		break;
	case PMUSCOPE_REG_PMOVSSET_EL0:
		m->ovs |= val & cmask;
		break;
	case PMUSCOPE_REG_PMOVSCLR_EL0:
		m->ovs &= ~(val & cmask);
		break;
	case PMUSCOPE_REG_PMINTENSET_EL1:
		m->inten |= val & cmask;
		break;
	case PMUSCOPE_REG_PMINTENCLR_EL1:
		m->inten &= ~(val & cmask);
		break;
	case PMUSCOPE_REG_PMSELR_EL0:
		m->selr = val & GENMASK_ULL(4, 0);
		break;
	case PMUSCOPE_REG_PMCCNTR_EL0:
		m->ccnt = val;
		break;
	case PMUSCOPE_REG_PMCCFILTR_EL0:
		m->ccfiltr = val & GENMASK_ULL(31, 24);
		break;
	case PMUSCOPE_REG_PMUSERENR_EL0:
		/* IR, UEN and TID exist from PMUv3p9 / ICNTR only. */
		m->userenr = val & (pmuscope_model_pmuver(p) >= PMUSCOPE_PMUVER_V3P9 ?
				    GENMASK_ULL(6, 0) : GENMASK_ULL(3, 0));
		break;
	case PMUSCOPE_REG_PMUACR_EL1:
		m->pmuacr = val & (cmask | (FIELD_GET(PMUSCOPE_DFR1_PMICNTR, p->dfr1) ?
					    PMUSCOPE_PMUACR_F0 : 0));
		break;
	case PMUSCOPE_REG_PMSWINC_EL0:
		/*
		 * Counts only on enabled counters programmed with SW_INCR;
		 * on none on a dead PMU (fault model).
		 */
		for (i = 0; i < m->n && !p->pmu_dead; i++)
			if ((val & BIT_ULL(i)) && pmuscope_model_counting(m, i) &&
			    !FIELD_GET(PMUSCOPE_EVTYPER_EVTCOUNT, m->evtyper[i]))
				pmuscope_model_tick_counter(m, i, 1);
		break;
	default:
		break;
	}
}

/*
 * Passthrough (pmuscope_emu.ko): the PMUv3 registers every PMUv3 has are
 * the CPU's own. A profile below PMUv3p5 run on a CPU whose event counters
 * are 64-bit sees them as the 32-bit counters it has (PMCR_EL0.LP = 0, so
 * the overflow is at bit 31 on both).
 */
static bool pmuscope_model_is_passthrough(struct pmuscope_model_cpu *m,
					  const struct pmuscope_reg_desc *d)
{
	return m->passthrough && d->unit == PMUSCOPE_RU_PMU &&
	       (d->gate == PMUSCOPE_GATE_PMU || d->gate == PMUSCOPE_GATE_PMU_N);
}

static u64 pmuscope_model_do_read(struct pmuscope_model_cpu *m,
				  enum pmuscope_reg reg)
{
	const struct pmuscope_model_profile *p = m->prof;
	const struct pmuscope_reg_desc *d = &pmuscope_reg_descs[reg];
	unsigned int n;

	if (pmuscope_model_is_passthrough(m, d)) {
		u64 val = pmuscope_hw_mrs(reg);

		if (pmuscope_model_in(reg, PMUSCOPE_REG_PMEVCNTR0_EL0, &n))
			val &= pmuscope_model_evcnt_mask(p);
		return val;
	}

	switch (d->unit) {
	case PMUSCOPE_RU_ID:
		switch (reg) {
		case PMUSCOPE_REG_MIDR_EL1:
			return p->midr;
		case PMUSCOPE_REG_ID_AA64PFR0_EL1:
			return p->pfr0;
		case PMUSCOPE_REG_ID_AA64DFR0_EL1:
			return p->dfr0;
		case PMUSCOPE_REG_ID_AA64DFR1_EL1:
			return p->dfr1;
		default:
			return 0;
		}
	case PMUSCOPE_RU_PMU:
		return pmuscope_model_pmu_read(m, reg);
	case PMUSCOPE_RU_ICNTR:
	case PMUSCOPE_RU_SS:
		return pmuscope_model_ss_read(m, reg);
	case PMUSCOPE_RU_SPE:
		return pmuscope_model_spe_read(m, reg);
	case PMUSCOPE_RU_AMU:
		return pmuscope_model_amu_read(m, reg);
	default:
		return 0;
	}
}

static void pmuscope_model_do_write(struct pmuscope_model_cpu *m,
				    enum pmuscope_reg reg, u64 val)
{
	const struct pmuscope_reg_desc *d = &pmuscope_reg_descs[reg];

	if (pmuscope_model_is_passthrough(m, d)) {
		pmuscope_hw_msr(reg, val);
		return;
	}

	switch (d->unit) {
	case PMUSCOPE_RU_PMU:
		pmuscope_model_pmu_write(m, reg, val);
		break;
	case PMUSCOPE_RU_ICNTR:
	case PMUSCOPE_RU_SS:
		pmuscope_model_ss_write(m, reg, val);
		break;
	case PMUSCOPE_RU_SPE:
		pmuscope_model_spe_write(m, reg, val);
		break;
	case PMUSCOPE_RU_AMU:
		pmuscope_model_amu_write(m, reg, val);
		break;
	default:
		break;
	}
}

/* Accesses of the driver: the registers of the CPU it runs on. */
u64 pmuscope_model_read(enum pmuscope_reg reg)
{
	return pmuscope_model_read_cpu(raw_smp_processor_id(), reg);
}

void pmuscope_model_write(enum pmuscope_reg reg, u64 val)
{
	pmuscope_model_write_cpu(raw_smp_processor_id(), reg, val);
}

void pmuscope_model_barrier(enum pmuscope_barrier b)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(raw_smp_processor_id());
	unsigned long flags;

	if (WARN_ON_ONCE(b > PMUSCOPE_BARRIER_DSB_NSH))
		return;
	raw_spin_lock_irqsave(&m->lock, flags);
	if (b == PMUSCOPE_BARRIER_ISB)
		m->isbs++;
	m->barriers[b]++;
	pmuscope_model_log(m, PMUSCOPE_REG_NR + b, false, 0);
	if (m->prof) {
		pmuscope_model_ss_barrier(m, b);
		pmuscope_model_spe_barrier(m, b);
	}
	raw_spin_unlock_irqrestore(&m->lock, flags);
	/* The CPU's own barrier too: passthrough registers are real. */
	if (m->passthrough && b == PMUSCOPE_BARRIER_ISB)
		isb();
}

/* Accesses on a named CPU's registers, for the model's own tests. */
u64 pmuscope_model_read_cpu(unsigned int cpu, enum pmuscope_reg reg)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;
	u64 val = 0;

	raw_spin_lock_irqsave(&m->lock, flags);
	if (!pmuscope_model_cpu_implements(m, reg) ||
	    pmuscope_reg_descs[reg].access == PMUSCOPE_ACC_WO) {
		pmuscope_model_violation(m, reg, false, 0);
	} else {
		if (m->inject.armed && m->inject.reg == reg) {
			m->inject.armed = false;
			pmuscope_model_count_locked(m, m->inject.event, 1, m->inject.n);
		}
		m->reads[reg]++;
		val = pmuscope_model_do_read(m, reg);
		pmuscope_model_log(m, reg, false, val);
	}
	raw_spin_unlock_irqrestore(&m->lock, flags);
	return val;
}

void pmuscope_model_write_cpu(unsigned int cpu, enum pmuscope_reg reg, u64 val)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	if (!pmuscope_model_cpu_implements(m, reg) ||
	    pmuscope_reg_descs[reg].access == PMUSCOPE_ACC_RO) {
		pmuscope_model_violation(m, reg, true, val);
	} else {
		m->writes[reg]++;
		pmuscope_model_do_write(m, reg, val);
		pmuscope_model_log(m, reg, true, val);
	}
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/* A counter's value for the other units (snapshot captures it). */
u64 pmuscope_model_pmu_counter_locked(struct pmuscope_model_cpu *m,
				      unsigned int idx)
{
	if (idx == PMUSCOPE_CYCLE_IDX)
		return m->passthrough ? pmuscope_hw_mrs(PMUSCOPE_REG_PMCCNTR_EL0) : m->ccnt;
	if (idx >= m->n)
		return 0;
	if (m->passthrough)
		return pmuscope_hw_mrs(PMUSCOPE_REG_PMEVCNTR(idx)) &
		       pmuscope_model_evcnt_mask(m->prof);
	return m->evcnt[idx];
}

/*
 * Run @w on @m: the PMU counts its events, then every other unit advances
 * on the same work (see struct pmuscope_model_work).
 */
void pmuscope_model_run_locked(struct pmuscope_model_cpu *m,
			       const struct pmuscope_model_work *w)
{
	if (!m->prof)
		return;
	pmuscope_model_count_locked(m, 0x11, w->el, w->cycles);	/* CPU_CYCLES */
	pmuscope_model_count_locked(m, 0x08, w->el, w->insts);	/* INST_RETIRED */
	pmuscope_model_count_locked(m, 0x1b, w->el, w->insts);	/* INST_SPEC */
	pmuscope_model_count_locked(m, 0x06, w->el, w->loads);	/* LD_RETIRED */
	pmuscope_model_count_locked(m, 0x07, w->el, w->stores);	/* ST_RETIRED */
	pmuscope_model_count_locked(m, 0x13, w->el, w->loads + w->stores); /* MEM_ACCESS */
	pmuscope_model_count_locked(m, 0x21, w->el, w->branches);	/* BR_RETIRED */
	pmuscope_model_count_locked(m, 0x22, w->el, w->mispredicts); /* BR_MIS_PRED_RETIRED */
	pmuscope_model_count_locked(m, 0x4005, w->el, w->mem_stall_cycles); /* STALL_BACKEND_MEM */
	pmuscope_model_ss_run(m, w);
	pmuscope_model_spe_run(m, w);
	pmuscope_model_amu_run(m, w);
}

void pmuscope_model_run(unsigned int cpu, const struct pmuscope_model_work *w)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	pmuscope_model_run_locked(m, w);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/* ------------------------------------------------------------- test hooks */

void pmuscope_model_count_el(unsigned int cpu, u16 event, unsigned int el, u64 n)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	pmuscope_model_count_locked(m, event, el, n);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/* Let @n events of type @event happen on @cpu, at EL1. */
void pmuscope_model_count(unsigned int cpu, u16 event, u64 n)
{
	pmuscope_model_count_el(cpu, event, 1, n);
}

/* Count @n @event on @cpu right before the driver next reads @reg. */
void pmuscope_model_inject(unsigned int cpu, enum pmuscope_reg before_read,
			   u16 event, u64 n)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	m->inject.armed = true;
	m->inject.reg = before_read;
	m->inject.event = event;
	m->inject.n = n;
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * The CPU's PMU lost power. PMCR_EL0.E, the enables and the event types
 * come back as 0; the counters, overflow flags and PMUSERENR_EL0 are
 * UNKNOWN: the model makes them the worst it can, counters just below a
 * wrap, every overflow flag set, EL0 access enabled, so that a driver
 * which trusts them is caught.
 */
void pmuscope_model_power_loss(unsigned int cpu)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned int n = m->prof ? FIELD_GET(PMUSCOPE_PMCR_N, m->prof->pmcr) : 0;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&m->lock, flags);
	m->pmcr = 0;
	m->cnten = 0;
	m->inten = 0;
	m->ovs = GENMASK_ULL(31, 31) | (n ? GENMASK_ULL(n - 1, 0) : 0);
	m->selr = 0;
	m->ccnt = 0xfffffffffffffff0ULL;
	m->ccfiltr = 0;
	m->userenr = 0xf;	/* UNKNOWN after a warm reset: EL0 let in */
	for (i = 0; i < ARRAY_SIZE(m->evcnt); i++)
		m->evcnt[i] = i < n ? 0xfffffff0 : 0;
	memset(m->evtyper, 0, sizeof(m->evtyper));
	/* PMICNTR_EL0, PMICFILTR_EL0 and the snapshot unit's state. */
	if (m->prof)
		pmuscope_model_ss_power_loss(m);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * The overflow interrupt request: PMCR_EL0.E && (PMINTENSET & PMOVSSET),
 * bit 32 (F0) included: D13.3.1, the instruction counter requests it when
 * PMCR.E, PMOVSSET_EL0.F0 and PMINTENSET_EL1.F0 are all 1.
 */
bool pmuscope_model_irq_line(unsigned int cpu)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;
	bool line;

	raw_spin_lock_irqsave(&m->lock, flags);
	line = (m->pmcr & PMUSCOPE_PMCR_E) && (m->inten & m->ovs);
	raw_spin_unlock_irqrestore(&m->lock, flags);
	return line;
}
