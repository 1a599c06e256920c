// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope register model: the Activity Monitors; see pmuscope_model_amu.h.
 *
 * References are to the Arm ARM (DDI 0487, issue M.a.a numbering): chapter
 * D16 "The Activity Monitors Extension", the register pages of D24.6
 * "Activity Monitors registers", D24.2.38 CPTR_EL2 and D24.2.39 CPTR_EL3,
 * and to the kernel's Documentation/arch/arm64/amu.rst.
 */

#include <linux/bitfield.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/time64.h>

#include <asm/arch_timer.h>

#include "pmuscope_model.h"

/* ---------------------------------------------------------------- profiles */

/*
 * Neoverse-N1-like: AMUv1, the four architected counters only (the ID
 * values are in pmuscope_model.c). Before Armv8.6 the system counter
 * frequency is the platform's choice (Arm ARM D12.1.2: "a fixed value,
 * typically in the range 1-50MHz"): 100 MHz is an example server value,
 * chosen to differ from the default (62.5 MHz) and the v9.4-like profile's
 * (1 GHz), so that three rates are exercised. At 10 ns per tick, a run not
 * a multiple of 10 ns leaves a fraction of a tick to carry.
 */
const struct pmuscope_model_amu_profile pmuscope_model_amu_neoverse_n1 = {
	.cntfrq_hz = 100000000,
};

/*
 * Armv9.4-like: AMUv1p1 with three auxiliary counters, of which the
 * second is not implemented (AMCG1IDR_EL0 = 0b101). From Armv8.6 the
 * system counter runs at 1 GHz (Arm ARM D12.1.2 "From Armv8.6, the
 * effective frequency is a fixed value of 1GHz").
 *
 * The auxiliary event types are invented, as a real core's would be
 * IMPLEMENTATION DEFINED (D16.3.2): counter 0 counts a PMU common event,
 * BR_RETIRED (0x0021, allowed by D16.3.2, with the PMU's number as D16.3
 * asks); counter 2 counts at a constant rate while the core is not in WFI
 * or WFE, with an event number from the IMPLEMENTATION DEFINED space
 * 0x00C0-0x03FF (D14.2). Firmware enables both.
 */
const struct pmuscope_model_amu_profile pmuscope_model_amu_v94 = {
	.cntfrq_hz = 1000000000,
	.aux_enabled = BIT(0) | BIT(2),
	.aux = {
		[0] = { 0x0021, PMUSCOPE_MODEL_AMU_SRC_BRANCHES },
		[2] = { 0x03f0, PMUSCOPE_MODEL_AMU_SRC_CONST },
	},
};

static const struct pmuscope_model_amu_profile pmuscope_model_amu_default;

static const struct pmuscope_model_amu_profile *
pmuscope_model_amu_prof(const struct pmuscope_model_profile *p)
{
	return p->amu ? p->amu : &pmuscope_model_amu_default;
}

u32 pmuscope_model_amu_cntfrq(const struct pmuscope_model_profile *p)
{
	const struct pmuscope_model_amu_profile *ap;

	if (!p)
		return PMUSCOPE_MODEL_AMU_CNTFRQ_DEFAULT;
	ap = pmuscope_model_amu_prof(p);
	return ap->cntfrq_hz ? ap->cntfrq_hz : PMUSCOPE_MODEL_AMU_CNTFRQ_DEFAULT;
}

/* ------------------------------------------------------------ counter set */

static unsigned int pmuscope_model_amu_ver(const struct pmuscope_model_profile *p)
{
	return FIELD_GET(PMUSCOPE_PFR0_AMU, p->pfr0);
}

/*
 * The architected counters: AMCGCR_EL0.CG0NC of them (D24.6.3, "Reads as
 * 0x04"); AMCNTEN{SET,CLR}0_EL0 bits [15:4] are RAZ/WI (D24.6.4, D24.6.6).
 */
static u64 pmuscope_model_amu_cg0_mask(const struct pmuscope_model_profile *p)
{
	unsigned int nc = FIELD_GET(PMUSCOPE_AMCGCR_CG0NC, p->amcgcr);

	if (!pmuscope_model_amu_ver(p))
		return 0;
	return (BIT_ULL(min(nc, 16U)) - 1) & PMUSCOPE_AMCNTEN0_P;
}

