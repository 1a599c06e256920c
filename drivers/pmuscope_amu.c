// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the Activity Monitors (AMU), read-only.
 *
 * Only the highest implemented Exception level configures the AMU (Arm
 * ARM D16.2.2): the counters, their enables and AMCR_EL0 belong to
 * firmware, and this driver only ever reads them (every AMU register is RO
 * in drivers/pmuscope_regs.tbl: a write would be a driver bug the register
 * model reports). Counters are 64-bit and count all the time except in WFI
 * and WFE; they are read on their CPU, by a cross call.
 *
 * What a CPU has is probed when it comes online (pmuscope_amu_probe()):
 * group 0's architected counters (AMCGCR_EL0.CG0NC), group 1's auxiliary
 * ones (CG1NC; on AMUv1p1 only those AMCG1IDR_EL0.CNTEN shows, reading a
 * hole being UNDEFINED), their event types, AMCR_EL0.CG1RZ (group 1 reads
 * zero at this EL: not read, reported), and whether the kernel applies its
 * workaround for a constant counter that does not count at its rate.
 *
 * Counts lost are caught two ways: a counter lower than at the last read
 * of this CPU (a reset in between), and a counter lower after a cpu_pm
 * exit than before the matching enter (firmware that did not save and
 * restore the counters across the power-down, as amu.rst asks it to): the
 * next read of that CPU is flagged PMUSCOPE_AMU_F_LOST.
 */

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/irqflags.h>
#include <linux/string.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"
#include "pmuscope_regs.h"

static_assert(PMUSCOPE_NR_AMEVCNTR0 == PMUSCOPE_AMU_GROUP_MAX);
static_assert(PMUSCOPE_NR_AMEVCNTR1 == PMUSCOPE_AMU_GROUP_MAX);

/* Group-1 counters this CPU implements (AMUv1: all below CG1NC). */
static u16 pmuscope_amu_impl1(const struct pmuscope_cpu_caps *caps)
{
	const struct pmuscope_id_regs *regs = &caps->regs;
	unsigned int nr1 = FIELD_GET(PMUSCOPE_AMCGCR_CG1NC, regs->amcgcr);
	u16 mask;

	if (!FIELD_GET(PMUSCOPE_AMCFGR_NCG, regs->amcfgr) || !nr1)
		return 0;
	mask = GENMASK(min(nr1, PMUSCOPE_NR_AMEVCNTR1) - 1, 0);
	if (caps->amuver >= PMUSCOPE_AMU_V1P1)
		mask &= FIELD_GET(PMUSCOPE_AMCG1IDR_CNTEN, regs->amcg1idr);
	return mask;
}

/*
 * Every counter this CPU implements and lets this EL read, into @g0/@g1
 * (0 elsewhere). On the CPU, IRQs off.
 */
static void pmuscope_amu_sample(const struct pmuscope_amu_info *info, u64 *g0, u64 *g1)
{
	unsigned int n;

	for (n = 0; n < info->nr0; n++)
		g0[n] = pmuscope_hw_read(PMUSCOPE_REG_AMEVCNTR0(n));
	if (info->aux_zero)
		return;
	for (n = 0; n < PMUSCOPE_NR_AMEVCNTR1; n++)
		if (info->impl1 & BIT(n))
			g1[n] = pmuscope_hw_read(PMUSCOPE_REG_AMEVCNTR1(n));
}

/* Is any counter of @now below its value in @then? */
static bool pmuscope_amu_went_back(const struct pmuscope_amu_info *info,
				   const u64 *now0, const u64 *now1,
				   const u64 *then0, const u64 *then1)
{
	unsigned int n;

	for (n = 0; n < info->nr0; n++)
		if (now0[n] < then0[n])
			return true;
	for (n = 0; n < PMUSCOPE_NR_AMEVCNTR1; n++)
		if ((info->impl1 & BIT(n)) && now1[n] < then1[n])
			return true;
	return false;
}

