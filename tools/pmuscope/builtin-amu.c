// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope amu: the Activity Monitors (AMU) of the chosen CPUs, read
 * COUNT + 1 times MS ms apart (PMUSCOPE_IOC_AMU_READ), and per CPU and
 * interval the effective frequency, busy share, IPC and memory-stall share
 * (pmuscope_amu_metrics()) and the deltas of the group-1 counters.
 *
 *   pmuscope amu [-C CPUS | -a] [-I MS] [-n COUNT] [--json | --csv]
 *
 * Output and exit status: Documentation/cli.rst.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "cli.h"

#define AMU_KEY_LEN	48
#define AMU_MAX_KEYS	64		/* group-1 columns of the table and CSV */
#define AMU_CELL	48
#define AMU_WHY_NOT_HERE	100	/* a column's counter is not on this CPU */

/* What a run prints: the formats' shared state. */
struct amu_out {
	enum report_format fmt;
	unsigned int seq;		/* the interval: 0, 1, ... */
	double time_s;			/* from the first read to this one */
	double start_s;			/* ... to the interval's first */
	/*
	 * How time_s is kept: the system counter at the first read, or 0
	 * (no CPU read then, no frequency); the monotonic clock at the
	 * latest read (for a read that gives no time: amu_time()).
	 */
	uint64_t first_ticks;
	double mono;
	uint64_t freq;			/* system counter, Hz */
	unsigned int n;			/* records of each read */
	const struct pmuscope_amu_cpu *prev, *cur;
	unsigned int nkeys;		/* group-1 columns (table, CSV) */
	char keys[AMU_MAX_KEYS][AMU_KEY_LEN];
};

static void amu_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope amu [-C CPUS | -a] [-I MS] [-n COUNT] [--json | --csv]\n"
		"  Reads the Activity Monitors of the CPUs (default, and -a: all online)\n"
		"  twice, MS ms apart (default 1000), and prints per CPU the effective\n"
		"  frequency, busy share, IPC, memory-stall share and the group-1\n"
		"  counters' deltas of that interval; COUNT intervals (default 1), one\n"
		"  after another. Needs root (CAP_PERFMON or CAP_SYS_ADMIN).\n");
}

/* The plain line of a CPU whose AMU was not read: "no AMU", ... */
static const char *amu_state_text(uint32_t state)
{
	switch (state) {
	case PMUSCOPE_AMU_ABSENT:
		return "no AMU";
	case PMUSCOPE_AMU_DISABLED:
		return "AMU not used (amu=0, or the kernel does not use it; amu=1 forces it)";
	case PMUSCOPE_AMU_OFFLINE:
		return "offline";
	default:
		return "AMU state unknown to this pmuscope";
	}
}

/* JSON's word for PMUSCOPE_AMU_WHY_*. */
static const char *amu_why_word(unsigned int why)
{
	static const char * const words[] = {
		[PMUSCOPE_AMU_WHY_OK] = "ok",
		[PMUSCOPE_AMU_WHY_NOT_READ] = "not_read",
		[PMUSCOPE_AMU_WHY_LOST] = "lost",
		[PMUSCOPE_AMU_WHY_BACKWARDS] = "backwards",
		[PMUSCOPE_AMU_WHY_NO_COUNTER] = "no_counter",
		[PMUSCOPE_AMU_WHY_CONST_BROKEN] = "const_broken",
		[PMUSCOPE_AMU_WHY_AUX_ZERO] = "aux_zero",
		[PMUSCOPE_AMU_WHY_ZERO] = "zero",
	};

	return why < sizeof(words) / sizeof(words[0]) ? words[why] : "unknown";
}

