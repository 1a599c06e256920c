// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope report: the hottest functions (or source lines) of a record
 * file, with each function's share of the samples and of the counts.
 *
 * A sample's PC is looked up in the maps of its process valid at the
 * sample's time (maps_index_find(), maps.c), as a file and an offset in it, then
 * in that file's symbols and lines (symbols.c, elfutils). Each sample's
 * counts minus those of the previous sample of the same CPU (0 at the
 * start: record resets the counters before enabling them) are what ran
 * since, and go to the sample's function.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "callgraph.h"
#include "flamegraph.h"
#include "pprof.h"
#include "cli.h"
#include "datafile.h"
#include "maps.h"
#include "symbols.h"

#define EV_L1I_CACHE_REFILL	0x01
#define EV_L1D_CACHE_REFILL	0x03
#define EV_L1D_CACHE		0x04
#define EV_INST_RETIRED		0x08
#define EV_BR_MIS_PRED		0x10
#define EV_CPU_CYCLES		0x11
#define EV_BR_PRED		0x12
#define EV_L1I_CACHE		0x14

/* The per-function metrics: numerator / denominator events. */
static const struct {
	const char *name;		/* JSON, CSV and column name */
	uint32_t num, den;
	int percent;			/* shown as a percentage in the table */
} prof_metrics[] = {
	{ "ipc", EV_INST_RETIRED, EV_CPU_CYCLES, 0 },
	{ "l1d_miss_ratio", EV_L1D_CACHE_REFILL, EV_L1D_CACHE, 1 },
	{ "l1i_miss_ratio", EV_L1I_CACHE_REFILL, EV_L1I_CACHE, 1 },
	{ "branch_miss_ratio", EV_BR_MIS_PRED, EV_BR_PRED, 1 },
};

#define NMETRICS	(sizeof(prof_metrics) / sizeof(prof_metrics[0]))

struct entry {
	struct entry *next;
	uint64_t hash;
	char *comm, *object, *path, *symbol, *source;
	uint64_t samples;
	uint64_t delta[PMUSCOPE_MAX_EVENTS];
};

struct prof {
	const char *file;
	struct df_file df;
	struct sym_table *syms;
	int by_line;
	long pid;			/* --pid; -1: all */
	struct maps_index maps;
	int complete;			/* an END chunk was found */
	struct df_end end;
	uint64_t samples, shown, kernel, unknown, lost, lost_records, throttled;
	uint64_t first_time, last_time;
	struct entry **buckets;
	size_t nbuckets, nentries;
	char keys[PMUSCOPE_MAX_EVENTS][96];
	int metric_ev[NMETRICS][2];	/* event indexes; -1: not recorded */
};

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope report [-i FILE] [--symfs DIR] [--pid PID] [--sort sym|line]\n"
		"                       [-n TOP] [--json | --csv]\n"
		"       pmuscope report -g [caller|callee|none] [--children | --no-children]\n"
		"                       [--sort KEYS] [--percent-limit PCT] [-e EVENT] [--json]\n"
		"       pmuscope report --folded [--folded-weight samples|period] [-e EVENT]\n"
		"  The hottest functions of a recording of pmuscope record (default\n"
		"  pmuscope.data): share of the samples, and each event's counts since the\n"
		"  previous sample of the same CPU, with IPC and miss ratios. -g: call\n"
		"  graphs with children and self shares, as perf report --children;\n"
		"  --folded: folded stacks, as perf script | stackcollapse-perf.pl, each\n"
		"  stack's samples counted (stackcollapse-perf.pl since 2021 adds up their\n"
		"  periods: --folded-weight period); with several events sampled, -e\n"
		"  (stackcollapse-perf.pl: the first one read).\n");
}

/* The name of @pid at @time: its main thread's, else any of its threads'. */
static const char *profile_comm(struct prof *p, uint32_t pid, uint64_t time, char *buf,
				size_t len)
{
	const char *comm;

	if (!pid)
		return "[idle]";
	comm = maps_index_comm(&p->maps, pid, 0, time);
	if (comm)
		return comm;
	snprintf(buf, len, ":%u", pid);
	return buf;
}

/* ---------------------------------------------------------- the entries */
static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL;
}

static struct entry *profile_entry(struct prof *p, const char *comm, const char *object,
				   const char *path, const char *symbol, const char *source)
{
	uint64_t h = 14695981039346656037ULL;
	struct entry *e;
	size_t b;

	h = hash_str(hash_str(hash_str(hash_str(h, comm), object), symbol), source);
	h = hash_str(h, path);
	if (p->nentries >= p->nbuckets) {
		size_t n = p->nbuckets ? 2 * p->nbuckets : 256;
		struct entry **nb = calloc(n, sizeof(*nb));

		if (!nb)
			return NULL;
		for (size_t i = 0; i < p->nbuckets; i++) {
			struct entry *next;

			for (e = p->buckets[i]; e; e = next) {
				next = e->next;
				e->next = nb[e->hash % n];
				nb[e->hash % n] = e;
			}
		}
		free(p->buckets);
		p->buckets = nb;
		p->nbuckets = n;
	}
	b = h % p->nbuckets;
	for (e = p->buckets[b]; e; e = e->next)
		if (e->hash == h && !strcmp(e->comm, comm) && !strcmp(e->object, object) &&
		    !strcmp(e->symbol, symbol) && !strcmp(e->source, source) &&
		    !strcmp(e->path, path))
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->hash = h;
	e->comm = strdup(comm);
	e->object = strdup(object);
	e->path = strdup(path);
	e->symbol = strdup(symbol);
	e->source = strdup(source);
	if (!e->comm || !e->object || !e->path || !e->symbol || !e->source)
		return NULL;
	e->next = p->buckets[b];
	p->buckets[b] = e;
	p->nentries++;
	return e;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Where a sample ran: its entry. */
static struct entry *profile_place(struct prof *p, const struct pmuscope_rec *r)
{
	char cbuf[24], sym[600], src[300] = "";
	const char *comm = profile_comm(p, r->pid, r->time, cbuf, sizeof(cbuf));
	const char *object, *path = "", *name = NULL;
	const struct maps_ent *m;
	int any, ret;

	if (!(r->flags & PMUSCOPE_REC_F_USER)) {
		p->kernel++;
		return profile_entry(p, comm, "[kernel]", "", "[kernel]", "");
	}
	m = maps_index_find(&p->maps, r->pid, r->time, r->pc, &any);
	if (!m) {
		p->unknown++;
		if (!any)	/* a process without maps: one bucket */
			return profile_entry(p, comm, "[unknown]", "", "[unknown]", "");
		snprintf(sym, sizeof(sym), "[unknown] 0x%" PRIx64, r->pc);
		return profile_entry(p, comm, "[unknown]", "", sym, "");
	}
	if (m->path[0] != '/') {
		/* [vdso], [heap], anonymous: no file to read. */
		p->unknown++;
		object = m->path[0] ? m->path : "[anon]";
		snprintf(sym, sizeof(sym), "[unknown] %s+0x%" PRIx64, object,
			 r->pc - m->start + m->pgoff);
		return profile_entry(p, comm, object, "", sym, "");
	}
	path = m->path;
	object = base_name(path);
	ret = sym_resolve(p->syms, path, r->pc - m->start + m->pgoff, &name,
			  p->by_line ? src : NULL, sizeof(src));
	if (ret != 1) {
		p->unknown++;
		snprintf(sym, sizeof(sym), "[unknown] %s+0x%" PRIx64, path,
			 r->pc - m->start + m->pgoff);
		name = sym;
	}
	if (p->by_line && !src[0])
		snprintf(src, sizeof(src), "[unknown]");
	return profile_entry(p, comm, object, path, name, src);
}

/* ------------------------------------------------------------- reading */
static int profile_fail(struct prof *p, const char *what, const struct df_view *c,
			const char *err)
{
	if (c)
		fprintf(stderr, "pmuscope: %s: %s at byte %zu: %s\n", p->file, what, c->offset,
			err);
	else
		fprintf(stderr, "pmuscope: %s: %s\n", p->file, err);
	return 1;
}

/* First pass: the maps and names, the summary, every record checked. */
static int profile_scan(struct prof *p)
{
	struct df_view c;
	char err[512];
	size_t off = p->df.first_chunk;
	int ret;

	while ((ret = df_next(&p->df, &off, &c, err, sizeof(err))) == 1) {
		if (c.type == DF_CHUNK_MAPS) {
			struct df_maps m;

			memcpy(&m, c.payload, sizeof(m));
			if (maps_index_add(&p->maps, m.pid, m.reason, m.time,
					   (const char *)c.payload + sizeof(m), m.text_size))
				return profile_fail(p, "", NULL, strerror(ENOMEM));
		} else if (c.type == DF_CHUNK_COMM) {
			struct df_comm m;

			memcpy(&m, c.payload, sizeof(m));
			if (maps_index_add_comm(&p->maps, m.pid, m.tid, m.time, m.comm,
						sizeof(m.comm)))
				return profile_fail(p, "", NULL, strerror(ENOMEM));
		} else if (c.type == DF_CHUNK_END) {
			memcpy(&p->end, c.payload, sizeof(p->end));
			p->complete = 1;
		} else if (c.type == DF_CHUNK_RECORDS) {
			ret = df_check_records(&p->df, &c, err, sizeof(err));
			if (ret < 0)
				return profile_fail(p, "", NULL, err);
		}
	}
	if (ret < 0)
		return profile_fail(p, "bad file", NULL, err);
	if (maps_index_sort(&p->maps))
		return profile_fail(p, "", NULL, strerror(ENOMEM));
	return 0;
}

/* Second pass: every sample to its entry, with its counts' deltas. */
static int profile_samples(struct prof *p)
{
	static uint64_t prev[PMUSCOPE_MAX_CPUS][PMUSCOPE_MAX_EVENTS];
	static unsigned char known[PMUSCOPE_MAX_CPUS];
	unsigned int nev = p->df.info.nr_events;
	size_t off = p->df.first_chunk;
	struct df_view c;
	char err[256];

	/* Counts start at 0: record resets the counters before enabling them. */
	memset(prev, 0, sizeof(prev));
	memset(known, 1, sizeof(known));
	while (df_next(&p->df, &off, &c, err, sizeof(err)) == 1) {
		struct pmuscope_rec r;
		size_t roff = 0;

		if (c.type != DF_CHUNK_RECORDS)
			continue;
		while (pmuscope_record_next(c.payload, c.len, &roff, &r, err, sizeof(err)) == 1) {
			uint64_t delta[PMUSCOPE_MAX_EVENTS];
			int have = 0;
			struct entry *e;

			if (r.type == PMUSCOPE_REC_LOST) {
				p->lost += r.value;
				p->lost_records++;
				/* What ran meanwhile is not the next sample's. */
				if (r.cpu < PMUSCOPE_MAX_CPUS)
					known[r.cpu] = 0;
				continue;
			}
			if (r.type == PMUSCOPE_REC_THROTTLED) {
				p->throttled++;
				continue;
			}
			if (r.type != PMUSCOPE_REC_SAMPLE)
				continue;
			p->samples++;
			if (!p->first_time || r.time < p->first_time)
				p->first_time = r.time;
			if (r.time > p->last_time)
				p->last_time = r.time;
			if (r.cpu < PMUSCOPE_MAX_CPUS) {
				have = known[r.cpu] && r.nr >= nev;
				for (unsigned int i = 0; i < nev && i < r.nr; i++) {
					uint64_t v = pmuscope_rec_count(&r, i);

					if (v < prev[r.cpu][i])
						have = 0;	/* reset or gone back */
					delta[i] = v - prev[r.cpu][i];
					prev[r.cpu][i] = v;
				}
				known[r.cpu] = r.nr >= nev;
			}
			if (p->pid >= 0 && r.pid != (uint32_t)p->pid)
				continue;
			p->shown++;
			e = profile_place(p, &r);
			if (!e) {
				fprintf(stderr, "pmuscope: %s\n", strerror(ENOMEM));
				return 1;
			}
			e->samples++;
			if (have)
				for (unsigned int i = 0; i < nev; i++)
					e->delta[i] += delta[i];
		}
	}
	return 0;
}

/* ------------------------------------------------------------- output */
static double entry_metric(const struct prof *p, const struct entry *e, unsigned int m)
{
	int a = p->metric_ev[m][0], b = p->metric_ev[m][1];

	if (a < 0 || b < 0 || !e->delta[b])
		return NAN;
	return (double)e->delta[a] / (double)e->delta[b];
}

/* Which metrics the recorded events allow: same levels, not raw. */
static void profile_metric_events(struct prof *p)
{
	const struct df_info *in = &p->df.info;

	for (unsigned int m = 0; m < NMETRICS; m++) {
		p->metric_ev[m][0] = p->metric_ev[m][1] = -1;
		for (unsigned int i = 0; i < in->nr_events && p->metric_ev[m][0] < 0; i++) {
			if (in->evs[i].number != prof_metrics[m].num ||
			    (in->evs[i].flags & PMUSCOPE_EV_RAW))
				continue;
			for (unsigned int j = 0; j < in->nr_events; j++) {
				if (in->evs[j].number != prof_metrics[m].den ||
				    (in->evs[j].flags & PMUSCOPE_EV_RAW) ||
				    (in->evs[j].flags & PMUSCOPE_EV_ALL_EL) !=
				    (in->evs[i].flags & PMUSCOPE_EV_ALL_EL))
					continue;
				p->metric_ev[m][0] = i;
				p->metric_ev[m][1] = j;
				break;
			}
		}
	}
}

static int entry_order(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry * const *)a;
	const struct entry *y = *(const struct entry * const *)b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->delta[0] != y->delta[0])
		return x->delta[0] > y->delta[0] ? -1 : 1;
	c = strcmp(x->comm, y->comm);
	if (!c)
		c = strcmp(x->object, y->object);
	if (!c)
		c = strcmp(x->symbol, y->symbol);
	if (!c)
		c = strcmp(x->source, y->source);
	return c;
}

