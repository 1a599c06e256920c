// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope register model: the Statistical Profiling Extension. See
 * pmuscope_model_spe.h. References are to the Arm ARM (DDI 0487, the
 * edition whose SPE chapters are D17, D18 and D24.7) and its pseudocode.
 */

#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "pmuscope_model.h"

/* ---------------------------------------------------------------- profiles */

/*
 * Neoverse N1: SPEv1 of Armv8.2, no FEAT_ECV. The sizes are invented
 * (IMPLEMENTATION DEFINED, not published): 16-bit Events payload, one
 * record held in the SPU before it is written.
 */
const struct pmuscope_model_spe_profile pmuscope_model_spe_n1 = {
	.ecv = false,
	.events_bytes = 2,
	.inflight = 1,
};

/* Armv9.4-like: SPEv1p4, FEAT_ECV (mandatory from Armv8.6). */
const struct pmuscope_model_spe_profile pmuscope_model_spe_v94 = {
	.ecv = true,
	.events_bytes = 4,
	.inflight = 1,
};

/* Neoverse-N1 with SPE kept by EL3 firmware (see el3_owner). */
const struct pmuscope_model_spe_profile pmuscope_model_spe_el3 = {
	.events_bytes = 2,
	.inflight = 1,
	.el3_owner = true,
};

static const struct pmuscope_model_spe_profile pmuscope_model_spe_default = {
	.ecv = false,
	.events_bytes = 2,
	.inflight = 1,
};

/* ------------------------------------------------------- record packets */

/*
 * Arm ARM D18.1.4 and pseudocode SPEAddPacketToRecord(): a header is
 * header_hi:sz:header_lo, sz = log2 of the payload bytes, payload little
 * endian.
 */
#define PMUSCOPE_MODEL_SPE_HDR_HI		GENMASK(7, 6)
#define PMUSCOPE_MODEL_SPE_HDR_SZ		GENMASK(5, 4)
#define PMUSCOPE_MODEL_SPE_HDR_LO		GENMASK(3, 0)
#define PMUSCOPE_MODEL_SPE_PAD			0x00
#define PMUSCOPE_MODEL_SPE_END			0x01

/* Address packet payload (D18.2.1): ADDR[55:0], NS[63], EL[62:61]. */
#define PMUSCOPE_MODEL_SPE_ADDR			GENMASK_ULL(55, 0)
#define PMUSCOPE_MODEL_SPE_ADDR_NS		BIT_ULL(63)
#define PMUSCOPE_MODEL_SPE_ADDR_EL		GENMASK_ULL(62, 61)
#define PMUSCOPE_MODEL_SPE_PA			GENMASK_ULL(47, 0)

/* Address and Counter packet indexes (pseudocode SPECompleteSample()). */
#define PMUSCOPE_MODEL_SPE_A_PC			0
#define PMUSCOPE_MODEL_SPE_A_BRANCH		1
#define PMUSCOPE_MODEL_SPE_A_DATA_VA		2
#define PMUSCOPE_MODEL_SPE_A_DATA_PA		3
#define PMUSCOPE_MODEL_SPE_C_TOTAL		0
#define PMUSCOPE_MODEL_SPE_C_ISSUE		1

/* Operation Type packet (D18.2.7, pseudocode SPEConstructClass()). */
#define PMUSCOPE_MODEL_SPE_CLASS_OTHER		0x0
#define PMUSCOPE_MODEL_SPE_CLASS_LDST		0x1
#define PMUSCOPE_MODEL_SPE_CLASS_BRANCH		0x2
#define PMUSCOPE_MODEL_SPE_LDST_ST		BIT(0)
#define PMUSCOPE_MODEL_SPE_BR_COND		BIT(0)

/* Events packet bits (D18.2.6). */
#define PMUSCOPE_MODEL_SPE_E_RETIRED		BIT_ULL(1)
#define PMUSCOPE_MODEL_SPE_E_L1D_ACCESS		BIT_ULL(2)
#define PMUSCOPE_MODEL_SPE_E_L1D_REFILL		BIT_ULL(3)
#define PMUSCOPE_MODEL_SPE_E_TLB_ACCESS		BIT_ULL(4)
#define PMUSCOPE_MODEL_SPE_E_TLB_WALK		BIT_ULL(5)
#define PMUSCOPE_MODEL_SPE_E_NOT_TAKEN		BIT_ULL(6)
#define PMUSCOPE_MODEL_SPE_E_MISPRED		BIT_ULL(7)
#define PMUSCOPE_MODEL_SPE_E_LLC_ACCESS		BIT_ULL(8)
#define PMUSCOPE_MODEL_SPE_E_LLC_MISS		BIT_ULL(9)
#define PMUSCOPE_MODEL_SPE_E_REMOTE		BIT_ULL(10)
#define PMUSCOPE_MODEL_SPE_E_ALIGN		BIT_ULL(11)
#define PMUSCOPE_MODEL_SPE_E_SVE		GENMASK_ULL(18, 17)
#define PMUSCOPE_MODEL_SPE_E_L2D_ACCESS		BIT_ULL(19)
#define PMUSCOPE_MODEL_SPE_E_L2D_MISS		BIT_ULL(20)

/*
 * Data Source packet payload: IMPLEMENTATION DEFINED; the values of the
 * Neoverse cores (perf's arm-spe-decoder.h, ARM_SPE_COMMON_DS_*).
 */
#define PMUSCOPE_MODEL_SPE_DS_L1D		0x0
#define PMUSCOPE_MODEL_SPE_DS_L2		0x8
#define PMUSCOPE_MODEL_SPE_DS_SYS_CACHE		0xb
#define PMUSCOPE_MODEL_SPE_DS_DRAM		0xe

/* One operation of the workload, as the profiling operation sees it. */
enum pmuscope_model_spe_optype {
	PMUSCOPE_MODEL_SPE_OP_OTHER,
	PMUSCOPE_MODEL_SPE_OP_LOAD,
	PMUSCOPE_MODEL_SPE_OP_STORE,
	PMUSCOPE_MODEL_SPE_OP_BRANCH,
};

struct pmuscope_model_spe_op {
	enum pmuscope_model_spe_optype type;
	u64 pc;
	u64 va;			/* loads and stores */
	u64 target;		/* branches: taken, to the next instruction */
	u64 ts;
	u64 events;
	u32 latency;		/* total latency */
};

/* ---------------------------------------------------------------- helpers */

static const struct pmuscope_model_spe_profile *
pmuscope_model_spe_prof(const struct pmuscope_model_cpu *m)
{
	return m->prof->spe ? m->prof->spe : &pmuscope_model_spe_default;
}

static unsigned int pmuscope_model_spe_ver(const struct pmuscope_model_cpu *m)
{
	return FIELD_GET(PMUSCOPE_DFR0_PMSVER, m->prof->dfr0);
}

static u64 pmuscope_model_spe_idr(const struct pmuscope_model_cpu *m)
{
	return m->prof->pmsidr;
}

static unsigned int pmuscope_model_spe_maxsize(const struct pmuscope_model_cpu *m)
{
	return 1U << FIELD_GET(PMUSCOPE_PMSIDR_MAXSIZE, m->prof->pmsidr);
}

static unsigned int pmuscope_model_spe_align(const struct pmuscope_model_cpu *m)
{
	return FIELD_GET(PMUSCOPE_PMBIDR_ALIGN, m->prof->pmbidr);
}

static u64 pmuscope_model_spe_limit(const struct pmuscope_model_spe *s)
{
	return s->pmblimitr & PMUSCOPE_PMBLIMITR_LIMIT;
}

static void pmuscope_model_spe_violation(struct pmuscope_model_cpu *m,
					 enum pmuscope_reg reg, bool write, u64 val,
					 const char *why)
{
	if (!m->violations++)
		m->first_violation = (struct pmuscope_model_access){ reg, write, val };
	pr_warn_ratelimited("pmuscope-model: SPE on %s: %s (0x%llx)\n",
			    m->prof->name, why, val);
}

