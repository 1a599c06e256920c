/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope: the hardware seam.
 *
 * Every access of the driver to a system register goes through
 * pmuscope_hw_read(), pmuscope_hw_write() and pmuscope_hw_isb() below, named
 * by an enum pmuscope_reg. The production build turns each call into one
 * MRS/MSR (the switch folds away when the register is a constant). The test
 * build (PMUSCOPE_HW_MODEL defined by Kbuild for pmuscope_kunit.ko) routes
 * the same calls into the register model of tests/kunit/, which implements
 * the architecture's rules for a chosen CPU profile and records any access
 * to a register that profile does not implement.
 *
 * Callers must run on the CPU whose registers they touch, with preemption
 * disabled or from a thread bound to that CPU.
 */
#ifndef __PMUSCOPE_HW_H
#define __PMUSCOPE_HW_H

#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/sysreg.h>

#include "pmuscope_regs.h"

enum pmuscope_reg {
	PMUSCOPE_REG_MIDR_EL1,
	PMUSCOPE_REG_ID_AA64PFR0_EL1,
	PMUSCOPE_REG_ID_AA64DFR0_EL1,
	PMUSCOPE_REG_ID_AA64DFR1_EL1,
	PMUSCOPE_REG_PMCR_EL0,
	PMUSCOPE_REG_PMCNTENSET_EL0,
	PMUSCOPE_REG_PMCNTENCLR_EL0,
	PMUSCOPE_REG_PMOVSCLR_EL0,
	PMUSCOPE_REG_PMOVSSET_EL0,
	PMUSCOPE_REG_PMINTENSET_EL1,
	PMUSCOPE_REG_PMINTENCLR_EL1,
	PMUSCOPE_REG_PMSWINC_EL0,
	PMUSCOPE_REG_PMSELR_EL0,
	PMUSCOPE_REG_PMCEID0_EL0,
	PMUSCOPE_REG_PMCEID1_EL0,
	PMUSCOPE_REG_PMCCNTR_EL0,
	PMUSCOPE_REG_PMCCFILTR_EL0,
	PMUSCOPE_REG_PMUSERENR_EL0,
	PMUSCOPE_REG_PMEVCNTR0_EL0,
	PMUSCOPE_REG_PMEVTYPER0_EL0 = PMUSCOPE_REG_PMEVCNTR0_EL0 + PMUSCOPE_MAX_EVENT_COUNTERS,
	PMUSCOPE_REG_PMSSCR_EL1 = PMUSCOPE_REG_PMEVTYPER0_EL0 + PMUSCOPE_MAX_EVENT_COUNTERS,
	PMUSCOPE_REG_PMCCNTSVR_EL1,
	PMUSCOPE_REG_PMEVCNTSVR0_EL1,
	PMUSCOPE_REG_PMSIDR_EL1 = PMUSCOPE_REG_PMEVCNTSVR0_EL1 + PMUSCOPE_MAX_EVENT_COUNTERS,
	PMUSCOPE_REG_PMBIDR_EL1,
	PMUSCOPE_REG_AMCR_EL0,
	PMUSCOPE_REG_AMCFGR_EL0,
	PMUSCOPE_REG_AMCGCR_EL0,
	PMUSCOPE_REG_NR
};

#define PMUSCOPE_REG_PMEVCNTR(n)	(PMUSCOPE_REG_PMEVCNTR0_EL0 + (n))
#define PMUSCOPE_REG_PMEVTYPER(n)	(PMUSCOPE_REG_PMEVTYPER0_EL0 + (n))
#define PMUSCOPE_REG_PMEVCNTSVR(n)	(PMUSCOPE_REG_PMEVCNTSVR0_EL1 + (n))

/* The register model's entry points (tests/kunit/pmuscope_model.c). */
u64 pmuscope_model_read(enum pmuscope_reg reg);
void pmuscope_model_write(enum pmuscope_reg reg, u64 val);
void pmuscope_model_isb(void);

#ifdef PMUSCOPE_HW_MODEL

static inline u64 pmuscope_hw_read(enum pmuscope_reg reg)
{
	return pmuscope_model_read(reg);
}

static inline void pmuscope_hw_write(enum pmuscope_reg reg, u64 val)
{
	pmuscope_model_write(reg, val);
}

static inline void pmuscope_hw_isb(void)
{
	pmuscope_model_isb();
}

#else /* !PMUSCOPE_HW_MODEL */

/*
 * MRS/MSR take the register encoding as an immediate, so a register chosen
 * at run time (counter n) needs one case per encoding; they are written out
 * in full. The switches fold to a single instruction when @reg is a
 * compile-time constant.
 */
