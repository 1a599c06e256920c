// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope register model: see pmuscope_model_amu.h.
 */

#include <linux/bitfield.h>
#include <linux/kernel.h>

#include "pmuscope_model.h"

void pmuscope_model_amu_reset(struct pmuscope_model_cpu *m)
{
}

u64 pmuscope_model_amu_read(struct pmuscope_model_cpu *m, enum pmuscope_reg reg)
{
	switch (reg) {
	case PMUSCOPE_REG_AMCFGR_EL0:
		return m->prof->amcfgr;
	case PMUSCOPE_REG_AMCGCR_EL0:
		return m->prof->amcgcr;
	case PMUSCOPE_REG_AMCG1IDR_EL0:
		return m->prof->amcg1idr;
	default:
		return 0;
	}
}

void pmuscope_model_amu_write(struct pmuscope_model_cpu *m, enum pmuscope_reg reg,
			      u64 val)
{
}

void pmuscope_model_amu_barrier(struct pmuscope_model_cpu *m,
				enum pmuscope_barrier b)
{
}

void pmuscope_model_amu_run(struct pmuscope_model_cpu *m,
			    const struct pmuscope_model_work *w)
{
}
