/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope register model: PMU snapshots (FEAT_PMUv3_SS) and the fixed
 * instruction counter (FEAT_PMUv3_ICNTR).
 *
 * Included by pmuscope_model.h. The core (pmuscope_model.c) checks the gate
 * and the access rule of every register from the generated table, then
 * calls the hooks below with the CPU's model lock held and IRQs off.
 *
 * The modelled CPU implements EL3 and EL2 (as the profiles' ID_AA64PFR0_EL1
 * say), runs the driver at Non-secure EL1, in Non-debug state, with the OS
 * Lock unlocked. What EL3 and EL2 software set in MDCR_EL3 and MDCR_EL2 is
 * not visible to an EL1 driver: it is model state, set per CPU by the test
 * control pmuscope_model_ss_set_firmware().
 *
 * Snapshot capture timing (a model choice; the Arm ARM says only that a
 * Capture event completes some time after it is requested): a capture
 * requested by PMSSCR_EL1.SS = 1 stays pending while the next @delay reads
 * of PMSSCR_EL1 return SS = 1; it completes at the instant of the read
 * after those, just before that read returns SS = 0. Every counter is
 * copied at that one instant. PMUSCOPE_MODEL_SS_NEVER: it never completes.
 */
#ifndef __PMUSCOPE_MODEL_SS_H
#define __PMUSCOPE_MODEL_SS_H

#include <linux/limits.h>
#include <linux/types.h>

#include "pmuscope_hw.h"

struct pmuscope_model_cpu;
struct pmuscope_model_work;

/* A capture delay (in PMSSCR_EL1 reads) that never ends. */
#define PMUSCOPE_MODEL_SS_NEVER		U32_MAX

/*
 * What a snapshot register reads before the first capture and after a
 * power loss (architecturally UNKNOWN): a value no counter would hold.
 */
#define PMUSCOPE_MODEL_SS_POISON	0xdeadbeefdeadbeefULL

/* Arm ARM D13.9, Table D13-10: what the controls make of Capture events. */
enum pmuscope_model_ss_capture {
	PMUSCOPE_MODEL_SS_DISABLED,	/* PMSSCR_EL1.SS ignores writes */
	PMUSCOPE_MODEL_SS_PROHIBITED,	/* a capture completes with NC = 1 */
	PMUSCOPE_MODEL_SS_ALLOWED,	/* a capture copies the counters */
};

/*
 * What a CPU profile says of this unit beyond its ID registers: the
 * firmware state at reset and the capture delay. A NULL profile means
 * firmware that hands both controls down to EL1 (MDCR_EL3.PMSSE = 0b01,
 * MDCR_EL2.PMSSE = 0b01, EnPMSS = EnPM2 = 1) and a delay of 0.
 */
struct pmuscope_model_ss_profile {
	u32 delay;		/* PMSSCR_EL1 reads that still see SS = 1 */
	u8 mdcr_el3_pmsse;	/* MDCR_EL3.PMSSE */
	u8 mdcr_el2_pmsse;	/* MDCR_EL2.PMSSE */
	bool enpmss;		/* MDCR_EL3.EnPMSS: snapshot registers not trapped */
	bool enpm2;		/* MDCR_EL3.EnPM2: PMECR, PMICNTR, PMICFILTR not trapped */
};

extern const struct pmuscope_model_ss_profile pmuscope_model_ss_v94;

/* The counters a capture copies: PMEVCNTR<n>_EL0, PMCCNTR_EL0, PMICNTR_EL0. */
struct pmuscope_model_ss_svr {
	u64 ev[PMUSCOPE_MAX_EVENT_COUNTERS];
	u64 cc;
	u64 ic;
};

/* Synchronization of the snapshot registers after a capture (D13.9). */
enum pmuscope_model_ss_sync {
	PMUSCOPE_MODEL_SS_SYNCED,	/* reads see the last capture */
	PMUSCOPE_MODEL_SS_COMPLETED,	/* captured, completion not yet observed */
	PMUSCOPE_MODEL_SS_OBSERVED,	/* SS = 0 read, no ISB since */
};

