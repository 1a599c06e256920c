/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: perf's metrics and metric groups (stat -M, --topdown,
 * --metric-only) from the table scripts/gen-pmu-metrics.py generates
 * (metrics-table.h), evaluated with metric-expr.c.
 */
#ifndef PMUSCOPE_METRICS_H
#define PMUSCOPE_METRICS_H

#include <stdint.h>

#include "cpus-events.h"
#include "parse-options.h"
#include "stat-output.h"

/* One metric of the JSON: its fields as they are there. */
struct pmu_metric {
	const char *name;		/* MetricName */
	const char *groups;		/* MetricGroup: "A;B", or "" */
	const char *expr;		/* MetricExpr */
	const char *scale_unit;		/* ScaleUnit: "1percent of slots", "100%" */
	const char *default_group;	/* DefaultMetricgroupName, or "" */
	const char *desc;		/* BriefDescription */
};

/* A core's metrics: the directory of the JSON, the MIDRs mapfile.csv gives. */
struct pmu_metric_core {
	const char *core;		/* "arm/neoverse-n1"; "sbsa": the generic ones */
	const uint32_t *midrs;
	unsigned int nmidrs;
	const struct pmu_metric *metrics;
	unsigned int nmetrics;
};

/* The cores of the table, sbsa first. */
const struct pmu_metric_core *metrics_core_at(unsigned int i);
/* The table of the core of MIDR @midr (variant and revision aside), or NULL. */
const struct pmu_metric_core *metrics_core_of(uint32_t midr);
/* The scale and the unit perf prints of a ScaleUnit: "1percent of slots": 1, "%". */
double metrics_scale_unit(const char *scale_unit, char *unit, size_t len);

/* stat's options: -M (value 'M'), --topdown ('T'), --metric-only ('O'). */
int metrics_opt(void *ctx, const struct cli_option *opt, char *arg);
/*
 * With -M or --topdown: the chosen CPUs' core, its metrics parsed and
 * their events added to @o (each once): 0, or the exit status (said on
 * stderr). Call before choose_cpus_events(): with no -e, the metrics'
 * events are the only ones.
 */
int metrics_setup(struct stat_opts *o);
/* Whether -M, --topdown or --metric-only was given. */
int metrics_asked(void);
/* Whether --metric-only was given. */
int metrics_only(void);
/* The metrics' values from @r's counts, into @r->mrows (none: nothing). */
void metrics_fill(struct report *r, double duration_s);
/* #slots for metrics_setup() instead of sysfs' PMMIR_EL1.SLOTS (tests). */
void metrics_set_slots(double slots);
/* Free what metrics_setup() made. */
void metrics_free(void);

#define OPT_METRICS() \
	OPT_CALLBACK("metrics", 'M', "METRIC|GROUP[,...]", \
		     "perf's metrics or metric groups of the CPUs' core", \
		     metrics_opt, 'M'), \
	OPT_CALLBACK("topdown", 0, NULL, \
		     "TopdownL1, or on a Cortex-A53 its cycle accounting (A53_Cycle_Accounting)", \
		     metrics_opt, 'T'), \
	OPT_CALLBACK("metric-only", 0, NULL, "print the metrics alone, a column each", \
		     metrics_opt, 'O')

#endif