/* The table's footnote for PMUSCOPE_AMU_WHY_* (or AMU_WHY_NOT_HERE). */
static const char *amu_why_note(unsigned int why)
{
	switch (why) {
	case PMUSCOPE_AMU_WHY_NOT_READ:
		return "not read at the interval's start (no AMU, AMU not used or offline then)";
	case PMUSCOPE_AMU_WHY_LOST:
		return "lost: the AMU lost counts during the interval (e.g. at a power-down): no number rather than a wrong one";
	case PMUSCOPE_AMU_WHY_BACKWARDS:
		return "a counter went backwards (counts lost without the driver seeing it)";
	case PMUSCOPE_AMU_WHY_NO_COUNTER:
		return "the counter it needs is not implemented, or firmware did not enable it";
	case PMUSCOPE_AMU_WHY_CONST_BROKEN:
		return "the constant-rate counter is broken on this CPU (erratum, e.g. Cortex-A510 2457168): no frequency or busy share";
	case PMUSCOPE_AMU_WHY_AUX_ZERO:
		return "group 1 reads zero on this CPU (AMCR_EL0.CG1RZ)";
	case PMUSCOPE_AMU_WHY_ZERO:
		return "nothing to divide by: no cycles counted (idle all the interval)";
	case AMU_WHY_NOT_HERE:
		return "no such counter on this CPU";
	default:
		return "unknown reason";
	}
}

/*
 * The key of group-1 counter @n of @r: its event's name, then "#K" for
 * the K-th counter of the same name on the CPU. 0 if @r has no such
 * counter (beyond nr_group1, or not implemented).
 */
static int amu_key(const struct pmuscope_amu_cpu *r, unsigned int n, char *buf, size_t len)
{
	char nbuf[16], obuf[16];
	const char *name;
	unsigned int same = 1;

	if (r->state != PMUSCOPE_AMU_READ_OK || n >= r->nr_group1 ||
	    n >= PMUSCOPE_AMU_GROUP_MAX || !((r->implemented1 >> n) & 1))
		return 0;
	name = pmuscope_amu_event_name(r->type1[n], nbuf, sizeof(nbuf));
	for (unsigned int m = 0; m < n; m++)
		if (((r->implemented1 >> m) & 1) &&
		    !strcmp(pmuscope_amu_event_name(r->type1[m], obuf, sizeof(obuf)), name))
			same++;
	if (same > 1)
		snprintf(buf, len, "%s#%u", name, same);
	else
		snprintf(buf, len, "%s", name);
	return 1;
}

/* The group-1 counter of @r whose key is @key, or -1. */
static int amu_find_key(const struct pmuscope_amu_cpu *r, const char *key)
{
	char k[AMU_KEY_LEN];

	for (unsigned int n = 0; n < PMUSCOPE_AMU_GROUP_MAX; n++)
		if (amu_key(r, n, k, sizeof(k)) && !strcmp(k, key))
			return n;
	return -1;
}

/* The columns: the group-1 keys of @recs, in order of first appearance. */
static void amu_collect_keys(struct amu_out *o, const struct pmuscope_amu_cpu *recs,
			     unsigned int n)
{
	char k[AMU_KEY_LEN];

	o->nkeys = 0;
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int c = 0; c < PMUSCOPE_AMU_GROUP_MAX; c++) {
			unsigned int j;

			if (!amu_key(&recs[i], c, k, sizeof(k)))
				continue;
			for (j = 0; j < o->nkeys; j++)
				if (!strcmp(o->keys[j], k))
					break;
			if (j == o->nkeys && o->nkeys < AMU_MAX_KEYS)
				snprintf(o->keys[o->nkeys++], AMU_KEY_LEN, "%s", k);
		}
	}
}

/* The earlier record of @r's CPU (the same place, as a rule). */
static const struct pmuscope_amu_cpu *amu_prev_of(const struct amu_out *o, unsigned int i)
{
	static const struct pmuscope_amu_cpu none = { .state = ~0U };
	static struct pmuscope_amu_cpu missing;

	if (o->prev[i].cpu == o->cur[i].cpu)
		return &o->prev[i];
	for (unsigned int j = 0; j < o->n; j++)
		if (o->prev[j].cpu == o->cur[i].cpu)
			return &o->prev[j];
	missing = none;
	missing.cpu = o->cur[i].cpu;
	return &missing;	/* not read before: NOT_READ */
}