/*
 * CPU coming online: what its AMU has, into @info (the caller publishes it
 * under the driver's lock), and a first sample in @amu. A counter below the
 * last sample taken before the CPU went down was reset meanwhile: lost.
 * On the CPU; @caps its probe.
 */
/*
 * Is @midr a core whose constant-rate counter (AMEVCNTR01) does not count
 * at the system counter's rate? Cortex-A510 r0p0-r1p1 (erratum 2457168)
 * and Cortex-A725 r0p0-r0p2 (erratum 3821522), the ranges of the kernel's
 * workaround_amu_constcnt_list (arch/arm64/kernel/cpu_errata.c). Checked
 * from MIDR_EL1 whatever the kernel was configured with: its capability
 * exists only with CONFIG_ARM64_ERRATUM_2457168 or _3821522.
 */
bool pmuscope_amu_const_erratum(u64 midr)
{
	static const struct {
		u16 part;
		u8 last_variant, last_revision;
	} errata[] = {
		{ 0xd46, 1, 1 },	/* Cortex-A510 r0p0-r1p1: 2457168 */
		{ 0xd87, 0, 2 },	/* Cortex-A725 r0p0-r0p2: 3821522 */
	};
	unsigned int v = FIELD_GET(PMUSCOPE_MIDR_VARIANT, midr);
	unsigned int r = FIELD_GET(PMUSCOPE_MIDR_REVISION, midr);
	unsigned int i;

	if (FIELD_GET(PMUSCOPE_MIDR_IMPLEMENTER, midr) != 0x41)	/* Arm */
		return false;
	for (i = 0; i < ARRAY_SIZE(errata); i++)
		if (FIELD_GET(PMUSCOPE_MIDR_PARTNUM, midr) == errata[i].part)
			return v < errata[i].last_variant ||
			       (v == errata[i].last_variant && r <= errata[i].last_revision);
	return false;
}

void pmuscope_amu_probe(struct pmuscope_amu *amu, struct pmuscope_amu_info *info,
			const struct pmuscope_cpu_caps *caps)
{
	u64 g0[PMUSCOPE_NR_AMEVCNTR0] = { }, g1[PMUSCOPE_NR_AMEVCNTR1] = { };
	unsigned long flags;
	unsigned int n;

	memset(info, 0, sizeof(*info));
	info->version = caps->amuver;
	if (caps->state[PMUSCOPE_UNIT_AMU] != PMUSCOPE_STATE_PRESENT)
		return;
	info->usable = true;
	info->nr0 = min_t(unsigned int, FIELD_GET(PMUSCOPE_AMCGCR_CG0NC, caps->regs.amcgcr),
			  PMUSCOPE_NR_AMEVCNTR0);
	info->nr1 = FIELD_GET(PMUSCOPE_AMCGCR_CG1NC, caps->regs.amcgcr);
	info->impl1 = pmuscope_amu_impl1(caps);
	info->const_broken = pmuscope_hw_amu_const_broken() ||
			     pmuscope_amu_const_erratum(caps->regs.midr);

	local_irq_save(flags);
	info->aux_zero = info->impl1 &&
			 (pmuscope_hw_read(PMUSCOPE_REG_AMCR_EL0) & PMUSCOPE_AMCR_CG1RZ);
	for (n = 0; n < info->nr0; n++)
		info->type0[n] = FIELD_GET(PMUSCOPE_AMEVTYPER_EVTCOUNT,
					   pmuscope_hw_read(PMUSCOPE_REG_AMEVTYPER0(n)));
	for (n = 0; n < PMUSCOPE_NR_AMEVCNTR1; n++)
		if (info->impl1 & BIT(n))
			info->type1[n] = FIELD_GET(PMUSCOPE_AMEVTYPER_EVTCOUNT,
						   pmuscope_hw_read(PMUSCOPE_REG_AMEVTYPER1(n)));
	pmuscope_amu_sample(info, g0, g1);
	if (amu->sampled &&
	    pmuscope_amu_went_back(info, g0, g1, amu->last0, amu->last1))
		amu->lost = true;
	memcpy(amu->last0, g0, sizeof(g0));
	memcpy(amu->last1, g1, sizeof(g1));
	amu->sampled = true;
	local_irq_restore(flags);
}