static double pct(const struct prof *p, const struct entry *e)
{
	return p->shown ? 100.0 * e->samples / p->shown : 0;
}

static void sampling_text(const struct prof *p, char *buf, size_t len)
{
	const struct df_info *in = &p->df.info;
	size_t off = 0;

	buf[0] = '\0';
	if (in->sample_index != PMUSCOPE_STREAM_NO_EVENT)
		off += snprintf(buf, len, "a sample every %" PRIu64 " %s", in->sample_period,
				p->keys[in->sample_index]);
	if (in->period_ms && off < len)
		snprintf(buf + off, len - off, "%severy %u ms", off ? " and " : "a sample ",
			 in->period_ms);
}

static void print_table(struct prof *p, struct entry **v, size_t n)
{
	const struct df_info *in = &p->df.info;
	char num[40], how[200];
	int wc = 7, wo = 6, ws = 6, wl = 6, wev[PMUSCOPE_MAX_EVENTS];
	int have_metric[NMETRICS];

	sampling_text(p, how, sizeof(how));
	printf("# pmuscope report of %s\n", p->file);
	printf("# recorded by:");
	for (int i = 0; i < in->argc; i++) {
		const char *a = in->argv[i];

		/* Quoted as a shell would want it, where it matters. */
		if (*a && !a[strcspn(a, " \t\n'\"\\$`*?;&|<>()")])
			printf(" %s", a);
		else
			printf(" '%s'", a);
	}
	printf("\n# events:");
	for (unsigned int i = 0; i < in->nr_events; i++)
		printf("%s %s", i ? "," : "", p->keys[i]);
	printf("; %s\n", how[0] ? how : "no sampling");
	if (in->freq)
		printf("# system counter: %" PRIu64 " Hz, samples over %.3f s\n", in->freq,
		       p->last_time > p->first_time ?
		       (double)(p->last_time - p->first_time) / in->freq : 0.0);
	printf("# %" PRIu64 " samples, lost %" PRIu64 " records, throttled %" PRIu64 " times\n",
	       p->samples, p->lost, p->throttled);
	if (p->pid >= 0)
		printf("# pid %ld: %" PRIu64 " samples\n", p->pid, p->shown);
	if (p->kernel || p->unknown)
		printf("# %" PRIu64 " in the kernel, %" PRIu64 " not resolved\n", p->kernel,
		       p->unknown);
	if (!p->complete)
		printf("# the recording did not finish (no END chunk): what was written\n");
	printf("#\n");
	for (size_t i = 0; i < n; i++) {
		int l;

		l = strlen(v[i]->comm);
		wc = l > wc ? l : wc;
		l = strlen(v[i]->object);
		wo = l > wo ? l : wo;
		l = strlen(v[i]->symbol);
		ws = l > ws ? l : ws;
		l = strlen(v[i]->source);
		wl = l > wl ? l : wl;
	}
	for (unsigned int k = 0; k < in->nr_events; k++) {
		wev[k] = strlen(p->keys[k]);
		for (size_t i = 0; i < n; i++) {
			int l;

			report_thousands(v[i]->delta[k], num, sizeof(num));
			l = strlen(num);
			wev[k] = l > wev[k] ? l : wev[k];
		}
	}
	for (unsigned int m = 0; m < NMETRICS; m++)
		have_metric[m] = p->metric_ev[m][0] >= 0;
	printf("# Overhead  Samples  %-*s  %-*s  %-*s", wc, "Command", wo, "Object", ws,
	       "Symbol");
	if (p->by_line)
		printf("  %-*s", wl, "Source");
	for (unsigned int k = 0; k < in->nr_events; k++)
		printf("  %*s", wev[k], p->keys[k]);
	for (unsigned int m = 0; m < NMETRICS; m++)
		if (have_metric[m])
			printf("  %*s", m ? 17 : 5, prof_metrics[m].name);
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = v[i];

		printf("  %7.2f%%  %7" PRIu64 "  %-*s  %-*s  %-*s", pct(p, e), e->samples, wc,
		       e->comm, wo, e->object, ws, e->symbol);
		if (p->by_line)
			printf("  %-*s", wl, e->source);
		for (unsigned int k = 0; k < in->nr_events; k++) {
			report_thousands(e->delta[k], num, sizeof(num));
			printf("  %*s", wev[k], num);
		}
		for (unsigned int m = 0; m < NMETRICS; m++) {
			double x = entry_metric(p, e, m);

			if (!have_metric[m])
				continue;
			if (isnan(x))
				snprintf(num, sizeof(num), "-");
			else if (prof_metrics[m].percent)
				snprintf(num, sizeof(num), "%.2f%%", 100 * x);
			else
				snprintf(num, sizeof(num), "%.2f", x);
			printf("  %*s", m ? 17 : 5, num);
		}
		printf("\n");
	}
}

static void json_num(double v)
{
	if (isnan(v) || isinf(v))
		printf("null");
	else
		printf("%.6g", v);
}

static void print_json(struct prof *p, struct entry **v, size_t n)
{
	const struct df_info *in = &p->df.info;
	char mods[8];
	int first = 1;

	printf("{\"type\":\"report\",\"file\":");
	report_json_str(stdout, p->file);
	printf(",\"format_version\":%u,\"freq\":%" PRIu64 ",\"command\":[", in->version, in->freq);
	for (int i = 0; i < in->argc; i++) {
		printf("%s", i ? "," : "");
		report_json_str(stdout, in->argv[i]);
	}
	printf("],\"sample_event\":");
	if (in->sample_index != PMUSCOPE_STREAM_NO_EVENT)
		report_json_str(stdout, p->keys[in->sample_index]);
	else
		printf("null");
	printf(",\"sample_period\":%" PRIu64 ",\"period_ms\":%u,\"events\":[",
	       in->sample_index != PMUSCOPE_STREAM_NO_EVENT ? in->sample_period : 0,
	       in->period_ms);
	for (unsigned int i = 0; i < in->nr_events; i++) {
		const struct pmuscope_event_spec *ev = &in->evs[i];

		pmuscope_modifiers_format(ev->flags, in->kernel_el, mods);
		printf("%s{\"key\":", i ? "," : "");
		report_json_str(stdout, p->keys[i]);
		printf(",\"event\":");
		report_json_str(stdout, ev->name);
		printf(",\"number\":%u,\"label\":", ev->number);
		report_json_str(stdout, ev->label);
		printf(",\"modifiers\":\"%s\",\"raw\":%s}", mods,
		       ev->flags & PMUSCOPE_EV_RAW ? "true" : "false");
	}
	printf("],\"sort\":\"%s\",\"pid\":", p->by_line ? "line" : "sym");
	if (p->pid >= 0)
		printf("%ld", p->pid);
	else
		printf("null");
	printf(",\"samples\":%" PRIu64 ",\"shown\":%" PRIu64 ",\"kernel\":%" PRIu64
	       ",\"unresolved\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"lost_records\":%" PRIu64
	       ",\"throttled\":%" PRIu64 ",\"complete\":%s,\"metrics\":[",
	       p->samples, p->shown, p->kernel, p->unknown, p->lost, p->lost_records,
	       p->throttled, p->complete ? "true" : "false");
	for (unsigned int m = 0; m < NMETRICS; m++) {
		if (p->metric_ev[m][0] < 0)
			continue;
		printf("%s\"%s\"", first ? "" : ",", prof_metrics[m].name);
		first = 0;
	}
	printf("],\"entries\":[");
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = v[i];

		printf("%s{\"overhead\":", i ? "," : "");
		json_num(pct(p, e));
		printf(",\"samples\":%" PRIu64 ",\"comm\":", e->samples);
		report_json_str(stdout, e->comm);
		printf(",\"object\":");
		report_json_str(stdout, e->object);
		printf(",\"path\":");
		if (e->path[0])
			report_json_str(stdout, e->path);
		else
			printf("null");
		printf(",\"symbol\":");
		report_json_str(stdout, e->symbol);
		printf(",\"source\":");
		if (p->by_line)
			report_json_str(stdout, e->source);
		else
			printf("null");
		printf(",\"counts\":{");
		for (unsigned int k = 0; k < in->nr_events; k++) {
			printf("%s", k ? "," : "");
			report_json_str(stdout, p->keys[k]);
			printf(":%" PRIu64, e->delta[k]);
		}
		printf("},\"metrics\":{");
		first = 1;
		for (unsigned int m = 0; m < NMETRICS; m++) {
			if (p->metric_ev[m][0] < 0)
				continue;
			printf("%s\"%s\":", first ? "" : ",", prof_metrics[m].name);
			json_num(entry_metric(p, e, m));
			first = 0;
		}
		printf("}}");
	}
	printf("]}\n");
}