static void amu_metrics_of(const struct amu_out *o, unsigned int i, struct pmuscope_amu_metrics *m)
{
	pmuscope_amu_metrics(amu_prev_of(o, i), &o->cur[i], o->freq, m);
}

/* ------------------------------------------------------------- the table */
struct amu_notes {
	unsigned int why[16];
	unsigned int n;
};

/* "-[N]", N the footnote of @why (numbered as they first appear). */
static void amu_dash(struct amu_notes *notes, unsigned int why, char *buf, size_t len)
{
	unsigned int k;

	for (k = 0; k < notes->n; k++)
		if (notes->why[k] == why)
			break;
	if (k == notes->n && notes->n < sizeof(notes->why) / sizeof(notes->why[0]))
		notes->why[notes->n++] = why;
	snprintf(buf, len, "-[%u]", k + 1);
}

static void amu_table(FILE *f, const struct amu_out *o)
{
	enum { C_MHZ, C_BUSY, C_IPC, C_MEM, NFIX };
	static const char *const heads[NFIX] = { "MHz", "BUSY%", "IPC", "MEM_STALL%" };
	unsigned int ncols = NFIX + o->nkeys, rows = 0;
	char (*cell)[AMU_CELL] = calloc((size_t)o->n * ncols, AMU_CELL);
	struct amu_notes notes = { .n = 0 };
	int w[NFIX + AMU_MAX_KEYS];

	if (!cell) {
		perror("pmuscope");
		return;
	}
	fprintf(f, "AMU interval %u: %.3f s (%.3f to %.3f s), system counter %llu Hz\n\n",
		o->seq + 1, o->time_s - o->start_s, o->start_s, o->time_s,
		(unsigned long long)o->freq);
	for (unsigned int c = 0; c < ncols; c++)
		w[c] = strlen(c < NFIX ? heads[c] : o->keys[c - NFIX]);
	for (unsigned int i = 0; i < o->n; i++) {
		char (*row)[AMU_CELL] = cell + (size_t)i * ncols;
		const struct pmuscope_amu_cpu *r = &o->cur[i];
		struct pmuscope_amu_metrics m;
		/* MHz with one decimal; shares in %, IPC: two. */
		static const double scale[NFIX] = { 1e-6, 100, 1, 100 };
		static const int prec[NFIX] = { 1, 2, 2, 2 };

		if (r->state != PMUSCOPE_AMU_READ_OK)
			continue;
		rows++;
		amu_metrics_of(o, i, &m);
		for (unsigned int k = 0; k < NFIX; k++) {
			if (m.valid & (1U << k))
				snprintf(row[k], AMU_CELL, "%.*f", prec[k], m.value[k] * scale[k]);
			else
				amu_dash(&notes, m.why[k], row[k], AMU_CELL);
		}
		for (unsigned int k = 0; k < o->nkeys; k++) {
			int n = amu_find_key(r, o->keys[k]);

			if (n < 0)
				amu_dash(&notes, AMU_WHY_NOT_HERE, row[NFIX + k], AMU_CELL);
			else if (m.valid1 & (1U << n))
				report_thousands(m.delta1[n], row[NFIX + k], AMU_CELL);
			else
				amu_dash(&notes, m.why1[n], row[NFIX + k], AMU_CELL);
		}
		for (unsigned int c = 0; c < ncols; c++)
			if ((int)strlen(row[c]) > w[c])
				w[c] = strlen(row[c]);
	}
	if (rows) {
		fprintf(f, "%-4s", "CPU");
		for (unsigned int c = 0; c < ncols; c++)
			fprintf(f, " %*s", w[c], c < NFIX ? heads[c] : o->keys[c - NFIX]);
		fprintf(f, "\n");
	}
	for (unsigned int i = 0; i < o->n; i++) {
		if (o->cur[i].state != PMUSCOPE_AMU_READ_OK)
			continue;
		fprintf(f, "%-4u", o->cur[i].cpu);
		for (unsigned int c = 0; c < ncols; c++)
			fprintf(f, " %*s", w[c], cell[(size_t)i * ncols + c]);
		fprintf(f, "\n");
	}
	for (unsigned int i = 0; i < o->n; i++)
		if (o->cur[i].state != PMUSCOPE_AMU_READ_OK)
			fprintf(f, "cpu%u: %s\n", o->cur[i].cpu, amu_state_text(o->cur[i].state));
	if (notes.n)
		fprintf(f, "\n");
	for (unsigned int k = 0; k < notes.n; k++)
		fprintf(f, "[%u] %s\n", k + 1, amu_why_note(notes.why[k]));
	free(cell);
}

