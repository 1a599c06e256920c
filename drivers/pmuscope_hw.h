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
#include <clocksource/arm_arch_timer.h>
#include <asm/arch_timer.h>
#include <asm/barrier.h>
#include <asm/cpufeature.h>
#include <asm/mmu.h>
#include <asm/sysreg.h>
#include <asm/virt.h>

#if !defined(PMUSCOPE_HW_MODEL) && IS_ENABLED(CONFIG_KVM)
#include <linux/kvm_host.h>
#endif

#include "pmuscope_regs.h"

/* Barriers are operations of the seam too: the model logs them in order. */
enum pmuscope_barrier {
	PMUSCOPE_BARRIER_ISB,		/* isb: context synchronization */
	PMUSCOPE_BARRIER_PSB_CSYNC,	/* psb csync: SPE profiling synchronization */
	PMUSCOPE_BARRIER_DSB_NSH,	/* dsb nsh: completes this PE's accesses */
};

/*
 * Who owns EL2 on this CPU: the snapshot unit's capture control
 * MDCR_EL2.PMSSE belongs to it.
 */
enum pmuscope_hw_el2 {
	PMUSCOPE_HW_EL2_NONE,	/* no EL2 (ID_AA64PFR0_EL1.EL2 = 0) */
	PMUSCOPE_HW_EL2_ABOVE,	/* kernel at EL1 under an EL2: Linux's own, or a hypervisor */
	PMUSCOPE_HW_EL2_KERNEL,	/* VHE: the kernel itself runs at EL2 */
};

/* The register model's entry points (tests/kunit/pmuscope_model.c). */
u64 pmuscope_model_read(enum pmuscope_reg reg);
void pmuscope_model_write(enum pmuscope_reg reg, u64 val);
void pmuscope_model_barrier(enum pmuscope_barrier b);
u64 pmuscope_model_syscnt(void);
u32 pmuscope_model_syscnt_freq(void);
enum pmuscope_hw_el2 pmuscope_model_el2(void);
bool pmuscope_model_vcpu_loaded(void);
bool pmuscope_model_amu_kernel(void);
bool pmuscope_model_amu_const_broken(void);
int pmuscope_model_spe_add_buffer(unsigned int cpu, void *va, size_t size);
int pmuscope_model_spe_remove_buffer(unsigned int cpu, void *va);
bool pmuscope_model_spe_unmapped_at_el0(void);

#ifdef PMUSCOPE_HW_MODEL

static inline u64 pmuscope_hw_read(enum pmuscope_reg reg)
{
	return pmuscope_model_read(reg);
}

/* Counter @n (PMUSCOPE_CYCLE_IDX: the cycle counter): as below. */
static inline u64 pmuscope_hw_read_cnt(unsigned int n)
{
	return pmuscope_model_read(n == PMUSCOPE_CYCLE_IDX ? PMUSCOPE_REG_PMCCNTR_EL0 :
				   PMUSCOPE_REG_PMEVCNTR(n));
}

/* The counters of @mask and those below its highest event counter: as below. */
static inline void pmuscope_hw_read_cnts(u64 mask, u64 *raw)
{
	u64 ev = mask & GENMASK_ULL(PMUSCOPE_CYCLE_IDX - 1, 0);
	int n;

	if (mask & BIT_ULL(PMUSCOPE_CYCLE_IDX))
		raw[PMUSCOPE_CYCLE_IDX] = pmuscope_model_read(PMUSCOPE_REG_PMCCNTR_EL0);
	for (n = ev ? __fls(ev) : -1; n >= 0; n--)
		raw[n] = pmuscope_model_read(PMUSCOPE_REG_PMEVCNTR(n));
}

static inline void pmuscope_hw_write(enum pmuscope_reg reg, u64 val)
{
	pmuscope_model_write(reg, val);
}

static inline void pmuscope_hw_barrier(enum pmuscope_barrier b)
{
	pmuscope_model_barrier(b);
}

static inline u64 pmuscope_hw_syscnt(void)
{
	return pmuscope_model_syscnt();
}

static inline u32 pmuscope_hw_syscnt_freq(void)
{
	return pmuscope_model_syscnt_freq();
}

static inline enum pmuscope_hw_el2 pmuscope_hw_el2(void)
{
	return pmuscope_model_el2();
}

static inline bool pmuscope_hw_vcpu_loaded(void)
{
	return pmuscope_model_vcpu_loaded();
}

static inline bool pmuscope_hw_amu_kernel(void)
{
	return pmuscope_model_amu_kernel();
}

static inline bool pmuscope_hw_amu_const_broken(void)
{
	return pmuscope_model_amu_const_broken();
}

/* The model's SPU writes only into buffers it was told of. */
static inline int pmuscope_hw_spe_buffer(unsigned int cpu, void *va, size_t size,
					 bool add)
{
	return add ? pmuscope_model_spe_add_buffer(cpu, va, size) :
		     pmuscope_model_spe_remove_buffer(cpu, va);
}

