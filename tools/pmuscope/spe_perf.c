// SPDX-License-Identifier: GPL-2.0
/*
 * `pmuscope spe record` on a stock kernel: SPE data from perf's arm_spe
 * PMU (drivers/perf/arm_spe_pmu.c) through perf_event_open() and its AUX
 * buffer, handed over in the driver's chunk format (spe_source.h).
 *
 * NOT RUN ON SILICON. This file has been built for arm64 and x86, and its
 * consumption logic and open path have been tested on x86 with synthetic
 * rings and a stand-in for perf_event_open() (tests/tools/test_spe_perf.c);
 * no machine here has SPE and QEMU does not emulate it, so it has never
 * talked to a real arm_spe PMU.
 *
 * Events. Per CPU (no --pid): one event per chosen CPU (pid -1, cpu N) of
 * the arm_spe_N whose cpumask holds it; that needs perf_allow_cpu()
 * (kernel.perf_event_paranoid <= 0 or CAP_PERFMON). Per task (pid > 0):
 * one event per arm_spe_N (pid, cpu -1) when every CPU of its cpumask is
 * chosen, else one per chosen CPU (pid, cpu N). Each event is opened
 * disabled, its data ring (1 + 16 pages) and AUX ring (buffer_kib,
 * PROT_READ|PROT_WRITE: perf then honours aux_tail and never overwrites
 * unread data) mapped, then enabled.
 *
 * Attributes. The config bits come from the PMU's format files, parsed
 * (nothing hard-coded): PMUSCOPE_SPE_TS/PA/PCT/JITTER -> ts_enable,
 * pa_enable, pct_enable, jitter; OP_BRANCH/LOAD/STORE -> branch_filter,
 * load_filter, store_filter; events -> event_filter; nevents ->
 * inv_event_filter (FEAT_SPE_FnE, Linux 6.3+); min_latency ->
 * min_latency; DISCARD -> discard (absent in 6.12: -EOPNOTSUPP). EL0/EL1
 * are exclude_user/exclude_kernel; interval is sample_period (0: the
 * PMU's caps/min_interval). hw_kib has no meaning here: the AUX buffer is
 * the profiling buffer. CX has no format field: arm_spe_pmu writes
 * Context packets by itself when the opener passes perf_allow_kernel()
 * and the kernel has CONFIG_PID_IN_CONTEXTIDR; PMUSCOPE_SPE_CX is refused
 * (EACCES) when the caller cannot pass it, and otherwise only documents
 * the wish (without CONFIG_PID_IN_CONTEXTIDR no CX packets come).
 *
 * Consumption (spe_perf_consume(), pure, tested on the host). The data
 * ring's PERF_RECORD_AUX records say which AUX bytes each buffer
 * hand-over wrote (offset, size, flags); each record with data becomes a
 * chunk. The records are read up to data_head (load-acquire: it pairs with
 * the kernel's smp_wmb() before it stores data_head), AUX data up to
 * aux_head (load-acquire again: the kernel stores aux_head after the
 * record, WRITE_ONCE, and a record whose data is not yet below aux_head is
 * left for the next drain). After the chunks were emitted (the emit
 * function copies them), data_tail and aux_tail are store-released to
 * exactly what was consumed, so no load of the rings can be ordered after
 * the kernel sees the space free (it reads aux_tail in
 * perf_aux_output_begin(), control dependency before its stores).
 * Bytes between two records are arm_spe_pmu's padding (zeros, PAD
 * packets, perf_aux_output_skip()): skipped when zero; when not (a record
 * was lost, PERF_RECORD_LOST) they are emitted as a chunk with
 * PMUSCOPE_SPE_C_LOST.
 *
 * Flags. PERF_AUX_FLAG_TRUNCATED: the buffer had no room, perf disables the
 * event (pending_disable) -> the chunk gets PMUSCOPE_SPE_C_STOPPED, the
 * ring's next chunk PMUSCOPE_SPE_C_LOST (nothing was sampled meanwhile),
 * and the drain re-enables the event (PERF_EVENT_IOC_ENABLE) once it has
 * made room. _PARTIAL (arm_spe_pmu sets it, with TRUNCATED, for
 * PMBSR_EL1.DL: the last record is corrupt) -> C_LOST on the chunk itself.
 * _COLLISION -> PMUSCOPE_SPE_C_COLLISION. _OVERWRITE (never, we map the
 * AUX area writable) -> C_LOST. PERF_RECORD_LOST -> C_LOST on the next
 * chunk. chunk.lost is always 0: perf never says how many bytes were not
 * sampled.
 *
 * Chunk time. With sample_id_all, each PERF_RECORD_AUX carries its perf
 * time (sched_clock ns) and CPU; on arm64 the mmap page's time_zero,
 * time_mult and time_shift (cap_user_time_zero) convert it back to the
 * counter sched_clock reads (the system counter: CNTVCT_EL0, which equals
 * CNTPCT_EL0 on a VHE host), i.e. the counter value when the data was
 * handed over, as the driver's chunks. Without cap_user_time_zero the
 * chunk time is CNTVCT_EL0 read at EL0 when drained; on a host build
 * (x86, tests only) CLOCK_MONOTONIC in ns, and status() says freq 1e9.
 *
 * status(). From what the drains counted: bytes (data emitted), fills
 * (PERF_RECORD_AUX with data), dl_events (records with _PARTIAL, i.e.
 * PMBSR_EL1.DL), collisions (records with _COLLISION). perf cannot
 * provide: pmbsr, lost_ring and lost_dl (bytes: perf counts no bytes lost,
 * only truncation events), stopped_ns, spurious: left 0. state is RUNNING
 * while enabled, STOPPED after disable().
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "spe_perf.h"

#define SPE_PERF_DATA_PAGES	16	/* data ring: AUX records only */
#define SPE_PERF_STALL_MAX	3	/* drains a record may wait for aux_head */