/* -------------------------------------------------------------- JSON, CSV */
static void amu_json_num(FILE *f, int valid, double v)
{
	if (valid)
		fprintf(f, "%.12g", v);
	else
		fprintf(f, "null");
}

static void amu_json_flags(FILE *f, uint32_t flags)
{
	char buf[64], *tok, *save = NULL;
	int first = 1;

	pmuscope_amu_flags_str(flags, buf, sizeof(buf));
	fputc('[', f);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		fprintf(f, "%s\"%s\"", first ? "" : ",", tok);
		first = 0;
	}
	fputc(']', f);
}

static const char *const amu_metric_keys[PMUSCOPE_AMU_NR_METRICS] = {
	[PMUSCOPE_AMU_M_FREQ] = "freq_hz",
	[PMUSCOPE_AMU_M_BUSY] = "busy",
	[PMUSCOPE_AMU_M_IPC] = "ipc",
	[PMUSCOPE_AMU_M_MEM_STALL] = "mem_stall",
};

static void amu_json_cpu(FILE *f, const struct amu_out *o, unsigned int i)
{
	const struct pmuscope_amu_cpu *r = &o->cur[i];
	int ok = r->state == PMUSCOPE_AMU_READ_OK;
	struct pmuscope_amu_metrics m;
	char name[16], key[AMU_KEY_LEN];
	int first = 1;

	amu_metrics_of(o, i, &m);
	fprintf(f, "{\"cpu\":%u,\"state\":\"%s\",\"version\":", r->cpu,
		pmuscope_amu_state_name(r->state));
	if (ok)
		fprintf(f, "%u", r->version);
	else
		fprintf(f, "null");
	fprintf(f, ",\"flags\":");
	amu_json_flags(f, ok ? r->flags : 0);
	if (ok)
		fprintf(f, ",\"time\":%llu", (unsigned long long)r->time);
	else
		fprintf(f, ",\"time\":null");
	if (ok && m.why[PMUSCOPE_AMU_M_BUSY] != PMUSCOPE_AMU_WHY_NOT_READ &&
	    m.why[PMUSCOPE_AMU_M_BUSY] != PMUSCOPE_AMU_WHY_BACKWARDS)
		fprintf(f, ",\"ticks\":%llu", (unsigned long long)m.ticks);
	else
		fprintf(f, ",\"ticks\":null");
	fprintf(f, ",\"metrics\":{");
	for (unsigned int k = 0; k < PMUSCOPE_AMU_NR_METRICS; k++) {
		fprintf(f, "%s\"%s\":", k ? "," : "", amu_metric_keys[k]);
		amu_json_num(f, m.valid & (1U << k), m.value[k]);
	}
	fprintf(f, "},\"unavailable\":{");
	for (unsigned int k = 0; k < PMUSCOPE_AMU_NR_METRICS; k++) {
		if (m.valid & (1U << k))
			continue;
		fprintf(f, "%s\"%s\":\"%s\"", first ? "" : ",", amu_metric_keys[k],
			amu_why_word(m.why[k]));
		first = 0;
	}
	fprintf(f, "},\"group0\":[");
	for (unsigned int n = 0; ok && n < r->nr_group0 && n < PMUSCOPE_AMU_GROUP_MAX; n++) {
		fprintf(f, "%s{\"index\":%u,\"event\":", n ? "," : "", n);
		report_json_str(f, pmuscope_amu_event_name(r->type0[n], name, sizeof(name)));
		fprintf(f, ",\"number\":%u,\"enabled\":%s,\"count\":%llu,\"delta\":", r->type0[n],
			(r->enabled0 >> n) & 1 ? "true" : "false",
			(unsigned long long)r->group0[n]);
		if (m.valid0 & (1U << n))
			fprintf(f, "%llu}", (unsigned long long)m.delta0[n]);
		else
			fprintf(f, "null}");
	}
	fprintf(f, "],\"group1\":[");
	first = 1;
	for (unsigned int n = 0; ok && n < r->nr_group1 && n < PMUSCOPE_AMU_GROUP_MAX; n++) {
		int impl = (r->implemented1 >> n) & 1;

		fprintf(f, "%s{\"index\":%u,\"key\":", first ? "" : ",", n);
		first = 0;
		if (amu_key(r, n, key, sizeof(key)))
			report_json_str(f, key);
		else
			fprintf(f, "null");
		fprintf(f, ",\"event\":");
		if (impl)
			report_json_str(f, pmuscope_amu_event_name(r->type1[n], name, sizeof(name)));
		else
			fprintf(f, "null");
		fprintf(f, ",\"number\":");
		if (impl)
			fprintf(f, "%u", r->type1[n]);
		else
			fprintf(f, "null");
		fprintf(f, ",\"implemented\":%s,\"enabled\":%s,\"count\":", impl ? "true" : "false",
			(r->enabled1 >> n) & 1 ? "true" : "false");
		if (impl && !(r->flags & PMUSCOPE_AMU_F_AUX_ZERO))
			fprintf(f, "%llu", (unsigned long long)r->group1[n]);
		else
			fprintf(f, "null");
		if (m.valid1 & (1U << n))
			fprintf(f, ",\"delta\":%llu,\"unavailable\":null}",
				(unsigned long long)m.delta1[n]);
		else
			fprintf(f, ",\"delta\":null,\"unavailable\":\"%s\"}", amu_why_word(m.why1[n]));
	}
	fprintf(f, "]}");
}

