/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope: system register encodings and register fields.
 *
 * Encodings are given here with sys_reg() even where the kernel's headers
 * have them, so that the driver builds unchanged against 6.1 and 6.12 and
 * so that registers 6.12 lacks (FEAT_PMUv3_SS) sit beside the others.
 * Fields are GENMASK() masks, used only through FIELD_GET()/FIELD_PREP().
 */
#ifndef __PMUSCOPE_REGS_H
#define __PMUSCOPE_REGS_H

#include <linux/bits.h>
#include <asm/sysreg.h>

/* -------------------------------------------------------------- ID registers */
#define PMUSCOPE_SYS_MIDR_EL1			sys_reg(3, 0, 0, 0, 0)
#define PMUSCOPE_SYS_ID_AA64PFR0_EL1		sys_reg(3, 0, 0, 4, 0)
#define PMUSCOPE_SYS_ID_AA64DFR0_EL1		sys_reg(3, 0, 0, 5, 0)
#define PMUSCOPE_SYS_ID_AA64DFR1_EL1		sys_reg(3, 0, 0, 5, 1)

#define PMUSCOPE_MIDR_REVISION			GENMASK_ULL(3, 0)
#define PMUSCOPE_MIDR_PARTNUM			GENMASK_ULL(15, 4)
#define PMUSCOPE_MIDR_ARCH			GENMASK_ULL(19, 16)
#define PMUSCOPE_MIDR_VARIANT			GENMASK_ULL(23, 20)
#define PMUSCOPE_MIDR_IMPLEMENTER		GENMASK_ULL(31, 24)

#define PMUSCOPE_DFR0_PMUVER			GENMASK_ULL(11, 8)
#define PMUSCOPE_DFR0_PMSS			GENMASK_ULL(19, 16)
#define PMUSCOPE_DFR0_PMSVER			GENMASK_ULL(35, 32)
#define PMUSCOPE_DFR1_PMICNTR			GENMASK_ULL(39, 36)
#define PMUSCOPE_PFR0_AMU			GENMASK_ULL(47, 44)

/* ID_AA64DFR0_EL1.PMUVer values (Arm ARM D23.2.59). */
#define PMUSCOPE_PMUVER_NI			0x0
#define PMUSCOPE_PMUVER_V3			0x1
#define PMUSCOPE_PMUVER_V3P1			0x4
#define PMUSCOPE_PMUVER_V3P4			0x5
#define PMUSCOPE_PMUVER_V3P5			0x6
#define PMUSCOPE_PMUVER_V3P7			0x7
#define PMUSCOPE_PMUVER_V3P8			0x8
#define PMUSCOPE_PMUVER_V3P9			0x9
#define PMUSCOPE_PMUVER_IMP_DEF			0xf

/* ------------------------------------------------------------------- PMUv3 */
#define PMUSCOPE_SYS_PMCR_EL0			sys_reg(3, 3, 9, 12, 0)
#define PMUSCOPE_SYS_PMCNTENSET_EL0		sys_reg(3, 3, 9, 12, 1)
#define PMUSCOPE_SYS_PMCNTENCLR_EL0		sys_reg(3, 3, 9, 12, 2)
#define PMUSCOPE_SYS_PMOVSCLR_EL0		sys_reg(3, 3, 9, 12, 3)
#define PMUSCOPE_SYS_PMSWINC_EL0		sys_reg(3, 3, 9, 12, 4)
#define PMUSCOPE_SYS_PMSELR_EL0			sys_reg(3, 3, 9, 12, 5)
#define PMUSCOPE_SYS_PMCEID0_EL0		sys_reg(3, 3, 9, 12, 6)
#define PMUSCOPE_SYS_PMCEID1_EL0		sys_reg(3, 3, 9, 12, 7)
#define PMUSCOPE_SYS_PMCCNTR_EL0		sys_reg(3, 3, 9, 13, 0)
#define PMUSCOPE_SYS_PMUSERENR_EL0		sys_reg(3, 3, 9, 14, 0)
#define PMUSCOPE_SYS_PMOVSSET_EL0		sys_reg(3, 3, 9, 14, 3)
#define PMUSCOPE_SYS_PMINTENSET_EL1		sys_reg(3, 0, 9, 14, 1)
#define PMUSCOPE_SYS_PMINTENCLR_EL1		sys_reg(3, 0, 9, 14, 2)
#define PMUSCOPE_SYS_PMCCFILTR_EL0		sys_reg(3, 3, 14, 15, 7)
/*
 * Indexed registers: CRm = base | n[4:3], op2 = n[2:0]. As CRm sits just
 * above op2 in the encoding, that is n shifted into the op2 position.
 */