/*
 * Arm ARM D24.7.1 PMBIDR_EL1.P: 1 when the Profiling Buffer is owned by a
 * higher Exception level (MDCR_EL2.E2PB == 0b00) or another Security state
 * (MDCR_EL3.NSPB). The accessibility pseudocode of PMBLIMITR_EL1,
 * PMBPTR_EL1 and PMBSR_EL1 (D24.7.2, D24.7.4, D24.7.5) then traps an EL1
 * access to EL2 (MDCR_EL2.E2PB == 'x0') or to EL3 (CheckMDCR_EL3_NSPBTrap()),
 * which the driver sees as UNDEFINED: a violation. The PMS* registers are
 * trapped only by MDCR_EL2.TPMS or MDCR_EL3.NSPB: the model takes the EL2
 * owner, and lets them be. With another owner the model's SPU is idle.
 */
static bool pmuscope_model_spe_owned(const struct pmuscope_model_cpu *m)
{
	return !(m->prof->pmbidr & PMUSCOPE_PMBIDR_P);
}

/*
 * MDCR_EL3.NSPB not giving the Profiling Buffer to Non-secure state (TF-A's
 * spe_disable()): the accessibility pseudocode of the PMS* registers and of
 * PMBLIMITR_EL1, PMBPTR_EL1 and PMBSR_EL1 (D24.7) traps an EL1 access to
 * EL3 (CheckMDCR_EL3_NSPBTrap(), EC 0x18). PMBIDR_EL1 stays readable: its
 * P bit (D24.7.1) is how EL1 learns that the buffer is not its own, which
 * is why arm_spe_pmu reads it before any other SPE register. TF-A treats
 * such a trap as fatal: the model calls it a violation.
 */
static bool pmuscope_model_spe_el3_trap(const struct pmuscope_model_cpu *m,
					enum pmuscope_reg reg)
{
	return pmuscope_model_spe_prof(m)->el3_owner && reg != PMUSCOPE_REG_PMBIDR_EL1;
}

static bool pmuscope_model_spe_is_pmb(enum pmuscope_reg reg)
{
	return reg == PMUSCOPE_REG_PMBLIMITR_EL1 || reg == PMUSCOPE_REG_PMBPTR_EL1 ||
	       reg == PMUSCOPE_REG_PMBSR_EL1;
}

/*
 * Arm ARM D17.4 and pseudocode SPEProfilingStopped(): profiling is stopped
 * while PMBSR_EL1.S is 1 (no FEAT_SPE_EXC). ProfilingBufferEnabled():
 * PMBLIMITR_EL1.E is 1 and profiling not stopped.
 */
static bool pmuscope_model_spe_stopped(const struct pmuscope_model_spe *s)
{
	return s->pmbsr & PMUSCOPE_PMBSR_S;
}

static bool pmuscope_model_spe_buffer_enabled(const struct pmuscope_model_cpu *m)
{
	const struct pmuscope_model_spe *s = &m->spe;

	return pmuscope_model_spe_owned(m) && (s->pmblimitr & PMUSCOPE_PMBLIMITR_E) &&
	       !pmuscope_model_spe_stopped(s);
}

/*
 * Pseudocode StatisticalProfilingEnabled() (D17.4, Table D17-1) with the
 * buffer owned by EL1: EL0 by PMSCR_EL1.E0SPE, EL1 by E1SPE; profiling is
 * disabled at EL2 (owning Exception level lower than the current one).
 */
static bool pmuscope_model_spe_enabled_at(const struct pmuscope_model_cpu *m,
					  unsigned int el)
{
	u64 pmscr = m->spe.pmscr;

	if (!pmuscope_model_spe_buffer_enabled(m))
		return false;
	if (el == 0)
		return pmscr & PMUSCOPE_PMSCR_E0SPE;
	if (el == 1)
		return pmscr & PMUSCOPE_PMSCR_E1SPE;
	return false;
}

/*
 * Arm ARM D17.5.5 and pseudocode SPECompleteSample(): Discard mode is
 * PMBLIMITR_EL1.FM == 0b10, implemented from FEAT_SPEv1p2 (D24.7.2, FM:
 * "0b10 ... Applies when FEAT_SPEv1p2 is implemented"). The other values
 * are reserved: the model fills.
 */
static bool pmuscope_model_spe_discard(const struct pmuscope_model_cpu *m)
{
	return pmuscope_model_spe_ver(m) >= PMUSCOPE_PMSVER_V1P2 &&
	       FIELD_GET(PMUSCOPE_PMBLIMITR_FM, m->spe.pmblimitr) ==
	       PMUSCOPE_PMBLIMITR_FM_DISCARD;
}

/* ------------------------------------------------------- writable bits */

/*
 * D24.7.8 PMSCR_EL1: E0SPE, E1SPE, CX, PA, TS and PCT (EL2 implemented);
 * "If FEAT_ECV is implemented, this is a two-bit field ... Otherwise,
 * bit[7] is RES0". EnVM (FEAT_SPE_nVM), KE and EE (FEAT_SPE_EXC) are RES0
 * here, as are bits [63:12] and [2].
 */
static u64 pmuscope_model_spe_pmscr_mask(const struct pmuscope_model_cpu *m)
{
	u64 w = PMUSCOPE_PMSCR_E0SPE | PMUSCOPE_PMSCR_E1SPE | PMUSCOPE_PMSCR_CX |
		PMUSCOPE_PMSCR_PA | PMUSCOPE_PMSCR_TS | FIELD_PREP(PMUSCOPE_PMSCR_PCT, 1);

	if (pmuscope_model_spe_prof(m)->ecv)
		w |= PMUSCOPE_PMSCR_PCT;
	return w;
}

/*
 * D24.7.11 PMSEVFR_EL1 and D24.7.17 PMSNEVFR_EL1: the filter bits that
 * exist (the others are RAZ/WI), the mask pseudocode SPEFilterByEvents()
 * applies: E[1], E[3], E[5], E[7] always; E[6] with FEAT_SPE_FnE; E[11]
 * from SPEv1p1 and E[18:17] from SPEv1p1 with SVE; E[2], E[4], E[10:8] and
 * the implemented events of E[23:19] from SPEv1p4 (this model generates
 * E[19] and E[20]). Filtering on optional or IMPLEMENTATION DEFINED events
 * is not supported by these profiles.
 */
static u64 pmuscope_model_spe_evfr_mask(const struct pmuscope_model_cpu *m)
{
	unsigned int ver = pmuscope_model_spe_ver(m);
	u64 mask = PMUSCOPE_MODEL_SPE_E_RETIRED | PMUSCOPE_MODEL_SPE_E_L1D_REFILL |
		   PMUSCOPE_MODEL_SPE_E_TLB_WALK | PMUSCOPE_MODEL_SPE_E_MISPRED;

	if (pmuscope_model_spe_idr(m) & PMUSCOPE_PMSIDR_FNE)
		mask |= PMUSCOPE_MODEL_SPE_E_NOT_TAKEN;
	if (ver >= PMUSCOPE_PMSVER_V1P1) {
		mask |= PMUSCOPE_MODEL_SPE_E_ALIGN;
		if (FIELD_GET(PMUSCOPE_PFR0_SVE, m->prof->pfr0))
			mask |= PMUSCOPE_MODEL_SPE_E_SVE;
	}
	if (ver >= PMUSCOPE_PMSVER_V1P4)
		mask |= PMUSCOPE_MODEL_SPE_E_L1D_ACCESS | PMUSCOPE_MODEL_SPE_E_TLB_ACCESS |
			PMUSCOPE_MODEL_SPE_E_LLC_ACCESS | PMUSCOPE_MODEL_SPE_E_LLC_MISS |
			PMUSCOPE_MODEL_SPE_E_REMOTE | PMUSCOPE_MODEL_SPE_E_L2D_ACCESS |
			PMUSCOPE_MODEL_SPE_E_L2D_MISS;
	return mask;
}

/*
 * D24.7.12 PMSFCR_EL1: FE, FT, FL, B, LD, ST; FnE "When FEAT_SPE_FnE is
 * implemented" (PMSIDR_EL1.FnE, D24.7.14: "0b0 PMSNEVFR_EL1 is not
 * implemented and PMSFCR_EL1.FnE is RES0"); FDS with PMSIDR_EL1.FDS; the
 * FEAT_SPE_EFT bits (TYPEm, FP, SIMD) are RES0 (PMSIDR_EL1.EFT == 0).
 */