static void csv_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_csv(struct prof *p, struct entry **v, size_t n)
{
	const struct df_info *in = &p->df.info;

	printf("overhead,samples,comm,object,symbol,source");
	for (unsigned int k = 0; k < in->nr_events; k++)
		printf(",%s", p->keys[k]);
	for (unsigned int m = 0; m < NMETRICS; m++)
		if (p->metric_ev[m][0] >= 0)
			printf(",%s", prof_metrics[m].name);
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = v[i];

		printf("%.4f,%" PRIu64 ",", pct(p, e), e->samples);
		csv_str(e->comm);
		putchar(',');
		csv_str(e->object);
		putchar(',');
		csv_str(e->symbol);
		putchar(',');
		csv_str(e->source);
		for (unsigned int k = 0; k < in->nr_events; k++)
			printf(",%" PRIu64, e->delta[k]);
		for (unsigned int m = 0; m < NMETRICS; m++) {
			double x = entry_metric(p, e, m);

			if (p->metric_ev[m][0] < 0)
				continue;
			if (isnan(x))
				printf(",");
			else
				printf(",%.6g", x);
		}
		printf("\n");
	}
}

static void profile_free(struct prof *p)
{
	for (size_t i = 0; i < p->nbuckets; i++) {
		struct entry *e, *next;

		for (e = p->buckets[i]; e; e = next) {
			next = e->next;
			free(e->comm);
			free(e->object);
			free(e->path);
			free(e->symbol);
			free(e->source);
			free(e);
		}
	}
	free(p->buckets);
	maps_index_free(&p->maps);
	sym_free(p->syms);
	df_close(&p->df);
}

/* ------------------------------------------------- call graphs (-g) */
/*
 * report -g, as perf report --children --stdio: an entry per distinct
 * key (--sort: comm, dso, sym) of the functions in the chains (inlined
 * functions are frames of the graphs, not entries), with Self (the
 * periods of the samples taken in it) and Children (of the samples whose
 * chain has it, once a sample), as percentages of the event's period,
 * each with the call graph of its samples: from the entry down to the
 * leaves (caller order: perf's default with --children) or up to the
 * roots (callee: perf's default with --no-children).
 */
enum cg_sort_key { SORT_COMM, SORT_DSO, SORT_SYM, NR_SORT_KEYS };

static const char *const cg_sort_names[NR_SORT_KEYS] = { "comm", "dso", "sym" };

enum cg_order { ORDER_DEFAULT, ORDER_CALLER, ORDER_CALLEE, ORDER_NONE };

struct gnode {
	const struct cg_frame *f;	/* its function (the first frame seen) */
	uint64_t period, samples;
	struct gnode **kids;
	size_t nkids, room;
	/* In cg_report's table of the graph's nodes, by parent and function. */
	struct gnode *parent, *hnext;
	uint64_t hash;
	size_t at;			/* its paths' place while the graph is built */
	uint32_t nth;			/* its place among its parent's children */
};

#define ENTRY_KERNEL	(1U << 0)	/* the key's frame is a kernel one */
#define ENTRY_KEY_DSO	(1U << 1)	/* the key has the frame's object */
#define ENTRY_KEY_SYM	(1U << 2)	/* and its symbol (or address) */
#define ENTRY_GRAPH	(1U << 3)	/* printed with a graph: its paths are filed */

/*
 * An entry, in cg_report.ents (64 bytes: deep chains of distinct
 * functions make one a frame). Its key: the thread's comm (or tid) and,
 * as ENTRY_KEY_* say, the object and symbol of @f, its first frame
 * (entry_dso(), entry_sym(), entry_addr()).
 */
struct cg_entry {
	const struct cg_frame *f;
	const char *comm;		/* interned; NULL: not a key */
	uint64_t self, children;	/* periods */
	uint32_t self_samples, children_samples;
	uint32_t hash;
	uint32_t tid;			/* a comm not known: ":TID" */
	uint32_t flags;			/* ENTRY_* */
	uint32_t last;			/* the last sample counted in @children, + 1 */
	uint32_t occ, nocc;		/* its paths: cg_report.occ[occ .. occ + nocc) */
};

/* A path of an entry's graph: sample @s's frames from @pos (cg_report.step). */
struct cg_occ {
	uint32_t s, pos;
};

struct cg_report {
	struct cg_profile p;
	int keys[NR_SORT_KEYS];		/* enum cg_sort_key in --sort's order */
	int nkeys;
	int keys_comm;			/* comm is a key */
	int children;			/* --children */
	enum cg_order order;
	double min_pct;			/* --percent-limit: entries under it not shown */
	double graph_pct;		/* graph branches under it not shown (perf: 0.5) */
	uint32_t event;
	uint64_t total, nsamples;	/* of @event */
	struct cg_entry *ents;		/* the entries, in the order met */
	uint32_t *slots;		/* open-addressed: an entry's index + 1 */
	size_t nentries, room, nslots;
	uint32_t key_flags;		/* ENTRY_KEY_* of --sort */
	struct gnode *graph;		/* the printed entry's, built as it is printed */
	/* The paths of every entry's graph, by entry; frames walked by @step. */
	struct cg_occ *occ, *occ_tmp;
	uint32_t *occ_kid;
	size_t nocc, max_nocc;
	long step;
	/* The graph being built: its nodes by parent and function. */
	struct gnode **gbuckets;
	size_t ngbuckets, ngnodes;
	/*
	 * The event's samples with the same chain, thread and comm, as one:
	 * by sample, their period and number at the first one, 0 at the others.
	 */
	uint64_t *gperiod;
	uint32_t *gcount;
	size_t nstacks;
	/* PMUSCOPE_REPORT_COUNTS: what the graphs cost. */
	uint64_t nodes_made, nodes_peak, path_steps;
};

static int has_key(const struct cg_report *r, enum cg_sort_key k)
{
	for (int i = 0; i < r->nkeys; i++)
		if (r->keys[i] == (int)k)
			return 1;
	return 0;
}

static const char *frame_name(const struct cg_frame *f, char *buf, size_t len)
{
	if (f->sym)
		return f->sym;
	snprintf(buf, len, "0x%016" PRIx64, f->addr);
	return buf;
}

static const char *dso_short(const char *dso)
{
	return dso[0] == '/' ? base_name(dso) : dso;
}

static const char *entry_dso(const struct cg_entry *e)
{
	return (e->flags & (ENTRY_KEY_DSO | ENTRY_KEY_SYM)) ? e->f->dso : NULL;
}

static const char *entry_sym(const struct cg_entry *e)
{
	return (e->flags & ENTRY_KEY_SYM) ? e->f->sym : NULL;
}

static uint64_t entry_addr(const struct cg_entry *e)
{
	return e->flags & ENTRY_KEY_SYM && !e->f->sym ? e->f->addr : 0;
}

static int entry_kernel(const struct cg_entry *e)
{
	return !!(e->flags & ENTRY_KERNEL);
}

/* @e's key as cg_entry_get() hashes it. */
static uint32_t entry_hash(const char *comm, uint32_t tid, const char *dso, const char *sym,
			   uint64_t addr, int kernel)
{
	uint64_t h = 14695981039346656037ULL;

	h = (h ^ (uintptr_t)comm) * 1099511628211ULL;
	h = (h ^ (uintptr_t)dso) * 1099511628211ULL;
	h = (h ^ (uintptr_t)sym) * 1099511628211ULL;
	h = (h ^ addr) * 1099511628211ULL;
	h = (h ^ tid) * 1099511628211ULL;
	h = (h ^ (uint64_t)kernel) * 1099511628211ULL;
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(h >> 32);
}

