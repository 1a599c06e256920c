/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope register model: the architecture's rules for the registers the
 * driver uses, per CPU, for a chosen CPU profile. The driver built with
 * PMUSCOPE_HW_MODEL reads and writes these instead of the hardware.
 */
#ifndef __PMUSCOPE_MODEL_H
#define __PMUSCOPE_MODEL_H

#include <linux/spinlock.h>
#include <linux/types.h>

#include "pmuscope_hw.h"
#include "pmuscope_model_amu.h"
#include "pmuscope_model_spe.h"
#include "pmuscope_model_ss.h"

struct pmuscope_model_profile {
	const char *name;
	u64 midr;
	u64 pfr0;
	u64 dfr0;
	u64 dfr1;
	u64 pmcr;		/* reset value: N, IDCODE, IMP */
	u64 pmceid0;
	u64 pmceid1;
	u64 pmsidr;
	u64 pmbidr;
	u64 amcfgr;
	u64 amcgcr;
	u64 amcg1idr;		/* AMUv1p1: implemented group-1 counters */
	/* What each unit does beyond its ID registers; NULL: defaults. */
	const struct pmuscope_model_ss_profile *ss;
	const struct pmuscope_model_spe_profile *spe;
	const struct pmuscope_model_amu_profile *amu;
	/*
	 * A fault model, not the architecture: the PMU's registers behave as
	 * a PMUv3's, but no counter ever advances (pmuscope_model_dead_pmu).
	 */
	bool pmu_dead;
};

extern const struct pmuscope_model_profile pmuscope_model_cortex_a53;
extern const struct pmuscope_model_profile pmuscope_model_neoverse_n1;
extern const struct pmuscope_model_profile pmuscope_model_v94;
extern const struct pmuscope_model_profile pmuscope_model_no_pmu;
extern const struct pmuscope_model_profile pmuscope_model_impdef_pmu;
extern const struct pmuscope_model_profile pmuscope_model_dead_pmu;

#define PMUSCOPE_MODEL_LOG	64
/* Logged in place of a register for a barrier. */
#define PMUSCOPE_MODEL_ISB	(PMUSCOPE_REG_NR + PMUSCOPE_BARRIER_ISB)
#define PMUSCOPE_MODEL_PSB	(PMUSCOPE_REG_NR + PMUSCOPE_BARRIER_PSB_CSYNC)
#define PMUSCOPE_MODEL_DSB	(PMUSCOPE_REG_NR + PMUSCOPE_BARRIER_DSB_NSH)

/*
 * One piece of work a modelled CPU does: it advances every unit of the CPU
 * consistently (the PMU's INST_RETIRED, the AMU's instructions counter and
 * SPE's operation counter see the same instructions). pmuscope_model_run().
 */
struct pmuscope_model_work {
	u64 ns;			/* time the work spans, idle included */
	u64 idle_ns;		/* of which in WFI/WFE: only the system counter runs */
	u64 cycles;		/* core cycles while not idle */
	u64 insts;		/* instructions (operations) retired */
	u64 loads;		/* of which loads */
	u64 stores;		/* of which stores */
	u64 branches;		/* of which branches */
	u64 mispredicts;	/* of the branches, mispredicted */
	u64 mem_stall_cycles;	/* of the cycles, backend stalled on memory */
	u64 pc;			/* address of the first instruction; 4 bytes apart */
	u64 data_addr;		/* first data address; accesses 8 bytes apart */
	u32 load_latency;	/* cycles from issue to completion of a load */
	u8 el;			/* exception level the work runs at (0..2) */
};

struct pmuscope_model_access {
	enum pmuscope_reg reg;
	bool write;
	u64 val;
};

/* The registers of one modelled CPU. */
struct pmuscope_model_cpu {
	/* Protects everything below; taken by the accessors, IRQs off. */
	raw_spinlock_t lock;
	const struct pmuscope_model_profile *prof;	/* NULL: not modelled */