static u64 pmuscope_model_spe_pmsfcr_mask(const struct pmuscope_model_cpu *m)
{
	u64 idr = pmuscope_model_spe_idr(m);
	u64 w = PMUSCOPE_PMSFCR_FE | PMUSCOPE_PMSFCR_FT | PMUSCOPE_PMSFCR_FL |
		PMUSCOPE_PMSFCR_B | PMUSCOPE_PMSFCR_LD | PMUSCOPE_PMSFCR_ST;

	if (idr & PMUSCOPE_PMSIDR_FNE)
		w |= PMUSCOPE_PMSFCR_FNE;
	if (pmuscope_model_spe_ver(m) >= PMUSCOPE_PMSVER_V1P4 && (idr & PMUSCOPE_PMSIDR_FDS))
		w |= PMUSCOPE_PMSFCR_FDS;
	return w;
}

/* D24.7.13 PMSICR_EL1: COUNT[31:0]; ECOUNT "When FEAT_SPE_ERnd is implemented". */
static u64 pmuscope_model_spe_pmsicr_mask(const struct pmuscope_model_cpu *m)
{
	u64 w = PMUSCOPE_PMSICR_COUNT;

	if (pmuscope_model_spe_idr(m) & PMUSCOPE_PMSIDR_ERND)
		w |= PMUSCOPE_PMSICR_ECOUNT;
	return w;
}

/* D24.7.16 PMSLATFR_EL1: "If PMSIDR_EL1.CountSize is 0b0010, MINLAT[15:12] is RES0". */
static u64 pmuscope_model_spe_pmslatfr_mask(const struct pmuscope_model_cpu *m)
{
	if (FIELD_GET(PMUSCOPE_PMSIDR_COUNTSIZE, pmuscope_model_spe_idr(m)) ==
	    PMUSCOPE_PMSIDR_COUNTSIZE_12)
		return GENMASK_ULL(11, 0);
	return PMUSCOPE_PMSLATFR_MINLAT;
}

/*
 * D24.7.2 PMBLIMITR_EL1: LIMIT, FM, E; PMFZ "When FEAT_SPEv1p2 is
 * implemented"; nVM (FEAT_SPE_nVM) and bits [11:8], [6], [4:3] RES0.
 */
static u64 pmuscope_model_spe_pmblimitr_mask(const struct pmuscope_model_cpu *m)
{
	u64 w = PMUSCOPE_PMBLIMITR_LIMIT | PMUSCOPE_PMBLIMITR_FM | PMUSCOPE_PMBLIMITR_E;

	if (pmuscope_model_spe_ver(m) >= PMUSCOPE_PMSVER_V1P2)
		w |= PMUSCOPE_PMBLIMITR_PMFZ;
	return w;
}

/*
 * D24.7.5 PMBSR_EL1: EC, DL, EA, S, COLL and MSS; in every MSS encoding
 * this model produces (BSC, FSC) bits [15:6] are RES0; MSS2 holds only
 * FEAT_THE/S1POE/S1PIE syndrome bits, RES0 here; bits [63:56], [25:20] RES0.
 */
#define PMUSCOPE_MODEL_SPE_PMBSR_MASK \
	(PMUSCOPE_PMBSR_EC | PMUSCOPE_PMBSR_DL | PMUSCOPE_PMBSR_EA | PMUSCOPE_PMBSR_S | \
	 PMUSCOPE_PMBSR_COLL | PMUSCOPE_PMBSR_FSC)

/* ------------------------------------------------------ memory and buffer */

/* How many bytes from @addr on lie in registered buffers, at most @want. */
static unsigned int pmuscope_model_spe_span(const struct pmuscope_model_spe *s,
					    u64 addr, unsigned int want)
{
	unsigned int got = 0, i;
	bool more = true;

	while (got < want && more) {
		u64 a = addr + got;

		more = false;
		for (i = 0; i < PMUSCOPE_MODEL_SPE_BUFFERS; i++) {
			const struct pmuscope_model_spe_buffer *b = &s->buf[i];

			if (!b->size || a < b->va || a - b->va >= b->size)
				continue;
			got += min_t(u64, want - got, b->size - (a - b->va));
			more = true;
			break;
		}
	}
	return got;
}

/*
 * Complete the memory writes of a written record: only bytes that lie in a
 * buffer registered now are stored (a buffer removed meanwhile is left
 * alone), so the model never touches memory it was not given.
 */
static void pmuscope_model_spe_commit(const struct pmuscope_model_spe *s,
				      const struct pmuscope_model_spe_record *r)
{
	unsigned int i;

	for (i = 0; i < PMUSCOPE_MODEL_SPE_BUFFERS; i++) {
		const struct pmuscope_model_spe_buffer *b = &s->buf[i];
		u64 lo, hi;

		if (!b->size)
			continue;
		lo = max_t(u64, r->addr, b->va);
		hi = min_t(u64, r->addr + r->len, b->va + b->size);
		if (lo < hi)
			memcpy((void *)(unsigned long)lo, r->data + (lo - r->addr), hi - lo);
	}
}

static void pmuscope_model_spe_commit_oldest(struct pmuscope_model_spe *s)
{
	pmuscope_model_spe_commit(s, &s->staged[0]);
	s->nstaged--;
	memmove(&s->staged[0], &s->staged[1], s->nstaged * sizeof(s->staged[0]));
	if (s->nsynced)
		s->nsynced--;
}

/*
 * Bytes the SPU wrote at @addr. The writes complete in finite time (the
 * model: when more records follow) or, for records a PSB CSYNC
 * synchronized, at the next DSB (D17.9, IMLGHW: "A DSB instruction in
 * program order following a PSB instruction does not complete before the
 * writes to the Profiling Buffer of sample records for profiling operations
 * synchronized by the PSB instruction have completed").
 */
static void pmuscope_model_spe_stage(struct pmuscope_model_spe *s, u64 addr,
				     const u8 *data, unsigned int len)
{
	struct pmuscope_model_spe_record *r;

	if (s->nstaged == PMUSCOPE_MODEL_SPE_QUEUE)
		pmuscope_model_spe_commit_oldest(s);
	r = &s->staged[s->nstaged++];
	r->addr = addr;
	r->len = len;
	memcpy(r->data, data, len);
}

/*
 * D17.4: "When the Profiling Buffer is disabled or profiling is stopped:
 * Any sample records that have been collected but not written to memory
 * are discarded."
 */
static void pmuscope_model_spe_drop_inflight(struct pmuscope_model_spe *s)
{
	s->lost += s->ninflight;
	s->ninflight = 0;
}

/*
 * A Profiling Buffer management event (D17.8, RFJDLW; pseudocode
 * OtherSPEManagementEvent(), DebugWriteFault(), DebugWriteExternalAbort()):
 * if PMBSR_EL1.S is 0, S = 1 and EC and MSS record the event; DL and EA
 * are set when the event says so; the other fields are unchanged. Profiling
 * stops and PMBIRQ follows S.
 */
static void pmuscope_model_spe_event(struct pmuscope_model_cpu *m, unsigned int ec,
				     unsigned int mss, bool dl, bool ea)
{
	struct pmuscope_model_spe *s = &m->spe;

	if (ea)
		s->pmbsr |= PMUSCOPE_PMBSR_EA;
	if (dl)
		s->pmbsr |= PMUSCOPE_PMBSR_DL;
	if (s->pmbsr & PMUSCOPE_PMBSR_S)
		return;
	s->pmbsr &= ~(PMUSCOPE_PMBSR_EC | PMUSCOPE_PMBSR_MSS);
	s->pmbsr |= PMUSCOPE_PMBSR_S | FIELD_PREP(PMUSCOPE_PMBSR_EC, ec) |
		    FIELD_PREP(PMUSCOPE_PMBSR_MSS, mss);
	pmuscope_model_spe_drop_inflight(s);
}

/*
 * D17.8.2 Buffer full event: EC = 0b000000, BSC = 0b000001, DL unchanged,
 * PMBPTR_EL1 at the first byte after the last complete record.
 */
static void pmuscope_model_spe_buffer_full(struct pmuscope_model_cpu *m)
{
	pmuscope_model_spe_event(m, PMUSCOPE_PMBSR_EC_BUF, PMUSCOPE_PMBSR_BSC_FULL,
				 false, false);
}