static __always_inline u64 pmuscope_hw_read(enum pmuscope_reg reg)
{
	switch ((unsigned int)reg) {
	case PMUSCOPE_REG_MIDR_EL1:
		return read_sysreg_s(PMUSCOPE_SYS_MIDR_EL1);
	case PMUSCOPE_REG_ID_AA64PFR0_EL1:
		return read_sysreg_s(PMUSCOPE_SYS_ID_AA64PFR0_EL1);
	case PMUSCOPE_REG_ID_AA64DFR0_EL1:
		return read_sysreg_s(PMUSCOPE_SYS_ID_AA64DFR0_EL1);
	case PMUSCOPE_REG_ID_AA64DFR1_EL1:
		return read_sysreg_s(PMUSCOPE_SYS_ID_AA64DFR1_EL1);
	case PMUSCOPE_REG_PMCR_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMCR_EL0);
	case PMUSCOPE_REG_PMCNTENSET_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMCNTENSET_EL0);
	case PMUSCOPE_REG_PMCNTENCLR_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMCNTENCLR_EL0);
	case PMUSCOPE_REG_PMOVSCLR_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMOVSCLR_EL0);
	case PMUSCOPE_REG_PMOVSSET_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMOVSSET_EL0);
	case PMUSCOPE_REG_PMINTENSET_EL1:
		return read_sysreg_s(PMUSCOPE_SYS_PMINTENSET_EL1);
	case PMUSCOPE_REG_PMINTENCLR_EL1:
		return read_sysreg_s(PMUSCOPE_SYS_PMINTENCLR_EL1);
	case PMUSCOPE_REG_PMSELR_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMSELR_EL0);
	case PMUSCOPE_REG_PMCEID0_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMCEID0_EL0);
	case PMUSCOPE_REG_PMCEID1_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMCEID1_EL0);
	case PMUSCOPE_REG_PMCCNTR_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMCCNTR_EL0);
	case PMUSCOPE_REG_PMCCFILTR_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMCCFILTR_EL0);
	case PMUSCOPE_REG_PMUSERENR_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_PMUSERENR_EL0);
	case PMUSCOPE_REG_PMSSCR_EL1:
		return read_sysreg_s(PMUSCOPE_SYS_PMSSCR_EL1);
	case PMUSCOPE_REG_PMCCNTSVR_EL1:
		return read_sysreg_s(PMUSCOPE_SYS_PMCCNTSVR_EL1);
	case PMUSCOPE_REG_PMSIDR_EL1:
		return read_sysreg_s(PMUSCOPE_SYS_PMSIDR_EL1);
	case PMUSCOPE_REG_PMBIDR_EL1:
		return read_sysreg_s(PMUSCOPE_SYS_PMBIDR_EL1);
	case PMUSCOPE_REG_AMCR_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_AMCR_EL0);
	case PMUSCOPE_REG_AMCFGR_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_AMCFGR_EL0);
	case PMUSCOPE_REG_AMCGCR_EL0:
		return read_sysreg_s(PMUSCOPE_SYS_AMCGCR_EL0);
	case PMUSCOPE_REG_PMEVCNTR(0):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(0));
	case PMUSCOPE_REG_PMEVCNTR(1):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(1));
	case PMUSCOPE_REG_PMEVCNTR(2):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(2));
	case PMUSCOPE_REG_PMEVCNTR(3):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(3));
	case PMUSCOPE_REG_PMEVCNTR(4):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(4));
	case PMUSCOPE_REG_PMEVCNTR(5):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(5));
	case PMUSCOPE_REG_PMEVCNTR(6):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(6));
	case PMUSCOPE_REG_PMEVCNTR(7):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(7));
	case PMUSCOPE_REG_PMEVCNTR(8):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(8));
	case PMUSCOPE_REG_PMEVCNTR(9):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(9));
	case PMUSCOPE_REG_PMEVCNTR(10):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(10));
	case PMUSCOPE_REG_PMEVCNTR(11):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(11));
	case PMUSCOPE_REG_PMEVCNTR(12):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(12));
	case PMUSCOPE_REG_PMEVCNTR(13):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(13));
	case PMUSCOPE_REG_PMEVCNTR(14):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(14));
	case PMUSCOPE_REG_PMEVCNTR(15):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(15));
	case PMUSCOPE_REG_PMEVCNTR(16):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(16));
	case PMUSCOPE_REG_PMEVCNTR(17):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(17));
	case PMUSCOPE_REG_PMEVCNTR(18):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(18));
	case PMUSCOPE_REG_PMEVCNTR(19):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(19));
	case PMUSCOPE_REG_PMEVCNTR(20):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(20));
	case PMUSCOPE_REG_PMEVCNTR(21):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(21));
	case PMUSCOPE_REG_PMEVCNTR(22):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(22));
	case PMUSCOPE_REG_PMEVCNTR(23):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(23));
	case PMUSCOPE_REG_PMEVCNTR(24):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(24));
	case PMUSCOPE_REG_PMEVCNTR(25):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(25));
	case PMUSCOPE_REG_PMEVCNTR(26):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(26));
	case PMUSCOPE_REG_PMEVCNTR(27):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(27));
	case PMUSCOPE_REG_PMEVCNTR(28):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(28));
	case PMUSCOPE_REG_PMEVCNTR(29):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(29));
	case PMUSCOPE_REG_PMEVCNTR(30):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTR_EL0(30));
	case PMUSCOPE_REG_PMEVTYPER(0):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(0));
	case PMUSCOPE_REG_PMEVTYPER(1):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(1));
	case PMUSCOPE_REG_PMEVTYPER(2):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(2));
	case PMUSCOPE_REG_PMEVTYPER(3):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(3));
	case PMUSCOPE_REG_PMEVTYPER(4):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(4));
	case PMUSCOPE_REG_PMEVTYPER(5):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(5));
	case PMUSCOPE_REG_PMEVTYPER(6):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(6));
	case PMUSCOPE_REG_PMEVTYPER(7):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(7));
	case PMUSCOPE_REG_PMEVTYPER(8):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(8));
	case PMUSCOPE_REG_PMEVTYPER(9):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(9));
	case PMUSCOPE_REG_PMEVTYPER(10):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(10));
	case PMUSCOPE_REG_PMEVTYPER(11):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(11));
	case PMUSCOPE_REG_PMEVTYPER(12):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(12));
	case PMUSCOPE_REG_PMEVTYPER(13):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(13));
	case PMUSCOPE_REG_PMEVTYPER(14):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(14));
	case PMUSCOPE_REG_PMEVTYPER(15):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(15));
	case PMUSCOPE_REG_PMEVTYPER(16):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(16));
	case PMUSCOPE_REG_PMEVTYPER(17):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(17));
	case PMUSCOPE_REG_PMEVTYPER(18):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(18));
	case PMUSCOPE_REG_PMEVTYPER(19):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(19));
	case PMUSCOPE_REG_PMEVTYPER(20):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(20));
	case PMUSCOPE_REG_PMEVTYPER(21):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(21));
	case PMUSCOPE_REG_PMEVTYPER(22):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(22));
	case PMUSCOPE_REG_PMEVTYPER(23):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(23));
	case PMUSCOPE_REG_PMEVTYPER(24):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(24));
	case PMUSCOPE_REG_PMEVTYPER(25):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(25));
	case PMUSCOPE_REG_PMEVTYPER(26):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(26));
	case PMUSCOPE_REG_PMEVTYPER(27):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(27));
	case PMUSCOPE_REG_PMEVTYPER(28):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(28));
	case PMUSCOPE_REG_PMEVTYPER(29):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(29));
	case PMUSCOPE_REG_PMEVTYPER(30):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVTYPER_EL0(30));
	case PMUSCOPE_REG_PMEVCNTSVR(0):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(0));
	case PMUSCOPE_REG_PMEVCNTSVR(1):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(1));
	case PMUSCOPE_REG_PMEVCNTSVR(2):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(2));
	case PMUSCOPE_REG_PMEVCNTSVR(3):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(3));
	case PMUSCOPE_REG_PMEVCNTSVR(4):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(4));
	case PMUSCOPE_REG_PMEVCNTSVR(5):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(5));
	case PMUSCOPE_REG_PMEVCNTSVR(6):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(6));
	case PMUSCOPE_REG_PMEVCNTSVR(7):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(7));
	case PMUSCOPE_REG_PMEVCNTSVR(8):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(8));
	case PMUSCOPE_REG_PMEVCNTSVR(9):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(9));
	case PMUSCOPE_REG_PMEVCNTSVR(10):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(10));
	case PMUSCOPE_REG_PMEVCNTSVR(11):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(11));
	case PMUSCOPE_REG_PMEVCNTSVR(12):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(12));
	case PMUSCOPE_REG_PMEVCNTSVR(13):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(13));
	case PMUSCOPE_REG_PMEVCNTSVR(14):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(14));
	case PMUSCOPE_REG_PMEVCNTSVR(15):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(15));
	case PMUSCOPE_REG_PMEVCNTSVR(16):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(16));
	case PMUSCOPE_REG_PMEVCNTSVR(17):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(17));
	case PMUSCOPE_REG_PMEVCNTSVR(18):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(18));
	case PMUSCOPE_REG_PMEVCNTSVR(19):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(19));
	case PMUSCOPE_REG_PMEVCNTSVR(20):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(20));
	case PMUSCOPE_REG_PMEVCNTSVR(21):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(21));
	case PMUSCOPE_REG_PMEVCNTSVR(22):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(22));
	case PMUSCOPE_REG_PMEVCNTSVR(23):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(23));
	case PMUSCOPE_REG_PMEVCNTSVR(24):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(24));
	case PMUSCOPE_REG_PMEVCNTSVR(25):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(25));
	case PMUSCOPE_REG_PMEVCNTSVR(26):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(26));
	case PMUSCOPE_REG_PMEVCNTSVR(27):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(27));
	case PMUSCOPE_REG_PMEVCNTSVR(28):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(28));
	case PMUSCOPE_REG_PMEVCNTSVR(29):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(29));
	case PMUSCOPE_REG_PMEVCNTSVR(30):
		return read_sysreg_s(PMUSCOPE_SYS_PMEVCNTSVR_EL1(30));
	default:
		/* PMSWINC_EL0 is write-only; anything else is a driver bug. */
		WARN_ONCE(1, "pmuscope: read of register %d\n", reg);
		return 0;
	}
}

