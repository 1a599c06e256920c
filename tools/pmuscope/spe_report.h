/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope spe report's arithmetic, apart from its output so that the
 * host tests check it on hand-made data: the records of SPE chunks
 * counted by operation, PC, load latency, data source and event.
 */
#ifndef PMUSCOPE_SPE_REPORT_H
#define PMUSCOPE_SPE_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "pmuscope.h"

/* Load latency buckets: [0, 4), [4, 8), [8, 16), ... [2048, 4096), 4096 and above. */
#define SPE_LAT_BUCKETS		12
extern const uint32_t spe_lat_edges[SPE_LAT_BUCKETS];	/* each bucket's lowest latency */

/* The Events bits a breakdown counts, by bit number (0 .. 18). */
#define SPE_EV_BITS		19

#define SPE_SOURCES		16	/* distinct Data Source values kept; more: "other" */
#define SPE_REPORT_CPUS		1024

struct spe_pc {
	uint64_t pc;
	uint8_t el;
	uint64_t count;
};

struct spe_cpu_acct {
	uint64_t chunks, bytes, lost;
	uint64_t flags[4];		/* chunks with PMUSCOPE_SPE_C_ LOST, COLLISION, STOPPED, FINAL */
};

struct spe_stats {
	/* Filter: with @pid_filter, only records whose Context packet is @pid. */
	int pid_filter;
	uint32_t pid;

	uint64_t chunks, data_bytes, lost_bytes;
	uint64_t chunk_flags[4];	/* LOST, COLLISION, STOPPED, FINAL */
	uint64_t records, partial, bad_packets, unknown_packets;
	uint64_t with_context, filtered_out;
	uint64_t loads, stores, branches, other;
	uint64_t el[4];			/* records by the PC's EL */
	uint64_t lat_hist[SPE_LAT_BUCKETS];	/* loads with a total latency */
	uint64_t lat_loads, lat_sum, lat_max;
	uint64_t ev[SPE_EV_BITS];	/* records with Events bit n */
	uint64_t ev_loads[SPE_EV_BITS];	/* loads with Events bit n */
	uint64_t src_value[SPE_SOURCES], src_count[SPE_SOURCES];
	unsigned int nr_src;
	uint64_t src_other, src_loads;
	/* Hot PCs: an open-addressed table. */
	struct spe_pc *pcs;
	size_t nr_pcs, pcs_room;
	struct spe_cpu_acct *cpu;	/* SPE_REPORT_CPUS */
};

int spe_stats_init(struct spe_stats *s);
void spe_stats_free(struct spe_stats *s);
/* The bucket of a load's total latency. */
unsigned int spe_lat_bucket(uint32_t lat);
/* One record (after the pid filter). */
int spe_stats_record(struct spe_stats *s, const struct pmuscope_spe_record *r);
/* One chunk: its accounting, then each record of its data. */
int spe_stats_chunk(struct spe_stats *s, const struct pmuscope_spe_chunk *c,
		    const unsigned char *data);
/* The hot PCs, most samples first (ties: lower PC first); @out gets min(n, nr_pcs). */
size_t spe_stats_top(const struct spe_stats *s, struct spe_pc *out, size_t n);

#endif