/*
 * An injected fault on the write of a record, at its first byte, so
 * PMBPTR_EL1 is the faulting address and no partial record was written:
 * - Translation, Alignment: D17.8.3 (Table D17-11), pseudocode
 *   DebugWriteFault(): EC 0b100100 (stage 1) or 0b100101 (stage 2), FSC the
 *   fault, PMBPTR_EL1 = faulting address, DL unchanged;
 * - External abort: before SPEv1p3 reported to the SPU (D17.8.4.4, RBPFPN),
 *   synchronously: EA = 1, EC 0b100100, FSC synchronous External abort;
 *   from SPEv1p3 aborts on the buffer writes are not reported (PMBIDR_EL1.EA
 *   says ignored or SError), so the model raises the other kind the
 *   architecture reports: a synchronous External abort on the translation
 *   table walk as an MMU fault (D17.8.4.3), EA set (an IMPLEMENTATION
 *   DEFINED choice, D17.8.3);
 * - Data loss: D17.8.5 Access not allowed: DL = 1, EC 0, BSC 0.
 */
static void pmuscope_model_spe_fault(struct pmuscope_model_cpu *m,
				     enum pmuscope_model_spe_fault f)
{
	bool v1p3 = pmuscope_model_spe_ver(m) >= PMUSCOPE_PMSVER_V1P3;

	switch (f) {
	case PMUSCOPE_MODEL_SPE_FAULT_S1_TRANSLATION:
		pmuscope_model_spe_event(m, PMUSCOPE_PMBSR_EC_FAULT_S1,
					 PMUSCOPE_PMBSR_FSC_TRANS_L3, false, false);
		break;
	case PMUSCOPE_MODEL_SPE_FAULT_S2_TRANSLATION:
		pmuscope_model_spe_event(m, PMUSCOPE_PMBSR_EC_FAULT_S2,
					 PMUSCOPE_PMBSR_FSC_TRANS_L3, false, false);
		break;
	case PMUSCOPE_MODEL_SPE_FAULT_ALIGNMENT:
		pmuscope_model_spe_event(m, PMUSCOPE_PMBSR_EC_FAULT_S1,
					 PMUSCOPE_PMBSR_FSC_ALIGN, false, false);
		break;
	case PMUSCOPE_MODEL_SPE_FAULT_EXT_ABORT:
		pmuscope_model_spe_event(m, PMUSCOPE_PMBSR_EC_FAULT_S1,
					 v1p3 ? PMUSCOPE_PMBSR_FSC_EXT_TTW_L3 :
						PMUSCOPE_PMBSR_FSC_EXT, false, true);
		break;
	case PMUSCOPE_MODEL_SPE_FAULT_DATA_LOSS:
		pmuscope_model_spe_event(m, PMUSCOPE_PMBSR_EC_BUF, 0, true, false);
		break;
	default:
		break;
	}
}

/*
 * pseudocode SPEBufferIsFull(): another record of the maximum size
 * (2^PMSIDR_EL1.MaxSize) would not fit before LIMIT:Zeros(12).
 */
static bool pmuscope_model_spe_is_full(const struct pmuscope_model_cpu *m)
{
	u64 limit = pmuscope_model_spe_limit(&m->spe);
	u64 max = pmuscope_model_spe_maxsize(m);

	return limit < max || m->spe.pmbptr > limit - max;
}

/*
 * Write one collected record: pseudocode SPEWriteToBuffer() (byte by byte
 * at PMBPTR_EL1, which advances unless a management event stopped
 * profiling), then the buffer-full check of SPECompleteSample() (D17.8.2).
 * A byte outside every registered buffer is a stage 1 Translation fault
 * (D17.8.3: PMBPTR_EL1 = the faulting address; DL = 1 when that is not the
 * first byte after the last complete record, RMYXZK) and a violation.
 */
static void pmuscope_model_spe_write_record(struct pmuscope_model_cpu *m,
					    const struct pmuscope_model_spe_record *r)
{
	struct pmuscope_model_spe *s = &m->spe;
	u64 start = s->pmbptr, limit = pmuscope_model_spe_limit(s);
	enum pmuscope_model_spe_fault f = s->inject;
	unsigned int n;

	if (!pmuscope_model_spe_buffer_enabled(m)) {
		s->lost++;
		return;
	}
	if (f != PMUSCOPE_MODEL_SPE_FAULT_NONE && f != PMUSCOPE_MODEL_SPE_FAULT_COLLISION) {
		s->inject = PMUSCOPE_MODEL_SPE_FAULT_NONE;
		pmuscope_model_spe_fault(m, f);
		s->lost++;
		return;
	}
	/* D17.8: "The SPU never writes past the PMBLIMITR_EL1 limit pointer." */
	if (start >= limit || r->len > limit - start) {
		pmuscope_model_spe_violation(m, PMUSCOPE_REG_PMBPTR_EL1, true, start,
					     "record would cross PMBLIMITR_EL1.LIMIT");
		pmuscope_model_spe_buffer_full(m);
		s->lost++;
		return;
	}
	n = pmuscope_model_spe_span(s, start, r->len);
	if (n)
		pmuscope_model_spe_stage(s, start, r->data, n);
	s->pmbptr += n;
	if (n < r->len) {
		pmuscope_model_spe_violation(m, PMUSCOPE_REG_PMBPTR_EL1, true, s->pmbptr,
					     "SPU write outside the registered buffers");
		pmuscope_model_spe_event(m, PMUSCOPE_PMBSR_EC_FAULT_S1,
					 PMUSCOPE_PMBSR_FSC_TRANS_L3, n != 0, false);
		s->lost++;
		return;
	}
	s->records++;
	if (pmuscope_model_spe_is_full(m))
		pmuscope_model_spe_buffer_full(m);
}

/* Write the oldest collected record. */
static void pmuscope_model_spe_drain_one(struct pmuscope_model_cpu *m)
{
	struct pmuscope_model_spe *s = &m->spe;
	struct pmuscope_model_spe_record r = s->inflight[0];

	s->ninflight--;
	memmove(&s->inflight[0], &s->inflight[1], s->ninflight * sizeof(s->inflight[0]));
	pmuscope_model_spe_write_record(m, &r);
}

/*
 * Arm ARM D17.7.4 RHXSYK: when profiling becomes enabled,
 * PMBPTR_EL1.PTR <= LIMIT:Zeros(12) - 2^PMSIDR_EL1.MaxSize and
 * PTR[63:56] == LIMIT[63:56]; RHLXGD: PTR aligned to PMBIDR_EL1.Align. Not
 * in Discard mode (D17.5.5). Otherwise the behaviour is CONSTRAINED
 * UNPREDICTABLE (RPGGHS): the model counts a violation and takes two of the
 * permitted behaviours, a Buffer full event (pointer beyond the limit), or
 * the Alignment fault the write would raise (Table D17-11), before writing
 * anything. Checked where the SPU first observes the enabled buffer: the
 * next context synchronization event or workload.
 */
static void pmuscope_model_spe_check_start(struct pmuscope_model_cpu *m)
{
	struct pmuscope_model_spe *s = &m->spe;
	u64 limit = pmuscope_model_spe_limit(s), ptr = s->pmbptr;
	u64 max = pmuscope_model_spe_maxsize(m);
	unsigned int align = pmuscope_model_spe_align(m);

	if (!s->start_pending || !pmuscope_model_spe_buffer_enabled(m) ||
	    !(s->pmscr & (PMUSCOPE_PMSCR_E0SPE | PMUSCOPE_PMSCR_E1SPE)))
		return;
	s->start_pending = false;
	if (pmuscope_model_spe_discard(m))
		return;
	if (limit < max || ptr > limit - max) {
		pmuscope_model_spe_violation(m, PMUSCOPE_REG_PMBPTR_EL1, true, ptr,
					     "profiling enabled with PMBPTR_EL1 above LIMIT - 2^MaxSize");
		pmuscope_model_spe_buffer_full(m);
	} else if ((ptr ^ limit) & GENMASK_ULL(63, 56)) {
		pmuscope_model_spe_violation(m, PMUSCOPE_REG_PMBPTR_EL1, true, ptr,
					     "profiling enabled with PMBPTR_EL1[63:56] != LIMIT[63:56]");
		pmuscope_model_spe_buffer_full(m);
	} else if (ptr & (BIT_ULL(align) - 1)) {
		pmuscope_model_spe_violation(m, PMUSCOPE_REG_PMBPTR_EL1, true, ptr,
					     "profiling enabled with PMBPTR_EL1 not aligned to PMBIDR_EL1.Align");
		pmuscope_model_spe_event(m, PMUSCOPE_PMBSR_EC_FAULT_S1,
					 PMUSCOPE_PMBSR_FSC_ALIGN, false, false);
	}
}