/* The unit's architectural state on one modelled CPU. */
struct pmuscope_model_ss {
	/* Firmware (EL3 and EL2 software): pmuscope_model_ss_set_firmware(). */
	u8 mdcr_el3_pmsse;
	u8 mdcr_el2_pmsse;
	bool enpmss;
	bool enpm2;
	/* Who owns EL2 (pmuscope_hw_el2() of the driver): set by the test. */
	enum pmuscope_hw_el2 el2;
	u64 mdcr_el2_rest;	/* MDCR_EL2 without PMSSE, as written at EL2 */
	/*
	 * KVM on a VHE host (pmuscope_model_ss_vcpu_load()): while one of its
	 * vCPUs is loaded on the CPU, MDCR_EL2 holds the guest's value and
	 * KVM keeps the host's, which it writes back at the put.
	 */
	bool vcpu_loaded;
	u64 mdcr_el2_host;

	u64 pmecr;		/* PMECR_EL1 */
	bool nc;		/* PMSSCR_EL1.NC */
	bool pending;		/* a Capture event is ongoing: PMSSCR_EL1.SS reads 1 */
	bool pending_allowed;	/* ... and it is allowed (else prohibited) */
	u32 delay;		/* PMSSCR_EL1 reads each capture stays pending */
	u32 polls_left;		/* of the ongoing capture */

	struct pmuscope_model_ss_svr svr;	/* written by the last capture */
	struct pmuscope_model_ss_svr vis;	/* what reads return (see _sync) */
	enum pmuscope_model_ss_sync sync;

	/* Instrumentation for the tests. */
	unsigned int requests;		/* Capture events generated */
	unsigned int captures;		/* ... completed with NC = 0 */
	unsigned int prohibited;	/* ... completed with NC = 1 */
	unsigned int ignored;		/* SS = 1 writes ignored: capture disabled */
	unsigned int stale_reads;	/* SVR reads before the capture was synced */
};

/* Hooks of the core (m->lock held). */
void pmuscope_model_ss_reset(struct pmuscope_model_cpu *m);
u64 pmuscope_model_ss_read(struct pmuscope_model_cpu *m, enum pmuscope_reg reg);
void pmuscope_model_ss_write(struct pmuscope_model_cpu *m, enum pmuscope_reg reg,
			     u64 val);
void pmuscope_model_ss_barrier(struct pmuscope_model_cpu *m,
			       enum pmuscope_barrier b);
void pmuscope_model_ss_run(struct pmuscope_model_cpu *m,
			   const struct pmuscope_model_work *w);
void pmuscope_model_ss_power_loss(struct pmuscope_model_cpu *m);
u64 pmuscope_model_ss_f0_mask(struct pmuscope_model_cpu *m);
void pmuscope_model_ss_count_inst_locked(struct pmuscope_model_cpu *m,
					 unsigned int el, u64 n);

/* Test controls (take m->lock). */
void pmuscope_model_ss_set_firmware(unsigned int cpu, u8 mdcr_el3_pmsse,
				    u8 mdcr_el2_pmsse, bool enpmss, bool enpm2);
void pmuscope_model_ss_set_delay(unsigned int cpu, u32 polls);
void pmuscope_model_ss_external_request(unsigned int cpu);
void pmuscope_model_ss_set_el2(unsigned int cpu, enum pmuscope_hw_el2 el2);
void pmuscope_model_ss_vcpu_load(unsigned int cpu, u64 guest_mdcr_el2);
u64 pmuscope_model_ss_vcpu_put(unsigned int cpu);
void pmuscope_model_syscnt_advance(u64 ticks);
enum pmuscope_model_ss_capture pmuscope_model_ss_capture_state(unsigned int cpu);

#endif /* __PMUSCOPE_MODEL_SS_H */