static int entry_slots_grow(struct cg_report *r)
{
	size_t n = r->nslots ? 2 * r->nslots : 1024;
	uint32_t *t = calloc(n, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < r->nentries; i++) {
		size_t j = r->ents[i].hash & (n - 1);

		while (t[j])
			j = (j + 1) & (n - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(r->slots);
	r->slots = t;
	r->nslots = n;
	return 0;
}

/* The entry of frame @f in sample @s, made if new: valid until the next one is made. */
static struct cg_entry *cg_entry_get(struct cg_report *r, const struct cg_sample *s,
				     const struct cg_frame *f)
{
	const char *comm = NULL, *dso = NULL, *sym = NULL;
	uint32_t tid = 0, h, flags = r->key_flags;
	uint64_t addr = 0;
	struct cg_entry *e;
	size_t j;

	if (r->keys_comm) {
		comm = s->comm;
		tid = s->comm[0] ? 0 : s->tid;
		if (!s->comm[0] && !s->pid)
			tid = UINT32_MAX;	/* swapper */
	}
	if (flags & (ENTRY_KEY_DSO | ENTRY_KEY_SYM))
		dso = f->dso;
	if (flags & ENTRY_KEY_SYM) {
		sym = f->sym;
		addr = f->sym ? 0 : f->addr;
	}
	if (f->flags & CG_FRAME_KERNEL)
		flags |= ENTRY_KERNEL;
	h = entry_hash(comm, tid, dso, sym, addr, !!(flags & ENTRY_KERNEL));
	if (4 * (r->nentries + 1) > 3 * r->nslots && entry_slots_grow(r))
		return NULL;
	for (j = h & (r->nslots - 1); r->slots[j]; j = (j + 1) & (r->nslots - 1)) {
		e = &r->ents[r->slots[j] - 1];
		if (e->hash == h && e->comm == comm && e->tid == tid &&
		    (e->flags & ~ENTRY_GRAPH) == flags &&
		    (e->f == f || (entry_dso(e) == dso && entry_sym(e) == sym &&
				   entry_addr(e) == addr)))
			return e;
	}
	if (r->nentries >= UINT32_MAX - 1)
		return NULL;
	if (r->nentries == r->room) {
		size_t m = r->room ? 2 * r->room : 256;
		struct cg_entry *x = realloc(r->ents, m * sizeof(*x));

		if (!x)
			return NULL;
		r->ents = x;
		r->room = m;
	}
	e = &r->ents[r->nentries];
	*e = (struct cg_entry){ .f = f, .comm = comm, .hash = h, .tid = tid, .flags = flags };
	r->slots[j] = (uint32_t)++r->nentries;
	return e;
}

/* Frames of a graph are one node per function (perf's default key). */
static int same_function(const struct cg_frame *a, const struct cg_frame *b)
{
	if (a == b)
		return 1;
	if ((a->flags ^ b->flags) & (CG_FRAME_INLINED | CG_FRAME_KERNEL) || a->dso != b->dso)
		return 0;
	return a->sym ? a->sym == b->sym : !b->sym && a->addr == b->addr;
}

static struct gnode *gnode_new(const struct cg_frame *f)
{
	struct gnode *n = calloc(1, sizeof(*n));

	if (n)
		n->f = f;
	return n;
}

/* The hash of @f's function (same_function()) under @parent. */
static uint64_t gnode_hash(const struct gnode *parent, const struct cg_frame *f)
{
	uint64_t h = 14695981039346656037ULL;

	h = (h ^ (uintptr_t)parent) * 1099511628211ULL;
	h = (h ^ (f->flags & (CG_FRAME_INLINED | CG_FRAME_KERNEL))) * 1099511628211ULL;
	h = (h ^ (uintptr_t)f->dso) * 1099511628211ULL;
	h = (h ^ (f->sym ? (uintptr_t)f->sym : f->addr)) * 1099511628211ULL;
	return h ^ h >> 29;
}

/* @k (a new child of @k->parent) into @r's table, grown when full. */
static int gnode_insert(struct cg_report *r, struct gnode *k)
{
	if (r->ngnodes >= r->ngbuckets) {
		size_t n = r->ngbuckets ? 2 * r->ngbuckets : 1024;
		struct gnode **nb = calloc(n, sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		for (size_t i = 0; i < r->ngbuckets; i++)
			for (struct gnode *g = r->gbuckets[i], *next; g; g = next) {
				next = g->hnext;
				g->hnext = nb[g->hash % n];
				nb[g->hash % n] = g;
			}
		free(r->gbuckets);
		r->gbuckets = nb;
		r->ngbuckets = n;
	}
	k->hnext = r->gbuckets[k->hash % r->ngbuckets];
	r->gbuckets[k->hash % r->ngbuckets] = k;
	r->ngnodes++;
	return 0;
}

static double cg_pct(const struct cg_report *r, uint64_t v)
{
	return r->total ? 100.0 * (double)v / (double)r->total : 0;
}

/* The child of @at for frame @f, made (the last of its children) if new. */
static struct gnode *gnode_child(struct cg_report *r, struct gnode *at, const struct cg_frame *f)
{
	uint64_t h = gnode_hash(at, f);
	struct gnode *k;

	if (r->ngbuckets)
		for (k = r->gbuckets[h % r->ngbuckets]; k; k = k->hnext)
			if (k->hash == h && k->parent == at && same_function(k->f, f))
				return k;
	if (at->nkids == at->room) {
		size_t m = at->room ? 2 * at->room : 4;
		struct gnode **x = realloc(at->kids, m * sizeof(*x));

		if (!x)
			return NULL;
		at->kids = x;
		at->room = m;
	}
	k = gnode_new(f);
	if (!k)
		return NULL;
	k->parent = at;
	k->hash = h;
	k->nth = at->nkids;
	if (gnode_insert(r, k)) {
		free(k);
		return NULL;
	}
	at->kids[at->nkids++] = k;
	r->nodes_made++;
	if (r->ngnodes > r->nodes_peak)
		r->nodes_peak = r->ngnodes;
	return k;
}

/*
 * The children of @at from its @n paths at @v (their frames at .pos):
 * in the order their first paths (samples) met them, as when each
 * sample's path is added in turn; then, each from its own paths, the
 * children of those that can be printed (of at least --percent-limit
 * of the period, graph_print()). The others stay leaves: what is built
 * of a graph is what is printed, however many paths are below. @tmp
 * has room for @n paths; @v's are left in any order.
 */
static int graph_build(struct cg_report *r, struct gnode *at, struct cg_occ *v,
		       struct cg_occ *tmp, size_t n)
{
	const struct cg_frame *f, *last = NULL;
	uint32_t *kid = r->occ_kid;
	struct gnode *k = NULL;
	size_t off = 0;

	r->path_steps += n;
	for (size_t i = 0; i < n; i++) {
		const struct cg_sample *s = &r->p.samples[v[i].s];

		kid[i] = UINT32_MAX;
		if (v[i].pos >= s->nr)
			continue;
		f = s->frames[v[i].pos];
		if (!k || f != last) {
			k = gnode_child(r, at, f);
			if (!k)
				return -ENOMEM;
			last = f;
		}
		k->period += r->gperiod[v[i].s];
		k->samples += r->gcount[v[i].s];
		k->at++;
		kid[i] = k->nth;
	}
	/* Each child's paths together, in their order, one frame further. */
	for (size_t j = 0; j < at->nkids; j++) {
		size_t c = at->kids[j]->at;

		at->kids[j]->at = off;
		off += c;
	}
	for (size_t i = 0; i < n; i++)
		if (kid[i] != UINT32_MAX)
			tmp[at->kids[kid[i]]->at++] = (struct cg_occ){
				.s = v[i].s, .pos = (uint32_t)((long)v[i].pos + r->step) };
	off = 0;
	for (size_t j = 0; j < at->nkids; j++) {
		struct gnode *c = at->kids[j];
		size_t start = off;

		off = c->at;
		if (cg_pct(r, c->period) >= r->graph_pct &&
		    graph_build(r, c, tmp + start, v + start, off - start))
			return -ENOMEM;
	}
	return 0;
}

static void graph_free(struct cg_report *r, struct gnode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		graph_free(r, n->kids[i]);
	/* The table holds this graph's nodes only: their buckets empty it. */
	if (n->parent)
		r->gbuckets[n->hash % r->ngbuckets] = NULL;
	free(n->kids);
	free(n);
}

static int gnode_order(const void *a, const void *b)
{
	const struct gnode *x = *(const struct gnode * const *)a;
	const struct gnode *y = *(const struct gnode * const *)b;
	char bx[24], by[24];

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(frame_name(x->f, bx, sizeof(bx)), frame_name(y->f, by, sizeof(by)));
}

static void gnode_sort(struct gnode *n)
{
	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), gnode_order);
	for (size_t i = 0; i < n->nkids; i++)
		gnode_sort(n->kids[i]);
}

/*
 * @e's graph (r->graph), from its paths, before it is printed; then
 * cg_entry_graph_free(). Its root has the entry's period (Children, or
 * Self without --children): the period of its paths, filed only for the
 * entries whose graph is printed (ENTRY_GRAPH).
 */
static int cg_entry_graph(struct cg_report *r, struct cg_entry *e)
{
	struct gnode *g;

	if (r->order == ORDER_NONE)
		return 0;
	g = gnode_new(NULL);
	if (!g)
		return -ENOMEM;
	r->graph = g;
	r->nodes_made++;
	g->period = r->children ? e->children : e->self;
	g->samples = r->children ? e->children_samples : e->self_samples;
	if (e->flags & ENTRY_GRAPH && cg_pct(r, g->period) >= r->graph_pct &&
	    graph_build(r, g, r->occ + e->occ, r->occ_tmp, e->nocc))
		return -ENOMEM;
	gnode_sort(g);
	return 0;
}

static void cg_entry_graph_free(struct cg_report *r)
{
	graph_free(r, r->graph);
	r->graph = NULL;
	r->ngnodes = 0;
}

/* A path of @e's graph: sample @idx's frames from @pos; pass 0 counts them. */
static void cg_report_path(struct cg_report *r, struct cg_entry *e, size_t idx, size_t pos,
			   int pass)
{
	if (!pass)
		e->nocc++;
	else if (e->flags & ENTRY_GRAPH)
		r->occ[e->occ + e->nocc++] = (struct cg_occ){ .s = (uint32_t)idx,
							    .pos = (uint32_t)pos };
}

/*
 * One sample into the entries of @r: pass 0 counts, pass 1 (the entries
 * known, those printed with a graph marked) files its paths, each graph's
 * one path a sample.
 */
static int cg_report_sample(struct cg_report *r, const struct cg_sample *s, size_t idx,
			    int pass)
{
	const struct cg_frame *const *v = s->frames;
	size_t n = s->nr, leaf = 0;
	struct cg_entry *e;

	/* The leaf's function: the first frame that is not an inlined one. */
	while (leaf < n && (v[leaf]->flags & CG_FRAME_INLINED))
		leaf++;
	if (leaf == n)
		return 0;
	e = cg_entry_get(r, s, v[leaf]);
	if (!e)
		return -ENOMEM;
	if (!pass) {
		r->total += r->gperiod[idx];
		r->nsamples += r->gcount[idx];
		e->self += r->gperiod[idx];
		e->self_samples += r->gcount[idx];
	}
	if (!r->children) {
		cg_report_path(r, e, idx, r->order == ORDER_CALLER ? n - 1 : 0, pass);
		return 0;
	}
	/* Children: each entry once, at its outermost frame. */
	for (size_t k = n; k-- > 0;) {
		if (v[k]->flags & CG_FRAME_INLINED)
			continue;
		e = cg_entry_get(r, s, v[k]);
		if (!e)
			return -ENOMEM;
		if (e->last == (uint32_t)idx + 1)
			continue;
		e->last = (uint32_t)idx + 1;
		if (!pass) {
			e->children += r->gperiod[idx];
			e->children_samples += r->gcount[idx];
		}
		cg_report_path(r, e, idx, k, pass);
	}
	return 0;
}

static void cg_entry_comm(const struct cg_entry *e, char *buf, size_t len)
{
	if (e->comm && e->comm[0])
		snprintf(buf, len, "%s", e->comm);
	else if (e->tid == UINT32_MAX)
		snprintf(buf, len, "swapper");
	else
		snprintf(buf, len, ":%u", e->tid);
}

/* "0x%016" PRIx64 into @buf (19 bytes). */
static void addr_text(char *buf, uint64_t a)
{
	buf[0] = '0';
	buf[1] = 'x';
	for (int i = 0; i < 16; i++)
		buf[2 + i] = "0123456789abcdef"[(a >> (60 - 4 * i)) & 15];
	buf[18] = '\0';
}

/* "[k] sym" or "[.] 0x...", cut to @len - 1 bytes (as snprintf() cuts it); its length. */
static size_t cg_entry_sym_text(const struct cg_entry *e, char *buf, size_t len)
{
	const char *sym = entry_sym(e);
	size_t n;

	memcpy(buf, entry_kernel(e) ? "[k] " : "[.] ", 4);
	if (sym) {
		n = strnlen(sym, len - 5);
		memcpy(buf + 4, sym, n);
	} else {
		addr_text(buf + 4, entry_addr(e));
		n = 18;
	}
	buf[4 + n] = '\0';
	return 4 + n;
}

static const char *cg_entry_sym(const struct cg_entry *e, char *buf, size_t len)
{
	cg_entry_sym_text(e, buf, len);
	return buf;
}

static int cg_entry_order(const void *a, const void *b)
{
	const struct cg_entry *x = *(const struct cg_entry * const *)a;
	const struct cg_entry *y = *(const struct cg_entry * const *)b;
	const char *xd, *yd, *xs, *ys;
	char bx[600], by[600];
	int c;

	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	/* As the printed names compare, without printing them when it can. */
	c = 0;
	if (x->comm != y->comm || x->tid != y->tid) {
		cg_entry_comm(x, bx, sizeof(bx));
		cg_entry_comm(y, by, sizeof(by));
		c = strcmp(bx, by);
	}
	xd = entry_dso(x);
	yd = entry_dso(y);
	if (!c && xd != yd)
		c = strcmp(xd ? xd : "", yd ? yd : "");
	if (c)
		return c;
	if (entry_kernel(x) != entry_kernel(y))	/* "[k] " after "[.] " */
		return entry_kernel(x) ? 1 : -1;
	xs = entry_sym(x);
	ys = entry_sym(y);
	if (xs && ys)				/* cg_entry_sym()'s, cut as it cuts them */
		return strncmp(xs, ys, sizeof(bx) - 5);
	if (!xs && !ys) {			/* "0x%016" PRIx64 */
		uint64_t xa = entry_addr(x), ya = entry_addr(y);

		return xa < ya ? -1 : xa > ya;
	}
	return strcmp(cg_entry_sym(x, bx, sizeof(bx)), cg_entry_sym(y, by, sizeof(by)));
}

static void graph_name(FILE *f, const struct cg_frame *fr)
{
	char buf[24];

	fputs(frame_name(fr, buf, sizeof(buf)), f);
	if (fr->flags & CG_FRAME_INLINED)
		fputs(" (inlined)", f);
	fputc('\n', f);
}

/* Below @n's line: its chain while it does not branch, then its branches. */
static void graph_print(const struct cg_report *r, const struct gnode *n, char *prefix,
			size_t plen, size_t room)
{
	size_t shown = 0, k = 0;

	while (n->nkids == 1 && n->kids[0]->period == n->period) {
		n = n->kids[0];
		fputs(prefix, stdout);
		graph_name(stdout, n->f);
	}
	for (size_t i = 0; i < n->nkids; i++)
		shown += cg_pct(r, n->kids[i]->period) >= r->graph_pct;
	for (size_t i = 0; i < n->nkids; i++) {
		const struct gnode *c = n->kids[i];
		int last;

		if (cg_pct(r, c->period) < r->graph_pct)
			continue;
		last = ++k == shown;
		printf("%s|\n%s%s--%.2f%%--", prefix, prefix, last ? " " : "|",
		       cg_pct(r, c->period));
		graph_name(stdout, c->f);
		if (plen + 12 < room) {
			memcpy(prefix + plen, last ? "           " : "|          ", 11);
			prefix[plen + 11] = '\0';
			graph_print(r, c, prefix, plen + 11, room);
			prefix[plen] = '\0';
		}
	}
}

static void cg_print_graph(const struct cg_report *r)
{
	const struct gnode *g = r->graph;
	char prefix[4096];

	if (!g)
		return;
	/* Under --percent-limit, as every branch (and as perf's graph,0.5): no graph. */
	if (cg_pct(r, g->period) < r->graph_pct) {
		printf("\n");
		return;
	}
	memset(prefix, ' ', 15);
	if (g->nkids == 1 && g->kids[0]->period == g->period) {
		/* One root: "---" and its name, as perf. */
		printf("            |\n            ---");
		graph_name(stdout, g->kids[0]->f);
		prefix[15] = '\0';
		graph_print(r, g->kids[0], prefix, 15, sizeof(prefix));
	} else {
		prefix[12] = '\0';
		graph_print(r, g, prefix, 12, sizeof(prefix));
	}
	printf("\n");
}

/* "%9.2f%%" of @v, remembered for the next entries' (most have the same). */
struct pct_text {
	uint64_t v;
	int valid;
	char buf[48];
};

static const char *pct_text(const struct cg_report *r, struct pct_text *t, uint64_t v)
{
	if (!t->valid || t->v != v) {
		snprintf(t->buf, sizeof(t->buf), "%9.2f%%", cg_pct(r, v));
		t->v = v;
		t->valid = 1;
	}
	return t->buf;
}

/* "  %-*s" of @s's @len bytes. */
static void put_field(const char *s, size_t len, int w)
{
	fputs("  ", stdout);
	fwrite(s, 1, len, stdout);
	for (int i = (int)len; i < w; i++)
		putchar(' ');
}

static int cg_print_table(struct cg_report *r, struct cg_entry **v, size_t n)
{
	char buf[600];
	int w[NR_SORT_KEYS] = { 7, 13, 6 };
	static const char *const head[NR_SORT_KEYS] = { "Command", "Shared Object", "Symbol" };
	struct pct_text tc = { 0 }, ts = { 0 };
	const char *dso = NULL;
	int l;

	printf("# Samples: %" PRIu64 "  of event '%s'\n", r->nsamples, r->p.events[r->event].label);
	printf("# Event count (approx.): %" PRIu64 "\n#\n", r->total);
	for (size_t i = 0; i < n; i++) {
		const char *d = entry_dso(v[i]), *sym = entry_sym(v[i]);

		if (!i || v[i]->comm != v[i - 1]->comm || v[i]->tid != v[i - 1]->tid) {
			cg_entry_comm(v[i], buf, sizeof(buf));
			l = strlen(buf);
			w[SORT_COMM] = l > w[SORT_COMM] ? l : w[SORT_COMM];
		}
		if (d && d != dso) {
			l = (int)strlen(dso_short(d));
			w[SORT_DSO] = l > w[SORT_DSO] ? l : w[SORT_DSO];
			dso = d;
		}
		/* cg_entry_sym()'s length */
		l = 4 + (int)(sym ? strnlen(sym, sizeof(buf) - 5) : 18);
		w[SORT_SYM] = l > w[SORT_SYM] ? l : w[SORT_SYM];
	}
	printf(r->children ? "# Children      Self" : "# Overhead");
	for (int k = 0; k < r->nkeys; k++)
		printf("  %-*s", k == r->nkeys - 1 ? 0 : w[r->keys[k]], head[r->keys[k]]);
	printf(r->children ? "\n# ........  ........" : "\n# ........");
	for (int k = 0; k < r->nkeys; k++) {
		printf("  ");
		for (int d = 0; d < w[r->keys[k]]; d++)
			putchar('.');
	}
	printf("\n#\n");
	for (size_t i = 0; i < n; i++) {
		struct cg_entry *e = v[i];

		if (r->children)
			fputs(pct_text(r, &tc, e->children), stdout);
		fputs(pct_text(r, &ts, e->self), stdout);
		for (int k = 0; k < r->nkeys; k++) {
			int width = k == r->nkeys - 1 ? 0 : w[r->keys[k]];
			const char *s;

			switch (r->keys[k]) {
			case SORT_COMM:
				cg_entry_comm(e, buf, sizeof(buf));
				put_field(buf, strlen(buf), width);
				break;
			case SORT_DSO:
				s = dso_short(entry_dso(e));
				put_field(s, strlen(s), width);
				break;
			default:
				put_field(buf, cg_entry_sym_text(e, buf, sizeof(buf)), width);
				break;
			}
		}
		putchar('\n');
		if (cg_entry_graph(r, e))
			return -ENOMEM;
		cg_print_graph(r);
		cg_entry_graph_free(r);
	}
	if (n && r->order == ORDER_NONE)
		printf("\n");
	return 0;
}

static void json_graph(const struct cg_report *r, const struct gnode *g);

static void json_calls(const struct cg_report *r, const struct gnode *g)
{
	printf("[");
	for (size_t i = 0, k = 0; i < g->nkids; i++) {
		if (cg_pct(r, g->kids[i]->period) < r->graph_pct)
			continue;
		printf("%s", k++ ? "," : "");
		json_graph(r, g->kids[i]);
	}
	printf("]");
}

static void json_graph(const struct cg_report *r, const struct gnode *g)
{
	char buf[24];

	printf("{\"symbol\":");
	report_json_str(stdout, frame_name(g->f, buf, sizeof(buf)));
	printf(",\"dso\":");
	report_json_str(stdout, g->f->dso);
	printf(",\"inlined\":%s,\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"percent\":",
	       g->f->flags & CG_FRAME_INLINED ? "true" : "false", g->samples, g->period);
	json_num(cg_pct(r, g->period));
	printf(",\"calls\":");
	json_calls(r, g);
	printf("}");
}

static int cg_print_json_event(struct cg_report *r, struct cg_entry **v, size_t n)
{
	char buf[600];

	printf("{\"event\":");
	report_json_str(stdout, r->p.events[r->event].label);
	printf(",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"entries\":[", r->nsamples,
	       r->total);
	for (size_t i = 0; i < n; i++) {
		struct cg_entry *e = v[i];

		printf("%s{\"children\":", i ? "," : "");
		if (r->children)
			json_num(cg_pct(r, e->children));
		else
			printf("null");
		printf(",\"self\":");
		json_num(cg_pct(r, e->self));
		printf(",\"children_period\":%" PRIu64 ",\"self_period\":%" PRIu64
		       ",\"children_samples\":%" PRIu32 ",\"self_samples\":%" PRIu32,
		       e->children, e->self, e->children_samples, e->self_samples);
		printf(",\"comm\":");
		if (has_key(r, SORT_COMM)) {
			cg_entry_comm(e, buf, sizeof(buf));
			report_json_str(stdout, buf);
		} else {
			printf("null");
		}
		printf(",\"dso\":");
		if (entry_dso(e))
			report_json_str(stdout, dso_short(entry_dso(e)));
		else
			printf("null");
		printf(",\"path\":");
		if (entry_dso(e) && entry_dso(e)[0] == '/')
			report_json_str(stdout, entry_dso(e));
		else
			printf("null");
		printf(",\"symbol\":");
		if (has_key(r, SORT_SYM))
			report_json_str(stdout, entry_sym(e) ? entry_sym(e) :
					frame_name(&(struct cg_frame){ .addr = entry_addr(e) },
						   buf, sizeof(buf)));
		else
			printf("null");
		printf(",\"kernel\":%s,\"callchain\":", entry_kernel(e) ? "true" : "false");
		if (cg_entry_graph(r, e))
			return -ENOMEM;
		if (r->graph)
			json_calls(r, r->graph);
		else
			printf("null");
		cg_entry_graph_free(r);
		printf("}");
	}
	printf("]}");
	return 0;
}

static void cg_report_reset(struct cg_report *r)
{
	cg_entry_graph_free(r);
	free(r->ents);
	free(r->slots);
	r->ents = NULL;
	r->slots = NULL;
	r->nentries = r->room = r->nslots = 0;
	free(r->occ);
	free(r->occ_tmp);
	free(r->occ_kid);
	r->occ = r->occ_tmp = NULL;
	r->occ_kid = NULL;
	r->nocc = r->max_nocc = 0;
	free(r->gbuckets);
	r->gbuckets = NULL;
	r->ngbuckets = r->ngnodes = 0;
	r->total = r->nsamples = 0;
	free(r->gperiod);
	free(r->gcount);
	r->gperiod = NULL;
	r->gcount = NULL;
	r->nstacks = 0;
}

static uint64_t stack_hash(const struct cg_sample *s)
{
	uint64_t h = 14695981039346656037ULL;

	h = (h ^ (uintptr_t)s->comm) * 1099511628211ULL;
	h = (h ^ s->tid) * 1099511628211ULL;
	h = (h ^ (uint64_t)(s->pid == 0)) * 1099511628211ULL;
	h = (h ^ s->nr) * 1099511628211ULL;
	for (uint32_t i = 0; i < s->nr; i++)
		h = (h ^ (uintptr_t)s->frames[i]) * 1099511628211ULL;
	return h ^ h >> 29;
}

static int same_stack(const struct cg_sample *a, const struct cg_sample *b)
{
	return a->comm == b->comm && a->tid == b->tid && !a->pid == !b->pid && a->nr == b->nr &&
	       !memcmp(a->frames, b->frames, a->nr * sizeof(*a->frames));
}

/*
 * Event @ev's samples of the same stack merged (r->gperiod, r->gcount):
 * the entries and graphs then take each stack once, in the order of
 * their first samples, as they would take its samples.
 */
static int cg_report_stacks(struct cg_report *r, uint32_t ev)
{
	size_t n = 2, m;
	uint32_t *slots;

	r->gperiod = calloc(r->p.nr_samples ? r->p.nr_samples : 1, sizeof(*r->gperiod));
	r->gcount = calloc(r->p.nr_samples ? r->p.nr_samples : 1, sizeof(*r->gcount));
	while (n < 2 * r->p.nr_samples)
		n *= 2;
	slots = calloc(n, sizeof(*slots));
	if (!r->gperiod || !r->gcount || !slots) {
		free(slots);
		return -ENOMEM;
	}
	m = n - 1;
	for (size_t i = 0; i < r->p.nr_samples; i++) {
		const struct cg_sample *s = &r->p.samples[i];
		size_t j;

		if (s->event != ev)
			continue;
		for (j = stack_hash(s) & m; slots[j]; j = (j + 1) & m)
			if (same_stack(&r->p.samples[slots[j] - 1], s))
				break;
		if (!slots[j]) {
			slots[j] = (uint32_t)i + 1;
			r->nstacks++;
		}
		r->gperiod[slots[j] - 1] += s->period;
		r->gcount[slots[j] - 1]++;
	}
	free(slots);
	return 0;
}

/* @e is printed: at --percent-limit, with a period (Self without --children). */
static int entry_shown(const struct cg_report *r, const struct cg_entry *e)
{
	return !(cg_pct(r, r->children ? e->children : e->self) < r->min_pct ||
		 (!r->children && !e->self));
}

/* The entries of event @ev, sorted, above --percent-limit: *@out, their number. */
static int cg_report_event(struct cg_report *r, uint32_t ev, struct cg_entry ***out, size_t *nout)
{
	struct cg_entry **v;
	size_t n = 0;

	cg_report_reset(r);
	r->event = ev;
	r->step = r->order == ORDER_CALLER ? -1 : 1;
	r->keys_comm = has_key(r, SORT_COMM);
	r->key_flags = (has_key(r, SORT_DSO) ? ENTRY_KEY_DSO : 0) |
		       (has_key(r, SORT_SYM) ? ENTRY_KEY_SYM : 0);
	if (r->p.nr_samples >= UINT32_MAX || cg_report_stacks(r, ev))
		return -ENOMEM;
	for (size_t i = 0; i < r->p.nr_samples; i++)
		if (r->gcount[i] && cg_report_sample(r, &r->p.samples[i], i, 0))
			return -ENOMEM;
	/*
	 * The graphs are built one at a time, each before its entry is
	 * printed, from the paths filed here: one a sample, for the entries
	 * that are printed with a graph (at the branches' threshold) only.
	 * Deep chains of distinct functions make an entry a frame, each in
	 * few samples, under the threshold: no path is filed for them.
	 */
	if (r->order != ORDER_NONE) {
		for (size_t i = 0; i < r->nentries; i++) {
			struct cg_entry *e = &r->ents[i];
			uint32_t c = e->nocc;

			e->last = 0;
			e->nocc = 0;
			if (!entry_shown(r, e) ||
			    cg_pct(r, r->children ? e->children : e->self) < r->graph_pct)
				continue;
			if (r->nocc + c >= UINT32_MAX)
				return -ENOMEM;
			e->flags |= ENTRY_GRAPH;
			e->occ = (uint32_t)r->nocc;
			r->nocc += c;
			if (c > r->max_nocc)
				r->max_nocc = c;
		}
	}
	if (r->nocc) {
		r->occ = malloc(r->nocc * sizeof(*r->occ));
		r->occ_tmp = malloc(r->max_nocc * sizeof(*r->occ_tmp));
		r->occ_kid = malloc(r->max_nocc * sizeof(*r->occ_kid));
		if (!r->occ || !r->occ_tmp || !r->occ_kid)
			return -ENOMEM;
		for (size_t i = 0; i < r->p.nr_samples; i++)
			if (r->gcount[i] && cg_report_sample(r, &r->p.samples[i], i, 1))
				return -ENOMEM;
	}
	v = calloc(r->nentries ? r->nentries : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nentries; i++)
		if (entry_shown(r, &r->ents[i]))
			v[n++] = &r->ents[i];
	qsort(v, n, sizeof(*v), cg_entry_order);
	*out = v;
	*nout = n;
	return 0;
}

/* ------------------------------------------------------------ --folded */
/*
 * One line per distinct stack, "comm;root;...;leaf count", sorted, as
 * perf script | stackcollapse-perf.pl makes them (its default options):
 * the comm with spaces as '_', the function names without offsets, a
 * frame without a symbol in a known object as "[object's base name]",
 * ';' in a name as ':', what follows a '(' dropped, quotes removed. The
 * count: samples, or (--folded-weight period) the sum of their periods,
 * as stackcollapse-perf.pl has made it since 2021 (Documentation/cli.rst).
 */
static void folded_frame(char *out, size_t len, const struct cg_frame *f)
{
	const char *s = f->sym;
	char tmp[600];
	size_t o = 0;

	if (!s) {
		if (strcmp(f->dso, "[unknown]") && !(f->flags & CG_FRAME_INLINED))
			snprintf(tmp, sizeof(tmp), "[%s]", base_name(f->dso));
		else
			snprintf(tmp, sizeof(tmp), "[unknown]");
		s = tmp;
	}
	for (; *s && o + 1 < len; s++) {
		if (*s == '(' && strncmp(s, "(anonymous namespace)", 21))
			break;
		if (*s == '"' || *s == '\'')
			continue;
		out[o++] = *s == ';' ? ':' : *s;
	}
	out[o] = '\0';
}

/*
 * The stacks are counted as they are met, each distinct one once: as the
 * numbers of its names (comm, then root to leaf), a name (folded_frame())
 * made once a frame and kept once; so is the memory bounded by the
 * distinct stacks' frames, not by the samples' nor by their names'
 * lengths. They are sorted as their lines would be (fold_cmp()).
 */
struct fold_stack {
	uint64_t hash, count;
	size_t off;			/* its names' numbers: fold.ids[off .. off + nr) */
	uint32_t nr;
	uint32_t next;			/* the next in its bucket, + 1; 0: none */
};

struct fold {
	char **names;			/* each distinct name once */
	size_t nnames, names_room;
	uint32_t *nbuckets_of;		/* names by hash: number + 1; 0: empty */
	size_t nnb;
	uint32_t *ids;			/* the stacks' names */
	size_t nids, ids_room;
	struct fold_stack *stacks;
	size_t nstacks, stacks_room;
	uint32_t *sbuckets;		/* stacks by hash: number + 1 */
	size_t nsb;
};

static const struct fold *fold_sorting;

/* What --folded kept: PMUSCOPE_REPORT_COUNTS prints it (the tests' bounds). */
struct report_counts {
	size_t fold_stacks, fold_names, fold_ids;
};

/* The number of name @s (made if new), or -1: no memory. */
static int64_t fold_name(struct fold *x, const char *s)
{
	uint64_t h = hash_str(14695981039346656037ULL, s);
	size_t k;

	if (2 * (x->nnames + 1) > x->nnb) {
		size_t n = x->nnb ? 2 * x->nnb : 1024;
		uint32_t *nb = calloc(n, sizeof(*nb));

		if (!nb)
			return -1;
		for (size_t i = 0; i < x->nnames; i++) {
			k = hash_str(14695981039346656037ULL, x->names[i]) & (n - 1);
			while (nb[k])
				k = (k + 1) & (n - 1);
			nb[k] = (uint32_t)i + 1;
		}
		free(x->nbuckets_of);
		x->nbuckets_of = nb;
		x->nnb = n;
	}
	for (k = h & (x->nnb - 1); x->nbuckets_of[k]; k = (k + 1) & (x->nnb - 1))
		if (!strcmp(x->names[x->nbuckets_of[k] - 1], s))
			return x->nbuckets_of[k] - 1;
	if (x->nnames == x->names_room) {
		size_t n = x->names_room ? 2 * x->names_room : 256;
		char **v = realloc(x->names, n * sizeof(*v));

		if (!v)
			return -1;
		x->names = v;
		x->names_room = n;
	}
	x->names[x->nnames] = strdup(s);
	if (!x->names[x->nnames])
		return -1;
	x->nbuckets_of[k] = (uint32_t)x->nnames + 1;
	return (int64_t)x->nnames++;
}

/* The stack of names @v[0 .. @nr) counted @count more times. */
static int fold_add(struct fold *x, const uint32_t *v, uint32_t nr, uint64_t count)
{
	uint64_t h = 14695981039346656037ULL;
	size_t b;

	for (uint32_t i = 0; i < nr; i++)
		h = (h ^ v[i]) * 1099511628211ULL;
	h ^= h >> 29;
	if (x->nstacks >= x->nsb) {
		size_t n = x->nsb ? 2 * x->nsb : 1024;
		uint32_t *nb = calloc(n, sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		for (size_t i = 0; i < x->nstacks; i++) {
			x->stacks[i].next = nb[x->stacks[i].hash % n];
			nb[x->stacks[i].hash % n] = (uint32_t)i + 1;
		}
		free(x->sbuckets);
		x->sbuckets = nb;
		x->nsb = n;
	}
	b = h % x->nsb;
	for (uint32_t i = x->sbuckets[b]; i; i = x->stacks[i - 1].next) {
		struct fold_stack *st = &x->stacks[i - 1];

		if (st->hash == h && st->nr == nr &&
		    !memcmp(x->ids + st->off, v, nr * sizeof(*v))) {
			st->count += count;
			return 0;
		}
	}
	if (x->nstacks == x->stacks_room) {
		size_t n = x->stacks_room ? 2 * x->stacks_room : 256;
		struct fold_stack *s = n < UINT32_MAX ? realloc(x->stacks, n * sizeof(*s)) : NULL;

		if (!s)
			return -ENOMEM;
		x->stacks = s;
		x->stacks_room = n;
	}
	if (x->nids + nr > x->ids_room) {
		size_t n = 2 * (x->nids + nr) + 1024;
		uint32_t *ids = realloc(x->ids, n * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		x->ids = ids;
		x->ids_room = n;
	}
	memcpy(x->ids + x->nids, v, nr * sizeof(*v));
	x->stacks[x->nstacks] = (struct fold_stack){ .hash = h, .count = count, .off = x->nids,
						    .nr = nr, .next = x->sbuckets[b] };
	x->sbuckets[b] = (uint32_t)++x->nstacks;
	x->nids += nr;
	return 0;
}

/* The characters of a stack's line (before the count) one at a time; -1 at the end. */
struct fold_it {
	const struct fold *x;
	const uint32_t *v;
	uint32_t nr, i;
	const char *c;
};

static int fold_next(struct fold_it *it)
{
	if (!*it->c) {
		if (++it->i >= it->nr)
			return -1;
		it->c = it->x->names[it->v[it->i]];
		return ';';
	}
	return (unsigned char)*it->c++;
}

static void fold_start(struct fold_it *it, const struct fold *x, const struct fold_stack *s)
{
	*it = (struct fold_it){ .x = x, .v = x->ids + s->off, .nr = s->nr,
				.c = x->names[x->ids[s->off]] };
}

/* As strcmp() of the two lines. */
static int fold_cmp(const void *a, const void *b)
{
	struct fold_it x, y;
	int cx, cy;

	fold_start(&x, fold_sorting, a);
	fold_start(&y, fold_sorting, b);
	do {
		cx = fold_next(&x);
		cy = fold_next(&y);
	} while (cx == cy && cx >= 0);
	return cx < cy ? -1 : cx > cy;
}

static void fold_free(struct fold *x)
{
	for (size_t i = 0; i < x->nnames; i++)
		free(x->names[i]);
	free(x->names);
	free(x->nbuckets_of);
	free(x->ids);
	free(x->stacks);
	free(x->sbuckets);
}

static int print_folded(const struct cg_profile *p, uint32_t ev, int by_period,
			struct report_counts *rc)
{
	struct fold x = { 0 };
	uint32_t *fid = calloc(p->nr_frames + 1, sizeof(*fid)), *v = NULL;
	size_t room = 0;
	char name[600], cbuf[24];
	int ret = -ENOMEM;

	if (!fid)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct cg_sample *s = &p->samples[i];
		const char *comm = cg_comm(s, cbuf, sizeof(cbuf));
		int64_t id;

		if (s->event != ev)
			continue;
		if (s->nr + 1 > room) {
			uint32_t *nv = realloc(v, (s->nr + 1) * sizeof(*v));

			if (!nv)
				goto out;
			v = nv;
			room = s->nr + 1;
		}
		snprintf(name, sizeof(name), "%s", comm);
		for (char *c = name; *c; c++)
			*c = *c == ' ' ? '_' : *c;
		id = fold_name(&x, name);
		if (id < 0)
			goto out;
		v[0] = (uint32_t)id;
		for (uint32_t k = 0; k < s->nr; k++) {
			const struct cg_frame *f = s->frames[s->nr - 1 - k];
			uint32_t *slot = f->id <= p->nr_frames ? &fid[f->id] : NULL;

			if (!slot || !*slot) {
				folded_frame(name, sizeof(name), f);
				id = fold_name(&x, name);
				if (id < 0)
					goto out;
				if (slot)
					*slot = (uint32_t)id + 1;
			} else {
				id = *slot - 1;
			}
			v[k + 1] = (uint32_t)id;
		}
		/* stackcollapse-perf.pl: a period of 0 (none printed) counts 1 */
		if (fold_add(&x, v, s->nr + 1, by_period && s->period ? s->period : 1))
			goto out;
	}
	fold_sorting = &x;
	qsort(x.stacks, x.nstacks, sizeof(*x.stacks), fold_cmp);
	for (size_t i = 0; i < x.nstacks;) {
		size_t j = i + 1;
		uint64_t count = x.stacks[i].count;
		struct fold_it it;
		int c;

		while (j < x.nstacks && !fold_cmp(&x.stacks[j], &x.stacks[i]))
			count += x.stacks[j++].count;
		fold_start(&it, &x, &x.stacks[i]);
		while ((c = fold_next(&it)) >= 0)
			putchar(c);
		printf(" %" PRIu64 "\n", count);
		i = j;
	}
	rc->fold_stacks = x.nstacks;
	rc->fold_names = x.nnames;
	rc->fold_ids = x.nids;
	ret = 0;
out:
	fold_free(&x);
	free(fid);
	free(v);
	return ret;
}

struct report_args {
	struct prof p;
	enum report_format fmt;
	const char *symfs;		/* --symfs */
	unsigned long long top;		/* -n */
	const char *sort;		/* --sort, checked once -g is known */
	int graph;			/* -g */
	enum cg_order order;		/* -g ORDER */
	int children;			/* --children 1, --no-children 0; -1 unset */
	double min_pct;			/* --percent-limit */
	int pct_set;
	int folded;			/* --folded */
	int folded_period;		/* --folded-weight period */
	const char *event;		/* -e */
	const char *flamegraph;		/* --flamegraph FILE */
	const char *pprof;		/* --pprof FILE */
};

static int report_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct report_args *a = ctx;

	switch (opt->value) {
	case 'p':
		return parse_pid(arg, 0, &a->p.pid) ? EXIT_USAGE : 0;
	case 's':
		a->sort = arg;
		return 0;
	case 'g':
		a->graph = 1;
		if (!strcmp(arg, "caller"))
			a->order = ORDER_CALLER;
		else if (!strcmp(arg, "callee"))
			a->order = ORDER_CALLEE;
		else if (!strcmp(arg, "none"))
			a->order = ORDER_NONE;
		else if (!strcmp(arg, "default"))
			a->order = ORDER_DEFAULT;
		else {
			fprintf(stderr, "pmuscope: -g takes caller, callee or none: '%s'\n", arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'C':
		a->children = 1;
		return 0;
	case 'N':
		a->children = 0;
		return 0;
	case 'l': {
		char *end;

		errno = 0;
		a->min_pct = strtod(arg, &end);
		if (errno || end == arg || *end || !(a->min_pct >= 0 && a->min_pct <= 100)) {
			fprintf(stderr, "pmuscope: --percent-limit needs a percentage, 0 to 100: '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		a->pct_set = 1;
		return 0;
	}
	case 'F':
		a->folded = 1;
		return 0;
	case 'W':
		if (!strcmp(arg, "period")) {
			a->folded_period = 1;
		} else if (strcmp(arg, "samples")) {
			fprintf(stderr, "pmuscope: --folded-weight takes samples or period: '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'n':
		if (parse_uint(arg, 1, 1000000000, &a->top)) {
			fprintf(stderr, "pmuscope: -n needs a number of rows, 1 or more: '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'J':
		a->fmt = REPORT_JSON;
		return 0;
	case 'V':
		a->fmt = REPORT_CSV;
		return 0;
	default:
		return 1;
	}
}

static const struct cli_option report_options[] = {
	OPT_STRING("input", 'i', "FILE", "the recording (default pmuscope.data)", struct report_args,
		   p.file),
	OPT_CALLBACK(NULL, 'n', "TOP", "the TOP first rows only", report_opt, 'n'),
	OPT_STRING("symfs", 0, "DIR", "look for the recorded files under DIR (a copy of the "
		   "recording machine's root)", struct report_args, symfs),
	OPT_CALLBACK("pid", 0, "PID", "the samples of process PID only", report_opt, 'p'),
	OPT_CALLBACK("sort", 0, "KEYS", "by function (sym), or by source line (line: where "
		     "the files have debug information); with -g: a list of comm, dso, sym "
		     "(default comm,dso,sym)", report_opt, 's'),
	OPT_CALLBACK("call-graph", 'g', "ORDER", "call graphs, children and self shares (as perf "
		     "report --children): -g alone, or -g caller, callee, none", report_opt, 'g'),
	OPT_CALLBACK("children", 0, NULL, "with -g: a function's share counts the samples of its "
		     "callees too (the default)", report_opt, 'C'),
	OPT_CALLBACK("no-children", 0, NULL, "with -g: self shares only", report_opt, 'N'),
	OPT_CALLBACK("percent-limit", 0, "PCT", "with -g: no entry nor branch under PCT percent "
		     "(default 0 and 0.5)", report_opt, 'l'),
	OPT_CALLBACK("folded", 0, NULL, "folded stacks: one line a stack, comm;root;...;leaf "
		     "COUNT (flamegraph.pl, speedscope)", report_opt, 'F'),
	OPT_CALLBACK("folded-weight", 0, "samples|period", "--folded counts samples (default) "
		     "or sums their periods (as stackcollapse-perf.pl since 2021)", report_opt,
		     'W'),
	OPT_STRING("flamegraph", 0, "FILE.svg", "an interactive SVG flame graph of the call "
		   "chains (a browser shows it)", struct report_args, flamegraph),
	OPT_STRING("pprof", 0, "FILE.pb.gz", "the call chains as pprof's gzipped profile.proto "
		   "(go tool pprof, Parca, Pyroscope)", struct report_args, pprof),
	OPT_STRING("event", 'e', "NAME", "with -g, --folded, --flamegraph: that recorded event's "
		   "samples only", struct report_args, event),
	OPT_CALLBACK("json", 0, NULL, "JSON output", report_opt, 'J'),
	OPT_CALLBACK("csv", 0, NULL, "CSV output", report_opt, 'V'),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

const struct cli_options report_cli = { "report", report_options, report_usage };

/* perf's -g takes its ORDER as an optional argument: "-g" alone is "-g default". */
static int is_order(const char *s)
{
	return !strcmp(s, "caller") || !strcmp(s, "callee") || !strcmp(s, "none");
}

static char **report_argv(int argc, char **argv)
{
	static char dflt[] = "--call-graph=default";
	char **v = calloc((size_t)argc + 1, sizeof(*v));
	int rest = 0;

	if (!v)
		return NULL;
	for (int i = 0; i < argc; i++) {
		v[i] = argv[i];
		if (!i || rest)
			continue;
		if (!strcmp(argv[i], "--"))
			rest = 1;
		else if ((!strcmp(argv[i], "-g") || !strcmp(argv[i], "--call-graph")) &&
			 (i + 1 >= argc || !is_order(argv[i + 1])))
			v[i] = dflt;
	}
	return v;
}

/* -g's --sort: a list of comm, dso, sym. */
static int parse_sort_keys(struct cg_report *r, const char *arg)
{
	char buf[128], *save = NULL;

	r->nkeys = 0;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = -1;

		for (int i = 0; i < NR_SORT_KEYS; i++)
			if (!strcmp(t, cg_sort_names[i]))
				k = i;
		if (k < 0 || has_key(r, k)) {
			fprintf(stderr, "pmuscope: --sort: %s key '%s': with -g the keys are comm, dso, sym (a comma-separated list, each once)\n",
				k < 0 ? "unknown" : "repeated", t);
			return EXIT_USAGE;
		}
		r->keys[r->nkeys++] = k;
	}
	if (!r->nkeys) {
		fprintf(stderr, "pmuscope: --sort: no key: with -g the keys are comm, dso, sym\n");
		return EXIT_USAGE;
	}
	return 0;
}

static int sampled(const struct cg_profile *p, uint32_t ev)
{
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->samples[i].event == ev)
			return 1;
	return 0;
}

/* -e NAME: the event of that label (as report shows it) or name; -1 none. */
static int find_event(const struct cg_profile *p, const char *name)
{
	for (uint32_t i = 0; i < p->nr_events; i++)
		if (!strcmp(p->events[i].label, name))
			return i;
	for (uint32_t i = 0; i < p->nr_events; i++)
		if (!strcasecmp(p->events[i].name, name))
			return i;
	return -1;
}

static void list_events(const struct cg_profile *p, int only_sampled)
{
	int n = 0;

	for (uint32_t i = 0; i < p->nr_events; i++)
		if (!only_sampled || sampled(p, i))
			fprintf(stderr, "%s%s", n++ ? ", " : "", p->events[i].label);
}

static void cg_print_head(const struct report_args *a, const struct cg_report *r)
{
	char **argv;
	int argc = cg_argv(&r->p, &argv);

	printf("# pmuscope report of %s\n# recorded by:", a->p.file);
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];

		if (*s && !s[strcspn(s, " \t\n'\"\\$`*?;&|<>()")])
			printf(" %s", s);
		else
			printf(" '%s'", s);
	}
	printf("\n# %" PRIu64 " samples, lost %" PRIu64 " records, throttled %" PRIu64 " times\n",
	       r->p.records, r->p.lost, r->p.throttled);
	if (a->p.pid >= 0)
		printf("# pid %ld: %zu samples\n", a->p.pid, r->p.nr_samples);
	if (!r->p.has_kallsyms)
		printf("# no kernel symbols in the recording: kernel frames are [unknown]\n");
	if (!r->p.complete)
		printf("# the recording did not finish (no END chunk): what was written\n");
	printf("#\n");
}

/* --flamegraph (of event @ev; -1: none sampled, the first) and --pprof. */
static int report_files(const struct report_args *a, const struct cg_profile *p, int ev)
{
	char err[512];

	if (a->flamegraph) {
		FILE *f = fopen(a->flamegraph, "we");
		int bad;

		if (!f) {
			fprintf(stderr, "pmuscope: cannot write %s: %s\n", a->flamegraph,
				strerror(errno));
			return 1;
		}
		bad = cg_flamegraph_write(f, p, ev < 0 ? 0 : ev, NULL, err, sizeof(err));
		if (fclose(f) && !bad) {
			snprintf(err, sizeof(err), "%s", strerror(errno));
			bad = 1;
		}
		if (bad) {
			fprintf(stderr, "pmuscope: %s: %s\n", a->flamegraph, err);
			return 1;
		}
		fprintf(stderr, "pmuscope report: flame graph of %s written to %s\n",
			p->events[ev < 0 ? 0 : ev].label, a->flamegraph);
	}
	if (a->pprof) {
		if (cg_pprof_write(a->pprof, p, err, sizeof(err))) {
			fprintf(stderr, "pmuscope: %s: %s\n", a->pprof, err);
			return 1;
		}
		fprintf(stderr, "pmuscope report: pprof profile written to %s\n", a->pprof);
	}
	return 0;
}

static int report_callgraph(struct report_args *a)
{
	struct cg_report r = { 0 };
	struct report_counts rc = { 0 };
	int ret, ev = -1, first = 1;

	if (a->fmt == REPORT_CSV || (a->folded && (a->fmt == REPORT_JSON || a->graph))) {
		fprintf(stderr, "pmuscope: %s\n", a->folded ?
			"--folded prints folded stacks: not with -g, --json or --csv" :
			a->graph ? "-g prints a table or --json, not --csv" :
			"--flamegraph and --pprof write files: no --csv");
		return EXIT_USAGE;
	}
	if (a->fmt == REPORT_JSON && !a->graph) {
		fprintf(stderr, "pmuscope: --flamegraph and --pprof write files: --json with -g only\n");
		return EXIT_USAGE;
	}
	ret = parse_sort_keys(&r, a->sort ? a->sort : "comm,dso,sym");
	if (ret)
		return ret;
	r.children = a->children < 0 ? 1 : a->children;
	/* perf report: caller order with --children, callee without. */
	r.order = a->order != ORDER_DEFAULT ? a->order : r.children ? ORDER_CALLER : ORDER_CALLEE;
	r.min_pct = a->pct_set ? a->min_pct : 0;
	r.graph_pct = a->pct_set ? a->min_pct : 0.5;
	ret = cg_load_cli(&r.p, a->p.file, &(struct cg_load_opts){ .symfs = a->symfs,
								     .pid = a->p.pid });
	if (ret)
		goto out;
	ret = EXIT_USAGE;
	if (a->event) {
		ev = find_event(&r.p, a->event);
		if (ev < 0) {
			fprintf(stderr, "pmuscope: -e %s: %s has no such event; its events: ",
				a->event, a->p.file);
			list_events(&r.p, 0);
			fprintf(stderr, "\n");
			goto out;
		}
	}
	if (a->folded || a->flamegraph) {
		if (ev < 0) {
			int n = 0;

			for (uint32_t i = 0; i < r.p.nr_events; i++)
				if (sampled(&r.p, i)) {
					n++;
					ev = i;
				}
			if (n > 1) {
				fprintf(stderr, "pmuscope: %s: several events were sampled (",
					a->p.file);
				list_events(&r.p, 1);
				fprintf(stderr, "): choose one with -e\n");
				goto out;
			}
		}
	}
	ret = report_files(a, &r.p, ev);
	if (ret || !(a->folded || a->graph))
		goto out;
	if (a->folded) {
		ret = ev >= 0 ? print_folded(&r.p, ev, a->folded_period, &rc) : 0;
		if (ret) {
			fprintf(stderr, "pmuscope: %s\n", strerror(-ret));
			ret = 1;
		}
		goto out;
	}
	if (a->fmt == REPORT_JSON) {
		printf("{\"type\":\"report\",\"file\":");
		report_json_str(stdout, a->p.file);
		printf(",\"call_graph\":\"%s\",\"children\":%s,\"sort\":[",
		       r.order == ORDER_CALLER ? "caller" : r.order == ORDER_CALLEE ? "callee" : "none",
		       r.children ? "true" : "false");
		for (int k = 0; k < r.nkeys; k++)
			printf("%s\"%s\"", k ? "," : "", cg_sort_names[r.keys[k]]);
		printf("],\"percent_limit\":");
		json_num(r.min_pct);
		printf(",\"pid\":");
		if (a->p.pid >= 0)
			printf("%ld", a->p.pid);
		else
			printf("null");
		printf(",\"samples\":%" PRIu64 ",\"shown\":%zu,\"lost\":%" PRIu64
		       ",\"throttled\":%" PRIu64 ",\"complete\":%s,\"kernel_symbols\":%s,\"events\":[",
		       r.p.records, r.p.nr_samples, r.p.lost, r.p.throttled,
		       r.p.complete ? "true" : "false", r.p.has_kallsyms ? "true" : "false");
	} else {
		cg_print_head(a, &r);
	}
	for (uint32_t i = 0; i < r.p.nr_events; i++) {
		struct cg_entry **v;
		size_t n;

		if (ev >= 0 ? (int)i != ev : !sampled(&r.p, i))
			continue;
		if (cg_report_event(&r, i, &v, &n)) {
			fprintf(stderr, "pmuscope: %s\n", strerror(ENOMEM));
			ret = 1;
			goto out;
		}
		if (a->top && a->top < n)
			n = a->top;
		if (a->fmt == REPORT_JSON) {
			printf("%s", first ? "" : ",");
			ret = cg_print_json_event(&r, v, n);
		} else {
			if (!first)
				printf("\n");
			ret = cg_print_table(&r, v, n);
		}
		first = 0;
		free(v);
		if (ret) {
			fflush(stdout);
			fprintf(stderr, "pmuscope: %s\n", strerror(ENOMEM));
			ret = 1;
			goto out;
		}
	}
	if (a->fmt == REPORT_JSON)
		printf("]}\n");
	ret = 0;
out:
	/* For the tests: what the graphs and --folded cost, counted. */
	if (getenv("PMUSCOPE_REPORT_COUNTS"))
		fprintf(stderr, "pmuscope report: counts: graph nodes %" PRIu64 ", at most %" PRIu64
			" at once, path steps %" PRIu64 ", paths %zu; folded stacks %zu, names %zu"
			", name numbers %zu; loaded frames %zu, resolved %zu, allocations %" PRIu64
			", bytes %" PRIu64 "\n", r.nodes_made, r.nodes_peak, r.path_steps, r.nocc,
			rc.fold_stacks, rc.fold_names, rc.fold_ids, r.p.nr_frames, r.p.nr_resolved,
			r.p.load_allocs, r.p.load_bytes);
	cg_report_reset(&r);
	cg_free(&r.p);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .p = { .file = "pmuscope.data", .pid = -1 }, .fmt = REPORT_TABLE,
				 .children = -1 };
	struct entry **rows = NULL;
	char err[512], **args;
	size_t n = 0;
	int ret;

	args = report_argv(argc, argv);
	if (!args) {
		fprintf(stderr, "pmuscope: %s\n", strerror(ENOMEM));
		return 1;
	}
	if (cli_parse(&report_cli, argc, args, &a, &ret)) {
		free(args);
		return ret;
	}
	if (optind < argc) {
		fprintf(stderr, "pmuscope: report takes no argument: '%s' (the file is -i FILE)\n",
			args[optind]);
		free(args);
		return EXIT_USAGE;
	}
	free(args);
	if (a.graph || a.folded || a.flamegraph || a.pprof)
		return report_callgraph(&a);
	if (a.children >= 0 || a.pct_set || a.event || a.folded_period) {
		fprintf(stderr, "pmuscope: --children, --no-children, --percent-limit and -e need -g or --folded (--folded-weight: --folded)\n");
		return EXIT_USAGE;
	}
	if (a.sort && !strcmp(a.sort, "line")) {
		a.p.by_line = 1;
	} else if (a.sort && strcmp(a.sort, "sym")) {
		fprintf(stderr, "pmuscope: --sort takes sym or line (lists of comm, dso, sym need -g): '%s'\n",
			a.sort);
		return EXIT_USAGE;
	}
	if (!sym_available()) {
		fprintf(stderr,
			"pmuscope: this pmuscope was built without elfutils: copy %s and run pmuscope report on a machine that has it, with --symfs\n",
			a.p.file);
		return EXIT_UNSUPPORTED;
	}
	ret = df_open(&a.p.df, a.p.file, err, sizeof(err));
	if (ret) {
		if (ret == -EBADMSG || ret == -EPROTO)
			fprintf(stderr, "pmuscope: %s: %s\n", a.p.file, err);
		else
			fprintf(stderr, "pmuscope: %s\n", err);
		return 1;
	}
	for (unsigned int i = 0; i < a.p.df.info.nr_events; i++)
		report_event_key(a.p.df.info.evs, i, a.p.df.info.kernel_el, a.p.keys[i],
				 sizeof(a.p.keys[i]));
	profile_metric_events(&a.p);
	a.p.syms = sym_new(a.symfs);
	ret = 1;
	if (!a.p.syms) {
		fprintf(stderr, "pmuscope: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (profile_scan(&a.p) || profile_samples(&a.p))
		goto out;
	if (!a.p.complete)
		fprintf(stderr, "pmuscope: %s: the recording did not finish (no END chunk): reporting what was written\n",
			a.p.file);
	rows = calloc(a.p.nentries ? a.p.nentries : 1, sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "pmuscope: %s\n", strerror(ENOMEM));
		goto out;
	}
	for (size_t b = 0; b < a.p.nbuckets; b++)
		for (struct entry *e = a.p.buckets[b]; e; e = e->next)
			rows[n++] = e;
	qsort(rows, n, sizeof(*rows), entry_order);
	if (a.top && a.top < n)
		n = a.top;
	if (a.fmt == REPORT_JSON)
		print_json(&a.p, rows, n);
	else if (a.fmt == REPORT_CSV)
		print_csv(&a.p, rows, n);
	else
		print_table(&a.p, rows, n);
	ret = 0;
out:
	free(rows);
	profile_free(&a.p);
	return ret;
}
