/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope: the hardware seam.
 *
 * Every access of the driver to a system register goes through
 * pmuscope_hw_read() and pmuscope_hw_write() below, named by an enum
 * pmuscope_reg generated from drivers/pmuscope_regs.tbl, and every barrier
 * the architecture asks for around them through pmuscope_hw_barrier() (ISB,
 * PSB CSYNC, DSB NSH). The production build turns each call into one
 * MRS/MSR/barrier (the switch folds away when the register is a constant).
 * The model builds (PMUSCOPE_HW_MODEL, set by Kbuild for pmuscope_kunit.ko
 * and pmuscope_emu.ko) route the same calls into the register model of
 * tests/kunit/, which implements the architecture's rules for a chosen CPU
 * profile and records any access to a register that profile does not
 * implement.
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

/* Barriers are operations of the seam too: the model logs them in order. */
enum pmuscope_barrier {
	PMUSCOPE_BARRIER_ISB,		/* isb: context synchronization */
	PMUSCOPE_BARRIER_PSB_CSYNC,	/* psb csync: SPE profiling synchronization */
	PMUSCOPE_BARRIER_DSB_NSH,	/* dsb nsh: completes this PE's accesses */
};

/* The register model's entry points (tests/kunit/pmuscope_model.c). */
u64 pmuscope_model_read(enum pmuscope_reg reg);
void pmuscope_model_write(enum pmuscope_reg reg, u64 val);
void pmuscope_model_barrier(enum pmuscope_barrier b);

#ifdef PMUSCOPE_HW_MODEL

static inline u64 pmuscope_hw_read(enum pmuscope_reg reg)
{
	return pmuscope_model_read(reg);
}

static inline void pmuscope_hw_write(enum pmuscope_reg reg, u64 val)
{
	pmuscope_model_write(reg, val);
}

static inline void pmuscope_hw_barrier(enum pmuscope_barrier b)
{
	pmuscope_model_barrier(b);
}

#else /* !PMUSCOPE_HW_MODEL */

/* One MRS/MSR each (pmuscope_regs_gen.h, generated from the table). */
static __always_inline u64 pmuscope_hw_read(enum pmuscope_reg reg)
{
	return pmuscope_hw_mrs(reg);
}

static __always_inline void pmuscope_hw_write(enum pmuscope_reg reg, u64 val)
{
	pmuscope_hw_msr(reg, val);
}

static __always_inline void pmuscope_hw_barrier(enum pmuscope_barrier b)
{
	switch (b) {
	case PMUSCOPE_BARRIER_ISB:
		isb();
		break;
	case PMUSCOPE_BARRIER_PSB_CSYNC:
		psb_csync();
		break;
	case PMUSCOPE_BARRIER_DSB_NSH:
		dsb(nsh);
		break;
	}
}

#endif /* PMUSCOPE_HW_MODEL */

static __always_inline void pmuscope_hw_isb(void)
{
	pmuscope_hw_barrier(PMUSCOPE_BARRIER_ISB);
}

static __always_inline void pmuscope_hw_psb_csync(void)
{
	pmuscope_hw_barrier(PMUSCOPE_BARRIER_PSB_CSYNC);
}

static __always_inline void pmuscope_hw_dsb_nsh(void)
{
	pmuscope_hw_barrier(PMUSCOPE_BARRIER_DSB_NSH);
}

#endif /* __PMUSCOPE_HW_H */
