// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope register model: PMU snapshots (FEAT_PMUv3_SS) and the fixed
 * instruction counter (FEAT_PMUv3_ICNTR). See pmuscope_model_ss.h for what
 * is assumed of the modelled CPU and for the capture timing.
 *
 * References are to the Arm ARM (DDI 0487 M.a.a): D13.9 "PMU snapshots",
 * the register descriptions of D24.5 and the pseudocode of J1.3.
 */

#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/kernel.h>
#include <linux/time64.h>

#include "pmuscope_model.h"

/* ---------------------------------------------------------------- profiles */

/*
 * The v9.4-like profile: firmware hands capture control down to EL1
 * (MDCR_EL3.PMSSE = MDCR_EL2.PMSSE = 0b01) and opens its traps; a capture
 * takes two polls, so that a driver has to poll. Invented (no public TRM
 * gives a capture latency) but architecturally valid.
 */
const struct pmuscope_model_ss_profile pmuscope_model_ss_v94 = {
	.delay = 2,
	.mdcr_el3_pmsse = PMUSCOPE_PMSSE_LOWER,
	.mdcr_el2_pmsse = PMUSCOPE_PMSSE_LOWER,
	.enpmss = true,
	.enpm2 = true,
};

/* ---------------------------------------------------------------- features */

static bool pmuscope_model_ss_has_ss(struct pmuscope_model_cpu *m)
{
	return pmuscope_model_implements(m->prof, PMUSCOPE_REG_PMSSCR_EL1);
}

static bool pmuscope_model_ss_has_icntr(struct pmuscope_model_cpu *m)
{
	return pmuscope_model_implements(m->prof, PMUSCOPE_REG_PMICNTR_EL0);
}

static bool pmuscope_model_ss_has_ebep(struct pmuscope_model_cpu *m)
{
	return FIELD_GET(PMUSCOPE_DFR1_EBEP, m->prof->dfr1) != 0;
}

/* ------------------------------------------------------------ capture state */

/*
 * Arm ARM D13.9 RYWLFL, RTSYTY and Table D13-10; pseudocode
 * PMUCaptureEventEnabled() and PMUCaptureEventAllowed(): the first of
 * MDCR_EL3.PMSSE, MDCR_EL2.PMSSE (EL3 and EL2 are implemented; EL2 counts
 * "even when EL2 is disabled in the current Security state") and
 * PMECR_EL1.SSE that is not 0b01 decides: 0b00 disabled, 0b10 enabled and
 * prohibited, 0b11 enabled and allowed. PMECR_EL1.SSE = 0b01 is reserved:
 * of the two constraints the pseudocode permits, the model takes
 * Constraint_DISABLED. The OS Lock is unlocked and the PE in Non-debug
 * state, so "enabled and allowed" is the whole condition.
 */
static enum pmuscope_model_ss_capture
pmuscope_model_ss_state(struct pmuscope_model_cpu *m)
{
	const struct pmuscope_model_ss *s = &m->ss;
	unsigned int ctl;

	if (s->mdcr_el3_pmsse != PMUSCOPE_PMSSE_LOWER)
		ctl = s->mdcr_el3_pmsse;
	else if (s->mdcr_el2_pmsse != PMUSCOPE_PMSSE_LOWER)
		ctl = s->mdcr_el2_pmsse;
	else
		ctl = FIELD_GET(PMUSCOPE_PMECR_SSE, s->pmecr);

	switch (ctl) {
	case PMUSCOPE_PMSSE_ALLOWED:
		return PMUSCOPE_MODEL_SS_ALLOWED;
	case PMUSCOPE_PMSSE_PROHIBITED:
		return PMUSCOPE_MODEL_SS_PROHIBITED;
	default:
		return PMUSCOPE_MODEL_SS_DISABLED;
	}
}

/* ------------------------------------------------------------------ capture */

