/* SPDX-License-Identifier: GPL-2.0 */
/* pmuscope CLI: what a stat run or interval reports, and its formats. */
#ifndef PMUSCOPE_STAT_OUTPUT_H
#define PMUSCOPE_STAT_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "pmuscope.h"

/* CPUs reported one by one: as many as the library handles. */
#define REPORT_MAX_CPUS		PMUSCOPE_MAX_CPUS

struct report_counter {
	uint32_t number;
	uint32_t flags;			/* PMUSCOPE_EV_* of the event */
	const char *name;		/* CPU_CYCLES */
	const char *label;		/* cycles, as given */
	uint64_t count;			/* sum over CPUs (scaled where needed) */
	uint64_t time_enabled;		/* sum over CPUs, ns */
	uint64_t time_running;
	uint32_t vflags;		/* PMUSCOPE_VAL_* of any CPU */
	uint64_t cpu_count[REPORT_MAX_CPUS];
	uint32_t cpu_vflags[REPORT_MAX_CPUS];
	uint64_t cpu_enabled[REPORT_MAX_CPUS];	/* -x's run time and percentage */
	uint64_t cpu_running[REPORT_MAX_CPUS];
};

/* How a report's counts are split (perf stat's aggregation modes). */
enum report_aggr {
	REPORT_AGGR_GLOBAL,		/* one row a counter (default) */
	REPORT_AGGR_NONE,		/* -A: one row a counter and CPU */
	REPORT_AGGR_CORE,		/* --per-core: one row a core and counter */
};

/* Where a CPU is: sysfs's topology/{physical_package_id,die_id,core_id}. */
struct report_topo {
	int socket, die, core;
};

/*
 * Running mean and spread of a value over the runs of stat -r, as perf's
 * struct stats (Welford's method).
 */
struct report_stats {
	double n, mean, M2;
};

/* A metric's value (stat -M, --topdown): filled by metrics.c. */
struct report_mrow {
	const char *name;		/* frontend_bound */
	const char *unit;		/* as printed: "%", "MPKI", "per cycle" */
	const char *group;		/* the group it was asked by, or NULL */
	double value;			/* ScaleUnit applied; NaN: not counted */
	int multiplexed;		/* an input counted part of the time */
};

enum report_kind {
	REPORT_TOTAL,
	REPORT_INTERVAL,
};

struct report {
	enum report_kind kind;
	double time_s;			/* interval: end, seconds since start */
	double elapsed_s;		/* total: seconds counted */
	char cpus[4096];		/* "0-1"; empty for a task */
	int task;			/* counted the command (and children), not CPUs */
	unsigned int ncpus;
	int cpu_ids[REPORT_MAX_CPUS];
	unsigned int ncounters;
	struct report_counter c[PMUSCOPE_MAX_EVENTS];
	char *const *command;		/* NULL: none */
	int exit_status;		/* total with a command, else -1 */
	int per_cpu;			/* print per-CPU values */
	unsigned int kernel_el;		/* pmuscope_kernel_el(): what "k" is */
	/* perf stat's options (builtin-stat.c): */
	const char *pids, *tids;	/* -p, -t as given; NULL: none */
	const char *csv_sep;		/* -x SEP: perf's CSV; NULL: none */
	enum report_aggr aggr;		/* -A, --per-core */
	struct report_topo topo[REPORT_MAX_CPUS];	/* --per-core: of cpu_ids[k] */
	unsigned int runs;		/* -r N: the counts are means of N runs */
	double noise[PMUSCOPE_MAX_EVENTS];	/* -r: stddev of each mean */
	double elapsed_sd;		/* -r: stddev of the mean elapsed time */
	unsigned int nmrows;		/* metrics (stat -M) */
	const struct report_mrow *mrows;
	int metric_only;		/* --metric-only: the metrics alone */
};

enum report_format {
	REPORT_TABLE,
	REPORT_JSON,
	REPORT_CSV,
};

/* Derived metrics; NAN where the inputs are missing or zero. */
struct report_metrics {
	double ipc;
	double l1d_miss_ratio;
	double l1d_mpki;
	double branch_miss_ratio;
	double frontend_stall_ratio;
	double backend_stall_ratio;
};

/* One CPU of a snapshot: how it was taken, and its counts. */
struct report_snap_cpu {
	struct pmuscope_snap_info info;
	uint64_t count[PMUSCOPE_MAX_EVENTS];	/* scaled where multiplexed */
	uint32_t vflags[PMUSCOPE_MAX_EVENTS];	/* PMUSCOPE_VAL_* */
};

/* One snapshot of a run of pmuscope snapshot. */
struct report_snapshot {
	unsigned int seq;		/* 0, 1, ...: its place in the run */
	double time_s;			/* seconds from enabling to the request */
	uint64_t freq;			/* system counter, Hz */
	uint64_t skew;			/* latest minus earliest capture, ticks */
	unsigned int kernel_el;		/* pmuscope_kernel_el(): what "k" is */
	unsigned int nevents;
	const struct pmuscope_event_spec *evs;	/* in configuration order */
	unsigned int ncpus;
	const struct report_snap_cpu *cpus;	/* in ascending CPU order */
};

void report_metrics(const struct report *r, struct report_metrics *m);
void report_event_key(const struct pmuscope_event_spec *evs, unsigned int i,
		      unsigned int kernel_el, char *buf, size_t len);
void report_snap_fill(struct report_snap_cpu *rows, const struct pmuscope_snap_info *info,
		      unsigned int ncpus, const struct pmuscope_count *vals,
		      unsigned int nv, unsigned int nevents);
uint64_t report_snap_time(const struct report_snapshot *s);
void report_snap_methods(const struct report_snapshot *s, char *buf, size_t len);
void report_snapshot_print(FILE *f, const struct report_snapshot *s,
			   enum report_format fmt, int first);
void report_print(FILE *f, const struct report *r, enum report_format fmt,
		  int first);
void report_stats_update(struct report_stats *s, double v);
double report_stats_stddev(const struct report_stats *s);
double report_rel_stddev(double stddev, double avg);
int report_topo_read(int cpu, struct report_topo *t);
void report_thousands(uint64_t v, char *buf, size_t len);
/*
 * @s as a JSON string: valid UTF-8 kept, control characters \u00XX, each
 * invalid UTF-8 sequence \ufffd. Every JSON output's strings go through it.
 */
void report_json_str(FILE *f, const char *s);

#endif
