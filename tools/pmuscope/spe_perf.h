/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf source of `pmuscope spe record` (spe_perf.c): its pure parts,
 * declared here for tests/tools/test_spe_perf.c, which runs them on the
 * host without perf or SPE. Nothing else should include this file.
 *
 * NOT RUN ON SILICON: this path has been tested only with synthetic
 * rings on x86 (no machine here has SPE, and QEMU does not emulate it).
 */
#ifndef PMUSCOPE_SPE_PERF_H
#define PMUSCOPE_SPE_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include "spe_source.h"

/*
 * perf_event_attr with config3 (Linux 6.3, PERF_ATTR_SIZE_VER8), which
 * arm_spe_pmu uses for inv_event_filter; the build's UAPI headers may be
 * older (Debian 12: 6.1).
 */
struct spe_perf_attr {
	struct perf_event_attr a;
#ifndef PERF_ATTR_SIZE_VER8
	uint64_t config3;
#endif
};
#ifdef PERF_ATTR_SIZE_VER8
#define SPE_PERF_CONFIG3(x)	((x)->a.config3)
#else
#define SPE_PERF_CONFIG3(x)	((x)->config3)
#endif
#define SPE_PERF_ATTR_SIZE	136	/* up to and with config3 */

/* One format field of the PMU (sysfs .../format/NAME: "config1:0-63"). */
#define SPE_FMT_RANGES	4
struct spe_fmt_field {
	bool present;
	uint8_t cfg;		/* 0: config, 1: config1, 2: config2, 3: config3 */
	uint8_t nr;		/* bit ranges, in order from the value's bit 0 */
	uint8_t lo[SPE_FMT_RANGES], hi[SPE_FMT_RANGES];
};

/* Parse a format file's text; 0 or -EINVAL. */
int spe_perf_parse_format(const char *text, struct spe_fmt_field *f);
/* Bits the field can hold (sum of its ranges). */
unsigned int spe_fmt_width(const struct spe_fmt_field *f);
/* Put @val into @attr's config word of @f; -ERANGE if it does not fit. */
int spe_fmt_set(const struct spe_fmt_field *f, struct spe_perf_attr *attr, uint64_t val);
uint64_t spe_fmt_get(const struct spe_fmt_field *f, const struct spe_perf_attr *attr);

enum spe_fmt_id {
	SPE_F_TS, SPE_F_PA, SPE_F_PCT, SPE_F_JITTER, SPE_F_BRANCH, SPE_F_LOAD,
	SPE_F_STORE, SPE_F_EVENT, SPE_F_INV_EVENT, SPE_F_MIN_LAT, SPE_F_DISCARD,
	SPE_F_NR
};
extern const char *const spe_fmt_names[SPE_F_NR];

/* A CPU list as sysfs prints it ("0-3,8\n") into a bitmap; 0 or -EINVAL. */
int spe_perf_parse_cpulist(const char *text, uint64_t *bits, size_t words);

/* One arm_spe_N PMU, from sysfs. */
struct spe_perf_pmu {
	char name[32];
	uint32_t type;
	uint32_t min_interval;		/* caps/min_interval; 0: unknown */
	uint64_t cpus[SPE_MAX_CPUS / 64];
	struct spe_fmt_field f[SPE_F_NR];
};

/*
 * The perf_event_attr for @o on @pmu; 0, or a negative errno and @why:
 * -EINVAL for a bad option, -EOPNOTSUPP for what this kernel's arm_spe
 * cannot do (a format field it lacks).
 */
int spe_perf_build_attr(const struct spe_perf_pmu *pmu, const struct spe_opts *o,
			uint32_t aux_bytes, struct spe_perf_attr *attr,
			char *why, size_t whylen);

/*
 * Privilege: perf_allow_kernel() is paranoid <= 1 or CAP_PERFMON /
 * CAP_SYS_ADMIN; perf_allow_cpu() is paranoid <= 0 or those.
 */
