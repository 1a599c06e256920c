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
void report_thousands(uint64_t v, char *buf, size_t len);
void report_json_str(FILE *f, const char *s);

#endif
