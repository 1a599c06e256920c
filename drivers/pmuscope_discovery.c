// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: per-CPU discovery of the PMUv3, snapshot, SPE and AMU units.
 *
 * pmuscope_probe_local() runs on the CPU being probed and reads, through
 * the hardware seam, only the registers of the units that CPU's ID
 * registers advertise and the module parameters allow. Everything else is
 * pure decoding of raw register values, tested table by table in KUnit.
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/kernel.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"

/* ------------------------------------------------------------------- names */
static const char * const pmuscope_state_names[] = {
	[PMUSCOPE_STATE_ABSENT]		= "absent",
	[PMUSCOPE_STATE_PRESENT]	= "present",
	[PMUSCOPE_STATE_DISABLED]	= "disabled",
	[PMUSCOPE_STATE_UNAVAILABLE]	= "unavailable",
};

const char *pmuscope_state_name(enum pmuscope_unit_state state)
{
	if (state >= ARRAY_SIZE(pmuscope_state_names))
		return "invalid";
	return pmuscope_state_names[state];
}

const char *pmuscope_pmuver_name(u8 pmuver)
{
	switch (pmuver) {
	case PMUSCOPE_PMUVER_NI:	return "none";
	case PMUSCOPE_PMUVER_V3:	return "PMUv3";
	case PMUSCOPE_PMUVER_V3P1:	return "PMUv3p1";
	case PMUSCOPE_PMUVER_V3P4:	return "PMUv3p4";
	case PMUSCOPE_PMUVER_V3P5:	return "PMUv3p5";
	case PMUSCOPE_PMUVER_V3P7:	return "PMUv3p7";
	case PMUSCOPE_PMUVER_V3P8:	return "PMUv3p8";
	case PMUSCOPE_PMUVER_V3P9:	return "PMUv3p9";
	case PMUSCOPE_PMUVER_IMP_DEF:	return "IMPLEMENTATION DEFINED";
	default:			return "PMUv3 (unknown revision)";
	}
}

struct pmuscope_midr_name {
	u8 implementer;
	u16 part;
	const char *name;
};

static const struct pmuscope_midr_name pmuscope_midr_names[] = {
	{ 0x41, 0xd03, "cortex-a53" },
	{ 0x41, 0xd04, "cortex-a35" },
	{ 0x41, 0xd05, "cortex-a55" },
	{ 0x41, 0xd07, "cortex-a57" },
	{ 0x41, 0xd08, "cortex-a72" },
	{ 0x41, 0xd09, "cortex-a73" },
	{ 0x41, 0xd0a, "cortex-a75" },
	{ 0x41, 0xd0b, "cortex-a76" },
	{ 0x41, 0xd0c, "neoverse-n1" },
	{ 0x41, 0xd0d, "cortex-a77" },
	{ 0x41, 0xd40, "neoverse-v1" },
	{ 0x41, 0xd41, "cortex-a78" },
	{ 0x41, 0xd44, "cortex-x1" },
	{ 0x41, 0xd46, "cortex-a510" },
	{ 0x41, 0xd47, "cortex-a710" },
	{ 0x41, 0xd48, "cortex-x2" },
	{ 0x41, 0xd49, "neoverse-n2" },
	{ 0x41, 0xd4f, "neoverse-v2" },
	{ 0x41, 0xd80, "cortex-a520" },
	{ 0x41, 0xd81, "cortex-a720" },
	{ 0x41, 0xd82, "cortex-x4" },
	{ 0x41, 0xd84, "neoverse-v3" },
	{ 0x41, 0xd8e, "neoverse-n3" },
	{ 0x00, 0x051, "qemu-max" },
};

const char *pmuscope_cpu_name(u64 midr)
{
	u8 impl = FIELD_GET(PMUSCOPE_MIDR_IMPLEMENTER, midr);
	u16 part = FIELD_GET(PMUSCOPE_MIDR_PARTNUM, midr);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pmuscope_midr_names); i++)
		if (pmuscope_midr_names[i].implementer == impl &&
		    pmuscope_midr_names[i].part == part)
			return pmuscope_midr_names[i].name;
	return "unknown";
}

