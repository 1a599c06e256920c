/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope register model: PMU snapshots (FEAT_PMUv3_SS) and the fixed
 * instruction counter (FEAT_PMUv3_ICNTR).
 *
 * Included by pmuscope_model.h. The core (pmuscope_model.c) checks the gate
 * and the access rule of every register from the generated table, then
 * calls the hooks below with the CPU's model lock held and IRQs off.
 */
#ifndef __PMUSCOPE_MODEL_SS_H
#define __PMUSCOPE_MODEL_SS_H

#include <linux/types.h>

#include "pmuscope_hw.h"

struct pmuscope_model_cpu;
struct pmuscope_model_work;

/* What a CPU profile says of this unit beyond its ID registers. */
struct pmuscope_model_ss_profile {
	u32 reserved;
};

/* The unit's architectural state on one modelled CPU. */
struct pmuscope_model_ss {
	u64 reserved;
};

void pmuscope_model_ss_reset(struct pmuscope_model_cpu *m);
u64 pmuscope_model_ss_read(struct pmuscope_model_cpu *m, enum pmuscope_reg reg);
void pmuscope_model_ss_write(struct pmuscope_model_cpu *m, enum pmuscope_reg reg,
			     u64 val);
void pmuscope_model_ss_barrier(struct pmuscope_model_cpu *m,
			       enum pmuscope_barrier b);
void pmuscope_model_ss_run(struct pmuscope_model_cpu *m,
			   const struct pmuscope_model_work *w);

#endif /* __PMUSCOPE_MODEL_SS_H */