/* ------------------------------------------------------- sample selection */

/*
 * pseudocode SPEGetRandomInterval(): "a random or pseudo-random byte". The
 * generator is IMPLEMENTATION DEFINED (D17.3.2): a xorshift32 seeded per
 * CPU at reset, so that every test run draws the same jitter.
 */
static u32 pmuscope_model_spe_random(struct pmuscope_model_spe *s)
{
	u32 x = s->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	s->rng = x;
	return x >> 24;
}

/* RND with FEAT_SPE_ERnd: the jitter runs on the secondary counter. */
static bool pmuscope_model_spe_ernd(const struct pmuscope_model_cpu *m)
{
	return (m->spe.pmsirr & PMUSCOPE_PMSIRR_RND) &&
	       (pmuscope_model_spe_idr(m) & PMUSCOPE_PMSIDR_ERND);
}

/*
 * pseudocode SPEResetSampleCounter() (D17.3.4): COUNT[31:8] =
 * PMSIRR_EL1.INTERVAL; COUNT[7:0] = a random byte when RND is 1 without
 * FEAT_SPE_ERnd, else 0.
 */
static u32 pmuscope_model_spe_reload(struct pmuscope_model_cpu *m)
{
	struct pmuscope_model_spe *s = &m->spe;
	u32 count = FIELD_GET(PMUSCOPE_PMSIRR_INTERVAL, s->pmsirr) << 8;

	if ((s->pmsirr & PMUSCOPE_PMSIRR_RND) && !pmuscope_model_spe_ernd(m))
		count |= pmuscope_model_spe_random(s);
	return count;
}

static void pmuscope_model_spe_set_counters(struct pmuscope_model_spe *s, u32 count,
					    u32 ecount)
{
	s->pmsicr = FIELD_PREP(PMUSCOPE_PMSICR_COUNT, count) |
		    FIELD_PREP(PMUSCOPE_PMSICR_ECOUNT, ecount);
}

/*
 * One member of the sample population: pseudocode SPEToCollectSample().
 * A zero COUNT reloads (D17.3.3: a zero PMSICR_EL1 is loaded when profiling
 * starts); otherwise COUNT decrements and at zero the operation is
 * selected, or with FEAT_SPE_ERnd ECOUNT gets a random byte and the
 * operation ECOUNT operations later is (D17.3.4.3). Returns true when this
 * operation is selected.
 */
static bool pmuscope_model_spe_step(struct pmuscope_model_cpu *m)
{
	struct pmuscope_model_spe *s = &m->spe;
	u32 count = FIELD_GET(PMUSCOPE_PMSICR_COUNT, s->pmsicr);
	u32 ecount = FIELD_GET(PMUSCOPE_PMSICR_ECOUNT, s->pmsicr);
	bool ernd = pmuscope_model_spe_ernd(m);
	bool sel = false;

	if (!count) {
		count = pmuscope_model_spe_reload(m);
	} else if (!--count) {
		if (ernd) {
			ecount = pmuscope_model_spe_random(s);
			sel = !ecount;
		} else {
			sel = true;
		}
		pmuscope_model_spe_set_counters(s, count, ecount);
		return sel;
	}
	if (ernd && ecount && !--ecount)
		sel = true;
	pmuscope_model_spe_set_counters(s, count, ecount);
	return sel;
}

/*
 * The same as that many pmuscope_model_spe_step() calls that select
 * nothing: skip up to @left operations while neither counter can reach 0.
 */
static u64 pmuscope_model_spe_skip(struct pmuscope_model_cpu *m, u64 left)
{
	struct pmuscope_model_spe *s = &m->spe;
	u32 count = FIELD_GET(PMUSCOPE_PMSICR_COUNT, s->pmsicr);
	u32 ecount = FIELD_GET(PMUSCOPE_PMSICR_ECOUNT, s->pmsicr);
	u64 k;

	if (count <= 1)
		return 0;
	k = min_t(u64, count - 1, left);
	if (pmuscope_model_spe_ernd(m) && ecount) {
		if (ecount <= 1)
			return 0;
		k = min_t(u64, k, ecount - 1);
		ecount -= k;
	}
	pmuscope_model_spe_set_counters(s, count - k, ecount);
	return k;
}

/* ------------------------------------------------------------- the sample */

/* How many of the first @i of @n operations are of a kind @k of them have. */
static u64 pmuscope_model_spe_spread(u64 i, u64 k, u64 n)
{
	return n ? mul_u64_u64_div_u64(i, k, n) : 0;
}

static bool pmuscope_model_spe_is_kind(u64 i, u64 k, u64 n)
{
	return pmuscope_model_spe_spread(i + 1, k, n) != pmuscope_model_spe_spread(i, k, n);
}

/*
 * Operation @i of @w: the loads, then the stores among the others, then
 * the branches among the rest are spread evenly over the work; the PC
 * advances 4 bytes an operation, the data address 8 bytes a load or store;
 * loads take w->load_latency cycles, everything else 1. Events (D18.2.6):
 * retired; loads and stores access the L1D cache and the TLB; a load slower
 * than an L1 (L2, LLC) hit refilled L1D (missed L2, missed the LLC);
 * mispredicted branches spread evenly over the branches.
 */
static void pmuscope_model_spe_describe(const struct pmuscope_model_cpu *m,
					const struct pmuscope_model_work *w, u64 i,
					u64 t0, struct pmuscope_model_spe_op *op)
{
	bool v1p4 = pmuscope_model_spe_ver(m) >= PMUSCOPE_PMSVER_V1P4;
	u64 n = w->insts;
	u64 nl = min(w->loads, n);
	u64 ns = min(w->stores, n - nl);
	u64 nb = min(w->branches, n - nl - ns);
	u64 lb = pmuscope_model_spe_spread(i, nl, n);
	u64 j = i - lb, sb = pmuscope_model_spe_spread(j, ns, n - nl);
	u64 k = j - sb, bb = pmuscope_model_spe_spread(k, nb, n - nl - ns);

	memset(op, 0, sizeof(*op));
	op->pc = w->pc + 4 * i;
	op->ts = t0 + pmuscope_model_spe_spread(i, w->ns, n);
	op->latency = 1;
	op->events = PMUSCOPE_MODEL_SPE_E_RETIRED;
	op->va = w->data_addr + 8 * (lb + sb);

	if (pmuscope_model_spe_is_kind(i, nl, n)) {
		op->type = PMUSCOPE_MODEL_SPE_OP_LOAD;
		op->latency = max_t(u32, w->load_latency, 1);
	} else if (pmuscope_model_spe_is_kind(j, ns, n - nl)) {
		op->type = PMUSCOPE_MODEL_SPE_OP_STORE;
	} else if (pmuscope_model_spe_is_kind(k, nb, n - nl - ns)) {
		op->type = PMUSCOPE_MODEL_SPE_OP_BRANCH;
		op->target = op->pc + 4;
		if (pmuscope_model_spe_is_kind(bb, min(w->mispredicts, nb), nb))
			op->events |= PMUSCOPE_MODEL_SPE_E_MISPRED;
		return;
	} else {
		return;
	}
	op->events |= PMUSCOPE_MODEL_SPE_E_L1D_ACCESS | PMUSCOPE_MODEL_SPE_E_TLB_ACCESS;
	if (op->latency > PMUSCOPE_MODEL_SPE_L1_HIT)
		op->events |= PMUSCOPE_MODEL_SPE_E_L1D_REFILL |
			      (v1p4 ? PMUSCOPE_MODEL_SPE_E_L2D_ACCESS : 0);
	if (op->latency > PMUSCOPE_MODEL_SPE_L2_HIT)
		op->events |= PMUSCOPE_MODEL_SPE_E_LLC_ACCESS |
			      (v1p4 ? PMUSCOPE_MODEL_SPE_E_L2D_MISS : 0);
	if (op->latency > PMUSCOPE_MODEL_SPE_LLC_HIT)
		op->events |= PMUSCOPE_MODEL_SPE_E_LLC_MISS;
}