/* ---------------------------------------------------------------- decoding */
static bool pmuscope_pmuver_usable(u8 pmuver)
{
	return pmuver != PMUSCOPE_PMUVER_NI && pmuver != PMUSCOPE_PMUVER_IMP_DEF;
}

static enum pmuscope_unit_state pmuscope_gate(bool implemented,
					      unsigned long allowed,
					      enum pmuscope_unit unit)
{
	if (!implemented)
		return PMUSCOPE_STATE_ABSENT;
	if (!(allowed & BIT(unit)))
		return PMUSCOPE_STATE_DISABLED;
	return PMUSCOPE_STATE_PRESENT;
}

/*
 * First stage: which units this CPU implements and the driver may use,
 * from the ID registers alone. Decides which other registers are read.
 */
void pmuscope_caps_units(const struct pmuscope_id_regs *regs,
			 unsigned long allowed, struct pmuscope_cpu_caps *caps)
{
	bool pmu;

	caps->pmuver = FIELD_GET(PMUSCOPE_DFR0_PMUVER, regs->dfr0);
	caps->pmss = FIELD_GET(PMUSCOPE_DFR0_PMSS, regs->dfr0);
	caps->pmsver = FIELD_GET(PMUSCOPE_DFR0_PMSVER, regs->dfr0);
	caps->amuver = FIELD_GET(PMUSCOPE_PFR0_AMU, regs->pfr0);

	pmu = pmuscope_pmuver_usable(caps->pmuver);
	caps->state[PMUSCOPE_UNIT_PMU] =
		pmuscope_gate(pmu, allowed, PMUSCOPE_UNIT_PMU);
	/* Snapshots copy PMU counters: no PMU in use, no snapshot either. */
	caps->state[PMUSCOPE_UNIT_SNAPSHOT] =
		pmuscope_gate(pmu && caps->pmss, allowed, PMUSCOPE_UNIT_SNAPSHOT);
	if (caps->state[PMUSCOPE_UNIT_SNAPSHOT] == PMUSCOPE_STATE_PRESENT &&
	    caps->state[PMUSCOPE_UNIT_PMU] != PMUSCOPE_STATE_PRESENT)
		caps->state[PMUSCOPE_UNIT_SNAPSHOT] = PMUSCOPE_STATE_DISABLED;
	caps->state[PMUSCOPE_UNIT_SPE] =
		pmuscope_gate(caps->pmsver, allowed, PMUSCOPE_UNIT_SPE);
	caps->state[PMUSCOPE_UNIT_AMU] =
		pmuscope_gate(caps->amuver, allowed, PMUSCOPE_UNIT_AMU);
}

/* Second stage: everything, once the unit registers have been read. */
void pmuscope_caps_decode(const struct pmuscope_id_regs *regs,
			  unsigned long allowed, struct pmuscope_cpu_caps *caps)
{
	u64 lo, hi;

	memset(caps, 0, sizeof(*caps));
	caps->regs = *regs;
	pmuscope_caps_units(regs, allowed, caps);

	if (caps->state[PMUSCOPE_UNIT_PMU] == PMUSCOPE_STATE_PRESENT) {
		caps->num_counters = FIELD_GET(PMUSCOPE_PMCR_N, regs->pmcr);
		caps->evcnt_width = caps->pmuver >= PMUSCOPE_PMUVER_V3P5 ? 64 : 32;
		caps->ccnt_width = 64;
		lo = FIELD_GET(PMUSCOPE_PMCEID_LOW, regs->pmceid0) |
		     FIELD_GET(PMUSCOPE_PMCEID_LOW, regs->pmceid1) << 32;
		hi = FIELD_GET(PMUSCOPE_PMCEID_HIGH, regs->pmceid0) |
		     FIELD_GET(PMUSCOPE_PMCEID_HIGH, regs->pmceid1) << 32;
		bitmap_from_u64(caps->events, lo);
		bitmap_from_u64(caps->events + BITS_TO_LONGS(64), hi);
	}

	if (caps->state[PMUSCOPE_UNIT_SPE] == PMUSCOPE_STATE_PRESENT &&
	    (regs->pmbidr & PMUSCOPE_PMBIDR_P))
		caps->state[PMUSCOPE_UNIT_SPE] = PMUSCOPE_STATE_UNAVAILABLE;

	if (caps->state[PMUSCOPE_UNIT_AMU] == PMUSCOPE_STATE_PRESENT) {
		unsigned int cg1 = FIELD_GET(PMUSCOPE_AMCGCR_CG1NC, regs->amcgcr);

		caps->amu_counters = FIELD_GET(PMUSCOPE_AMCGCR_CG0NC, regs->amcgcr);
		/*
		 * AMUv1p1: group 1 may have holes, which AMCG1IDR_EL0.CNTEN
		 * shows (a missing counter is UNDEFINED to read).
		 */
		if (cg1 && caps->amuver >= PMUSCOPE_AMU_V1P1)
			cg1 = hweight16(FIELD_GET(PMUSCOPE_AMCG1IDR_CNTEN, regs->amcg1idr) &
					GENMASK(cg1 - 1, 0));
		if (FIELD_GET(PMUSCOPE_AMCFGR_NCG, regs->amcfgr))
			caps->amu_counters += cg1;
	}
}