#define PMUSCOPE_SYS_OP2_SHIFT			5
#define PMUSCOPE_SYS_N(base, n)			((base) | ((n) << PMUSCOPE_SYS_OP2_SHIFT))
#define PMUSCOPE_SYS_PMEVCNTR_EL0(n)		PMUSCOPE_SYS_N(sys_reg(3, 3, 14, 8, 0), n)
#define PMUSCOPE_SYS_PMEVTYPER_EL0(n)		PMUSCOPE_SYS_N(sys_reg(3, 3, 14, 12, 0), n)

#define PMUSCOPE_PMCR_E				BIT_ULL(0)
#define PMUSCOPE_PMCR_P				BIT_ULL(1)
#define PMUSCOPE_PMCR_C				BIT_ULL(2)
#define PMUSCOPE_PMCR_D				BIT_ULL(3)
#define PMUSCOPE_PMCR_X				BIT_ULL(4)
#define PMUSCOPE_PMCR_DP			BIT_ULL(5)
#define PMUSCOPE_PMCR_LC			BIT_ULL(6)
#define PMUSCOPE_PMCR_LP			BIT_ULL(7)
#define PMUSCOPE_PMCR_N				GENMASK_ULL(15, 11)
#define PMUSCOPE_PMCR_IDCODE			GENMASK_ULL(23, 16)
#define PMUSCOPE_PMCR_IMP			GENMASK_ULL(31, 24)

/* PMCNTEN{SET,CLR}, PMOVS{SET,CLR}, PMINTEN{SET,CLR}, PMSWINC bit layout. */
#define PMUSCOPE_CNT_EVENT_MASK			GENMASK_ULL(30, 0)
#define PMUSCOPE_CNT_CYCLE			BIT_ULL(31)

/* Index of the cycle counter in the driver's counter numbering. */
#define PMUSCOPE_CYCLE_IDX			31
#define PMUSCOPE_MAX_EVENT_COUNTERS		31

#define PMUSCOPE_PMCEID_LOW			GENMASK_ULL(31, 0)
#define PMUSCOPE_PMCEID_HIGH			GENMASK_ULL(63, 32)

/* PMEVTYPER<n>_EL0 / PMCCFILTR_EL0. */
#define PMUSCOPE_EVTYPER_EVTCOUNT_V3		GENMASK_ULL(9, 0)
#define PMUSCOPE_EVTYPER_EVTCOUNT		GENMASK_ULL(15, 0)
#define PMUSCOPE_EVTYPER_SH			BIT_ULL(24)
#define PMUSCOPE_EVTYPER_MT			BIT_ULL(25)
#define PMUSCOPE_EVTYPER_M			BIT_ULL(26)
#define PMUSCOPE_EVTYPER_NSH			BIT_ULL(27)
#define PMUSCOPE_EVTYPER_NSU			BIT_ULL(28)
#define PMUSCOPE_EVTYPER_NSK			BIT_ULL(29)
#define PMUSCOPE_EVTYPER_U			BIT_ULL(30)
#define PMUSCOPE_EVTYPER_P			BIT_ULL(31)