/*
 * pseudocode SPECollectRecord() (D17.5): the sample is kept only if every
 * enabled filter keeps it.
 * - SPEFilterByEvents(): FE keeps samples with all the PMSEVFR_EL1 events,
 *   FnE those with none of the PMSNEVFR_EL1 events (masked as above);
 * - SPEFilterByType(), no FEAT_SPE_EFT: FT keeps samples whose type {B, LD,
 *   ST} is one of PMSFCR_EL1.{B, LD, ST};
 * - SPEFilterByLatency(): FL keeps total latency >= PMSLATFR_EL1.MINLAT.
 * The CONSTRAINED UNPREDICTABLE set-ups (D24.7.12: FE with PMSEVFR_EL1
 * zero, FnE with PMSNEVFR_EL1 zero or overlapping PMSEVFR_EL1 under FE, FT
 * with B, LD, ST all zero, FL with MINLAT zero) record no samples here, one
 * of the two permitted behaviours.
 */
static bool pmuscope_model_spe_collect(const struct pmuscope_model_cpu *m,
				       const struct pmuscope_model_spe_op *op)
{
	const struct pmuscope_model_spe *s = &m->spe;
	u64 mask = pmuscope_model_spe_evfr_mask(m);
	u64 e = op->events & mask, evfr = s->pmsevfr & mask, nevfr = s->pmsnevfr & mask;
	u64 ctrl = s->pmsfcr & (PMUSCOPE_PMSFCR_B | PMUSCOPE_PMSFCR_LD | PMUSCOPE_PMSFCR_ST);
	u64 flags = 0;

	if (s->pmsfcr & PMUSCOPE_PMSFCR_FE) {
		if (!evfr || (evfr & ~e))
			return false;
	}
	if (s->pmsfcr & PMUSCOPE_PMSFCR_FNE) {
		if (!nevfr || (e & nevfr))
			return false;
		if ((s->pmsfcr & PMUSCOPE_PMSFCR_FE) && (evfr & nevfr))
			return false;
	}
	if (s->pmsfcr & PMUSCOPE_PMSFCR_FT) {
		if (op->type == PMUSCOPE_MODEL_SPE_OP_BRANCH)
			flags = PMUSCOPE_PMSFCR_B;
		else if (op->type == PMUSCOPE_MODEL_SPE_OP_LOAD)
			flags = PMUSCOPE_PMSFCR_LD;
		else if (op->type == PMUSCOPE_MODEL_SPE_OP_STORE)
			flags = PMUSCOPE_PMSFCR_ST;
		if (!(flags & ctrl))
			return false;
	}
	if (s->pmsfcr & PMUSCOPE_PMSFCR_FL) {
		u64 minlat = FIELD_GET(PMUSCOPE_PMSLATFR_MINLAT, s->pmslatfr);

		if (!minlat || op->latency < minlat)
			return false;
	}
	return true;
}

/* One packet: pseudocode SPEAddPacketToRecord(header_hi, header_lo, payload). */
static void pmuscope_model_spe_put(struct pmuscope_model_spe_record *r, u8 hi, u8 lo,
				   u64 payload, unsigned int bytes)
{
	unsigned int i;

	if (WARN_ON_ONCE(r->len + 1 + bytes > PMUSCOPE_MODEL_SPE_REC_MAX))
		return;
	r->data[r->len++] = FIELD_PREP(PMUSCOPE_MODEL_SPE_HDR_HI, hi) |
			    FIELD_PREP(PMUSCOPE_MODEL_SPE_HDR_SZ, ilog2(bytes)) |
			    FIELD_PREP(PMUSCOPE_MODEL_SPE_HDR_LO, lo);
	for (i = 0; i < bytes; i++)
		r->data[r->len++] = payload >> (8 * i);
}

/* PC and branch target payload (SPESampleAddAddressPCVirtual()): NS = 1. */
static u64 pmuscope_model_spe_addr(u64 va, unsigned int el)
{
	return FIELD_PREP(PMUSCOPE_MODEL_SPE_ADDR, va & PMUSCOPE_MODEL_SPE_ADDR) |
	       PMUSCOPE_MODEL_SPE_ADDR_NS | FIELD_PREP(PMUSCOPE_MODEL_SPE_ADDR_EL, el);
}

/* D18.2.3: counters are 12- or 16-bit saturating (PMSIDR_EL1.CountSize). */
static u64 pmuscope_model_spe_counter(const struct pmuscope_model_cpu *m, u32 cycles)
{
	u32 max = FIELD_GET(PMUSCOPE_PMSIDR_COUNTSIZE, pmuscope_model_spe_idr(m)) ==
		  PMUSCOPE_PMSIDR_COUNTSIZE_12 ? 0xfff : 0xffff;

	return min(cycles, max);
}

static u64 pmuscope_model_spe_data_source(u32 latency)
{
	if (latency <= PMUSCOPE_MODEL_SPE_L1_HIT)
		return PMUSCOPE_MODEL_SPE_DS_L1D;
	if (latency <= PMUSCOPE_MODEL_SPE_L2_HIT)
		return PMUSCOPE_MODEL_SPE_DS_L2;
	if (latency <= PMUSCOPE_MODEL_SPE_LLC_HIT)
		return PMUSCOPE_MODEL_SPE_DS_SYS_CACHE;
	return PMUSCOPE_MODEL_SPE_DS_DRAM;
}

/*
 * pseudocode SPEConstructRecord(), packets in its order:
 * Context (CONTEXTIDR_EL1, when CollectContextIDR1(): PMSCR_EL1.CX, not at
 * EL2), Counters (total latency, issue latency), Addresses (PC with EL and
 * NS, branch target, data VA, data PA when CollectPhysicalAddress():
 * PMSCR_EL1.PA, PMSCR_EL2.PA taken as 1), Data Source (loads, when
 * PMSIDR_EL1.LDS), Operation Type, Events, then a Timestamp (when
 * CollectTimeStamp(): PMSCR_EL1.TS) or an End packet, then padding bytes
 * up to a multiple of 2^PMBIDR_EL1.Align.
 */
static void pmuscope_model_spe_construct(const struct pmuscope_model_cpu *m,
					 const struct pmuscope_model_spe_op *op,
					 unsigned int el,
					 struct pmuscope_model_spe_record *r)
{
	const struct pmuscope_model_spe *s = &m->spe;
	unsigned int align = pmuscope_model_spe_align(m);
	u8 class, subclass = 0;

	r->len = 0;
	r->addr = 0;
	if ((s->pmscr & PMUSCOPE_PMSCR_CX) && el < 2)
		pmuscope_model_spe_put(r, 0x1, 0x4, s->contextidr, 4);
	pmuscope_model_spe_put(r, 0x2, 0x8 | PMUSCOPE_MODEL_SPE_C_TOTAL,
			       pmuscope_model_spe_counter(m, op->latency), 2);
	pmuscope_model_spe_put(r, 0x2, 0x8 | PMUSCOPE_MODEL_SPE_C_ISSUE,
			       pmuscope_model_spe_counter(m, 1), 2);
	pmuscope_model_spe_put(r, 0x2, PMUSCOPE_MODEL_SPE_A_PC,
			       pmuscope_model_spe_addr(op->pc, el), 8);

