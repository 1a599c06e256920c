/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope register model: the Activity Monitors (AMUv1, AMUv1p1).
 *
 * Included by pmuscope_model.h. The core (pmuscope_model.c) checks the gate
 * and the access rule of every register from the generated table, then
 * calls the hooks below with the CPU's model lock held and IRQs off.
 *
 * The driver only reads the AMU: every AMU register is RO in the register
 * table, since only the highest implemented Exception level may write the
 * counters, their enables and AMCR_EL0 (Arm ARM D16.2.2). What firmware
 * (EL3) and a hypervisor (EL2) decide is set by the test controls at the
 * end of this file.
 *
 * The model takes the driver to run at EL1, Non-secure, with EL2 and EL3
 * implemented and EL2 enabled: CPTR_EL2.TAM traps it, and AMCR_EL0.CG1RZ
 * zeroes its reads of the auxiliary counters. Not modelled: Debug state
 * (AMCR_EL0.HDBG), the AMUv1p1 virtual offsets (HCR_EL2.AMVOFFEN = 0), the
 * memory-mapped view, and a driver at EL2 (VHE), which CPTR_EL2.TAM would
 * not trap.
 */
#ifndef __PMUSCOPE_MODEL_AMU_H
#define __PMUSCOPE_MODEL_AMU_H

#include <linux/types.h>

#include "pmuscope_hw.h"

struct pmuscope_model_cpu;
struct pmuscope_model_profile;
struct pmuscope_model_work;

/* What drives an auxiliary (group 1) counter in pmuscope_model_amu_run(). */
enum pmuscope_model_amu_src {
	PMUSCOPE_MODEL_AMU_SRC_NONE,		/* never increments */
	PMUSCOPE_MODEL_AMU_SRC_CYCLES,		/* w->cycles */
	PMUSCOPE_MODEL_AMU_SRC_INSTS,		/* w->insts */
	PMUSCOPE_MODEL_AMU_SRC_LOADS,		/* w->loads */
	PMUSCOPE_MODEL_AMU_SRC_STORES,		/* w->stores */
	PMUSCOPE_MODEL_AMU_SRC_BRANCHES,	/* w->branches */
	PMUSCOPE_MODEL_AMU_SRC_MISPREDICTS,	/* w->mispredicts */
	PMUSCOPE_MODEL_AMU_SRC_MEM_STALL,	/* w->mem_stall_cycles */
	PMUSCOPE_MODEL_AMU_SRC_CONST,		/* system counter ticks, busy time */
};

/*
 * One auxiliary counter: AMEVTYPER1<n>_EL0.evtCount (IMPLEMENTATION
 * DEFINED, Arm ARM D16.3.2) and the workload field that drives it. Only
 * counters the profile's AMCGCR_EL0.CG1NC and AMCG1IDR_EL0 implement count.
 */
struct pmuscope_model_amu_aux {
	u16 event;
	enum pmuscope_model_amu_src src;
};

/* Default system counter frequency: QEMU 7.2's virt (emu build's CNTFRQ_EL0). */
#define PMUSCOPE_MODEL_AMU_CNTFRQ_DEFAULT	62500000U

/*
 * What a CPU profile says of this unit beyond its ID registers. A NULL
 * profile, or a zero field, gives the default written beside each field.
 */
struct pmuscope_model_amu_profile {
	/*
	 * Frequency of the system counter (CNTFRQ_EL0), the rate of
	 * CNT_CYCLES; 0: PMUSCOPE_MODEL_AMU_CNTFRQ_DEFAULT.
	 */
	u32 cntfrq_hz;
	/*
	 * The constant counter AMEVCNTR01_EL0 does not count at the system
	 * counter's rate (Cortex-A510 erratum 2457168, Cortex-A725 erratum
	 * 3821522: "significantly higher"): the model counts core cycles in
	 * it. Linux then stops using the counter; so must the driver.
	 */
	bool const_broken;
	/*
	 * AMCNTENSET1_EL0 as firmware leaves it at reset (TF-A's
	 * plat_amu_aux_enables[]); 0: no auxiliary counter enabled, TF-A's
	 * default. Firmware enables every architected counter.
	 */
	u16 aux_enabled;
	struct pmuscope_model_amu_aux aux[PMUSCOPE_NR_AMEVCNTR1];
};

extern const struct pmuscope_model_amu_profile pmuscope_model_amu_neoverse_n1;
extern const struct pmuscope_model_amu_profile pmuscope_model_amu_v94;
/* A test-only Cortex-A510-like profile, CNT_CYCLES broken (pmuscope_model_amu_test.c). */
extern const struct pmuscope_model_profile pmuscope_amu_test_a510;

/* The unit's architectural state on one modelled CPU. */
struct pmuscope_model_amu {
	/* Controls of EL3 and EL2 (pmuscope_model_amu_set_firmware()). */
	bool tam_el3;		/* CPTR_EL3.TAM */
	bool tam_el2;		/* CPTR_EL2.TAM */
	u64 amcr;		/* AMCR_EL0: CG1RZ */
	u64 cnten0;		/* AMCNTENSET0_EL0 */
	u64 cnten1;		/* AMCNTENSET1_EL0 */
	u64 userenr;		/* AMUSERENR_EL0, written at EL1 or EL2 */

	/* The 64-bit counters, AMEVCNTR0<n>_EL0 and AMEVCNTR1<n>_EL0. */
	u64 cnt0[PMUSCOPE_NR_AMEVCNTR0];
	u64 cnt1[PMUSCOPE_NR_AMEVCNTR1];
	/* (busy ns x CNTFRQ) mod NSEC_PER_SEC, carried to the next run. */
	u32 const_rem;

	/*
	 * Whether the kernel uses this CPU's AMU itself (CONFIG_ARM64_AMU_EXTN
	 * and the CPU flagged), what the driver's amu=-1 follows: by default
	 * where the profile has an AMU (pmuscope_model_amu_set_kernel()).
	 */
	bool kernel_off;

	/* Instrumentation: accesses trapped by CPTR_EL3.TAM or CPTR_EL2.TAM. */
	unsigned int traps;
};

void pmuscope_model_amu_reset(struct pmuscope_model_cpu *m);
u64 pmuscope_model_amu_read(struct pmuscope_model_cpu *m, enum pmuscope_reg reg);
void pmuscope_model_amu_write(struct pmuscope_model_cpu *m, enum pmuscope_reg reg,
			      u64 val);
void pmuscope_model_amu_barrier(struct pmuscope_model_cpu *m,
				enum pmuscope_barrier b);
void pmuscope_model_amu_run(struct pmuscope_model_cpu *m,
			    const struct pmuscope_model_work *w);

/* The system counter frequency a profile's AMU counts CNT_CYCLES at. */
u32 pmuscope_model_amu_cntfrq(const struct pmuscope_model_profile *prof);

/*
 * Test controls: the state firmware and a hypervisor leave, which the
 * driver can read but never write. Each takes the CPU's model lock.
 */
void pmuscope_model_amu_set_firmware(unsigned int cpu, bool tam_el3, bool tam_el2,
				     u16 enabled0, u16 enabled1, bool cg1rz);
void pmuscope_model_amu_set_userenr(unsigned int cpu, bool en);
void pmuscope_model_amu_set_counter(unsigned int cpu, enum pmuscope_reg reg,
				    u64 val);
void pmuscope_model_amu_power_loss(unsigned int cpu);
void pmuscope_model_amu_set_kernel(unsigned int cpu, bool uses);

#endif /* __PMUSCOPE_MODEL_AMU_H */