/*
 * The auxiliary counters that exist: none unless AMCFGR_EL0.NCG says there
 * is a second group (D24.6.1); n < AMCGCR_EL0.CG1NC (D24.6.10 "If <n> is
 * greater than or equal to the number of auxiliary activity monitor event
 * counters ... UNDEFINED"); and on AMUv1p1 only those AMCG1IDR_EL0 lists
 * (D24.6.2; pseudocode IsG1ActivityMonitorImplemented() in the accessors of
 * AMEVCNTR1<n>_EL0 and AMEVTYPER1<n>_EL0). The same rule as the core's gate.
 */
static u64 pmuscope_model_amu_cg1_mask(const struct pmuscope_model_profile *p)
{
	unsigned int nc = FIELD_GET(PMUSCOPE_AMCGCR_CG1NC, p->amcgcr);
	u64 mask;

	if (!pmuscope_model_amu_ver(p) || !FIELD_GET(PMUSCOPE_AMCFGR_NCG, p->amcfgr))
		return 0;
	mask = (BIT_ULL(min(nc, 16U)) - 1) & PMUSCOPE_AMCNTEN1_P;
	if (pmuscope_model_amu_ver(p) >= PMUSCOPE_AMU_V1P1)
		mask &= FIELD_GET(PMUSCOPE_AMCG1IDR_CNTEN, p->amcg1idr);
	return mask;
}

static bool pmuscope_model_amu_in(enum pmuscope_reg reg, enum pmuscope_reg base,
				  unsigned int nr, unsigned int *idx)
{
	if (reg < base || reg >= base + nr)
		return false;
	*idx = reg - base;
	return true;
}

/* D24.6.13 AMEVTYPER0<n>_EL0.evtCount: "architecturally mandated". */
static const u16 pmuscope_model_amu_cg0_events[PMUSCOPE_AMU_CG0_NR] = {
	[PMUSCOPE_AMU_CG0_CORE] = PMUSCOPE_AMU_EVT_CPU_CYCLES,
	[PMUSCOPE_AMU_CG0_CONST] = PMUSCOPE_AMU_EVT_CNT_CYCLES,
	[PMUSCOPE_AMU_CG0_INST] = PMUSCOPE_AMU_EVT_INST_RETIRED,
	[PMUSCOPE_AMU_CG0_MEM_STALL] = PMUSCOPE_AMU_EVT_STALL_BACKEND_MEM,
};

/* ------------------------------------------------------------------- rules */

/*
 * Reset, as firmware leaves the AMU for the kernel: the counters and their
 * enables reset to 0 on an AMU reset (D16.2.3; D24.6.9, D24.6.10 ACNT;
 * D24.6.6, D24.6.7 P<n>); firmware then opens the EL3 and EL2 traps
 * (CPTR_EL3.TAM = CPTR_EL2.TAM = 0), enables every architected counter
 * (TF-A with ENABLE_FEAT_AMU; amu.rst "Firmware ... support is needed to
 * ... Enable the counters") and the auxiliary counters the profile names,
 * and leaves AMCR_EL0.CG1RZ = 0. The kernel clears AMUSERENR_EL0 (Linux:
 * reset_amuserenr_el0 in __cpu_setup). The core has zeroed the state.
 */
void pmuscope_model_amu_reset(struct pmuscope_model_cpu *m)
{
	const struct pmuscope_model_profile *p = m->prof;
	struct pmuscope_model_amu *a = &m->amu;

	a->cnten0 = pmuscope_model_amu_cg0_mask(p);
	a->cnten1 = pmuscope_model_amu_prof(p)->aux_enabled &
		    pmuscope_model_amu_cg1_mask(p);
}

/*
 * An access the hardware would not complete: counted as a violation like
 * the core's (an exception the kernel cannot handle), and read as 0.
 */
