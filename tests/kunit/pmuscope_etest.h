/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit: what the engine suites share (tests/kunit/pmuscope_engine_test.c):
 * one CPU's PMU set up from a model profile, counters given to a dummy
 * owner, entry points called as the driver calls them.
 */
#ifndef __PMUSCOPE_ETEST_H
#define __PMUSCOPE_ETEST_H

#include <kunit/test.h>

#include "pmuscope.h"
#include "pmuscope_model.h"

/* test->priv of the engine suites. */
struct pmuscope_etest {
	unsigned int cpu;		/* the test stays on it */
	struct pmuscope_pmu *pmu;
	struct pmuscope_model_cpu *m;
};

extern struct pmuscope_session pmuscope_etest_owner;

int pmuscope_etest_init(struct kunit *test);
void pmuscope_etest_exit(struct kunit *test);
struct pmuscope_pmu *pmuscope_etest_pmu(struct kunit *test,
					const struct pmuscope_model_profile *prof);
void pmuscope_etest_assign(struct pmuscope_pmu *pmu, unsigned int idx, u32 event,
			   u32 flags);
void pmuscope_etest_call(struct pmuscope_pmu *pmu,
			 void (*fn)(struct pmuscope_pmu *pmu));
void pmuscope_etest_value(struct pmuscope_pmu *pmu, unsigned int idx,
			  struct pmuscope_value *v);
u64 pmuscope_etest_read(struct pmuscope_pmu *pmu, unsigned int idx, u32 *flags);
void pmuscope_etest_expect_log(struct kunit *test, const char *const *expect,
			       bool reads);

#endif /* __PMUSCOPE_ETEST_H */
