/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope register model: the Statistical Profiling Extension.
 *
 * Included by pmuscope_model.h. The core (pmuscope_model.c) checks the gate
 * and the access rule of every register from the generated table, then
 * calls the hooks below with the CPU's model lock held and IRQs off.
 *
 * What is modelled (Arm ARM chapters D17 "The Statistical Profiling
 * Extension", D18 "Statistical Profiling Extension Sample Record
 * Specification", D24.7 "Statistical Profiling Extension registers" and the
 * SPE pseudocode of J1.1.1): the writable bits of every register, the
 * operation counter PMSICR_EL1 with its jitter, the filters, sample records
 * in the real packet format written at PMBPTR_EL1, buffer full, discard
 * mode, Profiling Buffer management events (faults, external aborts, data
 * loss, collisions), PMBIRQ, and the PSB CSYNC synchronization rules. The
 * Profiling Buffer is owned by EL1 in Non-secure state (the model has no
 * EL2/EL3 state: PMSCR_EL2.PA reads as 1, CNTVOFF_EL2 as 0).
 *
 * The SPU writes only into memory a test or the driver registered with
 * pmuscope_model_spe_add_buffer(); a write anywhere else is reported as a
 * stage 1 translation fault and counted as a violation, and never touches
 * the memory.
 */
#ifndef __PMUSCOPE_MODEL_SPE_H
#define __PMUSCOPE_MODEL_SPE_H

#include <linux/types.h>

#include "pmuscope_hw.h"

struct pmuscope_model_cpu;
struct pmuscope_model_work;

/* Registered buffers per CPU; bytes of one record, padding included. */
#define PMUSCOPE_MODEL_SPE_BUFFERS	4
#define PMUSCOPE_MODEL_SPE_REC_MAX	128
/* Records the SPU holds (in flight) or has written but not completed. */
#define PMUSCOPE_MODEL_SPE_QUEUE	4

/* PMU events the SPU generates (Arm ARM D14.2, Table D14-2). */
#define PMUSCOPE_MODEL_SPE_EV_SAMPLE_POP	0x4000
#define PMUSCOPE_MODEL_SPE_EV_SAMPLE_FEED	0x4001
#define PMUSCOPE_MODEL_SPE_EV_SAMPLE_FILTRATE	0x4002
#define PMUSCOPE_MODEL_SPE_EV_SAMPLE_COLLISION	0x4003

/* Latencies (cycles) above which a load misses a level (invented). */
#define PMUSCOPE_MODEL_SPE_L1_HIT	4
#define PMUSCOPE_MODEL_SPE_L2_HIT	12
#define PMUSCOPE_MODEL_SPE_LLC_HIT	40

/*
 * Faults a test can inject with pmuscope_model_spe_inject(); each applies
 * once, at the next record the SPU writes (a collision at the next sampled
 * operation).
 */
enum pmuscope_model_spe_fault {
	PMUSCOPE_MODEL_SPE_FAULT_NONE,
	PMUSCOPE_MODEL_SPE_FAULT_S1_TRANSLATION,	/* EC 0x24, Translation L3 */
	PMUSCOPE_MODEL_SPE_FAULT_S2_TRANSLATION,	/* EC 0x25, Translation L3 */
	PMUSCOPE_MODEL_SPE_FAULT_ALIGNMENT,		/* EC 0x24, Alignment */
	PMUSCOPE_MODEL_SPE_FAULT_EXT_ABORT,		/* EA = 1 */
	PMUSCOPE_MODEL_SPE_FAULT_DATA_LOSS,		/* access not allowed, DL = 1 */
	PMUSCOPE_MODEL_SPE_FAULT_COLLISION,		/* COLL = 1, not stopped */
	PMUSCOPE_MODEL_SPE_FAULT_NR,
};

/*
 * What a CPU profile says of this unit beyond its ID registers (all
 * IMPLEMENTATION DEFINED or from ID registers the core profile lacks).
 * NULL: the defaults of pmuscope_model_spe.c.
 */
struct pmuscope_model_spe_profile {
	bool ecv;		/* ID_AA64MMFR0_EL1.ECV != 0: PMSCR_EL1.PCT[1] exists */
	u8 events_bytes;	/* Events packet payload: 2 or 4 bytes */
	u8 inflight;		/* records the SPU holds before writing them */
	/*
	 * Firmware keeps SPE for EL3 (MDCR_EL3.NSPB selects the other
	 * Security state, as TF-A's spe_disable() leaves it): PMBIDR_EL1.P
	 * reads 1 and every other PMS* and PMB* register traps to EL3.
	 */
	bool el3_owner;
};