static void pmuscope_model_amu_violation(struct pmuscope_model_cpu *m,
					 enum pmuscope_reg reg, bool write,
					 u64 val, const char *why)
{
	char name[32];

	if (!m->violations++)
		m->first_violation = (struct pmuscope_model_access){ reg, write, val };
	pmuscope_model_reg_name(reg, name, sizeof(name));
	pr_warn_ratelimited("pmuscope-model: %s %s on %s: %s\n",
			    write ? "write of" : "read of", name, m->prof->name, why);
}

/*
 * D24.2.39 CPTR_EL3.TAM: "Traps EL2, EL1, and EL0 accesses to all Activity
 * Monitor registers to EL3"; D24.2.38 CPTR_EL2.TAM: "Traps EL1 and EL0
 * accesses ... to EL2, when EL2 is enabled". Every AMU register's accessor
 * pseudocode, AMCG1IDR_EL0's included (which the TAM text does not list),
 * at EL1: "elsif EL2Enabled() && CPTR_EL2.TAM == '1' then
 * AArch64.SystemAccessTrap(EL2, 0x18); elsif HaveEL(EL3) && CPTR_EL3.TAM ==
 * '1' then ... AArch64.SystemAccessTrap(EL3, 0x18)". The gate (UNDEFINED
 * first) is the core's.
 */
static bool pmuscope_model_amu_trapped(struct pmuscope_model_cpu *m,
				       enum pmuscope_reg reg, bool write, u64 val)
{
	struct pmuscope_model_amu *a = &m->amu;

	if (!a->tam_el2 && !a->tam_el3)
		return false;
	a->traps++;
	pmuscope_model_amu_violation(m, reg, write, val,
				     a->tam_el2 ? "trapped to EL2 by CPTR_EL2.TAM" :
						  "trapped to EL3 by CPTR_EL3.TAM");
	return true;
}

/*
 * System counter ticks in @ns of busy time, exactly: D16.3.1 CNT_CYCLES
 * "increments at a constant frequency ... equal to the rate of increment
 * of the System counter, CNTPCT_EL0", whose effective frequency is
 * CNTFRQ_EL0 (D12.1.2). The fraction of a tick is carried, so that runs of
 * any size add up to floor(total ns x CNTFRQ / 10^9). CNTFRQ_EL0 is 32 bits
 * wide, so r x hz + rem < 10^9 x 2^32 + 10^9 does not overflow.
 */
static u64 pmuscope_model_amu_ticks(struct pmuscope_model_cpu *m, u64 ns)
{
	/*
	 * Passed through (pmuscope_emu.ko in the guest), the system counter
	 * is the CPU's own: CNT_CYCLES counts at its CNTFRQ_EL0, whatever the
	 * profile says, or the driver's metrics would mix two clocks.
	 */
	u32 hz = m->passthrough ? arch_timer_get_cntfrq() : pmuscope_model_amu_cntfrq(m->prof);
	u32 r, rem;
	u64 q, t;

	q = div_u64_rem(ns, NSEC_PER_SEC, &r);
	t = div_u64_rem((u64)r * hz + m->amu.const_rem, NSEC_PER_SEC, &rem);
	m->amu.const_rem = rem;
	return q * hz + t;
}

static u64 pmuscope_model_amu_src(enum pmuscope_model_amu_src src,
				  const struct pmuscope_model_work *w, u64 ticks)
{
	switch (src) {
	case PMUSCOPE_MODEL_AMU_SRC_CYCLES:
		return w->cycles;
	case PMUSCOPE_MODEL_AMU_SRC_INSTS:
		return w->insts;
	case PMUSCOPE_MODEL_AMU_SRC_LOADS:
		return w->loads;
	case PMUSCOPE_MODEL_AMU_SRC_STORES:
		return w->stores;
	case PMUSCOPE_MODEL_AMU_SRC_BRANCHES:
		return w->branches;
	case PMUSCOPE_MODEL_AMU_SRC_MISPREDICTS:
		return w->mispredicts;
	case PMUSCOPE_MODEL_AMU_SRC_MEM_STALL:
		return w->mem_stall_cycles;
	case PMUSCOPE_MODEL_AMU_SRC_CONST:
		return ticks;
	default:
		return 0;
	}
}