	switch (op->type) {
	case PMUSCOPE_MODEL_SPE_OP_BRANCH:
		class = PMUSCOPE_MODEL_SPE_CLASS_BRANCH;
		subclass = PMUSCOPE_MODEL_SPE_BR_COND;	/* direct, conditional */
		pmuscope_model_spe_put(r, 0x2, PMUSCOPE_MODEL_SPE_A_BRANCH,
				       pmuscope_model_spe_addr(op->target, el), 8);
		break;
	case PMUSCOPE_MODEL_SPE_OP_LOAD:
	case PMUSCOPE_MODEL_SPE_OP_STORE:
		class = PMUSCOPE_MODEL_SPE_CLASS_LDST;	/* general-purpose registers */
		if (op->type == PMUSCOPE_MODEL_SPE_OP_STORE)
			subclass = PMUSCOPE_MODEL_SPE_LDST_ST;
		/* SPESetDataVirtualAddress(): the whole VA, tag byte included */
		pmuscope_model_spe_put(r, 0x2, PMUSCOPE_MODEL_SPE_A_DATA_VA, op->va, 8);
		/* SPESetDataPhysicalAddress(): the model maps VA[47:0] to PA, NS */
		if (s->pmscr & PMUSCOPE_PMSCR_PA)
			pmuscope_model_spe_put(r, 0x2, PMUSCOPE_MODEL_SPE_A_DATA_PA,
					       (op->va & PMUSCOPE_MODEL_SPE_PA) |
					       PMUSCOPE_MODEL_SPE_ADDR_NS, 8);
		if (op->type == PMUSCOPE_MODEL_SPE_OP_LOAD &&
		    (pmuscope_model_spe_idr(m) & PMUSCOPE_PMSIDR_LDS))
			pmuscope_model_spe_put(r, 0x1, 0x3,
					       pmuscope_model_spe_data_source(op->latency), 2);
		break;
	default:
		class = PMUSCOPE_MODEL_SPE_CLASS_OTHER;
		break;
	}
	pmuscope_model_spe_put(r, 0x1, 0x8 | class, subclass, 1);
	pmuscope_model_spe_put(r, 0x1, 0x2, op->events,
			       pmuscope_model_spe_prof(m)->events_bytes);
	if (s->pmscr & PMUSCOPE_PMSCR_TS)
		pmuscope_model_spe_put(r, 0x1, 0x1, op->ts, 8);
	else
		r->data[r->len++] = PMUSCOPE_MODEL_SPE_END;
	while (r->len % (1U << align) && r->len < PMUSCOPE_MODEL_SPE_REC_MAX)
		r->data[r->len++] = PMUSCOPE_MODEL_SPE_PAD;
	/* PMSIDR_EL1.MaxSize: "the largest size for a single record" */
	WARN_ON_ONCE(r->len > pmuscope_model_spe_maxsize(m));
}

/*
 * A selected operation: pseudocode SPEStartSample() and
 * SPECompleteSample(). A collision (injected: the SPU still holds a sample,
 * D17.3.7) sets PMBSR_EL1.COLL, other fields unchanged, profiling not
 * stopped, the operation not sampled. Otherwise the record is built,
 * filtered, dropped in Discard mode, and else collected; the SPU writes
 * records once more than profile->inflight are held (or at PSB CSYNC).
 */
static void pmuscope_model_spe_sample(struct pmuscope_model_cpu *m,
				      const struct pmuscope_model_work *w, u64 i,
				      u64 t0)
{
	struct pmuscope_model_spe *s = &m->spe;
	unsigned int depth = clamp_t(unsigned int, pmuscope_model_spe_prof(m)->inflight,
				     1, PMUSCOPE_MODEL_SPE_QUEUE - 1);
	struct pmuscope_model_spe_op op;

	if (s->inject == PMUSCOPE_MODEL_SPE_FAULT_COLLISION) {
		s->inject = PMUSCOPE_MODEL_SPE_FAULT_NONE;
		s->pmbsr |= PMUSCOPE_PMBSR_COLL;
		s->coll_pending = true;
		pmuscope_model_count_locked(m, PMUSCOPE_MODEL_SPE_EV_SAMPLE_COLLISION, w->el, 1);
		return;
	}
	s->samples++;
	pmuscope_model_count_locked(m, PMUSCOPE_MODEL_SPE_EV_SAMPLE_FEED, w->el, 1);
	pmuscope_model_spe_describe(m, w, i, t0, &op);
	if (!pmuscope_model_spe_collect(m, &op))
		return;
	pmuscope_model_count_locked(m, PMUSCOPE_MODEL_SPE_EV_SAMPLE_FILTRATE, w->el, 1);
	if (pmuscope_model_spe_discard(m))
		return;
	pmuscope_model_spe_construct(m, &op, w->el, &s->inflight[s->ninflight++]);
	while (s->ninflight > depth)
		pmuscope_model_spe_drain_one(m);
}

/* ------------------------------------------------------------------ hooks */

void pmuscope_model_spe_reset(struct pmuscope_model_cpu *m)
{
	unsigned int cpu = m - pmuscope_model_get(0);

	/*
	 * D24.7: PMBLIMITR_EL1.E resets to 0, the other fields are UNKNOWN
	 * (the model: 0). The random generator restarts in a usable state
	 * (D17.3.2), the same per CPU on every reset.
	 */
	m->spe.rng = 0x9e3779b9U * (cpu + 1) | 1;
}

u64 pmuscope_model_spe_read(struct pmuscope_model_cpu *m, enum pmuscope_reg reg)
{
	struct pmuscope_model_spe *s = &m->spe;

	if (pmuscope_model_spe_el3_trap(m, reg)) {
		pmuscope_model_spe_violation(m, reg, false, 0,
					     "SPE register read trapped to EL3 (MDCR_EL3.NSPB)");
		return 0;
	}
	if (pmuscope_model_spe_is_pmb(reg) && !pmuscope_model_spe_owned(m)) {
		pmuscope_model_spe_violation(m, reg, false, 0,
					     "PMB* register access trapped (PMBIDR_EL1.P = 1)");
		return 0;
	}
	switch (reg) {
	case PMUSCOPE_REG_PMSCR_EL1:
		return s->pmscr;
	case PMUSCOPE_REG_PMSNEVFR_EL1:
		return s->pmsnevfr;
	case PMUSCOPE_REG_PMSICR_EL1:
		return s->pmsicr;
	case PMUSCOPE_REG_PMSIRR_EL1:
		return s->pmsirr;
	case PMUSCOPE_REG_PMSFCR_EL1:
		return s->pmsfcr;
	case PMUSCOPE_REG_PMSEVFR_EL1:
		return s->pmsevfr;
	case PMUSCOPE_REG_PMSLATFR_EL1:
		return s->pmslatfr;
	case PMUSCOPE_REG_PMSIDR_EL1:
		return m->prof->pmsidr;
	case PMUSCOPE_REG_PMBLIMITR_EL1:
		return s->pmblimitr;
	case PMUSCOPE_REG_PMBPTR_EL1:
		return s->pmbptr_seen;
	case PMUSCOPE_REG_PMBSR_EL1:
		return s->pmbsr_seen;
	case PMUSCOPE_REG_PMBIDR_EL1:
		return m->prof->pmbidr;
	default:
		return 0;
	}
}

void pmuscope_model_spe_write(struct pmuscope_model_cpu *m, enum pmuscope_reg reg,
			      u64 val)
{
	struct pmuscope_model_spe *s = &m->spe;
	bool was_enabled = pmuscope_model_spe_buffer_enabled(m);

	if (pmuscope_model_spe_el3_trap(m, reg)) {
		pmuscope_model_spe_violation(m, reg, true, val,
					     "SPE register write trapped to EL3 (MDCR_EL3.NSPB)");
		return;
	}
	if (pmuscope_model_spe_is_pmb(reg) && !pmuscope_model_spe_owned(m)) {
		pmuscope_model_spe_violation(m, reg, true, val,
					     "PMB* register access trapped (PMBIDR_EL1.P = 1)");
		return;
	}
	switch (reg) {
	case PMUSCOPE_REG_PMSCR_EL1:
		s->pmscr = val & pmuscope_model_spe_pmscr_mask(m);
		break;
	case PMUSCOPE_REG_PMSNEVFR_EL1:
		s->pmsnevfr = val & pmuscope_model_spe_evfr_mask(m);
		break;
	case PMUSCOPE_REG_PMSICR_EL1:
		s->pmsicr = val & pmuscope_model_spe_pmsicr_mask(m);
		break;
	case PMUSCOPE_REG_PMSIRR_EL1:
		/* D24.7.15: INTERVAL[31:8], RND[0]; bits [63:32], [7:1] RES0 */
		s->pmsirr = val & (PMUSCOPE_PMSIRR_INTERVAL | PMUSCOPE_PMSIRR_RND);
		s->interval_flagged = false;
		break;
	case PMUSCOPE_REG_PMSFCR_EL1:
		s->pmsfcr = val & pmuscope_model_spe_pmsfcr_mask(m);
		break;
	case PMUSCOPE_REG_PMSEVFR_EL1:
		s->pmsevfr = val & pmuscope_model_spe_evfr_mask(m);
		break;
	case PMUSCOPE_REG_PMSLATFR_EL1:
		s->pmslatfr = val & pmuscope_model_spe_pmslatfr_mask(m);
		break;
	case PMUSCOPE_REG_PMBLIMITR_EL1:
		s->pmblimitr = val & pmuscope_model_spe_pmblimitr_mask(m);
		break;
	case PMUSCOPE_REG_PMBPTR_EL1:
		/* D24.7.4: PTR[63:0]; the Align low bits are RW (IMPLEMENTATION DEFINED) */
		s->pmbptr = val;
		s->pmbptr_seen = val;
		break;
	case PMUSCOPE_REG_PMBSR_EL1:
		/*
		 * A direct write replaces the SPU's value; D17.8, IGRLRX: a
		 * write of S = 1 asserts PMBIRQ (and stops profiling), which
		 * stays asserted until software clears S.
		 */
		s->pmbsr = val & PMUSCOPE_MODEL_SPE_PMBSR_MASK;
		s->pmbsr_seen = s->pmbsr;
		s->coll_pending = false;
		break;
	default:
		return;
	}
	if (pmuscope_model_spe_is_pmb(reg) || reg == PMUSCOPE_REG_PMSCR_EL1)
		s->start_pending = true;
	if (was_enabled && !pmuscope_model_spe_buffer_enabled(m))
		pmuscope_model_spe_drop_inflight(s);
}