#define PMUSCOPE_USERENR_EN			BIT_ULL(0)
#define PMUSCOPE_USERENR_SW			BIT_ULL(1)
#define PMUSCOPE_USERENR_CR			BIT_ULL(2)
#define PMUSCOPE_USERENR_ER			BIT_ULL(3)

/* ---------------------------------------- PMU snapshot (FEAT_PMUv3_SS) */
#define PMUSCOPE_SYS_PMSSCR_EL1			sys_reg(3, 0, 9, 13, 3)
#define PMUSCOPE_SYS_PMCCNTSVR_EL1		sys_reg(2, 0, 14, 11, 7)
#define PMUSCOPE_SYS_PMICNTSVR_EL1		sys_reg(2, 0, 14, 12, 0)
#define PMUSCOPE_SYS_PMEVCNTSVR_EL1(n)		PMUSCOPE_SYS_N(sys_reg(2, 0, 14, 8, 0), n)

#define PMUSCOPE_PMSSCR_SS			BIT_ULL(0)
#define PMUSCOPE_PMSSCR_NC			BIT_ULL(32)

/* --------------------------------------------------------------------- SPE */
#define PMUSCOPE_SYS_PMSIDR_EL1			sys_reg(3, 0, 9, 9, 7)
#define PMUSCOPE_SYS_PMBIDR_EL1			sys_reg(3, 0, 9, 10, 7)

#define PMUSCOPE_PMSIDR_INTERVAL		GENMASK_ULL(11, 8)
#define PMUSCOPE_PMSIDR_MAXSIZE			GENMASK_ULL(15, 12)
#define PMUSCOPE_PMSIDR_COUNTSIZE		GENMASK_ULL(19, 16)
#define PMUSCOPE_PMSIDR_FORMAT			GENMASK_ULL(23, 20)
#define PMUSCOPE_PMBIDR_ALIGN			GENMASK_ULL(3, 0)
#define PMUSCOPE_PMBIDR_P			BIT_ULL(4)
#define PMUSCOPE_PMBIDR_F			BIT_ULL(5)

/* --------------------------------------------------------------------- AMU */
#define PMUSCOPE_SYS_AM_EL0(crm, op2)		sys_reg(3, 3, 13, (crm), (op2))
#define PMUSCOPE_SYS_AMCR_EL0			PMUSCOPE_SYS_AM_EL0(2, 0)
#define PMUSCOPE_SYS_AMCFGR_EL0			PMUSCOPE_SYS_AM_EL0(2, 1)
#define PMUSCOPE_SYS_AMCGCR_EL0			PMUSCOPE_SYS_AM_EL0(2, 2)

#define PMUSCOPE_AMCFGR_N			GENMASK_ULL(7, 0)
#define PMUSCOPE_AMCFGR_SIZE			GENMASK_ULL(13, 8)
#define PMUSCOPE_AMCFGR_NCG			GENMASK_ULL(31, 28)
#define PMUSCOPE_AMCGCR_CG0NC			GENMASK_ULL(7, 0)
#define PMUSCOPE_AMCGCR_CG1NC			GENMASK_ULL(15, 8)

/* The index arithmetic above, checked against the Arm ARM encodings. */
static_assert(PMUSCOPE_SYS_PMEVCNTR_EL0(0) == sys_reg(3, 3, 14, 8, 0));
static_assert(PMUSCOPE_SYS_PMEVCNTR_EL0(13) == sys_reg(3, 3, 14, 9, 5));
static_assert(PMUSCOPE_SYS_PMEVCNTR_EL0(30) == sys_reg(3, 3, 14, 11, 6));
static_assert(PMUSCOPE_SYS_PMEVTYPER_EL0(30) == sys_reg(3, 3, 14, 15, 6));
static_assert(PMUSCOPE_SYS_PMEVCNTSVR_EL1(30) == sys_reg(2, 0, 14, 11, 6));

#endif /* __PMUSCOPE_REGS_H */