	/* Architectural state. */
	u64 pmcr;		/* the writable bits E, D, X, DP, LC, LP */
	u64 cnten;
	u64 inten;
	u64 ovs;
	u64 selr;
	u64 ccnt;
	u64 ccfiltr;
	u64 userenr;
	u64 evcnt[PMUSCOPE_MAX_EVENT_COUNTERS];
	u64 evtyper[PMUSCOPE_MAX_EVENT_COUNTERS];
	u64 icntr;		/* PMICNTR_EL0 (FEAT_PMUv3_ICNTR) */
	u64 icfiltr;		/* PMICFILTR_EL0 */
	u64 pmuacr;		/* PMUACR_EL1 (PMUv3p9) */
	unsigned int n;		/* PMCR_EL0.N as the driver sees it */

	/*
	 * pmuscope_emu.ko: the PMUv3 registers are the CPU's own (MRS/MSR of
	 * QEMU's PMU); the model supplies only what the CPU lacks.
	 */
	bool passthrough;

	/* The other units. */
	struct pmuscope_model_ss ss;
	struct pmuscope_model_spe spe;
	struct pmuscope_model_amu amu;

	/* One-shot injection: count @n @event just before @reg is read. */
	struct {
		bool armed;
		enum pmuscope_reg reg;
		u16 event;
		u64 n;
	} inject;

	/* Instrumentation for the tests. */
	unsigned int reads[PMUSCOPE_REG_NR];
	unsigned int writes[PMUSCOPE_REG_NR];
	unsigned int isbs;
	unsigned int barriers[3];	/* by enum pmuscope_barrier */
	unsigned int violations;
	struct pmuscope_model_access first_violation;
	unsigned int nlog;	/* accesses logged, may exceed the log size */
	struct pmuscope_model_access log[PMUSCOPE_MODEL_LOG];
};

void pmuscope_model_reset(unsigned int cpu,
			  const struct pmuscope_model_profile *prof);
void pmuscope_model_reset_all(const struct pmuscope_model_profile *prof);
struct pmuscope_model_cpu *pmuscope_model_get(unsigned int cpu);
unsigned int pmuscope_model_total_violations(void);
bool pmuscope_model_implements(const struct pmuscope_model_profile *prof,
			       enum pmuscope_reg reg);
void pmuscope_model_reg_name(enum pmuscope_reg reg, char *buf, size_t len);
u64 pmuscope_model_read_cpu(unsigned int cpu, enum pmuscope_reg reg);
void pmuscope_model_write_cpu(unsigned int cpu, enum pmuscope_reg reg, u64 val);
void pmuscope_model_count(unsigned int cpu, u16 event, u64 n);
void pmuscope_model_count_el(unsigned int cpu, u16 event, unsigned int el, u64 n);
void pmuscope_model_inject(unsigned int cpu, enum pmuscope_reg before_read,
			   u16 event, u64 n);
void pmuscope_model_power_loss(unsigned int cpu);
bool pmuscope_model_irq_line(unsigned int cpu);
void pmuscope_model_run(unsigned int cpu, const struct pmuscope_model_work *w);
void pmuscope_model_run_locked(struct pmuscope_model_cpu *m,
			       const struct pmuscope_model_work *w);
void pmuscope_model_count_locked(struct pmuscope_model_cpu *m, u16 event,
				 unsigned int el, u64 n);
u64 pmuscope_model_pmu_counter_locked(struct pmuscope_model_cpu *m,
				      unsigned int idx);
void pmuscope_model_violation_locked(struct pmuscope_model_cpu *m,
				     enum pmuscope_reg reg, bool write, u64 val);
const struct pmuscope_reg_desc *pmuscope_model_desc(enum pmuscope_reg reg);
void pmuscope_model_set_passthrough(unsigned int cpu, bool on);

#endif /* __PMUSCOPE_MODEL_H */