static void pmuscope_model_ss_poison(struct pmuscope_model_ss_svr *svr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(svr->ev); i++)
		svr->ev[i] = PMUSCOPE_MODEL_SS_POISON;
	svr->cc = PMUSCOPE_MODEL_SS_POISON;
	svr->ic = PMUSCOPE_MODEL_SS_POISON;
}

/*
 * Arm ARM D13.9 RSCLCQ and RMFJWS; D24.5.23 PMSSCR_EL1.SS: a write of 1
 * generates a Capture event if Capture events are enabled, and is ignored
 * (SS is RO, NC unchanged) when they are disabled. Whether the event is
 * allowed or prohibited is decided when it is generated (PMUCaptureEvent()
 * evaluates PMUCaptureEventAllowed() on entry). While it is ongoing,
 * PMSSCR_EL1.SS reads 1 and NC keeps its value.
 */
static void pmuscope_model_ss_request(struct pmuscope_model_cpu *m)
{
	struct pmuscope_model_ss *s = &m->ss;
	enum pmuscope_model_ss_capture st = pmuscope_model_ss_state(m);

	if (st == PMUSCOPE_MODEL_SS_DISABLED) {
		s->ignored++;
		return;
	}
	s->requests++;
	s->pending = true;
	s->pending_allowed = st == PMUSCOPE_MODEL_SS_ALLOWED;
	s->polls_left = s->delay;
}

/*
 * The Capture event completes, at one instant. Pseudocode PMUCaptureEvent()
 * and Arm ARM D13.9: when prohibited, the snapshot registers are unchanged
 * and PMSSCR_EL1.{NC, SS} = {1, 0}; when allowed, PMEVCNTR<n>_EL0 for every
 * n < NUM_PMU_COUNTERS, PMCCNTR_EL0 and (FEAT_PMUv3_ICNTR) PMICNTR_EL0 are
 * copied to their snapshot registers, then {NC, SS} = {0, 0}, then the
 * PMU_SNAPSHOT event is generated ("after any event counter that might be
 * counting the event has been captured").
 */
static void pmuscope_model_ss_complete(struct pmuscope_model_cpu *m)
{
	struct pmuscope_model_ss *s = &m->ss;
	unsigned int i;
	u64 en = 0;

	s->pending = false;
	if (!s->pending_allowed) {
		s->nc = true;
		s->prohibited++;
		return;
	}
	/*
	 * Passthrough (pmuscope_emu.ko): the counters are QEMU's, read one
	 * MRS after another, between which the host may preempt QEMU. Stop
	 * them for the copy, one PMCNTENCLR_EL0 write, so that the copies are
	 * of one instant as the architecture's are; the copy's own few
	 * cycles are not counted.
	 */
	if (m->passthrough) {
		en = pmuscope_hw_mrs(PMUSCOPE_REG_PMCNTENSET_EL0);
		pmuscope_hw_msr(PMUSCOPE_REG_PMCNTENCLR_EL0, en);
		isb();
	}
	for (i = 0; i < m->n; i++)
		s->svr.ev[i] = pmuscope_model_pmu_counter_locked(m, i);
	s->svr.cc = pmuscope_model_pmu_counter_locked(m, PMUSCOPE_CYCLE_IDX);
	if (m->passthrough) {
		pmuscope_hw_msr(PMUSCOPE_REG_PMCNTENSET_EL0, en);
		isb();
	}
	if (pmuscope_model_ss_has_icntr(m))
		s->svr.ic = m->icntr;
	s->nc = false;
	s->sync = PMUSCOPE_MODEL_SS_COMPLETED;
	s->captures++;
	pmuscope_model_count_locked(m, PMUSCOPE_EVENT_PMU_SNAPSHOT, 1, 1);
}

/*
 * A read of PMSSCR_EL1. The model's capture timing: an ongoing capture
 * lets s->delay reads see SS = 1 and completes just before the next read
 * returns (PMUSCOPE_MODEL_SS_NEVER: never).
 *
 * Arm ARM D13.9, "explicit synchronization is required between observing
 * the Capture event has completed and reading the snapshot registers"
 * (Example D13-8: MRS PMSSCR_EL1; ISB; then read): a read that returns
 * SS = 0 after a completion is the observation (instruction A).
 */
