// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope register model: see pmuscope_model_spe.h.
 */

#include <linux/bitfield.h>
#include <linux/kernel.h>

#include "pmuscope_model.h"

void pmuscope_model_spe_reset(struct pmuscope_model_cpu *m)
{
}

u64 pmuscope_model_spe_read(struct pmuscope_model_cpu *m, enum pmuscope_reg reg)
{
	switch (reg) {
	case PMUSCOPE_REG_PMSIDR_EL1:
		return m->prof->pmsidr;
	case PMUSCOPE_REG_PMBIDR_EL1:
		return m->prof->pmbidr;
	default:
		return 0;
	}
}

void pmuscope_model_spe_write(struct pmuscope_model_cpu *m, enum pmuscope_reg reg,
			      u64 val)
{
}

void pmuscope_model_spe_barrier(struct pmuscope_model_cpu *m,
				enum pmuscope_barrier b)
{
}

void pmuscope_model_spe_run(struct pmuscope_model_cpu *m,
			    const struct pmuscope_model_work *w)
{
}