/*
 * The work @w advances the counters firmware enabled:
 * - D16.3.1: AMEVCNTR00 CPU_CYCLES counts processor cycles, AMEVCNTR01
 *   CNT_CYCLES system counter ticks, AMEVCNTR02 INST_RETIRED "defined
 *   identically to INST_RETIRED in the FEAT_PMUv3 architecture",
 *   AMEVCNTR03 STALL_BACKEND_MEM memory stall cycles. "When the PE is in
 *   WFI or WFE state, this counter does not increment" (CPU_CYCLES and
 *   CNT_CYCLES; amu.rst: "When in WFI or WFE these counters do not
 *   increment"): idle time adds nothing; the work's cycles and stall
 *   cycles are already those of the busy time.
 * - D24.6.6, D24.6.7 AMCNTENSET0/1_EL0.P<n> = 0: "AMEVCNTR0<n>_EL0 is
 *   disabled": it does not count and keeps its value.
 * - D16.2.1: "Every activity monitor event counter is a 64-bit wrapping
 *   counter"; no overflow flag, no interrupt. Authentication signals (the
 *   Exception level of the work) do not affect counting.
 * - D16.3.2: an auxiliary counter counts its IMPLEMENTATION DEFINED event,
 *   here the workload field its profile names.
 */
void pmuscope_model_amu_run(struct pmuscope_model_cpu *m,
			    const struct pmuscope_model_work *w)
{
	const struct pmuscope_model_profile *p = m->prof;
	const struct pmuscope_model_amu_profile *ap;
	struct pmuscope_model_amu *a = &m->amu;
	u64 busy, ticks, v[PMUSCOPE_AMU_CG0_NR];
	unsigned int n;

	if (!pmuscope_model_amu_ver(p))
		return;
	ap = pmuscope_model_amu_prof(p);
	/* A work whose idle time exceeds its span is taken as all idle. */
	busy = w->ns > w->idle_ns ? w->ns - w->idle_ns : 0;
	ticks = pmuscope_model_amu_ticks(m, busy);

	v[PMUSCOPE_AMU_CG0_CORE] = w->cycles;
	/* A broken constant counter (erratum 2457168) runs at the core clock. */
	v[PMUSCOPE_AMU_CG0_CONST] = ap->const_broken ? w->cycles : ticks;
	v[PMUSCOPE_AMU_CG0_INST] = w->insts;
	v[PMUSCOPE_AMU_CG0_MEM_STALL] = w->mem_stall_cycles;
	for (n = 0; n < PMUSCOPE_AMU_CG0_NR; n++)
		if (a->cnten0 & BIT_ULL(n))
			a->cnt0[n] += v[n];

	for (n = 0; n < PMUSCOPE_NR_AMEVCNTR1; n++)
		if (a->cnten1 & pmuscope_model_amu_cg1_mask(p) & BIT_ULL(n))
			a->cnt1[n] += pmuscope_model_amu_src(ap->aux[n].src, w, ticks);
}

/* ---------------------------------------------------------------- accessors */