static u64 pmuscope_model_ss_read_pmsscr(struct pmuscope_model_cpu *m)
{
	struct pmuscope_model_ss *s = &m->ss;

	if (s->pending && s->polls_left != PMUSCOPE_MODEL_SS_NEVER) {
		if (s->polls_left)
			s->polls_left--;
		else
			pmuscope_model_ss_complete(m);
	}
	if (!s->pending && s->sync == PMUSCOPE_MODEL_SS_COMPLETED)
		s->sync = PMUSCOPE_MODEL_SS_OBSERVED;
	return FIELD_PREP(PMUSCOPE_PMSSCR_NC, s->nc) |
	       FIELD_PREP(PMUSCOPE_PMSSCR_SS, s->pending);
}

/*
 * A read of a snapshot register. Arm ARM D13.9 (Example D13-8): only a read
 * after an ISB that follows the observation of the completion (B after A)
 * is guaranteed to see the new values; the model returns the previous
 * ones (PMUSCOPE_MODEL_SS_POISON before any capture) to any earlier read,
 * and counts it in stale_reads, as it does a read while a capture is
 * ongoing (the values of a capture the driver has not seen complete).
 */
static const struct pmuscope_model_ss_svr *
pmuscope_model_ss_svr_read(struct pmuscope_model_cpu *m)
{
	struct pmuscope_model_ss *s = &m->ss;

	if (s->sync != PMUSCOPE_MODEL_SS_SYNCED || s->pending)
		s->stale_reads++;
	return &s->vis;
}

/* -------------------------------------------------------------- EL3 traps */

/*
 * Arm ARM D24.3.18 MDCR_EL3.EnPMSS = 0 traps EL1 accesses to PMSSCR_EL1,
 * PMCCNTSVR_EL1, PMEVCNTSVR<n>_EL1 and PMICNTSVR_EL1 to EL3 (the accessing
 * pseudocode of each: AArch64.SystemAccessTrap(EL3, 0x18)). MDCR_EL3.EnPM2
 * = 0 traps PMECR_EL1, PMICNTR_EL0 and PMICFILTR_EL0 (PMECR_EL1 is not
 * affected by EnPMSS). An EL1 kernel cannot handle a trap to EL3: the model
 * counts the access as a violation, reads 0 and ignores the write.
 */
static bool pmuscope_model_ss_trapped(struct pmuscope_model_cpu *m,
				      enum pmuscope_reg reg, bool write, u64 val)
{
	bool enabled;

	switch (reg) {
	case PMUSCOPE_REG_MDCR_EL2:
		return false;	/* an EL2 register: the core checked the EL */
	case PMUSCOPE_REG_PMECR_EL1:
	case PMUSCOPE_REG_PMICNTR_EL0:
	case PMUSCOPE_REG_PMICFILTR_EL0:
		enabled = m->ss.enpm2;
		break;
	default:
		enabled = m->ss.enpmss;
		break;
	}
	if (!enabled)
		pmuscope_model_violation_locked(m, reg, write, val);
	return !enabled;
}

/* ------------------------------------------------------ instruction counter */

/*
 * PMICFILTR_EL0 (D24.5.14): P, U, NSK, NSU, NSH and M are implemented
 * (EL3 and EL2 are); SH needs FEAT_SEL2, RLK/RLU/RLH FEAT_RME, VS
 * FEAT_PMUv3_SME and SYNC FEAT_SEBEP, which no profile has: RES0, as are
 * the other bits. evtCount is RO and reads 0x0008 (INST_RETIRED).
 */
#define PMUSCOPE_MODEL_SS_ICFILTR_RW	(PMUSCOPE_EVTYPER_P | PMUSCOPE_EVTYPER_U | \
					 PMUSCOPE_EVTYPER_NSK | PMUSCOPE_EVTYPER_NSU | \
					 PMUSCOPE_EVTYPER_NSH | PMUSCOPE_EVTYPER_M)