static void amu_json(FILE *f, const struct amu_out *o)
{
	fprintf(f, "{\"type\":\"amu\",\"seq\":%u,\"time_s\":%.6f,\"freq\":%llu,\"cpus\":[",
		o->seq, o->time_s, (unsigned long long)o->freq);
	for (unsigned int i = 0; i < o->n; i++) {
		if (i)
			fputc(',', f);
		amu_json_cpu(f, o, i);
	}
	fprintf(f, "]}\n");
}

/* Group 0's columns, by index: the architected counters. */
static const char *const amu_csv_g0[] = {
	"CPU_CYCLES", "CNT_CYCLES", "INST_RETIRED", "STALL_BACKEND_MEM",
};

static void amu_csv(FILE *f, const struct amu_out *o)
{
	char flags[64];

	if (!o->seq) {
		fprintf(f, "seq,time_s,cpu,state,flags,ticks");
		for (unsigned int k = 0; k < PMUSCOPE_AMU_NR_METRICS; k++)
			fprintf(f, ",%s", amu_metric_keys[k]);
		for (unsigned int k = 0; k < 4; k++)
			fprintf(f, ",%s", amu_csv_g0[k]);
		for (unsigned int k = 0; k < o->nkeys; k++)
			fprintf(f, ",%s", o->keys[k]);
		fprintf(f, "\n");
	}
	for (unsigned int i = 0; i < o->n; i++) {
		const struct pmuscope_amu_cpu *r = &o->cur[i];
		int ok = r->state == PMUSCOPE_AMU_READ_OK;
		struct pmuscope_amu_metrics m;

		amu_metrics_of(o, i, &m);
		pmuscope_amu_flags_str(ok ? r->flags : 0, flags, sizeof(flags));
		fprintf(f, "%u,%.6f,%u,%s,\"%s\",", o->seq, o->time_s, r->cpu,
			pmuscope_amu_state_name(r->state), flags);
		if (ok && m.why[PMUSCOPE_AMU_M_BUSY] != PMUSCOPE_AMU_WHY_NOT_READ &&
		    m.why[PMUSCOPE_AMU_M_BUSY] != PMUSCOPE_AMU_WHY_BACKWARDS)
			fprintf(f, "%llu", (unsigned long long)m.ticks);
		for (unsigned int k = 0; k < PMUSCOPE_AMU_NR_METRICS; k++) {
			fputc(',', f);
			if (m.valid & (1U << k))
				fprintf(f, "%.12g", m.value[k]);
		}
		for (unsigned int k = 0; k < 4; k++) {
			fputc(',', f);
			if (m.valid0 & (1U << k))
				fprintf(f, "%llu", (unsigned long long)m.delta0[k]);
		}
		for (unsigned int k = 0; k < o->nkeys; k++) {
			int n = amu_find_key(r, o->keys[k]);

			fputc(',', f);
			if (n >= 0 && (m.valid1 & (1U << n)))
				fprintf(f, "%llu", (unsigned long long)m.delta1[n]);
		}
		fprintf(f, "\n");
	}
}