u64 pmuscope_model_amu_read(struct pmuscope_model_cpu *m, enum pmuscope_reg reg)
{
	const struct pmuscope_model_profile *p = m->prof;
	struct pmuscope_model_amu *a = &m->amu;
	unsigned int n;

	if (pmuscope_model_amu_trapped(m, reg, false, 0))
		return 0;

	/* D24.6.9: the count. */
	if (pmuscope_model_amu_in(reg, PMUSCOPE_REG_AMEVCNTR0(0),
				  PMUSCOPE_NR_AMEVCNTR0, &n))
		return a->cnt0[n];
	/* D24.6.13: the architected event numbers, read-only. */
	if (pmuscope_model_amu_in(reg, PMUSCOPE_REG_AMEVTYPER0(0),
				  PMUSCOPE_NR_AMEVTYPER0, &n))
		return n < PMUSCOPE_AMU_CG0_NR ?
		       FIELD_PREP(PMUSCOPE_AMEVTYPER_EVTCOUNT,
				  pmuscope_model_amu_cg0_events[n]) : 0;
	/*
	 * D24.6.8 AMCR_EL0.CG1RZ = 1 (AMUv1p1): "If the current Exception
	 * level is the highest implemented Exception level, system register
	 * reads of AMEVCNTR1<n>_EL0 return the event count. Otherwise, reads
	 * ... return a zero value" (D24.6.10 pseudocode: "elsif
	 * !IsHighestEL(PSTATE.EL) && AMCR_EL0.CG1RZ == '1' then X[t, 64] =
	 * Zeros(64)"). The driver is never at the highest EL.
	 */
	if (pmuscope_model_amu_in(reg, PMUSCOPE_REG_AMEVCNTR1(0),
				  PMUSCOPE_NR_AMEVCNTR1, &n))
		return FIELD_GET(PMUSCOPE_AMCR_CG1RZ, a->amcr) ? 0 : a->cnt1[n];
	/* D24.6.14: IMPLEMENTATION DEFINED event numbers. */
	if (pmuscope_model_amu_in(reg, PMUSCOPE_REG_AMEVTYPER1(0),
				  PMUSCOPE_NR_AMEVTYPER1, &n))
		return FIELD_PREP(PMUSCOPE_AMEVTYPER_EVTCOUNT,
				  pmuscope_model_amu_prof(p)->aux[n].event);

	switch (reg) {
	case PMUSCOPE_REG_AMCR_EL0:
		return a->amcr;
	case PMUSCOPE_REG_AMCFGR_EL0:
		return p->amcfgr;
	case PMUSCOPE_REG_AMCGCR_EL0:
		return p->amcgcr;
	case PMUSCOPE_REG_AMCG1IDR_EL0:
		return p->amcg1idr;
	case PMUSCOPE_REG_AMUSERENR_EL0:
		return a->userenr;
	/* D24.6.4-D24.6.7: a SET/CLR pair reads the same enable bits. */
	case PMUSCOPE_REG_AMCNTENSET0_EL0:
	case PMUSCOPE_REG_AMCNTENCLR0_EL0:
		return a->cnten0;
	case PMUSCOPE_REG_AMCNTENSET1_EL0:
	case PMUSCOPE_REG_AMCNTENCLR1_EL0:
		return a->cnten1;
	default:
		return 0;
	}
}

/*
 * Not reached while the register table keeps every AMU register RO (the
 * core flags the write first). Should one become RW there, a write is
 * still no driver's to make: the MSR pseudocode of AMCR_EL0, AMCNTENSET/
 * CLR0/1_EL0 and AMEVCNTR0/1<n>_EL0 is "elsif IsHighestEL(PSTATE.EL) then
 * ... else UNDEFINED"; AMUSERENR_EL0 is writable at EL1, but pmuscope
 * never grants EL0 access (amu.rst "Userspace access").
 */
void pmuscope_model_amu_write(struct pmuscope_model_cpu *m, enum pmuscope_reg reg,
			      u64 val)
{
	if (pmuscope_model_amu_trapped(m, reg, true, val))
		return;
	pmuscope_model_amu_violation(m, reg, true, val,
				     "only the highest Exception level writes the AMU");
}

/* The AMU needs no barrier of its own in this model: reads are immediate. */
void pmuscope_model_amu_barrier(struct pmuscope_model_cpu *m,
				enum pmuscope_barrier b)
{
}

/* ------------------------------------------------------------ test controls */

/*
 * What firmware (EL3) and a hypervisor (EL2) set: CPTR_EL3.TAM,
 * CPTR_EL2.TAM, AMCNTENSET0_EL0 / AMCNTENSET1_EL0 (only implemented
 * counters: other bits are RAZ/WI, D24.6.6, D24.6.7) and AMCR_EL0.CG1RZ
 * (RES0 without AMUv1p1, D24.6.8). The counters keep their values: a
 * disabled counter freezes; one never enabled since reset reads 0 (amu.rst:
 * "If not enabled these will read as 0").
 */