/*
 * Pseudocode CountPMUEvents(INSTRUCTION_COUNTER_ID), Non-secure state:
 * EL0 is filtered when U != NSU, EL1 when P != NSK, EL2 when NSH == 0,
 * EL3 when M != P.
 */
static bool pmuscope_model_ss_icntr_counted(u64 filt, unsigned int el)
{
	bool p = FIELD_GET(PMUSCOPE_EVTYPER_P, filt);
	bool u = FIELD_GET(PMUSCOPE_EVTYPER_U, filt);

	switch (el) {
	case 0:
		return u == FIELD_GET(PMUSCOPE_EVTYPER_NSU, filt);
	case 1:
		return p == FIELD_GET(PMUSCOPE_EVTYPER_NSK, filt);
	case 2:
		return FIELD_GET(PMUSCOPE_EVTYPER_NSH, filt);
	default:
		return p == FIELD_GET(PMUSCOPE_EVTYPER_M, filt);
	}
}

/*
 * @n instructions retired at @el (the core calls this for INST_RETIRED).
 * Arm ARM D13.5.1.3: PMICNTR_EL0 counts when PMCR_EL0.E and
 * PMCNTENSET_EL0.F0 are 1; D13.3 RFBGFH and pseudocode
 * IncrementInstructionCounter(): it is 64 bits wide and an unsigned
 * overflow of bits [63:0] sets PMOVSSET_EL0.F0 (PMCR_EL0.LP does not
 * apply). PMCR_EL0.FZO (PMUv3p7) is not modelled by the core, so neither
 * is freezing here.
 */
void pmuscope_model_ss_count_inst_locked(struct pmuscope_model_cpu *m,
					 unsigned int el, u64 n)
{
	u64 old = m->icntr;

	if (!pmuscope_model_ss_has_icntr(m) ||
	    !FIELD_GET(PMUSCOPE_PMCR_E, m->pmcr) ||
	    !(m->cnten & PMUSCOPE_CNT_ICNTR) ||
	    !pmuscope_model_ss_icntr_counted(m->icfiltr, el))
		return;
	m->icntr = old + n;
	if (m->icntr < old)
		m->ovs |= PMUSCOPE_CNT_ICNTR;
}

/*
 * Bit F0 (32) of PMCNTENSET/CLR_EL0, PMOVSSET/CLR_EL0 and PMINTENSET/CLR_EL1
 * as EL1 sees it. D24.5.7 (and the others' F0): it exists only with
 * FEAT_PMUv3_ICNTR; pseudocode GetPMUReadMask()/GetPMUWriteMask(): it is
 * RAZ/WI below EL3 when MDCR_EL3.EnPM2 is 0.
 */
u64 pmuscope_model_ss_f0_mask(struct pmuscope_model_cpu *m)
{
	if (!m->prof || !pmuscope_model_ss_has_icntr(m) || !m->ss.enpm2)
		return 0;
	return PMUSCOPE_CNT_ICNTR;
}

/* ----------------------------------------------------------------- PMECR */

/*
 * D24.5.9 PMECR_EL1: SSE [4:3] with FEAT_PMUv3_SS, KPME [2] and PMEE [1:0]
 * with FEAT_EBEP, RES0 elsewhere. Writing a reserved value (SSE = 0b01,
 * PMEE = 0b01 or 0b10) is a driver bug (K1.2.19: the field then reads
 * UNKNOWN): a violation; the model keeps the value.
 */