static __always_inline void pmuscope_hw_write(enum pmuscope_reg reg, u64 val)
{
	switch ((unsigned int)reg) {
	case PMUSCOPE_REG_PMCR_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_PMCR_EL0);
		break;
	case PMUSCOPE_REG_PMCNTENSET_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_PMCNTENSET_EL0);
		break;
	case PMUSCOPE_REG_PMCNTENCLR_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_PMCNTENCLR_EL0);
		break;
	case PMUSCOPE_REG_PMOVSCLR_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_PMOVSCLR_EL0);
		break;
	case PMUSCOPE_REG_PMOVSSET_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_PMOVSSET_EL0);
		break;
	case PMUSCOPE_REG_PMINTENSET_EL1:
		write_sysreg_s(val, PMUSCOPE_SYS_PMINTENSET_EL1);
		break;
	case PMUSCOPE_REG_PMINTENCLR_EL1:
		write_sysreg_s(val, PMUSCOPE_SYS_PMINTENCLR_EL1);
		break;
	case PMUSCOPE_REG_PMSWINC_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_PMSWINC_EL0);
		break;
	case PMUSCOPE_REG_PMSELR_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_PMSELR_EL0);
		break;
	case PMUSCOPE_REG_PMCCNTR_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_PMCCNTR_EL0);
		break;
	case PMUSCOPE_REG_PMCCFILTR_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_PMCCFILTR_EL0);
		break;
	case PMUSCOPE_REG_PMUSERENR_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_PMUSERENR_EL0);
		break;
	case PMUSCOPE_REG_PMSSCR_EL1:
		write_sysreg_s(val, PMUSCOPE_SYS_PMSSCR_EL1);
		break;
	case PMUSCOPE_REG_AMCR_EL0:
		write_sysreg_s(val, PMUSCOPE_SYS_AMCR_EL0);
		break;
	case PMUSCOPE_REG_PMEVCNTR(0):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(0));
		break;
	case PMUSCOPE_REG_PMEVCNTR(1):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(1));
		break;
	case PMUSCOPE_REG_PMEVCNTR(2):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(2));
		break;
	case PMUSCOPE_REG_PMEVCNTR(3):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(3));
		break;
	case PMUSCOPE_REG_PMEVCNTR(4):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(4));
		break;
	case PMUSCOPE_REG_PMEVCNTR(5):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(5));
		break;
	case PMUSCOPE_REG_PMEVCNTR(6):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(6));
		break;
	case PMUSCOPE_REG_PMEVCNTR(7):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(7));
		break;
	case PMUSCOPE_REG_PMEVCNTR(8):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(8));
		break;
	case PMUSCOPE_REG_PMEVCNTR(9):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(9));
		break;
	case PMUSCOPE_REG_PMEVCNTR(10):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(10));
		break;
	case PMUSCOPE_REG_PMEVCNTR(11):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(11));
		break;
	case PMUSCOPE_REG_PMEVCNTR(12):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(12));
		break;
	case PMUSCOPE_REG_PMEVCNTR(13):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(13));
		break;
	case PMUSCOPE_REG_PMEVCNTR(14):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(14));
		break;
	case PMUSCOPE_REG_PMEVCNTR(15):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(15));
		break;
	case PMUSCOPE_REG_PMEVCNTR(16):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(16));
		break;
	case PMUSCOPE_REG_PMEVCNTR(17):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(17));
		break;
	case PMUSCOPE_REG_PMEVCNTR(18):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(18));
		break;
	case PMUSCOPE_REG_PMEVCNTR(19):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(19));
		break;
	case PMUSCOPE_REG_PMEVCNTR(20):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(20));
		break;
	case PMUSCOPE_REG_PMEVCNTR(21):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(21));
		break;
	case PMUSCOPE_REG_PMEVCNTR(22):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(22));
		break;
	case PMUSCOPE_REG_PMEVCNTR(23):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(23));
		break;
	case PMUSCOPE_REG_PMEVCNTR(24):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(24));
		break;
	case PMUSCOPE_REG_PMEVCNTR(25):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(25));
		break;
	case PMUSCOPE_REG_PMEVCNTR(26):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(26));
		break;
	case PMUSCOPE_REG_PMEVCNTR(27):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(27));
		break;
	case PMUSCOPE_REG_PMEVCNTR(28):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(28));
		break;
	case PMUSCOPE_REG_PMEVCNTR(29):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(29));
		break;
	case PMUSCOPE_REG_PMEVCNTR(30):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVCNTR_EL0(30));
		break;
	case PMUSCOPE_REG_PMEVTYPER(0):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(0));
		break;
	case PMUSCOPE_REG_PMEVTYPER(1):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(1));
		break;
	case PMUSCOPE_REG_PMEVTYPER(2):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(2));
		break;
	case PMUSCOPE_REG_PMEVTYPER(3):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(3));
		break;
	case PMUSCOPE_REG_PMEVTYPER(4):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(4));
		break;
	case PMUSCOPE_REG_PMEVTYPER(5):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(5));
		break;
	case PMUSCOPE_REG_PMEVTYPER(6):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(6));
		break;
	case PMUSCOPE_REG_PMEVTYPER(7):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(7));
		break;
	case PMUSCOPE_REG_PMEVTYPER(8):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(8));
		break;
	case PMUSCOPE_REG_PMEVTYPER(9):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(9));
		break;
	case PMUSCOPE_REG_PMEVTYPER(10):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(10));
		break;
	case PMUSCOPE_REG_PMEVTYPER(11):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(11));
		break;
	case PMUSCOPE_REG_PMEVTYPER(12):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(12));
		break;
	case PMUSCOPE_REG_PMEVTYPER(13):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(13));
		break;
	case PMUSCOPE_REG_PMEVTYPER(14):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(14));
		break;
	case PMUSCOPE_REG_PMEVTYPER(15):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(15));
		break;
	case PMUSCOPE_REG_PMEVTYPER(16):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(16));
		break;
	case PMUSCOPE_REG_PMEVTYPER(17):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(17));
		break;
	case PMUSCOPE_REG_PMEVTYPER(18):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(18));
		break;
	case PMUSCOPE_REG_PMEVTYPER(19):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(19));
		break;
	case PMUSCOPE_REG_PMEVTYPER(20):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(20));
		break;
	case PMUSCOPE_REG_PMEVTYPER(21):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(21));
		break;
	case PMUSCOPE_REG_PMEVTYPER(22):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(22));
		break;
	case PMUSCOPE_REG_PMEVTYPER(23):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(23));
		break;
	case PMUSCOPE_REG_PMEVTYPER(24):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(24));
		break;
	case PMUSCOPE_REG_PMEVTYPER(25):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(25));
		break;
	case PMUSCOPE_REG_PMEVTYPER(26):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(26));
		break;
	case PMUSCOPE_REG_PMEVTYPER(27):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(27));
		break;
	case PMUSCOPE_REG_PMEVTYPER(28):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(28));
		break;
	case PMUSCOPE_REG_PMEVTYPER(29):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(29));
		break;
	case PMUSCOPE_REG_PMEVTYPER(30):
		write_sysreg_s(val, PMUSCOPE_SYS_PMEVTYPER_EL0(30));
		break;
	default:
		/* ID and other read-only registers: a driver bug. */
		WARN_ONCE(1, "pmuscope: write of register %d\n", reg);
	}
}

static __always_inline void pmuscope_hw_isb(void)
{
	isb();
}

#endif /* PMUSCOPE_HW_MODEL */

#endif /* __PMUSCOPE_HW_H */