void pmuscope_model_amu_set_firmware(unsigned int cpu, bool tam_el3, bool tam_el2,
				     u16 enabled0, u16 enabled1, bool cg1rz)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	const struct pmuscope_model_profile *p;
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	p = m->prof;
	if (p && pmuscope_model_amu_ver(p)) {
		m->amu.tam_el3 = tam_el3;
		m->amu.tam_el2 = tam_el2;
		m->amu.cnten0 = enabled0 & pmuscope_model_amu_cg0_mask(p);
		m->amu.cnten1 = enabled1 & pmuscope_model_amu_cg1_mask(p);
		m->amu.amcr = pmuscope_model_amu_ver(p) >= PMUSCOPE_AMU_V1P1 ?
			      FIELD_PREP(PMUSCOPE_AMCR_CG1RZ, cg1rz) : 0;
	}
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/* D24.6.15: AMUSERENR_EL0.EN, written by EL1 or EL2 software. */
void pmuscope_model_amu_set_userenr(unsigned int cpu, bool en)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	if (m->prof && pmuscope_model_amu_ver(m->prof))
		m->amu.userenr = FIELD_PREP(PMUSCOPE_AMUSERENR_EN, en);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * Firmware writes a counter (it may, at the highest Exception level:
 * D24.6.9, D24.6.10), e.g. to restore it after a power-down. @reg is an
 * implemented AMEVCNTR0<n>_EL0 or AMEVCNTR1<n>_EL0.
 */
void pmuscope_model_amu_set_counter(unsigned int cpu, enum pmuscope_reg reg,
				    u64 val)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	const struct pmuscope_model_profile *p;
	unsigned long flags;
	bool done = false;
	unsigned int n;

	raw_spin_lock_irqsave(&m->lock, flags);
	p = m->prof;
	if (p && pmuscope_model_amu_in(reg, PMUSCOPE_REG_AMEVCNTR0(0),
				       PMUSCOPE_NR_AMEVCNTR0, &n) &&
	    (pmuscope_model_amu_cg0_mask(p) & BIT_ULL(n))) {
		m->amu.cnt0[n] = val;
		done = true;
	} else if (p && pmuscope_model_amu_in(reg, PMUSCOPE_REG_AMEVCNTR1(0),
					      PMUSCOPE_NR_AMEVCNTR1, &n) &&
		   (pmuscope_model_amu_cg1_mask(p) & BIT_ULL(n))) {
		m->amu.cnt1[n] = val;
		done = true;
	}
	raw_spin_unlock_irqrestore(&m->lock, flags);
	WARN_ONCE(!done, "pmuscope-model: no AMU counter register#%d to set\n", reg);
}

/*
 * The AMU power domain was reset and firmware restored nothing (D16.2.3
 * "When an AMU reset of the AMU power domain occurs, the Activity
 * Monitoring Unit is reset and the counters are reset to zero"; the enable
 * bits reset to 0 too, D24.6.4-D24.6.7). amu.rst asks firmware to
 * save/restore the counters around the 'off' state: this is firmware that
 * does not. The system counter runs on: the carried tick fraction stays.
 */
void pmuscope_model_amu_power_loss(unsigned int cpu)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	memset(m->amu.cnt0, 0, sizeof(m->amu.cnt0));
	memset(m->amu.cnt1, 0, sizeof(m->amu.cnt1));
	m->amu.cnten0 = 0;
	m->amu.cnten1 = 0;
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * The seam's pmuscope_hw_amu_kernel() and pmuscope_hw_amu_const_broken()
 * on the modelled CPU the caller runs on: the kernel uses an AMU the
 * profile has unless a test said otherwise; its broken-constant-counter
 * workaround applies where the profile's counter is broken.
 */
bool pmuscope_model_amu_kernel(void)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(raw_smp_processor_id());

	return m->prof && pmuscope_model_amu_ver(m->prof) && !READ_ONCE(m->amu.kernel_off);
}

bool pmuscope_model_amu_const_broken(void)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(raw_smp_processor_id());

	return m->prof && pmuscope_model_amu_prof(m->prof)->const_broken;
}

void pmuscope_model_amu_set_kernel(unsigned int cpu, bool uses)
{
	WRITE_ONCE(pmuscope_model_get(cpu)->amu.kernel_off, !uses);
}