static void pmuscope_model_ss_write_pmecr(struct pmuscope_model_cpu *m, u64 val)
{
	u64 mask = 0;
	unsigned int pmee;

	if (pmuscope_model_ss_has_ss(m)) {
		mask |= PMUSCOPE_PMECR_SSE;
		if (FIELD_GET(PMUSCOPE_PMECR_SSE, val) == PMUSCOPE_PMSSE_LOWER)
			pmuscope_model_violation_locked(m, PMUSCOPE_REG_PMECR_EL1, true, val);
	}
	if (pmuscope_model_ss_has_ebep(m)) {
		mask |= PMUSCOPE_PMECR_KPME | PMUSCOPE_PMECR_PMEE;
		pmee = FIELD_GET(PMUSCOPE_PMECR_PMEE, val);
		if (pmee != PMUSCOPE_PMECR_PMEE_IRQ && pmee != PMUSCOPE_PMECR_PMEE_EXCEPTION)
			pmuscope_model_violation_locked(m, PMUSCOPE_REG_PMECR_EL1, true, val);
	}
	m->ss.pmecr = val & mask;
}

/* --------------------------------------------------------------- MDCR_EL2 */

/* D24.3.17: PMSSE [31:30]; the other fields are kept as written. */
static u64 pmuscope_model_ss_mdcr_el2(struct pmuscope_model_cpu *m)
{
	return m->ss.mdcr_el2_rest |
	       FIELD_PREP(PMUSCOPE_MDCR_EL2_PMSSE, m->ss.mdcr_el2_pmsse);
}

static void pmuscope_model_ss_set_mdcr_el2(struct pmuscope_model_cpu *m, u64 val)
{
	m->ss.mdcr_el2_pmsse = FIELD_GET(PMUSCOPE_MDCR_EL2_PMSSE, val);
	m->ss.mdcr_el2_rest = val & ~PMUSCOPE_MDCR_EL2_PMSSE;
}

/* ------------------------------------------------------------------ hooks */

/*
 * Reset. D24.5.23: PMSSCR_EL1.NC resets to 1 and SS to 0. The snapshot
 * registers reset to UNKNOWN values: poison. PMECR_EL1.SSE resets to an
 * UNKNOWN value on a Cold reset when EL3 or EL2 is implemented; the model
 * takes 0b00, so a driver has to enable capture itself. PMICNTR_EL0 and
 * PMICFILTR_EL0 are UNKNOWN too; like the core's event counters they start
 * at 0 (the core cleared them).
 */
void pmuscope_model_ss_reset(struct pmuscope_model_cpu *m)
{
	static const struct pmuscope_model_ss_profile dflt = {
		.delay = 0,
		.mdcr_el3_pmsse = PMUSCOPE_PMSSE_LOWER,
		.mdcr_el2_pmsse = PMUSCOPE_PMSSE_LOWER,
		.enpmss = true,
		.enpm2 = true,
	};
	const struct pmuscope_model_ss_profile *sp = m->prof->ss ?: &dflt;
	struct pmuscope_model_ss *s = &m->ss;

	memset(s, 0, sizeof(*s));
	s->mdcr_el3_pmsse = sp->mdcr_el3_pmsse & 3;
	s->mdcr_el2_pmsse = sp->mdcr_el2_pmsse & 3;
	s->enpmss = sp->enpmss;
	s->enpm2 = sp->enpm2;
	s->delay = sp->delay;
	s->nc = true;
	pmuscope_model_ss_poison(&s->svr);
	s->vis = s->svr;
	s->sync = PMUSCOPE_MODEL_SS_SYNCED;
}