static inline bool pmuscope_hw_kernel_unmapped_at_el0(void)
{
	return pmuscope_model_spe_unmapped_at_el0();
}

#else /* !PMUSCOPE_HW_MODEL */

/* One MRS/MSR each (pmuscope_regs_gen.h, generated from the table). */
static __always_inline u64 pmuscope_hw_read(enum pmuscope_reg reg)
{
	return pmuscope_hw_mrs(reg);
}

/*
 * Counter @n, 0..30 or PMUSCOPE_CYCLE_IDX (31): PMEVCNTR<n>_EL0 or
 * PMCCNTR_EL0, whose encodings MRS takes as immediates. Where @n is known
 * only at run time, pmuscope_hw_read(PMUSCOPE_REG_PMEVCNTR(n)) is a bounds
 * check and a jump table into the seam's whole switch; READ's hot loop
 * branches into a table of its own instead, 16 bytes per counter (a
 * landing pad for BTI, bti j as hint 36 so that older assemblers take it,
 * the MRS and the way out): six instructions per counter. @n is masked
 * to 0..31, so that no value can branch outside the table.
 */
static __always_inline u64 pmuscope_hw_read_cnt(unsigned int n)
{
	u64 val, tmp;

	BUILD_BUG_ON(PMUSCOPE_CYCLE_IDX != 31);
	asm volatile("	adr	%1, 1f\n"
		     "	add	%1, %1, %2, lsl #4\n"
		     "	br	%1\n"
		     "	.p2align 4\n"
		     "1:\n"
		     "	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
		     "	hint	36\n"
		     "	mrs	%0, pmevcntr\\n\\()_el0\n"
		     "	b	2f\n"
		     "	nop\n"
		     "	.endr\n"
		     "	.irp	n, 16,17,18,19,20,21,22,23,24,25,26,27,28,29,30\n"
		     "	hint	36\n"
		     "	mrs	%0, pmevcntr\\n\\()_el0\n"
		     "	b	2f\n"
		     "	nop\n"
		     "	.endr\n"
		     "	hint	36\n"
		     "	mrs	%0, pmccntr_el0\n"
		     "2:\n"
		     : "=&r" (val), "=&r" (tmp)
		     : "r" ((u64)(n & 31)));
	return val;
}

/*
 * Several counters at once, for a caller that stopped them (the software
 * snapshot): raw[n] for every counter n of @mask, the cycle counter
 * (bit 31) first, then every event counter from the highest of @mask
 * down to 0, those between that are not in @mask too (reading a counter
 * has no effect, and every one below an implemented counter is
 * implemented). Straight-line: a branch computed from the highest event
 * counter lands on its entry of a table (BTI J, the landing pad an
 * indirect branch needs, and B), which goes on into the reads, two
 * instructions (MRS, store) per counter; no counter above it is touched.
 * @raw has room for PMUSCOPE_CYCLE_IDX + 1 values.
 */