const char *const spe_fmt_names[SPE_F_NR] = {
	[SPE_F_TS] = "ts_enable",
	[SPE_F_PA] = "pa_enable",
	[SPE_F_PCT] = "pct_enable",
	[SPE_F_JITTER] = "jitter",
	[SPE_F_BRANCH] = "branch_filter",
	[SPE_F_LOAD] = "load_filter",
	[SPE_F_STORE] = "store_filter",
	[SPE_F_EVENT] = "event_filter",
	[SPE_F_INV_EVENT] = "inv_event_filter",
	[SPE_F_MIN_LAT] = "min_latency",
	[SPE_F_DISCARD] = "discard",
};

/* ---- format files ---------------------------------------------------- */

int spe_perf_parse_format(const char *s, struct spe_fmt_field *f)
{
	unsigned int total = 0;

	memset(f, 0, sizeof(*f));
	if (strncmp(s, "config", 6))
		return -EINVAL;
	s += 6;
	if (*s >= '1' && *s <= '3')
		f->cfg = (uint8_t)(*s++ - '0');
	if (*s++ != ':')
		return -EINVAL;
	for (;;) {
		unsigned long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		lo = strtoul(s, &end, 10);
		s = end;
		hi = lo;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -EINVAL;
			hi = strtoul(s, &end, 10);
			s = end;
		}
		if (lo > hi || hi > 63 || f->nr == SPE_FMT_RANGES)
			return -EINVAL;
		total += (unsigned int)(hi - lo + 1);
		if (total > 64)
			return -EINVAL;
		f->lo[f->nr] = (uint8_t)lo;
		f->hi[f->nr] = (uint8_t)hi;
		f->nr++;
		if (*s != ',')
			break;
		s++;
	}
	while (*s == '\n' || *s == ' ' || *s == '\t')
		s++;
	if (*s)
		return -EINVAL;
	f->present = true;
	return 0;
}

unsigned int spe_fmt_width(const struct spe_fmt_field *f)
{
	unsigned int w = 0;

	for (unsigned int i = 0; i < f->nr; i++)
		w += f->hi[i] - f->lo[i] + 1u;
	return w;
}

static uint64_t *cfg_word(struct spe_perf_attr *attr, unsigned int cfg)
{
	switch (cfg) {
	case 0: return (uint64_t *)&attr->a.config;
	case 1: return (uint64_t *)&attr->a.config1;
	case 2: return (uint64_t *)&attr->a.config2;
	default: return (uint64_t *)&SPE_PERF_CONFIG3(attr);
	}
}

static uint64_t low_mask(unsigned int w)
{
	return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

int spe_fmt_set(const struct spe_fmt_field *f, struct spe_perf_attr *attr, uint64_t val)
{
	uint64_t *word = cfg_word(attr, f->cfg);

	if (!f->present)
		return -EOPNOTSUPP;
	for (unsigned int i = 0; i < f->nr; i++) {
		unsigned int w = f->hi[i] - f->lo[i] + 1u;
		uint64_t m = low_mask(w);

		*word = (*word & ~(m << f->lo[i])) | ((val & m) << f->lo[i]);
		val = w >= 64 ? 0 : val >> w;
	}
	return val ? -ERANGE : 0;
}

uint64_t spe_fmt_get(const struct spe_fmt_field *f, const struct spe_perf_attr *attr)
{
	uint64_t word = *cfg_word((struct spe_perf_attr *)attr, f->cfg), val = 0;
	unsigned int shift = 0;

	for (unsigned int i = 0; f->present && i < f->nr; i++) {
		unsigned int w = f->hi[i] - f->lo[i] + 1u;

		val |= ((word >> f->lo[i]) & low_mask(w)) << shift;
		shift += w;
	}
	return val;
}

int spe_perf_parse_cpulist(const char *s, uint64_t *bits, size_t words)
{
	memset(bits, 0, words * 8);
	while (*s == ' ')
		s++;
	if (*s == '\n' || !*s)
		return 0;
	for (;;) {
		unsigned long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		lo = strtoul(s, &end, 10);
		s = end;
		hi = lo;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -EINVAL;
			hi = strtoul(s, &end, 10);
			s = end;
		}
		if (lo > hi || hi >= words * 64)
			return -EINVAL;
		for (unsigned long c = lo; c <= hi; c++)
			bits[c / 64] |= 1ULL << (c % 64);
		if (*s != ',')
			break;
		s++;
	}
	while (*s == '\n' || *s == ' ')
		s++;
	return *s ? -EINVAL : 0;
}

/* ---- attributes ------------------------------------------------------ */

static int set_field(const struct spe_perf_pmu *pmu, enum spe_fmt_id id, uint64_t val,
		     struct spe_perf_attr *attr, char *why, size_t whylen)
{
	const struct spe_fmt_field *f = &pmu->f[id];
	int ret;

	if (!f->present) {
		snprintf(why, whylen, "%s has no format/%s: this kernel's arm_spe cannot do it",
			 pmu->name, spe_fmt_names[id]);
		return -EOPNOTSUPP;
	}
	ret = spe_fmt_set(f, attr, val);
	if (ret) {
		snprintf(why, whylen, "%s %llu does not fit %s's %u-bit %s field",
			 spe_fmt_names[id], (unsigned long long)val, pmu->name,
			 spe_fmt_width(f), spe_fmt_names[id]);
		return -EINVAL;
	}
	return 0;
}