u64 pmuscope_model_ss_read(struct pmuscope_model_cpu *m, enum pmuscope_reg reg)
{
	const struct pmuscope_model_ss_svr *svr;
	unsigned int n;

	if (pmuscope_model_ss_trapped(m, reg, false, 0))
		return 0;

	if (reg >= PMUSCOPE_REG_PMEVCNTSVR(0) &&
	    reg < PMUSCOPE_REG_PMEVCNTSVR(PMUSCOPE_NR_PMEVCNTSVR)) {
		n = reg - PMUSCOPE_REG_PMEVCNTSVR(0);
		return pmuscope_model_ss_svr_read(m)->ev[n];
	}

	switch (reg) {
	case PMUSCOPE_REG_MDCR_EL2:
		return pmuscope_model_ss_mdcr_el2(m);
	case PMUSCOPE_REG_PMSSCR_EL1:
		return pmuscope_model_ss_read_pmsscr(m);
	case PMUSCOPE_REG_PMCCNTSVR_EL1:
		svr = pmuscope_model_ss_svr_read(m);
		return svr->cc;
	case PMUSCOPE_REG_PMICNTSVR_EL1:
		svr = pmuscope_model_ss_svr_read(m);
		return svr->ic;
	case PMUSCOPE_REG_PMECR_EL1:
		return m->ss.pmecr;
	case PMUSCOPE_REG_PMICNTR_EL0:
		return m->icntr;
	case PMUSCOPE_REG_PMICFILTR_EL0:
		return (m->icfiltr & PMUSCOPE_MODEL_SS_ICFILTR_RW) |
		       FIELD_PREP(PMUSCOPE_PMICFILTR_EVTCOUNT,
				  PMUSCOPE_PMICFILTR_INST_RETIRED);
	default:
		return 0;
	}
}

void pmuscope_model_ss_write(struct pmuscope_model_cpu *m, enum pmuscope_reg reg,
			     u64 val)
{
	if (pmuscope_model_ss_trapped(m, reg, true, val))
		return;

	switch (reg) {
	case PMUSCOPE_REG_MDCR_EL2:
		/*
		 * KVM owns MDCR_EL2 while a vCPU is loaded: a write then
		 * changes the guest's value (which KVM does not read back)
		 * and is lost for the host at the put. The write happens, as
		 * it would on the CPU; the model counts it as a driver bug.
		 */
		if (m->ss.vcpu_loaded)
			pmuscope_model_violation_locked(m, reg, true, val);
		pmuscope_model_ss_set_mdcr_el2(m, val);
		break;
	case PMUSCOPE_REG_PMSSCR_EL1:
		/*
		 * D24.5.23: NC is RO, bits other than SS are RES0, a write of
		 * SS = 0 is ignored. With capture disabled SS is RO too (the
		 * request ignores it). Writing SS while a Capture event is
		 * ongoing makes it CONSTRAINED UNPREDICTABLE whether that event
		 * completes: a driver bug, a violation; the ongoing event
		 * carries on.
		 */
		if (!FIELD_GET(PMUSCOPE_PMSSCR_SS, val))
			break;
		if (m->ss.pending &&
		    pmuscope_model_ss_state(m) != PMUSCOPE_MODEL_SS_DISABLED) {
			pmuscope_model_violation_locked(m, reg, true, val);
			break;
		}
		pmuscope_model_ss_request(m);
		break;
	case PMUSCOPE_REG_PMECR_EL1:
		pmuscope_model_ss_write_pmecr(m, val);
		break;
	case PMUSCOPE_REG_PMICNTR_EL0:
		/* D24.5.15: ICNT [63:0], written whole from EL1. */
		m->icntr = val;
		break;
	case PMUSCOPE_REG_PMICFILTR_EL0:
		m->icfiltr = val & PMUSCOPE_MODEL_SS_ICFILTR_RW;
		break;
	default:
		break;
	}
}

/*
 * D13.9 (Example D13-8): the ISB (context synchronization event B) after an
 * observed completion (A) makes the captured values visible to later reads
 * (C). An ISB before the observation does not. The model knows only of
 * ISBs; on hardware an exception entry or return would synchronize too.
 */
void pmuscope_model_ss_barrier(struct pmuscope_model_cpu *m,
			       enum pmuscope_barrier b)
{
	struct pmuscope_model_ss *s = &m->ss;

	if (b == PMUSCOPE_BARRIER_ISB && s->sync == PMUSCOPE_MODEL_SS_OBSERVED) {
		s->vis = s->svr;
		s->sync = PMUSCOPE_MODEL_SS_SYNCED;
	}
}