static void amu_print(FILE *f, const struct amu_out *o)
{
	switch (o->fmt) {
	case REPORT_JSON:
		amu_json(f, o);
		break;
	case REPORT_CSV:
		amu_csv(f, o);
		break;
	default:
		if (o->seq)
			fputc('\n', f);
		amu_table(f, o);
		break;
	}
	fflush(f);
}

/* ------------------------------------------------------------ the command */
/*
 * The sysfs state of CPU @cpu's AMU (cpuN/amu, readable by all):
 * PMUSCOPE_AMU_ABSENT, PMUSCOPE_AMU_DISABLED (implemented, not used: amu=0
 * or, with amu=-1, the kernel does not use it), PMUSCOPE_AMU_READ_OK
 * (present), or -1 when sysfs does not say.
 */
static int amu_sysfs_state(int cpu)
{
	char path[512], word[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpu%d/amu", pmuscope_sysfs_root(), cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%31s", word) != 1)
		word[0] = '\0';
	fclose(f);
	if (!strcmp(word, "absent"))
		return PMUSCOPE_AMU_ABSENT;
	if (!strcmp(word, "disabled"))
		return PMUSCOPE_AMU_DISABLED;
	if (!strcmp(word, "present"))
		return PMUSCOPE_AMU_READ_OK;
	return -1;
}

/*
 * A driver without PMUSCOPE_FEAT_AMU reads no AMU, whatever the caller
 * may do: say why for each CPU asked for. amu=1 is the answer only where
 * the CPU has an AMU the driver left alone; a CPU without one has nothing
 * to turn on.
 */
static void amu_none_why(const struct stat_opts *o)
{
	unsigned int absent = 0, disabled = 0, other = 0;

	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		if (!cpu_chosen(o, cpu))
			continue;
		switch (amu_sysfs_state(cpu)) {
		case PMUSCOPE_AMU_ABSENT:
			fprintf(stderr, "pmuscope: cpu%d: no Activity Monitors (ID_AA64PFR0_EL1.AMU is 0)\n",
				cpu);
			absent++;
			break;
		case PMUSCOPE_AMU_DISABLED:
			fprintf(stderr, "pmuscope: cpu%d: %s\n", cpu,
				amu_state_text(PMUSCOPE_AMU_DISABLED));
			disabled++;
			break;
		default:
			other++;
			break;
		}
	}
	if (disabled)
		fprintf(stderr, "pmuscope: the driver reads no CPU's Activity Monitors (no PMUSCOPE_FEAT_AMU): it uses no CPU's AMU; amu=1 forces it where the CPU has one\n");
	else if (absent && !other)
		fprintf(stderr, "pmuscope: the driver reads no CPU's Activity Monitors (no PMUSCOPE_FEAT_AMU): the CPU%s asked for %s no Activity Monitors\n",
			absent > 1 ? "s" : "", absent > 1 ? "have" : "has");
	else
		fprintf(stderr, "pmuscope: the driver reads no CPU's Activity Monitors (no PMUSCOPE_FEAT_AMU: no CPU has an AMU the driver uses)\n");
}