bool spe_perf_cap_perfmon(uint64_t capeff);
/* Why perf_event_open()/mmap() said @err (positive errno); returns -err. */
int spe_perf_explain(int err, int paranoid, uint64_t capeff, const struct spe_opts *o,
		     bool per_cpu, bool at_mmap, char *why, size_t whylen);

/* perf time (ns) to the system counter: the mmap page's time_* fields. */
struct spe_perf_tconv {
	bool ok;			/* cap_user_time_zero */
	uint16_t shift;
	uint32_t mult;
	uint64_t zero;
};
uint64_t spe_perf_ns_to_cnt(uint64_t ns, const struct spe_perf_tconv *t);

/* What one CPU's data came with (struct pmuscope_spe_cpu's fields). */
struct spe_perf_acct {
	bool present;
	uint64_t bytes;			/* SPE data emitted */
	uint32_t fills;			/* PERF_RECORD_AUX with data */
	uint32_t truncated;		/* ... with PERF_AUX_FLAG_TRUNCATED */
	uint32_t partial;		/* ... with _PARTIAL (PMBSR_EL1.DL in arm_spe_pmu) */
	uint32_t collisions;		/* ... with _COLLISION */
	uint64_t lost_records;		/* PERF_RECORD_LOST (per CPU events only) */
	uint64_t gap_bytes;		/* AUX data whose record was lost (emitted, C_LOST) */
	uint64_t pad_bytes;		/* zero padding between records (skipped) */
};

/*
 * One event's rings, as mapped: @pc the control page, @data the data
 * ring (@data_size bytes, a power of 2), @aux the AUX ring (@aux_size,
 * a power of 2). The consumer's state lives here too.
 */
struct spe_perf_ring {
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t data_size;
	unsigned char *aux;
	uint64_t aux_size;
	unsigned char *scratch;		/* aux_size bytes: a chunk that wraps */
	int cpu;			/* the event's CPU; -1: per task */
	uint64_t sample_type;		/* of sample_id_all (TID, TIME, CPU) */
	struct spe_perf_tconv tconv;

	uint64_t aux_pos;		/* consumed up to; == what aux_tail was set to */
	uint32_t pending;		/* PMUSCOPE_SPE_C_* for the next chunk */
	bool need_enable;		/* perf disabled the event (truncation) */
	uint32_t stall_drains;		/* drains the first record waited for aux_head */
	uint64_t malformed;		/* data ring records that made no sense */
	uint64_t lost_records;		/* PERF_RECORD_LOST: records of the data ring */
	uint64_t itrace_starts;		/* PERF_RECORD_ITRACE_START */
};

/*
 * Consume what the rings hold: each PERF_RECORD_AUX's data becomes a
 * chunk (flags mapped, @extra_flags added), then data_tail and aux_tail
 * are set to exactly what was consumed. @now is the chunk time when the
 * record has none. @acct is indexed by CPU (@nacct entries). Returns the
 * chunks emitted, or emit's negative errno (what was emitted before it is
 * consumed). A data ring record that cannot be parsed (bad size) makes it
 * skip everything up to data_head and flag the next chunk C_LOST: it never
 * loops or reads past data_head.
 */
int spe_perf_consume(struct spe_perf_ring *r, struct spe_perf_acct *acct, int nacct,
		     uint64_t now, uint32_t extra_flags, spe_emit_fn emit, void *ctx);

/*
 * Test seams: the system calls the open path makes, and the sysfs and
 * procfs roots it reads (NULL: "/sys", "/proc").
 */
struct spe_perf_sys {
	int (*perf_event_open)(struct spe_perf_attr *attr, pid_t pid, int cpu,
			       int group_fd, unsigned long flags);
	int (*ioctl)(int fd, unsigned long req, unsigned long arg);
	const char *sysfs;
	const char *procfs;
};
extern struct spe_perf_sys spe_perf_sys;

#endif /* PMUSCOPE_SPE_PERF_H */