bool pmuscope_caps_has_event(const struct pmuscope_cpu_caps *caps, u32 number)
{
	int slot = pmuscope_event_slot(number);

	return slot >= 0 && test_bit(slot, caps->events);
}

/* ------------------------------------------------------------------- probe */

/*
 * Read this CPU's identification and unit registers. Must run on the CPU
 * being probed (cpuhp callback or IPI). A register is read only when the ID
 * registers say its unit exists and @allowed lets the driver use it:
 * touching an unimplemented system register is UNDEFINED.
 */
void pmuscope_probe_local(unsigned long allowed, struct pmuscope_cpu_caps *caps)
{
	struct pmuscope_id_regs regs = { };

	regs.midr = pmuscope_hw_read(PMUSCOPE_REG_MIDR_EL1);
	regs.dfr0 = pmuscope_hw_read(PMUSCOPE_REG_ID_AA64DFR0_EL1);
	regs.dfr1 = pmuscope_hw_read(PMUSCOPE_REG_ID_AA64DFR1_EL1);
	regs.pfr0 = pmuscope_hw_read(PMUSCOPE_REG_ID_AA64PFR0_EL1);
	pmuscope_caps_units(&regs, allowed, caps);

	if (caps->state[PMUSCOPE_UNIT_PMU] == PMUSCOPE_STATE_PRESENT) {
		regs.pmcr = pmuscope_hw_read(PMUSCOPE_REG_PMCR_EL0);
		regs.pmceid0 = pmuscope_hw_read(PMUSCOPE_REG_PMCEID0_EL0);
		regs.pmceid1 = pmuscope_hw_read(PMUSCOPE_REG_PMCEID1_EL0);
	}
	/*
	 * PMBIDR_EL1 first, and nothing else of SPE when its P bit says the
	 * buffer belongs to a higher Exception level or another Security
	 * state: firmware that keeps SPE (MDCR_EL3.NSPB) traps every other
	 * PMS* and PMB* access to EL3, which TF-A treats as fatal. This is
	 * arm_spe_pmu's order (__arm_spe_pmu_dev_probe()).
	 */
	if (caps->state[PMUSCOPE_UNIT_SPE] == PMUSCOPE_STATE_PRESENT) {
		regs.pmbidr = pmuscope_hw_read(PMUSCOPE_REG_PMBIDR_EL1);
		if (!(regs.pmbidr & PMUSCOPE_PMBIDR_P))
			regs.pmsidr = pmuscope_hw_read(PMUSCOPE_REG_PMSIDR_EL1);
	}
	if (caps->state[PMUSCOPE_UNIT_AMU] == PMUSCOPE_STATE_PRESENT) {
		regs.amcfgr = pmuscope_hw_read(PMUSCOPE_REG_AMCFGR_EL0);
		regs.amcgcr = pmuscope_hw_read(PMUSCOPE_REG_AMCGCR_EL0);
		if (caps->amuver >= PMUSCOPE_AMU_V1P1)
			regs.amcg1idr = pmuscope_hw_read(PMUSCOPE_REG_AMCG1IDR_EL0);
	}
	/* Snapshot registers need MDCR_EL3.EnPMSS: nothing is read here. */

	pmuscope_caps_decode(&regs, allowed, caps);
}
