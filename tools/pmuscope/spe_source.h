/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where `pmuscope spe record` gets SPE data: the driver's SPE session
 * (PMUSCOPE_IOC_SPE_START on /dev/pmuscope, spe_kernel.c) or, on a stock
 * kernel whose SPE belongs to perf's arm_spe_pmu driver, perf's arm_spe
 * PMU through perf_event_open() and its AUX buffer (spe_perf.c). Both hand
 * the data over in the driver's chunk format (struct pmuscope_spe_chunk
 * followed by the raw SPE packets), so the data file, the decoder and the
 * report do not care which one ran.
 */
#ifndef PMUSCOPE_SPE_SOURCE_H
#define PMUSCOPE_SPE_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/pmuscope.h>

#define SPE_MAX_CPUS	4096

struct spe_opts {
	uint64_t cpus[SPE_MAX_CPUS / 64];	/* CPUs to profile (bitmap) */
	pid_t pid;		/* > 0: only this task (a source that cannot: -EOPNOTSUPP) */
	uint32_t flags;		/* PMUSCOPE_SPE_* */
	uint32_t ops;		/* PMUSCOPE_SPE_OP_*; 0 = every operation */
	uint64_t interval;	/* operations between samples; 0 = the minimum */
	uint64_t events;	/* PMSEVFR_EL1 filter; 0 = off */
	uint64_t nevents;	/* PMSNEVFR_EL1 filter; 0 = off */
	uint32_t min_latency;	/* PMSLATFR_EL1.MINLAT; 0 = off */
	/* kernel source: the session's one ring; perf: each event's AUX ring */
	uint32_t buffer_kib;	/* 0 = the source's default */
	uint32_t hw_kib;	/* per CPU profiling buffer (kernel source); 0 = default */
};

/* One chunk, in order for its CPU. Return 0 to go on, a negative errno to stop. */
typedef int (*spe_emit_fn)(void *ctx, const struct pmuscope_spe_chunk *c,
			   const void *data);

struct spe_source {
	const char *name;	/* "kernel", "perf" */
	/*
	 * 0, or a negative errno and @why saying why this source cannot
	 * profile. -EOPNOTSUPP / -ENODEV / -ENOENT / -EBUSY: try the next
	 * source; anything else is the user's error (bad option, EPERM).
	 */
	int (*open)(const struct spe_opts *o, void **state, char *why, size_t whylen);
	int (*enable)(void *state);
	int (*disable)(void *state);
	/*
	 * Wait at most @timeout_ms for data (poll()), then emit every chunk
	 * available. Returns the chunks emitted, or a negative errno.
	 */
	int (*drain)(void *state, int timeout_ms, spe_emit_fn emit, void *ctx);
	/* Each CPU's accounting, at most @n; returns how many, or -errno. */
	int (*status)(void *state, struct pmuscope_spe_cpu *cpus, int n, uint64_t *freq);
	void (*close)(void *state);
};

extern const struct spe_source spe_source_kernel;	/* spe_kernel.c */
extern const struct spe_source spe_source_perf;		/* spe_perf.c */

#endif /* PMUSCOPE_SPE_SOURCE_H */