/* Capture timing is in PMSSCR_EL1 reads, not in work (see the header). */
void pmuscope_model_ss_run(struct pmuscope_model_cpu *m,
			   const struct pmuscope_model_work *w)
{
}

/*
 * The core's power loss (the Core power domain off, then on again, which
 * is a Cold reset of what it holds). D24.5.23: PMSSCR_EL1.{NC, SS} = {1, 0};
 * an ongoing Capture event is lost. The snapshot registers, PMECR_EL1.SSE,
 * PMICNTR_EL0 and PMICFILTR_EL0 are UNKNOWN: the snapshot registers become
 * poison, SSE 0b00 (a driver that does not restore it gets no capture),
 * PMICNTR_EL0 just below its wrap and PMICFILTR_EL0 filtering out EL0 and
 * EL1 (P = U = 1), so that a driver that trusts them is caught. The
 * PMCNTENSET/PMINTENSET/PMOVSSET F0 bits reset to 0 (the core clears the
 * enables; it leaves F0 out of the overflow flags it sets).
 * D13.9 RSCLCQ generates a Capture event when the Core power domain is
 * powered on, but MDCR_EL3.PMSSE resets to 0b00 on a Cold reset, so
 * capture is disabled at that instant: none is modelled. The firmware
 * state (MDCR_EL3, MDCR_EL2) is restored by the firmware before the kernel
 * runs again: it is kept.
 */
void pmuscope_model_ss_power_loss(struct pmuscope_model_cpu *m)
{
	struct pmuscope_model_ss *s = &m->ss;

	m->icntr = 0xfffffffffffffff0ULL;
	m->icfiltr = PMUSCOPE_EVTYPER_P | PMUSCOPE_EVTYPER_U;
	m->ovs &= ~PMUSCOPE_CNT_ICNTR;
	s->pmecr = 0;
	s->nc = true;
	s->pending = false;
	pmuscope_model_ss_poison(&s->svr);
	s->vis = s->svr;
	s->sync = PMUSCOPE_MODEL_SS_SYNCED;
}

/* ------------------------------------------------------------ test controls */

/*
 * What EL3 and EL2 software set: MDCR_EL3.PMSSE, MDCR_EL2.PMSSE (2-bit
 * values, PMUSCOPE_PMSSE_*), MDCR_EL3.EnPMSS and MDCR_EL3.EnPM2. Linux
 * 6.12 booted at EL2 writes MDCR_EL2 without PMSSE (el2_setup.h), i.e.
 * MDCR_EL2.PMSSE = 0b00: with MDCR_EL3.PMSSE = 0b01, capture is disabled.
 */
void pmuscope_model_ss_set_firmware(unsigned int cpu, u8 mdcr_el3_pmsse,
				    u8 mdcr_el2_pmsse, bool enpmss, bool enpm2)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	m->ss.mdcr_el3_pmsse = mdcr_el3_pmsse & 3;
	m->ss.mdcr_el2_pmsse = mdcr_el2_pmsse & 3;
	m->ss.enpmss = enpmss;
	m->ss.enpm2 = enpm2;
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * Reads of PMSSCR_EL1 that see SS = 1 before each later capture completes;
 * PMUSCOPE_MODEL_SS_NEVER: captures never complete. An ongoing capture
 * keeps its own count.
 */
void pmuscope_model_ss_set_delay(unsigned int cpu, u32 polls)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	m->ss.delay = polls;
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * D13.9 RSCLCQ: an IMPLEMENTATION DEFINED external snapshot request (a
 * debugger, a cross-trigger) "indirectly writes 1 to PMSSCR_EL1.SS". The
 * driver may find a capture it did not ask for ongoing, or completed.
 */
void pmuscope_model_ss_external_request(unsigned int cpu)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	if (m->prof && pmuscope_model_ss_has_ss(m) && !m->ss.pending)
		pmuscope_model_ss_request(m);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/* Table D13-10 as the CPU's controls give it now. */