int spe_perf_build_attr(const struct spe_perf_pmu *pmu, const struct spe_opts *o,
			uint32_t aux_bytes, struct spe_perf_attr *attr,
			char *why, size_t whylen)
{
	static const struct { uint32_t flag; enum spe_fmt_id id; } flagmap[] = {
		{ PMUSCOPE_SPE_TS, SPE_F_TS },
		{ PMUSCOPE_SPE_PA, SPE_F_PA },
		{ PMUSCOPE_SPE_PCT, SPE_F_PCT },
		{ PMUSCOPE_SPE_JITTER, SPE_F_JITTER },
		{ PMUSCOPE_SPE_DISCARD, SPE_F_DISCARD },
	};
	static const struct { uint32_t op; enum spe_fmt_id id; } opmap[] = {
		{ PMUSCOPE_SPE_OP_BRANCH, SPE_F_BRANCH },
		{ PMUSCOPE_SPE_OP_LOAD, SPE_F_LOAD },
		{ PMUSCOPE_SPE_OP_STORE, SPE_F_STORE },
	};
	const uint32_t known = PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1 | PMUSCOPE_SPE_TS |
		PMUSCOPE_SPE_PA | PMUSCOPE_SPE_CX | PMUSCOPE_SPE_PCT |
		PMUSCOPE_SPE_JITTER | PMUSCOPE_SPE_DISCARD;
	uint64_t period = o->interval;
	int ret;

	memset(attr, 0, sizeof(*attr));
	if (o->flags & ~known) {
		snprintf(why, whylen, "unknown SPE flags 0x%x", o->flags & ~known);
		return -EINVAL;
	}
	if (!(o->flags & (PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1))) {
		snprintf(why, whylen, "sample at EL0, EL1 or both");
		return -EINVAL;
	}
	if (o->ops & ~(PMUSCOPE_SPE_OP_BRANCH | PMUSCOPE_SPE_OP_LOAD | PMUSCOPE_SPE_OP_STORE)) {
		snprintf(why, whylen, "unknown SPE operation filter 0x%x", o->ops);
		return -EINVAL;
	}
	if (period > PMUSCOPE_SPE_INTERVAL_MAX || period % 256) {
		snprintf(why, whylen, "interval %llu: a multiple of 256 up to %llu",
			 (unsigned long long)period, PMUSCOPE_SPE_INTERVAL_MAX);
		return -EINVAL;
	}
	if (!period)	/* arm_spe_pmu raises anything lower to its minimum */
		period = pmu->min_interval ? pmu->min_interval : 256;
	if (pmu->min_interval && period < pmu->min_interval) {
		snprintf(why, whylen, "interval %llu is below %s's minimum %u (caps/min_interval)",
			 (unsigned long long)period, pmu->name, pmu->min_interval);
		return -EINVAL;
	}

	attr->a.type = pmu->type;
	attr->a.size = SPE_PERF_ATTR_SIZE;
	attr->a.sample_period = period;
	attr->a.disabled = 1;
	attr->a.exclude_user = !(o->flags & PMUSCOPE_SPE_EL0);
	attr->a.exclude_kernel = !(o->flags & PMUSCOPE_SPE_EL1);
	attr->a.exclude_hv = attr->a.exclude_kernel;
	/* The AUX records' time and CPU (sample_id_all), see "Chunk time". */
	attr->a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	attr->a.sample_id_all = 1;
	/* Wake poll() at every data ring record and at a quarter of the AUX buffer. */
	attr->a.watermark = 1;
	attr->a.wakeup_watermark = 1;
	attr->a.aux_watermark = aux_bytes / 4;

	for (size_t i = 0; i < sizeof(flagmap) / sizeof(flagmap[0]); i++)
		if (o->flags & flagmap[i].flag) {
			ret = set_field(pmu, flagmap[i].id, 1, attr, why, whylen);
			if (ret)
				return ret;
		}
	for (size_t i = 0; i < sizeof(opmap) / sizeof(opmap[0]); i++)
		if (o->ops & opmap[i].op) {
			ret = set_field(pmu, opmap[i].id, 1, attr, why, whylen);
			if (ret)
				return ret;
		}
	if (o->events) {
		ret = set_field(pmu, SPE_F_EVENT, o->events, attr, why, whylen);
		if (ret)
			return ret;
	}
	if (o->nevents) {
		ret = set_field(pmu, SPE_F_INV_EVENT, o->nevents, attr, why, whylen);
		if (ret)
			return ret;
	}
	if (o->min_latency) {
		ret = set_field(pmu, SPE_F_MIN_LAT, o->min_latency, attr, why, whylen);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- privilege and errors -------------------------------------------- */

#define SPE_CAP_SYS_ADMIN	21
#define SPE_CAP_PERFMON		38

bool spe_perf_cap_perfmon(uint64_t capeff)
{
	return capeff & ((1ULL << SPE_CAP_PERFMON) | (1ULL << SPE_CAP_SYS_ADMIN));
}

int spe_perf_explain(int err, int paranoid, uint64_t capeff, const struct spe_opts *o,
		     bool per_cpu, bool at_mmap, char *why, size_t whylen)
{
	bool cap = spe_perf_cap_perfmon(capeff);

	switch (err) {
	case EPERM:
	case EACCES:
		if (at_mmap && err == EPERM) {
			snprintf(why, whylen, "mmap of the perf AUX buffer: over the locked memory "
				 "limit (kernel.perf_event_mlock_kb, ulimit -l); use a smaller "
				 "--buffer, fewer CPUs, or CAP_IPC_LOCK");
		} else if (cap) {
			snprintf(why, whylen, "perf_event_open(arm_spe): %s although privileged "
				 "(an LSM or seccomp refuses perf?)", strerror(err));
		} else if (paranoid > 2) {
			snprintf(why, whylen, "perf_event_open(arm_spe): %s: kernel.perf_event_paranoid "
				 "is %d, perf is for privileged users only: run as root (or with "
				 "CAP_PERFMON), or lower it (sysctl kernel.perf_event_paranoid=%d)",
				 strerror(err), paranoid, per_cpu ? 0 : 1);
		} else if (per_cpu && paranoid > 0) {
			snprintf(why, whylen, "perf_event_open(arm_spe): %s: profiling CPUs needs "
				 "kernel.perf_event_paranoid <= 0 or CAP_PERFMON (it is %d); "
				 "or profile a task (--pid or a command)", strerror(err), paranoid);
		} else if ((o->flags & (PMUSCOPE_SPE_EL1 | PMUSCOPE_SPE_PA | PMUSCOPE_SPE_PCT |
					PMUSCOPE_SPE_CX)) && paranoid > 1) {
			snprintf(why, whylen, "perf_event_open(arm_spe): %s: EL1 sampling, PA, PCT "
				 "and CX need kernel.perf_event_paranoid <= 1 or CAP_PERFMON (it is %d)",
				 strerror(err), paranoid);
		} else {
			snprintf(why, whylen, "perf_event_open(arm_spe): %s (kernel.perf_event_paranoid "
				 "%d; an LSM may refuse perf too)", strerror(err), paranoid);
		}
		return -err;
	case ENOENT:
		snprintf(why, whylen, "arm_spe refused the event (ENOENT: CPU without SPE?)");
		return -ENOENT;
	case EOPNOTSUPP:
		snprintf(why, whylen, "arm_spe cannot do these options on this CPU (a filter the "
			 "SPE implementation lacks, or event bits it reserves)");
		return -EOPNOTSUPP;
	case ENOSYS:
		snprintf(why, whylen, "perf_event_open() is not available (ENOSYS)");
		return -EOPNOTSUPP;
	case EBUSY:
		snprintf(why, whylen, "SPE is in use by another perf session (arm_spe is exclusive)");
		return -EBUSY;
	case ENODEV:
		snprintf(why, whylen, "perf_event_open(arm_spe): no such device (CPU offline?)");
		return -ENODEV;
	case EINVAL:
		snprintf(why, whylen, "perf_event_open(arm_spe) refused the attributes (EINVAL)");
		return -EINVAL;
	default:
		snprintf(why, whylen, "%s(arm_spe): %s", at_mmap ? "mmap" : "perf_event_open",
			 strerror(err));
		return -err;
	}
}

/* ---- time ------------------------------------------------------------ */

/* tools/perf/util/tsc.c perf_time_to_tsc() */
uint64_t spe_perf_ns_to_cnt(uint64_t ns, const struct spe_perf_tconv *t)
{
	uint64_t d = ns - t->zero, quot, rem;

	if (!t->mult)
		return 0;
	quot = d / t->mult;
	rem = d % t->mult;
	return (quot << t->shift) + (rem << t->shift) / t->mult;
}

static void read_tconv(const struct perf_event_mmap_page *pc, struct spe_perf_tconv *t)
{
	const volatile struct perf_event_mmap_page *v = pc;

	for (int i = 0; i < 1000; i++) {
		uint32_t seq = __atomic_load_n(&v->lock, __ATOMIC_ACQUIRE);

		t->ok = v->cap_user_time_zero;
		t->mult = v->time_mult;
		t->shift = v->time_shift;
		t->zero = v->time_zero;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && __atomic_load_n(&v->lock, __ATOMIC_RELAXED) == seq)
			return;
	}
	t->ok = false;
}

static uint64_t now_cnt(void)
{
#if defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
#endif
}

static uint64_t cnt_freq(void)
{
#if defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
#else
	return 1000000000ULL;
#endif
}

/* ---- consumption ----------------------------------------------------- */

/* Copy @len bytes at free-running @pos of the ring @base/@size (power of 2). */
static void ring_copy(void *dst, const unsigned char *base, uint64_t size, uint64_t pos,
		      uint64_t len)
{
	uint64_t off = pos & (size - 1), first = size - off;

	if (first > len)
		first = len;
	memcpy(dst, base + off, first);
	memcpy((unsigned char *)dst + first, base, len - first);
}

static bool ring_zero(const unsigned char *base, uint64_t size, uint64_t pos, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		if (base[(pos + i) & (size - 1)])
			return false;
	return true;
}

struct sid {
	bool has_time, has_cpu;
	uint64_t time;
	uint32_t cpu;
};

/* sample_id_all's trailer (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER) of @rec. */
static void parse_sid(const unsigned char *rec, uint32_t size, uint32_t body,
		      uint64_t st, struct sid *s)
{
	uint32_t len = 0, off;

	memset(s, 0, sizeof(*s));
	len += (st & PERF_SAMPLE_TID) ? 8 : 0;
	len += (st & PERF_SAMPLE_TIME) ? 8 : 0;
	len += (st & PERF_SAMPLE_ID) ? 8 : 0;
	len += (st & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	len += (st & PERF_SAMPLE_CPU) ? 8 : 0;
	len += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	if (!len || size < body + len)
		return;
	off = size - len;
	if (st & PERF_SAMPLE_TID)
		off += 8;
	if (st & PERF_SAMPLE_TIME) {
		memcpy(&s->time, rec + off, 8);
		s->has_time = true;
		off += 8;
	}
	off += (st & PERF_SAMPLE_ID) ? 8 : 0;
	off += (st & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	if (st & PERF_SAMPLE_CPU) {
		memcpy(&s->cpu, rec + off, 4);
		s->has_cpu = true;
	}
}

struct consume {
	struct spe_perf_ring *r;
	struct spe_perf_acct *acct;
	int nacct;
	uint32_t extra;
	spe_emit_fn emit;
	void *ctx;
	int emitted;
};

static struct spe_perf_acct *acct_of(struct consume *k, int cpu)
{
	return cpu >= 0 && cpu < k->nacct ? &k->acct[cpu] : NULL;
}

/* Emit AUX bytes [pos, pos + len) as one chunk. */
static int emit_aux(struct consume *k, uint64_t pos, uint64_t len, int cpu, uint64_t time,
		    uint32_t flags)
{
	struct spe_perf_ring *r = k->r;
	struct pmuscope_spe_chunk c = { 0 };
	const void *data = NULL;
	uint64_t off = pos & (r->aux_size - 1);
	int ret;

	if (len) {
		if (off + len <= r->aux_size) {
			data = r->aux + off;
		} else {
			if (!r->scratch)
				return -ENOMEM;
			ring_copy(r->scratch, r->aux, r->aux_size, pos, len);
			data = r->scratch;
		}
	}
	c.size = (uint32_t)(sizeof(c) + ((len + 7) & ~7ULL));
	c.cpu = cpu < 0 ? 0 : (uint32_t)cpu;
	c.time = time;
	c.data_size = (uint32_t)len;
	c.flags = flags | k->extra;
	c.lost = 0;	/* perf never says how many bytes were not sampled */
	ret = k->emit(k->ctx, &c, data);
	if (ret < 0)
		return ret;
	k->emitted++;
	return 0;
}

/*
 * One PERF_RECORD_AUX. Returns 0 (consumed), 1 (its data is not below
 * aux_head yet: stop here) or a negative errno from emit.
 */
static int consume_aux(struct consume *k, uint64_t offset, uint64_t size, uint64_t flags,
		       const struct sid *s, uint64_t *aux_head, uint64_t now)
{
	struct spe_perf_ring *r = k->r;
	int cpu = s->has_cpu ? (int)s->cpu : r->cpu;
	struct spe_perf_acct *a = acct_of(k, cpu);
	uint64_t time = now;
	uint32_t cf = 0;
	int ret;

	if (s->has_time && r->tconv.ok)
		time = spe_perf_ns_to_cnt(s->time, &r->tconv);

	if (size > r->aux_size || offset + size < offset) {
		r->malformed++;
		r->pending |= PMUSCOPE_SPE_C_LOST;
		return 0;
	}
	if (offset + size > *aux_head) {
		*aux_head = __atomic_load_n(&r->pc->aux_head, __ATOMIC_ACQUIRE);
		if (offset + size > *aux_head)
			return 1;
	}
	if (offset < r->aux_pos) {
		/* Data already consumed (cannot happen in order): keep the rest. */
		r->malformed++;
		if (offset + size <= r->aux_pos)
			return 0;
		size -= r->aux_pos - offset;
		offset = r->aux_pos;
	}
	if (offset > r->aux_pos) {
		uint64_t gap = offset - r->aux_pos;

		if (gap > r->aux_size) {
			r->malformed++;
			r->pending |= PMUSCOPE_SPE_C_LOST;
		} else if (ring_zero(r->aux, r->aux_size, r->aux_pos, gap)) {
			if (a)
				a->pad_bytes += gap;
		} else {
			/* SPE data whose record was lost (PERF_RECORD_LOST). */
			ret = emit_aux(k, r->aux_pos, gap, cpu, time,
				       r->pending | PMUSCOPE_SPE_C_LOST);
			if (ret)
				return ret;
			r->pending = 0;
			if (a) {
				a->gap_bytes += gap;
				a->bytes += gap;
			}
		}
		r->aux_pos = offset;
	}

	if (flags & PERF_AUX_FLAG_TRUNCATED)
		cf |= PMUSCOPE_SPE_C_STOPPED;
	if (flags & (PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_OVERWRITE))
		cf |= PMUSCOPE_SPE_C_LOST;
	if (flags & PERF_AUX_FLAG_COLLISION)
		cf |= PMUSCOPE_SPE_C_COLLISION;

	if (size || cf) {
		ret = emit_aux(k, offset, size, cpu, time, cf | r->pending);
		if (ret)
			return ret;
		r->pending = 0;
	}
	r->aux_pos = offset + size;
	if (flags & PERF_AUX_FLAG_TRUNCATED) {
		r->pending |= PMUSCOPE_SPE_C_LOST;
		r->need_enable = true;
	}
	if (a) {
		a->present = true;
		a->bytes += size;
		a->fills += size ? 1 : 0;
		a->truncated += (flags & PERF_AUX_FLAG_TRUNCATED) ? 1 : 0;
		a->partial += (flags & PERF_AUX_FLAG_PARTIAL) ? 1 : 0;
		a->collisions += (flags & PERF_AUX_FLAG_COLLISION) ? 1 : 0;
	}
	return 0;
}

int spe_perf_consume(struct spe_perf_ring *r, struct spe_perf_acct *acct, int nacct,
		     uint64_t now, uint32_t extra_flags, spe_emit_fn emit, void *ctx)
{
	struct consume k = { r, acct, nacct, extra_flags, emit, ctx, 0 };
	/* Pairs with the kernel's smp_wmb() before its data_head store. */
	uint64_t head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t aux_head = __atomic_load_n(&r->pc->aux_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pc->data_tail;	/* only we write it */
	int ret = 0;

	if (r->tconv.ok || r->pc->cap_user_time_zero)
		read_tconv(r->pc, &r->tconv);
	if (head - tail > r->data_size) {
		/* Nonsense (the kernel never laps data_tail): skip it all. */
		r->malformed++;
		r->pending |= PMUSCOPE_SPE_C_LOST;
		tail = head;
	}
	while (tail != head) {
		unsigned char rec[256];
		struct perf_event_header h;
		uint64_t avail = head - tail;
		uint32_t n;

		if (avail < sizeof(h)) {
			r->malformed++;
			r->pending |= PMUSCOPE_SPE_C_LOST;
			tail = head;
			break;
		}
		ring_copy(&h, r->data, r->data_size, tail, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > avail) {
			/* No way to find the next record: skip to data_head. */
			r->malformed++;
			r->pending |= PMUSCOPE_SPE_C_LOST;
			tail = head;
			break;
		}
		n = h.size < sizeof(rec) ? h.size : sizeof(rec);
		ring_copy(rec, r->data, r->data_size, tail, n);

		if (h.type == PERF_RECORD_AUX) {
			uint64_t v[3];
			struct sid s;

			if (h.size < sizeof(h) + sizeof(v) || h.size > sizeof(rec)) {
				r->malformed++;
				r->pending |= PMUSCOPE_SPE_C_LOST;
			} else {
				memcpy(v, rec + sizeof(h), sizeof(v));
				parse_sid(rec, h.size, sizeof(h) + sizeof(v), r->sample_type, &s);
				ret = consume_aux(&k, v[0], v[1], v[2], &s, &aux_head, now);
				if (ret == 1) {
					ret = 0;
					if (++r->stall_drains < SPE_PERF_STALL_MAX)
						break;
					/* Its data never came: give up on it. */
					r->malformed++;
					r->pending |= PMUSCOPE_SPE_C_LOST;
				}
				if (ret < 0)
					break;
			}
		} else if (h.type == PERF_RECORD_LOST) {
			uint64_t v[2] = { 0, 0 };

			if (h.size >= sizeof(h) + sizeof(v))
				memcpy(v, rec + sizeof(h), sizeof(v));
			r->pending |= PMUSCOPE_SPE_C_LOST;
			if (r->cpu >= 0 && r->cpu < nacct)
				acct[r->cpu].lost_records += v[1];
			r->lost_records += v[1];
		} else if (h.type == PERF_RECORD_ITRACE_START) {
			r->itrace_starts++;
		}
		r->stall_drains = 0;
		tail += h.size;
	}
	/*
	 * Our loads of both rings are done (emit copied the chunks): only
	 * now may the kernel reuse the space.
	 */
	__atomic_store_n(&r->pc->data_tail, tail, __ATOMIC_RELEASE);
	__atomic_store_n(&r->pc->aux_tail, r->aux_pos, __ATOMIC_RELEASE);
	return ret < 0 ? ret : k.emitted;
}

/* ---- the source ------------------------------------------------------ */

static int sys_perf_event_open(struct spe_perf_attr *attr, pid_t pid, int cpu,
			       int group_fd, unsigned long flags)
{
#ifdef __NR_perf_event_open
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
#else
	(void)attr; (void)pid; (void)cpu; (void)group_fd; (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

static int sys_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg);
}

struct spe_perf_sys spe_perf_sys = {
	.perf_event_open = sys_perf_event_open,
	.ioctl = sys_ioctl,
};

struct spe_perf_ev {
	int fd;
	int cpu;			/* -1: per task, every CPU of the PMU */
	void *base;			/* control page and data ring */
	size_t base_len;
	void *aux;
	size_t aux_len;
	struct spe_perf_ring r;
};

struct spe_perf_state {
	struct spe_opts o;
	struct spe_perf_ev *ev;
	struct pollfd *pfd;
	int nev;
	bool enabled, stopped;
	struct spe_perf_acct acct[SPE_MAX_CPUS];
};

static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = 0;
	return (int)n;
}

static const char *root(const char *r, const char *def)
{
	return r ? r : def;
}

static int load_pmu(const char *dir, const char *name, struct spe_perf_pmu *p,
		    char *why, size_t whylen)
{
	char path[512], buf[4096];
	unsigned long v;
	char *end;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(path, sizeof(path), "%s/%s/type", dir, name);
	if (read_text(path, buf, sizeof(buf)) < 0 ||
	    (v = strtoul(buf, &end, 10), end == buf)) {
		snprintf(why, whylen, "cannot read %s", path);
		return -ENODEV;
	}
	p->type = (uint32_t)v;
	snprintf(path, sizeof(path), "%s/%s/cpumask", dir, name);
	if (read_text(path, buf, sizeof(buf)) < 0 ||
	    spe_perf_parse_cpulist(buf, p->cpus, SPE_MAX_CPUS / 64)) {
		snprintf(why, whylen, "cannot read %s", path);
		return -ENODEV;
	}
	snprintf(path, sizeof(path), "%s/%s/caps/min_interval", dir, name);
	if (read_text(path, buf, sizeof(buf)) > 0)
		p->min_interval = (uint32_t)strtoul(buf, NULL, 10);
	for (int i = 0; i < SPE_F_NR; i++) {
		snprintf(path, sizeof(path), "%s/%s/format/%s", dir, name, spe_fmt_names[i]);
		if (read_text(path, buf, sizeof(buf)) < 0)
			continue;
		if (spe_perf_parse_format(buf, &p->f[i])) {
			snprintf(why, whylen, "%s: cannot parse \"%.40s\"", path, buf);
			return -ENODEV;
		}
	}
	return 0;
}

static int find_pmus(struct spe_perf_pmu **out, char *why, size_t whylen)
{
	char dir[256];
	struct spe_perf_pmu *p = NULL;
	struct dirent *d;
	int n = 0, ret = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", root(spe_perf_sys.sysfs, "/sys"));
	dp = opendir(dir);
	if (!dp) {
		snprintf(why, whylen, "cannot read %s: %s", dir, strerror(errno));
		return -ENODEV;
	}
	while ((d = readdir(dp))) {
		struct spe_perf_pmu *np;

		if (strncmp(d->d_name, "arm_spe_", 8) || strlen(d->d_name) >= 32)
			continue;
		np = realloc(p, (size_t)(n + 1) * sizeof(*p));
		if (!np) {
			ret = -ENOMEM;
			break;
		}
		p = np;
		ret = load_pmu(dir, d->d_name, &p[n], why, whylen);
		if (ret)
			break;
		n++;
	}
	closedir(dp);
	if (!ret && !n) {
		snprintf(why, whylen, "no arm_spe PMU in %s (no SPE, or arm_spe_pmu not loaded)", dir);
		ret = -ENODEV;
	}
	if (ret) {
		free(p);
		return ret;
	}
	*out = p;
	return n;
}

static int read_paranoid(void)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid",
		 root(spe_perf_sys.procfs, "/proc"));
	return read_text(path, buf, sizeof(buf)) > 0 ? atoi(buf) : 2;
}

static uint64_t read_capeff(void)
{
	char path[256], buf[4096], *p;

	snprintf(path, sizeof(path), "%s/self/status", root(spe_perf_sys.procfs, "/proc"));
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strstr(buf, "CapEff:");
	return p ? strtoull(p + 7, NULL, 16) : 0;
}

static bool test_cpu(const uint64_t *bits, int cpu)
{
	return bits[cpu / 64] & (1ULL << (cpu % 64));
}

static void close_ev(struct spe_perf_ev *e)
{
	if (e->aux && e->aux != MAP_FAILED)
		munmap(e->aux, e->aux_len);
	if (e->base && e->base != MAP_FAILED)
		munmap(e->base, e->base_len);
	if (e->fd >= 0)
		close(e->fd);
	free(e->r.scratch);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

static void perf_close(void *state)
{
	struct spe_perf_state *st = state;

	if (!st)
		return;
	for (int i = 0; i < st->nev; i++)
		close_ev(&st->ev[i]);
	free(st->ev);
	free(st->pfd);
	free(st);
}

static int open_ev(struct spe_perf_state *st, const struct spe_perf_pmu *pmu, int cpu,
		   uint32_t aux_bytes, int paranoid, uint64_t capeff, char *why, size_t whylen)
{
	const struct spe_opts *o = &st->o;
	struct spe_perf_ev *e = &st->ev[st->nev];
	struct spe_perf_attr attr;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	pid_t pid = o->pid > 0 ? o->pid : -1;
	int ret;

	memset(e, 0, sizeof(*e));
	e->fd = -1;
	e->cpu = cpu;
	ret = spe_perf_build_attr(pmu, o, aux_bytes, &attr, why, whylen);
	if (ret)
		return ret;
	e->fd = spe_perf_sys.perf_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (e->fd < 0) {
		ret = spe_perf_explain(errno, paranoid, capeff, o, pid < 0, false, why, whylen);
		if (ret == -ENOENT || ret == -ENODEV) {
			size_t l = strlen(why);

			snprintf(why + l, whylen - l, " (%s, CPU %d)", pmu->name, cpu);
		}
		e->fd = -1;
		return ret;
	}
	st->nev++;
	e->base_len = (1 + SPE_PERF_DATA_PAGES) * page;
	e->base = mmap(NULL, e->base_len, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (e->base == MAP_FAILED)
		return spe_perf_explain(errno, paranoid, capeff, o, pid < 0, true, why, whylen);
	e->r.pc = e->base;
	e->r.pc->aux_offset = e->base_len;
	e->r.pc->aux_size = aux_bytes;
	e->aux_len = aux_bytes;
	e->aux = mmap(NULL, e->aux_len, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd,
		      (off_t)e->base_len);
	if (e->aux == MAP_FAILED)
		return spe_perf_explain(errno, paranoid, capeff, o, pid < 0, true, why, whylen);
	e->r.data = (unsigned char *)e->base + page;
	e->r.data_size = SPE_PERF_DATA_PAGES * page;
	e->r.aux = e->aux;
	e->r.aux_size = aux_bytes;
	e->r.cpu = cpu;
	e->r.sample_type = attr.a.sample_type;
	e->r.scratch = malloc(aux_bytes);
	if (!e->r.scratch) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	read_tconv(e->r.pc, &e->r.tconv);
	return 0;
}

static int perf_open(const struct spe_opts *o, void **state, char *why, size_t whylen)
{
	struct spe_perf_state *st;
	struct spe_perf_pmu *pmus = NULL;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t aux_bytes, capeff;
	int npmu, paranoid, ret = 0, chosen = 0;
	bool per_cpu = o->pid <= 0, any_cpu = false;

	*state = NULL;
	snprintf(why, whylen, "?");
	for (int w = 0; w < SPE_MAX_CPUS / 64; w++)
		any_cpu |= o->cpus[w] != 0;
	if (o->buffer_kib && (o->buffer_kib < PMUSCOPE_SPE_KIB_MIN ||
			      o->buffer_kib > PMUSCOPE_SPE_KIB_MAX ||
			      (o->buffer_kib & (o->buffer_kib - 1)))) {
		snprintf(why, whylen, "buffer %u KiB: a power of 2 from %u to %u", o->buffer_kib,
			 (unsigned int)PMUSCOPE_SPE_KIB_MIN, (unsigned int)PMUSCOPE_SPE_KIB_MAX);
		return -EINVAL;
	}
	aux_bytes = (uint64_t)(o->buffer_kib ? o->buffer_kib : PMUSCOPE_SPE_KIB_DEFAULT) * 1024;
	if (aux_bytes < 2 * page)	/* arm_spe_pmu wants 2 pages at least */
		aux_bytes = 2 * page;

	paranoid = read_paranoid();
	capeff = read_capeff();
	if ((o->flags & PMUSCOPE_SPE_CX) && paranoid > 1 && !spe_perf_cap_perfmon(capeff)) {
		snprintf(why, whylen, "CX: arm_spe_pmu writes Context packets only for openers "
			 "with kernel.perf_event_paranoid <= 1 or CAP_PERFMON (it is %d)", paranoid);
		return -EACCES;
	}

	npmu = find_pmus(&pmus, why, whylen);
	if (npmu < 0)
		return npmu;

	st = calloc(1, sizeof(*st));
	if (st) {
		st->ev = calloc(SPE_MAX_CPUS + (size_t)npmu, sizeof(*st->ev));
		st->pfd = calloc(SPE_MAX_CPUS + (size_t)npmu, sizeof(*st->pfd));
	}
	if (!st || !st->ev || !st->pfd) {
		if (st) {
			free(st->ev);
			free(st->pfd);
		}
		free(st);
		free(pmus);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	st->o = *o;

	/* Which CPUs: the chosen ones (per task, none chosen = all), each with SPE. */
	for (int cpu = 0; cpu < SPE_MAX_CPUS; cpu++) {
		bool want = any_cpu ? test_cpu(o->cpus, cpu) : !per_cpu;
		bool spe = false;

		for (int i = 0; i < npmu && !spe; i++)
			spe = test_cpu(pmus[i].cpus, cpu);
		if (want && !spe && any_cpu) {
			snprintf(why, whylen, "CPU %d has no SPE (in no arm_spe_N/cpumask)", cpu);
			ret = -EINVAL;
			goto fail;
		}
		if (want && spe) {
			st->acct[cpu].present = true;
			chosen++;
		}
	}
	if (!chosen) {
		snprintf(why, whylen, "no CPU chosen");
		ret = -EINVAL;
		goto fail;
	}

	for (int i = 0; i < npmu && !ret; i++) {
		bool all = true;

		for (int cpu = 0; cpu < SPE_MAX_CPUS; cpu++)
			if (test_cpu(pmus[i].cpus, cpu) && !st->acct[cpu].present)
				all = false;
		if (!per_cpu && all) {
			ret = open_ev(st, &pmus[i], -1, (uint32_t)aux_bytes, paranoid, capeff,
				      why, whylen);
			continue;
		}
		for (int cpu = 0; cpu < SPE_MAX_CPUS && !ret; cpu++)
			if (test_cpu(pmus[i].cpus, cpu) && st->acct[cpu].present)
				ret = open_ev(st, &pmus[i], cpu, (uint32_t)aux_bytes, paranoid,
					      capeff, why, whylen);
	}
	if (ret)
		goto fail;
	free(pmus);
	*state = st;
	return 0;
fail:
	free(pmus);
	perf_close(st);
	return ret;
}

static int perf_ioctl_all(struct spe_perf_state *st, unsigned long req)
{
	for (int i = 0; i < st->nev; i++)
		if (spe_perf_sys.ioctl(st->ev[i].fd, req, 0) < 0)
			return -errno;
	return 0;
}

static int perf_enable(void *state)
{
	struct spe_perf_state *st = state;
	int ret = perf_ioctl_all(st, PERF_EVENT_IOC_ENABLE);

	if (!ret) {
		st->enabled = true;
		st->stopped = false;
	}
	return ret;
}

static int perf_disable(void *state)
{
	struct spe_perf_state *st = state;
	/* arm_spe_pmu_stop() hands over the buffer: a last PERF_RECORD_AUX */
	int ret = perf_ioctl_all(st, PERF_EVENT_IOC_DISABLE);

	st->enabled = false;
	st->stopped = true;
	return ret;
}

static int perf_drain(void *state, int timeout_ms, spe_emit_fn emit, void *ctx)
{
	struct spe_perf_state *st = state;
	struct pollfd *pfd = st->pfd;
	int total = 0;

	for (int i = 0; i < st->nev; i++) {
		pfd[i].fd = st->ev[i].fd;
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
	}
	if (timeout_ms && poll(pfd, (nfds_t)st->nev, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	for (int i = 0; i < st->nev; i++) {
		struct spe_perf_ev *e = &st->ev[i];
		int ret = spe_perf_consume(&e->r, st->acct, SPE_MAX_CPUS, now_cnt(),
					   st->stopped ? PMUSCOPE_SPE_C_FINAL : 0, emit, ctx);

		if (ret < 0)
			return ret;
		total += ret;
		/* perf disabled it when the AUX buffer was full; there is room now. */
		if (e->r.need_enable && st->enabled) {
			if (spe_perf_sys.ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
				return -errno;
		}
		e->r.need_enable = false;
	}
	return total;
}

static int perf_status(void *state, struct pmuscope_spe_cpu *cpus, int n, uint64_t *freq)
{
	struct spe_perf_state *st = state;
	int k = 0;

	if (freq)
		*freq = cnt_freq();
	for (int cpu = 0; cpu < SPE_MAX_CPUS && k < n; cpu++) {
		const struct spe_perf_acct *a = &st->acct[cpu];
		struct pmuscope_spe_cpu *c = &cpus[k];

		if (!a->present)
			continue;
		memset(c, 0, sizeof(*c));
		c->cpu = (uint32_t)cpu;
		c->state = st->enabled ? PMUSCOPE_SPE_RUNNING : PMUSCOPE_SPE_STOPPED;
		c->bytes = a->bytes;
		c->fills = a->fills;
		c->dl_events = a->partial;
		c->collisions = a->collisions;
		/* pmbsr, lost_ring, lost_dl, stopped_ns, spurious: perf cannot say */
		k++;
	}
	return k;
}

const struct spe_source spe_source_perf = {
	.name = "perf",
	.open = perf_open,
	.enable = perf_enable,
	.disable = perf_disable,
	.drain = perf_drain,
	.status = perf_status,
	.close = perf_close,
};
