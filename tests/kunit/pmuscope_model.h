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
};

extern const struct pmuscope_model_profile pmuscope_model_cortex_a53;
extern const struct pmuscope_model_profile pmuscope_model_neoverse_n1;
extern const struct pmuscope_model_profile pmuscope_model_v94;
extern const struct pmuscope_model_profile pmuscope_model_no_pmu;
extern const struct pmuscope_model_profile pmuscope_model_impdef_pmu;

#define PMUSCOPE_MODEL_LOG	64
/* Logged in place of a register for an ISB. */
#define PMUSCOPE_MODEL_ISB	PMUSCOPE_REG_NR

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
	u64 pmsscr;
	u64 amcr;

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

#endif /* __PMUSCOPE_MODEL_H */