extern const struct pmuscope_model_spe_profile pmuscope_model_spe_el3;

extern const struct pmuscope_model_spe_profile pmuscope_model_spe_n1;
extern const struct pmuscope_model_spe_profile pmuscope_model_spe_v94;

/* A record the SPU holds, or has written at @addr and not completed. */
struct pmuscope_model_spe_record {
	u64 addr;
	u16 len;
	u8 data[PMUSCOPE_MODEL_SPE_REC_MAX];
};

/* Memory the SPU may write: a test's or the driver's buffer. */
struct pmuscope_model_spe_buffer {
	unsigned long va;
	size_t size;
};

/* The unit's architectural state on one modelled CPU. */
struct pmuscope_model_spe {
	/* The registers as the SPU sees them. */
	u64 pmscr;
	u64 pmsicr;
	u64 pmsirr;
	u64 pmsfcr;
	u64 pmsevfr;
	u64 pmsnevfr;
	u64 pmslatfr;
	u64 pmblimitr;
	u64 pmbptr;
	u64 pmbsr;
	/*
	 * What a direct read returns: the SPU's indirect writes to PMBPTR_EL1
	 * and PMBSR_EL1 become visible at a PSB CSYNC, COLL at a context
	 * synchronization event (Arm ARM D17.9, D17.3.7).
	 */
	u64 pmbptr_seen;
	u64 pmbsr_seen;
	bool coll_pending;

	/* Collected records not yet written (D17.4: lost if disabled). */
	unsigned int ninflight;
	struct pmuscope_model_spe_record inflight[PMUSCOPE_MODEL_SPE_QUEUE];
	/* Written records whose memory writes have not completed (D17.9). */
	unsigned int nstaged;
	unsigned int nsynced;	/* of which synchronized by a PSB CSYNC */
	struct pmuscope_model_spe_record staged[PMUSCOPE_MODEL_SPE_QUEUE];

	bool start_pending;	/* profiling (re)enabled: check RHXSYK/RHLXGD */
	bool interval_flagged;	/* PMSIRR_EL1.INTERVAL == 0 reported */
	enum pmuscope_model_spe_fault inject;
	u32 contextidr;		/* CONTEXTIDR_EL1 the Context packet records */
	u32 rng;		/* SPEGetRandomInterval(): xorshift32, per CPU */
	u64 time;		/* system counter (ns) for Timestamp packets */

	/* Instrumentation for the tests. */
	unsigned int samples;	/* operations selected (SAMPLE_FEED) */
	unsigned int records;	/* records completely written */
	unsigned int lost;	/* collected records discarded unwritten */
	/*
	 * Operations of a workload that profiling, enabled at its start,
	 * let pass unsampled because it stopped on the way (a full buffer
	 * waiting for its PMBIRQ: S = 1): the samples a faster hand-over
	 * would have taken, about stopped_ops / (interval + 1).
	 */
	u64 stopped_ops;
	struct pmuscope_model_spe_buffer buf[PMUSCOPE_MODEL_SPE_BUFFERS];
};

void pmuscope_model_spe_reset(struct pmuscope_model_cpu *m);
u64 pmuscope_model_spe_read(struct pmuscope_model_cpu *m, enum pmuscope_reg reg);
void pmuscope_model_spe_write(struct pmuscope_model_cpu *m, enum pmuscope_reg reg,
			      u64 val);
void pmuscope_model_spe_barrier(struct pmuscope_model_cpu *m,
				enum pmuscope_barrier b);
void pmuscope_model_spe_run(struct pmuscope_model_cpu *m,
			    const struct pmuscope_model_work *w);

/* Test controls (take the CPU's model lock). */
int pmuscope_model_spe_add_buffer(unsigned int cpu, void *va, size_t size);
int pmuscope_model_spe_remove_buffer(unsigned int cpu, void *va);
void pmuscope_model_spe_inject(unsigned int cpu, enum pmuscope_model_spe_fault f);
void pmuscope_model_spe_set_contextidr(unsigned int cpu, u32 contextidr);
bool pmuscope_model_spe_irq_line(unsigned int cpu);
bool pmuscope_model_spe_unmapped_at_el0(void);
void pmuscope_model_spe_set_kpti(bool on);

#endif /* __PMUSCOPE_MODEL_SPE_H */