/* Exit status of a failed pmuscope_amu_read(), said on stderr. */
static int amu_failed(struct pmuscope *h, const struct stat_opts *o, int err)
{
	if (err == -ENOTTY) {
		fprintf(stderr, "pmuscope: the driver reads no Activity Monitors: it does not know PMUSCOPE_IOC_AMU_READ (older than API version 4)\n");
		return EXIT_UNSUPPORTED;
	}
	if (!(pmuscope_features(h) & PMUSCOPE_FEAT_AMU)) {
		/* Whatever the error (EPERM too): there is nothing to read. */
		amu_none_why(o);
		return EXIT_UNSUPPORTED;
	}
	fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(h));
	return err == -EPERM || err == -EACCES ? EXIT_PERM : 1;
}

static double amu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A read's time: the system counter of its earliest CPU record read
 * (each record's time is taken on its CPU beside the counters), or 0 when
 * no CPU was read.
 */
static uint64_t amu_read_ticks(const struct pmuscope_amu_cpu *recs, unsigned int n)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < n; i++)
		if (recs[i].state == PMUSCOPE_AMU_READ_OK && recs[i].time && (!t || recs[i].time < t))
			t = recs[i].time;
	return t;
}

/*
 * Move @o's clock to the read just made (@cur): the system-counter ticks
 * since the first read over its frequency, so that an interval's length is
 * the span the CPUs' counts cover and not the time the reads took to
 * return (a busy host can delay a return by tens of ms). Where either
 * read gave no time, the monotonic clock since the previous read.
 */
static void amu_time(struct amu_out *o, const struct pmuscope_amu_cpu *cur, unsigned int n)
{
	uint64_t t = amu_read_ticks(cur, n);
	double now = amu_now();

	o->start_s = o->time_s;
	if (o->first_ticks && o->freq && t >= o->first_ticks)
		o->time_s = (double)(t - o->first_ticks) / (double)o->freq;
	else
		o->time_s += now - o->mono;
	o->mono = now;
}

struct amu_args {
	struct stat_opts o;		/* first: stat_opt() */
	unsigned long long count;	/* -n */

	struct pmuscope *h;		/* the run: amu_first() on */
	unsigned int ncpus;
	struct pmuscope_amu_cpu *prev, *cur;	/* the last two reads */
	struct amu_out out;
	struct timespec t0;		/* the first read */
};

static int amu_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct amu_args *a = ctx;

	(void)opt;
	if (parse_uint(arg, 1, 1000000000, &a->count)) {
		fprintf(stderr, "pmuscope: -n needs a count of intervals, 1 or more: '%s'\n",
			arg);
		return EXIT_USAGE;
	}
	return 0;
}

static const struct cli_option amu_options[] = {
	OPT_CPUS(),
	OPT_INTERVAL(),
	OPT_JSON(),
	OPT_CSV(),
	OPT_CALLBACK("count", 'n', "COUNT", "COUNT intervals (default 1)", amu_opt, 'n'),
	OPT_ALL_CPUS(),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

const struct cli_options amu_cli = { "amu", amu_options, amu_usage };

/* The CPUs: -C's (which must exist), else every online one: 0, or an exit status. */
static int amu_cpus(struct amu_args *a)
{
	struct pmuscope_cpu_info info;

	/* Offline CPUs may be asked for: their record says so. */
	if (!a->o.cpus_given && pmuscope_online_cpus(a->o.cpus, PMUSCOPE_CPU_WORDS)) {
		fprintf(stderr, "pmuscope: %s not found: is the pmuscope module loaded? (insmod pmuscope.ko)\n",
			pmuscope_sysfs_root());
		return EXIT_DRIVER;
	}
	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		if (!cpu_chosen(&a->o, cpu))
			continue;
		if (a->o.cpus_given && pmuscope_cpu_info(cpu, &info)) {
			fprintf(stderr, "pmuscope: cpu%d does not exist\n", cpu);
			return 1;
		}
		a->ncpus++;
	}
	return 0;
}