static __always_inline void pmuscope_hw_read_cnts(u64 mask, u64 *raw)
{
	u64 tmp, tmp2;

	BUILD_BUG_ON(PMUSCOPE_CYCLE_IDX != 31);
	asm volatile("	tbz	%[mask], #31, 1f\n"
		     "	mrs	%[tmp], pmccntr_el0\n"
		     "	str	%[tmp], [%[raw], #248]\n"
		     "1:	ands	%[tmp], %[mask], #0x7fffffff\n"
		     "	b.eq	3f\n"
		     /* clz: 33 for counter 30 .. 63 for counter 0; 8 bytes each */
		     "	clz	%[tmp], %[tmp]\n"
		     "	adr	%[tmp2], 2f - 33 * 8\n"
		     "	add	%[tmp2], %[tmp2], %[tmp], lsl #3\n"
		     "	br	%[tmp2]\n"
		     "2:\n"
		     "	.irp	n, 30,29,28,27,26,25,24,23,22,21,20,19,18,17,16\n"
		     "	hint	36\n"
		     "	b	.Lpmuscope_rd%=_\\n\n"
		     "	.endr\n"
		     "	.irp	n, 15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0\n"
		     "	hint	36\n"
		     "	b	.Lpmuscope_rd%=_\\n\n"
		     "	.endr\n"
		     "	.irp	n, 30,29,28,27,26,25,24,23,22,21,20,19,18,17,16\n"
		     ".Lpmuscope_rd%=_\\n:\n"
		     "	mrs	%[tmp], pmevcntr\\n\\()_el0\n"
		     "	str	%[tmp], [%[raw], #(\\n * 8)]\n"
		     "	.endr\n"
		     "	.irp	n, 15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0\n"
		     ".Lpmuscope_rd%=_\\n:\n"
		     "	mrs	%[tmp], pmevcntr\\n\\()_el0\n"
		     "	str	%[tmp], [%[raw], #(\\n * 8)]\n"
		     "	.endr\n"
		     "3:\n"
		     : [tmp] "=&r" (tmp), [tmp2] "=&r" (tmp2)
		     : [mask] "r" (mask), [raw] "r" (raw)
		     : "cc", "memory");
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

/*
 * The system counter (CNTVCT_EL0 as the kernel reads it: ordered by an
 * ISB, with the errata workarounds of the arch timer driver) and its
 * frequency (CNTFRQ_EL0).
 */
static __always_inline u64 pmuscope_hw_syscnt(void)
{
	return arch_timer_read_counter();
}

static inline u32 pmuscope_hw_syscnt_freq(void)
{
	return arch_timer_get_cntfrq();
}

static inline enum pmuscope_hw_el2 pmuscope_hw_el2(void)
{
	if (is_kernel_in_hyp_mode())
		return PMUSCOPE_HW_EL2_KERNEL;
	/*
	 * Whether Linux itself booted at EL2 (__boot_cpu_mode) is not
	 * exported to modules: any EL2 above the kernel counts as not ours.
	 */
	if (pmuscope_hw_mrs(PMUSCOPE_REG_ID_AA64PFR0_EL1) & PMUSCOPE_PFR0_EL2)
		return PMUSCOPE_HW_EL2_ABOVE;
	return PMUSCOPE_HW_EL2_NONE;
}

/*
 * Is a KVM vCPU loaded on this CPU (between kvm_arch_vcpu_load() and
 * kvm_arch_vcpu_put(), its thread running with IRQs and preemption on
 * in between)? On a VHE host KVM then keeps the host's MDCR_EL2 aside and
 * the register holds the guest's value (Linux 6.12
 * __activate_traps_common(); 6.1 the same at the load). The load and the
 * put themselves run with preemption off but IRQs possibly on (vcpu_load()
 * and kvm_sched_in(); 6.1 writes MDCR_EL2 there with IRQs on), so this
 * may interrupt one. KVM's per-CPU running vCPU is set before the load's
 * write and cleared after the put writes the host's value back, so with
 * IRQs off here a NULL answer means MDCR_EL2 is the host's until IRQs
 * are on again. With IRQs off, on the CPU in question.
 */
static inline bool pmuscope_hw_vcpu_loaded(void)
{
#if IS_ENABLED(CONFIG_KVM)
	return kvm_get_running_vcpu();
#else
	return false;
#endif
}

/*
 * Does the kernel itself use this CPU's AMU (CONFIG_ARM64_AMU_EXTN, and
 * the CPU has it: its frequency invariance reads it)? amu=-1, the
 * default, uses the AMU only then: firmware that leaves it trapped or
 * broken hangs a board on access, and the kernel would have found out.
 * With preemption disabled, on the CPU in question.
 */
static inline bool pmuscope_hw_amu_kernel(void)
{
	return this_cpu_has_cap(ARM64_HAS_AMU_EXTN);
}

/*
 * Does the kernel's workaround for a constant counter that does not count
 * at its rate apply to this CPU (Cortex-A510 erratum 2457168, Cortex-A725
 * erratum 3821522)? Then neither does the driver trust CNT_CYCLES.
 */
static inline bool pmuscope_hw_amu_const_broken(void)
{
#if defined(ARM64_WORKAROUND_BROKEN_AMU_CONSTCNT)
	return this_cpu_has_cap(ARM64_WORKAROUND_BROKEN_AMU_CONSTCNT);
#elif defined(ARM64_WORKAROUND_2457168)
	return this_cpu_has_cap(ARM64_WORKAROUND_2457168);
#else
	return false;
#endif
}

/* The MMU, not the driver, decides where the SPU may write. */
static inline int pmuscope_hw_spe_buffer(unsigned int cpu, void *va, size_t size,
					 bool add)
{
	return 0;
}

/*
 * KPTI: the kernel is unmapped while EL0 runs, so a profiling buffer at a
 * kernel address faults when the SPU writes a record then.
 */
static inline bool pmuscope_hw_kernel_unmapped_at_el0(void)
{
	return arm64_kernel_unmapped_at_el0();
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

/*
 * Do the counters of @mask count as they were left: PMCR_EL0.E set and
 * each enabled in PMCNTENSET_EL0 (nothing to read for none)? The usual
 * answer of pmuscope_pmu_check(), asked inline where it is hot.
 */
static __always_inline bool pmuscope_hw_counting(u64 mask)
{
	u64 cnten, pmcr;

	if (!mask)
		return true;
	cnten = pmuscope_hw_read(PMUSCOPE_REG_PMCNTENSET_EL0);
	pmcr = pmuscope_hw_read(PMUSCOPE_REG_PMCR_EL0);
	return likely(pmcr & PMUSCOPE_PMCR_E) && likely(!(mask & ~cnten));
}

#endif /* __PMUSCOPE_HW_H */