/*
 * Barriers (Arm ARM D17.9):
 * - PSB CSYNC (RTRDTK, IMLGHW; pseudocode ProfilingSynchronizationBarrier())
 *   synchronizes the profiling operations so far: the SPU writes the
 *   records it holds, and its indirect writes to PMBPTR_EL1 and PMBSR_EL1
 *   become visible to direct reads. Without it a driver reads a stale
 *   PMBPTR_EL1 and misses records.
 * - DSB NSH after a PSB CSYNC completes the memory writes of those records.
 * - A context synchronization event makes a collision's COLL visible
 *   (D17.3.7) and is where the SPU observes a newly enabled buffer (INDWCG).
 */
void pmuscope_model_spe_barrier(struct pmuscope_model_cpu *m,
				enum pmuscope_barrier b)
{
	struct pmuscope_model_spe *s = &m->spe;

	if (!FIELD_GET(PMUSCOPE_DFR0_PMSVER, m->prof->dfr0))
		return;
	switch (b) {
	case PMUSCOPE_BARRIER_ISB:
		if (s->coll_pending)
			s->pmbsr_seen |= PMUSCOPE_PMBSR_COLL;
		s->coll_pending = false;
		pmuscope_model_spe_check_start(m);
		break;
	case PMUSCOPE_BARRIER_PSB_CSYNC:
		while (s->ninflight)
			pmuscope_model_spe_drain_one(m);
		s->nsynced = s->nstaged;
		s->pmbptr_seen = s->pmbptr;
		s->pmbsr_seen = s->pmbsr;
		s->coll_pending = false;
		break;
	case PMUSCOPE_BARRIER_DSB_NSH:
		while (s->nsynced)
			pmuscope_model_spe_commit_oldest(s);
		break;
	}
}

/*
 * The workload: its operations are the sample population (D17.2) while
 * profiling is enabled at w->el; the interval counter runs only then
 * (D17.3.5), the ops counted as SAMPLE_POP (D17.1: the SPU generates PMU
 * events for the population, the samples taken and the records kept).
 */
void pmuscope_model_spe_run(struct pmuscope_model_cpu *m,
			    const struct pmuscope_model_work *w)
{
	struct pmuscope_model_spe *s = &m->spe;
	u64 t0 = s->time, i;

	if (!FIELD_GET(PMUSCOPE_DFR0_PMSVER, m->prof->dfr0))
		return;
	s->time += w->ns;
	pmuscope_model_spe_check_start(m);
	if (!pmuscope_model_spe_enabled_at(m, w->el) || !w->insts)
		return;
	/* D24.7.15 PMSIRR_EL1.INTERVAL: "Software must set this to a nonzero value." */
	if (!FIELD_GET(PMUSCOPE_PMSIRR_INTERVAL, s->pmsirr) && !s->interval_flagged) {
		s->interval_flagged = true;
		pmuscope_model_spe_violation(m, PMUSCOPE_REG_PMSIRR_EL1, true, s->pmsirr,
					     "profiling with PMSIRR_EL1.INTERVAL == 0");
	}
	for (i = 0; i < w->insts && pmuscope_model_spe_enabled_at(m, w->el); i++) {
		i += pmuscope_model_spe_skip(m, w->insts - i);
		if (i == w->insts)
			break;
		if (pmuscope_model_spe_step(m))
			pmuscope_model_spe_sample(m, w, i, t0);
	}
	if (i < w->insts)
		s->stopped_ops += w->insts - i;
	pmuscope_model_count_locked(m, PMUSCOPE_MODEL_SPE_EV_SAMPLE_POP, w->el, i);
}

/* ---------------------------------------------------------- test controls */

/*
 * Let the SPU of @cpu write [@va, @va + @size): a test's or the driver's
 * buffer. A reset of the model forgets every buffer.
 */
int pmuscope_model_spe_add_buffer(unsigned int cpu, void *va, size_t size)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags, a = (unsigned long)va;
	int i, ret = -ENOSPC;

	if (!va || !size || a + size < a)
		return -EINVAL;
	raw_spin_lock_irqsave(&m->lock, flags);
	for (i = 0; i < PMUSCOPE_MODEL_SPE_BUFFERS; i++) {
		if (!m->spe.buf[i].size) {
			m->spe.buf[i] = (struct pmuscope_model_spe_buffer){ a, size };
			ret = 0;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&m->lock, flags);
	return ret;
}

/* Take @va back: writes not yet completed to it are dropped. */
int pmuscope_model_spe_remove_buffer(unsigned int cpu, void *va)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;
	int i, ret = -ENOENT;

	raw_spin_lock_irqsave(&m->lock, flags);
	for (i = 0; i < PMUSCOPE_MODEL_SPE_BUFFERS; i++) {
		if (m->spe.buf[i].size && m->spe.buf[i].va == (unsigned long)va) {
			m->spe.buf[i] = (struct pmuscope_model_spe_buffer){ 0, 0 };
			ret = 0;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&m->lock, flags);
	return ret;
}

/* Inject @f at the next record the SPU of @cpu writes (see the enum). */
void pmuscope_model_spe_inject(unsigned int cpu, enum pmuscope_model_spe_fault f)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	m->spe.inject = f < PMUSCOPE_MODEL_SPE_FAULT_NR ? f : PMUSCOPE_MODEL_SPE_FAULT_NONE;
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/* CONTEXTIDR_EL1 as the Context packet of @cpu records it. */
void pmuscope_model_spe_set_contextidr(unsigned int cpu, u32 contextidr)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	m->spe.contextidr = contextidr;
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * The level of PMBIRQ (D17.8, RTSJRP; pseudocode SPECycle()): without
 * FEAT_SPE_EXC the interrupt request is driven from PMBSR_EL1.S.
 */
bool pmuscope_model_spe_irq_line(unsigned int cpu)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned long flags;
	bool line;

	raw_spin_lock_irqsave(&m->lock, flags);
	line = m->prof && FIELD_GET(PMUSCOPE_DFR0_PMSVER, m->prof->dfr0) &&
	       (m->spe.pmbsr & PMUSCOPE_PMBSR_S);
	raw_spin_unlock_irqrestore(&m->lock, flags);
	return line;
}

/*
 * KPTI, as the driver asks the kernel (arm64_kernel_unmapped_at_el0()):
 * off unless a test turns it on, so that the refusal can be tested.
 */
static bool pmuscope_model_spe_kpti;

bool pmuscope_model_spe_unmapped_at_el0(void)
{
	return READ_ONCE(pmuscope_model_spe_kpti);
}

void pmuscope_model_spe_set_kpti(bool on)
{
	WRITE_ONCE(pmuscope_model_spe_kpti, on);
}