/* The driver opened and the first read, which some CPU must answer: 0, or an exit status. */
static int amu_first(struct amu_args *a)
{
	struct amu_out *out = &a->out;
	unsigned int readable = 0;
	char err[512];
	int ret, n;

	ret = pmuscope_open(&a->h, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", err);
		return open_exit_code(ret);
	}
	a->prev = calloc(a->ncpus, sizeof(*a->prev));
	a->cur = calloc(a->ncpus, sizeof(*a->cur));
	if (!a->prev || !a->cur) {
		perror("pmuscope");
		return 1;
	}
	n = pmuscope_amu_read(a->h, a->o.cpus, PMUSCOPE_CPU_WORDS, a->prev, a->ncpus, &out->freq);
	clock_gettime(CLOCK_MONOTONIC, &a->t0);
	out->mono = amu_now();
	if (n < 0)
		return amu_failed(a->h, &a->o, n);
	for (int i = 0; i < n; i++)
		readable += a->prev[i].state == PMUSCOPE_AMU_READ_OK;
	if (!readable) {
		for (int i = 0; i < n; i++)
			fprintf(stderr, "pmuscope: cpu%u: %s\n", a->prev[i].cpu,
				amu_state_text(a->prev[i].state));
		fprintf(stderr, "pmuscope: no CPU asked for has an AMU to read%s\n",
			pmuscope_features(a->h) & PMUSCOPE_FEAT_AMU ? "" :
			" (the driver uses no CPU's AMU: no PMUSCOPE_FEAT_AMU)");
		return EXIT_UNSUPPORTED;
	}
	out->fmt = a->o.fmt;
	out->n = n;
	if (out->freq)
		out->first_ticks = amu_read_ticks(a->prev, n);
	amu_collect_keys(out, a->prev, n);
	return 0;
}

/* -n intervals of MS ms, until SIGINT or SIGTERM: 0, or an exit status. */
static int amu_loop(struct amu_args *a)
{
	struct amu_out *out = &a->out;
	struct pmuscope_amu_cpu *tmp;
	struct timespec next = a->t0;
	int status = 0, reaped = 0;

	for (unsigned long long seq = 0; seq < a->count; seq++) {
		int m;

		next.tv_sec += a->o.interval_ms / 1000;
		next.tv_nsec += (a->o.interval_ms % 1000) * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		if (stat_wait(&next, -1, &status, &reaped))
			break;
		m = pmuscope_amu_read(a->h, a->o.cpus, PMUSCOPE_CPU_WORDS, a->cur, a->ncpus,
				      &out->freq);
		if (m < 0)
			return amu_failed(a->h, &a->o, m);
		if (m != (int)out->n) {
			fprintf(stderr, "pmuscope: AMU read: %d records, then %d\n", (int)out->n, m);
			return 1;
		}
		out->seq = seq;
		amu_time(out, a->cur, out->n);
		out->prev = a->prev;
		out->cur = a->cur;
		amu_print(stdout, out);
		tmp = a->prev;
		a->prev = a->cur;
		a->cur = tmp;
	}
	return 0;
}

int cmd_amu(int argc, char **argv)
{
	struct amu_args a = { .o = { .fmt = REPORT_TABLE, .interval_ms = 1000 }, .count = 1 };
	sigset_t sigs, oldmask;
	int ret;

	if (cli_parse(&amu_cli, argc, argv, &a, &ret))
		return ret;
	if (optind < argc) {
		fprintf(stderr, "pmuscope: amu runs no command: '%s'\n", argv[optind]);
		cli_usage_with_options(stderr, &amu_cli);
		return EXIT_USAGE;
	}
	ret = amu_cpus(&a);
	if (ret)
		return ret;
	ret = amu_first(&a);
	if (ret)
		goto out;

	/* SIGINT and SIGTERM end the run between intervals (stat_wait()). */
	stat_signals(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, &oldmask);
	ret = amu_loop(&a);
	/* A signal still pending acts now: the output is out by then. */
	fflush(stdout);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out:
	free(a.prev);
	free(a.cur);
	pmuscope_close(a.h);
	return ret;
}