/* cpu_pm: before the CPU may lose its state. On the CPU, IRQs off. */
void pmuscope_amu_pm_enter(struct pmuscope_amu *amu, const struct pmuscope_amu_info *info)
{
	if (!info->usable)
		return;
	memset(amu->pm0, 0, sizeof(amu->pm0));
	memset(amu->pm1, 0, sizeof(amu->pm1));
	pmuscope_amu_sample(info, amu->pm0, amu->pm1);
	amu->pm_saved = true;
}

/*
 * cpu_pm: back (or the power-down failed). A counter below its value at
 * the enter was not restored by firmware: the counts are lost. On the
 * CPU, IRQs off.
 */
void pmuscope_amu_pm_exit(struct pmuscope_amu *amu, const struct pmuscope_amu_info *info)
{
	u64 g0[PMUSCOPE_NR_AMEVCNTR0] = { }, g1[PMUSCOPE_NR_AMEVCNTR1] = { };

	if (!info->usable || !amu->pm_saved)
		return;
	amu->pm_saved = false;
	pmuscope_amu_sample(info, g0, g1);
	if (pmuscope_amu_went_back(info, g0, g1, amu->pm0, amu->pm1))
		amu->lost = true;
}

/*
 * One CPU's record: every counter it implements and lets this EL read,
 * the enables as they are now, and the system counter. LOST when counts
 * went missing since the last record of this CPU (then cleared). On the
 * CPU, IRQs off; @info usable.
 */
void pmuscope_amu_read_local(struct pmuscope_amu *amu, const struct pmuscope_amu_info *info,
			     struct pmuscope_amu_cpu *rec)
{
	u64 g0[PMUSCOPE_NR_AMEVCNTR0] = { }, g1[PMUSCOPE_NR_AMEVCNTR1] = { };

	rec->state = PMUSCOPE_AMU_READ_OK;
	rec->version = info->version;
	rec->nr_group0 = info->nr0;
	rec->nr_group1 = info->nr1;
	rec->implemented1 = info->impl1;
	memcpy(rec->type0, info->type0, sizeof(rec->type0));
	memcpy(rec->type1, info->type1, sizeof(rec->type1));
	rec->enabled0 = pmuscope_hw_read(PMUSCOPE_REG_AMCNTENSET0_EL0) &
			GENMASK(PMUSCOPE_NR_AMEVCNTR0 - 1, 0);
	if (info->impl1)
		rec->enabled1 = pmuscope_hw_read(PMUSCOPE_REG_AMCNTENSET1_EL0) & info->impl1;
	pmuscope_amu_sample(info, g0, g1);
	rec->time = pmuscope_hw_syscnt();
	if (amu->sampled && pmuscope_amu_went_back(info, g0, g1, amu->last0, amu->last1))
		amu->lost = true;
	memcpy(amu->last0, g0, sizeof(g0));
	memcpy(amu->last1, g1, sizeof(g1));
	amu->sampled = true;
	memcpy(rec->group0, g0, sizeof(g0));
	memcpy(rec->group1, g1, sizeof(g1));
	rec->flags = (amu->lost ? PMUSCOPE_AMU_F_LOST : 0) |
		     (info->const_broken ? PMUSCOPE_AMU_F_CONST_BROKEN : 0) |
		     (info->aux_zero ? PMUSCOPE_AMU_F_AUX_ZERO : 0);
	amu->lost = false;
}

/* One counter, for sysfs: group @g (0, 1), counter @n. On the CPU. */
u64 pmuscope_amu_read_counter(unsigned int g, unsigned int n)
{
	return pmuscope_hw_read(g ? PMUSCOPE_REG_AMEVCNTR1(n) : PMUSCOPE_REG_AMEVCNTR0(n));
}