enum pmuscope_model_ss_capture pmuscope_model_ss_capture_state(unsigned int cpu)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	enum pmuscope_model_ss_capture st = PMUSCOPE_MODEL_SS_DISABLED;
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	if (m->prof && pmuscope_model_ss_has_ss(m))
		st = pmuscope_model_ss_state(m);
	raw_spin_unlock_irqrestore(&m->lock, flags);
	return st;
}

/*
 * Who owns EL2 on @cpu (the driver's pmuscope_hw_el2()). With
 * PMUSCOPE_HW_EL2_KERNEL the driver runs at EL2 (VHE) and may access
 * MDCR_EL2; otherwise an access is UNDEFINED (a violation).
 */
void pmuscope_model_ss_set_el2(unsigned int cpu, enum pmuscope_hw_el2 el2)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	m->ss.el2 = el2;
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * KVM loads a vCPU on @cpu, as Linux 6.12 does on a VHE host
 * (kvm_arch_vcpu_load() -> kvm_vcpu_load_vhe() -> __activate_traps_common(),
 * preemption off, and IRQs off around the write in 6.12 only; 6.1 writes
 * it with IRQs on): the live MDCR_EL2 is saved as the host's
 * (host_debug_state.mdcr_el2) and the guest's (vcpu->arch.mdcr_el2, from
 * kvm_arm_setup_mdcr_el2(): HPMN and trap bits, PMSSE = 0b00) written. It
 * stays there while the vCPU thread runs in the host, IRQs and preemption
 * on, until the put (kvm_arch_vcpu_put() or the thread being scheduled
 * out). What the driver sees meanwhile: pmuscope_model_vcpu_loaded(), as
 * kvm_get_running_vcpu() (set before the load, cleared after the put).
 */
void pmuscope_model_ss_vcpu_load(unsigned int cpu, u64 guest_mdcr_el2)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	m->ss.mdcr_el2_host = pmuscope_model_ss_mdcr_el2(m);
	pmuscope_model_ss_set_mdcr_el2(m, guest_mdcr_el2);
	m->ss.vcpu_loaded = true;
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * The put (__deactivate_traps_common()): the host's saved value back in
 * MDCR_EL2. Returns the value the guest's context had at that moment,
 * so that a test sees whether anyone changed it.
 */
u64 pmuscope_model_ss_vcpu_put(unsigned int cpu)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;
	u64 guest;

	raw_spin_lock_irqsave(&m->lock, flags);
	guest = pmuscope_model_ss_mdcr_el2(m);
	pmuscope_model_ss_set_mdcr_el2(m, m->ss.mdcr_el2_host);
	m->ss.vcpu_loaded = false;
	raw_spin_unlock_irqrestore(&m->lock, flags);
	return guest;
}

bool pmuscope_model_vcpu_loaded(void)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(raw_smp_processor_id());

	return READ_ONCE(m->ss.vcpu_loaded);
}

enum pmuscope_hw_el2 pmuscope_model_el2(void)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(raw_smp_processor_id());

	return READ_ONCE(m->ss.el2);
}

/*
 * The system counter. In passthrough (pmuscope_emu.ko) the real one;
 * otherwise a model counter at 1 GHz that advances one tick per read (so
 * that a driver waiting for a deadline gets there) and by
 * pmuscope_model_syscnt_advance().
 */
static atomic64_t pmuscope_model_syscnt_val = ATOMIC64_INIT(1000000);

u64 pmuscope_model_syscnt(void)
{
	if (pmuscope_model_get(raw_smp_processor_id())->passthrough)
		return arch_timer_read_counter();
	return atomic64_inc_return(&pmuscope_model_syscnt_val);
}

u32 pmuscope_model_syscnt_freq(void)
{
	if (pmuscope_model_get(raw_smp_processor_id())->passthrough)
		return arch_timer_get_cntfrq();
	return NSEC_PER_SEC;
}

void pmuscope_model_syscnt_advance(u64 ticks)
{
	atomic64_add(ticks, &pmuscope_model_syscnt_val);
}
